package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// Report entries a failing check leaves so the runner can tell the server's
// fault apart from what kept the check from judging it.
const (
	// EntryBlockedBy names the requirement whose failure in a setup step
	// kept the check from reaching what it verifies.
	EntryBlockedBy = "blocked-by"
	// EntryError marks a failure of the target's environment or of the
	// harness (transport, timeout), not a verdict on the server.
	EntryError = "error"
	// EntryInconclusive marks a check the target kept refusing with 429 or
	// 503 after the allowed retries.
	EntryInconclusive = "inconclusive"
	// EntryFailed names, in a check verifying several requirements, the one
	// whose assertion failed; the check's other requirements were not judged.
	EntryFailed = "fails"
	// EntrySoftFail records a requirement an answer broke on the way to
	// what the check judges, where the check could still use the answer
	// (a 201 carrying the message, JSON under another Content-Type) and went
	// on: the value is the requirement id, a newline, and the failure text.
	// The check's own outcome stands; the runner counts a FAIL of that
	// requirement besides it.
	EntrySoftFail = "soft-fail"
	// EntryJudged names a requirement of the check's own whose assertions
	// (a verifies block) all ran and held. When the check then fails on
	// another of its requirements, this one was judged all the same, and
	// the runner counts it as passed rather than blocked.
	EntryJudged = "judged"
	// EntryNotApplied names a requirement of the check's own that the check
	// passed without judging (the model's sequences never applied its
	// statement, say): the value is the id, a newline, and why. The runner
	// counts the check as SKIP for it, so a pass is never claimed for what
	// was not judged.
	EntryNotApplied = "not-applied"
)

// usableAnswer reports whether a check can go on with an answer that broke
// the document: a success whose body is JSON.
func usableAnswer(resp *client.Response) bool {
	return resp.Status >= 200 && resp.Status < 300 && json.Valid(resp.Body)
}

// softly records that resp broke req on the way to what the check judges,
// and lets the check go on with the answer. It reports false, recording
// nothing, when req is one of the check's own requirements (their failure
// is the check's verdict) or the answer cannot be used.
func (e *Env) softly(req string, resp *client.Response, what string) bool {
	if req == "" || slices.Contains(e.ids, req) || !usableAnswer(resp) {
		return false
	}
	e.noteSoft(req, signature(req, resp), explain(resp, what))
	return true
}

// noteSoft records a soft failure of req (not one of the check's own),
// once per check. sig names the breach whichever check met it, so the
// reports show one breach once, with how many checks met it.
func (e *Env) noteSoft(req, sig, text string) {
	if !e.soft[req] {
		e.soft[req] = true
		e.entry(EntrySoftFail, req+"\n"+sig+"\n"+text)
	}
}

// signature names what resp breaks of req independently of the check and
// of the values: the operation and each violated rule of req with where
// it sits, array positions left out ("sendMessage minimum $.v"); for an
// answer that breaks req with nothing the document names, its status.
func signature(req string, resp *client.Response) string {
	var parts []string
	for _, v := range resp.Violations {
		if v.Rule != "cut" && blame(resp.Operation, v) == req {
			part := v.Rule + " " + arrayIndex.ReplaceAllString(v.Location, "[]")
			if !slices.Contains(parts, part) {
				parts = append(parts, part)
			}
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%s status %d", resp.Operation, resp.Status)
	}
	slices.Sort(parts)
	return resp.Operation + " " + strings.Join(parts, ", ")
}

// softViolations records violations that leave the answer usable — a 2xx
// the operation does not document, a Content-Type other than JSON's on a
// JSON body, a null where a list belongs (read as a list of nothing), and
// any breach of another requirement than the check's own on a 2xx JSON
// answer that is still what the operation returns (a field of the wrong
// shape, say, not an object where a list belongs) — as soft
// failures of the requirements they break, or, for the check's own, as
// its verdict once the rest is judged.
// The check goes on with the answer; when it needs what the answer lacks,
// the owner of the breach blocks it then (see lacking). Anything else is
// left to failOn.
func (e *Env) softViolations(resp *client.Response, violations []spec.Violation) bool {
	broken, ok := usableDespite(resp, violations)
	if !ok {
		return false
	}
	for i, v := range slices.DeleteFunc(slices.Clone(violations), func(v spec.Violation) bool { return v.Rule == "cut" }) {
		if r := broken[i]; nullList(v) && !slices.Contains(e.ids, r) {
			// What the check reads there is an empty list; should it
			// fail after, the elements it missed may be the ones the
			// null left out, so the null's owner blocks it.
			e.suspectFrom(r)
		}
	}
	what := "breaks the OpenAPI document of the " + string(e.Profile) + " profile, and the check went on with the answer:"
	for _, r := range broken {
		if slices.Contains(e.ids, r) {
			// The check's own: its verdict, given once the rest is judged.
			if e.later != nil && !slices.ContainsFunc(*e.later, func(l laterFail) bool { return l.req == r }) {
				shown := *resp
				shown.Violations = violations
				*e.later = append(*e.later, laterFail{req: r, text: explain(&shown, what)})
			}
			continue
		}
		e.noteSoft(r, signature(r, resp), explain(resp, what))
	}
	return true
}

// nullList reports whether v is a null where the document has an array:
// the answer names no element there, and a check that reads the elements
// goes on with none (an empty message page, an empty unread list).
func nullList(v spec.Violation) bool {
	return v.Rule == "nullable" && v.Message == spec.NullForArray
}

// usableDespite reports whether a check can go on with resp despite its
// violations (see softViolations), and the requirement each breaks (the
// "cut" note left out).
func usableDespite(resp *client.Response, violations []spec.Violation) ([]string, bool) {
	// A body the document does not show is nothing a check reads: a
	// success that carries one of the wrong kind is usable all the same.
	bodiless := resp.Status/100 == 2 && !slices.ContainsFunc(violations, func(v spec.Violation) bool {
		return v.Location != spec.UndocumentedBody && v.Rule != "cut"
	})
	if !bodiless && !usableAnswer(resp) {
		return nil, false
	}
	var broken []string
	for _, v := range violations {
		if v.Rule == "cut" {
			continue // the note that more were left out; the shown ones answer
		}
		r := blame(resp.Operation, v)
		if r == "" || v.Side != "response" || (v.Rule != "status" && v.Rule != "content-type" && !nullList(v) && structural(resp.Operation, v)) {
			return nil, false
		}
		broken = append(broken, r)
	}
	return broken, true
}

// holdsLater applies a statement of req, one of the check's own, about an
// answer the check goes on with: a breach is req's verdict, given once the
// rest of the check is judged (see failLater); req counts as judged only
// when it held.
//
// A statement that held is counted judged when the check ends (see
// judgeHeld), not at once: a breach of it further on must not leave it
// counted as passed beside the check's failure on another requirement.
func (e *Env) holdsLater(req string, ok bool, format string, args ...any) {
	if !slices.Contains(e.ids, req) {
		panic("conformance: a check verifies " + req + " without naming it")
	}
	breached := slices.ContainsFunc(*e.later, func(l laterFail) bool { return l.req == req })
	switch {
	case ok && !breached:
		if !slices.Contains(*e.held, req) {
			*e.held = append(*e.held, req)
		}
	case !ok && !breached:
		*e.later = append(*e.later, laterFail{req: req, text: fmt.Sprintf(format, args...)})
	}
}

// holds applies assertions about req, one of the check's own, that
// nothing after them in the check builds on: a breach is req's verdict,
// given once the rest is judged (see holdsLater), so the check's other
// requirements are judged all the same. f asserts through g only; a
// failed step inside it still ends the check.
func (e *Env) holds(req string, f func(g Gomega)) {
	failure, at := attempt(f)
	e.holdsLater(req, failure == "", "%s\n(at %s)", failure, at)
}

// holdsEventually is holds for an assertion that may take --eventually to
// hold (see eventually).
func (e *Env) holdsEventually(req string, f func(g Gomega)) {
	GinkgoHelper()
	failure := e.eventuallyHolds(f)
	e.holdsLater(req, failure == "", "%s", failure)
}

// suspectFrom makes req the check's suspect (see Env.suspect), unless it
// has one, and notes how many breaches the check had gone on past before.
func (e *Env) suspectFrom(req string) {
	if e.suspect == nil || *e.suspect != "" {
		return
	}
	*e.suspect = req
	if e.suspectAt != nil && e.later != nil {
		*e.suspectAt = len(*e.later)
	}
}

// breached reports whether the check has gone on past a breach of req
// (see holdsLater).
func (e *Env) breached(req string) bool {
	return e.later != nil && slices.ContainsFunc(*e.later, func(l laterFail) bool { return l.req == req })
}

// judgeHeld counts judged, when the check ends however it ends, the
// requirements whose statements held wherever the check applied them
// (holdsLater) and were never breached, but failing, the requirement the
// check is failing on (a statement of it that held earlier is no verdict
// beside its failure).
func (e *Env) judgeHeld(failing string) {
	if e.held == nil {
		return
	}
	for _, req := range *e.held {
		if req != failing && !slices.ContainsFunc(*e.later, func(l laterFail) bool { return l.req == req }) {
			e.verifies(req, func() {})
		}
	}
	*e.held = nil
}

// noteLater records, when the check ends failing on failing, each other
// requirement's breach it went on past (holdsLater), of the first upTo,
// as a finding of that requirement: the check's failure names one
// requirement, and the others it judged broken are FAIL all the same, not
// left blocked by it.
func (e *Env) noteLater(failing string, upTo int) {
	if e.later == nil {
		return
	}
	for i, l := range *e.later {
		if i < upTo && l.req != failing {
			e.noteSoft(l.req, "a breach of "+l.req+" in a check that failed on another of its statements", l.text)
		}
	}
	*e.later = nil
}

// laterFail is a breach of one of the check's own requirements on an
// answer the check went on with.
type laterFail struct{ req, text string }

// failLater fails the check with the first breach it went on past, once
// the body has judged everything else.
func (e *Env) failLater() {
	GinkgoHelper()
	e.judgeHeld("")
	if e.later == nil || len(*e.later) == 0 {
		return
	}
	l := (*e.later)[0]
	e.verifies(l.req, func() { e.fail(l.text) })
}

// step runs f as a setup step that exercises requirement req. When f fails
// and the check does not itself verify req, the check is blocked by req: the
// failure is counted once, on req's own checks, not on every check that
// happened to need the step.
func (e *Env) step(req string, f func()) {
	GinkgoHelper()
	if slices.Contains(e.ids, req) { // the step is a judgement of the check's own
		prev := *e.judging
		if prev == "" {
			*e.judging = req
		}
		f()
		*e.judging = prev
		return
	}
	prev := *e.blocker
	if prev == "" {
		*e.blocker = req
		// A step that fails is evidence against req, met here: a finding of
		// req, so that a check it blocks is never left unjudged beside a
		// req its own checks passed (one answer in N fell here).
		// It is noted once the ground under the check is probed: a step
		// that failed because a write of the check's was lost is the lost
		// write's finding, not req's (see unwind).
		defer func() {
			if r := recover(); r != nil {
				if *e.blocker == req && !e.noAnswer() {
					f := stepFail{req: req, sig: "a step of " + req + " failed in a check it blocks",
						text: fmt.Sprintf("a step exercising %s failed in the check %q, which it blocks; that check's failure shows the exchange", req, e.name())}
					if e.stepFails == nil {
						e.noteSoft(f.req, f.sig, f.text) // no check body to unwind: noted now
					} else {
						*e.stepFails = append(*e.stepFails, f)
					}
				}
				panic(r)
			}
		}()
	}
	f()
	*e.blocker = prev
}

// attribute decides who answers for violations about to fail the check:
// the check itself when it verifies one of the requirements they break,
// otherwise the broken requirement blocks it (whatever step was under way).
func (e *Env) attribute(op string, violations []spec.Violation) {
	for _, v := range violations {
		if structural(op, v) { // it explains the others: it alone answers
			if r := blame(op, v); slices.Contains(e.ids, r) {
				*e.blocker, *e.judging = "", r
			} else {
				*e.blocker = r
			}
			return
		}
	}
	var broken []string
	for _, v := range violations {
		if r := blame(op, v); r != "" {
			if slices.Contains(e.ids, r) {
				*e.blocker, *e.judging = "", r
				return
			}
			broken = append(broken, r)
		}
	}
	if len(broken) > 0 {
		*e.blocker = broken[0]
	}
}

// verifies runs the assertions f makes about requirement req, one of the
// check's own: when one fails, the failure is req's alone, and the check's
// other requirements count as not judged rather than failed.
func (e *Env) verifies(req string, f func()) {
	GinkgoHelper()
	if !slices.Contains(e.ids, req) {
		panic("conformance: a check verifies " + req + " without naming it")
	}
	prev := *e.judging
	*e.judging = req
	f()
	*e.judging = prev
	if !e.judged[req] {
		e.judged[req] = true
		e.entry(EntryJudged, req)
	}
}

// lacking fails the check because an answer lacks what the check needs of
// it (a field, a parseable value, a success): req, the requirement that
// owns what is missing, answers for it. When req is one of the check's own,
// the failure is req's verdict; otherwise req blocks the check, as a step of
// req would, and its own checks give the verdict. Any step or judgement
// under way gives way: what is missing is req's, not theirs.
func (e *Env) lacking(req, text string) {
	GinkgoHelper()
	switch {
	case req == "":
	case slices.Contains(e.ids, req):
		*e.blocker, *e.judging = "", req
	default:
		*e.blocker = req
	}
	e.fail(text)
}

// unwind runs when a check's body returns or unwinds. A check that
// unwinds (a failure, or a skip: Ginkgo tells them apart only later) has
// the ground under it probed first (see probeRoot), so that what blocks
// it is named before noteBlocker reports it.
func (e *Env) unwind() {
	if r := recover(); r != nil {
		e.judgeHeld(*e.judging)
		e.probeRoot()
		e.probeUnreadGround()
		e.probePageGround()
		// A breach the check went on past explains a failure after it, of
		// its own or of a step (another user's unread message that was
		// answered as the caller's own, say), unless the ground under the
		// check named what broke.
		rooted, bySuspect := e.rooted != nil && *e.rooted, false
		if *e.suspect != "" && !rooted && *e.judging != *e.suspect {
			*e.blocker, *e.judging, bySuspect = *e.suspect, "", true
		}
		// The check's other breaches are findings, but for those that
		// stand on broken ground: every one when the ground under the
		// check named what broke, those met after the breach that blocks
		// it otherwise. A check left without an answer fails on nothing.
		failing := *e.judging
		if e.noAnswer() {
			failing = ""
		}
		switch {
		case rooted:
		case bySuspect:
			upTo := 0
			if e.suspectAt != nil {
				upTo = *e.suspectAt
			}
			e.noteLater(failing, upTo)
		default:
			e.noteLater(failing, len(*e.later))
		}
		e.noteStepFails(true)
		e.noteBlocker()
		panic(r)
	}
	e.noteStepFails(false)
	e.noteBlocker()
}

// stepFail is a step of another requirement that failed in the check.
type stepFail struct{ req, sig, text string }

// noteStepFails records the failed steps as findings of their
// requirements. When the check unwound, only the step that still blocks
// it is: the ground under the check may have named another blocker (a
// lost write), whose finding explains the step's failure.
func (e *Env) noteStepFails(unwound bool) {
	if e.stepFails == nil {
		return
	}
	for _, f := range *e.stepFails {
		if !unwound || *e.blocker == f.req {
			e.noteSoft(f.req, f.sig, f.text)
		}
	}
	*e.stepFails = nil
}

// noteBlocker runs when a check's body returns or unwinds: a step that did
// not finish names its requirement as the blocker; an assertion about one
// requirement that did not finish names that requirement as the failed one.
func (e *Env) noteBlocker() {
	switch {
	case *e.blocker != "":
		e.entry(EntryBlockedBy, *e.blocker)
	case *e.judging != "":
		e.entry(EntryFailed, *e.judging)
	}
}

// noAnswer reports whether the check is failing for want of an answer
// (no answer, the target kept refusing with 429 or 503, the check's time
// ran out or the run was stopped): nothing the server answered is against
// any requirement then.
func (e *Env) noAnswer() bool {
	if e.ctx != nil && e.ctx.Err() != nil {
		return true
	}
	for _, entry := range e.t.ReportEntries() {
		if entry.Name == EntryError || entry.Name == EntryInconclusive {
			return true
		}
	}
	return false
}

// transportFailure ends the check with an ERROR (or INCONCLUSIVE) outcome:
// the request got no answer to judge.
func (e *Env) transportFailure(err error) {
	GinkgoHelper()
	var un interface{ Unavailable() bool }
	if errors.As(err, &un) && un.Unavailable() {
		e.entry(EntryInconclusive, err.Error())
		e.fail(fmt.Sprintf("the target kept refusing the request: %v", err))
	}
	e.entry(EntryError, err.Error())
	e.fail(fmt.Sprintf("no answer from the target: %v", err))
}
