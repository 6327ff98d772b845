package runner

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/report"
)

const sendFailure = `POST /v1/rooms/{roomId}/chatMessages answered 201, want [200]
request:  POST https://chat.example/v1/rooms/r1/chatMessages {"text":"hello"}
response: 201 {"id":"m1","text":"hello"}
reproduce: curl -sS -X POST -H 'Authorization: Bearer '"$CHAT_TOKEN_2"'' --data '{"text":"hello"}' 'https://chat.example/v1/rooms/r1/chatMessages'`

// sample is a run with one root-cause failure (MSG-SEND-200), two checks it
// blocked, a pass and an error.
func sample() *Result {
	res := &Result{Report: report.Report{Profile: spec.Core, Target: "https://chat.example", Seed: 7, Duration: 95 * time.Second,
		Counts: map[string]int{}, Checks: map[string]int{}}, outcomes: map[Outcome]int{}}
	res.Requirements = []Requirement{
		{ID: "MSG-SEND-200", Text: "send answers 200", Checks: []CheckResult{{Name: "POST answers 200", IDs: []string{"MSG-SEND-200"}, Outcome: Fail, Message: sendFailure, Duration: 1500 * time.Millisecond}}},
		{ID: "MSG-EDIT", Text: "edit", Checks: []CheckResult{{Name: "PUT edits", IDs: []string{"MSG-EDIT"}, Outcome: Blocked, BlockedBy: "MSG-SEND-200"}}},
		{ID: "MSG-GET-ONE", Text: "get one", Checks: []CheckResult{{Name: "GET one", IDs: []string{"MSG-GET-ONE"}, Outcome: Blocked, BlockedBy: "MSG-SEND-200"}}},
		{ID: "USER-SHAPE", Text: "user shape", Checks: []CheckResult{{Name: "GET /v1/user", IDs: []string{"USER-SHAPE"}, Outcome: Pass}}},
		{ID: "ROOM-LIST", Text: "rooms", Checks: []CheckResult{{Name: "GET rooms", IDs: []string{"ROOM-LIST"}, Outcome: Error, Message: "no answer from the target: timeout"}}},
		{ID: "HTTP-EVENTS", Text: "no events", Verdict: NotCheckable, Reason: "nothing to see"},
	}
	res.tally(nil)
	return res
}

func TestVerdictsAndExitCode(t *testing.T) {
	res := sample()
	want := map[string]Outcome{"MSG-SEND-200": Fail, "MSG-EDIT": Blocked, "USER-SHAPE": Pass, "ROOM-LIST": Error, "HTTP-EVENTS": NotCheckable}
	for _, q := range res.Requirements {
		if w, ok := want[q.ID]; ok && q.Verdict != w {
			t.Errorf("%s: verdict %s, want %s", q.ID, q.Verdict, w)
		}
	}
	if res.ExitCode() != ExitFail || res.Count(Fail) != 1 || res.Count(Blocked) != 2 {
		t.Errorf("exit %d, counts %v", res.ExitCode(), res.Checks)
	}
	res.markStopped("out of time", time.Now().Add(-time.Hour))
	if res.Halted == "" || res.ExitCode() != ExitFail {
		t.Errorf("a run that failed and then stopped must exit 1 (a verdict beats an incomplete run): %d", res.ExitCode())
	}
	ok := &Result{Report: report.Report{Counts: map[string]int{}, Checks: map[string]int{},
		Requirements: []Requirement{{ID: "USER-SHAPE", Checks: []CheckResult{{Name: "a", Outcome: Pass}, {Name: "b", Outcome: NotRun}}}}}, outcomes: map[Outcome]int{}}
	ok.tally(nil)
	if ok.ExitCode() != ExitPass {
		t.Errorf("pass: exit %d", ok.ExitCode())
	}
	ok.markStopped("interrupted", time.Now())
	if ok.ExitCode() != ExitUnreachable || !strings.Contains(ok.Requirements[0].Checks[1].Message, "interrupted") {
		t.Errorf("stopped: exit %d, %+v", ok.ExitCode(), ok.Requirements[0].Checks)
	}
}

func writeBaselineFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "baseline.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBaseline(t *testing.T) {
	for _, tc := range []struct {
		name, baseline string
		exit           int
		fixed          []string
		known          int
	}{
		{"new failure", "known: {}\n", ExitFail, nil, 0},
		{"known failure", "known:\n  MSG-SEND-200: answers 201, ticket 12\n", ExitUnreachable /* the ERROR remains */, nil, 1},
		{"fixed entry", "known:\n  MSG-SEND-200: answers 201\n  USER-SHAPE: was broken\n", ExitFail, []string{"USER-SHAPE"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := LoadBaseline(writeBaselineFile(t, tc.baseline))
			if err != nil {
				t.Fatal(err)
			}
			res := sample()
			res.applyBaseline(b)
			if got := res.ExitCode(); got != tc.exit {
				t.Errorf("exit %d, want %d", got, tc.exit)
			}
			if strings.Join(res.Fixed, ",") != strings.Join(tc.fixed, ",") {
				t.Errorf("fixed %v, want %v", res.Fixed, tc.fixed)
			}
			if res.Counts["KNOWN"] != tc.known {
				t.Errorf("KNOWN requirements %d, want %d", res.Counts["KNOWN"], tc.known)
			}
		})
	}
	// Without the ERROR, a known failure and the checks it blocked pass the run.
	res := sample()
	res.Requirements = res.Requirements[:4]
	b, _ := LoadBaseline(writeBaselineFile(t, "known:\n  MSG-SEND-200: answers 201\n"))
	res.applyBaseline(b)
	if res.ExitCode() != ExitPass {
		t.Errorf("known failure with its blocked checks: exit %d, want 0", res.ExitCode())
	}
	for _, bad := range []string{"known:\n  NOPE-1: x\n", "known:\n  MSG-SEND-200: \"\"\n", "knwon: {}\n", "known:\n  HTTP-EVENTS: x\n"} {
		if _, err := LoadBaseline(writeBaselineFile(t, bad)); err == nil {
			t.Errorf("baseline %q accepted", bad)
		}
	}
}

func TestWriteBaselineRoundTrips(t *testing.T) {
	res := sample()
	p := filepath.Join(t.TempDir(), "b.yaml")
	if _, err := res.WriteBaseline(p, client.NewRedactor("hello")); err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(p)
	if err != nil {
		raw, _ := os.ReadFile(p)
		t.Fatalf("%v\n%s", err, raw)
	}
	if len(b.Known) != 1 || !strings.Contains(b.Known["MSG-SEND-200"], "answered 201") || strings.Contains(b.Known["MSG-SEND-200"], "hello") {
		t.Errorf("baseline %v", b.Known)
	}
	res = sample()
	res.applyBaseline(b)
	if res.Counts["FAIL"] != 0 || res.Counts["KNOWN"] != 1 {
		t.Errorf("a run against its own baseline: %v", res.Counts)
	}
}

func TestDiff(t *testing.T) {
	old, cur := sample(), sample()
	// USER-SHAPE regresses, MSG-SEND-200 is fixed, ROOM-LIST changes from ERROR to PASS.
	cur.Requirements[3].Checks[0].Outcome = Fail
	cur.Requirements[0].Checks[0].Outcome = Pass
	cur.Requirements[4].Checks[0].Outcome = Pass
	cur.tally(nil)
	d := Compare(roundTrip(t, old), roundTrip(t, cur))
	if len(d.NewFailures) != 1 || d.NewFailures[0].ID != "USER-SHAPE" || !d.Regressed() {
		t.Errorf("new failures %+v", d.NewFailures)
	}
	if len(d.Fixed) != 1 || d.Fixed[0].ID != "MSG-SEND-200" {
		t.Errorf("fixed %+v", d.Fixed)
	}
	if len(d.Changed) == 0 {
		t.Errorf("changed %+v", d.Changed)
	}
	var b bytes.Buffer
	d.Print(&b)
	if !strings.Contains(b.String(), "USER-SHAPE") || !strings.Contains(b.String(), "REGRESSED") {
		t.Errorf("diff output:\n%s", b.String())
	}
	if Compare(old, old).Regressed() {
		t.Error("a run compared with itself regressed")
	}
}

// roundTrip writes a result as a JSON report and reads it back.
func roundTrip(t *testing.T, r *Result) *Result {
	t.Helper()
	p := filepath.Join(t.TempDir(), "r.json")
	if err := r.WriteReports(nil, "", p, ""); err != nil {
		t.Fatal(err)
	}
	back, err := LoadResult(p)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestJUnitListsSelectedChecksWithOutcomes(t *testing.T) {
	res := sample()
	res.Requirements[3].Checks = append(res.Requirements[3].Checks, CheckResult{Name: "filtered", Outcome: NotRun, Message: "not selected (--label-filter, --focus)"})
	var b bytes.Buffer
	if err := res.settled().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	// A BLOCKED check is not judged: a skip naming its blocker; the FAIL it
	// names is the one failure.
	if suites.Tests != 5 || suites.Failures != 1 || suites.Errors != 1 {
		t.Errorf("tests %d failures %d errors %d\n%s", suites.Tests, suites.Failures, suites.Errors, b.String())
	}
	for _, c := range suites.Suite.Cases {
		if strings.HasPrefix(c.Name, "filtered") {
			t.Error("a check that was not selected is listed")
		}
		if c.Failure != nil && c.Failure.Type == "FAIL" && c.Failure.Text != sendFailure {
			t.Errorf("JUnit failure text differs from the check's message:\n%s", c.Failure.Text)
		}
	}
}

func TestHTMLReportPutsVerdictAndRootCausesFirst(t *testing.T) {
	res := sample()
	res.judge(CoverageGate{})
	res.ExitStatus = res.ExitCode()
	var b bytes.Buffer
	if err := res.settled().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var order []string // ids of the page's sections, in document order
	var external []string
	var pres []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "id" {
					order = append(order, a.Val)
				}
				if (a.Key == "src" || a.Key == "href") && a.Val != "" {
					external = append(external, a.Val)
				}
			}
			if n.Data == "link" || n.Data == "script" {
				external = append(external, n.Data)
			}
			if n.Data == "pre" && n.FirstChild != nil {
				pres = append(pres, n.FirstChild.Data)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if strings.Join(order, " ") != "verdict counts target judged failures coverage unjudged requirements" {
		t.Errorf("sections in order %v", order)
	}
	if len(external) > 0 {
		t.Errorf("the report loads external assets: %v", external)
	}
	if len(pres) == 0 || pres[0] != sendFailure {
		t.Errorf("the first failure text is not the check's message: %q", pres)
	}
	page := b.String()
	for _, want := range []string{"FAIL (exit 1", "2 checks blocked by MSG-SEND-200", "1m35s", "white-space:pre-wrap", "overflow-wrap:anywhere"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Index(page, "2 checks blocked by MSG-SEND-200") > strings.Index(page, `id="requirements"`) {
		t.Error("blocked checks are not folded under their root cause")
	}
}

func TestReportsAreRedacted(t *testing.T) {
	tok := `a&b<c>"d+e`
	res := sample()
	res.Requirements[0].Checks[0].Message = "echo: " + tok + " " + strings.ReplaceAll(tok, "&", "&amp;")
	dir := t.TempDir()
	j, js, h := filepath.Join(dir, "j.xml"), filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	if err := res.WriteReports(client.NewRedactor(tok), j, js, h); err != nil {
		t.Fatal(err)
	}
	enc, _ := json.Marshal(tok)
	for _, p := range []string{j, js, h} {
		raw, _ := os.ReadFile(p)
		for _, form := range []string{tok, "a&amp;b&lt;c&gt;", `a\u0026b\u003cc\u003e`, string(enc[1 : len(enc)-1])} {
			if bytes.Contains(raw, []byte(form)) {
				t.Errorf("%s holds the token as %q", filepath.Base(p), form)
			}
		}
	}
}

func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	if err := CheckOutputs(filepath.Join(dir, "ok.json"), ""); err != nil {
		t.Errorf("writable path refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ok.json")); err == nil {
		t.Error("checking a path left a file behind")
	}
	for _, bad := range []string{filepath.Join(dir, "missing", "j.xml"), dir} {
		if err := CheckOutputs(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestReadable(t *testing.T) {
	for d, want := range map[time.Duration]string{850 * time.Millisecond: "850ms", 12340 * time.Millisecond: "12.3s", 245 * time.Second: "4m05s", 62 * time.Minute: "1h02m"} {
		if got := Readable(d); got != want {
			t.Errorf("Readable(%s) = %s, want %s", d, got, want)
		}
	}
}
