// Package recordtest holds what the tests of records and attestations share:
// a reference server with planted faults, a small client session, and a
// record of it.
package recordtest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/target"
)

// Seed is the seed of the world StartReference serves.
const Seed = 7

// StartReference serves the reference server of Seed over TLS on loopback,
// each answer passed through fault (nil: none), describes it and writes the
// CA file the description names. The server stops with the test.
func StartReference(t testing.TB, fault func(http.Handler) http.Handler) *target.Description {
	t.Helper()
	world, err := fixtures.Generate(Seed)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = reference.New(world, reference.Config{})
	if fault != nil {
		h = fault(h)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // a run probes plain HTTP on purpose
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	d := target.FromWorld(world, srv.URL)
	d.CAFile = ca
	return d
}

// Rewrite answers with the handler's answer, its JSON body passed through
// edit, for the requests match accepts.
func Rewrite(match func(*http.Request) bool, edit func(any) any) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var v any
			if rec.Code == 200 && json.Unmarshal(body, &v) == nil {
				body, _ = json.Marshal(edit(v))
			}
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
}

// Faults plants two faults: a read by id answers readBy as a string (a
// violation of the document, UNREAD-READBY), and every page of messages
// lists its first message twice (a contradiction the history checker
// finds, PAGE-UNIQUE).
func Faults(next http.Handler) http.Handler {
	isGetOne := func(r *http.Request) bool {
		return r.Method == "GET" && strings.Count(r.URL.Path, "/") == 5 && strings.Contains(r.URL.Path, "/chatMessages/")
	}
	isList := func(r *http.Request) bool { return r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/chatMessages") }
	h := Rewrite(isGetOne, func(v any) any {
		if m, ok := v.(map[string]any); ok {
			m["readBy"] = "0"
		}
		return v
	})(next)
	return Rewrite(isList, func(v any) any {
		if a, ok := v.([]any); ok && len(a) > 0 {
			return append(a, a[0])
		}
		return v
	})(h)
}

// SessionExchanges is how many exchanges Session makes.
const SessionExchanges = 8

// Session drives a small session through c: the user, rooms, a page, a
// send, a read by id, an edit, a page again and the user with the token in
// the query.
func Session(t testing.TB, c *client.Client, d *target.Description) {
	t.Helper()
	ctx := context.Background()
	tok := d.Users[0].Token
	do := func(r client.Request) *client.Response {
		r.Token = tok
		resp, err := c.Do(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	do(client.Request{Method: "GET", Path: "/v1/user"})
	do(client.Request{Method: "GET", Path: "/v1/user/me/rooms"})
	list := "/v1/rooms/" + d.WriteRoom + "/chatMessages"
	do(client.Request{Method: "GET", Path: list, Query: map[string][]string{"limit": {"5"}}})
	sent := do(client.Request{Method: "POST", Path: list, Body: map[string]any{"text": "hello from the record test"}})
	var m struct{ ID string }
	if err := json.Unmarshal(sent.Body, &m); err != nil || m.ID == "" {
		t.Fatalf("send: %s", sent.Body)
	}
	do(client.Request{Method: "GET", Path: list + "/" + m.ID})
	do(client.Request{Method: "PUT", Path: list + "/" + m.ID, Body: map[string]any{"text": "edited"}})
	do(client.Request{Method: "GET", Path: list, Query: map[string][]string{"limit": {"5"}}})
	do(client.Request{Method: "GET", Path: "/v1/user", Place: client.QueryToken})
}

// Client is a validating client for d (reference profile) that tells
// observe of every exchange.
func Client(t testing.TB, d *target.Description, observe func(client.Observed)) *client.Client {
	t.Helper()
	cc, err := d.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cc.Validator, err = spec.MustLoad(spec.Reference).NewValidator(d.MountPath()); err != nil {
		t.Fatal(err)
	}
	cc.Observe = observe
	c, err := client.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Record records Session against d and returns the record's bytes.
func Record(t testing.TB, d *target.Description) []byte {
	t.Helper()
	var buf bytes.Buffer
	red := client.NewRedactor(d.Secrets()...)
	w, err := record.NewWriter(&buf, record.Header{Version: "test", Seed: Seed, Profile: "reference", Target: d.BaseURL, MountPath: d.MountPath(),
		Users: len(d.Users)}, red, true)
	if err != nil {
		t.Fatal(err)
	}
	Session(t, Client(t, d, w.Observe), d)
	tr, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if tr.Exchanges != SessionExchanges {
		t.Fatalf("trailer counts %d exchanges, want %d", tr.Exchanges, SessionExchanges)
	}
	return buf.Bytes()
}
