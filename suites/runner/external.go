package runner

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/report"
)

// JudgeVerdict is what one of the run-wide judges (HistoryCheck,
// DocumentCheck) says about one requirement, reached outside the Ginkgo
// checks: by a replay of a record, say.
type JudgeVerdict struct {
	Requirement string
	// Judge is HistoryCheck or DocumentCheck.
	Judge string
	// Outcome is Pass or Fail.
	Outcome Outcome
	// Message is the evidence of a failure (the exchanges that show it),
	// or what a pass rests on.
	Message string
}

// Unjudged is a group of checkable requirements a report built by
// NewReport leaves NOT RUN, for one cause.
type Unjudged struct {
	Cause        string // why, in a few words; each requirement's reason
	Do           string // the one thing to do about it
	Requirements []string
}

// External is what NewReport builds a run report from: the run's
// identity and the verdicts of judges that do not come from Ginkgo.
type External struct {
	Profile spec.Profile
	Target  string
	// Bundled says the verdicts are about the bundled reference server.
	Bundled    bool
	TargetNote string
	Seed       uint64
	Version    string
	Started    time.Time
	Duration   time.Duration
	Requests   int
	Verdicts   []JudgeVerdict
	// NotJudged groups the checkable requirements the verdicts leave out,
	// by cause; one the verdicts leave out and no group names is NOT RUN
	// under DefaultCause.
	NotJudged []Unjudged
	// Halt, when not nil, gives the exit code (and why) when no
	// requirement failed: a replay whose verdicts differ from the ones
	// recorded with the same harness exits 3.
	Halt *Halt
	// Replay, for the report of a replayed record, says how the replay
	// compares with the run recorded.
	Replay *ReplayNote
	// Proxy, for the report of a proxy session, says what the session
	// forwarded and what the client broke.
	Proxy *report.ProxyNote
	// Judges are judges of the report's own besides the document and
	// history checkers (a proxy session's judge of the client's requests),
	// counted as checks like them.
	Judges []CheckResult
	Gate   CoverageGate
}

// DefaultCause is why a requirement no verdict of NewReport's covers and
// no group of External.NotJudged names was not judged.
const DefaultCause = "not judged by the judges of this report"

// NewReport builds a run report from verdicts that do not come from the
// Ginkgo checks (a replayed record). Each verdict becomes a row of its
// judge under its requirement, the judges are summed up as in a run, and
// the verdicts, counts, coverage and exit code are reached by the same code
// as a run's.
func NewReport(in External) *Result {
	extra := map[string][]CheckResult{}
	for _, v := range in.Verdicts {
		extra[v.Requirement] = append(extra[v.Requirement], CheckResult{Name: v.Judge, Area: "History", IDs: []string{v.Requirement},
			Outcome: v.Outcome, Message: cutMessage(v.Message)})
	}
	selected := map[string]bool{HistoryCheck: true, DocumentCheck: true}
	res := summarize(types.Report{}, selected, in.Profile, in.Seed, in.Target, in.Duration, nil, extra)
	res.Judges = append(judges(extra), in.Judges...)
	res.tally(selected)
	res.Version, res.Started, res.Requests = in.Version, in.Started, in.Requests
	res.Bundled, res.TargetNote = in.Bundled, in.TargetNote
	res.Replay, res.Proxy = in.Replay, in.Proxy
	if in.Halt != nil {
		res.halt = &halt{Code: in.Halt.Code, Reason: in.Halt.Reason}
		res.Halted = in.Halt.Reason
	}

	why := map[string]int{} // requirement → its group in groups
	groups := slices.Clone(in.NotJudged)
	for i, g := range groups {
		for _, id := range g.Requirements {
			if _, ok := why[id]; !ok {
				why[id] = i
			}
		}
	}
	var rest []string
	for i := range res.Requirements {
		q := &res.Requirements[i]
		if q.Verdict != NotRun {
			continue
		}
		if _, ok := why[q.ID]; !ok {
			rest = append(rest, q.ID)
			why[q.ID] = -1
		}
	}
	if len(rest) > 0 {
		groups = append(groups, Unjudged{Cause: DefaultCause, Do: "read the run's own report for these verdicts", Requirements: rest})
		for _, id := range rest {
			why[id] = len(groups) - 1
		}
	}
	for i := range res.Requirements {
		if q := &res.Requirements[i]; q.Verdict == NotRun {
			q.Reason = groups[why[q.ID]].Cause
		}
	}

	res.judge(in.Gate)
	// The coverage puts every NOT RUN requirement under one cause of a
	// run's ("not run", or a run that stopped); here each group says why.
	var gaps []Gap
	for _, g := range res.Coverage.NotJudged {
		if g.Outcome != NotRun {
			gaps = append(gaps, g)
		}
	}
	for _, g := range groups {
		gap := Gap{Outcome: NotRun, Cause: g.Cause, Do: g.Do}
		for _, q := range res.Requirements {
			if q.Verdict == NotRun && q.Reason == g.Cause && slices.Contains(g.Requirements, q.ID) && !slices.Contains(gap.Requirements, q.ID) {
				gap.Requirements = append(gap.Requirements, q.ID)
			}
		}
		if len(gap.Requirements) > 0 {
			gaps = append(gaps, gap)
		}
	}
	res.Coverage.NotJudged = gaps
	res.ExitStatus = res.ExitCode()
	return res
}

// AddJudgments gives in the verdicts of the document and history judges over a
// record or a session (judgments, unsupported: record.JudgmentsOf), each
// under its requirement, and groups the checkable requirements they leave
// out by cause: those the judges cannot judge from these exchanges (why,
// after unsupportedCause, with unsupportedDo), and those no judge of
// exchanges judges (restCause, restDo). It returns the findings under
// labels that are no requirement of the catalogue, in words.
func (in *External) AddJudgments(judgments []record.Judgment, unsupported map[string]string, judgeable []string,
	unsupportedCause, unsupportedDo, restCause, restDo string) (unattributed []string) {
	cat, _ := spec.LoadCatalogue()
	inCatalogue := func(id string) bool {
		if cat == nil {
			return false
		}
		_, ok := cat.Lookup(id)
		return ok
	}
	for _, j := range judgments {
		if !inCatalogue(j.Requirement) {
			if j.Failed {
				unattributed = append(unattributed, j.Requirement+": "+strings.TrimSpace(j.Text))
			}
			continue
		}
		jv := JudgeVerdict{Requirement: j.Requirement, Judge: DocumentCheck, Outcome: Pass, Message: j.Text}
		if j.Source == record.History {
			jv.Judge = HistoryCheck
		}
		if j.Failed {
			jv.Outcome = Fail
		}
		in.Verdicts = append(in.Verdicts, jv)
	}
	byWhy := map[string][]string{}
	for id, why := range unsupported {
		byWhy[why] = append(byWhy[why], id)
	}
	for _, why := range slices.Sorted(maps.Keys(byWhy)) {
		ids := byWhy[why]
		slices.Sort(ids)
		in.NotJudged = append(in.NotJudged, Unjudged{Cause: unsupportedCause + why, Requirements: ids, Do: unsupportedDo})
	}
	var rest []string
	if cat != nil {
		for _, q := range cat.Requirements {
			if q.InProfile(in.Profile) && q.IsCheckable() && !slices.Contains(judgeable, q.ID) {
				rest = append(rest, q.ID)
			}
		}
	}
	in.NotJudged = append(in.NotJudged, Unjudged{Cause: restCause, Do: restDo, Requirements: rest})
	return unattributed
}

// UnattributedJudge is the judge of a replay's or a proxy session's
// breaches under no requirement of the catalogue: they make the report
// exit 1, so a check fails for them in every output.
const UnattributedJudge = "Answers under no requirement: answers that break the document where no requirement of the catalogue says"

// Unattributed is that judge's row, failing with the breaches in words.
func Unattributed(breaches []string) CheckResult {
	return CheckResult{Name: UnattributedJudge, Area: "History", Outcome: Fail,
		Message: "answers broke the document where no requirement of the catalogue says:\n" + strings.Join(breaches, "\n")}
}
