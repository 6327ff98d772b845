package conformance

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
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

// me returns user u's id.
func (e *Env) me(u int) string { return e.Users[u].ID }

func (e *Env) needUsers(n int) {
	GinkgoHelper()
	if len(e.Users) < n {
		Skip(fmt.Sprintf("needs %d users in the target description, it has %d", n, len(e.Users)))
	}
}

func (e *Env) writeRoom() string {
	GinkgoHelper()
	if e.Target.WriteRoom == "" {
		Skip("no write_room in the target description and none could be discovered (a group room shared by users 1 and 2)")
	}
	return e.Target.WriteRoom
}

func (e *Env) reference() bool { return e.Profile == spec.Reference }

func messagesPath(room string) string { return "/v1/rooms/" + room + "/chatMessages" }

// text returns generated prose carrying a fresh run marker, and the marker.
// The prose depends only on the seed, the spec and the call's sequence
// number, so a run with the same seed writes the same words.
func (e *Env) text() (string, string) {
	GinkgoHelper()
	m, n := e.nextMarker()
	return e.Faker(fmt.Sprintf("%s#%d", CurrentSpecReport().FullText(), n)).Sentence() + " " + m, m
}

// word returns 16 lower-case letters, fresh for each call and unrelated
// to the run marker other texts carry: however a server splits words, no
// other message holds it.
func (e *Env) word() string {
	return strings.ToLower(e.Faker(CurrentSpecReport().FullText() + e.Marker()).LetterN(16))
}

func (e *Env) send(u int, room, text string) Message {
	GinkgoHelper()
	return e.sendBody(u, room, map[string]any{"text": text})
}

func (e *Env) sendBody(u int, room string, body map[string]any) Message {
	GinkgoHelper()
	var m Message
	e.step("MSG-SEND-200", func() {
		e.expectOK(e.call(u, client.Request{Method: "POST", Path: messagesPath(room), Body: body}), &m)
	})
	return m
}

func (e *Env) edit(u int, room, id, text string) Message {
	GinkgoHelper()
	var m Message
	e.step("MSG-EDIT", func() {
		e.expectOK(e.call(u, client.Request{Method: "PUT", Path: messagesPath(room) + "/" + id, Body: map[string]string{"text": text}}), &m)
	})
	return m
}

func (e *Env) getMessage(u int, room, id string) Message {
	GinkgoHelper()
	var m Message
	e.step("MSG-GET-ONE", func() {
		e.expectOK(e.call(u, client.Request{Method: "GET", Path: messagesPath(room) + "/" + id}), &m)
	})
	return m
}

func (e *Env) list(u int, room string, q url.Values) []Message {
	GinkgoHelper()
	var ms []Message
	e.step(listRequirementOf(q), func() {
		e.expectOK(e.call(u, client.Request{Method: "GET", Path: messagesPath(room), Query: q}), &ms)
	})
	return ms
}

func (e *Env) rooms(u int, which string) []Room {
	GinkgoHelper()
	var rs []Room
	e.step(listRequirement[which], func() {
		e.expectOK(e.call(u, client.Request{Method: "GET", Path: "/v1/user/" + e.me(u) + "/" + which}), &rs)
	})
	return rs
}

// listRequirement names the requirement each of a user's lists exercises.
var listRequirement = map[string]string{"rooms": "ROOM-LIST", "channels": "CHANNEL-LIST", "orgs": "ORG-LIST", "repos": "REPO-LIST"}

func (e *Env) unread(u int, room string) Unread {
	GinkgoHelper()
	var un Unread
	e.step("UNREAD-SHAPE", func() {
		e.expectOK(e.call(u, client.Request{Method: "GET", Path: unreadPath(e.me(u), room)}), &un)
	})
	return un
}

func unreadPath(user, room string) string {
	return "/v1/user/" + user + "/rooms/" + room + "/unreadItems"
}

// observe reads path as user u to look for a side effect (or its absence)
// from a user the check does not need. Nothing promises that such a user
// is a member of the room, so any refusal is a legal answer: the
// observation is then skipped, and the check's text says so.
func (e *Env) observe(u int, what, path string, v any) bool {
	GinkgoHelper()
	if e.glance(u, path, nil, v) {
		return true
	}
	By(fmt.Sprintf("user %d cannot read %s: that observation is skipped", u+1, what))
	return false
}

func (e *Env) markRead(u int, room string, ids ...string) {
	GinkgoHelper()
	e.step("UNREAD-MARK-READ", func() {
		resp := e.call(u, client.Request{Method: "POST", Path: unreadPath(e.me(u), room), Body: map[string]any{"chat": ids}})
		expectSuccess(resp)
	})
}

// seed sends n messages as user u and returns them in the order sent.
func (e *Env) seed(u int, room string, n int) []Message {
	GinkgoHelper()
	By(fmt.Sprintf("sending %d messages of our own", n))
	out := make([]Message, n)
	for i := range out {
		t, _ := e.text()
		out[i] = e.send(u, room, t)
	}
	return out
}

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func idsOf(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func idSet(ms []Message) map[string]bool {
	s := map[string]bool{}
	for _, m := range ms {
		s[m.ID] = true
	}
	return s
}

func parseTime(s string) time.Time {
	GinkgoHelper()
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s)) // RFC 3339 lets t and z be lower case
	Expect(err).NotTo(HaveOccurred(), "timestamp %q", s)
	return t
}

// oldest returns the message the document's recipe calls the oldest: the
// earliest sent, ties broken by the smaller id.
func oldest(ms []Message) Message {
	sorted := append([]Message(nil), ms...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ti, tj := sorted[i].Sent, sorted[j].Sent
		if a, b := parseSent(ti), parseSent(tj); !a.Equal(b) {
			return a.Before(b)
		}
		return sorted[i].ID < sorted[j].ID
	})
	return sorted[0]
}

func parseSent(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	return t
}

// eventually retries f for up to the configured lag of the target.
func (e *Env) eventually(f func(g Gomega)) {
	GinkgoHelper()
	Eventually(f).WithTimeout(e.Eventually).WithPolling(100 * time.Millisecond).Should(Succeed())
}

// isTrue reads an optional boolean: absent counts as false.
func isTrue(b *bool) bool { return b != nil && *b }

// noteSent records a message user u sent, which it leaves unread for the
// other of users 1 and 2 (the two the write room is shared by).
func (e *Env) noteSent(u int, room, id string) {
	if id == "" || len(e.Users) < 2 || u > 1 {
		return
	}
	reader := 1 - u
	e.left.mu.Lock()
	defer e.left.mu.Unlock()
	if e.left.ids[reader] == nil {
		e.left.ids[reader] = map[string][]string{}
	}
	e.left.ids[reader][room] = append(e.left.ids[reader][room], id)
}

// markLeftRead marks what the check's sends left unread read for its
// reader, when the check ends. It judges nothing: a target that refuses is
// judged by the unread checks.
func (e *Env) markLeftRead(ctx SpecContext) {
	e.left.mu.Lock()
	defer e.left.mu.Unlock()
	for reader, rooms := range e.left.ids {
		for room, ids := range rooms {
			for len(ids) > 0 { // in batches, so no request body grows large
				n := min(len(ids), 200)
				_, _ = e.Client.Do(ctx, client.Request{Method: "POST", Path: unreadPath(e.me(reader), room),
					Token: e.Users[reader].Token, Body: map[string]any{"chat": ids[:n]}})
				ids = ids[n:]
			}
		}
	}
}

// searchIDs searches room for query as user 1 inside an eventually block
// and returns the ids found.
func (e *Env) searchIDs(g Gomega, room, query string) []string {
	GinkgoHelper()
	var ms []Message
	resp := e.call(0, requestList(room, q("q", query, "limit", "10")))
	g.Expect(resp.Status).To(Equal(200), "%s", explain(resp, "status"))
	g.Expect(resp.JSON(&ms)).To(Succeed(), "%s", explain(resp, "body"))
	return idsOf(ms)
}

// roomsElsewhere returns the rooms user u's channels list holds and those
// embedded in the user's organisation and repository entries, by list. The
// lists are glanced at (see glance): one that cannot be read is left out.
func (e *Env) roomsElsewhere(u int) map[string][]Room {
	GinkgoHelper()
	out := map[string][]Room{}
	var channels []Room
	if e.glance(u, "/v1/user/"+e.me(u)+"/channels", nil, &channels) {
		out["channels list"] = channels
	}
	var orgs []Organisation
	if e.glance(u, "/v1/user/"+e.me(u)+"/orgs", nil, &orgs) {
		for _, o := range orgs {
			if o.Room != nil {
				out["organisations list"] = append(out["organisations list"], *o.Room)
			}
		}
	}
	var repos []Repository
	if e.glance(u, "/v1/user/"+e.me(u)+"/repos", nil, &repos) {
		for _, p := range repos {
			if p.Room != nil {
				out["repositories list"] = append(out["repositories list"], *p.Room)
			}
		}
	}
	return out
}

// deepMessage returns a message older than the newest 100 of the room with
// the longest history the description names (the org room, else the
// write room), found by reading only, and that room; ok is false when the
// room holds no such message.
func (e *Env) deepMessage() (m Message, room string, ok bool) {
	GinkgoHelper()
	room = e.Target.Rooms.Org
	if room == "" || room == e.Target.HideRoom {
		room = e.writeRoom()
	}
	newest := e.list(0, room, q("limit", "100"))
	var deeper []Message
	if len(newest) == 100 {
		deeper = e.list(0, room, q("beforeId", oldest(newest).ID, "limit", "1"))
	}
	if len(deeper) != 1 {
		By(fmt.Sprintf("room %s holds no message older than its newest 100: nothing deep to read", room))
		return Message{}, room, false
	}
	return deeper[0], room, true
}

// otherRooms returns the rooms of user 1 the description names (or
// discovery found), other than the write room and hide_room.
func (e *Env) otherRooms() []string {
	var out []string
	for _, id := range []string{e.Target.Rooms.Org, e.Target.Rooms.Repo, e.Target.Rooms.Channel, e.Target.Rooms.OneToOne} {
		if id != "" && id != e.Target.WriteRoom && id != e.Target.HideRoom && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// listRequirementOf names what a list request exercises: the cursor or
// query it carries, or plain listing.
func listRequirementOf(q url.Values) string {
	for _, p := range []struct{ param, req string }{
		{"aroundId", "PAGE-AROUNDID"}, {"beforeId", "PAGE-BEFOREID"}, {"afterId", "PAGE-AFTERID"}, {"q", "SEARCH-Q"}, {"skip", "PAGE-SKIP"},
	} {
		if q.Has(p.param) {
			return p.req
		}
	}
	return "MSG-LIST"
}

// peek reads a message as user u inside an eventually block: a 404 or a
// stale answer is retried there, since how soon another user sees a write
// is not stated. Violations of the document still fail at once.
func (e *Env) peek(g Gomega, u int, room, id string) Message {
	GinkgoHelper()
	resp := e.call(u, client.Request{Method: "GET", Path: messagesPath(room) + "/" + id})
	var m Message
	g.Expect(resp.Status).To(Equal(200), "user %d reads message %s: %s", u+1, id, explain(resp, "status"))
	g.Expect(resp.JSON(&m)).To(Succeed(), "%s", explain(resp, "body"))
	return m
}

// seen waits until user u can read message id and returns it.
func (e *Env) seen(u int, room, id string) Message {
	GinkgoHelper()
	var m Message
	e.step("MSG-GET-ONE", func() {
		e.eventually(func(g Gomega) { m = e.peek(g, u, room, id) })
	})
	return m
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

// listedAs returns message id as user u finds it in a list of room: in
// the window aroundId gives (other traffic cannot push it out of that), or
// else among the 100 messages before newer, a message sent after it. Found
// only in the second, the first is a soft failure of PAGE-AROUNDID (a
// window that leaves out its anchor), not a message missing from the room.
func (e *Env) listedAs(u int, room, id, newer string) Message {
	GinkgoHelper()
	for _, m := range e.list(u, room, q("aroundId", id, "limit", "10")) {
		if m.ID == id {
			return m
		}
	}
	for _, m := range e.list(u, room, q("beforeId", newer, "limit", "100")) {
		if m.ID == id {
			e.noteSoft("PAGE-AROUNDID", fmt.Sprintf("GET %s?aroundId=%s&limit=10 as user %d left out its anchor, which the page before a newer message holds", messagesPath(room), id, u+1))
			return m
		}
	}
	Fail(fmt.Sprintf("message %s is listed neither in the window around it (aroundId) nor among the 100 messages before %s, sent after it", id, newer))
	return Message{}
}
