package conformance

import (
	"slices"
	"testing"

	"github.com/chatrooms/conformance/suites/model"
)

// A model area blocked by another requirement's answer is drawn again
// without the kind of operation that met it: what the run drawn again
// applied to its end, and found held, is judged; the rest of the area
// stays blocked, and a finding of the run drawn again is its
// requirement's.
func TestAModelAreaBlockedIsJudgedOnWhatItsRedrawApplied(t *testing.T) {
	ids := []string{"UNREAD-CHAT", "UNREAD-MARK-READ", "UNREAD-READBY", "UNREAD-FLAG"}
	for _, tc := range []struct {
		name       string
		reps       []*model.Report
		judged     []string // requirements the check must name judged
		notJudged  []string
		softFailed []string // the blocking step is a finding of its requirement too
	}{
		{"a run drawn again that ran through", []*model.Report{
			{Blocked: "UNREAD-SHAPE", BlockedText: "an unread list of another shape", BlockedOp: model.Unread, Applied: []string{"UNREAD-CHAT", "UNREAD-READBY"}},
			{Applied: []string{"UNREAD-MARK-READ", "UNREAD-READBY"}},
		}, []string{"UNREAD-MARK-READ", "UNREAD-READBY"}, []string{"UNREAD-CHAT", "UNREAD-FLAG"}, []string{"UNREAD-SHAPE"}},
		{"a run drawn again that found a breach", []*model.Report{
			{Blocked: "UNREAD-SHAPE", BlockedText: "an unread list of another shape", BlockedOp: model.Unread},
			{Applied: []string{"UNREAD-MARK-READ", "UNREAD-READBY"}, Finding: &model.Finding{Requirement: "UNREAD-READBY", Statement: "readBy fell"}},
		}, []string{"UNREAD-MARK-READ"}, []string{"UNREAD-READBY", "UNREAD-CHAT"}, []string{"UNREAD-READBY", "UNREAD-SHAPE"}},
		{"a run drawn again that was blocked too", []*model.Report{
			{Blocked: "UNREAD-SHAPE", BlockedText: "an unread list of another shape", BlockedOp: model.Unread},
			{Blocked: "MSG-LIST", BlockedText: "a page of another shape", BlockedOp: model.List, Applied: []string{"UNREAD-MARK-READ"}},
		}, nil, []string{"UNREAD-MARK-READ"}, []string{"UNREAD-SHAPE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCheck(t, "https://127.0.0.1:1", nil, ids, func(e *Env) {
				e.judgeModel(modelArea{text: "a model area", reqs: ids}, tc.reps)
			})
			entries := map[string][]string{}
			for _, x := range r.ReportEntries() {
				id, _, _ := cutLine(x.Value)
				entries[x.Name] = append(entries[x.Name], id)
			}
			if r.end != failed || !slices.Equal(entries[EntryBlockedBy], []string{"UNREAD-SHAPE"}) {
				t.Errorf("end %v, blocked by %q; want the check blocked by UNREAD-SHAPE", r.end, entries[EntryBlockedBy])
			}
			for _, id := range tc.judged {
				if !slices.Contains(entries[EntryJudged], id) {
					t.Errorf("judged %q, want %s among them", entries[EntryJudged], id)
				}
			}
			for _, id := range tc.notJudged {
				if slices.Contains(entries[EntryJudged], id) {
					t.Errorf("judged %q, want %s not among them", entries[EntryJudged], id)
				}
			}
			if !slices.Equal(entries[EntrySoftFail], tc.softFailed) {
				t.Errorf("soft failures %q, want %q", entries[EntrySoftFail], tc.softFailed)
			}
		})
	}
}

// An area is drawn again without a kind of operation only when something
// other than sends is left to draw.
func TestWithoutKind(t *testing.T) {
	mix := model.Mix{model.Send: 3, model.Unread: 2, model.Mark: 1}
	if got := withoutKind(mix, model.Unread); got == nil || got[model.Unread] != 0 || got[model.Send] != 3 || got[model.Mark] != 1 || mix[model.Unread] != 2 {
		t.Errorf("without Unread: %v (mix now %v)", got, mix)
	}
	if got := withoutKind(mix, model.List); got != nil {
		t.Errorf("without a kind not drawn: %v, want nil", got)
	}
	if got := withoutKind(model.Mix{model.Send: 3, model.Mark: 1}, model.Mark); got != nil {
		t.Errorf("sends alone left: %v, want nil", got)
	}
	if got := withoutKind(mix, model.Send); got != nil {
		t.Errorf("without sends: %v, want nil (no message of the run's own to judge)", got)
	}
}

func cutLine(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
