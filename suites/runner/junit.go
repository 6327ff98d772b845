package runner

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
)

// writeJUnit writes the run as JUnit XML: one test case per selected check
// (checks of another profile and checks not selected are not part of the
// run and are not listed), with the outcome and the same failure text as
// every other output. A run that stopped before any check is one test case
// that says why.
func (r *Result) writeJUnit(w io.Writer) error {
	name := "Chat Rooms API conformance (" + string(r.Profile) + ")"
	if r.Bundled {
		name += " of the bundled reference server (no target named)"
	}
	judged := ""
	if r.Coverage != nil {
		judged = fmt.Sprintf("%d/%d", r.Coverage.Judged, r.Coverage.Total)
	}
	suite := reporters.JUnitTestSuite{
		Name:      name,
		Package:   r.Target,
		Time:      r.Duration.Seconds(),
		Timestamp: r.Started.UTC().Format("2006-01-02T15:04:05"),
		Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
			{Name: "Profile", Value: string(r.Profile)}, {Name: "Target", Value: r.Target},
			{Name: "Bundled", Value: fmt.Sprint(r.Bundled)}, {Name: "TargetNote", Value: r.TargetNote},
			{Name: "Seed", Value: fmt.Sprint(r.Seed)}, {Name: "ExitCode", Value: fmt.Sprint(r.ExitCode())},
			{Name: "Halted", Value: r.Halted}, {Name: "Judged", Value: judged},
			{Name: "CoverageShort", Value: strings.Join(r.CoverageShort, "; ")}, {Name: "Version", Value: r.Version},
		}},
	}
	// The checks every output counts: each selected check once, with its
	// own outcome, and the run-wide judges.
	for _, c := range r.checkList(r.selectedNames()) {
		suite.TestCases = append(suite.TestCases, r.junitCase(c))
	}
	if len(suite.TestCases) == 0 && r.Halted != "" {
		tc := reporters.JUnitTestCase{Name: "chatconform preflight", Classname: "chatconform", Status: "error"}
		if r.ExitCode() == ExitFail {
			tc.Status, tc.Failure = "failed", &reporters.JUnitFailure{Message: r.Halted, Type: "FAIL", Description: r.Halted}
		} else {
			tc.Error = &reporters.JUnitError{Message: r.Halted, Type: "ERROR", Description: r.Halted}
		}
		suite.TestCases = append(suite.TestCases, tc)
	}
	for _, tc := range suite.TestCases {
		suite.Tests++
		switch {
		case tc.Failure != nil:
			suite.Failures++
		case tc.Error != nil:
			suite.Errors++
		case tc.Skipped != nil:
			suite.Skipped++
		}
	}
	all := reporters.JUnitTestSuites{Tests: suite.Tests, Disabled: suite.Skipped, Errors: suite.Errors, Failures: suite.Failures,
		Time: suite.Time, TestSuites: []reporters.JUnitTestSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func (r *Result) junitCase(c CheckResult) reporters.JUnitTestCase {
	tc := reporters.JUnitTestCase{Name: c.Name + " [" + strings.Join(c.IDs, ", ") + "]", Classname: c.Area, Time: c.Duration.Seconds()}
	msg := c.Outcome.String()
	if c.Message != "" {
		msg += ": " + firstLine(c.Message)
	}
	switch c.Outcome {
	case Pass:
		tc.Status = "passed"
	case Fail:
		tc.Status, tc.Failure = "failed", &reporters.JUnitFailure{Message: msg, Type: "FAIL", Description: c.Message}
	case Blocked:
		// Not judged: the FAIL it names is the failure, reported once, on
		// the blocking requirement's own check.
		text := "blocked by " + c.BlockedBy + " (its own check says why)"
		if r.baseline.has(c.BlockedBy) {
			text += "; a known failure"
		}
		tc.Status, tc.Skipped = "skipped", &reporters.JUnitSkipped{Message: "BLOCKED: " + text}
	case Error, Inconclusive:
		tc.Status, tc.Error = "error", &reporters.JUnitError{Message: msg, Type: c.Outcome.String(), Description: c.Message}
	default: // KNOWN, SKIP, NOT RUN
		tc.Status, tc.Skipped = "skipped", &reporters.JUnitSkipped{Message: msg}
	}
	return tc
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
