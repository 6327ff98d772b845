package runner

import (
	"fmt"
	"github.com/chatrooms/conformance/suites/record"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/conformance"
	"github.com/chatrooms/conformance/suites/history"
)

// HistoryCheck is the name the history checker's verdicts carry in
// reports: it is not a Ginkgo check but reads every answer of the run,
// every user's, the setup's included, side by side after the checks.
const HistoryCheck = "History checker: every answer of the run read side by side"

// defaultEventually is the lag the checks allow when the run gives none;
// the history checker allows the same.
const defaultEventually = 5 * time.Second

// newHistory makes the run's history checker. The bundled server has no
// other client; any other target may, so the rules that hold only for a
// sole writer are relaxed there.
func newHistory(cfg Config, red *client.Redactor, bundled bool) *history.Checker {
	ev := cfg.Eventually
	if ev == 0 {
		ev = defaultEventually
	}
	var ids []string
	if !bundled && cfg.Target != nil { // as a record keeps them (record.Describe): none for the bundled server
		ids = record.UserIDs(cfg.Target)
	}
	return history.New(history.Options{Eventually: ev, Profile: string(cfg.Profile), Redact: red.String, Shared: !bundled, UserIDs: ids})
}

// historyChecks turns what the run's history says into check results by
// requirement: each contradiction a FAIL of the requirement it breaks; and
// the soft failures checks recorded on the way (conformance.EntrySoftFail)
// FAILs of theirs. A requirement the history contradicts nowhere is a PASS
// of the history checker only where the run judged it anyway (one of its
// checks was selected), or where the run selected every check of the
// profile: a filtered run's history is too thin to vouch for the rest.
func historyChecks(hist *history.Checker, r types.Report, selected map[string]bool, complete bool) map[string][]CheckResult {
	out := map[string][]CheckResult{}
	failed := map[string][]string{}
	for _, c := range hist.Check() {
		failed[c.Requirement] = append(failed[c.Requirement], c.String())
	}
	observed := hist.Stats().Observed
	judgedByRun := map[string]bool{}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt || !selected[sr.FullText()] {
			continue
		}
		for _, id := range conformance.RequirementIDs(sr.Labels()) {
			judgedByRun[id] = true
		}
		for _, e := range sr.ReportEntries {
			if e.Name != conformance.EntrySoftFail {
				continue
			}
			id, rest, _ := strings.Cut(e.StringRepresentation(), "\n")
			sig, text, _ := strings.Cut(rest, "\n")
			out[id] = append(out[id], CheckResult{Name: sr.FullText() + " (on the way, about " + id + ")", Area: areaOf(sr.ContainerHierarchyTexts),
				IDs: []string{id}, Outcome: Fail, Message: cutMessage(text), Signature: sig, Of: sr.FullText()})
		}
	}
	for _, id := range history.Requirements() {
		switch {
		case len(failed[id]) > 0:
			out[id] = append(out[id], CheckResult{Name: HistoryCheck, Area: "History", IDs: []string{id}, Outcome: Fail,
				Message: cutMessage(strings.Join(failed[id], "\n\n"))})
		case history.FailsOnly(id):
			// Not contradicted is no verdict here: its checks judge it.
		case observed > 0 && (judgedByRun[id] || complete):
			out[id] = append(out[id], CheckResult{Name: HistoryCheck, Area: "History", IDs: []string{id}, Outcome: Pass})
		default:
			out[id] = append(out[id], CheckResult{Name: HistoryCheck, Area: "History", IDs: []string{id}, Outcome: NotRun,
				Message: "not selected (--label-filter, --focus): the history checker judges this requirement only over a whole run"})
		}
	}
	return out
}

// DocumentCheck is the name under which violations of the profile's
// document found on any answer of the run are reported: each answer is
// validated as it comes, but a check judges only the requirements it is
// about, so a defect on an answer no check looks at would otherwise go
// free.
const DocumentCheck = "Document checker: every answer of the run against the profile's OpenAPI document"

// documentChecks turns the violations recorded on the run's answers into
// FAILs of the requirements they break, at most a few exchanges each. A
// deliberately invalid request is held only to what its answer carries
// (its request is not validated), and at core not to its status, which
// the document leaves open for refusals. It reports failures only: the
// checks of each requirement say whether it passed.
func documentChecks(rec *client.Recorder, p spec.Profile) map[string][]CheckResult {
	const perRequirement = 3
	found := map[string][]string{}
	count := map[string]int{}
	for _, x := range rec.Exchanges() {
		byReq := map[string][]string{}
		root := conformance.ShapeRoot(x, p) // a body of another kind answers for all its breaches
		for _, v := range x.Violations {
			if id := conformance.DocumentBlame(x, v, p); id != "" && (root == "" || id == root) {
				byReq[id] = append(byReq[id], v.String())
			}
		}
		for id, vs := range byReq {
			count[id]++
			if len(found[id]) < perRequirement {
				found[id] = append(found[id], fmt.Sprintf("%s %s answered %d:\n  - %s\n  reproduce: %s", x.Method, x.URL, x.Status, strings.Join(vs, "\n  - "), x.Curl()))
			}
		}
	}
	out := map[string][]CheckResult{}
	for id, texts := range found {
		msg := strings.Join(texts, "\n")
		if n := count[id] - len(texts); n > 0 {
			msg += fmt.Sprintf("\n(%d more answers break %s)", n, id)
		}
		out[id] = []CheckResult{{Name: DocumentCheck, Area: "History", IDs: []string{id}, Outcome: Fail, Message: cutMessage(msg)}}
	}
	return out
}
