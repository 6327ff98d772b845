package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/record/recordtest"
	"github.com/chatrooms/conformance/suites/runner"
)

// replay --json writes a run report: valid against the report's schema,
// with one verdict per requirement of the record's profile, and counts that
// agree with what replay prints, with its exit code, and with its JUnit
// report. The record is that of a real run against a server with two
// planted faults (a readBy written as a string, a page listing a message
// twice).
func TestReplayJSONIsARunReport(t *testing.T) {
	d := recordtest.StartReference(t, recordtest.Faults)
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	desc := writeTarget(t, dir, d)
	code, out := chatconform(t, "--target", desc, "--profile", "reference", "--seed", "5", "--eventually", "2s",
		"--label-filter", "MSG-GET-ONE || MSG-LIST || USER-SHAPE", "--record", path("run.jsonl"))
	if code != 1 {
		t.Fatalf("run: exit %d, want 1 (the planted faults)\n%s", code, out)
	}
	code, out = chatconform(t, "replay", path("run.jsonl"), "--json", path("replay.json"), "--junit", path("replay.xml"), "--html", path("replay.html"))
	if code != 1 || !strings.Contains(out, "the same verdicts as the run recorded") {
		t.Fatalf("replay: exit %d, want 1 with the run's verdicts\n%s", code, out)
	}
	raw, err := os.ReadFile(path("replay.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := reportSchema(t).Validate(decode(t, raw)); err != nil {
		t.Fatalf("replay's JSON breaks suites/report/report.schema.json:\n%v", err)
	}
	var rep runner.Result
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Format != runner.ReportFormat || rep.Profile != spec.Reference || rep.Seed != 5 || rep.Target != d.BaseURL || rep.ExitStatus != code {
		t.Fatalf("report: format %d, profile %s, seed %d, target %s, exit %d; want %d, reference, 5, %s, %d",
			rep.Format, rep.Profile, rep.Seed, rep.Target, rep.ExitStatus, runner.ReportFormat, d.BaseURL, code)
	}
	if rep.Replay == nil || !rep.Replay.Compared || len(rep.Replay.Differences) > 0 || rep.Replay.Digests["catalogue"] == "" {
		t.Fatalf("report: the replay's comparison with the run is missing or wrong: %+v", rep.Replay)
	}

	// What replay prints, by requirement: FAIL (once a requirement, maybe
	// several lines), ok, NOT JUDGED.
	printed := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && (f[0] == "FAIL" || f[0] == "ok"):
			if printed[f[1]] != "FAIL" {
				printed[f[1]] = f[0]
			}
		case len(f) >= 3 && f[0] == "NOT" && f[1] == "JUDGED":
			printed[f[2]] = "NOT JUDGED"
		}
	}
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	checkable := 0
	for _, q := range cat.Requirements {
		if !q.InProfile(spec.Reference) {
			continue
		}
		switch {
		case !q.IsCheckable():
			want["N/A"]++
			continue
		case printed[q.ID] == "FAIL":
			want["FAIL"]++
		case printed[q.ID] == "ok":
			want["PASS"]++
		default:
			want["NOT RUN"]++
		}
		checkable++
	}
	if want["FAIL"] < 2 || want["PASS"] == 0 {
		t.Fatalf("replay printed %d failing and %d passing requirements; the planted faults break two\n%s", want["FAIL"], want["PASS"], out)
	}
	for _, o := range []string{"PASS", "FAIL", "NOT RUN", "N/A"} {
		if rep.Counts[o] != want[o] {
			t.Errorf("report counts %d %s, replay printed %d", rep.Counts[o], o, want[o])
		}
	}
	for o, n := range rep.Counts {
		if want[o] != n {
			t.Errorf("report counts %d %s, replay printed %d", n, o, want[o])
		}
	}
	for _, q := range rep.Requirements {
		if p := printed[q.ID]; (p == "FAIL") != (q.Verdict == runner.Fail) || (p == "ok") != (q.Verdict == runner.Pass) {
			t.Errorf("%s: replay printed %q, the report says %s", q.ID, p, q.Verdict)
		}
		if q.Verdict == runner.NotRun && q.Reason == "" {
			t.Errorf("%s: NOT RUN without a reason", q.ID)
		}
		if q.Verdict == runner.Fail && (len(q.Checks) == 0 || !strings.Contains(q.Checks[0].Message, "reproduce: ")) {
			t.Errorf("%s: FAIL without the failing exchanges as evidence: %+v", q.ID, q.Checks)
		}
	}
	// The one-line cause of a failure carries its first example.
	for _, c := range rep.Causes() {
		if c.ID == "UNREAD-READBY" && !strings.Contains(c.Line, "readBy") {
			t.Errorf("the cause of UNREAD-READBY is %q: want its first example in it", c.Line)
		}
	}
	if c := rep.Coverage; c == nil || c.Total != checkable || c.Judged != want["PASS"]+want["FAIL"] {
		t.Errorf("coverage %v, want judged %d of %d", c, want["PASS"]+want["FAIL"], checkable)
	}
	if len(rep.Judges) != runner.JudgeCount || rep.Checks["FAIL"] != 2 || rep.Checks["PASS"] != 0 {
		t.Errorf("judges %v, checks %v: want the document and history checkers, both FAIL", rep.Judges, rep.Checks)
	}

	// The JUnit report counts the same checks.
	xraw, err := os.ReadFile(path("replay.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(xraw, &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != runner.JudgeCount || suites.Failures != rep.Checks["FAIL"] {
		t.Errorf("JUnit: %d tests, %d failures; the JSON counts %v", suites.Tests, suites.Failures, rep.Checks)
	}
	if h, err := os.ReadFile(path("replay.html")); err != nil || !strings.Contains(string(h), rep.Coverage.String()) {
		t.Errorf("HTML report: %v; want the coverage %q in it", err, rep.Coverage)
	}
}
