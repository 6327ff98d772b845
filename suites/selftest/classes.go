package selftest

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// classFaults are faults by class: each class applied to every requirement
// it fits. Together with the first catalogue (legacyFaults) every checkable
// core requirement has at least three where the classes fit.
func classFaults() []Fault {
	var fs []Fault
	add := func(f ...Fault) { fs = append(fs, f...) }

	// --- Transport ---------------------------------------------------------
	add(
		Fault{Req: "HTTP-TLS-ONLY", Class: TooWide, What: "plain http on the HTTPS port serves data to any token", plainHTTP: true,
			steps: []step{func(c *call, next func() *reply) *reply {
				if c.r.TLS == nil {
					setToken(c.r, c.st.first.Token)
				}
				return next()
			}}},
		fault("HTTP-JSON-CONTENT-TYPE", Shape, "rooms lists are labelled text/html; charset=utf-8",
			onSuccess("listUserRooms", func(c *call, x *reply) { x.header.Set("Content-Type", "text/html; charset=utf-8") })),
		fault("HTTP-JSON-CONTENT-TYPE", Shape, "a message read by id is labelled application/json; charset=iso-8859-1",
			onSuccess("getMessage", func(c *call, x *reply) { x.header.Set("Content-Type", "application/json; charset=iso-8859-1") })),
		fault("HTTP-JSON-CONTENT-TYPE", Intermittent, "one success in four says application/json without charset",
			everyNth(4, "all", onSuccess("all", func(c *call, x *reply) { x.header.Set("Content-Type", "application/json") }))),
		fault("HTTP-JSON-BODY", Shape, "the current user comes with trailing bytes after the JSON",
			onSuccess("getCurrentUser", func(c *call, x *reply) { x.setRaw(append(encode(x.get()), []byte("\n<!-- done -->")...)) })),
		fault("HTTP-JSON-BODY", Shape, "unread items answer 200 with an empty body",
			onSuccess("getUnreadItems", func(c *call, x *reply) { x.setRaw([]byte{}) })),
		fault("HTTP-JSON-BODY", Intermittent, "one message list in four is an HTML page",
			everyNth(4, "listMessages", onSuccess("listMessages", func(c *call, x *reply) { x.setRaw([]byte("<html><body>messages</body></html>")) }))),
		fault("HTTP-GET-SAFE", Collateral, "listing messages marks the page read",
			onSuccess("listMessages", func(c *call, x *reply) { markRead(c, c.room, ids(x.get())) })),
		fault("HTTP-GET-SAFE", Collateral, "reading unread items marks them read",
			onSuccess("getUnreadItems", func(c *call, x *reply) {
				if u, ok := x.get().(map[string]any); ok {
					markRead(c, c.room, strs(u["chat"]))
				}
			})),
		fault("HTTP-GET-SAFE", Collateral, "reading one's own message by id saves it again (v and editedAt change)",
			onSuccess("getMessage", func(c *call, x *reply) {
				m, _ := x.get().(map[string]any)
				from, _ := m["fromUser"].(map[string]any)
				if me, ok := c.caller(); ok && from != nil && from["id"] == me.ID {
					c.do("PUT", c.r.URL.Path, nil, map[string]any{"text": m["text"]})
				}
			})),
		fault("HTTP-GET-SAFE", Intermittent, "one read by id in three marks the message read",
			everyNth(3, "getMessage", onSuccess("getMessage", func(c *call, x *reply) { markRead(c, c.room, []string{c.msg}) }))),
		fault("HTTP-V1-PREFIX", Shape, "messages are served below /rooms instead of /v1/rooms", movePrefix("/v1/rooms/", "/rooms/")),
		fault("HTTP-V1-PREFIX", Shape, "user-scoped lists are served below /v1/users instead of /v1/user", movePrefix("/v1/user/", "/v1/users/")),
	)

	// --- Authentication ----------------------------------------------------
	add(
		fault("AUTH-BEARER", WrongSubject, "a Bearer token acts as the first user; the query token works",
			func(c *call, next func() *reply) *reply {
				if c.r.Header.Get("Authorization") != "" {
					c.r.Header.Set("Authorization", "Bearer "+c.st.first.Token)
				}
				return next()
			}),
		fault("AUTH-BEARER", Intermittent, "one request in three ignores the Authorization header",
			everyNth(3, "all", func(c *call, next func() *reply) *reply { c.r.Header.Del("Authorization"); return next() })),
		fault("AUTH-QUERY-TOKEN", WrongSubject, "the access_token parameter acts as the first user",
			func(c *call, next func() *reply) *reply {
				if q := c.query(); q.Has("access_token") {
					q.Set("access_token", c.st.first.Token)
					c.setQuery(q)
				}
				return next()
			}),
		fault("AUTH-QUERY-TOKEN", Intermittent, "one request in three ignores the access_token parameter",
			everyNth(3, "all", func(c *call, next func() *reply) *reply {
				q := c.query()
				q.Del("access_token")
				c.setQuery(q)
				return next()
			})),
		fault("AUTH-REQUIRED", TooWide, "messages are read without a token, as the first user",
			onRequest("listMessages getMessage", func(c *call) {
				if token(c.r) == "" {
					setToken(c.r, c.st.first.Token)
				}
			})),
		fault("AUTH-REQUIRED", Intermittent, "one request in three without a token acts as the first user",
			everyNth(3, "all", func(c *call, next func() *reply) *reply {
				if token(c.r) == "" {
					setToken(c.r, c.st.first.Token)
				}
				return next()
			})),
		fault("AUTH-UNKNOWN-TOKEN", IgnoresInput, "a token is matched on its first 8 characters only",
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
		fault("AUTH-UNKNOWN-TOKEN", Intermittent, "one unknown token in three acts as the first user",
			func(c *call, next func() *reply) *reply {
				if t := token(c.r); t != "" {
					if _, known := c.st.users[t]; !known && c.st.tick("unknown")%3 == 0 {
						setToken(c.r, c.st.first.Token)
					}
				}
				return next()
			}),
		fault("AUTH-CURRENT-USER", WrongSubject, "GET /v1/user answers the user after the caller in the world",
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
		fault("AUTH-CURRENT-USER", Intermittent, "one GET /v1/user in three answers the first user",
			everyNth(3, "getCurrentUser", onSuccess("getCurrentUser", func(c *call, x *reply) {
				x.set(c.doAs("GET", "/v1/user", nil, nil, &c.st.first.Token).get())
			}))),
	)

	// --- User --------------------------------------------------------------
	user := func(f func(u map[string]any)) step {
		return messages("getCurrentUser", func(c *call, u map[string]any) { f(u) })
	}
	add(
		fault("USER-GET-ARRAY", Shape, "the array holds the current user twice",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				if l := asList(x.get()); len(l) == 1 {
					x.set([]any{l[0], l[0]})
				}
			})),
		fault("USER-GET-ARRAY", TooWide, "the array holds every user of the world",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				var all []any
				for _, u := range c.st.world.Users {
					all = append(all, asList(c.doAs("GET", "/v1/user", nil, nil, &u.Token).get())...)
				}
				x.set(all)
			})),
		fault("USER-GET-ARRAY", Intermittent, "one answer in three is a bare object",
			everyNth(3, "getCurrentUser", onSuccess("getCurrentUser", func(c *call, x *reply) {
				if l := asList(x.get()); len(l) == 1 {
					x.set(l[0])
				}
			}))),
		fault("USER-SHAPE", Shape, "the user's url does not start with /", user(func(u map[string]any) { u["url"] = strings.TrimPrefix(asString(u["url"]), "/") })),
		fault("USER-SHAPE", Shape, "the user has no displayName", user(func(u map[string]any) { delete(u, "displayName") })),
		fault("USER-SHAPE", Shape, "a message's sender has a relative avatarUrlMedium",
			messages("listMessages", func(c *call, m map[string]any) {
				if u, ok := m["fromUser"].(map[string]any); ok {
					u["avatarUrlMedium"] = "avatars/medium.png"
				}
			})),
		fault("USER-SHAPE", Intermittent, "one current user in four has no username",
			everyNth(4, "getCurrentUser", user(func(u map[string]any) { delete(u, "username") }))),
		fault("USER-V-OPTIONAL", Shape, "a message sender's v is a fraction",
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if u, ok := m["fromUser"].(map[string]any); ok {
					u["v"] = 1.5
				}
			})),
		fault("USER-V-OPTIONAL", Shape, "the current user's v is null", user(func(u map[string]any) { u["v"] = nil })),
		fault("USER-V-OPTIONAL", Intermittent, "one current user in three has v as a string",
			everyNth(3, "getCurrentUser", user(func(u map[string]any) { u["v"] = "3" }))),
	)

	// --- Rooms -------------------------------------------------------------
	roomList := func(f func(r map[string]any)) step {
		return rooms("listUserRooms", func(c *call, r map[string]any) { f(r) })
	}
	add(
		fault("ROOM-LIST", Shape, "the rooms list is null", onSuccess("listUserRooms", func(c *call, x *reply) { x.setRaw([]byte("null")) })),
		fault("ROOM-LIST", Shape, "each room is wrapped in an object",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				var out []any
				for _, r := range asList(x.get()) {
					out = append(out, map[string]any{"room": r})
				}
				x.set(out)
			})),
		fault("ROOM-LIST", Intermittent, "one rooms list in three is wrapped in an object",
			everyNth(3, "listUserRooms", onSuccess("listUserRooms", func(c *call, x *reply) { x.set(map[string]any{"rooms": x.get()}) }))),
		fault("ROOM-SHAPE", Shape, "unreadItems is a string", roomList(func(r map[string]any) { r["unreadItems"] = strconv.Itoa(asInt(r["unreadItems"])) })),
		fault("ROOM-SHAPE", Shape, "room urls do not start with /", roomList(func(r map[string]any) { r["url"] = strings.TrimPrefix(asString(r["url"]), "/") })),
		fault("ROOM-SHAPE", Shape, "lastAccessTime is not an ISO 8601 timestamp",
			roomList(func(r map[string]any) {
				if t, ok := r["lastAccessTime"].(string); ok {
					r["lastAccessTime"] = strings.Replace(strings.TrimSuffix(t, "Z"), "T", " ", 1)
				}
			})),
		fault("ROOM-SHAPE", Shape, "topic is null", roomList(func(r map[string]any) { r["topic"] = nil })),
		fault("ROOM-SHAPE", Intermittent, "one rooms list in three has lurk as a string",
			everyNth(3, "listUserRooms", roomList(func(r map[string]any) { r["lurk"] = "false" }))),
		fault("ROOM-PLATFORM-TYPE", Shape, "repository rooms say repo in lower case",
			roomList(func(r map[string]any) {
				if r["platformType"] == "REPO" {
					r["platformType"] = "repo"
				}
			})),
		fault("ROOM-PLATFORM-TYPE", Shape, "one-to-one rooms say ONE_TO_ONE",
			roomList(func(r map[string]any) {
				if r["platformType"] == "ONETOONE" {
					r["platformType"] = "ONE_TO_ONE"
				}
			})),
		fault("ROOM-PLATFORM-TYPE", Intermittent, "one rooms list in three says GITHUB_ORG",
			everyNth(3, "listUserRooms", roomList(func(r map[string]any) {
				if r["platformType"] == "ORG" {
					r["platformType"] = "GITHUB_ORG"
				}
			}))),
		fault("ROOM-KINDS", WrongSubject, "one-to-one rooms are left out of the rooms list", dropRooms("ONETOONE")),
		fault("ROOM-KINDS", WrongSubject, "repository rooms are left out of the rooms list", dropRooms("REPO")),
		fault("ROOM-KINDS", Intermittent, "one rooms list in two leaves out organisation rooms", everyNth(2, "listUserRooms", dropRooms("ORG"))),
		fault("ROOM-ONE-TO-ONE", Shape, "one-to-one rooms say oneToOne false",
			roomList(func(r map[string]any) {
				if r["platformType"] == "ONETOONE" {
					r["oneToOne"] = false
				}
			})),
		// (A one-to-one room without user conforms: which room fields are
		// always present is not shown. minimal-rooms covers it.)
		fault("ROOM-ONE-TO-ONE", Shape, "repository rooms say oneToOne true",
			roomList(func(r map[string]any) {
				if r["platformType"] == "REPO" {
					r["oneToOne"] = true
				}
			})),
		fault("ROOM-ONE-TO-ONE", WrongSubject, "a one-to-one room's user is the caller, not the other participant",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				me, _ := asList(c.do("GET", "/v1/user", nil, nil).get())[0].(map[string]any)
				each(x.get(), func(r map[string]any) {
					if r["oneToOne"] == true && me != nil {
						r["user"] = me
					}
				})
			})),
		fault("ROOM-ONE-TO-ONE", Intermittent, "one rooms list in three gives one-to-one rooms a uri",
			everyNth(3, "listUserRooms", roomList(func(r map[string]any) {
				if r["oneToOne"] == true {
					r["uri"] = "someone"
				}
			}))),
		fault("ROOM-USER-ONLY-ONE-TO-ONE", Shape, "channels carry a user in the channels list",
			rooms("listUserChannels", func(c *call, r map[string]any) { r["user"] = anyUser(c) })),
		fault("ROOM-USER-ONLY-ONE-TO-ONE", Shape, "organisation rooms embedded in the organisations list carry a user",
			rooms("listUserOrgs", func(c *call, r map[string]any) { r["user"] = anyUser(c) })),
		fault("ROOM-USER-ONLY-ONE-TO-ONE", Intermittent, "one rooms list in three gives repository rooms a user",
			everyNth(3, "listUserRooms", rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["platformType"] == "REPO" {
					r["user"] = anyUser(c)
				}
			}))),
		fault("ROOM-HIDE", NotStored, "hiding answers success and hides nothing",
			answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				if x := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.room+"/unreadItems", nil, nil); !x.ok() {
					return x
				}
				return succeed()
			})),
		fault("ROOM-HIDE", TooWide, "hiding a room hides it for every member",
			onSuccess("hideUserRoom", func(c *call, x *reply) {
				for _, t := range memberTokens(c, c.room) {
					c.doAs("DELETE", "/v1/user/me/rooms/"+c.room, nil, nil, &t)
				}
			})),
		fault("ROOM-HIDE", WrongSubject, "hiding a room hides every room of the user but that one",
			answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				x := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.room+"/unreadItems", nil, nil)
				if !x.ok() {
					return x
				}
				for _, id := range ids(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get()) {
					if id != c.room {
						c.do("DELETE", "/v1/user/"+c.user+"/rooms/"+id, nil, nil)
					}
				}
				return succeed()
			})),
		fault("ROOM-HIDE", Intermittent, "one hide in two answers success and hides nothing",
			everyNth(2, "hideUserRoom", func(c *call, next func() *reply) *reply { return succeed() })),
	)

	// --- Channels, organisations, repositories -----------------------------
	channels := func(f func(r map[string]any)) step {
		return rooms("listUserChannels", func(c *call, r map[string]any) { f(r) })
	}
	add(
		fault("CHANNEL-LIST", WrongSubject, "the channels list also holds the user's repository rooms",
			onSuccess("listUserChannels", func(c *call, x *reply) {
				for _, r := range asList(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get()) {
					if m, _ := r.(map[string]any); m != nil && m["platformType"] == "REPO" {
						x.set(append(asList(x.get()), r))
					}
				}
			})),
		fault("CHANNEL-LIST", WrongSubject, "the channels list is always empty",
			onSuccess("listUserChannels", func(c *call, x *reply) { x.set([]any{}) })),
		fault("CHANNEL-LIST", TooWide, "the channels list holds every user's channels",
			onSuccess("listUserChannels", func(c *call, x *reply) {
				seen := map[string]bool{}
				var all []any
				for _, u := range c.st.world.Users {
					for _, r := range asList(c.doAs("GET", "/v1/user/me/channels", nil, nil, &u.Token).get()) {
						if id := asString(r.(map[string]any)["id"]); !seen[id] {
							seen[id] = true
							all = append(all, r)
						}
					}
				}
				x.set(all)
			})),
		fault("CHANNEL-LIST", Intermittent, "one channels list in three says REPO",
			everyNth(3, "listUserChannels", channels(func(r map[string]any) { r["platformType"] = "REPO" }))),
		fault("CHANNEL-NO-USERCOUNT", Shape, "channels in the rooms list carry userCount",
			roomList(func(r map[string]any) {
				if r["platformType"] == "USER_CHANNEL" {
					r["userCount"] = 0
				}
			})),
		fault("CHANNEL-NO-USERCOUNT", Shape, "channels carry userCount null", channels(func(r map[string]any) { r["userCount"] = nil })),
		fault("CHANNEL-NO-USERCOUNT", Intermittent, "one channels list in three carries userCount",
			everyNth(3, "listUserChannels", channels(func(r map[string]any) { r["userCount"] = 3 }))),
		fault("CHANNEL-SECURITY", Shape, "channel security is a boolean", channels(func(r map[string]any) { r["security"] = true })),
		fault("CHANNEL-SECURITY", Shape, "channels in the rooms list carry no security",
			roomList(func(r map[string]any) {
				if r["platformType"] == "USER_CHANNEL" {
					delete(r, "security")
				}
			})),
		fault("CHANNEL-SECURITY", Intermittent, "one channels list in three carries no security",
			everyNth(3, "listUserChannels", channels(func(r map[string]any) { delete(r, "security") }))),
		fault("ORG-LIST", Shape, "avatar_url is a relative path", messages("listUserOrgs", func(c *call, o map[string]any) { o["avatar_url"] = "org.png" })),
		fault("ORG-LIST", Shape, "organisations have no name", messages("listUserOrgs", func(c *call, o map[string]any) { delete(o, "name") })),
		fault("ORG-LIST", TooWide, "the organisations list holds organisations the user is not in",
			onSuccess("listUserOrgs", func(c *call, x *reply) {
				me, _ := c.caller()
				for _, o := range c.st.world.Orgs {
					if !contains(o.Members, me.ID) {
						x.set(append(asList(x.get()), map[string]any{"id": o.ID, "name": o.Name, "avatar_url": o.AvatarURL}))
					}
				}
			})),
		fault("ORG-LIST", Intermittent, "one organisations list in three has string ids",
			everyNth(3, "listUserOrgs", messages("listUserOrgs", func(c *call, o map[string]any) { o["id"] = strconv.Itoa(asInt(o["id"])) }))),
		fault("ORG-ROOM", Shape, "organisations that have a room leave it out", messages("listUserOrgs", func(c *call, o map[string]any) { delete(o, "room") })),
		fault("ORG-ROOM", WrongSubject, "each organisation embeds the room of the next one", rotateRooms("listUserOrgs")),
		fault("ORG-ROOM", Intermittent, "one organisations list in three embeds an empty room where there is none",
			everyNth(3, "listUserOrgs", messages("listUserOrgs", func(c *call, o map[string]any) {
				if _, ok := o["room"]; !ok {
					o["room"] = map[string]any{}
				}
			}))),
		fault("REPO-LIST", Shape, "private is a string", messages("listUserRepos", func(c *call, p map[string]any) { p["private"] = strconv.FormatBool(p["private"] == true) })),
		fault("REPO-LIST", Shape, "repository ids are strings", messages("listUserRepos", func(c *call, p map[string]any) { p["id"] = strconv.Itoa(asInt(p["id"])) })),
		fault("REPO-LIST", Intermittent, "one repositories list in three carries no uri",
			everyNth(3, "listUserRepos", messages("listUserRepos", func(c *call, p map[string]any) { delete(p, "uri") }))),
		fault("REPO-ROOM", Shape, "repositories that have a room leave it out", messages("listUserRepos", func(c *call, p map[string]any) { delete(p, "room") })),
		fault("REPO-ROOM", Shape, "repositories without a room say room: null",
			messages("listUserRepos", func(c *call, p map[string]any) {
				if _, ok := p["room"]; !ok {
					p["room"] = nil
				}
			})),
		fault("REPO-ROOM", WrongSubject, "each repository embeds the room of the next one", rotateRooms("listUserRepos")),
		fault("REPO-PRIVATE-GRANTED", WrongSubject, "private repositories are shown to the first user only",
			onSuccess("listUserRepos", func(c *call, x *reply) {
				if me, _ := c.caller(); me.ID != c.st.first.ID {
					x.set(filter(x.get(), func(p map[string]any) bool { return p["private"] != true }))
				}
			})),
		fault("REPO-PRIVATE-GRANTED", Intermittent, "one repositories list in two hides private repositories",
			everyNth(2, "listUserRepos", onSuccess("listUserRepos", func(c *call, x *reply) {
				x.set(filter(x.get(), func(p map[string]any) bool { return p["private"] != true }))
			}))),
		fault("REPO-PRIVATE-WITHHELD", Shape, "private repositories are shown to everyone, marked private false",
			privateReposForAll(), messages("listUserRepos", func(c *call, p map[string]any) {
				if me, _ := c.caller(); !me.PrivateReposGranted {
					p["private"] = false
				}
			})),
		fault("REPO-PRIVATE-WITHHELD", Intermittent, "one repositories list in two shows private repositories to everyone",
			everyNth(2, "listUserRepos", privateReposForAll())),
	)

	// --- Unread items --------------------------------------------------------
	unread := func(f func(c *call, u map[string]any)) step { return messages("getUnreadItems", f) }
	add(
		fault("UNREAD-SHAPE", Shape, "chat lists objects with an id, not id strings",
			unread(func(c *call, u map[string]any) {
				var out []any
				for _, id := range asList(u["chat"]) {
					out = append(out, map[string]any{"id": id})
				}
				u["chat"] = out
			})),
		fault("UNREAD-SHAPE", Shape, "chat is null when nothing is unread",
			unread(func(c *call, u map[string]any) {
				if len(asList(u["chat"])) == 0 {
					u["chat"] = nil
				}
			})),
		fault("UNREAD-SHAPE", Intermittent, "one answer in three carries no mention list",
			everyNth(3, "getUnreadItems", unread(func(c *call, u map[string]any) { delete(u, "mention") }))),
		fault("UNREAD-CHAT", NotStored, "messages sent after start are never unread chat",
			unread(func(c *call, u map[string]any) { u["chat"] = historyOnly(c, u["chat"]) })),
		fault("UNREAD-CHAT", WrongSubject, "unread items of any room are those of the history room",
			onSuccess("getUnreadItems", func(c *call, x *reply) {
				if y := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.st.world.Hints.Org+"/unreadItems", nil, nil); y.ok() {
					x.set(y.get())
				}
			})),
		fault("UNREAD-CHAT", Intermittent, "one answer in two lists no unread chat",
			everyNth(2, "getUnreadItems", unread(func(c *call, u map[string]any) { u["chat"] = []any{} }))),
		fault("UNREAD-MENTION", NotStored, "mentions sent after start are never listed",
			unread(func(c *call, u map[string]any) { u["mention"] = historyOnly(c, u["mention"]) })),
		fault("UNREAD-MENTION", WrongSubject, "mention lists every unread chat message",
			unread(func(c *call, u map[string]any) { u["mention"] = u["chat"] })),
		fault("UNREAD-MENTION", Intermittent, "one answer in two lists no mention",
			everyNth(2, "getUnreadItems", unread(func(c *call, u map[string]any) { u["mention"] = []any{} }))),
		fault("UNREAD-MARK-READ", WrongSubject, "marking read marks the messages read for another member instead",
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
		fault("UNREAD-MARK-READ", TooWide, "marking read marks the messages read for every member",
			onSuccess("markUnreadItemsRead", func(c *call, x *reply) {
				body := c.jsonBody()
				for _, t := range memberTokens(c, c.room) {
					c.doAs("POST", "/v1/user/me/rooms/"+c.room+"/unreadItems", nil, body, &t)
				}
			})),
		fault("UNREAD-MARK-READ", IgnoresInput, "marking read marks every unread message of the room, not only those named",
			onRequest("markUnreadItemsRead", func(c *call) {
				u, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				b := c.jsonBody()
				if b == nil || u == nil || len(asList(b["chat"])) == 0 {
					return
				}
				b["chat"] = append(asList(b["chat"]), asList(u["chat"])...)
				c.setJSONBody(b)
			})),
		fault("UNREAD-MARK-READ", Intermittent, "one mark-read in two answers success and changes nothing",
			everyNth(2, "markUnreadItemsRead", swallowMarkRead())),
		fault("UNREAD-READBY", StaleDerived, "readBy counts a reader twice once a message is marked read",
			onSuccess("markUnreadItemsRead", func(c *call, x *reply) {
				for _, id := range strs(c.jsonBody()["chat"]) {
					c.st.add("read-twice", id, 1)
				}
			}),
			messages("msgs", func(c *call, m map[string]any) {
				m["readBy"] = asInt(m["readBy"]) + c.st.get("read-twice", asString(m["id"]))
			})),
		fault("UNREAD-READBY", Shape, "readBy is a string", messages("msgs", func(c *call, m map[string]any) { m["readBy"] = strconv.Itoa(asInt(m["readBy"])) })),
		fault("UNREAD-READBY", Intermittent, "one read in two shows readBy as in the seeded history",
			everyNth(2, "msgs", messages("msgs", func(c *call, m map[string]any) { m["readBy"] = c.st.readBy[asString(m["id"])] }))),
		fault("UNREAD-FLAG", StaleDerived, "the unread flag is always true", messages("msgs", func(c *call, m map[string]any) { m["unread"] = true })),
		fault("UNREAD-FLAG", WrongSubject, "the unread flag is inverted", messages("listMessages getMessage", func(c *call, m map[string]any) { m["unread"] = m["unread"] != true })),
		fault("UNREAD-FLAG", Intermittent, "one read in two says unread false",
			everyNth(2, "listMessages getMessage", messages("listMessages getMessage", func(c *call, m map[string]any) { m["unread"] = false }))),
		fault("UNREAD-ROOM-COUNTS", StaleDerived, "a room's counts stay as they were first answered",
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
		fault("UNREAD-ROOM-COUNTS", StaleDerived, "a room's mentions count is always 0", rooms("rooms", func(c *call, r map[string]any) { r["mentions"] = 0 })),
		fault("UNREAD-ROOM-COUNTS", Intermittent, "one rooms list in two counts one unread item too many",
			everyNth(2, "rooms", rooms("rooms", func(c *call, r map[string]any) { r["unreadItems"] = asInt(r["unreadItems"]) + 1 }))),
	)

	// --- Messages ------------------------------------------------------------
	list := func(f func(c *call, m map[string]any)) step { return messages("listMessages", f) }
	sent := func(f func(c *call, m map[string]any)) step { return messages("sendMessage", f) }
	add(
		fault("MSG-LIST", Shape, "each message of a list is wrapped in an object",
			onSuccess("listMessages", func(c *call, x *reply) {
				var out []any
				for _, m := range asList(x.get()) {
					out = append(out, map[string]any{"message": m})
				}
				x.set(append([]any{}, out...))
			})),
		fault("MSG-LIST", Shape, "a list is an object keyed by message id",
			onSuccess("listMessages", func(c *call, x *reply) {
				out := map[string]any{}
				each(x.get(), func(m map[string]any) { out[asString(m["id"])] = m })
				x.set(out)
			})),
		fault("MSG-LIST", Intermittent, "one list in three is wrapped in an object",
			everyNth(3, "listMessages", onSuccess("listMessages", func(c *call, x *reply) { x.set(map[string]any{"messages": x.get()}) }))),
		fault("MSG-SHAPE", Shape, "sent in lists is not in UTC",
			list(func(c *call, m map[string]any) { m["sent"] = strings.TrimSuffix(asString(m["sent"]), "Z") + "+02:00" })),
		fault("MSG-SHAPE", Shape, "editedAt is an empty string until an edit",
			list(func(c *call, m map[string]any) {
				if m["editedAt"] == nil {
					m["editedAt"] = ""
				}
			})),
		fault("MSG-SHAPE", Shape, "urls lists plain strings",
			messages("msgs", func(c *call, m map[string]any) {
				var out []any
				each(m["urls"], func(u map[string]any) { out = append(out, u["url"]) })
				if len(out) > 0 {
					m["urls"] = out
				}
			})),
		fault("MSG-SHAPE", Intermittent, "one list in three has messages without sent", everyNth(3, "listMessages", list(func(c *call, m map[string]any) { delete(m, "sent") }))),
		fault("MSG-META-EMPTY", Shape, "meta is null in a sent message", sent(func(c *call, m map[string]any) { m["meta"] = nil })),
		fault("MSG-META-EMPTY", Shape, "meta is an array in lists", list(func(c *call, m map[string]any) { m["meta"] = []any{} })),
		fault("MSG-META-EMPTY", Intermittent, "one list in three has meta with data",
			everyNth(3, "listMessages", list(func(c *call, m map[string]any) { m["meta"] = map[string]any{"source": "web"} }))),
		fault("MSG-NO-GV", Shape, "a sent message carries gv", sent(func(c *call, m map[string]any) { m["gv"] = "3" })),
		fault("MSG-NO-GV", Shape, "a message's sender carries gv",
			messages("msgs", func(c *call, m map[string]any) {
				if u, ok := m["fromUser"].(map[string]any); ok {
					u["gv"] = "3"
				}
			})),
		fault("MSG-NO-GV", Intermittent, "one message read in three carries gv", everyNth(3, "getMessage", messages("getMessage", func(c *call, m map[string]any) { m["gv"] = "3" }))),
		fault("MSG-GET-ONE", WrongSubject, "reading one message answers the one before it",
			onSuccess("getMessage", func(c *call, x *reply) {
				prev := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", map[string][]string{"beforeId": {c.msg}, "limit": {"1"}}, nil)
				if l := asList(prev.get()); len(l) == 1 {
					x.set(l[0])
				}
			})),
		fault("MSG-GET-ONE", Shape, "one message comes as an array holding it", onSuccess("getMessage", func(c *call, x *reply) { x.set([]any{x.get()}) })),
		fault("MSG-GET-ONE", Intermittent, "one read in three answers the room's newest message",
			everyNth(3, "getMessage", onSuccess("getMessage", func(c *call, x *reply) {
				if l := asList(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", map[string][]string{"limit": {"1"}}, nil).get()); len(l) == 1 {
					x.set(l[0])
				}
			}))),
		fault("MSG-SEND-200", Shape, "sending answers 202 with an empty body",
			onSuccess("sendMessage", func(c *call, x *reply) {
				x.status = http.StatusAccepted
				x.setRaw([]byte{})
			})),
		fault("MSG-SEND-200", Shape, `sending answers {"success":true} instead of the message`,
			onSuccess("sendMessage", func(c *call, x *reply) { x.set(map[string]any{"success": true}) })),
		fault("MSG-SEND-200", Intermittent, "one send in three answers 201",
			everyNth(3, "sendMessage", onSuccess("sendMessage", func(c *call, x *reply) { x.status = http.StatusCreated }))),
		fault("MSG-SEND-DEFAULTS", Shape, "a new message says v 0", sent(func(c *call, m map[string]any) { m["v"] = 0 })),
		fault("MSG-SEND-DEFAULTS", Shape, "a new message says unread true", sent(func(c *call, m map[string]any) { m["unread"] = true })),
		fault("MSG-SEND-DEFAULTS", Intermittent, "one new message in three says readBy 1", everyNth(3, "sendMessage", sent(func(c *call, m map[string]any) { m["readBy"] = 1 }))),
		fault("MSG-SEND-EDITEDAT-NULL", Shape, "a new message has no editedAt at all", sent(func(c *call, m map[string]any) { delete(m, "editedAt") })),
		fault("MSG-SEND-EDITEDAT-NULL", Shape, "a new message has editedAt as an empty string", sent(func(c *call, m map[string]any) { m["editedAt"] = "" })),
		fault("MSG-SEND-EDITEDAT-NULL", Intermittent, "one new message in three has editedAt set",
			everyNth(3, "sendMessage", sent(func(c *call, m map[string]any) { m["editedAt"] = m["sent"] }))),
		fault("MSG-SEND-TEXT", NotStored, "the text is stored with surrounding spaces trimmed", rewriteText("sendMessage", strings.TrimSpace)),
		fault("MSG-SEND-TEXT", WrongSubject, "the message is sent as the first user",
			onRequest("sendMessage", func(c *call) { setToken(c.r, c.st.first.Token) })),
		fault("MSG-SEND-TEXT", NotStored, "the text is stored HTML-escaped", rewriteText("sendMessage", htmlEscape)),
		fault("MSG-SEND-TEXT", Intermittent, "one send in three drops non-ASCII characters",
			everyNth(3, "sendMessage", rewriteText("sendMessage", func(s string) string { return strings.Map(asciiOnly, s) }))),
		fault("MSG-SEND-STATUS", WrongSubject, "every message is sent as a status update",
			onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil {
					b["status"] = true
					c.setJSONBody(b)
				}
			})),
		fault("MSG-SEND-STATUS", NotStored, "status is answered as sent but stored false",
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
		fault("MSG-SEND-STATUS", Intermittent, "one send in two ignores status",
			everyNth(2, "sendMessage", onRequest("sendMessage", func(c *call) {
				if b := c.jsonBody(); b != nil {
					delete(b, "status")
					c.setJSONBody(b)
				}
			}))),
		fault("MSG-SEND-STORED", WrongSubject, "a message is stored in another room of the sender",
			onRequest("sendMessage", func(c *call) {
				me, _ := c.caller()
				for _, r := range c.st.world.Rooms {
					if r.ID != c.room && contains(r.Members, me.ID) && r.Kind != "ONETOONE" {
						c.r.URL.Path = "/v1/rooms/" + r.ID + "/chatMessages"
						return
					}
				}
			})),
		fault("MSG-SEND-STORED", NotStored, "a sent message is shown to its sender only",
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
		fault("MSG-SEND-STORED", Intermittent, "one send in three is answered but never shown again", everyNth(3, "sendMessage", ghostSends()[0]), ghostSends()[1], ghostSends()[2], ghostSends()[3]),
		fault("MSG-EDIT", IgnoresInput, "an edit keeps the old text (v and editedAt change)",
			onRequest("updateMessage", func(c *call) {
				old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				if b := c.jsonBody(); b != nil && old != nil {
					b["text"] = old["text"]
					c.setJSONBody(b)
				}
			})),
		fault("MSG-EDIT", NotStored, "an edit answers the text before the edit",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				x := next()
				if m, ok := x.get().(map[string]any); ok && x.ok() && old != nil {
					m["text"] = old["text"]
				}
				return x
			})),
		fault("MSG-EDIT", Intermittent, "one edit in three answers an old text",
			everyNth(3, "updateMessage", messages("updateMessage", func(c *call, m map[string]any) { m["text"] = asString(m["text"]) + " (old)" }))),
		fault("MSG-EDIT-EDITEDAT", Shape, "editedAt after an edit is not in UTC",
			messages("updateMessage getMessage listMessages", func(c *call, m map[string]any) {
				if t, ok := m["editedAt"].(string); ok {
					m["editedAt"] = strings.TrimSuffix(t, "Z") + "+01:00"
				}
			})),
		fault("MSG-EDIT-EDITEDAT", StaleDerived, "editedAt after an edit is the time it was sent",
			messages("msgs", func(c *call, m map[string]any) {
				if m["editedAt"] != nil {
					m["editedAt"] = m["sent"]
				}
			})),
		fault("MSG-EDIT-EDITEDAT", Intermittent, "one edit in two leaves editedAt null in its answer",
			everyNth(2, "updateMessage", messages("updateMessage", func(c *call, m map[string]any) { m["editedAt"] = nil }))),
		fault("MSG-EDIT-V-INC", StaleDerived, "v stays 1 after edits",
			messages("msgs", func(c *call, m map[string]any) {
				if _, old := c.st.readBy[asString(m["id"])]; !old && m["editedAt"] != nil {
					m["v"] = 1
				}
			})),
		fault("MSG-EDIT-V-INC", NotStored, "v is raised in the edit's answer only; reads show the old v",
			messages("getMessage listMessages", func(c *call, m map[string]any) {
				m["v"] = asInt(m["v"]) - c.st.get("edits", asString(m["id"]))
			}), countEdits("edits")),
		fault("MSG-EDIT-V-INC", Intermittent, "one edit in three raises v by two",
			messages("msgs", func(c *call, m map[string]any) { m["v"] = asInt(m["v"]) + c.st.get("extra-v", asString(m["id"])) }),
			everyNth(3, "updateMessage", countEdits("extra-v"))),
		fault("MSG-EDIT-PERSISTED", NotStored, "a message read by id shows the text before its last edit",
			rememberOldText(), messages("getMessage", restoreOldText)),
		fault("MSG-EDIT-PERSISTED", NotStored, "lists show the text before the last edit",
			rememberOldText(), messages("listMessages", restoreOldText)),
		fault("MSG-EDIT-PERSISTED", Intermittent, "one edit in two is answered but not stored", everyNth(2, "updateMessage", unstoredEdit())),
	)

	// --- Rendering and metadata ---------------------------------------------
	html := func(ops string, f func(string) string) step {
		return messages(ops, func(c *call, m map[string]any) { m["html"] = f(asString(m["html"])) })
	}
	add(
		fault("RENDER-MENTION", StaleDerived, "html is not rendered again after an edit", staleAfterEdit("html")),
		fault("RENDER-MENTION", Shape, "mention spans have class user-mention", html("msgs", replacer(`class="mention"`, `class="user-mention"`))),
		fault("RENDER-MENTION", Intermittent, "one message in three leaves mentions as plain text",
			everyNth(3, "sendMessage", html("sendMessage", func(s string) string { return mentionSpan.ReplaceAllString(s, "@$1") }))),
		fault("RENDER-ISSUE", Shape, "issue references are anchors with class link", html("msgs", replacer(`<span data-link-type="issue"`, `<a`, `class="issue">`, `class="link">`))),
		fault("RENDER-ISSUE", StaleDerived, "an edit's html has issue spans without a class", html("updateMessage", replacer(` class="issue"`, ``))),
		fault("RENDER-ISSUE", Intermittent, "one message in three has issue spans with class ref", everyNth(3, "sendMessage", html("sendMessage", replacer(`class="issue"`, `class="ref"`)))),
		fault("RENDER-LINK", Shape, "link anchors have no href", html("msgs", func(s string) string { return hrefAttr.ReplaceAllString(s, "") })),
		fault("RENDER-LINK", Shape, "link anchors have class url", html("msgs", replacer(`class="link"`, `class="url"`))),
		fault("RENDER-LINK", Intermittent, "one message in three has link anchors without a class", everyNth(3, "sendMessage", html("sendMessage", replacer(` class="link"`, ``)))),
		fault("RENDER-ESCAPE", Shape, "ampersands are not escaped", html("msgs", replacer("&amp;", "&"))),
		fault("RENDER-ESCAPE", Shape, "special characters are escaped twice", html("msgs", replacer("&lt;", "&amp;lt;", "&gt;", "&amp;gt;"))),
		fault("RENDER-ESCAPE", Intermittent, "one message in three passes raw HTML through", everyNth(3, "sendMessage", html("sendMessage", htmlUnescape))),
		fault("META-URLS", StaleDerived, "urls of an edited message keep their old list", staleAfterEdit("urls")),
		fault("META-URLS", Shape, "urls are listed without their query and fragment",
			messages("msgs", func(c *call, m map[string]any) {
				each(m["urls"], func(u map[string]any) {
					s := asString(u["url"])
					if i := strings.IndexAny(s, "?#"); i >= 0 {
						u["url"] = s[:i]
					}
				})
			})),
		fault("META-URLS", Intermittent, "one message in three lists no urls", everyNth(3, "sendMessage", sent(func(c *call, m map[string]any) { m["urls"] = []any{} }))),
		fault("META-MENTIONS", WrongSubject, "a mention's userId is the sender's id",
			messages("msgs", func(c *call, m map[string]any) {
				from, _ := m["fromUser"].(map[string]any)
				each(m["mentions"], func(r map[string]any) { r["userId"] = from["id"] })
			})),
		fault("META-MENTIONS", StaleDerived, "mentions of an edited message keep their old list", staleAfterEdit("mentions")),
		fault("META-MENTIONS", Shape, "mentions carry no screenName", messages("msgs", func(c *call, m map[string]any) {
			each(m["mentions"], func(r map[string]any) { delete(r, "screenName") })
		})),
		fault("META-ISSUES", StaleDerived, "issues of an edited message keep their old list", staleAfterEdit("issues")),
		fault("META-ISSUES", Shape, "issue numbers keep their #", messages("msgs", func(c *call, m map[string]any) {
			each(m["issues"], func(r map[string]any) { r["number"] = "#" + asString(r["number"]) })
		})),
		fault("META-ISSUES", WrongSubject, "issues is always empty", messages("msgs", func(c *call, m map[string]any) { m["issues"] = []any{} })),
	)

	// --- Pagination, search and limits ---------------------------------------
	add(
		fault("PAGE-LIMIT", IgnoresInput, "limit is ignored: every page holds 50", dropParam("limit")),
		fault("PAGE-LIMIT", WrongSubject, "a limit below 10 gives 10",
			onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("limit"); ok && n > 0 && n < 10 {
					setParam(c, "limit", "10")
				}
			})),
		fault("PAGE-LIMIT", Intermittent, "one page in three holds one message more than limit", everyNth(3, "listMessages", pageOneMore())),
		fault("PAGE-BEFOREID-WALK", WrongSubject, "beforeId skips the message right before the cursor", skippingBefore()),
		fault("PAGE-BEFOREID-WALK", IgnoresInput, "beforeId deeper than 200 messages answers an empty page", shallowBefore(200)),
		fault("PAGE-BEFOREID-WALK", Intermittent, "one beforeId page in four includes the cursor", everyNth(4, "listMessages", inclusiveBefore())),
		fault("PAGE-BEFOREID", WrongSubject, "beforeId answers the messages after it", swapParam("beforeId", "afterId")),
		fault("PAGE-BEFOREID", IgnoresInput, "beforeId is ignored when a limit is given",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("limit") != "" {
					setParam(c, "beforeId", "")
				}
			})),
		fault("PAGE-BEFOREID", Intermittent, "one request in three ignores beforeId", everyNth(3, "listMessages", dropParam("beforeId"))),
		fault("PAGE-AFTERID", IgnoresInput, "afterId is ignored", dropParam("afterId")),
		fault("PAGE-AFTERID", WrongSubject, "afterId includes the cursor message", inclusiveAfter()),
		fault("PAGE-AFTERID", Intermittent, "one request in three answers the messages before afterId", everyNth(3, "listMessages", swapParam("afterId", "beforeId"))),
		fault("PAGE-AROUNDID", IgnoresInput, "aroundId is ignored: the newest page comes back", dropParam("aroundId")),
		fault("PAGE-AROUNDID", WrongSubject, "aroundId answers only the messages after the anchor", swapParam("aroundId", "afterId")),
		fault("PAGE-AROUNDID", Intermittent, "one aroundId page in two leaves the anchor out",
			everyNth(2, "listMessages", onSuccess("listMessages", func(c *call, x *reply) {
				a := c.query().Get("aroundId")
				x.set(filter(x.get(), func(m map[string]any) bool { return a == "" || m["id"] != a }))
			}))),
		fault("PAGE-SKIP", WrongSubject, "skip n leaves out n-1 messages",
			onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("skip"); ok && n > 0 {
					setParam(c, "skip", strconv.Itoa(n-1))
				}
			})),
		fault("PAGE-SKIP", WrongSubject, "skip counts from the oldest message", skipFromOldest()),
		fault("PAGE-SKIP", Intermittent, "one request in three ignores skip", everyNth(3, "listMessages", dropParam("skip"))),
		fault("SEARCH-Q", IgnoresInput, "q is ignored: the newest page comes back", dropParam("q")),
		fault("SEARCH-Q", StaleDerived, "search finds only messages of the seeded history",
			onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					x.set(filter(x.get(), func(m map[string]any) bool { _, old := c.st.readBy[asString(m["id"])]; return old }))
				}
			})),
		fault("SEARCH-Q", Intermittent, "one search in two finds nothing",
			everyNth(2, "listMessages", onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					x.set([]any{})
				}
			}))),
		fault("LIMIT-100", IgnoresInput, "limit=100 gives the default page of 50",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("limit") == "100" {
					setParam(c, "limit", "")
				}
			})),
		fault("LIMIT-100", WrongSubject, "a limit above 60 gives 60",
			onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("limit"); ok && n > 60 {
					setParam(c, "limit", "60")
				}
			})),
		fault("LIMIT-100", Intermittent, "one limit=100 in two gives 99",
			everyNth(2, "listMessages", onRequest("listMessages", func(c *call) {
				if c.query().Get("limit") == "100" {
					setParam(c, "limit", "99")
				}
			}))),
		fault("LIMIT-CAP", IgnoresInput, "a limit above 100 gives 101 messages", capAt(101)),
		fault("LIMIT-CAP", IgnoresInput, "a limit above 100 gives up to 1000 messages", capAt(1000)),
		fault("LIMIT-CAP", Intermittent, "one limit above 100 in two is honoured", everyNth(2, "listMessages", honourLimit())),
		fault("LIMIT-SKIP-5000", IgnoresInput, "skip above 1000 is ignored",
			onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("skip"); ok && n > 1000 {
					setParam(c, "skip", "")
				}
			})),
		fault("LIMIT-SKIP-5000", WrongSubject, "skip=5000 is refused (the bound is taken as exclusive)",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("skip"); ok && n >= 5000 {
					return refuse(http.StatusBadRequest, "skip too large")
				}
				return next()
			})),
		fault("LIMIT-SKIP-5000", Intermittent, "one skip above 4000 in two is refused",
			everyNth(2, "listMessages", answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("skip"); ok && n > 4000 {
					return refuse(http.StatusBadRequest, "skip too large")
				}
				return next()
			}))),
	)
	// Last, so the names of the faults above keep their numbers.
	add(fault("MSG-SHAPE", Shape, "empty urls, mentions and issues are left out of messages",
		messages("msgs", func(c *call, m map[string]any) {
			for _, k := range []string{"urls", "mentions", "issues"} {
				if l, ok := m[k].([]any); ok && len(l) == 0 {
					delete(m, k)
				}
			}
		})))
	return fs
}

// --- helpers of the class faults --------------------------------------------

// markRead marks ids of a room read for the caller.
func markRead(c *call, room string, ids []string) {
	if len(ids) > 0 {
		c.do("POST", "/v1/user/me/rooms/"+room+"/unreadItems", nil, map[string]any{"chat": ids})
	}
}

func strs(v any) []string {
	var out []string
	for _, e := range asList(v) {
		out = append(out, asString(e))
	}
	return out
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

// dropRooms leaves rooms of a kind out of the rooms list.
func dropRooms(kind string) step {
	return onSuccess("listUserRooms", func(c *call, x *reply) {
		x.set(filter(x.get(), func(r map[string]any) bool { return r["platformType"] != kind }))
	})
}

// anyUser is a User object of the world (the first user).
func anyUser(c *call) any {
	if l := asList(c.doAs("GET", "/v1/user", nil, nil, &c.st.first.Token).get()); len(l) == 1 {
		return l[0]
	}
	return map[string]any{}
}

// memberTokens lists the tokens of a room's members.
func memberTokens(c *call, room string) []string {
	var out []string
	for _, r := range c.st.world.Rooms {
		if r.ID == room {
			for _, id := range r.Members {
				out = append(out, c.st.byID[id].Token)
			}
		}
	}
	return out
}

// rotateRooms embeds in each entry the room of the next entry that has one.
func rotateRooms(op string) step {
	return onSuccess(op, func(c *call, x *reply) {
		var with []map[string]any
		each(x.get(), func(e map[string]any) {
			if _, ok := e["room"]; ok {
				with = append(with, e)
			}
		})
		if len(with) < 2 {
			return
		}
		first := with[0]["room"]
		for i := range with[:len(with)-1] {
			with[i]["room"] = with[i+1]["room"]
		}
		with[len(with)-1]["room"] = first
	})
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

// staleAfterEdit answers an edit (and later reads) with the field as it was
// before the edit.
func staleAfterEdit(field string) step {
	return func(c *call, next func() *reply) *reply {
		if c.op == "updateMessage" {
			old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
			x := next()
			if x.ok() && old != nil {
				c.st.setValue(field+":"+c.msg, old[field])
				each(x.get(), func(m map[string]any) { m[field] = old[field] })
			}
			return x
		}
		x := next()
		if matches("listMessages getMessage", c.op) && x.ok() {
			each(x.get(), func(m map[string]any) {
				if v, ok := c.st.value(field + ":" + asString(m["id"])); ok {
					m[field] = v
				}
			})
		}
		return x
	}
}

func replacer(oldnew ...string) func(string) string {
	r := strings.NewReplacer(oldnew...)
	return r.Replace
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// setParam sets (or, with "", removes) a query parameter of the request.
func setParam(c *call, k, v string) {
	q := c.query()
	if v == "" {
		q.Del(k)
	} else {
		q.Set(k, v)
	}
	c.setQuery(q)
}

// swapParam sends parameter from as parameter to.
func swapParam(from, to string) step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		if v := q.Get(from); v != "" {
			q.Del(from)
			q.Set(to, v)
			c.setQuery(q)
		}
	})
}

// neighbour returns the id next to id (older with dir "beforeId", newer
// with "afterId"), or "" when there is none.
func neighbour(c *call, id, dir string) string {
	probe := map[string][]string{dir: {id}, "limit": {"1"}}
	if s := c.query().Get("q"); s != "" {
		probe["q"] = []string{s}
	}
	l := asList(c.do("GET", c.r.URL.Path, probe, nil).get())
	if len(l) == 0 {
		return ""
	}
	m, _ := l[0].(map[string]any)
	return asString(m["id"])
}

// skippingBefore makes beforeId skip the message right before the cursor.
func skippingBefore() step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		b := q.Get("beforeId")
		if b == "" || q.Get("afterId") != "" || q.Get("aroundId") != "" {
			return
		}
		if prev := neighbour(c, b, "beforeId"); prev != "" {
			setParam(c, "beforeId", prev)
		}
	})
}

// inclusiveAfter makes afterId include its cursor.
func inclusiveAfter() step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		a := q.Get("afterId")
		if a == "" || q.Get("beforeId") != "" || q.Get("aroundId") != "" {
			return
		}
		prev := neighbour(c, a, "beforeId")
		setParam(c, "afterId", prev)
	})
}

// shallowBefore answers an empty page to a beforeId cursor with more than
// depth newer messages.
func shallowBefore(depth int) step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		b := c.query().Get("beforeId")
		if b == "" {
			return next()
		}
		newer := c.do("GET", c.r.URL.Path, map[string][]string{"afterId": {b}, "limit": {"100"}, "skip": {strconv.Itoa(depth - 100)}}, nil)
		x := next()
		if x.ok() && newer.ok() && len(asList(newer.get())) > 0 {
			x.set([]any{})
		}
		return x
	})
}

// skipFromOldest applies skip to the oldest end of the room's history: the
// page starts after the n oldest messages.
func skipFromOldest() step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		q := c.query()
		n, ok := c.intParam("skip")
		if !ok || n <= 0 || n > 5000 || q.Get("afterId") != "" || q.Get("aroundId") != "" || q.Get("beforeId") != "" || q.Get("q") != "" {
			return next()
		}
		cursor := "000000000000000000000000"
		for n > 0 {
			l := asList(c.do("GET", c.r.URL.Path, map[string][]string{"afterId": {cursor}, "limit": {strconv.Itoa(min(n, 100))}}, nil).get())
			if len(l) == 0 {
				break
			}
			last, _ := l[len(l)-1].(map[string]any)
			cursor, n = asString(last["id"]), n-len(l)
		}
		limit := q.Get("limit")
		if limit == "" {
			limit = "50"
		}
		return c.do("GET", c.r.URL.Path, map[string][]string{"afterId": {cursor}, "limit": {limit}}, nil)
	})
}

// capAt answers a limit above 100 with up to max messages.
func capAt(max int) step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		q := c.query()
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n <= 100 {
			return next()
		}
		x := next()
		return olderToo(c, q, x, min(n, max)-len(asList(x.get())))
	})
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&").Replace(s)
}

var hrefAttr = regexp.MustCompile(` href="[^"]*"`)
