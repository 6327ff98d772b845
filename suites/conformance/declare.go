// Package conformance holds the conformance checks: Ginkgo specs, one file
// per area of the API, each labelled with the catalogue ids of the
// requirements it verifies and with its profile. Declare hands them to
// Ginkgo; the runner package runs them. Checks make their own data through
// the API and judge only what the active profile's document states.
package conformance

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/chatrooms/conformance/spec"
)

// Declare declares every check to Ginkgo. env returns the run's environment
// and is called when a check starts, after the target is known; each check
// gets its own view of it bound to the check's context, so a spec timeout or
// an interrupt cancels the check's requests. specTimeout bounds one check
// (0 means no bound) when checks run in their specs; a Scheduler bounds
// the checks it runs itself. Call Declare once per process, before
// RunSpecs or PreviewSpecs.
//
// sched, when it returns a Scheduler, runs checks outside their specs,
// beside each other (see Scheduler); nil or a nil Scheduler runs every
// check in its spec.
func Declare(env func() *Env, sched func() Scheduler, specTimeout time.Duration) bool {
	if sched == nil {
		sched = func() Scheduler { return nil }
	}
	d := decl{env: env, sched: sched, timeout: specTimeout}
	for _, area := range areas {
		area(d)
	}
	return true
}

var areas = []func(decl){
	transportSpecs, userSpecs, roomSpecs, messageSpecs, renderingSpecs,
	versioningSpecs, concurrencySpecs, paginationSpecs, limitSpecs, searchSpecs, scopeSpecs, unreadSpecs,
	generatedSpecs, modelSpecs, referenceSpecs,
}

// decl is what the area functions declare checks with.
type decl struct {
	env     func() *Env
	sched   func() Scheduler
	timeout time.Duration
	lane    string // the checks declared with it run one after another (see inLane)
	first   bool   // the checks declared with it are started first (see long)
}

// Scheduler runs checks outside their specs, beside each other: each with
// its own Recording as its CheckT, which its spec then replays to Ginkgo.
// A check that must not be disturbed by the others' writes holds them back
// while it reads (Env.quietly) instead of running alone.
type Scheduler interface {
	// Outcome waits until the check named key (see Key) has run and
	// returns its recording; false for a check it does not run, which the
	// spec then runs itself.
	Outcome(key string) (*Recording, bool)
}

// Runnable runs one declared check bound to ctx, with t under it.
type Runnable func(ctx context.Context, t CheckT)

// declared holds every check Declare declared, by Key. Ginkgo builds its
// tree (and so declares the checks again) when a run starts, while a
// Scheduler may already read it: reg guards it and placements.
var (
	reg      sync.RWMutex
	declared = map[string]Runnable{}
)

// Declared returns the check named key (see Key).
func Declared(key string) (Runnable, bool) {
	reg.RLock()
	defer reg.RUnlock()
	r, ok := declared[key]
	return r, ok
}

// register records a declared check.
func register(key string, run Runnable, p Placement) {
	reg.Lock()
	defer reg.Unlock()
	declared[key], placements[key] = run, p
}

// Where names the place a check is declared, as file:line.
func Where(l types.CodeLocation) string { return fmt.Sprintf("%s:%d", l.FileName, l.LineNumber) }

// Key names a declared check: where it is declared and its own text (one
// line may declare several, in a loop). It keys Declared and
// Scheduler.Outcome.
func Key(l types.CodeLocation, text string) string { return Where(l) + " " + text }

// inLane returns the declarer of checks that share something only one of
// them may use at a time (the generated-request engine): a Scheduler runs
// the checks of one lane one after another, beside the others.
func (d decl) inLane(name string) decl {
	d.lane = name
	return d
}

// long returns the declarer of checks that send hundreds of requests one
// after another: a Scheduler starts them first, so that the run does not
// wait for one of them at its end.
func (d decl) long() decl {
	d.first = true
	return d
}

// Placement is how a Scheduler is to place a declared check beside the
// others (see decl.inLane and decl.long).
type Placement struct {
	Lane  string // checks of one lane run one after another
	First bool   // started before the others
}

// placements holds the Placement of every declared check, by Key.
var placements = map[string]Placement{}

// PlacementOf returns how the check named key is to be placed.
func PlacementOf(key string) Placement {
	reg.RLock()
	defer reg.RUnlock()
	return placements[key]
}

// it declares one check: Ginkgo's It with the requirement labels and the
// spec timeout added, whose body receives the environment bound to the
// spec's context. Ginkgo reports the check at the line that calls it.
func (d decl) it(text string, labels Labels, body func(e *Env)) {
	where := types.NewCodeLocation(1)
	run := d.runnable(func(e *Env) { body(e) })
	register(Key(where, text), run, Placement{d.lane, d.first})
	It(text, labels, Offset(1), d.decorations(), func(ctx SpecContext) { d.spec(ctx, run) })
}

// runnable wraps a check's body: bound, unwound and judged as every check.
func (d decl) runnable(body func(e *Env)) Runnable {
	return func(ctx context.Context, t CheckT) {
		e := d.bind(ctx, t)
		defer e.unwind()
		body(e)
		e.failLater()
	}
}

// spec is the body of a check's spec: the check's recording, replayed,
// when a scheduler ran it, or the check run here.
func (d decl) spec(ctx SpecContext, run Runnable) {
	if s := d.sched(); s != nil {
		if rec, ok := s.Outcome(specKey()); ok {
			rec.Replay()
			return
		}
	}
	run(ctx, ginkgoT{})
}

// specKey is the Key of the spec under way.
func specKey() string {
	r := CurrentSpecReport()
	return Key(r.LeafNodeLocation, r.LeafNodeText)
}

// table declares a parameter matrix: Ginkgo's DescribeTable, one check per
// entry. Each check carries the table's labels and its entry's (give the
// requirement ids to the entries when each entry verifies its own). body
// receives the bound environment and the entry's parameter. The entries
// must be made with d.entry, in the call.
func (d decl) table(text string, labels Labels, body func(e *Env, p any), entries ...TableEntry) {
	runs := map[string]Runnable{}
	for _, en := range pendingEntries {
		run := d.runnable(func(e *Env) { body(e, en.param) })
		runs[en.where] = run
		register(en.where, run, Placement{d.lane, d.first})
	}
	pendingEntries = nil
	DescribeTable(text, labels, Offset(1), func(ctx SpecContext, p any) {
		d.spec(ctx, runs[specKey()])
	}, entries)
}

// pendingEntries are the entries d.entry made for the table about to be
// declared (the tree is built in one goroutine).
var pendingEntries []pendingEntry

type pendingEntry struct {
	where string
	param any
}

// entry is one row of a table: Ginkgo's Entry with the spec timeout added.
// args are the entry's Labels and its one parameter.
func (d decl) entry(description string, args ...any) TableEntry {
	// The entry's location is the line that calls entry (Ginkgo takes the
	// last code location among a node's arguments).
	where := types.NewCodeLocation(1)
	var param any
	for _, a := range args {
		if _, ok := a.(Labels); !ok {
			param = a
		}
	}
	pendingEntries = append(pendingEntries, pendingEntry{Key(where, description), param})
	return Entry(description, append(append([]any{where}, d.decorations()...), args...)...)
}

func (d decl) decorations() []any {
	var out []any
	// A check run by a scheduler is timed by it: its spec waits for the
	// check, which may start late, and Ginkgo's timeout would count the
	// wait. Ginkgo builds the tree when the run starts, after the runner
	// chose how many checks run at once.
	if d.timeout > 0 && d.sched() == nil {
		out = append(out, SpecTimeout(d.timeout))
	}
	return out
}

func (d decl) bind(ctx context.Context, t CheckT) *Env {
	shared := d.env()
	if shared == nil {
		Fail("conformance: no environment: the runner declared the checks but set up no target")
	}
	e := *shared
	e.ctx, e.t = ctx, t
	if e.Beside {
		h := fnv.New32a()
		h.Write([]byte(t.Name()))
		e.marker += "k" + strconv.FormatUint(uint64(h.Sum32()), 36)
		e.seq = new(atomic.Int64)
	}
	e.ids = RequirementIDs(t.Labels())
	e.blocker, e.judging, e.suspect, e.soft, e.judged = new(string), new(string), new(string), map[string]bool{}, map[string]bool{}
	e.later, e.held, e.suspectAt = new([]laterFail), new([]string), new(int)
	e.stepFails, e.rooted = new([]stepFail), new(bool)
	e.left = &leftover{ids: map[int]map[string][]string{}}
	e.wrote = &checkWrites{}
	e.last = &lastCall{u: -1}
	t.DeferCleanup(e.markLeftRead)
	return &e
}

// reqs returns the labels of a check verifying the given requirement ids:
// the ids plus the profile of the strictest of them. An unknown id panics
// when the tree is built, so a typo stops the run before any check runs.
func reqs(ids ...string) Labels {
	if len(ids) == 0 {
		panic("conformance: a check names no requirement")
	}
	cat := catalogue()
	profile := spec.Core
	for _, id := range ids {
		req, ok := cat.Lookup(id)
		if !ok {
			panic(fmt.Sprintf("conformance: a check names unknown requirement %s", id))
		}
		if !req.IsCheckable() {
			panic(fmt.Sprintf("conformance: a check claims %s, which the catalogue says cannot be checked", id))
		}
		if req.Level == spec.Reference {
			profile = spec.Reference
		}
	}
	return Label(append(append([]string(nil), ids...), string(profile))...)
}

// RequirementIDs returns the catalogue ids among a check's labels.
func RequirementIDs(labels []string) []string {
	cat := catalogue()
	var out []string
	for _, l := range labels {
		if _, ok := cat.Lookup(l); ok {
			out = append(out, l)
		}
	}
	return out
}

// ProfileOf returns the profile a check belongs to, from its labels.
func ProfileOf(labels []string) spec.Profile {
	for _, l := range labels {
		if l == string(spec.Reference) {
			return spec.Reference
		}
	}
	return spec.Core
}

// ProfileFilter is the label filter that keeps a run to a profile's checks.
func ProfileFilter(p spec.Profile) string {
	if p == spec.Core {
		return "!" + string(spec.Reference)
	}
	return ""
}

func catalogue() *spec.Catalogue {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		panic(err)
	}
	return cat
}
