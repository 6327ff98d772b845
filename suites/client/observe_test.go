package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// observations collects what Config.Observe is given, copying the bodies as
// an observer must.
type observations struct {
	mu  sync.Mutex
	all []Observed
}

func (o *observations) observe(x Observed) {
	x.RequestBody = bytes.Clone(x.RequestBody)
	x.ResponseBody = bytes.Clone(x.ResponseBody)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.all = append(o.all, x)
}

func (o *observations) list() []Observed {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Observed(nil), o.all...)
}

const token2 = "fedcba9876543210fedcba9876543210fedcba98"

func observingClient(t *testing.T, h http.HandlerFunc) (*Client, *observations) {
	t.Helper()
	obs := &observations{}
	c, _ := newClient(t, h, func(cfg *Config) {
		cfg.Secrets = []string{token, token2}
		cfg.Observe = obs.observe
	})
	return c, obs
}

func TestObserveSeesEveryAnswerWhole(t *testing.T) {
	msg := `{"id":"m1","text":"` + strings.Repeat("x", 600) + `"}`
	page := "[" + strings.TrimSuffix(strings.Repeat(msg+",", 20), ",") + "]" // beyond the 4 KiB an Exchange keeps
	c, obs := observingClient(t, reply(200, page))
	before := time.Now()
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/rooms/r1/chatMessages", Query: map[string][]string{"limit": {"20"}}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	got := obs.list()
	if len(got) != 1 {
		t.Fatalf("%d observations", len(got))
	}
	o := got[0]
	if o.User != 0 || o.Method != "GET" || o.Path != "/v1/rooms/r1/chatMessages" || o.Query != "limit=20" || o.Operation != "listMessages" ||
		o.Status != 200 || o.Invalid || o.RequestBody != nil {
		t.Errorf("observed %+v", o)
	}
	if string(o.ResponseBody) != page || len(resp.Exchange.ResponseBody) >= len(page) {
		t.Errorf("body of %d bytes observed, %d recorded, %d sent", len(o.ResponseBody), len(resp.Exchange.ResponseBody), len(page))
	}
	if o.Reproduce == "" || o.Reproduce != resp.Exchange.Curl() || strings.Contains(o.Reproduce, token) {
		t.Errorf("reproduce %q", o.Reproduce)
	}
	if o.Start.Before(before) || o.End.Before(o.Start) || time.Since(o.End) < 0 {
		t.Errorf("start %v end %v", o.Start, o.End)
	}
}

func TestObserveNamesTheUserOfTheToken(t *testing.T) {
	c, obs := observingClient(t, reply(200, "["+user+"]"))
	for _, r := range []Request{
		{Method: "GET", Path: "/v1/user", Token: token},
		{Method: "GET", Path: "/v1/user", Token: token2, Place: QueryToken},
		{Method: "GET", Path: "/v1/user", Place: NoToken, Header: http.Header{"X-Access-Token": {token2}}},
		{Method: "GET", Path: "/v1/user", Place: NoToken},
		{Method: "GET", Path: "/v1/user", Token: "not-a-secret-of-this-run"},
		{Method: "GET", Path: "/v1/user", Token: "not-a-secret-of-this-run", Header: http.Header{"X-Access-Token": {token}}},
	} {
		if _, err := c.Do(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	var users []int
	for _, o := range obs.list() {
		users = append(users, o.User)
		for _, s := range []string{o.Path, o.Query, o.Reproduce, o.Operation} {
			if strings.Contains(s, token) || strings.Contains(s, token2) {
				t.Errorf("a token in %q", s)
			}
		}
	}
	if fmt.Sprint(users) != "[0 1 1 -1 -1 0]" {
		t.Errorf("users %v", users)
	}
	if q := obs.list()[1].Query; q != "access_token="+DefaultMarker {
		t.Errorf("query %q", q)
	}
}

func TestObserveCarriesTheRequestBodyAndInvalid(t *testing.T) {
	c, obs := observingClient(t, reply(400, `{"error":"Bad Request"}`))
	if _, err := c.Do(context.Background(), Request{Method: "POST", Path: "/v1/rooms/r1/chatMessages", Token: token, Body: map[string]string{"text": ""}, Invalid: true}); err != nil {
		t.Fatal(err)
	}
	o := obs.list()[0]
	if string(o.RequestBody) != `{"text":""}` || !o.Invalid || o.Status != 400 || o.Operation != "sendMessage" || string(o.ResponseBody) != `{"error":"Bad Request"}` {
		t.Errorf("observed %+v", o)
	}
}

func TestObserveOncePerAnswerAndNeverForTransportFailures(t *testing.T) {
	var calls atomic.Int32
	c, obs := observingClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			reply(429, `{"error":"Too Many Requests"}`)(w, r)
			return
		}
		reply(200, "["+user+"]")(w, r)
	})
	if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token}); err != nil {
		t.Fatal(err)
	}
	if got := obs.list(); len(got) != 2 || got[0].Status != 429 || got[1].Status != 200 {
		t.Errorf("observed %d answers: %+v", len(got), got)
	}

	slow, slowObs := observingClient(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		reply(200, "[]")(w, r)
	})
	slow.cfg.Timeout = 20 * time.Millisecond
	_, err := slow.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token})
	var te *TransportError
	if !errors.As(err, &te) || len(slowObs.list()) != 0 {
		t.Errorf("transport failure: %v, %d observations", err, len(slowObs.list()))
	}
}

func TestObserveConcurrently(t *testing.T) {
	c, obs := observingClient(t, reply(200, "["+user+"]"))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			tok := []string{token, token2}[i%2]
			if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: tok}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	n := [2]int{}
	for _, o := range obs.list() {
		n[o.User]++
	}
	if n != [2]int{8, 8} {
		t.Errorf("per user %v", n)
	}
}

// A session cookie is a credential nobody listed as a secret: neither its
// value in the answer's Set-Cookie nor the same value sent back in a Cookie
// header is kept, in the exchange or in its curl command.
func TestSessionCookiesAreNotKept(t *testing.T) {
	const session = "sid_q8x2kd0w"
	c, obs := observingClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "chat_sid="+session+"; Path=/; HttpOnly")
		reply(200, "["+user+"]")(w, r)
	})
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token,
		Header: http.Header{"Cookie": {"chat_sid=" + session + "; theme=dark"}}})
	if err != nil {
		t.Fatal(err)
	}
	x := resp.Exchange
	if got := x.ResponseHeader.Get("Set-Cookie"); got != "chat_sid=REDACTED; Path=/; HttpOnly" {
		t.Errorf("Set-Cookie kept as %q", got)
	}
	if !strings.Contains(x.Curl(), "Cookie: chat_sid=REDACTED; theme=REDACTED") {
		t.Errorf("curl %q", x.Curl())
	}
	for _, o := range obs.list() {
		if strings.Contains(o.Reproduce, session) {
			t.Errorf("observed reproduce %q", o.Reproduce)
		}
	}
	if b, _ := json.Marshal(x); strings.Contains(string(b), session) {
		t.Errorf("the exchange keeps the session: %s", b)
	}
}
