package conformance

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/client"
)

func roomSpecs(d decl) {
	Describe("GET /v1/user/{userId}/rooms", func() {
		d.it("lists rooms with documented types and kinds", reqs("ROOM-LIST", "ROOM-SHAPE", "ROOM-PLATFORM-TYPE"), func(e *Env) {
			rooms := e.rooms(0, "rooms")
			e.by("judging the rooms the channels, organisations and repositories lists hold too")
			e.roomsElsewhere(0) // each answer is validated; violations of room fields fail here
			for _, room := range rooms {
				e.verifies("ROOM-SHAPE", func() { e.Expect(room.ID).NotTo(BeEmpty(), "a room without id") })
				e.verifies("ROOM-PLATFORM-TYPE", func() {
					e.Expect([]string{"ONETOONE", "ORG", "REPO", "USER_CHANNEL", ""}).To(ContainElement(room.PlatformType), "room %s", room.ID)
				})
			}
			if room := e.Target.WriteRoom; room != "" {
				// A room's fields are written anew by the user's own writes
				// (its last access, its counts): the shape holds after them.
				e.by("reading the lists again after user 1 sends a message in write_room")
				text, _ := e.text()
				e.step("MSG-SEND-200", func() { e.send(0, room, text) })
				e.rooms(0, "rooms")
				e.roomsElsewhere(0)
			}
		})

		d.it("includes the user's one-to-one, organisation and repository rooms", reqs("ROOM-KINDS"), func(e *Env) {
			all := e.rooms(0, "rooms")
			listed := idSetRooms(all)
			// Read twice: the rooms are in the list on every read, not on
			// one in a few.
			again := idSetRooms(e.rooms(0, "rooms"))
			checked := e.writeRoomListed(all, again)
			for kind, id := range map[string]string{"one_to_one": e.Target.Rooms.OneToOne, "org": e.Target.Rooms.Org, "repo": e.Target.Rooms.Repo} {
				switch {
				case id == "" || e.Target.Discovered[kind]:
					e.by("the description names no " + kind + " room of user 1")
					continue
				case id == e.Target.HideRoom:
					// Hiding may take a room out of the list for good; the
					// hide check owns that room.
					e.by("the " + kind + " room is hide_room, which the hide check may have hidden")
					continue
				}
				checked++
				e.Expect(listed).To(HaveKey(id), "the %s room %s is missing from the rooms list", kind, id)
				e.Expect(again).To(HaveKey(id), "the %s room %s, listed on the first read, is missing from the rooms list on the next", kind, id)
				// A hint is a promise of the room's kind too: the list shows it
				// as a room of that kind wherever it says.
				want := map[string]string{"one_to_one": "ONETOONE", "org": "ORG", "repo": "REPO"}[kind]
				for _, rm := range all {
					if rm.ID != id {
						continue
					}
					// A value the document does not list is ROOM-PLATFORM-TYPE's
					// breach, which the document checker reports; a listed one
					// of another kind is this room's kind gone wrong.
					if slices.Contains([]string{"ONETOONE", "ORG", "REPO", "USER_CHANNEL"}, rm.PlatformType) {
						e.Expect(rm.PlatformType).To(Equal(want), "the description names %s as user 1's %s room, and the rooms list shows it as %s", id, kind, rm.PlatformType)
					}
					if rm.OneToOne != nil {
						e.Expect(*rm.OneToOne).To(Equal(kind == "one_to_one"), "the description names %s as user 1's %s room, and the rooms list says oneToOne %v", id, kind, *rm.OneToOne)
					}
				}
			}
			if checked == 0 {
				e.skip("the target description names no rooms (rooms: one_to_one, org, repo) other than hide_room to look for in user 1's rooms list, and no list shows write_room as a room of one of those kinds")
			}
			// The other participant of the named one-to-one room has it in
			// their list too, when the description names them.
			if id := e.Target.Rooms.OneToOne; id != "" && !e.Target.Discovered["one_to_one"] && id != e.Target.HideRoom {
				for _, rm := range e.rooms(0, "rooms") {
					if rm.ID != id || rm.User == nil {
						continue
					}
					for u := 1; u < len(e.Users); u++ {
						if e.me(u) == rm.User.ID {
							e.Expect(idSetRooms(e.rooms(u, "rooms"))).To(HaveKey(id), "the one-to-one room %s of users 1 and %d is missing from user %d's rooms list", id, u+1, u+1)
						}
					}
				}
			}
		})

		d.it("shows one-to-one rooms as such, without uri, and with the other participant when it names one", reqs("ROOM-ONE-TO-ONE", "ROOM-USER-ONLY-ONE-TO-ONE"), func(e *Env) {
			oneToOne := 0
			for _, room := range e.rooms(0, "rooms") {
				// hide_room is judged too while it is listed (the hide check
				// judges it as well, before hiding it), so a description whose
				// only one-to-one room is hide_room leaves nothing unjudged.
				if e.judgeRoomKind(0, room) {
					oneToOne++
				}
			}
			e.by("judging the rooms of the other users' lists the same way")
			for u := 1; u < len(e.Users); u++ {
				var theirs []Room
				if !e.glance(u, "/v1/user/"+e.me(u)+"/rooms", nil, &theirs) {
					continue
				}
				for _, room := range theirs {
					if e.judgeRoomKind(u, room) {
						oneToOne++
					}
				}
			}
			e.by("judging the rooms the channels, organisations and repositories lists hold")
			var embedded []Room
			for _, rooms := range e.roomsElsewhere(0) {
				embedded = append(embedded, rooms...)
			}
			for _, room := range embedded {
				if room.PlatformType != "ONETOONE" && !isTrue(room.OneToOne) {
					e.verifies("ROOM-USER-ONLY-ONE-TO-ONE", func() {
						e.Expect(room.User).To(BeNil(), "room %s (%s), listed among channels, organisations or repositories, is not one-to-one but carries user", room.ID, room.PlatformType)
					})
				}
			}
			if oneToOne == 0 {
				e.skip("no described user lists a one-to-one room (hide_room, if it is one, may be hidden already; the hide check judges it before hiding it)")
			}
		})

		d.it("hides a room for that user only: it leaves the user's rooms list, other members and other rooms stay", reqs("ROOM-HIDE", "ROOM-ONE-TO-ONE", "ROOM-USER-ONLY-ONE-TO-ONE", "HTTP-JSON-CONTENT-TYPE", "HTTP-JSON-BODY"), func(e *Env) {
			room := e.Target.HideRoom
			if room == "" {
				e.skip("hiding a room is destructive: name hide_room in the target description to allow it")
			}
			e.by("noting who lists the room before it is hidden, and judging its entry as the rooms checks do")
			listed := e.rooms(0, "rooms")
			mine := idSetRooms(listed)
			if !mine[room] {
				if listed == nil {
					// null where the list belongs: nothing to see a hide
					// take the room out of
					e.lacking("ROOM-LIST", "user 1's rooms list is null: there is no list to see the hide take the room out of")
				}
				e.by("user 1 does not list the room now: an earlier run may have hidden it for good")
			}
			for _, rm := range listed {
				if rm.ID == room {
					// It may be the user's only room of its kind: once hidden,
					// the shape checks would have nothing of that kind to judge.
					e.judgeRoomKind(0, rm)
				}
			}
			var others []int
			for u := 1; u < len(e.Users); u++ {
				if idSetRooms(e.rooms(u, "rooms"))[room] {
					others = append(others, u)
				}
			}
			var hid *client.Response
			e.verifies("ROOM-HIDE", func() { // the entry's shape was judged above; the rest is the hide's
				hid = e.call(0, client.Request{Method: "DELETE", Path: "/v1/user/" + e.me(0) + "/rooms/" + room})
				settled := e.now().Add(e.Eventually) // by then every read shows the hide
				e.expectSuccess(hid)
				e.eventually(func(g Gomega) {
					g.Expect(idSetRooms(e.rooms(0, "rooms"))).NotTo(HaveKey(room), "the hidden room %s is still in user 1's rooms list", room)
				})
				// On every read after, not on most: a list built now and
				// then without what the hide set shows the room again. A
				// read that shows it before the lag has passed is read
				// again once it has.
				var after map[string]bool
				for read := 0; read < 5; read++ {
					after = idSetRooms(e.rooms(0, "rooms"))
					if after[room] && e.now().Before(settled) {
						e.waitUntil(settled)
						read--
						continue
					}
					e.Expect(after).NotTo(HaveKey(room), "the hidden room %s is back in user 1's rooms list on read %d of 5 after the hide took effect", room, read+1)
				}
				// A room missing is read for again before the hide is blamed:
				// a list that leaves rooms out one time in a few breaks
				// ROOM-KINDS, not the hide (see steady).
				stays := func(id string) func() bool {
					return func() bool { after = idSetRooms(e.rooms(0, "rooms")); return after[id] }
				}
				for id := range mine {
					if id != room && !after[id] {
						e.Expect(e.steady("ROOM-KINDS", "user 1's rooms list", stays(id))).To(BeTrue(), "hiding room %s also took room %s out of user 1's rooms list", room, id)
					}
				}
				for _, u := range others {
					e.Expect(idSetRooms(e.rooms(u, "rooms"))).To(HaveKey(room), "hiding room %s for user 1 took it out of user %d's rooms list too", room, u+1)
				}
				if len(others) == 0 {
					e.by("no other described user lists the room, so only user 1's side is checked")
				}
				e.by("hiding it again: what a repeat answers is not shown, but it is no server error and changes nothing")
				again := e.call(0, client.Request{Method: "DELETE", Path: "/v1/user/" + e.me(0) + "/rooms/" + room})
				e.Expect(again.Status).To(BeNumerically("<", 500), "hiding room %s a second time answered %d", room, again.Status)
				after = idSetRooms(e.rooms(0, "rooms"))
				e.Expect(after).NotTo(HaveKey(room), "hiding room %s a second time brought it back into user 1's rooms list", room)
				for id := range mine {
					if id != room && !after[id] {
						e.Expect(e.steady("ROOM-KINDS", "user 1's rooms list", stays(id))).To(BeTrue(), "hiding room %s a second time took room %s out of user 1's rooms list", room, id)
					}
				}
				for _, u := range others {
					e.Expect(idSetRooms(e.rooms(u, "rooms"))).To(HaveKey(room), "hiding room %s a second time for user 1 took it out of user %d's rooms list", room, u+1)
				}
			})
			// The one operation the content-type check does not make: a
			// success that carries a body is JSON, labelled so (judged last,
			// so that the hide is judged whatever its label).
			if len(bytes.TrimSpace(hid.Body)) > 0 {
				e.expectJSONContentType(hid)
			} else {
				for _, r := range []string{"HTTP-JSON-CONTENT-TYPE", "HTTP-JSON-BODY"} {
					e.entry(EntryNotApplied, r+"\nthe hide answered without a body: no label or JSON to judge")
				}
			}
		})
	})

	Describe("GET /v1/user/{userId}/channels", func() {
		d.it("keeps the write room's lastAccessTime at or after the user's latest message there, whatever the user does next", reqs("ROOM-LAST-ACCESS"), func(e *Env) {
			// A time that follows a write must not be moved back by a later
			// write of another kind: marking an older message read, editing
			// an older message of one's own.
			e.needUsers(2)
			room := e.writeRoom()
			text, _ := e.text()
			theirs := e.send(0, room, text) // unread for user 2
			// Far enough apart that a time moved back to it is told from
			// the 1 ms allowed for how finely a server keeps times.
			e.waitUntil(e.now().Add(50 * time.Millisecond))
			text, _ = e.text()
			mine := e.send(1, room, text)
			text, _ = e.text()
			latest := e.send(1, room, text)
			sent, err := time.Parse(time.RFC3339Nano, latest.Sent)
			if err != nil {
				e.entry(EntryNotApplied, "ROOM-LAST-ACCESS\nthe send's answer gives no readable sent time ("+latest.Sent+"): the shape's checks judge that")
				return
			}
			e.by("user 2 marks an older message of user 1 read, then edits an older message of their own: after each, the time is still at or after their latest message")
			judged := false
			after := func(what string) {
				e.verifies("ROOM-LAST-ACCESS", func() {
					e.eventually(func(g Gomega) {
						var at *string
						for _, r := range e.rooms(1, "rooms") {
							if r.ID == room {
								at = r.LastAccessTime
							}
						}
						if at == nil {
							return // a list without the room or the field: not judged (below)
						}
						t, err := time.Parse(time.RFC3339Nano, *at)
						if err != nil {
							return // the shape's checks judge an unreadable time
						}
						judged = true
						// A time kept to the second is allowed the second.
						slack := time.Millisecond
						if !strings.Contains(*at, ".") {
							slack = time.Second
						}
						g.Expect(t).NotTo(BeTemporally("<", sent.Add(-slack)), "user 2's rooms list says they last accessed the write room at %s, before their latest message there, sent at %s (after %s)", *at, latest.Sent, what)
					})
				})
			}
			e.markRead(1, room, theirs.ID)
			after("marking an older message read")
			text, _ = e.text()
			e.edit(1, room, mine.ID, text)
			after("editing an older message of theirs")
			if !judged {
				e.entry(EntryNotApplied, "ROOM-LAST-ACCESS\nuser 2's rooms list gives the write room no lastAccessTime (or does not list it): nothing to hold to their latest message")
			}
		})

		d.it("lists only USER_CHANNEL rooms, without userCount and with security", reqs("CHANNEL-LIST", "CHANNEL-NO-USERCOUNT", "CHANNEL-SECURITY"), func(e *Env) {
			channels := e.rooms(0, "channels")
			for u := 1; u < len(e.Users); u++ {
				// Every user's list is a list, also one with no channel in it.
				e.rooms(u, "channels")
			}
			if ch := e.Target.Rooms.Channel; ch != "" && !e.Target.Discovered["channel"] {
				// A channel the description names must be listed: an empty
				// list is no answer.
				e.verifies("CHANNEL-LIST", func() {
					e.Expect(idSetRooms(channels)).To(HaveKey(ch), "the channel %s the description names is not in user 1's channels list", ch)
				})
			}
			e.by("judging the channels the rooms list holds too")
			for _, rm := range e.rooms(0, "rooms") {
				if rm.PlatformType == "USER_CHANNEL" {
					channels = append(channels, rm)
				}
			}
			if len(channels) == 0 {
				e.skip("user 1 has no channel")
			}
			for _, c := range channels {
				e.verifies("CHANNEL-LIST", func() {
					e.Expect([]string{"", "USER_CHANNEL"}).To(ContainElement(c.PlatformType), "channel %s has platformType %s", c.ID, c.PlatformType)
				})
				e.verifies("CHANNEL-NO-USERCOUNT", func() { e.Expect(c.UserCount).To(BeNil(), "channel %s carries userCount", c.ID) })
				e.verifies("CHANNEL-SECURITY", func() { e.Expect(c.Security).NotTo(BeNil(), "channel %s carries no security", c.ID) })
			}
		})
	})

	Describe("GET /v1/user/{userId}/orgs", func() {
		d.it("lists organisation entries, each with its room only when one exists", reqs("ORG-LIST", "ORG-ROOM"), func(e *Env) {
			var orgs []Organisation
			e.step("ORG-LIST", func() {
				e.expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user/" + e.me(0) + "/orgs"}), &orgs)
			})
			e.hintEmbedded("org", func() (ids []string) {
				for _, o := range orgs {
					if o.Room != nil {
						ids = append(ids, o.Room.ID)
					}
				}
				return ids
			})
			if len(orgs) == 0 {
				e.skip("user 1 belongs to no organisation")
			}
			for _, o := range orgs {
				e.verifies("ORG-LIST", func() { e.Expect(o.Name).NotTo(BeEmpty(), "an organisation without a name") })
				if o.Room != nil {
					e.verifies("ORG-ROOM", func() {
						e.Expect(o.Room.ID).NotTo(BeEmpty(), "organisation %s embeds a room without id", o.Name)
						e.Expect([]string{"", "ORG"}).To(ContainElement(o.Room.PlatformType), "organisation %s embeds a room of type %s", o.Name, o.Room.PlatformType)
					})
				}
			}
		})
	})

	Describe("GET /v1/user/{userId}/repos", func() {
		d.it("lists repository entries, each with its room only when one exists", reqs("REPO-LIST", "REPO-ROOM"), func(e *Env) {
			var repos []Repository
			e.step("REPO-LIST", func() {
				e.expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user/" + e.me(0) + "/repos"}), &repos)
			})
			e.hintEmbedded("repo", func() (ids []string) {
				for _, p := range repos {
					if p.Room != nil {
						ids = append(ids, p.Room.ID)
					}
				}
				return ids
			})
			if len(repos) == 0 {
				e.skip("user 1 has no repository")
			}
			for _, p := range repos {
				e.verifies("REPO-LIST", func() { e.Expect(p.Name).NotTo(BeEmpty(), "a repository without a name") })
				if p.Room != nil {
					e.verifies("REPO-ROOM", func() {
						e.Expect(p.Room.ID).NotTo(BeEmpty(), "repository %s embeds a room without id", p.Name)
						e.Expect([]string{"", "REPO"}).To(ContainElement(p.Room.PlatformType), "repository %s embeds a room of type %s", p.Name, p.Room.PlatformType)
					})
				}
			}
		})

		d.it("lists private repositories for every user who granted access", reqs("REPO-PRIVATE-GRANTED"), func(e *Env) {
			// Every such user, not the first only: a server that shows private
			// repositories to one favoured user fails for the next.
			// On every read: a list that withholds them one time in a few
			// fails on one of the two.
			for _, u := range e.usersWhoGranted(true) {
				for i, names := range e.privateReposByRead(u) {
					e.Expect(names).NotTo(BeEmpty(), "user %d granted private access but sees no private repository on read %d of 2 (private_repos_granted: true promises the user owns at least one)", u+1, i+1)
				}
			}
		})

		d.it("lists no private repository for a user who did not grant access", reqs("REPO-PRIVATE-WITHHELD"), func(e *Env) {
			granting := e.usersWhoGranted(true)
			for _, u := range e.usersWhoGranted(false) { // usersWhoGranted skips the check when none is described
				// A granting user's list first: whatever the server kept of
				// an earlier answer, it has one with private repositories in
				// hand when user u asks.
				e.by(fmt.Sprintf("reading user %d's repositories list, who granted access, before user %d's", granting[0]+1, u+1))
				e.step("REPO-LIST", func() { e.privateReposByRead(granting[0]) })
				e.Expect(e.privateRepos(u)).To(BeEmpty(), "user %d did not grant private access but sees private repositories", u+1)
				// Right after a granting user's list: one user's grant
				// reaches no other user, whatever was asked just before.
				g := granting[0]
				e.by(fmt.Sprintf("reading user %d's repositories list right after user %d's, who granted access", u+1, g+1))
				e.step("REPO-LIST", func() { e.privateReposByRead(g) })
				e.Expect(e.privateRepos(u)).To(BeEmpty(), "user %d did not grant private access but sees private repositories right after user %d, who granted it, listed theirs", u+1, g+1)
			}
		})
	})
}

// judgeRoomKind judges what a room entry in user u's rooms list says about
// its kind: oneToOne, where present, agrees with platformType; a one-to-one
// room has no uri and, where it names the other participant, names someone
// other than user u; any other room carries no user. It reports whether the
// room is one-to-one.
func (e *Env) judgeRoomKind(u int, room Room) bool {
	GinkgoHelper()
	if room.OneToOne != nil && room.PlatformType != "" {
		e.verifies("ROOM-ONE-TO-ONE", func() {
			e.Expect(*room.OneToOne).To(Equal(room.PlatformType == "ONETOONE"), "room %s: oneToOne %v with platformType %s", room.ID, *room.OneToOne, room.PlatformType)
		})
	}
	if room.PlatformType != "ONETOONE" && !isTrue(room.OneToOne) {
		e.verifies("ROOM-USER-ONLY-ONE-TO-ONE", func() { e.Expect(room.User).To(BeNil(), "room %s is not one-to-one but carries user", room.ID) })
		return false
	}
	// Which room fields are always present is not shown: oneToOne and user
	// are judged where they appear.
	e.verifies("ROOM-ONE-TO-ONE", func() {
		e.Expect(room.URI).To(BeNil(), "one-to-one room %s carries uri", room.ID)
		if room.User != nil {
			e.Expect(room.User.ID).NotTo(Equal(e.me(u)), "one-to-one room %s names user %d, whose list it is in, as the other participant", room.ID, u+1)
		}
	})
	return true
}

// hintEmbedded checks that the organisation (kind "org") or repository
// ("repo") room the description names is embedded in an entry of user 1's
// organisations or repositories list: naming it promises it is the room of
// one of them. A discovered hint promises nothing, and hide_room is left
// to the hide check.
func (e *Env) hintEmbedded(kind string, embedded func() []string) {
	GinkgoHelper()
	hint := map[string]string{"org": e.Target.Rooms.Org, "repo": e.Target.Rooms.Repo}[kind]
	if hint == "" || e.Target.Discovered[kind] || hint == e.Target.HideRoom {
		return
	}
	req, list := map[string]string{"org": "ORG-ROOM", "repo": "REPO-ROOM"}[kind], map[string]string{"org": "organisations", "repo": "repositories"}[kind]
	e.verifies(req, func() {
		e.Expect(embedded()).To(ContainElement(hint), "the %s room %s the description names (rooms.%s) is embedded in no entry of user 1's %s list, though an entry carries its room when it has one", kind, hint, kind, list)
	})
}

// usersWhoGranted returns the users described with private_repos_granted
// equal to granted, or skips the check when there is none.
func (e *Env) usersWhoGranted(granted bool) []int {
	GinkgoHelper()
	var out []int
	for u, usr := range e.Users {
		if usr.PrivateReposGranted != nil && *usr.PrivateReposGranted == granted {
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		e.skip(fmt.Sprintf("no user is described with private_repos_granted: %v", granted))
	}
	return out
}

// privateRepos lists the names of the private repositories user u sees.
// With the token in the query too: each place must give the same answer.
func (e *Env) privateRepos(u int) []string {
	GinkgoHelper()
	var names []string
	for _, read := range e.privateReposByRead(u) {
		for _, n := range read {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// privateReposByRead reads user u's repositories list with the token in
// each place and returns the names of the private ones each read lists.
func (e *Env) privateReposByRead(u int) [][]string {
	GinkgoHelper()
	var out [][]string
	for _, place := range []client.TokenPlace{client.Bearer, client.QueryToken} {
		var repos []Repository
		e.expectOK(e.call(u, client.Request{Method: "GET", Path: "/v1/user/" + e.me(u) + "/repos", Place: place}), &repos)
		names := []string{}
		for _, p := range repos {
			if p.Private && !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
		out = append(out, names)
	}
	return out
}

// writeRoomListed holds the write room, a room users 1 and 2 share (the
// description says so), to ROOM-KINDS: where a list shows it as a kind the
// rooms list includes (a one-to-one, organisation or repository room), it
// is in the rooms list of each, on every read. all and again are user 1's
// rooms list read twice. It returns 1 when it judged, 0 when no list says
// the write room is of such a kind (a channel, say, or a room no list
// shows).
func (e *Env) writeRoomListed(all []Room, again map[string]bool) int {
	GinkgoHelper()
	room := e.Target.WriteRoom
	if room == "" || room == e.Target.HideRoom {
		return 0
	}
	lists := map[int][]Room{0: all}
	kindIn := func(rs []Room) string {
		for _, rm := range rs {
			if rm.ID == room {
				return rm.PlatformType
			}
		}
		return ""
	}
	kind := kindIn(all)
	users := min(2, len(e.Users))
	if kind == "" && users == 2 {
		lists[1] = e.rooms(1, "rooms")
		kind = kindIn(lists[1])
	}
	for _, l := range []struct{ path, kind string }{{"orgs", "ORG"}, {"repos", "REPO"}} {
		if kind != "" {
			break
		}
		var entries []struct {
			Room *Room `json:"room"`
		}
		if e.glance(0, "/v1/user/"+e.me(0)+"/"+l.path, nil, &entries) {
			for _, en := range entries {
				if en.Room != nil && en.Room.ID == room {
					kind = l.kind
				}
			}
		}
	}
	if !slices.Contains([]string{"ONETOONE", "ORG", "REPO"}, kind) {
		e.by(fmt.Sprintf("no list shows write_room %s as a one-to-one, organisation or repository room (%q)", room, kind))
		return 0
	}
	for u := range users {
		rs, ok := lists[u]
		if !ok {
			rs = e.rooms(u, "rooms")
		}
		e.Expect(idSetRooms(rs)).To(HaveKey(room), "write_room %s, a room users 1 and 2 share, is a %s room, and user %d's rooms list leaves it out", room, kind, u+1)
	}
	e.Expect(again).To(HaveKey(room), "write_room %s, in user 1's rooms list on the first read, is missing from it on the next", room)
	return 1
}
