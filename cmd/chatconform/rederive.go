package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/generate"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/report"
	"github.com/chatrooms/conformance/suites/runner"
	"github.com/chatrooms/conformance/suites/target"
)

// replayedToken is the token a replay of the checks gives user i (from
// 1): the record keeps no token, and the cassette tells users apart by
// these. They are far apart, so that no token a check derives from one
// (a character changed, the case changed) is another's.
func replayedToken(i int) string {
	sum := sha256.Sum256([]byte("chatconform replayed token " + strconv.Itoa(i)))
	return hex.EncodeToString(sum[:16])
}

// replayChecks runs `chatconform replay --checks` on rec in a child
// process (Ginkgo runs its specs once per process) and reads its report.
func replayChecks(ctx context.Context, rec string) *attest.CheckReplay {
	failed := func(err error) *attest.CheckReplay { return &attest.CheckReplay{Err: err.Error()} }
	exe, err := os.Executable()
	if err != nil {
		return failed(err)
	}
	dir, err := os.MkdirTemp("", "chatconform-verify-")
	if err != nil {
		return failed(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "replay.json")
	cmd := exec.CommandContext(ctx, exe, "replay", "--checks", rec, "--json", out)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	runErr := cmd.Run()
	raw, err := os.ReadFile(out)
	if err != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" && runErr != nil {
			why = runErr.Error()
		}
		return failed(fmt.Errorf("the replay of the checks wrote no report: %s", why))
	}
	res, err := report.Decode(raw)
	if err != nil {
		return failed(fmt.Errorf("the replay of the checks: %w", err))
	}
	cr := &attest.CheckReplay{Verdicts: map[string]string{}, Unanswered: map[string]int{}, Version: res.Version}
	for _, rq := range res.Requirements {
		cr.Verdicts[rq.ID] = rq.Verdict.String()
		for _, c := range rq.Checks {
			cr.Unanswered[rq.ID] += c.NotRecorded
		}
	}
	return cr
}

// rederive is `chatconform replay --checks`: the checks of a recorded run
// run again, with the run's seed, marker and options, and every request is
// answered from the record (record.Cassette). A check that asks what the
// run asked meets what the run met, and reaches its verdict again from
// the record alone; one that asks anything the record does not hold is
// named, with its requests, as not re-derived.
func rederive(ctx context.Context, path string, reports [3]string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "chatconform replay:", err)
		return exitUsage
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	rd, err := record.NewReader(f)
	if err != nil {
		return fail(err)
	}
	h := rd.Header
	var xs []*record.Exchange
	for {
		x, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		xs = append(xs, x)
	}
	if h.Marker == "" || h.Checks == nil || (!h.Bundled && h.Described == nil) {
		return fail(fmt.Errorf("%s holds no run of checks to replay: a record of chatconform proxy, or one written before runs kept what a replay of the checks needs (the run's marker, options and target description); replay it without --checks", path))
	}
	p, err := spec.ParseProfile(h.Profile)
	if err != nil {
		return fail(err)
	}
	var d *target.Description
	var tokens []string
	if h.Bundled {
		// The bundled server's world, and so its tokens, come from the
		// seed; the server the runner starts is never asked.
		w, err := fixtures.Generate(h.Seed)
		if err != nil {
			return fail(err)
		}
		for _, u := range w.Users {
			tokens = append(tokens, u.Token)
		}
	} else {
		described := *h.Described
		d = &described
		d.Users = nil
		for i, u := range h.Described.Users {
			u.Token = replayedToken(i + 1)
			d.Users = append(d.Users, u)
			tokens = append(tokens, u.Token)
		}
	}
	cas := record.NewCassette(h, xs, tokens, generate.DerivedTokens(tokens))
	sc, rc := ginkgo.GinkgoConfiguration()
	rc.NoColor = true
	o := h.Checks
	// The checks run at once as in the run: never chosen again from how
	// fast the record answers.
	atOnce := o.Concurrent
	if atOnce == 0 && rd.Trailer != nil {
		atOnce = rd.Trailer.ChecksAtOnce
	}
	atOnce = max(atOnce, 1)
	cfg := runner.Config{
		Target: d, Selection: runner.Selection{Profile: p, LabelFilter: o.LabelFilter, Focus: o.Focus},
		Seed: h.Seed, Timeout: 30 * time.Second, Eventually: h.Eventually, Marker: h.Marker, Process: 1,
		Examples: o.Examples, ModelSequences: o.ModelSequences, Parallel: o.Parallel, Checks: atOnce,
		Out: stdout, GinkgoOut: io.Discard, Version: version(),
		JUnit: reports[0], JSON: reports[1], HTML: reports[2],
		Wrap:        func(http.RoundTripper) http.RoundTripper { return cas },
		Clock:       cas,
		SuiteConfig: sc, ReporterConfig: rc,
	}
	fmt.Fprintf(stdout, "chatconform replay: the checks of %s again, each request answered from the record (%d exchanges)\n", path, len(xs))
	res, err := runSuite(ctx, runner.Prepare(0), cfg, &failRecorder{})
	if err != nil {
		fmt.Fprintln(stderr, "chatconform replay:", err)
	}
	served, unserved := cas.Served()
	misses := cas.Misses()
	fmt.Fprintf(stdout, "chatconform replay: %d of the record's %d answers served, %d requests it holds no answer for\n", served, served+unserved, len(misses))
	for i, m := range misses {
		if i == 20 {
			fmt.Fprintf(stdout, "  ... and %d more\n", len(misses)-i)
			break
		}
		fmt.Fprintf(stdout, "  not in the record: %s\n", m.Request)
	}
	for i, x := range cas.Left() {
		if i == 5 {
			fmt.Fprintf(stdout, "  ... and %d more\n", unserved-i)
			break
		}
		check := x.Check
		if check == "" {
			check = "the run's setup"
		}
		fmt.Fprintf(stdout, "  not asked for: exchange %d, %s %s (%s)\n", x.N, x.Method, x.Path, check)
	}
	if res == nil {
		return exitHarness
	}
	return res.ExitCode()
}
