package selftest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
)

// call is one request on its way through a decorated server: the request
// as the client sent it (steps may rewrite it before it goes in), the
// operation it names, and the inner, unmodified handler, which steps may
// also call again on the caller's behalf.
type call struct {
	r     *http.Request
	op    string // operationId of the API document's OpenAPI form, "" for no API path
	user  string // {userId} of the path, when the path has one
	room  string // {roomId}
	msg   string // {messageId}
	inner http.Handler
	st    *state
	body  []byte // the request body as it goes in, kept for steps that read it after the inner handler has
}

// reply is a captured response that steps may rewrite. Its body is decoded
// only when a step asks for it (get), so replies no step reads go out as
// the inner server wrote them, byte for byte.
type reply struct {
	status  int
	header  http.Header
	raw     []byte // what is sent, unless the decoded body is
	body    any    // the decoded JSON body, once get has run
	decoded bool   // get or set has run: body (if not nil) is what is sent
}

// get returns the decoded JSON body (nil when the body is not JSON). Steps
// may change it in place.
func (x *reply) get() any {
	if !x.decoded {
		x.decoded = true
		if len(x.raw) > 0 && json.Unmarshal(x.raw, &x.body) == nil {
			x.raw = nil
		}
	}
	return x.body
}

// set replaces the body with v, sent as JSON.
func (x *reply) set(v any) { x.body, x.raw, x.decoded = v, nil, true }

// setRaw replaces the body with bytes sent as they are.
func (x *reply) setRaw(b []byte) { x.body, x.raw, x.decoded = nil, b, true }

// bytes returns the body as it would be sent.
func (x *reply) bytes() []byte {
	if x.raw == nil && x.body != nil {
		return encode(x.body)
	}
	return x.raw
}

// ok reports whether the inner server answered with success.
func (x *reply) ok() bool { return x.status >= 200 && x.status < 300 }

// step is one decorator: it may rewrite c.r, call next (which runs the rest
// of the chain and the inner handler), rewrite what comes back, or answer
// without calling next at all.
type step func(c *call, next func() *reply) *reply

// decorate wraps inner with steps; the first step is the outermost.
func decorate(inner http.Handler, st *state, steps []step) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &call{r: r, inner: inner, st: st}
		if r.Body != nil {
			raw, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
			c.setRawBody(raw)
		}
		c.route()
		var run func(i int) *reply
		run = func(i int) *reply {
			if i == len(steps) {
				c.route() // a step may have moved the request to another path
				return c.forward(c.r)
			}
			return steps[i](c, func() *reply { return run(i + 1) })
		}
		write(w, run(0))
	})
}

// route names the operation of c.r and picks out its path parameters.
func (c *call) route() {
	c.op, c.user, c.room, c.msg = "", "", "", ""
	p := strings.Split(strings.TrimPrefix(c.r.URL.Path, "/"), "/")
	m := c.r.Method
	switch {
	case len(p) == 2 && p[0] == "v1" && p[1] == "user" && m == "GET":
		c.op = "getCurrentUser"
	case len(p) == 4 && p[0] == "v1" && p[1] == "user":
		c.user = p[2]
		switch {
		case p[3] == "rooms" && m == "GET":
			c.op = "listUserRooms"
		case p[3] == "orgs" && m == "GET":
			c.op = "listUserOrgs"
		case p[3] == "repos" && m == "GET":
			c.op = "listUserRepos"
		case p[3] == "channels" && m == "GET":
			c.op = "listUserChannels"
		}
	case len(p) == 5 && p[0] == "v1" && p[1] == "user" && p[3] == "rooms" && m == "DELETE":
		c.op, c.user, c.room = "hideUserRoom", p[2], p[4]
	case len(p) == 6 && p[0] == "v1" && p[1] == "user" && p[3] == "rooms" && p[5] == "unreadItems":
		c.user, c.room = p[2], p[4]
		switch m {
		case "GET":
			c.op = "getUnreadItems"
		case "POST":
			c.op = "markUnreadItemsRead"
		}
	case len(p) == 4 && p[0] == "v1" && p[1] == "rooms" && p[3] == "chatMessages":
		c.room = p[2]
		switch m {
		case "GET":
			c.op = "listMessages"
		case "POST":
			c.op = "sendMessage"
		}
	case len(p) == 5 && p[0] == "v1" && p[1] == "rooms" && p[3] == "chatMessages":
		c.room, c.msg = p[2], p[4]
		switch m {
		case "GET":
			c.op = "getMessage"
		case "PUT":
			c.op = "updateMessage"
		}
	}
}

// forward runs r through the inner handler and captures the answer.
func (c *call) forward(r *http.Request) *reply {
	rec := httptest.NewRecorder()
	c.inner.ServeHTTP(rec, r)
	return &reply{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
}

// do makes an extra request to the inner handler with the caller's own
// credentials (whatever form they came in), for steps that answer from
// more than one call.
func (c *call) do(method, path string, query url.Values, body any) *reply {
	return c.doAs(method, path, query, body, nil)
}

// doAs is do with the credentials of token instead, when token is not nil.
func (c *call) doAs(method, path string, query url.Values, body any, token *string) *reply {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	// The path may hold an id a client sent (a cursor of any characters):
	// it is escaped, not spliced into a URL as it is.
	r := httptest.NewRequestWithContext(c.r.Context(), method, (&url.URL{Scheme: "https", Host: "inner", Path: path}).String(), rd)
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if token != nil {
		r.Header.Set("Authorization", "Bearer "+*token)
	} else {
		for _, h := range []string{"Authorization", "X-Access-Token"} {
			if v := c.r.Header.Values(h); len(v) > 0 {
				r.Header[h] = v
			}
		}
		if t, ok := c.r.URL.Query()["access_token"]; ok {
			q["access_token"] = t
		}
	}
	r.URL.RawQuery = q.Encode()
	return c.forward(r)
}

// query returns the request's query; setQuery replaces it.
func (c *call) query() url.Values { return c.r.URL.Query() }

func (c *call) setQuery(q url.Values) { c.r.URL.RawQuery = q.Encode() }

// intParam reads an integer query parameter; ok is false when it is absent
// or not a number.
func (c *call) intParam(name string) (int, bool) {
	n, err := strconv.Atoi(c.query().Get(name))
	return n, err == nil
}

// jsonBody decodes the request body as a JSON object, also after the inner
// handler has read it. A body that is not an object gives nil.
func (c *call) jsonBody() map[string]any {
	var m map[string]any
	if json.Unmarshal(c.body, &m) != nil {
		return nil
	}
	return m
}

// setJSONBody replaces the request body.
func (c *call) setJSONBody(m map[string]any) {
	raw, _ := json.Marshal(m)
	c.setRawBody(raw)
}

// setRawBody replaces the request body with bytes.
func (c *call) setRawBody(raw []byte) {
	c.body = raw
	c.r.Body = io.NopCloser(bytes.NewReader(raw))
	c.r.ContentLength = int64(len(raw))
	c.r.Header.Del("Content-Length")
}

// write sends a reply: raw bytes as they are, a body re-encoded as JSON, and
// no body at all with 204.
func write(w http.ResponseWriter, x *reply) {
	out := x.bytes()
	for k, v := range x.header {
		w.Header()[k] = v
	}
	if x.status == http.StatusNoContent {
		w.Header().Del("Content-Type")
		w.Header().Del("Content-Length")
		w.WriteHeader(x.status)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(x.status)
	_, _ = w.Write(out)
}
