package conformance

// The API's operations as the steps checks take, each under the requirement
// its plain success stands for.

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

func messagesPath(room string) string { return "/v1/rooms/" + room + "/chatMessages" }

func (e *Env) send(u int, room, text string) Message {
	GinkgoHelper()
	return e.sendBody(u, room, map[string]any{"text": text})
}

func (e *Env) sendBody(u int, room string, body map[string]any) Message {
	GinkgoHelper()
	var m Message
	e.step("MSG-SEND-200", func() {
		resp, found, made := e.sent(u, client.Request{Method: "POST", Path: messagesPath(room), Body: body})
		if made {
			m = found
			return
		}
		e.expectOK(resp, &m)
	})
	if text, ok := body["text"].(string); ok && m.Text != "" && m.Text != text { // an absent text is the shape's to judge
		e.groundBroken("MSG-SEND-TEXT", "sendChatMessage answers another text than the one sent",
			fmt.Sprintf("a send of %q answered the text %q", text, m.Text))
	}
	if id := e.Users[u].ID; m.FromUser.ID != "" && id != "" && m.FromUser.ID != id {
		// The message names another sender: what the check builds on it
		// (another user's unread message, say) is no ground.
		e.groundBroken("MSG-SEND-TEXT", "sendChatMessage answers another sender than the caller",
			fmt.Sprintf("a send by user %d (%s) answered fromUser %s", u+1, id, m.FromUser.ID))
	}
	return m
}

// groundBroken records that an answer a check goes on with broke req, a
// statement every such answer must keep (the text an edit or a send
// answers): a check of req's own judges it itself; for any other it is a
// finding of req, and should the check fail later, req blocks it, since
// what it built on that answer is no ground for its own verdict.
func (e *Env) groundBroken(req, sig, text string) {
	if slices.Contains(e.ids, req) {
		return
	}
	e.noteSoft(req, sig, text)
	e.suspectFrom(req)
}

func (e *Env) edit(u int, room, id, text string) Message {
	GinkgoHelper()
	var m Message
	e.step("MSG-EDIT", func() {
		resp, found, made := e.written(u, client.Request{Method: "PUT", Path: messagesPath(room) + "/" + id, Body: map[string]string{"text": text}},
			editAnswerStatements, func() (Message, bool) { return e.findEdited(u, room, id, text) })
		if made {
			m = found
			return
		}
		e.expectOK(resp, &m)
	})
	switch {
	case m.ID != "" && m.ID != id:
		e.groundBroken("MSG-EDIT", "updateChatMessage answers another message than the one edited",
			fmt.Sprintf("an edit of %s answered message %s", id, m.ID))
	case m.Text != "" && m.Text != text: // an absent text is the shape's to judge
		e.groundBroken("MSG-EDIT", "updateChatMessage answers another text than the new one",
			fmt.Sprintf("an edit of %s to %q answered the text %q", id, text, m.Text))
	}
	return m
}

func (e *Env) getMessage(u int, room, id string) Message {
	GinkgoHelper()
	var m Message
	e.step("MSG-GET-ONE", func() {
		req := client.Request{Method: "GET", Path: messagesPath(room) + "/" + id}
		resp := e.call(u, req)
		if resp.Status == http.StatusNotFound {
			// Read again before the message is taken for missing: a read
			// that misses a message the next one finds is MSG-GET-ONE's
			// breach, and the check goes on with the message.
			for range 2 {
				if again := e.call(u, req); again.Status/100 == 2 {
					e.flaky("MSG-GET-ONE", "getChatMessage answers 404 for a message the next read finds",
						explain(resp, "answered 404 for a message that a read right after found"))
					resp = again
					break
				}
			}
		}
		e.expectOK(resp, &m)
	})
	return m
}

// flaky records that an answer broke req where a read right after kept
// it (one wrong answer in a few): req's verdict, given once the rest is
// judged, when the check verifies req; otherwise a finding of req. The
// check goes on with the answer that kept it.
func (e *Env) flaky(req, sig, text string) {
	if slices.Contains(e.ids, req) {
		e.holdsLater(req, false, "%s", text)
		return
	}
	e.noteSoft(req, sig, text)
}

func (e *Env) list(u int, room string, q url.Values) []Message {
	GinkgoHelper()
	return e.listAs(listRequirementOf(q), u, room, q)
}

// listAs reads a page as user u as a step of requirement req: a refusal or
// an unusable answer is req's (the check's own verdict when req is one of
// its requirements, else what blocks it).
func (e *Env) listAs(req string, u int, room string, q url.Values) []Message {
	GinkgoHelper()
	var ms []Message
	e.step(req, func() { e.expectOK(e.call(u, requestList(room, q)), &ms) })
	e.pageKept(q, len(ms))
	return ms
}

// pageKept holds a page a check goes on with to the length its request
// allows: at most limit (1 to 100), and never over 100 (PAGE-LIMIT, LIMIT-CAP).
// A longer page is that requirement's breach wherever it is met: a check
// of its own judges it itself; for any other it is a finding of that
// requirement, and the check goes on, blocked by it should it fail, since
// what it read in a page too long is no ground for its own verdict.
func (e *Env) pageKept(q url.Values, n int) {
	req, bound := "LIMIT-CAP", 100
	if l, err := strconv.Atoi(q.Get("limit")); err == nil && l >= 1 && l <= 100 {
		req, bound = "PAGE-LIMIT", l
	}
	if n <= bound {
		return
	}
	e.groundBroken(req, "listMessages answers a page longer than "+map[string]string{"PAGE-LIMIT": "limit", "LIMIT-CAP": "100"}[req],
		fmt.Sprintf("a page asked for with %s holds %d messages, more than %d", q.Encode(), n, bound))
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
	e.by(fmt.Sprintf("user %d cannot read %s: that observation is skipped", u+1, what))
	return false
}

func (e *Env) markRead(u int, room string, ids ...string) {
	GinkgoHelper()
	e.step("UNREAD-MARK-READ", func() {
		resp := e.call(u, client.Request{Method: "POST", Path: unreadPath(e.me(u), room), Body: map[string]any{"chat": ids}})
		e.expectSuccess(resp)
	})
}

// seed sends n messages as user u and returns them in the order sent.
func (e *Env) seed(u int, room string, n int) []Message {
	GinkgoHelper()
	e.by(fmt.Sprintf("sending %d messages of our own", n))
	out := make([]Message, n)
	for i := range out {
		t, _ := e.text()
		out[i] = e.send(u, room, t)
	}
	return out
}

// searchIDs searches room for query as user 1 inside an eventually block
// and returns the ids found.
func (e *Env) searchIDs(g Gomega, room, query string) []string {
	GinkgoHelper()
	return idsOf(e.pageIn(g, 0, room, q("q", query, "limit", "10")))
}

// pageIn lists room as user u with query (nil: no parameter at all) inside
// an eventually block: a status other than 200 is retried there.
func (e *Env) pageIn(g Gomega, u int, room string, query url.Values) []Message {
	GinkgoHelper()
	var ms []Message
	resp := e.call(u, requestList(room, query))
	e.tokenRefused(resp, explain(resp, "status"))
	g.Expect(resp.Status).To(Equal(200), "%s", explain(resp, "status"))
	e.decode(resp, &ms)
	return ms
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
		e.by(fmt.Sprintf("room %s holds no message older than its newest 100: nothing deep to read", room))
		return Message{}, room, false
	}
	return deeper[0], room, true
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
	e.tokenRefused(resp, explain(resp, "status"))
	g.Expect(resp.Status).To(Equal(200), "user %d reads message %s: %s", u+1, id, explain(resp, "status"))
	e.decode(resp, &m)
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
			e.noteSoft("PAGE-AROUNDID", "listMessages aroundId leaves out its anchor", fmt.Sprintf("GET %s?aroundId=%s&limit=10 as user %d left out its anchor, which the page before a newer message holds", messagesPath(room), id, u+1))
			return m
		}
	}
	e.fail(fmt.Sprintf("message %s is listed neither in the window around it (aroundId) nor among the 100 messages before %s, sent after it", id, newer))
	return Message{}
}

// The requirements whose statements are about the answer to a send or an
// edit itself: a check of one of them judges that answer, and never goes
// on with what a read shows instead (see madeDespite).
var (
	sendAnswerStatements = []string{"MSG-SEND-200", "MSG-SEND-DEFAULTS", "MSG-SEND-EDITEDAT-NULL", "MSG-SEND-TEXT", "MSG-SEND-STATUS"}
	editAnswerStatements = []string{"MSG-EDIT", "MSG-EDIT-EDITEDAT", "MSG-EDIT-V-INC"}
)

// written sends req, a valid write, as user u and judges its answer on
// every violation (call's judgement, without a read sent again, which is
// for reads only), unless the answer is one the check cannot use and the
// write was made all the same (see madeDespite, with about and read): then
// it returns what read found, and made.
func (e *Env) written(u int, req client.Request, about []string, read func() (Message, bool)) (resp *client.Response, m Message, made bool) {
	GinkgoHelper()
	resp = e.callKeeping(u, req, keepNone)
	if m, made = e.madeDespite(resp, about, read); made {
		return resp, m, true
	}
	e.failOn(resp, resp.Violations)
	return resp, Message{}, false
}

// sent is written for a send of a text: what it finds is the message as
// the room lists it.
func (e *Env) sent(u int, req client.Request) (resp *client.Response, m Message, made bool) {
	GinkgoHelper()
	room, text := strings.TrimSuffix(strings.TrimPrefix(req.Path, "/v1/rooms/"), "/chatMessages"), textOf(req.Body)
	resp, m, made = e.written(u, req, sendAnswerStatements, func() (Message, bool) { return e.findSent(u, room, text) })
	if made {
		e.noteMade(u, room, m.ID, text)
	}
	return resp, m, made
}

// keepNone keeps no violation: the caller judges the answer itself.
func keepNone(spec.Violation) bool { return false }

// madeDespite lets a check go on past a write whose answer it cannot use,
// when the target took the write all the same. The answer is a success of
// another shape, or a server failure, and what it breaks is another
// requirement's than the check's own; the check judges nothing of the
// write's answer itself (about names the requirements that do). Then the
// check reads back what the write made (read): when it is there, the answer
// is a finding of the requirement it breaks, and the check goes on with
// what was read, so that one answer of the wrong shape does not leave every
// check that writes unjudged. Otherwise it reports false, and the answer
// blocks the check as before.
func (e *Env) madeDespite(resp *client.Response, about []string, read func() (Message, bool)) (Message, bool) {
	if resp.Status/100 != 2 && resp.Status < 500 {
		return Message{}, false
	}
	owner, sig := unusable(resp, resp.Violations)
	own := func(r string) bool { return slices.Contains(e.ids, r) }
	if owner == "" || slices.ContainsFunc(about, own) || slices.ContainsFunc(breaches(resp, resp.Violations), own) ||
		(resp.Status >= 500 && own("GEN-NO-5XX")) {
		return Message{}, false
	}
	m, ok := read()
	if !ok {
		return Message{}, false
	}
	e.noteSoft(owner, sig, explain(resp, "gave an answer the check could not use, though the write was made: the check read it back and went on with what it read"))
	return m, true
}

// findSent finds the message user u just sent with text in the newest
// page of room, waiting out the target's lag: found when exactly one
// message of the page carries that text from u, and is not one the check
// sent before (the checks' texts carry a fresh marker).
func (e *Env) findSent(u int, room, text string) (Message, bool) {
	if text == "" {
		return Message{}, false
	}
	known := map[string]bool{} // the check's messages: a text sent twice is not found twice
	if e.wrote != nil {
		e.wrote.mu.Lock()
		for _, w := range e.wrote.list {
			known[w.id] = true
		}
		e.wrote.mu.Unlock()
	}
	var found Message
	failure := e.eventuallyHolds(func(g Gomega) {
		resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: messagesPath(room), Query: url.Values{"limit": {"100"}}, Token: e.Users[u].Token})
		g.Expect(err).NotTo(HaveOccurred())
		var page []Message
		g.Expect(resp.Status).To(Equal(http.StatusOK))
		g.Expect(resp.JSON(&page)).To(Succeed())
		var ms []Message
		for _, m := range page {
			if m.Text == text && m.ID != "" && !known[m.ID] && (e.Users[u].ID == "" || m.FromUser.ID == e.Users[u].ID) {
				ms = append(ms, m)
			}
		}
		g.Expect(ms).To(HaveLen(1))
		found = ms[0]
	})
	return found, failure == ""
}

// findEdited reads message id of room back as user u, waiting out the
// target's lag, and finds it when it shows the text of the edit.
func (e *Env) findEdited(u int, room, id, text string) (Message, bool) {
	var found Message
	failure := e.eventuallyHolds(func(g Gomega) {
		resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: messagesPath(room) + "/" + id, Token: e.Users[u].Token})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(resp.Status).To(Equal(http.StatusOK))
		g.Expect(resp.JSON(&found)).To(Succeed())
		g.Expect(found.ID).To(Equal(id))
		g.Expect(found.Text).To(Equal(text))
	})
	return found, failure == ""
}
