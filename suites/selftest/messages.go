package selftest

import (
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chatrooms/conformance/fixtures"
)

// messageFaults break the requirements of messages (MSG-*): the message list
// and the Message object, reading one message, sending and editing.
func messageFaults() []Fault {
	return []Fault{
		FirstCatalogue.fault("MSG-LIST/shape", "the message list is wrapped in an object",
			onSuccess("listMessages", func(c *call, x *reply) { x.set(map[string]any{"messages": x.get()}) })),
		ByClass.fault("MSG-LIST/shape#2", "each message of a list is wrapped in an object",
			onSuccess("listMessages", func(c *call, x *reply) {
				var out []any
				for _, m := range asList(x.get()) {
					out = append(out, map[string]any{"message": m})
				}
				x.set(append([]any{}, out...))
			})),
		ByClass.fault("MSG-LIST/shape#3", "a list is an object keyed by message id",
			onSuccess("listMessages", func(c *call, x *reply) {
				out := map[string]any{}
				each(x.get(), func(m map[string]any) { out[asString(m["id"])] = m })
				x.set(out)
			})),
		BlindRound1.fault("MSG-LIST/shape#4", "an empty page is {} instead of []",
			onSuccess("listMessages", func(c *call, x *reply) {
				if l, ok := x.get().([]any); ok && len(l) == 0 {
					x.set(map[string]any{})
				}
			})),
		BlindRound2.fault("MSG-LIST/shape#5", "a list holding exactly one message is sent as that message, not as an array",
			onSuccess("listMessages", func(c *call, x *reply) {
				if l, ok := x.get().([]any); ok && len(l) == 1 {
					x.set(l[0])
				}
			})),
		ByClass.fault("MSG-LIST/intermittent", "one list in three is wrapped in an object",
			everyNth(3, "listMessages", onSuccess("listMessages", func(c *call, x *reply) { x.set(map[string]any{"messages": x.get()}) }))),

		FirstCatalogue.fault("MSG-SHAPE/shape", "a sent message carries no sent time",
			messages("sendMessage", func(c *call, m map[string]any) { delete(m, "sent") })),
		ByClass.fault("MSG-SHAPE/shape#2", "sent in lists is not in UTC",
			listedMessage(func(c *call, m map[string]any) { m["sent"] = strings.TrimSuffix(asString(m["sent"]), "Z") + "+02:00" })),
		ByClass.fault("MSG-SHAPE/shape#3", "editedAt is an empty string until an edit",
			listedMessage(func(c *call, m map[string]any) {
				if m["editedAt"] == nil {
					m["editedAt"] = ""
				}
			})),
		ByClass.fault("MSG-SHAPE/shape#4", "urls lists plain strings",
			messages("msgs", func(c *call, m map[string]any) {
				var out []any
				each(m["urls"], func(u map[string]any) { out = append(out, u["url"]) })
				if len(out) > 0 {
					m["urls"] = out
				}
			})),
		ByClass.fault("MSG-SHAPE/shape#5", "empty urls, mentions and issues are left out of messages",
			messages("msgs", func(c *call, m map[string]any) {
				for _, k := range []string{"urls", "mentions", "issues"} {
					if l, ok := m[k].([]any); ok && len(l) == 0 {
						delete(m, k)
					}
				}
			})),
		BlindRound1.fault("MSG-SHAPE/shape#6", "a message read by id gives sent as epoch milliseconds",
			messages("getMessage", func(c *call, m map[string]any) {
				if t, err := time.Parse(time.RFC3339Nano, asString(m["sent"])); err == nil {
					m["sent"] = t.UnixMilli()
				}
			})),
		BlindRound1.fault("MSG-SHAPE/shape#7", "search results give fromUser as the sender's id string",
			messages("listMessages", func(c *call, m map[string]any) {
				if from, ok := m["fromUser"].(map[string]any); ok && c.query().Get("q") != "" {
					m["fromUser"] = from["id"]
				}
			})),
		BlindRound2.fault("MSG-SHAPE/shape#8", "status updates carry no urls, mentions or issues",
			messages("msgs", func(c *call, m map[string]any) {
				if m["status"] == true {
					delete(m, "urls")
					delete(m, "mentions")
					delete(m, "issues")
				}
			})),
		ByClass.fault("MSG-SHAPE/intermittent", "one list in three has messages without sent", everyNth(3, "listMessages", listedMessage(func(c *call, m map[string]any) { delete(m, "sent") }))),

		FirstCatalogue.fault("MSG-META-EMPTY/shape", "meta holds data in a message read by id",
			messages("getMessage", func(c *call, m map[string]any) { m["meta"] = map[string]any{"source": "web"} })),
		ByClass.fault("MSG-META-EMPTY/shape#2", "meta is null in a sent message", sentMessage(func(c *call, m map[string]any) { m["meta"] = nil })),
		ByClass.fault("MSG-META-EMPTY/shape#3", "meta is an array in lists", listedMessage(func(c *call, m map[string]any) { m["meta"] = []any{} })),
		BlindRound1.fault("MSG-META-EMPTY/shape#4", "search results carry the match score in meta",
			messages("listMessages", func(c *call, m map[string]any) {
				if c.query().Get("q") != "" {
					m["meta"] = map[string]any{"score": 1.5}
				}
			})),
		BlindRound2.fault("MSG-META-EMPTY/shape#5", "an edited message keeps its previous text in meta",
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
		ByClass.fault("MSG-META-EMPTY/intermittent", "one list in three has meta with data",
			everyNth(3, "listMessages", listedMessage(func(c *call, m map[string]any) { m["meta"] = map[string]any{"source": "web"} }))),

		FirstCatalogue.fault("MSG-NO-GV/shape", "messages carry gv",
			messages("listMessages", func(c *call, m map[string]any) { m["gv"] = "3" })),
		ByClass.fault("MSG-NO-GV/shape#2", "a sent message carries gv", sentMessage(func(c *call, m map[string]any) { m["gv"] = "3" })),
		ByClass.fault("MSG-NO-GV/shape#3", "a message's sender carries gv",
			messages("msgs", func(c *call, m map[string]any) {
				if u, ok := m["fromUser"].(map[string]any); ok {
					u["gv"] = "3"
				}
			})),
		BlindRound1.fault("MSG-NO-GV/shape#4", "the other participant of a one-to-one room carries gv",
			rooms("rooms", func(c *call, r map[string]any) {
				if u, ok := r["user"].(map[string]any); ok {
					u["gv"] = "4"
				}
			})),
		BlindRound2.fault("MSG-NO-GV/shape#5", "the current user (GET /v1/user) carries gv",
			messages("getCurrentUser", func(c *call, u map[string]any) { u["gv"] = "3" })),
		ByClass.fault("MSG-NO-GV/intermittent", "one message read in three carries gv", everyNth(3, "getMessage", messages("getMessage", func(c *call, m map[string]any) { m["gv"] = "3" }))),

		FirstCatalogue.fault("MSG-GET-ONE/wrong-subject", "reading one message answers the room's newest",
			onSuccess("getMessage", func(c *call, x *reply) {
				page := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", map[string][]string{"limit": {"1"}}, nil)
				if list := asList(page.get()); len(list) == 1 {
					x.set(list[0])
				}
			})),
		ByClass.fault("MSG-GET-ONE/wrong-subject#2", "reading one message answers the one before it",
			onSuccess("getMessage", func(c *call, x *reply) {
				prev := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", map[string][]string{"beforeId": {c.msg}, "limit": {"1"}}, nil)
				if l := asList(prev.get()); len(l) == 1 {
					x.set(l[0])
				}
			})),
		BlindRound1.fault("MSG-GET-ONE/not-stored", "a message older than the room's newest 100 cannot be read by id (404)",
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
		ByClass.fault("MSG-GET-ONE/shape", "one message comes as an array holding it", onSuccess("getMessage", func(c *call, x *reply) { x.set([]any{x.get()}) })),
		BlindRound2.fault("MSG-GET-ONE/shape#2", "with the token in the query, a message read by id comes as an array holding it",
			onSuccess("getMessage", func(c *call, x *reply) {
				if c.query().Has("access_token") {
					x.set([]any{x.get()})
				}
			})),
		ByClass.fault("MSG-GET-ONE/intermittent", "one read in three answers the room's newest message",
			everyNth(3, "getMessage", onSuccess("getMessage", func(c *call, x *reply) {
				if l := asList(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", map[string][]string{"limit": {"1"}}, nil).get()); len(l) == 1 {
					x.set(l[0])
				}
			}))),

		FirstCatalogue.fault("MSG-SEND-200/shape", "sending answers 201",
			onReply("sendMessage", func(c *call, x *reply) {
				if x.status == http.StatusOK {
					x.status = http.StatusCreated
				}
			})),
		ByClass.fault("MSG-SEND-200/shape#2", "sending answers 202 with an empty body",
			onSuccess("sendMessage", func(c *call, x *reply) {
				x.status = http.StatusAccepted
				x.setRaw([]byte{})
			})),
		ByClass.fault("MSG-SEND-200/shape#3", `sending answers {"success":true} instead of the message`,
			onSuccess("sendMessage", func(c *call, x *reply) { x.set(map[string]any{"success": true}) })),
		BlindRound2.fault("MSG-SEND-200/shape#4", "sending a status update answers 201",
			onSuccess("sendMessage", func(c *call, x *reply) {
				if b := c.jsonBody(); b != nil && b["status"] == true {
					x.status = http.StatusCreated
				}
			})),
		ByClass.fault("MSG-SEND-200/intermittent", "one send in three answers 201",
			everyNth(3, "sendMessage", onSuccess("sendMessage", func(c *call, x *reply) { x.status = http.StatusCreated }))),

		FirstCatalogue.fault("MSG-SEND-DEFAULTS/shape", "a new message says readBy 1",
			messages("sendMessage", func(c *call, m map[string]any) { m["readBy"] = 1 })),
		ByClass.fault("MSG-SEND-DEFAULTS/shape#2", "a new message says v 0", sentMessage(func(c *call, m map[string]any) { m["v"] = 0 })),
		ByClass.fault("MSG-SEND-DEFAULTS/shape#3", "a new message says unread true", sentMessage(func(c *call, m map[string]any) { m["unread"] = true })),
		BlindRound2.fault("MSG-SEND-DEFAULTS/shape#4", "a status update is answered with v 0",
			messages("sendMessage", func(c *call, m map[string]any) {
				if m["status"] == true {
					m["v"] = 0
				}
			})),
		ByClass.fault("MSG-SEND-DEFAULTS/intermittent", "one new message in three says readBy 1", everyNth(3, "sendMessage", sentMessage(func(c *call, m map[string]any) { m["readBy"] = 1 }))),

		BlindRound1.fault("MSG-SEND-EDITEDAT-NULL/not-stored", "a new message is answered with editedAt null but read back with editedAt equal to sent",
			recordSends("b-new"),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if c.st.get("b-new", asString(m["id"])) > 0 && m["editedAt"] == nil {
					m["editedAt"] = m["sent"]
				}
			})),
		BlindRound2.fault("MSG-SEND-EDITEDAT-NULL/collateral", "an edit also stamps editedAt on the editor's message before it, which was never edited",
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
				// The message right before, by sent time and then id (the
				// reference's ids grow within a millisecond): two sends in
				// one millisecond must not hide it.
				key := func(m map[string]any) string { return asString(m["sent"]) + "/" + asString(m["id"]) }
				prev, at := "", ""
				each(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"100"}}, nil).get(), func(m map[string]any) {
					from, _ := m["fromUser"].(map[string]any)
					if k := key(m); from != nil && from["id"] == me.ID && k < key(edited) && k >= at {
						prev, at = asString(m["id"]), k
					}
				})
				if prev != "" {
					c.st.setValue("b3-stamped:"+prev, edited["editedAt"])
				}
			})),
		FirstCatalogue.fault("MSG-SEND-EDITEDAT-NULL/shape", "a new message has editedAt set",
			messages("sendMessage", func(c *call, m map[string]any) { m["editedAt"] = m["sent"] })),
		ByClass.fault("MSG-SEND-EDITEDAT-NULL/shape#2", "a new message has no editedAt at all", sentMessage(func(c *call, m map[string]any) { delete(m, "editedAt") })),
		ByClass.fault("MSG-SEND-EDITEDAT-NULL/shape#3", "a new message has editedAt as an empty string", sentMessage(func(c *call, m map[string]any) { m["editedAt"] = "" })),
		BlindRound2.fault("MSG-SEND-EDITEDAT-NULL/shape#4", "a status update is answered with editedAt equal to sent",
			messages("sendMessage", func(c *call, m map[string]any) {
				if m["status"] == true {
					m["editedAt"] = m["sent"]
				}
			})),
		ByClass.fault("MSG-SEND-EDITEDAT-NULL/intermittent", "one new message in three has editedAt set",
			everyNth(3, "sendMessage", sentMessage(func(c *call, m map[string]any) { m["editedAt"] = m["sent"] }))),

		ByClass.fault("MSG-SEND-TEXT/wrong-subject", "the message is sent as the first user",
			onRequest("sendMessage", func(c *call) { setToken(c.r, c.st.first.Token) })),
		FirstCatalogue.fault("MSG-SEND-TEXT/not-stored", "non-ASCII characters are dropped from the text",
			rewriteText("sendMessage", func(s string) string { return strings.Map(asciiOnly, s) })),
		ByClass.fault("MSG-SEND-TEXT/not-stored#2", "the text is stored with surrounding spaces trimmed", rewriteText("sendMessage", strings.TrimSpace)),
		ByClass.fault("MSG-SEND-TEXT/not-stored#3", "the text is stored HTML-escaped", rewriteText("sendMessage", htmlEscape)),
		BlindRound1.fault("MSG-SEND-TEXT/not-stored#4", "a text longer than 255 characters is cut to 255",
			rewriteText("sendMessage", func(s string) string {
				if utf8.RuneCountInString(s) <= 255 {
					return s
				}
				return string([]rune(s)[:255])
			})),
		BlindRound1.fault("MSG-SEND-TEXT/not-stored#5", "line breaks in a sent text are stored as spaces",
			rewriteText("sendMessage", func(s string) string { return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s) })),
		BlindRound2.fault("MSG-SEND-TEXT/not-stored#6", "runs of spaces in a sent text are stored as one space",
			rewriteText("sendMessage", func(s string) string { return spaceRun.ReplaceAllString(s, " ") })),
		ByClass.fault("MSG-SEND-TEXT/intermittent", "one send in three drops non-ASCII characters",
			everyNth(3, "sendMessage", rewriteText("sendMessage", func(s string) string { return strings.Map(asciiOnly, s) }))),

		FirstCatalogue.fault("MSG-SEND-STATUS/ignores-input", "the status flag is ignored",
			onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil {
					delete(b, "status")
					c.setJSONBody(b)
				}
			})),
		BlindRound1.fault("MSG-SEND-STATUS/ignores-input#2", "status true is honoured only when the text starts with /me",
			onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil && b["status"] == true && !strings.HasPrefix(asString(b["text"]), "/me") {
					delete(b, "status")
					c.setJSONBody(b)
				}
			})),
		ByClass.fault("MSG-SEND-STATUS/wrong-subject", "every message is sent as a status update",
			onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil {
					b["status"] = true
					c.setJSONBody(b)
				}
			})),
		BlindRound2.fault("MSG-SEND-STATUS/wrong-subject#2", "status true is honoured for the first user's sends only",
			onRequest("sendMessage", func(c *call) {
				if me, _ := c.caller(); me.ID != c.st.first.ID {
					if b := c.jsonBody(); b != nil && b["status"] == true {
						delete(b, "status")
						c.setJSONBody(b)
					}
				}
			})),
		ByClass.fault("MSG-SEND-STATUS/not-stored", "status is answered as sent but stored false",
			answer("sendMessage", func(c *call, next func() *reply) *reply {
				b := c.jsonBody()
				status := b != nil && b["status"] == true
				if b != nil {
					delete(b, "status")
					c.setJSONBody(b)
				}
				x := next()
				if x.ok() && status {
					each(x.get(), func(m map[string]any) { m["status"] = true })
				}
				return x
			})),
		ByClass.fault("MSG-SEND-STATUS/intermittent", "one send in two ignores status",
			everyNth(2, "sendMessage", onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil {
					delete(b, "status")
					c.setJSONBody(b)
				}
			}))),

		ByClass.fault("MSG-SEND-STORED/wrong-subject", "a message is stored in another room of the sender",
			onRequest("sendMessage", func(c *call) {
				me, _ := c.caller()
				for _, r := range c.st.world.Rooms {
					if r.ID != c.room && contains(r.Members, me.ID) && r.Kind != "ONETOONE" {
						c.r.URL.Path = "/v1/rooms/" + r.ID + "/chatMessages"
						return
					}
				}
			})),
		BlindRound2.fault("MSG-SEND-STORED/wrong-subject#2", "a message another user sent since start reads back with the first user as fromUser (the send's answer is right)",
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
		FirstCatalogue.fault("MSG-SEND-STORED/not-stored", "a sent message is answered but never shown again", ghostSends()...),
		ByClass.fault("MSG-SEND-STORED/not-stored#2", "a sent message is shown to its sender only",
			onSuccess("sendMessage", func(c *call, x *reply) {
				me, _ := c.caller()
				each(x.get(), func(m map[string]any) { c.st.setValue("owner:"+asString(m["id"]), me.ID) })
			}),
			onSuccess("listMessages", func(c *call, x *reply) {
				x.set(filter(x.get(), func(m map[string]any) bool { return ownerOrPublic(c, asString(m["id"])) }))
			}),
			answer("getMessage", func(c *call, next func() *reply) *reply {
				if !ownerOrPublic(c, c.msg) {
					return refuse(http.StatusNotFound, "no such message")
				}
				return next()
			})),
		BlindRound1.fault("MSG-SEND-STORED/not-stored#3", "a message sent since start is listed but cannot be read by id (404)",
			recordSends("b-new"),
			answer("getMessage", func(c *call, next func() *reply) *reply {
				if c.st.get("b-new", c.msg) > 0 {
					return refuse(http.StatusNotFound, "no such message")
				}
				return next()
			})),
		BlindRound2.fault("MSG-SEND-STORED/not-stored#4", "a message whose text holds non-ASCII characters is answered but never stored (absent from lists, 404 by id)",
			lostSends(func(c *call) bool { return !isASCII(asString(c.jsonBody()["text"])) })...),
		BlindRound2.fault("MSG-SEND-STORED/not-stored#5", "a message sent to a channel is answered but never stored (absent from lists, 404 by id)",
			lostSends(func(c *call) bool { return roomKind(c, c.room) == fixtures.Channel })...),
		ByClass.fault("MSG-SEND-STORED/intermittent", "one send in three is answered but never shown again", everyNth(3, "sendMessage", ghostSends()[0]), ghostSends()[1], ghostSends()[2], ghostSends()[3]),

		ByClass.fault("MSG-EDIT/ignores-input", "an edit keeps the old text (v and editedAt change)",
			onRequest("updateMessage", func(c *call) {
				old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				if b := c.jsonBody(); b != nil && old != nil {
					b["text"] = old["text"]
					c.setJSONBody(b)
				}
			})),
		BlindRound1.fault("MSG-EDIT/wrong-subject", "an edit changes the caller's newest message of the room, whichever message the path names",
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
		FirstCatalogue.fault("MSG-EDIT/not-stored", "an edit answers the old text",
			messages("updateMessage", func(c *call, m map[string]any) {
				m["text"] = strings.TrimSuffix(asString(m["text"]), " (edited)") + " (old)"
			})),
		ByClass.fault("MSG-EDIT/not-stored#2", "an edit answers the text before the edit",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				x := next()
				if m, ok := x.get().(map[string]any); ok && x.ok() && old != nil {
					m["text"] = old["text"]
				}
				return x
			})),
		BlindRound2.fault("MSG-EDIT/not-stored#3", "an edit drops characters outside the Basic Multilingual Plane (emoji) from the new text; sends keep them",
			rewriteText("updateMessage", func(s string) string {
				return strings.Map(func(r rune) rune {
					if r > 0xFFFF {
						return -1
					}
					return r
				}, s)
			})),
		ByClass.fault("MSG-EDIT/intermittent", "one edit in three answers an old text",
			everyNth(3, "updateMessage", messages("updateMessage", func(c *call, m map[string]any) { m["text"] = asString(m["text"]) + " (old)" }))),

		FirstCatalogue.fault("MSG-EDIT-EDITEDAT/stale-derived", "an edit leaves editedAt null",
			messages("msgs", func(c *call, m map[string]any) {
				if c.st.get("edited", asString(m["id"])) > 0 {
					m["editedAt"] = nil
				}
			}),
			countEdits("edited")),
		ByClass.fault("MSG-EDIT-EDITEDAT/stale-derived#2", "editedAt after an edit is the time it was sent",
			messages("msgs", func(c *call, m map[string]any) {
				if m["editedAt"] != nil {
					m["editedAt"] = m["sent"]
				}
			})),
		BlindRound1.fault("MSG-EDIT-EDITEDAT/stale-derived#3", "editedAt keeps the time of the first edit through later edits",
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
		ByClass.fault("MSG-EDIT-EDITEDAT/shape", "editedAt after an edit is not in UTC",
			messages("updateMessage getMessage listMessages", func(c *call, m map[string]any) {
				if t, ok := m["editedAt"].(string); ok {
					m["editedAt"] = strings.TrimSuffix(t, "Z") + "+01:00"
				}
			})),
		ByClass.fault("MSG-EDIT-EDITEDAT/intermittent", "one edit in two leaves editedAt null in its answer",
			everyNth(2, "updateMessage", messages("updateMessage", func(c *call, m map[string]any) { m["editedAt"] = nil }))),

		BlindRound1.fault("MSG-EDIT-V-INC/wrong-subject", "after an edit v is 1 plus the number of edits the server has made to any message",
			messages("msgs", func(c *call, m map[string]any) {
				if v, ok := c.st.value("b-v:" + asString(m["id"])); ok {
					m["v"] = v
				}
			}),
			onSuccess("updateMessage", func(c *call, x *reply) {
				c.st.setValue("b-v:"+c.msg, 1+c.st.add("b-all-edits", "", 1))
			})),
		FirstCatalogue.fault("MSG-EDIT-V-INC/stale-derived", "an edit raises v by two",
			messages("msgs", func(c *call, m map[string]any) {
				m["v"] = asInt(m["v"]) + c.st.get("extra-v", asString(m["id"]))
			}),
			countEdits("extra-v")),
		ByClass.fault("MSG-EDIT-V-INC/stale-derived#2", "v stays 1 after edits",
			messages("msgs", func(c *call, m map[string]any) {
				if _, old := c.st.readBy[asString(m["id"])]; !old && m["editedAt"] != nil {
					m["v"] = 1
				}
			})),
		BlindRound2.fault("MSG-EDIT-V-INC/stale-derived#3", "v goes from 1 to 2 on the first edit and stays 2 after later edits",
			messages("msgs", func(c *call, m map[string]any) {
				if c.st.get("b3-edits", asString(m["id"])) > 0 {
					m["v"] = 2
				}
			}),
			countEdits("b3-edits")),
		ByClass.fault("MSG-EDIT-V-INC/not-stored", "v is raised in the edit's answer only; reads show the old v",
			messages("getMessage listMessages", func(c *call, m map[string]any) {
				m["v"] = asInt(m["v"]) - c.st.get("edits", asString(m["id"]))
			}), countEdits("edits")),
		ByClass.fault("MSG-EDIT-V-INC/intermittent", "one edit in three raises v by two",
			messages("msgs", func(c *call, m map[string]any) { m["v"] = asInt(m["v"]) + c.st.get("extra-v", asString(m["id"])) }),
			everyNth(3, "updateMessage", countEdits("extra-v"))),

		BlindRound1.fault("MSG-EDIT-PERSISTED/stale-derived", "lists show editedAt null after an edit; the edit's answer and reads by id are right",
			messages("listMessages", func(c *call, m map[string]any) {
				if c.st.get("b-edited", asString(m["id"])) > 0 {
					m["editedAt"] = nil
				}
			}),
			countEdits("b-edited")),
		BlindRound1.fault("MSG-EDIT-PERSISTED/stale-derived#2", "a message read by id is cached per user at its first read; later reads by id show that copy",
			onSuccess("getMessage", func(c *call, x *reply) {
				me, _ := c.caller()
				key := "b-cache:" + me.ID + ":" + c.msg
				if v, ok := c.st.value(key); ok {
					x.setRaw(slices.Clone(v.([]byte)))
					return
				}
				c.st.setValue(key, slices.Clone(x.bytes()))
			})),
		FirstCatalogue.fault("MSG-EDIT-PERSISTED/not-stored", "an edit is answered from a read plus the new text, and not stored", unstoredEdit()),
		ByClass.fault("MSG-EDIT-PERSISTED/not-stored#2", "a message read by id shows the text before its last edit",
			rememberOldText(), messages("getMessage", restoreOldText)),
		ByClass.fault("MSG-EDIT-PERSISTED/not-stored#3", "lists show the text before the last edit",
			rememberOldText(), messages("listMessages", restoreOldText)),
		BlindRound1.fault("MSG-EDIT-PERSISTED/not-stored#4", "an edit is shown to its author only; other users keep reading the text before it",
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
		BlindRound2.fault("MSG-EDIT-PERSISTED/not-stored#5", "only the first edit of a message is stored; later edits are answered right and then lost",
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
		ByClass.fault("MSG-EDIT-PERSISTED/intermittent", "one edit in two is answered but not stored", everyNth(2, "updateMessage", unstoredEdit())),
		Independent.fault("MSG-EDIT-V-INC/stale-derived#4", independentWhat("edit-no-bump")).inIndependent("edit-no-bump"),
		HistoryRound.fault("MSG-ROOM-SCOPE/intermittent", "one message list in fifty carries, in place of one of its messages, the newest message of another room",
			everyNth(50, "listMessages", onSuccess("listMessages", func(c *call, x *reply) {
				list := asList(x.get())
				other := c.st.world.Hints.Org
				if other == c.room {
					other = c.st.world.Hints.WriteRoom
				}
				if len(list) == 0 {
					return
				}
				if y := c.do("GET", "/v1/rooms/"+other+"/chatMessages", url.Values{"limit": {"1"}}, nil); y.ok() {
					if theirs := asList(y.get()); len(theirs) == 1 {
						list[len(list)/2] = theirs[0]
					}
				}
			}))).inWholeRun(),
		HistoryRound.fault("MSG-STABLE/intermittent", "one answer holding messages in twenty shows the first of them sent a second later",
			everyNth(20, "msgs", onSuccess("msgs", func(c *call, x *reply) {
				first := true
				each(x.get(), func(m map[string]any) {
					if t, err := time.Parse(time.RFC3339Nano, asString(m["sent"])); first && err == nil {
						m["sent"] = t.Add(time.Second).UTC().Format("2006-01-02T15:04:05.000Z")
						first = false
					}
				})
			}))).inWholeRun(),
		HistoryRound.fault("MSG-EDIT-V-INC/intermittent#2", "one read by id in three of an edited message answers the v before the last edit, with the text of the last",
			messages("getMessage", func(c *call, m map[string]any) {
				if v := asInt(m["v"]); v > 1 && c.st.tick("edited reads")%3 == 0 {
					m["v"] = v - 1
				}
			})),
		// Search results hold only the room's messages: MSG-ROOM-SCOPE's statement.
		BlindRound1.fault("MSG-ROOM-SCOPE/too-wide#3", "a search returns matches from every room of the caller, not only the room of the path",
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
	}
}

// messageVariants choose differently in the fields of a message, who may
// edit it, how long a text may be and how soon other users see a write.
func messageVariants() []Variant {
	return []Variant{
		{Name: "status-omitted", Origin: FirstCatalogue, What: "leaves status out of messages that are not status updates",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				if m["status"] == false {
					delete(m, "status")
				}
			})}},
		{Name: "eventual-reads", Origin: Assumptions, What: "shows other users a new message one second late, and an edit's previous text for one second; their pages are full pages of the messages they do see",
			steps: eventualReads(time.Second)},
		{Name: "edit-by-anyone", Origin: BlindRound2, What: "lets any member edit any message (the reference lets only the author); the sender stays the author (unsure only in that the document says nothing of who may edit)",
			steps: []step{answer("updateMessage", func(c *call, next func() *reply) *reply {
				x := next()
				if x.status != http.StatusForbidden {
					return x
				}
				m, ok := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				from, _ := m["fromUser"].(map[string]any)
				author, known := c.st.byID[asString(from["id"])]
				if !ok || !known {
					return x
				}
				return c.doAs("PUT", c.r.URL.Path, nil, c.jsonBody(), &author.Token)
			})}},
		{Name: "text-limit-1000", Origin: BlindRound2, What: "refuses a text longer than 1000 characters with 400 (the maximum length is not shown)",
			steps: []step{answer("sendMessage updateMessage", func(c *call, next func() *reply) *reply {
				if t, ok := c.jsonBody()["text"].(string); ok && utf8.RuneCountInString(t) > 1000 {
					return refuse(http.StatusBadRequest, "text longer than 1000 characters")
				}
				return next()
			})}},
	}
}

var (
	spaceRun = regexp.MustCompile(` {2,}`)
	// textFields are the fields of a message an edit changes.
	textFields = []string{"text", "html", "urls", "mentions", "issues", "editedAt", "v"}
)

// listedMessage applies f to every message of a message list.
func listedMessage(f func(c *call, m map[string]any)) step { return messages("listMessages", f) }

// sentMessage applies f to the message a send answers.
func sentMessage(f func(c *call, m map[string]any)) step { return messages("sendMessage", f) }

// asciiOnly drops every non-ASCII character.
func asciiOnly(c rune) rune {
	if c < 0x80 {
		return c
	}
	return -1
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

// lostSends answers a send for which lost is true as the inner server does,
// then never shows the message again: absent from lists, 404 by id.
func lostSends(lost func(c *call) bool) []step {
	return []step{
		onSuccess("sendMessage", func(c *call, x *reply) {
			if lost(c) {
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

// ownerOrPublic reports whether the caller may see a message under the
// "shown to its sender only" fault.
func ownerOrPublic(c *call, id string) bool {
	owner, private := c.st.value("owner:" + id)
	me, _ := c.caller()
	return !private || owner == me.ID
}

// rememberOldText keeps the text of a message from before each edit.
func rememberOldText() step {
	return answer("updateMessage", func(c *call, next func() *reply) *reply {
		old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
		x := next()
		if x.ok() && old != nil {
			c.st.setValue("text:"+c.msg, old["text"])
		}
		return x
	})
}

func restoreOldText(c *call, m map[string]any) {
	if t, ok := c.st.value("text:" + asString(m["id"])); ok {
		m["text"] = t
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
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

// lastWrite is a message's last write: who made it, when, and (for an edit)
// the fields derived from the text as they were before it.
type lastWrite struct {
	at     time.Time
	writer string
	before map[string]any // nil for a send
}

// eventualReads shows users other than the writer a message's last write
// only once it is lag old: a new message is missing (404 by id, absent from
// lists) and an edited one shows its previous text. A list is a consistent,
// slightly older view of the room: the page of the messages the caller sees,
// filled up to its limit from further pages of the reference, since a short
// page tells a client that walks back that the room has no more.
func eventualReads(lag time.Duration) []step {
	recent := func(c *call, id string) (lastWrite, bool) {
		v, ok := c.st.value("write:" + id)
		w, _ := v.(lastWrite)
		me, _ := c.caller()
		return w, ok && w.writer != me.ID && time.Since(w.at) < lag
	}
	older := func(c *call, m map[string]any, w lastWrite) {
		for _, k := range textFields {
			m[k] = w.before[k]
		}
	}
	// visible is the caller's view of a page of the reference: the recent
	// messages of others left out, recently edited ones as they were.
	visible := func(c *call, page []any) []any {
		return asList(filter(page, func(m map[string]any) bool {
			w, ok := recent(c, asString(m["id"]))
			if ok && w.before != nil {
				older(c, m, w)
			}
			return !ok || w.before != nil
		}))
	}
	// fill is the caller's view of page, the reference's answer to a
	// request for want messages (at most 100), and of the pages beyond it
	// in direction dir: while the view is short of want and the last page
	// was full, it asks for the next page past that page's oldest message
	// (beforeId) or newest (afterId), with q's other parameters, and adds
	// the view of it at that end. The reference lists oldest first.
	fill := func(c *call, q url.Values, dir string, page []any, want int) []any {
		q = maps.Clone(q) // the caller's q is left as it was
		list := visible(c, page)
		for asked := min(want, 100); len(list) < want && len(page) == asked; {
			edge, _ := page[0].(map[string]any)
			if dir == "afterId" {
				edge, _ = page[len(page)-1].(map[string]any)
			}
			asked = min(want-len(list), 100)
			q.Set(dir, asString(edge["id"]))
			q.Set("limit", strconv.Itoa(asked))
			page = asList(c.do("GET", c.r.URL.Path, q, nil).get())
			if dir == "afterId" {
				list = append(list, visible(c, page)...)
			} else {
				list = append(visible(c, page), list...)
			}
		}
		return list
	}
	return []step{
		onSuccess("sendMessage", func(c *call, x *reply) {
			me, _ := c.caller()
			each(x.get(), func(m map[string]any) {
				c.st.setValue("write:"+asString(m["id"]), lastWrite{at: time.Now(), writer: me.ID})
			})
		}),
		answer("updateMessage", func(c *call, next func() *reply) *reply {
			prev, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
			x := next()
			if x.ok() && prev != nil {
				me, _ := c.caller()
				before := map[string]any{}
				for _, k := range textFields {
					before[k] = prev[k]
				}
				c.st.setValue("write:"+c.msg, lastWrite{at: time.Now(), writer: me.ID, before: before})
			}
			return x
		}),
		answer("getMessage", func(c *call, next func() *reply) *reply {
			x := next()
			w, ok := recent(c, c.msg)
			switch {
			case !x.ok() || !ok:
			case w.before == nil:
				return refuse(http.StatusNotFound, "no such message")
			default:
				if m, isMsg := x.get().(map[string]any); isMsg {
					older(c, m, w)
				}
			}
			return x
		}),
		answer("listMessages", func(c *call, next func() *reply) *reply {
			x := next()
			page, isList := x.get().([]any)
			if !x.ok() || !isList {
				return x
			}
			q := c.query()
			n, _ := pageLimit(q)
			switch {
			case has(q, "aroundId") && has(q, "afterId"):
				// Left as it was, filtered after the cut and so possibly
				// short: the older half would have to be refilled below
				// the anchor yet above afterId, which the reference reads
				// from its oldest end.
				x.set(visible(c, page))
			case has(q, "aroundId"):
				// Two pages: up to max(1, n/2) messages up to and including
				// the anchor, n/2 after it (ids ordered as the reference
				// orders them); skip plays no part.
				a := q.Get("aroundId")
				i := slices.IndexFunc(page, func(v any) bool {
					m, _ := v.(map[string]any)
					return asString(m["id"]) > a
				})
				if i < 0 {
					i = len(page)
				}
				q.Del("aroundId")
				q.Del("skip")
				x.set(append(fill(c, q, "beforeId", page[:i], max(1, n/2)), fill(c, q, "afterId", page[i:], n/2)...))
			case has(q, "afterId"):
				// With skip too, the reference leaves skip messages out
				// of the window's newest end, the hidden ones among them:
				// a page that reaches that end may hold a few the caller
				// would skip.
				x.set(fill(c, q, "afterId", page, n))
			default:
				// The newest messages (before beforeId): skip counts the
				// messages the caller sees, so the page is the older n of
				// the newest skip+n.
				s, _ := c.intParam("skip")
				if s > 0 {
					q.Del("skip")
					q.Set("limit", strconv.Itoa(min(s+n, 100)))
					page = asList(c.do("GET", c.r.URL.Path, q, nil).get())
				}
				list := fill(c, q, "beforeId", page, s+n)
				x.set(list[:len(list)-min(s, len(list))])
			}
			return x
		}),
	}
}

// modelMessageFaults are the model round's faults of messages: what only a
// sequence shows (see ModelRound).
func modelMessageFaults() []Fault {
	return []Fault{
		ModelRound.fault("MSG-TEXT-REQUIRED/ignores-input", "a send without text is accepted and stored with a placeholder text",
			onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil && b["text"] == nil {
					b["text"] = "(no text)"
					c.setJSONBody(b)
				}
			})),
		ModelRound.fault("MSG-TEXT-REQUIRED/not-stored", "a send without text is refused with 400, and stored all the same",
			answer("sendMessage", func(c *call, next func() *reply) *reply {
				if b := c.jsonBody(); b != nil && b["text"] == nil {
					c.do("POST", "/v1/rooms/"+c.room+"/chatMessages", nil, map[string]any{"text": "(no text)"})
					return refuse(http.StatusBadRequest, "text is required")
				}
				return next()
			})),
		ModelRound.fault("MSG-TEXT-REQUIRED/ignores-input#2", "an edit without text is accepted: the message keeps its text and v goes up",
			onRequest("updateMessage", func(c *call) {
				if b := c.jsonBody(); b != nil && b["text"] == nil {
					old := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+c.msg, nil, nil)
					if m, ok := old.get().(map[string]any); ok && old.ok() {
						b["text"] = m["text"]
						c.setJSONBody(b)
					}
				}
			})),
		ModelRound.fault("MSG-ROOM-SCOPE/wrong-subject", "a message read by id through another room's path is answered as if it were that room's",
			recordRooms(), throughAnyRoom("getMessage")),
		ModelRound.fault("MSG-ROOM-SCOPE/wrong-subject#2", "a message edited through another room's path is edited and answered as if it were that room's",
			recordRooms(), throughAnyRoom("updateMessage")),
		ModelRound.fault("MSG-SEND-STORED/intermittent#2", "one send in seven answers 200 with the new message, which is never stored",
			everyNth(7, "sendMessage", answer("sendMessage", func(c *call, next func() *reply) *reply {
				x := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"1"}}, nil)
				list := asList(x.get())
				if !x.ok() || len(list) == 0 {
					return next()
				}
				m, _ := list[0].(map[string]any)
				if m == nil {
					return next()
				}
				b := c.jsonBody()
				id := []byte(asString(m["id"]))
				for i := range id { // an id of the same form that no message has
					if id[i] >= '0' && id[i] <= '9' {
						id[i] = '0' + (id[i]-'0'+5)%10
					}
				}
				m["id"], m["text"], m["v"], m["readBy"], m["unread"], m["editedAt"] = string(id), b["text"], 1, 0, false, nil
				m["sent"] = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
				if u, ok := c.caller(); ok {
					m["fromUser"] = map[string]any{"id": u.ID, "username": u.Username, "displayName": u.DisplayName, "url": "/" + u.Username,
						"avatarUrlSmall": "https://avatars.chat.test/" + u.Username + "?s=60", "avatarUrlMedium": "https://avatars.chat.test/" + u.Username + "?s=128"}
				}
				x = succeed()
				x.set(m)
				return x
			}))),
		ModelRound.fault("MSG-SEND-STATUS/ignores-input#3", "status false in a send body is taken as true",
			onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil && b["status"] == false {
					b["status"] = true
					c.setJSONBody(b)
				}
			})),
	}
}

// recordRooms remembers the room of every message sent.
func recordRooms() step {
	return onSuccess("sendMessage", func(c *call, x *reply) {
		each(x.get(), func(m map[string]any) { c.st.setValue("room-of:"+asString(m["id"]), c.room) })
	})
}

// throughAnyRoom answers ops on a message of another room (one the server
// answers 404 for) as its own room would.
func throughAnyRoom(ops string) step {
	return answer(ops, func(c *call, next func() *reply) *reply {
		x := next()
		v, known := c.st.value("room-of:" + c.msg)
		if x.ok() || !known || v.(string) == c.room {
			return x
		}
		var body any
		if b := c.jsonBody(); b != nil {
			body = b
		}
		return c.do(c.r.Method, "/v1/rooms/"+v.(string)+"/chatMessages/"+c.msg, nil, body)
	})
}

// heldOutMessagesFaults are the held-out defects of the independent implementation
// whose requirements belong to this file (see HeldOut).
func heldOutMessagesFaults() []Fault {
	return []Fault{
		HeldOut.fault("MSG-EDIT-EDITEDAT/stale-derived#4", heldOutWhat("edit-editedat-null-response")).inIndependent("edit-editedat-null-response"),
		HeldOut.fault("MSG-EDIT/intermittent#2", heldOutWhat("edit-old-text-flaky")).inIndependent("edit-old-text-flaky"),
		HeldOut.fault("MSG-EDIT-PERSISTED/not-stored#6", heldOutWhat("edit-second-lost")).inIndependent("edit-second-lost"),
		HeldOut.fault("MSG-EDIT-V-INC/wrong-subject#2", heldOutWhat("edit-v-double-second")).inIndependent("edit-v-double-second"),
		HeldOut.fault("MSG-EDIT-EDITEDAT/intermittent#2", heldOutWhat("editedat-flaky")).inIndependent("editedat-flaky"),
		HeldOut.fault("MSG-STABLE/wrong-subject", heldOutWhat("get-one-fromuser-caller")).inIndependent("get-one-fromuser-caller").inWholeRun(),
		HeldOut.fault("MSG-GET-ONE/not-stored#2", heldOutWhat("get-one-oldest-missing")).inIndependent("get-one-oldest-missing"),
		HeldOut.fault("MSG-GET-ONE/shape#3", heldOutWhat("get-one-wrapped")).inIndependent("get-one-wrapped"),
		HeldOut.fault("MSG-NO-GV/intermittent#2", heldOutWhat("gv-flaky")).inIndependent("gv-flaky"),
		HeldOut.fault("MSG-META-EMPTY/intermittent#2", heldOutWhat("meta-flaky")).inIndependent("meta-flaky"),
		HeldOut.fault("MSG-ROOM-SCOPE/too-wide", heldOutWhat("search-global")).inIndependent("search-global"),
		HeldOut.fault("MSG-SEND-200/shape#5", heldOutWhat("send-201")).inIndependent("send-201"),
		HeldOut.fault("MSG-SEND-STORED/intermittent#3", heldOutWhat("send-lost-flaky")).inIndependent("send-lost-flaky"),
		HeldOut.fault("MSG-SEND-DEFAULTS/shape#5", heldOutWhat("send-readby-one")).inIndependent("send-readby-one"),
		HeldOut.fault("MSG-SEND-STATUS/collateral", heldOutWhat("send-status-sticky")).inIndependent("send-status-sticky"),
		HeldOut.fault("MSG-SEND-TEXT/not-stored#7", heldOutWhat("send-text-trimmed")).inIndependent("send-text-trimmed"),
		HeldOut.fault("MSG-SHAPE/intermittent#2", heldOutWhat("sent-flaky")).inIndependent("sent-flaky"),
	}
}

// heldOut2MessagesFaults are the defects of the second held-out set (independent.HeldOut2)
// whose requirements belong to this file.
func heldOut2MessagesFaults() []Fault {
	return []Fault{
		HeldOut2.fault("MSG-EDIT-V-INC/not-stored#2", heldOut2What("edit-v-lost-update")).inIndependent("edit-v-lost-update"),
		HeldOut2.fault("MSG-LIST/shape#6", heldOut2What("list-empty-null")).inIndependent("list-empty-null"),
		HeldOut2.fault("MSG-ROOM-SCOPE/too-wide#2", heldOut2What("get-one-any-room")).inIndependent("get-one-any-room"),
		HeldOut2.fault("MSG-SEND-DEFAULTS/intermittent#2", heldOut2What("send-unread-flaky")).inIndependent("send-unread-flaky"),
		HeldOut2.fault("MSG-SEND-EDITEDAT-NULL/shape#5", heldOut2What("send-editedat-sent")).inIndependent("send-editedat-sent"),
		HeldOut2.fault("MSG-SEND-STATUS/ignores-input#4", heldOut2What("send-status-needs-me")).inIndependent("send-status-needs-me"),
		HeldOut2.fault("MSG-STABLE/collateral", heldOut2What("edit-moves-sent")).inIndependent("edit-moves-sent").inWholeRun(),
	}
}

// heldOut3MessagesFaults are the defects of the third held-out set (independent.HeldOut3)
// whose requirements belong to this file (see heldOut3What).
func heldOut3MessagesFaults() []Fault {
	return []Fault{
		HeldOut3.fault("MSG-EDIT-PERSISTED/not-stored#7", heldOut3What("get-one-cached")).inIndependent("get-one-cached"),
		HeldOut3.fault("MSG-EDIT-V-INC/ignores-input", heldOut3What("edit-same-text-no-bump")).inIndependent("edit-same-text-no-bump"),
		HeldOut3.fault("MSG-EDIT/wrong-subject#2", heldOut3What("edit-answers-newest")).inIndependent("edit-answers-newest"),
		HeldOut3.fault("MSG-ROOM-SCOPE/too-wide#4", heldOut3What("edit-any-room")).inIndependent("edit-any-room"),
		HeldOut3.fault("MSG-ROOM-SCOPE/too-wide#5", heldOut3What("around-other-room")).inIndependent("around-other-room"),
		HeldOut3.fault("MSG-SEND-STATUS/ignores-input#5", heldOut3What("send-status-present-true")).inIndependent("send-status-present-true"),
		HeldOut3.fault("MSG-SEND-STORED/not-stored#6", heldOut3What("send-repeat-dropped")).inIndependent("send-repeat-dropped"),
		HeldOut3.fault("MSG-SEND-TEXT/not-stored#8", heldOut3What("send-text-bytes-cut")).inIndependent("send-text-bytes-cut"),
		HeldOut3.fault("MSG-SHAPE/intermittent#3", heldOut3What("editedat-unzoned-flaky")).inIndependent("editedat-unzoned-flaky"),
		HeldOut3.fault("MSG-TEXT-REQUIRED/ignores-input#3", heldOut3What("send-status-without-text")).inIndependent("send-status-without-text"),
	}
}

// heldOut4MessagesFaults are the defects of the fourth held-out set (independent.HeldOut4)
// whose requirements belong to this file (see heldOut4What).
func heldOut4MessagesFaults() []Fault {
	return []Fault{
		HeldOut4.fault("MSG-EDIT-EDITEDAT/wrong-subject", heldOut4What("edit-editedat-is-sent")).inIndependent("edit-editedat-is-sent"),
		HeldOut4.fault("MSG-EDIT-PERSISTED/not-stored#8", heldOut4What("send-reverts-edits")).inIndependent("send-reverts-edits"),
		HeldOut4.fault("MSG-EDIT-PERSISTED/stale-derived#3", heldOut4What("list-editedat-not-selected")).inIndependent("list-editedat-not-selected"),
		HeldOut4.fault("MSG-EDIT-V-INC/intermittent#3", heldOut4What("edit-v-flaky")).inIndependent("edit-v-flaky"),
		HeldOut4.fault("MSG-EDIT-V-INC/wrong-subject#3", heldOut4What("edit-v-room-counter")).inIndependent("edit-v-room-counter"),
		HeldOut4.fault("MSG-GET-ONE/intermittent#2", heldOut4What("get-one-lag-flaky")).inIndependent("get-one-lag-flaky"),
		HeldOut4.fault("MSG-META-EMPTY/shape#6", heldOut4What("meta-carries-mentions")).inIndependent("meta-carries-mentions"),
		HeldOut4.fault("MSG-NO-GV/shape#6", heldOut4What("fromuser-gv")).inIndependent("fromuser-gv"),
		HeldOut4.fault("MSG-SEND-200/ignores-input", heldOut4What("send-ctype-charset-refused")).inIndependent("send-ctype-charset-refused"),
		HeldOut4.fault("MSG-SEND-DEFAULTS/shape#6", heldOut4What("send-answer-v-zero")).inIndependent("send-answer-v-zero"),
		HeldOut4.fault("MSG-SEND-STATUS/not-stored#2", heldOut4What("send-status-not-stored")).inIndependent("send-status-not-stored"),
		HeldOut4.fault("MSG-SEND-STORED/stale-derived", heldOut4What("list-default-page-cached")).inIndependent("list-default-page-cached"),
		HeldOut4.fault("MSG-SEND-TEXT/not-stored#10", heldOut4What("send-astral-dropped")).inIndependent("send-astral-dropped"),
		HeldOut4.fault("MSG-SEND-TEXT/not-stored#9", heldOut4What("send-crlf-normalised")).inIndependent("send-crlf-normalised"),
		HeldOut4.fault("MSG-SHAPE/shape#9", heldOut4What("get-one-editedat-omitted")).inIndependent("get-one-editedat-omitted"),
		HeldOut4.fault("MSG-STABLE/shape", heldOut4What("list-sent-seconds")).inIndependent("list-sent-seconds").inWholeRun(),
		HeldOut4.fault("MSG-TEXT-REQUIRED/ignores-input#4", heldOut4What("edit-missing-text-blank")).inIndependent("edit-missing-text-blank"),
	}
}

// heldOut5MessagesFaults are the defects of the fifth held-out set (independent.HeldOut5)
// whose requirements belong to this file (see heldOut5What).
func heldOut5MessagesFaults() []Fault {
	return []Fault{
		HeldOut5.fault("MSG-EDIT-PERSISTED/intermittent#2", heldOut5What("get-one-stale-version-flaky")).inIndependent("get-one-stale-version-flaky"),
		HeldOut5.fault("MSG-EDIT-PERSISTED/stale-derived#4", heldOut5What("edit-render-cache-per-viewer")).inIndependent("edit-render-cache-per-viewer"),
		HeldOut5.fault("MSG-EDIT-V-INC/ignores-input#2", heldOut5What("edit-coalesce-same-second")).inIndependent("edit-coalesce-same-second"),
		HeldOut5.fault("MSG-GET-ONE/not-stored#3", heldOut5What("get-one-edited-missing")).inIndependent("get-one-edited-missing"),
		HeldOut5.fault("MSG-GET-ONE/wrong-subject#3", heldOut5What("get-one-by-sent-time")).inIndependent("get-one-by-sent-time"),
		HeldOut5.fault("MSG-ROOM-SCOPE/collateral", heldOut5What("edit-other-room-applied-then-404")).inIndependent("edit-other-room-applied-then-404"),
		HeldOut5.fault("MSG-SEND-200/shape#6", heldOut5What("send-dm-accepted-202")).inIndependent("send-dm-accepted-202"),
		HeldOut5.fault("MSG-SEND-DEFAULTS/shape#7", heldOut5What("send-unread-for-peer-dm")).inIndependent("send-unread-for-peer-dm"),
		HeldOut5.fault("MSG-SEND-EDITEDAT-NULL/shape#6", heldOut5What("editedat-zero-time-list")).inIndependent("editedat-zero-time-list"),
		HeldOut5.fault("MSG-SEND-STATUS/not-stored#3", heldOut5What("list-status-dropped")).inIndependent("list-status-dropped"),
		HeldOut5.fault("MSG-SEND-STORED/intermittent#4", heldOut5What("send-id-collision-flaky")).inIndependent("send-id-collision-flaky"),
		HeldOut5.fault("MSG-SEND-TEXT/not-stored#11", heldOut5What("send-text-entities-decoded")).inIndependent("send-text-entities-decoded"),
		HeldOut5.fault("MSG-TEXT-REQUIRED/collateral", heldOut5What("edit-refused-still-bumps")).inIndependent("edit-refused-still-bumps"),
	}
}

// heldOut6MessagesFaults are the defects of the sixth held-out set (independent.HeldOut6)
// whose requirements belong to this file (see heldOut6What).
func heldOut6MessagesFaults() []Fault {
	return []Fault{
		HeldOut6.fault("MSG-EDIT-PERSISTED/intermittent#3", heldOut6What("edit-lost-flaky")).inIndependent("edit-lost-flaky"),
		HeldOut6.fault("MSG-EDIT-PERSISTED/stale-derived#5", heldOut6What("editedat-first-edit-kept")).inIndependent("editedat-first-edit-kept"),
		HeldOut6.fault("MSG-EDIT-PERSISTED/wrong-subject", heldOut6What("edit-hits-next-message")).inIndependent("edit-hits-next-message"),
		HeldOut6.fault("MSG-EDIT-V-INC/stale-derived#5", heldOut6What("edit-answer-v-not-raised")).inIndependent("edit-answer-v-not-raised"),
		HeldOut6.fault("MSG-EDIT/not-stored#4", heldOut6What("edit-text-escaped-stored")).inIndependent("edit-text-escaped-stored"),
		HeldOut6.fault("MSG-GET-ONE/intermittent#3", heldOut6What("get-one-neighbour-flaky")).inIndependent("get-one-neighbour-flaky"),
		HeldOut6.fault("MSG-LIST/shape#7", heldOut6What("search-answer-envelope")).inIndependent("search-answer-envelope"),
		HeldOut6.fault("MSG-SEND-EDITEDAT-NULL/shape#7", heldOut6What("editedat-empty-string-new")).inIndependent("editedat-empty-string-new"),
		HeldOut6.fault("MSG-SEND-STATUS/collateral#2", heldOut6What("edit-clears-status")).inIndependent("edit-clears-status"),
		HeldOut6.fault("MSG-SEND-STORED/not-stored#7", heldOut6What("send-concurrent-lost-update")).inIndependent("send-concurrent-lost-update"),
		HeldOut6.fault("MSG-SEND-TEXT/not-stored#12", heldOut6What("send-status-me-stripped")).inIndependent("send-status-me-stripped"),
		HeldOut6.fault("MSG-SEND-TEXT/wrong-subject#2", heldOut6What("send-answer-fromuser-last-sender")).inIndependent("send-answer-fromuser-last-sender"),
		HeldOut6.fault("MSG-TEXT-REQUIRED/ignores-input#5", heldOut6What("edit-missing-text-noop-200")).inIndependent("edit-missing-text-noop-200"),
	}
}

// heldOut7MessagesFaults are the defects of the seventh held-out set (independent.HeldOut7)
// whose requirements belong to this file (see heldOut7What).
func heldOut7MessagesFaults() []Fault {
	return []Fault{
		HeldOut7.fault("MSG-EDIT-EDITEDAT/shape#2", heldOut7What("edit-editedat-whole-seconds")).inIndependent("edit-editedat-whole-seconds"),
		HeldOut7.fault("MSG-EDIT-PERSISTED/collateral", heldOut7What("mark-read-reverts-edit")).inIndependent("mark-read-reverts-edit"),
		HeldOut7.fault("MSG-EDIT/not-stored#5", heldOut7What("edit-newlines-collapsed")).inIndependent("edit-newlines-collapsed"),
		HeldOut7.fault("MSG-GET-ONE/wrong-subject#4", heldOut7What("get-one-own-only")).inIndependent("get-one-own-only"),
		HeldOut7.fault("MSG-LIST/shape#8", heldOut7What("list-empty-204")).inIndependent("list-empty-204"),
		HeldOut7.fault("MSG-META-EMPTY/shape#7", heldOut7What("list-meta-null")).inIndependent("list-meta-null"),
		HeldOut7.fault("MSG-NO-GV/shape#7", heldOut7What("edit-answer-gv")).inIndependent("edit-answer-gv"),
		HeldOut7.fault("MSG-ROOM-SCOPE/too-wide#6", heldOut7What("edit-other-room-200-unchanged")).inIndependent("edit-other-room-200-unchanged"),
		HeldOut7.fault("MSG-SEND-200/ignores-input#2", heldOut7What("send-status-false-refused")).inIndependent("send-status-false-refused"),
		HeldOut7.fault("MSG-SEND-DEFAULTS/wrong-subject", heldOut7What("send-v-from-previous-message")).inIndependent("send-v-from-previous-message"),
		HeldOut7.fault("MSG-SEND-STORED/wrong-subject#3", heldOut7What("send-answer-draft-id")).inIndependent("send-answer-draft-id"),
		HeldOut7.fault("MSG-SEND-TEXT/not-stored#13", heldOut7What("send-text-nfc")).inIndependent("send-text-nfc"),
		HeldOut7.fault("MSG-SEND-TEXT/not-stored#14", heldOut7What("send-tags-stripped")).inIndependent("send-tags-stripped"),
		HeldOut7.fault("MSG-SEND-TEXT/not-stored#15", heldOut7What("send-backslash-unescaped")).inIndependent("send-backslash-unescaped"),
		HeldOut7.fault("MSG-SHAPE/shape#10", heldOut7What("meta-arrays-null-when-empty")).inIndependent("meta-arrays-null-when-empty"),
		HeldOut7.fault("MSG-SHAPE/shape#11", heldOut7What("get-one-fromuser-unexpanded")).inIndependent("get-one-fromuser-unexpanded"),
		HeldOut7.fault("MSG-STABLE/collateral#2", heldOut7What("edit-updates-same-text-siblings")).inIndependent("edit-updates-same-text-siblings").inWholeRun(),
		HeldOut7.fault("MSG-STABLE/intermittent#2", heldOut7What("edit-answer-html-stale-flaky")).inIndependent("edit-answer-html-stale-flaky").inWholeRun(),
		HeldOut7.fault("MSG-STABLE/wrong-subject#2", heldOut7What("list-sent-coalesced-edit")).inIndependent("list-sent-coalesced-edit").inWholeRun(),
		HeldOut7.fault("MSG-TEXT-REQUIRED/ignores-input#6", heldOut7What("edit-null-text-accepted")).inIndependent("edit-null-text-accepted"),
	}
}

// heldOut8MessagesFaults are the defects of the eighth held-out set (independent.HeldOut8)
// whose requirements belong to this file (see heldOut8What).
func heldOut8MessagesFaults() []Fault {
	return []Fault{
		HeldOut8.fault("MSG-EDIT-PERSISTED/stale-derived#6", heldOut8What("list-cache-not-invalidated-on-edit")).inIndependent("list-cache-not-invalidated-on-edit"),
		HeldOut8.fault("MSG-EDIT-V-INC/collateral", heldOut8What("mark-read-bumps-v")).inIndependent("mark-read-bumps-v"),
		HeldOut8.fault("MSG-EDIT/ignores-input#2", heldOut8What("edit-twice-conflict")).inIndependent("edit-twice-conflict"),
		HeldOut8.fault("MSG-EDIT/intermittent#3", heldOut8What("edit-author-cache-403-flaky")).inIndependent("edit-author-cache-403-flaky"),
		HeldOut8.fault("MSG-LIST/shape#9", heldOut8What("list-streamed-ndjson-full-page")).inIndependent("list-streamed-ndjson-full-page"),
		HeldOut8.fault("MSG-META-EMPTY/shape#8", heldOut8What("send-body-extras-into-meta")).inIndependent("send-body-extras-into-meta"),
		HeldOut8.fault("MSG-ROOM-SCOPE/intermittent#2", heldOut8What("list-previous-room-flaky")).inIndependent("list-previous-room-flaky"),
		HeldOut8.fault("MSG-SEND-200/intermittent#2", heldOut8What("send-503-after-store-flaky")).inIndependent("send-503-after-store-flaky"),
		HeldOut8.fault("MSG-SEND-STATUS/intermittent#2", heldOut8What("send-status-dropped-flaky")).inIndependent("send-status-dropped-flaky"),
		HeldOut8.fault("MSG-SEND-STATUS/wrong-subject#3", heldOut8What("send-status-applied-to-previous")).inIndependent("send-status-applied-to-previous"),
		HeldOut8.fault("MSG-SEND-TEXT/shape", heldOut8What("send-text-latin1-column")).inIndependent("send-text-latin1-column"),
		HeldOut8.fault("MSG-STABLE/intermittent#3", heldOut8What("fromuser-ghost-on-timeout-flaky")).inIndependent("fromuser-ghost-on-timeout-flaky").inWholeRun(),
		HeldOut8.fault("MSG-STABLE/shape#2", heldOut8What("get-one-text-from-html-column")).inIndependent("get-one-text-from-html-column").inWholeRun(),
		HeldOut8.fault("MSG-TEXT-REQUIRED/collateral#2", heldOut8What("send-refused-still-stored")).inIndependent("send-refused-still-stored"),
		HeldOut8.fault("MSG-TEXT-REQUIRED/ignores-input#7", heldOut8What("send-null-text-stringified")).inIndependent("send-null-text-stringified"),
	}
}
