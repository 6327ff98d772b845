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
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/generate"
	"github.com/chatrooms/conformance/suites/history"
	"github.com/chatrooms/conformance/suites/runner"
	"github.com/chatrooms/conformance/suites/target"
)

// Exit codes (the README's outcome table).
const (
	exitPass    = runner.ExitPass        // every selected check passed (known failures allowed)
	exitFail    = runner.ExitFail        // a requirement failed, a baseline entry now passes, or coverage is short
	exitUsage   = runner.ExitUsage       // bad flags or target description
	exitHarness = runner.ExitUnreachable // unreachable, stopped answering, out of time, interrupted, could not judge
)

const usage = `chatconform checks a Chat Rooms REST API server and gives a verdict per requirement.

Usage:
  chatconform [flags]                          no target named: check the bundled reference server (profile reference)
  chatconform --target FILE [flags]            check the server a target description names (profile core)
  chatconform --base-url URL --token T [--token T2] [flags]
  chatconform --list                           list the checks and the requirements they verify
  chatconform diff OLD.json NEW.json           compare two --json reports (exit 1 when something regressed)
  chatconform selftest                         prove the checks against planted faults and conforming variants
  chatconform proxy --target FILE [flags]      judge a client's real traffic with a server, live (client and server violations)
  chatconform replay RECORD.jsonl              judge the exchanges of a --record file again, offline
  chatconform verify ATT.json --key PUB.pem --record RECORD.jsonl   check a signed attestation of a run
  chatconform keygen                           make a key pair for --attest
  chatconform help [COMMAND]                   print this help, or a command's (diff, selftest, proxy, replay, verify, keygen)
  chatconform --version                        print the version and the VCS revision it was built from

Examples:
  chatconform
  chatconform --target target.yaml --junit report.xml --json report.json --html report.html
  CHAT_BASE_URL=https://chat.example.com CHAT_TOKEN=... CHAT_TOKEN_2=... CHAT_CA_FILE=ca.pem chatconform
  chatconform --target target.yaml --hide-room 5f1a... --min-judged 100%
  chatconform --target target.yaml --label-filter 'MSG-SEND-200 || PAGE-BEFOREID-WALK'
  chatconform --target target.yaml --baseline known-failures.yaml --wait 2m
  chatconform --target target.yaml --record run.jsonl --attest att.json --key key.pem --json report.json

The target: every key of a target description can be given by a flag or an
environment variable instead (a flag beats a variable, which beats the file):
  key                             flag                      variable
  (the description file)          --target                  CHAT_TARGET
  base_url                        --base-url                CHAT_BASE_URL
  ca_file                         --ca-file                 CHAT_CA_FILE
  insecure_skip_verify            --insecure-skip-verify    CHAT_INSECURE_SKIP_VERIFY
  users[i].token                  --token (once per user)   CHAT_TOKEN, CHAT_TOKEN_2, ...
  users[i].name                   --user-name (per user)    CHAT_USER_NAME, CHAT_USER_NAME_2, ...
  users[i].id                     --user-id (per user)      CHAT_USER_ID, CHAT_USER_ID_2, ...
  users[i].username               --username (per user)     CHAT_USERNAME, CHAT_USERNAME_2, ...
  users[i].private_repos_granted  --private-repos-granted   CHAT_PRIVATE_REPOS_GRANTED, ..._2, ...
  rooms.org, rooms.repo           --rooms-org, --rooms-repo CHAT_ROOMS_ORG, CHAT_ROOMS_REPO
  rooms.channel                   --rooms-channel           CHAT_ROOMS_CHANNEL
  rooms.one_to_one                --rooms-one-to-one        CHAT_ROOMS_ONE_TO_ONE
  write_room                      --write-room              CHAT_WRITE_ROOM
  hide_room                       --hide-room               CHAT_HIDE_ROOM
A flag or variable that is set but empty is an error (exit 2): the bundled
reference server is checked only when none is set at all.

Outcomes: PASS, FAIL (the server broke a requirement), BLOCKED (a step the
check needed failed; names the requirement that FAILED there), ERROR
(transport, timeout, a check cut short, or blocked by a requirement that did
not fail), INCONCLUSIVE (rate limited or unavailable after bounded retries),
SKIP (not applicable, with the reason), NOT RUN (not selected, out of time,
interrupted, the target stopped answering), KNOWN (listed in the baseline).
Every run says how many checkable requirements it judged (PASS, FAIL, KNOWN)
and why it did not judge the others.

Exit codes: 0 every selected check passed (known failures allowed); 1 a
requirement failed, a baseline entry now passes, or coverage is short of
--min-judged/--require; 2 usage or target-description error; 3 the target
could not be reached or stopped answering, the run ran out of time or was
interrupted, or checks could not judge the target. Every exit after the
flags are read writes the reports asked for, with what is known.

Flags (-name and --name are the same):
`

// textFlag is a string flag that refuses an empty value: an empty flag
// (an empty CI variable expanded into it) must not read as "not given".
type textFlag struct {
	v   string
	set bool
}

func (t *textFlag) String() string { return t.v }
func (t *textFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty; leave the flag out, or give it a value")
	}
	t.v, t.set = v, true
	return nil
}

// listFlag is a repeated flag, one value per user in order; an empty value
// is refused.
type listFlag []string

func (l *listFlag) String() string { return fmt.Sprint(len(*l), " value(s)") }
func (l *listFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty; leave the flag out, or give it a value")
	}
	*l = append(*l, v)
	return nil
}

// boolsFlag is a repeated boolean flag, one value per user in order.
type boolsFlag []*bool

func (l *boolsFlag) String() string { return fmt.Sprint(len(*l), " value(s)") }
func (l *boolsFlag) Set(v string) error {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("%q is not a boolean (true, false, 1, 0)", v)
	}
	*l = append(*l, &b)
	return nil
}

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
	target, baseURL, caFile                            textFlag
	orgRoom, repoRoom, channelRoom, oneToOneRoom       textFlag
	writeRoom, hideRoom                                textFlag
	tokens, userNames, userIDs, usernames              listFlag
	granted                                            boolsFlag
	profile, labelFilter, focus                        string
	junit, jsonOut, htmlOut                            string
	baseline, writeBaseline, minJudged, require        string
	insecure                                           bool
	seed                                               uint64
	examples, modelSequences, parallel, checksAtOnce   int
	list, verbose, version                             bool
	timeout, eventually, specTimeout, maxTime, waitFor time.Duration
	rate                                               rateFlag
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// buildVersion, when set at build time (go build -ldflags "-X
// main.buildVersion=v1.2.3"), is the version chatconform says it is: the
// GitHub Action sets it to its own ref.
var buildVersion string

// version is the version chatconform was built as, which its reports,
// records and attestations name: buildVersion, or else the module version
// ("devel" for a build from a working tree without version control
// information), with the VCS revision when the build knows it and the
// version does not already name it.
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi, buildVersion)
}

func versionOf(bi *debug.BuildInfo, set string) string {
	v := strings.TrimSpace(set)
	if v == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v == "" {
		v = "devel"
	}
	if rev, modified := vcsOf(bi); len(rev) >= 12 && !strings.Contains(v, rev[:12]) {
		v += "+" + rev[:12]
		if modified {
			v += ".modified"
		}
	}
	return v
}

// vcsOf is the VCS revision the build was made from and whether the work
// tree was modified ("" when unknown).
func vcsOf(bi *debug.BuildInfo) (rev string, modified bool) {
	if bi == nil {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}

// versionLine is what --version prints: the version, the Go toolchain,
// the VCS revision in full when the build knows it, and the module version
// when the version set at build time is another.
func versionLine(bi *debug.BuildInfo, set, goVersion string) string {
	v := versionOf(bi, set)
	line := fmt.Sprintf("chatconform %s (%s", v, goVersion)
	if rev, modified := vcsOf(bi); rev != "" {
		line += fmt.Sprintf("; vcs.revision %s, vcs.modified %t", rev, modified)
	}
	if bi != nil && strings.TrimSpace(set) != "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" && !strings.HasPrefix(v, bi.Main.Version) {
		line += "; module version " + bi.Main.Version
	}
	return line + ")"
}

func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "selftest":
			return selftest(ctx, args[1:], stdout, stderr)
		case "diff":
			return diff(args[1:], stdout, stderr)
		case "proxy":
			return proxyCmd(ctx, args[1:], lookupEnv, stdout, stderr)
		case "replay":
			return replay(args[1:], stdout, stderr)
		case "verify":
			return verify(ctx, args[1:], stdout, stderr)
		case "keygen":
			return keygen(args[1:], stdout, stderr)
		case splitArgsCommand:
			return splitArgs(args[1:], stdout, stderr)
		case "help":
			if len(args) > 1 && args[1] != "help" {
				if !isCommand(args[1]) {
					return unknownCommand(stderr, "chatconform help", args[1])
				}
				return run(ctx, []string{args[1], "--help"}, lookupEnv, stdout, stderr)
			}
			args = []string{"--help"}
		default:
			if !strings.HasPrefix(args[0], "-") {
				return misplaced(stderr, "chatconform", args[0], true)
			}
		}
	}
	var o options
	fs := flag.NewFlagSet("chatconform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // the error alone on a mistake; the whole usage on --help (below)
	fs.Var(&o.target, "target", "target description `file` (YAML or JSON); also CHAT_TARGET")
	fs.Var(&o.baseURL, "base-url", "base `URL` of the server (beats the file and CHAT_BASE_URL)")
	fs.Var(&o.tokens, "token", "`token` of user 1; repeat for users 2, 3, ... (beats the file and CHAT_TOKEN, CHAT_TOKEN_2, ...)")
	fs.Var(&o.userNames, "user-name", "a `name` for user 1 in reports; repeat for users 2, 3, ... (users[i].name; CHAT_USER_NAME, CHAT_USER_NAME_2, ...)")
	fs.Var(&o.userIDs, "user-id", "user 1's `id`; repeat for users 2, 3, ... (users[i].id; CHAT_USER_ID, ...); checked against GET /v1/user, discovered when left out")
	fs.Var(&o.usernames, "username", "user 1's `username`; repeat for users 2, 3, ... (users[i].username; CHAT_USERNAME, ...); checked like --user-id")
	fs.Var(&o.granted, "private-repos-granted", "`true|false`: whether user 1 granted access to private repositories (true also promises one); repeat for users 2, 3, ... (CHAT_PRIVATE_REPOS_GRANTED, ..._2)")
	fs.Var(&o.caFile, "ca-file", "PEM `file` of a CA to trust besides the system's (beats CHAT_CA_FILE and the file's ca_file)")
	fs.BoolVar(&o.insecure, "insecure-skip-verify", false, "do not verify the server's certificate (beats CHAT_INSECURE_SKIP_VERIFY and the file)")
	fs.Var(&o.orgRoom, "rooms-org", "`id` of an organisation room of user 1 (rooms.org; CHAT_ROOMS_ORG)")
	fs.Var(&o.repoRoom, "rooms-repo", "`id` of a repository room of user 1 (rooms.repo; CHAT_ROOMS_REPO)")
	fs.Var(&o.channelRoom, "rooms-channel", "`id` of a channel of user 1 (rooms.channel; CHAT_ROOMS_CHANNEL)")
	fs.Var(&o.oneToOneRoom, "rooms-one-to-one", "`id` of a one-to-one room of user 1 (rooms.one_to_one; CHAT_ROOMS_ONE_TO_ONE)")
	fs.Var(&o.writeRoom, "write-room", "`id` of a room users 1 and 2 share, for posting (write_room; CHAT_WRITE_ROOM)")
	fs.Var(&o.hideRoom, "hide-room", "`id` of a room user 1 may lose from their list: enables the (destructive) hide checks (hide_room; CHAT_HIDE_ROOM)")
	fs.StringVar(&o.profile, "profile", "", "`name`: core or reference (default: reference for the bundled server, core otherwise)")
	fs.StringVar(&o.labelFilter, "label-filter", "", "run only checks whose labels (requirement ids, core, reference) match this Ginkgo label `expression`")
	fs.StringVar(&o.focus, "focus", "", "run only checks whose name matches this `regex`")
	fs.Uint64Var(&o.seed, "seed", 0, "`N`: seed for generated data and check order (default: from the clock; printed so a run can be replayed)")
	fs.BoolVar(&o.list, "list", false, "print the checks with their requirement ids and run nothing")
	fs.StringVar(&o.junit, "junit", "", "write a JUnit XML report to `file`")
	fs.StringVar(&o.jsonOut, "json", "", "write a JSON report (verdict per requirement, coverage, failures, exchanges) to `file`")
	fs.StringVar(&o.htmlOut, "html", "", "write an HTML report to `file`")
	fs.StringVar(&o.baseline, "baseline", "", "YAML `file` of requirements expected to fail, each with a reason: their failures are KNOWN and do not fail the run; an entry that now passes does")
	fs.StringVar(&o.writeBaseline, "write-baseline", "", "after a run that reached its end, write a baseline of its failures to `file`, keeping the reasons and the entries it did not judge of a baseline already there")
	fs.StringVar(&o.minJudged, "min-judged", "", "exit 1 unless at least `N` checkable requirements of the profile were judged (PASS, FAIL, KNOWN); N is a count (60) or a share (90%)")
	fs.StringVar(&o.require, "require", "", "exit 1 unless each of these requirement `ids` (comma-separated) was judged")
	fs.BoolVar(&o.verbose, "v", false, "print every check as it runs, and every blocked check in the summary")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.DurationVar(&o.timeout, "timeout", 15*time.Second, "timeout of each request")
	fs.DurationVar(&o.specTimeout, "check-timeout", 2*time.Minute, "timeout of each check")
	fs.DurationVar(&o.maxTime, "max-time", 30*time.Minute, "bound on the whole run: checks not started by then are NOT RUN and the run exits 3 (0: no bound)")
	fs.DurationVar(&o.waitFor, "wait", 0, "before the first request of the run, wait up to this `duration` for the target to answer at all (a server started just before the run)")
	fs.Var(&o.rate, "rate", "throttle the whole run to `N/s` requests per second (such as 5/s), for servers with tight rate limits (default: no limit)")
	fs.DurationVar(&o.eventually, "eventually", 5*time.Second, "how long search and unread state may lag behind a write")
	fs.IntVar(&o.examples, "examples", 0, "random `requests` each generated check draws per operation besides its coverage cases (0: the default, 4)")
	fs.IntVar(&o.modelSequences, "model-sequences", 0, "random `sequences` each check of the model of the API draws (0: the default, 4)")
	fs.IntVar(&o.parallel, "parallel", generate.DefaultParallel, "`N`: how many requests a generated check may have in flight at once (1: one at a time, and one check at a time unless --concurrent-checks says otherwise; --rate and the waits after 429 and 503 hold for all of them)")
	fs.IntVar(&o.checksAtOnce, "concurrent-checks", 0, "`N`: how many checks may run at once (1: one after another; 0: 16 when even the fastest answer of a named target, over its preflight and three GET /v1/user after it, took 20ms or more, else 1); beside each other, a check that compares the write room across requests holds the others' writes back while it reads, or tells their writes from a change of its own request by what they named")
	var rf recordFlags
	rf.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fs.SetOutput(stdout)
			printDefaults(fs)
			return exitPass
		}
		fmt.Fprintln(stderr, "chatconform: see chatconform --help for the flags")
		return exitUsage
	}
	if o.version {
		bi, _ := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionLine(bi, buildVersion, runtime.Version()))
		return exitPass
	}
	if fs.NArg() > 0 {
		return misplaced(stderr, "chatconform", fs.Arg(0), false)
	}
	if o.checksAtOnce < 0 {
		fmt.Fprintf(stderr, "chatconform: --concurrent-checks %d: give 1 or more, or 0 to let the run choose (1 runs one check at a time)\n", o.checksAtOnce)
		return exitUsage
	}
	if o.parallel < 1 {
		fmt.Fprintf(stderr, "chatconform: --parallel %d: give at least 1 (1 sends one request at a time)\n", o.parallel)
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
	if o.parallel == 1 && o.checksAtOnce == 0 {
		o.checksAtOnce = 1 // nothing at once
	}
	suite := runner.Prepare(o.specTimeout)
	if o.list {
		return list(stdout, suite, profile)
	}
	if err := runner.CheckOutputs(o.junit, o.jsonOut, o.htmlOut, o.writeBaseline); err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	if err := rf.check(); err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	if err := runner.CheckBaselineOut(o.writeBaseline); err != nil {
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
	in := runner.Inputs{File: o.target.v, LookupEnv: lookupEnv, Flags: target.Overrides{
		BaseURL: o.baseURL.v, Tokens: o.tokens, Names: o.userNames, IDs: o.userIDs, Usernames: o.usernames, PrivateReposGranted: o.granted,
		CAFile: o.caFile.v, InsecureSkipVerify: o.insecure, WriteRoom: o.writeRoom.v, HideRoom: o.hideRoom.v,
		Rooms: target.RoomHints{Org: o.orgRoom.v, Repo: o.repoRoom.v, Channel: o.channelRoom.v, OneToOne: o.oneToOneRoom.v},
	}}
	secrets := runner.InputTokens(in)
	named := in.Named()
	d, derr := runner.ResolveTarget(in)
	selProfile := profile
	if selProfile == "" {
		selProfile = spec.Core
		if !named {
			selProfile = spec.Reference
		}
	}
	if _, err := suite.Select(runner.Selection{Profile: selProfile, LabelFilter: o.labelFilter, Focus: o.focus}); err != nil {
		fmt.Fprintln(stderr, "chatconform:", err)
		return exitUsage
	}
	var gate runner.CoverageGate
	if o.minJudged != "" {
		g, err := runner.ParseMinJudged(o.minJudged)
		if err != nil {
			fmt.Fprintln(stderr, "chatconform:", err)
			return exitUsage
		}
		gate = g
	}
	if o.require != "" {
		ids, err := runner.ParseRequire(o.require, selProfile)
		if err != nil {
			fmt.Fprintln(stderr, "chatconform:", err)
			return exitUsage
		}
		gate.Require = ids
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
		Examples:       o.examples,
		ModelSequences: o.modelSequences,
		Parallel:       o.parallel,
		Checks:         o.checksAtOnce,
		CheckTimeout:   o.specTimeout,
		MaxTime:        o.maxTime,
		Wait:           o.waitFor,
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
		Gate:           gate,
		Version:        version(),
		SuiteConfig:    sc,
		ReporterConfig: rc,
	}
	if o.verbose {
		cfg.GinkgoOut = stdout
	}
	red := client.NewRedactor(append(runner.Tokens(d), secrets...)...)
	say := func(prefix string, err error) {
		fmt.Fprintln(stderr, prefix+runner.ScrubPaths(red.String(err.Error())))
	}
	var res *runner.Result
	var err error
	if derr != nil {
		_, err = suite.Abort(cfg, exitUsage, derr.Error())
		say("chatconform: ", derr)
		var h *runner.Halt
		if err != nil && !errors.As(err, &h) { // the halt is derr, said above
			say("chatconform: ", err)
		}
		return exitUsage
	}
	rec, err := rf.begin(&cfg, d)
	if err != nil {
		say("chatconform: ", err)
		return exitUsage
	}
	res, err = runSuite(ctx, suite, cfg, &failRecorder{})
	if rerr := rec.finish(ctx, res, stdout); rerr != nil {
		say("chatconform: ", rerr)
		if res == nil || res.ExitCode() == exitPass {
			return exitHarness
		}
	}
	if err != nil {
		say("chatconform: ", err)
		var ue *runner.UsageError
		if errors.As(err, &ue) {
			return exitUsage
		}
		if res == nil {
			return exitHarness
		}
	}
	if o.writeBaseline != "" {
		w, err := res.WriteBaseline(o.writeBaseline, red)
		switch {
		case errors.Is(err, runner.ErrIncomplete):
			say("chatconform: --write-baseline: not written: ", err)
		case err != nil:
			say("chatconform: --write-baseline: ", err)
			return exitHarness
		default:
			fmt.Fprintf(stdout, "chatconform: baseline of %d failing requirements written to %s", w.Entries, o.writeBaseline)
			if len(w.Kept) > 0 {
				fmt.Fprintf(stdout, "; kept %d entries this run did not judge (%s)", len(w.Kept), strings.Join(w.Kept, ", "))
			}
			if len(w.Dropped) > 0 {
				fmt.Fprintf(stdout, "; dropped %d that now pass (%s)", len(w.Dropped), strings.Join(w.Dropped, ", "))
			}
			fmt.Fprintln(stdout)
		}
	}
	return res.ExitCode()
}

// runSuite runs the checks; tests replace it to see the configuration a
// command line makes.
var runSuite = func(ctx context.Context, s *runner.Suite, cfg runner.Config, t ginkgo.GinkgoTestingT) (*runner.Result, error) {
	return s.Run(ctx, cfg, t)
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
			if !slices.Contains(byID[id], c.Name) {
				byID[id] = append(byID[id], c.Name)
			}
		}
	}
	byHistory := history.Requirements()
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
		switch {
		case slices.Contains(byHistory, r.ID):
			fmt.Fprintf(w, "%28s judged by the history checker (every answer of the run read side by side)\n", "")
		case r.IsCheckable() && len(byID[r.ID]) == 0:
			// The one judge left: a violation of the profile's document on
			// any answer of the run is a FAIL of the requirement it breaks.
			fmt.Fprintf(w, "%28s judged by the document checker alone (every answer of the run against the profile's OpenAPI document)\n", "")
		}
	}
	return exitPass
}
