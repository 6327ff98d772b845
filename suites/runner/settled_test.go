package runner

import "github.com/chatrooms/conformance/suites/report"

// settled is the run's report with its exit code stated, as the runner
// hands it to the writers.
func (r *Result) settled() *report.Report {
	r.ExitStatus = r.ExitCode()
	return &r.Report
}
