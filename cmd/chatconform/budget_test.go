package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/suites/runner"
)

// The budget flags of the random checks reach the run's configuration
// (and from there the checks' options: see the runner's envOptions), and
// leaving them out leaves the defaults to the checks.
func TestBudgetFlagsReachTheRun(t *testing.T) {
	var got []runner.Config
	prev := runSuite
	runSuite = func(_ context.Context, _ *runner.Suite, cfg runner.Config, _ ginkgo.GinkgoTestingT) (*runner.Result, error) {
		got = append(got, cfg)
		return &runner.Result{}, nil
	}
	t.Cleanup(func() { runSuite = prev })
	for _, tc := range []struct {
		args                     []string
		examples, modelSequences int
	}{
		{[]string{"--seed", "1"}, 0, 0},
		{[]string{"--seed", "1", "--model-sequences", "9", "--examples", "3"}, 3, 9},
		{[]string{"--seed", "1", "-model-sequences=2"}, 0, 2},
	} {
		got = nil
		var out bytes.Buffer
		run(context.Background(), tc.args, noEnv, &out, &out)
		if len(got) != 1 {
			t.Fatalf("%q: ran %d times\n%s", tc.args, len(got), out.String())
		}
		if got[0].Examples != tc.examples || got[0].ModelSequences != tc.modelSequences {
			t.Errorf("%q: examples %d, model sequences %d; want %d, %d", tc.args, got[0].Examples, got[0].ModelSequences, tc.examples, tc.modelSequences)
		}
	}
	var out bytes.Buffer
	run(context.Background(), []string{"--help"}, noEnv, &out, &out)
	if !bytes.Contains(out.Bytes(), []byte("-model-sequences sequences\n")) {
		t.Errorf("--help does not name --model-sequences by what it takes:\n%s", out.String())
	}
}
