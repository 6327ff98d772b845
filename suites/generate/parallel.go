package generate

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"pgregory.net/rapid"
)

// Requests in flight together (Config.Parallel above 1).
//
// A property that judges each answer on its own (concurrent) has nothing
// that ties one case to another: the verdict on a case is a function of
// the case and its answer. Such a property is run in phases over all the
// operations asked at once:
//
//  1. the coverage cases of every operation are built, in operation order
//     and case order, as runOne builds them, and all of them are sent with
//     at most Parallel in flight, started in that order;
//  2. the outcomes are then taken in case order, per operation, as runOne
//     takes them: the first failing case (in case order, not in time)
//     is the failure, and the pair figures count the cases up to it;
//  3. for each operation whose coverage cases all held, rapid runs the
//     property with a stand-in that only draws: the requests of its calls,
//     in order. rapid's settings are global, so the drawing stays in this
//     goroutine, one operation after another;
//  4. the drawn requests of every operation are sent, as in 1;
//  5. per operation, when no drawn request failed, the result is what
//     rapid's run would have made of those verdicts; when one did, rapid
//     runs the property again with the same seed, taking the verdicts of
//     4 for the calls up to the first failure (the same seed draws the
//     same requests, checked request by request) and sending for real
//     from there: it finds the same first failure and shrinks it as it
//     would have without concurrency.
//
// Once an operation has a failure or an error, its later cases are not
// started, but those already in flight are sent: a failing operation may
// cost up to Parallel-1 requests more than in turn. For GEN-NO-5XX their
// answers are kept for GEN-VALID-ANSWER like the others. Verdicts, pair
// figures and, when nothing fails, request counts are those of the run in
// turn.
//
// GEN-ROUND-TRIP reads back the message a case sent or edited: cases that
// edit the same message are kept in their order, one after the other (a
// lane); sends make a message each and go together. The properties that
// read state around each request stay in turn (see state for the reads of
// one state, sent together).

// concurrent reports whether a property's cases may be in flight
// together.
func concurrent(property string) bool {
	switch property {
	case NoServerError, ValidAnswer, NoTokenNoData, ReferenceError, RoundTrip:
		return true
	}
	return false
}

// laneOf names the cases of a property that must run one after another,
// in order ("" for a case free to run with any other).
func laneOf(property string, cs *testCase) string {
	if property == RoundTrip {
		return cs.message
	}
	return ""
}

// caseKey identifies the request of a case: what it sends and how it is
// described.
func caseKey(cs *testCase) string {
	return fmt.Sprintf("%s\x00%s %s?%s\x00%d %s\x00%q\x00%v", cs.describe(), cs.method, cs.path, cs.query.Encode(), cs.place, cs.token, cs.body, cs.header)
}

// job is one case of one operation to judge.
type job struct {
	op, idx int // the operation's place in the run, the case's among its cases
	lane    string
	ctx     context.Context // counts for the operation's result
	cs      *testCase
	ran     bool
	v       verdict
}

// judgeAll judges the jobs of a property, at most Parallel at once,
// started in the order given (jobs of one lane one after another, in
// place of the first). After a job of an operation fails or cannot be
// judged, the operation's later jobs are not started.
func (e *Engine) judgeAll(ctx context.Context, p Property, jobs []*job, ops int) {
	var mu sync.Mutex
	stop := make([]int, ops) // per operation, the first job known to end it
	for i := range stop {
		stop[i] = math.MaxInt
	}
	stopped := func(j *job) bool {
		mu.Lock()
		defer mu.Unlock()
		return j.idx > stop[j.op]
	}
	var units [][]*job
	lanes := map[string]int{}
	for _, j := range jobs {
		if j.lane == "" {
			units = append(units, []*job{j})
			continue
		}
		if i, ok := lanes[j.lane]; ok {
			units[i] = append(units[i], j)
			continue
		}
		lanes[j.lane] = len(units)
		units = append(units, []*job{j})
	}
	sem := make(chan struct{}, e.par)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, u := range units {
		if len(u) == 1 && stopped(u[0]) {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return // the jobs not started stay not run
		}
		wg.Go(func() {
			defer func() { <-sem }()
			for _, j := range u {
				if ctx.Err() != nil || stopped(j) {
					continue
				}
				j.v.f, j.v.err = e.judge(j.ctx, p, j.cs)
				j.ran = true
				if j.v.f != nil || j.v.err != nil {
					mu.Lock()
					stop[j.op] = min(stop[j.op], j.idx)
					mu.Unlock()
				}
			}
		})
	}
}

// notRun is the error of a job the run did not start: the context ended.
func notRun(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return context.Canceled
}

// inTurnsOf calls f for 0 to n-1, at most Parallel at once, and returns
// the error of the lowest i that failed. With Parallel 1 it calls them in
// order and stops at the first error.
func (e *Engine) inTurnsOf(ctx context.Context, n int, f func(i int) error) error {
	if e.par <= 1 || n <= 1 {
		for i := range n {
			if err := f(i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, n)
	sem := make(chan struct{}, e.par)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = f(i)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runConcurrent checks a concurrent property on the given operations, with
// the verdicts of runOne on each (see the comment at the top of this
// file).
func (e *Engine) runConcurrent(ctx context.Context, p Property, ops []*operation) []Result {
	results := make([]Result, len(ops))
	counts := make([]atomic.Int64, len(ops))
	ctxs := make([]context.Context, len(ops))
	active := make([]bool, len(ops)) // still to judge
	first := -1
	for i, op := range ops {
		results[i].Operation = op.ID
		ctxs[i] = counting(ctx, &counts[i])
		if why := e.skipReason(p, op); why != "" {
			results[i].Skipped = why
			continue
		}
		active[i] = true
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return results
	}
	if e.cfg.Writes && !e.prepared {
		if err := e.prepare(ctxs[first]); err != nil {
			// As in turn: this operation reports the error, and each
			// later one tries again.
			results[first].Err, results[first].Requests = err, int(counts[first].Load())
			for i := first + 1; i < len(ops); i++ {
				if active[i] {
					results[i] = e.runOne(ctx, p, ops[i])
				}
			}
			return results
		}
	}
	defer func() {
		for i := range results {
			results[i].Requests = int(counts[i].Load())
		}
	}()
	m := modeFor(p.ID)

	// The coverage cases.
	if !e.cfg.NoCoverage {
		cvs := make([]*covered, len(ops))
		var jobs []*job
		for i, op := range ops {
			if !active[i] {
				continue
			}
			cvs[i] = e.coverageCases(p, op, m, &results[i])
			for k, cs := range cvs[i].cases {
				jobs = append(jobs, &job{op: i, idx: k, lane: laneOf(p.ID, cs), ctx: ctxs[i], cs: cs})
			}
		}
		e.judgeAll(ctx, p, jobs, len(ops))
		byOp := make([][]*job, len(ops))
		for _, j := range jobs {
			byOp[j.op] = append(byOp[j.op], j)
		}
		for i := range ops {
			if !active[i] {
				continue
			}
			for _, j := range byOp[i] {
				if !j.ran {
					results[i].Err = notRun(ctx)
					active[i] = false
					break
				}
				if cvs[i].take(&results[i], j.cs, j.v.f, j.v.err) {
					active[i] = false
					break
				}
			}
		}
	}
	if e.cfg.Examples == 0 {
		return results
	}

	// The random examples: drawn in turn, sent together, taken in turn.
	drawnCases := make([][]*testCase, len(ops))
	summaries := make([]string, len(ops))
	var jobs []*job
	for i, op := range ops {
		if !active[i] {
			continue
		}
		drawnCases[i], summaries[i] = e.draw(p, op, m)
		for k, cs := range drawnCases[i] {
			if cs != nil {
				jobs = append(jobs, &job{op: i, idx: k, lane: laneOf(p.ID, cs), ctx: ctxs[i], cs: cs})
			}
		}
	}
	e.judgeAll(ctx, p, jobs, len(ops))
	verdicts := make([][]*verdict, len(ops))
	for i := range ops {
		if active[i] {
			verdicts[i] = make([]*verdict, len(drawnCases[i]))
		}
	}
	for _, j := range jobs {
		if j.ran {
			j.v.key = caseKey(j.cs)
			verdicts[j.op][j.idx] = &j.v
		}
	}
	for i, op := range ops {
		if !active[i] {
			continue
		}
		res := &results[i]
		runs, failed := 0, false
		for k, cs := range drawnCases[i] {
			if cs == nil {
				continue
			}
			runs++
			v := verdicts[i][k]
			if v == nil {
				res.Examples, res.Err = runs, notRun(ctx)
				failed = true
				break
			}
			if v.f != nil {
				// rapid runs again, from the same seed, to shrink it.
				e.examples(ctxs[i], p, op, m, res, verdicts[i])
				failed = true
				break
			}
			if v.err != nil {
				// In turn, the property stops sending at the first
				// request without an answer and reports it.
				res.Examples, res.Err = runs, v.err
				if ctx.Err() != nil {
					res.Err = ctx.Err()
				}
				failed = true
				break
			}
		}
		if failed {
			continue
		}
		res.Examples = runs
		switch summary := summaries[i]; {
		case ctx.Err() != nil:
			res.Err = ctx.Err()
		case summary != "" && !strings.Contains(summary, "only generated"):
			res.Err = fmt.Errorf("generate: rapid: %s", summary)
		case res.Cases == 0 && runs == 0:
			res.Skipped = "the world holds no ids for a request of this kind"
		}
	}
	return results
}

// draw runs rapid over the examples of p on op as examples does, with a
// property that sends nothing: it returns the request each call of the
// property drew, in call order (nil for a call that drew none), and
// rapid's summary. Every call passes, so rapid makes the calls a run in
// turn makes up to its first failure.
func (e *Engine) draw(p Property, op *operation, m mode) ([]*testCase, string) {
	var out []*testCase
	prop := func(t *rapid.T) {
		b := &builder{w: e.world, profile: e.cfg.Profile, writes: e.cfg.Writes, op: op, c: drawn{t}, mode: m}
		cs, ok := b.build()
		if !ok {
			out = append(out, nil)
			t.Skip("no request of this kind")
		}
		out = append(out, cs)
	}
	name := "chatconform-generate-" + p.ID + "-" + op.ID
	summary := search(name, deriveSeed(e.cfg.Seed, p.ID, op.ID), e.cfg.Examples, e.cfg.ShrinkTime, prop)
	return out, summary
}
