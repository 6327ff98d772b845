package conformance

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/client"
)

func unreadSpecs(d decl) {
	Describe("GET and POST /v1/user/{userId}/rooms/{roomId}/unreadItems", func() {
		d.it("answers an object with chat and mention lists of ids", reqs("UNREAD-SHAPE"), func(e *Env) {
			un := e.unread(0, e.writeRoom())
			Expect(un.Chat).NotTo(BeNil(), "chat")
			Expect(un.Mention).NotTo(BeNil(), "mention")
		})

		d.it("lists another user's new message as unread chat, and as a mention only when it mentions the reader", reqs("UNREAD-CHAT", "UNREAD-MENTION", "UNREAD-FLAG"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			text, marker := e.text()
			plain := e.send(1, room, text)
			ping := e.send(1, room, "@"+e.Users[0].Username+" "+text)
			elsewhere := e.send(1, room, "@nobody"+marker+" "+text) // mentions someone, not user 1
			e.leaveRead(room, plain.ID, ping.ID, elsewhere.ID)
			e.verifies("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) {
					g.Expect(e.unread(0, room).Chat).To(ContainElements(plain.ID, ping.ID, elsewhere.ID), "unread chat of user 1")
				})
				Expect(e.unread(1, room).Chat).NotTo(ContainElement(plain.ID), "the author's own message is unread for the author")
			})
			e.verifies("UNREAD-MENTION", func() {
				e.eventually(func(g Gomega) {
					un := e.unread(0, room)
					g.Expect(un.Mention).To(ContainElement(ping.ID), "unread mentions of user 1")
					g.Expect(un.Mention).NotTo(ContainElement(plain.ID), "a message without a mention is listed as a mention")
					g.Expect(un.Mention).NotTo(ContainElement(elsewhere.ID), "a message mentioning someone else is listed as a mention of user 1")
				})
			})
			By("reading the unread flag by id and in a list, as the reader and as the author")
			e.verifies("UNREAD-FLAG", func() {
				Expect(e.seen(0, room, plain.ID).Unread).To(BeTrue(), "unread flag for user 1")
				Expect(e.getMessage(1, room, plain.ID).Unread).To(BeFalse(), "unread flag for the author")
				for _, m := range e.list(0, room, q("aroundId", plain.ID, "limit", "5")) {
					if m.ID == plain.ID {
						Expect(m.Unread).To(BeTrue(), "unread flag for user 1 in a list")
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
			e.leaveRead(room, older.ID, newer.ID)
			third := -1 // another reader, whose unread state marking must not touch
			e.step("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) { g.Expect(e.unread(0, room).Chat).To(ContainElements(older.ID, m.ID, newer.ID)) })
			})
			if len(e.Users) > 2 && slices.Contains(e.unread(2, room).Chat, m.ID) {
				third = 2
			}
			before := e.getMessage(1, room, m.ID).ReadBy
			e.seen(0, room, m.ID)
			e.seen(0, room, newer.ID)
			By("marking the middle message read as user 1, twice")
			e.markRead(0, room, m.ID)
			// Marking it again may be refused (the document does not say); it
			// must not count user 1 twice.
			_, _ = e.Client.Do(e.ctx, client.Request{Method: "POST", Path: "/v1/user/" + e.me(0) + "/rooms/" + room + "/unreadItems",
				Token: e.Users[0].Token, Body: map[string]any{"chat": []string{m.ID}}, Invalid: true})
			e.verifies("UNREAD-MARK-READ", func() {
				e.eventually(func(g Gomega) {
					un := e.unread(0, room)
					g.Expect(un.Chat).NotTo(ContainElement(m.ID), "a message marked read is still unread chat")
					g.Expect(un.Mention).NotTo(ContainElement(m.ID), "a message marked read is still an unread mention")
				})
				By("checking that the messages not named are still unread")
				un := e.unread(0, room)
				Expect(un.Chat).To(ContainElement(newer.ID), "marking %s read also marked the newer %s, which was not named", m.ID, newer.ID)
				Expect(un.Chat).To(ContainElement(older.ID), "marking %s read also marked the older %s, which was not named", m.ID, older.ID)
				if third > 0 {
					Expect(e.unread(third, room).Chat).To(ContainElement(m.ID), "user 1 marking %s read marked it read for user %d too", m.ID, third+1)
				}
			})
			e.verifies("UNREAD-FLAG", func() {
				e.eventually(func(g Gomega) {
					g.Expect(e.peek(g, 0, room, m.ID).Unread).To(BeFalse(), "the unread flag of a message user 1 marked read")
				})
				Expect(e.getMessage(0, room, newer.ID).Unread).To(BeTrue(), "the unread flag of a message user 1 did not mark read")
			})
			e.verifies("UNREAD-READBY", func() {
				e.eventually(func(g Gomega) {
					g.Expect(e.peek(g, 0, room, m.ID).ReadBy).To(Equal(before+1), "readBy after user 1, and only user 1, read it (marked twice)")
				})
				Expect(e.getMessage(1, room, m.ID).ReadBy).To(Equal(before+1), "readBy read again, by the author")
			})
		})

		d.it("keeps the room's unreadItems and mentions in agreement with the lists, before and after marking read", reqs("UNREAD-ROOM-COUNTS"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			text, _ := e.text()
			ping := e.send(1, room, "@"+e.Users[0].Username+" "+text)
			e.leaveRead(room, ping.ID)
			agree := func(listed bool) {
				GinkgoHelper()
				e.eventually(func(g Gomega) {
					un := e.unread(0, room)
					g.Expect(slices.Contains(un.Chat, ping.ID)).To(Equal(listed), "unread chat holds %s", ping.ID)
					g.Expect(slices.Contains(un.Mention, ping.ID)).To(Equal(listed), "unread mentions hold %s", ping.ID)
					var found *Room
					for _, rm := range e.rooms(0, "rooms") {
						if rm.ID == room {
							found = &rm
						}
					}
					if found == nil {
						Skip("the write room is not in user 1's rooms list")
					}
					if found.UnreadItems == nil && found.Mentions == nil {
						Skip("the room carries neither unreadItems nor mentions")
					}
					if found.UnreadItems != nil {
						g.Expect(*found.UnreadItems).To(Equal(len(un.Chat)), "room unreadItems vs unread chat list")
					}
					if found.Mentions != nil {
						g.Expect(*found.Mentions).To(Equal(len(un.Mention)), "room mentions vs unread mention list")
					}
				})
			}
			By("with a new unread mention")
			e.step("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) { g.Expect(e.unread(0, room).Chat).To(ContainElement(ping.ID)) })
			})
			agree(true)
			By("after marking that message read")
			e.markRead(0, room, ping.ID)
			agree(false)
		})
	})
}
