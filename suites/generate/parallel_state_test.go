package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// refusedMarkReadStillMarks lets a mark-read the server refuses (4xx) mark
// every unread message of the caller in the room read all the same: a
// refused request that changes state, in the write room.
func refusedMarkReadStillMarks(t testing.TB) func(http.Handler) http.Handler {
	tokens, ids, _ := servedWorld(t)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/user/"), "/")
			if r.Method != http.MethodPost || len(parts) != 4 || parts[1] != "rooms" || parts[3] != "unreadItems" {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			if rec.Code/100 == 4 {
				var un struct {
					Chat []string `json:"chat"`
				}
				got := serveAs(next, "GET", "/v1/user/"+ids[0]+"/rooms/"+parts[2]+"/unreadItems", tokens[0], nil)
				if json.Unmarshal(got.Body.Bytes(), &un) == nil && len(un.Chat) > 0 {
					serveAs(next, "POST", "/v1/user/"+ids[0]+"/rooms/"+parts[2]+"/unreadItems", tokens[0], map[string]any{"chat": un.Chat})
				}
			}
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		})
	}
}

// stateServer is a server to run the state properties against: a planted
// fault, and how the world is to be described to the engine.
type stateServer struct {
	name    string
	profile spec.Profile
	wrap    func(t testing.TB) func(http.Handler) http.Handler
	// world, when set, changes the world the engine is given.
	world func(t testing.TB, s *served)
	// readOnly runs the engine with writes off.
	readOnly bool
	// fails are the failures the run in turn reports ("PROPERTY
	// operation"), none on a server where both properties hold.
	fails []string
}

func stateServers() []stateServer {
	plain := func(testing.TB) func(http.Handler) http.Handler { return nil }
	// Only a room of the caller with unread messages, and no write room:
	// every state read is outside the write room.
	unreadOnly := func(t testing.TB, s *served) {
		s.world.Rooms, s.world.HideRoom, s.world.WriteRoom = unreadRooms(t, s), "", ""
	}
	return []stateServer{
		{name: "the reference server, core", profile: spec.Core, wrap: plain},
		{name: "the reference server, reference", profile: spec.Reference, wrap: plain},
		{name: "a refused PUT that still edits", profile: spec.Reference, wrap: func(testing.TB) func(http.Handler) http.Handler { return refusedEditStillEdits },
			fails: []string{RefusedNoChange + " updateMessage"}},
		{name: "a refused mark-read that still marks read", profile: spec.Core, wrap: refusedMarkReadStillMarks,
			fails: []string{RefusedNoChange + " markUnreadItemsRead"}},
		{name: "GET /v1/user marks the write room read", profile: spec.Core, wrap: currentUserMarksRead,
			fails: []string{GetNoChange + " getCurrentUser"}},
		// Outside the write room: the change is put on the request without a
		// second try (which would find nothing left to mark read), so the
		// case must have been alone between its reads. A refused listing
		// marks read too.
		{name: "a listing marks read, outside the write room", profile: spec.Core, wrap: listingMarksRead, world: unreadOnly, readOnly: true,
			fails: []string{RefusedNoChange + " listMessages", GetNoChange + " listMessages"}},
	}
}

// runState runs GEN-REFUSED-NO-CHANGE and GEN-GET-NO-CHANGE on every
// operation, each against a fresh server, with the given Parallel. (On one
// server, what a property leaves behind is where the next one starts: a
// GET that marks messages read, sent by GEN-REFUSED-NO-CHANGE, leaves
// nothing unread for GEN-GET-NO-CHANGE to see marked in turn, and the
// second tries its changes call for in a round leave unread messages.)
func runState(t *testing.T, sv stateServer, parallel int) []*Report {
	t.Helper()
	var out []*Report
	for _, p := range []string{RefusedNoChange, GetNoChange} {
		s := serve(t, sv.profile, sv.wrap(t))
		if sv.world != nil {
			sv.world(t, s)
		}
		e, err := New(Config{Client: s.client, Profile: sv.profile, World: s.world, Seed: testSeed, Writes: !sv.readOnly, Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestParallelStatePropertiesGiveTheVerdictsOfOneAtATime: the two
// properties that read state around each request, run in rounds, give the
// verdicts of the run in turn, on a correct server (no failure) and on
// servers whose refused requests or GETs change state, in the write room
// or outside it.
func TestParallelStatePropertiesGiveTheVerdictsOfOneAtATime(t *testing.T) {
	for _, sv := range stateServers() {
		t.Run(sv.name, func(t *testing.T) {
			t.Parallel() // each against servers of its own
			inTurn := runState(t, sv, 1)
			for _, parallel := range []int{2, 8} {
				together := runState(t, sv, parallel)
				a, b := outcomes(inTurn), outcomes(together)
				if !slices.Equal(a, b) {
					for i := range max(len(a), len(b)) {
						if at(a, i) != at(b, i) {
							t.Errorf("one at a time:\n  %s\nParallel %d:\n  %s", at(a, i), parallel, at(b, i))
						}
					}
				}
			}
			var failed []string
			for _, rep := range inTurn {
				if err := rep.Err(); err != nil {
					t.Errorf("not judged: %v", err)
				}
				for _, f := range rep.Failures() {
					failed = append(failed, f.Property+" "+f.Operation)
				}
			}
			if !slices.Equal(failed, sv.fails) {
				t.Errorf("failures %v, want %v", failed, sv.fails)
			}
			t.Logf("alike; failures: %v", failed)
		})
	}
}

// requestLog records the requests a server answers, and counts how many
// requests other than the engine's state reads are in flight at once.
type requestLog struct {
	hold time.Duration // each request is held this long
	// jitter, when set, holds each request for a random time up to it
	// instead.
	jitter time.Duration

	mu        sync.Mutex
	seen      []string
	now, most int // requests of cases (not state reads) in flight
	all, peak int // every request in flight
	waits     int // requests that came with no other in flight
	rng       *rand.Rand
}

// isStateRead says whether a request is one of the engine's state reads:
// the caller's unread items, a room's newest page, a message by id, the
// rooms list. (A case sending the same request is counted as one.)
func isStateRead(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	p := r.URL.Path
	return strings.HasSuffix(p, "/unreadItems") || strings.HasSuffix(p, "/chatMessages") && r.URL.RawQuery == "limit="+newestPage ||
		strings.Contains(p, "/chatMessages/") || strings.HasSuffix(p, "/rooms")
}

func (l *requestLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		read := isStateRead(r)
		l.mu.Lock()
		l.seen = append(l.seen, fmt.Sprintf("%s %s?%s %s", r.Method, r.URL.Path, r.URL.RawQuery, body))
		if !read {
			l.now++
			l.most = max(l.most, l.now)
		}
		if l.all == 0 {
			l.waits++
		}
		l.all++
		l.peak = max(l.peak, l.all)
		hold := l.hold
		if l.jitter > 0 {
			if l.rng == nil {
				l.rng = rand.New(rand.NewPCG(1, 2))
			}
			hold = time.Duration(l.rng.Int64N(int64(l.jitter)))
		}
		l.mu.Unlock()
		time.Sleep(hold)
		next.ServeHTTP(w, r)
		l.mu.Lock()
		if !read {
			l.now--
		}
		l.all--
		l.mu.Unlock()
	})
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen, l.most, l.peak = nil, 0, 0
}

// sent counts the requests of the log that contain all of parts.
func (l *requestLog) sent(parts ...string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.seen {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(s, p) }) {
			n++
		}
	}
	return n
}

// caseOf finds the coverage case (or, with examples, a drawn one) of a
// property on an operation whose description contains all of parts.
func caseOf(t *testing.T, e *Engine, property, op string, parts ...string) *testCase {
	t.Helper()
	p, _ := PropertyByID(property)
	m := modeFor(property)
	cases := e.coverageOf(p, e.ops[op], m)
	drawn, _ := e.draw(p, e.ops[op], m)
	for _, cs := range append(cases, drawn...) {
		if cs != nil && !slices.ContainsFunc(parts, func(s string) bool { return !strings.Contains(cs.describe(), s) }) {
			return cs
		}
	}
	t.Fatalf("no case of %s on %s with %q", property, op, parts)
	return nil
}

// TestParallelStateBlamesOnlyTheRequestThatChangesState puts two cases in
// one round: B's request changes the caller's unread items, and A's reads
// after the round see the change too. A is put to a second try (sent again
// from a settled state, with nothing else in flight), which does not
// change the state again: A is not reported. B is, by its own second try.
// In either order in the round.
func TestParallelStateBlamesOnlyTheRequestThatChangesState(t *testing.T) {
	type pair struct {
		name       string
		property   string
		fault      func(testing.TB) func(http.Handler) http.Handler
		opA, opB   string
		descA      []string // parts of the description of A's case
		descB      []string
		sentA      []string // parts of the request log's line of A's request
		sentB      []string
		wantChange string
	}
	pairs := []pair{
		{"a refused mark-read that marks read, with a refused send", RefusedNoChange, refusedMarkReadStillMarks,
			"sendMessage", "markUnreadItemsRead", []string{"body true (defect"}, []string{"body {} (defect: the required field chat is missing)"},
			[]string{"POST", "/chatMessages?", " true"}, []string{"POST", "/unreadItems?", " {}"}, "changed the caller's unread items of the room"},
		{"GET /v1/user that marks read, with another GET", GetNoChange, currentUserMarksRead,
			"listUserOrgs", "getCurrentUser", []string{"GET /v1/user/{caller}/orgs"}, []string{"GET /v1/user"},
			[]string{"GET /v1/user/", "/orgs?"}, []string{"GET /v1/user? "}, "changed the caller's unread items of the room"},
	}
	for _, pr := range pairs {
		for _, bFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, B first %v", pr.name, bFirst), func(t *testing.T) {
				log := &requestLog{}
				fault := pr.fault(t)
				s := serve(t, spec.Core, func(h http.Handler) http.Handler { return log.wrap(fault(h)) })
				e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Writes: true, Parallel: 8})
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if err := e.prepare(ctx); err != nil { // user 2's message: unread for the caller
					t.Fatal(err)
				}
				p, _ := PropertyByID(pr.property)
				a := &job{op: 0, ctx: ctx, cs: caseOf(t, e, pr.property, pr.opA, pr.descA...)}
				b := &job{op: 1, ctx: ctx, cs: caseOf(t, e, pr.property, pr.opB, pr.descB...)}
				jobs := []*job{a, b}
				if bFirst {
					jobs = []*job{b, a}
					a.op, b.op = 1, 0
				}
				if rounds := e.roundsOf(jobs); len(rounds) != 1 {
					t.Fatalf("the two cases are not in one round: %d rounds", len(rounds))
				}
				log.reset()
				e.judgeRounds(ctx, p, jobs, 2)
				if !a.ran || !b.ran {
					t.Fatal("a case was not judged")
				}
				if a.v.f != nil || a.v.err != nil {
					t.Errorf("A (%s) was reported: %v %v", a.cs.describe(), a.v.f, a.v.err)
				}
				if b.v.err != nil || b.v.f == nil {
					t.Fatalf("B (%s) was not reported: %v", b.cs.describe(), b.v.err)
				}
				if b.v.f.Property != pr.property || b.v.f.Operation != pr.opB || b.v.f.key != pr.wantChange || !strings.Contains(b.v.f.Problem, "again") {
					t.Errorf("B's failure: %s (%s)", b.v.f, b.v.f.key)
				}
				// A saw the change (it was sent a second time, by blame),
				// and so did B.
				if n := log.sent(pr.sentA...); n != 2 {
					t.Errorf("A's request was sent %d times; want 2 (the round, and the second try its change called for)", n)
				}
				if n := log.sent(pr.sentB...); n != 2 {
					t.Errorf("B's request was sent %d times; want 2", n)
				}
				t.Logf("B reported: %s", b.v.f)
			})
		}
	}
}

// TestParallelStateRequestsAreInFlightTogether: with Parallel above 1 the
// requests of different cases of the two state properties are in flight at
// once (never more than Parallel requests in all); with Parallel 1, one at
// a time.
func TestParallelStateRequestsAreInFlightTogether(t *testing.T) {
	for _, parallel := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(parallel), func(t *testing.T) {
			log := &requestLog{hold: 2 * time.Millisecond}
			s := serve(t, spec.Core, log.wrap)
			e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Writes: true, Parallel: parallel})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{RefusedNoChange, GetNoChange} {
				log.reset()
				runProperty(t, e, p)
				log.mu.Lock()
				most, peak := log.most, log.peak
				log.mu.Unlock()
				t.Logf("%s, Parallel %d: at most %d requests of cases in flight at once, %d requests in all", p, parallel, most, peak)
				if peak > parallel {
					t.Errorf("%s: %d requests in flight at once with Parallel %d", p, peak, parallel)
				}
				if parallel == 1 && most != 1 || parallel > 1 && most < 2 {
					t.Errorf("%s: at most %d requests of cases in flight at once with Parallel %d", p, most, parallel)
				}
			}
		})
	}
}

// TestParallelStateRequestsAreTheSameEachRun: what the rounds send does not
// depend on how fast the answers come: two runs, one with answers held a
// random time, send the same requests, as many times each, and count as
// many per operation.
func TestParallelStateRequestsAreTheSameEachRun(t *testing.T) {
	run := func(jitter time.Duration) ([]string, []string) {
		log := &requestLog{jitter: jitter}
		s := serve(t, spec.Core, log.wrap)
		e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Writes: true, Parallel: 8})
		if err != nil {
			t.Fatal(err)
		}
		log.reset()
		var counts []string
		for _, p := range []string{RefusedNoChange, GetNoChange} {
			r := runProperty(t, e, p)
			for _, res := range r.Results {
				counts = append(counts, fmt.Sprintf("%s %s: %d requests", p, res.Operation, res.Requests))
			}
		}
		// The messages the engine sent to edit and point at have the ids
		// the server gave them: named by their place instead.
		var names []string
		for i, m := range e.world.Messages {
			if m.Fresh {
				names = append(names, m.ID, fmt.Sprintf("{prepared message %d}", i))
			}
		}
		fresh := strings.NewReplacer(names...)
		log.mu.Lock()
		defer log.mu.Unlock()
		var seen []string
		for _, s := range log.seen {
			seen = append(seen, fresh.Replace(s))
		}
		return counts, slices.Sorted(slices.Values(seen))
	}
	counts1, seen1 := run(0)
	counts2, seen2 := run(3 * time.Millisecond)
	if !slices.Equal(counts1, counts2) {
		t.Errorf("request counts differ:\n%s\n---\n%s", strings.Join(counts1, "\n"), strings.Join(counts2, "\n"))
	}
	if !slices.Equal(seen1, seen2) {
		for _, s := range seen1 {
			if !slices.Contains(seen2, s) {
				t.Errorf("only in the first run: %s", s)
			}
		}
		for _, s := range seen2 {
			if !slices.Contains(seen1, s) {
				t.Errorf("only in the second run: %s", s)
			}
		}
		t.Errorf("%d and %d requests", len(seen1), len(seen2))
	}
	t.Logf("%d requests, the same each run", len(seen1))
}

// TestParallelStatePropertiesWaitForHalfTheAnswers holds every answer
// for a fixed time, as a distant server would, and counts, for the two
// properties in turn and with the default Parallel, the requests that
// reached the server with no other in flight: the answers the property
// waited for one after another, each at least the delay. In rounds they
// must be at most half of those in turn. (A count, not a time: the wall
// time is logged, and BenchmarkFarRun in suites/runner measures it.)
func TestParallelStatePropertiesWaitForHalfTheAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs at a delay")
	}
	const delay = 20 * time.Millisecond
	waits := map[string]map[int]int{}
	for _, parallel := range []int{1, 0} {
		l := &requestLog{hold: delay}
		s := serve(t, spec.Core, l.wrap)
		e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Writes: true, Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{RefusedNoChange, GetNoChange} {
			l.mu.Lock()
			l.waits = 0
			l.mu.Unlock()
			r := runProperty(t, e, p)
			l.mu.Lock()
			n := l.waits
			l.mu.Unlock()
			if waits[p] == nil {
				waits[p] = map[int]int{}
			}
			waits[p][parallel] = n
			t.Logf("%s, Parallel %d: %d requests, %d of them waited for in turn, in %v", p, e.par, r.Requests, n, r.Duration.Round(time.Millisecond))
		}
	}
	for p, w := range waits {
		if w[0]*2 > w[1] || w[0] == 0 {
			t.Errorf("%s: %d answers waited for in turn with Parallel %d, %d with Parallel 1: not half as many", p, w[0], DefaultParallel, w[1])
		}
	}
}

// TestQuietWindowsKeepAnotherWriterOut: beside another writer of the
// write room (a second user posting as fast as it can, as other checks
// do when they run beside this one), the two state properties hold the
// writer back with Config.Quiet, as the runner's quiet window does: in
// turn each case reads its state afresh in a window of its own, and in
// rounds the others' writes (the client's WriteLog) account for the
// changes they made, so on the reference server nothing is put on a case
// either way; a refused mark-read that still marks read is still
// reported. The writer is checked to have written while the property
// ran, so a change it made and nothing accounted for would have called
// for a second try.
func TestQuietWindowsKeepAnotherWriterOut(t *testing.T) {
	servers := []struct {
		name  string
		wrap  func(testing.TB) func(http.Handler) http.Handler
		fails []string
	}{
		{"the reference server", func(testing.TB) func(http.Handler) http.Handler { return nil }, nil},
		{"a refused mark-read that still marks read", refusedMarkReadStillMarks, []string{RefusedNoChange + " markUnreadItemsRead"}},
	}
	for _, sv := range servers {
		for _, parallel := range []int{1, 8} {
			t.Run(fmt.Sprintf("%s, Parallel %d", sv.name, parallel), func(t *testing.T) {
				// The second tries of blame, each of which posts a message
				// of its own first: a state read in a window before the
				// other writer's message, and compared with one read in
				// the next, would call for one.
				var secondTries atomic.Int64
				fault := sv.wrap(t)
				s := serve(t, spec.Core, func(h http.Handler) http.Handler {
					if fault != nil {
						h = fault(h)
					}
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.Method == "POST" && r.Body != nil {
							b, _ := io.ReadAll(r.Body)
							if bytes.Contains(b, []byte("to tell a change a request made")) {
								secondTries.Add(1)
							}
							r.Body = io.NopCloser(bytes.NewReader(b))
						}
						h.ServeHTTP(w, r)
					})
				})
				var gate sync.RWMutex
				var inWindow atomic.Bool
				windows := 0
				quiet := func(ctx context.Context) (context.Context, func()) {
					gate.Lock()
					inWindow.Store(true)
					windows++
					return ctx, sync.OnceFunc(func() { inWindow.Store(false); gate.Unlock() })
				}
				ctx, stop := context.WithCancel(context.Background())
				var wrote, inside atomic.Int64
				done := make(chan struct{})
				go func() { // the other writer: user 2, in the write room
					defer close(done)
					ctx := client.WithCheck(ctx, "another check")
					for i := 0; ctx.Err() == nil; i++ {
						gate.RLock()
						if inWindow.Load() {
							inside.Add(1)
						}
						_, err := s.client.Do(ctx, client.Request{Method: "POST", Path: "/v1/rooms/" + s.world.WriteRoom + "/chatMessages",
							Token: s.world.Users[1].Token, Body: map[string]any{"text": fmt.Sprintf("another check's message %d", i)}})
						gate.RUnlock()
						if err == nil {
							wrote.Add(1)
						}
						time.Sleep(time.Millisecond)
					}
				}()
				e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Writes: true, Parallel: parallel, Quiet: quiet})
				if err != nil {
					t.Fatal(err)
				}
				var fails []string
				for _, p := range []string{RefusedNoChange, GetNoChange} {
					r := runProperty(t, e, p)
					for _, f := range r.Failures() {
						fails = append(fails, f.Property+" "+f.Operation)
						t.Logf("%s", f)
					}
				}
				stop()
				<-done
				t.Logf("%d quiet windows; the other writer wrote %d messages, %d of them inside a window; %d second tries", windows, wrote.Load(), inside.Load(), secondTries.Load())
				if sv.fails == nil && secondTries.Load() != 0 {
					t.Errorf("%d second tries on a server where nothing changes: a state read before another window was compared", secondTries.Load())
				}
				if inside.Load() != 0 {
					t.Errorf("the other writer wrote %d times inside a quiet window", inside.Load())
				}
				if wrote.Load() < 10 || (parallel == 1 && windows < 2) {
					t.Fatalf("the writer wrote %d messages over %d windows: nothing was kept out", wrote.Load(), windows)
				}
				if !slices.Equal(fails, sv.fails) {
					t.Errorf("failures %q, want %q", fails, sv.fails)
				}
			})
		}
	}
}

// runProperty runs property p on e and fails the test when the run, or
// any operation of it, could not be judged.
func runProperty(t *testing.T, e *Engine, p string) *Report {
	t.Helper()
	r, err := e.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}
