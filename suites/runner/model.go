package runner

import "github.com/chatrooms/conformance/suites/report"

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
