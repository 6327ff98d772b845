package runner

import (
	"io"

	"github.com/chatrooms/conformance/suites/report"
)

// The run report's model is package report's: the runner builds one from
// the Ginkgo checks it ran (summarize) and writes it. These names keep the
// runner's code and its callers short.
type (
	Outcome     = report.Outcome
	CheckResult = report.Check
	Requirement = report.Requirement
	Coverage    = report.Coverage
	Gap         = report.Gap
	ReplayNote  = report.ReplayNote
)

// The outcomes, as package report names them.
const (
	NotRun       = report.NotRun
	Skip         = report.Skip
	Pass         = report.Pass
	Known        = report.Known
	Blocked      = report.Blocked
	Inconclusive = report.Inconclusive
	Error        = report.Error
	Fail         = report.Fail
	NotCheckable = report.NotCheckable
)

// ReportFormat is the version of the JSON report's shape (report.Format).
const ReportFormat = report.Format

// Caps on what a report keeps (see package report).
const (
	MaxMessage         = report.MaxMessage
	MaxReportExchanges = report.MaxExchanges
)

var worst = report.Worst

var (
	shorten  = report.Shorten
	Readable = report.Readable
)

// Cause is a failing requirement in one line (report.Cause).
type Cause = report.Cause

// settle states the run's exit code in its report, which every writer
// reads.
func (r *Result) settle() { r.ExitStatus = r.ExitCode() }

// Print writes the run's summary for a terminal (report.Report.Print),
// with its exit code as it stands.
func (r *Result) Print(w io.Writer) { r.settle(); r.Report.Print(w) }

// PrintVerbose is Print listing every blocked check.
func (r *Result) PrintVerbose(w io.Writer) { r.settle(); r.Report.PrintVerbose(w) }

// Verdict is the run's overall verdict in one line (report.Report.Verdict).
func (r *Result) Verdict() string { r.settle(); return r.Report.Verdict() }
