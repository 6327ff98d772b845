// Package runner turns a target, a profile and a selection into a Ginkgo run
// of the conformance checks and a typed result organised by requirement,
// with its reports (JUnit, JSON, HTML). chatconform and `go test
// ./conformance` both run through it, so the same inputs select the same
// target, profile and checks in both.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/chatrooms/conformance/bundled"
	"github.com/chatrooms/conformance/client"
	"github.com/chatrooms/conformance/conformance"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/target"
)

// Suite is the set of conformance checks declared to Ginkgo in this
// process. Ginkgo keeps one tree per process, so make one Suite per process
// and run it at most once.
type Suite struct {
	env *conformance.Env
}

// Prepare declares the checks to Ginkgo. specTimeout bounds each check
// (0: no bound). Call it once per process.
func Prepare(specTimeout time.Duration) *Suite {
	s := &Suite{}
	conformance.Declare(func() *conformance.Env { return s.env }, specTimeout)
	return s
}

// Check is one declared check: its full name, the requirement ids it
// verifies and the profile it belongs to.
type Check struct {
	Name    string
	IDs     []string
	Profile spec.Profile
	labels  []string
}

// Checks lists every declared check without running any, sorted by name.
func (s *Suite) Checks() []Check {
	rep := ginkgo.PreviewSpecs("Chat Rooms API conformance (preview)")
	var out []Check
	for _, sr := range rep.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		labels := sr.Labels()
		out = append(out, Check{Name: sr.FullText(), IDs: conformance.RequirementIDs(labels), Profile: conformance.ProfileOf(labels), labels: labels})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Selection narrows a run to some checks.
type Selection struct {
	Profile     spec.Profile
	LabelFilter string // a Ginkgo label expression over requirement ids and profiles
	Focus       string // a regular expression over check names
}

// Select returns the checks a selection runs, or a usage error when the
// selection is malformed or selects nothing (a run of nothing must not pass).
func (s *Suite) Select(sel Selection) ([]Check, error) {
	match := func([]string) bool { return true }
	if sel.LabelFilter != "" {
		f, err := types.ParseLabelFilter(sel.LabelFilter)
		if err != nil {
			return nil, &UsageError{"--label-filter: " + err.Error()}
		}
		match = f
	}
	var focus *regexp.Regexp
	if sel.Focus != "" {
		var err error
		if focus, err = regexp.Compile(sel.Focus); err != nil {
			return nil, &UsageError{"--focus: " + err.Error()}
		}
	}
	var out []Check
	for _, c := range s.Checks() {
		if (sel.Profile == spec.Reference || c.Profile == spec.Core) && match(c.labels) && (focus == nil || focus.MatchString(c.Name)) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, &UsageError{"--label-filter and --focus select no check (chatconform --list shows the ids and names)"}
	}
	return out, nil
}

// UsageError is a mistake in the flags or the selection: nothing was run.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Config is one run.
type Config struct {
	// Target is the server to check; nil starts the bundled reference
	// server in-process with Bundled as its configuration.
	Target  *target.Description
	Bundled reference.Config
	Selection
	// Seed drives generated text and the order of checks; printed first so
	// a run can be replayed. 0 is not allowed.
	Seed uint64
	// Timeout bounds each request; Eventually is how long search results
	// and unread state may lag behind a write.
	Timeout, Eventually time.Duration
	// Process tells parallel Ginkgo processes apart in run markers.
	Process int
	// Out receives the run's progress and summary (may be nil).
	Out     io.Writer
	Verbose bool
	// Reports to write; empty paths are skipped.
	JUnit, JSON, HTML string
	// Base Ginkgo configuration (from GinkgoConfiguration()).
	SuiteConfig    types.SuiteConfig
	ReporterConfig types.ReporterConfig
}

// Run checks the target. The error is a *UsageError, a *target.Error (the
// description must be fixed), or a failure to reach the target or start
// the bundled server; otherwise the result says what the checks found.
func (s *Suite) Run(ctx context.Context, cfg Config, t ginkgo.GinkgoTestingT) (*Result, error) {
	if cfg.Seed == 0 {
		return nil, &UsageError{"seed 0 is not a seed"}
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	d, where := cfg.Target, ""
	if d == nil {
		srv, err := bundled.Start(cfg.Seed, cfg.Bundled)
		if err != nil {
			return nil, fmt.Errorf("starting the bundled reference server: %w", err)
		}
		defer srv.Close()
		d, where = srv.Target, " (bundled reference server)"
		if cfg.Profile == "" {
			cfg.Profile = spec.Reference
		}
	}
	if cfg.Profile == "" {
		cfg.Profile = spec.Core
	}
	checks, err := s.Select(cfg.Selection)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Out, "chatconform: profile %s, seed %d, target %s%s\n", cfg.Profile, cfg.Seed, d.BaseURL, where)

	rec := &client.Recorder{Limit: 2000}
	setupCtx, cancel := context.WithTimeout(ctx, time.Minute)
	env, err := conformance.NewEnv(setupCtx, conformance.Options{Target: d, Profile: cfg.Profile, Seed: cfg.Seed,
		Eventually: cfg.Eventually, Timeout: cfg.Timeout, Recorder: rec, Process: cfg.Process})
	cancel()
	if err != nil {
		return nil, err
	}
	s.env = env

	var report types.Report
	ginkgo.ReportAfterSuite("chatconform summary", func(r ginkgo.Report) { report = r })
	gomega.RegisterFailHandler(ginkgo.Fail)
	sc, rc := cfg.SuiteConfig, cfg.ReporterConfig
	sc.RandomSeed = int64(cfg.Seed)
	sc.RandomizeAllSpecs = true
	sc.LabelFilter = combineFilters(cfg.LabelFilter, conformance.ProfileFilter(cfg.Profile))
	if cfg.Focus != "" {
		sc.FocusStrings = []string{cfg.Focus}
	}
	if cfg.JUnit != "" {
		rc.JUnitReport = cfg.JUnit
	}
	if !rc.Verbose && !rc.VeryVerbose {
		rc.Succinct = !cfg.Verbose
		rc.Verbose = cfg.Verbose
	}
	start := time.Now()
	ginkgo.RunSpecs(t, "Chat Rooms API conformance ("+string(cfg.Profile)+")", sc, rc)

	res := summarize(report, checks, cfg.Profile, cfg.Seed, d.BaseURL, time.Since(start), rec)
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{cfg.JSON, res.writeJSON}, {cfg.HTML, res.writeHTML}} {
		if out.path == "" {
			continue
		}
		if err := writeFile(out.path, out.write); err != nil {
			return res, err
		}
	}
	return res, nil
}

// Unreachable reports whether err means the target could not be reached.
func Unreachable(err error) bool {
	var te *client.TransportError
	return errors.As(err, &te)
}

func combineFilters(user, profile string) string {
	switch {
	case user == "":
		return profile
	case profile == "":
		return user
	}
	return "(" + user + ") && " + profile
}

func contains(labels []string, l string) bool { return slices.Contains(labels, l) }
