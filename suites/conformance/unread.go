package conformance

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/client"
)

func unreadSpecs(d decl) {
	Describe("GET and POST /v1/user/{userId}/rooms/{roomId}/unreadItems", func() {
		d.it("answers an object with chat and mention lists of ids", reqs("UNREAD-SHAPE"), func(e *Env) {
			un := e.unread(0, e.writeRoom())
			e.Expect(un.Chat).NotTo(BeNil(), "chat")
			e.Expect(un.Mention).NotTo(BeNil(), "mention")
			if len(e.Users) < 2 {
				return
			}
			e.by("with a message of user 2 unread: lists of one id are lists too")
			text, _ := e.text()
			m := e.send(1, e.writeRoom(), text)
			// Each answer is validated: an id instead of a list fails at
			// once. A message that never shows is UNREAD-CHAT's to judge.
			e.step("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) {
					g.Expect(e.unread(0, e.writeRoom()).Chat).To(ContainElement(m.ID))
				})
			})
		})

		d.it("lists another user's new message as unread chat, and as a mention only when it mentions the reader", reqs("UNREAD-CHAT", "UNREAD-MENTION", "UNREAD-FLAG"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			text, marker := e.text()
			var plain, ping, elsewhere, self, status Message
			// Each statement is judged on its own (holds): mentions missed
			// leave unread chat and the flag judged.
			mentions := func() {
				e.holdsEventually("UNREAD-MENTION", func(g Gomega) {
					un := e.unread(0, room)
					g.Expect(un.Mention).To(ContainElement(ping.ID), "unread mentions of user 1")
					g.Expect(un.Mention).NotTo(ContainElement(plain.ID), "a message without a mention is listed as a mention")
					g.Expect(un.Mention).NotTo(ContainElement(elsewhere.ID), "a message mentioning no one is listed as a mention of user 1")
					g.Expect(un.Mention).NotTo(ContainElement(self.ID), "a message mentioning user 2 only is listed as a mention of user 1")
				})
			}
			// The mentions first as they are sent, the newest messages of the
			// room (beside other checks, whose messages would come between:
			// they wait), then again below a page of newer ones.
			e.quietly(func() {
				plain = e.send(1, room, text)
				ping = e.send(1, room, text+" cc @"+e.Users[0].Username+" thanks") // the mention inside the text
				elsewhere = e.send(1, room, "@nobody"+marker+" "+text)             // mentions no one
				self = e.send(1, room, "@"+e.Users[1].Username+" "+text)           // mentions a user, not user 1
				status = e.sendBody(1, room, map[string]any{"text": "waves " + text, "status": true})
				mentions()
			})
			// Newer messages of user 1's own, more than a page: a server that
			// works unread state out of the newest page only loses these.
			e.seed(0, room, deeperThanAPage)
			e.holdsEventually("UNREAD-CHAT", func(g Gomega) {
				g.Expect(e.unread(0, room).Chat).To(ContainElements(plain.ID, ping.ID, elsewhere.ID, self.ID, status.ID), "unread chat of user 1 (a status update among them), %d messages of user 1 later", deeperThanAPage)
			})
			e.holds("UNREAD-CHAT", func(g Gomega) {
				g.Expect(e.unread(1, room).Chat).NotTo(ContainElement(plain.ID), "the author's own message is unread for the author")
			})
			if !e.breached("UNREAD-MENTION") { // found already: no second wait for it
				mentions()
			}
			e.by("reading the unread flag by id and in a list, as the reader and as the author")
			e.verifies("UNREAD-FLAG", func() {
				e.Expect(e.seen(0, room, plain.ID).Unread).To(BeTrue(), "unread flag for user 1")
				e.Expect(e.getMessage(1, room, plain.ID).Unread).To(BeFalse(), "unread flag for the author")
				for _, m := range e.list(0, room, q("aroundId", plain.ID, "limit", "5")) {
					if m.ID == plain.ID {
						e.Expect(m.Unread).To(BeTrue(), "unread flag for user 1 in a list")
					}
				}
			})
		})

		d.it("marks the named messages read, and only those: they leave the lists, readBy rises by one and the flag clears", reqs("UNREAD-MARK-READ", "UNREAD-READBY", "UNREAD-FLAG"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			olderText, _ := e.text()
			older := e.send(1, room, olderText) // older and not named: a "read up to" server clears it too
			text, _ := e.text()
			m := e.send(1, room, "@"+e.Users[0].Username+" "+text)
			newerText, _ := e.text()
			newer := e.send(1, room, newerText) // newer and not named
			alsoText, _ := e.text()
			also := e.send(1, room, alsoText) // named with m in the same request
			third := -1                       // another reader, whose unread state marking must not touch
			e.step("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) { g.Expect(e.unread(0, room).Chat).To(ContainElements(older.ID, m.ID, newer.ID)) })
			})
			if len(e.Users) > 2 {
				// User 3 is an observer: nothing promises it is a member of
				// the write room, so a refusal only skips the observation.
				var un Unread
				if e.observe(2, "its unread items in the write room", unreadPath(e.me(2), room), &un) && slices.Contains(un.Chat, m.ID) {
					third = 2
				}
			}
			before := e.getMessage(1, room, m.ID).ReadBy
			newerBefore := e.getMessage(1, room, newer.ID).ReadBy
			e.seen(0, room, m.ID)
			e.seen(0, room, newer.ID)
			e.seen(0, room, also.ID)
			// Unread messages of user 1 in another room, which marking read in
			// this one must leave alone (read only: nothing is sent there).
			elsewhere := map[string][]string{}
			for _, other := range e.otherRooms() {
				var un Unread
				if e.glance(0, unreadPath(e.me(0), other), nil, &un) && len(un.Chat) > 0 {
					elsewhere[other] = un.Chat
				}
			}
			e.by("marking a message of user 1 read as user 2: marking read works for every user")
			mineText, _ := e.text()
			mine := e.send(0, room, mineText)
			e.step("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) { g.Expect(e.unread(1, room).Chat).To(ContainElement(mine.ID)) })
			})
			e.markRead(1, room, mine.ID)
			e.verifies("UNREAD-MARK-READ", func() {
				e.eventually(func(g Gomega) {
					g.Expect(e.unread(1, room).Chat).NotTo(ContainElement(mine.ID), "a message user 2 marked read is still unread chat for user 2")
				})
			})
			e.by("marking the middle message and a later one read as user 1 in one request, then the middle one again")
			e.markRead(0, room, m.ID, also.ID)
			// Marking it again may be refused (the document does not say); it
			// must not count user 1 twice.
			_, _ = e.Client.Do(e.ctx, client.Request{Method: "POST", Path: unreadPath(e.me(0), room),
				Token: e.Users[0].Token, Body: map[string]any{"chat": []string{m.ID}}, Invalid: true})
			// An empty list names nothing: it may be refused, and it marks
			// nothing (the older and newer messages below stay unread).
			_, _ = e.Client.Do(e.ctx, client.Request{Method: "POST", Path: unreadPath(e.me(0), room),
				Token: e.Users[0].Token, Body: map[string]any{"chat": []string{}}, Invalid: true})
			e.verifies("UNREAD-MARK-READ", func() {
				e.eventually(func(g Gomega) {
					un := e.unread(0, room)
					g.Expect(un.Chat).NotTo(ContainElement(m.ID), "a message marked read is still unread chat")
					g.Expect(un.Mention).NotTo(ContainElement(m.ID), "a message marked read is still an unread mention")
					g.Expect(un.Chat).NotTo(ContainElement(also.ID), "the second message named in the same request is still unread chat")
				})
				e.by("checking that the messages not named are still unread")
				// A list that leaves them out is read again before the mark
				// is blamed: a list wrong one time in a few is UNREAD-CHAT's
				// breach (see steady).
				var un Unread
				listed := func(u int, room string, ids ...string) func() bool {
					return func() bool {
						un = e.unread(u, room)
						return !slices.ContainsFunc(ids, func(id string) bool { return !slices.Contains(un.Chat, id) })
					}
				}
				e.Expect(e.steady("UNREAD-CHAT", "user 1's unread chat", listed(0, room, newer.ID))).
					To(BeTrue(), "marking %s read (then an empty list) also marked the newer %s, which was not named", m.ID, newer.ID)
				e.Expect(e.steady("UNREAD-CHAT", "user 1's unread chat", listed(0, room, older.ID))).
					To(BeTrue(), "marking %s read (then an empty list) also marked the older %s, which was not named", m.ID, older.ID)
				var observed Unread
				if third > 0 && e.observe(third, "its unread items in the write room", unreadPath(e.me(third), room), &observed) && !slices.Contains(observed.Chat, m.ID) {
					e.Expect(e.steady("UNREAD-CHAT", fmt.Sprintf("user %d's unread chat", third+1), listed(third, room, m.ID))).
						To(BeTrue(), "user 1 marking %s read marked it read for user %d too", m.ID, third+1)
				}
				for other, ids := range elsewhere {
					e.Expect(e.steady("UNREAD-CHAT", "user 1's unread chat", listed(0, other, ids...))).
						To(BeTrue(), "marking messages of room %s read also marked read user 1's unread messages in room %s: %v are no longer all listed", room, other, ids)
				}
				if len(elsewhere) == 0 {
					e.by("user 1 has no unread message in another described room: marking read there is not looked at")
				}
			})
			e.verifies("UNREAD-FLAG", func() {
				e.eventually(func(g Gomega) {
					g.Expect(e.peek(g, 0, room, m.ID).Unread).To(BeFalse(), "the unread flag of a message user 1 marked read")
				})
				e.Expect(e.getMessage(0, room, newer.ID).Unread).To(BeTrue(), "the unread flag of a message user 1 did not mark read")
			})
			e.verifies("UNREAD-READBY", func() {
				e.eventually(func(g Gomega) {
					g.Expect(e.peek(g, 0, room, m.ID).ReadBy).To(Equal(before+1), "readBy after user 1, and only user 1, read it (marked twice)")
				})
				e.Expect(e.getMessage(1, room, m.ID).ReadBy).To(Equal(before+1), "readBy read again, by the author")
				e.Expect(e.getMessage(1, room, newer.ID).ReadBy).To(Equal(newerBefore), "readBy of a message nobody marked read changed")
			})
		})

		d.it("lists the newest of over 100 unread messages, and marks it and one sent 101 messages before it read in one request", reqs("UNREAD-CHAT", "UNREAD-MARK-READ"), func(e *Env) {
			// Where a message sits must not matter: a server that looks the
			// ids up among the newest messages only (a page, a cache) leaves
			// an old one unread. The old one is named first and the newest
			// last, so a server that takes one id of the list shows too.
			e.needUsers(2)
			room := e.writeRoom()
			text, _ := e.text()
			old := e.send(0, room, text)
			e.seed(0, room, 100)
			text, _ = e.text()
			newest := e.send(0, room, text)
			// Whether the unread list has a bound is not stated, so the old
			// message need not be listed; a list that keeps over 100 must
			// keep the newest, whatever end it cuts.
			var listed bool
			e.verifies("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) {
					chat := e.unread(1, room).Chat
					g.Expect(chat).To(ContainElement(newest.ID), "user 1's newest message, with over 100 unread before it, is not in user 2's unread chat (%d ids)", len(chat))
					listed = slices.Contains(chat, old.ID)
				})
			})
			// The old one's own flag says it is unread, where the list may
			// not show it.
			flagged := e.seen(1, room, old.ID).Unread // how soon user 2 sees it is not stated
			e.by("user 2 marks read, in one request, user 1's message sent 101 messages ago and user 1's newest")
			e.markRead(1, room, old.ID, newest.ID)
			e.verifies("UNREAD-MARK-READ", func() {
				e.eventually(func(g Gomega) {
					chat := e.unread(1, room).Chat
					g.Expect(chat).NotTo(ContainElement(old.ID), "a message sent before 100 newer ones, named first in a mark read, is still unread chat")
					g.Expect(chat).NotTo(ContainElement(newest.ID), "the newest message, named last in the same mark read, is still unread chat")
					if flagged {
						g.Expect(e.peek(g, 1, room, old.ID).Unread).To(BeFalse(), "a message sent before 100 newer ones, named first in a mark read, still reads unread for user 2")
					}
				})
				if !listed && !flagged {
					e.by("the old message was neither listed nor flagged unread for user 2 before the mark: only the newest is judged")
				}
			})
		})

		d.it("keeps the room's unreadItems and mentions in agreement with the lists, before and after marking read", reqs("UNREAD-ROOM-COUNTS"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			// Each user's own counts, looked at from both sides: a server that
			// shows every caller the first user's counts fails for user 2.
			for _, pair := range [][2]int{{1, 0}, {0, 1}} {
				from, to := pair[0], pair[1]
				if to == 1 {
					// Over 100 unread for user 2: a count that stops at 99 shows.
					e.seed(from, room, 100)
				}
				text, _ := e.text()
				// A mention of someone else is unread chat but no mention.
				e.send(from, room, "@"+e.Users[from].Username+" "+text)
				ping := e.send(from, room, "@"+e.Users[to].Username+" "+text)
				e.by(fmt.Sprintf("with a new unread mention of user %d", to+1))
				e.step("UNREAD-CHAT", func() {
					e.eventually(func(g Gomega) { g.Expect(e.unread(to, room).Chat).To(ContainElement(ping.ID)) })
				})
				e.countsAgree(to, room, ping.ID, true)
				e.by(fmt.Sprintf("after user %d marks that message read", to+1))
				e.markRead(to, room, ping.ID)
				e.countsAgree(to, room, ping.ID, false)
			}
		})

		d.it("counts every other room's unread items and mentions, in every list that shows it, as each user's unread lists of that room do", reqs("UNREAD-ROOM-COUNTS"), func(e *Env) {
			e.everyRoomCounts()
		})
	})
}

// everyRoomCounts holds the counts of every room each described user is
// shown, in every list that shows it, to that user's unread lists of the
// room: the counts are the caller's own wherever a Room appears. The write
// room is left to the check above and the model (the run writes there).
// A room whose unread lists the user cannot read is skipped. Other clients
// may write to a room while it is read, so counts are judged only where
// they were read between two reads of the room's unread lists that agree:
// lists that moved say nothing. Each user's counts are read so twice, so
// counts that go wrong on one answer in a few are met (a disagreement the
// next read does not repeat is no less wrong when the lists held still).
func (e *Env) everyRoomCounts() {
	GinkgoHelper()
	compared := map[string]bool{}
	for u := range e.Users {
		e.distinct(u)
		shown := func() map[string]map[string]Room {
			lists := e.roomsElsewhere(u)
			var rooms []Room
			if e.glance(u, "/v1/user/"+e.me(u)+"/rooms", nil, &rooms) {
				lists["rooms list"] = rooms
			}
			out := map[string]map[string]Room{}
			for where, rs := range lists {
				for _, rm := range rs {
					if rm.ID == "" || rm.ID == e.Target.WriteRoom || (rm.UnreadItems == nil && rm.Mentions == nil) {
						continue
					}
					if out[rm.ID] == nil {
						out[rm.ID] = map[string]Room{}
					}
					out[rm.ID][where] = rm
				}
			}
			return out
		}
		first := shown()
		ids := make([]string, 0, len(first))
		for id := range first {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		unread := func() map[string]Unread {
			out := map[string]Unread{}
			for _, id := range ids {
				var un Unread
				if e.observe(u, "the unread items of room "+id, unreadPath(e.me(u), id), &un) {
					out[id] = un
				}
			}
			return out
		}
		before := unread()
		for read := range 2 {
			counts := shown()
			after := unread()
			for _, id := range ids {
				b, okB := before[id]
				a, okA := after[id]
				if !okB || !okA || !sameUnread(b, a) || len(counts[id]) == 0 {
					continue // lists that moved, or a room not shown this time
				}
				differ := e.countsDisagree(u, a, counts[id])
				e.Expect(differ).To(BeEmpty(), "room %s: %s, on user %d's read %d of 2 of the counts, the unread lists the same before and after it", id, differ, u+1, read+1)
				compared[fmt.Sprintf("%d %s", u, id)] = true
			}
			before = after
		}
	}
	if len(compared) == 0 {
		e.skip("every room besides the write room carries neither unreadItems nor mentions, or its unread lists cannot be read by the users who are shown it, or they moved on every read")
	}
	e.by(fmt.Sprintf("%d rooms' counts compared with their unread lists", len(compared)))
}

// countsAgree waits until user u's unread lists of room hold message id
// (or not, as listed says) and every entry of the room user u is shown —
// in the rooms list, the channels list, or embedded in an organisation or
// repository — counts as many unread items and mentions as the lists.
func (e *Env) countsAgree(u int, room, id string, listed bool) {
	GinkgoHelper()
	// First the lists, under the requirement that moves them: a message
	// that never shows as unread (UNREAD-CHAT, UNREAD-MENTION) or never
	// leaves the lists once marked (UNREAD-MARK-READ) blocks this check,
	// whose statement is that the counts follow the lists.
	owner := "UNREAD-MARK-READ"
	if listed {
		owner = "UNREAD-CHAT"
	}
	e.step(owner, func() {
		e.eventually(func(g Gomega) {
			un := e.unread(u, room)
			g.Expect(slices.Contains(un.Chat, id)).To(Equal(listed), "unread chat of user %d holds %s", u+1, id)
			if !listed {
				g.Expect(slices.Contains(un.Mention, id)).To(BeFalse(), "unread mentions of user %d hold %s, which that user marked read", u+1, id)
			}
		})
	})
	if listed {
		e.step("UNREAD-MENTION", func() {
			e.eventually(func(g Gomega) {
				g.Expect(e.unread(u, room).Mention).To(ContainElement(id), "unread mentions of user %d hold %s, which mentions them", u+1, id)
			})
		})
	}
	// The room's counts and the unread lists are read apart in time: no
	// other check writes meanwhile (when checks run beside each other).
	e.quietly(func() {
		read := func() (un Unread, differ string) {
			var shown map[string]Room
			e.readTogether(u, e.entryReads(u, room), func() {
				un = e.unread(u, room)
				shown = e.roomEntries(u, room)
			})
			if len(shown) == 0 {
				e.skip(fmt.Sprintf("the write room is in none of user %d's lists", u+1))
			}
			return un, e.countsDisagree(u, un, shown)
		}
		var before Unread
		e.eventually(func(g Gomega) {
			un, differ := read()
			g.Expect(differ).To(BeEmpty())
			before = un
		})
		// Once they agree, they keep agreeing: two more reads, each taken
		// again when it disagrees. Counts that disagree while the lists stay
		// as they were are wrong (one answer in a few, say); lists that moved
		// in between say nothing. The lists and the counts of one read are
		// sent together, so either may be answered first: the lists must be
		// the same on the read before the pair, in it and after it, or the
		// counts may have been taken on the other side of a change.
		for range 2 {
			un, differ := read()
			if differ == "" {
				before = un
				continue
			}
			again, _ := read()
			if sameUnread(before, un) && sameUnread(un, again) {
				e.fail(differ + ", on a read after they had agreed, the unread lists the same before, with and after the counts")
			}
			before = again
		}

	})
}

// sameUnread reports whether a and b list the same unread chat and
// mentions: the same messages, so the unread state did not move between
// them. How many times an answer lists each is not the state's: a list
// that names a message twice is still to agree with the counts, entry for
// entry.
func sameUnread(a, b Unread) bool {
	return sameSet(a.Chat, b.Chat) && sameSet(a.Mention, b.Mention)
}

// sameSet reports whether a and b hold the same ids, in any order and
// however many times each.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// countsDisagree says how the counts of the room entries user u is shown
// disagree with the user's unread lists ("" when they agree); it skips the
// check when no entry carries a count.
func (e *Env) countsDisagree(u int, un Unread, shown map[string]Room) string {
	GinkgoHelper()
	counted := 0
	var differ []string
	for where, rm := range shown {
		if rm.UnreadItems != nil {
			counted++
			if *rm.UnreadItems != len(un.Chat) {
				differ = append(differ, fmt.Sprintf("unreadItems of the room in user %d's %s is %d, the unread chat list holds %d", u+1, where, *rm.UnreadItems, len(un.Chat)))
			}
		}
		if rm.Mentions != nil {
			counted++
			if *rm.Mentions != len(un.Mention) {
				differ = append(differ, fmt.Sprintf("mentions of the room in user %d's %s is %d, the unread mention list holds %d", u+1, where, *rm.Mentions, len(un.Mention)))
			}
		}
	}
	if counted == 0 {
		e.skip("the room carries neither unreadItems nor mentions")
	}
	slices.Sort(differ)
	return strings.Join(differ, "; ")
}

// entryReads are the reads of room's unread items and of the lists
// roomEntries reads, as user u: to send together (readTogether).
func (e *Env) entryReads(u int, room string) []client.Request {
	me := "/v1/user/" + e.me(u) + "/"
	return []client.Request{
		{Method: "GET", Path: unreadPath(e.me(u), room)},
		{Method: "GET", Path: me + "channels"}, {Method: "GET", Path: me + "orgs"},
		{Method: "GET", Path: me + "repos"}, {Method: "GET", Path: me + "rooms"},
	}
}

// roomEntries returns the entries of room that user u's lists show, by the
// list they are in. The rooms list is read as a step; the others are
// glanced at (see roomsElsewhere).
func (e *Env) roomEntries(u int, room string) map[string]Room {
	GinkgoHelper()
	out := map[string]Room{}
	lists := e.roomsElsewhere(u)
	lists["rooms list"] = e.rooms(u, "rooms")
	for where, rooms := range lists {
		for _, rm := range rooms {
			if rm.ID == room {
				out[where] = rm
			}
		}
	}
	return out
}
