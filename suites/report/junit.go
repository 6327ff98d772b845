package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

// WriteJUnit writes the run as JUnit XML: one test case per selected check
// (checks of another profile and checks not selected are not part of the
// run and are not listed), with the outcome and the same failure text as
// every other output. A run that stopped before any check is one test case
// that says why.
func (r *Report) WriteJUnit(w io.Writer) error {
	name := "Chat Rooms API conformance (" + string(r.Profile) + ")"
	if r.Bundled {
		name += " of the bundled reference server (no target named)"
	}
	if r.Proxy != nil {
		name = "chatconform proxy session (" + string(r.Profile) + ")"
	}
	judged := ""
	if r.Coverage != nil {
		judged = fmt.Sprintf("%d/%d", r.Coverage.Judged, r.Coverage.Total)
	}
	suite := junit.Testsuite{
		Name:      name,
		Package:   r.Target,
		Time:      seconds(r.Duration),
		Timestamp: r.Started.UTC().Format("2006-01-02T15:04:05"),
	}
	for _, p := range [][2]string{
		{"Profile", string(r.Profile)}, {"Target", r.Target},
		{"Bundled", fmt.Sprint(r.Bundled)}, {"TargetNote", r.TargetNote},
		{"Seed", fmt.Sprint(r.Seed)}, {"ExitCode", fmt.Sprint(r.ExitStatus)},
		{"Halted", r.Halted}, {"Judged", judged},
		{"CoverageShort", strings.Join(r.CoverageShort, "; ")}, {"Version", r.Version},
	} {
		suite.AddProperty(p[0], p[1])
	}
	known := map[string]bool{} // requirements the baseline lists
	for _, q := range r.Requirements {
		known[q.ID] = q.Known != ""
	}
	// The checks every output counts: each selected check once, with its
	// own outcome, and the run-wide judges.
	for _, c := range r.CheckList(r.SelectedNames()) {
		suite.AddTestcase(junitCase(c, known[c.BlockedBy]))
	}
	if len(suite.Testcases) == 0 && r.Halted != "" {
		tc := junit.Testcase{Name: "chatconform preflight", Classname: "chatconform", Status: "error"}
		if r.ExitStatus == ExitFail {
			tc.Status, tc.Failure = "failed", &junit.Result{Message: r.Halted, Type: "FAIL", Data: r.Halted}
		} else {
			tc.Error = &junit.Result{Message: r.Halted, Type: "ERROR", Data: r.Halted}
		}
		suite.AddTestcase(tc)
	}
	all := junit.Testsuites{Time: suite.Time}
	all.AddSuite(suite)
	all.Disabled = all.Skipped // as readers that count disabled cases expect
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	return all.WriteXML(w)
}

// junitCase is a check as a JUnit test case; knownBlocker says the
// requirement that blocked it is a known failure (the baseline lists it).
func junitCase(c Check, knownBlocker bool) junit.Testcase {
	tc := junit.Testcase{Name: c.Name + " [" + strings.Join(c.IDs, ", ") + "]", Classname: c.Area, Time: seconds(c.Duration)}
	msg := c.Outcome.String()
	if c.Message != "" {
		msg += ": " + FirstLine(c.Message)
	}
	switch c.Outcome {
	case Pass:
		tc.Status = "passed"
	case Fail:
		tc.Status, tc.Failure = "failed", &junit.Result{Message: msg, Type: "FAIL", Data: c.Message}
	case Blocked:
		// Not judged: the FAIL it names is the failure, reported once, on
		// the blocking requirement's own check.
		text := "blocked by " + c.BlockedBy + " (its own check says why)"
		if knownBlocker {
			text += "; a known failure"
		}
		tc.Status, tc.Skipped = "skipped", &junit.Result{Message: "BLOCKED: " + text}
	case Error, Inconclusive:
		tc.Status, tc.Error = "error", &junit.Result{Message: msg, Type: c.Outcome.String(), Data: c.Message}
	default: // KNOWN, SKIP, NOT RUN
		tc.Status, tc.Skipped = "skipped", &junit.Result{Message: msg}
	}
	return tc
}

// seconds is a duration as JUnit writes it.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// FirstLine is the first line of s, without the white space around it.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
