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
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/client"
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
	fs.StringVar(&r.attest, "attest", "", "write a signed in-toto attestation of the run to `file` (needs --record and --key)")
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
	return runner.CheckOutputs(r.record, r.attest)
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
	f, err := os.Create(r.record)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	w, err := record.NewWriter(f, h, client.NewRedactor(secrets...), true)
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
	fmt.Fprintf(stdout, "chatconform: record of %d exchanges written to %s (sha256 %s); chatconform replay %s judges it again\n",
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
	fmt.Fprintf(stdout, "chatconform: attestation of the run signed and written to %s; check it with chatconform verify %s --key PUBLIC.pem --record %s\n",
		rc.flags.attest, rc.flags.attest, rc.flags.record)
	return nil
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
  chatconform replay [--json FILE] RECORD.jsonl

It reads a record written by chatconform --record, judges every exchange
with this build's document validator and history checker, and prints per
requirement either FAIL with the exchanges that show it, or "no
contradiction in N exchanges". With the version that wrote the record it
reproduces the run's document and history verdicts exactly, and says so;
with another version it says what changed (the documents' digests) and which
verdicts the newer version reaches differently.

Exit codes: 0 nothing broken; 1 a requirement broken; 2 the record cannot
be read; 3 the same documents and harness reach other verdicts than the run.

Flags (-name and --name are the same):
`

// replay is `chatconform replay`.
func replay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatconform replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	jsonOut := fs.String("json", "", "also write the verdicts as JSON to `file`")
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
	r, err := record.ReplayFile(pos[0], version())
	if err != nil {
		fmt.Fprintln(stderr, "chatconform replay:", err)
		return exitUsage
	}
	r.Print(stdout)
	if *jsonOut != "" {
		raw, err := json.MarshalIndent(r, "", "  ")
		if err == nil {
			err = os.WriteFile(*jsonOut, append(raw, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "chatconform replay: --json:", err)
			return exitUsage
		}
	}
	switch {
	case len(r.Verdicts.Failures) > 0:
		return exitFail
	case len(r.Differences) > 0 && len(r.Changes) == 0 && !r.VersionChanged:
		return exitHarness
	}
	return exitPass
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
