package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/chatrooms/conformance/suites/attest"
)

const verifyUsage = `chatconform verify checks a signed attestation of a conformance run.

Usage:
  chatconform verify ATTESTATION.json --key PUBLIC.pem [--record RECORD.jsonl]

It checks the signature with the public key; with --record, also that the
record is the one the attestation names (its sha256), that replaying it
finds exactly the document and history verdicts the attestation claims,
and that no requirement the record shows broken is claimed to pass. Any
edit to either file is caught.

Exit codes: 0 the attestation holds; 1 it does not (each reason printed);
2 bad flags or a key that cannot be read.

Flags (-name and --name are the same):
`

// verify is `chatconform verify`.
func verify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatconform verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	key := fs.String("key", "", "public key `file` (PEM) of the signer")
	rec := fs.String("record", "", "the run record `file` the attestation names")
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
	env, err := os.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "chatconform verify:", err)
		return exitUsage
	}
	pub, err := os.ReadFile(*key)
	if err != nil {
		fmt.Fprintln(stderr, "chatconform verify: --key:", err)
		return exitUsage
	}
	v, err := attest.Verify(ctx, env, pub, *rec, version())
	if err != nil {
		fmt.Fprintln(stderr, "chatconform verify:", err)
		return exitUsage
	}
	if st := v.Statement; st != nil {
		p := st.Predicate
		fmt.Fprintf(stdout, "chatconform verify: a run of profile %s, seed %d, harness %s, against %s, started %s: exit code %d\n",
			p.Profile, p.Seed, p.HarnessVersion, p.Target, p.Started.UTC().Format("2006-01-02 15:04:05 UTC"), p.ExitCode)
		var words []string
		for k := range p.Counts {
			words = append(words, k)
		}
		sort.Strings(words)
		fmt.Fprint(stdout, "  requirements:")
		for _, k := range words {
			fmt.Fprintf(stdout, " %s %d", k, p.Counts[k])
		}
		fmt.Fprintf(stdout, "; the record: %d exchanges, %d requirements broken\n", p.Record.Exchanges, len(p.Record.Broken))
	}
	for _, n := range v.Notes {
		fmt.Fprintf(stdout, "  note: %s\n", n)
	}
	if !v.OK() {
		for _, p := range v.Problems {
			fmt.Fprintf(stdout, "  REJECTED: %s\n", p)
		}
		fmt.Fprintln(stdout, "chatconform verify: the attestation does NOT hold")
		return exitFail
	}
	what := "the signature holds"
	if v.RecordChecked {
		what = "the signature holds, the record is the one signed, and replaying it finds the verdicts claimed"
	}
	fmt.Fprintf(stdout, "chatconform verify: OK: %s (key %s)\n", what, short(v.KeyID))
	return exitPass
}

func short(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}
