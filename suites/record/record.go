// Package record keeps the exchanges of a conformance run in a file, so
// that the run's document and history verdicts can be judged again later,
// offline, by anyone holding the file: the run record of
// `chatconform --record FILE`, read back by `chatconform replay FILE`.
//
// A record is JSON Lines. The first line is a Header (what run it is: seed,
// profile, harness version, the target, and SHA-256 digests of the OpenAPI
// documents and the requirement catalogue the run was judged by). Every
// following line but the last is one Exchange, in the order the client saw
// the answers. The last line is a Trailer: how many exchanges were written,
// the verdicts judged while the run went on, from the exchanges as the
// client saw them (replaying a record compares what it finds with those),
// and what the client saw of the server: the addresses it reached and the
// fingerprints of the TLS certificates presented (Observation).
//
// What is written is redacted: every token of the run is replaced by value
// in paths, queries, headers and bodies, and credential headers never carry
// their value. Bodies are kept whole up to MaxBody, which is what the
// harness's client reads of an answer at most (client.DefaultMaxBody): any
// body the run judged is written whole, so a replay sees the bytes the
// run's validator and history checker saw. A longer body (the harness's
// client never hands one over) would be cut and marked, and a replay would
// not judge its exchange.
package record

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
)

// Format names the layout of a record; a reader refuses any other.
const Format = "chatconform-record/1"

// MaxBody is the most of one body a record keeps.
const MaxBody = client.DefaultMaxBody

// Line kinds.
const (
	KindHeader   = "header"
	KindExchange = "exchange"
	KindTrailer  = "end"
)

// Header is the first line of a record.
type Header struct {
	Kind    string `json:"kind"`
	Format  string `json:"format"`
	Version string `json:"harnessVersion"`
	Seed    uint64 `json:"seed"`
	Profile string `json:"profile"`
	// Target is the base URL of the target, redacted; MountPath its path
	// part, which the validator needs to route requests.
	Target    string `json:"target"`
	MountPath string `json:"mountPath,omitempty"`
	Bundled   bool   `json:"bundled,omitempty"`
	// Eventually is the run's --eventually: how long the history checker
	// lets a stale copy be served after a write.
	Eventually time.Duration `json:"eventuallyNs"`
	// Shared says other clients may have written to the target during the
	// run (any target but the bundled server): the history rules that hold
	// only for a sole writer are relaxed, as in the run.
	Shared bool `json:"shared,omitempty"`
	// Started is the wall-clock time every exchange's offsets count from.
	Started time.Time `json:"started"`
	Users   int       `json:"users"`
	Digests Digests   `json:"digests"`
	// BodyCap is MaxBody when the record was written.
	BodyCap int64 `json:"bodyCap"`
	// ResponseHeaders says whether exchanges carry the answers' headers.
	// Without them, the rules that read a header (the Content-Type of an
	// answer) cannot be judged from the record: see Unsupported.
	ResponseHeaders bool `json:"responseHeaders"`
	// Marker is the run's marker, the word its texts carry (see
	// conformance.Options.Marker): a replay of the checks writes the same
	// texts with it. Empty in a record written before it was kept.
	Marker string `json:"marker,omitempty"`
	// Described is the target as the run was given it, before discovery,
	// without its tokens (each user's token is empty) or its CA file, its
	// base URL redacted. Nil for the bundled server, whose seed names its
	// world, and in a record written before it was kept.
	Described *target.Description `json:"described,omitempty"`
	// Checks is how the run chose and drew its checks; nil in a record
	// written before it was kept. A replay of the checks runs the same.
	Checks *CheckOptions `json:"checks,omitempty"`
}

// CheckOptions are the options of a run that decide which checks run and
// what they send: a replay of the checks needs the same.
type CheckOptions struct {
	LabelFilter    string `json:"labelFilter,omitempty"`
	Focus          string `json:"focus,omitempty"`
	Examples       int    `json:"examples,omitempty"`
	ModelSequences int    `json:"modelSequences,omitempty"`
	Parallel       int    `json:"parallel,omitempty"`
	// Concurrent is how many checks were asked to run at once: 1 one at
	// a time; 0 left to the run, which keeps its choice in the trailer
	// (Trailer.ChecksAtOnce; none kept: one at a time).
	Concurrent int `json:"concurrentChecks,omitempty"`
}

// Describe is d as a record keeps it (see Header.Described).
func Describe(d *target.Description, red *client.Redactor) *target.Description {
	if d == nil {
		return nil
	}
	out := &target.Description{BaseURL: red.String(d.BaseURL), Rooms: d.Rooms, WriteRoom: d.WriteRoom, HideRoom: d.HideRoom}
	for _, u := range d.Users {
		out.Users = append(out.Users, target.User{Name: u.Name, ID: u.ID, Username: u.Username, PrivateReposGranted: u.PrivateReposGranted})
	}
	return out
}

// UserIDs are the ids a description gives its users, by index ("" where
// it gives none); nil for no description.
func UserIDs(d *target.Description) []string {
	if d == nil {
		return nil
	}
	ids := make([]string, len(d.Users))
	for i, u := range d.Users {
		ids[i] = u.ID
	}
	return ids
}

// Digests are SHA-256 digests (hex) of what a run is judged by.
type Digests struct {
	Core      string `json:"openapiCore"`
	Reference string `json:"openapiReference"`
	// Catalogue is the digest of the requirement catalogue file.
	Catalogue string `json:"catalogue"`
}

// CurrentDigests returns the digests of the documents and catalogue this
// build embeds.
func CurrentDigests() (Digests, error) {
	var d Digests
	for _, p := range []struct {
		p   spec.Profile
		out *string
	}{{spec.Core, &d.Core}, {spec.Reference, &d.Reference}} {
		src, err := spec.Source(p.p)
		if err != nil {
			return d, err
		}
		*p.out = sha(src)
	}
	raw, err := spec.CatalogueSource()
	if err != nil {
		return d, err
	}
	d.Catalogue = sha(raw)
	return d, nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Changes lists, in words, how digests e differ from d ("" when they agree).
func (d Digests) Changes(e Digests) []string {
	var out []string
	for _, c := range []struct{ what, a, b string }{
		{"the core OpenAPI document", d.Core, e.Core},
		{"the reference OpenAPI document", d.Reference, e.Reference},
		{"the requirement catalogue", d.Catalogue, e.Catalogue},
	} {
		if c.a != c.b {
			out = append(out, fmt.Sprintf("%s changed (sha256 %s -> %s)", c.what, short(c.a), short(c.b)))
		}
	}
	return out
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Exchange is one request and its answer, as a record keeps it.
type Exchange struct {
	// N numbers the exchanges of a record from 1.
	N int
	// Start and End are offsets from Header.Started: the request handed to
	// the transport, and the whole answer read.
	Start, End time.Duration
	// User is the index of the run's token the request carried (0 is user
	// 1), or -1 for none of them.
	User int
	// Method, Path (below the base URL, from /v1) and Query (encoded),
	// redacted.
	Method, Path, Query string
	// Operation is the operationId the request addressed, or "METHOD path"
	// when none matched.
	Operation string
	// Invalid marks a request meant to break the document: only the answer
	// is judged.
	Invalid bool
	Status  int
	// RequestHeader and ResponseHeader are redacted; nil when unknown.
	RequestHeader, ResponseHeader http.Header
	// RequestBody (nil: none) and ResponseBody, redacted.
	RequestBody, ResponseBody []byte
	// RequestSize and ResponseSize are the bodies' sizes before any cut;
	// a body longer than what is kept is cut and then not judged.
	RequestSize, ResponseSize int64
	RequestCut, ResponseCut   bool
	// BrokenOff says the response body ended before the length its
	// Content-Length header declared (client.Response.BrokenOff): a replay
	// breaks it off at the same byte.
	BrokenOff bool
	Reproduce string
	// Check names the check the request was sent for ("" for the run's
	// setup, and in a record written before it was kept): a replay of the
	// checks answers each check from its own exchanges.
	Check string
}

// Trailer is the last line of a record.
type Trailer struct {
	Kind      string `json:"kind"`
	Exchanges int    `json:"exchanges"`
	// Verdicts are those judged while the run went on; nil when the
	// writer was not asked to judge.
	Verdicts *Verdicts `json:"verdicts,omitempty"`
	// Observed is what the harness saw of the server (its addresses and
	// TLS certificates); nil in a record written before it was kept.
	Observed *Observation `json:"observed,omitempty"`
	// ChecksAtOnce is how many checks ran at once, as the run chose it
	// when its header's CheckOptions.Concurrent left it to the run (0);
	// 0 when not kept.
	ChecksAtOnce int `json:"checksAtOnce,omitempty"`
}

// line is the JSON form of an exchange.
type line struct {
	Kind           string      `json:"kind"`
	N              int         `json:"n"`
	Start          int64       `json:"startNs"`
	End            int64       `json:"endNs"`
	User           int         `json:"user"`
	Method         string      `json:"method"`
	Path           string      `json:"path"`
	Query          string      `json:"query,omitempty"`
	Operation      string      `json:"operation"`
	Invalid        bool        `json:"invalid,omitempty"`
	Status         int         `json:"status"`
	RequestHeader  http.Header `json:"requestHeader,omitempty"`
	ResponseHeader http.Header `json:"responseHeader,omitempty"`
	RequestBody    *body       `json:"requestBody,omitempty"`
	ResponseBody   *body       `json:"responseBody,omitempty"`
	Reproduce      string      `json:"reproduce,omitempty"`
	Check          string      `json:"check,omitempty"`
	BrokenOff      bool        `json:"brokenOff,omitempty"`
}

// body holds a body as text when it is UTF-8, else in base64.
type body struct {
	Text   *string `json:"text,omitempty"`
	Base64 string  `json:"base64,omitempty"`
	Size   int64   `json:"size"`
	Cut    bool    `json:"cut,omitempty"`
}

func encodeBody(b []byte, size int64, cut bool) *body {
	if b == nil {
		return nil
	}
	out := &body{Size: size, Cut: cut}
	if utf8.Valid(b) {
		s := string(b)
		out.Text = &s
	} else {
		out.Base64 = base64.StdEncoding.EncodeToString(b)
	}
	return out
}

func (b *body) decode() ([]byte, int64, bool, error) {
	if b == nil {
		return nil, 0, false, nil
	}
	if b.Text != nil {
		return []byte(*b.Text), b.Size, b.Cut, nil
	}
	raw, err := base64.StdEncoding.DecodeString(b.Base64)
	if raw == nil {
		raw = []byte{}
	}
	return raw, b.Size, b.Cut, err
}

func (x *Exchange) line() line {
	return line{Kind: KindExchange, N: x.N, Start: int64(x.Start), End: int64(x.End), User: x.User, Method: x.Method, Path: x.Path,
		Query: x.Query, Operation: x.Operation, Invalid: x.Invalid, Status: x.Status, RequestHeader: x.RequestHeader,
		ResponseHeader: x.ResponseHeader, RequestBody: encodeBody(x.RequestBody, x.RequestSize, x.RequestCut),
		ResponseBody: encodeBody(x.ResponseBody, x.ResponseSize, x.ResponseCut), Reproduce: x.Reproduce, Check: x.Check, BrokenOff: x.BrokenOff}
}

func (l *line) exchange() (*Exchange, error) {
	x := &Exchange{N: l.N, Start: time.Duration(l.Start), End: time.Duration(l.End), User: l.User, Method: l.Method, Path: l.Path,
		Query: l.Query, Operation: l.Operation, Invalid: l.Invalid, Status: l.Status, RequestHeader: l.RequestHeader,
		ResponseHeader: l.ResponseHeader, Reproduce: l.Reproduce, Check: l.Check, BrokenOff: l.BrokenOff}
	var err error
	if x.RequestBody, x.RequestSize, x.RequestCut, err = l.RequestBody.decode(); err != nil {
		return nil, fmt.Errorf("exchange %d: request body: %w", l.N, err)
	}
	if x.ResponseBody, x.ResponseSize, x.ResponseCut, err = l.ResponseBody.decode(); err != nil {
		return nil, fmt.Errorf("exchange %d: response body: %w", l.N, err)
	}
	if x.ResponseBody == nil {
		x.ResponseBody = []byte{}
	}
	return x, nil
}

// Observed turns an exchange back into what a client observer is handed,
// with times placed after started.
func (x *Exchange) Observed(started time.Time) client.Observed {
	return client.Observed{Start: started.Add(x.Start), End: started.Add(x.End), User: x.User, Method: x.Method, Path: x.Path,
		Query: x.Query, Operation: x.Operation, Invalid: x.Invalid, Status: x.Status, RequestBody: x.RequestBody,
		ResponseBody: x.ResponseBody, Reproduce: x.Reproduce, BrokenOff: x.BrokenOff}
}
