package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/spec"
)

// Ginkgo runs its specs once per process, so each run of BenchmarkFarRun
// happens in a child process: the test binary re-executed with
// farChildEnv set to the delay runs one core run and writes its figures
// to the file farOutEnv names.
func TestMain(m *testing.M) {
	if delay, ok := os.LookupEnv(farChildEnv); ok {
		os.Exit(farRunChild(delay, os.Getenv(farChildParallelEnv), os.Getenv(farOutEnv)))
	}
	os.Exit(m.Run())
}

const (
	// farDelaysEnv lists the delays BenchmarkFarRun measures, as Go
	// durations separated by commas; unset, 50ms alone (a run of about two
	// minutes; 300ms takes about ten).
	farDelaysEnv = "CHATCONFORM_FARRUN_DELAYS"
	// farParallelEnv lists the values of Config.Parallel (chatconform
	// --parallel) to measure at each delay, separated by commas; unset,
	// the default alone (0, which the run takes as its default).
	farParallelEnv = "CHATCONFORM_FARRUN_PARALLEL"
	// farChecksEnv is Config.Checks (chatconform --concurrent-checks) of
	// every run measured; unset, 0: the run chooses, as by default.
	farChecksEnv = "CHATCONFORM_FARRUN_CHECKS"
	// farJSONEnv, when set, is a directory each run writes its JSON report
	// to, as <delay>.json: what a failing run failed on.
	farJSONEnv          = "CHATCONFORM_FARRUN_JSON"
	farChildEnv         = "CHATCONFORM_FARRUN_CHILD"
	farChildParallelEnv = "CHATCONFORM_FARRUN_CHILD_PARALLEL"
	farOutEnv           = "CHATCONFORM_FARRUN_OUT"
	farSeed             = 1
)

// BenchmarkFarRun measures a run against a far server: the bundled
// reference server checked with the core profile, configured as
// `chatconform --profile core` configures that run (no target named, seed
// 1, chatconform's default --timeout, --eventually, --max-time and
// --check-timeout), with every answer held back by a delay before the
// harness sees it: a transport beneath the run's client sleeps for the
// delay after each answer's headers arrive (Config.Wrap; nothing else of
// the run changes, and connection set-up is not delayed, where a real far
// server costs one or two more round trips per new connection). One
// sub-benchmark per delay, named by it (BenchmarkFarRun/50ms); the delays
// are those CHATCONFORM_FARRUN_DELAYS lists (default 50ms alone; 0s gives
// the run without a delay). CHATCONFORM_FARRUN_PARALLEL lists values of
// --parallel to measure at each delay (unset: the default alone); when it
// is set, each sub-benchmark is named by both (BenchmarkFarRun/300ms/parallel-1):
//
//	go test ./suites/runner -run '^$' -bench FarRun -benchtime 1x
//	CHATCONFORM_FARRUN_DELAYS=50ms,150ms,300ms go test ./suites/runner -run '^$' -bench FarRun -benchtime 1x -timeout 40m
//	CHATCONFORM_FARRUN_DELAYS=0s,300ms CHATCONFORM_FARRUN_PARALLEL=1,8 go test ./suites/runner -run '^$' -bench FarRun -benchtime 1x -timeout 60m
//
// Each run is a child process (Ginkgo runs its specs once per process).
// Figures, the mean over b.N runs:
//
//   - wall-s: the run's wall time, from starting the bundled server to the
//     reports (Suite.Run);
//   - requests: the requests the run sent, every attempt; waits: how many
//     of them it sent with no other request in flight, so that it had
//     waited for every answer before (control.waits): the answers it
//     waited for in turn, each one delay at least;
//   - setup-requests, setup-waits: the same before the first check
//     (preflight and discovery; the preflight asks every token at once);
//   - longest-check-waits: the most waits of one check (its clean-up
//     included), and longest-check-requests: the most requests one check
//     sent (the JSON report's `requests` of each check);
//   - in-flight: the most requests in flight at once after the set-up;
//   - critical-path-s: (setup-waits + longest-check-waits) × delay;
//   - wall/critical: wall-s / critical-path-s; own-s: wall-s − waits ×
//     delay, the run's time not spent waiting for a delayed answer;
//   - conns: TCP connections the run opened to the server's HTTPS port;
//     plain-conns: those opened to the same port over plain http (the
//     checks that the API is not served without TLS: one connection per
//     probe, necessarily);
//   - h2-answers, h1-answers: answers over HTTP/2 and over HTTP/1.x;
//     reused: answers over a connection that carried an earlier one;
//   - exit: the run's exit code (0, as without the delay; any other is
//     also a benchmark failure, the checks that did not pass logged);
//   - longest-generated-s: the longest duration of a generated check
//     (package generate; each is logged with its requests and waits).
//     Requests a check sends together are not waits, so for those checks
//     waits understate the wait and their durations tell more; the five
//     longest checks by duration are logged too, each with how long its
//     writes were held back by other checks' quiet windows;
//   - quiet-s: how long quiet windows were held in all (checks beside
//     each other only; the checks that held them are logged).
//
// The critical path. Today a run's checks run one after another, and
// each sends its requests one after another (but for the few that send
// some at once on purpose, the concurrency checks among them, the
// preflight, which asks every token at once, and the generated checks,
// which send their independent requests up to --parallel at once), so
// wall time is about waits × delay plus the run's time without a delay,
// and waits is nearly requests but for the generated checks. If every check were allowed to run at once, each sending its
// requests as it does today, the run still could not end before its
// set-up and then its longest check had each waited for their answers in
// turn: (setup-waits + longest-check-waits) × delay. That is a lower bound
// of what running the checks concurrently can reach, not a prediction of
// it: checks that need a room to themselves must still run apart, a rate
// limit caps what is in flight, and the run's own time without a delay
// comes on top. It is not the longest chain of requests that depend on
// each other: requests inside one check that do not (generated requests,
// observers, read-backs) could also be in flight together, and a run
// doing that could end sooner than this bound; this benchmark does not
// measure that chain.
func BenchmarkFarRun(b *testing.B) {
	pars, named := farParallels(b)
	for _, d := range farDelays(b) {
		for _, par := range pars {
			name := d.String()
			if named {
				name += fmt.Sprintf("/parallel-%d", par)
			}
			b.Run(name, func(b *testing.B) { farBench(b, d, par) })
		}
	}
}

// farBench measures b.N runs at delay d with Config.Parallel par.
func farBench(b *testing.B, d time.Duration, par int) {
	var runs []farFigures
	for i := 0; i < b.N; i++ {
		runs = append(runs, farRun(b, d, par))
	}
	mean := func(f func(farFigures) float64) float64 {
		sum := 0.0
		for _, r := range runs {
			sum += f(r)
		}
		return sum / float64(len(runs))
	}
	critical := func(r farFigures) float64 {
		return float64(r.SetupWaits+r.LongestCheck) * d.Seconds()
	}
	b.ReportMetric(mean(func(r farFigures) float64 { return r.Wall.Seconds() }), "wall-s")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.Requests) }), "requests")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.Waits) }), "waits")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.SetupRequests) }), "setup-requests")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.SetupWaits) }), "setup-waits")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.LongestCheck) }), "longest-check-waits")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.MostRequests) }), "longest-check-requests")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.InFlight) }), "in-flight")
	b.ReportMetric(mean(critical), "critical-path-s")
	if d > 0 {
		b.ReportMetric(mean(func(r farFigures) float64 { return r.Wall.Seconds() / critical(r) }), "wall/critical")
	}
	b.ReportMetric(mean(func(r farFigures) float64 { return r.Wall.Seconds() - float64(r.Waits)*d.Seconds() }), "own-s")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.Conns) }), "conns")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.PlainConns) }), "plain-conns")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.Protocols["HTTP/2.0"]) }), "h2-answers")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.Protocols["HTTP/1.1"] + r.Protocols["HTTP/1.0"]) }), "h1-answers")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.Reused) }), "reused")
	b.ReportMetric(mean(func(r farFigures) float64 { return float64(r.Exit) }), "exit")
	b.ReportMetric(mean(func(r farFigures) float64 { return r.LongestGenerated.Seconds() }), "longest-generated-s")
	b.ReportMetric(mean(func(r farFigures) float64 { return r.QuietFor.Seconds() }), "quiet-s")
	for _, r := range runs {
		b.Logf("delay %s: %s wall, %d checks at once, %d requests in %d waits (%d in %d before the checks); %d checks sent any; the longest, %d waits of %d requests: %q; "+
			"the most requests, %d in %d waits: %q; checks sending some at once (waits of requests): %s; at most %d in flight after the set-up",
			d, r.Wall.Round(time.Millisecond), r.AtOnce, r.Requests, r.Waits, r.SetupRequests, r.SetupWaits, r.Checks, r.LongestCheck, r.LongestRequests, r.LongestName,
			r.MostRequests, r.MostWaits, r.MostName, strings.Join(r.Overlapping, "; "), r.InFlight)
		b.Logf("delay %s: the longest checks, in waits of requests: %s", d, strings.Join(r.Longest, "; "))
		b.Logf("delay %s: the longest checks by duration: %s", d, strings.Join(r.ByDuration, "; "))
		b.Logf("delay %s: the generated checks (parallel %d; 0 is the default), duration, waits of requests: %s", d, par, strings.Join(r.Generated, "; "))
		b.Logf("delay %s: quiet windows held %v in all: %s", d, r.QuietFor.Round(time.Millisecond), strings.Join(r.Quiet, "; "))
		b.Logf("delay %s: %d TLS connections, %d plain-http connections, answers by protocol %v, %d over a reused connection; exit %d",
			d, r.Conns, r.PlainConns, r.Protocols, r.Reused, r.Exit)
		if r.Requests != r.SetupRequests+r.CheckRequests {
			b.Logf("delay %s: %d requests were sent outside the checks and the set-up", d, r.Requests-r.SetupRequests-r.CheckRequests)
		}
		if r.Exit != ExitPass {
			b.Errorf("delay %s: the run exited %d; not passed: %s", d, r.Exit, strings.Join(r.NotPassed, "; "))
		}
	}
}

// farParallels are the values of Config.Parallel CHATCONFORM_FARRUN_PARALLEL
// lists (0, the default, unset), and whether it was set.
func farParallels(b *testing.B) ([]int, bool) {
	v := os.Getenv(farParallelEnv)
	if v == "" {
		return []int{0}, false
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			b.Fatalf("%s: %q is not a number of requests in flight (0 for the default)", farParallelEnv, s)
		}
		out = append(out, n)
	}
	return out, true
}

// farDelays are the delays CHATCONFORM_FARRUN_DELAYS lists (50ms unset).
func farDelays(b *testing.B) []time.Duration {
	v := os.Getenv(farDelaysEnv)
	if v == "" {
		v = "50ms"
	}
	var out []time.Duration
	for _, s := range strings.Split(v, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < 0 {
			b.Fatalf("%s: %q is not a delay (a Go duration such as 150ms)", farDelaysEnv, s)
		}
		out = append(out, d)
	}
	return out
}

// farFigures is what one run under a delay measured.
type farFigures struct {
	Wall          time.Duration
	AtOnce        int // checks at once, as the run chose (Result.ChecksAtOnce)
	Requests      int // sent through the transport, every attempt
	Waits         int // sent with no other request in flight
	SetupRequests int // before the first check
	SetupWaits    int
	InFlight      int // the most requests in flight at once after the set-up
	CheckRequests int // the checks' own, summed
	// the check with the most waits, and the one with the most requests
	LongestCheck, LongestRequests int
	LongestName                   string
	MostRequests, MostWaits       int
	MostName                      string
	Overlapping                   []string // checks that sent some requests at once
	Longest                       []string // the five checks with the most waits
	Checks                        int      // checks that sent a request
	ByDuration                    []string // the five longest checks by duration
	Generated                     []string // the generated checks: duration, waits of requests
	LongestGenerated              time.Duration
	Quiet                         []string      // the checks that held quiet windows: how many, for how long
	QuietFor                      time.Duration // how long quiet windows were held, in all
	Conns                         int           // TCP connections to the HTTPS port
	PlainConns                    int           // TCP connections for plain-http probes
	Reused                        int           // answers over a connection that carried an earlier one
	Protocols                     map[string]int
	Exit                          int
	NotPassed                     []string
}

// farRun runs the child process for delay d and Config.Parallel par, and
// reads its figures.
func farRun(b *testing.B, d time.Duration, par int) farFigures {
	b.Helper()
	out := filepath.Join(b.TempDir(), "figures.json")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), farChildEnv+"="+d.String(), farChildParallelEnv+"="+strconv.Itoa(par), farOutEnv+"="+out)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		b.Fatalf("the run under a delay of %s: %v\n%s", d, err, farTail(log.String(), 4000))
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		b.Fatalf("the run under a delay of %s wrote no figures: %v\n%s", d, err, farTail(log.String(), 4000))
	}
	var f farFigures
	if err := json.Unmarshal(raw, &f); err != nil {
		b.Fatal(err)
	}
	return f
}

func farTail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// farRunChild runs the core profile against the bundled server with every
// answer delayed by delay and Config.Parallel parallel ("" or 0: the
// default), and writes its figures to out as JSON. It returns the
// process's exit code: 0 when the figures were written, whatever the run's
// own exit code (one of the figures).
func farRunChild(delay, parallel, out string) int {
	d, err := time.ParseDuration(delay)
	if err != nil || out == "" {
		fmt.Fprintf(os.Stderr, "%s=%q, %s=%q: a delay and a file are needed\n", farChildEnv, delay, farOutEnv, out)
		return 2
	}
	par := 0
	if parallel != "" {
		if par, err = strconv.Atoi(parallel); err != nil || par < 0 {
			fmt.Fprintf(os.Stderr, "%s=%q: a number of requests in flight is needed\n", farChildParallelEnv, parallel)
			return 2
		}
	}
	checks := 0 // the run chooses, as chatconform does
	if v := os.Getenv(farChecksEnv); v != "" {
		if checks, err = strconv.Atoi(v); err != nil || checks < 0 {
			fmt.Fprintf(os.Stderr, "%s=%q: a number of checks at once is needed\n", farChecksEnv, v)
			return 2
		}
	}
	w := &farWire{delay: d, protocols: map[string]int{}}
	const checkTimeout = 2 * time.Minute // chatconform's --check-timeout
	s := Prepare(checkTimeout)           // once: it declares the checks
	sc, rc := ginkgo.GinkgoConfiguration()
	rc.NoColor = true
	cfg := Config{ // as chatconform --profile core, naming no target, configures the run
		Selection:      Selection{Profile: spec.Core},
		Seed:           farSeed,
		Timeout:        15 * time.Second,
		Eventually:     5 * time.Second,
		MaxTime:        30 * time.Minute,
		Parallel:       par,
		Checks:         checks,
		CheckTimeout:   checkTimeout,
		Process:        1,
		Out:            os.Stderr,
		GinkgoOut:      io.Discard,
		SuiteConfig:    sc,
		ReporterConfig: rc,
		Wrap:           w.wrap,
	}
	if dir := os.Getenv(farJSONEnv); dir != "" {
		cfg.JSON = filepath.Join(dir, d.String()+".json")
	}
	start := time.Now()
	res, err := s.Run(context.Background(), cfg, &farFail{})
	wall := time.Since(start)
	if res == nil {
		fmt.Fprintln(os.Stderr, "the run did not start:", err)
		return 2
	}
	f := farFigures{Wall: wall, AtOnce: res.ChecksAtOnce, SetupRequests: res.setupRequests, SetupWaits: res.setupWaits, Waits: res.setupWaits, Exit: res.ExitCode()}
	seen := map[string]bool{}
	type counted struct {
		CheckResult
		checkCounts
	}
	var byWaits []counted
	for _, req := range res.Requirements {
		for _, c := range req.Checks {
			if c.Of != "" || seen[c.Name] {
				continue
			}
			seen[c.Name] = true
			if o := c.CheckOutcome(); o != Pass && o != Skip {
				f.NotPassed = append(f.NotPassed, c.Name+": "+o.String())
			}
			if c.Requests == 0 {
				continue
			}
			n := res.counts[c.Name]
			f.Checks++
			byWaits = append(byWaits, counted{c, n})
			f.CheckRequests += c.Requests
			f.Waits += int(n.waits)
			if int(n.waits) > f.LongestCheck {
				f.LongestCheck, f.LongestRequests, f.LongestName = int(n.waits), c.Requests, c.Name
			}
			if c.Requests > f.MostRequests {
				f.MostRequests, f.MostWaits, f.MostName = c.Requests, int(n.waits), c.Name
			}
			if int(n.waits) < c.Requests {
				f.Overlapping = append(f.Overlapping, fmt.Sprintf("%s (%d of %d)", c.Name, n.waits, c.Requests))
			}
		}
	}
	slices.SortStableFunc(byWaits, func(a, b counted) int { return int(b.waits - a.waits) })
	for _, c := range byWaits[:min(5, len(byWaits))] {
		f.Longest = append(f.Longest, fmt.Sprintf("%d of %d %q", c.waits, c.Requests, c.Name))
	}
	slices.SortStableFunc(byWaits, func(a, b counted) int { return int(b.Duration - a.Duration) })
	for _, c := range byWaits[:min(5, len(byWaits))] {
		f.ByDuration = append(f.ByDuration, fmt.Sprintf("%v (%d of %d; writes held %v) %q", c.Duration.Round(time.Millisecond), c.waits, c.Requests, c.held.Round(time.Millisecond), c.Name))
	}
	for _, c := range byWaits {
		if c.windows > 0 {
			f.Quiet = append(f.Quiet, fmt.Sprintf("%d for %v %q", c.windows, c.holding.Round(time.Millisecond), c.Name))
			f.QuietFor += c.holding
		}
	}
	for _, c := range byWaits {
		if strings.HasPrefix(c.Name, "Generated requests") {
			f.Generated = append(f.Generated, fmt.Sprintf("%v (%d of %d) %q", c.Duration.Round(time.Millisecond), c.waits, c.Requests, c.Name))
			f.LongestGenerated = max(f.LongestGenerated, c.Duration)
		}
	}
	slices.Sort(f.NotPassed)
	slices.Sort(f.Overlapping)
	w.mu.Lock()
	f.Requests, f.Conns, f.PlainConns, f.Reused, f.Protocols = w.sent, w.conns, w.plainConns, w.reused, w.protocols
	for _, n := range w.inFlight[min(f.SetupRequests, len(w.inFlight)):] {
		f.InFlight = max(f.InFlight, n+1)
	}
	w.mu.Unlock()
	raw, err := json.Marshal(f)
	if err == nil {
		err = os.WriteFile(out, raw, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

// farFail stands in for *testing.T: Ginkgo only needs Fail.
type farFail struct{}

func (farFail) Fail() {}

// farWire delays every answer by delay and counts what crosses the wire:
// requests (with how many others were in flight as each was sent), new TCP
// connections (by scheme), answers over a reused connection, and answers by
// protocol.
type farWire struct {
	delay time.Duration

	mu                              sync.Mutex
	sent, conns, plainConns, reused int
	protocols                       map[string]int
	now                             int   // requests in flight
	inFlight                        []int // others in flight as each request was sent, in order
}

func (w *farWire) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		plain := req.URL.Scheme == "http"
		trace := &httptrace.ClientTrace{
			ConnectDone: func(_, _ string, err error) {
				if err != nil {
					return
				}
				w.mu.Lock()
				if plain {
					w.plainConns++
				} else {
					w.conns++
				}
				w.mu.Unlock()
			},
			GotConn: func(info httptrace.GotConnInfo) {
				if info.Reused {
					w.mu.Lock()
					w.reused++
					w.mu.Unlock()
				}
			},
		}
		w.mu.Lock()
		w.sent++
		w.inFlight = append(w.inFlight, w.now)
		w.now++
		w.mu.Unlock()
		defer func() {
			w.mu.Lock()
			w.now--
			w.mu.Unlock()
		}()
		ctx := req.Context()
		resp, err := rt.RoundTrip(req.WithContext(httptrace.WithClientTrace(ctx, trace)))
		if err != nil {
			return nil, err
		}
		w.mu.Lock()
		w.protocols[resp.Proto]++
		w.mu.Unlock()
		if w.delay > 0 {
			t := time.NewTimer(w.delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				resp.Body.Close()
				return nil, ctx.Err()
			}
		}
		return resp, nil
	})
}
