package conformance

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/client"
)

func userSpecs(d decl) {
	Describe("GET /v1/user", func() {
		d.it("answers an array holding exactly one user", reqs("USER-GET-ARRAY", "USER-SHAPE"), func(e *Env) {
			var users []User
			e.expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user"}), &users)
			e.verifies("USER-GET-ARRAY", func() { e.Expect(users).To(HaveLen(1), "GET /v1/user holds %d users", len(users)) })
			e.by("asking again with the token as the access_token parameter: the answer is the same array wherever the token is")
			if resp := e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: client.QueryToken}); resp.Status/100 == 2 { // a refusal is the token place's check's
				e.verifies("USER-GET-ARRAY", func() {
					var again []User
					e.Expect(resp.JSON(&again)).To(Succeed(), "GET /v1/user with the token as the access_token parameter answered %s", client.Snippet(resp.Body, 200))
					e.Expect(again).To(HaveLen(1), "GET /v1/user with the token as the access_token parameter holds %d users", len(again))
				})
			}
			e.verifies("USER-SHAPE", func() {
				e.Expect(users[0].Username).NotTo(BeEmpty(), "username")
				e.Expect(users[0].URL).To(HavePrefix("/"), "url")
			})
			e.by("judging the other participants of one-to-one rooms too")
			var rooms []Room
			if e.glance(0, "/v1/user/"+e.me(0)+"/rooms", nil, &rooms) { // each answer is validated: a user field breaking the schema fails here
				for _, r := range rooms {
					if r.User != nil {
						e.verifies("USER-SHAPE", func() { e.Expect(r.User.URL).To(HavePrefix("/"), "user.url of room %s", r.ID) })
					}
				}
			}
			for _, m := range e.messagesWithSenders() {
				e.verifies("USER-SHAPE", func() { e.Expect(m.FromUser.URL).To(HavePrefix("/"), "fromUser.url of message %s", m.ID) })
			}
		})

		d.it("identifies the token's own user, a different one for each token", reqs("AUTH-CURRENT-USER", "USER-GET-ARRAY"), func(e *Env) {
			// Each token twice, in turn: the answer is the token's user on
			// every read, not on most of them. An answer naming another
			// user breaks two statements at once: the token stands for its
			// owner (AUTH-CURRENT-USER), and GET /v1/user answers the
			// token's user (USER-GET-ARRAY).
			for round := range 2 {
				seen := map[string]int{}
				for u := range e.Users {
					var users []User
					e.expectOK(e.call(u, client.Request{Method: "GET", Path: "/v1/user"}), &users)
					if len(users) != 1 {
						continue // USER-GET-ARRAY's check judges that
					}
					e.Expect(users[0].ID).To(Equal(e.me(u)), "the token of user %d identified user %s on read %d of 2, not the user the description names (or the description's id is wrong)", u+1, users[0].ID, round+1)
					if first, dup := seen[users[0].ID]; dup {
						e.fail(fmt.Sprintf("the tokens of users %d and %d identified the same user %s", first+1, u+1, users[0].ID))
					}
					seen[users[0].ID] = u
				}
			}
			if len(e.Users) >= 2 {
				e.by("then every user's GET /v1/user at once, three times: each request is answered as its own token's user however many are in flight")
				for round := range 3 {
					resps := make([]*client.Response, len(e.Users))
					errs := make([]error, len(e.Users))
					var wg sync.WaitGroup
					for u := range e.Users {
						wg.Add(1)
						go func() {
							defer wg.Done()
							resps[u], errs[u] = e.Client.Do(e.ctx, client.Request{Method: "GET", Path: "/v1/user", Token: e.Users[u].Token})
						}()
					}
					wg.Wait()
					for u, resp := range resps {
						if errs[u] != nil {
							e.transportFailure(errs[u])
						}
						e.failOn(resp, resp.Violations)
						var users []User
						e.expectOK(resp, &users)
						if len(users) == 1 {
							e.Expect(users[0].ID).To(Equal(e.me(u)), "the token of user %d identified user %s when all %d users asked at once (round %d of 3)", u+1, users[0].ID, len(e.Users), round+1)
						}
					}
				}
			}
			// A session the server set on one user's answer does not make
			// another user's request that user's: a client that keeps one
			// cookie jar for several users sends it beside their tokens,
			// and the token decides who asks.
			if len(e.Users) < 2 {
				return
			}
			first := e.call(0, client.Request{Method: "GET", Path: "/v1/user"})
			var jar []string
			for _, c := range (&http.Response{Header: first.Header}).Cookies() {
				jar = append(jar, c.Name+"="+c.Value)
			}
			if len(jar) == 0 {
				e.by("the server set no cookie: no session to carry across users")
				return
			}
			var users []User
			e.expectOK(e.call(1, client.Request{Method: "GET", Path: "/v1/user", Header: http.Header{"Cookie": {strings.Join(jar, "; ")}}}), &users)
			if len(users) == 1 {
				e.Expect(users[0].ID).To(Equal(e.me(1)), "with the cookies the server set on user 1's answer beside user 2's token, GET /v1/user identified user %s, not user 2", users[0].ID)
			}
		})

		d.it("carries v only as an integer, and only where it chooses to", reqs("USER-V-OPTIONAL"), func(e *Env) {
			resp := e.call(0, client.Request{Method: "GET", Path: "/v1/user"})
			e.expectStatus(resp, 200)
			var raw []map[string]any
			e.Expect(resp.JSON(&raw)).To(Succeed())
			if v, ok := raw[0]["v"]; ok {
				e.Expect(v).To(BeNumerically(">=", 0))
			}
			// Each answer is validated: a v that is not an integer at any of
			// these places fails this check (see blame).
			e.messagesWithSenders()
		})
	})
}

// messagesWithSenders sends a message to the write room and reads messages
// back every way the API gives them (the send's answer, by id, listed,
// found by search), so that each answer's embedded senders are validated.
// It returns the listed and found messages; without a write room it reads
// nothing.
func (e *Env) messagesWithSenders() []Message {
	GinkgoHelper()
	room := e.Target.WriteRoom
	if room == "" {
		e.by("no write_room: the senders embedded in messages are not looked at")
		return nil
	}
	e.by("judging the senders embedded in messages: sent, read by id, listed and found")
	text, word := e.text()
	m := e.send(0, room, text)
	e.getMessage(0, room, m.ID)
	var found []Message
	e.glance(0, messagesPath(room), q("q", word, "limit", "10"), &found)
	return append(e.list(0, room, q("limit", "10")), found...)
}
