package conformance

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/bundled"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/target"
)

// Flags of the test binary, so `go test ./conformance -args --target t.yaml` and
// `ginkgo -p ./conformance -- --target t.yaml` work like chatconform.
var (
	targetFile = flag.String("target", "", "target description file; without it an in-process reference server is tested")
	profile    = flag.String("profile", "", "core or reference (default: reference for the bundled server, core otherwise)")
	seed       = flag.Uint64("seed", 0, "seed for generated data (default: Ginkgo's random seed)")
)

// testEnv is set up by TestConformance before any spec runs.
var testEnv *Env

var checks = Register(func() *Env { return testEnv })

func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	s := *seed
	if s == 0 {
		s = uint64(suiteConfig.RandomSeed)
	}
	var d *target.Description
	p := spec.Reference
	if *targetFile == "" {
		// A generous rate limit, so the rate-limit headers are checked too.
		srv, err := bundled.Start(s, reference.Config{RateLimit: 1_000_000})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		d = srv.Target
	} else {
		var err error
		if d, err = target.Load(*targetFile); err != nil {
			t.Fatal(err)
		}
		d.Apply(target.FromEnv(os.Getenv))
		p = spec.Core
	}
	if *profile != "" {
		var err error
		if p, err = spec.ParseProfile(*profile); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	testEnv, err = NewEnv(ctx, Options{Target: d, Profile: p, Seed: s, Process: GinkgoParallelProcess()})
	if err != nil {
		t.Fatal(err)
	}
	if f := ProfileFilter(p); f != "" {
		if suiteConfig.LabelFilter != "" {
			f = "(" + suiteConfig.LabelFilter + ") && " + f
		}
		suiteConfig.LabelFilter = f
	}
	t.Logf("profile %s, seed %d, target %s", p, s, d.BaseURL)
	RunSpecs(t, "Chat Rooms API conformance ("+string(p)+")", suiteConfig, reporterConfig)
}

// Every checkable requirement of the catalogue has at least one check, and
// every check belongs to the profile of its strictest requirement.
func TestEveryRequirementHasACheck(t *testing.T) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]int{}
	for _, c := range checks {
		for _, id := range c.IDs {
			covered[id]++
			req, _ := cat.Lookup(id)
			if !req.IsCheckable() {
				t.Errorf("check %q claims %s, which the catalogue says cannot be checked", c.Name, id)
			}
		}
	}
	for _, r := range cat.Requirements {
		if r.IsCheckable() && covered[r.ID] == 0 {
			t.Errorf("requirement %s (%s) has no check", r.ID, r.Level)
		}
	}
}
