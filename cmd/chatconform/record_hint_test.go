package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/shell"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/bundled"
)

// hintedVerify finds the verify command a run with --attest prints, and
// the lines under it that explain its flags.
func hintedVerify(t *testing.T, out string) (args []string, explained map[string]string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "  chatconform verify ") })
	if i < 0 || !strings.Contains(lines[i-1], "chatconform: check it with (PUBLIC.pem: the public key of ") {
		t.Fatalf("no verify command printed:\n%s", out)
	}
	words, err := shell.Fields(strings.TrimPrefix(lines[i], "  chatconform "), nil)
	if err != nil {
		t.Fatal(err)
	}
	explained = map[string]string{}
	for _, l := range lines[i+1:] {
		if !strings.HasPrefix(l, "    --") {
			break
		}
		flag, text, _ := strings.Cut(strings.TrimSpace(l), "  ")
		explained[strings.Fields(flag)[0]] = strings.TrimSpace(text)
	}
	return words, explained
}

// The command printed after a run with --attest is one a user can run as
// printed (with the public key's path for PUBLIC.pem): it verifies, each
// flag in it is explained, and each is needed, since without it verify
// refuses the attestation.
func TestRecordHintGivesAVerifyCommandThatWorks(t *testing.T) {
	srv, err := bundled.Start(7, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	for _, tc := range []struct {
		name  string
		args  []string
		flags []string
	}{
		{"a narrow run of a named target", []string{"--target", writeTarget(t, t.TempDir(), srv.Target), "--seed", "7", "--label-filter", "AUTH-CURRENT-USER || USER-V-OPTIONAL"},
			[]string{"--min-judged"}},
		{"a narrow run of the bundled server", []string{"--seed", "7", "--label-filter", "AUTH-CURRENT-USER"},
			[]string{"--allow-bundled", "--min-judged"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := attestedRun(t, tc.args...)
			args, explained := hintedVerify(t, a.out)
			if k := slices.Index(args, "PUBLIC.pem"); k < 0 {
				t.Fatalf("the command names no PUBLIC.pem: %q", args)
			} else {
				args[k] = a.pub
			}
			if args[0] != "verify" || args[1] != a.att || !slices.Contains(args, a.rec) {
				t.Fatalf("the command %q does not name the attestation and the record", args)
			}
			var got []string
			for _, w := range args {
				if strings.HasPrefix(w, "--") && w != "--key" && w != "--record" {
					got = append(got, w)
					if explained[w] == "" {
						t.Errorf("%s is not explained:\n%s", w, a.out)
					}
				}
			}
			if !slices.Equal(sorted(got), sorted(tc.flags)) {
				t.Errorf("flags %v, want %v", got, tc.flags)
			}
			// Every verdict is re-derived (verify runs the checks again
			// against the record), so none is asked to be taken on trust.
			if !strings.Contains(explained["--min-judged"], "checkable requirements") {
				t.Errorf("the explanations: %q", explained)
			}
			code, out := chatconform(t, args...)
			says(t, "the printed command", code, 0, out, "OK: ")
			for i, w := range args {
				if !strings.HasPrefix(w, "--") || w == "--key" || w == "--record" {
					continue
				}
				n := 1
				if w == "--min-judged" {
					n = 2
				}
				without := slices.Concat(args[:i], args[i+n:])
				code, out := chatconform(t, without...)
				says(t, "without "+w, code, 1, out, "REFUSED ("+w+" accepts it)")
			}
		})
	}
}

// A run with --attest also writes the in-toto Test Result beside the
// attestation, signed by the same key; verify --test-result checks it
// against the attestation.
func TestRecordWritesTheTestResultBesideTheAttestation(t *testing.T) {
	a := attestedRun(t, "--seed", "8", "--label-filter", "AUTH-CURRENT-USER")
	trPath := testResultPath(a.att)
	if !strings.HasSuffix(trPath, "att.test-result.json") || !strings.Contains(a.out, "and its in-toto Test Result (WARNED) to "+trPath) {
		t.Fatalf("%s\n%s", trPath, a.out)
	}
	var env struct{ Payload string }
	if err := json.Unmarshal(mustRead(t, trPath), &env); err != nil {
		t.Fatal(err)
	}
	code, out := a.verifyCmd(t, a.att, "--allow-bundled", "--min-judged", "1", "--accept-signed", "--test-result", trPath)
	says(t, "--test-result", code, 0, out, "note: --test-result "+trPath+": the in-toto Test Result of the same record, signed by the same key, maps these verdicts (result WARNED, ", "OK: ")
	code, out = a.verifyCmd(t, trPath, "--allow-bundled")
	says(t, "the Test Result given as the attestation", code, 1, out, "REJECTED: this is the in-toto Test Result statement")
	// One edited to PASSED and signed again is not the attestation's.
	st, err := attest.NewStatement(mustRead(t, a.report), a.rec)
	if err != nil {
		t.Fatal(err)
	}
	tr := attest.NewTestResult(st, "")
	tr.Predicate.Result = attest.ResultPassed
	env2, err := attest.SignTestResult(t.Context(), tr, mustRead(t, a.key))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(a.dir, "forged.test-result.json")
	if err := os.WriteFile(path, env2, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out = a.verifyCmd(t, a.att, "--allow-bundled", "--min-judged", "1", "--accept-signed", "--test-result", path)
	says(t, "an edited Test Result", code, 1, out, "REJECTED: --test-result "+path+": the test result (result PASSED")
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}
