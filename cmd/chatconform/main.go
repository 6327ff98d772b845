// Command chatconform checks a Chat Rooms REST API server against the API
// document and prints a verdict per requirement. With no target it starts
// the bundled reference server in-process and checks that.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"syscall"
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

// Exit codes (DESIGN.md 3.2).
const (
	exitPass    = 0 // every selected check passed
	exitFail    = 1 // at least one check failed
	exitUsage   = 2 // bad flags or target description
	exitHarness = 3 // the harness broke or the target could not be reached
)

const usage = `chatconform checks a Chat Rooms REST API server and gives a verdict per requirement.

Usage:
  chatconform [flags]                          check the bundled reference server (profile reference)
  chatconform --target FILE [flags]            check the server a target description names (profile core)
  chatconform --base-url URL --token T [--token T2] [flags]
  chatconform --list                           list the checks and the requirements they verify
  chatconform selftest                         prove the checks against planted faults and conforming variants

Examples:
  chatconform
  chatconform --target target.yaml --junit report.xml
  CHAT_BASE_URL=https://chat.example.com CHAT_TOKEN=... CHAT_TOKEN_2=... chatconform
  chatconform --target target.yaml --label-filter 'MSG-SEND-200 || PAGE-BEFOREID-WALK'

Exit codes: 0 all selected checks passed, 1 a check failed, 2 usage or target
description error, 3 the harness broke or the target could not be reached.

Flags:
`

type tokens []string

func (t *tokens) String() string     { return fmt.Sprint(len(*t), " token(s)") }
func (t *tokens) Set(v string) error { *t = append(*t, v); return nil }

type options struct {
	targetFile, baseURL, profile, labelFilter, focus string
	fault, variant                                   string
	junit, jsonOut, htmlOut                          string
	tokens                                           tokens
	seed                                             uint64
	list, verbose                                    bool
	timeout, eventually                              time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "selftest" {
		return selftest(ctx, args[1:], stdout, stderr)
	}
	var o options
	fs := flag.NewFlagSet("chatconform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	fs.StringVar(&o.targetFile, "target", "", "target description `file` (YAML or JSON)")
	fs.StringVar(&o.baseURL, "base-url", "", "base `URL` of the server (beats the file and CHAT_BASE_URL)")
	fs.Var(&o.tokens, "token", "token of user 1; repeat for users 2, 3, ... (beats the file and CHAT_TOKEN, CHAT_TOKEN_2, ...)")
	fs.StringVar(&o.profile, "profile", "", "core or reference (default: reference for the bundled server, core otherwise)")
	fs.StringVar(&o.labelFilter, "label-filter", "", "run only checks whose labels (requirement ids, core, reference) match this Ginkgo label `expression`")
	fs.StringVar(&o.focus, "focus", "", "run only checks whose name matches this `regex`")
	fs.Uint64Var(&o.seed, "seed", 0, "seed for generated data and check order (default: from the clock; printed so a run can be replayed)")
	fs.BoolVar(&o.list, "list", false, "print the checks with their requirement ids and run nothing")
	fs.StringVar(&o.junit, "junit", "", "write a JUnit XML report to `file`")
	fs.StringVar(&o.jsonOut, "json", "", "write a JSON report (verdict per requirement, failures, exchanges) to `file`")
	fs.StringVar(&o.htmlOut, "html", "", "write an HTML report to `file`")
	fs.BoolVar(&o.verbose, "v", false, "print every check as it runs")
	fs.DurationVar(&o.timeout, "timeout", 15*time.Second, "timeout of each request")
	fs.DurationVar(&o.eventually, "eventually", 5*time.Second, "how long search and unread state may lag behind a write")
	fs.StringVar(&o.fault, "inject-fault", "", "self-test only: plant this fault in the bundled server (see chatconform selftest)")
	fs.StringVar(&o.variant, "variant", "", "self-test only: run the bundled server as this conforming variant")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chatconform: unexpected argument %q (see --help)\n", fs.Arg(0))
		return exitUsage
	}
	var profile spec.Profile
	if o.profile != "" {
		p, err := spec.ParseProfile(o.profile)
		if err != nil {
			fmt.Fprintln(stderr, "chatconform: --profile:", err)
			return exitUsage
		}
		profile = p
	}
	if o.list {
		return list(stdout, profile)
	}
	if err := checkSelection(o, profile); err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano()%1_000_000_000) + 1
	}

	d, bundledTarget, err := resolveTarget(o, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	if err := checkSelftestFlags(o, bundledTarget); err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	if bundledTarget {
		cfg := reference.Config{Variant: o.variant}
		if o.fault != "" {
			cfg.Faults = []string{o.fault}
		}
		srv, err := bundled.Start(o.seed, cfg)
		if err != nil {
			fmt.Fprintln(stderr, "chatconform: starting the bundled reference server:", err)
			return exitHarness
		}
		defer srv.Close()
		d = srv.Target
		if profile == "" {
			profile = spec.Reference
		}
	}
	if profile == "" {
		profile = spec.Core
	}
	where := d.BaseURL
	switch {
	case o.fault != "":
		where += " (bundled reference server with fault " + o.fault + ")"
	case o.variant != "":
		where += " (bundled reference server, variant " + o.variant + ")"
	case bundledTarget:
		where += " (bundled reference server)"
	}
	fmt.Fprintf(stdout, "chatconform: profile %s, seed %d, target %s\n", profile, o.seed, where)

	rec := &client.Recorder{Limit: 2000}
	setupCtx, cancel := context.WithTimeout(ctx, time.Minute)
	env, err := conformance.NewEnv(setupCtx, conformance.Options{Target: d, Profile: profile, Seed: o.seed, Eventually: o.eventually, Timeout: o.timeout, Recorder: rec, Process: 1})
	cancel()
	if err != nil {
		var te *target.Error
		if errors.As(err, &te) {
			fmt.Fprintln(stderr, "chatconform:", err)
			return exitUsage
		}
		fmt.Fprintln(stderr, "chatconform: the target could not be reached:", err)
		return exitHarness
	}

	checks := conformance.Register(func() *conformance.Env { return env })
	var report types.Report
	ginkgo.ReportAfterSuite("chatconform summary", func(r ginkgo.Report) { report = r })
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.RandomSeed = int64(o.seed)
	suiteConfig.LabelFilter = combineFilters(o.labelFilter, conformance.ProfileFilter(profile))
	if o.focus != "" {
		suiteConfig.FocusStrings = []string{o.focus}
	}
	reporterConfig.JUnitReport = o.junit
	reporterConfig.Succinct = !o.verbose
	reporterConfig.Verbose = o.verbose
	reporterConfig.NoColor = !isTerminal(stdout)
	start := time.Now()
	t := &failRecorder{}
	ginkgo.RunSpecs(t, "Chat Rooms API conformance ("+string(profile)+")", suiteConfig, reporterConfig)

	summary := summarize(report, checks, profile, o.seed, d.BaseURL, time.Since(start), rec.Count())
	summary.print(stdout)
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{o.jsonOut, summary.writeJSON(rec)}, {o.htmlOut, summary.writeHTML}} {
		if out.path == "" {
			continue
		}
		if err := writeFile(out.path, out.write); err != nil {
			fmt.Fprintln(stderr, "chatconform:", err)
			return exitHarness
		}
	}
	switch {
	case summary.Unreachable > 0:
		fmt.Fprintln(stderr, "chatconform: the target stopped answering during the run")
		return exitHarness
	case summary.Failed > 0 || t.failed:
		return exitFail
	}
	return exitPass
}

// resolveTarget builds the description from the file, the environment and
// the flags (a flag beats the environment, which beats the file). The second
// result is true when nothing names a target: the bundled server is wanted.
func resolveTarget(o options, getenv func(string) string) (*target.Description, bool, error) {
	env := target.FromEnv(getenv)
	if o.targetFile == "" && o.baseURL == "" && env.BaseURL == "" && len(o.tokens) == 0 && len(env.Tokens) == 0 {
		return nil, true, nil
	}
	d := &target.Description{}
	if o.targetFile != "" {
		var err error
		if d, err = target.Load(o.targetFile); err != nil {
			return nil, false, err
		}
	}
	d.Apply(env)
	d.Apply(target.Overrides{BaseURL: o.baseURL, Tokens: o.tokens})
	if err := d.Check(); err != nil {
		return nil, false, err
	}
	return d, false, nil
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

// checkSelection refuses a --label-filter or --focus that is malformed or
// selects no check: a run of nothing must not pass.
func checkSelection(o options, p spec.Profile) error {
	match := func(conformance.Check) bool { return true }
	if o.labelFilter != "" {
		filter, err := types.ParseLabelFilter(o.labelFilter)
		if err != nil {
			return fmt.Errorf("--label-filter: %v", err)
		}
		match = func(c conformance.Check) bool {
			return filter(append(append([]string(nil), c.IDs...), string(c.Profile)))
		}
	}
	var focus *regexp.Regexp
	if o.focus != "" {
		var err error
		if focus, err = regexp.Compile(o.focus); err != nil {
			return fmt.Errorf("--focus: %v", err)
		}
	}
	for _, c := range conformance.Checks() {
		if (p != spec.Core || c.Profile == spec.Core) && match(c) && (focus == nil || focus.MatchString(c.Name)) {
			return nil
		}
	}
	return errors.New("--label-filter and --focus select no check (chatconform --list shows the ids and names)")
}

func checkSelftestFlags(o options, bundledTarget bool) error {
	if (o.fault != "" || o.variant != "") && !bundledTarget {
		return fmt.Errorf("--inject-fault and --variant apply to the bundled server only; leave out the target")
	}
	if o.fault != "" {
		if _, ok := reference.LookupFault(o.fault); !ok {
			return fmt.Errorf("--inject-fault: unknown fault %q (chatconform selftest lists them)", o.fault)
		}
	}
	if o.variant != "" {
		if _, ok := reference.LookupVariant(o.variant); !ok {
			return fmt.Errorf("--variant: unknown variant %q (chatconform selftest lists them)", o.variant)
		}
	}
	return nil
}

// failRecorder stands in for *testing.T: Ginkgo only needs Fail.
type failRecorder struct{ failed bool }

func (f *failRecorder) Fail() { f.failed = true }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

func list(w io.Writer, p spec.Profile) int {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		fmt.Fprintln(w, err)
		return exitHarness
	}
	byID := map[string][]string{}
	for _, c := range conformance.Checks() {
		if p == spec.Core && c.Profile == spec.Reference {
			continue
		}
		for _, id := range c.IDs {
			byID[id] = append(byID[id], c.Name)
		}
	}
	for _, r := range cat.Requirements {
		if p != "" && !r.InProfile(p) {
			continue
		}
		fmt.Fprintf(w, "%-28s %-9s %s\n", r.ID, r.Level, r.Text)
		if !r.IsCheckable() {
			fmt.Fprintf(w, "%28s not checkable: %s\n", "", r.Reason)
		}
		for _, name := range byID[r.ID] {
			fmt.Fprintf(w, "%28s check: %s\n", "", name)
		}
	}
	return exitPass
}
