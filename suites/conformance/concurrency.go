package conformance

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/client"
)

// A write answered while other writes of other kinds are under way in the
// same room must count as if it had been alone. The checks here judge the
// end state (edits last: their failure leaves nothing else unjudged);
// every answer they get on the way also goes to the history checker, which
// judges the order of versions and reads.

func concurrencySpecs(d decl) {
	Describe("Concurrent writers on one room", func() {
		d.it("keeps every write of two users working at once: sends stored, edits counted, marks read kept", reqs("MSG-SEND-STORED", "MSG-EDIT-V-INC", "UNREAD-MARK-READ"), func(e *Env) {
			e.needUsers(2)
			room := e.writeRoom()
			e.by("each user first sends three messages the other will mark read and its author will edit")
			firsts := [2][]Message{e.seed(0, room, 3), e.seed(1, room, 3)}
			e.verifies("MSG-SEND-STORED", func() {
				for u, mine := range firsts {
					for _, m := range mine {
						e.eventually(func(g Gomega) { e.peek(g, 1-u, room, m.ID) })
					}
				}
			})
			e.step("UNREAD-CHAT", func() {
				e.eventually(func(g Gomega) {
					g.Expect(e.unread(0, room).Chat).To(ContainElements(idsOf(firsts[1])))
					g.Expect(e.unread(1, room).Chat).To(ContainElements(idsOf(firsts[0])))
				})
			})

			e.by("then both users at once, each with three writers: 6 sends, 2 edits of each of its three messages, and marking the other's three read one by one")
			var results [2]*writes
			var wg sync.WaitGroup
			var texts [2][]string
			for u := range 2 {
				for range 6 {
					texts[u] = append(texts[u], "concurrent "+e.Marker())
				}
			}
			for u := range 2 {
				results[u] = &writes{edits: map[string][]Message{}}
				wg.Add(3)
				go func() { defer wg.Done(); e.concurrentSends(u, room, texts[u], results[u]) }()
				go func() { defer wg.Done(); e.concurrentEdits(u, room, firsts[u], 2, results[u]) }()
				go func() { defer wg.Done(); e.concurrentMarks(u, room, firsts[1-u], results[u]) }()
			}
			wg.Wait()
			for u, r := range results {
				if r.unusable != nil && len(r.failed) == r.unusableN {
					// Bodies that cannot be read, and nothing else, are their
					// owner's breach (a body that is not JSON: HTTP-JSON-BODY),
					// not writes lost.
					e.lacking(r.unusable.owner, fmt.Sprintf("user %d's writes went unanswered: %s", u+1, r.unusable.text))
				}
				if r.refused != "" {
					// A refused write breaks the statement of its operation
					// (a step of it, or this check's own mark read).
					e.step(r.refused, func() {
						e.fail(fmt.Sprintf("user %d's writes went unanswered: %s", u+1, strings.Join(r.failed, "; ")))
					})
				}
				if len(r.failed) > 0 {
					e.fail(fmt.Sprintf("user %d's writes went unanswered: %s", u+1, strings.Join(r.failed, "; ")))
				}
				if r.otherText != "" {
					// Which edit stands is told by the text each answered.
					e.groundBroken("MSG-EDIT", "updateChatMessage answers another text than the new one", r.otherText)
				}
			}

			e.verifies("MSG-SEND-STORED", func() {
				for u, r := range results {
					e.Expect(r.sent).To(HaveLen(6), "sends of user %d answered 200 with a message", u+1)
					for _, m := range r.sent {
						e.Expect(e.seen(u, room, m.ID).Text).To(Equal(m.Text), "message %s of user %d, sent while the other user wrote too, read back by its author", m.ID, u+1)
						e.seen(1-u, room, m.ID)
					}
				}
			})
			e.verifies("UNREAD-MARK-READ", func() {
				for u := range 2 {
					e.eventually(func(g Gomega) {
						g.Expect(e.unread(u, room).Chat).NotTo(ContainElements(idsOf(firsts[1-u])), "user %d marked these read while both users wrote, yet they are still unread", u+1)
					})
				}
			})
			e.verifies("MSG-EDIT-V-INC", func() {
				for u, r := range results {
					for _, m := range firsts[u] {
						answers := r.edits[m.ID]
						e.Expect(answers).NotTo(BeEmpty(), "no edit of message %s succeeded", m.ID)
						vs := map[int]bool{}
						highest := answers[0]
						for _, a := range answers {
							e.Expect(vs).NotTo(HaveKey(a.V), "two edits of message %s were both answered with v %d", m.ID, a.V)
							vs[a.V] = true
							if a.V > highest.V {
								highest = a
							}
						}
						e.eventually(func(g Gomega) {
							got := e.peek(g, u, room, m.ID)
							g.Expect(got.V).To(Equal(1+len(answers)), "v of message %s after %d edits made while the other user wrote", m.ID, len(answers))
							g.Expect(got.Text).To(Equal(highest.Text), "text of message %s: the edit answered with the highest v (%d) is not the one that stands", m.ID, highest.V)
						})
					}
				}
			})
		})
	})
}

// writes is what one user's concurrent writers got back.
type writes struct {
	mu     sync.Mutex
	sent   []Message
	edits  map[string][]Message // message id -> the answers to its edits
	failed []string
	// unusable is the first answer whose body could not be read, with the
	// requirement that owns its first breach of the document.
	unusable  *struct{ owner, text string }
	unusableN int // how many of failed are answers whose body could not be read
	// otherText is an edit answered with another text than the one it
	// sent (MSG-EDIT's breach), in words; "" when none was.
	otherText string
	// refused is the requirement a refused write (a status other than
	// 2xx, 429 and 503 aside) breaks, by refusalOrder: a valid send MSG-SEND-200, an
	// author's edit MSG-EDIT, a mark read UNREAD-MARK-READ; "" when none.
	refused string
}

// refusalOrder is which refused write names the requirement, first first.
var refusalOrder = []string{"MSG-SEND-200", "MSG-EDIT", "UNREAD-MARK-READ"}

func (w *writes) fail(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failed = append(w.failed, fmt.Sprintf(format, args...))
}

// do sends req as user u from a writer goroutine: no Ginkgo assertion may
// run there, so failures are collected and judged afterwards.
func (e *Env) do(u int, req client.Request, w *writes, v any) bool {
	req.Token = e.Users[u].Token
	resp, err := e.Client.Do(e.ctx, req)
	switch {
	case err != nil:
		w.fail("%s %s: %v", req.Method, req.Path, err)
		return false
	case resp.Status < 200 || resp.Status >= 300:
		text := explain(resp, fmt.Sprintf("answered %d", resp.Status))
		w.fail("%s", text)
		owner := "UNREAD-MARK-READ"
		switch {
		case req.Method == "PUT":
			owner = "MSG-EDIT"
		case strings.HasSuffix(req.Path, "/chatMessages"):
			owner = "MSG-SEND-200"
		}
		w.mu.Lock()
		// The same one whichever writer was answered first: a refused send
		// before an edit before a mark read.
		if resp.Status != http.StatusTooManyRequests && resp.Status != http.StatusServiceUnavailable &&
			(w.refused == "" || slices.Index(refusalOrder, owner) < slices.Index(refusalOrder, w.refused)) {
			w.refused = owner
		}
		w.mu.Unlock()
		return false
	}
	if v != nil {
		if owner, ok := e.decodeTolerant(resp, v); !ok {
			text := explain(resp, "body is not the JSON expected")
			w.fail("%s", text)
			w.mu.Lock()
			if w.unusable == nil {
				w.unusable = &struct{ owner, text string }{owner, text}
			}
			w.unusableN++
			w.mu.Unlock()
			return false
		}
	}
	return true
}

// concurrentSends sends texts in turn as user u. The texts are drawn
// before the writers start, so that a run's texts do not depend on which
// writer asked first (a replay of the record sends the same).
func (e *Env) concurrentSends(u int, room string, texts []string, w *writes) {
	for _, text := range texts {
		var m Message
		if e.do(u, client.Request{Method: "POST", Path: messagesPath(room), Body: map[string]string{"text": text}}, w, &m) {
			e.noteSent(u, room, m.ID)
			w.mu.Lock()
			w.sent = append(w.sent, m)
			w.mu.Unlock()
		}
	}
}

func (e *Env) concurrentEdits(u int, room string, mine []Message, times int, w *writes) {
	for i := range times {
		for _, m := range mine {
			var got Message
			text := fmt.Sprintf("%s e%d", m.Text, i+1)
			if e.do(u, client.Request{Method: "PUT", Path: messagesPath(room) + "/" + m.ID, Body: map[string]string{"text": text}}, w, &got) {
				w.mu.Lock()
				w.edits[m.ID] = append(w.edits[m.ID], got)
				if got.Text != "" && got.Text != text && w.otherText == "" {
					w.otherText = fmt.Sprintf("an edit of %s to %q answered the text %q", m.ID, text, got.Text)
				}
				w.mu.Unlock()
			}
		}
	}
}

func (e *Env) concurrentMarks(u int, room string, theirs []Message, w *writes) {
	for _, m := range slices.Backward(theirs) {
		e.do(u, client.Request{Method: "POST", Path: unreadPath(e.me(u), room), Body: map[string]any{"chat": []string{m.ID}}}, w, nil)
	}
}
