package conformance

// Sending a request and judging the answer: the document, the status, the
// failure message that shows the exchange.

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
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
	if req.Place != client.NoToken && req.Token == "" {
		req.Token = e.Users[u].Token
	}
	resp, err := e.Client.Do(e.ctx, req)
	if err != nil {
		transportFailure(err)
	}
	if req.Method == "POST" && strings.HasSuffix(req.Path, "/chatMessages") && resp.Status == 200 {
		var sent struct {
			ID string `json:"id"`
		}
		if resp.JSON(&sent) == nil {
			e.noteSent(u, strings.TrimSuffix(strings.TrimPrefix(req.Path, "/v1/rooms/"), "/chatMessages"), sent.ID)
		}
	}
	violations := resp.Violations
	if req.Invalid && e.Profile == spec.Core {
		// Error statuses are not shown at core: a request the check expects
		// to be refused may get any status, a redirect included.
		violations = slices.DeleteFunc(slices.Clone(violations), func(v spec.Violation) bool { return v.Rule == "status" })
	}
	e.failOn(resp, violations)
	return resp
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
	Fail(explain(&shown, "breaks the OpenAPI document of the "+string(e.Profile)+" profile:"))
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
	if !slices.ContainsFunc(want, func(s int) bool { return s < 200 || s >= 300 }) && e.softly(req, resp, what+"; the check went on with the answer") {
		return
	}
	Fail(explain(resp, what))
}

// expectSuccess checks for any 2xx: the document shows no status for it.
func expectSuccess(resp *client.Response) {
	GinkgoHelper()
	Expect(resp.Status).To(And(BeNumerically(">=", 200), BeNumerically("<", 300)), "%s", explain(resp, fmt.Sprintf("answered %d, want a 2xx", resp.Status)))
}

// noData checks that a request that must not be served got neither data
// (a 2xx) nor a server failure (a 5xx); any 3xx or 4xx is a refusal.
func noData(resp *client.Response, what string) {
	GinkgoHelper()
	Expect(resp.Status).NotTo(BeNumerically("<", 300), "%s", explain(resp, "served "+what))
	Expect(resp.Status).To(BeNumerically("<", 500), "%s", explain(resp, "failed on "+what))
}

// expectOK checks a 200 that carries JSON, decoding it into v (when not nil).
func (e *Env) expectOK(resp *client.Response, v any) {
	GinkgoHelper()
	e.expectStatus(resp, 200)
	if v != nil {
		Expect(resp.JSON(v)).To(Succeed(), "%s", explain(resp, "body"))
	}
}

// eventually retries f for up to the configured lag of the target.
func (e *Env) eventually(f func(g Gomega)) {
	GinkgoHelper()
	Eventually(f).WithTimeout(e.Eventually).WithPolling(100 * time.Millisecond).Should(Succeed())
}

// glance reads path as user u for a check that looks at one more place
// its requirements show in (rooms embedded in other lists, say), without
// judging the answer on anything else: violations of the check's own
// requirements fail it; any other fault of the answer (a refusal, a body
// that does not decode, violations of other requirements) is left to the
// checks of those requirements, and glance reports false.
func (e *Env) glance(u int, path string, query url.Values, v any) bool {
	GinkgoHelper()
	resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: path, Query: query, Token: e.Users[u].Token})
	if err != nil {
		transportFailure(err)
	}
	e.failOn(resp, slices.DeleteFunc(slices.Clone(resp.Violations), func(v spec.Violation) bool {
		return !slices.Contains(e.ids, blame(resp.Operation, v))
	}))
	if resp.Status != 200 || resp.JSON(v) != nil {
		By(fmt.Sprintf("%s answered %d; it is left to its own checks", path, resp.Status))
		return false
	}
	return true
}
