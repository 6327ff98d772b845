package selftest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatrooms/conformance/fixtures"
)

// roomFaults break the requirements of rooms (ROOM-*, CHANNEL-*, ORG-*,
// REPO-*): the rooms list and its Room objects, hiding a room, and the
// channels, organisations and repositories lists.
func roomFaults() []Fault {
	return []Fault{
		FirstCatalogue.fault("ROOM-LIST/shape", "the rooms list is wrapped in an object",
			onSuccess("listUserRooms", func(c *call, x *reply) { x.set(map[string]any{"rooms": x.get()}) })),
		ByClass.fault("ROOM-LIST/shape#2", "the rooms list is null", onSuccess("listUserRooms", func(c *call, x *reply) { x.setRaw([]byte("null")) })),
		ByClass.fault("ROOM-LIST/shape#3", "each room is wrapped in an object",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				var out []any
				for _, r := range asList(x.get()) {
					out = append(out, map[string]any{"room": r})
				}
				x.set(out)
			})),
		ByClass.fault("ROOM-LIST/intermittent", "one rooms list in three is wrapped in an object",
			everyNth(3, "listUserRooms", onSuccess("listUserRooms", func(c *call, x *reply) { x.set(map[string]any{"rooms": x.get()}) }))),

		FirstCatalogue.fault("ROOM-SHAPE/shape", "lastAccessTime is not in UTC",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if t, ok := r["lastAccessTime"].(string); ok {
					r["lastAccessTime"] = strings.TrimSuffix(t, "Z") + "+02:00"
				}
			})),
		ByClass.fault("ROOM-SHAPE/shape#2", "unreadItems is a string", roomList(func(r map[string]any) { r["unreadItems"] = strconv.Itoa(asInt(r["unreadItems"])) })),
		ByClass.fault("ROOM-SHAPE/shape#3", "room urls do not start with /", roomList(func(r map[string]any) { r["url"] = strings.TrimPrefix(asString(r["url"]), "/") })),
		ByClass.fault("ROOM-SHAPE/shape#4", "lastAccessTime is not an ISO 8601 timestamp",
			roomList(func(r map[string]any) {
				if t, ok := r["lastAccessTime"].(string); ok {
					r["lastAccessTime"] = strings.Replace(strings.TrimSuffix(t, "Z"), "T", " ", 1)
				}
			})),
		ByClass.fault("ROOM-SHAPE/shape#5", "topic is null", roomList(func(r map[string]any) { r["topic"] = nil })),
		BlindRound1.fault("ROOM-SHAPE/shape#6", "rooms embedded in organisation and repository entries have a url without its leading /",
			rooms("listUserOrgs listUserRepos", func(c *call, r map[string]any) { r["url"] = strings.TrimPrefix(asString(r["url"]), "/") })),
		BlindRound1.fault("ROOM-SHAPE/shape#7", "the channels list gives lastAccessTime as epoch milliseconds",
			rooms("listUserChannels", func(c *call, r map[string]any) {
				if t, err := time.Parse(time.RFC3339Nano, asString(r["lastAccessTime"])); err == nil {
					r["lastAccessTime"] = t.UnixMilli()
				}
			})),
		BlindRound2.fault("ROOM-SHAPE/shape#8", "rooms embedded in organisation entries give userCount as a string",
			rooms("listUserOrgs", func(c *call, r map[string]any) {
				if n, ok := r["userCount"]; ok {
					r["userCount"] = strconv.Itoa(asInt(n))
				}
			})),
		ByClass.fault("ROOM-SHAPE/intermittent", "one rooms list in three has lurk as a string",
			everyNth(3, "listUserRooms", roomList(func(r map[string]any) { r["lurk"] = "false" }))),

		FirstCatalogue.fault("ROOM-PLATFORM-TYPE/shape", "organisation rooms say GITHUB_ORG",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["platformType"] == "ORG" {
					r["platformType"] = "GITHUB_ORG"
				}
			})),
		ByClass.fault("ROOM-PLATFORM-TYPE/shape#2", "repository rooms say repo in lower case",
			roomList(func(r map[string]any) {
				if r["platformType"] == "REPO" {
					r["platformType"] = "repo"
				}
			})),
		ByClass.fault("ROOM-PLATFORM-TYPE/shape#3", "one-to-one rooms say ONE_TO_ONE",
			roomList(func(r map[string]any) {
				if r["platformType"] == "ONETOONE" {
					r["platformType"] = "ONE_TO_ONE"
				}
			})),
		BlindRound2.fault("ROOM-PLATFORM-TYPE/shape#4", "rooms embedded in repository entries say REPOSITORY",
			rooms("listUserRepos", func(c *call, r map[string]any) { r["platformType"] = "REPOSITORY" })),
		ByClass.fault("ROOM-PLATFORM-TYPE/intermittent", "one rooms list in three says GITHUB_ORG",
			everyNth(3, "listUserRooms", roomList(func(r map[string]any) {
				if r["platformType"] == "ORG" {
					r["platformType"] = "GITHUB_ORG"
				}
			}))),

		FirstCatalogue.fault("ROOM-KINDS/wrong-subject", "organisation rooms are left out of the rooms list",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				x.set(filter(x.get(), func(r map[string]any) bool { return r["platformType"] != "ORG" }))
			})),
		ByClass.fault("ROOM-KINDS/wrong-subject#2", "one-to-one rooms are left out of the rooms list", dropRooms("ONETOONE")),
		ByClass.fault("ROOM-KINDS/wrong-subject#3", "repository rooms are left out of the rooms list", dropRooms("REPO")),
		BlindRound2.fault("ROOM-KINDS/wrong-subject#4", "one-to-one rooms are in the first user's rooms list only",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				if me, _ := c.caller(); me.ID != c.st.first.ID {
					x.set(filter(x.get(), func(r map[string]any) bool { return r["platformType"] != "ONETOONE" }))
				}
			})),
		ByClass.fault("ROOM-KINDS/intermittent", "one rooms list in two leaves out organisation rooms", everyNth(2, "listUserRooms", dropRooms("ORG"))),

		ByClass.fault("ROOM-ONE-TO-ONE/wrong-subject", "a one-to-one room's user is the caller, not the other participant",
			onSuccess("listUserRooms", func(c *call, x *reply) {
				me, _ := asList(c.do("GET", "/v1/user", nil, nil).get())[0].(map[string]any)
				each(x.get(), func(r map[string]any) {
					if r["oneToOne"] == true && me != nil {
						r["user"] = me
					}
				})
			})),
		BlindRound1.fault("ROOM-ONE-TO-ONE/wrong-subject#2", "a one-to-one room's user is the room's last member: right for one participant, the caller for the other",
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
		FirstCatalogue.fault("ROOM-ONE-TO-ONE/shape", "one-to-one rooms carry a uri",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["oneToOne"] == true {
					r["uri"] = "someone"
				}
			})),
		ByClass.fault("ROOM-ONE-TO-ONE/shape#2", "one-to-one rooms say oneToOne false",
			roomList(func(r map[string]any) {
				if r["platformType"] == "ONETOONE" {
					r["oneToOne"] = false
				}
			})),
		// (A one-to-one room without user conforms: which room fields are
		// always present is not shown. minimal-rooms covers it.)
		ByClass.fault("ROOM-ONE-TO-ONE/shape#3", "repository rooms say oneToOne true",
			roomList(func(r map[string]any) {
				if r["platformType"] == "REPO" {
					r["oneToOne"] = true
				}
			})),
		ByClass.fault("ROOM-ONE-TO-ONE/intermittent", "one rooms list in three gives one-to-one rooms a uri",
			everyNth(3, "listUserRooms", roomList(func(r map[string]any) {
				if r["oneToOne"] == true {
					r["uri"] = "someone"
				}
			}))),

		FirstCatalogue.fault("ROOM-USER-ONLY-ONE-TO-ONE/shape", "group rooms carry a user",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["oneToOne"] == false {
					r["user"] = map[string]any{"id": "5f1a0c2b9d3e4f5a6b7c8d90", "username": "x", "displayName": "X", "url": "/x",
						"avatarUrlSmall": "https://a.test/x", "avatarUrlMedium": "https://a.test/x"}
				}
			})),
		ByClass.fault("ROOM-USER-ONLY-ONE-TO-ONE/shape#2", "channels carry a user in the channels list",
			rooms("listUserChannels", func(c *call, r map[string]any) { r["user"] = anyUser(c) })),
		ByClass.fault("ROOM-USER-ONLY-ONE-TO-ONE/shape#3", "organisation rooms embedded in the organisations list carry a user",
			rooms("listUserOrgs", func(c *call, r map[string]any) { r["user"] = anyUser(c) })),
		BlindRound2.fault("ROOM-USER-ONLY-ONE-TO-ONE/shape#4", "channels in the rooms list carry their owner as user",
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
		ByClass.fault("ROOM-USER-ONLY-ONE-TO-ONE/intermittent", "one rooms list in three gives repository rooms a user",
			everyNth(3, "listUserRooms", rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["platformType"] == "REPO" {
					r["user"] = anyUser(c)
				}
			}))),

		BlindRound1.fault("ROOM-HIDE/ignores-input", "hiding a room hides the first room of the user's list, whichever room the path names",
			onRequest("hideUserRoom", func(c *call) {
				if l := ids(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get()); len(l) > 0 {
					c.r.URL.Path = "/v1/user/" + c.user + "/rooms/" + l[0]
				}
			})),
		BlindRound2.fault("ROOM-HIDE/ignores-input#2", "hiding works for repository rooms only; other rooms answer success and stay in the list",
			answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				if roomKind(c, c.room) == fixtures.Repo {
					return next()
				}
				if y := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.room+"/unreadItems", nil, nil); !y.ok() {
					return y
				}
				return succeed()
			})),
		ByClass.fault("ROOM-HIDE/wrong-subject", "hiding a room hides every room of the user but that one",
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
		BlindRound2.fault("ROOM-HIDE/wrong-subject#2", "hiding a room hides it for the first user, whoever asks",
			onRequest("hideUserRoom", func(c *call) {
				c.r.URL.Path = "/v1/user/" + c.st.first.ID + "/rooms/" + c.room
				setToken(c.r, c.st.first.Token)
			})),
		ByClass.fault("ROOM-HIDE/not-stored", "hiding answers success and hides nothing",
			answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				if x := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.room+"/unreadItems", nil, nil); !x.ok() {
					return x
				}
				return succeed()
			})),
		BlindRound2.fault("ROOM-HIDE/not-stored#2", "a hidden room is left out of the next rooms list only; later lists show it again",
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
		ByClass.fault("ROOM-HIDE/too-wide", "hiding a room hides it for every member",
			onSuccess("hideUserRoom", func(c *call, x *reply) {
				for _, t := range memberTokens(c, c.room) {
					c.doAs("DELETE", "/v1/user/me/rooms/"+c.room, nil, nil, &t)
				}
			})),
		FirstCatalogue.fault("ROOM-HIDE/shape", "hiding a room fails with 500",
			onReply("hideUserRoom", func(c *call, x *reply) {
				*x = *refuse(http.StatusInternalServerError, "hide")
			})),
		ByClass.fault("ROOM-HIDE/intermittent", "one hide in two answers success and hides nothing",
			everyNth(2, "hideUserRoom", func(c *call, next func() *reply) *reply { return succeed() })),

		ByClass.fault("CHANNEL-LIST/wrong-subject", "the channels list also holds the user's repository rooms",
			onSuccess("listUserChannels", func(c *call, x *reply) {
				for _, r := range asList(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get()) {
					if m, _ := r.(map[string]any); m != nil && m["platformType"] == "REPO" {
						x.set(append(asList(x.get()), r))
					}
				}
			})),
		ByClass.fault("CHANNEL-LIST/wrong-subject#2", "the channels list is always empty",
			onSuccess("listUserChannels", func(c *call, x *reply) { x.set([]any{}) })),
		BlindRound2.fault("CHANNEL-LIST/wrong-subject#3", "every caller gets the first user's channels list",
			answer("listUserChannels", func(c *call, next func() *reply) *reply {
				if me, ok := c.caller(); !ok || me.ID == c.st.first.ID {
					return next()
				}
				return c.doAs("GET", "/v1/user/"+c.st.first.ID+"/channels", nil, nil, &c.st.first.Token)
			})),
		ByClass.fault("CHANNEL-LIST/too-wide", "the channels list holds every user's channels",
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
		FirstCatalogue.fault("CHANNEL-LIST/shape", "the channels list says its rooms are repository rooms",
			rooms("listUserChannels", func(c *call, r map[string]any) { r["platformType"] = "REPO" })),
		BlindRound1.fault("CHANNEL-LIST/shape#2", "an empty channels list is null",
			onSuccess("listUserChannels", func(c *call, x *reply) {
				if l, ok := x.get().([]any); ok && len(l) == 0 {
					x.setRaw([]byte("null"))
				}
			})),
		ByClass.fault("CHANNEL-LIST/intermittent", "one channels list in three says REPO",
			everyNth(3, "listUserChannels", channelList(func(r map[string]any) { r["platformType"] = "REPO" }))),

		FirstCatalogue.fault("CHANNEL-NO-USERCOUNT/shape", "channels carry userCount",
			rooms("listUserChannels", func(c *call, r map[string]any) { r["userCount"] = 3 })),
		ByClass.fault("CHANNEL-NO-USERCOUNT/shape#2", "channels in the rooms list carry userCount",
			roomList(func(r map[string]any) {
				if r["platformType"] == "USER_CHANNEL" {
					r["userCount"] = 0
				}
			})),
		ByClass.fault("CHANNEL-NO-USERCOUNT/shape#3", "channels carry userCount null", channelList(func(r map[string]any) { r["userCount"] = nil })),
		ByClass.fault("CHANNEL-NO-USERCOUNT/intermittent", "one channels list in three carries userCount",
			everyNth(3, "listUserChannels", channelList(func(r map[string]any) { r["userCount"] = 3 }))),

		FirstCatalogue.fault("CHANNEL-SECURITY/shape", "channels carry no security",
			rooms("listUserChannels", func(c *call, r map[string]any) { delete(r, "security") })),
		ByClass.fault("CHANNEL-SECURITY/shape#2", "channel security is a boolean", channelList(func(r map[string]any) { r["security"] = true })),
		ByClass.fault("CHANNEL-SECURITY/shape#3", "channels in the rooms list carry no security",
			roomList(func(r map[string]any) {
				if r["platformType"] == "USER_CHANNEL" {
					delete(r, "security")
				}
			})),
		ByClass.fault("CHANNEL-SECURITY/intermittent", "one channels list in three carries no security",
			everyNth(3, "listUserChannels", channelList(func(r map[string]any) { delete(r, "security") }))),

		ByClass.fault("ORG-LIST/too-wide", "the organisations list holds organisations the user is not in",
			onSuccess("listUserOrgs", func(c *call, x *reply) {
				me, _ := c.caller()
				for _, o := range c.st.world.Orgs {
					if !contains(o.Members, me.ID) {
						x.set(append(asList(x.get()), map[string]any{"id": o.ID, "name": o.Name, "avatar_url": o.AvatarURL}))
					}
				}
			})),
		FirstCatalogue.fault("ORG-LIST/shape", "organisation ids are strings",
			messages("listUserOrgs", func(c *call, o map[string]any) { o["id"] = fmt.Sprint(o["id"]) })),
		ByClass.fault("ORG-LIST/shape#2", "avatar_url is a relative path", messages("listUserOrgs", func(c *call, o map[string]any) { o["avatar_url"] = "org.png" })),
		ByClass.fault("ORG-LIST/shape#3", "organisations have no name", messages("listUserOrgs", func(c *call, o map[string]any) { delete(o, "name") })),
		ByClass.fault("ORG-LIST/intermittent", "one organisations list in three has string ids",
			everyNth(3, "listUserOrgs", messages("listUserOrgs", func(c *call, o map[string]any) { o["id"] = strconv.Itoa(asInt(o["id"])) }))),

		ByClass.fault("ORG-ROOM/wrong-subject", "each organisation embeds the room of the next one", rotateRooms("listUserOrgs")),
		FirstCatalogue.fault("ORG-ROOM/shape", "organisations without a room embed an empty one",
			messages("listUserOrgs", func(c *call, o map[string]any) {
				if _, ok := o["room"]; !ok {
					o["room"] = map[string]any{}
				}
			})),
		ByClass.fault("ORG-ROOM/shape#2", "organisations that have a room leave it out", messages("listUserOrgs", func(c *call, o map[string]any) { delete(o, "room") })),
		ByClass.fault("ORG-ROOM/intermittent", "one organisations list in three embeds an empty room where there is none",
			everyNth(3, "listUserOrgs", messages("listUserOrgs", func(c *call, o map[string]any) {
				if _, ok := o["room"]; !ok {
					o["room"] = map[string]any{}
				}
			}))),

		FirstCatalogue.fault("REPO-LIST/shape", "repositories carry no uri",
			messages("listUserRepos", func(c *call, p map[string]any) { delete(p, "uri") })),
		ByClass.fault("REPO-LIST/shape#2", "private is a string", messages("listUserRepos", func(c *call, p map[string]any) { p["private"] = strconv.FormatBool(p["private"] == true) })),
		ByClass.fault("REPO-LIST/shape#3", "repository ids are strings", messages("listUserRepos", func(c *call, p map[string]any) { p["id"] = strconv.Itoa(asInt(p["id"])) })),
		ByClass.fault("REPO-LIST/intermittent", "one repositories list in three carries no uri",
			everyNth(3, "listUserRepos", messages("listUserRepos", func(c *call, p map[string]any) { delete(p, "uri") }))),

		ByClass.fault("REPO-ROOM/wrong-subject", "each repository embeds the room of the next one", rotateRooms("listUserRepos")),
		FirstCatalogue.fault("REPO-ROOM/shape", "a repository's room is its name, not a Room",
			messages("listUserRepos", func(c *call, p map[string]any) {
				if _, ok := p["room"]; ok {
					p["room"] = p["name"]
				}
			})),
		ByClass.fault("REPO-ROOM/shape#2", "repositories that have a room leave it out", messages("listUserRepos", func(c *call, p map[string]any) { delete(p, "room") })),
		ByClass.fault("REPO-ROOM/shape#3", "repositories without a room say room: null",
			messages("listUserRepos", func(c *call, p map[string]any) {
				if _, ok := p["room"]; !ok {
					p["room"] = nil
				}
			})),

		FirstCatalogue.fault("REPO-PRIVATE-GRANTED/wrong-subject", "private repositories are hidden from everyone",
			onSuccess("listUserRepos", func(c *call, x *reply) {
				x.set(filter(x.get(), func(p map[string]any) bool { return p["private"] != true }))
			})),
		ByClass.fault("REPO-PRIVATE-GRANTED/wrong-subject#2", "private repositories are shown to the first user only",
			onSuccess("listUserRepos", func(c *call, x *reply) {
				if me, _ := c.caller(); me.ID != c.st.first.ID {
					x.set(filter(x.get(), func(p map[string]any) bool { return p["private"] != true }))
				}
			})),
		ByClass.fault("REPO-PRIVATE-GRANTED/intermittent", "one repositories list in two hides private repositories",
			everyNth(2, "listUserRepos", onSuccess("listUserRepos", func(c *call, x *reply) {
				x.set(filter(x.get(), func(p map[string]any) bool { return p["private"] != true }))
			}))),

		BlindRound2.fault("REPO-PRIVATE-WITHHELD/ignores-input", "with the token in the query, the repositories list shows the caller's private repositories though access was never granted",
			func(c *call, next func() *reply) *reply {
				if c.query().Has("access_token") {
					return privateReposForAll()(c, next)
				}
				return next()
			}),
		FirstCatalogue.fault("REPO-PRIVATE-WITHHELD/too-wide", "private repositories are shown to everyone", privateReposForAll()),
		ByClass.fault("REPO-PRIVATE-WITHHELD/shape", "private repositories are shown to everyone, marked private false",
			privateReposForAll(), messages("listUserRepos", func(c *call, p map[string]any) {
				if me, _ := c.caller(); !me.PrivateReposGranted {
					p["private"] = false
				}
			})),
		ByClass.fault("REPO-PRIVATE-WITHHELD/intermittent", "one repositories list in two shows private repositories to everyone",
			everyNth(2, "listUserRepos", privateReposForAll())),
		Independent.fault("ROOM-HIDE/not-stored#3", independentWhat("hide-ignored")).inIndependent("hide-ignored"),
		Independent.fault("REPO-PRIVATE-WITHHELD/too-wide#2", independentWhat("private-leak")).inIndependent("private-leak"),
		Independent.fault("CHANNEL-LIST/wrong-subject#4", independentWhat("channels-unfiltered")).inIndependent("channels-unfiltered"),
		HistoryRound.fault("ROOM-STABLE/shape", "rooms embedded in organisation entries carry a url other than the one the rooms list gives them",
			rooms("listUserOrgs", func(c *call, r map[string]any) { r["url"] = asString(r["url"]) + "-org" })).inWholeRun(),
	}
}

// roomVariants choose differently in what rooms hold, which rooms the lists
// show and in which order, and how hiding a room answers and how long it
// lasts.
func roomVariants() []Variant {
	return []Variant{
		{Name: "minimal-rooms", Origin: FirstCatalogue, What: "sends rooms with only the fields the document requires of them",
			steps: []step{rooms("rooms", func(c *call, room map[string]any) {
				for _, k := range []string{"topic", "lurk", "v", "unreadItems", "mentions", "lastAccessTime", "name", "url"} {
					delete(room, k)
				}
				if room["platformType"] != "USER_CHANNEL" {
					delete(room, "security")
				}
				if room["oneToOne"] != true {
					delete(room, "uri")
				}
			})}},
		{Name: "hidden-rooms-stay-hidden", Origin: OpenPoints, What: "a hidden room never comes back to the user's rooms list, not even after the user posts in it",
			steps: []step{
				onSuccess("hideUserRoom", func(c *call, x *reply) {
					me, _ := c.caller()
					c.st.add("hidden:"+me.ID, c.room, 1)
				}),
				onSuccess("listUserRooms", func(c *call, x *reply) {
					me, _ := c.caller()
					x.set(filter(x.get(), func(r map[string]any) bool { return c.st.get("hidden:"+me.ID, asString(r["id"])) == 0 }))
				}),
			}},
		{Name: "rooms-only-id", Origin: OpenPoints, What: "sends rooms with only their id, and security on channels",
			steps: []step{rooms("rooms", func(c *call, r map[string]any) {
				channel := r["platformType"] == "USER_CHANNEL"
				for k := range r {
					if k != "id" && !(k == "security" && channel) {
						delete(r, k)
					}
				}
			})}},
		{Name: "rooms-without-channels", Origin: BlindRound1, What: "leaves channels out of the rooms list (the document names one-to-one, organisation and repository rooms there)",
			steps: []step{onSuccess("listUserRooms", func(c *call, x *reply) {
				x.set(filter(x.get(), func(r map[string]any) bool { return r["platformType"] != "USER_CHANNEL" }))
			})}},
		{Name: "hidden-until-any-post", Origin: BlindRound1, What: "brings a hidden room back to the user's rooms list as soon as anyone posts in it, not only the user",
			steps: []step{
				answer("hideUserRoom", func(c *call, next func() *reply) *reply {
					if y := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.room+"/unreadItems", nil, nil); !y.ok() {
						return y
					}
					me, _ := c.caller()
					c.st.stamp("b-hide:"+me.ID+":"+c.room, time.Now())
					return succeed()
				}),
				onSuccess("sendMessage", func(c *call, x *reply) { c.st.stamp("b-post:"+c.room, time.Now()) }),
				onSuccess("listUserRooms", func(c *call, x *reply) {
					me, _ := c.caller()
					x.set(filter(x.get(), func(r map[string]any) bool {
						id := asString(r["id"])
						hid := c.st.when("b-hide:" + me.ID + ":" + id)
						return hid.IsZero() || c.st.when("b-post:"+id).After(hid)
					}))
				}),
			}},
		{Name: "channels-owned-only", Origin: BlindRound1, What: "lists under a user's channels only the channels that user owns, not those joined (unsure: the document says channels that belong to a user, which may mean owned)",
			steps: []step{onSuccess("listUserChannels", func(c *call, x *reply) {
				me, _ := c.caller()
				owner := map[string]string{}
				for _, r := range c.st.world.Rooms {
					owner[r.ID] = r.Owner
				}
				x.set(filter(x.get(), func(r map[string]any) bool { return owner[asString(r["id"])] == me.ID }))
			})}},
		{Name: "other-lists-reversed", Origin: BlindRound2, What: "lists rooms, organisations, repositories, channels and unread ids in reverse of the reference's order",
			steps: []step{
				onSuccess("rooms", func(c *call, x *reply) { slices.Reverse(asList(x.get())) }),
				messages("getUnreadItems", func(c *call, u map[string]any) {
					slices.Reverse(asList(u["chat"]))
					slices.Reverse(asList(u["mention"]))
				}),
			}},
		{Name: "hide-answers-room", Origin: BlindRound2, What: "answers hiding a room with the Room object as it was before it was hidden",
			steps: []step{answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				var room any
				each(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get(), func(r map[string]any) {
					if asString(r["id"]) == c.room {
						room = r
					}
				})
				x := next()
				if x.ok() && room != nil {
					x.set(room)
				}
				return x
			})}},
		{Name: "hide-again-404", Origin: BlindRound2, What: "answers 404 to hiding a room that is not in the user's rooms list (already hidden)",
			steps: []step{answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				listed := slices.Contains(ids(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get()), c.room)
				if me, ok := c.caller(); ok && !listed && c.st.get("b3-hidden:"+me.ID, c.room) > 0 {
					return refuse(http.StatusNotFound, "room not in the user's list")
				}
				x := next()
				if me, ok := c.caller(); ok && x.ok() {
					c.st.add("b3-hidden:"+me.ID, c.room, 1)
				}
				return x
			})}},
		{Name: "access-time-on-read", Origin: BlindRound2, What: "sets a room's lastAccessTime when the user reads its messages, not only when the user posts (unsure: GET must not alter state, but lastAccessTime says when the user last accessed the room)",
			steps: []step{
				onSuccess("listMessages getMessage", func(c *call, x *reply) {
					if me, ok := c.caller(); ok {
						c.st.stamp("b3-access:"+me.ID+":"+c.room, time.Now())
					}
				}),
				rooms("rooms", func(c *call, r map[string]any) {
					me, _ := c.caller()
					if t := c.st.when("b3-access:" + me.ID + ":" + asString(r["id"])); !t.IsZero() {
						if old, err := time.Parse(time.RFC3339Nano, asString(r["lastAccessTime"])); err != nil || t.After(old) {
							r["lastAccessTime"] = t.UTC().Format("2006-01-02T15:04:05.000Z")
						}
					}
				}),
			}},
	}
}

// roomList applies f to every room of the rooms list.
func roomList(f func(r map[string]any)) step {
	return rooms("listUserRooms", func(c *call, r map[string]any) { f(r) })
}

// channelList applies f to every room of the channels list.
func channelList(f func(r map[string]any)) step {
	return rooms("listUserChannels", func(c *call, r map[string]any) { f(r) })
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

// heldOutRoomsFaults are the held-out defects of the independent implementation
// whose requirements belong to this file (see HeldOut).
func heldOutRoomsFaults() []Fault {
	return []Fault{
		HeldOut.fault("CHANNEL-LIST/intermittent#2", heldOutWhat("channel-kind-flaky")).inIndependent("channel-kind-flaky"),
		HeldOut.fault("CHANNEL-SECURITY/shape#4", heldOutWhat("channel-security-missing")).inIndependent("channel-security-missing"),
		HeldOut.fault("CHANNEL-NO-USERCOUNT/shape#4", heldOutWhat("channel-usercount-multi")).inIndependent("channel-usercount-multi"),
		HeldOut.fault("ROOM-HIDE/wrong-subject#3", heldOutWhat("hide-dm-peer")).inIndependent("hide-dm-peer"),
		HeldOut.fault("ROOM-HIDE/too-wide#2", heldOutWhat("hide-for-everyone")).inIndependent("hide-for-everyone"),
		HeldOut.fault("ROOM-HIDE/not-stored#4", heldOutWhat("hide-second-ignored")).inIndependent("hide-second-ignored"),
		HeldOut.fault("ORG-LIST/intermittent#2", heldOutWhat("org-avatar-flaky")).inIndependent("org-avatar-flaky"),
		HeldOut.fault("ORG-ROOM/wrong-subject#2", heldOutWhat("org-room-stale-var")).inIndependent("org-room-stale-var"),
		HeldOut.fault("REPO-PRIVATE-WITHHELD/too-wide#3", heldOutWhat("repo-cache-global")).inIndependent("repo-cache-global"),
		HeldOut.fault("REPO-PRIVATE-GRANTED/wrong-subject#3", heldOutWhat("repo-private-roomless-hidden")).inIndependent("repo-private-roomless-hidden"),
		HeldOut.fault("REPO-ROOM/intermittent", heldOutWhat("repo-room-flaky")).inIndependent("repo-room-flaky"),
		HeldOut.fault("ROOM-ONE-TO-ONE/shape#4", heldOutWhat("room-dm-uri")).inIndependent("room-dm-uri"),
		HeldOut.fault("ROOM-ONE-TO-ONE/wrong-subject#3", heldOutWhat("room-dm-user-second-member")).inIndependent("room-dm-user-second-member"),
		HeldOut.fault("ROOM-STABLE/intermittent", heldOutWhat("room-kind-flaky")).inIndependent("room-kind-flaky"),
		HeldOut.fault("ROOM-SHAPE/shape#9", heldOutWhat("room-lastaccess-offset")).inIndependent("room-lastaccess-offset"),
		HeldOut.fault("ROOM-USER-ONLY-ONE-TO-ONE/shape#5", heldOutWhat("room-two-member-user")).inIndependent("room-two-member-user"),
		HeldOut.fault("ROOM-KINDS/intermittent#2", heldOutWhat("rooms-dm-missing-flaky")).inIndependent("rooms-dm-missing-flaky"),
		HeldOut.fault("ROOM-KINDS/wrong-subject#5", heldOutWhat("rooms-drop-slashed")).inIndependent("rooms-drop-slashed"),
	}
}

// modelRoomFaults are the model round's faults of rooms: a repeated hide,
// and lastAccessTime that does not follow a write (see ModelRound).
func modelRoomFaults() []Fault {
	return []Fault{
		ModelRound.fault("ROOM-HIDE/not-stored#5", "hiding a room a second time brings it back into the user's rooms list",
			answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				key := "hidden:" + c.user + ":" + c.room
				if _, again := c.st.value(key); again {
					// The inner server brings a hidden room back when the user posts in it.
					c.do("POST", "/v1/rooms/"+c.room+"/chatMessages", nil, map[string]any{"text": "back again"})
					return succeed()
				}
				x := next()
				if x.ok() {
					c.st.setValue(key, true)
				}
				return x
			})),
		ModelRound.fault("ROOM-KINDS/shape", "the rooms list shows one-to-one rooms as organisation rooms (platformType ORG), the description's one-to-one hint among them",
			rooms("listUserRooms", func(c *call, r map[string]any) {
				if r["platformType"] == "ONETOONE" {
					r["platformType"] = "ORG"
				}
			})),
		ModelRound.fault("ROOM-LAST-ACCESS/stale-derived", "lastAccessTime never moves on from the seeded world's value",
			rooms("rooms", func(c *call, r map[string]any) {
				if _, ok := r["lastAccessTime"]; ok {
					r["lastAccessTime"] = "2024-01-01T00:00:00.000Z"
				}
			})),
		ModelRound.fault("ROOM-LAST-ACCESS/stale-derived#2", "lastAccessTime is an hour behind the user's last access",
			rooms("rooms", func(c *call, r map[string]any) {
				if t, err := time.Parse(time.RFC3339Nano, asString(r["lastAccessTime"])); err == nil {
					r["lastAccessTime"] = t.Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")
				}
			})),
	}
}

// heldOut2RoomsFaults are the defects of the second held-out set (independent.HeldOut2)
// whose requirements belong to this file.
func heldOut2RoomsFaults() []Fault {
	return []Fault{
		HeldOut2.fault("CHANNEL-SECURITY/shape#5", heldOut2What("channel-security-rooms-list")).inIndependent("channel-security-rooms-list"),
		HeldOut2.fault("ORG-LIST/shape#4", heldOut2What("org-id-string")).inIndependent("org-id-string"),
		HeldOut2.fault("REPO-LIST/shape#4", heldOut2What("repo-private-omitempty")).inIndependent("repo-private-omitempty"),
		HeldOut2.fault("REPO-PRIVATE-GRANTED/intermittent#2", heldOut2What("repo-grant-flaky")).inIndependent("repo-grant-flaky"),
		HeldOut2.fault("ROOM-HIDE/wrong-subject#4", heldOut2What("hide-next-room")).inIndependent("hide-next-room"),
		HeldOut2.fault("ROOM-KINDS/wrong-subject#6", heldOut2What("rooms-lurk-dropped")).inIndependent("rooms-lurk-dropped"),
		HeldOut2.fault("ROOM-LAST-ACCESS/wrong-subject", heldOut2What("send-touch-first-member")).inIndependent("send-touch-first-member"),
	}
}

// heldOut3RoomsFaults are the defects of the third held-out set (independent.HeldOut3)
// whose requirements belong to this file (see heldOut3What).
func heldOut3RoomsFaults() []Fault {
	return []Fault{
		HeldOut3.fault("CHANNEL-SECURITY/shape#6", heldOut3What("channel-security-needs-topic")).inIndependent("channel-security-needs-topic"),
		HeldOut3.fault("ORG-ROOM/shape#3", heldOut3What("org-room-empty-object")).inIndependent("org-room-empty-object"),
		HeldOut3.fault("REPO-ROOM/wrong-subject#2", heldOut3What("repo-room-owner-match")).inIndependent("repo-room-owner-match"),
		HeldOut3.fault("ROOM-HIDE/intermittent#2", heldOut3What("hide-lost-flaky")).inIndependent("hide-lost-flaky"),
		HeldOut3.fault("ROOM-HIDE/not-stored#6", heldOut3What("hide-toggle")).inIndependent("hide-toggle"),
		HeldOut3.fault("ROOM-KINDS/wrong-subject#7", heldOut3What("rooms-empty-dropped")).inIndependent("rooms-empty-dropped"),
		HeldOut3.fault("ROOM-LAST-ACCESS/stale-derived#3", heldOut3What("send-status-no-touch")).inIndependent("send-status-no-touch"),
		HeldOut3.fault("ROOM-ONE-TO-ONE/wrong-subject#4", heldOut3What("room-onetoone-two-members")).inIndependent("room-onetoone-two-members"),
	}
}

// heldOut4RoomsFaults are the defects of the fourth held-out set (independent.HeldOut4)
// whose requirements belong to this file (see heldOut4What).
func heldOut4RoomsFaults() []Fault {
	return []Fault{
		HeldOut4.fault("CHANNEL-NO-USERCOUNT/shape#5", heldOut4What("channel-usercount-zero")).inIndependent("channel-usercount-zero"),
		HeldOut4.fault("REPO-PRIVATE-GRANTED/stale-derived", heldOut4What("repo-grant-lazy-first-list")).inIndependent("repo-grant-lazy-first-list"),
		HeldOut4.fault("REPO-PRIVATE-WITHHELD/too-wide#4", heldOut4What("repo-private-leak-query-auth")).inIndependent("repo-private-leak-query-auth"),
		HeldOut4.fault("ROOM-HIDE/stale-derived", heldOut4What("rooms-list-cached-until-send")).inIndependent("rooms-list-cached-until-send"),
		HeldOut4.fault("ROOM-LAST-ACCESS/stale-derived#4", heldOut4What("room-lastaccess-truncated-seconds")).inIndependent("room-lastaccess-truncated-seconds"),
		HeldOut4.fault("ROOM-ONE-TO-ONE/wrong-subject#5", heldOut4What("dm-user-last-sender")).inIndependent("dm-user-last-sender"),
		HeldOut4.fault("ROOM-PLATFORM-TYPE/shape#5", heldOut4What("org-room-kind-lowercase")).inIndependent("org-room-kind-lowercase"),
		HeldOut4.fault("ROOM-SHAPE/shape#10", heldOut4What("room-topic-empty-null")).inIndependent("room-topic-empty-null"),
		HeldOut4.fault("ROOM-STABLE/shape#2", heldOut4What("org-room-url-by-id")).inIndependent("org-room-url-by-id").inWholeRun(),
		HeldOut4.fault("ROOM-USER-ONLY-ONE-TO-ONE/too-wide", heldOut4What("channel-owner-as-user")).inIndependent("channel-owner-as-user"),
	}
}

// heldOut5RoomsFaults are the defects of the fifth held-out set (independent.HeldOut5)
// whose requirements belong to this file (see heldOut5What).
func heldOut5RoomsFaults() []Fault {
	return []Fault{
		HeldOut5.fault("CHANNEL-NO-USERCOUNT/shape#6", heldOut5What("channel-usercount-in-rooms-list")).inIndependent("channel-usercount-in-rooms-list"),
		HeldOut5.fault("ORG-LIST/shape#5", heldOut5What("org-avatar-protocol-relative")).inIndependent("org-avatar-protocol-relative"),
		HeldOut5.fault("REPO-PRIVATE-GRANTED/ignores-input", heldOut5What("repo-grant-skipped-query-auth")).inIndependent("repo-grant-skipped-query-auth"),
		HeldOut5.fault("ROOM-HIDE/not-stored#7", heldOut5What("hide-needs-all-read")).inIndependent("hide-needs-all-read"),
		HeldOut5.fault("ROOM-KINDS/wrong-subject#8", heldOut5What("rooms-repo-needs-grant")).inIndependent("rooms-repo-needs-grant"),
		HeldOut5.fault("ROOM-LAST-ACCESS/stale-derived#5", heldOut5What("room-lastaccess-cached-first-list")).inIndependent("room-lastaccess-cached-first-list"),
		HeldOut5.fault("ROOM-ONE-TO-ONE/stale-derived", heldOut5What("dm-user-cached-first-viewer")).inIndependent("dm-user-cached-first-viewer"),
		HeldOut5.fault("ROOM-STABLE/shape#3", heldOut5What("room-kind-from-uri-slash")).inIndependent("room-kind-from-uri-slash").inWholeRun(),
	}
}

// heldOut6RoomsFaults are the defects of the sixth held-out set (independent.HeldOut6)
// whose requirements belong to this file (see heldOut6What).
func heldOut6RoomsFaults() []Fault {
	return []Fault{
		HeldOut6.fault("CHANNEL-SECURITY/shape#7", heldOut6What("channel-security-as-flag")).inIndependent("channel-security-as-flag"),
		HeldOut6.fault("ORG-LIST/shape#6", heldOut6What("org-name-from-room")).inIndependent("org-name-from-room"),
		HeldOut6.fault("REPO-LIST/shape#5", heldOut6What("repo-uri-from-room")).inIndependent("repo-uri-from-room"),
		HeldOut6.fault("REPO-PRIVATE-WITHHELD/too-wide#5", heldOut6What("repo-grant-of-last-lister")).inIndependent("repo-grant-of-last-lister"),
		HeldOut6.fault("ROOM-HIDE/intermittent#3", heldOut6What("hide-filter-skipped-flaky")).inIndependent("hide-filter-skipped-flaky"),
		HeldOut6.fault("ROOM-HIDE/too-wide#3", heldOut6What("hide-dm-hides-shared-rooms")).inIndependent("hide-dm-hides-shared-rooms"),
		HeldOut6.fault("ROOM-KINDS/wrong-subject#9", heldOut6What("rooms-org-owner-only")).inIndependent("rooms-org-owner-only"),
		HeldOut6.fault("ROOM-LAST-ACCESS/stale-derived#6", heldOut6What("send-touch-previous-message")).inIndependent("send-touch-previous-message"),
		HeldOut6.fault("ROOM-PLATFORM-TYPE/shape#6", heldOut6What("room-kind-one-to-one-underscored")).inIndependent("room-kind-one-to-one-underscored"),
		HeldOut6.fault("ROOM-SHAPE/shape#11", heldOut6What("room-dm-url-no-slash")).inIndependent("room-dm-url-no-slash"),
		HeldOut6.fault("ROOM-SHAPE/shape#12", heldOut6What("room-usercount-string")).inIndependent("room-usercount-string"),
	}
}

// heldOut7RoomsFaults are the defects of the seventh held-out set (independent.HeldOut7)
// whose requirements belong to this file (see heldOut7What).
func heldOut7RoomsFaults() []Fault {
	return []Fault{
		HeldOut7.fault("REPO-LIST/shape#6", heldOut7What("repo-private-as-string")).inIndependent("repo-private-as-string"),
		HeldOut7.fault("REPO-PRIVATE-GRANTED/ignores-input#2", heldOut7What("repo-private-needs-query-param")).inIndependent("repo-private-needs-query-param"),
		HeldOut7.fault("REPO-PRIVATE-WITHHELD/intermittent#2", heldOut7What("repo-private-leak-flaky")).inIndependent("repo-private-leak-flaky"),
		HeldOut7.fault("ROOM-HIDE/ignores-input#3", heldOut7What("hide-demands-json-body")).inIndependent("hide-demands-json-body"),
		HeldOut7.fault("ROOM-HIDE/shape#2", heldOut7What("hide-answer-404-after-apply")).inIndependent("hide-answer-404-after-apply"),
		HeldOut7.fault("ROOM-LAST-ACCESS/intermittent", heldOut7What("room-lastaccess-epoch-flaky")).inIndependent("room-lastaccess-epoch-flaky"),
		HeldOut7.fault("ROOM-LAST-ACCESS/stale-derived#7", heldOut7What("room-lastaccess-throttled")).inIndependent("room-lastaccess-throttled"),
		HeldOut7.fault("ROOM-ONE-TO-ONE/shape#5", heldOut7What("room-dm-uri-empty")).inIndependent("room-dm-uri-empty"),
		HeldOut7.fault("ROOM-SHAPE/shape#13", heldOut7What("room-lastaccess-millis-after-write")).inIndependent("room-lastaccess-millis-after-write"),
		HeldOut7.fault("ROOM-STABLE/shape#4", heldOut7What("channel-list-url-short-name")).inIndependent("channel-list-url-short-name").inWholeRun(),
		HeldOut7.fault("ROOM-USER-ONLY-ONE-TO-ONE/shape#6", heldOut7What("room-user-null-group")).inIndependent("room-user-null-group"),
	}
}

// heldOut8RoomsFaults are the defects of the eighth held-out set (independent.HeldOut8)
// whose requirements belong to this file (see heldOut8What).
func heldOut8RoomsFaults() []Fault {
	return []Fault{
		HeldOut8.fault("CHANNEL-LIST/intermittent#3", heldOut8What("channels-empty-flaky")).inIndependent("channels-empty-flaky"),
		HeldOut8.fault("CHANNEL-LIST/shape#3", heldOut8What("channels-single-unwrapped")).inIndependent("channels-single-unwrapped"),
		HeldOut8.fault("REPO-LIST/shape#7", heldOut8What("repo-id-shadowed-by-room")).inIndependent("repo-id-shadowed-by-room"),
		HeldOut8.fault("ROOM-HIDE/ignores-input#4", heldOut8What("hide-dm-refused")).inIndependent("hide-dm-refused"),
		HeldOut8.fault("ROOM-HIDE/too-wide#4", heldOut8What("hide-matches-uri-prefix")).inIndependent("hide-matches-uri-prefix"),
		HeldOut8.fault("ROOM-KINDS/not-stored", heldOut8What("rooms-keyed-by-access-time")).inIndependent("rooms-keyed-by-access-time"),
		HeldOut8.fault("ROOM-LAST-ACCESS/intermittent#2", heldOut8What("send-touch-dropped-flaky")).inIndependent("send-touch-dropped-flaky"),
		HeldOut8.fault("ROOM-LAST-ACCESS/stale-derived#8", heldOut8What("room-lastaccess-from-marked-message")).inIndependent("room-lastaccess-from-marked-message"),
		HeldOut8.fault("ROOM-ONE-TO-ONE/wrong-subject#6", heldOut8What("dm-peer-from-visible-members")).inIndependent("dm-peer-from-visible-members"),
		HeldOut8.fault("ROOM-STABLE/shape#5", heldOut8What("rooms-url-path-escaped")).inIndependent("rooms-url-path-escaped").inWholeRun(),
	}
}
