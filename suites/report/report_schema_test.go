package report_test

import (
	"testing"

	"github.com/chatrooms/conformance/suites/internal/schemagen"
	"github.com/chatrooms/conformance/suites/report/internal/reportschema"
)

// report.schema.json is the schema of the Go types of the JSON report as
// they are now: a field added, renamed or dropped without regenerating it
// fails here.
func TestReportSchemaIsCurrent(t *testing.T) {
	stale, err := schemagen.Stale("report.schema.json", "./suites/report", reportschema.Generate)
	if err != nil {
		t.Fatal(err)
	}
	if stale != "" {
		t.Fatal(stale)
	}
}
