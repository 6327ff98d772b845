package runner

import (
	"bytes"
	"io"
	"testing"

	"github.com/chatrooms/conformance/suites/report"
)

// A report read back from its JSON renders exactly as the run rendered it,
// in every format: the writers read nothing the JSON does not hold. The
// results cover a failure with the checks it blocked, a breach met on the
// way by several checks (rows of another check), a check that failed on
// one of its requirements and is blocked on another, one that passed
// without applying its requirement, and a known failure.
func TestAReportReadBackRendersAsTheRunDid(t *testing.T) {
	known := sample()
	known.applyBaseline(&Baseline{Known: map[string]string{"MSG-SEND-200": "answers 201"}})
	several := synthetic(
		req("MSG-SEND-200", CheckResult{Name: "sends", IDs: []string{"MSG-SEND-200", "MSG-SEND-DEFAULTS"}, Outcome: Fail, Fails: "MSG-SEND-200", Message: "answered 201"}),
		req("MSG-SEND-DEFAULTS", CheckResult{Name: "sends", IDs: []string{"MSG-SEND-200", "MSG-SEND-DEFAULTS"}, Outcome: Blocked, Whole: Fail, BlockedBy: "MSG-SEND-200"}),
		// passed without applying its requirement: SKIP under it, PASS as a check
		req("ROOM-LAST-ACCESS", CheckResult{Name: "reads", Outcome: Skip, Whole: Pass, Message: "no lastAccessTime given"}),
	)
	for name, res := range map[string]*Result{"sample": sample(), "folded": foldSample(), "several": several, "known": known} {
		run := res.settled()
		var raw bytes.Buffer
		if err := run.WriteJSON(&raw); err != nil {
			t.Fatal(err)
		}
		back, err := report.Decode(raw.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range []struct {
			format string
			write  func(*report.Report, io.Writer) error
		}{
			{"JSON", (*report.Report).WriteJSON},
			{"JUnit", (*report.Report).WriteJUnit},
			{"HTML", (*report.Report).WriteHTML},
			{"text", func(r *report.Report, w io.Writer) error { r.Print(w); return nil }},
			{"text -v", func(r *report.Report, w io.Writer) error { r.PrintVerbose(w); return nil }},
		} {
			var a, b bytes.Buffer
			if err := w.write(run, &a); err != nil {
				t.Fatal(err)
			}
			if err := w.write(back, &b); err != nil {
				t.Fatal(err)
			}
			if a.String() != b.String() {
				t.Errorf("%s: the %s of the report read back differs from the run's:\n%s\n---\n%s", name, w.format, a.String(), b.String())
			}
			if a.Len() == 0 {
				t.Errorf("%s: the %s is empty", name, w.format)
			}
		}
	}
}
