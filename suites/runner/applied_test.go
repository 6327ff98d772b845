package runner

import (
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/conformance"
)

// A pass is claimed only for what was judged: a check that passed without
// applying one of its requirements' statements (it said so) is SKIP for
// that requirement, which the check's other requirements do not change;
// a requirement another check passed stays PASS.
func TestAPassIsNotClaimedForWhatWasNotApplied(t *testing.T) {
	entry := func(name, value string) types.ReportEntry {
		return types.ReportEntry{Name: name, Value: types.WrapEntryValue(value)}
	}
	model := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "keeps to the model",
		LeafNodeLabels: []string{"MSG-EDIT", "UNREAD-MARK-READ", "ROOM-HIDE", "core"}, State: types.SpecStatePassed,
		ReportEntries: []types.ReportEntry{
			entry(conformance.EntryNotApplied, "UNREAD-MARK-READ\nno sequence marked anything read"),
			entry(conformance.EntryNotApplied, "ROOM-HIDE\nno sequence hid a room"),
		}}
	hide := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "hides", LeafNodeLabels: []string{"ROOM-HIDE", "core"}, State: types.SpecStatePassed}
	r := types.Report{SpecReports: types.SpecReports{model, hide}}
	selected := map[string]bool{model.FullText(): true, hide.FullText(): true}
	res := summarize(r, selected, spec.Core, 1, "https://chat.example", 0, nil, nil)
	verdict := map[string]Outcome{}
	for _, q := range res.Requirements {
		verdict[q.ID] = q.Verdict
	}
	for id, want := range map[string]Outcome{"MSG-EDIT": Pass, "UNREAD-MARK-READ": Skip, "ROOM-HIDE": Pass} {
		if verdict[id] != want {
			t.Errorf("%s: %s, want %s", id, verdict[id], want)
		}
	}
	if res.Checks[Pass.String()] != 2 {
		t.Errorf("the checks themselves passed: %v", res.Checks)
	}
}
