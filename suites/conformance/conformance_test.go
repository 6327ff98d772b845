package conformance_test

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/history"
	"github.com/chatrooms/conformance/suites/runner"
)

// Flags of the test binary, so `go test ./suites/conformance -args --target t.yaml`
// and `ginkgo -p ./suites/conformance -- --target t.yaml` select a target, a
// profile and a seed the way chatconform does (CHAT_BASE_URL, CHAT_TOKEN,
// ... included).
var (
	targetFile = flag.String("target", "", "target description file; without it (and without CHAT_BASE_URL/CHAT_TOKEN) an in-process reference server is tested")
	profile    = flag.String("profile", "", "core or reference (default: reference for the bundled server, core otherwise)")
	seed       = flag.Uint64("seed", 0, "seed for generated data and check order (default: Ginkgo's random seed)")
)

var suite = runner.Prepare(2 * time.Minute)

func TestConformance(t *testing.T) {
	sc, rc := ginkgo.GinkgoConfiguration()
	cfg := runner.Config{
		// A generous rate limit, so the rate-limit headers are checked too.
		Bundled:        reference.Config{RateLimit: 1_000_000},
		Seed:           *seed,
		Timeout:        15 * time.Second,
		Eventually:     5 * time.Second,
		Process:        ginkgo.GinkgoParallelProcess(),
		SuiteConfig:    sc,
		ReporterConfig: rc,
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(sc.RandomSeed)
	}
	if *profile != "" {
		p, err := spec.ParseProfile(*profile)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Profile = p
	}
	d, err := runner.ResolveTarget(runner.Inputs{File: *targetFile})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Target = d
	cfg.Selection.LabelFilter = sc.LabelFilter
	res, err := suite.Run(context.Background(), cfg, t)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("profile %s, seed %d, target %s: %v", res.Profile, res.Seed, res.Target, res.Counts)
	if code := res.ExitCode(); code != 0 {
		t.Errorf("the run would exit %d: %v", code, res.Counts)
	}
}

// Every checkable requirement of the catalogue has at least one check.
func TestEveryRequirementHasACheck(t *testing.T) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]int{}
	checks := suite.Checks()
	if len(checks) < 60 {
		t.Fatalf("only %d checks declared", len(checks))
	}
	for _, c := range checks {
		for _, id := range c.IDs {
			covered[id]++
		}
	}
	// The history checker judges its requirements over every answer of a
	// run, with no Ginkgo check of its own.
	for _, id := range history.Requirements() {
		if _, ok := cat.Lookup(id); !ok {
			t.Errorf("the history checker reports under %s, which the catalogue does not hold", id)
		}
		covered[id]++
	}
	for _, r := range cat.Requirements {
		if r.IsCheckable() && covered[r.ID] == 0 {
			t.Errorf("requirement %s (%s) has no check", r.ID, r.Level)
		}
	}
}
