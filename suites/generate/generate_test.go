package generate

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
)

// testSeed is the seed of the engine in the tests: a fixed one, so that the
// findings and the faults below are found the same way each run.
const testSeed = 20260101

// finding is a failure the engine reports on the unmodified reference
// server: a real difference between the server and the reference profile.
type finding struct {
	property, operation string
	request, problem    string // substrings of the failure's request and problem
}

// referenceFindings are the defects the engine finds in the reference
// server, judged by the reference profile. Each stays here until the server
// is fixed: then its test fails, and the entry is to be deleted. None is
// left: the engine's first run found five (a blank text refused although
// the profile allowed it, a null status accepted, "Text" and "Chat" taken
// for "text" and "chat", an empty skip or limit read as none), all fixed in
// the server or the profile since.
var referenceFindings = []finding{}

// maxDefaultRequests bounds what a default run (writes on) may send; the
// tests below log what it does send, and how long it takes.
const maxDefaultRequests = 1500

// runAll runs every property of the profile with the default budget and
// returns the failures, failing the test on any result that could not be
// judged and on a budget overrun.
func runAll(t *testing.T, e *Engine) []Failure {
	t.Helper()
	var out []Failure
	start := time.Now()
	for _, r := range e.RunAll(context.Background()) {
		if err := r.Err(); err != nil {
			t.Errorf("%v", err)
		}
		t.Logf("%s %-22s %4d requests %v", e.cfg.Profile, r.Property, r.Requests, r.Duration.Round(time.Millisecond))
		out = append(out, r.Failures()...)
	}
	t.Logf("%s: %d requests in %v", e.cfg.Profile, e.Requests(), time.Since(start).Round(time.Millisecond))
	if e.Requests() > maxDefaultRequests {
		t.Errorf("a default run sent %d requests, more than the %d it is meant to stay under", e.Requests(), maxDefaultRequests)
	}
	return out
}

func TestEveryPropertyHoldsOnTheReferenceServerInCore(t *testing.T) {
	s := serve(t, spec.Core, nil)
	for _, f := range runAll(t, s.engine(t, spec.Core, testSeed, true)) {
		t.Errorf("unexpected failure:\n%s", f)
	}
}

func TestEveryPropertyHoldsOnTheReferenceServerInReferenceButTheKnownFindings(t *testing.T) {
	s := serve(t, spec.Reference, nil)
	failures := runAll(t, s.engine(t, spec.Reference, testSeed, true))
	matched := make([]bool, len(referenceFindings))
	for _, f := range failures {
		i := slices.IndexFunc(referenceFindings, func(k finding) bool {
			return k.property == f.Property && k.operation == f.Operation && strings.Contains(f.Request, k.request) && strings.Contains(f.Problem, k.problem)
		})
		if i < 0 {
			t.Errorf("unexpected failure:\n%s", f)
			continue
		}
		matched[i] = true
		t.Logf("known finding:\n%s", f)
	}
	for i, ok := range matched {
		if !ok {
			k := referenceFindings[i]
			t.Errorf("%s on %s no longer fails with %s: if the server was fixed, delete the entry from referenceFindings", k.property, k.operation, k.request)
		}
	}
}

// TestAFieldNamedInAnotherCaseIsRefused pins the fix of an early finding:
// encoding/json matched "Text" to the text field, and the last of the two
// won, so the stored text was not the one "text" gave.
func TestAFieldNamedInAnotherCaseIsRefused(t *testing.T) {
	s := serve(t, spec.Reference, nil)
	e := s.engine(t, spec.Reference, testSeed, true)
	ctx := context.Background()
	me := s.world.caller()
	resp, err := e.send(ctx, testRequest("POST", "/v1/rooms/"+s.world.WriteRoom+"/chatMessages", me.Token, `{"text":"a","Text":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Text string }
	if err := resp.JSON(&m); err != nil {
		t.Fatal(err)
	}
	if resp.Status != 400 {
		t.Fatalf("answered %d with text %q; a field named in another letter case must be refused with 400", resp.Status, m.Text)
	}
}

// fault is a planted fault and what must catch it.
type fault struct {
	name      string
	wrap      func(http.Handler) http.Handler
	property  string
	operation string // "" for any
	request   string // a substring of the failing request's description
}

var faults = []fault{
	{"a 500 on limit=0", failOnLimitZero, NoServerError, "listMessages", "limit=0"},
	{"a 500 on an unknown query parameter", failOnUnknownQuery, NoServerError, "", "not documented"},
	{"a 500 on a text of 4,000 multi-byte characters", failOnLongMultibyte, NoServerError, "sendMessage", "characters"},
	{"a 500 on a body with an extra field", failOnExtraField, NoServerError, "sendMessage", "is not in the schema"},
	{"a refused PUT that still edits", refusedEditStillEdits, RefusedNoChange, "updateMessage", "PUT /v1/rooms/{write room}/chatMessages/{own message}"},
	{"a token accepted in any letter case", tokenAnyCase, NoTokenNoData, "", "case"},
	{"a 500 on aroundId with limit=1", failOnAroundIDLimitOne, NoServerError, "listMessages", "limit=1"},
	{"a 500 on aroundId with limit=1, judged as a valid request", failOnAroundIDLimitOne, ValidAnswer, "listMessages", "limit=1"},
}

func TestPlantedFaultsAreCaughtByTheRightProperty(t *testing.T) {
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			s := serve(t, spec.Reference, f.wrap)
			e := s.engine(t, spec.Reference, testSeed, true)
			r, err := e.Run(context.Background(), f.property)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			var caught *Failure
			for _, fl := range r.Failures() {
				if (f.operation == "" || fl.Operation == f.operation) && strings.Contains(fl.Request, f.request) {
					caught = &fl
					break
				}
			}
			if caught == nil {
				t.Fatalf("%s did not catch it; failures: %v", f.property, r.Failures())
			}
			t.Logf("caught:\n%s", caught)
			if caught.Reproduce == "" || !strings.HasPrefix(caught.Reproduce, "curl ") {
				t.Errorf("no reproduce command: %q", caught.Reproduce)
			}
		})
	}
}

// TestRandomSearchShrinksAndReplays turns the coverage cases off, so that
// only rapid's search can find the fault: the failing request it reports
// is the smallest (limit=0 and nothing else), and the same seed finds the
// same one again.
func TestRandomSearchShrinksAndReplays(t *testing.T) {
	run := func() *Failure {
		s := serve(t, spec.Core, failOnLimitZero)
		e, err := New(Config{Client: s.client, Profile: spec.Core, World: s.world, Seed: testSeed, Examples: 60, NoCoverage: true, ShrinkTime: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Run(context.Background(), NoServerError, "listMessages")
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		fs := r.Failures()
		if len(fs) != 1 {
			t.Fatalf("want one failure, got %v", fs)
		}
		t.Logf("%d examples, %d requests with shrinking, %v", r.Results[0].Examples, r.Requests, r.Duration)
		return &fs[0]
	}
	first, second := run(), run()
	if !first.Shrunk || first.Coverage {
		t.Errorf("the failure should come from the random search: %+v", first)
	}
	// Only the departure that matters is left: the room is any of the
	// caller's, the query holds limit=0 alone, the token is plain.
	// (limit=0 is noted as one a server may refuse: a note, not a departure.)
	if !regexp.MustCompile(`^GET /v1/rooms/\{[a-z ]+\}/chatMessages\?limit=0( \(may be refused: limit is 0[^)]*\)\))?$`).MatchString(first.Request) {
		t.Errorf("shrunk to %q, want GET /v1/rooms/{a room}/chatMessages?limit=0", first.Request)
	}
	if first.Request != second.Request || first.Problem != second.Problem {
		t.Errorf("the same seed found %q, then %q", first.Request, second.Request)
	}
	t.Logf("shrunk and replayed:\n%s", first)
}

// TestTokensNeverShow: failures name tokens by role and reproduce commands
// by variable; neither a real token nor one derived from it appears.
func TestTokensNeverShow(t *testing.T) {
	s := serve(t, spec.Core, tokenAnyCase)
	e := s.engine(t, spec.Core, testSeed, true)
	r, err := e.Run(context.Background(), NoTokenNoData)
	if err != nil {
		t.Fatal(err)
	}
	fs := r.Failures()
	if len(fs) == 0 {
		t.Fatal("the fault was not caught")
	}
	var tokens []string
	for _, u := range s.world.Users {
		tokens = append(tokens, u.Token)
	}
	tokens = append(tokens, DerivedTokens(tokens)...)
	for _, f := range fs {
		text := f.String() + f.Exchange.URL + f.Exchange.RequestBody + f.Exchange.ResponseBody
		for k, vs := range f.Exchange.RequestHeader {
			text += k + strings.Join(vs, "")
		}
		for _, tok := range tokens {
			if strings.Contains(text, tok) {
				t.Errorf("a token shows in the failure:\n%s", f)
			}
		}
	}
}

// TestWithoutWritesOnlySafeMethodsAreSent runs every property with writes
// off and watches the methods the server receives.
func TestWithoutWritesOnlySafeMethodsAreSent(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	watch := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.Method] = true
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	s := serve(t, spec.Reference, watch)
	mu.Lock()
	clear(seen) // what discovering the world sent
	mu.Unlock()
	e := s.engine(t, spec.Reference, testSeed, false)
	for _, r := range e.RunAll(context.Background()) {
		for _, res := range r.Results {
			if res.Err != nil {
				t.Errorf("%s on %s: %v", r.Property, res.Operation, res.Err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for m := range seen {
		if m != http.MethodGet && m != http.MethodHead && m != http.MethodOptions {
			t.Errorf("%s was sent with writes off", m)
		}
	}
	if !seen[http.MethodGet] {
		t.Error("nothing was sent")
	}
}

// TestADeadlineStopsTheRunAtOnce: a context that ends mid-run ends the run
// within moments, with the context's error and no failure.
func TestADeadlineStopsTheRunAtOnce(t *testing.T) {
	slow := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(20 * time.Millisecond):
			case <-r.Context().Done():
			}
			next.ServeHTTP(w, r)
		})
	}
	s := serve(t, spec.Core, slow)
	e := s.engine(t, spec.Core, testSeed, true)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	reports := e.RunAll(ctx)
	took := time.Since(start)
	if took > 2*time.Second {
		t.Errorf("the run took %v after a deadline of 300ms", took)
	}
	stopped := false
	for _, r := range reports {
		if len(r.Failures()) > 0 {
			t.Errorf("a failure from a run cut short: %v", r.Failures())
		}
		if err := r.Err(); err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("unexpected error: %v", err)
			}
			stopped = true
		}
	}
	if !stopped {
		t.Error("no result says the run was cut short")
	}
}

// A send whose success is not JSON leaves the round trip nothing to read:
// each such case names HTTP-JSON-BODY as what made it unusable, and none
// fails GEN-ROUND-TRIP for a text it could not read (the document checker
// owns the breach).
func TestARoundTripThatCannotReadTheAnswerNamesWhy(t *testing.T) {
	s := serve(t, spec.Core, notJSONAfterSend)
	e := s.engine(t, spec.Core, testSeed, true)
	r, err := e.Run(context.Background(), RoundTrip)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	unusable := 0
	for _, f := range r.Failures() {
		switch {
		case f.Operation == "sendMessage" && f.Unusable != "HTTP-JSON-BODY":
			t.Errorf("a send whose answer is not JSON fails the round trip itself: %s", f)
		case f.Unusable != "":
			unusable++
		}
	}
	if unusable == 0 {
		t.Errorf("no send was found unusable; failures: %v", r.Failures())
	}
}
