package conformance

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Core pagination checks never assume an order or a default the document
// does not state. Every window they read is bounded by beforeId at a message
// sent after the seeded ones, so traffic from other specs, processes or
// clients cannot shift it; and they judge sets and sent times, not positions.

func paginationSpecs(d decl) {
	Describe("GET /v1/rooms/{roomId}/chatMessages pagination", func() {
		d.long().table("walks 250 messages with beforeId: no page too long, no duplicate, no gap, and the walk ends", Label(),
			func(e *Env, p any) {
				limit := p.(int)
				{
					room := e.writeRoom()
					seeded := e.seed(0, room, 250)
					want := idSet(seeded)
					firstSent := e.parseTime(seeded[0].Sent)

					e.by("walking pages by the document's recipe")
					// What is certainly newer than a cursor: our own later
					// messages (we sent them one after another) and messages
					// sent at a later time. Messages tied with the cursor in
					// time, which we did not send, may come again on the next
					// page: neither position nor a tied timestamp tells
					// whether the server counts them older.
					order := newKnownOrder(seeded)
					seen := map[string]bool{}
					var cursor *Message
					short := false                            // the walk ended on a page shorter than limit
					e.verifies("PAGE-BEFOREID-WALK", func() { // a repeat, a newer message or no end is the walk's
						page := e.list(0, room, q("limit", strconv.Itoa(limit)))
						for pages := 1; ; pages++ {
							e.verifies("PAGE-LIMIT", func() {
								e.Expect(len(page)).To(BeNumerically("<=", limit), "page %d holds %d messages", pages, len(page))
							})
							reachedOlder := false
							inPage := map[string]bool{}
							for _, m := range page {
								e.Expect(inPage).NotTo(HaveKey(m.ID), "message %s came twice in page %d", m.ID, pages)
								inPage[m.ID] = true
								if cursor != nil && (m.ID == cursor.ID || order.older(*cursor, m)) {
									e.fail(fmt.Sprintf("page %d (beforeId=%s) holds %s, which is the cursor or newer than it: the walk would repeat messages", pages, cursor.ID, m.ID))
								}
								seen[m.ID] = true
								if e.parseTime(m.Sent).Before(firstSent) {
									reachedOlder = true
								}
							}
							if len(page) < limit || reachedOlder || len(seen) >= len(want) && allSeen(want, seen) {
								short = len(page) < limit
								break // walked past our oldest message, or the room's history ended
							}
							e.Expect(pages).To(BeNumerically("<", 2000), "the walk does not end")
							c := order.oldest(page)
							cursor = &c
							page = e.list(0, room, q("limit", strconv.Itoa(limit), "beforeId", c.ID))
						}
					})
					missing := 0
					for id := range want {
						if !seen[id] {
							missing++
						}
					}
					// A page of 100 short of what the room still holds breaks the
					// statement about limit=100 itself; any other gap, the walk's.
					req := "PAGE-BEFOREID-WALK"
					if short && limit == 100 && missing > 0 {
						req = "LIMIT-100"
						e.verifies("PAGE-BEFOREID-WALK", func() {}) // its rules held: a short page ends a walk
					}
					e.verifies(req, func() {
						e.Expect(missing).To(BeZero(), "%d of our 250 messages were never on a page (the walk ended on a page shorter than limit: %v)", missing, short)
					})
				}
			},
			d.entry("limit 50", reqs("PAGE-BEFOREID-WALK", "PAGE-LIMIT"), 50),
			d.entry("limit 100", reqs("PAGE-BEFOREID-WALK", "PAGE-LIMIT", "LIMIT-100"), 100),
		)

		d.it("answers no newer message for beforeId at the oldest message of a room, its neighbours for afterId and aroundId there, and nothing for a skip past its end", reqs("PAGE-BEFOREID-WALK", "PAGE-BEFOREID", "PAGE-AFTERID", "PAGE-AROUNDID", "PAGE-SKIP"), func(e *Env) {
			// The walk ends on a page shorter than limit, or an empty one: a
			// server that answers the newest page again never lets it end.
			// Read only: the first described room whose history is short
			// enough to walk to its start.
			for _, room := range []string{e.Target.Rooms.OneToOne, e.Target.Rooms.Channel, e.Target.Rooms.Repo, e.Target.WriteRoom, e.Target.Rooms.Org} {
				if room == "" || room == e.Target.HideRoom {
					continue
				}
				// In the write room, beside other checks, the walk and the
				// reads after it are made with their writes held back: the
				// skip past the end needs a room that did not move.
				judged := false
				judge := func() { judged = e.judgeRoomStart(room) }
				if room == e.Target.WriteRoom {
					e.quietly(judge)
				} else {
					judge()
				}
				if judged {
					return
				}
			}
			e.skip("no room the description names has fewer than 2,000 messages to walk back to its start")
		})

		d.it("keeps a page to a small limit", reqs("PAGE-LIMIT"), func(e *Env) {
			room := e.writeRoom()
			word := e.word()
			seeded := e.seed(0, room, 5)
			for range 4 { // messages a search finds
				text, _ := e.text()
				e.send(0, room, text+" "+word)
			}
			for _, limit := range []string{"1", "3"} {
				page := e.list(0, room, q("limit", limit))
				n, _ := strconv.Atoi(limit)
				e.Expect(len(page)).To(BeNumerically("<=", n), "limit=%s returned %d messages", limit, len(page))
				e.Expect(page).NotTo(BeEmpty(), "limit=%s returned nothing from a room with messages", limit)
				// The limit holds with a cursor and in a search too.
				e.Expect(len(e.list(0, room, q("afterId", seeded[0].ID, "limit", limit)))).To(BeNumerically("<=", n), "afterId with limit=%s returned more messages", limit)
				var found []Message
				if e.glance(0, messagesPath(room), q("q", word, "limit", limit), &found) {
					e.Expect(len(found)).To(BeNumerically("<=", n), "a search with limit=%s found %d messages", limit, len(found))
				}
			}
		})

		d.it("returns only older messages for beforeId and newer ones for afterId", reqs("PAGE-BEFOREID", "PAGE-AFTERID"), func(e *Env) {
			room := e.writeRoom()
			seeded := e.seed(0, room, 12)
			pivot := seeded[5]
			pivotSent := e.parseTime(pivot.Sent)
			e.verifies("PAGE-BEFOREID", func() {
				before := e.list(0, room, q("beforeId", pivot.ID, "limit", "5"))
				e.Expect(before).NotTo(BeEmpty(), "beforeId=%s with five older messages of ours returned nothing", pivot.ID)
				e.Expect(idsOf(before)).NotTo(ContainElement(BeElementOf(idsOf(seeded[5:]))), "beforeId=%s returned the cursor or a message sent after it", pivot.ID)
				for _, m := range before {
					e.Expect(e.parseTime(m.Sent)).NotTo(BeTemporally(">", pivotSent), "beforeId returned a newer message %s", m.ID)
				}
			})
			e.verifies("PAGE-AFTERID", func() {
				after := e.list(0, room, q("afterId", pivot.ID, "limit", "100"))
				e.Expect(after).NotTo(BeEmpty(), "afterId=%s with six newer messages of ours returned nothing", pivot.ID)
				e.Expect(idsOf(after)).NotTo(ContainElement(BeElementOf(idsOf(seeded[:6]))), "afterId=%s returned the cursor or a message sent before it", pivot.ID)
				for _, m := range after {
					e.Expect(e.parseTime(m.Sent)).NotTo(BeTemporally("<", pivotSent), "afterId returned an older message %s", m.ID)
				}
				if len(after) < 100 { // a short page holds every newer message, so ours must be there
					e.Expect(idsOf(after)).To(ContainElements(idsOf(seeded[6:])), "afterId left out newer messages")
				}
			})
		})

		d.it("answers aroundId with a window around the anchor, anchor included", reqs("PAGE-AROUNDID"), func(e *Env) {
			room := e.writeRoom()
			const limit = 6
			// The first anchor sits among 25 messages of ours, 8 older and 16
			// newer: the newest page and the oldest page both miss it, and it
			// is off the middle, so a window placed at its position counted
			// from the other end is far from it even when the room holds only
			// ours. The others are off the middle too, and far from the
			// newest page.
			seeded := e.seed(0, room, 25)
			position := map[string]int{}
			for i, m := range seeded {
				position[m.ID] = i
			}
			// Five anchors, each a window of its own: a server that answers
			// one aroundId read in a few wrongly meets one of them.
			for _, anchor := range []int{8, 4, 6, 10, 12} {
				around := e.list(0, room, q("aroundId", seeded[anchor].ID, "limit", strconv.Itoa(limit)))
				e.Expect(idsOf(around)).To(ContainElement(seeded[anchor].ID), "aroundId=%s did not include the anchor", seeded[anchor].ID)
				e.Expect(len(around)).To(BeNumerically("<=", limit), "aroundId with limit %d returned %d messages", limit, len(around))
				neighbours := 0
				for _, m := range around {
					if i, ours := position[m.ID]; ours {
						e.Expect(i-anchor).To(BeNumerically("~", 0, limit), "aroundId=%s (limit %d) returned a message %d places away", seeded[anchor].ID, limit, i-anchor)
						if i != anchor {
							neighbours++
						}
					} else if e.Beside {
						// The checks running beside this one may have sent
						// between our messages: any message but the anchor is
						// one around it then (a message of ours within limit
						// places of it in the room is still within limit places
						// of it among ours).
						neighbours++
					}
				}
				e.Expect(neighbours).To(BeNumerically(">", 0), "aroundId=%s with limit %d returned the anchor without any message around it", seeded[anchor].ID, limit)
			}

			e.by("and around an anchor older than the newest 100 messages of a room (read only)")
			if deep, deepRoom, ok := e.deepMessage(); ok {
				around := e.list(0, deepRoom, q("aroundId", deep.ID, "limit", strconv.Itoa(limit)))
				e.Expect(idsOf(around)).To(ContainElement(deep.ID), "aroundId=%s, older than the newest 100 messages of room %s, did not include the anchor", deep.ID, deepRoom)
			}
		})

		d.it("leaves skip messages out of a window", reqs("PAGE-SKIP"), func(e *Env) {
			room := e.writeRoom()
			e.seed(0, room, 30)
			anchor := e.send(0, room, "anchor "+e.Marker()).ID
			// The window before the anchor can still move: another user's
			// message sent before the anchor may reach user 1's pages up to
			// --eventually late (beside other checks, while they write). The
			// three reads are judged together once the window read after
			// them is the one read before them; beside other checks they
			// are made with the others' writes held back.
			var full, skipped, dropped []Message
			stood, judged := false, false
			e.quietly(func() {
				until := e.now().Add(e.Eventually)
				for try := 0; !stood && (try < 3 || e.now().Before(until)); try++ {
					if try > 0 {
						e.pause(100 * time.Millisecond)
					}
					full = e.list(0, room, q("beforeId", anchor, "limit", "25"))
					skipped = e.list(0, room, q("beforeId", anchor, "limit", "20", "skip", "5"))
					dropped = e.list(0, room, q("beforeId", anchor, "limit", "5"))
					stood = sameIDs(full, e.list(0, room, q("beforeId", anchor, "limit", "25")))
				}
			})
			if !stood && e.Beside {
				e.by("the window before the anchor kept moving after --eventually, with the run's other checks held back: the window is left unjudged")
			} else {
				e.Expect(full).To(HaveLen(25))
				e.Expect(skipped).To(HaveLen(20))
				all := idSet(full)
				for _, m := range skipped {
					e.Expect(all).To(HaveKey(m.ID), "skip=5 limit=20 returned %s, outside the 25 messages of the same window", m.ID)
				}
				gone := idSet(dropped)
				for _, m := range skipped {
					e.Expect(gone).NotTo(HaveKey(m.ID), "skip=5 returned %s, one of the 5 messages it should leave out", m.ID)
				}
				judged = true
			}

			e.by("skipping in a plain page, which holds the newest messages")
			// Without a cursor the page is the newest messages (the recipe
			// walks back from it), so skip=5 limit=20 is the newest 25 with
			// the newest 5 left out. Other traffic may move the newest end
			// between the reads: the reads are repeated until it stands
			// still, and beside other checks they are made with the others'
			// writes held back.
			still := false
			e.quietly(func() {
				for try := 1; try <= 3 && !still; try++ {
					top := e.list(0, room, q("limit", "1"))
					full = e.list(0, room, q("limit", "25"))
					skipped = e.list(0, room, q("limit", "20", "skip", "5"))
					dropped = e.list(0, room, q("limit", "5"))
					still = sameIDs(top, e.list(0, room, q("limit", "1")))
				}
			})
			if !still && e.Beside { // another client of the server kept writing
				e.by("the newest end of the room kept moving, with the run's other checks held back: the plain page is left unjudged")
				if !judged {
					e.entry(EntryNotApplied, "PAGE-SKIP\nthe room kept moving on every read, beside the run's other checks: no window stood still to judge skip in")
				}
				return
			}
			e.Expect(skipped).To(HaveLen(20), "skip=5 limit=20 in a room of more than 25 messages")
			all, gone := idSet(full), idSet(dropped)
			for _, m := range skipped {
				e.Expect(all).To(HaveKey(m.ID), "skip=5 limit=20 without a cursor returned %s, which is not among the newest 25 messages", m.ID)
				e.Expect(gone).NotTo(HaveKey(m.ID), "skip=5 limit=20 without a cursor returned %s, one of the 5 newest messages it should leave out", m.ID)
			}
		})
	})
}

func limitSpecs(d decl) {
	Describe("GET /v1/rooms/{roomId}/chatMessages limits", func() {
		d.it("honours limit=100 with a full page when more messages exist", reqs("LIMIT-100"), func(e *Env) {
			room := e.writeRoom()
			e.seed(0, room, 110)
			anchor := e.send(0, room, "anchor "+e.Marker()).ID
			// The same page with a small limit first: a server that answers
			// it and refuses limit=100 refuses the limit (LIMIT-100's), not
			// the cursor.
			e.list(0, room, q("beforeId", anchor, "limit", "10"))
			e.Expect(e.listAs("LIMIT-100", 0, room, q("beforeId", anchor, "limit", "100"))).To(HaveLen(100))
		})

		d.it("never returns more than 100 messages, whatever limit asks for", reqs("LIMIT-CAP"), func(e *Env) {
			room := e.writeRoom()
			// The messages share a word, so that a search finds more than
			// a page too: the cap holds in every way of listing.
			word := e.word()
			e.by("sending 105 messages of our own that share a word")
			seeded := make([]Message, 105)
			for i := range seeded {
				t, _ := e.text()
				seeded[i] = e.send(0, room, t+" "+word)
			}
			anchor := e.send(0, room, "anchor "+e.Marker()).ID
			answered := 0
			// Values at the edges of the integer widths a server may store
			// limit in too: one that wraps to zero or below must not mean
			// "no limit".
			for _, query := range []url.Values{q("limit", "101"), q("limit", "150"), q("limit", "1000"),
				q("limit", "2147483647"), q("limit", "2147483648"), q("limit", "4294967296"), q("limit", "4294967297"), q("limit", "9223372036854775807"), q("limit", "18446744073709551616"),
				q("beforeId", anchor, "limit", "150"),
				q("aroundId", seeded[50].ID, "limit", "150"), q("afterId", seeded[0].ID, "limit", "150"), q("skip", "1", "limit", "150"), q("q", word, "limit", "150")} {
				limit := query.Encode()
				resp := e.call(0, requestList(room, query))
				if resp.Status >= 300 { // how a limit above 100 is answered is not shown
					e.by(limit + " refused with " + strconv.Itoa(resp.Status))
					continue
				}
				var ms []Message
				e.expectOK(resp, &ms)
				e.Expect(len(ms)).To(BeNumerically("<=", 100), "%s returned %d messages", limit, len(ms))
				answered++
			}
			if answered == 0 {
				e.entry(EntryNotApplied, "LIMIT-CAP\nevery list with a limit above 100 was refused: no page to hold to the cap")
			}
		})

		d.it("accepts skip=5000, and does not ignore it", reqs("LIMIT-SKIP-5000"), func(e *Env) {
			room := e.Target.Rooms.Org // the longest history a description names; only read
			if room == "" || room == e.Target.HideRoom {
				room = e.writeRoom()
			}
			// The newest page first: a server that answers it and refuses
			// skip=5000 refuses the skip (LIMIT-SKIP-5000's), not the list.
			newest := e.list(0, room, q("limit", "10"))
			skipped := e.skipPage(room, "5000")
			e.Expect(len(skipped)).To(BeNumerically("<=", 10))
			// Asked again: the bound holds on every ask, not on one in two.
			e.skipPage(room, "5000")
			if len(skipped) < 10 {
				// A short page is right only in a room of fewer than 5,010
				// messages: count them (reading at most that many).
				e.by("skip=5000 answered a short page: counting the room's messages up to 5,010")
				n, _ := e.walkBack(room, 5010, 80)
				e.Expect(n).To(BeNumerically("<", 5010), "skip=5000 limit=10 answered %d messages in a room of at least 5,010", len(skipped))
				return
			}
			// A full page means the room holds over 5,000 messages. Whichever end
			// skip counts from, the pages at skip 4999 and 5000 then differ, and
			// neither is the newest page; a server that ignores skip answers the
			// newest page all three times.
			if sameIDs(skipped, newest) {
				e.Expect(sameIDs(e.skipPage(room, "4999"), skipped)).To(BeFalse(), "skip=5000 and skip=4999 both answered the newest page: skip is ignored")
			}
		})
	})
}

// walkBack walks room from its newest page back with beforeId, by pages
// of 100, until it has seen want distinct messages, the room ends, or
// maxPages pages were read. It returns how many distinct messages it saw
// and the pages in the order read. The cursor is the oldest message of a
// page by sent time, then id; where timestamps tie and ids do not sort, a
// page may repeat messages, which are counted once.
func (e *Env) walkBack(room string, want, maxPages int) (int, [][]Message) {
	GinkgoHelper()
	seen := map[string]bool{}
	var pages [][]Message
	page := e.list(0, room, q("limit", "100"))
	for {
		pages = append(pages, page)
		for _, m := range page {
			seen[m.ID] = true
		}
		if len(seen) >= want || len(page) < 100 || len(pages) >= maxPages {
			return len(seen), pages
		}
		page = e.list(0, room, q("beforeId", oldest(page).ID, "limit", "100"))
	}
}

func (e *Env) skipPage(room, skip string) []Message {
	GinkgoHelper()
	return e.listAs("LIMIT-SKIP-5000", 0, room, q("skip", skip, "limit", "10"))
}

func allSeen(want, seen map[string]bool) bool {
	for id := range want {
		if !seen[id] {
			return false
		}
	}
	return true
}

// knownOrder is what a check knows for certain about the age of messages:
// the order in which it sent its own (each send answered before the next
// went out), and sent times where they differ. Position in a page is not
// part of it (order within a page is left open), and neither are ids.
type knownOrder struct {
	ours []Message
	rank map[string]int
}

func newKnownOrder(ours []Message) knownOrder {
	o := knownOrder{ours: ours, rank: make(map[string]int, len(ours))}
	for i, m := range ours {
		o.rank[m.ID] = i
	}
	return o
}

// older reports whether a is certainly older than b.
func (o knownOrder) older(a, b Message) bool {
	ra, okA := o.rank[a.ID]
	rb, okB := o.rank[b.ID]
	if okA && okB {
		return ra < rb
	}
	return parseSent(a.Sent).Before(parseSent(b.Sent))
}

// oldest picks the oldest message of a page, as the pagination recipe
// asks, from what is certain: of the messages nothing in the page is known
// to be older than, the earliest of ours if any, else the earliest by sent
// time, then id (a choice among ties, which the walk tolerates).
func (o knownOrder) oldest(page []Message) Message {
	var candidates []Message
	for _, m := range page {
		if !slices.ContainsFunc(page, func(x Message) bool { return o.older(x, m) }) {
			candidates = append(candidates, m)
		}
	}
	best, bestRank := -1, len(o.ours)
	for i, m := range candidates {
		if r, ok := o.rank[m.ID]; ok && r < bestRank {
			best, bestRank = i, r
		}
	}
	if best >= 0 {
		return candidates[best]
	}
	return oldest(candidates)
}

func sameIDs(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	in := idSet(a)
	for _, m := range b {
		if !in[m.ID] {
			return false
		}
	}
	return true
}

// sortedIDs are the ids of a page, sorted: two pages hold the same
// messages when these are equal, whatever order each was written in.
func sortedIDs(ms []Message) []string {
	ids := idsOf(ms)
	slices.Sort(ids)
	return ids
}

// judgeRoomStart walks room back to its start and judges the cursors and a
// skip at its oldest message (see the check that calls it); false when the
// room is empty or longer than 2,000 messages, and nothing was judged.
func (e *Env) judgeRoomStart(room string) bool {
	GinkgoHelper()
	_, pages := e.walkBack(room, math.MaxInt, 20)
	if len(pages[len(pages)-1]) == 100 {
		return false // longer than 2,000 messages
	}
	last := pages[len(pages)-1]
	if len(last) == 0 {
		if len(pages) == 1 {
			return false // an empty room
		}
		last = pages[len(pages)-2]
	}
	cursor := oldest(last)
	// Every message seen is newer than the cursor, but those sent at
	// the same time, which ids alone may not order.
	newer := map[string]bool{}
	for _, p := range pages {
		for _, m := range p {
			if !parseSent(m.Sent).Equal(parseSent(cursor.Sent)) {
				newer[m.ID] = true
			}
		}
	}
	before := e.list(0, room, q("beforeId", cursor.ID, "limit", "100"))
	e.verifies("PAGE-BEFOREID-WALK", func() {
		for _, m := range before {
			e.Expect(newer).NotTo(HaveKey(m.ID), "beforeId=%s, the oldest message of room %s, answered %s, a message of a newer page: the walk would never end", cursor.ID, room, m.ID)
		}
	})
	e.verifies("PAGE-BEFOREID", func() { // at the edge too, the cursor is not older than itself
		e.Expect(idsOf(before)).NotTo(ContainElement(cursor.ID), "beforeId=%s, the oldest message of room %s, answered that message itself", cursor.ID, room)
	})
	// The other cursors at the same edge: the oldest message has
	// newer neighbours, which afterId answers, and aroundId holds
	// the anchor with them.
	after := e.list(0, room, q("afterId", cursor.ID, "limit", "5"))
	e.verifies("PAGE-AFTERID", func() {
		e.Expect(idsOf(after)).NotTo(ContainElement(cursor.ID), "afterId=%s, the oldest message of room %s, answered that message itself", cursor.ID, room)
		if len(newer) > 0 {
			e.Expect(after).NotTo(BeEmpty(), "afterId=%s, the oldest message of room %s, answered no message, though the room holds %d newer ones", cursor.ID, room, len(newer))
		}
	})
	around := e.list(0, room, q("aroundId", cursor.ID, "limit", "5"))
	e.verifies("PAGE-AROUNDID", func() {
		e.Expect(idsOf(around)).To(ContainElement(cursor.ID), "aroundId=%s, the oldest message of room %s, answered a window without it", cursor.ID, room)
	})
	// The walk counted the room's messages: skipping all of them
	// leaves nothing, from whichever end skip counts, unless a
	// message came since (the newest page tells).
	counted := map[string]bool{}
	for _, p := range pages {
		for _, m := range p {
			counted[m.ID] = true
		}
	}
	total := len(counted)
	if total > 0 && total <= 5000 {
		past := e.list(0, room, q("skip", strconv.Itoa(total), "limit", "10"))
		if slices.Equal(sortedIDs(e.list(0, room, q("limit", "100"))), sortedIDs(pages[0])) {
			var unmet []string // older messages skip reaches that the walk never met
			for _, m := range past {
				if !counted[m.ID] && !parseSent(m.Sent).After(parseSent(cursor.Sent)) {
					unmet = append(unmet, m.ID)
				}
			}
			if len(past) > 0 && len(unmet) == len(past) {
				// The ground is the walk: it ended before messages the
				// room holds (older ones, as skip counts them).
				e.verifies("PAGE-BEFOREID-WALK", func() {
					e.fail(fmt.Sprintf("walking room %s back with beforeId from its newest page ended after %d messages (its last page held %d), yet skip=%d answers messages the walk never met: %v", room, total, len(pages[len(pages)-1]), total, unmet))
				})
			}
			e.verifies("PAGE-SKIP", func() {
				e.Expect(idsOf(past)).To(BeEmpty(), "skip=%d, the number of messages a walk found in room %s (and none came since), answered messages", total, room)
			})
		}
	}
	return true
}
