package conformance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/client"
)

func messageSpecs(d decl) {
	Describe("POST /v1/rooms/{roomId}/chatMessages", func() {
		d.it("answers 200 with the new message: v 1, editedAt null, unread false, readBy 0", reqs("MSG-SEND-200", "MSG-SEND-DEFAULTS", "MSG-SEND-EDITEDAT-NULL", "MSG-SHAPE"), func(e *Env) {
			// Several sends, so a server that breaks one answer in a few is
			// caught here rather than only blocking other checks. A link and
			// an issue reference in the text put objects in urls and issues,
			// whose shape an empty list never shows.
			// The last send is a status update: its answer follows the same rules.
			var m Message
			// Another success carrying the message is judged last, so the
			// defaults and the shape are judged on it first.
			var other *client.Response
			for i := range 6 {
				text, _ := e.text()
				body := map[string]any{"text": text + " see https://example.com/notes?page=2 and #42"}
				if i == 5 {
					body["status"] = true
				}
				resp := e.call(0, client.Request{Method: "POST", Path: messagesPath(e.writeRoom()), Body: body})
				if resp.Status/100 == 2 && resp.Status != 200 && resp.JSON(&m) == nil && m.ID != "" {
					if other == nil {
						other = resp
					}
				} else {
					e.verifies("MSG-SEND-200", func() { e.expectOK(resp, &m) })
				}
				// Each statement is judged on every answer, and a breach of
				// one leaves the others to be judged (see holdsLater).
				e.holdsLater("MSG-SEND-DEFAULTS", m.V == 1, "v of a new message is %d, not 1 (send %d of 6)", m.V, i+1)
				e.holdsLater("MSG-SEND-DEFAULTS", !m.Unread, "a new message is unread for its sender (send %d of 6)", i+1)
				e.holdsLater("MSG-SEND-DEFAULTS", m.ReadBy == 0, "readBy of a new message is %d, not 0 (send %d of 6)", m.ReadBy, i+1)
				e.holdsLater("MSG-SEND-EDITEDAT-NULL", m.EditedAt == nil, "a new message has an editedAt, not null (send %d of 6)", i+1)
			}
			e.by("judging the message read by id, listed and found by search against the document too")
			// Each answer is validated (MSG-SHAPE): a shape a server gets
			// right in one answer may be wrong in another.
			back := e.getMessage(0, e.writeRoom(), m.ID)
			e.verifies("MSG-SEND-EDITEDAT-NULL", func() { e.Expect(back.EditedAt).To(BeNil(), "editedAt of a new message read back by id") })
			e.list(0, e.writeRoom(), q("limit", "20"))
			var found []Message
			e.glance(0, messagesPath(e.writeRoom()), q("q", "notes", "limit", "10"), &found)
			// Every answer of the check was validated on arrival: a shape
			// violation would have ended it there.
			e.verifies("MSG-SHAPE", func() {})
			if other != nil {
				e.verifies("MSG-SEND-200", func() { e.expectOK(other, nil) })
			}
		})

		d.it("refuses a send or an edit without text, whatever else its body carries, and stores nothing", reqs("MSG-TEXT-REQUIRED"), func(e *Env) {
			room := e.writeRoom()
			text, _ := e.text()
			// Nothing of user 1 may follow m in the room: no other check writes
			// meanwhile (when checks run beside each other).
			e.quietly(func() {
				m := e.send(0, room, text) // the newest of ours before the refused sends, and the one edited
				// The optional field present does not stand in for the required
				// one, whatever its value.
				for _, body := range []map[string]any{{}, {"status": true}, {"status": false}} {
					resp := e.call(0, client.Request{Method: "POST", Path: messagesPath(room), Body: body, Invalid: true})
					e.Expect(resp.Status).NotTo(BeNumerically("<", 300), "%s", explain(resp, fmt.Sprintf("a send whose body %v has no text was accepted", body)))
				}
				before := e.getMessage(0, room, m.ID) // as stored, to compare with after the refused edit
				resp := e.call(0, client.Request{Method: "PUT", Path: messagesPath(room) + "/" + m.ID, Body: map[string]any{}, Invalid: true})
				e.Expect(resp.Status).NotTo(BeNumerically("<", 300), "%s", explain(resp, "an edit whose body has no text was accepted"))
				e.by("reading back: no message of ours after the last accepted send, and the message unedited")
				after := e.getMessage(0, room, m.ID)
				e.Expect(after.Text).To(Equal(text), "message %s after an edit without text was refused", m.ID)
				// A refused edit stores nothing: neither a new version nor a
				// time of edit.
				e.Expect(after.V).To(Equal(before.V), "v of message %s went from %d to %d over an edit without text that was refused", m.ID, before.V, after.V)
				e.Expect(after.EditedAt).To(Equal(before.EditedAt), "editedAt of message %s went from %v to %v over an edit without text that was refused", m.ID, orNull(before.EditedAt), orNull(after.EditedAt))
				for _, x := range e.list(0, room, q("limit", "10")) { // in any order
					if x.ID != m.ID && x.FromUser.ID == e.me(0) && e.parseTime(x.Sent).After(e.parseTime(m.Sent)) {
						e.fail(fmt.Sprintf("message %s (text %q) of user 1 follows %s in the room, though every send after it was refused", x.ID, x.Text, m.ID))
					}
				}
			})
		})

		d.it("keeps the text unchanged and names the sender as fromUser", reqs("MSG-SEND-TEXT"), func(e *Env) {
			room := e.writeRoom()
			for u := range min(len(e.Users), 2) { // two senders: a server that stamps one user on every message fails
				text, _ := e.text()
				text = "  " + text + " — ünïcödé, \"quotes\" & <angles>  " // spaces at both ends stay too
				m := e.send(u, room, text)
				e.Expect(m.Text).To(Equal(text), "text of a message user %d sent", u+1)
				e.Expect(m.FromUser.ID).To(Equal(e.me(u)), "fromUser of a message user %d sent", u+1)
			}
			// The maximum length is not shown: a server may refuse these
			// texts, but one that takes a text keeps all of it, line breaks
			// (CR LF as well as LF) and tabs included (characters JSON
			// escapes), however long: one of over 300 characters, and one of
			// over 6,000 bytes, where a store with a column of 4,096 would
			// cut it.
			f := e.Faker("long")
			for _, size := range []int{600, 6000} {
				e.by(fmt.Sprintf("sending a text of several lines and about %d bytes, with a tab and both kinds of line break, and reading it back", size))
				var long strings.Builder
				for long.Len() < size {
					long.WriteString(f.Sentence() + " ")
					if long.Len() > 300 && !strings.Contains(long.String(), "\n") {
						long.WriteString("\r\n\t")
					}
					if size > 1000 && long.Len()%7 == 0 {
						long.WriteString("ünï ")
					}
				}
				text := long.String() + "\nlast line " + e.Marker()
				resp := e.call(0, client.Request{Method: "POST", Path: messagesPath(room), Body: map[string]string{"text": text}, Invalid: true})
				if resp.Status != 200 {
					e.by(fmt.Sprintf("the %d-byte text was refused (%d): the maximum length is not shown", len(text), resp.Status))
					continue
				}
				var m Message
				e.decode(resp, &m)
				e.Expect(m.Text).To(Equal(text), "text of a %d-byte message of several lines, as answered", len(text))
				e.Expect(e.getMessage(0, room, m.ID).Text).To(Equal(text), "text of a %d-byte message of several lines, read back", len(text))
				found := false
				for _, l := range e.list(0, room, q("limit", "20")) {
					if l.ID == m.ID {
						found = true
						e.Expect(l.Text).To(Equal(text), "text of a %d-byte message of several lines, in a list", len(text))
					}
				}
				if !found {
					e.by("the message is not in the newest page yet: its text in a list is not looked at")
				}
			}
		})

		d.it("flags a message sent with status true as a status update, and only that one", reqs("MSG-SEND-STATUS"), func(e *Env) {
			room := e.writeRoom()
			for u := range min(len(e.Users), 2) { // from both users: a server may honour it for one only
				text, _ := e.text()
				m := e.sendBody(u, room, map[string]any{"text": text, "status": true})
				e.Expect(m.Status).To(HaveValue(BeTrue()), "status of a status update user %d sent", u+1)
				e.Expect(e.getMessage(u, room, m.ID).Status).To(HaveValue(BeTrue()), "status when read back, user %d", u+1)
			}
			plainText, _ := e.text()
			plain := e.send(0, room, plainText)
			e.Expect(isTrue(plain.Status)).To(BeFalse(), "a message sent without status is flagged as a status update")
			e.Expect(isTrue(e.getMessage(0, room, plain.ID).Status)).To(BeFalse(), "a message sent without status reads back as a status update")
		})

		d.it("stores the message: user 2 can read it by id and finds it listed", reqs("MSG-SEND-STORED", "MSG-GET-ONE"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			olderText, _ := e.text()
			e.send(0, room, olderText) // so that m has an older neighbour to be confused with
			text, _ := e.text()
			text += " — ünïcödé 🎉" // stored as sent, whatever its characters
			m := e.send(0, room, text)
			laterText, _ := e.text()
			later := e.send(0, room, laterText) // so that m is not the newest message
			var got Message
			e.verifies("MSG-SEND-STORED", func() {
				e.eventually(func(g Gomega) { // how soon another user sees a write is not shown
					got = e.peek(g, 1, room, m.ID)
					if got.ID != m.ID {
						return // another message: the read's fault, judged next
					}
					g.Expect(got.Text).To(Equal(text), "user 2 reads message %s", m.ID)
				})
			})
			e.verifies("MSG-GET-ONE", func() { e.Expect(got.ID).To(Equal(m.ID), "asked for one message, got another") })
			e.verifies("MSG-SEND-STORED", func() { e.Expect(got.FromUser.ID).To(Equal(e.me(0)), "fromUser of the stored message") })
			e.verifies("MSG-GET-ONE", func() {
				var viaQuery Message // the token in the query reads the same message
				e.expectOK(e.call(1, client.Request{Method: "GET", Path: messagesPath(room) + "/" + m.ID, Place: client.QueryToken}), &viaQuery)
				e.Expect(viaQuery.ID).To(Equal(m.ID), "reading message %s with the token in the query", m.ID)
			})
			e.by("and the other way round: user 1 reads what user 2 sent")
			theirText, _ := e.text()
			theirs := e.send(1, room, theirText)
			e.verifies("MSG-SEND-STORED", func() {
				e.eventually(func(g Gomega) {
					back := e.peek(g, 0, room, theirs.ID)
					g.Expect(back.Text).To(Equal(theirText), "user 1 reads message %s of user 2", theirs.ID)
					g.Expect(back.FromUser.ID).To(Equal(e.me(1)), "fromUser of a stored message of user 2")
				})
			})
			e.verifies("MSG-SEND-STORED", func() { e.listedAs(1, room, m.ID, later.ID) })
			// The room's first page as a client reads it first, with no
			// parameter at all, before and after a send: it holds the send,
			// or messages sent at its time or after (other writers; times
			// may be whole seconds), whatever the server kept of the first
			// read.
			e.by("reading the room's first page with no parameter, before and after user 2 sends")
			e.list(0, room, nil)
			newestText, _ := e.text()
			newest := e.send(1, room, newestText)
			e.verifies("MSG-SEND-STORED", func() {
				e.eventually(func(g Gomega) {
					page := e.pageIn(g, 0, room, nil)
					g.Expect(slices.ContainsFunc(page, func(m Message) bool {
						return m.ID == newest.ID || !parseSent(m.Sent).Before(parseSent(newest.Sent))
					})).To(BeTrue(), "user 1's list of room %s with no parameter holds neither message %s, which user 2 sent after user 1's previous such list, nor any message sent at its time or after: %v", room, newest.ID, idsOf(page))
				})
			})

			e.by("reading by id a message older than the newest 100 of a room")
			if deep, deepRoom, ok := e.deepMessage(); ok {
				e.verifies("MSG-GET-ONE", func() {
					e.Expect(e.getMessage(0, deepRoom, deep.ID).ID).To(Equal(deep.ID), "reading message %s, older than the newest 100 of room %s, by id", deep.ID, deepRoom)
				})
			}
		})

		d.it("lists messages with meta an empty object", reqs("MSG-LIST", "MSG-META-EMPTY"), func(e *Env) {
			room := e.writeRoom()
			text, _ := e.text()
			text += " notes"
			m := e.send(0, room, text)
			// And messages of each kind of content: meta is empty on every
			// message, whatever its text holds.
			kinds := []Message{
				e.send(0, room, "@"+e.Users[min(1, len(e.Users)-1)].Username+" notes "+e.Marker()),
				e.send(0, room, "fixes #42 notes "+e.Marker()),
				e.send(0, room, "see https://example.com/Notes/"+e.Marker()+" notes"),
				// The body's optional field, each way: what a send carries
				// besides its text is not metadata.
				e.sendBody(0, room, map[string]any{"text": "notes, said plainly " + e.Marker(), "status": false}),
				e.sendBody(0, room, map[string]any{"text": "notes as a status " + e.Marker(), "status": true}),
			}
			listed := e.list(0, room, q("limit", "20"))
			e.verifies("MSG-LIST", func() { e.Expect(listed).NotTo(BeEmpty(), "the room lists no message after one was sent") })
			var found []Message // search results are messages too, with meta empty
			e.glance(0, messagesPath(room), q("q", "notes", "limit", "10"), &found)
			edited := e.edit(0, room, m.ID, text+" (edited)") // and an edited message
			e.verifies("MSG-META-EMPTY", func() {
				for _, got := range append(append(append([]Message{m, e.getMessage(0, room, m.ID), edited}, kinds...), listed...), found...) {
					e.Expect(got.Meta).To(BeEmpty(), "meta of %s", got.ID)
				}
			})
		})

		d.it("never sends gv, at any depth of any response", reqs("MSG-NO-GV"), func(e *Env) {
			room := e.writeRoom()
			text, word := e.text()
			var m Message
			sent := e.call(0, client.Request{Method: "POST", Path: messagesPath(room), Body: map[string]string{"text": text}})
			e.step("MSG-SEND-200", func() { e.expectOK(sent, &m) })
			var sentBody any
			e.Expect(sent.JSON(&sentBody)).To(Succeed())
			e.Expect(pathsOfKey(sentBody, "gv", "$")).To(BeEmpty(), "%s", explain(sent, "carries gv"))
			for _, req := range []client.Request{
				{Method: "GET", Path: "/v1/user"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/rooms"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/channels"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/orgs"},
				{Method: "GET", Path: "/v1/user/" + e.me(0) + "/repos"},
				{Method: "GET", Path: messagesPath(room), Query: q("limit", "20")},
				{Method: "GET", Path: messagesPath(room), Query: q("q", word)},
				{Method: "GET", Path: messagesPath(room) + "/" + m.ID},
				{Method: "PUT", Path: messagesPath(room) + "/" + m.ID, Body: map[string]string{"text": text + " (edited)"}},
			} {
				resp := e.call(0, req)
				e.expectSuccess(resp)
				var body any
				e.decode(resp, &body)
				e.Expect(pathsOfKey(body, "gv", "$")).To(BeEmpty(), "%s", explain(resp, "carries gv"))
			}
		})
	})

	Describe("GET requests", func() {
		d.it("read without changing unread state, read counts or versions", reqs("HTTP-GET-SAFE"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			word := e.word()
			text, _ := e.text()
			prevText, _ := e.text()
			prev := e.send(1, room, prevText)
			m := e.send(1, room, text+" "+word+" @"+e.Users[0].Username) // unread chat and an unread mention of user 1
			nextText, _ := e.text()
			next := e.send(1, room, nextText) // so that a beforeId page holds m
			e.step("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) { g.Expect(e.unread(0, room).Chat).To(ContainElement(m.ID)) })
			})
			mentioned := slices.Contains(e.unread(0, room).Mention, m.ID) // UNREAD-MENTION's checks judge whether it must be
			before := e.getMessage(1, room, m.ID)
			e.seen(0, room, m.ID) // how soon user 1 sees it is not stated
			count := func() *int {
				for _, rm := range e.rooms(0, "rooms") {
					if rm.ID == room {
						return rm.UnreadItems
					}
				}
				return nil
			}
			// User 1's unread messages in the other described rooms, which
			// no read may mark either (read only: nothing is sent there).
			elsewhere := map[string][]string{}
			for _, other := range e.otherRooms() {
				var un Unread
				if e.glance(0, unreadPath(e.me(0), other), nil, &un) && len(un.Chat) > 0 {
					elsewhere[other] = un.Chat
				}
			}
			for range 2 {
				e.getMessage(0, room, m.ID)
				// Every way to read a page that holds it: each cursor,
				// skip, and no parameter at all.
				e.list(0, room, q("aroundId", m.ID, "limit", "5"))
				e.list(0, room, q("beforeId", next.ID, "limit", "5"))
				e.list(0, room, q("afterId", prev.ID, "limit", "5"))
				e.list(0, room, q("skip", "1", "limit", "5"))
				e.list(0, room, q("limit", "50"))
				e.list(0, room, nil)
				var found []Message // a search that finds it (search itself is judged elsewhere)
				e.glance(0, messagesPath(room), q("q", word, "limit", "10"), &found)
				e.rooms(0, "rooms")
				e.roomsElsewhere(0)
				e.unread(0, room)
			}
			// Each state is read again before a change is blamed on the
			// reads: an answer that is wrong one time in a few is its own
			// requirement's breach (see steady).
			e.Expect(e.steady("UNREAD-CHAT", "user 1's unread chat", func() bool { return slices.Contains(e.unread(0, room).Chat, m.ID) })).
				To(BeTrue(), "reading the message marked it read for user 1")
			if mentioned {
				e.Expect(e.steady("UNREAD-MENTION", "user 1's unread mentions", func() bool { return slices.Contains(e.unread(0, room).Mention, m.ID) })).
					To(BeTrue(), "reading marked the unread mention read for user 1")
			}
			e.Expect(e.steady("UNREAD-FLAG", "the unread flag of a message user 1 has not read", func() bool { return e.getMessage(0, room, m.ID).Unread })).
				To(BeTrue(), "reading the message cleared user 1's unread flag")
			var after Message
			e.Expect(e.steady("MSG-EDIT-V-INC", "a message's v", func() bool { after = e.getMessage(1, room, m.ID); return after.V == before.V })).
				To(BeTrue(), "reading the message changed its version from %d to %d", before.V, after.V)
			e.Expect(e.steady("UNREAD-READBY", "a message's readBy", func() bool { after = e.getMessage(1, room, m.ID); return after.ReadBy == before.ReadBy })).
				To(BeTrue(), "reading the message changed readBy from %d to %d", before.ReadBy, after.ReadBy)
			for other, ids := range elsewhere {
				e.Expect(e.steady("UNREAD-CHAT", "user 1's unread chat", func() bool {
					var un Unread
					if !e.glance(0, unreadPath(e.me(0), other), nil, &un) {
						return true // a list that cannot be read now is its own checks' to judge
					}
					return !slices.ContainsFunc(ids, func(id string) bool { return !slices.Contains(un.Chat, id) })
				})).To(BeTrue(), "after user 1's reads (lists, pages, searches), user 1's unread messages %v of room %s are no longer all listed: a read marked them read", ids, other)
			}
			if len(elsewhere) == 0 {
				e.by("user 1 has no unread message in another described room: what reads do there is not looked at")
			}
			if c := count(); c != nil {
				e.Expect(e.steady("UNREAD-ROOM-COUNTS", "the room's unreadItems", func() bool { c := count(); return c == nil || *c > 0 })).
					To(BeTrue(), "the room counts no unread message for user 1 after reads, though %s is unread", m.ID)
			}
		})
	})
}

// pathsOfKey lists the JSON paths at which key occurs in a decoded body.
func pathsOfKey(v any, key, at string) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if k == key {
				out = append(out, at+"."+k)
			}
			out = append(out, pathsOfKey(child, key, at+"."+k)...)
		}
	case []any:
		for i, child := range t {
			out = append(out, pathsOfKey(child, key, fmt.Sprintf("%s[%d]", at, i))...)
		}
	}
	return out
}

func versioningSpecs(d decl) {
	Describe("PUT /v1/rooms/{roomId}/chatMessages/{chatMessageId}", func() {
		d.it("answers the updated message with the new text, editedAt set and v raised by one, and keeps the last text", reqs("MSG-EDIT", "MSG-EDIT-EDITEDAT", "MSG-EDIT-V-INC", "MSG-EDIT-PERSISTED"), func(e *Env) {
			room := e.writeRoom()
			text, _ := e.text()
			m := e.send(0, room, text)
			sentAt := e.now()
			newer, _ := e.text()
			e.send(0, room, newer) // the edited message is not the newest one
			newText := text + " (edited 🎉 ünïcödé)"
			edited := e.edit(0, room, m.ID, newText)
			e.verifies("MSG-EDIT", func() {
				e.Expect(edited.ID).To(Equal(m.ID), "the edit answered another message")
				e.Expect(edited.Text).To(Equal(newText))
			})
			e.verifies("MSG-EDIT-V-INC", func() { e.Expect(edited.V).To(Equal(2), "v after one edit") })
			e.verifies("MSG-EDIT-EDITEDAT", func() {
				e.Expect(edited.EditedAt).NotTo(BeNil(), "editedAt after an edit")
				if e.parseTime(*edited.EditedAt).After(e.parseTime(m.Sent)) {
					return
				}
				// The edit came a few milliseconds after the send: timestamps
				// to the second (or a coarse clock) may show the same time.
				// An edit more than a second later must show a later one.
				e.by("editedAt is not later than sent: editing again more than a second after the send")
				e.waitUntil(sentAt.Add(1100 * time.Millisecond))
				newText = text + " (edited twice)"
				again := e.edit(0, room, m.ID, newText)
				e.Expect(again.EditedAt).NotTo(BeNil(), "editedAt after a second edit")
				e.Expect(e.parseTime(*again.EditedAt)).To(BeTemporally(">", e.parseTime(m.Sent)),
					"editedAt %s of an edit made more than a second after the message was sent (sent %s) is not later than sent: it is not the time of the edit", *again.EditedAt, m.Sent)
				edited = again
			})
			e.verifies("MSG-EDIT-EDITEDAT", func() {
				e.by("editing again later: editedAt moves to the time of the new edit")
				prev := *edited.EditedAt
				// A short pause is enough for timestamps finer than a second; a
				// server that shows the same time after it gets a second more.
				for i, pause := range []time.Duration{20 * time.Millisecond, 1100 * time.Millisecond} {
					e.pause(pause)
					newText = fmt.Sprintf("%s (edited again %d)", text, i)
					next := e.edit(0, room, m.ID, newText)
					e.Expect(next.EditedAt).NotTo(BeNil(), "editedAt after a later edit")
					if e.parseTime(*next.EditedAt).After(e.parseTime(prev)) {
						return
					}
				}
				e.fail(fmt.Sprintf("editedAt stays %s through edits made more than a second apart: it is not the time of the latest edit", prev))
			})
			// What is read back is what was kept, not what the edit answered:
			// the editor, reading its own message by id, sees its last text.
			e.verifies("MSG-EDIT-PERSISTED", func() {
				e.Expect(e.getMessage(0, room, m.ID).Text).To(Equal(newText), "the text of the last edit, read back by id by its editor")
			})
		})

		d.it("changes only the edited message, and only its text, editedAt, v and what is derived from the text", reqs("MSG-EDIT-PERSISTED", "MSG-SEND-EDITEDAT-NULL"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			priorText, _ := e.text()
			prior := e.send(0, room, priorText) // older than m, never edited
			text, _ := e.text()
			m := e.sendBody(0, room, map[string]any{"text": text, "status": true}) // a status update must stay one
			otherText, _ := e.text()
			other := e.send(0, room, otherText) // newer than m: a lazy server edits the newest message
			before := e.seen(1, room, m.ID)     // read before the edit too: the edit must show, whatever was read before
			otherBefore := e.seen(1, room, other.ID)
			edited := e.edit(0, room, m.ID, text+" (edited)")

			e.by("reading both messages back as user 2")
			e.verifies("MSG-EDIT-PERSISTED", func() {
				var got Message
				e.eventually(func(g Gomega) { // how soon another user sees a write is not shown
					got = e.peek(g, 1, room, m.ID)
					g.Expect(got.Text).To(Equal(text+" (edited)"), "user 2 does not see the edit")
				})
				// What the edit answered is what is stored; whether it raised
				// v by one is MSG-EDIT-V-INC's, judged by its own checks.
				e.Expect(got.V).To(Equal(edited.V), "user 2 sees v %d; the edit answered v %d", got.V, edited.V)
				e.Expect(got.EditedAt).NotTo(BeNil(), "user 2 sees no editedAt after the edit")
				e.Expect(got.Sent).To(Equal(before.Sent), "the edit changed sent")
				e.Expect(got.FromUser.ID).To(Equal(before.FromUser.ID), "the edit changed fromUser")
				if isTrue(m.Status) {
					e.Expect(isTrue(got.Status)).To(BeTrue(), "the edit turned a status update into a plain message")
				}
				untouched := e.seen(1, room, other.ID)
				e.Expect(untouched.Text).To(Equal(otherText), "editing %s changed another message, %s", m.ID, other.ID)
				e.Expect(untouched.V).To(Equal(otherBefore.V), "editing %s changed the v of another message, %s", m.ID, other.ID)
				e.Expect(untouched.EditedAt).To(Equal(otherBefore.EditedAt), "editing %s changed the editedAt of another message, %s", m.ID, other.ID)
			})
			e.verifies("MSG-SEND-EDITEDAT-NULL", func() {
				e.Expect(e.seen(1, room, prior.ID).EditedAt).To(BeNil(), "editing %s set editedAt on %s, an older message never edited", m.ID, prior.ID)
			})
		})

		d.it("raises v by exactly one on every edit, and stores the result", reqs("MSG-EDIT-V-INC", "MSG-EDIT-PERSISTED"), func(e *Env) {
			room := e.writeRoom()
			text, _ := e.text()
			m := e.send(0, room, text)
			newerText, _ := e.text()
			newer := e.send(0, room, newerText) // to find m in a list by without aroundId
			var last Message
			for i := 2; i <= 5; i++ {
				e.by("edit number " + string(rune('0'+i-1)))
				last = e.edit(0, room, m.ID, text+" v"+string(rune('0'+i)))
				e.verifies("MSG-EDIT-V-INC", func() { e.Expect(last.V).To(Equal(i), "v after %d edits", i-1) })
			}
			e.verifies("MSG-EDIT-PERSISTED", func() {
				got := e.getMessage(0, room, m.ID)
				e.Expect(got.V).To(Equal(5), "v read back after 4 edits")
				e.Expect(got.Text).To(Equal(last.Text), "text read back after 4 edits")
				e.Expect(got.EditedAt).NotTo(BeNil(), "editedAt read back after 4 edits")
				l := e.listedAs(0, room, m.ID, newer.ID)
				e.Expect(l.V).To(Equal(5), "v in the list")
				e.Expect(l.Text).To(Equal(last.Text), "text in the list")
				e.Expect(l.EditedAt).NotTo(BeNil(), "editedAt in the list after 4 edits")
			})
		})

		d.it("ends concurrent edits with v = 1 + the number of successful edits", reqs("MSG-EDIT-V-INC"), func(e *Env) {
			room := e.writeRoom()
			text, _ := e.text()
			m := e.send(0, room, text)
			const workers, each = 4, 5
			done := make(chan int, workers)
			for w := range workers {
				go func() {
					ok := 0
					defer func() { done <- ok }()
					defer func() { e.t.Recovered(recover()) }()
					for i := range each {
						resp, err := e.Client.Do(e.ctx, client.Request{Method: "PUT", Path: messagesPath(room) + "/" + m.ID,
							Token: e.Users[0].Token, Body: map[string]string{"text": text + " w" + string(rune('a'+w)) + string(rune('a'+i))}})
						if err == nil && resp.Status == 200 {
							ok++
						}
					}
				}()
			}
			total := 0
			for range workers {
				total += <-done
			}
			e.Expect(total).To(BeNumerically(">", 0), "no concurrent edit succeeded")
			e.Expect(e.getMessage(0, room, m.ID).V).To(Equal(1+total), "%d edits succeeded", total)
		})
	})
}

// orNull shows an optional time as JSON would: its value, or null.
func orNull(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
