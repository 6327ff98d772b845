package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	planted "github.com/chatrooms/conformance/suites/selftest"
	"github.com/chatrooms/conformance/suites/selftest/worlds"
)

const selftestUsage = `chatconform selftest proves the checks: once per planted fault it runs the
core checks labelled with the requirement the fault breaks (--full: the
whole core profile) against the reference server decorated with that fault;
each fault must be caught by a check of its requirement, or carry a written
reason why it survives. Once per conforming variant it runs the whole core
profile, which must pass. Then it runs the whole core profile against the
reference server serving worlds of other shapes (--worlds N, drawn from the
seed: other numbers of users, memberships, kinds of rooms, sizes, tied
timestamps), each of which must pass too; a failing world is printed with
the commands that reproduce it, reduced to a smaller world where cheap. It
prints the kill matrix and writes it to a file.

Usage:
  chatconform selftest [flags]

Flags (-name and --name are the same):
`

func selftest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatconform selftest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // the error alone on a mistake; the whole usage on --help (below)
	matrix := fs.String("matrix", "selftest-matrix.txt", "write the kill matrix to this `file`")
	parallel := fs.Int("parallel", 2*runtime.NumCPU(), "`N` runs (chatconform processes) at a time")
	seed := fs.Uint64("seed", 1, "`N`: seed of the world and of every run")
	full := fs.Bool("full", false, "run every fault against the whole core profile, not only the checks of its requirement")
	concurrent := fs.Int("concurrent-checks", 1, "`N` checks at once in each run of a fault or variant (chatconform --concurrent-checks)")
	variants := fs.Bool("variants", false, "run the conforming variants only, no fault")
	faultsOnly := fs.Bool("faults", false, "run the planted faults only, no variant")
	only := fs.String("only", "", "run only the faults and variants whose name contains this `text`, or whose origin it names (held-out, model, ...), or, written =name, the one of that exact name; several separated by commas")
	except := fs.String("except", "", "leave out the faults and variants whose name contains this `text`, or whose origin it names, or, written =name, the one of that exact name; several separated by commas")
	listOnly := fs.Bool("list", false, "list the faults and variants (those --only and --variants select) by name, with what each does, and run nothing")
	worldsN := fs.Int("worlds", 50, "run the core profile against this many generated world `shapes` (0: none)")
	serve := fs.String("serve", "", "serve the reference decorated with the fault or variant of this `name` until interrupted, writing its target description to selftest-target.json and its certificate to selftest-target-ca.pem (check it with chatconform --target selftest-target.json)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, selftestUsage)
			fs.SetOutput(stdout)
			printDefaults(fs)
			return exitPass
		}
		fmt.Fprintln(stderr, "chatconform selftest: see chatconform selftest --help for the flags")
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chatconform selftest: unexpected argument %q (see --help)\n", fs.Arg(0))
		return exitUsage
	}
	sel := planted.Options{Only: *only, Except: *except, VariantsOnly: *variants, FaultsOnly: *faultsOnly}
	if *listOnly {
		faults, vars := sel.Selected()
		for _, f := range faults {
			fmt.Fprintf(stdout, "fault    %-44s %s\n", f.Name, f.What)
		}
		for _, v := range vars {
			fmt.Fprintf(stdout, "variant  %-44s %s\n", v.Name, v.What)
		}
		if len(faults)+len(vars) == 0 {
			fmt.Fprintf(stderr, "chatconform selftest: no fault or variant matches %q\n", *only)
			return exitUsage
		}
		return exitPass
	}
	if *serve != "" {
		stop, err := planted.Serve(*serve, *seed, "selftest-target.json")
		if err != nil {
			fmt.Fprintln(stderr, "chatconform selftest:", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "chatconform selftest: serving %s; target description in selftest-target.json (certificate in selftest-target-ca.pem): check it with chatconform --target selftest-target.json; interrupt to stop\n", *serve)
		<-ctx.Done()
		stop()
		return exitPass
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "chatconform selftest:", err)
		return exitHarness
	}
	if *concurrent < 1 {
		fmt.Fprintf(stderr, "chatconform selftest: --concurrent-checks %d: give at least 1\n", *concurrent)
		return exitUsage
	}
	fmt.Fprintf(stdout, "chatconform selftest: seed %d, %d at a time, full %t", *seed, *parallel, *full)
	if *concurrent > 1 {
		fmt.Fprintf(stdout, ", %d checks at once in each run", *concurrent)
	}
	fmt.Fprintln(stdout)
	sel.Binary, sel.Seed, sel.Parallel, sel.Full, sel.Concurrent = exe, *seed, *parallel, *full, *concurrent
	sel.Env, sel.Progress = []string{"CHATCONFORM_MAIN=1"}, stdout
	m, err := planted.Run(ctx, sel)
	if errors.Is(err, planted.ErrNothingSelected) {
		fmt.Fprintln(stderr, "chatconform selftest:", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintln(stderr, "chatconform selftest:", err)
		return exitHarness
	}
	var b bytes.Buffer
	m.Write(&b)
	worldsFailed := 0
	if *worldsN > 0 && *only == "" && *except == "" && !*faultsOnly {
		fmt.Fprintf(stdout, "chatconform selftest: the core profile against %d world shapes of seed %d\n", *worldsN, *seed)
		results, err := worlds.Run(ctx, worlds.Options{Binary: exe, Seed: *seed, N: *worldsN, Parallel: *parallel, Reduce: 6,
			Env: []string{"CHATCONFORM_MAIN=1"}, Progress: stdout})
		if err != nil {
			fmt.Fprintln(stderr, "chatconform selftest:", err)
			return exitHarness
		}
		fmt.Fprintf(&b, "\nWorld shapes: the core profile must pass the reference server in each (seed %d)\n\n", *seed)
		worldsFailed = worlds.WriteSummary(&b, results)
	}
	fmt.Fprintf(stdout, "\n%s", b.String())
	if *matrix != "" {
		if err := os.WriteFile(*matrix, b.Bytes(), 0o644); err != nil {
			fmt.Fprintln(stderr, "chatconform selftest:", err)
			return exitHarness
		}
		fmt.Fprintf(stdout, "chatconform selftest: matrix written to %s\n", *matrix)
	}
	if len(m.Problems()) > 0 || worldsFailed > 0 {
		return exitFail
	}
	return exitPass
}
