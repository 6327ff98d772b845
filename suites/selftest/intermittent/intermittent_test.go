// Package intermittent runs the self-test's intermittent faults (one
// answer in N broken), each against the whole core profile, apart from
// the other faults so that each package fits in go test's default budget.
package intermittent

import (
	"testing"

	_ "github.com/chatrooms/conformance/suites/selftest" // see matrixrun's imports
	"github.com/chatrooms/conformance/suites/selftest/matrixrun"
)

func TestIntermittentFaults(t *testing.T) {
	matrixrun.Check(t, "--faults", "--only", "/intermittent", "--except", "held-out,held-out-2,held-out-3,held-out-4,held-out-5,held-out-6,held-out-7,held-out-8")
}
