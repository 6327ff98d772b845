package main

import (
	"encoding/json"
	"encoding/xml"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	planted "github.com/chatrooms/conformance/suites/selftest"
)

// One run, four outputs, one story: against servers that each carry one
// planted defect (a send answered 202 without a body, which blocks checks;
// a new message with v 0; readBy written as a string), the terminal, the
// JSON, the JUnit and the HTML report of the same run count the same checks
// by outcome, the same requirements by verdict and the same number judged.
// The runs take the checks of the requirements those defects meet and
// those they block, with the run-wide judges (a whole run each would cost
// minutes under -race).
func TestReportsAgreeInEveryFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("three core runs")
	}
	const filter = "MSG-SEND-200 || MSG-SEND-DEFAULTS || MSG-GET-ONE || MSG-EDIT || UNREAD-READBY || UNREAD-MARK-READ || PAGE-LIMIT"
	for _, fault := range []string{"MSG-SEND-200/shape#2", "MSG-SEND-DEFAULTS/shape#2", "UNREAD-READBY/shape"} {
		t.Run(strings.ReplaceAll(fault, "/", "_"), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			desc := filepath.Join(dir, "target.json")
			stop, err := planted.Serve(fault, 2, desc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
			js, ju, ht := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.html")
			code, out := chatconform(t, "--target", desc, "--profile", "core", "--seed", "2", "--eventually", "3s",
				"--label-filter", filter, "--json", js, "--junit", ju, "--html", ht)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (the fault fails a requirement)\n%s", code, out)
			}

			// The JSON is the reference the others are held to.
			var rep struct {
				Checks   map[string]int `json:"checks"`
				Counts   map[string]int `json:"counts"`
				Coverage struct {
					Judged int `json:"judged"`
					Total  int `json:"total"`
				} `json:"coverage"`
			}
			readJSON(t, js, &rep)
			total := 0
			for _, n := range rep.Checks {
				total += n
			}
			if rep.Counts["FAIL"] == 0 || total == 0 {
				t.Fatalf("the JSON counts no failing requirement or no check: %+v", rep)
			}

			// Terminal: the summary line, the verdict lines, the coverage.
			m := regexp.MustCompile(`(?m)^chatconform: (\d+) checks \(([^)]*)\)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no summary line:\n%s", out)
			}
			if n, _ := strconv.Atoi(m[1]); n != total {
				t.Errorf("terminal counts %d checks, JSON %d", n, total)
			}
			if got := parseCounts(m[2], ", "); !maps.Equal(got, rep.Checks) {
				t.Errorf("terminal check counts %v, JSON %v", got, rep.Checks)
			}
			section := out[strings.Index(out, "Verdict per requirement"):]
			section = section[:strings.Index(section, "\nchatconform: ")]
			verdicts := map[string]int{}
			for _, l := range regexp.MustCompile(`(?m)^  (PASS|FAIL|BLOCKED|ERROR|INCONCLUSIVE|KNOWN|SKIP|NOT RUN|N/A) +[A-Z0-9]+(-[A-Z0-9]+)+ `).FindAllStringSubmatch(section, -1) {
				verdicts[l[1]]++
			}
			listed := maps.Clone(rep.Counts)
			delete(listed, "NOT RUN") // not listed one by one: counted with the run's reason below
			if !maps.Equal(verdicts, listed) {
				t.Errorf("terminal verdicts %v, JSON %v", verdicts, rep.Counts)
			}
			if rq := regexp.MustCompile(`(?m)^chatconform: \d+ requirements: (.*)$`).FindStringSubmatch(out); rq == nil || !maps.Equal(parseCounts(rq[1], ", "), rep.Counts) {
				t.Errorf("terminal requirement counts %v, JSON %v", rq, rep.Counts)
			}
			if want := "judged " + strconv.Itoa(rep.Coverage.Judged) + " of " + strconv.Itoa(rep.Coverage.Total) + " checkable"; !strings.Contains(out, want) {
				t.Errorf("terminal does not say %q:\n%s", want, out[max(0, len(out)-400):])
			}

			if b := regexp.MustCompile(`failing requirements? \((\d+) checks? blocked by them\)`).FindStringSubmatch(out); b != nil {
				if n, _ := strconv.Atoi(b[1]); n != rep.Checks["BLOCKED"] {
					t.Errorf("terminal: %s checks blocked, JSON %d", b[1], rep.Checks["BLOCKED"])
				}
			} else if rep.Checks["BLOCKED"] > 0 {
				t.Errorf("terminal names no blocked check, JSON %d", rep.Checks["BLOCKED"])
			}

			// JUnit: one case per check; FAIL a failure, ERROR and
			// INCONCLUSIVE errors, the rest skipped.
			var suites struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Errors   int `xml:"errors,attr"`
			}
			raw, err := os.ReadFile(ju)
			if err != nil {
				t.Fatal(err)
			}
			if err := xml.Unmarshal(raw, &suites); err != nil {
				t.Fatal(err)
			}
			if suites.Tests != total || suites.Failures != rep.Checks["FAIL"] || suites.Errors != rep.Checks["ERROR"]+rep.Checks["INCONCLUSIVE"] {
				t.Errorf("JUnit: %d tests, %d failures, %d errors; JSON checks %v", suites.Tests, suites.Failures, suites.Errors, rep.Checks)
			}

			// HTML: the counts paragraph, the judged line, the failures
			// heading.
			raw, err = os.ReadFile(ht)
			if err != nil {
				t.Fatal(err)
			}
			html := string(raw)
			counts := regexp.MustCompile(`<b>(\d+) requirements:</b> (.*?)<br>\s*<b>Checks:</b> (.*?)</p>`).FindStringSubmatch(html)
			if counts == nil {
				t.Fatalf("no counts in the HTML report")
			}
			spans := regexp.MustCompile(`<[^>]+>`)
			reqs := 0
			for _, n := range rep.Counts {
				reqs += n
			}
			if n, _ := strconv.Atoi(counts[1]); n != reqs {
				t.Errorf("HTML counts %d requirements, JSON %d", n, reqs)
			}
			if got := parseCounts(spans.ReplaceAllString(strings.ReplaceAll(counts[2], "</span><span", "</span>, <span"), ""), ", "); !maps.Equal(got, rep.Counts) {
				t.Errorf("HTML verdicts %v, JSON %v", got, rep.Counts)
			}
			if got := parseCounts(spans.ReplaceAllString(strings.ReplaceAll(counts[3], "</span><span", "</span>, <span"), ""), ", "); !maps.Equal(got, rep.Checks) {
				t.Errorf("HTML check counts %v, JSON %v", got, rep.Checks)
			}
			if want := "judged " + strconv.Itoa(rep.Coverage.Judged) + " of " + strconv.Itoa(rep.Coverage.Total); !strings.Contains(html, want) {
				t.Errorf("HTML does not say %q", want)
			}
			f := regexp.MustCompile(`Failing requirements: (\d+); checks blocked by them: (\d+)`).FindStringSubmatch(html)
			if f == nil {
				t.Fatal("no failures heading in the HTML report")
			}
			if n, _ := strconv.Atoi(f[1]); n != rep.Counts["FAIL"] {
				t.Errorf("HTML: %s failing requirements, JSON %d", f[1], rep.Counts["FAIL"])
			}
			if n, _ := strconv.Atoi(f[2]); n != rep.Checks["BLOCKED"] {
				t.Errorf("HTML: %s checks blocked, JSON %d", f[2], rep.Checks["BLOCKED"])
			}
		})
	}
}

// parseCounts reads "3 PASS, 1 NOT RUN" into {"PASS": 3, "NOT RUN": 1}.
func parseCounts(s, sep string) map[string]int {
	out := map[string]int{}
	for _, part := range strings.Split(strings.TrimSpace(s), sep) {
		n, outcome, ok := strings.Cut(strings.TrimSpace(part), " ")
		if !ok {
			continue
		}
		if v, err := strconv.Atoi(n); err == nil {
			out[outcome] = v
		}
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}
