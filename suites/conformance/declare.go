// Package conformance holds the conformance checks: Ginkgo specs, one file
// per area of the API, each labelled with the catalogue ids of the
// requirements it verifies and with its profile. Declare hands them to
// Ginkgo; the runner package runs them. Checks make their own data through
// the API and judge only what the active profile's document states.
package conformance

import (
	"fmt"
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
// (0 means no bound). Call Declare once per process, before RunSpecs or
// PreviewSpecs.
func Declare(env func() *Env, specTimeout time.Duration) bool {
	d := decl{env: env, timeout: specTimeout}
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
	timeout time.Duration
}

// it declares one check: Ginkgo's It with the requirement labels and the
// spec timeout added, whose body receives the environment bound to the
// spec's context. Ginkgo reports the check at the line that calls it.
func (d decl) it(text string, labels Labels, body func(e *Env)) {
	It(text, labels, Offset(1), d.decorations(), func(ctx SpecContext) {
		e := d.bind(ctx)
		defer e.unwind()
		body(e)
		e.failLater()
	})
}

// table declares a parameter matrix: Ginkgo's DescribeTable, one check per
// entry. Each check carries the table's labels and its entry's (give the
// requirement ids to the entries when each entry verifies its own). body
// receives the bound environment and the entry's parameter.
func (d decl) table(text string, labels Labels, body func(e *Env, p any), entries ...TableEntry) {
	DescribeTable(text, labels, Offset(1), func(ctx SpecContext, p any) {
		e := d.bind(ctx)
		defer e.unwind()
		body(e, p)
		e.failLater()
	}, entries)
}

// entry is one row of a table: Ginkgo's Entry with the spec timeout added.
func (d decl) entry(description string, args ...any) TableEntry {
	// The entry's location is the line that calls entry (Ginkgo takes the
	// last code location among a node's arguments).
	return Entry(description, append(append([]any{types.NewCodeLocation(1)}, d.decorations()...), args...)...)
}

func (d decl) decorations() []any {
	if d.timeout <= 0 {
		return nil
	}
	return []any{SpecTimeout(d.timeout)}
}

func (d decl) bind(ctx SpecContext) *Env {
	shared := d.env()
	if shared == nil {
		Fail("conformance: no environment: the runner declared the checks but set up no target")
	}
	e := *shared
	e.ctx = ctx
	e.ids = RequirementIDs(CurrentSpecReport().Labels())
	e.blocker, e.judging, e.suspect, e.soft, e.judged = new(string), new(string), new(string), map[string]bool{}, map[string]bool{}
	e.later = new([]laterFail)
	e.left = &leftover{ids: map[int]map[string][]string{}}
	e.wrote = &checkWrites{}
	e.last = &lastCall{u: -1}
	DeferCleanup(e.markLeftRead)
	running.Store(&e)
	DeferCleanup(func() { running.CompareAndSwap(&e, nil) })
	return &e
}

// running is the environment of the check under way (Ginkgo runs one at a
// time), for helpers that are not methods of it to name what blocks it.
var running atomic.Pointer[Env]

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
