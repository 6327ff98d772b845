package selftest

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatrooms/conformance/fixtures"
)

// unreadFaults break the requirements of unread state (UNREAD-*): unread
// items, marking read, readBy, the unread flag and the rooms' counts.
func unreadFaults() []Fault {
	return []Fault{
		FirstCatalogue.fault("UNREAD-SHAPE/shape", "unread items carry no mention list",
			messages("getUnreadItems", func(c *call, u map[string]any) { delete(u, "mention") })),
		ByClass.fault("UNREAD-SHAPE/shape#2", "chat lists objects with an id, not id strings",
			unreadItems(func(c *call, u map[string]any) {
				var out []any
				for _, id := range asList(u["chat"]) {
					out = append(out, map[string]any{"id": id})
				}
				u["chat"] = out
			})),
		ByClass.fault("UNREAD-SHAPE/shape#3", "chat is null when nothing is unread",
			unreadItems(func(c *call, u map[string]any) {
				if len(asList(u["chat"])) == 0 {
					u["chat"] = nil
				}
			})),
		BlindRound2.fault("UNREAD-SHAPE/shape#4", "an unread list holding exactly one id is sent as that id, not as an array",
			messages("getUnreadItems", func(c *call, u map[string]any) {
				for _, k := range []string{"chat", "mention"} {
					if l := asList(u[k]); len(l) == 1 {
						u[k] = l[0]
					}
				}
			})),
		ByClass.fault("UNREAD-SHAPE/intermittent", "one answer in three carries no mention list",
			everyNth(3, "getUnreadItems", unreadItems(func(c *call, u map[string]any) { delete(u, "mention") }))),

		ByClass.fault("UNREAD-CHAT/wrong-subject", "unread items of any room are those of the history room",
			onSuccess("getUnreadItems", func(c *call, x *reply) {
				if y := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.st.world.Hints.Org+"/unreadItems", nil, nil); y.ok() {
					x.set(y.get())
				}
			})),
		BlindRound1.fault("UNREAD-CHAT/wrong-subject#2", "a sender's own new messages are listed as unread chat for the sender",
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
		BlindRound2.fault("UNREAD-CHAT/wrong-subject#3", "status updates are never listed as unread chat",
			statusSends("b3-status"),
			messages("getUnreadItems", func(c *call, u map[string]any) {
				u["chat"] = filterIDs(u["chat"], func(id string) bool { return !isStatus(c, "b3-status", id) })
			})),
		BlindRound1.fault("UNREAD-CHAT/stale-derived", "unread items look at the room's newest 50 messages only",
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
		FirstCatalogue.fault("UNREAD-CHAT/not-stored", "no message is ever recorded as unread chat",
			messages("getUnreadItems", func(c *call, u map[string]any) { u["chat"] = []any{} }),
			messages("msgs", func(c *call, m map[string]any) { m["unread"] = false }),
			rooms("rooms", func(c *call, r map[string]any) { r["unreadItems"] = 0 })),
		ByClass.fault("UNREAD-CHAT/not-stored#2", "messages sent after start are never unread chat",
			unreadItems(func(c *call, u map[string]any) { u["chat"] = historyOnly(c, u["chat"]) })),
		BlindRound2.fault("UNREAD-CHAT/not-stored#3", "messages sent since start are unread chat only when the first user sent them",
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
		BlindRound1.fault("UNREAD-CHAT/too-wide", "unread chat of a room lists the caller's unread messages of every room",
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
		ByClass.fault("UNREAD-CHAT/intermittent", "one answer in two lists no unread chat",
			everyNth(2, "getUnreadItems", unreadItems(func(c *call, u map[string]any) { u["chat"] = []any{} }))),

		ByClass.fault("UNREAD-MENTION/wrong-subject", "mention lists every unread chat message",
			unreadItems(func(c *call, u map[string]any) { u["mention"] = u["chat"] })),
		BlindRound2.fault("UNREAD-MENTION/wrong-subject#2", "a message is listed under mention only when its text starts with @username",
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
		FirstCatalogue.fault("UNREAD-MENTION/not-stored", "no mention is ever recorded as unread",
			messages("getUnreadItems", func(c *call, u map[string]any) { u["mention"] = []any{} }),
			rooms("rooms", func(c *call, r map[string]any) { r["mentions"] = 0 })),
		ByClass.fault("UNREAD-MENTION/not-stored#2", "mentions sent after start are never listed",
			unreadItems(func(c *call, u map[string]any) { u["mention"] = historyOnly(c, u["mention"]) })),
		BlindRound1.fault("UNREAD-MENTION/too-wide", "mention lists every unread message that mentions anyone, not only the caller",
			messages("getUnreadItems", func(c *call, u map[string]any) {
				each(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"100"}}, nil).get(), func(m map[string]any) {
					id := m["id"]
					if len(asList(m["mentions"])) > 0 && containsAny(asList(u["chat"]), id) && !containsAny(asList(u["mention"]), id) {
						u["mention"] = append(asList(u["mention"]), id)
					}
				})
			})),
		ByClass.fault("UNREAD-MENTION/intermittent", "one answer in two lists no mention",
			everyNth(2, "getUnreadItems", unreadItems(func(c *call, u map[string]any) { u["mention"] = []any{} }))),

		ByClass.fault("UNREAD-MARK-READ/ignores-input", "marking read marks every unread message of the room, not only those named",
			onRequest("markUnreadItemsRead", func(c *call) {
				u, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				b := c.jsonBody()
				if b == nil || u == nil || len(asList(b["chat"])) == 0 {
					return
				}
				b["chat"] = append(asList(b["chat"]), asList(u["chat"])...)
				c.setJSONBody(b)
			})),
		BlindRound1.fault("UNREAD-MARK-READ/ignores-input#2", "marking read marks only the first id of chat",
			onRequest("markUnreadItemsRead", func(c *call) {
				if b := c.jsonBody(); b != nil && len(asList(b["chat"])) > 1 {
					b["chat"] = asList(b["chat"])[:1]
					c.setJSONBody(b)
				}
			})),
		BlindRound2.fault("UNREAD-MARK-READ/ignores-input#3", "marking read skips messages sent since start: only the seeded history can be marked read",
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
		ByClass.fault("UNREAD-MARK-READ/wrong-subject", "marking read marks the messages read for another member instead",
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				me, _ := c.caller()
				for _, t := range memberTokens(c, c.room) {
					if u := c.st.users[t]; u.ID != me.ID {
						body := c.jsonBody()
						return c.doAs("POST", "/v1/user/me/rooms/"+c.room+"/unreadItems", nil, body, &t)
					}
				}
				return next()
			})),
		BlindRound1.fault("UNREAD-MARK-READ/stale-derived", "marking read takes a message out of chat but leaves it in mention",
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
		FirstCatalogue.fault("UNREAD-MARK-READ/not-stored", "marking read answers success and changes nothing", swallowMarkRead()),
		BlindRound2.fault("UNREAD-MARK-READ/not-stored#2", "marking read works for the first user only; anyone else gets success and nothing changes",
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				if me, ok := c.caller(); ok && me.ID != c.st.first.ID {
					return succeed()
				}
				return next()
			})),
		BlindRound2.fault("UNREAD-MARK-READ/not-stored#3", "marking read in a one-to-one room answers success and changes nothing",
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				if roomKind(c, c.room) == fixtures.OneToOne {
					return succeed()
				}
				return next()
			})),
		ByClass.fault("UNREAD-MARK-READ/too-wide", "marking read marks the messages read for every member",
			onSuccess("markUnreadItemsRead", func(c *call, x *reply) {
				body := c.jsonBody()
				for _, t := range memberTokens(c, c.room) {
					c.doAs("POST", "/v1/user/me/rooms/"+c.room+"/unreadItems", nil, body, &t)
				}
			})),
		BlindRound1.fault("UNREAD-MARK-READ/too-wide#2", "marking messages read in one room also marks read everything unread in the caller's other rooms",
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
		ByClass.fault("UNREAD-MARK-READ/intermittent", "one mark-read in two answers success and changes nothing",
			everyNth(2, "markUnreadItemsRead", swallowMarkRead())),

		FirstCatalogue.fault("UNREAD-READBY/stale-derived", "readBy never changes from its value in the seeded history",
			messages("msgs", func(c *call, m map[string]any) { m["readBy"] = c.st.readBy[asString(m["id"])] })),
		ByClass.fault("UNREAD-READBY/stale-derived#2", "readBy counts a reader twice once a message is marked read",
			onSuccess("markUnreadItemsRead", func(c *call, x *reply) {
				for _, id := range strs(c.jsonBody()["chat"]) {
					c.st.add("read-twice", id, 1)
				}
			}),
			messages("msgs", func(c *call, m map[string]any) {
				m["readBy"] = asInt(m["readBy"]) + c.st.get("read-twice", asString(m["id"]))
			})),
		BlindRound1.fault("UNREAD-READBY/not-stored", "readBy is raised in the reader's own view only; everyone else sees the old count",
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
		BlindRound2.fault("UNREAD-READBY/not-stored#2", "a message read by id shows readBy as in the seeded history (0 for a new message); lists are right",
			messages("getMessage", func(c *call, m map[string]any) { m["readBy"] = c.st.readBy[asString(m["id"])] })),
		BlindRound1.fault("UNREAD-READBY/too-wide", "marking messages read raises readBy of every new message of the room, named or not",
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
		ByClass.fault("UNREAD-READBY/shape", "readBy is a string", messages("msgs", func(c *call, m map[string]any) { m["readBy"] = strconv.Itoa(asInt(m["readBy"])) })),
		ByClass.fault("UNREAD-READBY/intermittent", "one read in two shows readBy as in the seeded history",
			everyNth(2, "msgs", messages("msgs", func(c *call, m map[string]any) { m["readBy"] = c.st.readBy[asString(m["id"])] }))),

		ByClass.fault("UNREAD-FLAG/wrong-subject", "the unread flag is inverted", messages("listMessages getMessage", func(c *call, m map[string]any) { m["unread"] = m["unread"] != true })),
		BlindRound1.fault("UNREAD-FLAG/wrong-subject#2", "the unread flag is the first user's, whoever asks",
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
		BlindRound2.fault("UNREAD-FLAG/wrong-subject#3", "the unread flag is false on every beforeId, afterId and aroundId page",
			messages("listMessages", func(c *call, m map[string]any) {
				if q := c.query(); has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") {
					m["unread"] = false
				}
			})),
		BlindRound2.fault("UNREAD-FLAG/wrong-subject#4", "a sender's own messages sent since start read back to the sender as unread",
			onSuccess("sendMessage", func(c *call, x *reply) {
				me, _ := c.caller()
				each(x.get(), func(m map[string]any) { c.st.add("b3-own:"+me.ID, asString(m["id"]), 1) })
			}),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if me, _ := c.caller(); c.st.get("b3-own:"+me.ID, asString(m["id"])) > 0 {
					m["unread"] = true
				}
			})),
		FirstCatalogue.fault("UNREAD-FLAG/stale-derived", "the unread flag is always false",
			messages("msgs", func(c *call, m map[string]any) { m["unread"] = false })),
		ByClass.fault("UNREAD-FLAG/stale-derived#2", "the unread flag is always true", messages("msgs", func(c *call, m map[string]any) { m["unread"] = true })),
		BlindRound1.fault("UNREAD-FLAG/stale-derived#3", "the unread flag a user first saw on a message never changes for that user",
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				me, _ := c.caller()
				key := "b-flag:" + me.ID + ":" + asString(m["id"])
				if v, ok := c.st.value(key); ok {
					m["unread"] = v
				} else {
					c.st.setValue(key, m["unread"])
				}
			})),
		ByClass.fault("UNREAD-FLAG/intermittent", "one read in two says unread false",
			everyNth(2, "listMessages getMessage", messages("listMessages getMessage", func(c *call, m map[string]any) { m["unread"] = false }))),

		BlindRound1.fault("UNREAD-ROOM-COUNTS/wrong-subject", "every caller sees the first user's unreadItems and mentions on rooms",
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
		FirstCatalogue.fault("UNREAD-ROOM-COUNTS/stale-derived", "a room's unreadItems counts one more than the unread list",
			rooms("rooms", func(c *call, r map[string]any) { r["unreadItems"] = asInt(r["unreadItems"]) + 1 })),
		ByClass.fault("UNREAD-ROOM-COUNTS/stale-derived#2", "a room's counts stay as they were first answered",
			rooms("rooms", func(c *call, r map[string]any) {
				me, _ := c.caller()
				for _, f := range []string{"unreadItems", "mentions"} {
					key := f + ":" + me.ID + ":" + asString(r["id"])
					if v, ok := c.st.value(key); ok {
						r[f] = v
					} else if _, present := r[f]; present {
						c.st.setValue(key, r[f])
					}
				}
			})),
		ByClass.fault("UNREAD-ROOM-COUNTS/stale-derived#3", "a room's mentions count is always 0", rooms("rooms", func(c *call, r map[string]any) { r["mentions"] = 0 })),
		BlindRound1.fault("UNREAD-ROOM-COUNTS/stale-derived#4", "rooms in the channels list and embedded in organisations and repositories count 0 unread and 0 mentions",
			rooms("listUserChannels listUserOrgs listUserRepos", func(c *call, r map[string]any) {
				for _, k := range []string{"unreadItems", "mentions"} {
					if _, ok := r[k]; ok {
						r[k] = 0
					}
				}
			})),
		BlindRound2.fault("UNREAD-ROOM-COUNTS/stale-derived#5", "a room's unreadItems count stops at 99",
			rooms("rooms", func(c *call, r map[string]any) {
				if asInt(r["unreadItems"]) > 99 {
					r["unreadItems"] = 99
				}
			})),
		BlindRound2.fault("UNREAD-ROOM-COUNTS/too-wide", "a room's mentions count counts the caller's unread messages that mention anyone",
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
		ByClass.fault("UNREAD-ROOM-COUNTS/intermittent", "one rooms list in two counts one unread item too many",
			everyNth(2, "rooms", rooms("rooms", func(c *call, r map[string]any) { r["unreadItems"] = asInt(r["unreadItems"]) + 1 }))),
		Independent.fault("UNREAD-MARK-READ/too-wide#3", independentWhat("mark-all-read")).inIndependent("mark-all-read"),
		Independent.fault("UNREAD-MARK-READ/too-wide#4", independentWhat("unread-shared")).inIndependent("unread-shared").
			survives("not observable with this world: users 1 and 2 are the only described members of the write room, and a message is never unread for its author, so marking read for every member shows only to a third member, whom the description does not name there; the harness marks messages read nowhere else"),
		Independent.fault("UNREAD-READBY/stale-derived#3", independentWhat("readby-stuck")).inIndependent("readby-stuck"),
	}
}

// unreadVariants choose differently in how marking read answers and how soon
// unread state follows a new message.
func unreadVariants() []Variant {
	return []Variant{
		{Name: "eventual", Origin: FirstCatalogue, What: "makes new messages visible to search and unread state one second late", steps: lagging(time.Second)},
		{Name: "mark-read-again-400", Origin: Assumptions, What: "refuses with 400 to mark read a message the caller has already read (or never had unread)",
			steps: []step{answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				body := c.jsonBody()
				unread := c.do("GET", c.r.URL.Path, nil, nil)
				u, _ := unread.get().(map[string]any)
				if body == nil || u == nil {
					return next()
				}
				for _, id := range asList(body["chat"]) {
					if !containsAny(asList(u["chat"]), id) {
						return refuse(http.StatusBadRequest, "message already read")
					}
				}
				return next()
			})}},
		{Name: "mark-read-empty-accepted", Origin: BlindRound2, What: "accepts marking read with chat missing or empty and answers success, changing nothing",
			steps: []step{answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				if b := c.jsonBody(); b != nil && len(asList(b["chat"])) == 0 {
					if y := c.do("GET", c.r.URL.Path, nil, nil); !y.ok() {
						return y
					}
					return succeed()
				}
				return next()
			})}},
	}
}

// unreadItems applies f to the unread items of a room.
func unreadItems(f func(c *call, u map[string]any)) step { return messages("getUnreadItems", f) }

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

// markRead marks ids of a room read for the caller.
func markRead(c *call, room string, ids []string) {
	if len(ids) > 0 {
		c.do("POST", "/v1/user/me/rooms/"+room+"/unreadItems", nil, map[string]any{"chat": ids})
	}
}

// historyOnly keeps the ids of messages of the seeded history.
func historyOnly(c *call, v any) []any {
	out := []any{}
	for _, id := range asList(v) {
		if _, old := c.st.readBy[asString(id)]; old {
			out = append(out, id)
		}
	}
	return out
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

// lagging holds new messages back from search and from unread state (the
// unread lists and the rooms' counts) until they are lag old.
func lagging(lag time.Duration) []step {
	young := func(c *call, id string) bool {
		t := c.st.when("sent:" + id)
		return !t.IsZero() && time.Since(t) < lag
	}
	return []step{
		onSuccess("sendMessage", func(c *call, x *reply) {
			each(x.get(), func(m map[string]any) {
				id := asString(m["id"])
				c.st.stamp("sent:"+id, time.Now())
				c.st.add("room:"+c.room, id, 1)
			})
		}),
		onSuccess("listMessages", func(c *call, x *reply) {
			if c.query().Get("q") != "" {
				x.set(filter(x.get(), func(m map[string]any) bool { return !young(c, asString(m["id"])) }))
			}
		}),
		messages("getUnreadItems", func(c *call, u map[string]any) {
			for _, k := range []string{"chat", "mention"} {
				keep := []any{}
				for _, id := range asList(u[k]) {
					if !young(c, asString(id)) {
						keep = append(keep, id)
					}
				}
				u[k] = keep
			}
		}),
		rooms("rooms", func(c *call, r map[string]any) {
			id := asString(r["id"])
			var held []string
			for _, m := range c.st.keys("room:" + id) {
				if young(c, m) {
					held = append(held, m)
				}
			}
			if len(held) == 0 {
				return
			}
			u, _ := c.do("GET", "/v1/user/"+c.user+"/rooms/"+id+"/unreadItems", nil, nil).get().(map[string]any)
			for k, field := range map[string]string{"chat": "unreadItems", "mention": "mentions"} {
				n := 0
				for _, h := range held {
					if slices.Contains(asList(u[k]), any(h)) {
						n++
					}
				}
				if _, ok := r[field]; ok {
					r[field] = asInt(r[field]) - n
				}
			}
		}),
	}
}

// modelUnreadFaults are the model round's faults of unread state: bodies
// of several ids and repeated marks (see ModelRound).
func modelUnreadFaults() []Fault {
	return []Fault{
		ModelRound.fault("UNREAD-MARK-READ/ignores-input#4", "marking read several ids marks only the last",
			onRequest("markUnreadItemsRead", func(c *call) {
				if b := c.jsonBody(); b != nil {
					if l := asList(b["chat"]); len(l) > 1 {
						b["chat"] = l[len(l)-1:]
						c.setJSONBody(b)
					}
				}
			})),
		ModelRound.fault("UNREAD-MARK-READ/not-stored#4", "marking read a message a second time makes it unread again",
			answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				b := c.jsonBody()
				var again []string
				for _, id := range strs(b["chat"]) {
					key := "marked:" + c.user + ":" + id
					if _, seen := c.st.value(key); seen {
						again = append(again, id)
					}
					c.st.setValue(key, true)
				}
				x := next()
				if len(again) > 0 {
					c.st.setValue("unread-again:"+c.user, again)
				}
				return x
			}),
			onSuccess("getUnreadItems", func(c *call, x *reply) {
				v, ok := c.st.value("unread-again:" + c.user)
				m, isMap := x.get().(map[string]any)
				if !ok || !isMap {
					return
				}
				chat := asList(m["chat"])
				for _, id := range v.([]string) {
					if !containsAny(chat, id) {
						chat = append(chat, id)
					}
				}
				m["chat"] = chat
			})),
	}
}

// heldOutUnreadFaults are the held-out defects of the independent implementation
// whose requirements belong to this file (see HeldOut).
func heldOutUnreadFaults() []Fault {
	return []Fault{
		HeldOut.fault("UNREAD-MARK-READ/ignores-input#5", heldOutWhat("mark-read-first-only")).inIndependent("mark-read-first-only"),
		HeldOut.fault("UNREAD-MARK-READ/intermittent#2", heldOutWhat("mark-read-flaky")).inIndependent("mark-read-flaky"),
		HeldOut.fault("UNREAD-MARK-READ/stale-derived#2", heldOutWhat("mark-read-mention-sticky")).inIndependent("mark-read-mention-sticky"),
		HeldOut.fault("UNREAD-ROOM-COUNTS/wrong-subject#2", heldOutWhat("org-room-counts-first-member")).inIndependent("org-room-counts-first-member"),
		HeldOut.fault("UNREAD-READBY/stale-derived#4", heldOutWhat("readby-recount")).inIndependent("readby-recount"),
		HeldOut.fault("UNREAD-ROOM-COUNTS/stale-derived#6", heldOutWhat("room-counts-cached")).inIndependent("room-counts-cached"),
		HeldOut.fault("UNREAD-CHAT/intermittent#2", heldOutWhat("unread-chat-flaky")).inIndependent("unread-chat-flaky"),
		HeldOut.fault("UNREAD-FLAG/wrong-subject#5", heldOutWhat("unread-flag-first-member")).inIndependent("unread-flag-first-member"),
		HeldOut.fault("UNREAD-MENTION/wrong-subject#3", heldOutWhat("unread-mention-first-only")).inIndependent("unread-mention-first-only"),
		HeldOut.fault("UNREAD-CHAT/wrong-subject#4", heldOutWhat("unread-newest-dropped")).inIndependent("unread-newest-dropped"),
		HeldOut.fault("UNREAD-SHAPE/shape#5", heldOutWhat("unread-null-arrays")).inIndependent("unread-null-arrays"),
	}
}

// heldOut2UnreadFaults are the defects of the second held-out set (independent.HeldOut2)
// whose requirements belong to this file.
func heldOut2UnreadFaults() []Fault {
	return []Fault{
		HeldOut2.fault("UNREAD-CHAT/ignores-input", heldOut2What("unread-scans-newest-page")).inIndependent("unread-scans-newest-page"),
		HeldOut2.fault("UNREAD-FLAG/stale-derived#4", heldOut2What("unread-flag-cached")).inIndependent("unread-flag-cached"),
		HeldOut2.fault("UNREAD-MARK-READ/ignores-input#6", heldOut2What("mark-read-stops-at-read")).inIndependent("mark-read-stops-at-read"),
		HeldOut2.fault("UNREAD-MENTION/ignores-input", heldOut2What("unread-mention-case")).inIndependent("unread-mention-case"),
		HeldOut2.fault("UNREAD-ROOM-COUNTS/too-wide#2", heldOut2What("room-mentions-count-any")).inIndependent("room-mentions-count-any"),
	}
}

// heldOut3UnreadFaults are the defects of the third held-out set (independent.HeldOut3)
// whose requirements belong to this file (see heldOut3What).
func heldOut3UnreadFaults() []Fault {
	return []Fault{
		HeldOut3.fault("UNREAD-CHAT/collateral", heldOut3What("edit-marks-read-all")).inIndependent("edit-marks-read-all"),
		HeldOut3.fault("UNREAD-FLAG/stale-derived#5", heldOut3What("unread-flag-list-false")).inIndependent("unread-flag-list-false"),
		HeldOut3.fault("UNREAD-MARK-READ/ignores-input#7", heldOut3What("mark-read-recent-window")).inIndependent("mark-read-recent-window"),
		HeldOut3.fault("UNREAD-MENTION/stale-derived", heldOut3What("unread-mention-send-time")).inIndependent("unread-mention-send-time"),
		HeldOut3.fault("UNREAD-READBY/wrong-subject", heldOut3What("readby-caller-excluded")).inIndependent("readby-caller-excluded"),
	}
}

// heldOut4UnreadFaults are the defects of the fourth held-out set (independent.HeldOut4)
// whose requirements belong to this file (see heldOut4What).
func heldOut4UnreadFaults() []Fault {
	return []Fault{
		HeldOut4.fault("UNREAD-CHAT/ignores-input#2", heldOut4What("unread-status-skipped")).inIndependent("unread-status-skipped"),
		HeldOut4.fault("UNREAD-CHAT/not-stored#4", heldOut4What("unread-old-expired")).inIndependent("unread-old-expired"),
		HeldOut4.fault("UNREAD-FLAG/wrong-subject#6", heldOut4What("unread-flag-from-readby")).inIndependent("unread-flag-from-readby"),
		HeldOut4.fault("UNREAD-MARK-READ/ignores-input#8", heldOut4What("mark-read-dedup-drops-last")).inIndependent("mark-read-dedup-drops-last"),
		HeldOut4.fault("UNREAD-MARK-READ/too-wide#5", heldOut4What("mark-read-up-to")).inIndependent("mark-read-up-to"),
		HeldOut4.fault("UNREAD-MENTION/ignores-input#2", heldOut4What("unread-mention-leading-only")).inIndependent("unread-mention-leading-only"),
		HeldOut4.fault("UNREAD-READBY/stale-derived#5", heldOut4What("readby-any-reader-one")).inIndependent("readby-any-reader-one"),
		HeldOut4.fault("UNREAD-ROOM-COUNTS/intermittent#2", heldOut4What("room-counts-zero-flaky")).inIndependent("room-counts-zero-flaky"),
		HeldOut4.fault("UNREAD-ROOM-COUNTS/stale-derived#7", heldOut4What("room-mentions-count-read")).inIndependent("room-mentions-count-read"),
		HeldOut4.fault("UNREAD-ROOM-COUNTS/too-wide#3", heldOut4What("room-unread-count-includes-own")).inIndependent("room-unread-count-includes-own"),
	}
}

// heldOut5UnreadFaults are the defects of the fifth held-out set (independent.HeldOut5)
// whose requirements belong to this file (see heldOut5What).
func heldOut5UnreadFaults() []Fault {
	return []Fault{
		HeldOut5.fault("UNREAD-FLAG/wrong-subject#7", heldOut5What("unread-flag-mention-only")).inIndependent("unread-flag-mention-only"),
		HeldOut5.fault("UNREAD-MARK-READ/intermittent#3", heldOut5What("unread-replica-lag-flaky")).inIndependent("unread-replica-lag-flaky"),
		HeldOut5.fault("UNREAD-MARK-READ/not-stored#5", heldOut5What("mark-read-duplicate-rolls-back")).inIndependent("mark-read-duplicate-rolls-back"),
		HeldOut5.fault("UNREAD-MENTION/ignores-input#3", heldOut5What("unread-mention-dm-skipped")).inIndependent("unread-mention-dm-skipped"),
		HeldOut5.fault("UNREAD-READBY/shape#2", heldOut5What("readby-dm-hidden")).inIndependent("readby-dm-hidden"),
		HeldOut5.fault("UNREAD-ROOM-COUNTS/ignores-input", heldOut5What("room-counts-lurk-zero")).inIndependent("room-counts-lurk-zero"),
	}
}

// heldOut6UnreadFaults are the defects of the sixth held-out set (independent.HeldOut6)
// whose requirements belong to this file (see heldOut6What).
func heldOut6UnreadFaults() []Fault {
	return []Fault{
		HeldOut6.fault("UNREAD-FLAG/stale-derived#6", heldOut6What("search-unread-flag-indexed")).inIndependent("search-unread-flag-indexed"),
		HeldOut6.fault("UNREAD-MARK-READ/collateral", heldOut6What("mark-read-toggles")).inIndependent("mark-read-toggles"),
		HeldOut6.fault("UNREAD-MARK-READ/not-stored#6", heldOut6What("mark-read-mention-stays-chat")).inIndependent("mark-read-mention-stays-chat"),
		HeldOut6.fault("UNREAD-MENTION/ignores-input#4", heldOut6What("unread-mention-needs-following-space")).inIndependent("unread-mention-needs-following-space"),
		HeldOut6.fault("UNREAD-MENTION/intermittent#2", heldOut6What("unread-mention-dropped-flaky")).inIndependent("unread-mention-dropped-flaky"),
		HeldOut6.fault("UNREAD-READBY/stale-derived#6", heldOut6What("readby-list-counter-stale")).inIndependent("readby-list-counter-stale"),
		HeldOut6.fault("UNREAD-ROOM-COUNTS/stale-derived#8", heldOut6What("room-count-skips-status")).inIndependent("room-count-skips-status"),
		HeldOut6.fault("UNREAD-ROOM-COUNTS/too-wide#4", heldOut6What("unread-list-all-rooms")).inIndependent("unread-list-all-rooms"),
		HeldOut6.fault("UNREAD-SHAPE/shape#6", heldOut6What("unread-mention-omitted-empty")).inIndependent("unread-mention-omitted-empty"),
	}
}

// heldOut7UnreadFaults are the defects of the seventh held-out set (independent.HeldOut7)
// whose requirements belong to this file (see heldOut7What).
func heldOut7UnreadFaults() []Fault {
	return []Fault{
		HeldOut7.fault("UNREAD-CHAT/not-stored#5", heldOut7What("unread-mention-excluded-from-chat")).inIndependent("unread-mention-excluded-from-chat"),
		HeldOut7.fault("UNREAD-FLAG/intermittent#2", heldOut7What("unread-flag-inverted-flaky")).inIndependent("unread-flag-inverted-flaky"),
		HeldOut7.fault("UNREAD-FLAG/too-wide", heldOut7What("unread-flag-from-last-access")).inIndependent("unread-flag-from-last-access"),
		HeldOut7.fault("UNREAD-MENTION/not-stored#3", heldOut7What("unread-mention-latest-only")).inIndependent("unread-mention-latest-only"),
		HeldOut7.fault("UNREAD-READBY/intermittent#2", heldOut7What("readby-zero-flaky")).inIndependent("readby-zero-flaky"),
		HeldOut7.fault("UNREAD-ROOM-COUNTS/intermittent#3", heldOut7What("unread-ids-doubled-flaky")).inIndependent("unread-ids-doubled-flaky"),
		HeldOut7.fault("UNREAD-ROOM-COUNTS/stale-derived#10", heldOut7What("org-room-counts-unset")).inIndependent("org-room-counts-unset"),
		HeldOut7.fault("UNREAD-ROOM-COUNTS/stale-derived#9", heldOut7What("room-count-decrement-per-request")).inIndependent("room-count-decrement-per-request"),
		HeldOut7.fault("UNREAD-ROOM-COUNTS/too-wide#5", heldOut7What("room-unread-sums-both-lists")).inIndependent("room-unread-sums-both-lists"),
		HeldOut7.fault("UNREAD-SHAPE/shape#7", heldOut7What("unread-chat-message-objects")).inIndependent("unread-chat-message-objects"),
	}
}

// heldOut8UnreadFaults are the defects of the eighth held-out set (independent.HeldOut8)
// whose requirements belong to this file (see heldOut8What).
func heldOut8UnreadFaults() []Fault {
	return []Fault{
		HeldOut8.fault("UNREAD-CHAT/not-stored#6", heldOut8What("unread-chat-oldest-100")).inIndependent("unread-chat-oldest-100"),
		HeldOut8.fault("UNREAD-CHAT/stale-derived#2", heldOut8What("unread-cached-until-mark")).inIndependent("unread-cached-until-mark"),
		HeldOut8.fault("UNREAD-FLAG/wrong-subject#8", heldOut8What("unread-flag-own-messages")).inIndependent("unread-flag-own-messages"),
		HeldOut8.fault("UNREAD-MARK-READ/not-stored#7", heldOut8What("mark-read-room-doc-lost-update")).inIndependent("mark-read-room-doc-lost-update"),
		HeldOut8.fault("UNREAD-MARK-READ/too-wide#6", heldOut8What("mark-read-empty-marks-all")).inIndependent("mark-read-empty-marks-all"),
		HeldOut8.fault("UNREAD-READBY/too-wide#2", heldOut8What("readby-raised-by-batch-size")).inIndependent("readby-raised-by-batch-size"),
		HeldOut8.fault("UNREAD-ROOM-COUNTS/intermittent#4", heldOut8What("room-counts-zipped-flaky")).inIndependent("room-counts-zipped-flaky"),
		HeldOut8.fault("UNREAD-ROOM-COUNTS/stale-derived#11", heldOut8What("room-unread-capped-badge")).inIndependent("room-unread-capped-badge"),
		HeldOut8.fault("UNREAD-SHAPE/shape#8", heldOut8What("unread-keys-untagged")).inIndependent("unread-keys-untagged"),
	}
}
