package suites

import (
	"context"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/client"
)

func transportSpecs(r *registry, env func() *Env) {
	r.describe("Transport and authentication", func() {
		for _, way := range []struct {
			text, id string
			place    client.TokenPlace
		}{
			{"accepts the token as an Authorization Bearer header", "AUTH-BEARER", client.Bearer},
			{"accepts the token as the access_token query parameter", "AUTH-QUERY-TOKEN", client.QueryToken},
		} {
			r.it(way.text, ids(way.id), func() {
				e := env()
				var users []User
				expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Place: way.place}), &users)
				Expect(users).To(HaveLen(1))
				Expect(users[0].ID).To(Equal(e.me(0)))
			})
		}

		r.it("gives no data to a request without a token", ids("AUTH-REQUIRED"), func() {
			e := env()
			for _, path := range []string{"/v1/user", "/v1/user/" + e.me(0) + "/rooms"} {
				resp := e.call(0, client.Request{Method: "GET", Path: path, Place: client.NoToken, Invalid: true})
				Expect(resp.Status).To(BeNumerically(">=", 400), "%s", explain(resp, "answered a request without a token"))
				Expect(resp.Status).To(BeNumerically("<", 500), "%s", explain(resp, "failed on a request without a token"))
			}
		})

		r.it("gives no data to a request with a token it never issued", ids("AUTH-UNKNOWN-TOKEN"), func() {
			e := env()
			bogus := strings.Repeat("0", 40)
			if bogus == e.Users[0].Token {
				bogus = strings.Repeat("1", 40)
			}
			resp := e.call(0, client.Request{Method: "GET", Path: "/v1/user", Token: bogus, Invalid: true})
			Expect(resp.Status).To(BeNumerically(">=", 400), "%s", explain(resp, "answered an unknown token"))
			Expect(resp.Status).To(BeNumerically("<", 500), "%s", explain(resp, "failed on an unknown token"))
		})

		r.it("labels every success application/json with charset utf-8", ids("HTTP-JSON-CONTENT-TYPE", "HTTP-JSON-BODY"), func() {
			e := env()
			for _, path := range []string{"/v1/user", "/v1/user/" + e.me(0) + "/rooms", "/v1/user/" + e.me(0) + "/repos"} {
				resp := e.call(0, client.Request{Method: "GET", Path: path})
				expectStatus(resp, 200)
				ct := strings.ToLower(strings.ReplaceAll(resp.Header.Get("Content-Type"), " ", ""))
				Expect(ct).To(Equal("application/json;charset=utf-8"), "%s", explain(resp, "Content-Type"))
				var anything any
				Expect(resp.JSON(&anything)).To(Succeed())
			}
		})

		r.it("serves every operation below /v1", ids("HTTP-V1-PREFIX"), func() {
			e := env()
			resp := e.call(0, client.Request{Method: "GET", Path: "/v1/user"})
			expectStatus(resp, 200)
			Expect(resp.Operation).To(Equal("getCurrentUser"))
			unversioned := e.call(0, client.Request{Method: "GET", Path: "/user", OffAPI: true})
			Expect(unversioned.Status).NotTo(Equal(200), "the API answered without its /v1 prefix")
		})

		r.it("serves no data over plain http", ids("HTTP-TLS-ONLY"), func() {
			e := env()
			plain := "http://" + strings.TrimPrefix(e.Client.BaseURL(), "https://") + "/v1/user"
			req, err := http.NewRequestWithContext(context.Background(), "GET", plain, nil)
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
