package conformance

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// deeperThanAPage is how many newer messages a check puts above the one
// it looks for, so that a server that looks only at a newest page of 50
// (a common default) misses it.
const deeperThanAPage = 55

func requestList(room string, query map[string][]string) client.Request {
	return client.Request{Method: "GET", Path: messagesPath(room), Query: query, Invalid: spec.BeyondListBounds(query)}
}

func searchSpecs(d decl) {
	Describe("GET /v1/rooms/{roomId}/chatMessages?q=", func() {
		d.it("finds an older message by a unique word, and not the newer ones without it", reqs("SEARCH-Q"), func(e *Env) {
			room := e.writeRoom()
			// Letters only, unrelated to the run marker the other texts carry:
			// however the server splits words, no filler shares this one.
			word := e.word()
			text, _ := e.text()
			target := e.send(0, room, text+" "+word)
			// Newer messages without the word, more than a page of 50: a
			// server that ignores q and answers the newest page, or searches
			// only the newest few dozen messages, shows these and not the target.
			fillers := e.seed(0, room, deeperThanAPage)
			e.eventually(func(g Gomega) {
				found := e.searchIDs(g, room, word)
				g.Expect(found).To(ContainElement(target.ID), "searching for %q did not find the message holding it", word)
				g.Expect(found).NotTo(ContainElement(BeElementOf(idsOf(fillers))), "searching for %q found newer messages that do not hold it", word)
			})

			e.by("searching for two words, each held by one message: both are found or neither")
			// Whether a query's words must all match or any may is not shown;
			// either way the two messages are alike, and a server that looks
			// for the first word only finds one of them.
			wordA := e.word()
			wordB := e.word()
			textA, _ := e.text()
			holdsA := e.send(0, room, textA+" "+wordA)
			textB, _ := e.text()
			holdsB := e.send(0, room, textB+" "+wordB)
			e.eventually(func(g Gomega) { // each is searchable on its own first
				g.Expect(e.searchIDs(g, room, wordA)).To(ContainElement(holdsA.ID), "searching for %q", wordA)
				g.Expect(e.searchIDs(g, room, wordB)).To(ContainElement(holdsB.ID), "searching for %q", wordB)
			})
			e.eventually(func(g Gomega) {
				both := e.searchIDs(g, room, wordA+" "+wordB)
				g.Expect(slices.Contains(both, holdsA.ID)).To(Equal(slices.Contains(both, holdsB.ID)),
					"searching for %q found one of the two messages that each hold one of the words, not both or neither: %v", wordA+" "+wordB, both)
			})

			e.by("editing a message to hold another word: search finds it by its new text")
			edited := e.word()
			e.edit(0, room, fillers[0].ID, fillers[0].Text+" "+edited)
			e.eventually(func(g Gomega) {
				g.Expect(e.searchIDs(g, room, edited)).To(ContainElement(fillers[0].ID), "searching for %q, which message %s holds since an edit, did not find it", edited, fillers[0].ID)
			})
		})
	})
}

func scopeSpecs(d decl) {
	Describe("Room scope of messages, search and unread state", func() {
		d.it("keeps a message, its search hits and its unread state to the room it was sent in", reqs("MSG-ROOM-SCOPE", "SEARCH-Q", "UNREAD-CHAT"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			others := e.otherRooms()
			if len(others) == 0 {
				e.skip("no second room of user 1 is known (rooms: in the target description) to tell rooms apart")
			}
			word := e.word()
			text, _ := e.text()
			// Sent and looked for as the room's newest message: beside other
			// checks, theirs wait meanwhile.
			var m Message
			e.quietly(func() {
				m = e.send(1, room, text+" "+word)
				e.verifies("UNREAD-CHAT", func() {
					e.eventually(func(g Gomega) {
						g.Expect(e.unread(0, room).Chat).To(ContainElement(m.ID), "user 1's unread chat in the room the message was sent to")
					})
				})
			})
			e.verifies("SEARCH-Q", func() {
				e.eventually(func(g Gomega) {
					var hits []Message
					e.expectOK(e.call(0, requestList(room, q("q", word))), &hits)
					g.Expect(idsOf(hits)).To(ContainElement(m.ID), "searching the room the message was sent to")
				})
			})
			other := others[0]
			e.by("looking for it in another room of user 1")
			e.verifies("MSG-ROOM-SCOPE", func() {
				e.Expect(idsOf(e.list(0, other, q("limit", "100")))).NotTo(ContainElement(m.ID), "a message sent to room %s is listed in room %s", room, other)
				var hits []Message
				e.expectOK(e.call(0, requestList(other, q("q", word))), &hits)
				e.Expect(idsOf(hits)).NotTo(ContainElement(m.ID), "searching room %s finds a message sent to room %s", other, room)
			})
			e.verifies("UNREAD-CHAT", func() {
				e.Expect(e.unread(0, other).Chat).NotTo(ContainElement(m.ID), "a message sent to room %s is unread in room %s", room, other)
			})
		})
	})
}
