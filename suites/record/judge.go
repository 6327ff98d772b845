package record

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/conformance"
	"github.com/chatrooms/conformance/suites/history"
)

// Whose fault a finding is: the answer's (the server) or the request's (the
// client that sent it; in a run record, the harness itself).
const (
	Server = "server"
	Client = "client"
)

// Where a finding comes from.
const (
	Document = "document" // one exchange against the OpenAPI document
	History  = "history"  // exchanges against each other (suites/history)
)

// NoOperation is what a request that addresses no operation of the document
// is reported under. It is not a catalogue id: the catalogue states what a
// server must do, and the document simply has no such operation.
const NoOperation = "NO-OPERATION"

// RequestLabel is what a request's violation of operation op's part of the
// document is reported under when no catalogue requirement is about what
// the client did (a body of the wrong shape, a parameter the operation does
// not have): the catalogue states what a server must do, and a server
// requirement's statement would tell a client author nothing. Like
// NoOperation, it is not a catalogue id.
func RequestLabel(op string) string { return requestLabelPrefix + op }

const requestLabelPrefix = "REQUEST-"

// LabelText returns the statement a label that is not a catalogue id
// stands for (NoOperation, a RequestLabel): what the client must do. It
// reports false for any other id.
func LabelText(id string) (string, bool) {
	if id == NoOperation {
		return "The request addresses an operation of the document.", true
	}
	if op, ok := strings.CutPrefix(id, requestLabelPrefix); ok && op != "" {
		return "A " + op + " request follows the document: the parameters, headers and body the operation declares, of the types and shapes it gives.", true
	}
	return "", false
}

// JudgeOptions configure a Judge.
type JudgeOptions struct {
	Profile    spec.Profile
	MountPath  string
	Eventually time.Duration
	// Shared relaxes the history rules that hold only for a sole writer.
	Shared bool
	// Started is the instant the exchanges' offsets count from.
	Started time.Time
	// Redactor redacts every text the judge writes; Redactors, when set,
	// is asked for the redactor to use each time instead (the proxy learns
	// tokens as clients present them).
	Redactor  *client.Redactor
	Redactors func() *client.Redactor
	// ResponseHeaders says whether exchanges carry the answers' headers;
	// without them the rules that read one are not judged.
	ResponseHeaders bool
	// ClientSide judges every request as a client's: one that addresses no
	// operation is the client's violation (the proxy). Otherwise such an
	// exchange is a probe off the document, and not judged (a run record:
	// the harness probes such paths on purpose).
	ClientSide bool
	// Examples bounds the examples kept per requirement; 0 means 3.
	Examples int
	// HistoryWindow, when not 0, starts a new history checker after it has
	// kept that many exchanges (or facts about ten times as many messages,
	// rooms, users or read states), so that memory stays bounded in a
	// session without end; contradictions between exchanges of different
	// windows are then not seen.
	HistoryWindow int
	// Index keeps the number of every exchange, so that history findings
	// name exchanges by number (a record); it grows with the exchanges.
	Index bool
	// UserIDs are the ids the target's description gives its users (see
	// history.Options.UserIDs).
	UserIDs []string
}

// Ref names one exchange of a finding.
type Ref struct {
	N         int    `json:"n,omitempty"` // the exchange's number in the record, 0 when unknown
	Method    string `json:"method"`
	Path      string `json:"path"` // with the query, redacted
	Status    int    `json:"status"`
	User      int    `json:"user"` // 0 is user 1; -1 none of the known tokens
	Reproduce string `json:"reproduce,omitempty"`
}

// Finding is one violation of a requirement: by one exchange (document) or
// between exchanges (history).
type Finding struct {
	Requirement string `json:"requirement"`
	Whose       string `json:"whose"`
	Source      string `json:"source"`
	Text        string `json:"text"`
	Exchanges   []Ref  `json:"exchanges"`
}

// Verdict is what the findings of one requirement add up to.
type Verdict struct {
	Requirement string `json:"requirement"`
	Whose       string `json:"whose"`
	Source      string `json:"source"`
	// Count is how many exchanges broke it (document), or how many
	// contradictions were found (history).
	Count    int       `json:"count"`
	Examples []Finding `json:"examples"`
}

func (v Verdict) key() string { return v.Requirement + " " + v.Whose + " " + v.Source }

// Verdicts is what a judge found in all the exchanges it was given.
type Verdicts struct {
	Exchanges int `json:"exchanges"`
	// Judged is how many exchanges were judged against the document; the
	// others are counted by reason in NotJudged.
	Judged    int            `json:"judged"`
	NotJudged map[string]int `json:"notJudged,omitempty"`
	// Failures holds every requirement broken, sorted by requirement,
	// whose and source.
	Failures []Verdict `json:"failures"`
	// Unsupported lists requirements these exchanges cannot judge, with
	// the reason.
	Unsupported map[string]string `json:"unsupported,omitempty"`
	// HistoryWindows is how many history checkers judged the exchanges (1
	// unless JudgeOptions.HistoryWindow cut the session).
	HistoryWindows int `json:"historyWindows,omitempty"`
	// Answered counts, by operation, the successes (2xx) judged against
	// the document: the operations whose answers the exchanges show. It
	// is the judge's own count, not written to a record.
	Answered map[string]int `json:"-"`
}

// Reach splits judgeable (Judgeable's list) by what the exchanges show: a
// requirement of the document is shown when a success of an operation
// whose answers can break it was judged (JudgeableByOperation). None of
// the history checker's is: its rules are many, and the exchanges do not
// show which of them they reached (a run passes one only where a check of
// it ran). The others are unreached, each with why. Requirements the
// exchanges broke are in neither list: they fail wherever they were met.
func (v *Verdicts) Reach(p spec.Profile, judgeable []string) (shown []string, unreached map[string]string) {
	reached := map[string]bool{}
	for op, ids := range JudgeableByOperation(p) {
		if v.Answered[op] > 0 {
			for _, id := range ids {
				reached[id] = true
			}
		}
	}
	unreached = map[string]string{}
	for _, id := range judgeable {
		isHistory := slices.Contains(HistoryRequirements, id)
		switch {
		case v.Failed(id):
		case !isHistory && reached[id]:
			shown = append(shown, id)
		case isHistory:
			unreached[id] = "the history checker found no contradiction, and these exchanges do not show which of its rules they reached"
		default:
			unreached[id] = "no success of an operation whose answers show it held (the status of an answer alone shows none)"
		}
	}
	return shown, unreached
}

// Split parts the verdicts by whose breach each failure is: the server's
// answers, and the client's requests.
func (v *Verdicts) Split() (server, client Verdicts) {
	server, client = *v, *v
	server.Failures, client.Failures = nil, nil
	for _, f := range v.Failures {
		if f.Whose == Client {
			client.Failures = append(client.Failures, f)
		} else {
			server.Failures = append(server.Failures, f)
		}
	}
	return server, client
}

// Failed reports whether requirement id was broken (by anyone).
func (v *Verdicts) Failed(id string) bool {
	for _, f := range v.Failures {
		if f.Requirement == id {
			return true
		}
	}
	return false
}

// Judge judges exchanges against a profile's document and against each
// other. It is safe for concurrent use.
type Judge struct {
	opt       JudgeOptions
	validator *spec.Validator
	doc       *spec.Document

	mu        sync.Mutex
	hist      *history.Checker
	past      map[string][]Finding // examples from closed history windows
	pastCount map[string]int       // contradictions in closed windows
	windows   int
	exchanges int
	judged    int
	notJudged map[string]int
	answered  map[string]int // successes judged against the document, by operation
	byKey     map[string]*Verdict
	index     map[int64]int
}

// NewJudge returns a judge.
func NewJudge(opt JudgeOptions) (*Judge, error) {
	if opt.Profile == "" {
		opt.Profile = spec.Core
	}
	if opt.Examples <= 0 {
		opt.Examples = 3
	}
	doc, err := spec.Load(opt.Profile)
	if err != nil {
		return nil, err
	}
	v, err := doc.NewValidator(opt.MountPath)
	if err != nil {
		return nil, err
	}
	j := &Judge{opt: opt, validator: v, doc: doc, notJudged: map[string]int{}, answered: map[string]int{}, byKey: map[string]*Verdict{}, pastCount: map[string]int{},
		past: map[string][]Finding{}}
	if opt.Index {
		j.index = map[int64]int{}
	}
	j.hist = j.newHistory()
	j.windows = 1
	return j, nil
}

func (j *Judge) newHistory() *history.Checker {
	return history.New(history.Options{Eventually: j.opt.Eventually, Shared: j.opt.Shared, Profile: string(j.opt.Profile),
		Redact:            func(s string) string { return j.red().String(s) },
		MaxPerRequirement: j.opt.Examples, UserIDs: j.opt.UserIDs})
}

// red is the redactor of the moment.
func (j *Judge) red() *client.Redactor {
	if j.opt.Redactors != nil {
		return j.opt.Redactors()
	}
	return j.opt.Redactor
}

// Validator is the judge's validator.
func (j *Judge) Validator() *spec.Validator { return j.validator }

// Reasons an exchange is not judged against the document.
const (
	ReasonOffDocument = "addresses no operation of the document (a probe off the API)"
	ReasonCut         = "a body longer than what is kept"
	ReasonUnreadable  = "the request cannot be rebuilt"
)

// Add judges one exchange and feeds it to the history checker; it returns
// the exchange's own document findings.
func (j *Judge) Add(x *Exchange) []Finding {
	found, reason := j.document(x)
	at := j.opt.Started
	j.mu.Lock()
	j.exchanges++
	if reason != "" {
		j.notJudged[reason]++
	} else {
		j.judged++
		if x.Operation != "" && x.Status >= 200 && x.Status < 300 {
			j.answered[x.Operation]++
		}
	}
	if j.index != nil {
		j.index[int64(x.Start)] = x.N
	}
	for _, f := range found {
		j.note(f)
	}
	hist := j.hist
	j.mu.Unlock()
	if x.RequestCut || x.ResponseCut {
		return found // its JSON would be cut short: no facts
	}
	hist.Observe(x.Observed(at))
	if w := j.opt.HistoryWindow; w > 0 {
		// A page can state facts about a hundred messages: the window also
		// closes on what the exchanges brought in.
		if st := hist.Stats(); st.Kept >= w || st.Messages >= 10*w || st.ReadState >= 10*w || st.Users+st.Rooms >= 10*w {
			j.rotate(hist)
		}
	}
	return found
}

// rotate closes the history window of hist, when it is still the current
// one.
func (j *Judge) rotate(hist *history.Checker) {
	j.mu.Lock()
	if j.hist != hist {
		j.mu.Unlock()
		return
	}
	j.hist = j.newHistory()
	j.windows++
	j.mu.Unlock()
	cs := hist.Check()
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range cs {
		j.pastCount[c.Requirement] += 1 + c.More
		if len(j.past[c.Requirement]) < j.opt.Examples {
			j.past[c.Requirement] = append(j.past[c.Requirement], j.finding(c))
		}
	}
}

// note adds a document finding to its requirement's verdict; the caller
// holds the lock.
func (j *Judge) note(f Finding) {
	k := f.Requirement + " " + f.Whose + " " + f.Source
	v := j.byKey[k]
	if v == nil {
		v = &Verdict{Requirement: f.Requirement, Whose: f.Whose, Source: f.Source}
		j.byKey[k] = v
	}
	v.Count++
	if len(v.Examples) < j.opt.Examples {
		v.Examples = append(v.Examples, f)
	}
}

// HistoryNow returns the contradictions the current history window holds
// so far (the proxy prints them as they appear).
func (j *Judge) HistoryNow() []history.Contradiction {
	j.mu.Lock()
	hist := j.hist
	j.mu.Unlock()
	return hist.Check()
}

// Verdicts returns what the exchanges added so far break.
func (j *Judge) Verdicts() *Verdicts {
	j.mu.Lock()
	hist := j.hist
	j.mu.Unlock()
	current := hist.Check()
	j.mu.Lock()
	defer j.mu.Unlock()
	out := &Verdicts{Exchanges: j.exchanges, Judged: j.judged, HistoryWindows: j.windows, Answered: maps.Clone(j.answered)}
	if len(j.notJudged) > 0 {
		out.NotJudged = map[string]int{}
		for k, n := range j.notJudged {
			out.NotJudged[k] = n
		}
	}
	if !j.opt.ResponseHeaders {
		out.Unsupported = map[string]string{"HTTP-JSON-CONTENT-TYPE": "the answers' headers were not recorded"}
	}
	for _, v := range j.byKey {
		c := *v
		c.Examples = append([]Finding(nil), v.Examples...)
		out.Failures = append(out.Failures, c)
	}
	hv := map[string]*Verdict{}
	for id, n := range j.pastCount {
		hv[id] = &Verdict{Requirement: id, Whose: Server, Source: History, Count: n, Examples: append([]Finding(nil), j.past[id]...)}
	}
	for _, c := range current {
		v := hv[c.Requirement]
		if v == nil {
			v = &Verdict{Requirement: c.Requirement, Whose: Server, Source: History}
			hv[c.Requirement] = v
		}
		v.Count += 1 + c.More
		if len(v.Examples) < j.opt.Examples {
			v.Examples = append(v.Examples, j.finding(c))
		}
	}
	for _, v := range hv {
		out.Failures = append(out.Failures, *v)
	}
	sort.Slice(out.Failures, func(a, b int) bool { return out.Failures[a].key() < out.Failures[b].key() })
	return out
}

// finding turns a contradiction into a finding; the caller holds the lock.
func (j *Judge) finding(c history.Contradiction) Finding {
	f := Finding{Requirement: c.Requirement, Whose: Server, Source: History, Text: c.Text}
	if c.More > 0 {
		f.Text += fmt.Sprintf(" (%d more)", c.More)
	}
	for _, e := range c.Exchanges {
		r := Ref{Method: e.Method, Path: e.Path, Status: e.Status, User: e.User, Reproduce: e.Reproduce}
		if j.index != nil {
			r.N = j.index[int64(e.Start.Sub(j.opt.Started))]
		}
		f.Exchanges = append(f.Exchanges, r)
	}
	return f
}

// ref names x in a finding, redacted.
func (j *Judge) ref(x *Exchange) Ref {
	p := x.Path
	if x.Query != "" {
		p += "?" + x.Query
	}
	return Ref{N: x.N, Method: x.Method, Path: j.red().String(p), Status: x.Status, User: x.User, Reproduce: j.red().String(x.Reproduce)}
}

// jsonType is the Content-Type a judge assumes for an answer whose headers
// were not recorded, so that its body is still read as the document says.
const jsonType = "application/json; charset=utf-8"

// document judges one exchange against the document: its findings, or why
// it was not judged.
func (j *Judge) document(x *Exchange) ([]Finding, string) {
	if x.RequestCut || x.ResponseCut {
		return nil, ReasonCut
	}
	u := "https://record.invalid" + strings.TrimSuffix(j.opt.MountPath, "/") + x.Path
	if x.Query != "" {
		u += "?" + x.Query
	}
	req, err := http.NewRequest(x.Method, u, nil)
	if err != nil {
		return nil, ReasonUnreadable
	}
	req.Header = x.RequestHeader.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	ctx := context.Background()
	var out []Finding
	op := j.validator.OperationID(req)
	if op == "" || (!j.opt.ClientSide && op != x.Operation) {
		if !j.opt.ClientSide {
			return nil, ReasonOffDocument
		}
		id := NoOperation
		if !strings.HasPrefix(x.Path, "/v1/") {
			id = "HTTP-V1-PREFIX"
		}
		return []Finding{{Requirement: id, Whose: Client, Source: Document, Exchanges: []Ref{j.ref(x)},
			Text: j.red().String(fmt.Sprintf("%s %s: no operation of the %s document has this method and path", x.Method, x.Path, j.opt.Profile))}}, ""
	}
	if !x.Invalid {
		_, vs := j.validator.CheckRequest(ctx, req, x.RequestBody)
		vs = append(vs, j.undeclaredParams(op, req.URL.Query())...)
		seen := map[string]bool{}
		for _, v := range vs {
			id := ClientBlame(op, v)
			if seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, Finding{Requirement: id, Whose: Client, Source: Document, Text: j.red().Cut(v.String(), 1024), Exchanges: []Ref{j.ref(x)}})
		}
	}
	header := x.ResponseHeader
	if !j.opt.ResponseHeaders {
		header = http.Header{}
		if len(x.ResponseBody) > 0 {
			header.Set("Content-Type", jsonType)
		}
	}
	_, vs := j.validator.CheckResponse(ctx, req, x.Status, header, x.ResponseBody)
	seen := map[string]bool{}
	for _, v := range vs {
		if !j.opt.ResponseHeaders && (v.Rule == "content-type" || strings.HasPrefix(v.Location, "header ")) {
			continue
		}
		id := conformance.Blame(op, v)
		if id == "" {
			id = NoOperation
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, Finding{Requirement: id, Whose: Server, Source: Document, Text: j.red().Cut(v.String(), 1024), Exchanges: []Ref{j.ref(x)}})
	}
	return out, ""
}

// undeclaredParams finds query parameters the operation does not declare
// (the access_token credential aside): the validator lets them through.
func (j *Judge) undeclaredParams(op string, q url.Values) []spec.Violation {
	if len(q) == 0 {
		return nil
	}
	declared := map[string]bool{"access_token": true}
	var ps openapi3.Parameters
	if o, ok := j.doc.Operation(op); ok {
		if item := j.doc.T.Paths.Value(o.Path); item != nil {
			ps = append(ps, item.Parameters...)
			if oo := item.GetOperation(o.Method); oo != nil {
				ps = append(ps, oo.Parameters...)
			}
		}
	}
	for _, p := range ps {
		if p != nil && p.Value != nil && p.Value.In == "query" {
			declared[p.Value.Name] = true
		}
	}
	var out []spec.Violation
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !declared[k] {
			out = append(out, spec.Violation{Operation: op, Side: "request", Location: "query " + k, Rule: "undeclared",
				Message: "not a parameter of the operation"})
		}
	}
	return out
}

// ClientBlame names the requirement a request's violation of the document
// is about: the statement of the API the client did not follow, or, where
// the catalogue has none for it, the operation's RequestLabel (never the
// requirement of the operation's answer, which is the server's).
func ClientBlame(op string, v spec.Violation) string {
	switch v.Rule {
	case "security":
		return "AUTH-BEARER"
	case "route":
		return NoOperation
	}
	if name, ok := strings.CutPrefix(v.Location, "query "); ok && v.Rule != "undeclared" {
		switch name {
		case "limit":
			return "PAGE-LIMIT"
		case "skip":
			return "LIMIT-SKIP-5000"
		case "beforeId":
			return "PAGE-BEFOREID"
		case "afterId":
			return "PAGE-AFTERID"
		case "aroundId":
			return "PAGE-AROUNDID"
		case "q":
			return "SEARCH-Q"
		case "access_token":
			return "AUTH-QUERY-TOKEN"
		}
	}
	if op == "sendMessage" && strings.HasPrefix(v.Location, "$.status") {
		return "MSG-SEND-STATUS"
	}
	if op == "" {
		return NoOperation
	}
	return RequestLabel(op)
}
