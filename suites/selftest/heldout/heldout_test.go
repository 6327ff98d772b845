// Package heldout runs the held-out faults of the self-test (origins
// held-out and held-out-2 to held-out-8: defects of the independent implementation
// written blind): each is caught by its own requirement or carries its
// reason.
package heldout

import (
	"testing"

	_ "github.com/chatrooms/conformance/suites/selftest" // see matrixrun's imports
	"github.com/chatrooms/conformance/suites/selftest/matrixrun"
)

func TestHeldOutFaults(t *testing.T) { matrixrun.Check(t, "--only", "held-out") }

func TestHeldOut2Faults(t *testing.T) { matrixrun.Check(t, "--only", "held-out-2") }

func TestHeldOut3Faults(t *testing.T) { matrixrun.Check(t, "--only", "held-out-3") }

func TestHeldOut4Faults(t *testing.T) { matrixrun.Check(t, "--only", "held-out-4") }

func TestHeldOut5Faults(t *testing.T) { matrixrun.Check(t, "--only", "held-out-5") }

func TestHeldOut6Faults(t *testing.T) { matrixrun.Check(t, "--only", "held-out-6") }

func TestHeldOut7Faults(t *testing.T) { matrixrun.Check(t, "--only", "held-out-7") }

func TestHeldOut8Faults(t *testing.T) { matrixrun.Check(t, "--only", "held-out-8") }
