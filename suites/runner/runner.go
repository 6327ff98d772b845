// Package runner turns a target, a profile and a selection into a Ginkgo run
// of the conformance checks and a typed result organised by requirement,
// with its reports (JUnit, JSON, HTML). chatconform and `go test
// ./suites/conformance` both run through it, so the same inputs select the same
// target, profile and checks in both.
//
// A run is bounded: by time (Config.MaxTime), by the target's liveness (a
// run against a target that stops answering ends promptly) and by
// interruption (the caller's context); checks that could not run are
// reported as NOT RUN, never as failures. Every output the runner writes
// goes through a Redactor built from every token of the run.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/conformance"
	"github.com/chatrooms/conformance/suites/report"
	"github.com/chatrooms/conformance/suites/target"
)

// Exit codes of a run (the README's outcome table). When a run has both a
// failure and a reason to stop early, the failure wins: it is a verdict on
// the server.
const (
	ExitPass        = report.ExitPass        // every selected check passed (known failures allowed)
	ExitFail        = report.ExitFail        // a requirement failed, a baseline entry now passes, or coverage is short of --min-judged/--require
	ExitUsage       = report.ExitUsage       // usage or target-description error
	ExitUnreachable = report.ExitUnreachable // unreachable, stopped answering, out of time, interrupted, harness broke
)

// Suite is the set of conformance checks declared to Ginkgo in this
// process. Ginkgo keeps one tree per process, so make one Suite per process
// and run it at most once.
type Suite struct {
	env         *conformance.Env
	run         *runState
	specTimeout time.Duration
}

// runState is what the runner's own Ginkgo nodes need while specs run.
type runState struct {
	ctl      *control
	client   *client.Client
	token    string
	timeout  time.Duration
	selected map[string]bool
	progress *progress
	// sched runs the checks beside each other (nil: one at a time, each
	// in its spec).
	sched *scheduler
}

// Prepare declares the checks to Ginkgo, with the runner's own nodes: a
// gate before every check (which skips it as NOT RUN once the run has
// stopped, and asks the target whether it is still alive after a transport
// failure) and a progress reporter after every check. specTimeout bounds
// each check (0: no bound). Call it once per process.
func Prepare(specTimeout time.Duration) *Suite {
	s := &Suite{specTimeout: specTimeout}
	// The runner's nodes and the checks share one container without a
	// text (check names are unchanged): Ginkgo keeps only containers, not
	// loose top-level nodes, across a preview of the tree.
	ginkgo.Describe("", func() {
		ginkgo.BeforeEach(func() { s.gate() })
		ginkgo.ReportAfterEach(func(r types.SpecReport) {
			if s.run != nil && s.run.progress != nil && r.LeafNodeType == types.NodeTypeIt && s.run.selected[r.FullText()] {
				// The check's own outcome: a failure it met on the way is a
				// finding of another requirement (see checkList); the summary
				// counts the check FAIL for it only when nothing else fails
				// that requirement, which the end of the run tells.
				cr, _ := checkResult(r)
				o := cr.Outcome
				s.run.progress.done(r.ContainerHierarchyTexts, r.FullText(), o, r.RunTime)
			}
		})
		conformance.Declare(func() *conformance.Env { return s.env }, func() conformance.Scheduler {
			if s.run == nil || s.run.sched == nil {
				return nil
			}
			return s.run.sched
		}, specTimeout)
	})
	return s
}

// checksLine announces the checks of a run the way its summary counts
// them: the selected declared checks and the run-wide judges.
func checksLine(declared int) string {
	return fmt.Sprintf("%d checks (%d declared, the history checker and the document checker)", declared+JudgeCount, declared)
}

// entryNotRun marks a check the runner skipped because the run had stopped.
const entryNotRun = "not-run"

func (s *Suite) gate() {
	run := s.run
	if run == nil {
		return
	}
	spec := ginkgo.CurrentSpecReport()
	if run.sched.runs(conformance.Key(spec.LeafNodeLocation, spec.LeafNodeText)) {
		return // the scheduler passed the check through the gate when it started it
	}
	run.client.SetCheck(spec.FullText())
	if reason := run.pass(context.Background()); reason != "" {
		ginkgo.AddReportEntry(entryNotRun, reason)
		ginkgo.Skip("not run: " + reason)
	}
}

// pass is the gate a check passes before it starts: it returns why the
// check is not to run ("" when it is). A run that has stopped runs nothing
// more; after a request that got no answer, the target is asked whether it
// is alive before a check (and its timeouts) is spent on it. ctx names the
// check (client.WithCheck) when checks run beside each other.
func (run *runState) pass(ctx context.Context) string {
	if reason, _ := run.ctl.stopped(); reason != "" {
		return reason
	}
	if run.client.ConsecutiveFailures() == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, min(run.timeout, 10*time.Second))
	defer cancel()
	stop := context.AfterFunc(run.ctl.ctx, cancel)
	defer stop()
	_, err := run.client.Do(ctx, client.Request{Method: "GET", Path: "/v1/user", Token: run.token})
	var te *client.TransportError
	if errors.As(err, &te) && te.Kind.Liveness() {
		run.ctl.stop("the target stopped answering: " + err.Error())
		return "the target stopped answering"
	}
	if reason, _ := run.ctl.stopped(); reason != "" {
		return reason
	}
	return ""
}

// Check is one declared check: its full name, the requirement ids it
// verifies and the profile it belongs to.
type Check struct {
	Name    string
	IDs     []string
	Profile spec.Profile
	Area    string // the top-level container the check is declared in
	// Declared is where the check is declared (file:line), as Ginkgo
	// reports it: the line of the area's file that declares it.
	Declared string
	key      string // conformance.Key
	labels   []string
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
		out = append(out, Check{Name: sr.FullText(), IDs: conformance.RequirementIDs(labels), Profile: conformance.ProfileOf(labels), Area: areaOf(sr.ContainerHierarchyTexts),
			Declared: conformance.Where(sr.LeafNodeLocation), key: conformance.Key(sr.LeafNodeLocation, sr.LeafNodeText), labels: labels})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// areaOf is the first non-empty container text: the area of the API a
// check belongs to.
func areaOf(containers []string) string {
	for _, c := range containers {
		if c != "" {
			return c
		}
	}
	return "(top level)"
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
			return nil, &UsageError{"--label-filter: " + plain(err.Error())}
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

// plain is a Ginkgo error's text without colour codes or trailing blank
// lines: it is printed where no terminal may be listening.
func plain(s string) string {
	ansi := regexp.MustCompile("\x1b\\[[0-9;]*m") // Ginkgo's terminal colours
	return strings.TrimRight(ansi.ReplaceAllString(s, ""), " \n")
}

// UsageError is a mistake in the flags or the selection: nothing was run.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Halt is the error of a run that did not judge every selected check: the
// description was refused, the target could not be reached, answered its
// own API wrongly, stopped answering, the run ran out of time or was
// interrupted. The result's reports are written all the same.
type Halt struct {
	Code   int
	Reason string
}

func (h *Halt) Error() string { return h.Reason }

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
	// MaxTime bounds the whole run (0: no bound); checks not started by
	// then are NOT RUN and the run ends with ExitUnreachable.
	MaxTime time.Duration
	// Rate throttles the run to this many requests per second (0: none).
	Rate float64
	// Process tells parallel Ginkgo processes apart in run markers.
	Process int
	// Marker is the run's marker in the texts it writes ("": one made from
	// the clock); a replay of a record gives the record's.
	Marker string
	// Out receives the run's progress and summary (may be nil), redacted.
	Out io.Writer
	// Live says Out is a terminal: progress is one line rewritten in place.
	Live    bool
	Verbose bool
	// GinkgoOut, when set, receives Ginkgo's own reporter output (redacted)
	// instead of the process's standard output; io.Discard silences it.
	GinkgoOut io.Writer
	// Reports to write; empty paths are skipped. Each is checked for
	// writability before anything runs.
	JUnit, JSON, HTML string
	// Secrets are redacted from every output besides the target's tokens
	// (tokens from flags and the environment, for instance).
	Secrets []string
	// Baseline lists requirements expected to fail (nil: none).
	Baseline *Baseline
	// Gate turns coverage short of what it asks into exit 1.
	Gate CoverageGate
	// Wait, when not 0, is how long to wait for the target to answer at all
	// before the preflight (a server started just before the run).
	Wait time.Duration
	// Version is chatconform's version, for the reports.
	Version string
	// Examples is how many random requests each generated check draws per
	// operation besides its coverage cases (0: the engine's default).
	Examples int
	// ModelSequences is how many random sequences each check of the model
	// of the API draws (0: the model's default).
	ModelSequences int
	// Checks is how many checks may run at once: 1 runs them one after
	// another, each in its Ginkgo spec; 0 chooses after the preflight
	// (AutoChecks for a target outside this process, in one Ginkgo
	// process, whose fastest answer took AutoSlow or more; else 1).
	// Beside each other, CheckTimeout bounds each check (0: the suite's spec
	// timeout) in place of Ginkgo's spec timeout.
	Checks       int
	CheckTimeout time.Duration
	// Parallel is how many requests a generated check may have in flight
	// at once (0: the engine's default; 1: one at a time, as without
	// concurrency).
	Parallel int
	// Wrap, when set, wraps the transport of the run's HTTP client, beneath
	// the run's own control: a test's hook to delay answers or watch the
	// wire (the far-server benchmark). No flag sets it.
	Wrap func(http.RoundTripper) http.RoundTripper
	// Clock, when set, is the clock of the run's client (see
	// client.Config.Clock): a replay of the checks gives the record's.
	Clock client.Clock
	// Observe, when not nil, sees every exchange of the run (preflight,
	// discovery and checks) with its whole bodies, as the client reports
	// them (see client.Observed), besides the run's own history checker.
	Observe func(client.Observed)
	// Base Ginkgo configuration (from GinkgoConfiguration()).
	SuiteConfig    types.SuiteConfig
	ReporterConfig types.ReporterConfig

	bundled bool // set by Run: no target was named
}

// BundledNote is what every output says of a run that named no target.
const BundledNote = "no target named: checking the bundled reference server"

// Run checks the target. The error is a *UsageError (nothing was run, no
// report written; the result is nil), a *Halt (the run did not judge every
// selected check; reports are written and the result says what is known),
// or a failure to write a report. Result.ExitCode is the exit status either
// way.
func (s *Suite) Run(ctx context.Context, cfg Config, t ginkgo.GinkgoTestingT) (*Result, error) {
	if cfg.Seed == 0 {
		return nil, &UsageError{"seed 0 is not a seed"}
	}
	if err := CheckOutputs(cfg.JUnit, cfg.JSON, cfg.HTML); err != nil {
		return nil, err
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	start := time.Now()
	ctl := newControl(ctx, cfg.MaxTime)
	defer ctl.close()

	d, isBundled := cfg.Target, cfg.Target == nil
	if isBundled {
		if cfg.Profile == "" {
			cfg.Profile = spec.Reference
		}
		srv, err := bundled.Start(cfg.Seed, cfg.Bundled)
		if err != nil {
			return s.halted(cfg, nil, start, ExitUnreachable, "starting the bundled reference server: "+err.Error())
		}
		defer srv.Close()
		d = srv.Target
	}
	if cfg.Profile == "" {
		cfg.Profile = spec.Core
	}
	checks, err := s.Select(cfg.Selection)
	if err != nil {
		return nil, err
	}
	if cfg.Checks < 0 {
		return nil, &UsageError{fmt.Sprintf("%d checks at once: give 0 (chosen from how fast the target answers) or more", cfg.Checks)}
	}
	if cfg.Checks > 1 && cfg.SuiteConfig.ParallelTotal > 1 {
		return nil, &UsageError{fmt.Sprintf("%d checks at once in each of %d parallel Ginkgo processes: each would run every selected check; give one or the other", cfg.Checks, cfg.SuiteConfig.ParallelTotal)}
	}
	if cfg.CheckTimeout == 0 {
		cfg.CheckTimeout = s.specTimeout
	}
	// Every check of the profile, to tell a whole run from a filtered one.
	// Asked here, before the run: previewing the specs after RunSpecs would
	// run the report nodes again over a preview, and replace the report.
	whole, _ := s.Select(Selection{Profile: cfg.Profile})
	red := cfg.redactor(d)
	out := scrubbing(red.Writer(cfg.Out))
	defer out.Flush()
	if isBundled {
		fmt.Fprintf(out, "chatconform: %s, %s; profile %s, seed %d; %s", BundledNote, red.String(d.BaseURL), cfg.Profile, cfg.Seed, checksLine(len(checks)))
	} else {
		fmt.Fprintf(out, "chatconform: profile %s, seed %d, target %s; %s", cfg.Profile, cfg.Seed, red.String(d.BaseURL), checksLine(len(checks)))
	}
	if cfg.MaxTime > 0 {
		fmt.Fprintf(out, ", at most %s", cfg.MaxTime)
	}
	fmt.Fprintln(out)
	cfg.Out = out
	cfg.bundled = isBundled

	if cfg.Wait > 0 && !isBundled {
		fmt.Fprintf(out, "chatconform: waiting up to %s for the target to answer (--wait)\n", cfg.Wait)
		took, err := d.Wait(ctl.ctx, cfg.Wait, min(cfg.Timeout, 10*time.Second))
		if r, _ := ctl.stopped(); r != "" {
			return s.halted(cfg, d, start, ExitUnreachable, r)
		}
		if err != nil {
			fmt.Fprintf(out, "chatconform: no answer within --wait %s\n", cfg.Wait)
		} else {
			fmt.Fprintf(out, "chatconform: the target answered after %s\n", Readable(took))
		}
	}

	// Every exchange is kept for the document checker, within the
	// recorder's byte budget (the oldest go first beyond it).
	rec := &client.Recorder{Limit: 20000}
	hist := newHistory(cfg, red, isBundled)
	c, err := newClient(d, cfg, rec, hist, ctl)
	if err != nil {
		return s.halted(cfg, d, start, ExitUsage, err.Error())
	}
	setupCtx, cancel := context.WithTimeout(ctl.ctx, time.Minute)
	env, err := s.setup(setupCtx, d, &cfg, c, ctl)
	cancel()
	if err != nil {
		code, reason := setupHalt(err)
		if r, _ := ctl.stopped(); r != "" {
			code, reason = ExitUnreachable, r
		}
		if req, op := setupRequirement(err); req != "" && code == ExitFail {
			// The preflight (or discovery) is the first check of the
			// requirement it found broken: the run fails there, in that
			// requirement's name.
			return s.halted(cfg, d, start, code, red.String(reason), CheckResult{
				Name: "preflight: " + op + " with every token", IDs: []string{req}, Outcome: Fail, Message: red.String(reason)})
		}
		return s.halted(cfg, d, start, code, red.String(reason))
	}
	s.env = env

	selected := map[string]bool{}
	for _, c := range checks {
		selected[c.Name] = true
	}
	s.run = &runState{ctl: ctl, client: c, token: d.Users[0].Token, timeout: cfg.Timeout, selected: selected,
		progress: newProgress(out, checks, JudgeCount, cfg.Live)}
	defer func() { s.run = nil }()

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
	if cfg.MaxTime > 0 {
		// Ginkgo's own suite timeout must not fire before --max-time.
		sc.Timeout = cfg.MaxTime + 10*time.Minute
	}
	rc.JUnitReport, rc.JSONReport = "", "" // the runner writes its own, filtered and redacted
	if !rc.Verbose && !rc.VeryVerbose {
		rc.Succinct = !cfg.Verbose
		rc.Verbose = cfg.Verbose
	}
	if cfg.GinkgoOut != nil {
		restore := redirectGinkgo(scrubbing(red.Writer(cfg.GinkgoOut)))
		defer restore()
	}
	setupRequests, setupWaits := ctl.counts()
	specsStart := time.Now()
	if cfg.Checks > 1 {
		s.run.sched = startScheduler(s.run, checks, cfg.Checks, cfg.CheckTimeout)
		defer s.run.sched.wait()
	}
	ginkgo.RunSpecs(t, "Chat Rooms API conformance ("+string(cfg.Profile)+")", sc, rc)
	s.run.progress.finish()

	extra := historyChecks(hist, report, selected, len(checks) == len(whole))
	for id, cs := range documentChecks(rec, cfg.Profile) {
		extra[id] = append(extra[id], cs...)
	}
	selected[HistoryCheck], selected[DocumentCheck] = true, true // counted among the run's checks
	res := summarize(report, selected, cfg.Profile, cfg.Seed, red.String(d.BaseURL), time.Since(start), rec, extra)
	res.Judges = judges(extra)
	res.countRequests(ctl.perCheck())
	res.setupRequests, res.setupWaits = int(setupRequests), int(setupWaits)
	res.tally(selected)
	for _, j := range res.Judges {
		s.run.progress.judged(j.Name, j.Outcome)
	}
	res.Started = start
	res.ChecksDuration, res.ChecksAtOnce = time.Since(specsStart), cfg.Checks
	if reason, at := ctl.stopped(); reason != "" {
		res.markStopped(red.String(reason), at)
	}
	return s.finish(cfg, res, red)
}

// setup preflights the target and discovers what its description left out.
// How many checks run at once (Config.Checks 0) is chosen from the
// preflight's answers.
func (s *Suite) setup(ctx context.Context, d *target.Description, cfg *Config, c *client.Client, ctl *control) (*conformance.Env, error) {
	if err := d.Preflight(ctx, c); err != nil {
		return nil, err
	}
	if cfg.Checks == 0 {
		cfg.Checks = 1
		// The bundled server answers from this process: what a run of it
		// waits for is its own CPU, which checks beside each other share
		// (unless Wrap stands a distance in between, as a benchmark does).
		// Parallel Ginkgo processes each run every selected check beside
		// the others: one at a time there.
		inProcess := cfg.bundled && cfg.Wrap == nil
		if !inProcess && cfg.SuiteConfig.ParallelTotal <= 1 {
			// The preflight's answers may all carry a connection's set-up
			// (one user, one request): a few more, one after another, on
			// the connection it left open.
			for range autoProbes { // a failure is the checks' to meet
				if _, err := c.Do(ctx, client.Request{Method: "GET", Path: "/v1/user", Token: d.Users[0].Token}); err != nil {
					break
				}
			}
			if fastest := ctl.fastestAnswer(); fastest >= AutoSlow {
				cfg.Checks = AutoChecks
				fmt.Fprintf(cfg.Out, "chatconform: the target's fastest answer took %s: %d checks at once (--concurrent-checks 1 runs them one after another)\n", Readable(fastest), AutoChecks)
			}
		}
	}
	return conformance.NewEnv(ctx, envOptions(*cfg, d, c, ctl))
}

const (
	// AutoSlow is how long the fastest answer (the preflight's and
	// autoProbes more) must take for a run to put checks beside each
	// other by itself
	// (Config.Checks 0): below it, waiting is not what a run's time is
	// made of.
	AutoSlow = 20 * time.Millisecond
	// AutoChecks is how many checks then run at once.
	AutoChecks = 16
	// autoProbes is how many answers to GET /v1/user the choice waits
	// for besides the preflight's.
	autoProbes = 3
)

// envOptions are the checks' options for a run of cfg on d. Only the
// bundled server (no target named) has no writer but the run, and then
// only while its checks run one at a time: SoleWriter.
func envOptions(cfg Config, d *target.Description, c *client.Client, ctl *control) conformance.Options {
	o := conformance.Options{Target: d, Profile: cfg.Profile, Seed: cfg.Seed,
		Eventually: cfg.Eventually, Process: cfg.Process, Marker: cfg.Marker, Client: c,
		Examples: cfg.Examples, ModelSequences: cfg.ModelSequences, Parallel: cfg.Parallel,
		SoleWriter: cfg.bundled && cfg.Checks <= 1, Beside: cfg.Checks > 1}
	if o.Beside {
		ctl.shared, o.Quiet = true, ctl.quietly
	}
	return o
}

// redirectGinkgo points Ginkgo's reporter at w until restore is called.
// Ginkgo reads its output stream from a variable of its formatter package
// when RunSpecs starts; a process runs its suite once, so nothing else
// swaps it meanwhile.
func redirectGinkgo(w io.Writer) (restore func()) {
	prev := formatter.ColorableStdOut
	formatter.ColorableStdOut = w
	return func() {
		if f, ok := w.(interface{ Flush() error }); ok {
			_ = f.Flush()
		}
		formatter.ColorableStdOut = prev
	}
}

// halted ends a run that stopped before the checks ran: the result holds
// every requirement as NOT RUN, but for the checks in ran (the preflight,
// when it found a requirement broken).
func (s *Suite) halted(cfg Config, d *target.Description, start time.Time, code int, reason string, ran ...CheckResult) (*Result, error) {
	red, url := cfg.redactor(d), ""
	if d != nil {
		url = red.String(d.BaseURL)
	}
	res := summarize(types.Report{}, nil, cfg.Profile, cfg.Seed, url, time.Since(start), nil, nil)
	res.Started = start
	for _, c := range ran {
		for i := range res.Requirements {
			if slices.Contains(c.IDs, res.Requirements[i].ID) {
				res.Requirements[i].Checks = append(res.Requirements[i].Checks, c)
			}
		}
	}
	if len(ran) > 0 {
		res.tally(nil)
	}
	res.halt = &halt{Code: code, Reason: red.String(reason)}
	res.Halted = res.halt.Reason
	return s.finish(cfg, res, red)
}

// finish applies the baseline, prints the summary and writes the reports.
func (s *Suite) finish(cfg Config, res *Result, red *client.Redactor) (*Result, error) {
	if cfg.Baseline != nil {
		res.applyBaseline(cfg.Baseline)
	}
	res.Version = cfg.Version
	res.Bundled = cfg.bundled
	if res.Bundled {
		res.TargetNote = BundledNote
	}
	res.judge(cfg.Gate)
	res.ExitStatus = res.ExitCode()
	out := scrubbing(red.Writer(cfg.Out))
	if cfg.Verbose {
		res.Report.PrintVerbose(out)
	} else {
		res.Report.Print(out)
	}
	_ = out.Flush()
	if err := res.WriteReports(red, cfg.JUnit, cfg.JSON, cfg.HTML); err != nil {
		return res, err
	}
	if res.halt != nil {
		return res, &Halt{Code: res.halt.Code, Reason: res.halt.Reason}
	}
	return res, nil
}

// Abort writes the reports of a run that cannot start (the description
// must be fixed, for instance) and returns its result; code is its exit
// code and reason the sentence that says why. cfg.Target may be nil or
// partial.
func (s *Suite) Abort(cfg Config, code int, reason string) (*Result, error) {
	if err := CheckOutputs(cfg.JUnit, cfg.JSON, cfg.HTML); err != nil {
		return nil, err
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Profile == "" {
		cfg.Profile = spec.Core
	}
	return s.halted(cfg, cfg.Target, time.Now(), code, reason)
}

// redactor redacts every token of the run: the target's and cfg.Secrets.
func (cfg Config) redactor(d *target.Description) *client.Redactor {
	return client.NewRedactor(append(Tokens(d), cfg.Secrets...)...)
}

// Tokens returns every token of a description, user 1's first.
func Tokens(d *target.Description) []string {
	if d == nil {
		return nil
	}
	return d.Secrets()
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
