package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/spec"
)

var testWorld = sync.OnceValue(func() *fixtures.World {
	w, err := fixtures.Generate(42)
	if err != nil {
		panic(err)
	}
	return w
})

// clock is a settable time source for edit-window and rate-limit tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// harness runs a Server behind a real TLS listener and validates every
// response it gets against the reference profile's document.
type harness struct {
	t     *testing.T
	srv   *httptest.Server
	val   *spec.Validator
	world *fixtures.World
	clock *clock
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	c := &clock{t: time.Now()}
	if cfg.Now == nil {
		cfg.Now = c.now
	}
	w := testWorld()
	srv := httptest.NewUnstartedServer(New(w, cfg))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the plain-http test provokes a handshake error
	srv.StartTLS()
	t.Cleanup(srv.Close)
	val, err := spec.MustLoad(spec.Reference).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, srv: srv, val: val, world: w, clock: c}
}

type call struct {
	method, path string
	body         string
	user         int               // index into the world's users; -1 for no token
	header       map[string]string // extra or overriding headers
	invalid      bool              // a deliberately invalid request: skip request validation
	offAPI       bool              // not an operation of the document: validate nothing
}

type result struct {
	status int
	header http.Header
	body   []byte
}

func (r result) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

func (h *harness) token(i int) string  { return h.world.Users[i].Token }
func (h *harness) userID(i int) string { return h.world.Users[i].ID }

func (h *harness) do(c call) result {
	h.t.Helper()
	var body io.Reader
	if c.body != "" {
		body = bytes.NewBufferString(c.body)
	}
	req, err := http.NewRequest(c.method, h.srv.URL+c.path, body)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.user >= 0 {
		req.Header.Set("Authorization", "Bearer "+h.token(c.user))
	}
	for k, v := range c.header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	ctx := context.Background()
	if !c.invalid && !c.offAPI {
		if _, vs := h.val.CheckRequest(ctx, req, []byte(c.body)); len(vs) > 0 {
			h.t.Errorf("%s %s: the test sent an invalid request: %v", c.method, c.path, vs)
		}
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, vs := h.val.CheckResponse(ctx, req, resp.StatusCode, resp.Header, raw); len(vs) > 0 && !c.offAPI {
		h.t.Errorf("%s %s -> %d %s\nviolates the reference document: %v", c.method, c.path, resp.StatusCode, raw, vs)
	}
	if resp.StatusCode < 300 && resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		h.t.Errorf("%s %s: Content-Type %q", c.method, c.path, resp.Header.Get("Content-Type"))
	}
	return result{status: resp.StatusCode, header: resp.Header, body: raw}
}

// get is a GET as user 0.
func (h *harness) get(path string) result { h.t.Helper(); return h.do(call{method: "GET", path: path}) }

func (h *harness) send(user int, room, text string) MessageView {
	h.t.Helper()
	b, _ := json.Marshal(map[string]string{"text": text})
	r := h.do(call{method: "POST", path: "/v1/rooms/" + room + "/chatMessages", body: string(b), user: user})
	if r.status != 200 {
		h.t.Fatalf("send: %d %s", r.status, r.body)
	}
	var m MessageView
	r.decode(h.t, &m)
	return m
}

func (h *harness) list(user int, room, query string) []MessageView {
	h.t.Helper()
	r := h.do(call{method: "GET", path: "/v1/rooms/" + room + "/chatMessages" + query, user: user})
	if r.status != 200 {
		h.t.Fatalf("list %s: %d %s", query, r.status, r.body)
	}
	var ms []MessageView
	r.decode(h.t, &ms)
	return ms
}
