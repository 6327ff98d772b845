package selftest

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chatrooms/conformance/fixtures"
)

// blind2Faults are a second round of faults written without reading the
// checks. Each is what a lazy implementer might ship and each breaks a
// statement of the API document a client can observe; most show only in a
// corner: for the second user, on a cursor page, after a second edit, for a
// status update, with non-ASCII text or with the token in the query.
func blind2Faults() []Fault {
	return []Fault{
		// --- Unread items and marking read ---------------------------------
		fault("UNREAD-MARK-READ", NotStored, "marking read works for the first user only; anyone else gets success and nothing changes",
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				if me, ok := c.caller(); ok && me.ID != c.st.first.ID {
					return succeed()
				}
				return next()
			})),
		fault("UNREAD-MARK-READ", IgnoresInput, "marking read skips messages sent since start: only the seeded history can be marked read",
			recordSends("b3-new"),
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				b := c.jsonBody()
				if b == nil {
					return next()
				}
				var keep []any
				for _, id := range asList(b["chat"]) {
					if c.st.get("b3-new", asString(id)) == 0 {
						keep = append(keep, id)
					}
				}
				if len(keep) == len(asList(b["chat"])) {
					return next()
				}
				if len(keep) == 0 {
					return succeed()
				}
				b["chat"] = keep
				c.setJSONBody(b)
				return next()
			})),
		fault("UNREAD-MENTION", WrongSubject, "a message is listed under mention only when its text starts with @username",
			messages("getUnreadItems", func(c *call, u map[string]any) {
				me, _ := c.caller()
				prefix := "@" + strings.ToLower(me.Username)
				keep := []any{}
				for _, id := range asList(u["mention"]) {
					m, _ := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+asString(id), nil, nil).get().(map[string]any)
					if strings.HasPrefix(strings.ToLower(asString(m["text"])), prefix) {
						keep = append(keep, id)
					}
				}
				u["mention"] = keep
			})),
		fault("UNREAD-CHAT", WrongSubject, "status updates are never listed as unread chat",
			statusSends("b3-status"),
			messages("getUnreadItems", func(c *call, u map[string]any) {
				u["chat"] = filterIDs(u["chat"], func(id string) bool { return !isStatus(c, "b3-status", id) })
			})),
		fault("UNREAD-CHAT", NotStored, "messages sent since start are unread chat only when the first user sent them",
			onSuccess("sendMessage", func(c *call, x *reply) {
				if me, _ := c.caller(); me.ID != c.st.first.ID {
					each(x.get(), func(m map[string]any) { c.st.add("b3-unrecorded", asString(m["id"]), 1) })
				}
			}),
			messages("getUnreadItems", func(c *call, u map[string]any) {
				for _, k := range []string{"chat", "mention"} {
					u[k] = filterIDs(u[k], func(id string) bool { return c.st.get("b3-unrecorded", id) == 0 })
				}
			})),
		fault("UNREAD-ROOM-COUNTS", StaleDerived, "a room's unreadItems count stops at 99",
			rooms("rooms", func(c *call, r map[string]any) {
				if asInt(r["unreadItems"]) > 99 {
					r["unreadItems"] = 99
				}
			})),
		fault("UNREAD-ROOM-COUNTS", TooWide, "a room's mentions count counts the caller's unread messages that mention anyone",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if _, ok := r["mentions"]; !ok {
					return
				}
				n := 0
				each(c.do("GET", "/v1/rooms/"+asString(r["id"])+"/chatMessages", url.Values{"limit": {"100"}}, nil).get(), func(m map[string]any) {
					if m["unread"] == true && len(asList(m["mentions"])) > 0 {
						n++
					}
				})
				r["mentions"] = max(asInt(r["mentions"]), n)
			})),
		fault("UNREAD-READBY", NotStored, "a message read by id shows readBy as in the seeded history (0 for a new message); lists are right",
			messages("getMessage", func(c *call, m map[string]any) { m["readBy"] = c.st.readBy[asString(m["id"])] })),
		fault("UNREAD-FLAG", WrongSubject, "the unread flag is false on every beforeId, afterId and aroundId page",
			messages("listMessages", func(c *call, m map[string]any) {
				if q := c.query(); has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") {
					m["unread"] = false
				}
			})),
		fault("UNREAD-FLAG", WrongSubject, "a sender's own messages sent since start read back to the sender as unread",
			onSuccess("sendMessage", func(c *call, x *reply) {
				me, _ := c.caller()
				each(x.get(), func(m map[string]any) { c.st.add("b3-own:"+me.ID, asString(m["id"]), 1) })
			}),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if me, _ := c.caller(); c.st.get("b3-own:"+me.ID, asString(m["id"])) > 0 {
					m["unread"] = true
				}
			})),
		fault("HTTP-GET-SAFE", Collateral, "an aroundId page marks the unread messages it returns read",
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

		// --- Edits ----------------------------------------------------------
		fault("MSG-EDIT-V-INC", StaleDerived, "v goes from 1 to 2 on the first edit and stays 2 after later edits",
			messages("msgs", func(c *call, m map[string]any) {
				if c.st.get("b3-edits", asString(m["id"])) > 0 {
					m["v"] = 2
				}
			}),
			countEdits("b3-edits")),
		fault("MSG-EDIT-PERSISTED", NotStored, "only the first edit of a message is stored; later edits are answered right and then lost",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				x := next()
				if m, ok := x.get().(map[string]any); ok && x.ok() && c.st.add("b3-edits", c.msg, 1) == 1 {
					first := map[string]any{}
					for _, k := range textFields {
						first[k] = m[k]
					}
					c.st.setValue("b3-first:"+c.msg, first)
				}
				return x
			}),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				id := asString(m["id"])
				if v, ok := c.st.value("b3-first:" + id); ok && c.st.get("b3-edits", id) > 1 {
					for k, old := range v.(map[string]any) {
						m[k] = old
					}
				}
			})),
		fault("MSG-EDIT", NotStored, "an edit drops characters outside the Basic Multilingual Plane (emoji) from the new text; sends keep them",
			rewriteText("updateMessage", func(s string) string {
				return strings.Map(func(r rune) rune {
					if r > 0xFFFF {
						return -1
					}
					return r
				}, s)
			})),
		fault("MSG-META-EMPTY", Shape, "an edited message keeps its previous text in meta",
			messages("msgs", func(c *call, m map[string]any) {
				if v, ok := c.st.value("b3-prev:" + asString(m["id"])); ok {
					m["meta"] = map[string]any{"previousText": v}
				}
			}),
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				x := next()
				if x.ok() && old != nil {
					c.st.setValue("b3-prev:"+c.msg, old["text"])
				}
				return x
			})),
		fault("SEARCH-Q", StaleDerived, "search matches an edited message by its text before the edit, not the new one",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				x := next()
				if x.ok() && old != nil {
					if _, seen := c.st.value("b3-indexed:" + c.msg); !seen {
						c.st.setValue("b3-indexed:"+c.msg, old["text"])
					}
					c.st.add("b3-edited:"+c.room, c.msg, 1)
				}
				return x
			}),
			onSuccess("listMessages", func(c *call, x *reply) {
				q := c.query()
				terms := strings.Fields(strings.ToLower(q.Get("q")))
				if len(terms) == 0 {
					return
				}
				indexed := func(id string) (string, bool) {
					v, ok := c.st.value("b3-indexed:" + id)
					return asString(v), ok
				}
				list := asList(filter(x.get(), func(m map[string]any) bool {
					old, ok := indexed(asString(m["id"]))
					return !ok || matchesAll(old, terms)
				}))
				have := ids(list)
				for _, id := range sortedKeys(c, "b3-edited:"+c.room) {
					if old, _ := indexed(id); matchesAll(old, terms) && !slices.Contains(have, id) {
						if m, ok := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+id, nil, nil).get().(map[string]any); ok {
							list = append(list, m)
						}
					}
				}
				sortBySent(list)
				x.set(list)
			})),

		// --- Sending -----------------------------------------------------------
		fault("MSG-SEND-TEXT", NotStored, "runs of spaces in a sent text are stored as one space",
			rewriteText("sendMessage", func(s string) string { return spaceRun.ReplaceAllString(s, " ") })),
		fault("MSG-SEND-STORED", WrongSubject, "a message another user sent since start reads back with the first user as fromUser (the send's answer is right)",
			onSuccess("sendMessage", func(c *call, x *reply) {
				if me, _ := c.caller(); me.ID != c.st.first.ID {
					each(x.get(), func(m map[string]any) { c.st.add("b3-misfiled", asString(m["id"]), 1) })
				}
			}),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if c.st.get("b3-misfiled", asString(m["id"])) == 0 {
					return
				}
				if l := asList(c.doAs("GET", "/v1/user", nil, nil, &c.st.first.Token).get()); len(l) == 1 {
					if u, ok := l[0].(map[string]any); ok {
						if from, ok := m["fromUser"].(map[string]any); ok && from["v"] != nil {
							u["v"] = from["v"]
						}
						m["fromUser"] = u
					}
				}
			})),
		fault("MSG-SEND-STATUS", WrongSubject, "status true is honoured for the first user's sends only",
			onRequest("sendMessage", func(c *call) {
				if me, _ := c.caller(); me.ID != c.st.first.ID {
					if b := c.jsonBody(); b != nil && b["status"] == true {
						delete(b, "status")
						c.setJSONBody(b)
					}
				}
			})),
		fault("MSG-SEND-200", Shape, "sending a status update answers 201",
			onSuccess("sendMessage", func(c *call, x *reply) {
				if b := c.jsonBody(); b != nil && b["status"] == true {
					x.status = http.StatusCreated
				}
			})),
		fault("MSG-SEND-STORED", NotStored, "a message whose text holds non-ASCII characters is answered but never stored (absent from lists, 404 by id)",
			onSuccess("sendMessage", func(c *call, x *reply) {
				if t := asString(c.jsonBody()["text"]); !isASCII(t) {
					each(x.get(), func(m map[string]any) { c.st.add("b3-lost", asString(m["id"]), 1) })
				}
			}),
			answer("getMessage", func(c *call, next func() *reply) *reply {
				if c.st.get("b3-lost", c.msg) > 0 {
					return refuse(http.StatusNotFound, "no such message")
				}
				return next()
			}),
			onSuccess("listMessages", func(c *call, x *reply) {
				x.set(filter(x.get(), func(m map[string]any) bool { return c.st.get("b3-lost", asString(m["id"])) == 0 }))
			})),
		fault("MSG-SEND-DEFAULTS", Shape, "a status update is answered with v 0",
			messages("sendMessage", func(c *call, m map[string]any) {
				if m["status"] == true {
					m["v"] = 0
				}
			})),
		fault("MSG-SEND-EDITEDAT-NULL", Shape, "a status update is answered with editedAt equal to sent",
			messages("sendMessage", func(c *call, m map[string]any) {
				if m["status"] == true {
					m["editedAt"] = m["sent"]
				}
			})),
		fault("MSG-GET-ONE", Shape, "with the token in the query, a message read by id comes as an array holding it",
			onSuccess("getMessage", func(c *call, x *reply) {
				if c.query().Has("access_token") {
					x.set([]any{x.get()})
				}
			})),

		// --- Pagination, search, limits ---------------------------------------
		fault("PAGE-BEFOREID-WALK", WrongSubject, "a beforeId page counts the cursor against limit and holds limit-1 messages, so a walk stops early",
			onRequest("listMessages", func(c *call) {
				q := c.query()
				if !has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") || has(q, "q") {
					return
				}
				if n, ok := pageLimit(q); ok && n > 1 {
					setParam(c, "limit", strconv.Itoa(n-1))
				}
			})),
		fault("PAGE-AFTERID", WrongSubject, "afterId skips the message right after the cursor",
			onRequest("listMessages", func(c *call) {
				q := c.query()
				if !has(q, "afterId") || has(q, "q") {
					return
				}
				if next := neighbour(c, q.Get("afterId"), "afterId"); next != "" {
					setParam(c, "afterId", next)
				}
			})),
		fault("PAGE-LIMIT", IgnoresInput, "afterId pages ignore limit and hold up to 100 messages",
			onRequest("listMessages", func(c *call) {
				if has(c.query(), "afterId") {
					setParam(c, "limit", "100")
				}
			})),
		fault("PAGE-LIMIT", IgnoresInput, "a search ignores limit and returns up to 100 matches",
			onRequest("listMessages", func(c *call) {
				if has(c.query(), "q") {
					setParam(c, "limit", "100")
				}
			})),
		fault("PAGE-AROUNDID", IgnoresInput, "aroundId looks for the anchor among the newest 100 messages only; an older anchor gives the newest page",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				a := q.Get("aroundId")
				if a == "" {
					return next()
				}
				if slices.Contains(ids(c.do("GET", c.r.URL.Path, url.Values{"limit": {"100"}}, nil).get()), a) {
					return next()
				}
				q.Del("aroundId")
				q.Del("access_token")
				return c.do("GET", c.r.URL.Path, q, nil)
			})),
		fault("PAGE-SKIP", WrongSubject, "skip is applied after limit: the newest page of limit loses its n newest messages",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				n, err := strconv.Atoi(q.Get("skip"))
				if err != nil || n <= 0 || n > 5000 || has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") || has(q, "q") {
					return next()
				}
				q.Del("skip")
				q.Del("access_token")
				x := c.do("GET", c.r.URL.Path, q, nil)
				if !x.ok() {
					return next()
				}
				list := asList(x.get())
				sortBySent(list)
				x.set(list[:max(0, len(list)-n)])
				return x
			})),
		fault("LIMIT-CAP", IgnoresInput, "aroundId honours a limit above 100: up to limit/2 messages (at most 100) on each side of the anchor",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				a := q.Get("aroundId")
				n, err := strconv.Atoi(q.Get("limit"))
				if a == "" || err != nil || n <= 100 || has(q, "q") {
					return next()
				}
				anchor := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+a, nil, nil)
				if !anchor.ok() {
					return next()
				}
				half := strconv.Itoa(n / 2)
				list := asList(c.do("GET", c.r.URL.Path, url.Values{"beforeId": {a}, "limit": {half}}, nil).get())
				list = append(list, anchor.get())
				list = append(list, asList(c.do("GET", c.r.URL.Path, url.Values{"afterId": {a}, "limit": {half}}, nil).get())...)
				sortBySent(list)
				anchor.set(list)
				return anchor
			})),
		fault("SEARCH-Q", WrongSubject, "a search matches only texts that start with the query",
			onSuccess("listMessages", func(c *call, x *reply) {
				s := strings.ToLower(strings.TrimSpace(c.query().Get("q")))
				if s == "" {
					return
				}
				x.set(filter(x.get(), func(m map[string]any) bool { return strings.HasPrefix(strings.ToLower(asString(m["text"])), s) }))
			})),

		// --- Rooms, channels, repositories -----------------------------------
		fault("ROOM-HIDE", WrongSubject, "hiding a room hides it for the first user, whoever asks",
			onRequest("hideUserRoom", func(c *call) {
				c.r.URL.Path = "/v1/user/" + c.st.first.ID + "/rooms/" + c.room
				setToken(c.r, c.st.first.Token)
			})),
		fault("ROOM-HIDE", NotStored, "a hidden room is left out of the next rooms list only; later lists show it again",
			answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				if y := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.room+"/unreadItems", nil, nil); !y.ok() {
					return y
				}
				me, _ := c.caller()
				c.st.setValue("b3-hide:"+me.ID+":"+c.room, true)
				return succeed()
			}),
			onSuccess("listUserRooms", func(c *call, x *reply) {
				me, _ := c.caller()
				x.set(filter(x.get(), func(r map[string]any) bool {
					key := "b3-hide:" + me.ID + ":" + asString(r["id"])
					if v, _ := c.st.value(key); v == true {
						c.st.setValue(key, false)
						return false
					}
					return true
				}))
			})),
		fault("ROOM-KINDS", WrongSubject, "one-to-one rooms are in the first user's rooms list only",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				if me, _ := c.caller(); me.ID != c.st.first.ID {
					x.set(filter(x.get(), func(r map[string]any) bool { return r["platformType"] != "ONETOONE" }))
				}
			})),
		fault("ROOM-USER-ONLY-ONE-TO-ONE", Shape, "channels in the rooms list carry their owner as user",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["platformType"] != "USER_CHANNEL" {
					return
				}
				for _, w := range c.st.world.Rooms {
					if w.ID == asString(r["id"]) && w.Owner != "" {
						t := c.st.byID[w.Owner].Token
						if l := asList(c.doAs("GET", "/v1/user", nil, nil, &t).get()); len(l) == 1 {
							r["user"] = l[0]
						}
					}
				}
			})),
		fault("ROOM-PLATFORM-TYPE", Shape, "rooms embedded in repository entries say REPOSITORY",
			rooms("listUserRepos", func(c *call, r map[string]any) { r["platformType"] = "REPOSITORY" })),
		fault("ROOM-SHAPE", Shape, "rooms embedded in organisation entries give userCount as a string",
			rooms("listUserOrgs", func(c *call, r map[string]any) {
				if n, ok := r["userCount"]; ok {
					r["userCount"] = strconv.Itoa(asInt(n))
				}
			})),
		fault("CHANNEL-LIST", WrongSubject, "every caller gets the first user's channels list",
			answer("listUserChannels", func(c *call, next func() *reply) *reply {
				if me, ok := c.caller(); !ok || me.ID == c.st.first.ID {
					return next()
				}
				return c.doAs("GET", "/v1/user/"+c.st.first.ID+"/channels", nil, nil, &c.st.first.Token)
			})),
		fault("REPO-PRIVATE-WITHHELD", IgnoresInput, "with the token in the query, the repositories list shows the caller's private repositories though access was never granted",
			func(c *call, next func() *reply) *reply {
				if c.query().Has("access_token") {
					return privateReposForAll()(c, next)
				}
				return next()
			}),

		// --- Transport, authentication -----------------------------------------
		fault("HTTP-JSON-CONTENT-TYPE", Shape, "unread items are labelled application/json with no charset",
			onSuccess("getUnreadItems", func(c *call, x *reply) { x.header.Set("Content-Type", "application/json") })),
		fault("HTTP-JSON-BODY", Shape, "the answer to a send starts with a byte order mark",
			onSuccess("sendMessage", func(c *call, x *reply) { x.setRaw(append([]byte("\xef\xbb\xbf"), x.bytes()...)) })),
		fault("HTTP-JSON-BODY", Shape, "message replies with non-ASCII text are written in ISO-8859-1 bytes, still labelled utf-8",
			onSuccess("msgs", func(c *call, x *reply) {
				if b := x.bytes(); !isASCII(string(b)) {
					x.setRaw(latin1(b))
				}
			})),
		fault("AUTH-UNKNOWN-TOKEN", IgnoresInput, "tokens are compared without regard to case",
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
		fault("AUTH-REQUIRED", TooWide, "an empty token (Authorization: Bearer with nothing after it, or access_token=) acts as the first user",
			func(c *call, next func() *reply) *reply {
				_, hasHeader := c.r.Header["Authorization"]
				q := c.query()
				if token(c.r) == "" && (hasHeader || q.Has("access_token")) {
					setToken(c.r, c.st.first.Token)
				}
				return next()
			}),

		// --- Rendering and metadata -------------------------------------------
		fault("RENDER-ESCAPE", Shape, "raw HTML inside a code span passes through unescaped",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = codeSpan.ReplaceAllStringFunc(asString(m["html"]), htmlUnescape)
			})),
		fault("RENDER-MENTION", Shape, "a mention at the very start of the text is left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				h := asString(m["html"])
				if loc := mentionSpan.FindStringSubmatchIndex(h); loc != nil && loc[0] == 0 {
					m["html"] = "@" + h[loc[2]:loc[3]] + h[loc[1]:]
				}
			})),
		fault("RENDER-ISSUE", Shape, "issue references of four digits or more are left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = longIssue.ReplaceAllString(asString(m["html"]), "#$1")
			})),
		fault("RENDER-LINK", Shape, "links with a query string are left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = queryAnchor.ReplaceAllString(asString(m["html"]), "$1")
			})),
		fault("META-URLS", WrongSubject, "urls lists only the URLs of the text's first line",
			messages("msgs", func(c *call, m map[string]any) {
				text := asString(m["text"])
				if i := strings.IndexAny(text, "\r\n"); i >= 0 {
					first := map[string]any{}
					c.st.rendered(first, text[:i])
					m["urls"] = first["urls"]
				}
			})),
		fault("META-MENTIONS", StaleDerived, "status updates list no mentions",
			messages("msgs", func(c *call, m map[string]any) {
				if m["status"] == true {
					m["mentions"] = []any{}
				}
			})),
		fault("MSG-SHAPE", Shape, "status updates carry no urls, mentions or issues",
			messages("msgs", func(c *call, m map[string]any) {
				if m["status"] == true {
					delete(m, "urls")
					delete(m, "mentions")
					delete(m, "issues")
				}
			})),
		fault("MSG-NO-GV", Shape, "the current user (GET /v1/user) carries gv",
			messages("getCurrentUser", func(c *call, u map[string]any) { u["gv"] = "3" })),

		// --- Only for rooms of one kind, only for singletons -----------------
		fault("UNREAD-MARK-READ", NotStored, "marking read in a one-to-one room answers success and changes nothing",
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				if roomKind(c, c.room) == fixtures.OneToOne {
					return succeed()
				}
				return next()
			})),
		fault("MSG-SEND-STORED", NotStored, "a message sent to a channel is answered but never stored (absent from lists, 404 by id)",
			onSuccess("sendMessage", func(c *call, x *reply) {
				if roomKind(c, c.room) == fixtures.Channel {
					each(x.get(), func(m map[string]any) { c.st.add("b3-lost", asString(m["id"]), 1) })
				}
			}),
			answer("getMessage", func(c *call, next func() *reply) *reply {
				if c.st.get("b3-lost", c.msg) > 0 {
					return refuse(http.StatusNotFound, "no such message")
				}
				return next()
			}),
			onSuccess("listMessages", func(c *call, x *reply) {
				x.set(filter(x.get(), func(m map[string]any) bool { return c.st.get("b3-lost", asString(m["id"])) == 0 }))
			})),
		fault("ROOM-HIDE", IgnoresInput, "hiding works for repository rooms only; other rooms answer success and stay in the list",
			answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				if roomKind(c, c.room) == fixtures.Repo {
					return next()
				}
				if y := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.room+"/unreadItems", nil, nil); !y.ok() {
					return y
				}
				return succeed()
			})),
		fault("SEARCH-Q", IgnoresInput, "a search of several words looks for the first word only",
			onRequest("listMessages", func(c *call) {
				if terms := strings.Fields(c.query().Get("q")); len(terms) > 1 {
					setParam(c, "q", terms[0])
				}
			})),
		fault("MSG-LIST", Shape, "a list holding exactly one message is sent as that message, not as an array",
			onSuccess("listMessages", func(c *call, x *reply) {
				if l, ok := x.get().([]any); ok && len(l) == 1 {
					x.set(l[0])
				}
			})),
		fault("UNREAD-SHAPE", Shape, "an unread list holding exactly one id is sent as that id, not as an array",
			messages("getUnreadItems", func(c *call, u map[string]any) {
				for _, k := range []string{"chat", "mention"} {
					if l := asList(u[k]); len(l) == 1 {
						u[k] = l[0]
					}
				}
			})),
		fault("HTTP-GET-SAFE", Collateral, "listing rooms marks the caller's unread mentions read",
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
		fault("MSG-SEND-EDITEDAT-NULL", Collateral, "an edit also stamps editedAt on the editor's message before it, which was never edited",
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if v, ok := c.st.value("b3-stamped:" + asString(m["id"])); ok && m["editedAt"] == nil {
					m["editedAt"] = v
				}
			}),
			onSuccess("updateMessage", func(c *call, x *reply) {
				edited, ok := x.get().(map[string]any)
				if !ok {
					return
				}
				me, _ := c.caller()
				prev, at := "", ""
				each(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"100"}}, nil).get(), func(m map[string]any) {
					from, _ := m["fromUser"].(map[string]any)
					sent := asString(m["sent"])
					if from != nil && from["id"] == me.ID && sent < asString(edited["sent"]) && sent >= at {
						prev, at = asString(m["id"]), sent
					}
				})
				if prev != "" {
					c.st.setValue("b3-stamped:"+prev, edited["editedAt"])
				}
			})),
	}
}

var (
	spaceRun    = regexp.MustCompile(` {2,}`)
	codeSpan    = regexp.MustCompile(`(?s)<code>.*?</code>`)
	longIssue   = regexp.MustCompile(`<span data-link-type="issue" data-issue="([0-9]{4,})" class="issue">#[0-9]+</span>`)
	queryAnchor = regexp.MustCompile(`<a href="[^"]*\?[^"]*"[^>]*>([^<]*)</a>`)
)

// statusSends remembers in set the id of every status update sent since
// start; isStatus also knows those of the seeded history.
func statusSends(set string) step {
	return onSuccess("sendMessage", func(c *call, x *reply) {
		each(x.get(), func(m map[string]any) {
			if m["status"] == true {
				c.st.add(set, asString(m["id"]), 1)
			}
		})
	})
}

func isStatus(c *call, set, id string) bool {
	if c.st.get(set, id) > 0 {
		return true
	}
	for _, r := range c.st.world.Rooms {
		if r.ID != c.room {
			continue
		}
		for _, m := range r.Messages {
			if m.ID == id {
				return m.Status
			}
		}
	}
	return false
}

// roomKind is the kind (platformType) of a room of the world, "" for a room
// it does not know.
func roomKind(c *call, id string) string {
	for _, r := range c.st.world.Rooms {
		if r.ID == id {
			return r.Kind
		}
	}
	return ""
}

// filterIDs keeps the id strings of a list for which keep is true.
func filterIDs(v any, keep func(id string) bool) []any {
	out := []any{}
	for _, id := range asList(v) {
		if keep(asString(id)) {
			out = append(out, id)
		}
	}
	return out
}

// matchesAll reports whether text holds every term, without regard to case.
func matchesAll(text string, terms []string) bool {
	text = strings.ToLower(text)
	for _, t := range terms {
		if !strings.Contains(text, t) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
