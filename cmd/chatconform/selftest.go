package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/reference"
)

const selftestUsage = `chatconform selftest proves the checks: it runs the core profile against the
bundled reference server once per planted fault (each must be caught by a check
labelled with the requirement it breaks) and once per conforming variant (each
must pass). It prints the kill matrix and writes it to a file.

Usage:
  chatconform selftest [flags]

Flags:
`

// outcome is one self-test run.
type outcome struct {
	kind, name, what string
	code             int
	failing          map[string][]string // failed check -> its requirement ids
	caught           bool                // a fault: a failing check carries its id
	err              string
	took             time.Duration
}

func selftest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatconform selftest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, selftestUsage); fs.PrintDefaults() }
	matrix := fs.String("matrix", "selftest-matrix.txt", "write the kill matrix to this `file`")
	parallel := fs.Int("parallel", runtime.NumCPU(), "runs at a time")
	seed := fs.Uint64("seed", 1, "seed of every run")
	only := fs.String("only", "", "run only the faults and variants whose name contains this `text`")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitPass
		}
		return exitUsage
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "chatconform selftest:", err)
		return exitHarness
	}
	dir, err := os.MkdirTemp("", "chatconform-selftest-")
	if err != nil {
		fmt.Fprintln(stderr, "chatconform selftest:", err)
		return exitHarness
	}
	defer os.RemoveAll(dir)

	var jobs []*outcome
	for _, f := range reference.Faults() {
		if strings.Contains(f.Name, *only) {
			jobs = append(jobs, &outcome{kind: "fault", name: f.Name, what: f.What})
		}
	}
	for _, v := range reference.Variants() {
		if strings.Contains(v.Name, *only) {
			jobs = append(jobs, &outcome{kind: "variant", name: v.Name, what: v.What})
		}
	}
	start := time.Now()
	fmt.Fprintf(stdout, "chatconform selftest: %d runs, %d at a time, seed %d\n", len(jobs), *parallel, *seed)
	sem := make(chan struct{}, max(1, *parallel))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			runOne(ctx, exe, filepath.Join(dir, fmt.Sprintf("%d.json", i)), *seed, j)
		}()
	}
	wg.Wait()

	var b strings.Builder
	bad := 0
	fmt.Fprintf(&b, "Kill matrix: core profile against the reference server with one planted fault per run.\n\n")
	for _, j := range jobs {
		if j.kind != "fault" {
			continue
		}
		verdict := "CAUGHT"
		if !j.caught {
			verdict, bad = "MISSED", bad+1
		}
		fmt.Fprintf(&b, "%-7s %-26s %s (%s)\n", verdict, j.name, j.what, j.took.Round(time.Millisecond))
		checks := make([]string, 0, len(j.failing))
		for c := range j.failing {
			checks = append(checks, c)
		}
		sort.Strings(checks)
		for _, c := range checks {
			fmt.Fprintf(&b, "          failed: %s [%s]\n", c, strings.Join(j.failing[c], ", "))
		}
		if j.err != "" {
			fmt.Fprintf(&b, "          %s\n", j.err)
		}
	}
	fmt.Fprintf(&b, "\nConforming variants: core profile must pass each.\n\n")
	for _, j := range jobs {
		if j.kind != "variant" {
			continue
		}
		verdict := "PASSED"
		if j.code != exitPass {
			verdict, bad = "FAILED", bad+1
		}
		fmt.Fprintf(&b, "%-7s %-26s %s (%s)\n", verdict, j.name, j.what, j.took.Round(time.Millisecond))
		for c, ids := range j.failing {
			fmt.Fprintf(&b, "          failed: %s [%s]\n", c, strings.Join(ids, ", "))
		}
		if j.err != "" {
			fmt.Fprintf(&b, "          %s\n", j.err)
		}
	}
	fmt.Fprintf(&b, "\n%d runs in %s; %d problem(s)\n", len(jobs), time.Since(start).Round(time.Second), bad)
	fmt.Fprint(stdout, b.String())
	if *matrix != "" {
		if err := os.WriteFile(*matrix, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(stderr, "chatconform selftest:", err)
			return exitHarness
		}
		fmt.Fprintf(stdout, "chatconform selftest: matrix written to %s\n", *matrix)
	}
	if bad > 0 {
		return exitFail
	}
	return exitPass
}

func runOne(ctx context.Context, exe, report string, seed uint64, j *outcome) {
	args := []string{"--profile", "core", "--seed", fmt.Sprint(seed), "--json", report, "--eventually", "3s"}
	if j.kind == "fault" {
		args = append(args, "--inject-fault", j.name)
	} else {
		args = append(args, "--variant", j.name)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(cleanEnv(), "CHATCONFORM_MAIN=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	j.took = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		j.code = ee.ExitCode()
	} else if err != nil {
		j.code, j.err = exitHarness, err.Error()
		return
	}
	raw, err := os.ReadFile(report)
	var s Summary
	if err == nil {
		err = json.Unmarshal(raw, &s)
	}
	if err != nil {
		j.err = fmt.Sprintf("exit %d, no report: %v; output: %s", j.code, err, tail(out.String(), 400))
		return
	}
	j.failing = map[string][]string{}
	for _, r := range s.Requirements {
		for _, c := range r.Checks {
			if c.State == "failed" {
				j.failing[c.Name] = append(j.failing[c.Name], r.ID)
				if r.ID == j.name {
					j.caught = true
				}
			}
		}
	}
	if j.kind == "fault" && j.code != exitFail {
		j.caught, j.err = false, fmt.Sprintf("exit %d, want 1", j.code)
	}
}

// cleanEnv drops CHAT_* so a self-test run always targets the bundled server.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CHAT_") {
			env = append(env, kv)
		}
	}
	return env
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
