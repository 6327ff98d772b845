package worlds

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/fixtures"
)

// The drawn shapes are legal, the same for the same seed, and among the
// first fifty of seed 1 every feature a check might take for granted turns
// up at least once.
func TestShapesAreLegalRepeatableAndVaried(t *testing.T) {
	a, b := Shapes(1, 200), Shapes(1, 50)
	if !reflect.DeepEqual(a[:50], b) {
		t.Fatal("the first 50 shapes of seed 1 depend on how many are drawn")
	}
	if reflect.DeepEqual(Shapes(2, 5), b[:5]) {
		t.Fatal("seeds 1 and 2 draw the same shapes")
	}
	for i, s := range a {
		if err := s.Validate(); err != nil {
			t.Fatalf("shape %d %s: %v", i, s, err)
		}
		again, err := fixtures.ParseShape(s.String())
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("shape %d %s does not round-trip: %v", i, s, err)
		}
	}
	seen := map[string]int{}
	for _, s := range b {
		for name, ok := range features(s) {
			if ok {
				seen[name]++
			}
		}
	}
	for name := range features(fixtures.Default()) {
		if seen[name] == 0 {
			t.Errorf("no shape among the first 50 of seed 1 has: %s", name)
		}
	}
	t.Logf("features among 50 shapes: %v", seen)
}

// features says which features a shape has, by name.
func features(s fixtures.Shape) map[string]bool {
	f := map[string]bool{
		"two users": s.Users == 2, "six users": s.Users == 6, "no organisation": len(s.Orgs) == 0,
		"no repository": len(s.Repos) == 0, "no one-to-one room": len(s.OneToOnes) == 0, "no channel": len(s.Channels) == 0,
		"no private repository": true, "no grant": s.Granted == 0, "hints=off": s.NoHints,
		"no room to hide": true,
	}
	shared := map[int]bool{}
	ones := 0
	for _, k := range kinds(&s) {
		for _, p := range *k {
			switch {
			case !p.HasRoom():
				f["a place without a room"] = true
			case p.Messages == 0:
				f["an empty room"] = true
			case p.Messages >= 5010:
				f["a history skip=5000 lands in"] = true
			case p.Messages >= 100:
				f["a room of over 100 messages"] = true
			}
			f["tied timestamps"] = f["tied timestamps"] || p.Ties && p.Messages > 2
			f["history unread for user 1"] = f["history unread for user 1"] || p.Unread && p.Messages > 0 && p.Members.Has(0) && p.Members.Len() > 1
			f["a room at a page's edge"] = f["a room at a page's edge"] || p.Messages == 100 || p.Messages == 2000 || p.Messages == 5010
			f["a flagged write room"] = f["a flagged write room"] || p.Write
			if p.Private {
				f["no private repository"] = false
				f["a private repository of a user who granted access"] = f["a private repository of a user who granted access"] || p.Members&s.Granted != 0
			}
			if p.Hide {
				f["no room to hide"] = false
			}
			if p.HasRoom() && p.Members.Len() > 1 {
				for _, u := range p.Members.Indexes() {
					shared[u] = true
				}
			}
		}
	}
	for _, p := range s.OneToOnes {
		if p.Members.Has(0) {
			ones++
		}
	}
	for u := 2; u < s.Users; u++ {
		f["a user who shares no room"] = f["a user who shares no room"] || !shared[u]
	}
	for _, p := range s.OneToOnes {
		if ones == 1 && p.Members.Has(0) && p.Hide {
			f["user 1's only one-to-one room is the one to hide"] = true
		}
	}
	f["user 1 with exactly one one-to-one room"] = ones == 1
	return f
}

// Every step Smaller offers is legal and lighter, and removing a user
// moves the later users down.
func TestSmallerStepsAreLegalAndLighter(t *testing.T) {
	for _, s := range append(Shapes(3, 40), fixtures.Default()) {
		for _, c := range Smaller(s) {
			if err := c.Validate(); err != nil || Weight(c) >= Weight(s) {
				t.Fatalf("%s -> %s: %v, weight %d -> %d", s, c, err, Weight(s), Weight(c))
			}
		}
	}
	s, _ := fixtures.ParseShape("users=4,granted=24,repo=12:1,repo=34:2,one=13:0,one=14:0,chan=3:1")
	if got := withoutUser(s, 2).String(); got != "users=3,granted=23,repo=12:1,repo=3:2,one=13:0" {
		t.Errorf("without user 3: %s", got)
	}
}

// buildChatconform builds a plain chatconform binary (no race detector:
// the children are not what a race run is for, and would be slower).
func buildChatconform(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "chatconform")
	build := exec.Command("go", "build", "-o", bin, "../../../cmd/chatconform")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The core profile passes the reference in fifty shapes of seed 1 and in
// the edge shapes. A failing shape is reported with the commands that reproduce it, reduced
// a few steps. CHATCONFORM_WORLDS_SEED, _N and _REDUCE change the seed,
// the number of shapes and the reducing runs per failure;
// CHATCONFORM_WORLDS_SUMMARY names a file for the summary, and
// CHATCONFORM_WORLDS_BINARY a chatconform to use instead of building one.
func TestCoreProfilePassesTheReferenceInManyShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs chatconform once per shape")
	}
	seed, n, reduce := envInt(t, "SEED", 1), envInt(t, "N", 50), envInt(t, "REDUCE", 6)
	bin := os.Getenv("CHATCONFORM_WORLDS_BINARY")
	if bin == "" {
		bin = buildChatconform(t)
	}
	if raceEnabled {
		// The reference servers run in this process, where the race
		// detector would slow them down several times: the test runs in a
		// plain build of this package instead, as the self-test runs its
		// children.
		inPlainBuild(t, bin)
		return
	}
	start := time.Now()
	var progress bytes.Buffer
	results, err := Run(t.Context(), Options{Binary: bin, Seed: uint64(seed), N: n, Edges: true, Parallel: runtime.NumCPU(), Reduce: reduce, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	bad := WriteSummary(&sum, results)
	if f := os.Getenv("CHATCONFORM_WORLDS_SUMMARY"); f != "" {
		if err := os.WriteFile(f, sum.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%d shapes at seed %d in %v", len(results), seed, time.Since(start).Round(time.Millisecond))
	if bad > 0 {
		t.Logf("progress:\n%s", progress.String())
		t.Errorf("%d of %d shapes fail:\n%s", bad, len(results), sum.String())
	}
	if len(results) != n+len(Edges()) {
		t.Errorf("%d results for %d shapes and %d edges", len(results), n, len(Edges()))
	}
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv("CHATCONFORM_WORLDS_" + name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		t.Fatalf("CHATCONFORM_WORLDS_%s=%q: want a number, 0 or more", name, v)
	}
	return n
}

// A report's failing, blocked and skipped checks are read once each, with
// every requirement they were listed under and the line that says why; the
// summary names each reduction with the commands that reproduce it.
func TestReportAndSummary(t *testing.T) {
	report := `{"requirements":[
	 {"id":"A","verdict":"FAIL","checks":[{"name":"c1","outcome":"FAIL","message":"FAIL: \n  the room x is missing\nExpected\n..."}]},
	 {"id":"B","verdict":"BLOCKED","checks":[{"name":"c1","outcome":"BLOCKED","blockedBy":"A","message":"the room x is missing"},
	                                       {"name":"c2","outcome":"BLOCKED","blockedBy":"Z","message":"getUnreadItems answered 404, want [200]\nrequest: ..."}]},
	 {"id":"C","verdict":"SKIP","checks":[{"name":"c3","outcome":"SKIP","message":"user 1 has no channel"}]},
	 {"id":"D","verdict":"PASS","checks":[{"name":"c4","outcome":"PASS"}]}]}`
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	shape, _ := fixtures.ParseShape("users=3,repo=12:0")
	res := Result{Seed: 4, Shape: shape, Code: 1}
	if err := readReport(path, &res); err != nil {
		t.Fatal(err)
	}
	want := []Finding{
		{Check: "c1", Outcome: "FAIL", Reqs: []string{"A"}, Cause: "the room x is missing"},
		{Check: "c2", Outcome: "BLOCKED", Reqs: []string{"B"}, BlockedBy: "Z", Cause: "getUnreadItems answered 404, want [200]"},
	}
	if !reflect.DeepEqual(res.Failed, want) || len(res.Skipped) != 1 || res.Skipped[0].Cause != "user 1 has no channel" {
		t.Fatalf("failed %+v\nskipped %+v", res.Failed, res.Skipped)
	}
	if got := strings.Join(res.FailedReqs(), " "); got != "A B" {
		t.Errorf("failed requirements %q", got)
	}
	check, cause := causeOf(res, "B")
	if check != "c2" || cause != "blocked by Z: getUnreadItems answered 404, want [200]" {
		t.Errorf("cause of B: %q %q", check, cause)
	}
	res.Reductions = []Reduction{{Req: "A", Verdict: "FAIL", Shape: shape, Check: "c1", Cause: "the room x is missing", Runs: 3}}
	var b bytes.Buffer
	if bad := WriteSummary(&b, []Result{res}); bad != 1 {
		t.Errorf("%d bad", bad)
	}
	for _, s := range []string{"0 of 1 shapes pass (seed 4)", "A FAIL in 1 shape(s); smallest found (3 reducing runs): users=3,repo=12:0",
		"go run ./cmd/chatref --seed 4 --shape 'users=3,repo=12:0' --addr 127.0.0.1:0 --target-out t.yaml &\n    go run ./cmd/chatconform --target t.yaml --profile core --seed 4",
		"C: 1, user 1 has no channel", "B(blocked)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("summary lacks %q:\n%s", s, b.String())
		}
	}
}

// inPlainBuild runs the calling test in a test binary of this package built
// without the race detector, with chatconform bin, and fails with its
// output when it fails.
func inPlainBuild(t *testing.T, bin string) {
	t.Helper()
	test := filepath.Join(t.TempDir(), "worlds.test")
	build := exec.Command("go", "test", "-c", "-o", test, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(t.Context(), test, "-test.run", "^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), "CHATCONFORM_WORLDS_BINARY="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a build without the race detector: %v\n%s", t.Name(), err, out)
	}
	t.Logf("in a build without the race detector:\n%s", out)
}

// Run and the reduction with a stand-in for chatconform that fails one
// requirement whatever the world: each shape is served and judged, and
// the smallest failing shape is reduced until no smaller step is left.
// Fast, so that the race detector sees the runner's own concurrency.
func TestRunReducesAFailureToAMinimalShape(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	fake := filepath.Join(t.TempDir(), "chatconform")
	script := `#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in --json) out="$2"; shift;; --target) test -s "$2" || exit 2; shift;; esac
  shift
done
printf '%s' '{"requirements":[{"id":"X-REQ","verdict":"FAIL","checks":[{"name":"c","outcome":"FAIL","message":"always"}]},{"id":"Y-REQ","verdict":"PASS"}]}' > "$out"
exit 1
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	results, err := Run(t.Context(), Options{Binary: fake, Seed: 2, N: 3, Parallel: 2, Reduce: 200, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	var reds []Reduction
	for i, r := range results {
		if r.Index != i || r.Code != 1 || r.Err != "" || r.Passed() || strings.Join(r.FailedReqs(), ",") != "X-REQ" {
			t.Fatalf("result %d: %+v", i, r)
		}
		reds = append(reds, r.Reductions...)
	}
	if len(reds) != 1 {
		t.Fatalf("%d reductions, want 1 (one failing requirement)", len(reds))
	}
	red := reds[0]
	if left := Smaller(red.Shape); len(left) != 0 || red.Check != "c" || red.Cause != "always" || red.Verdict != "FAIL" || red.Runs == 0 {
		t.Errorf("reduced to %s (%+v), still %d smaller steps:\n%s", red.Shape, red, len(left), progress.String())
	}
	if red.Shape.Users != 2 {
		t.Errorf("reduced to %s, which has more than two users", red.Shape)
	}
	t.Logf("reduced %s to %s in %d runs", results[0].Shape, red.Shape, red.Runs)
}
