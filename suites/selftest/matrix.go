package selftest

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// Matrix is the outcome of a self-test: the kill matrix of the faults and
// the verdicts on the variants.
type Matrix struct {
	Seed    uint64
	Full    bool // every fault ran the whole core profile, not only its requirement's checks
	Took    time.Duration
	Results []Result
}

// verdict of a fault or variant in the matrix.
func (r Result) verdict() string {
	switch {
	case r.Kind == "variant" && r.Code == exitPass && r.Err == "":
		return "PASSED"
	case r.Kind == "variant":
		return "FAILED"
	case r.Caught:
		return "CAUGHT"
	case r.Err != "":
		return "ERROR"
	case r.elsewhere():
		return "ELSEWHERE"
	default:
		return "SURVIVED"
	}
}

func (r Result) line() string {
	return fmt.Sprintf("%-8s %-36s %s (%s)", r.verdict(), r.Name, r.What, r.Took.Round(10*time.Millisecond))
}

// elsewhere reports whether a fault failed checks, none of them under its
// own requirement id.
func (r Result) elsewhere() bool {
	if r.Kind != "fault" || r.Caught || r.Code != exitFail {
		return false
	}
	for _, f := range r.Failed {
		if len(f.Fails) > 0 {
			return true
		}
	}
	return false
}

// Problems lists what makes the self-test fail: a fault that survived with
// no written reason, a fault caught only on checks of other requirements
// with no written reason, a run that could not be judged, and a variant
// that did not pass.
func (m *Matrix) Problems() []string {
	var out []string
	for _, r := range m.Results {
		for _, b := range r.Broken {
			out = append(out, fmt.Sprintf("%s %s breaks the outcome model: %s", r.Kind, r.Name, b))
		}
		switch {
		case r.Err != "" && r.Kind == "fault":
			out = append(out, fmt.Sprintf("fault %s: %s", r.Name, r.Err))
		case r.elsewhere() && r.Survives == "":
			out = append(out, fmt.Sprintf("fault %s is caught only by checks of other requirements (%s)", r.Name, checkNames(r.Failed)))
		case r.Kind == "fault" && !r.Caught && r.Survives == "":
			out = append(out, fmt.Sprintf("fault %s survives and gives no reason", r.Name))
		case r.Kind == "variant" && r.verdict() != "PASSED":
			why := r.Err
			if why == "" {
				why = "failed " + checkNames(r.Failed)
			}
			out = append(out, fmt.Sprintf("variant %s: %s", r.Name, why))
		}
	}
	return out
}

// Survivors returns the faults that were not caught, by requirement.
func (m *Matrix) Survivors() []Result {
	var out []Result
	for _, r := range m.Results {
		if r.Kind == "fault" && !r.Caught {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Req < out[j].Req })
	return out
}

func checkNames(fs []FailedCheck) string {
	var names []string
	for _, f := range fs {
		if len(f.Fails) > 0 {
			names = append(names, fmt.Sprintf("%q [%s]", f.Name, strings.Join(f.Fails, ", ")))
		}
	}
	return strings.Join(names, "; ")
}

type tally struct{ faults, caught, elsewhere int }

// Write prints the matrix: every fault with the checks that failed, totals
// per class and per requirement, the survivors with their reasons, the
// variants, and the problems.
func (m *Matrix) Write(w io.Writer) {
	nf, nv, caught := 0, 0, 0
	byClass, byReq := map[string]*tally{}, map[string]*tally{}
	for _, r := range m.Results {
		if r.Kind == "variant" {
			nv++
			continue
		}
		nf++
		for _, t := range []*tally{get(byClass, r.Class), get(byReq, r.Req)} {
			t.faults++
			if r.Caught {
				t.caught++
			}
			if r.elsewhere() {
				t.elsewhere++
			}
		}
		if r.Caught {
			caught++
		}
	}
	mode := "each fault against the checks labelled with the requirement it breaks"
	if m.Full {
		mode = "each fault against the whole core profile"
	}
	fmt.Fprintf(w, "Kill matrix: the reference server decorated with one planted fault per run, %s\n", mode)
	fmt.Fprintf(w, "(seed %d; %d faults, %d caught, %d survived; %d variants; %s)\n\n", m.Seed, nf, caught, nf-caught, nv, m.Took.Round(time.Second))
	for _, r := range m.Results {
		if r.Kind != "fault" {
			continue
		}
		fmt.Fprintln(w, r.line())
		if m.Full && r.Verdicts != nil {
			fail, red := r.red()
			judged, checkable := r.judged()
			fmt.Fprintf(w, "           requirements FAIL %d, FAIL or BLOCKED %d; judged %d of %d checkable\n", fail, red, judged, checkable)
		}
		for _, f := range r.Failed {
			fmt.Fprintf(w, "           %s\n", f.describe())
		}
		if r.Err != "" {
			fmt.Fprintf(w, "           error: %s\n", r.Err)
		}
		if r.Halted != "" {
			fmt.Fprintf(w, "           halted: %s\n", oneLine(r.Halted))
		}
		if r.Caught && r.Survives != "" {
			fmt.Fprintf(w, "           (caught, though a reason to survive is written down: %s)\n", r.Survives)
		}
	}

	fmt.Fprintf(w, "\nPer class (elsewhere: survived, but a check failed another requirement for it)\n%-16s %6s %6s %8s %9s\n", "class", "faults", "caught", "survived", "elsewhere")
	all := tally{}
	for _, c := range Classes() {
		if t := byClass[c]; t != nil {
			fmt.Fprintf(w, "%-16s %6d %6d %8d %9d\n", c, t.faults, t.caught, t.faults-t.caught, t.elsewhere)
			all.elsewhere += t.elsewhere
		}
	}
	fmt.Fprintf(w, "%-16s %6d %6d %8d %9d\n", "all", nf, caught, nf-caught, all.elsewhere)

	fmt.Fprintf(w, "\nPer requirement\n%-28s %6s %6s %8s %9s\n", "requirement", "faults", "caught", "survived", "elsewhere")
	reqs := make([]string, 0, len(byReq))
	for id := range byReq {
		reqs = append(reqs, id)
	}
	sort.Strings(reqs)
	for _, id := range reqs {
		t := byReq[id]
		fmt.Fprintf(w, "%-28s %6d %6d %8d %9d\n", id, t.faults, t.caught, t.faults-t.caught, t.elsewhere)
	}

	if m.Full {
		m.writeRedHistogram(w)
	}

	if s := m.Survivors(); len(s) > 0 {
		fmt.Fprintf(w, "\nSurvivors, by requirement (class: what the server does -- why no check of the requirement catches it;\n"+
			"ELSEWHERE: a check fails another requirement for it)\n")
		last := ""
		for _, r := range s {
			if r.Req != last {
				fmt.Fprintf(w, "%s\n", r.Req)
				last = r.Req
			}
			reason := r.Survives
			if reason == "" {
				reason = "NO REASON GIVEN"
			}
			mark := ""
			if r.elsewhere() {
				mark = "ELSEWHERE "
			}
			fmt.Fprintf(w, "  %s%s: %s -- %s\n", mark, r.Class, r.What, reason)
		}
	}

	fmt.Fprintf(w, "\nConforming variants: the core profile must pass each\n")
	for _, r := range m.Results {
		if r.Kind != "variant" {
			continue
		}
		fmt.Fprintln(w, r.line())
		for _, f := range r.Failed {
			fmt.Fprintf(w, "           %s: %s\n", f.describe(), oneLine(f.Message))
		}
		if r.Err != "" {
			fmt.Fprintf(w, "           error: %s\n", r.Err)
		}
	}
	p := m.Problems()
	fmt.Fprintf(w, "\n%d runs in %s; %d problem(s)\n", len(m.Results), m.Took.Round(time.Second), len(p))
	for _, s := range p {
		fmt.Fprintf(w, "  %s\n", s)
	}
}

func (f FailedCheck) describe() string {
	if len(f.Fails) > 0 {
		return fmt.Sprintf("fail: %s [%s]", f.Name, strings.Join(f.Fails, ", "))
	}
	s := fmt.Sprintf("%s: %s [%s]", strings.ToLower(f.Outcome), f.Name, strings.Join(f.Reqs, ", "))
	if f.BlockedBy != "" {
		s += " by " + f.BlockedBy
	}
	return s
}

func get(m map[string]*tally, k string) *tally {
	if m[k] == nil {
		m[k] = &tally{}
	}
	return m[k]
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// red counts the requirements a fault's run judged FAIL, and those it
// judged FAIL or BLOCKED (what a runner without root causes shows red).
func (r Result) red() (fail, failOrBlocked int) {
	for _, v := range r.Verdicts {
		switch v {
		case "FAIL":
			fail++
			failOrBlocked++
		case "BLOCKED":
			failOrBlocked++
		}
	}
	return fail, failOrBlocked
}

// writeRedHistogram prints how many requirements one planted fault turns
// red: FAIL alone, and FAIL or BLOCKED, as counts of faults per bucket.
func (m *Matrix) writeRedHistogram(w io.Writer) {
	buckets := []struct {
		lo, hi int
	}{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 5}, {6, 10}, {11, 20}, {21, 40}, {41, 1 << 30}}
	label := func(lo, hi int) string {
		switch {
		case lo == hi:
			return fmt.Sprint(lo)
		case hi == 1<<30:
			return fmt.Sprintf("%d+", lo)
		}
		return fmt.Sprintf("%d-%d", lo, hi)
	}
	fails, reds := make([]int, len(buckets)), make([]int, len(buckets))
	n, sumFail, sumRed := 0, 0, 0
	var failing []int
	threeOrMore, mostJudged := 0, 0
	for _, r := range m.Results {
		if r.Kind != "fault" || r.Verdicts == nil {
			continue
		}
		n++
		f, red := r.red()
		sumFail, sumRed = sumFail+f, sumRed+red
		failing = append(failing, f)
		if f >= 3 {
			threeOrMore++
		}
		if judged, checkable := r.judged(); checkable > 0 && judged*10 >= checkable*9 {
			mostJudged++
		}
		for i, b := range buckets {
			if f >= b.lo && f <= b.hi {
				fails[i]++
			}
			if red >= b.lo && red <= b.hi {
				reds[i]++
			}
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\nRequirements one fault turns red (%d faults with a report; mean FAIL %.2f, mean FAIL or BLOCKED %.2f)\n",
		n, float64(sumFail)/float64(n), float64(sumRed)/float64(n))
	slices.Sort(failing)
	fmt.Fprintf(w, "median FAIL %d; %d faults (%.1f %%) fail 3 or more requirements", failing[(len(failing)-1)/2], threeOrMore, 100*float64(threeOrMore)/float64(n))
	if m.Full { // judged is a whole run's measure
		fmt.Fprintf(w, "; %d (%.1f %%) leave at least 90 %% of the checkable requirements judged", mostJudged, 100*float64(mostJudged)/float64(n))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-12s %12s %18s\n", "requirements", "faults: FAIL", "FAIL or BLOCKED")
	for i, b := range buckets {
		fmt.Fprintf(w, "%-12s %12d %18d\n", label(b.lo, b.hi), fails[i], reds[i])
	}
}

// judged counts the requirements a fault's run judged (PASS, FAIL or
// KNOWN) among those it could check (every verdict but N/A).
func (r Result) judged() (judged, checkable int) {
	for _, v := range r.Verdicts {
		switch v {
		case "N/A":
			continue
		case "PASS", "FAIL", "KNOWN":
			judged++
		}
		checkable++
	}
	return judged, checkable
}
