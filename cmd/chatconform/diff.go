package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/chatrooms/conformance/suites/runner"
)

const diffUsage = `chatconform diff compares two JSON reports (--json) of runs against the same
kind of target and lists, per requirement, new failures, fixes and other
changes of verdict. It exits 1 when the newer run fails a requirement the
older one did not (FAIL where there was no FAIL or KNOWN), 0 otherwise, and 2
when a report cannot be read or is the report of a run that did not reach
its end (the target could not be reached, the description was refused, the
run was interrupted or ran out of time): its verdicts are no news about the
server, so the comparison would be void. Requirements the older run judged
and the newer did not are listed as no longer judged.

Usage:
  chatconform diff OLD.json NEW.json
`

func diff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatconform diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // the error alone on a mistake; the whole usage on --help (below)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, diffUsage)
			return exitPass
		}
		fmt.Fprintln(stderr, "chatconform diff: see chatconform diff --help (it takes no flag)")
		return exitUsage
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "chatconform diff: want two reports: OLD.json NEW.json (see --help)")
		return exitUsage
	}
	old, err := runner.LoadResult(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "chatconform diff:", err)
		return exitUsage
	}
	cur, err := runner.LoadResult(fs.Arg(1))
	if err != nil {
		fmt.Fprintln(stderr, "chatconform diff:", err)
		return exitUsage
	}
	for i, r := range []*runner.Result{old, cur} {
		if why := r.Comparable(); why != "" {
			fmt.Fprintf(stderr, "chatconform diff: %s: %s; no comparison (the diff would be void)\n", fs.Arg(i), why)
			return exitUsage
		}
	}
	if old.Profile != cur.Profile {
		fmt.Fprintf(stderr, "chatconform diff: %s is a run of the %s profile and %s of the %s profile; no comparison (the diff would be void)\n", fs.Arg(0), old.Profile, fs.Arg(1), cur.Profile)
		return exitUsage
	}
	d := runner.Compare(old, cur)
	d.Print(stdout)
	if d.Regressed() {
		return exitFail
	}
	return exitPass
}
