// Package variants runs every conforming variant of the self-test: the
// core profile must pass each (see suites/selftest), with its checks one
// after another and with 8 of them at once, as a far target gets them.
package variants

import (
	"testing"

	_ "github.com/chatrooms/conformance/suites/selftest" // see matrixrun's imports
	"github.com/chatrooms/conformance/suites/selftest/matrixrun"
)

func TestEveryVariantPasses(t *testing.T) { matrixrun.Check(t, "--variants") }

// Beside each other, the checks must not take another check's writes for
// the variant's (a conforming server has no other freedom to show them).
func TestEveryVariantPassesWithChecksBesideEachOther(t *testing.T) {
	matrixrun.Check(t, "--variants", "--concurrent-checks", "8")
}
