package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/conformance"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/runner"
	"github.com/chatrooms/conformance/suites/target"
)

// recordFlags are a run's --record, --attest and --key.
type recordFlags struct {
	record, attest, key string
	keyPEM              []byte
}

func (r *recordFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.record, "record", "", "write every exchange of the run to `file` (JSON Lines, tokens redacted), for chatconform replay and verify")
	fs.StringVar(&r.attest, "attest", "", "write a signed in-toto attestation of the run to `file` (needs --record and --key), and its in-toto Test Result beside it (FILE.test-result.json)")
	fs.StringVar(&r.key, "key", "", "private key `file` (PEM: ECDSA P-256 or Ed25519) that signs --attest; chatconform keygen makes one")
}

// check refuses what cannot work before anything runs.
func (r *recordFlags) check() error {
	if r.attest != "" && (r.record == "" || r.key == "") {
		return errors.New("--attest needs --record FILE (the attestation's subject) and --key FILE (the signing key)")
	}
	if r.key != "" && r.attest == "" {
		return errors.New("--key signs --attest; give --attest FILE too")
	}
	if r.key != "" {
		raw, err := os.ReadFile(r.key)
		if err != nil {
			return fmt.Errorf("--key: %w", err)
		}
		if err := attest.CheckPrivateKey(raw); err != nil {
			return fmt.Errorf("--key %s: %w", r.key, err)
		}
		r.keyPEM = raw
	}
	if r.attest != "" {
		if tr := testResultPath(r.attest); tr == r.record {
			return fmt.Errorf("--attest %s writes its Test Result statement to %s, the --record file: name another", r.attest, tr)
		}
		return runner.CheckOutputs(r.record, r.attest, testResultPath(r.attest))
	}
	return runner.CheckOutputs(r.record, r.attest)
}

// testResultPath is where the in-toto Test Result statement of an
// attestation is written: beside it, att.json giving att.test-result.json.
func testResultPath(attestPath string) string {
	return strings.TrimSuffix(attestPath, ".json") + ".test-result.json"
}

// recording is a run's record being written.
type recording struct {
	flags *recordFlags
	file  *os.File
	w     *record.Writer
}

// begin opens the record and makes cfg.Observe write every exchange to it.
// d is the target (nil: the bundled reference server of cfg.Seed).
func (r *recordFlags) begin(cfg *runner.Config, d *target.Description) (*recording, error) {
	if r.record == "" {
		return nil, nil
	}
	secrets := append(runner.Tokens(d), cfg.Secrets...)
	h := record.Header{Version: cfg.Version, Seed: cfg.Seed, Profile: string(cfg.Profile), Eventually: cfg.Eventually, ResponseHeaders: true}
	if h.Eventually == 0 {
		h.Eventually = 5 * time.Second // the runner's default
	}
	if cfg.Marker == "" {
		cfg.Marker = conformance.NewMarker(cfg.Process)
	}
	h.Marker = cfg.Marker
	h.Checks = &record.CheckOptions{LabelFilter: cfg.LabelFilter, Focus: cfg.Focus, Examples: cfg.Examples,
		ModelSequences: cfg.ModelSequences, Parallel: cfg.Parallel, Concurrent: cfg.Checks}
	if d == nil {
		// The bundled server's tokens come from its seeded world: the
		// record must not hold them either.
		w, err := fixtures.Generate(cfg.Seed)
		if err != nil {
			return nil, err
		}
		for _, u := range w.Users {
			secrets = append(secrets, u.Token)
		}
		h.Bundled, h.Target, h.Users = true, runner.BundledNote, len(w.Users)
		if h.Profile == "" {
			h.Profile = string(spec.Reference)
		}
	} else {
		h.Target, h.MountPath, h.Users, h.Shared = d.BaseURL, d.MountPath(), len(d.Users), true
		if h.Profile == "" {
			h.Profile = string(spec.Core)
		}
	}
	red := client.NewRedactor(secrets...)
	h.Described = record.Describe(d, red)
	f, err := os.Create(r.record)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	w, err := record.NewWriter(f, h, red, true)
	if err != nil {
		f.Close()
		return nil, err
	}
	if prev := cfg.Observe; prev != nil {
		cfg.Observe = func(o client.Observed) { prev(o); w.Observe(o) }
	} else {
		cfg.Observe = w.Observe
	}
	return &recording{flags: r, file: f, w: w}, nil
}

// finish closes the record and, with --attest, signs the run's statement.
func (rc *recording) finish(ctx context.Context, res *runner.Result, stdout io.Writer) error {
	if rc == nil {
		return nil
	}
	if res != nil {
		rc.w.SetChecksAtOnce(res.ChecksAtOnce)
	}
	tr, err := rc.w.Close()
	if cerr := rc.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--record %s: %w", rc.flags.record, err)
	}
	sum, err := fileSHA256(rc.flags.record)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "chatconform: record of %d exchanges written to %s (sha256 %s); chatconform replay %s judges it again (--checks: runs the checks again against it)\n",
		tr.Exchanges, rc.flags.record, sum, rc.flags.record)
	if rc.flags.attest == "" || res == nil {
		return nil
	}
	report, err := json.Marshal(res)
	if err != nil {
		return err
	}
	st, err := attest.NewStatement(report, rc.flags.record)
	if err != nil {
		return fmt.Errorf("--attest: %w", err)
	}
	env, err := attest.Sign(ctx, st, rc.flags.keyPEM)
	if err != nil {
		return fmt.Errorf("--attest: %w", err)
	}
	if err := os.WriteFile(rc.flags.attest, append(env, '\n'), 0o644); err != nil {
		return fmt.Errorf("--attest: %w", err)
	}
	trs := attest.NewTestResult(st, ciRunURL())
	trEnv, err := attest.SignTestResult(ctx, trs, rc.flags.keyPEM)
	if err != nil {
		return fmt.Errorf("--attest: %w", err)
	}
	trPath := testResultPath(rc.flags.attest)
	if err := os.WriteFile(trPath, append(trEnv, '\n'), 0o644); err != nil {
		return fmt.Errorf("--attest: %w", err)
	}
	fmt.Fprintf(stdout, "chatconform: attestation of the run signed and written to %s, and its in-toto Test Result (%s) to %s\n",
		rc.flags.attest, trs.Predicate.Result, trPath)
	// verify runs the checks again against the record: so does the run,
	// to say which of its verdicts that re-derives.
	printVerifyHint(stdout, st, rc.flags, replayChecks(ctx, rc.flags.record))
	return nil
}

// printVerifyHint prints the chatconform verify command that accepts this
// run's attestation, with each flag it needs and what that flag accepts:
// verify refuses by default what a run's claim cannot show on its own
// (verdicts it does not re-derive, a run that did not judge everything, a
// run of the bundled server).
func printVerifyHint(w io.Writer, st *attest.Statement, f *recordFlags, checks *attest.CheckReplay) {
	cmd := []string{"chatconform", "verify", shq(f.attest), "--key", "PUBLIC.pem", "--record", shq(f.record)}
	exp, err := attest.Expect(st, f.record, checkedByACheck, checks)
	if err != nil {
		fmt.Fprintf(w, "chatconform: check it with %s (see chatconform verify --help)\n", strings.Join(cmd, " "))
		return
	}
	var why [][2]string
	for _, r := range exp.Refused {
		switch r.Flag {
		case attest.FlagAcceptSigned:
			more := ""
			if n := len(exp.Rederived); n > 0 {
				more = fmt.Sprintf("; the other %d it re-derives", n)
			}
			why = append(why, [2]string{r.Flag, fmt.Sprintf("accepts on the signer's word the %s that running the checks again against the record does not reach (verify lists each, with why%s)",
				verdicts(len(exp.Trusted)), more)})
		case attest.FlagMinJudged:
			c := exp.Coverage
			why = append(why, [2]string{fmt.Sprintf("%s %d", r.Flag, c.Judged), fmt.Sprintf("accepts a run that judged %d of the %d checkable requirements of profile %s (by default verify wants every one judged)",
				c.Judged, c.Total, st.Predicate.Profile)})
		case attest.FlagAllowBundled:
			why = append(why, [2]string{r.Flag, "accepts a run of the bundled reference server, which proves the harness, not an implementation"})
		default:
			why = append(why, [2]string{r.Flag, "accepts what verify would refuse: " + r.Text})
		}
	}
	width := 0
	for _, y := range why {
		cmd = append(cmd, y[0])
		width = max(width, len(y[0]))
	}
	fmt.Fprintf(w, "chatconform: check it with (PUBLIC.pem: the public key of %s; chatconform keygen wrote it beside, as pub.pem unless told otherwise):\n", shq(f.key))
	fmt.Fprintf(w, "  %s\n", strings.Join(cmd, " "))
	for _, y := range why {
		fmt.Fprintf(w, "    %-*s  %s\n", width, y[0], y[1])
	}
	if len(why) == 0 {
		fmt.Fprintln(w, "  (no flag needed: verify re-derives every verdict of this run from the record)")
	}
	for i, d := range exp.Trusted {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more not re-derived\n", len(exp.Trusted)-i)
			break
		}
		fmt.Fprintf(w, "  not re-derived: %s %s: %s\n", d.ID, d.Verdict, d.How)
	}
	if len(exp.Problems) > 0 {
		// The run's own claim, contradicted by its own record: a replay
		// that goes another way than the run (a check that reads the
		// clock, say) is the harness's fault, and is said.
		fmt.Fprintf(w, "chatconform: running the checks again against the record contradicts this run: %s\n", strings.Join(exp.Problems, "; "))
	}
	if len(st.Predicate.Observed.Leaves()) > 0 && !st.Predicate.Bundled {
		fmt.Fprintln(w, "  add --against URL to compare the certificate a server presents with the one this run recorded (with --ca-file FILE or --insecure-skip-verify for a self-signed server)")
	}
}

// shq quotes a word for a POSIX shell when it needs it.
func shq(s string) string {
	q, err := syntax.Quote(s, syntax.LangPOSIX)
	if err != nil {
		return s
	}
	return q
}

// ciRunURL is the page of the CI run that runs chatconform, when GitHub
// Actions says which it is ("" otherwise): the Test Result's url.
func ciRunURL() string {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return ""
	}
	server, repo, id := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID")
	if server == "" || repo == "" || id == "" {
		return ""
	}
	u := strings.TrimSuffix(server, "/") + "/" + repo + "/actions/runs/" + id
	if a := os.Getenv("GITHUB_RUN_ATTEMPT"); a != "" && a != "1" {
		u += "/attempts/" + a
	}
	return u
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

const replayUsage = `chatconform replay judges the exchanges of a run record again, offline.

Usage:
  chatconform replay [--json FILE] [--junit FILE] [--html FILE] RECORD.jsonl
  chatconform replay --checks [--json FILE] [--junit FILE] [--html FILE] RECORD.jsonl

It reads a record written by chatconform --record, judges every exchange
with this build's document validator and history checker, and prints per
requirement either FAIL with the exchanges that show it, or "no
contradiction in N exchanges". With the version that wrote the record it
reproduces the run's document and history verdicts exactly, and says so;
with another version it says what changed (the documents' digests) and which
verdicts the newer version reaches differently.

The reports are a run's (the JSON valid against
suites/report/report.schema.json): every requirement of the record's
profile, those the record can judge PASS or FAIL, the others NOT RUN with
why, the document and history checkers as the judges, the counts and the
coverage; the JSON adds how the replay compares with the run ("replay").

With --checks it runs the run's checks again instead, as the run made
them (the record's seed, the marker its texts carried, its selection and
options, its target description without tokens), and answers every request
from the record: the same request, from the same user, gets the answer the
run got, in the order the run got them, with the record's times. Nothing is
sent to any server. A check that asks only what the run asked reaches the
run's verdict again from the record alone; a request the record holds no
answer for fails that check's request (the check's report row counts them
as notRecorded), and the requests are listed. Its output and reports are a
run's. verify does this to re-derive the verdicts of checks.

Exit codes: 0 nothing broken; 1 a requirement broken; 2 the record cannot
be read, or a report cannot be written; 3 the same documents and harness
reach other verdicts than the run (without --checks).

Flags (-name and --name are the same):
`

// notReDerived is why a replay leaves a checkable requirement it cannot
// judge NOT RUN, and what to do about it.
const (
	notReDerived   = "not re-derived from a record: judged by a check's assertions"
	notReDerivedDo = "read the run's own report or attestation for these verdicts (chatconform verify takes them on the signer's word with --accept-signed)"
)

// replay is `chatconform replay`.
func replay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatconform replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	checks := fs.Bool("checks", false, "run the run's checks again, each request answered from the record, instead of judging its exchanges")
	jsonOut := fs.String("json", "", "also write the replay as a run report in JSON to `file`")
	junitOut := fs.String("junit", "", "also write the replay as a run report in JUnit XML to `file`")
	htmlOut := fs.String("html", "", "also write the replay as a run report in HTML to `file`")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, replayUsage)
			fs.SetOutput(stdout)
			printDefaults(fs)
			return exitPass
		}
		fmt.Fprintln(stderr, "chatconform replay: see chatconform replay --help for the flags")
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "chatconform replay: name one record file (see chatconform replay --help)")
		return exitUsage
	}
	if err := runner.CheckOutputs(*jsonOut, *junitOut, *htmlOut); err != nil {
		fmt.Fprintln(stderr, "chatconform replay:", err)
		return exitUsage
	}
	if *checks {
		return rederive(context.Background(), pos[0], [3]string{*junitOut, *jsonOut, *htmlOut}, stdout, stderr)
	}
	r, err := record.ReplayFile(pos[0], version())
	if err != nil {
		fmt.Fprintln(stderr, "chatconform replay:", err)
		return exitUsage
	}
	r.Print(stdout)
	code := exitPass
	switch {
	case serverFailed(r.Verdicts):
		code = exitFail
	case len(r.Differences) > 0 && len(r.Changes) == 0 && !r.VersionChanged:
		code = exitHarness
	}
	if *jsonOut != "" || *junitOut != "" || *htmlOut != "" {
		res := replayReport(r)
		if res.ExitStatus != code {
			// Only a finding under a label that is no catalogue
			// requirement fails a replay that no requirement of the
			// report fails: the replay's exit code stands.
			res.ExitStatus = code
		}
		if err := res.WriteReports(client.NewRedactor(), *junitOut, *jsonOut, *htmlOut); err != nil {
			fmt.Fprintln(stderr, "chatconform replay:", err)
			return exitUsage
		}
	}
	return code
}

// replayReport is a replay as a run report: the record's run (target,
// profile, seed, version, start), a verdict of the document or history
// checker for every requirement the record can judge, NOT RUN with why for
// the other checkable ones, and how the replay compares with the run.
func replayReport(r *record.Replayed) *runner.Result {
	h, v := r.Header, r.Verdicts
	p, _ := spec.ParseProfile(h.Profile) // Replay refused a record whose profile it does not know
	in := runner.External{Profile: p, Target: h.Target, Bundled: h.Bundled, Seed: h.Seed, Version: h.Version,
		Started: h.Started, Duration: r.Span, Requests: v.Exchanges}
	if h.Bundled {
		in.TargetNote = runner.BundledNote
	}
	judgments, unsupported := r.Judgments()
	unattributed := in.AddJudgments(judgments, unsupported, r.Judgeable,
		"not judged from this record: ", "record the run again with this build (chatconform --record writes what a replay needs)",
		notReDerived, notReDerivedDo)
	note := &runner.ReplayNote{RecordedVersion: h.Version, Changes: r.Changes, Complete: r.Trailer != nil,
		Compared: r.Trailer != nil && r.Trailer.Verdicts != nil, Differences: r.Differences,
		JudgedAgainstDocument: v.Judged, ExchangesNotJudged: v.NotJudged,
		Digests: map[string]string{"openapiCore": h.Digests.Core, "openapiReference": h.Digests.Reference, "catalogue": h.Digests.Catalogue}}
	if r.VersionChanged {
		note.Changes = append(append([]string(nil), note.Changes...), fmt.Sprintf("harness %s recorded, %s now", h.Version, r.Version))
	}
	note.Unattributed = unattributed
	if len(unattributed) > 0 {
		in.Judges = append(in.Judges, runner.Unattributed(unattributed))
	}
	_, client := v.Split()
	note.Client = record.ClientBreaches(client)
	if len(r.Differences) > 0 && len(r.Changes) == 0 && !r.VersionChanged {
		in.Halt = &runner.Halt{Code: exitHarness, Reason: "the same documents and harness reach other verdicts than the run recorded"}
	}
	in.Replay = note
	return runner.NewReport(in)
}

// parseInterspersed parses flags that may come after the positional
// arguments, and returns those.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// serverFailed says the server broke something: a replay's findings about
// the harness's own requests are no verdict on the server.
func serverFailed(v *record.Verdicts) bool {
	server, _ := v.Split()
	return len(server.Failures) > 0
}
