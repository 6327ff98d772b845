package selftest

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// generatedFaults break the properties of the generated checks (GEN-*):
// defects that show only on inputs no hand-written check sends — a bound
// value, an undocumented parameter, a long text of multi-byte characters,
// a field the schema does not name, a token in other letters — which the
// requests generated from the contract reach.
func generatedFaults() []Fault {
	return []Fault{
		GeneratedRound.fault("GEN-NO-5XX/shape", "limit=0 answers 500",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				if c.query().Get("limit") == "0" {
					return refuse(http.StatusInternalServerError, "limit 0")
				}
				return next()
			})),
		GeneratedRound.fault("GEN-NO-5XX/shape#2", "a query parameter the document does not name answers 500",
			answer("all", func(c *call, next func() *reply) *reply {
				for name := range c.query() {
					if !documentedQuery[name] {
						return refuse(http.StatusInternalServerError, "unknown parameter "+name)
					}
				}
				return next()
			})),
		GeneratedRound.fault("GEN-NO-5XX/shape#3", "a text of 2,000 characters or more, some of them multi-byte, answers 500",
			answer("sendMessage updateMessage", func(c *call, next func() *reply) *reply {
				if text, ok := c.jsonBody()["text"].(string); ok && utf8.RuneCountInString(text) >= 2000 && len(text) > utf8.RuneCountInString(text) {
					return refuse(http.StatusInternalServerError, "long text")
				}
				return next()
			})),
		GeneratedRound.fault("GEN-NO-5XX/shape#4", "a body with a field the schema does not name answers 500",
			answer("sendMessage updateMessage markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				for name := range c.jsonBody() {
					if name != "text" && name != "status" && name != "chat" {
						return refuse(http.StatusInternalServerError, "unknown field "+name)
					}
				}
				return next()
			})),
		GeneratedRound.fault("GEN-REFUSED-NO-CHANGE/collateral", "an edit refused for its body (400) is stored all the same, with the text it carried",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				x := next()
				if text, ok := c.jsonBody()["text"].(string); ok && x.status == http.StatusBadRequest && strings.TrimSpace(text) != "" && utf8.RuneCountInString(text) <= 4096 {
					c.do("PUT", c.r.URL.Path, nil, map[string]any{"text": text})
				}
				return x
			})),
		GeneratedRound.fault("GEN-NO-TOKEN-NO-DATA/shape", "a bearer token of a real token's length that no user has crashes the lookup (500)",
			func(c *call, next func() *reply) *reply {
				auth := c.r.Header.Get("Authorization")
				if token, ok := strings.CutPrefix(auth, "Bearer "); ok && token != "" {
					if _, known := c.st.users[token]; !known {
						for real := range c.st.users {
							if len(real) == len(token) {
								return refuse(http.StatusInternalServerError, "token lookup")
							}
						}
					}
				}
				return next()
			}),
		GeneratedRound.fault("GEN-VALID-ANSWER/ignores-input", "skip=0 is refused with 400",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				if c.query().Get("skip") == "0" {
					return refuse(http.StatusBadRequest, "skip 0")
				}
				return next()
			})),
		GeneratedRound.fault("GEN-GET-NO-CHANGE/collateral", "every read of one message by id counts one more reader in its readBy",
			messages("getMessage", func(c *call, m map[string]any) { m["readBy"] = asInt(m["readBy"]) + c.st.tick("reads by id") })),
		GeneratedRound.fault("GEN-ROUND-TRIP/not-stored", "texts are stored without their characters beyond the BMP (emoji and the like), though the send's answer shows them",
			messages("getMessage listMessages", func(c *call, m map[string]any) {
				m["text"] = strings.Map(func(r rune) rune {
					if r > 0xFFFF {
						return -1
					}
					return r
				}, asString(m["text"]))
			})),
	}
}

// documentedQuery is every query parameter the document names, the token's
// included.
var documentedQuery = map[string]bool{"skip": true, "beforeId": true, "afterId": true, "aroundId": true, "limit": true, "q": true, "access_token": true}
