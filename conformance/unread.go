package conformance

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func unreadSpecs(d decl) {
	Describe("GET and POST /v1/user/{userId}/rooms/{roomId}/unreadItems", func() {
		d.it("answers an object with chat and mention lists of ids", reqs("UNREAD-SHAPE"), func(e *Env) {
			un := e.unread(0, e.writeRoom())
			Expect(un.Chat).NotTo(BeNil(), "chat")
			Expect(un.Mention).NotTo(BeNil(), "mention")
		})

		d.it("lists another user's new message as unread chat and a mention as unread mention", reqs("UNREAD-CHAT", "UNREAD-MENTION", "UNREAD-FLAG"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			text, _ := e.text()
			plain := e.send(1, room, text)
			ping := e.send(1, room, "@"+e.Users[0].Username+" "+text)
			e.leaveRead(room, plain.ID, ping.ID)
			e.eventually(func(g Gomega) {
				un := e.unread(0, room)
				g.Expect(un.Chat).To(ContainElements(plain.ID, ping.ID), "unread chat of user 1")
				g.Expect(un.Mention).To(ContainElement(ping.ID), "unread mentions of user 1")
				g.Expect(un.Mention).NotTo(ContainElement(plain.ID), "a message without a mention is listed as a mention")
			})
			Expect(e.getMessage(0, room, plain.ID).Unread).To(BeTrue(), "unread flag for user 1")
			Expect(e.getMessage(1, room, plain.ID).Unread).To(BeFalse(), "unread flag for the author")
		})

		d.it("marks the named messages read, and only those: they leave the lists, readBy rises by one and the flag clears", reqs("UNREAD-MARK-READ", "UNREAD-READBY", "UNREAD-FLAG"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			text, _ := e.text()
			m := e.send(1, room, "@"+e.Users[0].Username+" "+text)
			keepText, _ := e.text()
			keep := e.send(1, room, keepText) // newer, and not named: must stay unread
			e.leaveRead(room, keep.ID)
			e.eventually(func(g Gomega) { g.Expect(e.unread(0, room).Chat).To(ContainElements(m.ID, keep.ID)) })
			before := e.getMessage(0, room, m.ID).ReadBy
			By("marking the older message read as user 1")
			e.markRead(0, room, m.ID)
			e.eventually(func(g Gomega) {
				un := e.unread(0, room)
				g.Expect(un.Chat).NotTo(ContainElement(m.ID), "a message marked read is still unread chat")
				g.Expect(un.Mention).NotTo(ContainElement(m.ID), "a message marked read is still an unread mention")
			})
			got := e.getMessage(0, room, m.ID)
			Expect(got.ReadBy).To(Equal(before+1), "readBy after user 1, and only user 1, read it")
			Expect(got.Unread).To(BeFalse(), "the unread flag of a message user 1 marked read")
			By("checking that the message not named is still unread")
			Expect(e.unread(0, room).Chat).To(ContainElement(keep.ID), "marking %s read also marked %s, which was not named", m.ID, keep.ID)
			Expect(e.getMessage(0, room, keep.ID).Unread).To(BeTrue(), "the unread flag of a message user 1 did not mark read")
		})

		d.it("keeps the room's unreadItems and mentions in agreement with the lists, before and after marking read", reqs("UNREAD-ROOM-COUNTS"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			text, _ := e.text()
			ping := e.send(1, room, "@"+e.Users[0].Username+" "+text)
			agree := func(wantChat, wantMention string) {
				GinkgoHelper()
				e.eventually(func(g Gomega) {
					un := e.unread(0, room)
					if wantChat != "" {
						g.Expect(un.Chat).To(ContainElement(wantChat))
						g.Expect(un.Mention).To(ContainElement(wantMention))
					}
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
			agree(ping.ID, ping.ID)
			By("after marking every unread message read")
			un := e.unread(0, room)
			if all := append(un.Chat, un.Mention...); len(all) > 0 {
				e.markRead(0, room, all...)
			}
			agree("", "")
		})
	})
}
