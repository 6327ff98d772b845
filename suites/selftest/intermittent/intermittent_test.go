// Package intermittent runs the self-test's intermittent faults (one
// answer in N broken), each against the whole core profile, apart from
// the other faults so that each package fits in go test's default budget.
package intermittent

import (
	"testing"

	"github.com/chatrooms/conformance/suites/selftest/matrixrun"
)

func TestIntermittentFaults(t *testing.T) {
	matrixrun.Check(t, "--faults", "--only", "/intermittent", "--except", "held-out")
}
