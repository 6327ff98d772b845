package proxy

import (
	"slices"
	"testing"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/report"
)

// A session's run report passes only the requirements its answers reached:
// those of the operations it saw succeed, never a history rule, and
// nothing at all for a session that saw no success.
func TestASessionPassesOnlyWhatItsAnswersReached(t *testing.T) {
	seen := &Report{Profile: spec.Core, Target: "https://chat.example", Exchanges: 3, Judged: 3, Clean: true,
		Verdicts: &record.Verdicts{Exchanges: 3, Judged: 3, Answered: map[string]int{"getCurrentUser": 3}}}
	rep := seen.RunReport()
	var passed []string
	for _, q := range rep.Requirements {
		if q.Verdict == report.Pass {
			passed = append(passed, q.ID)
		}
	}
	want := record.JudgeableByOperation(spec.Core)["getCurrentUser"]
	if len(passed) == 0 || len(passed) > len(want) {
		t.Fatalf("passed %v, want those of getCurrentUser's answers %v", passed, want)
	}
	for _, id := range passed {
		if !slices.Contains(want, id) || slices.Contains(record.HistoryRequirements, id) {
			t.Errorf("%s passed, which no answer of getCurrentUser reaches (or a history rule)", id)
		}
	}
	if rep.ExitStatus != 0 || rep.Proxy == nil || rep.Proxy.Forwarded != 3 {
		t.Errorf("exit %d, proxy note %+v", rep.ExitStatus, rep.Proxy)
	}

	none := &Report{Profile: spec.Core, Target: "https://chat.example", Clean: true, Verdicts: &record.Verdicts{}}
	if rep := none.RunReport(); rep.Counts["PASS"] != 0 || rep.Coverage == nil || rep.Coverage.Judged != 0 {
		t.Errorf("a session with no success passes %d requirements (%+v)", rep.Counts["PASS"], rep.Coverage)
	}
}
