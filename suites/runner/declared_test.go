package runner

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestChecksAreReportedWhereTheyAreDeclared: Ginkgo places each check at
// the line of the area's file that declares it, not inside the helpers
// that wrap It, DescribeTable and Entry, so --focus-file and an editor
// jump to the check.
func TestChecksAreReportedWhereTheyAreDeclared(t *testing.T) {
	checks := Prepare(0).Checks()
	if len(checks) == 0 {
		t.Fatal("no checks declared")
	}
	for _, c := range checks {
		file, _, _ := strings.Cut(filepath.Base(c.Declared), ":")
		if file == "declare.go" || !strings.Contains(c.Declared, filepath.Join("suites", "conformance")) {
			t.Errorf("%s is reported at %s, not in the area file that declares it", c.Name, c.Declared)
		}
	}
}
