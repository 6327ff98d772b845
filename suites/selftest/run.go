package selftest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/reference/localtls"
	"github.com/chatrooms/conformance/suites/report"
	"github.com/chatrooms/conformance/suites/target"
)

// Options configures Run.
type Options struct {
	// Binary is the chatconform executable each run starts as a child.
	Binary string
	// Seed seeds the world and every child run; 0 means 1.
	Seed uint64
	// Parallel is how many runs go at a time; 0 means twice
	// runtime.NumCPU() (a run spends much of its time waiting out the
	// window in which search and unread state may lag).
	Parallel int
	// Only keeps the faults and variants whose name contains it, or whose
	// origin it names exactly (--only held-out).
	Only string
	// Except leaves out the faults and variants whose name contains it, or
	// whose origin it names exactly (--except held-out); several are
	// separated by commas.
	Except string
	// VariantsOnly runs the variants and no fault; FaultsOnly the faults
	// and no variant.
	VariantsOnly, FaultsOnly bool
	// Full runs every fault against the whole core profile. By default a
	// fault's run selects only the checks labelled with the requirement it
	// breaks (--label-filter), since the question is whether those checks
	// catch it; variants always run the whole core profile.
	Full bool
	// Concurrent is how many checks each run runs at once (chatconform
	// --concurrent-checks; 0 or 1: one after another).
	Concurrent int
	// Env is added to each child's environment (from which CHAT_* is
	// removed, so a child always checks the server it is given).
	Env []string
	// Progress, when not nil, gets one line per finished run.
	Progress io.Writer
}

// Selected returns the faults and variants the options select (Only,
// Except, VariantsOnly, FaultsOnly), each in name order.
func (opt Options) Selected() ([]Fault, []Variant) {
	// matches: x names the fault or variant exactly ("=name"), is part of
	// its name, or names its origin.
	matches := func(x, name string, origin Origin) bool {
		if exact, ok := strings.CutPrefix(x, "="); ok {
			return name == exact
		}
		return strings.Contains(name, x) || string(origin) == x
	}
	picks := func(name string, origin Origin) bool {
		in := false
		for _, x := range strings.Split(opt.Only, ",") {
			in = in || matches(x, name, origin)
		}
		for _, x := range strings.Split(opt.Except, ",") {
			if x != "" && matches(x, name, origin) {
				return false
			}
		}
		return in
	}
	var faults []Fault
	var variants []Variant
	if !opt.VariantsOnly {
		for _, f := range Faults() {
			if picks(f.Name, f.Origin) {
				faults = append(faults, f)
			}
		}
	}
	if !opt.FaultsOnly {
		for _, v := range Variants() {
			if picks(v.Name, v.Origin) {
				variants = append(variants, v)
			}
		}
	}
	return faults, variants
}

// ErrNothingSelected is returned when Only selects no fault and no variant.
var ErrNothingSelected = errors.New("selftest: no fault or variant matches")

// Result is one run: a fault or a variant against the core profile.
type Result struct {
	Kind     string // "fault" or "variant"
	Name     string
	Req      string // a fault's requirement id
	Class    string // a fault's class
	What     string
	Survives string // a fault's written reason for surviving
	Code     int    // the child's exit code
	Failed   []FailedCheck
	// Verdicts is the child's verdict on each requirement it judged
	// (FAIL, BLOCKED, PASS ...), by requirement id.
	Verdicts map[string]string
	// Halted is why the child stopped before judging its checks (the
	// report's halted), when it did.
	Halted string
	// Caught: a fault made the child exit 1 with the verdict FAIL on the
	// fault's own requirement.
	Caught bool
	Err    string // a harness problem, when there was one
	// Broken lists where the child's report breaks the outcome model (see
	// outcomeModel): a problem whatever the fault or variant.
	Broken []string
	Took   time.Duration
}

// FailedCheck is a check that did not pass in a run (FAIL, BLOCKED or
// ERROR), with the requirement ids it was reported under.
type FailedCheck struct {
	Name      string
	Outcome   string // FAIL when it failed any requirement, else BLOCKED or ERROR
	BlockedBy string
	Reqs      []string // every requirement it did not pass
	Fails     []string // the requirements it failed (a check verifying several fails only the one it broke on)
	Message   string
}

// Child exit codes (DESIGN.md: the chatconform exit codes).
const (
	exitPass    = 0
	exitFail    = 1
	exitHarness = 3
)

// Run starts a decorated reference server per selected fault and variant,
// runs the core profile against each in a child process and returns the
// results, faults first, each group by name.
func Run(ctx context.Context, opt Options) (*Matrix, error) {
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Parallel <= 0 {
		opt.Parallel = 2 * runtime.NumCPU()
	}
	var jobs []*job
	faults, variants := opt.Selected()
	for _, f := range faults {
		jobs = append(jobs, &job{fault: &f, res: Result{Kind: "fault", Name: f.Name, Req: f.Req, Class: f.Class, What: f.What, Survives: f.Survives}})
	}
	for _, v := range variants {
		jobs = append(jobs, &job{variant: &v, res: Result{Kind: "variant", Name: v.Name, What: v.What}})
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w %q", ErrNothingSelected, opt.Only)
	}
	start := time.Now()
	world, err := fixtures.Generate(opt.Seed)
	if err != nil {
		return nil, err
	}
	cert, caPEM, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "chatconform-selftest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		return nil, err
	}
	env := childEnv(opt.Env)

	work := make(chan int)
	var wg sync.WaitGroup
	var progress sync.Mutex
	for range opt.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				j := jobs[i]
				j.run(ctx, runSetup{world: world, cert: cert, caFile: caFile, dir: dir, seq: i, seed: opt.Seed, bin: opt.Binary, env: env, full: opt.Full, checks: opt.Concurrent})
				if opt.Progress != nil {
					progress.Lock()
					fmt.Fprintln(opt.Progress, j.res.line())
					progress.Unlock()
				}
			}
		}()
	}
	for i := range jobs {
		work <- i
	}
	close(work)
	wg.Wait()

	m := &Matrix{Seed: opt.Seed, Full: opt.Full, Took: time.Since(start)}
	for _, j := range jobs {
		m.Results = append(m.Results, j.res)
	}
	return m, nil
}

type job struct {
	fault   *Fault
	variant *Variant
	res     Result
}

type runSetup struct {
	world  *fixtures.World
	cert   tls.Certificate
	caFile string
	dir    string
	seq    int
	seed   uint64
	bin    string
	env    []string
	full   bool
	checks int // --concurrent-checks (0 or 1: one at a time)
}

// run serves the decorated reference, describes it, runs the child and
// reads its report. The server is closed when the child ends.
func (j *job) run(ctx context.Context, s runSetup) {
	start := time.Now()
	defer func() { j.res.Took = time.Since(start) }()
	desc := filepath.Join(s.dir, fmt.Sprintf("%d-target.json", s.seq))
	report := filepath.Join(s.dir, fmt.Sprintf("%d-report.json", s.seq))
	stop, err := j.serve(s, desc)
	if err != nil {
		j.res.Code, j.res.Err = exitHarness, err.Error()
		return
	}
	defer stop()
	args := []string{"--target", desc, "--profile", "core", "--seed", fmt.Sprint(s.seed), "--json", report, "--eventually", "3s"}
	// An intermittent fault shows on one answer in N: whether a run sees it
	// depends on how many answers the run reads, so it is judged over a
	// whole run, where every answer is evidence (the document and history
	// checkers read them all).
	if j.fault != nil && !s.full && !j.fault.wholeRun && j.fault.Class != Intermittent {
		args = append(args, "--label-filter", j.fault.Req)
	}
	// Always given: the runner chooses by itself from how fast the target
	// answers, which a loaded machine would make a matter of chance.
	args = append(args, "--concurrent-checks", fmt.Sprint(max(s.checks, 1)))
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Env = s.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		j.res.Code = ee.ExitCode()
	case err != nil:
		j.res.Code, j.res.Err = exitHarness, err.Error()
		return
	}
	failed, verdicts, halted, err := readReport(report)
	if err != nil {
		j.res.Err = fmt.Sprintf("exit %d, no report (%v); output: %s", j.res.Code, err, tail(out.String(), 600))
		return
	}
	j.res.Failed, j.res.Verdicts, j.res.Halted = failed, verdicts, halted
	j.res.Broken = outcomeModel(j.res.Code, failed, verdicts)
	if j.res.Code != exitPass && j.res.Code != exitFail {
		j.res.Err = fmt.Sprintf("exit %d; output: %s", j.res.Code, tail(out.String(), 600))
	}
	if j.fault != nil && j.res.Code == exitFail {
		j.res.Caught = verdicts[j.fault.Req] == "FAIL"
		for _, f := range failed {
			j.res.Caught = j.res.Caught || contains(f.Fails, j.fault.Req)
		}
	}
}

// serve starts the decorated reference server of the job and writes its
// target description to desc. The caller must call stop.
func (j *job) serve(s runSetup, desc string) (stop func(), err error) {
	if (j.fault != nil && j.fault.defect != "") || (j.variant != nil && j.variant.independent) {
		defect := ""
		if j.fault != nil {
			defect = j.fault.defect
		}
		return serveIndependent(s, defect, desc)
	}
	st := newState(s.world)
	inner := reference.New(s.world, reference.Config{})
	var h http.Handler
	plain, http1 := false, false
	if j.fault != nil {
		h, plain = j.fault.handler(inner, st), j.fault.plainHTTP
	} else {
		h, http1 = j.variant.handler(inner, st), j.variant.http1
	}
	url, stop, err := serve(h, s.cert, plain, http1)
	if err != nil {
		return nil, err
	}
	d := target.FromWorld(s.world, url)
	d.CAFile = s.caFile
	if j.variant != nil && j.variant.describe != nil {
		j.variant.describe(d)
	}
	raw, _ := json.Marshal(d)
	if err := os.WriteFile(desc, raw, 0o600); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// Serve starts the reference server decorated with the fault or variant
// of the given name, for trying it by hand, and writes its target
// description (with the CA file beside it) to desc. The caller must call
// the returned stop.
func Serve(name string, seed uint64, desc string) (stop func(), err error) {
	var j job
	for _, f := range Faults() {
		if f.Name == name {
			j.fault = &f
		}
	}
	for _, v := range Variants() {
		if v.Name == name {
			j.variant = &v
		}
	}
	if j.fault == nil && j.variant == nil {
		return nil, fmt.Errorf("%w %q", ErrNothingSelected, name)
	}
	if seed == 0 {
		seed = 1
	}
	world, err := fixtures.Generate(seed)
	if err != nil {
		return nil, err
	}
	cert, caPEM, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		return nil, err
	}
	caFile := strings.TrimSuffix(desc, filepath.Ext(desc)) + "-ca.pem"
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		return nil, err
	}
	if caFile, err = filepath.Abs(caFile); err != nil {
		return nil, err
	}
	return j.serve(runSetup{world: world, cert: cert, caFile: caFile, seed: seed}, desc)
}

// serve serves h over TLS on a fresh loopback port. plain also answers
// plain http on that port; http1 turns HTTP/2 off.
func serve(h http.Handler, cert tls.Certificate, plain, http1 bool) (string, func(), error) {
	conf := localtls.Config(cert)
	conf.MinVersion = tls.VersionTLS12
	srv := &http.Server{
		Handler:           h,
		TLSConfig:         conf,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          discardLog(),
	}
	var o localtls.Options
	switch {
	case plain:
		// plainToo does the TLS itself, for the connections that start
		// with a handshake.
		conf.NextProtos = []string{"http/1.1"}
		o.Plain = true
		o.Wrap = func(ln net.Listener) net.Listener { return plainToo{Listener: ln, tls: conf} }
	case http1:
		srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
		conf.NextProtos = []string{"http/1.1"}
	}
	s, err := localtls.Start(srv, o)
	if err != nil {
		return "", nil, err
	}
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
	}
	return "https://" + s.TCPAddr.String(), stop, nil
}

// readReport lists the checks of a report that failed, were blocked or
// broke, each with every requirement it was listed under, and the verdict
// on each requirement.
func readReport(path string) (failed []FailedCheck, verdicts map[string]string, halted string, err error) {
	r, err := report.Read(path)
	if err != nil {
		return nil, nil, "", err
	}
	byName := map[string]*FailedCheck{}
	var out []*FailedCheck
	verdicts = map[string]string{}
	for _, req := range r.Requirements {
		verdicts[req.ID] = req.Verdict.String()
		for _, c := range req.Checks {
			outcome := c.Outcome.String()
			if outcome != "FAIL" && outcome != "BLOCKED" && outcome != "ERROR" {
				continue
			}
			f := byName[c.Name]
			if f == nil {
				f = &FailedCheck{Name: c.Name, Outcome: outcome, Message: c.Message}
				byName[c.Name] = f
				out = append(out, f)
			}
			if outcome == "FAIL" {
				f.Outcome = "FAIL"
				f.Fails = append(f.Fails, req.ID)
			}
			if f.BlockedBy == "" && c.BlockedBy != req.ID {
				f.BlockedBy = c.BlockedBy
			}
			if !contains(f.Reqs, req.ID) {
				f.Reqs = append(f.Reqs, req.ID)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	failed = make([]FailedCheck, len(out))
	for i, f := range out {
		failed[i] = *f
	}
	return failed, verdicts, r.Halted, nil
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

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// outcomeModel checks a child's report against the outcome model every
// report must keep, whatever server it judged: exit 1 only with a FAIL
// verdict (the self-test gives no baseline), a FAIL verdict only with exit
// 1, and a BLOCKED check only blocked by a requirement that FAILs in the
// same report.
func outcomeModel(code int, failed []FailedCheck, verdicts map[string]string) []string {
	var out []string
	fails := 0
	for _, v := range verdicts {
		if v == "FAIL" {
			fails++
		}
	}
	switch {
	case code == exitFail && fails == 0:
		out = append(out, "exit 1 with no requirement FAIL")
	case code != exitFail && fails > 0:
		out = append(out, fmt.Sprintf("exit %d with %d requirement(s) FAIL", code, fails))
	}
	for _, f := range failed {
		if f.Outcome == "BLOCKED" && f.BlockedBy != "" && verdicts[f.BlockedBy] != "FAIL" {
			out = append(out, fmt.Sprintf("%q is BLOCKED by %s, whose verdict is %s", f.Name, f.BlockedBy, verdicts[f.BlockedBy]))
		}
	}
	return out
}
