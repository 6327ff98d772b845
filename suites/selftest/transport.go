package selftest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// transportFaults break the requirements of transport and authentication
// (HTTP-*, AUTH-*): TLS only, the JSON content type and body, safe GETs, the
// /v1 prefix, and where a token is accepted and whose it is.
func transportFaults() []Fault {
	return []Fault{
		FirstCatalogue.fault("HTTP-TLS-ONLY/too-wide", "the HTTPS port also serves plain http (the API as it is: 401 without a real token)").withPlainHTTP(),
		ByClass.fault("HTTP-TLS-ONLY/too-wide#2", "plain http on the HTTPS port serves data to any token",
			func(c *call, next func() *reply) *reply {
				if c.r.TLS == nil {
					setToken(c.r, c.st.first.Token)
				}
				return next()
			}).withPlainHTTP(),

		FirstCatalogue.fault("HTTP-JSON-CONTENT-TYPE/shape", "success responses say application/json without charset",
			func(c *call, next func() *reply) *reply {
				x := next()
				if x.status < 300 {
					x.header.Set("Content-Type", "application/json")
				}
				return x
			}),
		ByClass.fault("HTTP-JSON-CONTENT-TYPE/shape#2", "rooms lists are labelled text/html; charset=utf-8",
			onSuccess("listUserRooms", func(c *call, x *reply) { x.header.Set("Content-Type", "text/html; charset=utf-8") })),
		ByClass.fault("HTTP-JSON-CONTENT-TYPE/shape#3", "a message read by id is labelled application/json; charset=iso-8859-1",
			onSuccess("getMessage", func(c *call, x *reply) { x.header.Set("Content-Type", "application/json; charset=iso-8859-1") })),
		BlindRound2.fault("HTTP-JSON-CONTENT-TYPE/shape#4", "unread items are labelled application/json with no charset",
			onSuccess("getUnreadItems", func(c *call, x *reply) { x.header.Set("Content-Type", "application/json") })),
		ByClass.fault("HTTP-JSON-CONTENT-TYPE/intermittent", "one success in four says application/json without charset",
			everyNth(4, "all", onSuccess("all", func(c *call, x *reply) { x.header.Set("Content-Type", "application/json") }))),

		FirstCatalogue.fault("HTTP-JSON-BODY/shape", "the repositories list is sent as an HTML page",
			onReply("listUserRepos", func(c *call, x *reply) {
				x.setRaw([]byte("<html><body>repositories</body></html>"))
			})),
		ByClass.fault("HTTP-JSON-BODY/shape#2", "the current user comes with trailing bytes after the JSON",
			onSuccess("getCurrentUser", func(c *call, x *reply) { x.setRaw(append(encode(x.get()), []byte("\n<!-- done -->")...)) })),
		ByClass.fault("HTTP-JSON-BODY/shape#3", "unread items answer 200 with an empty body",
			onSuccess("getUnreadItems", func(c *call, x *reply) { x.setRaw([]byte{}) })),
		BlindRound2.fault("HTTP-JSON-BODY/shape#4", "the answer to a send starts with a byte order mark",
			onSuccess("sendMessage", func(c *call, x *reply) { x.setRaw(append([]byte("\xef\xbb\xbf"), x.bytes()...)) })),
		BlindRound2.fault("HTTP-JSON-BODY/shape#5", "message replies with non-ASCII text are written in ISO-8859-1 bytes, still labelled utf-8",
			onSuccess("msgs", func(c *call, x *reply) {
				if b := x.bytes(); !isASCII(string(b)) {
					x.setRaw(latin1(b))
				}
			})),
		ByClass.fault("HTTP-JSON-BODY/intermittent", "one message list in four is an HTML page",
			everyNth(4, "listMessages", onSuccess("listMessages", func(c *call, x *reply) { x.setRaw([]byte("<html><body>messages</body></html>")) }))),

		FirstCatalogue.fault("HTTP-GET-SAFE/collateral", "reading one message marks it read",
			onSuccess("getMessage", func(c *call, x *reply) {
				c.do("POST", "/v1/user/me/rooms/"+c.room+"/unreadItems", nil, map[string]any{"chat": []string{c.msg}})
			})),
		ByClass.fault("HTTP-GET-SAFE/collateral#2", "listing messages marks the page read",
			onSuccess("listMessages", func(c *call, x *reply) { markRead(c, c.room, ids(x.get())) })),
		ByClass.fault("HTTP-GET-SAFE/collateral#3", "reading unread items marks them read",
			onSuccess("getUnreadItems", func(c *call, x *reply) {
				if u, ok := x.get().(map[string]any); ok {
					markRead(c, c.room, strs(u["chat"]))
				}
			})),
		ByClass.fault("HTTP-GET-SAFE/collateral#4", "reading one's own message by id saves it again (v and editedAt change)",
			onSuccess("getMessage", func(c *call, x *reply) {
				m, _ := x.get().(map[string]any)
				from, _ := m["fromUser"].(map[string]any)
				if me, ok := c.caller(); ok && from != nil && from["id"] == me.ID {
					c.do("PUT", c.r.URL.Path, nil, map[string]any{"text": m["text"]})
				}
			})),
		BlindRound1.fault("HTTP-GET-SAFE/collateral#5", "a search marks the messages it finds read",
			onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					markRead(c, c.room, ids(x.get()))
				}
			})),
		BlindRound1.fault("HTTP-GET-SAFE/collateral#6", "every read of a message by id adds one to its readBy, whoever reads it",
			messages("msgs", func(c *call, m map[string]any) {
				m["readBy"] = asInt(m["readBy"]) + c.st.get("b-views", asString(m["id"]))
			}),
			onSuccess("getMessage", func(c *call, x *reply) { c.st.add("b-views", c.msg, 1) })),
		BlindRound2.fault("HTTP-GET-SAFE/collateral#7", "an aroundId page marks the unread messages it returns read",
			onSuccess("listMessages", func(c *call, x *reply) {
				if !has(c.query(), "aroundId") {
					return
				}
				var unread []string
				each(x.get(), func(m map[string]any) {
					if m["unread"] == true {
						unread = append(unread, asString(m["id"]))
					}
				})
				markRead(c, c.room, unread)
			})),
		BlindRound2.fault("HTTP-GET-SAFE/collateral#8", "listing rooms marks the caller's unread mentions read",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				each(x.get(), func(r map[string]any) {
					if asInt(r["mentions"]) == 0 {
						return
					}
					if u, ok := c.do("GET", "/v1/user/me/rooms/"+asString(r["id"])+"/unreadItems", nil, nil).get().(map[string]any); ok {
						markRead(c, asString(r["id"]), strs(u["mention"]))
					}
				})
			})),
		ByClass.fault("HTTP-GET-SAFE/intermittent", "one read by id in three marks the message read",
			everyNth(3, "getMessage", onSuccess("getMessage", func(c *call, x *reply) { markRead(c, c.room, []string{c.msg}) }))),

		FirstCatalogue.fault("HTTP-V1-PREFIX/shape", "the current user is served at /user instead of /v1/user", movePath("/v1/user", "/user")),
		ByClass.fault("HTTP-V1-PREFIX/shape#2", "messages are served below /rooms instead of /v1/rooms", movePrefix("/v1/rooms/", "/rooms/")),
		ByClass.fault("HTTP-V1-PREFIX/shape#3", "user-scoped lists are served below /v1/users instead of /v1/user", movePrefix("/v1/user/", "/v1/users/")),

		FirstCatalogue.fault("AUTH-BEARER/ignores-input", "the Authorization header is ignored",
			func(c *call, next func() *reply) *reply { c.r.Header.Del("Authorization"); return next() }),
		ByClass.fault("AUTH-BEARER/wrong-subject", "a Bearer token acts as the first user; the query token works",
			func(c *call, next func() *reply) *reply {
				if c.r.Header.Get("Authorization") != "" {
					c.r.Header.Set("Authorization", "Bearer "+c.st.first.Token)
				}
				return next()
			}),
		ByClass.fault("AUTH-BEARER/intermittent", "one request in three ignores the Authorization header",
			everyNth(3, "all", func(c *call, next func() *reply) *reply { c.r.Header.Del("Authorization"); return next() })),

		FirstCatalogue.fault("AUTH-QUERY-TOKEN/ignores-input", "the access_token parameter is ignored",
			func(c *call, next func() *reply) *reply {
				q := c.query()
				q.Del("access_token")
				c.setQuery(q)
				return next()
			}),
		BlindRound1.fault("AUTH-QUERY-TOKEN/ignores-input#2", "the access_token parameter is honoured on GET only; writes ignore it",
			func(c *call, next func() *reply) *reply {
				if c.r.Method != http.MethodGet {
					q := c.query()
					q.Del("access_token")
					c.setQuery(q)
				}
				return next()
			}),
		ByClass.fault("AUTH-QUERY-TOKEN/wrong-subject", "the access_token parameter acts as the first user",
			func(c *call, next func() *reply) *reply {
				if q := c.query(); q.Has("access_token") {
					q.Set("access_token", c.st.first.Token)
					c.setQuery(q)
				}
				return next()
			}),
		ByClass.fault("AUTH-QUERY-TOKEN/intermittent", "one request in three ignores the access_token parameter",
			everyNth(3, "all", func(c *call, next func() *reply) *reply {
				q := c.query()
				q.Del("access_token")
				c.setQuery(q)
				return next()
			})),

		FirstCatalogue.fault("AUTH-REQUIRED/wrong-subject", "a request without a token acts as the first user",
			func(c *call, next func() *reply) *reply {
				if c.r.Header.Get("Authorization") == "" && c.r.Header.Get("X-Access-Token") == "" && !c.query().Has("access_token") {
					setToken(c.r, c.st.first.Token)
				}
				return next()
			}),
		ByClass.fault("AUTH-REQUIRED/too-wide", "messages are read without a token, as the first user",
			onRequest("listMessages getMessage", func(c *call) {
				if token(c.r) == "" {
					setToken(c.r, c.st.first.Token)
				}
			})),
		BlindRound2.fault("AUTH-REQUIRED/too-wide#2", "an empty token (Authorization: Bearer with nothing after it, or access_token=) acts as the first user",
			func(c *call, next func() *reply) *reply {
				_, hasHeader := c.r.Header["Authorization"]
				q := c.query()
				if token(c.r) == "" && (hasHeader || q.Has("access_token")) {
					setToken(c.r, c.st.first.Token)
				}
				return next()
			}),
		ByClass.fault("AUTH-REQUIRED/intermittent", "one request in three without a token acts as the first user",
			everyNth(3, "all", func(c *call, next func() *reply) *reply {
				if token(c.r) == "" {
					setToken(c.r, c.st.first.Token)
				}
				return next()
			})),

		ByClass.fault("AUTH-UNKNOWN-TOKEN/ignores-input", "a token is matched on its first 8 characters only",
			func(c *call, next func() *reply) *reply {
				if t := token(c.r); len(t) >= 8 {
					if _, known := c.st.users[t]; !known {
						for k := range c.st.users {
							if strings.HasPrefix(k, t[:8]) {
								setToken(c.r, k)
							}
						}
					}
				}
				return next()
			}),
		BlindRound1.fault("AUTH-UNKNOWN-TOKEN/ignores-input#2", "a token that starts with a real token, anything appended, is accepted as that token",
			func(c *call, next func() *reply) *reply {
				if t := token(c.r); t != "" {
					if _, known := c.st.users[t]; !known {
						for k := range c.st.users {
							if strings.HasPrefix(t, k) {
								setToken(c.r, k)
							}
						}
					}
				}
				return next()
			}),
		BlindRound2.fault("AUTH-UNKNOWN-TOKEN/ignores-input#3", "tokens are compared without regard to case",
			func(c *call, next func() *reply) *reply {
				if t := token(c.r); t != "" {
					if _, known := c.st.users[t]; !known {
						for k := range c.st.users {
							if strings.EqualFold(k, t) {
								setToken(c.r, k)
							}
						}
					}
				}
				return next()
			}),
		FirstCatalogue.fault("AUTH-UNKNOWN-TOKEN/wrong-subject", "an unknown token acts as the first user",
			func(c *call, next func() *reply) *reply {
				if t := token(c.r); t != "" {
					if _, known := c.st.users[t]; !known {
						setToken(c.r, c.st.first.Token)
					}
				}
				return next()
			}),
		ByClass.fault("AUTH-UNKNOWN-TOKEN/intermittent", "one unknown token in three acts as the first user",
			func(c *call, next func() *reply) *reply {
				if t := token(c.r); t != "" {
					if _, known := c.st.users[t]; !known && c.st.tick("unknown")%3 == 0 {
						setToken(c.r, c.st.first.Token)
					}
				}
				return next()
			}),

		FirstCatalogue.fault("AUTH-CURRENT-USER/wrong-subject", "GET /v1/user always answers the first user",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				x.set(c.doAs("GET", "/v1/user", nil, nil, &c.st.first.Token).get())
			})),
		ByClass.fault("AUTH-CURRENT-USER/wrong-subject#2", "GET /v1/user answers the user after the caller in the world",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				me, ok := c.caller()
				if !ok {
					return
				}
				for i, u := range c.st.world.Users {
					if u.ID == me.ID {
						next := c.st.world.Users[(i+1)%len(c.st.world.Users)]
						x.set(c.doAs("GET", "/v1/user", nil, nil, &next.Token).get())
					}
				}
			})),
		ByClass.fault("AUTH-CURRENT-USER/intermittent", "one GET /v1/user in three answers the first user",
			everyNth(3, "getCurrentUser", onSuccess("getCurrentUser", func(c *call, x *reply) {
				x.set(c.doAs("GET", "/v1/user", nil, nil, &c.st.first.Token).get())
			}))),
		Independent.fault("AUTH-QUERY-TOKEN/ignores-input#3", independentWhat("query-token-refused")).inIndependent("query-token-refused"),
	}
}

// transportVariants choose differently in how a server speaks HTTP: the
// status and body of errors and of writes the document shows no answer for,
// the Content-Type spelling, headers, compression, HTTP/1.1 only, and how a
// request without a known token is turned away.
func transportVariants() []Variant {
	return []Variant{
		{Name: "errors-422", Origin: FirstCatalogue, What: `answers 422 instead of 400, and every error as {"message": ...}`,
			steps: []step{errors422()}},
		{Name: "empty-object-bodies", Origin: FirstCatalogue, What: "answers {} to hiding a room and marking messages read",
			steps: []step{onSuccess("hideUserRoom markUnreadItemsRead", func(c *call, x *reply) { x.set(map[string]any{}) })}},
		{Name: "no-content", Origin: FirstCatalogue, What: "answers 204 without a body to hiding a room and marking messages read",
			steps: []step{onSuccess("hideUserRoom markUnreadItemsRead", func(c *call, x *reply) {
				x.status = http.StatusNoContent
				x.setRaw(nil)
			})}},
		{Name: "errors-without-body", Origin: OpenPoints, What: "answers every error with its status and no body at all",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if x.status >= 400 {
					x.header.Del("Content-Type")
					x.setRaw([]byte{})
				}
				return x
			}}},
		{Name: "errors-as-text", Origin: OpenPoints, What: "answers every error as text/plain",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if x.status >= 400 {
					x.header.Set("Content-Type", "text/plain; charset=utf-8")
					x.setRaw([]byte(http.StatusText(x.status) + "\n"))
				}
				return x
			}}},
		{Name: "content-type-spelling", Origin: OpenPoints, What: "labels JSON application/json;charset=UTF-8",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if strings.HasPrefix(x.header.Get("Content-Type"), "application/json") {
					x.header.Set("Content-Type", "application/json;charset=UTF-8")
				}
				return x
			}}},
		{Name: "http1-only", Origin: OpenPoints, What: "speaks HTTP/1.1 only (no HTTP/2)", http1: true},
		{Name: "login-redirect", Origin: Assumptions, What: "answers a request without a token, or with an unknown one, by a 302 to a login page that answers 200 with HTML",
			steps: []step{loginRedirect()}},
		{Name: "writes-answer-state", Origin: BlindRound1, What: "answers hiding a room with the rooms list left, and marking read with the unread items left",
			steps: []step{
				onSuccess("hideUserRoom", func(c *call, x *reply) {
					if y := c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil); y.ok() {
						x.set(y.get())
					}
				}),
				onSuccess("markUnreadItemsRead", func(c *call, x *reply) {
					if y := c.do("GET", c.r.URL.Path, nil, nil); y.ok() {
						x.set(y.get())
					}
				}),
			}},
		{Name: "accepted-202", Origin: BlindRound1, What: `answers hiding a room and marking read with 202 and {"status":"accepted"} (the effect is immediate)`,
			steps: []step{onSuccess("hideUserRoom markUnreadItemsRead", func(c *call, x *reply) {
				x.status = http.StatusAccepted
				x.set(map[string]any{"status": "accepted"})
			})}},
		{Name: "quoted-charset", Origin: BlindRound1, What: `labels JSON application/json; charset="utf-8" (the parameter value as a quoted string)`,
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if strings.HasPrefix(x.header.Get("Content-Type"), "application/json") {
					x.header.Set("Content-Type", `application/json; charset="utf-8"`)
				}
				return x
			}}},
		{Name: "gzip-responses", Origin: BlindRound2, What: "compresses every body with gzip when the request accepts it (Content-Encoding: gzip, Vary: Accept-Encoding)",
			steps: []step{func(c *call, next func() *reply) *reply {
				accepts := strings.Contains(strings.ToLower(c.r.Header.Get("Accept-Encoding")), "gzip")
				x := next()
				if b := x.bytes(); accepts && len(b) > 0 && x.status != http.StatusNoContent {
					var z bytes.Buffer
					w := gzip.NewWriter(&z)
					_, _ = w.Write(b)
					_ = w.Close()
					x.setRaw(z.Bytes())
					x.header.Set("Content-Encoding", "gzip")
					x.header.Add("Vary", "Accept-Encoding")
				}
				return x
			}}},
		{Name: "extra-headers", Origin: BlindRound2, What: "adds Cache-Control: no-store, X-Request-Id, an ETag and Strict-Transport-Security to every answer",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				n := c.st.tick("b3-request")
				x.header.Set("Cache-Control", "no-store")
				x.header.Set("X-Request-Id", fmt.Sprintf("req-%08d", n))
				x.header.Set("ETag", fmt.Sprintf(`W/"%x"`, n))
				x.header.Set("Strict-Transport-Security", "max-age=31536000")
				return x
			}}},
		{Name: "unknown-as-403", Origin: BlindRound2, What: `answers 403 {"error":"Forbidden"} wherever the reference answers 404 (unknown room or message)`,
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if x.status == http.StatusNotFound {
					y := refuse(http.StatusForbidden, "")
					y.set(map[string]any{"error": "Forbidden"})
					return y
				}
				return x
			}}},
		{Name: "no-x-access-token", Origin: BlindRound2, What: "does not accept the token in an x-access-token header (the document names only the Authorization header and access_token)",
			steps: []step{func(c *call, next func() *reply) *reply {
				if c.r.Header.Get("X-Access-Token") != "" && c.r.Header.Get("Authorization") == "" && !c.query().Has("access_token") {
					return refuse(http.StatusUnauthorized, "")
				}
				return next()
			}}},
	}
}

// movePath serves the operation at from under to instead; from answers 404.
func movePath(from, to string) step {
	return func(c *call, next func() *reply) *reply {
		switch c.r.URL.Path {
		case from:
			return refuse(http.StatusNotFound, "no such path")
		case to:
			c.r.URL.Path = from
		}
		return next()
	}
}

// movePrefix serves the paths below from under to instead; from answers 404.
func movePrefix(from, to string) step {
	return func(c *call, next func() *reply) *reply {
		switch p := c.r.URL.Path; {
		case strings.HasPrefix(p, from):
			return refuse(http.StatusNotFound, "no such path")
		case strings.HasPrefix(p, to):
			c.r.URL.Path = from + strings.TrimPrefix(p, to)
		}
		return next()
	}
}

// latin1 rewrites UTF-8 bytes as ISO-8859-1: one byte per character up to
// U+00FF, a question mark for the others.
func latin1(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, r := range string(b) {
		if r > 0xFF {
			r = '?'
		}
		out = append(out, byte(r))
	}
	return out
}

// errors422 answers 422 instead of 400 and every client error as
// {"message": ...}.
func errors422() step {
	return func(c *call, next func() *reply) *reply {
		x := next()
		if x.status >= 400 && x.status < 500 {
			if x.status == http.StatusBadRequest {
				x.status = http.StatusUnprocessableEntity
			}
			x.set(map[string]any{"message": "request refused: " + strings.ToLower(http.StatusText(x.status))})
		}
		return x
	}
}

// loginRedirect sends a request without a known token to a login page, as
// servers fronted by a web sign-in do; the login page itself answers 200.
func loginRedirect() step {
	return func(c *call, next func() *reply) *reply {
		if c.r.URL.Path == "/login" {
			x := &reply{status: http.StatusOK, header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}}
			x.setRaw([]byte("<!doctype html><title>Sign in</title><form method=post><input name=user><input type=password name=password></form>\n"))
			return x
		}
		x := next()
		if x.status == http.StatusUnauthorized {
			x = &reply{status: http.StatusFound, header: http.Header{
				"Location":     {"/login?next=" + url.QueryEscape(c.r.URL.Path)},
				"Content-Type": {"text/html; charset=utf-8"},
			}}
			x.setRaw([]byte("<a href=\"/login\">Found</a>.\n"))
		}
		return x
	}
}

// heldOutTransportFaults are the held-out defects of the independent implementation
// whose requirements belong to this file (see HeldOut).
func heldOutTransportFaults() []Fault {
	return []Fault{
		HeldOut.fault("AUTH-REQUIRED/wrong-subject#2", heldOutWhat("auth-anonymous-first-user")).inIndependent("auth-anonymous-first-user"),
		HeldOut.fault("AUTH-BEARER/ignores-input#2", heldOutWhat("auth-bearer-with-query")).inIndependent("auth-bearer-with-query"),
		HeldOut.fault("AUTH-QUERY-TOKEN/ignores-input#4", heldOutWhat("auth-query-get-only")).inIndependent("auth-query-get-only"),
		HeldOut.fault("AUTH-CURRENT-USER/wrong-subject#3", heldOutWhat("auth-session-by-addr")).inIndependent("auth-session-by-addr"),
		HeldOut.fault("AUTH-UNKNOWN-TOKEN/ignores-input#4", heldOutWhat("auth-token-prefix")).inIndependent("auth-token-prefix"),
		HeldOut.fault("AUTH-UNKNOWN-TOKEN/intermittent#2", heldOutWhat("auth-unknown-fallback-flaky")).inIndependent("auth-unknown-fallback-flaky"),
		HeldOut.fault("HTTP-JSON-CONTENT-TYPE/intermittent#2", heldOutWhat("ctype-flaky")).inIndependent("ctype-flaky"),
		HeldOut.fault("HTTP-JSON-CONTENT-TYPE/shape#5", heldOutWhat("ctype-no-charset-writes")).inIndependent("ctype-no-charset-writes"),
		HeldOut.fault("HTTP-JSON-BODY/shape#6", heldOutWhat("json-cut-16k")).inIndependent("json-cut-16k"),
		HeldOut.fault("HTTP-TLS-ONLY/too-wide#3", heldOutWhat("tls-plain-also")).inIndependent("tls-plain-also"),
		HeldOut.fault("HTTP-GET-SAFE/collateral#9", heldOutWhat("unread-get-clears")).inIndependent("unread-get-clears"),
	}
}

// heldOut2TransportFaults are the defects of the second held-out set (independent.HeldOut2)
// whose requirements belong to this file.
func heldOut2TransportFaults() []Fault {
	return []Fault{
		HeldOut2.fault("AUTH-BEARER/ignores-input#3", heldOut2What("auth-bearer-writes-refused")).inIndependent("auth-bearer-writes-refused"),
		HeldOut2.fault("AUTH-QUERY-TOKEN/ignores-input#5", heldOut2What("auth-query-token-rawquery")).inIndependent("auth-query-token-rawquery"),
		HeldOut2.fault("AUTH-REQUIRED/too-wide#3", heldOut2What("auth-anonymous-reads-messages")).inIndependent("auth-anonymous-reads-messages"),
		HeldOut2.fault("AUTH-UNKNOWN-TOKEN/too-wide#2", heldOut2What("auth-token-case-insensitive")).inIndependent("auth-token-case-insensitive"),
		HeldOut2.fault("HTTP-GET-SAFE/collateral#10", heldOut2What("get-one-marks-read")).inIndependent("get-one-marks-read"),
		HeldOut2.fault("HTTP-JSON-BODY/intermittent#2", heldOut2What("edit-body-twice-flaky")).inIndependent("edit-body-twice-flaky"),
		HeldOut2.fault("HTTP-JSON-CONTENT-TYPE/shape#6", heldOut2What("ctype-jsonp-query-token")).inIndependent("ctype-jsonp-query-token"),
	}
}

// heldOut3TransportFaults are the defects of the third held-out set (independent.HeldOut3)
// whose requirements belong to this file (see heldOut3What).
func heldOut3TransportFaults() []Fault {
	return []Fault{
		HeldOut3.fault("AUTH-REQUIRED/too-wide#4", heldOut3What("auth-anonymous-path-user")).inIndependent("auth-anonymous-path-user"),
		HeldOut3.fault("AUTH-UNKNOWN-TOKEN/ignores-input#5", heldOut3What("auth-token-extra-suffix")).inIndependent("auth-token-extra-suffix"),
		HeldOut3.fault("HTTP-GET-SAFE/collateral#11", heldOut3What("around-marks-read")).inIndependent("around-marks-read"),
		HeldOut3.fault("HTTP-JSON-BODY/shape#7", heldOut3What("mark-read-body-text")).inIndependent("mark-read-body-text"),
		HeldOut3.fault("HTTP-JSON-CONTENT-TYPE/shape#7", heldOut3What("ctype-hide-plain")).inIndependent("ctype-hide-plain"),
	}
}

// heldOut4TransportFaults are the defects of the fourth held-out set (independent.HeldOut4)
// whose requirements belong to this file (see heldOut4What).
func heldOut4TransportFaults() []Fault {
	return []Fault{
		HeldOut4.fault("AUTH-BEARER/intermittent#2", heldOut4What("auth-token-flaky-401")).inIndependent("auth-token-flaky-401"),
		HeldOut4.fault("AUTH-CURRENT-USER/wrong-subject#4", heldOut4What("auth-query-token-cached-by-path")).inIndependent("auth-query-token-cached-by-path"),
		HeldOut4.fault("HTTP-GET-SAFE/collateral#12", heldOut4What("list-rerender-bumps-v")).inIndependent("list-rerender-bumps-v"),
		HeldOut4.fault("HTTP-JSON-BODY/shape#8", heldOut4What("json-raw-tab")).inIndependent("json-raw-tab"),
		HeldOut4.fault("HTTP-JSON-CONTENT-TYPE/shape#8", heldOut4What("ctype-unread-missing")).inIndependent("ctype-unread-missing"),
	}
}

// heldOut5TransportFaults are the defects of the fifth held-out set (independent.HeldOut5)
// whose requirements belong to this file (see heldOut5What).
func heldOut5TransportFaults() []Fault {
	return []Fault{
		HeldOut5.fault("AUTH-CURRENT-USER/intermittent#2", heldOut5What("auth-identity-race")).inIndependent("auth-identity-race"),
		HeldOut5.fault("AUTH-QUERY-TOKEN/ignores-input#6", heldOut5What("auth-query-token-user-subpaths-refused")).inIndependent("auth-query-token-user-subpaths-refused"),
		HeldOut5.fault("AUTH-REQUIRED/too-wide#5", heldOut5What("auth-anonymous-post-last-sender")).inIndependent("auth-anonymous-post-last-sender"),
		HeldOut5.fault("HTTP-JSON-BODY/intermittent#3", heldOut5What("json-bom-lists-flaky")).inIndependent("json-bom-lists-flaky"),
		HeldOut5.fault("HTTP-JSON-CONTENT-TYPE/shape#9", heldOut5What("ctype-empty-array-plain")).inIndependent("ctype-empty-array-plain"),
	}
}

// heldOut6TransportFaults are the defects of the sixth held-out set (independent.HeldOut6)
// whose requirements belong to this file (see heldOut6What).
func heldOut6TransportFaults() []Fault {
	return []Fault{
		HeldOut6.fault("AUTH-BEARER/collateral", heldOut6What("auth-lockout-after-bad-token")).inIndependent("auth-lockout-after-bad-token"),
		HeldOut6.fault("AUTH-CURRENT-USER/wrong-subject#5", heldOut6What("send-query-auth-fromuser-owner")).inIndependent("send-query-auth-fromuser-owner"),
		HeldOut6.fault("AUTH-QUERY-TOKEN/intermittent#2", heldOut6What("auth-query-token-flaky")).inIndependent("auth-query-token-flaky"),
		HeldOut6.fault("AUTH-REQUIRED/too-wide#6", heldOut6What("auth-anonymous-edit-as-author")).inIndependent("auth-anonymous-edit-as-author"),
		HeldOut6.fault("HTTP-GET-SAFE/collateral#13", heldOut6What("list-newest-marks-read")).inIndependent("list-newest-marks-read"),
		HeldOut6.fault("HTTP-JSON-BODY/intermittent#4", heldOut6What("json-empty-body-flaky")).inIndependent("json-empty-body-flaky"),
		HeldOut6.fault("HTTP-JSON-CONTENT-TYPE/shape#10", heldOut6What("ctype-latin1-non-ascii")).inIndependent("ctype-latin1-non-ascii"),
	}
}

// heldOut7TransportFaults are the defects of the seventh held-out set (independent.HeldOut7)
// whose requirements belong to this file (see heldOut7What).
func heldOut7TransportFaults() []Fault {
	return []Fault{
		HeldOut7.fault("AUTH-CURRENT-USER/wrong-subject#6", heldOut7What("auth-session-cookie-wins")).inIndependent("auth-session-cookie-wins"),
		HeldOut7.fault("AUTH-QUERY-TOKEN/collateral", heldOut7What("auth-query-token-one-time")).inIndependent("auth-query-token-one-time"),
		HeldOut7.fault("AUTH-REQUIRED/too-wide#7", heldOut7What("auth-empty-bearer-bot")).inIndependent("auth-empty-bearer-bot"),
		HeldOut7.fault("AUTH-UNKNOWN-TOKEN/too-wide", heldOut7What("auth-compare-skips-last-byte")).inIndependent("auth-compare-skips-last-byte"),
		HeldOut7.fault("HTTP-GET-SAFE/collateral#14", heldOut7What("after-page-marks-read")).inIndependent("after-page-marks-read"),
		HeldOut7.fault("HTTP-JSON-BODY/shape#10", heldOut7What("gzip-without-encoding-header")).inIndependent("gzip-without-encoding-header"),
		HeldOut7.fault("HTTP-JSON-BODY/shape#9", heldOut7What("json-xssi-prefix-messages")).inIndependent("json-xssi-prefix-messages"),
		HeldOut7.fault("HTTP-JSON-CONTENT-TYPE/shape#11", heldOut7What("ctype-search-vnd")).inIndependent("ctype-search-vnd"),
		HeldOut7.fault("HTTP-V1-PREFIX/shape#4", heldOut7What("unread-routes-without-v1")).inIndependent("unread-routes-without-v1"),
	}
}

// heldOut8TransportFaults are the defects of the eighth held-out set (independent.HeldOut8)
// whose requirements belong to this file (see heldOut8What).
func heldOut8TransportFaults() []Fault {
	return []Fault{
		HeldOut8.fault("AUTH-CURRENT-USER/intermittent#3", heldOut8What("auth-context-leak-flaky")).inIndependent("auth-context-leak-flaky"),
		HeldOut8.fault("AUTH-REQUIRED/wrong-subject#3", heldOut8What("auth-anonymous-inherits-connection-user")).inIndependent("auth-anonymous-inherits-connection-user"),
		HeldOut8.fault("HTTP-GET-SAFE/collateral#15", heldOut8What("rooms-list-delivers-as-read")).inIndependent("rooms-list-delivers-as-read"),
		HeldOut8.fault("HTTP-JSON-BODY/shape#11", heldOut8What("content-length-in-characters")).inIndependent("content-length-in-characters"),
		HeldOut8.fault("HTTP-JSON-CONTENT-TYPE/shape#12", heldOut8What("ctype-header-doubled")).inIndependent("ctype-header-doubled"),
		HeldOut8.fault("HTTP-V1-PREFIX/shape#5", heldOut8What("v1-orgs-gone-410")).inIndependent("v1-orgs-gone-410"),
	}
}
