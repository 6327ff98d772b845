package generate

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/chatrooms/conformance/suites/client"
)

// noteClass says how a request departs from the plain one.
type noteClass int

const (
	// refusable: the document allows the request, but a server may refuse
	// it (an id the caller cannot see, a point the document leaves open).
	refusable noteClass = iota
	// invalid: the request breaks the profile's document (one violation).
	invalid
	// open: the document neither allows nor forbids it (an unknown query
	// parameter, an unknown body field where the schema does not close
	// the object).
	open
	// badToken: no token, or one the server never issued.
	badToken
	// badMethod: a method the path does not document.
	badMethod
)

// Statuses a note can carry for the reference profile besides real ones.
const (
	ref2xx  = 0  // the reference profile answers with a 2xx
	refNone = -1 // the reference profile documents no answer
)

// note is one departure from the plain request, in words, with the status
// the reference profile documents for it.
type note struct {
	class noteClass
	what  string
	ref   int
}

// testCase is one generated request and what the contract says of it.
type testCase struct {
	op       *operation
	method   string
	path     string // concrete and escaped
	template string // the path with the role of each id in place of the id
	query    url.Values
	qdesc    []string // the query in words
	header   http.Header
	body     []byte // nil: no body
	bdesc    string
	place    client.TokenPlace
	token    string
	tdesc    string
	// towner is the document's requirement a 2xx answer to the token this
	// case presents breaks: AUTH-REQUIRED without one, AUTH-UNKNOWN-TOKEN
	// for a token the server never issued ("" for the caller's own).
	towner string
	notes  []note
	// What the request targets, for the state reads around it.
	room, message string
	hideRoom      bool // the path names a room to hide: the rooms list is state too
	text          string
	sendsText     bool   // the body carries a text to read back
	shareKey      string // set on coverage cases whose answer properties share
	// assigns are the values of the parameters (pairwise.go) the case
	// stands for: one per script that built this same request.
	assigns []map[string]int
}

func (c *testCase) note(class noteClass, ref int, format string, args ...any) {
	c.notes = append(c.notes, note{class: class, what: fmt.Sprintf(format, args...), ref: ref})
}

// valid reports whether the request keeps to the profile's document.
func (c *testCase) valid() bool {
	for _, n := range c.notes {
		if n.class != refusable {
			return false
		}
	}
	return true
}

// has reports whether a note of the class is present.
func (c *testCase) has(class noteClass) bool {
	return slices.ContainsFunc(c.notes, func(n note) bool { return n.class == class })
}

// refusals lists why a server may refuse the request although the document
// allows it.
func (c *testCase) refusals() []string {
	var out []string
	for _, n := range c.notes {
		if n.class == refusable {
			out = append(out, n.what)
		}
	}
	return out
}

// defect is the one way the request breaks or leaves the document ("" for
// a valid request).
func (c *testCase) defect() string {
	for _, n := range c.notes {
		if n.class != refusable {
			return n.what
		}
	}
	return ""
}

// refExpected returns the statuses the reference profile documents for the
// request (0 standing for any 2xx) and whether it documents one at all.
func (c *testCase) refExpected() ([]int, bool) {
	var out []int
	for _, n := range c.notes {
		switch {
		case n.ref == refNone:
			return nil, false
		case n.ref != ref2xx && !slices.Contains(out, n.ref):
			out = append(out, n.ref)
		}
	}
	if len(out) == 0 {
		return []int{ref2xx}, true
	}
	return out, true
}

// request is the client request of the case.
func (c *testCase) request() client.Request {
	r := client.Request{Method: c.method, Path: c.path, Query: c.query, Token: c.token, Place: c.place,
		Header: c.header, Invalid: !c.valid()}
	if c.body != nil {
		r.RawBody = c.body
		if len(c.body) == 0 {
			r.RawBody = []byte{}
		}
	}
	return r
}

// describe is the request in one line: method, path with roles, query,
// token and body, then what makes it other than plain.
func (c *testCase) describe() string {
	var b strings.Builder
	b.WriteString(c.method + " " + c.template)
	if len(c.qdesc) > 0 {
		b.WriteString("?" + strings.Join(c.qdesc, "&"))
	}
	if c.tdesc != "" {
		b.WriteString(" [" + c.tdesc + "]")
	}
	if c.bdesc != "" {
		b.WriteString(" body " + c.bdesc)
	}
	var why []string
	for _, n := range c.notes {
		switch n.class {
		case refusable:
			why = append(why, "may be refused: "+n.what)
		case open:
			why = append(why, "left open: "+n.what)
		default:
			why = append(why, "defect: "+n.what)
		}
	}
	if len(why) > 0 {
		b.WriteString(" (" + strings.Join(why, "; ") + ")")
	}
	return b.String()
}
