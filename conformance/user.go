package conformance

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/client"
)

func userSpecs(d decl) {
	Describe("GET /v1/user", func() {
		d.it("answers an array holding exactly one user", reqs("USER-GET-ARRAY", "USER-SHAPE"), func(e *Env) {
			var users []User
			expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user"}), &users)
			e.verifies("USER-GET-ARRAY", func() { Expect(users).To(HaveLen(1), "GET /v1/user holds %d users", len(users)) })
			e.verifies("USER-SHAPE", func() {
				Expect(users[0].Username).NotTo(BeEmpty(), "username")
				Expect(users[0].URL).To(HavePrefix("/"), "url")
			})
			By("judging the other participants of one-to-one rooms too")
			var rooms []Room
			if e.glance(0, "/v1/user/"+e.me(0)+"/rooms", nil, &rooms) { // each answer is validated: a user field breaking the schema fails here
				for _, r := range rooms {
					if r.User != nil {
						e.verifies("USER-SHAPE", func() { Expect(r.User.URL).To(HavePrefix("/"), "user.url of room %s", r.ID) })
					}
				}
			}
			room := e.Target.WriteRoom
			if room == "" {
				By("no write_room: the senders of messages are not looked at")
				return
			}
			By("judging the users that messages carry as fromUser too: sent, read by id, listed and found")
			text, word := e.text()
			m := e.send(0, room, text)
			e.getMessage(0, room, m.ID)
			var found []Message
			e.glance(0, messagesPath(room), q("q", word, "limit", "10"), &found)
			for _, m := range append(e.list(0, room, q("limit", "10")), found...) {
				e.verifies("USER-SHAPE", func() { Expect(m.FromUser.URL).To(HavePrefix("/"), "fromUser.url of message %s", m.ID) })
			}
		})

		d.it("identifies the token's own user, a different one for each token", reqs("AUTH-CURRENT-USER"), func(e *Env) {
			seen := map[string]int{}
			for u := range e.Users {
				var users []User
				expectOK(e.call(u, client.Request{Method: "GET", Path: "/v1/user"}), &users)
				if len(users) != 1 {
					continue // USER-GET-ARRAY's check judges that
				}
				Expect(users[0].ID).To(Equal(e.me(u)), "the token of user %d identified user %s, not the user the description names (or the description's id is wrong)", u+1, users[0].ID)
				if first, dup := seen[users[0].ID]; dup {
					Fail(fmt.Sprintf("the tokens of users %d and %d identified the same user %s", first+1, u+1, users[0].ID))
				}
				seen[users[0].ID] = u
			}
		})

		d.it("carries v only as an integer, and only where it chooses to", reqs("USER-V-OPTIONAL"), func(e *Env) {
			resp := e.call(0, client.Request{Method: "GET", Path: "/v1/user"})
			expectStatus(resp, 200)
			var raw []map[string]any
			Expect(resp.JSON(&raw)).To(Succeed())
			if v, ok := raw[0]["v"]; ok {
				Expect(v).To(BeNumerically(">=", 0))
			}
			room := e.Target.WriteRoom
			if room == "" {
				By("no write_room: a message's sender is not looked at")
				return
			}
			By("judging the sender embedded in a message, sent, read by id and listed")
			// Each answer is validated: a v that is not an integer at any of
			// these places fails this check (see blame).
			text, _ := e.text()
			m := e.send(0, room, text)
			e.getMessage(0, room, m.ID)
			e.list(0, room, q("limit", "5"))
		})
	})
}
