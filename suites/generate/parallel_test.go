package generate

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// runWith runs every property of the profile against a fresh server
// (wrapped by wrap) with the given Parallel, and returns the reports.
func runWith(t *testing.T, profile spec.Profile, wrap func(http.Handler) http.Handler, parallel int) []*Report {
	t.Helper()
	s := serve(t, profile, wrap)
	e, err := New(Config{Client: s.client, Profile: profile, World: s.world, Seed: testSeed, Writes: true, Parallel: parallel})
	if err != nil {
		t.Fatal(err)
	}
	return e.RunAll(context.Background())
}

// outcome is what a result says, less what differs between two runs of
// the same seed whatever the concurrency: times, and the values a state
// read shows (ids and times the server assigns).
func outcome(property string, r Result) string { return outcomeOf(property, r, true) }

func outcomeOf(property string, r Result, counted bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: cases %d, examples %d, pairs %+v, skipped %q", property, r.Operation, r.Cases, r.Examples, r.Pairs, r.Skipped)
	if r.Err != nil {
		fmt.Fprintf(&b, ", error %v", r.Err)
	}
	if f := r.Failure; f != nil {
		problem := f.Problem
		if property == RefusedNoChange || property == GetNoChange {
			problem = f.key
		}
		fmt.Fprintf(&b, ", failure %s %s %q %q %d coverage %t shrunk %t", f.Requirement, f.Operation, f.Request, problem, f.Status, f.Coverage, f.Shrunk)
	}
	if r.Failure == nil && r.Err == nil && counted {
		// Cases in flight when an operation fails are sent anyway; the
		// count is the same only where nothing failed.
		fmt.Fprintf(&b, ", requests %d", r.Requests)
	}
	return b.String()
}

// outcomes lists the outcomes of reports. GEN-VALID-ANSWER sends fewer
// requests on an operation where GEN-NO-5XX failed, when the cases sent
// after the failing one are among those it shares: their count is left
// out, and the run's total added. GEN-REFUSED-NO-CHANGE and
// GEN-GET-NO-CHANGE read state once per round with Parallel above 1, not
// once per case (see judgeRounds): their counts are left out of both
// (TestParallelStateRequestsAreTheSameEachRun pins them).
func outcomes(reports []*Report) []string {
	var out []string
	failed5xx := map[string]bool{}
	total := 0
	for _, rep := range reports {
		for _, r := range rep.Results {
			if rep.Property == NoServerError && (r.Failure != nil || r.Err != nil) {
				failed5xx[r.Operation] = true
			}
			counted := rep.Property != ValidAnswer || !failed5xx[r.Operation]
			out = append(out, outcomeOf(rep.Property, r, counted && !stateProperty(rep.Property)))
		}
		if !stateProperty(rep.Property) {
			total += rep.Requests
		}
		if len(rep.Failures()) > 0 || rep.Err() != nil {
			total = -1_000_000 // unknown from here on
		}
	}
	if total >= 0 {
		out = append(out, fmt.Sprintf("%d requests in all", total))
	}
	return out
}

// TestParallelGivesTheVerdictsOfOneAtATime runs every property with one
// request at a time and with the default concurrency, against the
// unmodified server and against each planted fault, and wants the same
// results: the same failure for each operation (the first in case order,
// shrunk the same way), the same cases, examples and pairs, and the same
// requests where nothing failed.
func TestParallelGivesTheVerdictsOfOneAtATime(t *testing.T) {
	type server struct {
		name    string
		profile spec.Profile
		wrap    func(http.Handler) http.Handler
	}
	servers := []server{{"the reference server, core", spec.Core, nil}, {"the reference server, reference", spec.Reference, nil}}
	seen := map[uintptr]bool{} // a fault judged by two properties is served once
	for _, f := range faults {
		if w := reflect.ValueOf(f.wrap).Pointer(); !seen[w] {
			seen[w] = true
			servers = append(servers, server{f.name, spec.Reference, f.wrap})
		}
	}
	servers = append(servers, server{"a listing that marks read", spec.Core, listingMarksRead(t)})
	for _, sv := range servers {
		t.Run(sv.name, func(t *testing.T) {
			t.Parallel() // each against servers of its own
			inTurn := outcomes(runWith(t, sv.profile, sv.wrap, 1))
			together := outcomes(runWith(t, sv.profile, sv.wrap, 0))
			if !slices.Equal(inTurn, together) {
				for i := range max(len(inTurn), len(together)) {
					a, b := at(inTurn, i), at(together, i)
					if a != b {
						t.Errorf("one at a time:\n  %s\ntogether:\n  %s", a, b)
					}
				}
			}
			failures := 0
			for _, o := range inTurn {
				if strings.Contains(o, "failure") {
					failures++
				}
			}
			t.Logf("%d results alike, %d of them failures", len(inTurn), failures)
		})
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// TestParallelRandomSearchShrinksAndReplaysAlike: with the coverage cases
// off, the failure comes from rapid's search; drawn and sent together,
// then shrunk, it is the same failure as one at a time.
func TestParallelRandomSearchShrinksAndReplaysAlike(t *testing.T) {
	run := func(parallel int) (Result, int) {
		s := serve(t, spec.Core, failOnLimitZero)
		e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Examples: 60, NoCoverage: true, ShrinkTime: time.Minute, Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Run(context.Background(), NoServerError, "listMessages", "getCurrentUser")
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		if len(r.Failures()) != 1 {
			t.Fatalf("want one failure, got %v", r.Failures())
		}
		return r.Results[0], r.Requests
	}
	inTurn, n1 := run(1)
	together, n8 := run(8)
	if a, b := outcome(NoServerError, inTurn), outcome(NoServerError, together); a != b {
		t.Errorf("one at a time:\n  %s\ntogether:\n  %s", a, b)
	}
	if !inTurn.Failure.Shrunk {
		t.Errorf("not shrunk: %+v", inTurn.Failure)
	}
	t.Logf("%d requests one at a time, %d together; failure: %s", n1, n8, together.Failure.Request)
}

// inFlight counts the requests a server is answering at once, holding
// each for hold, and when each arrived.
type inFlight struct {
	hold time.Duration

	mu       sync.Mutex
	now, max int
	arrivals []time.Time
}

func (f *inFlight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.now++
		f.max = max(f.max, f.now)
		f.arrivals = append(f.arrivals, time.Now())
		f.mu.Unlock()
		time.Sleep(f.hold)
		next.ServeHTTP(w, r)
		f.mu.Lock()
		f.now--
		f.mu.Unlock()
	})
}

// TestParallelBoundsTheRequestsInFlight: never more than Parallel at once,
// and exactly one with Parallel 1.
func TestParallelBoundsTheRequestsInFlight(t *testing.T) {
	for _, parallel := range []int{1, 3} {
		t.Run(fmt.Sprint(parallel), func(t *testing.T) {
			f := &inFlight{hold: 2 * time.Millisecond}
			s := serve(t, spec.Core, f.wrap)
			f.mu.Lock()
			f.max = 0
			f.mu.Unlock()
			e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Writes: true, Parallel: parallel})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{NoTokenNoData, GetNoChange, RoundTrip} {
				r, err := e.Run(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.max > parallel || parallel == 3 && f.max < 2 {
				t.Errorf("at most %d requests were in flight at once with Parallel %d", f.max, parallel)
			}
		})
	}
}

// TestParallelKeepsToTheRateLimit: requests in flight together still go
// through the client's one limiter, so the server never sees more than the
// rate allows.
func TestParallelKeepsToTheRateLimit(t *testing.T) {
	const perSecond = 100.0
	f := &inFlight{hold: 30 * time.Millisecond}
	s := serve(t, spec.Core, f.wrap)
	cc, err := s.target.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cc.Secrets = append(cc.Secrets, DerivedTokens(s.target.Secrets())...)
	doc, err := spec.Load(spec.Core)
	if err != nil {
		t.Fatal(err)
	}
	if cc.Validator, err = doc.NewValidator(s.target.MountPath()); err != nil {
		t.Fatal(err)
	}
	cc.Rate = perSecond
	c, err := client.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cc.HTTP.CloseIdleConnections)
	e, err := New(Config{Client: c, Profile: spec.Core, World: s.world, Seed: testSeed, Writes: true, Parallel: 8})
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.arrivals, f.max = nil, 0
	f.mu.Unlock()
	r, err := e.Run(context.Background(), NoTokenNoData)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// The limiter lets one request through every 1/perSecond (a burst of
	// one): in any window of half a second, at most half the rate, one
	// more for the window's edges and a few for the jitter of delivery.
	const window = 500 * time.Millisecond
	limit := int(perSecond*window.Seconds()) + 1 + 3
	for i, a := range f.arrivals {
		n := 0
		for _, b := range f.arrivals[i:] {
			if b.Sub(a) < window {
				n++
			}
		}
		if n > limit {
			t.Fatalf("%d requests arrived within %v from request %d; the rate allows %d", n, window, i+1, limit)
		}
	}
	if f.max < 2 {
		t.Errorf("at most %d request in flight: the test shows nothing of concurrency", f.max)
	}
	t.Logf("%d requests, at most %d in flight", len(f.arrivals), f.max)
}

// tooManyEvery answers 429 (Retry-After 1 s is too long for a test: no
// header, so the client backs off 250 ms) to the first attempt of every
// nth request, and passes the rest on.
func tooManyEvery(n int) (func(http.Handler) http.Handler, *int) {
	var mu sync.Mutex
	count, refused := 0, 0
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			count++
			refuse := count%n == 0
			if refuse {
				refused++
			}
			mu.Unlock()
			if refuse {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"error":"Too Many Requests"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	}, &refused
}

// TestParallelWaitsOut429s: answers 429 to requests in flight together
// are waited out one request at a time, as in turn: the verdicts and the
// requests counted are those of a server that never refuses.
func TestParallelWaitsOut429s(t *testing.T) {
	plain := outcomes(runProps(t, nil, NoServerError, ValidAnswer, NoTokenNoData))
	wrap, refused := tooManyEvery(7)
	limited := outcomes(runProps(t, wrap, NoServerError, ValidAnswer, NoTokenNoData))
	if !slices.Equal(plain, limited) {
		t.Errorf("with 429s:\n%s\nwithout:\n%s", strings.Join(limited, "\n"), strings.Join(plain, "\n"))
	}
	if *refused == 0 {
		t.Error("the server refused nothing")
	}
	t.Logf("%d answers 429 waited out", *refused)
}

func runProps(t *testing.T, wrap func(http.Handler) http.Handler, props ...string) []*Report {
	t.Helper()
	s := serve(t, spec.Core, wrap)
	e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Writes: true, Parallel: 8})
	if err != nil {
		t.Fatal(err)
	}
	var out []*Report
	for _, p := range props {
		r, err := e.Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestParallelBelowOneIsRefused(t *testing.T) {
	s := serve(t, spec.Core, nil)
	if _, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Parallel: -1}); err == nil {
		t.Error("Parallel -1 was accepted")
	}
}
