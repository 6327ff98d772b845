package client

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/spec"
)

// Exchange is one recorded request and response, redacted and cut to the
// caps below; every cut is marked "… [cut: ...]".
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
	// Reproduce is a curl command that sends the same request, each token
	// left as the shell variable of its user ($CHAT_TOKEN, $CHAT_TOKEN_2,
	// ...). A body or URL longer than the caps is cut, and then the command
	// no longer reproduces the request exactly; it says so.
	Reproduce string `json:"reproduce,omitempty"`
}

// Caps on what a recorded exchange keeps.
const (
	MaxRecordedBody   = 4 << 10 // per body
	MaxRecordedURL    = 2 << 10
	MaxRecordedValue  = 1 << 10 // per header value
	MaxRecordedHeader = 8 << 10 // all header values of one side
	// CutHeader is the header name under which a cut header block says
	// what it left out.
	CutHeader = "X-Harness-Cut"
)

// Curl returns the command that reproduces the request (see Reproduce).
func (e *Exchange) Curl() string {
	if e.Reproduce != "" {
		return e.Reproduce
	}
	// An exchange made elsewhere: rebuild from the redacted record.
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS -X %s", e.Method)
	for _, k := range sortedKeys(e.RequestHeader) {
		for _, v := range e.RequestHeader[k] {
			fmt.Fprintf(&b, " -H %s", shellQuote(k+": "+v))
		}
	}
	if e.RequestBody != "" {
		fmt.Fprintf(&b, " --data %s", shellQuote(e.RequestBody))
	}
	fmt.Fprintf(&b, " %s", shellQuote(e.URL))
	return b.String()
}

func sortedKeys(h http.Header) []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// tokenVar is the environment variable holding secret i (user i+1's token).
func tokenVar(i int) string {
	if i == 0 {
		return "CHAT_TOKEN"
	}
	return "CHAT_TOKEN_" + strconv.Itoa(i+1)
}

// varMark brackets a secret's index in text about to be shell-quoted.
const varMark = "\x00\x01"

// shellQuote single-quotes s for a POSIX shell; secrets marked by reproduce
// become "$CHAT_TOKEN..." outside the quotes, so the shell expands them.
func shellQuote(s string) string {
	s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	for {
		i := strings.Index(s, varMark)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(varMark):], varMark)
		if j < 0 {
			break
		}
		n, _ := strconv.Atoi(s[i+len(varMark) : i+len(varMark)+j])
		s = s[:i] + `'"$` + tokenVar(n) + `"'` + s[i+2*len(varMark)+j:]
	}
	return s
}

// reproduce renders the raw request as curl, with each secret replaced by
// its user's variable and everything else redacted and cut.
func (c *Client) reproduce(req *http.Request, body []byte) string {
	mark := func(s string, limit int) string {
		out, cut := c.red.cutFunc(s, limit, func(i int) string { return varMark + strconv.Itoa(i) + varMark })
		if cut {
			out += fmt.Sprintf("… [cut: %d bytes total; this command does not reproduce the request]", len(s))
		}
		return out
	}
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS")
	switch {
	case c.cfg.Insecure:
		b.WriteString(" -k")
	case c.cfg.CAFile != "":
		fmt.Fprintf(&b, " --cacert %s", shellQuote(c.red.String(c.cfg.CAFile)))
	}
	fmt.Fprintf(&b, " -X %s", req.Method)
	for _, k := range sortedKeys(req.Header) {
		for _, v := range req.Header[k] {
			if strings.EqualFold(k, "Cookie") {
				v = c.red.CookieValues(v) // this command does not carry a session
			}
			fmt.Fprintf(&b, " -H %s", shellQuote(mark(k+": "+v, MaxRecordedValue)))
		}
	}
	if len(body) > 0 {
		fmt.Fprintf(&b, " --data %s", shellQuote(mark(string(body), MaxRecordedBody)))
	}
	fmt.Fprintf(&b, " %s", shellQuote(mark(req.URL.String(), MaxRecordedURL)))
	return b.String()
}

// DefaultRecorderBytes is the byte budget of a Recorder whose MaxBytes is 0.
const DefaultRecorderBytes = 32 << 20

// Recorder keeps exchanges for reports. It is safe for concurrent use. It
// keeps at most Limit exchanges (0: no count limit) and at most MaxBytes of
// their text (0: DefaultRecorderBytes; negative: no byte limit); the oldest
// are dropped first.
type Recorder struct {
	mu       sync.Mutex
	Limit    int
	MaxBytes int64
	all      []*Exchange
	sizes    []int64
	bytes    int64
	count    int
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

// Dropped is how many recorded exchanges were dropped to stay within the
// limits.
func (r *Recorder) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count - len(r.all)
}

// Bytes is the size of the text the recorder holds.
func (r *Recorder) Bytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

func (r *Recorder) add(e *Exchange) {
	size := e.size()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count++
	r.all, r.sizes = append(r.all, e), append(r.sizes, size)
	r.bytes += size
	budget := r.MaxBytes
	if budget == 0 {
		budget = DefaultRecorderBytes
	}
	drop := 0
	for drop < len(r.all)-1 && (r.Limit > 0 && len(r.all)-drop > r.Limit || budget > 0 && r.bytes > budget) {
		r.bytes -= r.sizes[drop]
		drop++
	}
	if drop > 0 {
		// Reslicing, not copying: a full recorder drops one exchange per
		// request, and copying every kept one each time made a request cost
		// as much as the recorder holds. The dropped slots are cleared so
		// their exchanges can be collected; append moves the kept ones to a
		// new array when the old one runs out.
		clear(r.all[:drop])
		r.all, r.sizes = r.all[drop:], r.sizes[drop:]
	}
}

// size approximates the bytes an exchange takes in a report.
func (e *Exchange) size() int64 {
	n := len(e.Operation) + len(e.URL) + len(e.RequestBody) + len(e.ResponseBody) + len(e.Reproduce) + 200
	for _, h := range []http.Header{e.RequestHeader, e.ResponseHeader} {
		for k, vs := range h {
			for _, v := range vs {
				n += len(k) + len(v) + 4
			}
		}
	}
	for _, v := range e.Violations {
		n += len(v.Message) + len(v.Location) + len(fmt.Sprint(v.Value)) + 50
	}
	return int64(n)
}

func (c *Client) record(r Request, req *http.Request, body []byte, out *Response, d time.Duration) *Exchange {
	e := &Exchange{
		Time: time.Now().UTC(), Operation: out.Operation, Method: req.Method,
		URL:           c.red.Cut(tokenParam.ReplaceAllString(req.URL.String(), "${1}"+c.red.Marker()), MaxRecordedURL),
		RequestHeader: c.boundHeader(req.Header, true), RequestBody: c.red.cutBytes(body, MaxRecordedBody), Invalid: r.Invalid,
		Status: out.Status, ResponseHeader: c.boundHeader(out.Header, false), ResponseBody: c.red.cutBytes(out.Body, MaxRecordedBody),
		Duration: d, Violations: out.Violations, Reproduce: c.reproduce(req, body),
	}
	if c.cfg.Recorder != nil {
		c.cfg.Recorder.add(e)
	}
	return e
}

// tokenParam finds the value of an access_token parameter in a URL.
var tokenParam = regexp.MustCompile(`((?:^|[?&])access_token=)[^&#\s"]*`)

// HideTokenParam replaces the value of every access_token parameter of an
// encoded query (or URL) with marker, as an observed exchange shows it.
func HideTokenParam(query, marker string) string {
	return tokenParam.ReplaceAllString(query, "${1}"+marker)
}

// boundHeader redacts a header block as Redactor.Header does, and cuts it.
func (c *Client) boundHeader(h http.Header, request bool) http.Header {
	out := make(http.Header, len(h))
	total, kept, values := 0, 0, 0
	for _, k := range sortedKeys(h) {
		for _, v := range h[k] {
			values++
			total += len(k) + len(v)
			if kept >= MaxRecordedHeader {
				continue
			}
			v = c.red.headerValue(k, v, request, MaxRecordedValue)
			kept += len(k) + len(v)
			out[k] = append(out[k], v)
		}
	}
	if kept >= MaxRecordedHeader {
		out[CutHeader] = []string{fmt.Sprintf("… [cut: %d header values, %d bytes total]", values, total)}
	}
	return out
}
