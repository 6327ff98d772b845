package runner

import (
	"bytes"
	"strings"
	"testing"
)

// One breach, shown once: failures on the way with one signature under one
// requirement are printed in full once, the other checks that met it
// counted (and named with -v, and in the HTML report folded under it);
// breaches with another signature stay apart. A check blocked by the
// requirement it noted on the way is counted blocked, not also failed.
// soft is a breach of MSG-SEND-DEFAULTS a check met on the way.
func soft(check, sig, msg string) CheckResult {
	return CheckResult{Name: check + " (on the way, about MSG-SEND-DEFAULTS)", Of: check, IDs: []string{"MSG-SEND-DEFAULTS"},
		Outcome: Fail, Message: msg, Signature: sig}
}

// foldSample is a run where one breach was met by three checks on the
// way, and another by one.
func foldSample() *Result {
	return synthetic(
		req("MSG-SEND-DEFAULTS",
			CheckResult{Name: "sends", Outcome: Fail, Message: "v is 0"},
			soft("walks", "sendMessage minimum $.v", "walk met v 0"),
			soft("edits", "sendMessage minimum $.v", "edit met v 0"),
			soft("searches", "sendMessage minimum $.v", "search met v 0"),
			soft("marks", "sendMessage maximum $.readBy", "marks met readBy 9"),
		),
		req("PAGE-LIMIT", CheckResult{Name: "walks", Outcome: Pass}),
		req("MSG-EDIT", CheckResult{Name: "edits", Outcome: Pass}),
		req("SEARCH-Q", CheckResult{Name: "searches", Outcome: Pass}),
		req("UNREAD-MARK-READ", CheckResult{Name: "marks", Outcome: Pass}),
	)
}

func TestOneBreachIsShownOnce(t *testing.T) {
	res := foldSample()
	// The breach is the failing requirement's finding, not a failure of
	// each check that met it: one failing check, four passing.
	if res.Checks[Fail.String()] != 1 || res.Checks[Pass.String()] != 4 {
		t.Errorf("checks counted %v, want 4 PASS and 1 FAIL", res.Checks)
	}
	var out bytes.Buffer
	res.settled().Print(&out)
	text := out.String()
	for _, want := range []string{"walk met v 0", "marks met readBy 9", `the same breach as "walks (on the way, about MSG-SEND-DEFAULTS)", met on the way by 2 other checks too (-v lists them)`} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"edit met v 0", "search met v 0"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("the summary repeats a folded breach (%q):\n%s", unwanted, text)
		}
	}
	out.Reset()
	res.settled().PrintVerbose(&out)
	if !strings.Contains(out.String(), "edits (on the way, about MSG-SEND-DEFAULTS)") {
		t.Errorf("-v does not name the checks that met the breach again:\n%s", out.String())
	}
	var html bytes.Buffer
	if err := res.settled().WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	if strings.Count(h, "walk met v 0") != 1 || strings.Contains(h, "edit met v 0") || !strings.Contains(h, "met on the way by 2 other checks too") {
		t.Errorf("the HTML report does not fold the breach met three times")
	}

	// Noted on the way, then blocked by the same requirement: one finding.
	byID := map[string][]CheckResult{
		"MSG-SEND-DEFAULTS": {{Name: "sends", Outcome: Fail, Whole: Fail}, soft("walks", "s", "walk met v 0")},
		"PAGE-LIMIT":        {{Name: "walks", Outcome: Blocked, Whole: Blocked, BlockedBy: "MSG-SEND-DEFAULTS"}},
	}
	dropEchoes(byID)
	if len(byID["MSG-SEND-DEFAULTS"]) != 1 {
		t.Errorf("a check blocked by the requirement it noted on the way still fails it too: %+v", byID["MSG-SEND-DEFAULTS"])
	}
	// ... unless nothing else fails it: the block must name a failure.
	byID = map[string][]CheckResult{
		"MSG-SEND-DEFAULTS": {soft("walks", "s", "walk met v 0")},
		"PAGE-LIMIT":        {{Name: "walks", Outcome: Blocked, Whole: Blocked, BlockedBy: "MSG-SEND-DEFAULTS"}},
	}
	dropEchoes(byID)
	if len(byID["MSG-SEND-DEFAULTS"]) != 1 {
		t.Error("the only failure of the requirement that blocked a check was dropped")
	}
	// ... and when it blocked several, one of them fails for it, not each.
	byID = map[string][]CheckResult{
		"MSG-SEND-STORED": {soft("walks", "s", "lost"), soft("search", "s", "lost"), soft("unread", "s", "lost")},
		"PAGE-LIMIT":      {{Name: "walks", Outcome: Blocked, Whole: Blocked, BlockedBy: "MSG-SEND-STORED"}},
		"SEARCH-Q":        {{Name: "search", Outcome: Blocked, Whole: Blocked, BlockedBy: "MSG-SEND-STORED"}},
		"UNREAD-CHAT":     {{Name: "unread", Outcome: Blocked, Whole: Blocked, BlockedBy: "MSG-SEND-STORED"}},
	}
	dropEchoes(byID)
	if rows := byID["MSG-SEND-STORED"]; len(rows) != 1 || rows[0].Of != "walks" {
		t.Errorf("a requirement that blocked three checks and fails nowhere else fails %d of them: %+v", len(rows), rows)
	}
}
