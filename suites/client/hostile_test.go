package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/chatrooms/conformance/spec"
)

// Tokens that escape differently in every format, and a short one.
var hostileTokens = []string{
	"Ab&<c>+d\"e'f%2Fg/h\\i é€😀 j",
	"k9",
	"0123456789abcdef0123456789abcdef01234567",
}

// hostileClient is a client for srv that trusts srv's certificate through
// the harness's own HTTP client (NewHTTPClient), with caps as in a real run.
func hostileClient(t *testing.T, srv *httptest.Server, mutate func(*Config)) (*Client, *Recorder) {
	t.Helper()
	pool := x509.NewCertPool()
	if srv.Certificate() != nil {
		pool.AddCert(srv.Certificate())
	}
	v, err := spec.MustLoad(spec.Core).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{}
	cfg := Config{BaseURL: srv.URL, HTTP: NewHTTPClient(&tls.Config{RootCAs: pool}), Validator: v, Secrets: hostileTokens, Recorder: rec, Timeout: 5 * time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.cfg.HTTP.CloseIdleConnections)
	return c, rec
}

// leaks lists the forms of a hostile token that text still holds.
func leaks(text string) []string {
	var found []string
	for _, tok := range hostileTokens {
		for name, enc := range encoders() {
			if e := enc(tok); e != "" && strings.Contains(text, e) {
				found = append(found, fmt.Sprintf("%q as %s", tok, name))
			}
		}
	}
	return found
}

// echo answers every request with every token it saw and every token of
// the run, in headers, bodies and error messages, raw and escaped.
func echo(w http.ResponseWriter, r *http.Request) {
	seen := []string{r.Header.Get("Authorization"), r.URL.Query().Get("access_token"), r.Header.Get("X-Access-Token")}
	all := append(seen, hostileTokens...)
	for i, tok := range all {
		w.Header().Add("X-Echo", tok)
		w.Header().Add("X-Echo-Url", url.QueryEscape(tok))
		w.Header().Add("Www-Authenticate", fmt.Sprintf(`Bearer error="invalid_token" token%d="%s"`, i, html.EscapeString(tok)))
	}
	w.Header().Set("Set-Cookie", "session="+url.PathEscape(all[3]))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	var body []byte
	switch r.URL.Path {
	case "/v1/user": // a user whose fields carry the tokens, some of the wrong type
		u := map[string]any{"id": all[3], "username": html.EscapeString(all[3]), "displayName": url.QueryEscape(all[4]),
			"url": map[string]any{"token": all[5]}, "avatarUrlSmall": 42, "avatarUrlMedium": []string{all[3], all[4]}}
		body, _ = json.Marshal([]any{u})
	case "/v1/broken": // not JSON at all
		w.Header().Set("Content-Type", "text/html")
		body = []byte("<html><body>bad token: " + html.EscapeString(all[3]) + " " + all[4] + "</body></html>")
	default: // an error message quoting the token
		w.WriteHeader(http.StatusUnauthorized)
		body, _ = json.Marshal(map[string]string{"error": "token " + all[0] + " / " + all[1] + " / " + all[3] + " rejected"})
	}
	_, _ = w.Write(body)
}

func TestEchoServerLeaksNoTokenIntoAnyOutput(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(echo))
	defer srv.Close()
	c, rec := hostileClient(t, srv, nil)
	ctx := context.Background()
	var out strings.Builder
	for i, tok := range hostileTokens {
		for _, req := range []Request{
			{Method: "GET", Path: "/v1/user", Token: tok},
			{Method: "GET", Path: "/v1/user", Token: tok, Place: QueryToken},
			{Method: "GET", Path: "/v1/rooms/" + url.PathEscape(tok) + "/chatMessages", Token: tok, Query: url.Values{"q": {tok}}},
			{Method: "POST", Path: "/v1/rooms/r1/chatMessages", Place: NoToken, Header: http.Header{"X-Access-Token": {tok}, "Authorization": {"Token " + tok}}, Body: map[string]string{"text": tok}, Invalid: true},
			{Method: "GET", Path: "/v1/broken", Token: hostileTokens[(i+1)%len(hostileTokens)]},
			{Method: "GET", Path: "/" + url.PathEscape(tok), Token: tok, OffAPI: true},
		} {
			resp, err := c.Do(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			out.WriteString(resp.Operation + "\n")
			if err := resp.Err(); err != nil {
				out.WriteString(err.Error() + "\n")
			}
			var v []struct{ ID int }
			if err := resp.JSON(&v); err != nil {
				out.WriteString(err.Error() + "\n")
			}
			for _, v := range resp.Violations {
				out.WriteString(v.String() + "\n")
			}
		}
	}
	ex := rec.Exchanges()
	if len(ex) != 6*len(hostileTokens) {
		t.Fatalf("%d exchanges recorded", len(ex))
	}
	for _, e := range ex {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(j)
		out.WriteString("\n" + e.Curl() + "\n")
	}
	// The check must be able to fail: the raw answers do hold the tokens.
	if len(leaks(out.String())) != 0 {
		t.Fatalf("tokens in the output: %v\n%s", leaks(out.String()), out.String())
	}
	if !strings.Contains(out.String(), "X-Echo") || !strings.Contains(out.String(), DefaultMarker) || len(ex[0].Violations) == 0 {
		t.Fatalf("the echo did not reach the record: %s", out.String())
	}
	// Each reproduce command names the right user's variable.
	if got := ex[6].Curl(); !strings.Contains(got, `Bearer '"$CHAT_TOKEN_2"'`) {
		t.Errorf("user 2's bearer request: %s", got)
	}
	if got := ex[13].Curl(); !strings.Contains(got, `access_token='"$CHAT_TOKEN_3"'`) {
		t.Errorf("user 3's query-token request: %s", got)
	}
}

func TestHugeHeadersAreRefusedWithBoundedMemory(t *testing.T) {
	filler := strings.Repeat("h", 4<<10)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 1024; i++ { // 4 MiB of headers
			w.Header().Add(fmt.Sprintf("X-Filler-%d", i), filler)
		}
		w.WriteHeader(200)
	}))
	defer srv.Close()
	c, rec := hostileClient(t, srv, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 10; i++ {
		_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[0]})
		var te *TransportError
		if !errors.As(err, &te) || te.Kind != KindTooLarge {
			t.Fatalf("want a too-large transport error, got %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	// Ten answers of 4 MiB of headers each: what was allocated stays far
	// below what reading them would take.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading 10 responses of 4 MiB headers allocated %d MiB", alloc>>20)
	}
	if c.Down() || rec.Count() != 0 {
		t.Errorf("a too-large answer is an answer: down %v, recorded %d", c.Down(), rec.Count())
	}
}

func TestLargeBodyIsReadButRecordedCut(t *testing.T) {
	const size = 8_000_000
	big := `[{"id":"` + strings.Repeat("x", size-10) + `"}]`
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(big))
	}))
	defer srv.Close()
	c, rec := hostileClient(t, srv, nil)
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[2]})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Body) != len(big) {
		t.Errorf("body read %d of %d bytes", len(resp.Body), len(big))
	}
	e := rec.Exchanges()[0]
	wantCut := fmt.Sprintf("… [cut: %d bytes total]", len(big))
	if len(e.ResponseBody) > MaxRecordedBody+len(wantCut) || !strings.HasSuffix(e.ResponseBody, wantCut) {
		t.Errorf("recorded body of %d bytes ends %q", len(e.ResponseBody), e.ResponseBody[max(0, len(e.ResponseBody)-60):])
	}
	j, _ := json.Marshal(e)
	if len(j) > 64<<10 {
		t.Errorf("one recorded exchange takes %d bytes of JSON", len(j))
	}
	for _, v := range e.Violations {
		if s := fmt.Sprint(v.Value); len(s) > 2*maxValue {
			t.Errorf("violation value of %d bytes kept", len(s))
		}
	}
	// Beyond MaxBody the answer is refused as too large.
	c2, _ := hostileClient(t, srv, func(c *Config) { c.MaxBody = 1 << 20 })
	_, err = c2.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[2]})
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindTooLarge {
		t.Errorf("body over MaxBody: %v", err)
	}
}

func TestViolationsPerResponseAreCapped(t *testing.T) {
	bad := strings.TrimSuffix(strings.Repeat(`{"id":1},`, 100), ",")
	srv := httptest.NewTLSServer(reply(200, "["+bad+"]"))
	defer srv.Close()
	c, _ := hostileClient(t, srv, nil)
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[2]})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Violations) != MaxViolations+1 {
		t.Fatalf("%d violations kept", len(resp.Violations))
	}
	if last := resp.Violations[MaxViolations]; last.Rule != "cut" || !strings.Contains(last.Message, "[cut:") {
		t.Errorf("last violation %+v", last)
	}
}

func TestRecorderKeepsWithinItsByteBudget(t *testing.T) {
	srv := httptest.NewTLSServer(reply(200, "["+user+"]"))
	defer srv.Close()
	rec := &Recorder{MaxBytes: 5000}
	c, _ := hostileClient(t, srv, func(c *Config) { c.Recorder = rec })
	for i := 0; i < 20; i++ {
		if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[2]}); err != nil {
			t.Fatal(err)
		}
	}
	if rec.Count() != 20 || rec.Dropped() == 0 || rec.Bytes() > 5000 || len(rec.Exchanges()) == 0 {
		t.Errorf("count %d, dropped %d, bytes %d, kept %d", rec.Count(), rec.Dropped(), rec.Bytes(), len(rec.Exchanges()))
	}
}

func TestTooManyRequestsIsWaitedOut(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		reply(200, "["+user+"]")(w, r)
	}))
	defer srv.Close()
	c, rec := hostileClient(t, srv, nil)
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[2]})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || resp.Attempts != 2 || calls.Load() != 2 || rec.Count() != 2 {
		t.Errorf("status %d after %d attempts, %d calls, %d recorded", resp.Status, resp.Attempts, calls.Load(), rec.Count())
	}
}

func TestAlwaysUnavailableEndsAfterBoundedAttempts(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path == "/v1/user" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c, _ := hostileClient(t, srv, func(c *Config) { c.MaxAttempts = 3 })
	_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[2]})
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Status != 503 || ue.Attempts != 3 || calls.Load() != 3 || ue.Response == nil {
		t.Fatalf("always 503: %v (%d calls)", err, calls.Load())
	}
	var un interface{ Unavailable() bool }
	if !errors.As(err, &un) || !un.Unavailable() {
		t.Error("an UnavailableError must say so through Unavailable()")
	}
	// A wait beyond the budget ends the retries at once.
	calls.Store(0)
	_, err = c.Do(context.Background(), Request{Method: "GET", Path: "/v1/rooms", Token: hostileTokens[2]})
	if !errors.As(err, &ue) || ue.Attempts != 1 || ue.Next != time.Hour || calls.Load() != 1 {
		t.Errorf("Retry-After beyond the budget: %v (%d calls)", err, calls.Load())
	}
	if c.Down() {
		t.Error("a refusing target is not down")
	}
}

func TestRetryAfterAndRateLimitReset(t *testing.T) {
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"X-Ratelimit-Reset": {fmt.Sprint(now.Add(1500 * time.Millisecond).UnixMilli())}}, 1500 * time.Millisecond},
		{http.Header{"X-Ratelimit-Reset": {fmt.Sprint(now.Add(20 * time.Second).Unix())}}, 20 * time.Second},
		{http.Header{"X-Ratelimit-Reset": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"2"}, "X-Ratelimit-Reset": {"30"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"99999999999"}}, 24 * time.Hour},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	}
	for _, tc := range cases {
		if got := retryAfter(tc.h, now); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.h, got, tc.want)
		}
	}
}

func TestRateLimiterGatesEveryRequest(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		reply(200, "["+user+"]")(w, r)
	}))
	defer srv.Close()
	shared := rate.NewLimiter(rate.Every(time.Hour), 1)
	c1, _ := hostileClient(t, srv, func(c *Config) { c.Limiter = shared })
	c2, _ := hostileClient(t, srv, func(c *Config) { c.Limiter = shared })
	if _, err := c1.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[2]}); err != nil {
		t.Fatal(err)
	}
	// The budget is spent: the next request, from either client, waits
	// for the limiter and ends with the context, unsent.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c2.Do(ctx, Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[2]})
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindCanceled || calls.Load() != 1 {
		t.Errorf("second request: %v, %d calls", err, calls.Load())
	}
	if c, _ := hostileClient(t, srv, func(c *Config) { c.Rate = 2 }); c.limiter == nil || c.limiter.Limit() != 2 {
		t.Error("Config.Rate must make a limiter")
	}
}

func TestPlainHTTPProbeCarriesNoCredential(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dump, _ := httputil.DumpRequest(r, true)
		mu.Lock()
		seen = append(seen, string(dump))
		mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
	}))
	defer plain.Close()
	base := strings.Replace(plain.URL, "http://", "https://", 1) + "/mount/"
	v, _ := spec.MustLoad(spec.Core).NewValidator("/mount")
	rec := &Recorder{}
	c, err := New(Config{BaseURL: base, Validator: v, Secrets: hostileTokens, Recorder: rec, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tok := hostileTokens[0]
	resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", PlainHTTP: true, Token: tok, Place: QueryToken,
		Query:  url.Values{"access_token": {tok}, "limit": {"1"}},
		Header: http.Header{"Authorization": {"Bearer " + tok}, "X-Access-Token": {tok}, "Cookie": {"t=" + tok}}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if resp.Status != 400 || len(seen) != 1 || !strings.HasPrefix(seen[0], "GET /mount/v1/user?limit=1 ") {
		t.Fatalf("status %d, requests seen %q", resp.Status, seen)
	}
	if l := leaks(seen[0]); len(l) != 0 || strings.Contains(seen[0], "Authorization") {
		t.Errorf("the plain-http listener saw %v:\n%s", l, seen[0])
	}
	if e := rec.Exchanges()[0]; !strings.HasPrefix(e.URL, "http://") {
		t.Errorf("recorded %s", e.URL)
	}
	// A secret anywhere else in the request is refused before sending.
	for _, req := range []Request{
		{Method: "GET", Path: "/v1/user", PlainHTTP: true, Header: http.Header{"X-Other": {tok}}},
		{Method: "POST", Path: "/v1/rooms/r1/chatMessages", PlainHTTP: true, Body: map[string]string{"text": hostileTokens[2]}},
		{Method: "GET", Path: "/v1/rooms/" + url.PathEscape(hostileTokens[1]), PlainHTTP: true},
	} {
		if _, err := c.Do(context.Background(), req); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%+v: %v", req, err)
		}
	}
	if len(seen) != 1 {
		t.Errorf("refused probes reached the listener: %d requests", len(seen))
	}
}

func TestPlainHTTPProbeUsesTheHTTPSPortWhenNoneIsNamed(t *testing.T) {
	v, _ := spec.MustLoad(spec.Core).NewValidator("")
	// An address that resolves nowhere: the URL the error names is enough.
	c, _ := New(Config{BaseURL: "https://unreachable.invalid", Validator: v, Timeout: 2 * time.Second})
	_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", PlainHTTP: true})
	var te *TransportError
	if !errors.As(err, &te) || te.URL != "http://unreachable.invalid:443/v1/user" {
		t.Fatalf("%v", err)
	}
	if c.ConsecutiveFailures() != 0 {
		t.Error("a refused plain-http probe is the best answer, not a sign the target is down")
	}
}

func TestUnreachableTargetIsATypedConnectFailureAndCountsTowardsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	v, _ := spec.MustLoad(spec.Core).NewValidator("")
	var downs []*TransportError
	c, _ := New(Config{BaseURL: "https://" + addr, Validator: v, Timeout: 2 * time.Second, Secrets: hostileTokens,
		OnDown: func(te *TransportError) { downs = append(downs, te) }})
	for i := 0; i < 4; i++ {
		_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[0], Place: QueryToken})
		var te *TransportError
		if !errors.As(err, &te) || te.Kind != KindConnect {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if l := leaks(err.Error()); len(l) != 0 {
			t.Errorf("error text leaks %v: %v", l, err)
		}
		if c.Down() != (i >= 2) {
			t.Errorf("after %d failures Down() = %v", i+1, c.Down())
		}
	}
	if len(downs) != 1 || downs[0].Kind != KindConnect {
		t.Errorf("OnDown calls: %v", downs)
	}
	// A cancelled request says so and is no sign of a dead target.
	c2, _ := New(Config{BaseURL: "https://" + addr, Validator: v})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c2.Do(ctx, Request{Method: "GET", Path: "/v1/user"})
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindCanceled || c2.ConsecutiveFailures() != 0 {
		t.Errorf("cancelled: %v, failures %d", err, c2.ConsecutiveFailures())
	}
}

func TestTLSAndTimeoutFailuresAreTyped(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/user" {
			<-r.Context().Done() // never answers
			return
		}
		reply(200, "[]")(w, r)
	}))
	defer srv.Close()
	v, _ := spec.MustLoad(spec.Core).NewValidator("")
	untrusting, _ := New(Config{BaseURL: srv.URL, Validator: v}) // system roots only
	_, err := untrusting.Do(context.Background(), Request{Method: "GET", Path: "/v1/rooms"})
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindTLS {
		t.Errorf("untrusted certificate: %v", err)
	}
	// A second: room for the handshake on a busy machine; /v1/user never answers.
	c, _ := hostileClient(t, srv, func(c *Config) { c.Timeout = time.Second })
	_, err = c.Do(context.Background(), Request{Method: "GET", Path: "/v1/user", Token: hostileTokens[1]})
	if !errors.As(err, &te) || te.Kind != KindTimeout || c.ConsecutiveFailures() != 1 {
		t.Errorf("no answer: %v (failures %d)", err, c.ConsecutiveFailures())
	}
	if _, err := c.Do(context.Background(), Request{Method: "GET", Path: "/v1/rooms"}); err != nil || c.ConsecutiveFailures() != 0 {
		t.Errorf("an answer resets the count: %v, %d", err, c.ConsecutiveFailures())
	}
}
