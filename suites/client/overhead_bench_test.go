package client_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/reference/localtls"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// BenchmarkHarnessOverhead measures what the harness adds to a request,
// against the reference server's own time for the same request. The server
// runs in-process with the configuration chatref and bundled use (HTTPS on
// 127.0.0.1, the hardened http.Server), and each request is sent one at a
// time:
//
//   - server: the handler alone (httptest recorder, no network): the
//     server's own time;
//   - http: a bare GET with the harness's http.Client, body read in full:
//     the server, TLS and the transport on both sides;
//   - client/<profile>: client.Client.Do over the same connection pool,
//     with validation of both sides and a Recorder.
//
// client minus http is the harness's own cost per request. cpu-ns/op counts
// the CPU time of the whole process (server and client share it), which a
// busy machine disturbs less than wall time.
func BenchmarkHarnessOverhead(b *testing.B) {
	world, err := fixtures.Generate(42)
	if err != nil {
		b.Fatal(err)
	}
	handler := reference.New(world, reference.Config{})
	cert, caPEM, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := localtls.Start(reference.NewHTTPServer(handler, localtls.Config(cert), nil), localtls.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	hc := client.NewHTTPClient(&tls.Config{RootCAs: roots})
	base := srv.URL
	token := world.Users[0].Token

	for _, ep := range []struct{ name, path string }{
		{"page100", "/v1/rooms/" + world.Hints.Org + "/chatMessages?limit=100"},
		{"user", "/v1/user"},
	} {
		b.Run(ep.name+"/server", func(b *testing.B) {
			measure(b, func() {
				req := httptest.NewRequest("GET", ep.path, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			})
		})
		b.Run(ep.name+"/http", func(b *testing.B) {
			measure(b, func() {
				req, _ := http.NewRequest("GET", base+ep.path, nil)
				req.Header.Set("Accept", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					b.Fatal(resp.Status, err)
				}
			})
		})
		for _, p := range spec.Profiles {
			v, err := spec.MustLoad(p).NewValidator("")
			if err != nil {
				b.Fatal(err)
			}
			c, err := client.New(client.Config{BaseURL: base, HTTP: hc, Validator: v, Secrets: []string{token}, Recorder: &client.Recorder{Limit: 2000}})
			if err != nil {
				b.Fatal(err)
			}
			path, query := ep.path, map[string][]string(nil)
			if u, q, ok := cut(ep.path); ok {
				path, query = u, q
			}
			b.Run(ep.name+"/client/"+string(p), func(b *testing.B) {
				measure(b, func() {
					resp, err := c.Do(context.Background(), client.Request{Method: "GET", Path: path, Query: query, Token: token})
					if err != nil {
						b.Fatal(err)
					}
					if resp.Status != 200 || len(resp.Violations) > 0 {
						b.Fatal(resp.Status, resp.Violations)
					}
				})
			})
		}
	}
}

// cut splits "/path?limit=100" into the path and its query.
func cut(target string) (string, map[string][]string, bool) {
	u, err := http.NewRequest("GET", "https://x"+target, nil)
	if err != nil || u.URL.RawQuery == "" {
		return "", nil, false
	}
	return u.URL.Path, u.URL.Query(), true
}

// measure runs f once per iteration and adds cpu-ns/op.
func measure(b *testing.B, f func()) {
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
