package conformance

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/client"
)

func transportSpecs(d decl) {
	Describe("Transport and authentication", func() {
		d.table("accepts the token in each documented place", reqs("AUTH-BEARER", "AUTH-QUERY-TOKEN"), func(e *Env, p any) {
			// The last described user: a server that answers every request as
			// its first user does not pass by luck.
			u := len(e.Users) - 1
			var users []User
			expectOK(e.call(u, client.Request{Method: "GET", Path: "/v1/user", Place: p.(client.TokenPlace)}), &users)
			Expect(users).To(HaveLen(1))
			Expect(users[0].ID).To(Equal(e.me(u)), "the token of user %d identified another user", u+1)
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

		d.it("labels every success that carries a body application/json with charset utf-8", reqs("HTTP-JSON-CONTENT-TYPE", "HTTP-JSON-BODY"), func(e *Env) {
			room := e.writeRoom()
			text, _ := e.text()
			var sent Message
			requests := []client.Request{
				{Method: "GET", Path: "/v1/user"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/rooms"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/repos"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/orgs"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/channels"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/rooms/" + room + "/unreadItems"},
				{Method: "GET", Path: messagesPath(room), Query: q("limit", "5")},
				{Method: "POST", Path: messagesPath(room), Body: map[string]string{"text": text}},
			}
			for i, req := range requests {
				resp := e.call(0, req)
				expectStatus(resp, 200)
				expectJSONContentType(resp)
				if i == len(requests)-1 {
					Expect(resp.JSON(&sent)).To(Succeed(), "%s", explain(resp, "body"))
				}
			}
			for _, req := range []client.Request{
				{Method: "GET", Path: messagesPath(room) + "/" + sent.ID},
				{Method: "PUT", Path: messagesPath(room) + "/" + sent.ID, Body: map[string]string{"text": text + " (edited)"}},
				{Method: "POST", Path: "/v1/user/" + e.me(0) + "/rooms/" + room + "/unreadItems", Body: map[string]any{"chat": []string{sent.ID}}},
			} {
				resp := e.call(0, req)
				expectSuccess(resp)
				if len(resp.Body) > 0 { // where the document shows no response, none may come
					expectJSONContentType(resp)
				}
			}
		})

		d.it("serves the API below /v1 right after the base address", reqs("HTTP-V1-PREFIX"), func(e *Env) {
			for _, path := range []string{"/v1/user", "/v1/user/" + e.me(0) + "/rooms"} {
				expectStatus(e.call(0, client.Request{Method: "GET", Path: path}), 200)
			}
		})

		d.it("serves no data over plain http", reqs("HTTP-TLS-ONLY"), func(e *Env) {
			plain := plainHTTPURL(e.Client.BaseURL()) + "/v1/user"
			req, err := http.NewRequestWithContext(e.ctx, "GET", plain, nil)
			Expect(err).NotTo(HaveOccurred())
			// Never a real token over plain http: a throwaway one shows whether
			// the server would serve data to a request that looks authorised.
			req.Header.Set("Authorization", "Bearer "+throwawayToken)
			noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: e.Timeout}
			resp, err := noRedirects.Do(req)
			if err != nil {
				By("the plain-http form of the address gave no answer: " + err.Error())
				return // nothing served at all is the best answer
			}
			defer resp.Body.Close()
			Expect(resp.StatusCode).NotTo(BeNumerically("<", 300), "GET %s over plain http answered %d", "/v1/user", resp.StatusCode)
		})
	})
}

// throwawayToken is what the plain-http check sends instead of a credential.
const throwawayToken = "chatconform-plain-http-probe"

// plainHTTPURL is the base URL with http instead of https, on the same port
// (443 when the URL names none), so the probe reaches the HTTPS listener.
func plainHTTPURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return "http://invalid"
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	return "http://" + host + strings.TrimSuffix(u.Path, "/")
}

// expectJSONContentType checks the media type and charset of a response,
// whatever the spelling (case, spaces, parameter order).
func expectJSONContentType(resp *client.Response) {
	GinkgoHelper()
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	Expect(err).NotTo(HaveOccurred(), "%s", explain(resp, "Content-Type"))
	Expect(mt).To(Equal("application/json"), "%s", explain(resp, "Content-Type"))
	Expect(strings.ToLower(params["charset"])).To(Equal("utf-8"), "%s", explain(resp, "Content-Type charset"))
	var anything any
	Expect(resp.JSON(&anything)).To(Succeed(), "%s", explain(resp, "body is not JSON"))
}
