package runner

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

// A run counts the same checks everywhere: the first line announces the
// selected declared checks and the run-wide judges, progress counts to
// that number, and the summary, the JSON and the JUnit report count the
// same checks, each once, whatever the judges find. A failure a check
// records on the way about another requirement is that check's, not one
// more check.
func TestEveryOutputCountsTheSameChecks(t *testing.T) {
	declared := []Check{{Name: "sends", Area: "Messages"}, {Name: "lists", Area: "Messages"}, {Name: "rooms", Area: "Rooms"}}
	for _, tc := range []struct {
		name  string
		extra map[string][]CheckResult
		want  map[Outcome]int
	}{
		{"clean", map[string][]CheckResult{
			"MSG-STABLE": {{Name: HistoryCheck, Area: "History", IDs: []string{"MSG-STABLE"}, Outcome: Pass}},
			"ROOM-LIST":  {{Name: HistoryCheck, Area: "History", IDs: []string{"ROOM-LIST"}, Outcome: Pass}},
		}, map[Outcome]int{Pass: 5}},
		{"judges fail", map[string][]CheckResult{
			"MSG-STABLE": {{Name: HistoryCheck, Area: "History", IDs: []string{"MSG-STABLE"}, Outcome: Pass}},
			"ROOM-LIST":  {{Name: HistoryCheck, Area: "History", IDs: []string{"ROOM-LIST"}, Outcome: Fail, Message: "moved"}},
			"MSG-SEND":   {{Name: DocumentCheck, Area: "History", IDs: []string{"MSG-SEND"}, Outcome: Fail, Message: "bad"}},
		}, map[Outcome]int{Pass: 3, Fail: 2}},
		{"soft failure on the way", map[string][]CheckResult{
			"MSG-STABLE": {{Name: HistoryCheck, Area: "History", IDs: []string{"MSG-STABLE"}, Outcome: Pass}},
			"ROOM-LIST":  {{Name: "sends (on the way, about ROOM-LIST)", Of: "sends", IDs: []string{"ROOM-LIST"}, Outcome: Fail, Message: "on the way"}},
		}, map[Outcome]int{Pass: 4, Fail: 1}},
	} {
		var b bytes.Buffer
		p := newProgress(&b, declared, JudgeCount, false)
		res := synthetic(
			req("MSG-SEND", CheckResult{Name: "sends", Outcome: Pass}),
			req("MSG-LIST", CheckResult{Name: "lists", Outcome: Pass}),
			req("ROOM-LIST", CheckResult{Name: "rooms", Outcome: Pass}),
			req("MSG-STABLE"),
		)
		for id, cs := range tc.extra {
			for i := range res.Requirements {
				if res.Requirements[i].ID == id {
					res.Requirements[i].Checks = append(res.Requirements[i].Checks, cs...)
				}
			}
		}
		for _, c := range declared {
			o := Pass
			if tc.name == "soft failure on the way" && c.Name == "sends" {
				o = Fail
			}
			p.done([]string{"", c.Area}, c.Name, o, 0)
		}
		res.Judges = judges(tc.extra)
		res.tally(nil)
		for _, j := range res.Judges {
			p.judged(j.Name, j.Outcome)
		}
		total := len(declared) + JudgeCount
		announced := checksLine(len(declared))
		if !strings.HasPrefix(announced, fmt.Sprintf("%d checks", total)) {
			t.Errorf("%s: announced %q, want %d checks", tc.name, announced, total)
		}
		if !strings.Contains(b.String(), fmt.Sprintf("[%d/%d] Document checker", total, total)) {
			t.Errorf("%s: progress does not end at %d/%d:\n%s", tc.name, total, total, b.String())
		}
		if counted := res.Count(Pass) + res.Count(Fail) + res.Count(Skip) + res.Count(Blocked) + res.Count(Error) + res.Count(NotRun) + res.Count(Known) + res.Count(Inconclusive); counted != total {
			t.Errorf("%s: the summary counts %d checks (%v), want %d", tc.name, counted, res.Checks, total)
		}
		for o, n := range tc.want {
			if res.Count(o) != n {
				t.Errorf("%s: %d %s, want %d (%v)", tc.name, res.Count(o), o, n, res.Checks)
			}
		}
		var out bytes.Buffer
		res.settled().Print(&out)
		if !strings.Contains(out.String(), fmt.Sprintf("chatconform: %d checks (", total)) {
			t.Errorf("%s: summary:\n%s", tc.name, out.String())
		}
		var j bytes.Buffer
		if err := res.settled().WriteJUnit(&j); err != nil {
			t.Fatal(err)
		}
		var suites struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		}
		if err := xml.Unmarshal(j.Bytes(), &suites); err != nil {
			t.Fatal(err)
		}
		if suites.Tests != total || suites.Failures != tc.want[Fail] {
			t.Errorf("%s: JUnit counts %d tests, %d failures; want %d, %d", tc.name, suites.Tests, suites.Failures, total, tc.want[Fail])
		}
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			Checks map[string]int `json:"checks"`
			Judges []CheckResult  `json:"judges"`
		}
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, n := range back.Checks {
			sum += n
		}
		if sum != total || len(back.Judges) != JudgeCount {
			t.Errorf("%s: JSON counts %d checks and %d judges, want %d and %d", tc.name, sum, len(back.Judges), total, JudgeCount)
		}
	}
}
