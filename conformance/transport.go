package conformance

import (
	"mime"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/client"
)

func transportSpecs(d decl) {
	Describe("Transport and authentication", func() {
		d.table("accepts the token in each documented place", reqs("AUTH-BEARER", "AUTH-QUERY-TOKEN"), func(e *Env, p any) {
			var users []User
			expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: p.(client.TokenPlace)}), &users)
			Expect(users).To(HaveLen(1))
			Expect(users[0].ID).To(Equal(e.me(0)))
		},
			d.entry("as an Authorization Bearer header", Label("AUTH-BEARER"), client.Bearer),
			d.entry("as the access_token query parameter", Label("AUTH-QUERY-TOKEN"), client.QueryToken),
		)

		d.it("gives no data to a request without a token", reqs("AUTH-REQUIRED"), func(e *Env) {
			for _, path := range []string{"/v1/user", "/v1/user/" + e.me(0) + "/rooms"} {
				noData(e.call(0, client.Request{Method: "GET", Path: path, Place: client.NoToken, Invalid: true}), "a request without a token")
			}
		})

		d.it("gives no data to a request with a token it never issued", reqs("AUTH-UNKNOWN-TOKEN"), func(e *Env) {
			bogus := strings.Repeat("0", 40)
			if bogus == e.Users[0].Token {
				bogus = strings.Repeat("1", 40)
			}
			noData(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Token: bogus, Invalid: true}), "an unknown token")
		})

		d.it("labels every success application/json with charset utf-8", reqs("HTTP-JSON-CONTENT-TYPE", "HTTP-JSON-BODY"), func(e *Env) {
			for _, path := range []string{"/v1/user", "/v1/user/" + e.me(0) + "/rooms", "/v1/user/" + e.me(0) + "/repos"} {
				resp := e.call(0, client.Request{Method: "GET", Path: path})
				expectStatus(resp, 200)
				mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
				Expect(err).NotTo(HaveOccurred(), "%s", explain(resp, "Content-Type"))
				Expect(mt).To(Equal("application/json"), "%s", explain(resp, "Content-Type"))
				Expect(strings.ToLower(params["charset"])).To(Equal("utf-8"), "%s", explain(resp, "Content-Type charset"))
				var anything any
				Expect(resp.JSON(&anything)).To(Succeed())
			}
		})

		d.it("serves the API below /v1 right after the base address", reqs("HTTP-V1-PREFIX"), func(e *Env) {
			for _, path := range []string{"/v1/user", "/v1/user/" + e.me(0) + "/rooms"} {
				expectStatus(e.call(0, client.Request{Method: "GET", Path: path}), 200)
			}
		})

		d.it("serves no data over plain http", reqs("HTTP-TLS-ONLY"), func(e *Env) {
			plain := "http://" + strings.TrimPrefix(e.Client.BaseURL(), "https://") + "/v1/user"
			req, err := http.NewRequestWithContext(e.ctx, "GET", plain, nil)
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Authorization", "Bearer "+e.Users[0].Token)
			noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: e.Timeout}
			resp, err := noRedirects.Do(req)
			if err != nil {
				By("the plain-http address refused the connection: " + err.Error())
				return // nothing served at all is the best answer
			}
			defer resp.Body.Close()
			Expect(resp.StatusCode).NotTo(BeNumerically("<", 300), "GET %s over plain http answered %d", "/v1/user", resp.StatusCode)
		})
	})
}
