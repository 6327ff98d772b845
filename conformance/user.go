package conformance

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/client"
)

func userSpecs(d decl) {
	Describe("GET /v1/user", func() {
		d.it("answers an array holding exactly the token's user", reqs("USER-GET-ARRAY", "USER-SHAPE", "AUTH-CURRENT-USER"), func(e *Env) {
			seen := map[string]bool{}
			for u := range e.Users {
				var users []User
				expectOK(e.call(u, client.Request{Method: "GET", Path: "/v1/user"}), &users)
				Expect(users).To(HaveLen(1))
				Expect(users[0].ID).To(Equal(e.me(u)), "the token of user %d identified user %s, not the user the description names (or the description's id is wrong)", u+1, users[0].ID)
				Expect(users[0].Username).NotTo(BeEmpty())
				Expect(users[0].URL).To(HavePrefix("/"))
				Expect(seen).NotTo(HaveKey(users[0].ID), "two tokens identified the same user")
				seen[users[0].ID] = true
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
		})
	})
}
