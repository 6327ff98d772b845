// Package variants runs every conforming variant of the self-test: the
// core profile must pass each (see suites/selftest).
package variants

import (
	"testing"

	_ "github.com/chatrooms/conformance/suites/selftest" // see matrixrun's imports
	"github.com/chatrooms/conformance/suites/selftest/matrixrun"
)

func TestEveryVariantPasses(t *testing.T) { matrixrun.Check(t, "--variants") }
