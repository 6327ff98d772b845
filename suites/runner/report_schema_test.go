package runner_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/suites/runner/internal/reportschema"
)

// report.schema.json is the schema of the Go types of the JSON report as
// they are now: a field added, renamed or dropped without regenerating it
// fails here.
func TestReportSchemaIsCurrent(t *testing.T) {
	want, err := reportschema.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("report.schema.json")
	if err != nil {
		t.Fatalf("%v: run `go generate ./suites/runner` from the module root", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	i := 0
	for i < min(len(g), len(w)) && g[i] == w[i] {
		i++
	}
	line := func(ls []string) string {
		if i < len(ls) {
			return strings.TrimSpace(ls[i])
		}
		return "(end of file)"
	}
	t.Fatalf("report.schema.json is not the schema of the report's Go types (line %d: has %q, the types say %q): run `go generate ./suites/runner` from the module root and commit the file",
		i+1, line(g), line(w))
}
