package conformance

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/client"
)

var objectID = regexp.MustCompile(`^[0-9a-f]{24}$`)

// window seeds n messages and returns a listing of the n+few messages before
// a fresh anchor (ascending, per REF-ORDER) with the seeded ones' position.
func (e *Env) window(room string, n int) (ground []Message, anchor string) {
	GinkgoHelper()
	e.seed(0, room, n)
	anchor = e.send(0, room, "anchor "+e.Marker()).ID
	ground = e.list(0, room, q("beforeId", anchor, "limit", strconv.Itoa(n)))
	e.Expect(ground).To(HaveLen(n))
	return ground, anchor
}

func (e *Env) errorBody(resp *client.Response, status int) {
	GinkgoHelper()
	e.Expect(resp.Status).To(Equal(status), "%s", explain(resp, fmt.Sprintf("answered %d, want %d", resp.Status, status)))
	var body map[string]any
	e.Expect(resp.JSON(&body)).To(Succeed())
	e.Expect(body).To(Equal(map[string]any{"error": http.StatusText(status)}), "%s", explain(resp, "error body"))
}

func referenceSpecs(d decl) {
	Describe("Reference decisions: order and cursors", func() {
		d.it("lists ascending, and without cursors ends at the newest message", reqs("REF-ORDER"), func(e *Env) {
			room := e.writeRoom()
			ground, _ := e.window(room, 15)
			for i := 1; i < len(ground); i++ {
				e.Expect(ground[i].ID > ground[i-1].ID).To(BeTrue(), "position %d is not after %d", i, i-1)
			}
			// Beside other checks, five of their messages could come
			// between the send and the list: no other write meanwhile.
			var last Message
			var latest []Message
			e.quietly(func() {
				last = e.send(0, room, "newest "+e.Marker())
				latest = e.list(0, room, q("limit", "5"))
			})
			e.Expect(idsOf(latest)).To(ContainElement(last.ID), "the newest message is missing from a list without cursors")
		})

		d.it("counts skip back from the newest and refuses skip above 5000 or below 0", reqs("REF-SKIP"), func(e *Env) {
			room := e.writeRoom()
			ground, anchor := e.window(room, 10)
			skipped := e.list(0, room, q("beforeId", anchor, "limit", "5", "skip", "3"))
			e.Expect(idsOf(skipped)).To(Equal(idsOf(ground[2:7])))
			for _, bad := range []string{"5001", "-1", "ten"} {
				e.errorBody(e.call(0, client.Request{Method: "GET", Path: messagesPath(room), Query: q("skip", bad), Invalid: true}), 400)
			}
		})

		d.it("gives the limit messages right after afterId, and a window for afterId with beforeId", reqs("REF-CURSORS"), func(e *Env) {
			room := e.writeRoom()
			ground, _ := e.window(room, 12)
			after := e.list(0, room, q("afterId", ground[2].ID, "limit", "3"))
			e.Expect(idsOf(after)).To(Equal(idsOf(ground[3:6])))
			between := e.list(0, room, q("afterId", ground[2].ID, "beforeId", ground[7].ID, "limit", "50"))
			e.Expect(idsOf(between)).To(Equal(idsOf(ground[3:7])))
		})

		d.it("gives limit/2 messages up to the anchor and limit/2 after it for aroundId", reqs("REF-AROUNDID"), func(e *Env) {
			room := e.writeRoom()
			ground, _ := e.window(room, 12)
			around := e.list(0, room, q("aroundId", ground[6].ID, "limit", "6"))
			e.Expect(idsOf(around)).To(Equal(idsOf(ground[4:10])))
		})

		d.it("searches case-insensitively for every term, newest matches first, returned ascending", reqs("REF-SEARCH"), func(e *Env) {
			room := e.writeRoom()
			word := "zebra" + e.Marker()
			a := e.send(0, room, strings.ToUpper(word)+" alpha one")
			e.send(0, room, word+" no second term")
			b := e.send(0, room, "alpha and "+word+" two")
			e.eventually(func(g Gomega) {
				var ms []Message
				g.Expect(e.call(0, requestList(room, q("q", word+" ALPHA"))).JSON(&ms)).To(Succeed())
				g.Expect(idsOf(ms)).To(Equal([]string{a.ID, b.ID}))
				g.Expect(e.call(0, requestList(room, q("q", word+" alpha", "limit", "1"))).JSON(&ms)).To(Succeed())
				g.Expect(idsOf(ms)).To(Equal([]string{b.ID}))
			})
		})

		d.it("defaults limit to 50, treats 0 as 50, clamps above 100 and refuses negative or non-integer limits", reqs("REF-LIMIT"), func(e *Env) {
			room := e.writeRoom()
			e.seed(0, room, 101)
			e.Expect(e.list(0, room, nil)).To(HaveLen(50))
			e.Expect(e.list(0, room, q("limit", "0"))).To(HaveLen(50))
			var clamped []Message
			e.expectOK(e.call(0, requestList(room, q("limit", "150"))), &clamped)
			e.Expect(clamped).To(HaveLen(100))
			for _, bad := range []string{"-1", "1.5", "many"} {
				e.errorBody(e.call(0, client.Request{Method: "GET", Path: messagesPath(room), Query: q("limit", bad), Invalid: true}), 400)
			}
		})
	})

	Describe("Reference decisions: errors and access", func() {
		d.it("answers errors with {\"error\": reason phrase}", reqs("REF-ERROR-BODY"), func(e *Env) {
			e.errorBody(e.call(0, client.Request{Method: "GET", Path: messagesPath(strings.Repeat("a", 24)), Invalid: true}), 404)
			e.errorBody(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: client.NoToken, Invalid: true}), 401)
		})

		d.it("takes x-access-token, refuses missing, unknown or other-scheme tokens with a 401 Bearer challenge and conflicting ones with 400", reqs("REF-AUTH"), func(e *Env) {
			e.needUsers(2)
			e.expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: client.NoToken, Header: http.Header{"X-Access-Token": {e.Users[0].Token}}}), nil)
			for _, resp := range []*client.Response{
				e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: client.NoToken, Invalid: true}),
				e.call(0, client.Request{Method: "GET", Path: "/v1/user", Token: strings.Repeat("f", 40), Invalid: true}),
				e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: client.NoToken, Header: http.Header{"Authorization": {"Token " + e.Users[0].Token}}, Invalid: true}),
			} {
				e.errorBody(resp, 401)
				e.Expect(resp.Header.Get("WWW-Authenticate")).To(HavePrefix("Bearer"), "%s", explain(resp, "a 401 without a Bearer challenge"))
			}
			e.errorBody(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Query: q("access_token", e.Users[1].Token), Invalid: true}), 400)
		})

		d.it("takes me for the caller's id", reqs("REF-USERID-ME"), func(e *Env) {
			var byMe, byID []Room
			e.expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user/me/rooms"}), &byMe)
			e.expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user/" + e.me(0) + "/rooms"}), &byID)
			e.Expect(len(byMe)).To(Equal(len(byID)))
		})

		d.it("answers 403 for another user's id", reqs("REF-USERID-OTHER"), func(e *Env) {
			e.needUsers(2)
			for _, which := range []string{"rooms", "orgs", "repos", "channels"} {
				e.errorBody(e.call(0, client.Request{Method: "GET", Path: "/v1/user/" + e.me(1) + "/" + which, Invalid: true}), 403)
			}
		})

		d.it("answers 404 for unknown rooms and messages and for a message of another room, 400 for malformed ids", reqs("REF-NOT-FOUND"), func(e *Env) {
			room := e.writeRoom()
			e.errorBody(e.call(0, client.Request{Method: "GET", Path: messagesPath(strings.Repeat("a", 24)), Invalid: true}), 404)
			e.errorBody(e.call(0, client.Request{Method: "GET", Path: messagesPath(room) + "/" + strings.Repeat("b", 24), Invalid: true}), 404)
			e.errorBody(e.call(0, client.Request{Method: "GET", Path: messagesPath("not-an-id"), Invalid: true}), 400)
			e.errorBody(e.call(0, client.Request{Method: "GET", Path: messagesPath(room) + "/42", Invalid: true}), 400)
			if other := e.Target.Rooms.Org; other != "" && other != room {
				elsewhere := e.list(0, other, q("limit", "1"))
				if len(elsewhere) > 0 {
					e.errorBody(e.call(0, client.Request{Method: "GET", Path: messagesPath(room) + "/" + elsewhere[0].ID, Invalid: true}), 404)
				}
			}
		})

		d.it("requires text of 1 to 4096 UTF-16 units", reqs("REF-TEXT-LENGTH"), func(e *Env) {
			room := e.writeRoom()
			for _, body := range []map[string]any{{}, {"text": ""}, {"text": strings.Repeat("x", 4097)}, {"text": strings.Repeat("😀", 2049)}} {
				e.errorBody(e.call(0, client.Request{Method: "POST", Path: messagesPath(room), Body: body, Invalid: true}), 400)
			}
			e.Expect(e.send(0, room, strings.Repeat("😀", 2048)).Text).To(HaveLen(4 * 2048))
		})

		d.it("lets only the author edit, and only within the edit window", reqs("REF-EDIT-RULES"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			text, _ := e.text()
			m := e.send(0, room, text)
			e.errorBody(e.call(1, client.Request{Method: "PUT", Path: messagesPath(room) + "/" + m.ID, Body: map[string]string{"text": "not mine"}}), 403)
			history := e.Target.Rooms.Org
			if history == "" {
				e.skip("no organisation room to find an old message of user 1 in")
			}
			for _, old := range e.list(0, history, q("limit", "100")) {
				if old.FromUser.ID == e.me(0) && e.now().Sub(e.parseTime(old.Sent)) > time.Hour {
					e.errorBody(e.call(0, client.Request{Method: "PUT", Path: messagesPath(history) + "/" + old.ID, Body: map[string]string{"text": "too late"}}), 400)
					return
				}
			}
			e.skip("user 1 has no message older than an hour in the organisation room")
		})

		d.it("refuses to mark nothing read and answers {\"success\":true} otherwise", reqs("REF-MARK-READ", "REF-SUCCESS-BODY"), func(e *Env) {
			room := e.writeRoom()
			path := unreadPath(e.me(0), room)
			e.errorBody(e.call(0, client.Request{Method: "POST", Path: path, Body: map[string]any{}, Invalid: true}), 400)
			e.errorBody(e.call(0, client.Request{Method: "POST", Path: path, Body: map[string]any{"chat": []string{}}, Invalid: true}), 400)
			m := e.send(0, room, "read me "+e.Marker())
			var ok map[string]any
			e.expectOK(e.call(0, client.Request{Method: "POST", Path: path, Body: map[string]any{"chat": []string{m.ID}}}), &ok)
			e.Expect(ok).To(Equal(map[string]any{"success": true}))
		})

		d.it("hides a room until the user posts in it again", reqs("REF-HIDE", "REF-SUCCESS-BODY"), func(e *Env) {
			room := e.Target.HideRoom
			if room == "" {
				e.skip("hiding a room is destructive: name hide_room in the target description to allow it")
			}
			listed := func() bool { return idSetRooms(e.rooms(0, "rooms"))[room] }
			var ok map[string]any
			e.expectOK(e.call(0, client.Request{Method: "DELETE", Path: "/v1/user/" + e.me(0) + "/rooms/" + room}), &ok)
			e.Expect(ok).To(Equal(map[string]any{"success": true}))
			e.Expect(listed()).To(BeFalse(), "a hidden room is still listed")
			e.send(0, room, "back "+e.Marker())
			e.Expect(listed()).To(BeTrue(), "posting did not bring the hidden room back")
		})

		d.it("sends rate-limit headers when a limit is configured", reqs("REF-RATE-LIMIT"), func(e *Env) {
			first := e.call(0, client.Request{Method: "GET", Path: "/v1/user"})
			if first.Header.Get("X-RateLimit-Limit") == "" {
				e.skip("the target has no rate limit configured (chatref --rate-limit 4000 turns it on at a level a whole run fits under: a run sends about 3,800 requests within a minute, about 2,900 as user 1; with a lower limit, give chatconform --rate N/60 and --check-timeout 10m)")
			}
			second := e.call(0, client.Request{Method: "GET", Path: "/v1/user"})
			limit, _ := strconv.Atoi(second.Header.Get("X-RateLimit-Limit"))
			r1, _ := strconv.Atoi(first.Header.Get("X-RateLimit-Remaining"))
			r2, _ := strconv.Atoi(second.Header.Get("X-RateLimit-Remaining"))
			reset, _ := strconv.ParseInt(second.Header.Get("X-RateLimit-Reset"), 10, 64)
			e.Expect(limit).To(BeNumerically(">", 0))
			e.Expect(r2).To(BeNumerically("<=", r1), "remaining did not fall")
			e.Expect(time.UnixMilli(reset)).To(BeTemporally(">", e.now().Add(-time.Second)), "reset lies in the past")
		})

		d.it("answers 400 to plain http on the HTTPS port", reqs("REF-TLS-PLAIN"), func(e *Env) {
			resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: "/v1/user", PlainHTTP: true, Place: client.NoToken, Invalid: true})
			e.Expect(err).NotTo(HaveOccurred(), "plain http to the HTTPS port")
			e.Expect(resp.Status).To(Equal(400), "%s", explain(resp, "plain http to the HTTPS port"))
		})
	})

	Describe("Reference decisions: shapes and rendering", func() {
		d.it("carries every room field, security among PUBLIC, PRIVATE and INHERITED", reqs("REF-ROOM-FIELDS", "REF-ROOM-SECURITY"), func(e *Env) {
			for _, which := range []string{"rooms", "channels"} {
				for _, rm := range e.rooms(0, which) {
					e.Expect(rm.Topic).NotTo(BeNil(), "%s topic", rm.ID)
					e.Expect(rm.OneToOne).NotTo(BeNil(), "%s oneToOne", rm.ID)
					e.Expect(rm.UnreadItems).NotTo(BeNil(), "%s unreadItems", rm.ID)
					e.Expect(rm.Mentions).NotTo(BeNil(), "%s mentions", rm.ID)
					e.Expect(rm.Lurk).NotTo(BeNil(), "%s lurk", rm.ID)
					e.Expect(rm.V).NotTo(BeNil(), "%s v", rm.ID)
					if !*rm.OneToOne {
						e.Expect(rm.Security).To(HaveValue(BeElementOf("PUBLIC", "PRIVATE", "INHERITED")), "%s security", rm.ID)
						e.Expect(rm.URI).NotTo(BeNil(), "%s uri", rm.ID)
					} else {
						e.Expect(rm.Security).To(BeNil(), "one-to-one room %s carries security", rm.ID)
					}
				}
			}
		})

		d.it("uses 24-hex ids that sort by creation", reqs("REF-IDS"), func(e *Env) {
			room := e.writeRoom()
			a := e.send(0, room, "first "+e.Marker())
			b := e.send(0, room, "second "+e.Marker())
			for _, id := range []string{a.ID, b.ID, room, e.me(0)} {
				e.Expect(id).To(MatchRegexp(objectID.String()))
			}
			e.Expect(b.ID > a.ID).To(BeTrue(), "a later message's id %s sorts before %s", b.ID, a.ID)
		})

		d.it("sends status false by default and fromUser with v", reqs("REF-MESSAGE-FIELDS"), func(e *Env) {
			m := e.send(0, e.writeRoom(), "plain "+e.Marker())
			e.Expect(m.Status).To(HaveValue(BeFalse()))
			e.Expect(m.FromUser.V).NotTo(BeNil())
		})

		d.it("renders the exact markup of mentions, issues, links, line breaks and a lone paragraph", reqs("REF-HTML"), func(e *Env) {
			e.needUsers(2)
			name := e.Users[1].Username
			m := e.send(0, e.writeRoom(), "hi @"+name+" #12\nhttps://example.com/x")
			e.Expect(m.HTML).To(Equal(`hi <span data-link-type="mention" data-screen-name="` + name + `" class="mention">@` + name + `</span> ` +
				`<span data-link-type="issue" data-issue="12" class="issue">#12</span><br>` +
				`<a href="https://example.com/x" rel="nofollow noopener noreferrer" target="_blank" class="link">https://example.com/x</a>`))
		})

		d.it("wraps unknown names in the mention span but lists only existing users", reqs("REF-MENTION-KNOWN"), func(e *Env) {
			ghost := "nobody" + e.Marker()
			m := e.send(0, e.writeRoom(), "@"+ghost+" hello")
			e.Expect(withClass(e.elements(m.HTML), "span", "mention")).To(HaveLen(1))
			e.Expect(m.Mentions).To(BeEmpty())
		})
	})
}

func idSetRooms(rs []Room) map[string]bool {
	s := map[string]bool{}
	for _, r := range rs {
		s[r.ID] = true
	}
	return s
}
