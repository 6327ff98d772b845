package selftest

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// blindFaults are faults written without reading the checks: each is what a
// lazy or sloppy implementer might ship, the least work that still answers
// plausibly, and each breaks a statement of the API document that a client
// can observe. They test the checks from outside, where the other faults
// were written beside them.
func blindFaults() []Fault {
	return []Fault{
		// --- Unread items and marking read ---------------------------------
		fault("UNREAD-MARK-READ", TooWide, "marking messages read in one room also marks read everything unread in the caller's other rooms",
			onSuccess("markUnreadItemsRead", func(c *call, x *reply) {
				me, _ := c.caller()
				for _, r := range c.st.world.Rooms {
					if r.ID == c.room || !contains(r.Members, me.ID) {
						continue
					}
					if u, ok := c.do("GET", "/v1/user/"+c.user+"/rooms/"+r.ID+"/unreadItems", nil, nil).get().(map[string]any); ok {
						markRead(c, r.ID, strs(u["chat"]))
					}
				}
			})),
		fault("UNREAD-MARK-READ", IgnoresInput, "marking read marks only the first id of chat",
			onRequest("markUnreadItemsRead", func(c *call) {
				if b := c.jsonBody(); b != nil && len(asList(b["chat"])) > 1 {
					b["chat"] = asList(b["chat"])[:1]
					c.setJSONBody(b)
				}
			})),
		fault("UNREAD-MARK-READ", StaleDerived, "marking read takes a message out of chat but leaves it in mention",
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				body := c.jsonBody()
				before, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				x := next()
				if x.ok() && body != nil && before != nil {
					me, _ := c.caller()
					for _, id := range asList(body["chat"]) {
						if containsAny(asList(before["mention"]), id) {
							c.st.add("b-kept:"+me.ID+":"+c.room, asString(id), 1)
						}
					}
				}
				return x
			}),
			messages("getUnreadItems", func(c *call, u map[string]any) {
				me, _ := c.caller()
				for _, id := range sortedKeys(c, "b-kept:"+me.ID+":"+c.room) {
					if !containsAny(asList(u["mention"]), any(id)) {
						u["mention"] = append(asList(u["mention"]), id)
					}
				}
			})),
		fault("UNREAD-CHAT", WrongSubject, "a sender's own new messages are listed as unread chat for the sender",
			onSuccess("sendMessage", func(c *call, x *reply) {
				me, _ := c.caller()
				each(x.get(), func(m map[string]any) { c.st.add("b-own:"+me.ID+":"+c.room, asString(m["id"]), 1) })
			}),
			markedReadBy("b-read"),
			messages("getUnreadItems", func(c *call, u map[string]any) {
				me, _ := c.caller()
				for _, id := range sortedKeys(c, "b-own:"+me.ID+":"+c.room) {
					if c.st.get("b-read:"+me.ID, id) == 0 && !containsAny(asList(u["chat"]), any(id)) {
						u["chat"] = append(asList(u["chat"]), id)
					}
				}
			})),
		fault("UNREAD-CHAT", TooWide, "unread chat of a room lists the caller's unread messages of every room",
			messages("getUnreadItems", func(c *call, u map[string]any) {
				me, _ := c.caller()
				for _, r := range c.st.world.Rooms {
					if r.ID == c.room || !contains(r.Members, me.ID) {
						continue
					}
					if o, ok := c.do("GET", "/v1/user/"+c.user+"/rooms/"+r.ID+"/unreadItems", nil, nil).get().(map[string]any); ok {
						u["chat"] = append(asList(u["chat"]), asList(o["chat"])...)
					}
				}
			})),
		fault("UNREAD-CHAT", StaleDerived, "unread items look at the room's newest 50 messages only",
			messages("getUnreadItems", func(c *call, u map[string]any) {
				recent := ids(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"50"}}, nil).get())
				for _, k := range []string{"chat", "mention"} {
					keep := []any{}
					for _, id := range asList(u[k]) {
						if slices.Contains(recent, asString(id)) {
							keep = append(keep, id)
						}
					}
					u[k] = keep
				}
			})),
		fault("UNREAD-MENTION", TooWide, "mention lists every unread message that mentions anyone, not only the caller",
			messages("getUnreadItems", func(c *call, u map[string]any) {
				each(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"100"}}, nil).get(), func(m map[string]any) {
					id := m["id"]
					if len(asList(m["mentions"])) > 0 && containsAny(asList(u["chat"]), id) && !containsAny(asList(u["mention"]), id) {
						u["mention"] = append(asList(u["mention"]), id)
					}
				})
			})),
		fault("UNREAD-ROOM-COUNTS", WrongSubject, "every caller sees the first user's unreadItems and mentions on rooms",
			onSuccess("rooms", func(c *call, x *reply) {
				me, _ := c.caller()
				if me.ID == c.st.first.ID {
					return
				}
				theirs := map[string]map[string]any{}
				each(c.doAs("GET", "/v1/user/me/rooms", nil, nil, &c.st.first.Token).get(), func(r map[string]any) { theirs[asString(r["id"])] = r })
				eachRoom(c, x, func(r map[string]any) {
					if t, ok := theirs[asString(r["id"])]; ok {
						r["unreadItems"], r["mentions"] = t["unreadItems"], t["mentions"]
					}
				})
			})),
		fault("UNREAD-ROOM-COUNTS", StaleDerived, "rooms in the channels list and embedded in organisations and repositories count 0 unread and 0 mentions",
			rooms("listUserChannels listUserOrgs listUserRepos", func(c *call, r map[string]any) {
				for _, k := range []string{"unreadItems", "mentions"} {
					if _, ok := r[k]; ok {
						r[k] = 0
					}
				}
			})),
		fault("UNREAD-FLAG", WrongSubject, "the unread flag is the first user's, whoever asks",
			onSuccess("listMessages getMessage", func(c *call, x *reply) {
				me, _ := c.caller()
				if me.ID == c.st.first.ID {
					return
				}
				q := c.query()
				q.Del("access_token")
				flags := map[string]any{}
				each(c.doAs("GET", c.r.URL.Path, q, nil, &c.st.first.Token).get(), func(m map[string]any) { flags[asString(m["id"])] = m["unread"] })
				each(x.get(), func(m map[string]any) {
					if f, ok := flags[asString(m["id"])]; ok {
						m["unread"] = f
					}
				})
			})),
		fault("UNREAD-FLAG", StaleDerived, "the unread flag a user first saw on a message never changes for that user",
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				me, _ := c.caller()
				key := "b-flag:" + me.ID + ":" + asString(m["id"])
				if v, ok := c.st.value(key); ok {
					m["unread"] = v
				} else {
					c.st.setValue(key, m["unread"])
				}
			})),
		fault("UNREAD-READBY", TooWide, "marking messages read raises readBy of every new message of the room, named or not",
			messages("msgs", func(c *call, m map[string]any) {
				m["readBy"] = asInt(m["readBy"]) + c.st.get("b-extra", asString(m["id"]))
			}),
			recordSends("b-new"),
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				named := strs(c.jsonBody()["chat"])
				x := next()
				if x.ok() {
					for _, id := range c.st.keys("b-new:" + c.room) {
						if !slices.Contains(named, id) {
							c.st.add("b-extra", id, 1)
						}
					}
				}
				return x
			})),
		fault("UNREAD-READBY", NotStored, "readBy is raised in the reader's own view only; everyone else sees the old count",
			messages("msgs", func(c *call, m map[string]any) {
				me, _ := c.caller()
				n := 0
				for _, r := range c.st.keys("b-readers:" + asString(m["id"])) {
					if r != me.ID {
						n++
					}
				}
				m["readBy"] = asInt(m["readBy"]) - n
			}),
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				body := c.jsonBody()
				before, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				x := next()
				if me, _ := c.caller(); x.ok() && body != nil && before != nil {
					for _, id := range asList(body["chat"]) {
						if containsAny(asList(before["chat"]), id) {
							c.st.add("b-readers:"+asString(id), me.ID, 1)
						}
					}
				}
				return x
			})),

		// --- Edits ----------------------------------------------------------
		fault("MSG-EDIT-PERSISTED", NotStored, "an edit is shown to its author only; other users keep reading the text before it",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				prev, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				x := next()
				if me, _ := c.caller(); x.ok() && prev != nil {
					before := map[string]any{}
					for _, k := range textFields {
						before[k] = prev[k]
					}
					c.st.setValue("b-before:"+c.msg, lastWrite{writer: me.ID, before: before})
				}
				return x
			}),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				v, ok := c.st.value("b-before:" + asString(m["id"]))
				w, _ := v.(lastWrite)
				if me, _ := c.caller(); ok && w.writer != me.ID {
					for k, old := range w.before {
						m[k] = old
					}
				}
			})),
		fault("MSG-EDIT-PERSISTED", StaleDerived, "lists show editedAt null after an edit; the edit's answer and reads by id are right",
			messages("listMessages", func(c *call, m map[string]any) {
				if c.st.get("b-edited", asString(m["id"])) > 0 {
					m["editedAt"] = nil
				}
			}),
			countEdits("b-edited")),
		fault("MSG-EDIT-PERSISTED", StaleDerived, "a message read by id is cached per user at its first read; later reads by id show that copy",
			onSuccess("getMessage", func(c *call, x *reply) {
				me, _ := c.caller()
				key := "b-cache:" + me.ID + ":" + c.msg
				if v, ok := c.st.value(key); ok {
					x.setRaw(slices.Clone(v.([]byte)))
					return
				}
				c.st.setValue(key, slices.Clone(x.bytes()))
			})),
		fault("MSG-EDIT", WrongSubject, "an edit changes the caller's newest message of the room, whichever message the path names",
			onRequest("updateMessage", func(c *call) {
				me, _ := c.caller()
				newest, at := "", ""
				each(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"100"}}, nil).get(), func(m map[string]any) {
					from, _ := m["fromUser"].(map[string]any)
					if from != nil && from["id"] == me.ID && asString(m["sent"]) >= at {
						newest, at = asString(m["id"]), asString(m["sent"])
					}
				})
				if newest != "" {
					c.r.URL.Path = "/v1/rooms/" + c.room + "/chatMessages/" + newest
				}
			})),
		fault("MSG-EDIT-V-INC", WrongSubject, "after an edit v is 1 plus the number of edits the server has made to any message",
			messages("msgs", func(c *call, m map[string]any) {
				if v, ok := c.st.value("b-v:" + asString(m["id"])); ok {
					m["v"] = v
				}
			}),
			onSuccess("updateMessage", func(c *call, x *reply) {
				c.st.setValue("b-v:"+c.msg, 1+c.st.add("b-all-edits", "", 1))
			})),
		fault("MSG-EDIT-EDITEDAT", StaleDerived, "editedAt keeps the time of the first edit through later edits",
			messages("msgs", func(c *call, m map[string]any) {
				if v, ok := c.st.value("b-first-edit:" + asString(m["id"])); ok {
					m["editedAt"] = v
				}
			}),
			onSuccess("updateMessage", func(c *call, x *reply) {
				if _, ok := c.st.value("b-first-edit:" + c.msg); ok {
					return
				}
				if m, ok := x.get().(map[string]any); ok && m["editedAt"] != nil {
					c.st.setValue("b-first-edit:"+c.msg, m["editedAt"])
				}
			})),

		// --- Sending -----------------------------------------------------------
		fault("MSG-SEND-TEXT", NotStored, "a text longer than 255 characters is cut to 255",
			rewriteText("sendMessage", func(s string) string {
				if utf8.RuneCountInString(s) <= 255 {
					return s
				}
				return string([]rune(s)[:255])
			})),
		fault("MSG-SEND-TEXT", NotStored, "line breaks in a sent text are stored as spaces",
			rewriteText("sendMessage", func(s string) string { return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s) })),
		fault("MSG-SEND-STATUS", IgnoresInput, "status true is honoured only when the text starts with /me",
			onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil && b["status"] == true && !strings.HasPrefix(asString(b["text"]), "/me") {
					delete(b, "status")
					c.setJSONBody(b)
				}
			})),
		fault("MSG-SEND-STORED", NotStored, "a message sent since start is listed but cannot be read by id (404)",
			recordSends("b-new"),
			answer("getMessage", func(c *call, next func() *reply) *reply {
				if c.st.get("b-new", c.msg) > 0 {
					return refuse(http.StatusNotFound, "no such message")
				}
				return next()
			})),
		fault("MSG-SEND-EDITEDAT-NULL", NotStored, "a new message is answered with editedAt null but read back with editedAt equal to sent",
			recordSends("b-new"),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if c.st.get("b-new", asString(m["id"])) > 0 && m["editedAt"] == nil {
					m["editedAt"] = m["sent"]
				}
			})),
		fault("MSG-GET-ONE", NotStored, "a message older than the room's newest 100 cannot be read by id (404)",
			answer("getMessage", func(c *call, next func() *reply) *reply {
				x := next()
				if !x.ok() {
					return x
				}
				if !slices.Contains(ids(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"100"}}, nil).get()), c.msg) {
					return refuse(http.StatusNotFound, "no such message")
				}
				return x
			})),

		// --- Pagination, search, limits ---------------------------------------
		fault("PAGE-BEFOREID-WALK", IgnoresInput, "a beforeId page past the oldest message answers the newest page instead of an empty one",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				if !has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") {
					return next()
				}
				x := next()
				if x.ok() && len(asList(x.get())) == 0 {
					q.Del("beforeId")
					q.Del("access_token")
					return c.do("GET", c.r.URL.Path, q, nil)
				}
				return x
			})),
		fault("PAGE-BEFOREID", IgnoresInput, "beforeId is ignored in a search (with q)",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("q") != "" {
					setParam(c, "beforeId", "")
				}
			})),
		fault("PAGE-AFTERID", IgnoresInput, "afterId is ignored in a search (with q)",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("q") != "" {
					setParam(c, "afterId", "")
				}
			})),
		fault("PAGE-LIMIT", IgnoresInput, "limit counts the seeded history only: a newest page also holds every message sent since start",
			recordSends("b-new"),
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				if has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") || has(q, "q") || has(q, "skip") {
					return next()
				}
				x := next()
				fresh := c.st.keys("b-new:" + c.room)
				if !x.ok() || len(fresh) == 0 {
					return x
				}
				list := asList(x.get())
				have := ids(list)
				each(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"100"}}, nil).get(), func(m map[string]any) {
					if id := asString(m["id"]); slices.Contains(fresh, id) && !slices.Contains(have, id) {
						list = append(list, m)
					}
				})
				sortBySent(list)
				x.set(list)
				return x
			})),
		fault("PAGE-AROUNDID", IgnoresInput, "aroundId ignores limit and answers 100 messages",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("aroundId") != "" {
					setParam(c, "limit", "100")
				}
			})),
		fault("PAGE-SKIP", IgnoresInput, "skip is ignored when beforeId is given",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("beforeId") != "" {
					setParam(c, "skip", "")
				}
			})),
		fault("SEARCH-Q", WrongSubject, "a search looks at the room's newest 50 messages only",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				terms := strings.Fields(strings.ToLower(q.Get("q")))
				if len(terms) == 0 || has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") || has(q, "skip") {
					return next()
				}
				limit := 50
				if n, ok := c.intParam("limit"); ok && n > 0 {
					limit = min(n, 100)
				}
				x := c.do("GET", c.r.URL.Path, url.Values{"limit": {"50"}}, nil)
				if !x.ok() {
					return next()
				}
				found := filter(x.get(), func(m map[string]any) bool {
					text := strings.ToLower(asString(m["text"]))
					for _, t := range terms {
						if !strings.Contains(text, t) {
							return false
						}
					}
					return true
				})
				l := asList(found)
				x.set(l[max(0, len(l)-limit):])
				return x
			})),
		fault("SEARCH-Q", TooWide, "a search returns matches from every room of the caller, not only the room of the path",
			onSuccess("listMessages", func(c *call, x *reply) {
				q := c.query()
				if !has(q, "q") || has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") {
					return
				}
				me, _ := c.caller()
				list := asList(x.get())
				search := url.Values{"q": {q.Get("q")}}
				for _, r := range c.st.world.Rooms {
					if r.ID != c.room && contains(r.Members, me.ID) {
						list = append(list, asList(c.do("GET", "/v1/rooms/"+r.ID+"/chatMessages", search, nil).get())...)
					}
				}
				sortBySent(list)
				limit := 50
				if n, ok := c.intParam("limit"); ok && n > 0 {
					limit = min(n, 100)
				}
				x.set(list[max(0, len(list)-limit):])
			})),
		fault("LIMIT-CAP", IgnoresInput, "a limit above 100 is clamped on the newest page but honoured on beforeId pages",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				n, err := strconv.Atoi(q.Get("limit"))
				if err != nil || n <= 100 || !has(q, "beforeId") {
					return next()
				}
				x := next()
				return olderToo(c, q, x, n-len(asList(x.get())))
			})),
		fault("LIMIT-100", IgnoresInput, "limit=100 gives 50 messages on beforeId pages",
			onRequest("listMessages", func(c *call) {
				if q := c.query(); q.Get("limit") == "100" && q.Get("beforeId") != "" {
					setParam(c, "limit", "50")
				}
			})),
		fault("LIMIT-SKIP-5000", IgnoresInput, "skip above 2500 answers an empty page",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				x := next()
				if n, ok := c.intParam("skip"); ok && n > 2500 && x.ok() {
					x.set([]any{})
				}
				return x
			})),
		fault("MSG-LIST", Shape, "an empty page is {} instead of []",
			onSuccess("listMessages", func(c *call, x *reply) {
				if l, ok := x.get().([]any); ok && len(l) == 0 {
					x.set(map[string]any{})
				}
			})),

		// --- Rooms, channels, users ------------------------------------------
		fault("ROOM-HIDE", IgnoresInput, "hiding a room hides the first room of the user's list, whichever room the path names",
			onRequest("hideUserRoom", func(c *call) {
				if l := ids(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get()); len(l) > 0 {
					c.r.URL.Path = "/v1/user/" + c.user + "/rooms/" + l[0]
				}
			})),
		fault("ROOM-ONE-TO-ONE", WrongSubject, "a one-to-one room's user is the room's last member: right for one participant, the caller for the other",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["oneToOne"] != true {
					return
				}
				for _, w := range c.st.world.Rooms {
					if w.ID == asString(r["id"]) && len(w.Members) > 0 {
						t := c.st.byID[w.Members[len(w.Members)-1]].Token
						if l := asList(c.doAs("GET", "/v1/user", nil, nil, &t).get()); len(l) == 1 {
							r["user"] = l[0]
						}
					}
				}
			})),
		fault("ROOM-SHAPE", Shape, "rooms embedded in organisation and repository entries have a url without its leading /",
			rooms("listUserOrgs listUserRepos", func(c *call, r map[string]any) { r["url"] = strings.TrimPrefix(asString(r["url"]), "/") })),
		fault("ROOM-SHAPE", Shape, "the channels list gives lastAccessTime as epoch milliseconds",
			rooms("listUserChannels", func(c *call, r map[string]any) {
				if t, err := time.Parse(time.RFC3339Nano, asString(r["lastAccessTime"])); err == nil {
					r["lastAccessTime"] = t.UnixMilli()
				}
			})),
		fault("USER-SHAPE", Shape, "the other participant of a one-to-one room has no displayName",
			rooms("rooms", func(c *call, r map[string]any) {
				if u, ok := r["user"].(map[string]any); ok {
					delete(u, "displayName")
				}
			})),
		fault("MSG-NO-GV", Shape, "the other participant of a one-to-one room carries gv",
			rooms("rooms", func(c *call, r map[string]any) {
				if u, ok := r["user"].(map[string]any); ok {
					u["gv"] = "4"
				}
			})),
		fault("CHANNEL-LIST", Shape, "an empty channels list is null",
			onSuccess("listUserChannels", func(c *call, x *reply) {
				if l, ok := x.get().([]any); ok && len(l) == 0 {
					x.setRaw([]byte("null"))
				}
			})),

		// --- Message fields on one path ---------------------------------------
		fault("MSG-SHAPE", Shape, "a message read by id gives sent as epoch milliseconds",
			messages("getMessage", func(c *call, m map[string]any) {
				if t, err := time.Parse(time.RFC3339Nano, asString(m["sent"])); err == nil {
					m["sent"] = t.UnixMilli()
				}
			})),
		fault("MSG-SHAPE", Shape, "search results give fromUser as the sender's id string",
			messages("listMessages", func(c *call, m map[string]any) {
				if from, ok := m["fromUser"].(map[string]any); ok && c.query().Get("q") != "" {
					m["fromUser"] = from["id"]
				}
			})),
		fault("MSG-META-EMPTY", Shape, "search results carry the match score in meta",
			messages("listMessages", func(c *call, m map[string]any) {
				if c.query().Get("q") != "" {
					m["meta"] = map[string]any{"score": 1.5}
				}
			})),

		// --- Rendering and metadata -------------------------------------------
		fault("RENDER-ESCAPE", Shape, "only the first line of a text is escaped; raw HTML after a line break passes through",
			messages("msgs", func(c *call, m map[string]any) {
				h := asString(m["html"])
				i := strings.Index(h, "<br>")
				if j := strings.Index(h, "</p>"); j >= 0 && (i < 0 || j < i) {
					i = j
				}
				if i >= 0 {
					m["html"] = h[:i] + htmlUnescape(h[i:])
				}
			})),
		fault("RENDER-ESCAPE", Shape, "an edited message's html is the raw new text, neither escaped nor rendered",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				text := asString(c.jsonBody()["text"])
				x := next()
				if m, ok := x.get().(map[string]any); ok && x.ok() {
					c.st.setValue("b-raw:"+c.msg, text)
					m["html"] = text
				}
				return x
			}),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if v, ok := c.st.value("b-raw:" + asString(m["id"])); ok {
					m["html"] = v
				}
			})),
		fault("RENDER-MENTION", Shape, "only the first mention of a text is wrapped in a span",
			messages("msgs", func(c *call, m map[string]any) {
				n := 0
				m["html"] = mentionSpan.ReplaceAllStringFunc(asString(m["html"]), func(s string) string {
					if n++; n == 1 {
						return s
					}
					return mentionSpan.ReplaceAllString(s, "@$1")
				})
			})),
		fault("RENDER-LINK", Shape, "http links (not https) are left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = httpAnchor.ReplaceAllString(asString(m["html"]), "$1")
			})),
		fault("META-URLS", WrongSubject, "urls lists only the first URL of the text",
			messages("msgs", func(c *call, m map[string]any) {
				if l := asList(m["urls"]); len(l) > 1 {
					m["urls"] = l[:1]
				}
			})),
		fault("META-MENTIONS", WrongSubject, "every mention's userId is the first user's id",
			messages("msgs", func(c *call, m map[string]any) {
				each(m["mentions"], func(r map[string]any) { r["userId"] = c.st.first.ID })
			})),
		fault("META-ISSUES", NotStored, "issues are listed in the send's answer only; lists and reads by id say []",
			messages("listMessages getMessage", func(c *call, m map[string]any) { m["issues"] = []any{} })),

		// --- Safety of reads, authentication ----------------------------------
		fault("HTTP-GET-SAFE", Collateral, "a search marks the messages it finds read",
			onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					markRead(c, c.room, ids(x.get()))
				}
			})),
		fault("HTTP-GET-SAFE", Collateral, "every read of a message by id adds one to its readBy, whoever reads it",
			messages("msgs", func(c *call, m map[string]any) {
				m["readBy"] = asInt(m["readBy"]) + c.st.get("b-views", asString(m["id"]))
			}),
			onSuccess("getMessage", func(c *call, x *reply) { c.st.add("b-views", c.msg, 1) })),
		fault("AUTH-QUERY-TOKEN", IgnoresInput, "the access_token parameter is honoured on GET only; writes ignore it",
			func(c *call, next func() *reply) *reply {
				if c.r.Method != http.MethodGet {
					q := c.query()
					q.Del("access_token")
					c.setQuery(q)
				}
				return next()
			}),
		fault("AUTH-UNKNOWN-TOKEN", IgnoresInput, "a token that starts with a real token, anything appended, is accepted as that token",
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
	}
}

var httpAnchor = regexp.MustCompile(`<a href="http://[^"]*"[^>]*>([^<]*)</a>`)

// eachRoom applies f to every room of a successful reply of a rooms-bearing
// operation: the rooms of a list and those embedded in entries.
func eachRoom(c *call, x *reply, f func(r map[string]any)) {
	switch c.op {
	case "listUserOrgs", "listUserRepos":
		each(x.get(), func(e map[string]any) {
			if r, ok := e["room"].(map[string]any); ok {
				f(r)
			}
		})
	default:
		each(x.get(), f)
	}
}

// recordSends remembers every message sent since start, in set (by id) and
// in set:<room>.
func recordSends(set string) step {
	return onSuccess("sendMessage", func(c *call, x *reply) {
		each(x.get(), func(m map[string]any) {
			id := asString(m["id"])
			c.st.add(set, id, 1)
			c.st.add(set+":"+c.room, id, 1)
		})
	})
}

// markedReadBy remembers, in set:<user id>, the ids each user has marked
// read.
func markedReadBy(set string) step {
	return answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
		body := c.jsonBody()
		x := next()
		if me, _ := c.caller(); x.ok() {
			for _, id := range strs(body["chat"]) {
				c.st.add(set+":"+me.ID, id, 1)
			}
		}
		return x
	})
}

// sortedKeys returns the keys of a set in order, so answers do not depend
// on map order.
func sortedKeys(c *call, set string) []string {
	k := c.st.keys(set)
	sort.Strings(k)
	return k
}

// sortBySent orders messages by sent time, then id: oldest first, as the
// reference lists them.
func sortBySent(list []any) {
	key := func(v any) string {
		m, _ := v.(map[string]any)
		return asString(m["sent"]) + asString(m["id"])
	}
	sort.SliceStable(list, func(i, j int) bool { return key(list[i]) < key(list[j]) })
}
