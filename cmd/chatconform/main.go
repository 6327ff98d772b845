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
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/runner"
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
	junit, jsonOut, htmlOut                          string
	tokens                                           tokens
	seed                                             uint64
	list, verbose                                    bool
	timeout, eventually, specTimeout                 time.Duration
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
	fs.DurationVar(&o.specTimeout, "check-timeout", 2*time.Minute, "timeout of each check")
	fs.DurationVar(&o.eventually, "eventually", 5*time.Second, "how long search and unread state may lag behind a write")
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
	suite := runner.Prepare(o.specTimeout)
	if o.list {
		return list(stdout, suite, profile)
	}
	d, err := runner.ResolveTarget(runner.Inputs{File: o.targetFile, BaseURL: o.baseURL, Tokens: o.tokens, Getenv: getenv})
	if err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	selProfile := profile
	if selProfile == "" {
		selProfile = spec.Core
		if d == nil {
			selProfile = spec.Reference
		}
	}
	if _, err := suite.Select(runner.Selection{Profile: selProfile, LabelFilter: o.labelFilter, Focus: o.focus}); err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano()%1_000_000_000) + 1
	}
	sc, rc := ginkgo.GinkgoConfiguration()
	rc.NoColor = !isTerminal(stdout)
	res, err := suite.Run(ctx, runner.Config{
		Target:         d,
		Selection:      runner.Selection{Profile: profile, LabelFilter: o.labelFilter, Focus: o.focus},
		Seed:           o.seed,
		Timeout:        o.timeout,
		Eventually:     o.eventually,
		Process:        1,
		Out:            stdout,
		Verbose:        o.verbose,
		JUnit:          o.junit,
		JSON:           o.jsonOut,
		HTML:           o.htmlOut,
		SuiteConfig:    sc,
		ReporterConfig: rc,
	}, &failRecorder{})
	if err != nil {
		var te *target.Error
		var ue *runner.UsageError
		switch {
		case errors.As(err, &te), errors.As(err, &ue):
			fmt.Fprintln(stderr, "chatconform:", err)
			return exitUsage
		case runner.Unreachable(err):
			fmt.Fprintln(stderr, "chatconform: the target could not be reached:", err)
			return exitHarness
		}
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitHarness
	}
	res.Print(stdout)
	return res.ExitCode()
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

func list(w io.Writer, suite *runner.Suite, p spec.Profile) int {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		fmt.Fprintln(w, err)
		return exitHarness
	}
	byID := map[string][]string{}
	for _, c := range suite.Checks() {
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
