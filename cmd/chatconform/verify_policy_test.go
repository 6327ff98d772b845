package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/record"
	planted "github.com/chatrooms/conformance/suites/selftest"
)

// attested is a run made with --record and --attest, and the key pair.
type attested struct {
	dir, att, rec, report, key, pub string
	code                            int    // the run's exit code
	out                             string // the run's output
}

// attestedRun runs chatconform with args and --record, --attest, --key and
// --json into a new directory.
func attestedRun(t *testing.T, args ...string) *attested {
	t.Helper()
	dir := t.TempDir()
	a := &attested{dir: dir, att: filepath.Join(dir, "att.json"), rec: filepath.Join(dir, "run.jsonl"), report: filepath.Join(dir, "report.json"),
		key: filepath.Join(dir, "key.pem"), pub: filepath.Join(dir, "pub.pem")}
	priv, pub, err := attest.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.key, priv, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.pub, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	a.code, a.out = chatconform(t, append(args, "--record", a.rec, "--attest", a.att, "--key", a.key, "--json", a.report)...)
	if !strings.Contains(a.out, "attestation of the run signed") {
		t.Fatalf("run %v: exit %d, no attestation\n%s", args, a.code, a.out)
	}
	return a
}

// verifyCmd runs chatconform verify of att with the run's key and record.
func (a *attested) verifyCmd(t *testing.T, att string, flags ...string) (int, string) {
	t.Helper()
	return chatconform(t, append([]string{"verify", att, "--key", a.pub, "--record", a.rec}, flags...)...)
}

// resign signs st with the run's own key into a file of the run's
// directory, as a signer who edits their claim would.
func (a *attested) resign(t *testing.T, st *attest.Statement, name string) string {
	t.Helper()
	env, err := attest.Sign(context.Background(), st, mustRead(t, a.key))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(a.dir, name)
	if err := os.WriteFile(path, append(env, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// says reports whether out holds each of want, and names what it lacks.
func says(t *testing.T, what string, code, wantCode int, out string, want ...string) {
	t.Helper()
	ok := code == wantCode
	for _, w := range want {
		ok = ok && strings.Contains(out, w)
	}
	if !ok {
		t.Errorf("%s: exit %d (want %d), output lacks one of %q:\n%s", what, code, wantCode, want, out)
	}
}

// Every output of verify states what it checked and on what grounds.
func saysWhatItChecked(t *testing.T, what, out string) {
	t.Helper()
	for _, w := range []string{"a run of profile ", "  judged by: requirement catalogue ", "  harness: ", "  coverage: judged ", "  re-derived from the record: "} {
		if !strings.Contains(out, w) {
			t.Errorf("%s: the output lacks %q:\n%s", what, w, out)
		}
	}
}

// An implementer's forgery: the attestation of a run against a server
// with one planted defect, every verdict rewritten to PASS (the counts,
// the coverage and the exit code to match) and signed again with the
// signer's own key. None of these defects breaks the document or the
// history, so only the checks that found them can contradict the forged
// PASS: verify runs them again against the record, each request answered
// from it, and rejects the claim. The run's own attestation verifies with
// every verdict re-derived, nothing taken on trust.
func TestVerifyRefusesForgedAttestationsOfPlantedDefects(t *testing.T) {
	// One planted defect of each kind the self-test plants.
	for _, tc := range []struct{ fault, req string }{
		{"PAGE-BEFOREID/ignores-input", "PAGE-BEFOREID"},        // beforeId ignored
		{"SEARCH-Q/wrong-subject", "SEARCH-Q"},                  // a search finds nothing
		{"UNREAD-CHAT/not-stored", "UNREAD-CHAT"},               // unread state never set
		{"MSG-SEND-DEFAULTS/shape", "MSG-SEND-DEFAULTS"},        // a new message's defaults wrong
		{"MSG-SEND-STORED/stale-derived", "MSG-SEND-STORED"},    // a send read back stale
		{"MSG-EDIT/intermittent", "MSG-EDIT"},                   // an edit lost now and then
		{"MSG-EDIT-PERSISTED/collateral", "MSG-EDIT-PERSISTED"}, // another write undoes an edit
		{"UNREAD-MARK-READ/too-wide", "UNREAD-MARK-READ"},       // marking read reaches too far
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			desc := filepath.Join(t.TempDir(), "fault.json")
			stop, err := planted.Serve(tc.fault, 2, desc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
			// Search and unread state may lag a write by --eventually: a
			// short bound keeps the run short.
			a := attestedRun(t, "--target", desc, "--seed", "2", "--label-filter", tc.req, "--eventually", "100ms")
			if a.code != 1 || !strings.Contains(a.out, "FAIL "+tc.req) {
				t.Fatalf("the planted defect was not found: exit %d\n%s", a.code, a.out)
			}
			st, err := attest.NewStatement(mustRead(t, a.report), a.rec)
			if err != nil {
				t.Fatal(err)
			}
			p := &st.Predicate
			p.Counts = map[string]int{}
			judged := 0
			for i, rq := range p.Requirements {
				if rq.Verdict != "N/A" {
					p.Requirements[i].Verdict = "PASS"
					judged++
				}
				p.Counts[p.Requirements[i].Verdict]++
			}
			p.ExitCode, p.Halted = 0, ""
			p.Coverage, _ = json.Marshal(map[string]int{"judged": judged, "total": judged})
			p.Checks = map[string]int{"PASS": p.Checks["PASS"] + p.Checks["FAIL"]}
			forged := a.resign(t, st, "forged.json")

			code, out := a.verifyCmd(t, forged)
			// The run's checks, run again, fail it; or, for a defect the
			// document shows, the record's own judges do.
			says(t, "the forged attestation", code, 1, out, "  REJECTED: ")
			if !strings.Contains(out, "  REJECTED: replaying the run's checks against the record fails "+tc.req+"; the statement says PASS") &&
				!strings.Contains(out, "  REJECTED: the record shows "+tc.req+" broken by the server") {
				t.Errorf("the forgery is not rejected for %s:\n%s", tc.req, out)
			}
			saysWhatItChecked(t, "the forged attestation", out)
			// Even accepting signed verdicts does not let it through: the
			// record contradicts it.
			code, out = a.verifyCmd(t, forged, "--accept-signed")
			says(t, "the forged attestation, signed verdicts accepted", code, 1, out, "  REJECTED: replaying the run's checks")
			// The run's own attestation: every verdict re-derived.
			code, out = a.verifyCmd(t, a.att, "--min-judged", "1%")
			says(t, "the honest attestation", code, 0, out, ": exit code 1\n", "taken on trust (signed, not re-derived): 0", "OK: ")
			if strings.Contains(out, "REFUSED") || strings.Contains(out, "REJECTED") {
				t.Errorf("the honest attestation is refused:\n%s", out)
			}
		})
	}
}

// A run that judged three requirements (--label-filter) is no claim of
// conformance: refused by default, accepted with --min-judged 1% (its
// three verdicts are re-derived: no --accept-signed is needed).
func TestVerifyRefusesANarrowRunUnlessMinJudged(t *testing.T) {
	srv, err := bundled.Start(4, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a := attestedRun(t, "--target", writeTarget(t, t.TempDir(), srv.Target), "--seed", "4", "--label-filter", "AUTH-CURRENT-USER || USER-V-OPTIONAL")
	var rep struct {
		Bundled  bool
		Coverage struct{ Judged, Total int }
	}
	if err := json.Unmarshal(mustRead(t, a.report), &rep); err != nil || a.code != 0 || rep.Bundled || rep.Coverage.Judged != 3 {
		t.Fatalf("the narrow run: %v, exit %d, %+v\n%s", err, a.code, rep, a.out)
	}
	code, out := a.verifyCmd(t, a.att)
	says(t, "by default", code, 1, out, "REFUSED (--min-judged accepts it): the run judged 3 of the ", "a claim of conformance judges every one")
	saysWhatItChecked(t, "by default", out)
	if strings.Contains(out, "--allow-bundled") || strings.Contains(out, "--allow-other-catalogue") {
		t.Errorf("a run of a named target is refused as bundled or of another catalogue:\n%s", out)
	}
	code, out = a.verifyCmd(t, a.att, "--min-judged", "50%", "--accept-signed")
	says(t, "--min-judged 50%", code, 1, out, "REFUSED (--min-judged accepts it): ", "--min-judged 50% asks for 50%")
	code, out = a.verifyCmd(t, a.att, "--min-judged", "1%")
	says(t, "--min-judged 1%", code, 0, out, "allowed (--min-judged): ", "--min-judged 1% accepts it", "OK: the signature holds, the record is the one signed",
		"3 verdicts re-derived from the record, 0 taken on trust")
	code, out = a.verifyCmd(t, a.att, "--min-judged", "3")
	says(t, "--min-judged 3", code, 0, out, "OK: ")
	code, out = a.verifyCmd(t, a.att, "--min-judged", "4", "--accept-signed")
	says(t, "--min-judged 4", code, 1, out, "REFUSED (--min-judged accepts it): ")
	if code, out := a.verifyCmd(t, a.att, "--min-judged", "most"); code != 2 || !strings.Contains(out, "--min-judged") {
		t.Errorf("--min-judged most: exit %d\n%s", code, out)
	}
}

// A run of the bundled reference server proves the harness, not an
// implementation: refused unless --allow-bundled. And a run judged by
// another requirement catalogue than this build's (a fork's) is refused
// unless --allow-other-catalogue.
func TestVerifyRefusesABundledRunAndAnotherCatalogueUnlessAllowed(t *testing.T) {
	a := attestedRun(t, "--seed", "6", "--label-filter", "AUTH-CURRENT-USER")
	if a.code != 0 {
		t.Fatalf("exit %d\n%s", a.code, a.out)
	}
	lenient := []string{"--min-judged", "1", "--accept-signed"}
	code, out := a.verifyCmd(t, a.att, lenient...)
	says(t, "bundled", code, 1, out, "REFUSED (--allow-bundled accepts it): a run of the bundled reference server", "(the bundled reference server)")
	saysWhatItChecked(t, "bundled", out)
	code, out = a.verifyCmd(t, a.att, append(lenient, "--allow-bundled")...)
	says(t, "bundled, allowed", code, 0, out, "allowed (--allow-bundled): ", "OK: ")

	// The fork's record names its catalogue, and its build signs it.
	cur, err := record.CurrentDigests()
	if err != nil {
		t.Fatal(err)
	}
	raw := mustRead(t, a.rec)
	head, rest, _ := bytes.Cut(raw, []byte("\n"))
	other := strings.Repeat("cd", 32)
	fork := bytes.Replace(head, []byte(`"catalogue":"`+cur.Catalogue+`"`), []byte(`"catalogue":"`+other+`"`), 1)
	if bytes.Equal(fork, head) {
		t.Fatal("no catalogue digest in the record's header")
	}
	st, err := attest.NewStatement(mustRead(t, a.report), a.rec)
	if err != nil {
		t.Fatal(err)
	}
	a.rec = filepath.Join(a.dir, "fork.jsonl")
	if err := os.WriteFile(a.rec, append(append(fork, '\n'), rest...), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, err := fileSHA256(a.rec)
	if err != nil {
		t.Fatal(err)
	}
	st.Subject[0].Digest["sha256"] = sum
	st.Predicate.Digests.Catalogue = other
	forked := a.resign(t, st, "fork.json")
	lenient = append(lenient, "--allow-bundled")
	code, out = a.verifyCmd(t, forked, lenient...)
	says(t, "another catalogue", code, 1, out, "REFUSED (--allow-other-catalogue accepts it): ", "the requirement catalogue changed (sha256 cdcdcdcdcdcd -> "+cur.Catalogue[:12],
		"requirement catalogue cdcdcdcdcdcd", "NOT this build's")
	code, out = a.verifyCmd(t, forked, append(lenient, "--allow-other-catalogue")...)
	says(t, "another catalogue, allowed", code, 0, out, "allowed (--allow-other-catalogue): ", "counted by the statement's own list", "OK: ")
}

// chatconform help verify lists every flag that accepts what verify
// refuses by default, and what a verified attestation cannot prove.
func TestVerifyHelpListsItsFlags(t *testing.T) {
	var out, errw bytes.Buffer
	if code := run(context.Background(), []string{"help", "verify"}, noEnv, &out, &errw); code != 0 {
		t.Fatalf("exit %d %s", code, errw.String())
	}
	for _, want := range []string{"-accept-signed", "-min-judged N", "-allow-bundled", "-allow-other-catalogue", "-record file",
		"whoever runs the harness makes\nthe record"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("chatconform help verify lacks %q:\n%s", want, out.String())
		}
	}
}

// Every verdict of a default run is re-derived from its record: verify
// runs the run's checks again against it, each request answered from the
// record, and reaches each verdict the run signed. Nothing is taken on
// trust, so no --accept-signed is needed.
func TestVerifyRederivesEveryVerdictOfADefaultRun(t *testing.T) {
	a := attestedRun(t, "--seed", "8")
	if a.code != 0 {
		t.Fatalf("exit %d\n%s", a.code, a.out)
	}
	var rep struct {
		Coverage struct{ Judged, Total int }
	}
	if err := json.Unmarshal(mustRead(t, a.report), &rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(a.out, "--accept-signed") {
		t.Errorf("the run's hint asks for --accept-signed:\n%s", a.out)
	}
	// Its record replays clean: the harness's own requests meant to break
	// the document (a limit over 100) are no finding of anyone's.
	if code, out := chatconform(t, "replay", a.rec); code != 0 || !strings.Contains(out, "the same verdicts as the run recorded") {
		t.Errorf("the replay of a passing run: exit %d\n%s", code, out)
	}
	code, out := a.verifyCmd(t, a.att, "--allow-bundled", "--min-judged", strconv.Itoa(rep.Coverage.Judged))
	says(t, "the default run", code, 0, out, fmt.Sprintf("re-derived from the record: %d of %d verdicts", rep.Coverage.Judged, rep.Coverage.Judged),
		"taken on trust (signed, not re-derived): 0", "OK: ")
}

// The same holds for runs that fail: against a server with a planted
// defect in a derived field and one that needs the lag waited out, the
// whole core profile's verdicts, FAILs and BLOCKEDs included, are each
// re-derived.
func TestVerifyRederivesEveryVerdictOfAFailingRun(t *testing.T) {
	for _, fault := range []string{"ROOM-LAST-ACCESS/stale-derived#6", "MSG-SEND-STORED/stale-derived"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			desc := filepath.Join(t.TempDir(), "fault.json")
			stop, err := planted.Serve(fault, 3, desc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
			a := attestedRun(t, "--target", desc, "--seed", "3", "--eventually", "1s")
			if a.code != 1 {
				t.Fatalf("the planted defect was not found: exit %d\n%s", a.code, a.out)
			}
			code, out := a.verifyCmd(t, a.att, "--min-judged", "1%")
			says(t, fault, code, 0, out, "taken on trust (signed, not re-derived): 0", ": exit code 1\n", "OK: ")
		})
	}
}
