package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/runner"
	"github.com/chatrooms/conformance/suites/target"
)

const verifyUsage = `chatconform verify checks a signed attestation of a conformance run.

Usage:
  chatconform verify ATTESTATION.json --key PUBLIC.pem --record RECORD.jsonl [flags]

It checks the signature with the public key; with --record, also that the
record is the one the attestation names (its sha256), that replaying it
finds exactly the document and history verdicts the attestation claims,
and that no requirement the record shows broken is claimed otherwise. Any
edit to either file is caught.

With --record it also runs the run's checks again (chatconform replay
--checks: the record's seed, marker and options, every request answered
from the record, nothing sent anywhere). A verdict they reach again is
re-derived; a claim they contradict (a PASS where the record makes the
run's own checks fail) is rejected, whatever the flags.

It then refuses, unless a flag accepts it, what would mislead:
  - a verdict it did not re-derive from the record (--accept-signed): one
    whose checks, run again, asked for an answer the record does not hold
    or reached another verdict, and every verdict of a record written
    before runs kept what a replay of the checks needs; without --record
    nothing is re-derived;
  - a run that did not judge every checkable requirement of its profile
    (--min-judged N or P%: at least N requirements, or P% of them);
  - a run of the bundled reference server (--allow-bundled);
  - a run judged by another requirement catalogue or OpenAPI document than
    this build's (--allow-other-catalogue).
It always prints the profile, the digests of the catalogue and documents
the run was judged by, the harness version that made the run, the coverage,
which verdicts it re-derived and which it took on trust, and the target as
the run observed it: the addresses it connected to and the SHA-256
fingerprints of the TLS certificates the server presented.

--against URL connects to URL (over TLS, trusting the system's CAs, plus
--ca-file, or nothing with --insecure-skip-verify, as a run does) and
compares the leaf certificate it presents with the one the run recorded:
another certificate is rejected, naming both fingerprints. It cannot
compare a run that saw no TLS (a plain-http target) or an attestation made
before the certificate was recorded, and says so. --test-result FILE also
checks the in-toto Test Result statement written beside the attestation.

A verified attestation proves that the key's holder signed this record and
these verdicts, and what this build re-derives from the record. It does not
prove the record is what a server answered: whoever runs the harness makes
the record, and a key says who signed, not that the run was honest. A
matching certificate shows the record names the server at URL, not that
the run talked to it: a certificate is public, and can be copied into a
record written by hand.

Exit codes: 0 the attestation holds and nothing is refused; 1 it does not
hold, claims what is refused (each reason printed, with the flag that
accepts it), or --against finds another certificate; 2 bad flags or a key
that cannot be read; 3 --against could not reach the server (DNS, connect,
TLS, timeout).

Flags (-name and --name are the same):
`

// verify is `chatconform verify`.
func verify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatconform verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	key := fs.String("key", "", "public key `file` (PEM) of the signer")
	rec := fs.String("record", "", "the run record `file` the attestation names; without it no verdict is re-derived")
	minJudged := fs.String("min-judged", "", "accept a run that judged at least `N` checkable requirements of its profile, a count (60) or a share (90%) (default: every one)")
	allowBundled := fs.Bool("allow-bundled", false, "accept a run of the bundled reference server")
	allowOther := fs.Bool("allow-other-catalogue", false, "accept a run judged by another requirement catalogue or OpenAPI document than this build's")
	acceptSigned := fs.Bool("accept-signed", false, "accept verdicts not re-derived from the record, on the signer's word (each is listed)")
	against := fs.String("against", "", "compare the TLS certificate the server at `URL` presents now with the one the run recorded")
	caFile := fs.String("ca-file", "", "with --against: PEM `file` of a CA to trust besides the system's (as a run's --ca-file)")
	insecure := fs.Bool("insecure-skip-verify", false, "with --against: do not verify the server's certificate chain (the fingerprint is compared all the same)")
	timeout := fs.Duration("timeout", 15*time.Second, "with --against: give up on reaching the server after this `duration`")
	testResult := fs.String("test-result", "", "also check the in-toto Test Result statement `file` written beside the attestation")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, verifyUsage)
			fs.SetOutput(stdout)
			printDefaults(fs)
			return exitPass
		}
		fmt.Fprintln(stderr, "chatconform verify: see chatconform verify --help for the flags")
		return exitUsage
	}
	if len(pos) != 1 || *key == "" {
		fmt.Fprintln(stderr, "chatconform verify: name one attestation file and --key PUBLIC.pem (see chatconform verify --help)")
		return exitUsage
	}
	pol := attest.Policy{AllowBundled: *allowBundled, AllowOtherCatalogue: *allowOther, AcceptSigned: *acceptSigned}
	if *minJudged != "" {
		g, err := runner.ParseMinJudged(*minJudged)
		if err != nil {
			fmt.Fprintln(stderr, "chatconform verify:", err)
			return exitUsage
		}
		pol.MinJudged = &attest.MinJudged{Text: strings.TrimSpace(*minJudged), Count: g.MinJudged, Percent: g.MinPercent}
	}
	var hc *http.Client
	if *against != "" {
		if u, err := url.Parse(*against); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			fmt.Fprintf(stderr, "chatconform verify: --against %q: want the server's URL, https://host[:port]\n", *against)
			return exitUsage
		}
		if *timeout <= 0 {
			fmt.Fprintln(stderr, "chatconform verify: --timeout must be positive")
			return exitUsage
		}
		d := &target.Description{CAFile: *caFile, InsecureSkipVerify: *insecure}
		if hc, err = d.HTTPClient(); err != nil {
			var te *target.Error
			if errors.As(err, &te) {
				err = errors.New(te.Reason)
			}
			fmt.Fprintln(stderr, "chatconform verify: --ca-file:", err)
			return exitUsage
		}
		defer hc.CloseIdleConnections()
	} else if *caFile != "" || *insecure {
		fmt.Fprintln(stderr, "chatconform verify: --ca-file and --insecure-skip-verify say how to trust the server of --against URL; give --against too")
		return exitUsage
	}
	env, err := os.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "chatconform verify:", err)
		return exitUsage
	}
	var trEnv []byte
	if *testResult != "" {
		if trEnv, err = os.ReadFile(*testResult); err != nil {
			fmt.Fprintln(stderr, "chatconform verify: --test-result:", err)
			return exitUsage
		}
	}
	pub, err := os.ReadFile(*key)
	if err != nil {
		fmt.Fprintln(stderr, "chatconform verify: --key:", err)
		return exitUsage
	}
	var checks *attest.CheckReplay
	if *rec != "" {
		fmt.Fprintf(stdout, "chatconform verify: running the run's checks again against %s, each request answered from it\n", *rec)
		checks = replayChecks(ctx, *rec)
	}
	v, err := attest.Verify(ctx, env, pub, attest.Options{Record: *rec, Version: version(), Policy: pol, Checked: checkedByACheck, Checks: checks})
	if err != nil {
		fmt.Fprintln(stderr, "chatconform verify:", err)
		return exitUsage
	}
	if *against != "" {
		v.CheckAgainst(*against, func() (*client.Peer, error) {
			ctx, cancel := context.WithTimeout(ctx, *timeout)
			defer cancel()
			return client.Probe(ctx, hc, *against)
		})
	}
	if trEnv != nil && v.Statement != nil {
		problems, runURL, err := attest.VerifyTestResult(ctx, trEnv, pub, v.Statement)
		if err != nil {
			fmt.Fprintln(stderr, "chatconform verify:", err)
			return exitUsage
		}
		for _, p := range problems {
			v.Problems = append(v.Problems, "--test-result "+*testResult+": "+p)
		}
		if len(problems) == 0 {
			tr := attest.NewTestResult(v.Statement, runURL)
			v.Notes = append(v.Notes, fmt.Sprintf("--test-result %s: the in-toto Test Result of the same record, signed by the same key, maps these verdicts (result %s, %d passed, %d failed)",
				*testResult, tr.Predicate.Result, len(tr.Predicate.PassedTests), len(tr.Predicate.FailedTests)))
		}
	}
	if st := v.Statement; st != nil {
		printStatement(stdout, v)
	}
	if a := v.Against; a != nil && a.Matched {
		fmt.Fprintf(stdout, "  against %s: the server presents leaf certificate sha256 %s, the one the run recorded\n", a.URL, a.Live.Leaf())
	}
	if a := v.Against; a != nil {
		for _, n := range a.Notes {
			fmt.Fprintf(stdout, "  note: %s\n", n)
		}
	}
	for _, n := range v.Notes {
		fmt.Fprintf(stdout, "  note: %s\n", n)
	}
	for _, a := range v.Allowed {
		fmt.Fprintf(stdout, "  allowed (%s): %s\n", a.Flag, a.Text)
	}
	for _, r := range v.Refused {
		fmt.Fprintf(stdout, "  REFUSED (%s accepts it): %s\n", r.Flag, r.Text)
	}
	for _, p := range v.Problems {
		fmt.Fprintf(stdout, "  REJECTED: %s\n", p)
	}
	a := v.Against
	if a != nil && a.Problem != "" {
		fmt.Fprintf(stdout, "  REJECTED (--against): %s\n", a.Problem)
	}
	if a != nil && a.Unreached != nil {
		fmt.Fprintf(stdout, "  NOT COMPARED (--against): no connection to %s: %v\n", a.URL, a.Unreached)
	}
	switch {
	case len(v.Problems) > 0:
		fmt.Fprintln(stdout, "chatconform verify: the attestation does NOT hold")
		return exitFail
	case len(v.Refused) > 0:
		fmt.Fprintln(stdout, "chatconform verify: REFUSED: the attestation holds as signed, but what it claims would mislead (each REFUSED line names the flag that accepts it)")
		return exitFail
	case a != nil && a.Problem != "":
		fmt.Fprintf(stdout, "chatconform verify: REJECTED: the attestation holds, but the server at %s is not shown to be the one the run observed\n", a.URL)
		return exitFail
	case a != nil && a.Unreached != nil:
		hint := ""
		var te *client.TransportError
		if errors.As(a.Unreached, &te) && te.Kind == client.KindTLS && *caFile == "" && !*insecure {
			hint = " (a self-signed server: --ca-file FILE trusts its CA; --insecure-skip-verify trusts any certificate, and the fingerprint is compared all the same)"
		}
		fmt.Fprintf(stdout, "chatconform verify: the attestation holds, but no connection to %s could be made to compare its certificate%s\n", a.URL, hint)
		return exitHarness
	}
	what := "the signature holds"
	if v.RecordChecked {
		what = "the signature holds, the record is the one signed, and replaying it finds the verdicts claimed"
	}
	if a != nil && a.Matched {
		what += ", and the server at " + a.URL + " presents the certificate the run recorded"
	}
	fmt.Fprintf(stdout, "chatconform verify: OK: %s; %s re-derived from the record, %d taken on trust (key %s)\n",
		what, verdicts(len(v.Rederived)), len(v.Trusted), short(v.KeyID))
	return exitPass
}

// printStatement says what the attestation claims and what verify made of
// it: the run, the documents it was judged by, the harness, the coverage
// and the verdicts re-derived and taken on trust.
func printStatement(w io.Writer, v *attest.Verified) {
	p := v.Statement.Predicate
	target := p.Target
	if p.Bundled {
		target += " (the bundled reference server)"
	}
	fmt.Fprintf(w, "chatconform verify: a run of profile %s, seed %d, harness %s, against %s, started %s: exit code %d\n",
		p.Profile, p.Seed, p.HarnessVersion, target, p.Started.UTC().Format("2006-01-02 15:04:05 UTC"), p.ExitCode)
	var words []string
	for k := range p.Counts {
		words = append(words, k)
	}
	sort.Strings(words)
	fmt.Fprint(w, "  requirements:")
	for _, k := range words {
		fmt.Fprintf(w, " %s %d", k, p.Counts[k])
	}
	fmt.Fprintf(w, "; the record: %d exchanges, %s broken\n", p.Record.Exchanges, record.Plural(len(p.Record.Broken), "requirement"))
	whose := "this build's"
	if !v.SameDocuments {
		whose = "NOT this build's"
	}
	d := p.Digests
	fmt.Fprintf(w, "  judged by: requirement catalogue %s, core OpenAPI document %s, reference OpenAPI document %s (sha256; %s)\n",
		short12(d.Catalogue), short12(d.Core), short12(d.Reference), whose)
	fmt.Fprintf(w, "  harness: %s made the run; this is %s\n", p.HarnessVersion, version())
	fmt.Fprintf(w, "  coverage: %s of profile %s, counted by %s\n", v.Coverage, p.Profile, v.Coverage.Basis)
	n := len(v.Rederived) + len(v.Trusted)
	fmt.Fprintf(w, "  re-derived from the record: %d of %s", len(v.Rederived), verdicts(n))
	if len(v.Rederived) > 0 {
		fmt.Fprintf(w, " (%s)", attest.Short(derivedIDs(v.Rederived), 8))
	}
	fmt.Fprintf(w, "; taken on trust (signed, not re-derived): %d", len(v.Trusted))
	if len(v.Trusted) > 0 {
		fmt.Fprintf(w, " (%s)", attest.Short(derivedIDs(v.Trusted), 8))
	}
	fmt.Fprintln(w)
	if len(v.Trusted) > 0 {
		fmt.Fprintf(w, "    why not re-derived: %s\n", reasons(v.Trusted))
	}
	p.Observed.Print(w, "  ")
}

// reasons counts the trusted verdicts by why they were not re-derived.
func reasons(ds []attest.Derivation) string {
	count := map[string]int{}
	var order []string
	for _, d := range ds {
		if count[d.How] == 0 {
			order = append(order, d.How)
		}
		count[d.How]++
	}
	var out []string
	for _, h := range order {
		out = append(out, fmt.Sprintf("%s (%d)", h, count[h]))
	}
	return strings.Join(out, "; ")
}

func derivedIDs(ds []attest.Derivation) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

func verdicts(n int) string {
	if n == 1 {
		return "1 verdict"
	}
	return fmt.Sprintf("%d verdicts", n)
}

// checkedIDs are the requirement ids some declared check of this build
// verifies (any profile's): their PASS rests on the check, which a replay
// does not run again.
var checkedIDs = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, c := range runner.Prepare(0).Checks() {
		for _, id := range c.IDs {
			out[id] = true
		}
	}
	return out
})

// checkedByACheck reports whether a check verifies requirement id; when
// no check can be listed at all, every requirement is taken to have one,
// so that no PASS is counted as re-derived by mistake.
func checkedByACheck(id string) bool {
	ids := checkedIDs()
	return len(ids) == 0 || ids[id]
}

func short(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	if s == "" {
		return "(none)"
	}
	return s
}
