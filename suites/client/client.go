// Package client is the validating HTTP client of the conformance suites.
// It is plain Go (no Ginkgo, no Gomega): a request goes in; a response comes
// out together with every way the exchange breaks the OpenAPI document of the
// active profile.
//
// The client is built to face a hostile or broken server: what it reads is
// capped (headers, body), what it keeps for reports is cut and redacted by
// value (see Redactor), 429 and 503 answers are waited out within a budget,
// the whole run can be throttled, transport failures are typed and counted
// so a caller can tell when the target has stopped answering, and a probe
// over plain http can never carry a credential.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/chatrooms/conformance/spec"
)

// TokenPlace says how a request presents its token.
type TokenPlace int

const (
	Bearer     TokenPlace = iota // Authorization: Bearer <token>
	QueryToken                   // ?access_token=<token>
	NoToken                      // no credential at all
)

// Request is one call of the API.
type Request struct {
	Method string
	Path   string     // below the base URL, starting with /v1
	Query  url.Values // may be nil
	Token  string
	Place  TokenPlace
	Header http.Header // extra headers; they override the defaults
	// Body is marshalled to JSON unless RawBody is set.
	Body    any
	RawBody []byte
	// Invalid marks a deliberately invalid request (a negative check):
	// request validation is skipped; the response is still validated.
	Invalid bool
	// OffAPI marks a probe of a path the document does not define (such as
	// the API without its /v1 prefix): nothing can be validated.
	OffAPI bool
	// PlainHTTP sends the request over plain http to the base URL's own host
	// and port (443 when the URL names none), to see that the API is not
	// served there. Such a request never carries a credential: Token and
	// Place are ignored, Authorization, X-Access-Token, Cookie and the
	// access_token parameter are dropped, and a request whose URL, headers
	// or body still hold any secret of the client is refused before it is
	// sent. Nothing is validated; the exchange is recorded.
	PlainHTTP bool
}

// Response is what came back, already read and validated.
//
// Body and Header are the raw answer (callers decode them); anything printed
// from them must go through the client's Redactor. Everything else (the
// violations, the Exchange, error texts) is already redacted.
type Response struct {
	Operation  string // operationId the request addressed ("" when none)
	Status     int
	Header     http.Header
	Body       []byte
	Violations []spec.Violation // request (unless Invalid) and response violations, at most MaxViolations+1
	Exchange   *Exchange
	// Attempts is how many times the request was sent (more than 1 after
	// 429 or 503 answers were waited out).
	Attempts int
	// Sent is when the answered attempt was handed to the transport, and
	// Read when its whole answer had been read (in a replay of the checks,
	// the record's times: see Config.Clock).
	Sent, Read time.Time
	// BrokenOff says the body ended before the length the answer's
	// Content-Length declared (the connection or stream was closed, or
	// reset, after the status and headers): Body is what arrived, and a
	// violation says so.
	BrokenOff bool
	red       *Redactor
}

// ViolationError reports that an exchange broke the document.
type ViolationError struct {
	Operation  string
	Violations []spec.Violation
}

func (e *ViolationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return fmt.Sprintf("%s breaks the document: %s", e.Operation, strings.Join(parts, "; "))
}

// Err returns a *ViolationError when the exchange broke the document, else nil.
func (r *Response) Err() error {
	if len(r.Violations) == 0 {
		return nil
	}
	return &ViolationError{Operation: r.Operation, Violations: r.Violations}
}

// JSON decodes the body into v. The error quotes the start of the body,
// redacted.
func (r *Response) JSON(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("%s: body is not the JSON expected (%v): %s", r.Operation, r.red.Error(err), r.red.Cut(string(r.Body), 200))
	}
	return nil
}

// Config configures a Client. Zero values take the defaults given.
type Config struct {
	BaseURL   string       // scheme, host and optional mount path; no /v1
	HTTP      *http.Client // default NewHTTPClient(nil)
	Validator *spec.Validator
	Timeout   time.Duration // per attempt, body included; default 15 s
	MaxBody   int64         // largest response body read; default DefaultMaxBody
	// Secrets are redacted by value from everything the client produces.
	// Secrets[i] is the token of user i+1: reproduce commands name it
	// $CHAT_TOKEN (i = 0) or $CHAT_TOKEN_<i+1>, the variables
	// target.FromEnv reads.
	Secrets  []string
	Recorder *Recorder // may be nil
	// Clock, when set, tells the time instead of the wall clock: in a
	// replay of the checks (chatconform replay --checks) the answers come
	// from a record, and so do their times.
	Clock Clock
	// CAFile and Insecure say how the HTTP client trusts the target, so
	// that reproduce commands trust it the same way (curl --cacert FILE,
	// or -k); they change nothing else.
	CAFile   string
	Insecure bool

	// Rate throttles the client to this many requests per second (0: no
	// limit), attempts after a 429 or 503 included. Limiter, when set, is
	// used instead, so that several clients can share one budget.
	Rate    float64
	Limiter *rate.Limiter
	// MaxAttempts bounds how often a request answered 429 or 503 is sent;
	// default 4. MaxWait bounds the time spent waiting between those
	// attempts, per request; default 60 s, so that a one-minute rate-limit
	// window can be waited out once. A wait the target asks for
	// (Retry-After, X-RateLimit-Reset) that does not fit in what is left
	// ends the retries at once.
	MaxAttempts int
	MaxWait     time.Duration
	// DownAfter is how many transport failures in a row (DNS, connect, TLS,
	// timeout, reset) make the target count as down; default 3. OnDown, when
	// set, is called with the failure that crossed the line, each time it is
	// crossed; it must not block.
	DownAfter int
	OnDown    func(*TransportError)

	// Observe, when set, is told of every answer the client reads (see
	// Observed): once per attempt, so a request waited out after 429 or 503
	// is seen once per answer, and never for a transport failure. It runs on
	// the goroutine that made the request, so calls may be concurrent, and
	// the request waits for it to return.
	Observe func(Observed)

	// Gate, when set, is passed every attempt before its time starts
	// (Timeout), with the check it is sent for (CheckOf, else SetCheck's)
	// and its method; the attempt waits for it to return, and calls
	// release once its answer is read. A runner holds writes back there
	// while another check reads the room quietly, without that wait
	// counting against the attempt's Timeout.
	Gate func(check, method string) (release func())

	// Writes, when set, keeps what every write attempt named (see
	// WriteLog), from when it is sent; its answer's, before Gate releases
	// it.
	Writes *WriteLog
}

type gatedKey struct{}

// Gated reports whether a request's context went through Config.Gate: a
// transport that gates requests itself leaves those alone.
func Gated(ctx context.Context) bool { return ctx.Value(gatedKey{}) != nil }

// Client sends validated requests. It is safe for concurrent use.
type Client struct {
	cfg     Config
	base    string
	baseURL *url.URL
	red     *Redactor
	limiter *rate.Limiter
	fails   atomic.Int64 // transport failures in a row
	peers   atomic.Pointer[peerMemo]
	check   atomic.Pointer[string] // the check under way (SetCheck)

	times   sync.Mutex
	done    int64          // exchanges completed
	sent    [256]time.Time // when the latest of them were sent, by number
	lastEnd time.Time      // the latest end of one
}

// Writes is the log of the client's writes (Config.Writes), nil when it
// keeps none.
func (c *Client) Writes() *WriteLog { return c.cfg.Writes }

// SetCheck names the check whose requests the client sends from now on
// ("" for none: the run's setup). Each exchange carries it (Observed.Check,
// and the request's context: CheckOf), so that a record can tell whose
// each answer was and a replay of the checks answer each check from its
// own.
func (c *Client) SetCheck(name string) { c.check.Store(&name) }

type checkKey struct{}

// WithCheck names the check whose requests go out with ctx, for checks
// that run beside each other: it wins over SetCheck.
func WithCheck(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, checkKey{}, name)
}

// CheckOf is the check a request was sent for (see SetCheck), from its
// context.
func CheckOf(ctx context.Context) string {
	s, _ := ctx.Value(checkKey{}).(string)
	return s
}

// New returns a Client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q is not absolute", cfg.BaseURL)
	}
	if cfg.Validator == nil {
		return nil, errors.New("client: a validator is required")
	}
	if cfg.HTTP == nil {
		cfg.HTTP = NewHTTPClient(nil)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Second
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = 4
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 60 * time.Second
	}
	if cfg.DownAfter == 0 {
		cfg.DownAfter = 3
	}
	c := &Client{cfg: cfg, base: strings.TrimSuffix(cfg.BaseURL, "/"), baseURL: u, red: NewRedactor(cfg.Secrets...), limiter: cfg.Limiter}
	if c.limiter == nil && cfg.Rate > 0 {
		c.limiter = rate.NewLimiter(rate.Limit(cfg.Rate), 1)
	}
	return c, nil
}

// BaseURL returns the base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// Redactor returns the redactor built from Config.Secrets.
func (c *Client) Redactor() *Redactor { return c.red }

// Clock tells a client the time of a replay (see Config.Clock).
type Clock interface {
	// Now is the time it is.
	Now() time.Time
	// Times are when the exchange that resp answers started and ended,
	// when the clock knows them.
	Times(resp *http.Response) (start, end time.Time, ok bool)
}

// Now is the time it is for the client: when the latest answer it read
// had been read (the latest end of an exchange), or before any, the wall
// clock's (in a replay of the checks, the record's: see Config.Clock).
// Checks that wait for a state to show, or compare a server's times with
// their own, ask it: a run and a replay of its record then decide alike,
// on the times the record keeps, and a replay asks as often as the run
// did.
func (c *Client) Now() time.Time {
	c.times.Lock()
	defer c.times.Unlock()
	if !c.lastEnd.IsZero() {
		return c.lastEnd
	}
	return c.wall()
}

// wall is the clock exchanges are timed by: the wall clock, or a
// replay's (Config.Clock).
func (c *Client) wall() time.Time {
	if c.cfg.Clock != nil {
		return c.cfg.Clock.Now()
	}
	return time.Now()
}

// Exchanges is how many exchanges the client has completed (an answer
// read); SentAfter(Exchanges()) is then when the next one was sent.
func (c *Client) Exchanges() int64 {
	c.times.Lock()
	defer c.times.Unlock()
	return c.done
}

// SentAfter is when the first exchange completed after the first mark
// ones was sent, if there was one (and it is among the latest 256).
func (c *Client) SentAfter(mark int64) (time.Time, bool) {
	c.times.Lock()
	defer c.times.Unlock()
	if c.done <= mark || c.done-mark > int64(len(c.sent)) {
		return time.Time{}, false
	}
	return c.sent[(mark+1)%int64(len(c.sent))], true
}

// completed notes an exchange's times (see Now and SentAfter).
func (c *Client) completed(sent, end time.Time) {
	c.times.Lock()
	defer c.times.Unlock()
	c.done++
	c.sent[c.done%int64(len(c.sent))] = sent
	if end.After(c.lastEnd) {
		c.lastEnd = end
	}
}

// Replaying says the client answers from a record (Config.Clock is set):
// waiting for a state to show takes no time there, as the record holds
// what the run saw after its waits.
func (c *Client) Replaying() bool { return c.cfg.Clock != nil }

// ConsecutiveFailures is the number of transport failures in a row that
// suggest the target is not answering; any HTTP answer resets it.
func (c *Client) ConsecutiveFailures() int { return int(c.fails.Load()) }

// Down reports whether the last DownAfter requests or more all failed to get
// an answer: the target has stopped answering.
func (c *Client) Down() bool { return c.ConsecutiveFailures() >= c.cfg.DownAfter }

// Do sends r, reads at most MaxBody bytes of the answer, validates both sides
// and records the exchange. Answers 429 and 503 are waited out (see
// Config.MaxAttempts); when the target still refuses, the error is an
// *UnavailableError. The error is a *TransportError when nothing usable came
// back. Violations are reported in the Response, not as an error.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	if r.PlainHTTP {
		return c.plain(ctx, r)
	}
	body := r.RawBody
	if body == nil && r.Body != nil {
		var err error
		if body, err = json.Marshal(r.Body); err != nil {
			return nil, fmt.Errorf("client: encoding the request body: %w", c.red.Error(err))
		}
	}
	q := url.Values{}
	for k, vs := range r.Query {
		q[k] = append([]string(nil), vs...)
	}
	if r.Place == QueryToken {
		q.Set("access_token", r.Token)
	}
	target := c.base + r.Path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	header := http.Header{"Accept": {"application/json"}}
	if body != nil {
		header.Set("Content-Type", "application/json")
	}
	if r.Place == Bearer && r.Token != "" {
		header.Set("Authorization", "Bearer "+r.Token)
	}
	mergeHeader(header, r.Header)

	var waited time.Duration
	again := false // a read whose body broke off was sent once more
	for attempt := 1; ; attempt++ {
		if c.limiter != nil {
			if err := c.limiter.Wait(ctx); err != nil {
				return nil, c.throttled(ctx, r.Method, target, err)
			}
		}
		// A read whose body breaks off is asked once more before the
		// broken body is taken for the server's answer (a connection can
		// break on the way); the first break is no exchange. A write is
		// not sent twice: its broken body is the answer, and the
		// violation says what broke. A replay takes what the record holds.
		read := r.Method == http.MethodGet || r.Method == http.MethodHead
		resp, err := c.once(ctx, r, target, header, body, true, !read || again || c.Replaying())
		if err != nil {
			var te *TransportError
			if errors.As(err, &te) && te.brokeOff && read && !again {
				again = true
				continue
			}
			return nil, err
		}
		resp.Attempts = attempt
		if resp.Status != http.StatusTooManyRequests && resp.Status != http.StatusServiceUnavailable {
			return resp, nil
		}
		wait := retryAfter(resp.Header, c.Now())
		if wait == 0 {
			wait = backoff(attempt)
		}
		if attempt >= c.cfg.MaxAttempts || waited+wait > c.cfg.MaxWait {
			ue := &UnavailableError{Method: r.Method, URL: c.red.String(target), Status: resp.Status, Attempts: attempt, Waited: waited, Response: resp}
			if waited+wait > c.cfg.MaxWait {
				ue.Next = wait
			}
			return nil, ue
		}
		if !c.Replaying() { // the record holds what came after the wait
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, &TransportError{Method: r.Method, URL: c.red.String(target), Kind: classify(ctx.Err()), Err: c.red.Error(ctx.Err())}
			case <-t.C:
			}
		}
		waited += wait
	}
}

// throttled is the error of a request the rate limiter held back until its
// context ended (or would have: the limiter refuses a wait past the
// deadline).
func (c *Client) throttled(ctx context.Context, method, target string, err error) error {
	kind := KindTimeout
	if ctx.Err() != nil {
		kind = classify(ctx.Err())
	}
	return &TransportError{Method: method, URL: c.red.String(target), Kind: kind, Err: c.red.Error(fmt.Errorf("waiting for the rate limit: %w", err))}
}

// ctxErr prefers the context's own error (a limiter reports its own words).
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// backoff is the wait before attempt+1 when the target named none: 250 ms,
// doubling, at most 8 s.
func backoff(attempt int) time.Duration {
	return min(250*time.Millisecond<<min(attempt-1, 5), 8*time.Second)
}

func mergeHeader(dst, extra http.Header) {
	for k, vs := range extra {
		dst.Del(k)
		for _, v := range vs {
			if v != "" {
				dst.Add(k, v)
			}
		}
	}
}

// once sends one attempt. live says whether its transport failures count
// towards Down.
func (c *Client) once(ctx context.Context, r Request, target string, header http.Header, body []byte, live, brokenOK bool) (*Response, error) {
	caller := ctx
	check := CheckOf(ctx)
	if p := c.check.Load(); p != nil && check == "" {
		check = *p
	}
	if c.cfg.Gate != nil {
		defer c.cfg.Gate(check, r.Method)()
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	reqCtx := context.WithValue(ctx, checkKey{}, check)
	if c.cfg.Gate != nil {
		reqCtx = context.WithValue(reqCtx, gatedKey{}, true)
	}
	var seen *connSeen // the connection's remote address, for an observer
	if c.cfg.Observe != nil {
		seen = &connSeen{}
		reqCtx = httptrace.WithClientTrace(reqCtx, seen.trace())
	}
	req, err := http.NewRequestWithContext(reqCtx, r.Method, target, rd)
	if err != nil {
		return nil, fmt.Errorf("client: %w", c.red.Error(err))
	}
	req.Header = header.Clone()

	out := &Response{red: c.red}
	var violations []spec.Violation
	switch {
	case r.PlainHTTP:
	case r.Invalid || r.OffAPI:
		out.Operation = c.cfg.Validator.OperationID(req)
	default:
		out.Operation, violations = c.cfg.Validator.CheckRequest(ctx, req, body)
	}

	start := c.wall()
	var logged *Write
	if c.cfg.Writes != nil && Writes(r.Method) {
		logged = c.cfg.Writes.begin(check, r.Path, body, start)
	}
	answered := false // a status and headers came: the target is alive
	fail := func(err error, what string) (*Response, error) {
		if logged != nil {
			c.cfg.Writes.end(logged, nil, 0, start, c.wall())
		}
		kind := classify(ctxErr(ctx, err))
		te := &TransportError{Method: r.Method, URL: c.red.String(target), Kind: kind, Err: c.red.Error(fmt.Errorf("%s%w", what, unwrapURL(err)))}
		// The caller's own end (a check out of time, a run stopped) says
		// nothing of the target.
		if live && kind.Liveness() && caller.Err() == nil && !answered {
			if n := c.fails.Add(1); n == int64(c.cfg.DownAfter) && c.cfg.OnDown != nil {
				c.cfg.OnDown(te)
			}
		}
		return nil, te
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return fail(err, "")
	}
	defer resp.Body.Close()
	raw, err := readBody(resp.Body, c.cfg.MaxBody+1, resp.ContentLength)
	if err != nil {
		broke := brokeOff(err, resp.ContentLength, len(raw)) && ctx.Err() == nil
		if broke && live {
			// It answered, and broke its answer off: no sign that it
			// stopped answering, whether or not the break is the answer.
			answered = true
			c.fails.Store(0)
		}
		if !broke || !brokenOK {
			_, ferr := fail(err, "reading the body: ")
			if te, ok := ferr.(*TransportError); ok {
				te.brokeOff = broke
			}
			return nil, ferr
		}
		// The status and headers came, and the body stopped short of
		// what they declared: an answer, broken (see Response.BrokenOff).
		out.BrokenOff = true
	}
	if live {
		c.fails.Store(0) // an answer came: the target is alive
	}
	if int64(len(raw)) > c.cfg.MaxBody {
		if logged != nil {
			c.cfg.Writes.end(logged, nil, resp.StatusCode, start, c.wall())
		}
		return nil, &TransportError{Method: r.Method, URL: c.red.String(target), Kind: KindTooLarge,
			Err: fmt.Errorf("the response body is larger than the %d bytes the harness reads", c.cfg.MaxBody)}
	}
	end := c.wall()
	if c.cfg.Clock != nil {
		if s, e, ok := c.cfg.Clock.Times(resp); ok {
			start, end = s, e
		}
	}
	c.completed(start, end)
	elapsed := end.Sub(start)
	out.Sent, out.Read = start, end
	out.Status, out.Header, out.Body = resp.StatusCode, resp.Header, raw
	if out.Operation == "" {
		out.Operation = r.Method + " " + r.Path
	}
	out.Operation = c.red.String(out.Operation) // "METHOD path" may hold a token
	if !r.OffAPI && !r.PlainHTTP {
		_, respViolations := c.cfg.Validator.CheckResponse(ctx, req, resp.StatusCode, resp.Header, raw)
		violations = append(violations, respViolations...)
	}
	if out.BrokenOff { // first: it explains the others
		violations = append([]spec.Violation{{Operation: out.Operation, Side: "response", Location: "$", Rule: "decode",
			Message: fmt.Sprintf("the body broke off after %d of the %d bytes its Content-Length declared", len(raw), resp.ContentLength)}}, violations...)
	}
	out.Violations = c.boundViolations(violations)
	out.Exchange = c.record(r, req, body, out, elapsed)
	if logged != nil {
		c.cfg.Writes.end(logged, raw, out.Status, start, end)
	}
	if c.cfg.Observe != nil {
		c.observe(r, req, body, out, start, end, c.peerOf(req.URL, resp.TLS, seen.addr()))
	}
	return out, nil
}

// brokeOff says a body read failed because the body ended early: the
// stream or connection closed, or was reset, before the declared length
// had come.
func brokeOff(err error, declared int64, got int) bool {
	if declared <= int64(got) {
		return false
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		strings.Contains(err.Error(), "stream error") || strings.Contains(err.Error(), "connection reset")
}

// readBody is io.ReadAll(io.LimitReader(r, limit)), with room for the size
// the answer announced (when it is within the limit) made at once instead of
// by doubling from 512 bytes, which copied a 60 KB page about seven times.
func readBody(r io.Reader, limit, announced int64) ([]byte, error) {
	size := int64(512)
	if announced > 0 && announced < limit {
		size = announced + 1 // +1: the read that meets EOF needs room
	}
	b := make([]byte, 0, size)
	lr := io.LimitReader(r, limit)
	for {
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow as io.ReadAll does
		}
	}
}

// unwrapURL drops the *url.Error layer, whose text repeats the URL (with
// the query, where a token may be) in a form the caller already reports.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// plain sends a PlainHTTP request; see Request.PlainHTTP.
func (c *Client) plain(ctx context.Context, r Request) (*Response, error) {
	host, port := c.baseURL.Hostname(), c.baseURL.Port()
	if port == "" {
		port = "443"
	}
	q := url.Values{}
	for k, vs := range r.Query {
		if !strings.EqualFold(k, "access_token") {
			q[k] = append([]string(nil), vs...)
		}
	}
	target := "http://" + net.JoinHostPort(host, port) + strings.TrimSuffix(c.baseURL.Path, "/") + r.Path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	body := r.RawBody
	if body == nil && r.Body != nil {
		var err error
		if body, err = json.Marshal(r.Body); err != nil {
			return nil, fmt.Errorf("client: encoding the request body: %w", c.red.Error(err))
		}
	}
	header := http.Header{"Accept": {"application/json"}}
	mergeHeader(header, r.Header)
	for _, k := range []string{"Authorization", "X-Access-Token", "Cookie", "Proxy-Authorization"} {
		header.Del(k)
	}
	probe := target + "\n" + string(body)
	for k, vs := range header {
		probe += "\n" + k + ": " + strings.Join(vs, ", ")
	}
	if c.red.found(probe) {
		return nil, errors.New("client: refused to send a secret over plain http")
	}
	r.Token, r.Place = "", NoToken
	if c.limiter != nil {
		if err := c.limiter.Wait(ctx); err != nil {
			return nil, c.throttled(ctx, r.Method, target, err)
		}
	}
	resp, err := c.once(ctx, r, target, header, body, false, false)
	if resp != nil {
		resp.Attempts = 1
	}
	return resp, err
}

// MaxViolations is how many violations a response keeps; one more entry
// says how many there were when there were more.
const MaxViolations = 20

// maxValue caps the text of a violation's offending value.
const maxValue = 256

// boundViolations redacts violations and keeps at most MaxViolations.
func (c *Client) boundViolations(vs []spec.Violation) []spec.Violation {
	if len(vs) == 0 {
		return vs
	}
	n := min(len(vs), MaxViolations)
	out := make([]spec.Violation, 0, n+1)
	for _, v := range vs[:n] {
		v.Operation = c.red.String(v.Operation)
		v.Location = c.red.Cut(v.Location, maxValue)
		v.Message = c.red.Cut(v.Message, 4*maxValue)
		v.Value = c.boundValue(v.Value)
		out = append(out, v)
	}
	if len(vs) > n {
		last := vs[len(vs)-1]
		out = append(out, spec.Violation{Operation: out[0].Operation, Side: last.Side, Rule: "cut",
			Message: fmt.Sprintf("… [cut: %d violations in all, the first %d shown]", len(vs), n)})
	}
	return out
}

// boundValue keeps a violation's value when it is small and free of
// secrets, else replaces it with its JSON text, redacted and cut.
func (c *Client) boundValue(v any) any {
	switch x := v.(type) {
	case nil, bool, float64, int, int64, json.Number:
		if s := fmt.Sprint(x); c.red.found(s) {
			return c.red.String(s)
		}
		return v
	case string:
		return c.red.Cut(x, maxValue)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return c.red.Cut(fmt.Sprint(v), maxValue)
	}
	if s := string(raw); len(s) > maxValue || c.red.found(s) {
		return c.red.Cut(s, maxValue)
	}
	return v
}

// Snippet shortens a body for a message, marking the cut. It does not
// redact: use Redactor.Cut for text that may hold a secret.
func Snippet(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = s[:validCut(s, n)] + fmt.Sprintf("… [cut: %d bytes total]", len(b))
	}
	return s
}
