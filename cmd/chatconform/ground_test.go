package main

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	planted "github.com/chatrooms/conformance/suites/selftest"
)

// The ground under a check answers for what it breaks, for more kinds of
// ground than a lost write. Against a server whose reading of the unread
// list marks it read, the counts check does not fail UNREAD-ROOM-COUNTS:
// the probe of the ground fails HTTP-GET-SAFE. Against a server whose
// edits answer the old text, the checks of v are blocked by MSG-EDIT, which
// fails. Against one whose pages hold one message more than asked, the
// checks of skip and of limit=100 are blocked by PAGE-LIMIT. And against
// servers whose fault is the check's own (a GET that marks read, skip
// ignored), the checks still fail their own requirement: the ground under
// them held.
func TestTheGroundUnderACheckAnswersForWhatItBreaks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("four narrow runs")
	}
	type check struct {
		Outcome   string `json:"outcome"`
		BlockedBy string `json:"blockedBy"`
	}
	type report struct {
		Requirements []struct {
			ID      string  `json:"id"`
			Verdict string  `json:"verdict"`
			Checks  []check `json:"checks"`
		} `json:"requirements"`
	}
	run := func(t *testing.T, fault, filter string) report {
		var rep report
		runPlanted(t, fault, filter, &rep)
		return rep
	}
	verdicts := func(r report) map[string]string {
		out := map[string]string{}
		for _, q := range r.Requirements {
			out[q.ID] = q.Verdict
		}
		return out
	}
	blockedBy := func(r report, id string) []string {
		var by []string
		for _, q := range r.Requirements {
			if q.ID == id {
				for _, c := range q.Checks {
					if c.Outcome == "BLOCKED" && !slices.Contains(by, c.BlockedBy) {
						by = append(by, c.BlockedBy)
					}
				}
			}
		}
		return by
	}
	t.Run("reading the unread list marks it read", func(t *testing.T) {
		t.Parallel()
		r := run(t, "HTTP-GET-SAFE/collateral#9", "UNREAD-ROOM-COUNTS")
		v := verdicts(r)
		if v["UNREAD-ROOM-COUNTS"] == "FAIL" {
			t.Errorf("UNREAD-ROOM-COUNTS fails, though its lists emptied because reading them marked them read: %v", v)
		}
		if v["HTTP-GET-SAFE"] != "FAIL" {
			t.Errorf("HTTP-GET-SAFE is %s, want FAIL from the probe of the ground: %v", v["HTTP-GET-SAFE"], v)
		}
	})
	t.Run("an edit answered with the old text", func(t *testing.T) {
		t.Parallel()
		v := verdicts(run(t, "MSG-EDIT/not-stored", "MSG-EDIT-V-INC && !MSG-EDIT"))
		if v["MSG-EDIT-V-INC"] == "FAIL" {
			t.Errorf("MSG-EDIT-V-INC fails, though what misled it was an edit answer with the old text: %v", v)
		}
		if v["MSG-EDIT"] != "FAIL" {
			t.Errorf("MSG-EDIT is %s, want FAIL from the edit answers the checks went on with: %v", v["MSG-EDIT"], v)
		}
	})
	t.Run("a page one longer than its limit", func(t *testing.T) {
		t.Parallel()
		r := run(t, "PAGE-LIMIT/ignores-input", "LIMIT-100 || PAGE-SKIP")
		v := verdicts(r)
		for _, id := range []string{"LIMIT-100", "PAGE-SKIP"} {
			if v[id] == "FAIL" {
				t.Errorf("%s fails, though the pages it read were longer than asked: %v", id, v)
			}
			if by := blockedBy(r, id); !slices.Contains(by, "PAGE-LIMIT") {
				t.Errorf("%s is not blocked by PAGE-LIMIT (blocked by %v): %v", id, by, slices.Sorted(maps.Keys(v)))
			}
		}
		if v["PAGE-LIMIT"] != "FAIL" {
			t.Errorf("PAGE-LIMIT is %s, want FAIL from the pages the other checks met: %v", v["PAGE-LIMIT"], v)
		}
	})
	t.Run("skip ignored", func(t *testing.T) {
		t.Parallel()
		v := verdicts(run(t, "PAGE-SKIP/ignores-input", "PAGE-SKIP"))
		if v["PAGE-SKIP"] != "FAIL" {
			t.Errorf("PAGE-SKIP is %s against a server that ignores skip: %v", v["PAGE-SKIP"], v)
		}
	})
}

// runPlanted runs the core checks that filter selects, seed 1, against the
// planted fault of that name, expects exit 1, and reads the JSON report
// into rep.
func runPlanted(t *testing.T, fault, filter string, rep any) {
	t.Helper()
	dir := t.TempDir()
	desc := filepath.Join(dir, "target.json")
	stop, err := planted.Serve(fault, 1, desc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	js := filepath.Join(dir, "r.json")
	code, out := chatconform(t, "--target", desc, "--profile", "core", "--seed", "1", "--eventually", "1s",
		"--label-filter", filter, "--json", js)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	readJSON(t, js, rep)
}
