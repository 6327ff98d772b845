package selftest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
)

// Every fault breaks a checkable core requirement of the catalogue and
// says how; names are unique; every checkable core requirement has faults.
func TestCatalogueNamesCheckableCoreRequirements(t *testing.T) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]bool{}
	for _, c := range Classes() {
		classes[c] = true
	}
	names, perReq := map[string]bool{}, map[string]int{}
	for _, f := range Faults() {
		req, ok := cat.Lookup(f.Req)
		switch {
		case !ok:
			t.Errorf("fault %s names no requirement of the catalogue", f.Name)
		case req.Level != spec.Core || !req.IsCheckable():
			t.Errorf("fault %s breaks %s, which is not a checkable core requirement", f.Name, f.Req)
		}
		if !classes[f.Class] {
			t.Errorf("fault %s has no known class", f.Name)
		}
		if f.What == "" {
			t.Errorf("fault %s does not say what the server does", f.Name)
		}
		if !strings.HasPrefix(f.Name, f.Req+"/"+f.Class) {
			t.Errorf("fault %s is not named REQUIREMENT-ID/class", f.Name)
		}
		if names[f.Name] {
			t.Errorf("fault %s twice", f.Name)
		}
		names[f.Name] = true
		perReq[f.Req]++
	}
	for _, r := range cat.Requirements {
		if r.Level == spec.Core && r.IsCheckable() && perReq[r.ID] == 0 {
			t.Errorf("core requirement %s has no fault to prove its checks", r.ID)
		}
	}
	for _, v := range Variants() {
		if names[v.Name] || v.What == "" {
			t.Errorf("variant %q: name taken or no description", v.Name)
		}
		names[v.Name] = true
	}
}

func TestOnlyThatSelectsNothingIsAnError(t *testing.T) {
	_, err := Run(context.Background(), Options{Binary: "/nonexistent", Only: "no such fault or variant"})
	if err == nil || !strings.Contains(err.Error(), "no fault or variant") {
		t.Fatalf("Run with an empty selection: %v", err)
	}
}

// buildChatconform builds a plain chatconform binary (no race detector,
// also under go test -race: the self-test's own servers and children are
// not what a race run is for, and they would run several times slower).
func buildChatconform(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "chatconform")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/chatconform")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The driver in this process (so under -race when the tests are): a fault
// whose checks are known to catch it is caught on its own requirement with
// a FAIL verdict there, and a conforming variant passes.
func TestRunJudgesAFaultAndAVariant(t *testing.T) {
	if testing.Short() {
		t.Skip("starts chatconform runs")
	}
	bin := buildChatconform(t)
	for _, tc := range []struct {
		only, kind, verdict string
	}{
		{"HTTP-JSON-CONTENT-TYPE/shape#2", "fault", "CAUGHT"},
		{"content-type-spelling", "variant", "PASSED"},
	} {
		m, err := Run(t.Context(), Options{Binary: bin, Seed: 1, Only: tc.only, Env: []string{"CHATCONFORM_MAIN=1"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Results) != 1 {
			t.Fatalf("--only %s selected %d runs", tc.only, len(m.Results))
		}
		r := m.Results[0]
		if r.Kind != tc.kind || r.verdict() != tc.verdict {
			t.Errorf("%s %s: %s (exit %d, %s), want %s", r.Kind, r.Name, r.verdict(), r.Code, r.Err, tc.verdict)
		}
		if tc.kind == "fault" && r.Verdicts[r.Req] != "FAIL" {
			t.Errorf("fault %s: verdict on %s is %q, want FAIL", r.Name, r.Req, r.Verdicts[r.Req])
		}
	}
}

// The self-test itself, as CI runs it: chatconform selftest (every fault
// against the checks of its requirement, every variant against the whole
// core profile) in a child built without the race detector. It fails on
// every problem the matrix lists: a variant that does not pass, a survivor
// with no written reason, a fault caught only by checks of other
// requirements, a run that could not be judged.
func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("the self-test runs chatconform once per fault and variant")
	}
	bin := buildChatconform(t)
	matrix := os.Getenv("CHATCONFORM_SELFTEST_MATRIX")
	if matrix == "" {
		matrix = filepath.Join(t.TempDir(), "matrix.txt")
	}
	// The world shapes have their own test (suites/selftest/worlds).
	cmd := exec.CommandContext(t.Context(), bin, "selftest", "--seed", "1", "--matrix", matrix, "--worlds", "0")
	cmd.Env = append(os.Environ(), "CHATCONFORM_MAIN=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("chatconform selftest: %v\n%s", err, out)
	}
	raw, rerr := os.ReadFile(matrix)
	if rerr != nil {
		t.Fatalf("chatconform selftest wrote no matrix: %v\n%s", rerr, out)
	}
	t.Logf("kill matrix:\n%s", raw)
	problems := problemLines(string(raw))
	for _, p := range problems {
		t.Error(p)
	}
	if (err == nil) != (len(problems) == 0) {
		t.Errorf("chatconform selftest exit status (%v) disagrees with the %d problem(s) its matrix lists", err, len(problems))
	}
}

// problemLines returns the problems a written matrix lists at its end.
func problemLines(matrix string) []string {
	_, tail, ok := strings.Cut(matrix, " problem(s)\n")
	if !ok {
		return []string{"the matrix has no problem list"}
	}
	var out []string
	for _, l := range strings.Split(tail, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Issue 10's repeated-run property on a server we did not shape around the
// checks: three core runs with different seeds against one long-lived
// server whose hidden rooms never come back each pass and give the same
// verdict on every requirement.
func TestRepeatedCoreRunsAgreeOnAServerWhoseHiddenRoomsStayHidden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the core profile three times")
	}
	bin := buildChatconform(t)
	dir := t.TempDir()
	desc := filepath.Join(dir, "target.json")
	stop, err := Serve("hidden-rooms-stay-hidden", 1, desc)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var first map[string]string
	for i, seed := range []string{"11", "22", "33"} {
		report := filepath.Join(dir, "run"+seed+".json")
		cmd := exec.CommandContext(t.Context(), bin, "--target", desc, "--profile", "core", "--seed", seed, "--json", report, "--eventually", "3s")
		cmd.Env = childEnv([]string{"CHATCONFORM_MAIN=1"})
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d (seed %s): %v\n%s", i+1, seed, err, out)
		}
		_, verdicts, halted, err := readReport(report)
		if err != nil || halted != "" || len(verdicts) == 0 {
			t.Fatalf("run %d (seed %s): report: %v %s", i+1, seed, err, halted)
		}
		if first == nil {
			first = verdicts
			continue
		}
		for id, v := range first {
			if verdicts[id] != v {
				t.Errorf("run %d (seed %s): %s is %s, the first run said %s", i+1, seed, id, verdicts[id], v)
			}
		}
	}
}
