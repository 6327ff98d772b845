package selftest

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// legacyFaults are the first catalogue: one fault per checkable core
// requirement, each the defect its checks were first written against.
func legacyFaults() []Fault {
	return []Fault{
		// Transport and authentication.
		fault("HTTP-JSON-CONTENT-TYPE", Shape, "success responses say application/json without charset",
			func(c *call, next func() *reply) *reply {
				x := next()
				if x.status < 300 {
					x.header.Set("Content-Type", "application/json")
				}
				return x
			}),
		fault("HTTP-JSON-BODY", Shape, "the repositories list is sent as an HTML page",
			onReply("listUserRepos", func(c *call, x *reply) {
				x.setRaw([]byte("<html><body>repositories</body></html>"))
			})),
		fault("HTTP-GET-SAFE", Collateral, "reading one message marks it read",
			onSuccess("getMessage", func(c *call, x *reply) {
				c.do("POST", "/v1/user/me/rooms/"+c.room+"/unreadItems", nil, map[string]any{"chat": []string{c.msg}})
			})),
		fault("HTTP-V1-PREFIX", Shape, "the current user is served at /user instead of /v1/user", movePath("/v1/user", "/user")),
		Fault{Req: "HTTP-TLS-ONLY", Class: TooWide, What: "the HTTPS port also serves plain http (the API as it is: 401 without a real token)", plainHTTP: true},
		fault("AUTH-BEARER", IgnoresInput, "the Authorization header is ignored",
			func(c *call, next func() *reply) *reply { c.r.Header.Del("Authorization"); return next() }),
		fault("AUTH-QUERY-TOKEN", IgnoresInput, "the access_token parameter is ignored",
			func(c *call, next func() *reply) *reply {
				q := c.query()
				q.Del("access_token")
				c.setQuery(q)
				return next()
			}),
		fault("AUTH-REQUIRED", WrongSubject, "a request without a token acts as the first user",
			func(c *call, next func() *reply) *reply {
				if c.r.Header.Get("Authorization") == "" && c.r.Header.Get("X-Access-Token") == "" && !c.query().Has("access_token") {
					setToken(c.r, c.st.first.Token)
				}
				return next()
			}),
		fault("AUTH-UNKNOWN-TOKEN", WrongSubject, "an unknown token acts as the first user",
			func(c *call, next func() *reply) *reply {
				if t := token(c.r); t != "" {
					if _, known := c.st.users[t]; !known {
						setToken(c.r, c.st.first.Token)
					}
				}
				return next()
			}),
		fault("AUTH-CURRENT-USER", WrongSubject, "GET /v1/user always answers the first user",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				x.set(c.doAs("GET", "/v1/user", nil, nil, &c.st.first.Token).get())
			})),

		// User.
		fault("USER-GET-ARRAY", Shape, "the current user is sent as a bare object",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				if list := asList(x.get()); len(list) == 1 {
					x.set(list[0])
				}
			})),
		fault("USER-SHAPE", Shape, "avatarUrlSmall is a relative path, not a URI",
			messages("getCurrentUser", func(c *call, u map[string]any) { u["avatarUrlSmall"] = "avatar.png" })),
		fault("USER-V-OPTIONAL", Shape, "the user's v is a string",
			messages("getCurrentUser", func(c *call, u map[string]any) { u["v"] = "3" })),

		// Rooms.
		fault("ROOM-LIST", Shape, "the rooms list is wrapped in an object",
			onSuccess("listUserRooms", func(c *call, x *reply) { x.set(map[string]any{"rooms": x.get()}) })),
		fault("ROOM-SHAPE", Shape, "lastAccessTime is not in UTC",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if t, ok := r["lastAccessTime"].(string); ok {
					r["lastAccessTime"] = strings.TrimSuffix(t, "Z") + "+02:00"
				}
			})),
		fault("ROOM-PLATFORM-TYPE", Shape, "organisation rooms say GITHUB_ORG",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["platformType"] == "ORG" {
					r["platformType"] = "GITHUB_ORG"
				}
			})),
		fault("ROOM-KINDS", WrongSubject, "organisation rooms are left out of the rooms list",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				x.set(filter(x.get(), func(r map[string]any) bool { return r["platformType"] != "ORG" }))
			})),
		fault("ROOM-ONE-TO-ONE", Shape, "one-to-one rooms carry a uri",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["oneToOne"] == true {
					r["uri"] = "someone"
				}
			})),
		fault("ROOM-USER-ONLY-ONE-TO-ONE", Shape, "group rooms carry a user",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["oneToOne"] == false {
					r["user"] = map[string]any{"id": "5f1a0c2b9d3e4f5a6b7c8d90", "username": "x", "displayName": "X", "url": "/x",
						"avatarUrlSmall": "https://a.test/x", "avatarUrlMedium": "https://a.test/x"}
				}
			})),
		fault("ROOM-HIDE", Shape, "hiding a room fails with 500",
			onReply("hideUserRoom", func(c *call, x *reply) {
				*x = *refuse(http.StatusInternalServerError, "hide")
			})),
		fault("CHANNEL-LIST", Shape, "the channels list says its rooms are repository rooms",
			rooms("listUserChannels", func(c *call, r map[string]any) { r["platformType"] = "REPO" })),
		fault("CHANNEL-NO-USERCOUNT", Shape, "channels carry userCount",
			rooms("listUserChannels", func(c *call, r map[string]any) { r["userCount"] = 3 })),
		fault("CHANNEL-SECURITY", Shape, "channels carry no security",
			rooms("listUserChannels", func(c *call, r map[string]any) { delete(r, "security") })),
		fault("ORG-LIST", Shape, "organisation ids are strings",
			messages("listUserOrgs", func(c *call, o map[string]any) { o["id"] = fmt.Sprint(o["id"]) })),
		fault("ORG-ROOM", Shape, "organisations without a room embed an empty one",
			messages("listUserOrgs", func(c *call, o map[string]any) {
				if _, ok := o["room"]; !ok {
					o["room"] = map[string]any{}
				}
			})),
		fault("REPO-LIST", Shape, "repositories carry no uri",
			messages("listUserRepos", func(c *call, p map[string]any) { delete(p, "uri") })),
		fault("REPO-ROOM", Shape, "a repository's room is its name, not a Room",
			messages("listUserRepos", func(c *call, p map[string]any) {
				if _, ok := p["room"]; ok {
					p["room"] = p["name"]
				}
			})),
		fault("REPO-PRIVATE-GRANTED", WrongSubject, "private repositories are hidden from everyone",
			onSuccess("listUserRepos", func(c *call, x *reply) {
				x.set(filter(x.get(), func(p map[string]any) bool { return p["private"] != true }))
			})),
		fault("REPO-PRIVATE-WITHHELD", TooWide, "private repositories are shown to everyone", privateReposForAll()),

		// Unread items.
		fault("UNREAD-SHAPE", Shape, "unread items carry no mention list",
			messages("getUnreadItems", func(c *call, u map[string]any) { delete(u, "mention") })),
		fault("UNREAD-CHAT", NotStored, "no message is ever recorded as unread chat",
			messages("getUnreadItems", func(c *call, u map[string]any) { u["chat"] = []any{} }),
			messages("msgs", func(c *call, m map[string]any) { m["unread"] = false }),
			rooms("rooms", func(c *call, r map[string]any) { r["unreadItems"] = 0 })),
		fault("UNREAD-MENTION", NotStored, "no mention is ever recorded as unread",
			messages("getUnreadItems", func(c *call, u map[string]any) { u["mention"] = []any{} }),
			rooms("rooms", func(c *call, r map[string]any) { r["mentions"] = 0 })),
		fault("UNREAD-MARK-READ", NotStored, "marking read answers success and changes nothing", swallowMarkRead()),
		fault("UNREAD-READBY", StaleDerived, "readBy never changes from its value in the seeded history",
			messages("msgs", func(c *call, m map[string]any) { m["readBy"] = c.st.readBy[asString(m["id"])] })),
		fault("UNREAD-FLAG", StaleDerived, "the unread flag is always false",
			messages("msgs", func(c *call, m map[string]any) { m["unread"] = false })),
		fault("UNREAD-ROOM-COUNTS", StaleDerived, "a room's unreadItems counts one more than the unread list",
			rooms("rooms", func(c *call, r map[string]any) { r["unreadItems"] = asInt(r["unreadItems"]) + 1 })),

		// Messages.
		fault("MSG-LIST", Shape, "the message list is wrapped in an object",
			onSuccess("listMessages", func(c *call, x *reply) { x.set(map[string]any{"messages": x.get()}) })),
		fault("MSG-SHAPE", Shape, "a sent message carries no sent time",
			messages("sendMessage", func(c *call, m map[string]any) { delete(m, "sent") })),
		fault("MSG-META-EMPTY", Shape, "meta holds data in a message read by id",
			messages("getMessage", func(c *call, m map[string]any) { m["meta"] = map[string]any{"source": "web"} })),
		fault("MSG-NO-GV", Shape, "messages carry gv",
			messages("listMessages", func(c *call, m map[string]any) { m["gv"] = "3" })),
		fault("MSG-GET-ONE", WrongSubject, "reading one message answers the room's newest",
			onSuccess("getMessage", func(c *call, x *reply) {
				page := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", map[string][]string{"limit": {"1"}}, nil)
				if list := asList(page.get()); len(list) == 1 {
					x.set(list[0])
				}
			})),
		fault("MSG-SEND-200", Shape, "sending answers 201",
			onReply("sendMessage", func(c *call, x *reply) {
				if x.status == http.StatusOK {
					x.status = http.StatusCreated
				}
			})),
		fault("MSG-SEND-DEFAULTS", Shape, "a new message says readBy 1",
			messages("sendMessage", func(c *call, m map[string]any) { m["readBy"] = 1 })),
		fault("MSG-SEND-EDITEDAT-NULL", Shape, "a new message has editedAt set",
			messages("sendMessage", func(c *call, m map[string]any) { m["editedAt"] = m["sent"] })),
		fault("MSG-SEND-TEXT", NotStored, "non-ASCII characters are dropped from the text",
			rewriteText("sendMessage", func(s string) string { return strings.Map(asciiOnly, s) })),
		fault("MSG-SEND-STATUS", IgnoresInput, "the status flag is ignored",
			onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil {
					delete(b, "status")
					c.setJSONBody(b)
				}
			})),
		fault("MSG-SEND-STORED", NotStored, "a sent message is answered but never shown again", ghostSends()...),
		fault("MSG-EDIT", NotStored, "an edit answers the old text",
			messages("updateMessage", func(c *call, m map[string]any) {
				m["text"] = strings.TrimSuffix(asString(m["text"]), " (edited)") + " (old)"
			})),
		fault("MSG-EDIT-EDITEDAT", StaleDerived, "an edit leaves editedAt null",
			messages("msgs", func(c *call, m map[string]any) {
				if c.st.get("edited", asString(m["id"])) > 0 {
					m["editedAt"] = nil
				}
			}),
			countEdits("edited")),
		fault("MSG-EDIT-V-INC", StaleDerived, "an edit raises v by two",
			messages("msgs", func(c *call, m map[string]any) {
				m["v"] = asInt(m["v"]) + c.st.get("extra-v", asString(m["id"]))
			}),
			countEdits("extra-v")),
		fault("MSG-EDIT-PERSISTED", NotStored, "an edit is answered from a read plus the new text, and not stored", unstoredEdit()),

		// Rendering.
		fault("RENDER-MENTION", Shape, "mentions are left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = mentionSpan.ReplaceAllString(asString(m["html"]), "@$1")
			})),
		fault("RENDER-ISSUE", Shape, "issue spans have class ref instead of issue",
			messages("sendMessage", func(c *call, m map[string]any) {
				m["html"] = strings.ReplaceAll(asString(m["html"]), `class="issue"`, `class="ref"`)
			})),
		fault("RENDER-LINK", Shape, "link anchors have no class",
			messages("sendMessage", func(c *call, m map[string]any) {
				m["html"] = strings.ReplaceAll(asString(m["html"]), ` class="link"`, ``)
			})),
		fault("RENDER-ESCAPE", Shape, "raw HTML in the text is passed through",
			messages("msgs", func(c *call, m map[string]any) { m["html"] = html.UnescapeString(asString(m["html"])) })),
		fault("META-URLS", Shape, "urls is always empty",
			messages("sendMessage", func(c *call, m map[string]any) { m["urls"] = []any{} })),
		fault("META-MENTIONS", Shape, "mentions is always empty",
			messages("sendMessage", func(c *call, m map[string]any) { m["mentions"] = []any{} })),
		fault("META-ISSUES", Shape, "issue numbers are JSON numbers",
			messages("sendMessage", func(c *call, m map[string]any) {
				each(m["issues"], func(o map[string]any) {
					n, _ := strconv.Atoi(asString(o["number"]))
					o["number"] = n
				})
			})),

		// Pagination, search, limits.
		fault("PAGE-LIMIT", IgnoresInput, "a page holds one message more than limit", pageOneMore()),
		fault("PAGE-BEFOREID-WALK", WrongSubject, "beforeId includes the cursor message, so a walk sees it twice", inclusiveBefore()),
		fault("PAGE-BEFOREID", IgnoresInput, "beforeId is ignored", dropParam("beforeId")),
		fault("PAGE-AFTERID", WrongSubject, "afterId answers the messages before it",
			onRequest("listMessages", func(c *call) {
				q := c.query()
				if a := q.Get("afterId"); a != "" {
					q.Del("afterId")
					q.Set("beforeId", a)
					c.setQuery(q)
				}
			})),
		fault("PAGE-AROUNDID", WrongSubject, "aroundId leaves the anchor out",
			onSuccess("listMessages", func(c *call, x *reply) {
				if a := c.query().Get("aroundId"); a != "" {
					x.set(filter(x.get(), func(m map[string]any) bool { return m["id"] != a }))
				}
			})),
		fault("PAGE-SKIP", IgnoresInput, "skip is ignored", dropParam("skip")),
		fault("SEARCH-Q", WrongSubject, "a search finds nothing",
			onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					x.set([]any{})
				}
			})),
		fault("LIMIT-100", WrongSubject, "limit=100 is cut to 99",
			onRequest("listMessages", func(c *call) {
				q := c.query()
				if q.Get("limit") == "100" {
					q.Set("limit", "99")
					c.setQuery(q)
				}
			})),
		fault("LIMIT-CAP", IgnoresInput, "a limit above 100 is honoured", honourLimit()),
		fault("LIMIT-SKIP-5000", WrongSubject, "skip above 4000 is refused",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("skip"); ok && n > 4000 {
					return refuse(http.StatusBadRequest, "skip too large")
				}
				return next()
			})),
	}
}

var mentionSpan = regexp.MustCompile(`<span data-link-type="mention" data-screen-name="[^"]*" class="mention">@([^<]*)</span>`)

// asciiOnly drops every non-ASCII character.
func asciiOnly(c rune) rune {
	if c < 0x80 {
		return c
	}
	return -1
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

// dropParam removes a query parameter of listMessages before it goes in.
func dropParam(name string) step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		q.Del(name)
		c.setQuery(q)
	})
}

// rewriteText rewrites the text of a send or edit before it goes in.
func rewriteText(ops string, f func(string) string) step {
	return onRequest(ops, func(c *call) {
		if b := c.jsonBody(); b != nil {
			if t, ok := b["text"].(string); ok {
				b["text"] = f(t)
				c.setJSONBody(b)
			}
		}
	})
}

// countEdits adds one to set[id] for every successful edit.
func countEdits(set string) step {
	return onSuccess("updateMessage", func(c *call, x *reply) { c.st.add(set, c.msg, 1) })
}

// privateReposForAll adds the caller's private repositories to the list of
// a caller who never granted access to them.
func privateReposForAll() step {
	return onSuccess("listUserRepos", func(c *call, x *reply) {
		me, ok := c.caller()
		if !ok || me.PrivateReposGranted {
			return
		}
		roomsByID := map[string]any{}
		each(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get(), func(r map[string]any) { roomsByID[asString(r["id"])] = r })
		list := asList(x.get())
		for _, p := range c.st.world.Repos {
			if !p.Private || !contains(p.Members, me.ID) {
				continue
			}
			e := map[string]any{"id": p.ID, "name": p.Name, "uri": p.URI, "private": true}
			if r, ok := roomsByID[p.RoomID]; ok {
				e["room"] = r
			}
			list = append(list, e)
		}
		x.set(list)
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// swallowMarkRead answers a well-formed mark-read with success and does
// nothing; the room and user are still checked by a read of the unread
// items, so errors stay errors.
func swallowMarkRead() step {
	return answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
		b := c.jsonBody()
		if len(asList(b["chat"])) == 0 {
			return next()
		}
		if x := c.do("GET", c.r.URL.Path, nil, nil); !x.ok() {
			return x
		}
		return succeed()
	})
}

// ghostSends answers a send as the inner server does, then never shows the
// message again: not in lists, not by id, not as unread.
func ghostSends() []step {
	return []step{
		onSuccess("sendMessage", func(c *call, x *reply) {
			each(x.get(), func(m map[string]any) { c.st.add("ghost", asString(m["id"]), 1) })
		}),
		onSuccess("listMessages", func(c *call, x *reply) {
			x.set(filter(x.get(), func(m map[string]any) bool { return c.st.get("ghost", asString(m["id"])) == 0 }))
		}),
		answer("getMessage", func(c *call, next func() *reply) *reply {
			if c.st.get("ghost", c.msg) > 0 {
				return refuse(http.StatusNotFound, "no such message")
			}
			return next()
		}),
		messages("getUnreadItems", func(c *call, u map[string]any) {
			for _, k := range []string{"chat", "mention"} {
				var keep []any
				for _, id := range asList(u[k]) {
					if c.st.get("ghost", asString(id)) == 0 {
						keep = append(keep, id)
					}
				}
				u[k] = append([]any{}, keep...)
			}
		}),
	}
}

// unstoredEdit answers an edit the author may make from a read of the
// message plus the new text, rendered, and stores nothing. Edits the inner
// server would refuse still go in, so they are refused as before.
func unstoredEdit() step {
	return answer("updateMessage", func(c *call, next func() *reply) *reply {
		text, _ := c.jsonBody()["text"].(string)
		me, known := c.caller()
		if strings.TrimSpace(text) == "" || !known {
			return next()
		}
		x := c.do("GET", c.r.URL.Path, nil, nil)
		m, isObj := x.get().(map[string]any)
		if !x.ok() || !isObj {
			return next()
		}
		if from, _ := m["fromUser"].(map[string]any); from == nil || from["id"] != me.ID {
			return next()
		}
		c.st.rendered(m, text)
		m["editedAt"] = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		m["v"] = asInt(m["v"]) + 1
		return x
	})
}

// pageOneMore makes every page one message longer than its limit.
func pageOneMore() step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		q := c.query()
		raw := q.Get("limit")
		n, err := strconv.Atoi(raw)
		switch {
		case raw == "" || err == nil && n == 0:
			n = 50
		case err != nil || n < 0:
			return next()
		}
		if n < 100 {
			q.Set("limit", strconv.Itoa(n+1))
			c.setQuery(q)
			return next()
		}
		x := next()
		return olderToo(c, q, x, 1)
	})
}

// olderToo prepends up to n messages older than the oldest of x's page, so
// a page can grow past what the inner server will send at once.
func olderToo(c *call, q map[string][]string, x *reply, n int) *reply {
	list := asList(x.get())
	if !x.ok() || len(list) == 0 || has(q, "afterId") || has(q, "aroundId") {
		return x
	}
	for n > 0 {
		more := map[string][]string{}
		for k, v := range q {
			more[k] = v
		}
		delete(more, "skip")
		oldest, _ := list[0].(map[string]any)
		more["beforeId"] = []string{asString(oldest["id"])}
		more["limit"] = []string{strconv.Itoa(min(n, 100))}
		page := asList(c.do("GET", c.r.URL.Path, more, nil).get())
		if len(page) == 0 {
			break
		}
		list = append(append([]any{}, page...), list...)
		n -= len(page)
	}
	x.set(list)
	return x
}

func has(q map[string][]string, k string) bool { return len(q[k]) > 0 && q[k][0] != "" }

// honourLimit answers a limit above 100 with that many messages.
func honourLimit() step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		q := c.query()
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n <= 100 {
			return next()
		}
		x := next()
		return olderToo(c, q, x, n-len(asList(x.get())))
	})
}

// inclusiveBefore turns beforeId into an inclusive cursor: the page is
// fetched with the id of the next newer message instead.
func inclusiveBefore() step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		b := q.Get("beforeId")
		if b == "" || q.Get("afterId") != "" || q.Get("aroundId") != "" {
			return
		}
		probe := map[string][]string{"afterId": {b}, "limit": {"1"}}
		if s := q.Get("q"); s != "" {
			probe["q"] = []string{s}
		}
		x := c.do("GET", c.r.URL.Path, probe, nil)
		if !x.ok() {
			return
		}
		if list := asList(x.get()); len(list) > 0 {
			q.Set("beforeId", asString(list[0].(map[string]any)["id"]))
		} else {
			q.Del("beforeId")
		}
		c.setQuery(q)
	})
}
