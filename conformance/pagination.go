package conformance

import (
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Core pagination checks never assume an order or a default the document
// does not state. Every window they read is bounded by beforeId at a message
// sent after the seeded ones, so traffic from other specs, processes or
// clients cannot shift it; and they judge sets and sent times, not positions.

func paginationSpecs(d decl) {
	Describe("GET /v1/rooms/{roomId}/chatMessages pagination", func() {
		d.table("walks 250 messages with beforeId: no page too long, no duplicate, no gap, and the walk ends", reqs("PAGE-BEFOREID-WALK", "PAGE-LIMIT"),
			func(e *Env, p any) {
				limit := p.(int)
				{
					room := e.writeRoom()
					seeded := e.seed(0, room, 250)
					want := idSet(seeded)
					firstSent := parseTime(seeded[0].Sent)

					By("walking pages by the document's recipe")
					seen := map[string]bool{}
					page := e.list(0, room, q("limit", strconv.Itoa(limit)))
					for pages := 1; ; pages++ {
						Expect(len(page)).To(BeNumerically("<=", limit), "page %d holds %d messages", pages, len(page))
						reachedOlder := false
						for _, m := range page {
							Expect(seen).NotTo(HaveKey(m.ID), "message %s came twice (page %d)", m.ID, pages)
							seen[m.ID] = true
							if parseTime(m.Sent).Before(firstSent) {
								reachedOlder = true
							}
						}
						if len(page) < limit || reachedOlder {
							break // walked past our oldest message, or the room's history ended
						}
						Expect(pages).To(BeNumerically("<", 2000), "the walk does not end")
						page = e.list(0, room, q("limit", strconv.Itoa(limit), "beforeId", oldest(page).ID))
					}
					missing := 0
					for id := range want {
						if !seen[id] {
							missing++
						}
					}
					Expect(missing).To(BeZero(), "%d of our 250 messages were never on a page", missing)
				}
			},
			d.entry("limit 50", 50),
			d.entry("limit 100", 100),
		)

		d.it("returns only older messages for beforeId and newer ones for afterId", reqs("PAGE-BEFOREID", "PAGE-AFTERID"), func(e *Env) {
			room := e.writeRoom()
			seeded := e.seed(0, room, 12)
			pivot := seeded[5]
			pivotSent := parseTime(pivot.Sent)
			before := e.list(0, room, q("beforeId", pivot.ID, "limit", "5"))
			Expect(before).NotTo(BeEmpty())
			for _, m := range before {
				Expect(m.ID).NotTo(Equal(pivot.ID))
				Expect(parseTime(m.Sent)).NotTo(BeTemporally(">", pivotSent), "beforeId returned a newer message %s", m.ID)
			}
			after := e.list(0, room, q("afterId", pivot.ID, "limit", "100"))
			Expect(after).NotTo(BeEmpty())
			for _, m := range after {
				Expect(m.ID).NotTo(Equal(pivot.ID))
				Expect(parseTime(m.Sent)).NotTo(BeTemporally("<", pivotSent), "afterId returned an older message %s", m.ID)
			}
			if len(after) < 100 { // a short page holds every newer message, so ours must be there
				Expect(idsOf(after)).To(ContainElements(idsOf(seeded[6:])), "afterId left out newer messages")
			}
		})

		d.it("answers aroundId with a window around the anchor, anchor included", reqs("PAGE-AROUNDID"), func(e *Env) {
			room := e.writeRoom()
			const limit = 6
			// The anchor sits in the middle of 25 messages of ours, 12 of them
			// newer: the newest page and the oldest page both miss it.
			seeded := e.seed(0, room, 25)
			anchor := 12
			around := e.list(0, room, q("aroundId", seeded[anchor].ID, "limit", strconv.Itoa(limit)))
			Expect(idsOf(around)).To(ContainElement(seeded[anchor].ID), "aroundId=%s did not include the anchor", seeded[anchor].ID)
			Expect(len(around)).To(BeNumerically("<=", limit), "aroundId with limit %d returned %d messages", limit, len(around))
			position := map[string]int{}
			for i, m := range seeded {
				position[m.ID] = i
			}
			for _, m := range around {
				if i, ours := position[m.ID]; ours {
					Expect(i-anchor).To(BeNumerically("~", 0, limit), "aroundId=%s (limit %d) returned a message %d places away", seeded[anchor].ID, limit, i-anchor)
				}
			}
		})

		d.it("leaves skip messages out of a window", reqs("PAGE-SKIP"), func(e *Env) {
			room := e.writeRoom()
			e.seed(0, room, 30)
			anchor := e.send(0, room, "anchor "+e.Marker()).ID
			full := e.list(0, room, q("beforeId", anchor, "limit", "25"))
			skipped := e.list(0, room, q("beforeId", anchor, "limit", "20", "skip", "5"))
			dropped := e.list(0, room, q("beforeId", anchor, "limit", "5"))
			Expect(full).To(HaveLen(25))
			Expect(skipped).To(HaveLen(20))
			all := idSet(full)
			for _, m := range skipped {
				Expect(all).To(HaveKey(m.ID), "skip=5 limit=20 returned %s, outside the 25 messages of the same window", m.ID)
			}
			gone := idSet(dropped)
			for _, m := range skipped {
				Expect(gone).NotTo(HaveKey(m.ID), "skip=5 returned %s, one of the 5 messages it should leave out", m.ID)
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
			Expect(e.list(0, room, q("beforeId", anchor, "limit", "100"))).To(HaveLen(100))
		})

		d.it("never returns more than 100 messages, whatever limit asks for", reqs("LIMIT-CAP"), func(e *Env) {
			room := e.writeRoom()
			e.seed(0, room, 105)
			for _, limit := range []string{"101", "150", "1000"} {
				resp := e.call(0, requestList(room, q("limit", limit)))
				if resp.Status >= 400 && resp.Status < 500 {
					By("limit=" + limit + " refused with " + strconv.Itoa(resp.Status))
					continue
				}
				var ms []Message
				expectOK(resp, &ms)
				Expect(len(ms)).To(BeNumerically("<=", 100), "limit=%s returned %d messages", limit, len(ms))
			}
		})

		d.it("accepts skip=5000, and does not ignore it", reqs("LIMIT-SKIP-5000"), func(e *Env) {
			room := e.Target.Rooms.Org
			if room == "" {
				room = e.writeRoom()
			}
			var skipped []Message
			expectOK(e.call(0, requestList(room, q("skip", "5000", "limit", "10"))), &skipped)
			Expect(len(skipped)).To(BeNumerically("<=", 10))
			if len(skipped) < 10 {
				return // a short room: nothing to tell an ignored skip by
			}
			// Ten messages came back, so the room holds over 5,000: the newest
			// ten are not among them, whichever end skip counts from (save one
			// room size, which a further message rules out).
			newest := e.list(0, room, q("limit", "10"))
			if sameIDs(skipped, newest) {
				e.send(0, room, "one more "+e.Marker())
				expectOK(e.call(0, requestList(room, q("skip", "5000", "limit", "10"))), &skipped)
				Expect(sameIDs(skipped, e.list(0, room, q("limit", "10")))).To(BeFalse(), "skip=5000 answered the newest page: skip is ignored")
			}
		})
	})
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
