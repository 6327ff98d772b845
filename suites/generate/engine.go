package generate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"pgregory.net/rapid"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// Defaults of a Config.
const (
	// DefaultExamples is how many random requests each property sends per
	// operation after the coverage cases.
	DefaultExamples = 4
	// DefaultShrinkRuns bounds the search for a smaller failing request:
	// how many times the property runs while rapid shrinks. A bound in
	// runs, unlike one in time, cuts the search at the same point on any
	// machine, so that a seed replays the same failing request.
	DefaultShrinkRuns = 500
	// DefaultShrinkTime is a second bound on shrinking, for a slow target.
	DefaultShrinkTime = 30 * time.Second
	// DefaultSettle is how long the state reads wait for the state to
	// settle (Config.Settle): the runner's default --eventually.
	DefaultSettle = 5 * time.Second
	// DefaultParallel is how many requests the engine may have in flight
	// at once (Config.Parallel).
	DefaultParallel = 8
)

// Config configures an Engine.
type Config struct {
	// Client sends the requests and validates them against the profile's
	// document; its validator must be of Profile.
	Client  *client.Client
	Profile spec.Profile
	World   World
	// Seed fixes every choice of the run: the same seed sends the same
	// requests (ids the server assigns during the run aside). 0 is taken
	// as 1.
	Seed uint64
	// Examples is the number of random requests per operation and
	// property (0: DefaultExamples; negative: none, coverage cases only).
	Examples int
	// Writes allows requests that change state, all of them inside
	// World.WriteRoom (and World.HideRoom for hiding). Without it only
	// GET, HEAD and OPTIONS requests are sent.
	Writes bool
	// ShrinkRuns bounds shrinking per failure, in runs of the property
	// (0: DefaultShrinkRuns; negative: no shrinking).
	ShrinkRuns int
	// ShrinkTime bounds shrinking per failure in time (0:
	// DefaultShrinkTime). A search cut by time may not replay exactly.
	ShrinkTime time.Duration
	// NoCoverage leaves out the coverage cases (random requests only).
	NoCoverage bool
	// Settle bounds how long the state reads wait for the caller's state
	// to stop moving by itself before a change seen across a request is
	// put to a second try (0: DefaultSettle). An eventually consistent
	// server wants the run's --eventually here.
	Settle time.Duration
	// Parallel is how many requests may be in flight at once (0:
	// DefaultParallel; negative is an error). 1 sends every request after
	// the answer to the one before, in the order of the engine without
	// concurrency. Above 1, the properties that judge each answer on its
	// own (GEN-NO-5XX, GEN-VALID-ANSWER, GEN-NO-TOKEN-NO-DATA,
	// GEN-REF-ERROR) send their cases, over all the operations asked, at
	// the same time, and so does GEN-ROUND-TRIP, but for cases that write
	// the same message, which keep their order; the properties that read
	// state around a request (GEN-REFUSED-NO-CHANGE, GEN-GET-NO-CHANGE)
	// send their cases in rounds of up to Parallel, between reads of the
	// state shared by the round, with a round to itself for a case whose
	// state is outside the write room or whose request may write. Verdicts
	// do not depend on it (see parallel.go).
	Parallel int
	// Quiet, when set, holds every other writer of the run back until the
	// function it returns is called (the runner's quiet window, when
	// checks run beside each other). GEN-REFUSED-NO-CHANGE and
	// GEN-GET-NO-CHANGE then judge their rounds while the others write,
	// hold a change the others' writes (the Client's WriteLog) do not
	// account for to a quiet window, and confirm it there (beside.go); in
	// turn, without it, they assume no other writer. A client without a
	// WriteLog accounts for nothing: every change is confirmed in a window.
	Quiet func(context.Context) (context.Context, func())
}

// Engine generates requests from a profile's document and checks the
// properties over them. Its methods are safe for concurrent use, but runs
// take turns: rapid's settings are global to the process, and the state
// reads assume no other writer of the engine. Inside a run, requests may
// be in flight together (Config.Parallel); rapid still draws in one
// goroutine.
type Engine struct {
	cfg   Config
	ops   map[string]*operation
	order []string
	red   *client.Redactor
	par   int // Config.Parallel with the default applied

	mu       sync.Mutex // one run at a time
	world    World      // written by prepare only, before a run sends anything concurrently
	prepared bool
	requests atomic.Int64

	snapMu sync.Mutex // guards snaps: forget is called from the run's goroutines
	snaps  map[string]snapshot

	// texts is the text the engine last wrote to each message it sent or
	// edited with success (for Failure.Wrote).
	texts    map[string][]string
	textsMu  sync.Mutex
	sharedMu sync.Mutex // guards shared
	// shared keeps the answers to the coverage cases that GEN-NO-5XX and
	// GEN-VALID-ANSWER both judge, so that each is sent once.
	shared map[string]*client.Response
	// validPairs is, per operation, how many pairs of values valid on
	// their own make a request with no refusal (see pairwise).
	validPairs map[string]int
	// possiblePairs is, per operation, how many pairs of values a request
	// can carry together.
	possiblePairs map[string]int
}

// New prepares an engine. It sends nothing.
func New(cfg Config) (*Engine, error) {
	if cfg.Client == nil {
		return nil, errors.New("generate: no client")
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Examples == 0 {
		cfg.Examples = DefaultExamples
	}
	if cfg.Examples < 0 {
		cfg.Examples = 0
	}
	if cfg.Settle <= 0 {
		cfg.Settle = DefaultSettle
	}
	if cfg.ShrinkTime == 0 {
		cfg.ShrinkTime = DefaultShrinkTime
	}
	if cfg.ShrinkRuns == 0 {
		cfg.ShrinkRuns = DefaultShrinkRuns
	}
	if cfg.ShrinkRuns < 0 {
		cfg.ShrinkRuns = 0
	}
	if cfg.Parallel < 0 {
		return nil, fmt.Errorf("generate: Parallel is %d; it must be at least 1 (or 0 for the default, %d)", cfg.Parallel, DefaultParallel)
	}
	if cfg.Parallel == 0 {
		cfg.Parallel = DefaultParallel
	}
	if err := cfg.World.check(cfg.Writes); err != nil {
		return nil, err
	}
	doc, err := spec.Load(cfg.Profile)
	if err != nil {
		return nil, err
	}
	ops, order, err := readContract(doc)
	if err != nil {
		return nil, err
	}
	var tokens []string
	for _, u := range cfg.World.Users {
		tokens = append(tokens, u.Token)
	}
	w := cfg.World
	w.Messages = slices.Clone(w.Messages)
	return &Engine{cfg: cfg, par: cfg.Parallel, ops: ops, order: order, red: client.NewRedactor(append(tokens, DerivedTokens(tokens)...)...),
		world: w, snaps: map[string]snapshot{}, shared: map[string]*client.Response{}, validPairs: map[string]int{}, possiblePairs: map[string]int{}}, nil
}

// Operations lists the operationIds of the document, in its order.
func (e *Engine) Operations() []string { return slices.Clone(e.order) }

// Requests is how many requests the engine has sent so far.
func (e *Engine) Requests() int { return int(e.requests.Load()) }

// Report is the outcome of one property over some operations.
type Report struct {
	Property string
	Results  []Result // one per operation, in the order asked
	Requests int      // requests sent for this report, state reads included
	Duration time.Duration
}

// Result is the outcome of one property on one operation.
type Result struct {
	Operation string
	Cases     int // coverage cases checked
	Examples  int // random examples checked (shrinking runs excluded)
	Requests  int
	// Failure is set when the property does not hold.
	Failure *Failure
	// Pairs is how many pairs of parameter values the cases sent covered
	// (GEN-NO-5XX and GEN-VALID-ANSWER, which send an all-pairs covering
	// set of each operation's query parameters and body fields; zero for
	// the other properties).
	Pairs PairCoverage
	// Skipped says why the property was not checked on the operation.
	Skipped string
	// Err is set when the engine could not judge: the target did not
	// answer, the context ended, or the engine itself went wrong.
	Err error
}

// Failures lists the failures of a report.
func (r *Report) Failures() []Failure {
	var out []Failure
	for _, res := range r.Results {
		if res.Failure != nil {
			out = append(out, *res.Failure)
		}
	}
	return out
}

// Err returns the first error of a report: a result that could not be
// judged.
func (r *Report) Err() error {
	for _, res := range r.Results {
		if res.Err != nil {
			return fmt.Errorf("%s on %s: %w", r.Property, res.Operation, res.Err)
		}
	}
	return nil
}

// Failure is a property that does not hold, with the smallest request
// found that shows it.
type Failure struct {
	Property string
	// Requirement is the requirement the failure is reported under: the
	// property's, or one of its Owners whose statement the answer breaks.
	Requirement string
	Operation   string
	// Request is the failing request in one line: method, the path with
	// the role of each id, query, how the token was presented, body, and
	// what makes the request other than plain.
	Request string
	// Problem says what was expected and what came back.
	Problem string
	Status  int
	// Reproduce is a curl command that sends the request, redacted: real
	// tokens appear as $CHAT_TOKEN variables, derived ones as REDACTED.
	Reproduce string
	// Exchange is the recorded exchange, redacted the same way.
	Exchange *client.Exchange
	// Seed is the run's seed (Config.Seed): the same seed replays.
	Seed uint64
	// Coverage is true for a failure found among the coverage cases (not
	// shrunk: already one departure from the plain request).
	Coverage bool
	// Shrunk is true when rapid shrank the failing request.
	Shrunk bool

	// Unusable names, for a round trip that could not be judged, the
	// requirement whose breach made an answer it needed unusable
	// (HTTP-JSON-BODY: a success whose body broke off or is not JSON).
	Unusable string

	// Wrote is, for a failure of GEN-ROUND-TRIP, the message its request
	// wrote (nil otherwise): a caller can read it back to tell a write that
	// was lost from a text that was changed.
	Wrote *Written

	key string // the kind of problem, for rapid to recognise the failure
}

// Written is a message a request wrote, as the engine knows it.
type Written struct {
	Room, ID string
	// Edit says the request edited the message; Earlier are then the
	// texts the engine wrote to it before, oldest first (none when it
	// wrote none).
	Edit    bool
	Earlier []string
	// Text is the text the request carried; Answered the one its answer
	// carried ("" when none).
	Text, Answered string
}

func (f Failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n  request: %s", f.Property, f.Operation, f.Problem, f.Request)
	if f.Reproduce != "" {
		fmt.Fprintf(&b, "\n  reproduce: %s", f.Reproduce)
	}
	fmt.Fprintf(&b, "\n  replay: seed %d", f.Seed)
	return b.String()
}

// RunAll checks every property of the profile on every operation (writing
// ones only with Config.Writes) and returns a report per property.
func (e *Engine) RunAll(ctx context.Context) []*Report {
	var out []*Report
	for _, p := range properties {
		if !p.InProfile(e.cfg.Profile) {
			continue
		}
		r, err := e.Run(ctx, p.ID)
		if err != nil {
			panic(err) // the ids come from the table above
		}
		out = append(out, r)
	}
	return out
}

// Run checks one property on the given operations (all of the document's
// when none are given). The error is for bad arguments only; what the
// target did is in the report.
func (e *Engine) Run(ctx context.Context, property string, ops ...string) (*Report, error) {
	p, ok := PropertyByID(property)
	if !ok {
		return nil, fmt.Errorf("generate: unknown property %q", property)
	}
	if len(ops) == 0 {
		ops = e.order
	}
	for _, id := range ops {
		if _, ok := e.ops[id]; !ok {
			return nil, fmt.Errorf("generate: the %s document has no operation %q", e.cfg.Profile, id)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.forget() // others may have written since the last run
	start, before := time.Now(), e.requests.Load()
	rep := &Report{Property: property}
	if e.par > 1 && concurrent(p.ID) {
		list := make([]*operation, len(ops))
		for i, id := range ops {
			list[i] = e.ops[id]
		}
		rep.Results = e.runConcurrent(ctx, p, list)
	} else {
		for _, id := range ops {
			rep.Results = append(rep.Results, e.runOne(ctx, p, e.ops[id]))
		}
	}
	rep.Requests, rep.Duration = int(e.requests.Load()-before), time.Since(start)
	return rep, nil
}

// skipReason says why a property is not checked on an operation ("" when
// it is).
func (e *Engine) skipReason(p Property, op *operation) string {
	switch {
	case !p.InProfile(e.cfg.Profile):
		return fmt.Sprintf("%s belongs to the %s profile", p.ID, p.Profile)
	case (p.Writes || op.writes()) && !e.cfg.Writes:
		return "writes are off"
	case p.ID == GetNoChange && op.Method != "GET":
		return "not a GET"
	case p.ID == RoundTrip && (op.Body == nil || !bodyHasText(op.Body)):
		return "the request carries no text"
	}
	return ""
}

// bodyHasText reports whether a body schema has a free text property (not
// an id).
func bodyHasText(s *openapi3.Schema) bool {
	for name, ref := range s.Properties {
		if ps := schemaOf(ref); ps != nil && ps.Type.Is("string") && refOf(name) == refNothing {
			return true
		}
	}
	return false
}

// modeOf is the kind of requests a property wants.
func modeOf(property string) mode {
	switch property {
	case ValidAnswer:
		return modeMostlyValid
	case GetNoChange, RoundTrip:
		return modeValid
	case NoTokenNoData:
		return modeToken
	case ReferenceError:
		return modeDefect
	}
	return modeAny
}

// runOne checks a property on one operation: the coverage cases, then the
// random examples, one request at a time.
func (e *Engine) runOne(ctx context.Context, p Property, op *operation) (res Result) {
	res.Operation = op.ID
	if why := e.skipReason(p, op); why != "" {
		res.Skipped = why
		return res
	}
	var sent atomic.Int64
	ctx = counting(ctx, &sent)
	defer func() { res.Requests = int(sent.Load()) }()
	if e.cfg.Writes && !e.prepared {
		if err := e.prepare(ctx); err != nil {
			res.Err = err
			return res
		}
	}
	m := modeFor(p.ID)
	if !e.cfg.NoCoverage {
		cv := e.coverageCases(p, op, m, &res)
		for _, cs := range cv.cases {
			if err := ctx.Err(); err != nil {
				res.Err = err
				return res
			}
			f, err := e.judge(ctx, p, cs)
			if cv.take(&res, cs, f, err) {
				return res
			}
		}
	}
	e.examples(ctx, p, op, m, &res, nil)
	return res
}

// modeFor is the mode of a property's requests, GEN-ROUND-TRIP's own
// included.
func modeFor(property string) mode {
	if property == RoundTrip {
		return modeRoundTrip
	}
	return modeOf(property)
}

// covered is the coverage phase of a property on one operation: its cases
// and the pairs they have covered so far.
type covered struct {
	cases        []*testCase
	params       []decision
	pairs, clean map[string]bool
}

// coverageCases lists the coverage cases of p on op and sets the pair
// figures the result starts from.
func (e *Engine) coverageCases(p Property, op *operation, m mode, res *Result) *covered {
	cv := &covered{pairs: map[string]bool{}, clean: map[string]bool{}}
	if p.ID == NoServerError || p.ID == ValidAnswer {
		cv.params = e.pairParamsOf(op)
		res.Pairs = PairCoverage{Possible: possiblePairs(cv.params)}
		for _, d := range cv.params {
			res.Pairs.Params = append(res.Pairs.Params, d.label)
		}
	}
	cv.cases = e.coverageOf(p, op, m)
	if len(cv.params) > 0 {
		res.Pairs.Possible, res.Pairs.ValidPossible = e.possiblePairs[op.ID], e.validPairs[op.ID]
	}
	return cv
}

// take counts the outcome of one coverage case, in case order, into the
// result. It returns true when the operation is done: the case failed, or
// could not be judged.
func (cv *covered) take(res *Result, cs *testCase, f *Failure, err error) bool {
	res.Cases++
	if err == nil && len(cv.params) > 0 {
		for _, a := range cs.assigns {
			pairsOf(cv.params, a, cv.pairs)
			if cs.valid() && len(cs.refusals()) == 0 {
				pairsOf(cv.params, a, cv.clean)
			}
		}
		res.Pairs.Covered, res.Pairs.Valid = len(cv.pairs), len(cv.clean)
	}
	if err != nil {
		res.Err = err
		return true
	}
	if f != nil {
		f.Coverage = true
		res.Failure = f
		return true
	}
	return false
}

// verdict is the outcome of judging one drawn example, kept from a
// concurrent send so that rapid's run can take it in turn (see examples).
type verdict struct {
	key string // the request, to be sure the same one was drawn again
	f   *Failure
	err error
}

// examples draws the random examples of p on op with rapid, judges them
// and shrinks the first failing one. sent, when not nil, holds the
// verdicts of the examples the property's calls drew, in call order,
// already judged by a concurrent send: a call that draws the same request
// as the one of its index before any failure takes that verdict instead of
// sending again, so that rapid walks the same examples and shrinks from
// the same failure as it would have without concurrency.
func (e *Engine) examples(ctx context.Context, p Property, op *operation, m mode, res *Result, sent []*verdict) {
	if e.cfg.Examples == 0 {
		return
	}
	var (
		last       *Failure
		failErr    error
		runs       int
		calls      int
		shrinkRuns int // runs since the first failure
	)
	prop := func(t *rapid.T) {
		call := calls
		calls++
		if ctx.Err() != nil || failErr != nil {
			t.Skip("stopped")
		}
		if last != nil {
			shrinkRuns++
			if shrinkRuns > e.cfg.ShrinkRuns {
				t.Skip("shrinking budget spent") // rapid takes it as "does not fail"
			}
		}
		b := &builder{w: e.world, profile: e.cfg.Profile, writes: e.cfg.Writes, op: op, c: drawn{t}, mode: m}
		cs, ok := b.build()
		if !ok {
			t.Skip("no request of this kind")
		}
		if last == nil {
			runs++
		}
		var f *Failure
		var err error
		if v := verdictAt(sent, call); last == nil && v != nil && v.key == caseKey(cs) {
			f, err = v.f, v.err
		} else {
			f, err = e.judge(ctx, p, cs)
		}
		if err != nil {
			if ctx.Err() == nil {
				failErr = err
			}
			t.Skip("no answer")
		}
		if f != nil {
			last = f
			// The message must be the same each time the same request
			// fails, so that rapid recognises the failure while shrinking.
			t.Fatalf("%s: %s", f.Request, f.key)
		}
	}
	name := "chatconform-generate-" + p.ID + "-" + op.ID
	summary := search(name, deriveSeed(e.cfg.Seed, p.ID, op.ID), e.cfg.Examples, e.cfg.ShrinkTime, prop)
	res.Examples = runs
	switch {
	case last != nil:
		last.Shrunk = true
		res.Failure = last
	case failErr != nil:
		res.Err = failErr
	case ctx.Err() != nil:
		res.Err = ctx.Err()
	case summary != "" && !strings.Contains(summary, "only generated"):
		res.Err = fmt.Errorf("generate: rapid: %s", summary)
	case res.Cases == 0 && runs == 0:
		res.Skipped = "the world holds no ids for a request of this kind"
	}
}

func verdictAt(vs []*verdict, i int) *verdict {
	if i < len(vs) {
		return vs[i]
	}
	return nil
}

// coverageOf lists the coverage cases of a property on an operation. The
// properties that judge one answer take every case of their mode; those
// that read state around each request take fewer, as each case costs
// several requests: GEN-REFUSED-NO-CHANGE each departure once on the
// operations that write, GEN-GET-NO-CHANGE the plain request.
func (e *Engine) coverageOf(p Property, op *operation, m mode) []*testCase {
	switch p.ID {
	case NoServerError, ValidAnswer:
		cases, _ := e.pairwise(op, e.coverage(op, modeAny, nil, true))
		for i, cs := range cases {
			cs.shareKey = fmt.Sprintf("%s#%d", op.ID, i)
		}
		return cases
	case RefusedNoChange:
		if !op.writes() {
			return nil
		}
		return e.coverage(op, m, []string{"defect"}, false)
	case GetNoChange:
		cases := e.coverage(op, m, []string{}, false)
		return cases[:min(1, len(cases))]
	case NoTokenNoData:
		return e.coverage(op, m, []string{"token departure", "token place", "second defect"}, false)
	case ReferenceError:
		return e.coverage(op, m, []string{"defect"}, true)
	}
	return e.coverage(op, m, nil, true)
}

// coverage lists the coverage cases of an operation in a mode: the plain
// request, then each alternative of each decision that request made (of
// the decisions named in focus, when it is not nil), one at a time; with
// sub, also each alternative of the decisions an alternative of the defect
// decision opens. Cases that come out the same are sent once.
func (e *Engine) coverage(op *operation, m mode, focus []string, sub bool) []*testCase {
	var out []*testCase
	seen := map[string]*testCase{}
	add := func(script map[string]int) (*scripted, *testCase) {
		s := &scripted{seed: e.cfg.Seed, script: script}
		b := &builder{w: e.world, profile: e.cfg.Profile, writes: e.cfg.Writes, op: op, c: s, mode: m}
		cs, ok := b.build()
		if !ok {
			return s, nil
		}
		key := cs.describe() + "\x00" + cs.method + cs.path + fmt.Sprint(cs.query)
		if prev := seen[key]; prev != nil {
			// The same request: the values it stands for are covered too.
			prev.assigns = append(prev.assigns, assignment(s))
			return s, nil
		}
		cs.assigns = []map[string]int{assignment(s)}
		seen[key] = cs
		out = append(out, cs)
		return s, cs
	}
	base, _ := add(nil)
	decisions := slices.Clone(base.seen)
	for _, d := range decisions {
		if focus != nil && !slices.Contains(focus, d.label) {
			continue
		}
		for alt := 1; alt < d.n; alt++ {
			s, _ := add(map[string]int{d.label: alt})
			// The alternatives of the defect decision open decisions of
			// their own (which id, which value): take each of those once.
			if d.label == "defect" && sub {
				for _, sub := range s.seen {
					if slices.ContainsFunc(decisions, func(x decision) bool { return x.label == sub.label }) {
						continue
					}
					for alt2 := 1; alt2 < sub.n; alt2++ {
						add(map[string]int{d.label: alt, sub.label: alt2})
					}
				}
			}
		}
	}
	return out
}

// pairwise adds to the coverage cases of an operation (in modeAny) the rows
// of an all-pairs covering set of its parameters (see pairwise.go), and
// returns them with the parameters. First every pair of values that are
// valid on their own is sent in a request with no refusal at all (where the
// pair itself is not a combination the document leaves open, such as two
// cursors), so GEN-VALID-ANSWER holds it to a 2xx; then the pairs left.
func (e *Engine) pairwise(op *operation, cases []*testCase) ([]*testCase, []decision) {
	params := e.pairParamsOf(op)
	if len(params) < 2 {
		return cases, params
	}
	build := func(script map[string]int) (*testCase, *scripted) {
		s := &scripted{seed: e.cfg.Seed, script: script}
		b := &builder{w: e.world, profile: e.cfg.Profile, writes: e.cfg.Writes, op: op, c: s, mode: modeAny}
		cs, ok := b.build()
		if !ok {
			return nil, s
		}
		return cs, s
	}
	clean := func(cs *testCase) bool { return cs != nil && cs.valid() && len(cs.refusals()) == 0 }
	covered, cleanCovered := map[string]bool{}, map[string]bool{}
	seen := map[string]*testCase{}
	keyOf := func(cs *testCase) string { return cs.describe() + "\x00" + cs.method + cs.path + fmt.Sprint(cs.query) }
	for _, cs := range cases {
		seen[keyOf(cs)] = cs
		for _, a := range cs.assigns {
			pairsOf(params, a, covered)
			if clean(cs) {
				pairsOf(params, a, cleanCovered)
			}
		}
	}
	add := func(row map[string]int) {
		cs, s := build(row)
		if cs == nil {
			return
		}
		asg := assignment(s)
		pairsOf(params, asg, covered)
		if clean(cs) {
			pairsOf(params, asg, cleanCovered)
		}
		if prev := seen[keyOf(cs)]; prev != nil {
			prev.assigns = append(prev.assigns, asg)
			return
		}
		cs.assigns = []map[string]int{asg}
		seen[keyOf(cs)] = cs
		cases = append(cases, cs)
	}
	// The values valid on their own: alone, they make no refusal.
	valid := make([][]bool, len(params))
	for i, d := range params {
		valid[i] = make([]bool, d.n)
		for v := range d.n {
			cs, _ := build(map[string]int{d.label: v})
			valid[i][v] = v == 0 || clean(cs)
		}
	}
	rows, combos := cleanPairs(params, valid, cleanCovered, e.cfg.Seed, op.ID, func(row map[string]int) bool { cs, _ := build(row); return clean(cs) })
	for _, row := range rows {
		add(row)
	}
	e.validPairs[op.ID] = countValidPairs(params, valid) - combos
	for _, row := range allPairs(params, covered, e.cfg.Seed, op.ID) {
		add(row)
	}
	// A pair no request can carry (a first item of an empty list) is not
	// one to cover.
	e.possiblePairs[op.ID] = len(covered)
	return cases, params
}

// pairParamsOf lists the parameters of an operation whose pairs the
// coverage cases cover (those of its plain request in modeAny).
func (e *Engine) pairParamsOf(op *operation) []decision {
	base := &scripted{seed: e.cfg.Seed}
	b := &builder{w: e.world, profile: e.cfg.Profile, writes: e.cfg.Writes, op: op, c: base, mode: modeAny}
	if _, ok := b.build(); !ok {
		return nil
	}
	return pairParams(base.seen)
}

// PairCoverage sums the pair coverage of a report's operations.
func (r *Report) PairCoverage() PairCoverage {
	var sum PairCoverage
	for _, res := range r.Results {
		sum.Covered += res.Pairs.Covered
		sum.Possible += res.Pairs.Possible
		sum.Valid += res.Pairs.Valid
		sum.ValidPossible += res.Pairs.ValidPossible
	}
	return sum
}

// PairLines says the pair coverage of each operation that has pairs, one
// line each ("listMessages: 180 of 180 pairs (100%) of query skip, ...").
func (r *Report) PairLines() []string {
	var out []string
	for _, res := range r.Results {
		if res.Pairs.Possible > 0 {
			out = append(out, fmt.Sprintf("%s: %s of %s", res.Operation, res.Pairs, strings.Join(res.Pairs.Params, ", ")))
		}
	}
	return out
}

// BlockedError is the end of a run that could not set up what it
// judges with: an answer the engine needed broke Requirement's statement.
type BlockedError struct {
	Requirement, Text string
}

func (b *BlockedError) Error() string { return "generate: " + b.Text }

// prepare sends the messages the engine edits and points at: one of the
// caller's and, when a second user is described, one of theirs, both in the
// write room.
func (e *Engine) prepare(ctx context.Context) error {
	authors := e.world.Users[:min(2, len(e.world.Users))]
	for i, u := range authors {
		resp, err := e.send(ctx, client.Request{Method: "POST", Path: "/v1/rooms/" + url.PathEscape(e.world.WriteRoom) + "/chatMessages",
			Token: u.Token, Body: map[string]any{"text": fmt.Sprintf("generated requests: a message of user %d to edit and point at", i+1)}})
		if err != nil {
			return err
		}
		var m struct {
			ID string `json:"id"`
		}
		if resp.Status/100 != 2 || resp.JSON(&m) != nil || m.ID == "" {
			text := fmt.Sprintf("user %d could not post in the write room: a valid send answered %d without a usable message", i+1, resp.Status)
			if resp.Status == 401 {
				if ok, err := e.accepted(ctx, u.Token, client.Bearer); err != nil {
					return err
				} else if ok {
					return &BlockedError{Requirement: "AUTH-BEARER", Text: text + ", and GET /v1/user accepts the same token in the same place right after"}
				}
			}
			return &BlockedError{Requirement: "MSG-SEND-200", Text: text}
		}
		e.world.Messages = append(e.world.Messages, Message{ID: m.ID, Room: e.world.WriteRoom, From: u.ID, Fresh: true})
		e.wroteText(m.ID, fmt.Sprintf("generated requests: a message of user %d to edit and point at", i+1))
	}
	e.forget()
	e.prepared = true
	return nil
}

// send sends one request and counts it, for the engine and for the
// result the context counts for (see counting).
func (e *Engine) send(ctx context.Context, r client.Request) (*client.Response, error) {
	e.requests.Add(1)
	if n, ok := ctx.Value(counterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
	return e.cfg.Client.Do(ctx, r)
}

type counterKey struct{}

// counting returns a context whose requests are also counted in n: the
// requests of one result, while other results' are in flight too.
func counting(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, counterKey{}, n)
}

// Sent returns the messages the engine sent to work on, each acknowledged
// with its id, with the text it was sent with: the ground under the
// requests that name them (a 404 for one of them is a lost send). Call it
// after a Run: the engine sends them when it first runs.
func (e *Engine) Sent() []Written {
	e.textsMu.Lock()
	defer e.textsMu.Unlock()
	var out []Written
	for _, m := range e.world.Messages {
		if m.Fresh && len(e.texts[m.ID]) > 0 {
			out = append(out, Written{Room: m.Room, ID: m.ID, Text: e.texts[m.ID][0], Answered: e.texts[m.ID][0]})
		}
	}
	return out
}

// wroteText records the text a successful request wrote to message id,
// and returns the texts the engine had written to it before, oldest first.
func (e *Engine) wroteText(id, text string) []string {
	e.textsMu.Lock()
	defer e.textsMu.Unlock()
	if e.texts == nil {
		e.texts = map[string][]string{}
	}
	before := slices.Clone(e.texts[id])
	e.texts[id] = append(e.texts[id], text)
	return before
}
