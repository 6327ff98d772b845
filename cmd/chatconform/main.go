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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/runner"
)

// Exit codes (DESIGN.md 3.2).
const (
	exitPass    = runner.ExitPass        // every selected check passed (known failures allowed)
	exitFail    = runner.ExitFail        // a check failed, or a baseline entry now passes
	exitUsage   = runner.ExitUsage       // bad flags or target description
	exitHarness = runner.ExitUnreachable // unreachable, stopped answering, out of time, interrupted, harness broke
)

const usage = `chatconform checks a Chat Rooms REST API server and gives a verdict per requirement.

Usage:
  chatconform [flags]                          check the bundled reference server (profile reference)
  chatconform --target FILE [flags]            check the server a target description names (profile core)
  chatconform --base-url URL --token T [--token T2] [flags]
  chatconform --list                           list the checks and the requirements they verify
  chatconform diff OLD.json NEW.json           compare two --json reports (exit 1 when something regressed)
  chatconform selftest                         prove the checks against planted faults and conforming variants
  chatconform help [selftest|diff]             print this help, or a subcommand's

Examples:
  chatconform
  chatconform --target target.yaml --junit report.xml --json report.json --html report.html
  CHAT_BASE_URL=https://chat.example.com CHAT_TOKEN=... CHAT_TOKEN_2=... CHAT_CA_FILE=ca.pem chatconform
  chatconform --target target.yaml --label-filter 'MSG-SEND-200 || PAGE-BEFOREID-WALK'
  chatconform --target target.yaml --baseline known-failures.yaml

Outcomes: PASS, FAIL (the server broke a requirement), BLOCKED (a precondition
failed; names the requirement that blocked it), ERROR (transport, timeout,
harness), INCONCLUSIVE (rate limited or unavailable after bounded retries),
SKIP (not applicable, with the reason), NOT RUN (not selected, out of time,
interrupted, the target stopped answering), KNOWN (listed in the baseline).

Exit codes: 0 every selected check passed (known failures allowed); 1 a check
failed, the target answers its own API wrongly, or a baseline entry now passes;
2 usage or target-description error; 3 the target could not be reached or
stopped answering, the run ran out of time or was interrupted, or checks could
not judge the target. Every exit after the flags are read writes the reports
asked for, with what is known.

Flags:
`

type tokens []string

func (t *tokens) String() string     { return fmt.Sprint(len(*t), " token(s)") }
func (t *tokens) Set(v string) error { *t = append(*t, v); return nil }

// rateFlag reads a request rate: "N" or "N/s".
type rateFlag float64

func (r *rateFlag) String() string { return strconv.FormatFloat(float64(*r), 'g', -1, 64) }
func (r *rateFlag) Set(v string) error {
	n, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "/s"), 64)
	if err != nil || n < 0 {
		return errors.New("want requests per second, such as 5/s")
	}
	*r = rateFlag(n)
	return nil
}

type options struct {
	targetFile, baseURL, profile, labelFilter, focus string
	junit, jsonOut, htmlOut                          string
	caFile, baseline, writeBaseline                  string
	insecure                                         bool
	tokens                                           tokens
	seed                                             uint64
	list, verbose                                    bool
	timeout, eventually, specTimeout, maxTime        time.Duration
	rate                                             rateFlag
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
	if len(args) > 0 && args[0] == "diff" {
		return diff(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "help" {
		if len(args) > 1 && args[1] == "selftest" {
			return selftest(ctx, []string{"--help"}, stdout, stderr)
		}
		if len(args) > 1 && args[1] == "diff" {
			return diff([]string{"--help"}, stdout, stderr)
		}
		args = []string{"--help"}
	}
	var o options
	fs := flag.NewFlagSet("chatconform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // the error alone on a mistake; the whole usage on --help (below)
	fs.StringVar(&o.targetFile, "target", "", "target description `file` (YAML or JSON)")
	fs.StringVar(&o.baseURL, "base-url", "", "base `URL` of the server (beats the file and CHAT_BASE_URL)")
	fs.Var(&o.tokens, "token", "token of user 1; repeat for users 2, 3, ... (beats the file and CHAT_TOKEN, CHAT_TOKEN_2, ...)")
	fs.StringVar(&o.caFile, "ca-file", "", "PEM `file` of a CA to trust besides the system's (beats CHAT_CA_FILE and the file's ca_file)")
	fs.BoolVar(&o.insecure, "insecure-skip-verify", false, "do not verify the server's certificate (beats CHAT_INSECURE_SKIP_VERIFY and the file)")
	fs.StringVar(&o.profile, "profile", "", "core or reference (default: reference for the bundled server, core otherwise)")
	fs.StringVar(&o.labelFilter, "label-filter", "", "run only checks whose labels (requirement ids, core, reference) match this Ginkgo label `expression`")
	fs.StringVar(&o.focus, "focus", "", "run only checks whose name matches this `regex`")
	fs.Uint64Var(&o.seed, "seed", 0, "seed for generated data and check order (default: from the clock; printed so a run can be replayed)")
	fs.BoolVar(&o.list, "list", false, "print the checks with their requirement ids and run nothing")
	fs.StringVar(&o.junit, "junit", "", "write a JUnit XML report to `file`")
	fs.StringVar(&o.jsonOut, "json", "", "write a JSON report (verdict per requirement, failures, exchanges) to `file`")
	fs.StringVar(&o.htmlOut, "html", "", "write an HTML report to `file`")
	fs.StringVar(&o.baseline, "baseline", "", "YAML `file` of requirements expected to fail, each with a reason: their failures are KNOWN and do not fail the run; an entry that now passes does")
	fs.StringVar(&o.writeBaseline, "write-baseline", "", "write a baseline of this run's failures to `file`")
	fs.BoolVar(&o.verbose, "v", false, "print every check as it runs")
	fs.DurationVar(&o.timeout, "timeout", 15*time.Second, "timeout of each request")
	fs.DurationVar(&o.specTimeout, "check-timeout", 2*time.Minute, "timeout of each check")
	fs.DurationVar(&o.maxTime, "max-time", 30*time.Minute, "bound on the whole run: checks not started by then are NOT RUN and the run exits 3 (0: no bound)")
	fs.Var(&o.rate, "rate", "throttle the whole run to `N/s` requests per second (such as 5/s), for servers with tight rate limits (default: no limit)")
	fs.DurationVar(&o.eventually, "eventually", 5*time.Second, "how long search and unread state may lag behind a write")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usage)
			fs.PrintDefaults()
			return exitPass
		}
		fmt.Fprintln(stderr, "chatconform: see chatconform --help for the flags")
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
	if err := runner.CheckOutputs(o.junit, o.jsonOut, o.htmlOut, o.writeBaseline); err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	var baseline *runner.Baseline
	if o.baseline != "" {
		var err error
		if baseline, err = runner.LoadBaseline(o.baseline); err != nil {
			fmt.Fprintln(stderr, "chatconform:", err)
			return exitUsage
		}
	}
	in := runner.Inputs{File: o.targetFile, BaseURL: o.baseURL, Tokens: o.tokens, CAFile: o.caFile, InsecureSkipVerify: o.insecure, Getenv: getenv}
	secrets := runner.InputTokens(in)
	d, derr := runner.ResolveTarget(in)
	selProfile := profile
	if selProfile == "" {
		selProfile = spec.Core
		if d == nil && derr == nil {
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
	cfg := runner.Config{
		Target:         d,
		Selection:      runner.Selection{Profile: profile, LabelFilter: o.labelFilter, Focus: o.focus},
		Seed:           o.seed,
		Timeout:        o.timeout,
		Eventually:     o.eventually,
		MaxTime:        o.maxTime,
		Rate:           float64(o.rate),
		Process:        1,
		Out:            stdout,
		Live:           isTerminal(stdout),
		Verbose:        o.verbose,
		GinkgoOut:      io.Discard,
		JUnit:          o.junit,
		JSON:           o.jsonOut,
		HTML:           o.htmlOut,
		Secrets:        secrets,
		Baseline:       baseline,
		SuiteConfig:    sc,
		ReporterConfig: rc,
	}
	if o.verbose {
		cfg.GinkgoOut = stdout
	}
	red := client.NewRedactor(append(runner.Tokens(d), secrets...)...)
	var res *runner.Result
	var err error
	if derr != nil {
		_, err = suite.Abort(cfg, exitUsage, derr.Error())
		fmt.Fprintln(stderr, "chatconform:", red.String(derr.Error()))
		var h *runner.Halt
		if err != nil && !errors.As(err, &h) { // the halt is derr, said above
			fmt.Fprintln(stderr, "chatconform:", red.String(err.Error()))
		}
		return exitUsage
	}
	res, err = suite.Run(ctx, cfg, &failRecorder{})
	if err != nil {
		fmt.Fprintln(stderr, "chatconform:", red.String(err.Error()))
		var ue *runner.UsageError
		if errors.As(err, &ue) {
			return exitUsage
		}
		if res == nil {
			return exitHarness
		}
	}
	if o.writeBaseline != "" {
		if err := res.WriteBaseline(o.writeBaseline, red); err != nil {
			fmt.Fprintln(stderr, "chatconform: --write-baseline:", red.String(err.Error()))
			return exitHarness
		}
		fmt.Fprintf(stdout, "chatconform: baseline of %d failing requirements written to %s\n", res.Counts["FAIL"]+res.Counts["KNOWN"], o.writeBaseline)
	}
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
