package runner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
)

// A report built from verdicts outside Ginkgo is tallied by the run's own
// code: the judges' verdicts per requirement, NOT RUN with the cause given
// for the rest, N/A as the catalogue says, the judges counted as the
// checks, and an exit code that a FAIL makes 1 and a halt alone makes 3.
func TestNewReportTalliesOutsideVerdicts(t *testing.T) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	var checkable, na []string
	for _, q := range cat.Requirements {
		if !q.InProfile(spec.Core) {
			continue
		}
		if q.IsCheckable() {
			checkable = append(checkable, q.ID)
		} else {
			na = append(na, q.ID)
		}
	}
	in := External{Profile: spec.Core, Target: "https://example.test", Seed: 3, Version: "v1", Requests: 12,
		Verdicts: []JudgeVerdict{
			{Requirement: "USER-SHAPE", Judge: DocumentCheck, Outcome: Fail, Message: "getCurrentUser answered a user without its id\n  reproduce: curl ..."},
			{Requirement: "USER-STABLE", Judge: HistoryCheck, Outcome: Pass, Message: "no contradiction in 12 exchanges"},
			{Requirement: "ROOM-SHAPE", Judge: DocumentCheck, Outcome: Pass, Message: "no contradiction in 12 answers"},
		},
		NotJudged: []Unjudged{{Cause: "not re-derived", Do: "read the run's report", Requirements: checkable[:3]}},
	}
	res := NewReport(in)
	if res.Format != ReportFormat || res.Seed != 3 || res.Requests != 12 || res.Version != "v1" {
		t.Fatalf("identity lost: %+v", res)
	}
	want := map[string]int{"FAIL": 1, "PASS": 2, "NOT RUN": len(checkable) - 3, "N/A": len(na)}
	for o, n := range want {
		if res.Counts[o] != n {
			t.Errorf("%d %s, want %d (counts %v)", res.Counts[o], o, n, res.Counts)
		}
	}
	if res.Checks["FAIL"] != 1 || res.Checks["PASS"] != 1 || len(res.Judges) != JudgeCount {
		t.Errorf("checks %v, judges %v: want the document checker FAIL and the history checker PASS", res.Checks, res.Judges)
	}
	if c := res.Coverage; c.Judged != 3 || c.Total != len(checkable) {
		t.Errorf("coverage %v, want judged 3 of %d", c, len(checkable))
	}
	n := 0
	for _, g := range res.Coverage.NotJudged {
		n += len(g.Requirements)
		if g.Cause == "not re-derived" && len(g.Requirements) != 3 {
			t.Errorf("the given cause holds %v", g.Requirements)
		}
		if g.Outcome != NotRun || g.Do == "" {
			t.Errorf("gap %+v", g)
		}
	}
	if n != len(checkable)-3 {
		t.Errorf("the gaps hold %d requirements, want %d", n, len(checkable)-3)
	}
	for _, q := range res.Requirements {
		if q.Verdict == NotRun && q.Reason == "" {
			t.Errorf("%s NOT RUN without a reason", q.ID)
		}
	}
	if res.ExitStatus != ExitFail || len(res.Causes()) != 1 || res.Causes()[0].ID != "USER-SHAPE" {
		t.Errorf("exit %d, causes %v", res.ExitStatus, res.Causes())
	}
	var out bytes.Buffer
	res.settled().Print(&out)
	if !strings.Contains(out.String(), "FAIL USER-SHAPE") || !strings.Contains(out.String(), res.Coverage.String()) {
		t.Errorf("printed:\n%s", out.String())
	}

	in.Verdicts = in.Verdicts[1:]
	in.Halt = &Halt{Code: ExitUnreachable, Reason: "other verdicts"}
	if res := NewReport(in); res.ExitStatus != ExitUnreachable || res.Counts["FAIL"] != 0 {
		t.Errorf("without a FAIL, with a halt: exit %d, counts %v", res.ExitStatus, res.Counts)
	}
}

// A breach under no requirement of the catalogue fails a judge of its
// own, so the report that exits 1 for it has a failing check in every
// output.
func TestABreachUnderNoRequirementFailsACheck(t *testing.T) {
	res := NewReport(External{Profile: spec.Core, Target: "https://chat.example", Judges: []CheckResult{Unattributed([]string{"NO-OPERATION: GET /x"})}})
	if res.ExitStatus != ExitFail || res.Checks[Fail.String()] != 1 || res.Counts[Fail.String()] != 0 {
		t.Errorf("exit %d, checks %v, requirements %v", res.ExitStatus, res.Checks, res.Counts)
	}
}
