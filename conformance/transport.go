package conformance

import (
	"context"
	"mime"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/client"
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
				noData(e.call(0, client.Request{Method: "GET", Path: path, Place: client.NoToken, Invalid: true}), "a request without a token")
			}
		})

		r.it("gives no data to a request with a token it never issued", ids("AUTH-UNKNOWN-TOKEN"), func() {
			e := env()
			bogus := strings.Repeat("0", 40)
			if bogus == e.Users[0].Token {
				bogus = strings.Repeat("1", 40)
			}
			noData(e.call(0, client.Request{Method: "GET", Path: "/v1/user", Token: bogus, Invalid: true}), "an unknown token")
		})

		r.it("labels every success application/json with charset utf-8", ids("HTTP-JSON-CONTENT-TYPE", "HTTP-JSON-BODY"), func() {
			e := env()
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

		r.it("serves the API below /v1 right after the base address", ids("HTTP-V1-PREFIX"), func() {
			e := env()
			for _, path := range []string{"/v1/user", "/v1/user/" + e.me(0) + "/rooms"} {
				expectStatus(e.call(0, client.Request{Method: "GET", Path: path}), 200)
			}
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
