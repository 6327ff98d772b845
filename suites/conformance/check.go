package conformance

// What a check needs of whatever runs it. A check never calls Ginkgo's or
// Gomega's package-level functions: it fails, skips, names its steps and
// leaves report entries through its Env, which forwards them to the check's
// CheckT. Ginkgo's spec is one CheckT (ginkgoT); a runner that runs checks
// beside each other gives each its own, and hands each check's outcome to
// its spec afterwards.

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// CheckT is the framework under one running check.
type CheckT interface {
	// Name is the check's full name; Labels its labels.
	Name() string
	Labels() []string
	// Fail records the check's failure and unwinds the calling goroutine:
	// it never returns. callerSkip counts the frames above the caller of
	// Fail to name as the failure's place (Ginkgo's convention).
	Fail(message string, callerSkip int)
	// Skip ends the check as skipped, with the reason; it never returns.
	Skip(message string)
	// By names the step the check begins.
	By(text string)
	// AddReportEntry leaves a named entry in the check's report;
	// ReportEntries lists those left so far, in order.
	AddReportEntry(name, value string)
	ReportEntries() []CheckEntry
	// DeferCleanup runs f when the check ends, last registered first, with
	// a context of its own (the check's may have run out).
	DeferCleanup(f func(ctx context.Context))
	// Recovered takes what a goroutine the check started recovered when it
	// ended (nil: nothing): a failure there fails the check, and a panic
	// is the check's error. Defer func() { e.t.Recovered(recover()) }().
	Recovered(r any)
	// Gomega makes the check's assertions; a failed one fails the check.
	Gomega() gomega.Gomega
}

// CheckEntry is one report entry of a check.
type CheckEntry struct{ Name, Value string }

// ginkgoT is the CheckT of a check that runs as Ginkgo's current spec.
type ginkgoT struct{}

func (ginkgoT) Name() string     { return ginkgo.CurrentSpecReport().FullText() }
func (ginkgoT) Labels() []string { return ginkgo.CurrentSpecReport().Labels() }

func (ginkgoT) Fail(message string, callerSkip int) {
	ginkgo.GinkgoHelper()
	ginkgo.Fail(message, callerSkip+1)
}

func (ginkgoT) Skip(message string) {
	ginkgo.GinkgoHelper()
	ginkgo.Skip(message)
}

func (ginkgoT) By(text string)                    { ginkgo.By(text) }
func (ginkgoT) AddReportEntry(name, value string) { ginkgo.AddReportEntry(name, value) }

func (ginkgoT) ReportEntries() []CheckEntry {
	var out []CheckEntry
	for _, e := range ginkgo.CurrentSpecReport().ReportEntries {
		out = append(out, CheckEntry{e.Name, e.StringRepresentation()})
	}
	return out
}

func (ginkgoT) DeferCleanup(f func(context.Context)) {
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) { f(ctx) })
}

func (ginkgoT) Recovered(r any) {
	if r != nil {
		func() { defer ginkgo.GinkgoRecover(); panic(r) }() // Ginkgo's own recovery takes it from here
	}
}
func (ginkgoT) Gomega() gomega.Gomega { return gomega.Default }

// The Env's forwarding methods: what the checks call.

// Expect starts an assertion about actual (Gomega's Expect); extra values
// must be nil or zero, as with Gomega.
func (e *Env) Expect(actual any, extra ...any) types.Assertion {
	ginkgo.GinkgoHelper()
	return e.t.Gomega().Expect(actual, extra...)
}

// fail fails the check with message; it never returns.
func (e *Env) fail(message string) {
	ginkgo.GinkgoHelper()
	e.t.Fail(message, 1)
}

// skip ends the check as skipped; it never returns.
func (e *Env) skip(message string) {
	ginkgo.GinkgoHelper()
	e.t.Skip(message)
}

// by names the step the check begins.
func (e *Env) by(text string) { e.t.By(text) }

// entry leaves a report entry.
func (e *Env) entry(name, value string) { e.t.AddReportEntry(name, value) }

// name is the check's full name.
func (e *Env) name() string { return e.t.Name() }

// Recording is the CheckT of a check run outside its spec (see Scheduler):
// it keeps what the check did — its steps and report entries, its failure
// or skip, its clean-ups — and Replay gives it to the check's spec.
type Recording struct {
	name   string
	labels []string
	g      gomega.Gomega

	mu       sync.Mutex
	events   []recorded
	cleanups []func(context.Context)
	end      endKind
	message  string
	panicked any
	// Start and End are when the check began and ended, clean-ups
	// included.
	Start, End time.Time
}

type recorded struct {
	step        bool
	name, value string
}

type endKind int

const (
	passed endKind = iota
	failed
	skipped
	panicked
)

// stopCheck is what Fail and Skip unwind a Recording's check with.
type stopCheck struct{}

// NewRecording returns the CheckT of the check with this full name and
// these labels.
func NewRecording(name string, labels []string) *Recording {
	r := &Recording{name: name, labels: labels}
	r.g = gomega.NewGomega(func(message string, _ ...int) { r.Fail(message, 0) })
	return r
}

func (r *Recording) Name() string          { return r.name }
func (r *Recording) Labels() []string      { return r.labels }
func (r *Recording) Gomega() gomega.Gomega { return r.g }

// Fail keeps the check's first failure or skip.
func (r *Recording) Fail(message string, _ int) {
	r.finish(failed, message, nil)
	panic(stopCheck{})
}

func (r *Recording) Skip(message string) {
	r.finish(skipped, message, nil)
	panic(stopCheck{})
}

func (r *Recording) finish(k endKind, message string, p any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.end == passed {
		r.end, r.message, r.panicked = k, message, p
	}
}

func (r *Recording) By(text string) { r.add(recorded{step: true, value: text}) }
func (r *Recording) AddReportEntry(name, value string) {
	r.add(recorded{name: name, value: value})
}

func (r *Recording) add(e recorded) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *Recording) ReportEntries() []CheckEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []CheckEntry
	for _, e := range r.events {
		if !e.step {
			out = append(out, CheckEntry{e.name, e.value})
		}
	}
	return out
}

func (r *Recording) DeferCleanup(f func(context.Context)) {
	r.mu.Lock()
	r.cleanups = append(r.cleanups, f)
	r.mu.Unlock()
}

// Recovered keeps a panic other than a failure or skip as the check's
// error, with where it happened.
func (r *Recording) Recovered(p any) {
	if p == nil {
		return
	}
	if _, ok := p.(stopCheck); ok {
		return
	}
	r.finish(panicked, fmt.Sprintf("the check panicked: %v\n%s", p, debug.Stack()), p)
}

// Run runs the check: run bound to ctx, then its clean-ups, last first,
// each with a context from cleanupCtx. A check whose ctx ran out of time
// ends as an error of the harness's, as a spec timeout does.
func (r *Recording) Run(ctx context.Context, run Runnable, cleanupCtx func() (context.Context, context.CancelFunc)) {
	r.Start = time.Now()
	func() {
		defer func() { r.Recovered(recover()) }()
		run(ctx, r)
	}()
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		r.mu.Lock()
		if r.end != skipped {
			r.events = append(r.events, recorded{name: EntryError, value: "the check ran out of its time"})
			if r.end == passed || r.end == failed {
				r.end, r.message = failed, "A spec timeout occurred: the check ran out of its time (--check-timeout)"
			}
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	cleanups := r.cleanups
	r.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		func() {
			cctx, cancel := cleanupCtx()
			defer cancel()
			defer func() { r.Recovered(recover()) }()
			cleanups[i](cctx)
		}()
	}
	r.End = time.Now()
}

// EntryRan is the report entry a replayed check carries: when it began
// and ended, in RFC 3339 with nanoseconds, separated by a space (its
// spec's own times are those of the replay).
const EntryRan = "ran"

// Replay gives the recording to the check's spec, which Ginkgo runs now:
// its steps and entries in order, then its failure, skip or panic.
func (r *Recording) Replay() {
	r.mu.Lock()
	events, end, message, p := r.events, r.end, r.message, r.panicked
	r.mu.Unlock()
	for _, e := range events {
		if e.step {
			ginkgo.By(e.value)
		} else {
			ginkgo.AddReportEntry(e.name, e.value)
		}
	}
	ginkgo.AddReportEntry(EntryRan, r.Start.Format(time.RFC3339Nano)+" "+r.End.Format(time.RFC3339Nano))
	switch end {
	case failed:
		ginkgo.Fail(message)
	case skipped:
		ginkgo.Skip(message)
	case panicked:
		panic(p)
	}
}

// quietly runs f with no other check's write in flight or sent meanwhile
// (Options.Quiet), when checks run beside each other; otherwise it just
// runs f. f must not wait for another check.
func (e *Env) quietly(f func()) {
	if e.Quiet == nil {
		f()
		return
	}
	ctx, release := e.Quiet(e.ctx)
	defer release()
	prev := e.ctx
	e.ctx = ctx
	defer func() { e.ctx = prev }()
	f()
}
