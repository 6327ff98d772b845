package conformance

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/client"
)

func transportSpecs(d decl) {
	Describe("Transport and authentication", func() {
		d.table("accepts the token in each documented place", Label(), func(e *Env, p any) {
			// The last described user: a server that answers every request as
			// its first user does not pass by luck.
			u := len(e.Users) - 1
			place := p.(client.TokenPlace)
			other := client.QueryToken
			if place == client.QueryToken {
				other = client.Bearer
			}
			// A token the server never issued comes first, in the same
			// place: refusing one changes nothing for the tokens it did
			// issue (whether it refuses is AUTH-UNKNOWN-TOKEN's to judge).
			e.by("sending a token the server never issued first: a refusal changes nothing for the issued tokens that follow")
			bogus := strings.Repeat("7", len(e.Users[u].Token))
			if bogus == e.Users[u].Token {
				bogus = strings.Repeat("8", len(bogus))
			}
			e.call(u, client.Request{Method: "GET", Path: "/v1/user", Place: place, Token: bogus, Invalid: true})
			var users []User
			e.expectOK(e.call(u, client.Request{Method: "GET", Path: "/v1/user", Place: place}), &users)
			e.Expect(users).To(HaveLen(1))
			if users[0].ID != e.me(u) {
				// The same read with the token in the other place tells a
				// token read from the wrong place from a current user that
				// is wrong wherever the token is (AUTH-CURRENT-USER's).
				var alt []User
				if r := e.call(u, client.Request{Method: "GET", Path: "/v1/user", Place: other}); r.Status/100 == 2 && r.JSON(&alt) == nil && len(alt) == 1 && alt[0].ID != e.me(u) {
					e.lacking("AUTH-CURRENT-USER", fmt.Sprintf("GET /v1/user with user %d's token identified %s with the token in either place, not %s", u+1, users[0].ID, e.me(u)))
				}
			}
			e.Expect(users[0].ID).To(Equal(e.me(u)), "the token of user %d identified another user", u+1)
			e.by("reading the user's rooms list with the token in the same place: paths that name the user take it too")
			if resp := e.call(u, client.Request{Method: "GET", Path: "/v1/user/" + url.PathEscape(e.me(u)) + "/rooms", Place: place}); resp.Status == http.StatusUnauthorized {
				e.expectStatus(resp, 200) // a refused token is this place's; any other answer is the rooms list's checks' to judge
			}
			room := e.Target.WriteRoom
			if room == "" {
				e.by("no write_room: the token is tried on reads only")
				return
			}
			w := min(1, len(e.Users)-1) // a user of the write room, preferably not the first
			e.by("reading a page with query parameters beside the token: a request's other parameters do not change where its token is read")
			var page []Message
			e.expectOK(e.call(w, client.Request{Method: "GET", Path: messagesPath(room), Query: q("limit", "1"), Place: p.(client.TokenPlace)}), &page)
			e.by("sending a message with the token in the same place: writes take it too")
			text, _ := e.text()
			resp, m, made := e.sent(w, client.Request{Method: "POST", Path: messagesPath(room), Body: map[string]string{"text": text}, Place: place})
			if !made && resp.Status/100 != 2 {
				// A refusal: the same send with the token in the other place tells the
				// token's place from a send that fails whatever the place
				// (MSG-SEND-200's).
				text, _ = e.text()
				alt := e.call(w, client.Request{Method: "POST", Path: messagesPath(room), Body: map[string]string{"text": text}, Place: other})
				if alt.Status/100 == 2 {
					e.fail(fmt.Sprintf("a send with user %d's own token in this place answered %d, and the same send with the token in the other place %d: %s", w+1, resp.Status, alt.Status, explain(resp, "status")))
				}
				e.step("MSG-SEND-200", func() { e.expectStatus(resp, 200) })
			}
			if !made {
				e.decode(resp, &m)
			}
			if m.FromUser.ID != e.me(w) {
				// Likewise: a sender wrong whatever the place is the send's
				// (MSG-SEND-TEXT names the caller as fromUser).
				text, _ = e.text()
				var alt Message
				if r := e.call(w, client.Request{Method: "POST", Path: messagesPath(room), Body: map[string]string{"text": text}, Place: other}); r.Status/100 == 2 && r.JSON(&alt) == nil && alt.FromUser.ID != e.me(w) {
					e.lacking("MSG-SEND-TEXT", fmt.Sprintf("a message sent with user %d's token names %s as its sender with the token in either place", w+1, m.FromUser.ID))
				}
			}
			e.Expect(m.FromUser.ID).To(Equal(e.me(w)), "a message sent with user %d's token in this place names another sender", w+1)
		},
			d.entry("as an Authorization Bearer header", reqs("AUTH-BEARER"), client.Bearer),
			d.entry("as the access_token query parameter", reqs("AUTH-QUERY-TOKEN"), client.QueryToken),
		)

		d.it("gives no data to a request without a token", reqs("AUTH-REQUIRED"), func(e *Env) {
			for _, path := range []string{"/v1/user", "/v1/user/" + e.me(0) + "/rooms", messagesPath(e.writeRoom())} {
				e.noData(e.call(0, client.Request{Method: "GET", Path: path, Place: client.NoToken, Invalid: true}), "a request without a token")
			}
			// An empty token is no token, in either place.
			e.noData(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: client.NoToken, Header: http.Header{"Authorization": {"Bearer "}}, Invalid: true}), "a request with an empty Bearer token")
			e.noData(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: client.NoToken, Query: q("access_token", ""), Invalid: true}), "a request with an empty access_token")
		})

		d.it("gives no data to a request with a token it never issued", reqs("AUTH-UNKNOWN-TOKEN"), func(e *Env) {
			bogus := strings.Repeat("0", 40)
			if bogus == e.Users[0].Token {
				bogus = strings.Repeat("1", 40)
			}
			e.noData(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Token: bogus, Invalid: true}), "an unknown token")
			// A real token with its last character changed: a server that
			// compares only a prefix of the token lets it in.
			real := e.Users[0].Token
			last := byte('0')
			if real[len(real)-1] == last {
				last = '1'
			}
			altered := real[:len(real)-1] + string(last)
			e.noData(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Token: altered, Invalid: true}), "a token with its last character changed")
			// And with characters added: a server that only checks that the
			// token starts with a real one lets this in.
			e.noData(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Token: real + "x0", Invalid: true}), "a real token with characters appended")

		})

		d.it("labels every success that carries a body application/json with charset utf-8", reqs("HTTP-JSON-CONTENT-TYPE", "HTTP-JSON-BODY"), func(e *Env) {
			room := e.writeRoom()
			text, word := e.text()
			// Characters beyond ASCII, and those a JSON writer must escape
			// (quote, backslash, tab, line breaks), written back in answers.
			text += " — ünïcödé 🎉 \"q\" \\ tab\there\r\nnext line"
			var sent Message
			requests := []client.Request{
				{Method: "GET", Path: "/v1/user"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/rooms"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/repos"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/orgs"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/channels"},
				{Method: "GET", Path: unreadPath(e.me(0), room)},
				{Method: "GET", Path: messagesPath(room), Query: q("limit", "5")},
				// The longest answer a client asks for: a body cut short or
				// written in pieces shows on long bodies first.
				{Method: "GET", Path: messagesPath(room), Query: q("limit", "100")},
				// The token in the other documented place: the answer is
				// labelled the same wherever the token was.
				{Method: "GET", Path: "/v1/user", Place: client.QueryToken},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/rooms", Place: client.QueryToken},
				{Method: "GET", Path: messagesPath(room), Query: q("limit", "5"), Place: client.QueryToken},
				{Method: "POST", Path: messagesPath(room), Body: map[string]string{"text": text}},
			}
			for i, req := range requests {
				resp := e.call(0, req)
				e.expectStatus(resp, 200)
				e.expectJSONContentType(resp)
				if i == len(requests)-1 {
					e.decode(resp, &sent)
				}
			}
			// The longest pages of the described rooms, read only: the
			// write room may not yet hold enough for a long body.
			for _, r := range []string{e.Target.Rooms.OneToOne, e.Target.Rooms.Channel, e.Target.Rooms.Repo, e.Target.Rooms.Org} {
				if r == "" || r == room {
					continue
				}
				if resp := e.call(0, client.Request{Method: "GET", Path: messagesPath(r), Query: q("limit", "100")}); resp.Status == 200 {
					e.expectJSONContentType(resp)
					var page []Message
					e.decode(resp, &page)
				}
			}
			more := []client.Request{
				{Method: "GET", Path: messagesPath(room) + "/" + sent.ID},
				// Every way to list: a search, each cursor, skip.
				{Method: "GET", Path: messagesPath(room), Query: q("q", word, "limit", "5")},
				{Method: "GET", Path: messagesPath(room), Query: q("aroundId", sent.ID, "limit", "5")},
				{Method: "GET", Path: messagesPath(room), Query: q("beforeId", sent.ID, "limit", "5")},
				{Method: "GET", Path: messagesPath(room), Query: q("afterId", sent.ID, "limit", "5")},
				{Method: "GET", Path: messagesPath(room), Query: q("skip", "1", "limit", "5")},
				{Method: "PUT", Path: messagesPath(room) + "/" + sent.ID, Body: map[string]string{"text": text + " (edited)"}},
			}
			if len(e.Users) > 1 { // marking read a message another user sent, as a client would
				otherText, _ := e.text()
				theirs := e.send(1, room, otherText)
				more = append(more, client.Request{Method: "POST", Path: unreadPath(e.me(0), room), Body: map[string]any{"chat": []string{theirs.ID}}})
			}
			for _, req := range more {
				resp := e.call(0, req)
				e.expectSuccess(resp)
				if len(resp.Body) > 0 { // where the document shows no response, none may come
					e.expectJSONContentType(resp)
				}
			}
		})

		d.it("serves the API below /v1 right after the base address", reqs("HTTP-V1-PREFIX"), func(e *Env) {
			// Every operation that only reads, each through its /v1 path (a
			// message by id is read as a step of MSG-GET-ONE below).
			room := e.writeRoom()
			var newest []Message
			for _, req := range []client.Request{
				{Method: "GET", Path: "/v1/user"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/rooms"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/orgs"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/repos"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/channels"},
				{Method: "GET", Path: unreadPath(e.me(0), room)},
				{Method: "GET", Path: messagesPath(room), Query: q("limit", "1")},
			} {
				// Served is all the check needs of an answer, but for the
				// page, whose message it reads by id next.
				if req.Query == nil {
					e.expectStatus(e.reach(0, req), 200)
					continue
				}
				resp := e.call(0, req)
				e.expectStatus(resp, 200)
				e.decode(resp, &newest)
			}
			if len(newest) == 1 {
				// The path holds a message the list gave: a read that then
				// fails is the read by id's, not the prefix's.
				// Another writer's message may be listed before it reads by
				// id (a lag the document allows): read until the lag passes.
				e.step("MSG-GET-ONE", func() {
					e.eventually(func(g Gomega) {
						g.Expect(e.call(0, client.Request{Method: "GET", Path: messagesPath(room) + "/" + newest[0].ID}).Status).To(Equal(200), "reading by id the newest message the list gave")
					})
				})
			}
		})

		d.it("serves no data over plain http, and does not answer there as the API does", reqs("HTTP-TLS-ONLY"), func(e *Env) {
			// Never a credential over plain http: the client strips them from a
			// PlainHTTP request, which goes to the base URL's own port. The same
			// request without a token goes over https for comparison: a
			// plain-http answer that is the API's own answer shows the API is
			// served there.
			plain, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: "/v1/user", PlainHTTP: true, Place: client.NoToken, Invalid: true})
			if err != nil {
				e.by("the plain-http form of the address gave no answer: " + err.Error())
				return // nothing served at all is the best answer
			}
			e.Expect(plain.Status).NotTo(BeNumerically("<", 300), "%s", explain(plain, "served data over plain http"))
			viaTLS, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: "/v1/user", Place: client.NoToken, Invalid: true})
			if err != nil {
				e.transportFailure(err)
			}
			e.Expect(plain.Status == viaTLS.Status && len(plain.Body) > 0 && bytes.Equal(plain.Body, viaTLS.Body)).To(BeFalse(),
				"%s", explain(plain, "answers over plain http exactly as the API does over https: the API is served over plain http"))
		})
	})
}

// expectJSONContentType checks the media type and charset of a response,
// whatever the spelling (case, spaces, parameter order).
func (e *Env) expectJSONContentType(resp *client.Response) {
	GinkgoHelper()
	e.verifies("HTTP-JSON-CONTENT-TYPE", func() {
		mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		e.Expect(err).NotTo(HaveOccurred(), "%s", explain(resp, "Content-Type"))
		e.Expect(mt).To(Equal("application/json"), "%s", explain(resp, "Content-Type"))
		e.Expect(strings.ToLower(params["charset"])).To(Equal("utf-8"), "%s", explain(resp, "Content-Type charset"))
	})
	e.verifies("HTTP-JSON-BODY", func() {
		var anything any
		e.Expect(resp.JSON(&anything)).To(Succeed(), "%s", explain(resp, "body is not JSON"))
		// JSON is read in UTF-8 here, as the label says: other bytes (Latin-1,
		// say) decode to replacement characters, which a client cannot undo.
		e.Expect(utf8.Valid(resp.Body)).To(BeTrue(), "%s", explain(resp, "body is not UTF-8, though labelled utf-8"))
	})
}
