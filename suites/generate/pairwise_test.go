package generate

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
)

// The coverage cases of GEN-NO-5XX and GEN-VALID-ANSWER cover every pair
// of values of each operation's query parameters and body fields, the same
// set for the same seed, and the report says so per operation.
func TestCoverageCasesCoverEveryPair(t *testing.T) {
	s := serve(t, spec.Core, nil)
	e := s.engine(t, spec.Core, testSeed, true)
	e.cfg.Examples = 0
	r, err := e.Run(context.Background(), NoServerError)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	byOp := map[string]PairCoverage{}
	for _, res := range r.Results {
		byOp[res.Operation] = res.Pairs
	}
	for op, params := range map[string][]string{
		"listMessages": {"query skip", "query beforeId", "query afterId", "query aroundId", "query limit", "query q"},
		"sendMessage":  {"body text kind", "body status"},
	} {
		pc := byOp[op]
		for _, p := range params {
			if !slices.Contains(pc.Params, p) {
				t.Errorf("%s: %s is not among the parameters paired: %v", op, p, pc.Params)
			}
		}
		if pc.Possible == 0 || pc.Covered != pc.Possible || pc.Valid != pc.ValidPossible || pc.ValidPossible == 0 {
			t.Errorf("%s: %s", op, pc)
		}
	}
	if sum := r.PairCoverage(); sum.Possible == 0 || len(r.PairLines()) == 0 {
		t.Errorf("report: %s, %v", sum, r.PairLines())
	}
	t.Logf("%d requests:\n%s", r.Requests, strings.Join(r.PairLines(), "\n"))

	// The same seed makes the same set.
	list := func(seed uint64) []string {
		e := s.engine(t, spec.Core, seed, true)
		var out []string
		for _, cs := range e.coverageOf(properties[0], e.ops["listMessages"], modeAny) {
			out = append(out, cs.describe())
		}
		return out
	}
	a, b := list(7), list(7)
	if !slices.Equal(a, b) {
		t.Errorf("seed 7 made two sets")
	}
	if slices.Equal(a, list(8)) {
		t.Logf("seeds 7 and 8 made the same set")
	}
	// A valid pair on the caller's own data is held to a 2xx: aroundId
	// (a message of the room) with limit=1 carries no refusal.
	found := false
	for _, cs := range e.coverageOf(properties[1], e.ops["listMessages"], modeAny) {
		if cs.query.Get("aroundId") != "" && cs.query.Get("limit") == "1" && cs.valid() && len(cs.refusals()) == 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("no request with aroundId and limit=1 that the document lets no server refuse")
	}
}

// The greedy covering set covers every pair whatever was covered before,
// and covers nothing twice that it need not.
func TestAllPairsCoversEveryPair(t *testing.T) {
	params := []decision{{"query a", 7}, {"query b", 4}, {"query c", 4}, {"query d", 5}, {"body e", 3}}
	covered := map[string]bool{}
	rows := allPairs(params, covered, 1, "op")
	for _, r := range rows {
		pairsOf(params, r, covered)
	}
	if len(covered) != possiblePairs(params) {
		t.Fatalf("covered %d of %d pairs", len(covered), possiblePairs(params))
	}
	if len(rows) > 7*5+10 {
		t.Errorf("%d rows for a 7x5 largest pair", len(rows))
	}
}

// refuseAroundIDLimitOne refuses a list around a message with limit=1.
var refuseAroundIDLimitOne = func(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if q := r.URL.Query(); q.Get("aroundId") != "" && q.Get("limit") == "1" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"Bad Request"}`))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// A core server that refuses two valid values together on the caller's own
// data (aroundId naming a message of the room, limit=1) breaks
// GEN-VALID-ANSWER, though each value alone is answered.
func TestAValidPairRefusedFailsTheValidAnswer(t *testing.T) {
	s := serve(t, spec.Core, refuseAroundIDLimitOne)
	e := s.engine(t, spec.Core, testSeed, true)
	e.cfg.Examples = 0
	r, err := e.Run(context.Background(), ValidAnswer, "listMessages")
	if err != nil {
		t.Fatal(err)
	}
	fs := r.Failures()
	if len(fs) == 0 || !strings.Contains(fs[0].Request, "aroundId=") || !strings.Contains(fs[0].Request, "limit=1") || strings.Contains(fs[0].Request, "may be refused") {
		t.Fatalf("not caught: %v", fs)
	}
	t.Logf("%s", fs[0])
}
