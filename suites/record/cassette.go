package record

// A cassette answers a run's requests from a record: the checks run again,
// with the record's seed and marker, and each request they send is
// answered with the answer the record holds for that same request. A
// check that asks only what the run asked, in the same order, meets the
// same answers and reaches the same verdict; the verdict is then
// re-derived from the record by the check itself. A request the record
// does not hold is not answered (ErrNotRecorded), and the check that sent
// it is named as not re-derived.

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/suites/client"
)

// Cassette is an http.RoundTripper that serves a record's answers.
type Cassette struct {
	mountPath string
	tokens    []string // the replay's token of each user, by index
	red       *client.Redactor
	started   time.Time

	mu      sync.Mutex
	queues  map[string][]*Exchange // request key -> its answers, in record order
	served  int
	misses  []Miss
	now     time.Time // the end of the latest answer served, on the record's clock
	answers map[*http.Response]*Exchange
	pending int // answers held in queues
}

// Miss is a request the record held no answer for.
type Miss struct {
	Request string // method, path and query, user and body (cut), redacted
}

// NewCassette serves exchanges (in record order) to a run whose user i
// authenticates with tokens[i] and whose client redacts secrets besides
// (tokens the checks derive from the users'); the target's base path is
// h's.
func NewCassette(h Header, exchanges []*Exchange, tokens, secrets []string) *Cassette {
	mount := h.MountPath
	if h.Described != nil {
		mount = h.Described.MountPath()
	}
	c := &Cassette{mountPath: strings.TrimSuffix(mount, "/"), tokens: tokens, started: h.Started,
		queues: map[string][]*Exchange{}, answers: map[*http.Response]*Exchange{}, now: h.Started, red: client.NewRedactor(append(slices.Clone(tokens), secrets...)...)}
	for _, x := range exchanges {
		k := key(x.Check, c.user(x.User), schemeOf(x.Reproduce), x.Method, x.Path, x.Query, x.RequestHeader, x.RequestBody)
		c.queues[k] = append(c.queues[k], x)
		c.pending++
	}
	return c
}

// key is what tells a request from another: the check that sent it, who
// sent it, how, where, with which headers (as a record keeps them,
// redacted) and which body. A check's requests are answered from its own
// exchanges only: one that asks more than the run did (a check the run
// cut short, say) takes nothing from the checks after it.
func key(check string, user int, scheme, method, path, query string, header http.Header, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %d %s %s %s?%s\n", check, user, scheme, method, path, query)
	for _, k := range slices.Sorted(maps.Keys(header)) {
		fmt.Fprintf(&b, "%s: %q\n", k, header[k])
	}
	b.Write(body)
	return b.String()
}

// user is i when it is the index of one of the run's users, else -1: a
// token a check made up is counted among the client's secrets, after the
// users', and a replay need not know it.
func (c *Cassette) user(i int) int {
	if i < 0 || i >= len(c.tokens) {
		return -1
	}
	return i
}

// schemeOf is the scheme of the URL in an exchange's curl command: a
// request sent without TLS on purpose is another request than the same
// path over https.
func schemeOf(curl string) string {
	if strings.Contains(curl, " 'http://") {
		return "http"
	}
	return "https"
}

// RoundTrip answers req from the record.
func (c *Cassette) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	user := c.userOf(req)
	path := strings.TrimPrefix(req.URL.EscapedPath(), c.mountPath)
	query := client.HideTokenParam(req.URL.RawQuery, client.DefaultMarker)
	path, query, body = c.red.String(path), c.red.String(query), []byte(c.red.String(string(body)))
	k := key(client.CheckOf(req.Context()), user, req.URL.Scheme, req.Method, path, query, c.red.Header(req.Header, true), body)

	c.mu.Lock()
	q := c.queues[k]
	if len(q) == 0 {
		shown := req.Method + " " + path
		if query != "" {
			shown += "?" + query
		}
		if user >= 0 {
			shown += fmt.Sprintf(" as user %d", user+1)
		}
		if len(body) > 0 {
			shown += " with body " + c.red.Cut(string(body), 200)
		}
		c.misses = append(c.misses, Miss{Request: shown})
		c.mu.Unlock()
		return nil, fmt.Errorf("%s as user %d: %w", shownRequest(req.Method, path, query), user+1, client.ErrNotRecorded)
	}
	x := q[0]
	c.queues[k] = q[1:]
	c.pending--
	c.served++
	if end := c.started.Add(x.End); end.After(c.now) {
		c.now = end
	}
	h := x.ResponseHeader.Clone()
	if h == nil {
		h = http.Header{}
	}
	declared, _ := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	h.Del("Content-Length")
	h.Del("Content-Encoding")
	resp := &http.Response{
		Status: strconv.Itoa(x.Status) + " " + http.StatusText(x.Status), StatusCode: x.Status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h,
		Body: io.NopCloser(bytes.NewReader(x.ResponseBody)), ContentLength: int64(len(x.ResponseBody)),
		Request: req,
	}
	if x.BrokenOff {
		// The body ends where the run's did, short of what it declared.
		resp.ContentLength = max(declared, int64(len(x.ResponseBody))+1)
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(x.ResponseBody), brokenReader{}))
	}
	c.answers[resp] = x
	c.mu.Unlock()
	return resp, nil
}

// Times are the record's start and end of the exchange resp was served
// from (see client.Clock).
func (c *Cassette) Times(resp *http.Response) (start, end time.Time, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	x, ok := c.answers[resp]
	if !ok {
		return time.Time{}, time.Time{}, false
	}
	delete(c.answers, resp)
	return c.started.Add(x.Start), c.started.Add(x.End), true
}

func shownRequest(method, path, query string) string {
	if query != "" {
		return method + " " + path + "?" + query
	}
	return method + " " + path
}

// userOf is the index of the token req carries, as the client counts
// them (Authorization, then access_token, then X-Access-Token), or -1.
func (c *Cassette) userOf(req *http.Request) int {
	candidates := []string{strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "), req.URL.Query().Get("access_token"), req.Header.Get("X-Access-Token")}
	for _, cand := range candidates {
		for i, t := range c.tokens {
			if cand != "" && cand == t {
				return i
			}
		}
	}
	return -1
}

// Now is the cassette's clock: the record's time of the latest answer it
// served.
func (c *Cassette) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Misses are the requests the record held no answer for, in order.
func (c *Cassette) Misses() []Miss {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Miss(nil), c.misses...)
}

// Left are the record's exchanges the replay did not ask for, in record
// order.
func (c *Cassette) Left() []*Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Exchange
	for _, q := range c.queues {
		out = append(out, q...)
	}
	slices.SortFunc(out, func(a, b *Exchange) int { return a.N - b.N })
	return out
}

// Served is how many answers the cassette gave; Unserved how many of the
// record's it did not.
func (c *Cassette) Served() (served, unserved int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.served, c.pending
}

// brokenReader is the end of a body that broke off.
type brokenReader struct{}

func (brokenReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }
