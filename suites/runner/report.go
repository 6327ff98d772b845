package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/conformance"
	"github.com/chatrooms/conformance/suites/report"
)

// Result is a run organised by requirement: the report every output
// writes, and what the runner needs while it builds it.
type Result struct {
	report.Report

	outcomes map[Outcome]int
	halt     *halt
	baseline *Baseline
	// setupRequests is how many requests the run sent before its first
	// check (preflight and discovery), setupWaits how many of them with no
	// other in flight (see control.waits).
	setupRequests, setupWaits int
	// counts are the requests of each check, by name (countRequests).
	counts map[string]checkCounts
	// spans bound each check in time, by name: checks run one at a time,
	// so an exchange recorded in between is the check's (a 429 answer, or
	// the moment a stopped run cut the check short).
	spans map[string]span
}

// span is when a check started and ended.
type span struct{ start, end time.Time }

// owner is the check a row belongs to: its own, or the one it was met by.
func owner(c CheckResult) string {
	if c.Of != "" {
		return c.Of
	}
	return c.Name
}

// runInfo is what a check's Ginkgo report says beyond its row: when it
// ran, the requirements whose assertions all ran and held
// (conformance.EntryJudged), even if it then stopped on another, and
// those it passed without judging, with why (conformance.EntryNotApplied):
// SKIP for those.
type runInfo struct {
	span
	judged     []string
	notApplied map[string]string
}

func summarize(r types.Report, selected map[string]bool, p spec.Profile, seed uint64, url string, d time.Duration, rec *client.Recorder, extra map[string][]CheckResult) *Result {
	cat, _ := spec.LoadCatalogue()
	res := &Result{Report: report.Report{Format: ReportFormat, Profile: p, Target: url, Seed: seed, Duration: d, Counts: map[string]int{}, Checks: map[string]int{}},
		outcomes: map[Outcome]int{}, spans: map[string]span{}}
	var refused []time.Time // when the target answered 429 or 503
	if rec != nil {
		for _, x := range rec.Exchanges() {
			if x.Status == 429 || x.Status == 503 {
				refused = append(refused, x.Time)
			}
		}
	}
	byID := map[string][]CheckResult{}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		labels := sr.Labels()
		if p == spec.Core && conformance.ProfileOf(labels) == spec.Reference {
			continue // not part of this run
		}
		cr, info := checkResult(sr)
		res.spans[cr.Name] = info.span
		if !selected[cr.Name] {
			cr.Outcome, cr.Message = NotRun, "not selected (--label-filter, --focus)"
		}
		if cr.Outcome == Error && refusedDuring(refused, info.start, info.end) {
			// Out of time or answers while waiting out 429/503: no verdict
			// on the server, and not its environment's fault either.
			cr.Outcome = Inconclusive
			cr.Message = cutMessage("the target answered 429 or 503 while the check ran\n" + cr.Message)
		}
		for _, id := range cr.IDs {
			c := cr // as listed under id: blocked where it failed on another of its requirements
			c.Outcome = outcomeFor(cr, info.judged, id)
			if why, ok := info.notApplied[id]; ok && c.Outcome == Pass {
				c.Outcome, c.Message = Skip, why
			}
			if c.Outcome != cr.Outcome {
				c.Whole = cr.Outcome // the same is left out
			}
			if c.Outcome == Blocked && c.BlockedBy == "" {
				c.BlockedBy = cr.Fails
			}
			byID[id] = append(byID[id], c)
		}
	}
	for id, cs := range extra {
		byID[id] = append(byID[id], cs...)
	}
	dropEchoes(byID)
	if cat != nil {
		for _, req := range cat.Requirements {
			if !req.InProfile(p) {
				continue
			}
			res.Requirements = append(res.Requirements, Requirement{ID: req.ID, Level: req.Level, Section: req.Section, Text: req.Text, Reason: req.Reason, Checks: byID[req.ID]})
			if !req.IsCheckable() {
				res.Requirements[len(res.Requirements)-1].Verdict = NotCheckable
			} else {
				res.Requirements[len(res.Requirements)-1].Reason = ""
			}
		}
	}
	if rec != nil {
		res.Requests = rec.Count()
		for _, x := range rec.Exchanges() {
			if x.Status == 429 || x.Status == 503 {
				res.RateLimited++
			}
			if len(x.Violations) > 0 || x.Status >= 500 {
				if len(res.Exchanges) == MaxReportExchanges {
					res.ExchangesOmitted++
					continue
				}
				res.Exchanges = append(res.Exchanges, x)
			}
		}
	}
	res.tally(selected)
	return res
}

// dropEchoes removes, from the rows by requirement, a failure a check
// recorded on the way about R when R then blocked that check: the block
// already names R, and R's failure is told where it fails for itself.
// Where nothing else fails R, the first such row stays, so the blocks name
// a failure, and one check, not every check R blocked, fails for it.
func dropEchoes(byID map[string][]CheckResult) {
	blockedBy := map[string]string{} // check → what blocked it
	for _, cs := range byID {
		for _, c := range cs {
			if c.Of == "" && c.CheckOutcome() == Blocked && c.BlockedBy != "" {
				blockedBy[c.Name] = c.BlockedBy
			}
		}
	}
	for id, cs := range byID {
		echo := func(c CheckResult) bool { return c.Of != "" && blockedBy[c.Of] == id }
		if slices.ContainsFunc(cs, func(c CheckResult) bool { return c.Outcome == Fail && !echo(c) }) {
			byID[id] = slices.DeleteFunc(cs, echo)
			continue
		}
		kept := false
		byID[id] = slices.DeleteFunc(cs, func(c CheckResult) bool {
			if !echo(c) {
				return false
			}
			drop := kept
			kept = true
			return drop
		})
	}
}

// countRequests gives each check's rows the requests the check sent (by
// check name), and keeps how many of them it waited for in turn; rows of
// judges and failures on the way keep none.
func (r *Result) countRequests(counts map[string]checkCounts) {
	r.counts = counts
	for i := range r.Requirements {
		for j := range r.Requirements[i].Checks {
			c := &r.Requirements[i].Checks[j]
			n := counts[c.Name]
			if c.Of == "" {
				c.Requests = int(n.sent)
			}
			if n.unrecorded > 0 {
				c.NotRecorded = int(n.unrecorded)
			}
		}
	}
}

func refusedDuring(times []time.Time, start, end time.Time) bool {
	for _, t := range times {
		if !t.Before(start) && !t.After(end) {
			return true
		}
	}
	return false
}

// tally computes the requirement verdicts and the counts from the checks.
func (res *Result) tally(selected map[string]bool) {
	clear(res.Counts)
	clear(res.Checks)
	clear(res.outcomes)
	res.verdicts()
	if res.orphanBlocked() {
		res.verdicts()
	}
	for i := range res.Requirements {
		res.Counts[res.Requirements[i].Verdict.String()]++
	}
	for _, c := range res.checkList(selected) {
		res.Checks[c.Outcome.String()]++
		res.outcomes[c.Outcome]++
	}
}

// checkList is every check of the run once, as every output counts them:
// each selected declared check with its own outcome, then the run-wide
// judges (Judges). selected nil takes every check.
//
// A failure a check met on the way about another requirement is a finding
// of that requirement, shown there, not a failure of the check: one defect
// met by forty checks is one failing requirement, not forty failing checks.
// It makes its check FAIL only when nothing else fails that requirement
// (no check of its own, no judge), so a failing requirement always has a
// failing check in every output.
func (res *Result) checkList(selected map[string]bool) []CheckResult {
	judge := map[string]bool{}
	for _, j := range res.Judges {
		judge[j.Name] = true
	}
	failedOtherwise := map[string]bool{}
	for _, q := range res.Requirements {
		for _, c := range q.Checks {
			if c.Of == "" && (c.Outcome == Fail || c.Outcome == Known) {
				failedOtherwise[q.ID] = true
			}
		}
	}
	var out []CheckResult
	at := map[string]int{}
	for _, q := range res.Requirements {
		for _, c := range q.Checks {
			name := c.Name
			if c.Of != "" {
				if failedOtherwise[q.ID] {
					continue
				}
				name = c.Of
			}
			if judge[name] || (selected != nil && !selected[name]) {
				continue
			}
			o := c.CheckOutcome()
			i, ok := at[name]
			if !ok {
				at[name] = len(out)
				c.Name, c.Outcome, c.Whole, c.Of = name, o, NotRun, ""
				c.IDs = append([]string(nil), c.IDs...)
				out = append(out, c)
				continue
			}
			prev := &out[i]
			for _, id := range c.IDs {
				if !slices.Contains(prev.IDs, id) {
					prev.IDs = append(prev.IDs, id)
				}
			}
			if o.Severity() > prev.Outcome.Severity() {
				prev.Outcome, prev.Message, prev.BlockedBy = o, c.Message, c.BlockedBy
			}
		}
	}
	return append(out, res.Judges...)
}

// JudgeCount is how many run-wide judges every run has besides its
// declared checks: the history checker and the document checker.
const JudgeCount = 2

// judges sums up the run-wide judges from what they said per requirement
// (extra, by requirement): each is one check, FAIL when it found a
// contradiction (or violation) anywhere, PASS when it judged something and
// found nothing, NOT RUN when it judged nothing. The document checker
// reports failures only, so finding none is its PASS.
func judges(extra map[string][]CheckResult) []CheckResult {
	hist := CheckResult{Name: HistoryCheck, Area: "History", Outcome: NotRun}
	doc := CheckResult{Name: DocumentCheck, Area: "History", Outcome: Pass}
	var histFailed, docFailed []string
	for _, id := range sortedKeys(extra) {
		for _, c := range extra[id] {
			switch c.Name {
			case HistoryCheck:
				hist.IDs = append(hist.IDs, id)
				hist.Outcome = worst([]Outcome{hist.Outcome, c.Outcome})
				if c.Outcome == Fail {
					histFailed = append(histFailed, id)
				}
			case DocumentCheck:
				doc.IDs = append(doc.IDs, id)
				if c.Outcome == Fail { // a run's rows are failures only; a replay's say where it found none too
					doc.Outcome = Fail
					docFailed = append(docFailed, id)
				}
			}
		}
	}
	if len(histFailed) > 0 {
		hist.Message = "contradictions in the run's answers break " + strings.Join(histFailed, ", ") + " (each requirement's row says which)"
	} else if hist.Outcome == NotRun {
		hist.Message = "not run: no answer to read"
	}
	if len(docFailed) > 0 {
		doc.Message = "answers of the run break the document at " + strings.Join(docFailed, ", ") + " (each requirement's row says which)"
	}
	return []CheckResult{hist, doc}
}

// verdicts gives each checkable requirement the worst outcome of its checks.
func (res *Result) verdicts() {
	for i := range res.Requirements {
		q := &res.Requirements[i]
		if q.Verdict == NotCheckable {
			continue
		}
		var os []Outcome
		for _, c := range q.Checks {
			os = append(os, c.Outcome)
		}
		q.Verdict = worst(os)
		if q.Verdict == Fail && q.Known != "" {
			q.Verdict = Known
		}
	}
}

// orphanPrefix starts the message of a check orphanBlocked made ERROR.
const orphanPrefix = "not judged: a step the check needed failed, blocked by "

// orphanBlocked holds the outcome model to its word: a BLOCKED check names
// a requirement whose verdict in the same run is FAIL (or KNOWN). A check
// blocked by a requirement that did not fail here (it passed, was not
// selected, was itself not judged) was not judged for a reason the run
// cannot show: it becomes ERROR with the reason, which exits 3, never 1.
// It reports whether it changed any check.
func (res *Result) orphanBlocked() bool {
	verdict := map[string]Outcome{}
	failed := map[string]bool{} // a check of the requirement failed (FAIL or KNOWN)
	for _, q := range res.Requirements {
		verdict[q.ID] = q.Verdict
		failed[q.ID] = q.Verdict == Fail || q.Verdict == Known
		for _, c := range q.Checks {
			failed[q.ID] = failed[q.ID] || c.Outcome == Fail || c.Outcome == Known
		}
	}
	changed := false
	for i := range res.Requirements {
		for j := range res.Requirements[i].Checks {
			c := &res.Requirements[i].Checks[j]
			if c.Outcome != Blocked {
				continue
			}
			if failed[c.BlockedBy] {
				continue
			}
			what := "no requirement"
			if c.BlockedBy != "" {
				v, ok := verdict[c.BlockedBy]
				switch {
				case !ok:
					what = c.BlockedBy + ", which is not part of this run"
				default:
					what = fmt.Sprintf("%s, whose verdict in this run is %s", c.BlockedBy, v)
				}
			}
			msg := fmt.Sprintf("%s%s, not FAIL: the harness could not judge this check (run the blocking requirement's checks too, or report it)", orphanPrefix, what)
			if c.Message != "" {
				msg += "\n" + c.Message
			}
			c.Outcome, c.BlockedBy, c.Message = Error, "", cutMessage(msg)
			if c.Whole == Blocked {
				c.Whole = Error
			}
			changed = true
		}
	}
	return changed
}

// checkResult reads a check's outcome from its Ginkgo report and the
// entries the check left.
func checkResult(sr types.SpecReport) (CheckResult, runInfo) {
	cr := CheckResult{Name: sr.FullText(), Area: areaOf(sr.ContainerHierarchyTexts), IDs: conformance.RequirementIDs(sr.Labels()), Message: strings.TrimSpace(sr.Failure.Message),
		Duration: sr.RunTime}
	info := runInfo{span: span{sr.StartTime, sr.EndTime}}
	entry := func(name string) (string, bool) {
		for _, e := range sr.ReportEntries {
			if e.Name == name {
				return e.StringRepresentation(), true
			}
		}
		return "", false
	}
	switch {
	case sr.State == types.SpecStatePassed:
		cr.Outcome = Pass
	case sr.State == types.SpecStateSkipped:
		if reason, ok := entry(entryNotRun); ok {
			cr.Outcome, cr.Message = NotRun, "not run: "+reason
		} else if sr.Failure.Message != "" {
			cr.Outcome = Skip
		} else {
			cr.Outcome, cr.Message = NotRun, ""
		}
	case sr.State == types.SpecStatePending:
		cr.Outcome, cr.Message = NotRun, ""
	case sr.State == types.SpecStateInterrupted:
		cr.Outcome, cr.Message = Error, "interrupted while running"
	case sr.State == types.SpecStateAborted:
		cr.Outcome = Error
	case sr.State == types.SpecStateTimedout:
		cr.Outcome = Error
	default:
		if _, ok := entry(conformance.EntryInconclusive); ok {
			cr.Outcome = Inconclusive
		} else if _, ok := entry(conformance.EntryError); ok {
			cr.Outcome = Error
		} else if by, ok := entry(conformance.EntryBlockedBy); ok {
			cr.Outcome, cr.BlockedBy = Blocked, by
		} else {
			cr.Outcome = Fail
			cr.Fails, _ = entry(conformance.EntryFailed)
		}
	}
	for _, e := range sr.ReportEntries {
		switch e.Name {
		case conformance.EntryRan: // run beside others: its own times, not the replay's
			from, to, _ := strings.Cut(e.StringRepresentation(), " ")
			start, err1 := time.Parse(time.RFC3339Nano, from)
			end, err2 := time.Parse(time.RFC3339Nano, to)
			if err1 == nil && err2 == nil {
				info.start, info.end, cr.Duration = start, end, end.Sub(start)
			}
		case conformance.EntryJudged:
			info.judged = append(info.judged, e.StringRepresentation())
		case conformance.EntryNotApplied:
			id, why, _ := strings.Cut(e.StringRepresentation(), "\n")
			if info.notApplied == nil {
				info.notApplied = map[string]string{}
			}
			info.notApplied[id] = why
		}
	}
	cr.Message = cutMessage(cr.Message)
	return cr, info
}

// outcomeFor is what the check says about one of its requirements: a check
// verifying several that failed on one of them (Fails) did not judge the
// others, which it reports as blocked by that one, except those it judged
// before it stopped.
func outcomeFor(c CheckResult, judged []string, id string) Outcome {
	if (c.Outcome == Fail && c.Fails != "" && c.Fails != id) || c.Outcome == Blocked {
		if slices.Contains(judged, id) {
			return Pass // its assertions all ran and held before the check stopped
		}
		if c.Outcome == Fail {
			return Blocked
		}
	}
	return c.Outcome
}

// cutMessage keeps a check's message within MaxMessage, marking the cut.
func cutMessage(s string) string {
	if len(s) <= MaxMessage {
		return s
	}
	n := MaxMessage
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + fmt.Sprintf("… [cut: %d bytes total]", len(s))
}

// markStopped records why the run stopped: checks that were cut short by
// it are ERROR with the reason, checks that never started are NOT RUN
// with the reason.
func (res *Result) markStopped(reason string, at time.Time) {
	res.halt = &halt{Code: ExitUnreachable, Reason: reason}
	res.Halted = reason
	for i := range res.Requirements {
		for j := range res.Requirements[i].Checks {
			c := &res.Requirements[i].Checks[j]
			switch {
			case c.Outcome == NotRun && c.Message == "":
				c.Message = "not run: " + reason
			case (c.CheckOutcome() == Error || c.CheckOutcome() == Fail || c.CheckOutcome() == Blocked || c.CheckOutcome() == Inconclusive) && !res.spans[owner(*c)].end.IsZero() && !res.spans[owner(*c)].end.Before(at):
				c.Outcome, c.Whole, c.BlockedBy = Error, NotRun, ""
				c.Message = cutMessage("interrupted: " + reason + "\n" + c.Message)
			}
		}
	}
	res.tally(res.selectedNames())
}

// selectedNames is the set of checks the run selected (those not marked
// as not selected).
func (res *Result) selectedNames() map[string]bool {
	out := map[string]bool{}
	for _, q := range res.Requirements {
		for _, c := range q.Checks {
			if !strings.HasPrefix(c.Message, "not selected") {
				out[c.Name] = true
			}
		}
	}
	return out
}

// Count returns how many selected checks had the outcome.
func (r *Result) Count(o Outcome) int { return r.outcomes[o] }

// ExitCode is chatconform's exit status for the run: 1 when the server
// broke a requirement (a FAIL, a BLOCKED check whose blocker is not a known
// failure, or a baseline entry that now passes), else the code of what
// stopped the run (2 a refused description, 1 a target that answers its
// own API wrongly, 3 unreachable, stopped answering, out of time,
// interrupted), else 3 when checks could not judge the target (ERROR,
// INCONCLUSIVE), else 0.
//
// Exit 1 needs a FAIL (a BLOCKED check counts only through the FAIL it
// names, see orphanBlocked), a fixed baseline entry, or coverage short of
// --min-judged/--require; a halt that claims exit 1 without a FAIL exits 3.
func (r *Result) ExitCode() int {
	if r.failed() > 0 || len(r.Fixed) > 0 {
		return ExitFail
	}
	if r.halt != nil {
		if r.halt.Code == ExitFail {
			return ExitUnreachable
		}
		return r.halt.Code
	}
	if len(r.CoverageShort) > 0 {
		return ExitFail
	}
	if r.outcomes[Error] > 0 || r.outcomes[Inconclusive] > 0 {
		return ExitUnreachable
	}
	return ExitPass
}

// failed is how many requirements failed (not KNOWN) in the run, counting
// the checks when the verdicts were not tallied (a result read back).
func (r *Result) failed() int {
	// A requirement can fail without a failed check of its own: the
	// history checker and soft failures on the way report by requirement.
	if n := r.Counts[Fail.String()]; n > 0 {
		return n
	}
	return r.outcomes[Fail]
}

// Print writes the verdict per requirement, what the run did not judge
// (grouped by cause, with what to do about each), the totals and, last,
// the failing requirements, each with its one-line cause, then the verdict.
// The text of each failure is the one every report carries. Checks a
// failure blocked are counted under their requirement, and listed only
// with verbose.
func (r *Result) Print(w io.Writer) { r.print(w, false) }

// PrintVerbose is Print listing every blocked check.
func (r *Result) PrintVerbose(w io.Writer) { r.print(w, true) }

func (r *Result) print(w io.Writer, verbose bool) {
	// Why a run halted is the caller's to print, once, on standard error
	// (the *Halt that Run returns); the summary only points at it.
	if r.halt != nil && r.total() == 0 {
		judged := ""
		if r.Coverage != nil {
			judged = ", " + r.Coverage.String()
		}
		fmt.Fprintf(w, "\nchatconform: no check ran%s; exit %d (the reason is on standard error)\n", judged, r.ExitCode())
		return
	}
	fmt.Fprintf(w, "\nVerdict per requirement (profile %s):\n", r.Profile)
	shown := map[string]bool{} // checks (and outcome) whose text was printed under an earlier requirement
	for _, q := range r.Requirements {
		if q.Verdict == NotRun {
			continue // counted below; the reason is the run's
		}
		if by, n := onlyBlocked(q); n > 0 && !verbose {
			// Not judged because another requirement failed: one line.
			fmt.Fprintf(w, "  %-12s %-26s %s [%s blocked by %s]\n", q.Verdict, q.ID, q.Text, plural(n, "check"), by)
			continue
		}
		fmt.Fprintf(w, "  %-12s %-26s %s\n", q.Verdict, q.ID, q.Text)
		if q.Known != "" {
			fmt.Fprintf(w, "               known failure (baseline): %s\n", q.Known)
		}
		if q.Verdict == Pass || q.Verdict == NotCheckable {
			continue
		}
		blocked := map[string]int{}    // blocked checks not listed, by blocker
		met := map[string]string{}     // signature → the first check shown with it
		again := map[string][]string{} // first check → the others that met the same breach
		for _, c := range q.Checks {
			if c.Outcome == Pass || c.Outcome == NotRun {
				continue
			}
			if c.Outcome == Blocked && !verbose {
				blocked[c.BlockedBy]++
				continue
			}
			if c.Signature != "" {
				if first, ok := met[c.Signature]; ok {
					again[first] = append(again[first], c.Name)
					continue
				}
				met[c.Signature] = c.Name
			}
			fmt.Fprintf(w, "               %s: %s\n", c.Outcome, c.Name)
			switch {
			case c.BlockedBy != "":
				fmt.Fprintf(w, "                 blocked by %s (its own check says why)\n", c.BlockedBy)
			case shown[c.Name+c.Outcome.String()]:
				fmt.Fprintf(w, "                 (the same check as above)\n")
			case c.Message != "":
				fmt.Fprintf(w, "                 %s\n", strings.ReplaceAll(c.Message, "\n", "\n                 "))
			}
			shown[c.Name+c.Outcome.String()] = true
		}
		for _, first := range sortedKeys(again) {
			names := again[first]
			fmt.Fprintf(w, "               the same breach as \"%s\", met on the way by %s too", cutName(first), plural(len(names), "other check"))
			if !verbose {
				fmt.Fprintf(w, " (-v lists them)\n")
				continue
			}
			fmt.Fprintf(w, ":\n")
			for _, n := range names {
				fmt.Fprintf(w, "                 %s\n", n)
			}
		}
		for _, by := range sortedKeys(blocked) {
			fmt.Fprintf(w, "               %s blocked by %s (-v lists them)\n", plural(blocked[by], "check"), by)
		}
	}
	if cov := r.Coverage; cov != nil && len(cov.NotJudged) > 0 {
		fmt.Fprintf(w, "\nNot judged: %d of %d checkable requirements, by cause:\n", cov.Total-cov.Judged, cov.Total)
		for _, g := range cov.NotJudged {
			fmt.Fprintf(w, "  %-12s %s: %s\n", g.Outcome, g.Cause, plural(len(g.Requirements), "requirement"))
			fmt.Fprintf(w, "               %s\n", wrapIDs(g.Requirements, 90, "               "))
			if g.Outcome == Skip && len(g.Reasons) > 0 {
				for _, why := range g.Reasons[:min(len(g.Reasons), 3)] {
					fmt.Fprintf(w, "               (%s)\n", why)
				}
			}
			if g.Do != "" {
				fmt.Fprintf(w, "               do: %s\n", g.Do)
			}
		}
	}
	fmt.Fprintf(w, "\nchatconform: %d requirements: %s\n", len(r.Requirements), r.countLine(r.Counts, true))
	fmt.Fprintf(w, "chatconform: %d checks (%s) in %s, %d requests; seed %d\n", r.total(), r.countLine(r.Checks, false), Readable(r.Duration), r.Requests, r.Seed)
	if r.RateLimited > 0 {
		fmt.Fprintf(w, "chatconform: the target answered 429 or 503 %s (waited out, or INCONCLUSIVE after the allowed retries)\n", times(r.RateLimited))
	}
	if r.Halted != "" {
		fmt.Fprintf(w, "chatconform: the run stopped early (the reason is on standard error)\n")
	}
	for _, why := range r.CoverageShort {
		fmt.Fprintf(w, "chatconform: coverage short: %s\n", why)
	}
	for _, id := range r.Fixed {
		fmt.Fprintf(w, "chatconform: %s now passes: remove it from the baseline\n", id)
	}
	causes := r.Causes()
	if len(causes) > 0 {
		blocked := 0
		for _, c := range causes {
			blocked += c.Blocked
		}
		fmt.Fprintf(w, "chatconform: %s", plural(len(causes), "failing requirement"))
		if blocked > 0 {
			fmt.Fprintf(w, " (%s blocked by them)", plural(blocked, "check"))
		}
		fmt.Fprintln(w, ":")
		for _, c := range causes {
			fmt.Fprintf(w, "  FAIL %-26s %s\n", c.ID, c.Line)
		}
	}
	fmt.Fprintf(w, "chatconform: %s\n", r.Verdict())
}

// cutName shortens a check's name for a line that refers back to it.
func cutName(name string) string {
	if r := []rune(name); len(r) > 70 {
		return string(r[:69]) + "…"
	}
	return name
}

// onlyBlocked returns the blocker and the number of q's checks when every
// check of q that did not pass or run was blocked by that one requirement.
func onlyBlocked(q Requirement) (string, int) {
	by, n := "", 0
	for _, c := range q.Checks {
		switch {
		case c.Outcome == Pass || c.Outcome == NotRun:
		case c.Outcome == Blocked && (by == "" || by == c.BlockedBy):
			by, n = c.BlockedBy, n+1
		default:
			return "", 0
		}
	}
	return by, n
}

// Cause is a failing requirement in one line: what the run ends with.
type Cause struct {
	ID      string
	Line    string // the first line of its failure that says what went wrong
	Blocked int    // checks this failure blocked
}

// Causes lists the requirements that failed (FAIL, not KNOWN), in catalogue
// order, each with its one-line cause.
func (r *Result) Causes() []Cause {
	blocked := map[string]int{}
	for _, c := range r.checkList(nil) { // each check once, as every output counts it
		if c.Outcome == Blocked {
			blocked[c.BlockedBy]++
		}
	}
	var out []Cause
	for _, q := range r.Requirements {
		if q.Verdict != Fail {
			continue
		}
		line := ""
		for _, c := range q.Checks {
			if c.Outcome == Fail {
				line = causeLine(c.Message)
				break
			}
		}
		out = append(out, Cause{ID: q.ID, Line: line, Blocked: blocked[q.ID]})
	}
	return out
}

// causeLine is the line of a failure that says what went wrong: its first,
// with the next when the first only introduces it ("...:"), cut to fit a
// line.
func causeLine(msg string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(msg), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "(no message)"
	}
	// A wait that ran out (Gomega's Eventually) says so first; what was
	// still wrong when it did is the line after its preamble.
	if wait, ok := strings.CutPrefix(lines[0], "Timed out after "); ok && len(lines) > 2 && strings.HasPrefix(lines[1], "The function passed to Eventually failed") {
		lines = append([]string{"still after " + strings.TrimSuffix(wait, ".") + ": " + lines[2]}, lines[3:]...)
	}
	line := strings.TrimPrefix(lines[0], "FAIL: ")
	if strings.HasSuffix(line, ":") && len(lines) > 1 {
		line += " " + strings.TrimPrefix(lines[1], "- ")
	}
	return shorten(line, 160)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// wrapIDs joins ids with ", ", wrapping lines at width.
func wrapIDs(ids []string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, id := range ids {
		if i > 0 {
			if n+len(id)+2 > width {
				b.WriteString(",\n" + indent)
				n = 0
			} else {
				b.WriteString(", ")
				n += 2
			}
		}
		b.WriteString(id)
		n += len(id)
	}
	return b.String()
}

// Verdict is the run's overall verdict in one line, with its coverage.
func (r *Result) Verdict() string {
	cov := ""
	if r.Coverage != nil {
		cov = r.Coverage.String()
	}
	switch r.ExitCode() {
	case ExitPass:
		if r.Coverage != nil && r.Coverage.Judged < r.Coverage.Total {
			return fmt.Sprintf("PASS, %s: %d not judged", cov, r.Coverage.Total-r.Coverage.Judged)
		}
		if cov != "" {
			return "PASS, " + cov
		}
		return "PASS"
	case ExitFail:
		why := "replay with --seed " + fmt.Sprint(r.Seed)
		if r.failed() == 0 && len(r.Fixed) == 0 {
			why = "coverage short of --min-judged/--require"
		}
		if cov != "" {
			return fmt.Sprintf("FAIL (exit 1; %s), %s", why, cov)
		}
		return fmt.Sprintf("FAIL (exit 1; %s)", why)
	case ExitUsage:
		return "the target description must be fixed (exit 2)"
	}
	if cov != "" {
		return "INCOMPLETE: the checks could not judge the target (exit 3), " + cov
	}
	return "INCOMPLETE: the checks could not judge the target (exit 3)"
}

func (r *Result) total() int {
	n := 0
	for _, v := range r.outcomes {
		n += v
	}
	return n
}

func (r *Result) countLine(counts map[string]int, withNA bool) string {
	var parts []string
	for _, o := range []Outcome{Pass, Fail, Blocked, Error, Inconclusive, Known, Skip, NotRun, NotCheckable} {
		if o == NotCheckable && !withNA {
			continue
		}
		if n := counts[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Readable renders a duration for a person: 850ms, 12.3s, 4m05s, 1h02m.
func Readable(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func (r *Result) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Report)
}

// WriteReports writes the reports whose paths are not empty, each
// rendered whole and then redacted as a last line of defence.
func (r *Result) WriteReports(red *client.Redactor, junit, jsonPath, htmlPath string) error {
	var errs []string
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{junit, r.writeJUnit}, {jsonPath, r.writeJSON}, {htmlPath, r.writeHTML}} {
		if out.path == "" {
			continue
		}
		var b bytes.Buffer
		if err := out.write(&b); err != nil {
			errs = append(errs, fmt.Sprintf("writing %s: %v", out.path, err))
			continue
		}
		if err := os.WriteFile(out.path, red.Bytes(scrubBytes(b.Bytes())), 0o644); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// CheckOutputs makes sure every report path can be written before anything
// runs: its directory exists and accepts a file, and the path is not a
// directory or a read-only file.
func CheckOutputs(paths ...string) error {
	for _, p := range paths {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil {
			if st.IsDir() {
				return &UsageError{fmt.Sprintf("report %s: is a directory", p)}
			}
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return &UsageError{fmt.Sprintf("report %s: %v", p, err)}
			}
			f.Close()
			continue
		}
		f, err := os.CreateTemp(filepath.Dir(p), ".chatconform-check-*")
		if err != nil {
			return &UsageError{fmt.Sprintf("report %s: cannot write in %s: %v", p, filepath.Dir(p), unwrapPath(err))}
		}
		name := f.Name()
		f.Close()
		os.Remove(name)
	}
	return nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// sortedIDs returns the keys of m in order.
func sortedIDs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// times says how often something happened: "once", or "N times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
