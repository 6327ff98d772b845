package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/spec"
)

// Exchange is one recorded request and response. Tokens are redacted.
type Exchange struct {
	Time           time.Time        `json:"time"`
	Operation      string           `json:"operation"`
	Method         string           `json:"method"`
	URL            string           `json:"url"`
	RequestHeader  http.Header      `json:"requestHeader"`
	RequestBody    string           `json:"requestBody,omitempty"`
	Invalid        bool             `json:"deliberatelyInvalid,omitempty"`
	Status         int              `json:"status"`
	ResponseHeader http.Header      `json:"responseHeader"`
	ResponseBody   string           `json:"responseBody,omitempty"`
	Duration       time.Duration    `json:"durationNs"`
	Violations     []spec.Violation `json:"violations,omitempty"`
}

// Curl renders the request as a curl command that reproduces it. The token
// is left as $CHAT_TOKEN.
func (e *Exchange) Curl() string {
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS -X %s", e.Method)
	names := make([]string, 0, len(e.RequestHeader))
	for k := range e.RequestHeader {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range e.RequestHeader[k] {
			fmt.Fprintf(&b, " -H %s", shellQuote(k+": "+strings.ReplaceAll(v, redacted, "$CHAT_TOKEN")))
		}
	}
	if e.RequestBody != "" {
		fmt.Fprintf(&b, " --data %s", shellQuote(e.RequestBody))
	}
	fmt.Fprintf(&b, " %s", shellQuote(strings.ReplaceAll(e.URL, redacted, "$CHAT_TOKEN")))
	return b.String()
}

// shellQuote single-quotes s for a POSIX shell, leaving $CHAT_TOKEN outside
// the quotes so the shell expands it.
func shellQuote(s string) string {
	s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	return strings.ReplaceAll(s, "$CHAT_TOKEN", `'"$CHAT_TOKEN"'`)
}

// Recorder keeps exchanges for reports. It is safe for concurrent use and
// keeps at most Limit exchanges (the oldest are dropped).
type Recorder struct {
	mu    sync.Mutex
	Limit int
	all   []*Exchange
	count int
}

// Exchanges returns a copy of what was recorded.
func (r *Recorder) Exchanges() []*Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Exchange(nil), r.all...)
}

// Count is how many exchanges were recorded, dropped ones included.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

func (r *Recorder) add(e *Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count++
	r.all = append(r.all, e)
	if r.Limit > 0 && len(r.all) > r.Limit {
		r.all = r.all[len(r.all)-r.Limit:]
	}
}

const redacted = "REDACTED"

// maxRecordedBody keeps reports small.
const maxRecordedBody = 16 << 10

func (c *Client) record(r Request, req *http.Request, body []byte, out *Response, d time.Duration) *Exchange {
	e := &Exchange{
		Time: time.Now().UTC(), Operation: out.Operation, Method: req.Method, URL: c.redact(req.URL.String()),
		RequestHeader: c.redactHeader(req.Header), RequestBody: c.redact(string(body)), Invalid: r.Invalid,
		Status: out.Status, ResponseHeader: c.redactHeader(out.Header), Duration: d, Violations: out.Violations,
	}
	rb := out.Body
	if len(rb) > maxRecordedBody {
		rb = rb[:maxRecordedBody]
	}
	e.ResponseBody = c.redact(string(rb))
	if c.cfg.Recorder != nil {
		c.cfg.Recorder.add(e)
	}
	return e
}

// minSecret is the shortest secret replaced wherever it occurs; shorter
// ones (a test token like "x") are redacted only where credentials go,
// so that unrelated text is not mangled.
const minSecret = 8

// redact replaces credentials in s: the value of access_token in a URL, and
// every secret of minSecret characters or more, plain or URL-escaped.
func (c *Client) redact(s string) string {
	s = tokenParam.ReplaceAllString(s, "${1}"+redacted)
	for _, t := range c.cfg.Secrets {
		if len(t) < minSecret {
			continue
		}
		s = strings.ReplaceAll(s, t, redacted)
		if q := url.QueryEscape(t); q != t {
			s = strings.ReplaceAll(s, q, redacted)
		}
	}
	return s
}

var tokenParam = regexp.MustCompile(`((?:^|[?&])access_token=)[^&#\s"]*`)

func (c *Client) redactHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		for _, v := range vs {
			switch strings.ToLower(k) {
			case "authorization":
				if scheme, _, ok := strings.Cut(v, " "); ok {
					v = scheme + " " + redacted
				} else {
					v = redacted
				}
			case "x-access-token":
				v = redacted
			default:
				v = c.redact(v)
			}
			out[k] = append(out[k], v)
		}
	}
	return out
}

// redactErr keeps the error's text free of secrets (url.Error carries the URL).
func (c *Client) redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s", c.redact(ue.Error()))
	}
	return err
}
