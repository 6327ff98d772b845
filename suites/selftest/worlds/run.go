package worlds

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/report"
)

// Options configures Run.
type Options struct {
	// Binary is the chatconform executable each run starts as a child.
	Binary string
	// Seed seeds the shapes, each world and each child run; 0 means 1.
	Seed uint64
	// N is how many shapes to run; 0 means 50.
	N int
	// Shapes, when not empty, are run instead of N drawn ones.
	Shapes []fixtures.Shape
	// Edges also runs the hand-picked shapes of Edges, after the others.
	Edges bool
	// Parallel is how many runs go at a time; 0 means runtime.NumCPU().
	Parallel int
	// Reduce is how many more runs each distinct failure may take to
	// reduce the smallest shape that fails it (see Reduction); 0 reduces
	// nothing.
	Reduce int
	// Env is added to each child's environment (from which CHAT_* is
	// removed, so a child always checks the server it is given).
	Env []string
	// Progress, when not nil, gets one line per finished run.
	Progress io.Writer
}

// Result is the core profile's verdict on one shape.
type Result struct {
	Index int // the shape's place among those of the seed
	Seed  uint64
	Shape fixtures.Shape
	Code  int // the child's exit code; -1 when it did not run
	// Failed lists the checks that failed, were blocked or broke; Skipped
	// those skipped, each with its reason.
	Failed, Skipped []Finding
	// Verdicts is the child's verdict on each requirement, by id.
	Verdicts map[string]string
	Halted   string // why the child stopped before judging its checks, if it did
	Err      string // a harness problem, when there was one
	Took     time.Duration
	// Reductions are the failures this shape was the smallest to show,
	// each reduced further when Options.Reduce allowed.
	Reductions []Reduction
}

// Finding is a check that did not pass, with the one line that says why.
type Finding struct {
	Check     string
	Outcome   string   // FAIL, BLOCKED, ERROR or SKIP
	Reqs      []string // the requirements it failed (FAIL), or it is listed under
	BlockedBy string
	Cause     string
}

// Reduction is a failing requirement and the smallest shape found that
// still fails it (gets the same verdict).
type Reduction struct {
	Req     string
	Verdict string // FAIL or BLOCKED
	Shape   fixtures.Shape
	Check   string // the check that failed it in the smallest shape's run
	Cause   string // and its line
	Runs    int    // child runs the reduction took
}

// Passed reports whether chatconform passed the shape's world.
func (r Result) Passed() bool { return r.Code == 0 && r.Err == "" }

// FailedReqs lists the requirements whose verdict is FAIL or BLOCKED,
// sorted. A BLOCKED verdict counts: a step that fails on a conforming
// server blocks a check as wrongly as an assertion fails one.
func (r Result) FailedReqs() []string {
	var out []string
	for id, v := range r.Verdicts {
		if v == "FAIL" || v == "BLOCKED" {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Reproduce is the two commands, one a line, that serve the world of shape
// at seed (in the background) and run the core profile against it, from
// the module's root. chatref writes t.yaml before it serves.
func Reproduce(seed uint64, shape fixtures.Shape) string {
	return fmt.Sprintf("go run ./cmd/chatref --seed %d --shape '%s' --addr 127.0.0.1:0 --target-out t.yaml &\n"+
		"go run ./cmd/chatconform --target t.yaml --profile core --seed %d", seed, shape, seed)
}

// Reproduce is Reproduce for the result's seed and shape.
func (r Result) Reproduce() string { return Reproduce(r.Seed, r.Shape) }

// Run serves the world of each shape with the reference server over TLS on
// a loopback port, runs the core profile of chatconform against it in a
// child process and returns the results in the shapes' order. Failures are
// then reduced (Options.Reduce). The error is for a problem that stops
// the whole run; a shape whose run could not be judged has Err set.
func Run(ctx context.Context, opt Options) ([]Result, error) {
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.N <= 0 {
		opt.N = 50
	}
	if opt.Parallel <= 0 {
		opt.Parallel = runtime.NumCPU()
	}
	if opt.Binary == "" {
		return nil, errors.New("worlds: no chatconform binary")
	}
	shapes := opt.Shapes
	if len(shapes) == 0 {
		shapes = Shapes(opt.Seed, opt.N)
	}
	if opt.Edges {
		shapes = append(append([]fixtures.Shape(nil), shapes...), Edges()...)
	}
	dir, err := os.MkdirTemp("", "chatconform-worlds-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := &runner{opt: opt, dir: dir, env: childEnv(opt.Env), cache: map[string]*Result{}}

	results := make([]Result, len(shapes))
	r.parallel(ctx, len(shapes), func(i int) {
		results[i], _ = r.run(ctx, shapes[i])
		results[i].Index = i
		r.progress("%s", results[i].line())
	})
	if ctx.Err() != nil {
		return results, ctx.Err()
	}
	r.reduceAll(ctx, results)
	return results, ctx.Err()
}

type runner struct {
	opt   Options
	dir   string
	env   []string
	seq   atomic.Int64
	mu    sync.Mutex
	cache map[string]*Result // by shape text: candidates of reductions repeat
	out   sync.Mutex
}

func (r *runner) progress(format string, args ...any) {
	if r.opt.Progress == nil {
		return
	}
	r.out.Lock()
	defer r.out.Unlock()
	fmt.Fprintf(r.opt.Progress, format+"\n", args...)
}

// parallel calls f(0) ... f(n-1), Options.Parallel at a time.
func (r *runner) parallel(ctx context.Context, n int, f func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(r.opt.Parallel, n) {
		wg.Go(func() {
			for i := range work {
				f(i)
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
}

// run serves the world of shape, runs the child against it and reads its
// report; the server is closed when the child ends. Results are cached by
// shape; cached says the result is one from before.
func (r *runner) run(ctx context.Context, shape fixtures.Shape) (res Result, cached bool) {
	key := shape.String()
	r.mu.Lock()
	if c, ok := r.cache[key]; ok {
		r.mu.Unlock()
		return *c, true
	}
	r.mu.Unlock()
	res = r.runOnce(ctx, shape)
	if res.Err == "" {
		r.mu.Lock()
		r.cache[key] = &res
		r.mu.Unlock()
	}
	return res, false
}

func (r *runner) runOnce(ctx context.Context, shape fixtures.Shape) (res Result) {
	start := time.Now()
	res = Result{Seed: r.opt.Seed, Shape: shape, Code: -1}
	defer func() { res.Took = time.Since(start) }()
	seq := r.seq.Add(1)
	desc := filepath.Join(r.dir, fmt.Sprintf("%d-target.json", seq))
	report := filepath.Join(r.dir, fmt.Sprintf("%d-report.json", seq))
	defer os.Remove(desc)
	defer os.Remove(report)

	srv, err := bundled.StartShape(r.opt.Seed, shape, reference.Config{})
	if err != nil {
		res.Err = "starting the reference: " + err.Error()
		return res
	}
	defer srv.Close()
	raw, err := json.Marshal(srv.Target)
	if err == nil {
		err = os.WriteFile(desc, raw, 0o600)
	}
	if err != nil {
		res.Err = err.Error()
		return res
	}
	cmd := exec.CommandContext(ctx, r.opt.Binary, "--target", desc, "--profile", "core", "--seed", fmt.Sprint(r.opt.Seed),
		"--json", report, "--eventually", "3s", "--max-time", "5m")
	cmd.Env = r.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	case err != nil:
		res.Err = err.Error()
		return res
	default:
		res.Code = 0
	}
	if err := readReport(report, &res); err != nil {
		res.Err = fmt.Sprintf("exit %d, no report (%v); output: %s", res.Code, err, tail(out.String(), 600))
		return res
	}
	if res.Code != 0 && res.Code != 1 {
		res.Err = fmt.Sprintf("exit %d; output: %s", res.Code, tail(out.String(), 600))
	}
	return res
}

// readReport fills res with the verdicts of a report, and the checks that
// did not pass, each once with every requirement it was listed under.
func readReport(path string, res *Result) error {
	rep, err := report.Read(path)
	if err != nil {
		return err
	}
	res.Halted, res.Verdicts = rep.Halted, rep.Verdicts()
	byName := map[string]*Finding{}
	var order []*Finding
	for _, req := range rep.Requirements {
		for _, row := range req.Checks {
			c := struct{ Name, Outcome, BlockedBy, Message string }{row.Name, row.Outcome.String(), row.BlockedBy, row.Message}
			switch c.Outcome {
			case "FAIL", "BLOCKED", "ERROR", "SKIP":
			default:
				continue
			}
			f := byName[c.Name]
			if f == nil {
				f = &Finding{Check: c.Name, Outcome: c.Outcome, BlockedBy: c.BlockedBy, Cause: firstLine(c.Message)}
				byName[c.Name] = f
				order = append(order, f)
			}
			if c.Outcome == "FAIL" && f.Outcome != "FAIL" {
				f.Outcome, f.Reqs, f.Cause = "FAIL", nil, firstLine(c.Message)
			}
			if c.Outcome == f.Outcome && !contains(f.Reqs, req.ID) {
				f.Reqs = append(f.Reqs, req.ID)
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Check < order[j].Check })
	for _, f := range order {
		if f.Outcome == "SKIP" {
			res.Skipped = append(res.Skipped, *f)
		} else {
			res.Failed = append(res.Failed, *f)
		}
	}
	return nil
}

// firstLine is the line of a check's message that says what went wrong:
// the first that is not a bare outcome word or Gomega's "Expected".
func firstLine(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(l, "FAIL:"), "SKIP:"))
		if l == "" || l == "Expected" {
			continue
		}
		if len(l) > 300 {
			l = l[:300] + "…"
		}
		return l
	}
	return ""
}

// childEnv is this process's environment without CHAT_*, plus extra.
func childEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CHAT_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// line is the progress line of a result.
func (r Result) line() string {
	switch {
	case r.Err != "":
		return fmt.Sprintf("ERROR  #%-3d %s (%v): %s", r.Index, r.Shape, r.Took.Round(time.Millisecond), firstLine(r.Err))
	case r.Passed():
		return fmt.Sprintf("PASS   #%-3d %s (%v)", r.Index, r.Shape, r.Took.Round(time.Millisecond))
	}
	var reqs []string
	for _, id := range r.FailedReqs() {
		if r.Verdicts[id] == "BLOCKED" {
			id += "(blocked)"
		}
		reqs = append(reqs, id)
	}
	return fmt.Sprintf("FAIL   #%-3d %s (%v, exit %d): %s", r.Index, r.Shape, r.Took.Round(time.Millisecond), r.Code, strings.Join(reqs, " "))
}
