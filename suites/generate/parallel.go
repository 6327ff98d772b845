package generate

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"pgregory.net/rapid"

	"github.com/chatrooms/conformance/suites/client"
)

// Requests in flight together (Config.Parallel above 1).
//
// A property that judges each answer on its own has nothing that ties one
// case to another: the verdict on a case is a function of the case and its
// answer. Such a property is run in phases over all the operations asked
// at once:
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
// lane); sends make a message each and go together.
//
// GEN-REFUSED-NO-CHANGE and GEN-GET-NO-CHANGE read the state a case could
// change before and after its request (judge.go), so a case is not judged
// by its answer alone: another case's request may change the state it
// reads. They run in the same phases, but 1 and 4 send the cases in
// rounds (judgeRounds), one round after another:
//
//   - a round reads the state of its cases, each distinct read once,
//     sends their requests together, and reads the state again; the reads
//     after a round and those the next round starts from go together;
//   - cases whose state is in the write room and whose request a correct
//     server does not write for (a GET, HEAD or OPTIONS, or a request
//     that breaks the document) share rounds of up to Parallel cases;
//   - a case has a round of its own when its state is outside the write
//     room, or when its request may be accepted and write (mayWrite),
//     which the others' reads would see. Outside the write room, blame
//     puts a change on the request at once, which holds only if nothing
//     else was sent between the two reads: a second try could not stand
//     in, since a request that marked the messages of such a room read
//     leaves nothing to mark, and the run posts nothing there;
//   - a change seen across a round is confirmed after the round, case by
//     case in the order given, with nothing else in flight: flickers,
//     then blame. For a case that shared its round, blame always sends
//     the request again from a settled state (caused), so when case B's
//     request changes the state case A reads, A's second try changes
//     nothing and A is not reported; B's changes it again, and B is. After
//     a round with a change, the next round reads its state afresh;
//   - once an operation has a failure or an error, its later cases are
//     left out of the rounds to come (and out of the confirmations of the
//     round under way, whose requests have all been sent).
//
// The rounds, their reads and their second tries follow from the cases
// and the answers, not from how fast the answers come: two runs against
// servers that answer alike send the same requests. They send fewer reads than the
// run in turn (a read serves every case of a round that needs it, before
// and after), so their request counts differ from it; verdicts do not. A
// server whose refused requests or GETs change state (or a Core server
// that accepts a request the document forbids, and writes) puts the other
// cases of the round to a second try each: two more reads of the state,
// (with writes on) a message of the second user posted in the write room,
// reads until the state settles (two at least, settlePoll apart), the
// request and a read. That message may stay unread where in turn there
// would have been none, so a later property on the same server may start
// from another state than in turn. Most of what is left to wait for in GEN-REFUSED-NO-CHANGE are
// rounds of one case: most of its cases may write or read outside the
// write room. TestParallelStatePropertiesWaitForHalfTheAnswers counts the
// answers both properties wait for one after another, in turn and in
// rounds.

// concurrent reports whether a property's cases may be in flight
// together.
func concurrent(property string) bool {
	switch property {
	case NoServerError, ValidAnswer, NoTokenNoData, ReferenceError, RoundTrip, RefusedNoChange, GetNoChange:
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
// place of the first), or in rounds for a property that reads state
// around each request (judgeRounds). After a job of an operation fails or
// cannot be judged, the operation's later jobs are not started.
func (e *Engine) judgeAll(ctx context.Context, p Property, jobs []*job, ops int) {
	if stateProperty(p.ID) {
		e.judgeRounds(ctx, p, jobs, ops)
		return
	}
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

// stateProperty reports whether a property reads state around each
// request: its cases are judged in rounds (judgeRounds).
func stateProperty(property string) bool {
	return property == RefusedNoChange || property == GetNoChange
}

// aloneInRound reports whether a case of a state property is sent in a
// round of its own: its state is outside the write room, where a change
// is put on the request only when nothing else was sent between the reads
// (see blame), or its request may be accepted and write (see mayWrite),
// which the other requests' reads of the write room would see.
func (e *Engine) aloneInRound(cs *testCase) bool {
	return !e.writtenTo(cs) || mayWrite(cs)
}

// mayWrite reports whether a correct server may accept a case's request
// and change state: a method other than GET, HEAD and OPTIONS, with no
// departure that breaks the document (a request valid, refusable or
// left open). A server that accepts a request the document forbids changes
// no verdict: the reads of the others' state then see a change that a
// second try does not put on them, at the cost of that try.
func mayWrite(cs *testCase) bool {
	switch cs.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return !cs.has(invalid) && !cs.has(badToken) && !cs.has(badMethod)
}

// roundsOf groups the jobs of a state property into rounds, in the order
// given: each job that must be alone (aloneInRound) makes a round of its
// own where it comes; the others fill rounds of up to Parallel jobs, each
// sent when full (or at the end).
func (e *Engine) roundsOf(jobs []*job) [][]*job {
	var out [][]*job
	var cur []*job
	for _, j := range jobs {
		if e.aloneInRound(j.cs) {
			out = append(out, []*job{j})
			continue
		}
		cur = append(cur, j)
		if len(cur) == e.par {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// stateOf is a snapshot read for a round, or why it could not be read.
type stateOf struct {
	snap snapshot
	err  error
}

// readKey identifies a state read: reads of two snapshots that send the
// same request are sent once.
func readKey(r client.Request) string {
	return r.Method + " " + r.Path + "?" + r.Query.Encode()
}

// readStates reads the state of each job's case (one snapshot per cache
// key), sending each distinct read once, at most Parallel in flight. A
// read is counted for the first job that needs it.
func (e *Engine) readStates(ctx context.Context, jobs []*job) map[string]stateOf {
	type keyed struct {
		key   string
		reads []stateReq
	}
	var keys []keyed
	var distinct []stateReq
	var ctxs []context.Context
	at := map[string]int{}
	out := map[string]stateOf{}
	for _, j := range jobs {
		key, reads := e.stateReads(j.cs)
		if _, ok := out[key]; ok {
			continue
		}
		out[key] = stateOf{}
		keys = append(keys, keyed{key, reads})
		for _, r := range reads {
			if _, ok := at[readKey(r.r)]; !ok {
				at[readKey(r.r)] = len(distinct)
				distinct = append(distinct, r)
				ctxs = append(ctxs, j.ctx)
			}
		}
	}
	values := make([]readValue, len(distinct))
	errs := make([]error, len(distinct))
	_ = e.inTurnsOf(ctx, len(distinct), func(i int) error {
		values[i], errs[i] = e.readOne(ctxs[i], distinct[i])
		return nil
	})
	for _, k := range keys {
		vs := make([]readValue, len(k.reads))
		var err error
		for i, r := range k.reads {
			n := at[readKey(r.r)]
			vs[i] = values[n]
			if err == nil {
				err = errs[n]
			}
		}
		out[k.key] = stateOf{snapshotOf(k.reads, vs), err}
	}
	return out
}

// keyOf is the cache key of the state a job's case reads.
func (e *Engine) keyOf(j *job) string {
	_, _, _, key := e.snapshotKey(j.cs)
	return key
}

// judgeRounds judges the jobs of GEN-REFUSED-NO-CHANGE or GEN-GET-NO-CHANGE
// in rounds (see the comment at the top of this file), one round after
// another: the state of the round's cases is read (each read once), their
// requests are sent together, and the state is read again, together with
// the state the next round starts from. A change seen across a round is
// confirmed (flickers, blame) between two rounds, nothing else in flight,
// case after case in the order given. After a job of an operation fails
// or cannot be judged, the operation's later jobs are not started.
func (e *Engine) judgeRounds(ctx context.Context, p Property, jobs []*job, ops int) {
	defer e.forget() // the cache holds reads of the rounds: none for the runs in turn after
	stop := make([]int, ops)
	for i := range stop {
		stop[i] = math.MaxInt
	}
	stopped := func(j *job) bool { return j.idx > stop[j.op] }
	end := func(j *job) {
		if j.v.f != nil || j.v.err != nil {
			stop[j.op] = min(stop[j.op], j.idx)
		}
	}
	live := func(round []*job) []*job {
		var out []*job
		for _, j := range round {
			if !stopped(j) {
				out = append(out, j)
			}
		}
		return out
	}
	rounds := e.roundsOf(jobs)
	var pre map[string]stateOf // read since the last request was sent
	// Beside other writers (Config.Quiet) the rounds run while the others
	// write; a change is confirmed inside a quiet window only when their
	// writes do not account for it (see beside.go).
	beside := e.cfg.Quiet != nil
	for r := range rounds {
		round := live(rounds[r])
		if len(round) == 0 {
			continue
		}
		if ctx.Err() != nil {
			return // the jobs not started stay not run
		}
		// The state before: read with the state after the round before,
		// or now.
		before := map[string]stateOf{}
		var unread []*job
		for _, j := range round {
			if s, ok := pre[e.keyOf(j)]; ok {
				before[e.keyOf(j)] = s
			} else {
				unread = append(unread, j)
			}
		}
		maps.Copy(before, e.readStates(ctx, unread))
		pre = nil

		// The requests, together.
		var send []*job
		for _, j := range round {
			j.ran = true
			if b := before[e.keyOf(j)]; b.err != nil {
				j.v.err = b.err
				end(j)
				continue
			}
			send = append(send, j)
		}
		answers := make([]*client.Response, len(send))
		_ = e.inTurnsOf(ctx, len(send), func(i int) error {
			answers[i], send[i].v.err = e.exchange(send[i].ctx, send[i].cs)
			return nil
		})
		var judged []*job
		var judgedAnswers []*client.Response
		for i, j := range send {
			switch {
			case j.v.err != nil:
				end(j)
			case p.ID == RefusedNoChange && answers[i].Status/100 != 4:
				e.forget() // not refused: nothing to judge
			default:
				judged, judgedAnswers = append(judged, j), append(judgedAnswers, answers[i])
			}
		}

		// The state after, and the state the next round starts from.
		reads := slices.Clone(judged)
		if r+1 < len(rounds) {
			reads = append(reads, live(rounds[r+1])...)
		}
		after := e.readStates(ctx, reads)
		confirmed := false
		release := func() {}
		for i, j := range judged {
			if stopped(j) {
				continue // its operation failed at an earlier case of this round
			}
			a := after[e.keyOf(j)]
			if a.err != nil {
				j.v.err = a.err
				end(j)
				continue
			}
			b := before[e.keyOf(j)].snap
			if changed(b, a.snap) == "" {
				continue
			}
			if beside {
				if e.explained(j.ctx, b, a.snap) {
					continue // the others' writes account for it
				}
				if !confirmed {
					release = e.quiet(ctx) // every write of the others let through has ended
				}
				if e.explained(j.ctx, b, a.snap) {
					continue
				}
			}
			confirmed = true // it reads and sends: what was read for the next round is stale
			j.v.f, j.v.err = e.confirm(j.ctx, p.ID, j.cs, judgedAnswers[i], b, a.snap, len(round) == 1)
			end(j)
		}
		release()
		if !confirmed {
			pre = map[string]stateOf{}
			for k, s := range after {
				if s.err == nil {
					pre[k] = s
				}
			}
		}
	}
}
