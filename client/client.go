// Package client is the validating HTTP client of the conformance suites.
// It is plain Go (no Ginkgo, no Gomega): a request goes in; a response comes
// out together with every way the exchange breaks the OpenAPI document of the
// active profile. Every exchange is recorded, with tokens redacted.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

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
}

// Response is what came back, already read and validated.
type Response struct {
	Operation  string // operationId the request addressed ("" when none)
	Status     int
	Header     http.Header
	Body       []byte
	Violations []spec.Violation // request (unless Invalid) and response violations
	Exchange   *Exchange
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

// JSON decodes the body into v.
func (r *Response) JSON(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("%s: body is not the JSON expected (%v): %s", r.Operation, err, Snippet(r.Body, 200))
	}
	return nil
}

// TransportError is a failure to exchange anything with the target: DNS,
// connection, TLS, timeout, an oversized body. The harness reports it as
// "target unreachable", not as a failed requirement.
type TransportError struct {
	Method, URL string
	Err         error
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Method, e.URL, e.Err)
}

func (e *TransportError) Unwrap() error { return e.Err }

// Config configures a Client.
type Config struct {
	BaseURL   string // scheme, host and optional mount path; no /v1
	HTTP      *http.Client
	Validator *spec.Validator
	Timeout   time.Duration // per request; default 15 s
	MaxBody   int64         // largest response body read; default 8 MiB
	Secrets   []string      // values to redact from records (tokens)
	Recorder  *Recorder     // may be nil
}

// Client sends validated requests. It is safe for concurrent use.
type Client struct {
	cfg  Config
	base string
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
		cfg.HTTP = http.DefaultClient
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Second
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = 8 << 20
	}
	return &Client{cfg: cfg, base: strings.TrimSuffix(cfg.BaseURL, "/")}, nil
}

// BaseURL returns the base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// Recorder returns the recorder of this client (nil when none).
func (c *Client) Recorder() *Recorder { return c.cfg.Recorder }

// Do sends r, reads at most MaxBody bytes of the answer, validates both sides
// and records the exchange. The error is a *TransportError when nothing
// usable came back; violations are reported in the Response, not as an error.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	body := r.RawBody
	if body == nil && r.Body != nil {
		var err error
		if body, err = json.Marshal(r.Body); err != nil {
			return nil, fmt.Errorf("client: encoding the request body: %w", err)
		}
	}
	target := c.base + r.Path
	q := url.Values{}
	for k, vs := range r.Query {
		q[k] = append([]string(nil), vs...)
	}
	if r.Place == QueryToken {
		q.Set("access_token", r.Token)
	}
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Place == Bearer && r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for k, vs := range r.Header {
		req.Header.Del(k)
		for _, v := range vs {
			if v != "" {
				req.Header.Add(k, v)
			}
		}
	}

	out := &Response{}
	var violations []spec.Violation
	if r.Invalid || r.OffAPI {
		out.Operation = c.cfg.Validator.OperationID(req)
	} else {
		out.Operation, violations = c.cfg.Validator.CheckRequest(ctx, req, body)
	}

	start := time.Now()
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return nil, &TransportError{Method: r.Method, URL: c.redact(target), Err: c.redactErr(err)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBody+1))
	if err != nil {
		return nil, &TransportError{Method: r.Method, URL: c.redact(target), Err: fmt.Errorf("reading the body: %w", c.redactErr(err))}
	}
	if int64(len(raw)) > c.cfg.MaxBody {
		return nil, &TransportError{Method: r.Method, URL: c.redact(target), Err: fmt.Errorf("response body larger than %d bytes", c.cfg.MaxBody)}
	}
	elapsed := time.Since(start)
	out.Status, out.Header, out.Body = resp.StatusCode, resp.Header, raw
	if out.Operation == "" {
		out.Operation = r.Method + " " + r.Path
	}
	if !r.OffAPI {
		_, respViolations := c.cfg.Validator.CheckResponse(ctx, req, resp.StatusCode, resp.Header, raw)
		violations = append(violations, respViolations...)
	}
	out.Violations = violations
	out.Exchange = c.record(r, req, body, out, elapsed)
	return out, nil
}

// Snippet shortens a body for a message.
func Snippet(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
