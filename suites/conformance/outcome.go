package conformance

import (
	"errors"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/spec"
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
)

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
}

// noteBlocker runs when a check's body returns or unwinds: a step that did
// not finish names its requirement as the blocker; an assertion about one
// requirement that did not finish names that requirement as the failed one.
func (e *Env) noteBlocker() {
	switch {
	case *e.blocker != "":
		AddReportEntry(EntryBlockedBy, *e.blocker)
	case *e.judging != "":
		AddReportEntry(EntryFailed, *e.judging)
	}
}

// transportFailure ends the check with an ERROR (or INCONCLUSIVE) outcome:
// the request got no answer to judge.
func transportFailure(err error) {
	GinkgoHelper()
	var un interface{ Unavailable() bool }
	if errors.As(err, &un) && un.Unavailable() {
		AddReportEntry(EntryInconclusive, err.Error())
		Fail(fmt.Sprintf("the target kept refusing the request: %v", err))
	}
	AddReportEntry(EntryError, err.Error())
	Fail(fmt.Sprintf("no answer from the target: %v", err))
}
