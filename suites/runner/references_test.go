package runner

import (
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
)

// A room's counts are held to the unread lists: where the lists fail, the
// counts' failure is that defect seen again, BLOCKED by it; where they do
// not, it stands.
func TestAFailureHeldToAFailingReferenceIsBlockedByIt(t *testing.T) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	counts, _ := cat.Lookup("UNREAD-ROOM-COUNTS")
	if !strings.Contains(strings.Join(counts.JudgedAgainst, " "), "UNREAD-CHAT") {
		t.Fatalf("UNREAD-ROOM-COUNTS is not judged against UNREAD-CHAT: %v", counts.JudgedAgainst)
	}
	rows := func() map[string][]CheckResult {
		return map[string][]CheckResult{
			"UNREAD-CHAT":        {{Name: "lists", Outcome: Fail}},
			"UNREAD-ROOM-COUNTS": {{Name: "model", Outcome: Fail}, {Name: "counts", Outcome: Pass}},
			"SEARCH-Q":           {{Name: "model", Outcome: Blocked, Whole: Fail, BlockedBy: "UNREAD-ROOM-COUNTS"}, {Name: "search", Outcome: Blocked, Whole: Blocked, BlockedBy: "UNREAD-ROOM-COUNTS"}},
			"HTTP-GET-SAFE":      {{Name: "reads", Outcome: Blocked, Whole: Blocked, BlockedBy: "UNREAD-ROOM-COUNTS"}},
		}
	}
	byID := rows()
	blockByReferences(byID, cat)
	got := byID["UNREAD-ROOM-COUNTS"][0]
	if got.Outcome != Blocked || got.BlockedBy != "UNREAD-CHAT" || got.Whole != Fail || !strings.Contains(got.Message, "UNREAD-CHAT") {
		t.Errorf("the counts' failure beside failing lists: %+v", got)
	}
	if byID["UNREAD-ROOM-COUNTS"][1].Outcome != Pass {
		t.Errorf("a passing row changed: %+v", byID["UNREAD-ROOM-COUNTS"][1])
	}
	// Every block names a requirement that fails: the counts fail nowhere
	// now, so what they blocked is blocked by the lists.
	for _, c := range byID["SEARCH-Q"] {
		if c.BlockedBy != "UNREAD-CHAT" {
			t.Errorf("a row blocked by the counts names %s, not the lists: %+v", c.BlockedBy, c)
		}
	}
	if c := byID["HTTP-GET-SAFE"][0]; c.BlockedBy != "UNREAD-CHAT" {
		t.Errorf("a check blocked by the counts through a failure on the way names %s, not the lists: %+v", c.BlockedBy, c)
	}
	if byID["UNREAD-CHAT"][0].Outcome != Fail {
		t.Error("the reference's own failure changed")
	}

	// Lists that keep to the document: the counts' failure stands.
	byID = rows()
	byID["UNREAD-CHAT"][0].Outcome = Pass
	blockByReferences(byID, cat)
	if got := byID["UNREAD-ROOM-COUNTS"][0]; got.Outcome != Fail || got.BlockedBy != "" {
		t.Errorf("the counts' failure beside passing lists: %+v", got)
	}
}
