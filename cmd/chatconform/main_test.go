package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/reference/localtls"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/runner"
	"github.com/chatrooms/conformance/suites/target"
)

// Ginkgo runs its specs once per process, so a full run happens in a child
// process: the test binary re-executed with CHATCONFORM_MAIN=1 runs main.
func TestMain(m *testing.M) {
	if os.Getenv("CHATCONFORM_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func chatconform(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return chatconformEnv(t, nil, args...)
}

// childEnv is this process's environment without any CHAT_* variable (an
// empty one is an error now), with extra added.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CHAT_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "CHATCONFORM_MAIN=1"), extra...)
}

// chatconformEnv runs chatconform in a child process with the variables in
// env (NAME=value) and no other CHAT_* variable, and returns its exit code
// and its standard output and error.
func chatconformEnv(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = childEnv(env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// noEnv is an environment without any variable.
func noEnv(string) (string, bool) { return "", false }

func TestDefaultRunChecksTheBundledReferenceAndPasses(t *testing.T) {
	dir := t.TempDir()
	junit, report := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.json")
	code, out := chatconform(t, "--seed", "42", "--junit", junit, "--json", report, "--html", filepath.Join(dir, "r.html"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{"profile reference, seed 42", "PASS         MSG-SEND-200", "chatconform: PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	var s runner.Result
	raw, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(raw, &s) != nil {
		t.Fatalf("json report: %v", err)
	}
	if s.Seed != 42 || s.Counts["PASS"] < 80 || s.Counts["FAIL"] != 0 || s.Requests == 0 {
		t.Errorf("summary %+v", s.Counts)
	}
	// Every check says how many requests it sent; with the preflight's,
	// they add up to the run's.
	sent := map[string]int{}
	for _, r := range s.Requirements {
		for _, c := range r.Checks {
			if c.Name != runner.HistoryCheck && c.Name != runner.DocumentCheck {
				sent[c.Name] = c.Requests
			}
		}
	}
	sum := 0
	for name, n := range sent {
		if n == 0 {
			t.Errorf("check %q: no requests in the JSON report", name)
		}
		sum += n
	}
	if sum == 0 || sum >= s.Requests {
		t.Errorf("the checks sent %d requests, the run %d in all (the preflight's included)", sum, s.Requests)
	}
	x, err := os.ReadFile(junit)
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err != nil || xml.Unmarshal(x, &suites) != nil || suites.Tests < 60 || suites.Failures != 0 {
		t.Errorf("junit: %v %+v", err, suites)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.yaml")
	_ = os.WriteFile(typo, []byte("base_url: https://127.0.0.1:1\nuser:\n  - token: tok-typo\n"), 0o644)
	down := filepath.Join(dir, "down.yaml")
	_ = os.WriteFile(down, []byte("base_url: https://127.0.0.1:1\nusers:\n  - token: tok-down\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--profile", "strict"}, 2, "unknown profile"},
		{[]string{"--target", filepath.Join(dir, "none.yaml")}, 2, "no such file"},
		{[]string{"--target", typo}, 2, "user: unknown key"},
		{[]string{"--base-url", "http://x", "--token", "tok-x"}, 2, `--base-url: "http://x": the API is served over HTTPS only`},
		{[]string{"--base-url", "https://x"}, 2, "no token: give --token"},
		{[]string{"--target", down}, 3, "could not be reached"},
		{[]string{"stray"}, 2, `unknown command "stray"`},
		{[]string{"--label-filter", "(("}, 2, "--label-filter"},
		{[]string{"--label-filter", "MSG-SEND-200 ||"}, 2, "--label-filter: Syntax Error"},
		{[]string{"--base-url", "", "--token", "t"}, 2, `invalid value "" for flag -base-url: empty`},
		{[]string{"--target", ""}, 2, `invalid value "" for flag -target: empty`},
		{[]string{"--token", "t", "--token", ""}, 2, `invalid value "" for flag -token: empty`},
		{[]string{"--hide-room", "r1"}, 2, "no base URL"}, // a target named in part is no bundled run
		{[]string{"--min-judged", "most"}, 2, "--min-judged"},
		{[]string{"--require", "NOPE-1"}, 2, "--require: NOPE-1 is not a requirement id"},
		{[]string{"--label-filter", "MSG-SEND-2000"}, 2, "select no check"},
		{[]string{"--focus", "["}, 2, "--focus"},
		{[]string{"--target", down, "--junit", filepath.Join(dir, "missing", "j.xml")}, 2, "cannot write in"},
		{[]string{"--target", down, "--json", dir}, 2, "is a directory"},
		{[]string{"--target", down, "--baseline", filepath.Join(dir, "none.yaml")}, 2, "--baseline"},
		{[]string{"--rate", "fast"}, 2, "requests per second"},
		{[]string{"diff", "one.json"}, 2, "two reports"},
		{[]string{"diff", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}, 2, "no such file"},
	} {
		var out, errw bytes.Buffer
		code := run(context.Background(), tc.args, noEnv, &out, &errw)
		if code != tc.code || !strings.Contains(errw.String()+out.String(), tc.says) {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", tc.args, code, tc.code, errw.String(), tc.says)
		}
		// Each message is said once, on standard error, in plain text.
		if n := strings.Count(out.String()+errw.String(), tc.says); n > 1 || strings.Contains(errw.String(), "\x1b") {
			t.Errorf("%v: %q said %d times (stdout %q, stderr %q)", tc.args, tc.says, n, out.String(), errw.String())
		}
	}
}

func TestListNamesEveryRequirementAndItsChecks(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--list"}, noEnv, &out, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"MSG-SEND-200", "check: POST /v1/rooms/{roomId}/chatMessages answers 200", "REF-LIMIT", "not checkable: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list lacks %q", want)
		}
	}
	out.Reset()
	run(context.Background(), []string{"--list", "--profile", "core"}, noEnv, &out, &out)
	if strings.Contains(out.String(), "\nREF-LIMIT ") {
		t.Error("--list --profile core shows reference requirements")
	}
}

// A core run against a long-lived server that earlier runs have already
// written to, hidden rooms in and marked read gives the same verdict on
// every requirement, whatever the seed (and so the order of the checks).
func TestRepeatedCoreRunsAgreeOnALongLivedServer(t *testing.T) {
	srv, err := bundled.Start(7, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	raw, err := srv.Target.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	desc := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(desc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	var first map[string]string
	for i, seed := range []string{"11", "22", "33"} {
		report, junit := filepath.Join(dir, "run"+seed+".json"), filepath.Join(dir, "run"+seed+".xml")
		code, out := chatconform(t, "--target", desc, "--profile", "core", "--seed", seed, "--json", report, "--junit", junit)
		if code != 0 {
			t.Fatalf("run %d (seed %s) exit %d\n%s", i+1, seed, code, out)
		}
		// A core run lists only core checks: the reference-only ones are
		// not part of it, not even as skipped.
		if x, err := os.ReadFile(junit); err != nil || strings.Contains(string(x), `classname="Reference decisions`) {
			t.Errorf("run %d: the JUnit report lists checks that are not part of a core run (%v)", i+1, err)
		}
		var res runner.Result
		raw, err := os.ReadFile(report)
		if err != nil || json.Unmarshal(raw, &res) != nil {
			t.Fatalf("run %d: json report: %v", i+1, err)
		}
		verdicts := map[string]string{}
		for _, r := range res.Requirements {
			verdicts[r.ID] = r.Verdict.String()
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

// chatconform diff: exit 1 when the newer report fails a requirement the
// older did not, 0 when it only fixes or changes others.
func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, verdicts string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`{"requirements":[`+verdicts+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("old.json", `{"id":"MSG-SEND-200","verdict":"PASS"},{"id":"USER-SHAPE","verdict":"FAIL"},{"id":"ROOM-LIST","verdict":"PASS"}`)
	regressed := write("new.json", `{"id":"MSG-SEND-200","verdict":"FAIL"},{"id":"USER-SHAPE","verdict":"PASS"},{"id":"ROOM-LIST","verdict":"ERROR"}`)
	fixed := write("fixed.json", `{"id":"MSG-SEND-200","verdict":"PASS"},{"id":"USER-SHAPE","verdict":"PASS"},{"id":"ROOM-LIST","verdict":"PASS"}`)
	var out bytes.Buffer
	if code := run(context.Background(), []string{"diff", old, regressed}, noEnv, &out, &out); code != 1 ||
		!strings.Contains(out.String(), "New failures (1):\n  MSG-SEND-200") || !strings.Contains(out.String(), "Fixed (1):\n  USER-SHAPE") || !strings.Contains(out.String(), "ROOM-LIST") {
		t.Errorf("regression: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"diff", old, fixed}, noEnv, &out, &out); code != 0 || !strings.Contains(out.String(), "no regression") {
		t.Errorf("fix only: exit %d\n%s", code, out.String())
	}
}

// A baseline entry whose requirement now passes fails the run until it is
// removed; a run with an empty baseline passes.
func TestBaselineEntryThatNowPassesFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "known.yaml")
	_ = os.WriteFile(stale, []byte("known:\n  USER-SHAPE: was broken in 1.2\n"), 0o644)
	code, out := chatconform(t, "--seed", "12", "--label-filter", "USER-SHAPE || MSG-SEND-200", "--baseline", stale)
	if code != 1 || !strings.Contains(out, "USER-SHAPE now passes: remove it from the baseline") {
		t.Errorf("stale entry: exit %d\n%s", code, out)
	}
	written := filepath.Join(dir, "written.yaml")
	code, out = chatconform(t, "--seed", "12", "--label-filter", "USER-SHAPE", "--write-baseline", written)
	raw, _ := os.ReadFile(written)
	if code != 0 || !strings.Contains(string(raw), "known: {}") {
		t.Errorf("write-baseline of a passing run: exit %d\n%s\n%s", code, out, raw)
	}
}

// Checks run beside each other judge the bundled server as checks run one
// at a time do: every requirement with the same verdict, and the checks
// did overlap (their durations add up to more than the checks' wall time).
func TestConcurrentChecksJudgeAsChecksInTurn(t *testing.T) {
	dir := t.TempDir()
	verdicts := func(name string, args ...string) (map[string]string, runner.Result) {
		report := filepath.Join(dir, name+".json")
		code, out := chatconform(t, append([]string{"--seed", "7", "--profile", "core", "--json", report}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, out)
		}
		var s runner.Result
		raw, err := os.ReadFile(report)
		if err != nil || json.Unmarshal(raw, &s) != nil {
			t.Fatalf("%s: json report: %v", name, err)
		}
		out2 := map[string]string{}
		for _, r := range s.Requirements {
			out2[r.ID] = r.Verdict.String()
		}
		return out2, s
	}
	inTurn, _ := verdicts("in-turn")
	beside, s := verdicts("beside", "--concurrent-checks", "8")
	for id, v := range inTurn {
		if beside[id] != v {
			t.Errorf("%s: %s in turn, %s with checks beside each other", id, v, beside[id])
		}
	}
	var sum time.Duration
	seen := map[string]bool{}
	for _, r := range s.Requirements {
		for _, c := range r.Checks {
			if !seen[c.Name] && c.Name != runner.HistoryCheck && c.Name != runner.DocumentCheck {
				seen[c.Name] = true
				sum += c.Duration
			}
		}
	}
	if sum <= s.ChecksDuration {
		t.Errorf("the checks took %s in all and %s of wall time: they did not run beside each other", sum, s.ChecksDuration)
	}
}

// A named target whose every answer takes 25ms gets 16 checks at once by
// itself (--concurrent-checks left at 0), unless --parallel 1 asks for
// nothing at once; one on loopback that answers at once, and the bundled
// server, one check at a time. The report and the
// record's trailer keep the choice, which a replay of the checks follows.
func TestChecksAtOnceFollowTheTargetsPace(t *testing.T) {
	world, err := fixtures.Generate(5)
	if err != nil {
		t.Fatal(err)
	}
	cert, caPEM, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		t.Fatal(err)
	}
	slow := http.Handler(reference.New(world, reference.Config{}))
	srv := reference.NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(25 * time.Millisecond)
		slow.ServeHTTP(w, r)
	}), localtls.Config(cert), nil)
	ls, err := localtls.Start(srv, localtls.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "target-ca.pem"), caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	d := target.FromWorld(world, ls.URL)
	d.CAFile = "target-ca.pem"
	slowDesc := writeTarget(t, dir, d)
	run := func(name string, args ...string) (runner.Result, string) {
		report := filepath.Join(dir, name+".json")
		code, out := chatconform(t, append([]string{"--seed", "5", "--profile", "core", "--focus", "GET /v1/user", "--json", report}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, out)
		}
		var s runner.Result
		if raw, err := os.ReadFile(report); err != nil || json.Unmarshal(raw, &s) != nil {
			t.Fatalf("%s: json report: %v", name, err)
		}
		return s, out
	}
	rec := filepath.Join(dir, "slow.jsonl")
	s, out := run("slow", "--target", slowDesc, "--record", rec)
	if s.ChecksAtOnce != runner.AutoChecks || !strings.Contains(out, fmt.Sprintf("%d checks at once", runner.AutoChecks)) {
		t.Errorf("a target answering in 25ms: %d checks at once, want %d\n%s", s.ChecksAtOnce, runner.AutoChecks, out)
	}
	if raw, err := os.ReadFile(rec); err != nil || !strings.Contains(string(raw), fmt.Sprintf(`"checksAtOnce":%d`, runner.AutoChecks)) {
		t.Errorf("the record's trailer does not keep %d checks at once (%v)", runner.AutoChecks, err)
	}
	replayed := filepath.Join(dir, "replayed.json")
	if code, out := chatconform(t, "replay", "--checks", "--json", replayed, rec); code != 0 {
		t.Errorf("replay --checks: exit %d\n%s", code, out)
	} else if raw, err := os.ReadFile(replayed); err != nil || !strings.Contains(string(raw), fmt.Sprintf(`"checksAtOnce": %d`, runner.AutoChecks)) {
		t.Errorf("the replay did not run %d checks at once (%v)", runner.AutoChecks, err)
	}
	if s, out := run("slow-parallel-1", "--target", slowDesc, "--parallel", "1"); s.ChecksAtOnce != 1 {
		t.Errorf("--parallel 1: %d checks at once, want 1\n%s", s.ChecksAtOnce, out)
	}
	if s, out := run("fast", "--target", startReference(t, 5, nil)); s.ChecksAtOnce != 1 {
		t.Errorf("a target on loopback: %d checks at once, want 1\n%s", s.ChecksAtOnce, out)
	}
	if s, out := run("bundled"); s.ChecksAtOnce != 1 {
		t.Errorf("the bundled server: %d checks at once, want 1\n%s", s.ChecksAtOnce, out)
	}
}
