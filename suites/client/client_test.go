package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
)

const token = "0123456789abcdef0123456789abcdef01234567"

func newClient(t *testing.T, h http.HandlerFunc, mutate func(*Config)) (*Client, *Recorder) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	v, err := spec.MustLoad(spec.Core).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{}
	cfg := Config{BaseURL: srv.URL, HTTP: srv.Client(), Validator: v, Secrets: []string{token}, Recorder: rec}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

func reply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

const user = `{"id":"u1","username":"ada","displayName":"Ada","url":"/ada","avatarUrlSmall":"https://a.test/s","avatarUrlMedium":"https://a.test/m"}`

func TestValidResponse(t *testing.T) {
	c, _ := newClient(t, reply(200, "["+user+"]"), nil)
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	var users []map[string]any
	if resp.Operation != "getCurrentUser" || resp.Status != 200 || resp.Err() != nil || resp.JSON(&users) != nil || users[0]["username"] != "ada" {
		t.Fatalf("%+v", resp)
	}
}

func TestSchemaViolationNamesOperationPathRuleAndValue(t *testing.T) {
	c, _ := newClient(t, reply(200, `[`+strings.Replace(user, `"url":"/ada"`, `"url":42`, 1)+`]`), nil)
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Violations) != 1 {
		t.Fatalf("violations: %v", resp.Violations)
	}
	v := resp.Violations[0]
	if v.Operation != "getCurrentUser" || v.Side != "response" || v.Location != "$[0].url" || v.Rule != "type" || v.Value != float64(42) {
		t.Errorf("violation %+v", v)
	}
	var ve *ViolationError
	if err := resp.Err(); !errors.As(err, &ve) || !strings.Contains(err.Error(), "$[0].url") {
		t.Errorf("Err() = %v", err)
	}
}

func TestUndocumentedStatusIsAViolation(t *testing.T) {
	c, _ := newClient(t, reply(201, "{}"), nil)
	resp, err := c.Do(context.Background(), Request{Method: "POST", Path: "/v1/rooms/r1/chatMessages", Token: token, Body: map[string]string{"text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	// The status first; then the body, read as the documented 200 it
	// stands for, lacks every field of a message.
	if len(resp.Violations) < 2 || resp.Violations[0].Rule != "status" || resp.Violations[0].Value != 201 || resp.Violations[1].Rule != "required" {
		t.Errorf("violations: %v", resp.Violations)
	}
}

func TestInvalidRequestsSkipOnlyRequestValidation(t *testing.T) {
	c, _ := newClient(t, reply(200, "{}"), nil)
	bad := Request{Method: "POST", Path: "/v1/rooms/r1/chatMessages", Token: token, Body: map[string]any{"status": true}}
	resp, err := c.Do(context.Background(), bad)
	if err != nil {
		t.Fatal(err)
	}
	if !has(resp.Violations, "request", "required") {
		t.Errorf("an unflagged bad request must be reported: %v", resp.Violations)
	}
	bad.Invalid = true
	resp, err = c.Do(context.Background(), bad)
	if err != nil {
		t.Fatal(err)
	}
	if has(resp.Violations, "request", "") || !has(resp.Violations, "response", "required") {
		t.Errorf("flagged request: want only response violations, got %v", resp.Violations)
	}
	if resp.Operation != "sendMessage" {
		t.Errorf("operation %q", resp.Operation)
	}
}

func has(vs []spec.Violation, side, rule string) bool {
	for _, v := range vs {
		if v.Side == side && (rule == "" || v.Rule == rule) {
			return true
		}
	}
	return false
}

func TestTransportFailures(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		reply(200, "[]")(w, r)
	}
	c, _ := newClient(t, slow, func(c *Config) { c.Timeout = 50 * time.Millisecond })
	_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token, Place: QueryToken})
	var te *TransportError
	if !errors.As(err, &te) || strings.Contains(err.Error(), token) {
		t.Errorf("timeout: %v", err)
	}
	big := reply(200, "["+strings.Repeat(" ", 2000)+"]")
	c, _ = newClient(t, big, func(c *Config) { c.MaxBody = 1000 })
	if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token}); !errors.As(err, &te) {
		t.Errorf("oversized body: %v", err)
	}
	v, _ := spec.MustLoad(spec.Core).NewValidator("")
	gone, _ := New(Config{BaseURL: "https://127.0.0.1:1", Validator: v, Timeout: time.Second})
	if _, err := gone.Do(context.Background(), Request{Method: "GET", Path: "/v1/user"}); !errors.As(err, &te) {
		t.Errorf("unreachable: %v", err)
	}
}

func TestShortTokensAreRedactedEverywhere(t *testing.T) {
	body := `[` + strings.Replace(user, `"Ada"`, `"q7 and q7"`, 1) + `]`
	c, rec := newClient(t, reply(200, body), func(c *Config) { c.Secrets = []string{"q7"} })
	if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: "q7", Place: QueryToken, Header: http.Header{"X-Access-Token": {"q7"}}}); err != nil {
		t.Fatal(err)
	}
	e := rec.Exchanges()[0]
	if strings.Contains(e.URL, "q7") || e.RequestHeader.Get("X-Access-Token") != DefaultMarker || !strings.Contains(e.ResponseBody, `"REDACTED and REDACTED"`) {
		t.Errorf("url %s, header %v, body %s", e.URL, e.RequestHeader, e.ResponseBody)
	}
	if !strings.Contains(e.Curl(), `access_token='"$CHAT_TOKEN"'`) || !strings.Contains(e.Curl(), `'X-Access-Token: '"$CHAT_TOKEN"''`) {
		t.Errorf("curl %s", e.Curl())
	}
}

func TestRecordsAreRedacted(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request) {
		reply(200, `[`+strings.Replace(user, "Ada", token, 1)+`]`)(w, r)
	}
	c, rec := newClient(t, echo, nil)
	for _, place := range []TokenPlace{Bearer, QueryToken} {
		if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token, Place: place}); err != nil {
			t.Fatal(err)
		}
	}
	ex := rec.Exchanges()
	if len(ex) != 2 || rec.Count() != 2 {
		t.Fatalf("%d exchanges", len(ex))
	}
	for _, e := range ex {
		all := e.URL + e.ResponseBody + e.Curl()
		for _, vs := range e.RequestHeader {
			all += strings.Join(vs, " ")
		}
		if strings.Contains(all, token) {
			t.Errorf("token leaked: %s", all)
		}
		if !strings.Contains(e.Curl(), `"$CHAT_TOKEN"`) {
			t.Errorf("curl without a token placeholder: %s", e.Curl())
		}
	}
}

// A reproduce command trusts the target as the client does: the CA file
// with --cacert, or nothing with -k; the token stays a variable.
func TestReproduceTrustsTheTargetAsTheClientDoes(t *testing.T) {
	for _, tc := range []struct {
		mutate     func(*Config)
		want, lack string
	}{
		{func(c *Config) { c.CAFile = "/tmp/my ca.pem" }, `curl -sS --cacert '/tmp/my ca.pem' -X GET`, " -k "},
		{func(c *Config) { c.Insecure = true }, `curl -sS -k -X GET`, "--cacert"},
		{nil, `curl -sS -X GET`, "--cacert"},
	} {
		c, rec := newClient(t, reply(200, "["+user+"]"), tc.mutate)
		if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token}); err != nil {
			t.Fatal(err)
		}
		curl := rec.Exchanges()[0].Curl()
		if !strings.HasPrefix(curl, tc.want) || strings.Contains(curl, tc.lack) || !strings.Contains(curl, `"$CHAT_TOKEN"`) || strings.Contains(curl, token) {
			t.Errorf("curl %s, want it to start %s", curl, tc.want)
		}
	}
}

// A certificate the client does not trust is a TLS failure, named once.
func TestUntrustedCertificateSaysTLSOnce(t *testing.T) {
	c, _ := newClient(t, reply(200, "["+user+"]"), func(c *Config) { c.HTTP = NewHTTPClient(nil) })
	_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token})
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindTLS || strings.Count(err.Error(), "tls:") != 1 || !strings.Contains(err.Error(), "x509") {
		t.Errorf("%v", err)
	}
}

// A read whose body ends before its declared length twice in a row is an
// answer, broken: the status came, and the body is what arrived, with a
// violation that says so; the first break is no exchange. A read that
// breaks once is the next attempt's answer. A write is sent once, and its
// broken body is its answer.
func TestABodyThatBreaksOffIsABrokenAnswer(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	c, rec := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", "100")
		_, _ = w.Write([]byte(`[{"id":"u1"`)) // and the handler ends: 11 of 100 bytes
	}, nil)
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.BrokenOff || resp.Status != 200 || string(resp.Body) != `[{"id":"u1"` || resp.Attempts != 2 {
		t.Errorf("broken %v, status %d, body %q, attempts %d", resp.BrokenOff, resp.Status, resp.Body, resp.Attempts)
	}
	found := false
	for _, v := range resp.Violations {
		found = found || v.Rule == "decode" && strings.Contains(v.Message, "broke off after 11 of the 100 bytes")
	}
	if !found {
		t.Errorf("violations %v", resp.Violations)
	}
	if n := len(rec.Exchanges()); n != 1 {
		t.Errorf("%d exchanges recorded, want the second attempt only", n)
	}

	resp, err = c.Do(context.Background(), Request{Method: "POST", Path: "/v1/rooms/r1/chatMessages", Token: token, Body: map[string]string{"text": "hi"}})
	if err != nil || !resp.BrokenOff || resp.Attempts != 1 || len(rec.Exchanges()) != 2 {
		t.Errorf("a write whose body broke off: %v, %+v, %d exchanges", err, resp, len(rec.Exchanges()))
	}

	// Once broken, then whole: the whole answer is the answer.
	c2, rec2 := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.Method]++
		n := hits[r.Method]
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if n > 1 {
			_, _ = w.Write([]byte(`[{"id":"u1","username":"ada","displayName":"Ada","url":"/ada","avatarUrlSmall":"https://a.test/s","avatarUrlMedium":"https://a.test/m"}]`))
			return
		}
		w.Header().Set("Content-Length", "100")
		_, _ = w.Write([]byte(`[{"id":`))
	}, nil)
	resp, err = c2.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token})
	if err != nil || resp.BrokenOff || len(resp.Violations) != 0 || len(rec2.Exchanges()) != 1 {
		t.Errorf("a read broken once: err %v, broken %v, violations %v, %d exchanges", err, resp != nil && resp.BrokenOff, resp.Violations, len(rec2.Exchanges()))
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["GET"] != 2 {
		t.Errorf("sent %v", hits)
	}
}

// A body read that fails without a declared length to fall short of is
// still no answer.
func TestABodyWithoutADeclaredLengthThatFailsIsNoAnswer(t *testing.T) {
	c, _ := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`[{"id":`))
		w.(http.Flusher).Flush() // chunked: no length declared
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}, nil)
	_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token})
	var te *TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err %v, want a transport error", err)
	}
}

// A body that breaks off came after a status and headers: the target is
// alive, and the break never counts toward "stopped answering", even when
// a GET is asked again for it (a run beside others breaks many at once).
func TestABrokenBodyIsNoSignThatTheTargetIsDown(t *testing.T) {
	var down atomic.Int32
	c, _ := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", "100")
		_, _ = w.Write([]byte(`[{"id":"u1"`))
	}, func(cfg *Config) {
		cfg.DownAfter = 1
		cfg.OnDown = func(*TransportError) { down.Add(1) }
	})
	for range 3 {
		resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: token})
		if err != nil || !resp.BrokenOff {
			t.Fatalf("%v, %+v", err, resp)
		}
	}
	if n := down.Load(); n != 0 {
		t.Errorf("the target was taken for down %d times for bodies that broke off", n)
	}
}
