package runner

import (
	"bytes"
	"fmt"
	"io"
	"maps"
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
	blockByReferences(byID, cat)
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

// blockByReferences reports each failure of a requirement judged against
// others (spec.Requirement.JudgedAgainst) as BLOCKED by the first of them
// that fails in the run: a room's counts that disagree with unread lists
// that are wrong themselves are the lists' defect seen again, and the
// counts are judged once the lists keep to the document. The rows the
// same checks left blocked by the requirement then name that reference.
func blockByReferences(byID map[string][]CheckResult, cat *spec.Catalogue) {
	if cat == nil {
		return
	}
	fails := func(id string) bool {
		return slices.ContainsFunc(byID[id], func(c CheckResult) bool { return c.Outcome == Fail })
	}
	for _, req := range cat.Requirements {
		i := slices.IndexFunc(req.JudgedAgainst, fails)
		if i < 0 || !fails(req.ID) {
			continue
		}
		by := req.JudgedAgainst[i]
		for j := range byID[req.ID] {
			c := &byID[req.ID][j]
			if c.Outcome != Fail {
				continue
			}
			if c.Of == "" && c.Whole == NotRun {
				c.Whole = Fail
			}
			c.Outcome, c.BlockedBy = Blocked, by
			c.Message = cutMessage(fmt.Sprintf("not judged: %s is held to the answers of %s, which fails in this run; this failure may be that defect seen again:\n", req.ID, by) + c.Message)
		}
		// The requirement fails nowhere now: whatever it blocked is
		// blocked by what blocks it, which does fail.
		for id, cs := range byID {
			if id == req.ID {
				continue
			}
			for j := range cs {
				if cs[j].Outcome == Blocked && cs[j].BlockedBy == req.ID {
					cs[j].BlockedBy = by
				}
			}
		}
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
	for _, c := range res.CheckList(selected) {
		res.Checks[c.Outcome.String()]++
		res.outcomes[c.Outcome]++
	}
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
	for _, id := range slices.Sorted(maps.Keys(extra)) {
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
		hist.Message = "not run: it judged no requirement here (no answer to read, or, in a replay or a proxy session, no rule it can show it reached)"
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
	res.tally(res.SelectedNames())
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
	if r.failed() > 0 || len(r.Fixed) > 0 || (r.Proxy != nil && len(r.Proxy.Client) > 0) {
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

// WriteReports writes the reports whose paths are not empty, each
// rendered whole and then redacted as a last line of defence. Each states
// the exit code the report holds (ExitStatus).
func (r *Result) WriteReports(red *client.Redactor, junit, jsonPath, htmlPath string) error {
	var errs []string
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{junit, r.Report.WriteJUnit}, {jsonPath, r.Report.WriteJSON}, {htmlPath, r.Report.WriteHTML}} {
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
