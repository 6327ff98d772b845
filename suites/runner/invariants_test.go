package runner

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/report"
)

// synthetic builds a result from requirement ids and their checks.
func synthetic(reqs ...Requirement) *Result {
	res := &Result{Report: report.Report{Profile: spec.Core, Target: "https://chat.example", Seed: 3, Counts: map[string]int{}, Checks: map[string]int{}}, outcomes: map[Outcome]int{}}
	res.Requirements = reqs
	res.tally(nil)
	return res
}

func req(id string, checks ...CheckResult) Requirement {
	for i := range checks {
		if checks[i].Name == "" {
			checks[i].Name = fmt.Sprintf("%s check %d", id, i+1)
		}
		if len(checks[i].IDs) == 0 {
			checks[i].IDs = []string{id}
		}
	}
	return Requirement{ID: id, Text: id + " holds", Checks: checks}
}

// The outcome model holds as invariants over any mix of outcomes, blockers
// and baselines:
//   - exit 1 only when a requirement is FAIL, a baseline entry now passes,
//     or coverage is short of what the gate asks;
//   - a BLOCKED check names a requirement that failed (FAIL or KNOWN) in
//     the same run; any other BLOCKED check is ERROR with the reason;
//   - a BLOCKED check never makes the exit code 1 by itself.
func TestOutcomeModelInvariants(t *testing.T) {
	ids := []string{"A-ONE", "B-TWO", "C-THREE", "D-FOUR", "E-FIVE"}
	outcomes := []Outcome{Pass, Fail, Skip, Blocked, Error, NotRun, Inconclusive}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		var reqs []Requirement
		for _, id := range ids {
			var checks []CheckResult
			for range 1 + rng.IntN(3) {
				c := CheckResult{Outcome: outcomes[rng.IntN(len(outcomes))]}
				if c.Outcome == Blocked {
					c.BlockedBy = append(slices.Clone(ids), "", "Z-UNKNOWN")[rng.IntN(len(ids)+2)]
				}
				checks = append(checks, c)
			}
			reqs = append(reqs, req(id, checks...))
		}
		res := synthetic(reqs...)
		if rng.IntN(2) == 0 {
			b := &Baseline{Known: map[string]string{}}
			for _, id := range ids {
				if rng.IntN(3) == 0 {
					b.Known[id] = "known"
				}
			}
			res.applyBaseline(b)
		}
		var gate CoverageGate
		if rng.IntN(3) == 0 {
			gate.MinJudged = rng.IntN(6)
		}
		res.judge(gate)
		failed := false
		for _, q := range res.Requirements {
			failed = failed || q.Verdict == Fail
		}
		if res.ExitCode() == ExitFail && !failed && len(res.Fixed) == 0 && len(res.CoverageShort) == 0 {
			t.Fatalf("run %d: exit 1 without a FAIL, a fixed entry or short coverage:\n%s", n, dump(res))
		}
		if failed && res.ExitCode() != ExitFail {
			t.Fatalf("run %d: a FAIL exits %d", n, res.ExitCode())
		}
		verdict := map[string]Outcome{}
		for _, q := range res.Requirements {
			verdict[q.ID] = q.Verdict
		}
		for _, q := range res.Requirements {
			for _, c := range q.Checks {
				if c.Outcome != Blocked {
					continue
				}
				if v := verdict[c.BlockedBy]; v != Fail && v != Known && !hasFailingCheck(res, c.BlockedBy) {
					t.Fatalf("run %d: %s is BLOCKED by %q, whose verdict is %s:\n%s", n, c.Name, c.BlockedBy, v, dump(res))
				}
			}
		}
		// Removing every FAIL (and the gate) leaves no exit 1, whatever is BLOCKED.
		if !failed && len(res.Fixed) == 0 && len(res.CoverageShort) == 0 && res.ExitCode() == ExitFail {
			t.Fatalf("run %d: exit 1 from BLOCKED alone", n)
		}
	}
}

func hasFailingCheck(res *Result, id string) bool {
	for _, q := range res.Requirements {
		if q.ID == id {
			for _, c := range q.Checks {
				if c.Outcome == Fail || c.Outcome == Known {
					return true
				}
			}
		}
	}
	return false
}

func dump(res *Result) string {
	var b strings.Builder
	for _, q := range res.Requirements {
		fmt.Fprintf(&b, "%s %s known=%q:", q.ID, q.Verdict, q.Known)
		for _, c := range q.Checks {
			fmt.Fprintf(&b, " %s(%s)", c.Outcome, c.BlockedBy)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A check blocked by a requirement that passed in the same run (or was not
// selected) did not judge its requirement, and nothing failed: ERROR with
// the reason, exit 3, not exit 1.
func TestBlockedByARequirementThatDidNotFailIsAnError(t *testing.T) {
	res := synthetic(
		req("MSG-SEND-200", CheckResult{Outcome: Pass}),
		req("MSG-EDIT", CheckResult{Outcome: Blocked, BlockedBy: "MSG-SEND-200", Message: "send answered 500"}),
		req("MSG-GET-ONE", CheckResult{Outcome: Blocked, BlockedBy: "PAGE-LIMIT"}), // not part of the run
	)
	res.judge(CoverageGate{})
	if res.ExitCode() != ExitUnreachable {
		t.Errorf("exit %d, want 3", res.ExitCode())
	}
	edit := res.Requirements[1].Checks[0]
	if edit.Outcome != Error || !strings.Contains(edit.Message, "blocked by MSG-SEND-200, whose verdict in this run is PASS") || !strings.Contains(edit.Message, "send answered 500") {
		t.Errorf("%+v", edit)
	}
	if get := res.Requirements[2].Checks[0]; get.Outcome != Error || !strings.Contains(get.Message, "PAGE-LIMIT, which is not part of this run") {
		t.Errorf("%+v", get)
	}
	if res.Counts["BLOCKED"] != 0 || res.Counts["ERROR"] != 2 {
		t.Errorf("counts %v", res.Counts)
	}
	if g := res.Coverage.NotJudged[0]; g.Cause != "blocked by a requirement that did not fail in this run" || len(g.Requirements) != 2 {
		t.Errorf("not judged: %+v", res.Coverage.NotJudged)
	}
}

// Every run says how many checkable requirements it judged, and lists the
// others grouped by cause with the one thing to do about each.
func TestCoverageGroupsWhatWasNotJudgedByCause(t *testing.T) {
	twoUsers := "needs 2 users in the target description, it has 1"
	res := synthetic(
		req("USER-SHAPE", CheckResult{Outcome: Pass}),
		req("MSG-SEND-200", CheckResult{Outcome: Fail, Message: "sendMessage breaks the OpenAPI document of the core profile:\n  - status 201"}),
		req("MSG-EDIT", CheckResult{Outcome: Blocked, BlockedBy: "MSG-SEND-200"}),
		req("AUTH-CURRENT-USER", CheckResult{Outcome: Skip, Message: twoUsers}),
		req("UNREAD-READBY", CheckResult{Outcome: Skip, Message: twoUsers}),
		req("ROOM-HIDE", CheckResult{Outcome: Skip, Message: "hiding a room is destructive: name hide_room in the target description to allow it"}),
		req("REPO-PRIVATE-GRANTED", CheckResult{Outcome: Skip, Message: "no user is described with private_repos_granted: true"}),
		req("PAGE-LIMIT", CheckResult{Outcome: NotRun, Message: "not selected (--label-filter, --focus)"}),
		Requirement{ID: "HTTP-EVENTS", Verdict: NotCheckable},
	)
	res.judge(CoverageGate{})
	c := res.Coverage
	if c.Judged != 2 || c.Total != 8 {
		t.Fatalf("coverage %s", c)
	}
	byCause := map[string]Gap{}
	for _, g := range c.NotJudged {
		byCause[g.Cause] = g
	}
	for cause, want := range map[string]struct {
		ids []string
		do  string
	}{
		"needs a second user":                    {[]string{"AUTH-CURRENT-USER", "UNREAD-READBY"}, "CHAT_TOKEN_2"},
		"blocked by a failing requirement":       {[]string{"MSG-EDIT"}, "fix the failing requirements"},
		"not selected (--label-filter, --focus)": {[]string{"PAGE-LIMIT"}, "without --label-filter"},
	} {
		g := byCause[cause]
		if strings.Join(g.Requirements, ",") != strings.Join(want.ids, ",") || !strings.Contains(g.Do, want.do) {
			t.Errorf("%s: %+v", cause, g)
		}
	}
	var hide, private bool
	for _, g := range c.NotJudged {
		hide = hide || strings.Contains(g.Do, "--hide-room") && strings.Contains(g.Do, "CHAT_HIDE_ROOM")
		private = private || strings.Contains(g.Do, "--private-repos-granted")
	}
	if !hide || !private {
		t.Errorf("no advice to name hide_room or private grants: %+v", c.NotJudged)
	}
	var b bytes.Buffer
	res.settled().Print(&b)
	for _, want := range []string{"Not judged: 6 of 8 checkable requirements, by cause:", "do: name a second user", "judged 2 of 8 checkable requirements (25%)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

// A run whose one failure is a known one and which blocks most of the
// profile passes, but says how little it judged: the banner is not a
// plain PASS, and --min-judged makes it fail.
func TestKnownFailureBlockingMostRequirementsIsNoPlainPass(t *testing.T) {
	reqs := []Requirement{req("MSG-SEND-200", CheckResult{Outcome: Fail, Message: "answered 201"}), req("USER-SHAPE", CheckResult{Outcome: Pass})}
	for i := range 45 {
		reqs = append(reqs, req(fmt.Sprintf("MSG-X%d", i), CheckResult{Outcome: Blocked, BlockedBy: "MSG-SEND-200"}))
	}
	res := synthetic(reqs...)
	res.applyBaseline(&Baseline{Known: map[string]string{"MSG-SEND-200": "answers 201"}})
	res.judge(CoverageGate{})
	if res.ExitCode() != ExitPass || res.settled().Verdict() != "PASS, judged 2 of 47 checkable requirements (4%): 45 not judged" {
		t.Errorf("exit %d, verdict %q", res.ExitCode(), res.settled().Verdict())
	}
	var page bytes.Buffer
	if err := res.settled().WriteHTML(&page); err != nil || !strings.Contains(page.String(), `class="banner partial"`) {
		t.Errorf("HTML banner not partial (%v)", err)
	}
	var b bytes.Buffer
	res.settled().Print(&b)
	if !strings.Contains(b.String(), "blocked by a known failure (baseline)") || !strings.Contains(b.String(), "fix MSG-SEND-200") {
		t.Errorf("output does not say what the known failure blocks:\n%s", b.String())
	}
	gate, _ := ParseMinJudged("50%")
	res.judge(gate)
	if res.ExitCode() != ExitFail || !strings.Contains(strings.Join(res.CoverageShort, ""), "--min-judged 50% asks for 24") ||
		!strings.Contains(res.settled().Verdict(), "coverage short") {
		t.Errorf("exit %d, short %v, verdict %q", res.ExitCode(), res.CoverageShort, res.settled().Verdict())
	}
	res.judge(CoverageGate{Require: []string{"MSG-X3"}})
	if res.ExitCode() != ExitFail || !strings.Contains(strings.Join(res.CoverageShort, ""), "MSG-X3 is required (--require) but was not judged: BLOCKED") {
		t.Errorf("require: exit %d, %v", res.ExitCode(), res.CoverageShort)
	}
	res.judge(CoverageGate{Require: []string{"USER-SHAPE", "MSG-SEND-200"}, MinJudged: 2})
	if res.ExitCode() != ExitPass {
		t.Errorf("met gate: exit %d, %v", res.ExitCode(), res.CoverageShort)
	}
	// A run that did not reach its end keeps its own exit code.
	res.markStopped("interrupted", time.Now().Add(time.Hour))
	res.judge(CoverageGate{MinJudged: 40})
	if res.ExitCode() != ExitUnreachable {
		t.Errorf("halted run with a gate: exit %d", res.ExitCode())
	}
	for _, bad := range []string{"x", "-1", "101%", "%"} {
		if _, err := ParseMinJudged(bad); err == nil {
			t.Errorf("--min-judged %q accepted", bad)
		}
	}
	for _, bad := range []string{"NOPE-1", "HTTP-EVENTS", "", "REF-LIMIT"} {
		if _, err := ParseRequire(bad, spec.Core); err == nil {
			t.Errorf("--require %q accepted", bad)
		}
	}
}

// The terminal output ends with the failing requirements, each with its
// one-line cause, then the verdict; the checks a failure blocked are
// counted, and listed only with -v.
func TestPrintEndsWithTheCause(t *testing.T) {
	reqs := []Requirement{req("MSG-SEND-200", CheckResult{Outcome: Fail, Message: sendFailure})}
	for i := range 45 {
		reqs = append(reqs, req(fmt.Sprintf("MSG-X%d", i), CheckResult{Outcome: Blocked, BlockedBy: "MSG-SEND-200"}))
	}
	reqs = append(reqs, req("USER-SHAPE", CheckResult{Outcome: Pass}))
	res := synthetic(reqs...)
	res.judge(CoverageGate{})
	var b bytes.Buffer
	res.settled().Print(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	tail := strings.Join(lines[len(lines)-3:], "\n")
	want := "chatconform: 1 failing requirement (45 checks blocked by them):\n  FAIL MSG-SEND-200               POST /v1/rooms/{roomId}/chatMessages answered 201, want [200]\nchatconform: FAIL (exit 1; replay with --seed 3)"
	if !strings.HasPrefix(tail, want) {
		t.Errorf("the output ends with\n%s\nwant\n%s", tail, want)
	}
	if n := strings.Count(b.String(), "BLOCKED: "); n != 0 {
		t.Errorf("%d blocked checks listed without -v", n)
	}
	if len(lines) > 80 {
		t.Errorf("%d lines for one failure", len(lines))
	}
	b.Reset()
	res.settled().PrintVerbose(&b)
	if n := strings.Count(b.String(), "BLOCKED: "); n != 45 {
		t.Errorf("-v lists %d blocked checks, want 45", n)
	}
}

// A progress line marks each FAIL as it happens.
func TestProgressMarksEachFail(t *testing.T) {
	var b bytes.Buffer
	checks := []Check{{Name: "a", Area: "Messages"}, {Name: "b", Area: "Messages"}, {Name: "c", Area: "Rooms"}}
	p := newProgress(&b, checks, 0, false)
	p.done([]string{"", "Messages"}, "a", Fail, 0)
	if !strings.Contains(b.String(), "[1/3] FAIL: a") {
		t.Errorf("no line for the failing check: %q", b.String())
	}
	p.done([]string{"", "Messages"}, "b", Pass, 0)
	p.done([]string{"", "Rooms"}, "c", Fail, 0) // fails and completes its area
	if !strings.Contains(b.String(), "[3/3] FAIL: c") || !strings.Contains(b.String(), "Rooms: 1 FAIL") {
		t.Errorf("progress:\n%s", b.String())
	}
}

// --write-baseline writes only after a run that reached its end, and keeps
// every reason the old file gave for an entry that still fails, and every
// entry the run did not judge.
func TestWriteBaselineKeepsWhatItCannotJudge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "known.yaml")
	old := "known:\n  MSG-SEND-200: answers 201; fix tracked in issue 42\n  USER-SHAPE: was broken\n  PAGE-LIMIT: ignores limit, issue 7\n"
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	halted := synthetic(req("MSG-SEND-200", CheckResult{Outcome: NotRun}))
	halted.markStopped("the target could not be reached", time.Now())
	if _, err := halted.WriteBaseline(p, client.NewRedactor()); err == nil {
		t.Error("a run that did not reach its end wrote a baseline")
	}
	if raw, _ := os.ReadFile(p); string(raw) != old {
		t.Errorf("the old baseline was changed:\n%s", raw)
	}
	res := synthetic(
		req("MSG-SEND-200", CheckResult{Outcome: Fail, Message: "answered 202"}),
		req("USER-SHAPE", CheckResult{Outcome: Pass}),
		req("PAGE-LIMIT", CheckResult{Outcome: NotRun, Message: "not selected (--label-filter, --focus)"}),
		req("MSG-EDIT", CheckResult{Outcome: Fail, Message: "edit lost"}),
	)
	w, err := res.WriteBaseline(p, client.NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(p)
	if err != nil {
		t.Fatal(err)
	}
	if b.Known["MSG-SEND-200"] != "answers 201; fix tracked in issue 42" || b.Known["PAGE-LIMIT"] != "ignores limit, issue 7" ||
		!strings.Contains(b.Known["MSG-EDIT"], "edit lost") || b.Known["USER-SHAPE"] != "" {
		t.Errorf("baseline %v", b.Known)
	}
	if w.Entries != 3 || strings.Join(w.Kept, ",") != "PAGE-LIMIT" || strings.Join(w.Dropped, ",") != "USER-SHAPE" {
		t.Errorf("%+v", w)
	}
	// A file that is not a baseline is not replaced.
	desc := filepath.Join(t.TempDir(), "target.yaml")
	_ = os.WriteFile(desc, []byte("base_url: https://x\nusers:\n  - token: t\n"), 0o600)
	if err := CheckBaselineOut(desc); err == nil {
		t.Error("--write-baseline would overwrite a target description")
	}
}

// chatconform diff refuses a report of a run that did not reach its end,
// and lists what the newer run no longer judged.
func TestDiffOfAnIncompleteRunIsVoid(t *testing.T) {
	full := sample()
	halted := sample()
	halted.markStopped("the target could not be reached", time.Now().Add(-time.Hour))
	if roundTrip(t, halted).Comparable() == "" {
		t.Error("an incomplete run's report is comparable")
	}
	if roundTrip(t, full).Comparable() != "" {
		t.Error("a complete run's report is not comparable")
	}
	cur := sample()
	cur.Requirements[3].Checks[0].Outcome = NotRun // USER-SHAPE: PASS -> NOT RUN
	cur.tally(nil)
	d := Compare(full, cur)
	if len(d.Unjudged) != 1 || d.Unjudged[0].ID != "USER-SHAPE" {
		t.Errorf("unjudged %+v", d.Unjudged)
	}
	var b bytes.Buffer
	d.Print(&b)
	if !strings.Contains(b.String(), "No longer judged (1):") {
		t.Errorf("%s", b.String())
	}
}

// No output names a file by the build machine's path.
func TestScrubPaths(t *testing.T) {
	in := fmt.Sprintf("at %s/suites/conformance/user.go:35 and /root/go/pkg/mod/github.com/onsi/ginkgo/v2@v2.34.0/core_dsl.go:12 (/usr/local/go/src/runtime/panic.go:115); https://x/v1/user", moduleRoot)
	want := "at suites/conformance/user.go:35 and github.com/onsi/ginkgo/v2@v2.34.0/core_dsl.go:12 (runtime/panic.go:115); https://x/v1/user"
	if got := ScrubPaths(in); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var b bytes.Buffer
	w := scrubbing(&b)
	fmt.Fprintf(w, "%s/suites/runner/runner.go:1\n", moduleRoot)
	if b.String() != "suites/runner/runner.go:1\n" {
		t.Errorf("writer: %q", b.String())
	}
}

// The JUnit report carries the run's start time, and says when the target
// was the bundled reference server.
func TestJUnitTimestampAndBundled(t *testing.T) {
	res := sample()
	res.Started = time.Date(2026, 11, 23, 10, 4, 5, 0, time.UTC)
	res.Bundled, res.TargetNote = true, BundledNote
	var b bytes.Buffer
	if err := res.settled().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`timestamp="2026-11-23T10:04:05"`, `of the bundled reference server (no target named)`, `name="Bundled" value="true"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JUnit lacks %s:\n%.600s", want, b.String())
		}
	}
	b.Reset()
	if err := res.settled().WriteHTML(&b); err != nil || !strings.Contains(b.String(), BundledNote) {
		t.Errorf("HTML does not say the target was the bundled server: %v", err)
	}
}

// No report points at a document outside the repository: the catalogue's
// sections are the API document's headings or its own words.
func TestNoSectionCitesADocumentOutsideTheRepository(t *testing.T) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cat.Requirements {
		for _, s := range []string{r.Section, r.Text, r.Reason} {
			if strings.Contains(s, "DESIGN") {
				t.Errorf("%s cites %q", r.ID, s)
			}
		}
	}
}
