package conformance

// Sending a request and judging the answer: the document, the status, the
// failure message that shows the exchange.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// call sends req as user u (its token placed as req.Place says) and fails
// the spec when the target cannot be reached or the exchange breaks the
// document. It does not judge the status: callers do.
func (e *Env) call(u int, req client.Request) *client.Response {
	GinkgoHelper()
	return e.callKeeping(u, req, func(spec.Violation) bool { return true })
}

// reach is call for a check that needs no more of the answer than that
// the operation was served there: only what says it was not (its status,
// its route, its security, a body that is not JSON, as a page any path
// would get) fails the check. What the JSON breaks is left to the
// document checker, which judges every answer of the run, and to the
// checks of the requirements it breaks.
func (e *Env) reach(u int, req client.Request) *client.Response {
	GinkgoHelper()
	return e.callKeeping(u, req, func(v spec.Violation) bool {
		return v.Rule == "status" || v.Rule == "route" || v.Rule == "security" || v.Rule == "content-type" || v.Rule == "decode"
	})
}

// callKeeping is call judging the answer on the violations keep keeps.
func (e *Env) callKeeping(u int, req client.Request, keep func(spec.Violation) bool) *client.Response {
	GinkgoHelper()
	if req.Place != client.NoToken && req.Token == "" {
		req.Token = e.Users[u].Token
	}
	resp, err := e.sendOrTake(req)
	if err != nil {
		e.transportFailure(err)
	}
	if again := e.readAgain(u, req, resp, keep); again != nil {
		resp = again
	}
	if e.last != nil {
		*e.last = lastCall{u: u, place: req.Place, own: req.Token == e.Users[u].Token}
	}
	if req.Token == e.Users[u].Token {
		e.noteWrite(u, req, resp)
	}
	if req.Method == "POST" && strings.HasSuffix(req.Path, "/chatMessages") && resp.Status == 200 {
		var sent struct {
			ID string `json:"id"`
		}
		if resp.JSON(&sent) == nil {
			e.noteSent(u, strings.TrimSuffix(strings.TrimPrefix(req.Path, "/v1/rooms/"), "/chatMessages"), sent.ID)
		}
	}
	violations := kept(resp.Violations, keep)
	if req.Invalid && e.Profile == spec.Core {
		// Error statuses are not shown at core: a request the check expects
		// to be refused may get any status, a redirect included.
		violations = slices.DeleteFunc(slices.Clone(violations), func(v spec.Violation) bool { return v.Rule == "status" })
	}
	e.failOn(resp, violations)
	return resp
}

// kept returns the violations keep keeps, in a new slice.
func kept(vs []spec.Violation, keep func(spec.Violation) bool) []spec.Violation {
	return slices.DeleteFunc(slices.Clone(vs), func(v spec.Violation) bool { return !keep(v) })
}

// readAgain sends again, once, a read of user u's own whose answer the
// check could not use, when what the answer breaks is another
// requirement's than the check's own: a token refused (the token's
// place), a server failure (the operation's), a success of another shape
// (the owner of the breach). When the second answer is one the check can
// use, the first is a finding of that requirement (one wrong answer in
// a few is its breach as much as every answer), and the check goes on
// with the second, so that one flaky answer does not leave the check
// unjudged. Otherwise it returns nil: the first answer stands, and blocks
// the check as before. Writes are never sent again.
func (e *Env) readAgain(u int, req client.Request, resp *client.Response, keep func(spec.Violation) bool) *client.Response {
	if req.Method != "GET" || req.Invalid || req.Place == client.NoToken || req.Token != e.Users[u].Token {
		return nil
	}
	owner, sig := unusable(resp, kept(resp.Violations, keep))
	// The answer is the check's to judge when it breaks one of the
	// check's own requirements, whichever else it breaks.
	if owner == "" || slices.ContainsFunc(breaches(resp, resp.Violations), func(r string) bool { return slices.Contains(e.ids, r) }) ||
		(resp.Status >= 500 && slices.Contains(e.ids, "GEN-NO-5XX")) {
		return nil
	}
	again, err := e.Client.Do(e.ctx, req)
	if err != nil || again.Status/100 != 2 {
		return nil
	}
	if _, ok := usableDespite(again, kept(again.Violations, keep)); !ok {
		return nil
	}
	e.noteSoft(owner, sig, explain(resp, "gave an answer the check could not use, and the same read right after gave one it could: the check went on with that one"))
	return again
}

// breaches names every requirement resp breaks: the token's place for a
// token refused, the operation's for any other refusal, and the owner of
// each violation.
func breaches(resp *client.Response, violations []spec.Violation) []string {
	var out []string
	if refused := refusedPlace(resp); refused != "" {
		out = append(out, refused) // the token's place, not the operation
	} else if resp.Status >= 400 {
		out = append(out, operationRequirement[resp.Operation])
	}
	for _, v := range violations {
		if r := blame(resp.Operation, v); r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// unusable names the requirement whose breach leaves nothing a check can
// read in resp (judged on violations), with the breach's signature: a
// token refused (the token's place), a server failure (the operation's),
// a success of another shape (the breach that explains the rest, else the
// first named, else the operation's). It returns "" for an answer a check
// can use, and for any other refusal, which is for the check to judge.
func unusable(resp *client.Response, violations []spec.Violation) (owner, sig string) {
	// What the request broke says nothing of the answer.
	violations = slices.DeleteFunc(slices.Clone(violations), func(v spec.Violation) bool { return v.Side == "request" })
	switch {
	case resp.Status == http.StatusUnauthorized:
		if owner = refusedPlace(resp); owner != "" {
			return owner, refusedAcceptedSig
		}
		return "", ""
	case resp.Status >= 500 || (resp.Status/100 == 2 && len(violations) > 0):
		if _, ok := usableDespite(resp, violations); ok {
			return "", ""
		}
		owner = operationRequirement[resp.Operation]
		if i := slices.IndexFunc(violations, func(v spec.Violation) bool { return structural(resp.Operation, v) }); i >= 0 {
			owner = blame(resp.Operation, violations[i])
		} else if i := slices.IndexFunc(violations, func(v spec.Violation) bool { return blame(resp.Operation, v) != "" }); i >= 0 {
			owner = blame(resp.Operation, violations[i])
		}
		if owner == "" {
			return "", ""
		}
		return owner, signature(owner, resp)
	}
	return "", ""
}

// failOn fails the check on violations of resp, if any, blaming the
// requirements they break (see attribute).
func (e *Env) failOn(resp *client.Response, violations []spec.Violation) {
	GinkgoHelper()
	if len(violations) == 0 || e.softViolations(resp, violations) {
		return
	}
	e.attribute(resp.Operation, violations)
	shown := *resp
	shown.Violations = violations
	e.fail(explain(&shown, "breaks the OpenAPI document of the "+string(e.Profile)+" profile:"))
}

// explain describes an exchange for a failure message: what was sent, what
// came back, and a curl command to reproduce it (token left as $CHAT_TOKEN).
func explain(resp *client.Response, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", resp.Operation, what)
	for _, v := range resp.Violations {
		fmt.Fprintf(&b, "  - %s\n", v)
	}
	if x := resp.Exchange; x != nil {
		fmt.Fprintf(&b, "request:  %s %s", x.Method, x.URL)
		if x.RequestBody != "" {
			fmt.Fprintf(&b, " %s", client.Snippet([]byte(x.RequestBody), 300))
		}
		fmt.Fprintf(&b, "\nresponse: %d %s\nreproduce: %s\n", x.Status, client.Snippet([]byte(x.ResponseBody), 500), x.Curl())
	}
	return b.String()
}

// expectStatus checks the status is one of want. In a step that wants a
// success, another success with a usable body is a soft failure of the
// step's requirement (see softly): the check goes on with the answer.
func (e *Env) expectStatus(resp *client.Response, want ...int) {
	GinkgoHelper()
	if slices.Contains(want, resp.Status) {
		return
	}
	what := fmt.Sprintf("answered %d, want %v", resp.Status, want)
	// The requirement the status stands for: the step's, else the
	// operation's plain success.
	req := *e.blocker
	if req == "" {
		req = operationRequirement[resp.Operation]
	}
	wantsRefusal := slices.ContainsFunc(want, func(s int) bool { return s < 200 || s >= 300 })
	if !wantsRefusal && e.softly(req, resp, what+"; the check went on with the answer") {
		return
	}
	if !wantsRefusal {
		e.tokenRefused(resp, explain(resp, what))
	}
	e.fail(explain(resp, what))
}

// refusedAcceptedSig is the signature of a token refused and accepted
// right after, whichever operation or judge met it: one finding.
const refusedAcceptedSig = "a request refused with 401 a token the server accepts on the next request"

// tokenRefused blocks the check (see lacking) when resp is a 401 to a
// request that carried a described user's token: the refusal is the
// token place's requirement, whatever was asked. Otherwise it does
// nothing.
func (e *Env) tokenRefused(resp *client.Response, text string) {
	GinkgoHelper()
	if r := refusedPlace(resp); r != "" {
		if e.stillAccepted() {
			// The token works, so the refusal is the token place's breach,
			// not a token that expired (which leaves the check unjudged).
			e.noteSoft(r, refusedAcceptedSig,
				resp.Operation+": "+text+"\nthe same token in the same place was accepted by GET /v1/user right after")
		}
		e.lacking(r, text)
	}
}

// lastCall is who made a check's latest call, and with which token place.
type lastCall struct {
	u     int
	place client.TokenPlace
	own   bool // the user's own token
}

// stillAccepted reports whether the token of the check's latest call,
// which was refused, is accepted by GET /v1/user right after, in the same
// place.
func (e *Env) stillAccepted() bool {
	if e.last == nil || e.last.u < 0 || !e.last.own {
		return false
	}
	resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: "/v1/user", Token: e.Users[e.last.u].Token, Place: e.last.place})
	return err == nil && resp.Status/100 == 2
}

// refusedPlace names the requirement of the token's place when resp is a
// 401 to a request that carried a token: AUTH-QUERY-TOKEN for the query
// parameter, AUTH-BEARER for the header. Checks send only the described
// users' tokens where they want a success, and the preflight found them
// accepted.
func refusedPlace(resp *client.Response) string {
	x := resp.Exchange
	if resp.Status != 401 || x == nil {
		return ""
	}
	if u, err := url.Parse(x.URL); err == nil && u.Query().Has("access_token") {
		return "AUTH-QUERY-TOKEN"
	}
	if strings.HasPrefix(strings.ToLower(x.RequestHeader.Get("Authorization")), "bearer ") {
		return "AUTH-BEARER"
	}
	return ""
}

// expectSuccess checks for any 2xx: the document shows no status for it.
// An answer that is not one is lacking as in expectStatus.
func (e *Env) expectSuccess(resp *client.Response) {
	GinkgoHelper()
	if resp.Status >= 200 && resp.Status < 300 {
		return
	}
	text := explain(resp, fmt.Sprintf("answered %d, want a 2xx", resp.Status))
	e.tokenRefused(resp, text)
	e.fail(text)
}

// noData checks that a request that must not be served got neither data
// (a 2xx) nor a server failure (a 5xx); any 3xx or 4xx is a refusal.
func (e *Env) noData(resp *client.Response, what string) {
	GinkgoHelper()
	e.Expect(resp.Status).NotTo(BeNumerically("<", 300), "%s", explain(resp, "served "+what))
	e.Expect(resp.Status).To(BeNumerically("<", 500), "%s", explain(resp, "failed on "+what))
}

// expectOK checks a 200 that carries JSON, decoding it into v (when not nil).
func (e *Env) expectOK(resp *client.Response, v any) {
	GinkgoHelper()
	e.expectStatus(resp, 200)
	if v != nil {
		e.decode(resp, v)
	}
}

// decode reads resp's JSON body into v. A body the check cannot read
// lacks what it needs (see lacking): the requirement that owns the first
// breach of the document the answer shows answers for it, else the
// operation's own.
//
// A field of another type than the document's is left at its zero value
// and the check goes on, when the breach is another requirement's (its
// owner fails where it is judged; the check noted it on the way): only
// what the answer carries in the documented types is used.
func (e *Env) decode(resp *client.Response, v any) {
	GinkgoHelper()
	owner, ok := e.decodeTolerant(resp, v)
	if ok && (owner == "" || e.soft[owner]) {
		return
	}
	e.lacking(owner, explain(resp, "body: "+resp.JSON(v).Error()))
}

// decodeTolerant reads resp's JSON body into v, leaving a field of the
// wrong type at its zero value when that breach is owned by another
// requirement than the check's own. It reports the owner of the answer's
// first breach of the document (the operation's requirement when none is
// named), "" when the body decoded cleanly, and whether v is usable. It
// makes no assertion: writer goroutines use it too.
func (e *Env) decodeTolerant(resp *client.Response, v any) (string, bool) {
	raw := json.Unmarshal(resp.Body, v)
	if raw == nil {
		return "", true
	}
	owner := operationRequirement[resp.Operation]
	for _, x := range resp.Violations {
		if r := blame(resp.Operation, x); r != "" {
			owner = r
			break
		}
	}
	var te *json.UnmarshalTypeError
	return owner, errors.As(raw, &te) && te.Field != "" && owner != "" && !slices.Contains(e.ids, owner)
}

// eventually retries f for up to the configured lag of the target.
func (e *Env) eventually(f func(g Gomega)) {
	GinkgoHelper()
	if failure := e.eventuallyHolds(f); failure != "" {
		e.fail(failure)
	}
}

// eventuallyHolds is eventually reporting, rather than failing on, the
// assertion that still fails when the time is up: "" when f held.
func (e *Env) eventuallyHolds(f func(g Gomega)) string {
	GinkgoHelper()
	const every = 100 * time.Millisecond
	// As Gomega's Eventually polls, but on the times of the exchanges
	// (client.Client.Now): from when the first attempt's first request was
	// sent to the end of the latest answer. A replay of the checks, whose
	// times are the record's, then asks exactly as often as the run did
	// (see client.Config.Clock). floor counts the waits, for attempts that
	// send nothing.
	mark := e.Client.Exchanges()
	start := e.Client.Now()
	var deadline, floor time.Time
	for first := true; ; first = false {
		failure, at := attempt(f)
		if first {
			if sent, ok := e.Client.SentAfter(mark); ok {
				start = sent
			}
			deadline, floor = start.Add(e.Eventually), start
		}
		if failure == "" {
			return ""
		}
		now := e.Client.Now()
		if now.Before(floor) {
			now = floor
		}
		if deadline.Sub(now) <= every {
			return fmt.Sprintf("Timed out after %.3fs.\nThe function passed to Eventually failed at %s with:\n%s", now.Sub(start).Seconds(), at, failure)
		}
		if !e.pause(every) {
			e.fail("Context was cancelled: " + context.Cause(e.ctx).Error())
		}
		floor = now.Add(every)
	}
}

// now is the time it is for the run's client: the wall clock's, or in a
// replay of the checks the record's (client.Client.Now).
func (e *Env) now() time.Time { return e.Client.Now() }

// waitUntil waits until t on the client's clock, and reports false when
// the check ends first. A replay of the checks does not wait: the record
// holds what the run saw after its wait.
func (e *Env) waitUntil(t time.Time) bool {
	if e.Client.Replaying() {
		return e.ctx.Err() == nil
	}
	select {
	case <-time.After(time.Until(t)):
		return true
	case <-e.ctx.Done():
		return false
	}
}

// pause waits d (see waitUntil).
func (e *Env) pause(d time.Duration) bool { return e.waitUntil(time.Now().Add(d)) }

// attemptFailed carries the failure of one attempt of eventually.
type attemptFailed struct{ message, at string }

// attempt runs f once with a Gomega of its own: the failure it asserts
// (and where), or "" when it held. A failure through the global Fail
// (the check's own) goes on unwinding, as under Gomega's Eventually.
func attempt(f func(g Gomega)) (failure, at string) {
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(attemptFailed)
			if !ok {
				panic(r)
			}
			failure, at = a.message, a.at
		}
	}()
	g := NewGomega(func(message string, callerSkip ...int) {
		skip := 0
		if len(callerSkip) > 0 {
			skip = callerSkip[0]
		}
		_, file, line, _ := runtime.Caller(skip + 1)
		panic(attemptFailed{message: message, at: fmt.Sprintf("%s:%d", file, line)})
	})
	f(g)
	return "", ""
}

// glance reads path as user u for a check that looks at one more place
// its requirements show in (rooms embedded in other lists, say), without
// judging the answer on anything else: violations of the check's own
// requirements fail it; any other fault of the answer (a refusal, a body
// that does not decode, violations of other requirements) is left to the
// checks of those requirements, and glance reports false.
func (e *Env) glance(u int, path string, query url.Values, v any) bool {
	GinkgoHelper()
	resp, err := e.sendOrTake(client.Request{Method: "GET", Path: path, Query: query, Token: e.Users[u].Token})
	if err != nil {
		e.transportFailure(err)
	}
	e.failOn(resp, slices.DeleteFunc(slices.Clone(resp.Violations), func(v spec.Violation) bool {
		return !slices.Contains(e.ids, blame(resp.Operation, v))
	}))
	if resp.Status != 200 || resp.JSON(v) != nil {
		e.by(fmt.Sprintf("%s answered %d; it is left to its own checks", path, resp.Status))
		return false
	}
	return true
}

// early holds the answers to reads a check sent together ahead of the
// calls that judge them (see readTogether), by request.
type early struct {
	mu sync.Mutex
	m  map[string]earlyAnswer
}

type earlyAnswer struct {
	resp *client.Response
	err  error
}

func earlyKey(r client.Request) string {
	return r.Method + " " + r.Path + "?" + r.Query.Encode() + " " + r.Token
}

// sendOrTake sends req, or takes its answer from the reads sent together ahead of
// it (readTogether), each answer once.
func (e *Env) sendOrTake(req client.Request) (*client.Response, error) {
	if e.early != nil {
		e.early.mu.Lock()
		a, ok := e.early.m[earlyKey(req)]
		delete(e.early.m, earlyKey(req))
		e.early.mu.Unlock()
		if ok {
			return a.resp, a.err
		}
	}
	return e.Client.Do(e.ctx, req)
}

// readTogether sends reads (GETs, as user u) at once, then runs f, whose
// calls that make the same requests are answered from them and judged as
// usual; what f did not take is dropped when it ends. Reads that must be
// taken close together in time, on a far server, cost one round trip
// instead of one each.
func (e *Env) readTogether(u int, reads []client.Request, f func()) {
	GinkgoHelper()
	answers := make([]earlyAnswer, len(reads))
	var wg sync.WaitGroup
	for i := range reads {
		if reads[i].Method != "GET" {
			panic("conformance: readTogether sends reads only")
		}
		reads[i].Token = e.Users[u].Token
		wg.Go(func() {
			answers[i].resp, answers[i].err = e.Client.Do(e.ctx, reads[i])
		})
	}
	wg.Wait()
	prev := e.early
	e.early = &early{m: map[string]earlyAnswer{}}
	for i, r := range reads {
		e.early.m[earlyKey(r)] = answers[i]
	}
	defer func() { e.early = prev }()
	f()
}
