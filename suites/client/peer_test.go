package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
)

// An observer is told which server answered: the address dialled, the
// socket's other end, and the fingerprints of the certificates presented;
// the answers of one connection share one Peer; a plain-http probe says it
// saw no TLS.
func TestObservedPeerNamesTheServerAndItsCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(reply(200, user))
	defer srv.Close()
	v, err := spec.MustLoad(spec.Core).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	obs := &observations{}
	c, err := New(Config{BaseURL: srv.URL, HTTP: srv.Client(), Validator: v, Secrets: []string{token}, Observe: obs.observe})
	if err != nil {
		t.Fatal(err)
	}
	want := Fingerprint(srv.Certificate().Raw)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := obs.list()
	if len(got) != 8 {
		t.Fatalf("%d observations", len(got))
	}
	addr := strings.TrimPrefix(srv.URL, "https://")
	for _, o := range got {
		p := o.Peer
		if p == nil || !p.TLS || p.Address != addr || p.Remote != addr || p.Leaf() != want || len(p.Chain) != 1 {
			t.Fatalf("peer %+v, want address and remote %s, leaf %s", p, addr, want)
		}
	}

	// The plain-http probe goes to the same host and port, without TLS.
	if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", PlainHTTP: true}); err != nil {
		t.Fatal(err)
	}
	all := obs.list()
	if p := all[len(all)-1].Peer; p == nil || p.TLS || p.Chain != nil || p.Address != addr || p.Leaf() != "" {
		t.Errorf("the plain-http probe's peer: %+v", p)
	}
}

// Probe reports the certificate of any https server, whatever it answers,
// and fails with a typed, bounded error when nothing answers.
func TestProbe(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	p, err := Probe(context.Background(), srv.Client(), srv.URL+"/somewhere")
	if err != nil {
		t.Fatal(err)
	}
	if !p.TLS || p.Leaf() != Fingerprint(srv.Certificate().Raw) || p.Address != strings.TrimPrefix(srv.URL, "https://") || p.Remote == "" {
		t.Errorf("probe: %+v", p)
	}

	// A port that accepts and never speaks TLS: the deadline ends it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, conn)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Probe(ctx, NewHTTPClient(nil), "https://"+ln.Addr().String())
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindTimeout || time.Since(start) > 5*time.Second {
		t.Errorf("a silent server: %v (%T) after %s", err, err, time.Since(start))
	}

	// Nothing listening: a connect failure.
	addr := ln.Addr().String()
	ln.Close()
	_, err = Probe(context.Background(), NewHTTPClient(nil), "https://"+addr)
	if !errors.As(err, &te) || te.Kind != KindConnect {
		t.Errorf("a closed port: %v", err)
	}
	// A self-signed certificate the client does not trust: a TLS failure.
	_, err = Probe(context.Background(), NewHTTPClient(nil), srv.URL)
	if !errors.As(err, &te) || te.Kind != KindTLS {
		t.Errorf("an untrusted certificate: %v", err)
	}
	for _, bad := range []string{"", "ftp://x", "https://", "https://user:pw@example.com", "%zz"} {
		if _, err := Probe(context.Background(), NewHTTPClient(nil), bad); err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("Probe(%q): %v", bad, err)
		}
	}
}
