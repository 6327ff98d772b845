package history

import (
	"strings"
	"testing"
	"time"
)

const (
	r1 = "/v1/rooms/r1/chatMessages"
	r2 = "/v1/rooms/r2/chatMessages"
)

type historyCase struct {
	name string
	opt  Options
	run  func(h *hist)
	want []string
}

func runCases(t *testing.T, cases []historyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHist(tc.opt)
			h.users()
			tc.run(h)
			check(t, h, tc.want...)
		})
	}
}

func TestRoomScope(t *testing.T) {
	runCases(t, []historyCase{
		{name: "a message in the pages of two rooms", run: func(h *hist) {
			h.get(0, 10, 0, r1+"?limit=5", page(M{ID: "m1"}, M{ID: "m2"}))
			h.get(20, 30, 0, r2+"?limit=5", page(M{ID: "m3"}, M{ID: "m1"}))
		}, want: []string{MsgRoomScope}},
		{name: "sent to one room, found by a search of another", run: func(h *hist) {
			h.ex(0, 10, 1, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"}.String())
			h.get(20, 30, 0, r2+"?q=hello", page(M{ID: "m1", From: "u2"}))
		}, want: []string{MsgRoomScope}},
		{name: "the same room in every answer", run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1"}.String())
			h.get(20, 30, 1, r1+"?q=hello", page(M{ID: "m1"}))
			h.get(20, 30, 0, r1+"?aroundId=m1", page(M{ID: "m1"}))
			h.get(40, 45, 0, "/v1/rooms/r%31/chatMessages", page(M{ID: "m1"})) // the same id, escaped
		}},
		{name: "core: read by id under another room's path", opt: Options{Profile: "core"}, run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1"}))
			h.get(20, 30, 0, r2+"/m1", M{ID: "m1"}.String())
		}, want: []string{MsgRoomScope}},
		{name: "reference: read by id under another room's path", opt: Options{Profile: "reference"}, run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1"}))
			h.get(20, 30, 0, r2+"/m1", M{ID: "m1"}.String())
		}, want: []string{MsgRoomScope}},
		{name: "core: read by id first, then a page of another room", opt: Options{Profile: "core"}, run: func(h *hist) {
			h.get(0, 10, 0, r2+"/m1", M{ID: "m1"}.String())
			h.get(20, 30, 0, r1, page(M{ID: "m1"}))
		}, want: []string{MsgRoomScope}},
		{name: "core: an edit answered under another room's path", opt: Options{Profile: "core"}, run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1"}.String())
			h.ex(20, 30, 0, "PUT", r2+"/m1", 200, `{"text":"edited"}`, M{ID: "m1", V: 2, Text: "edited"}.String())
		}, want: []string{MsgRoomScope}},
		{name: "core: reads and edits through the message's own room", opt: Options{Profile: "core"}, run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1"}.String())
			h.get(20, 30, 1, r1+"/m1", M{ID: "m1"}.String())
			h.ex(40, 50, 0, "PUT", r1+"/m1", 200, `{"text":"edited"}`, M{ID: "m1", V: 2, Text: "edited"}.String())
			h.get(60, 70, 0, r1, page(M{ID: "m1", V: 2, Text: "edited"}))
		}},
		{name: "core: reads and edits through another room refused", opt: Options{Profile: "core"}, run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1"}.String())
			h.ex(20, 30, 0, "GET", r2+"/m1", 404, "", `{"error":"not found"}`)
			h.ex(40, 50, 0, "PUT", r2+"/m1", 404, `{"text":"edited"}`, M{ID: "m1", V: 2, Text: "edited"}.String())
			h.ex(60, 70, 0, "GET", r2+"/m1", 403, "", M{ID: "m1"}.String())
		}},
		{name: "refused answers and invalid requests answered with errors state nothing", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1"}))
			h.ex(20, 30, 0, "GET", r2, 404, "", page(M{ID: "m1"}))
			h.ex(20, 30, 0, "GET", r2+"?limit=abc", 400, "", page(M{ID: "m1"}))
		}},
		{name: "a 2xx answer to an invalid request still counts", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1"}))
			h.c.Observe(observed(20, 30, 0, "GET", r2+"?limit=-1", 200, "", page(M{ID: "m1"}), true))
		}, want: []string{MsgRoomScope}},
	})
}

func TestMessageStable(t *testing.T) {
	runCases(t, []historyCase{
		{name: "sent moves", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", Sent: "2026-11-02T08:00:00.000Z"}))
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", Sent: "2026-11-02T08:00:01.000Z"}.String())
		}, want: []string{MsgStable}},
		{name: "sent written differently, the same instant", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", Sent: "2026-11-02T08:00:00.250Z"}))
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", Sent: "2026-11-02t08:00:00.250z"}.String())
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Sent: "2026-11-02T08:00:00.250000+00:00"}.String())
			h.get(60, 70, 1, r1+"/m1", M{ID: "m1", Sent: "2026-11-02T08:00:00Z"}.String()) // cut to the second
		}},
		{name: "the sender changes", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", From: "u1"}))
			h.get(20, 30, 1, r1, page(M{ID: "m1", From: "u2"}))
		}, want: []string{MsgStable}},
		{name: "same v, other text", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", Text: "one"}))
			h.get(20, 30, 1, r1+"/m1", M{ID: "m1", Text: "two"}.String())
		}, want: []string{MsgStable}},
		{name: "same v, other html", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", HTML: "<b>x</b>"}))
			h.get(20, 30, 1, r1+"/m1", M{ID: "m1", HTML: "&lt;b&gt;x&lt;/b&gt;"}.String())
		}, want: []string{MsgStable}},
		{name: "same v, other metadata", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1"}))
			h.get(20, 30, 1, r1+"/m1", M{ID: "m1", Extra: `,"urls":[{"url":"https://x.test"}]`}.String())
		}, want: []string{MsgStable}},
		{name: "same v, the same content written differently", run: func(h *hist) {
			h.get(0, 10, 0, r1, `[{"id":"m1","text":"é/ü","html":"é","sent":"2026-11-02T08:00:00Z","v":1,"status":false,"urls":[{"url":"u","x":1}],"mentions":[],"meta":{}}]`)
			h.get(20, 30, 1, r1+"/m1", `{"v":1,"id":"m1","text":"\u00e9\/\u00fc","html":"\u00e9","sent":"2026-11-02T08:00:00.000Z","urls":[{"x":1,"url":"u"}],"meta":{}, "unread":true}`)
		}},
		{name: "stale copies have their own v: no contradiction", run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"a"}`, M{ID: "m1", Text: "a"}.String())
			h.ex(20, 30, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2}.String())
			h.get(31, 40, 1, r1+"/m1", M{ID: "m1", Text: "a"}.String()) // within Eventually of the edit
			h.get(50, 60, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
		}},
	})
}

func TestVersions(t *testing.T) {
	edit := func(h *hist, start, end float64, v int, text string) {
		h.ex(start, end, 0, "PUT", r1+"/m1", 200, `{"text":"`+text+`"}`, M{ID: "m1", Text: text, V: v}.String())
	}
	send := func(h *hist) { h.ex(0, 10, 0, "POST", r1, 200, `{"text":"a"}`, M{ID: "m1", Text: "a"}.String()) }
	runCases(t, []historyCase{
		{name: "the old version long after the last edit: the edit was not kept", run: func(h *hist) {
			send(h)
			edit(h, 20, 30, 2, "b")
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
			h.get(9000, 9010, 1, r1+"?limit=5", page(M{ID: "m1", Text: "a"}))
		}, want: []string{MsgEditPersisted}},
		{name: "v goes down long after an edit, while later edits go on", run: func(h *hist) {
			send(h)
			edit(h, 20, 30, 2, "b")
			edit(h, 40, 50, 3, "c")
			h.get(60, 70, 1, r1+"/m1", M{ID: "m1", Text: "c", V: 3}.String())
			edit(h, 7000, 7010, 4, "d")
			h.get(8000, 8010, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
		}, want: []string{MsgEditVInc}},
		{name: "v goes down without any edit seen", run: func(h *hist) {
			h.get(0, 10, 1, r2+"/m9", M{ID: "m9", V: 3}.String())
			h.get(6000, 6010, 1, r2+"/m9", M{ID: "m9", V: 2}.String())
		}, want: []string{MsgEditVInc}},
		{name: "a stale copy within Eventually of the edit", run: func(h *hist) {
			send(h)
			edit(h, 20, 30, 2, "b")
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
			h.get(4000, 4010, 1, r1+"/m1", M{ID: "m1", Text: "a"}.String())
			h.get(6000, 6010, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
		}},
		{name: "overlapping reads may see either side of an edit", run: func(h *hist) {
			send(h)
			edit(h, 20, 30, 2, "b")
			h.get(9000, 9100, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
			h.get(25, 9050, 1, r1+"/m1", M{ID: "m1", Text: "a"}.String()) // began before the edit ended
		}},
		{name: "tied timestamps: one ends as the other starts", opt: Options{Eventually: time.Nanosecond}, run: func(h *hist) {
			h.get(0, 10, 1, r2+"/m9", M{ID: "m9", V: 3}.String())
			h.get(10, 20, 1, r2+"/m9", M{ID: "m9", V: 2}.String())
		}},
		{name: "two edits answer the same v", run: func(h *hist) {
			send(h)
			edit(h, 20, 30, 2, "b")
			edit(h, 25, 35, 2, "c")
		}, want: []string{MsgEditVInc}},
		{name: "an edit number skipped", run: func(h *hist) {
			send(h)
			edit(h, 20, 30, 2, "b")
			edit(h, 40, 50, 4, "c")
		}, want: []string{MsgEditVInc}},
		{name: "every edit raises v by two: one defect, one id", run: func(h *hist) {
			send(h)
			edit(h, 20, 30, 3, "b")
			edit(h, 40, 50, 5, "c")
			h.get(60, 70, 1, r1+"/m1", M{ID: "m1", Text: "c", V: 5}.String())
		}, want: []string{MsgEditVInc}},
		{name: "an edit number skipped, shared target", opt: Options{Shared: true}, run: func(h *hist) {
			send(h)
			edit(h, 20, 30, 2, "b")
			edit(h, 40, 50, 4, "c")
		}},
		{name: "concurrent edits in any order, by two users", run: func(h *hist) {
			send(h)
			edit(h, 20, 60, 3, "c")
			edit(h, 21, 40, 2, "b")
			h.ex(22, 70, 1, "PUT", r1+"/m1", 200, `{"text":"d"}`, M{ID: "m1", Text: "d", V: 4}.String())
			h.ex(23, 24, 1, "PUT", r1+"/m1", 403, `{"text":"e"}`, `{"error":"Forbidden"}`)
			h.get(80, 90, 0, r1+"/m1", M{ID: "m1", Text: "d", V: 4}.String())
		}},
		{name: "a failed edit may still have been applied", run: func(h *hist) {
			send(h)
			h.get(12, 15, 0, r1+"/m1", M{ID: "m1", Text: "a"}.String())
			h.ex(20, 30, 0, "PUT", r1+"/m1", 500, `{"text":"b"}`, `{"error":"Internal Server Error"}`)
			h.get(40, 50, 0, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
		}},
	})
}

func TestEditedAt(t *testing.T) {
	runCases(t, []historyCase{
		{name: "editedAt set at v 1", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", EditedAt: "2026-11-02T08:01:00Z"}))
		}, want: []string{MsgSendEditedAtNull}},
		{name: "no editedAt at v 2", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", V: 2, EditedAt: "-"}))
		}, want: []string{MsgEditEditedAt}},
		{name: "editedAt before sent", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", V: 2, Sent: "2026-11-02T08:00:00.500Z", EditedAt: "2026-11-02T08:00:00.400Z"}))
		}, want: []string{MsgEditEditedAt}},
		{name: "editedAt goes back as v rises", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1", V: 2, EditedAt: "2026-11-02T08:05:00Z"}.String())
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", V: 3, Text: "c", EditedAt: "2026-11-02T08:04:00Z"}.String())
		}, want: []string{MsgEditEditedAt, HTTPGetSafe}},
		{name: "concurrent edits may stamp their times in either order", run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"a"}`, M{ID: "m1", Text: "a"}.String())
			h.ex(20, 30, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2, EditedAt: "2026-11-02T08:05:00.002Z"}.String())
			h.ex(21, 29, 0, "PUT", r1+"/m1", 200, `{"text":"c"}`, M{ID: "m1", Text: "c", V: 3, EditedAt: "2026-11-02T08:05:00.001Z"}.String())
		}},
		{name: "editedAt left null in lists only: reported once, not as a changed message", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1", V: 2}.String())
			h.get(20, 30, 0, r1, page(M{ID: "m1", V: 2, EditedAt: "-"}))
		}, want: []string{MsgEditEditedAt}},
		{name: "editedAt to the second, in the second it was sent", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", V: 2, Sent: "2026-11-02T08:00:00.700Z", EditedAt: "2026-11-02T08:00:00Z"}))
			h.get(0, 10, 0, r1+"/m2", M{ID: "m2", V: 1, EditedAt: "-"}.String())
		}},
	})
}

func TestPersisted(t *testing.T) {
	base := func(h *hist) {
		h.ex(0, 10, 0, "POST", r1, 200, `{"text":"a"}`, M{ID: "m1", Text: "a"}.String())
		h.ex(20, 30, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2}.String())
	}
	runCases(t, []historyCase{
		{name: "the old text long after the edit", run: func(h *hist) {
			base(h)
			h.get(8000, 8010, 0, r1+"/m1", M{ID: "m1", Text: "a"}.String())
		}, want: []string{MsgEditPersisted}},
		{name: "reads keep the old v with the new text: v went down, not the text", run: func(h *hist) {
			base(h)
			h.get(8000, 8010, 0, r1+"/m1", M{ID: "m1", Text: "b"}.String())
		}, want: []string{MsgEditVInc}},
		{name: "an edit that does not raise v: the edit's breach, not a changed message or an early editedAt", run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"a"}`, M{ID: "m1", Text: "a"}.String())
			h.ex(20, 30, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", EditedAt: "2026-11-02T08:05:00Z"}.String())
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Text: "b", EditedAt: "2026-11-02T08:05:00Z"}.String())
			h.get(60, 70, 1, r1, page(M{ID: "m1", Text: "b", EditedAt: "2026-11-02T08:05:00Z"}))
		}, want: []string{MsgEditVInc}},
		{name: "reads of an edited message give the edit's text at v 1 with editedAt set, the edit answered v 2", run: func(h *hist) {
			base(h)
			h.get(40, 50, 0, r1+"/m1", M{ID: "m1", Text: "b", EditedAt: "2026-11-02T08:05:00Z"}.String())
		}, want: []string{MsgEditVInc}},
		{name: "the old text long after the edit, with editedAt set at v 1: the edit was not kept", run: func(h *hist) {
			base(h)
			h.get(8000, 8010, 0, r1+"/m1", M{ID: "m1", Text: "a", EditedAt: "2026-11-02T08:05:00Z"}.String())
		}, want: []string{MsgEditPersisted, MsgSendEditedAtNull}},
		{name: "an edit answered the new text with its v, and the message kept another under that v", run: func(h *hist) {
			base(h)
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Text: "a", V: 2}.String())
		}, want: []string{MsgEditPersisted}},
		{name: "the edited text with other metadata under the edit's v: no edit's doing, a changed message", run: func(h *hist) {
			base(h)
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2, Extra: `,"meta":{"mentions":1}`}.String())
		}, want: []string{MsgStable}},
		{name: "the edited text with another html under the edit's v: one v rendered two ways, not an edit lost", run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"a"}`, M{ID: "m1", Text: "a"}.String())
			h.ex(20, 30, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", HTML: "a", V: 2}.String()) // the html of the text before
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
		}, want: []string{MsgStable}},
		{name: "a text written again by a later edit, read under that edit's v with another html: no v moved", run: func(h *hist) {
			base(h)
			h.ex(40, 50, 0, "PUT", r1+"/m1", 200, `{"text":"c"}`, M{ID: "m1", Text: "c", V: 3}.String())
			h.ex(60, 70, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", HTML: "c", V: 4}.String())
			h.get(80, 90, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 4}.String())
		}, want: []string{MsgStable}},
		{name: "a second edit to the same text answers the same v with a later editedAt: the edit's breach, not a changed message", run: func(h *hist) {
			base(h)
			h.ex(40, 50, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2, EditedAt: "2026-11-02T09:00:00.045Z"}.String())
			h.get(60, 70, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2, EditedAt: "2026-11-02T09:00:00.045Z"}.String())
		}, want: []string{MsgEditVInc}},
		{name: "an edit answered the old text: the answer is the edit's breach, the reads that follow are right", run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"a"}`, M{ID: "m1", Text: "a"}.String())
			h.ex(20, 30, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "a", V: 2}.String())
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
		}, want: []string{MsgEdit}},
		{name: "an edit answered the old text, read later under its v with another html: the edit's breach alone", run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 200, `{"text":"a"}`, M{ID: "m1", Text: "a"}.String())
			h.ex(20, 30, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "a", HTML: "<i>a</i>", V: 2}.String())
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", Text: "a", V: 2}.String())
		}, want: []string{MsgEdit}},
		{name: "the old text within Eventually", run: func(h *hist) {
			base(h)
			h.get(3000, 3010, 1, r1+"?limit=5", page(M{ID: "m1", Text: "a"}))
		}},
		{name: "the old text soon after a later (refused) edit: v went down all the same", run: func(h *hist) {
			base(h)
			h.ex(7000, 7010, 0, "PUT", r1+"/m1", 400, `{"text":""}`, `{"error":"Bad Request"}`)
			h.get(8000, 8010, 0, r1+"/m1", M{ID: "m1", Text: "a"}.String())
		}, want: []string{MsgEditVInc}},
		{name: "shared: an outside edit later is not the run's to judge", opt: Options{Shared: true}, run: func(h *hist) {
			base(h)
			h.get(8000, 8010, 0, r1+"/m1", M{ID: "m1", Text: "z", V: 3}.String())
		}},
	})
}

func TestReadBy(t *testing.T) {
	mark := func(h *hist, start, end float64, user int, id string) {
		h.ex(start, end, user, "POST", "/v1/user/me/rooms/r1/unreadItems", 200, `{"chat":["`+id+`"]}`, `{"success":true}`)
	}
	runCases(t, []historyCase{
		{name: "readBy goes down long after the mark", run: func(h *hist) {
			h.ex(0, 10, 1, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"}.String())
			mark(h, 20, 30, 0, "m1")
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", From: "u2", ReadBy: 1}.String())
			h.get(6000, 6010, 1, r1+"/m1", M{ID: "m1", From: "u2", ReadBy: 0}.String())
		}, want: []string{UnreadReadBy}},
		{name: "a stale readBy within Eventually of the mark", run: func(h *hist) {
			h.ex(0, 10, 1, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"}.String())
			mark(h, 20, 30, 0, "m1")
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", From: "u2", ReadBy: 1}.String())
			h.get(1000, 1010, 0, r1+"?limit=3", page(M{ID: "m1", From: "u2", ReadBy: 0}))
			h.get(6000, 6010, 1, r1+"/m1", M{ID: "m1", From: "u2", ReadBy: 1}.String())
		}},
		{name: "shared: a message of someone else, readBy going down soon after", opt: Options{Shared: true}, run: func(h *hist) {
			h.get(0, 10, 0, "/v1/rooms/r3/chatMessages/m5", M{ID: "m5", From: `{"id":"u9","username":"eve","url":"/eve"}`, ReadBy: 3}.String())
			mark(h, -9000, -8990, 0, "m5")
			h.get(1000, 1010, 0, "/v1/rooms/r3/chatMessages/m5", M{ID: "m5", From: `{"id":"u9","username":"eve","url":"/eve"}`, ReadBy: 2}.String())
		}},
		{name: "not shared: the same is a contradiction", run: func(h *hist) {
			h.get(0, 10, 0, "/v1/rooms/r3/chatMessages/m5", M{ID: "m5", From: `{"id":"u9","username":"eve","url":"/eve"}`, ReadBy: 3}.String())
			mark(h, -9000, -8990, 0, "m5")
			h.get(1000, 1010, 0, "/v1/rooms/r3/chatMessages/m5", M{ID: "m5", From: `{"id":"u9","username":"eve","url":"/eve"}`, ReadBy: 2}.String())
		}, want: []string{UnreadReadBy}},
	})
}

func TestMarkRead(t *testing.T) {
	unread := func(h *hist, start, end float64, user int, ids string) {
		h.get(start, end, user, "/v1/user/me/rooms/r1/unreadItems", `{"chat":[`+ids+`],"mention":[]}`)
	}
	markBy := func(h *hist, user int) {
		h.ex(0, 10, 1, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"}.String())
		unread(h, 15, 18, 0, `"m1"`)
		h.ex(20, 30, user, "POST", "/v1/user/u1/rooms/r1/unreadItems", 200, `{"chat":["m1"]}`, `{"success":true}`)
	}
	runCases(t, []historyCase{
		{name: "still listed unread long after the mark", run: func(h *hist) {
			markBy(h, 0)
			unread(h, 7000, 7010, 0, `"m0","m1"`)
		}, want: []string{UnreadMarkRead}},
		{name: "still flagged unread long after the mark", run: func(h *hist) {
			markBy(h, 0)
			h.get(7000, 7010, 0, r1+"?limit=5", page(M{ID: "m1", From: "u2", Unread: true, ReadBy: 1}))
		}, want: []string{UnreadMarkRead}},
		{name: "marked under another room's path, which a server may ignore", run: func(h *hist) {
			h.ex(0, 10, 1, "POST", r1, 200, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"}.String())
			unread(h, 15, 18, 0, `"m1"`)
			h.ex(20, 30, 0, "POST", "/v1/user/u1/rooms/r2/unreadItems", 200, `{"chat":["m1"]}`, `{"success":true}`)
			unread(h, 7000, 7010, 0, `"m1"`)
		}},
		{name: "still listed within Eventually", run: func(h *hist) {
			markBy(h, 0)
			unread(h, 2000, 2010, 0, `"m1"`)
			unread(h, 7000, 7010, 0, ``)
		}},
		{name: "unread for another user, who did not mark it", run: func(h *hist) {
			markBy(h, 0)
			h.get(7000, 7010, 2, "/v1/user/me/rooms/r1/unreadItems", `{"chat":["m1"],"mention":[]}`)
		}},
		{name: "a path naming another user is not that user's mark", run: func(h *hist) {
			markBy(h, 1) // user 2 marks on user 1's path
			unread(h, 7000, 7010, 0, `"m1"`)
		}},
	})
}

func TestRooms(t *testing.T) {
	rooms := func(h *hist, start float64, user int, list, body string) {
		h.get(start, start+5, user, "/v1/user/me/"+list, body)
	}
	runCases(t, []historyCase{
		{name: "platformType differs between users", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", `[{"id":"o1","platformType":"ORG","oneToOne":false,"url":"/org"}]`)
			rooms(h, 10, 1, "rooms", `[{"id":"o1","platformType":"REPO","oneToOne":false,"url":"/org"}]`)
		}, want: []string{RoomStable}},
		{name: "the url of an organisation's room differs", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", `[{"id":"o1","platformType":"ORG","url":"/org"}]`)
			rooms(h, 10, 1, "orgs", `[{"id":7,"name":"org","room":{"id":"o1","url":"/org/x"}}]`)
		}, want: []string{RoomStable}},
		{name: "a one-to-one room's url names the other side", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", `[{"id":"d1","oneToOne":true,"platformType":"ONETOONE","url":"/bob","user":{"id":"u2","username":"bob","url":"/bob"}}]`)
			rooms(h, 10, 1, "rooms", `[{"id":"d1","oneToOne":true,"platformType":"ONETOONE","url":"/ada","user":{"id":"u1","username":"ada","url":"/ada"}}]`)
			rooms(h, 20, 1, "channels", `[]`)
		}},
		{name: "a one-to-one room's url differs for one user", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", `[{"id":"d1","oneToOne":true,"url":"/bob"}]`)
			h.get(10, 20, 0, "/v1/user/u1/rooms", `[{"id":"d1","oneToOne":true,"url":"/bobby"}]`)
		}, want: []string{RoomStable}},
		{name: "rooms with only an id, and channels", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", `[{"id":"o1"},{"id":"c1","platformType":"USER_CHANNEL","url":"/c","security":"PUBLIC"}]`)
			rooms(h, 10, 0, "channels", `[{"id":"c1","platformType":"USER_CHANNEL","url":"/c","security":"PUBLIC"}]`)
			rooms(h, 20, 0, "orgs", `[{"id":1,"name":"r","avatar_url":"https://a.test/r"},{"id":2,"name":"s","room":{"id":"o1","platformType":"ORG"}}]`)
		}},
		{name: "two organisations embed one room", run: func(h *hist) {
			rooms(h, 0, 0, "orgs", `[{"id":1,"name":"a","room":{"id":"o1","platformType":"ORG"}},{"id":2,"name":"b","room":{"id":"o1","platformType":"ORG"}}]`)
		}, want: []string{OrgRoom}},
		{name: "a repository embeds an organisation room", run: func(h *hist) {
			rooms(h, 0, 0, "repos", `[{"id":1,"name":"r","uri":"a/r","private":false,"room":{"id":"o1","platformType":"ORG"}}]`)
		}, want: []string{RepoRoom}},
		{name: "repositories with their own rooms, one without", run: func(h *hist) {
			rooms(h, 0, 0, "repos", `[{"id":1,"name":"r","uri":"a/r","private":false,"room":{"id":"r1","platformType":"REPO"}},{"id":2,"name":"s","uri":"a/s","private":false},{"id":3,"name":"t","uri":"a/t","private":true,"room":{"id":"r2"}}]`)
		}},
	})
}

func TestUsers(t *testing.T) {
	runCases(t, []historyCase{
		{name: "a username differs between the current user and a sender", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", From: `{"id":"u1","username":"adalove","url":"/ada"}`}))
		}, want: []string{UserStable}},
		{name: "a user's url differs in a one-to-one room", run: func(h *hist) {
			h.get(0, 10, 1, "/v1/user/me/rooms", `[{"id":"d1","oneToOne":true,"url":"/ada","user":{"id":"u1","username":"ada","url":"/users/ada"}}]`)
		}, want: []string{UserStable}},
		{name: "a mention names another screenName", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", Extra: `,"mentions":[{"screenName":"bobby","userId":"u2"}]`}))
		}, want: []string{UserStable}},
		{name: "one username under two ids: the other participant carries another row's id", run: func(h *hist) {
			h.get(0, 10, 1, "/v1/user/me/rooms", `[{"id":"d1","oneToOne":true,"url":"/ada","user":{"id":"m77","username":"ada","url":"/ada"}}]`)
		}, want: []string{UserStable}},
		{name: "one url under two ids", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", From: `{"id":"u9","username":"adalovelace","url":"/ada"}`}))
		}, want: []string{UserStable}},
		{name: "accounts nobody's token stands for, under one placeholder name", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", From: `{"id":"x1","username":"ghost","url":"/ghost"}`}, M{ID: "m2", From: `{"id":"x2","username":"ghost","url":"/ghost"}`}))
		}},
		{name: "two users, each with a username and url of their own", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", From: `{"id":"u1","username":"ada","url":"/ada"}`}, M{ID: "m2", From: `{"id":"u2","username":"bob","url":"/bob"}`}))
		}},
		{name: "a mention written in another case, and one of an unknown user", run: func(h *hist) {
			h.get(0, 10, 0, r1, page(M{ID: "m1", Extra: `,"mentions":[{"screenName":"Bob","userId":"u2"},{"screenName":"zed","userId":"u7"}]`}))
		}},
	})
}

func TestPages(t *testing.T) {
	runCases(t, []historyCase{
		{name: "a message twice in a page", run: func(h *hist) {
			h.get(0, 10, 0, r1+"?limit=5", page(M{ID: "m1"}, M{ID: "m2"}, M{ID: "m1"}, M{ID: "m1"}))
		}, want: []string{PageUnique}},
		{name: "more than limit", run: func(h *hist) {
			h.get(0, 10, 0, r1+"?limit=2", page(M{ID: "m1"}, M{ID: "m2"}, M{ID: "m3"}))
		}, want: []string{PageLimit}},
		{name: "more than 100", run: func(h *hist) {
			var ms []M
			for i := range 101 {
				ms = append(ms, M{ID: "p" + string(rune('a'+i/26)) + string(rune('a'+i%26))})
			}
			h.get(0, 10, 0, r1, page(ms...))
			h.get(20, 30, 0, r1+"?limit=500", page(ms...))
			h.get(40, 50, 0, r1+"?limit=100", page(ms[:100]...))
		}, want: []string{LimitCap, LimitCap}},
		{name: "limit kept, limit 0 and a short page", run: func(h *hist) {
			h.get(0, 10, 0, r1+"?limit=2", page(M{ID: "m1"}, M{ID: "m2"}))
			h.get(0, 10, 0, r1+"?limit=0", page(M{ID: "m1"}, M{ID: "m2"}))
			h.get(0, 10, 0, r1+"?limit=2&limit=3", page(M{ID: "m1"}, M{ID: "m2"}, M{ID: "m3"}))
			h.get(0, 10, 0, r1+"?limit=5", page())
		}},
	})
}

func TestGetSafe(t *testing.T) {
	runCases(t, []historyCase{
		{name: "v rises with no edit", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1"}.String())
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", V: 2}.String())
		}, want: []string{HTTPGetSafe}},
		{name: "v rises by two with one edit", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1"}.String())
			h.ex(11, 12, 0, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2}.String())
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", Text: "b", V: 3}.String())
		}, want: []string{HTTPGetSafe}},
		{name: "v rises with an edit in between", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1"}.String())
			h.ex(11, 12, 1, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2}.String())
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
		}},
		{name: "v rises with no edit, shared target", opt: Options{Shared: true}, run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1"}.String())
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", Text: "b", V: 2}.String())
		}},
		{name: "readBy rises with no write", run: func(h *hist) {
			h.get(0, 10, 1, r1+"/m1", M{ID: "m1"}.String())
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1"}.String())
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", ReadBy: 1}.String())
		}, want: []string{HTTPGetSafe}},
		{name: "readBy rises after another user's mark", run: func(h *hist) {
			h.get(0, 10, 1, r1+"/m1", M{ID: "m1"}.String())
			h.ex(12, 14, 1, "POST", "/v1/user/u2/rooms/r1/unreadItems", 200, `{"chat":["m1"]}`, `{}`)
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", ReadBy: 1}.String())
		}},
		{name: "readBy rises after a mark whose answer was lost in time (it ended within Eventually)", run: func(h *hist) {
			h.ex(-3000, -2990, 1, "POST", "/v1/user/u2/rooms/r1/unreadItems", 500, `{"chat":["m1"]}`, `{}`)
			h.get(0, 10, 1, r1+"/m1", M{ID: "m1"}.String())
			h.get(40, 50, 1, r1+"/m1", M{ID: "m1", ReadBy: 1}.String())
		}},
		{name: "reading clears the unread flag", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1", From: "u2", Unread: true}.String())
			h.get(20, 30, 0, r1+"?limit=5", page(M{ID: "m1", From: "u2"}))
		}, want: []string{HTTPGetSafe}},
		{name: "the flag clears after the reader marks it read", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1", From: "u2", Unread: true}.String())
			h.ex(11, 12, 0, "POST", "/v1/user/me/rooms/r1/unreadItems", 200, `{"chat":["m1"]}`, `{}`)
			h.get(20, 30, 0, r1+"?limit=5", page(M{ID: "m1", From: "u2", ReadBy: 1}))
		}},
		{name: "the flag clears after the reader posts in the room", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1", From: "u2", Unread: true}.String())
			h.ex(11, 12, 0, "POST", r1, 200, `{"text":"hello m2"}`, M{ID: "m2"}.String())
			h.get(20, 30, 0, r1+"?limit=5", page(M{ID: "m1", From: "u2"}))
		}},
		{name: "listed unread, then flagged read with no write: the flag is wrong", run: func(h *hist) {
			h.get(0, 10, 0, "/v1/user/me/rooms/r1/unreadItems", `{"chat":["m1"],"mention":[]}`)
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", From: "u2"}.String())
		}, want: []string{UnreadFlag}},
		{name: "listed, flagged read, listed again", run: func(h *hist) {
			h.get(0, 10, 0, "/v1/user/u1/rooms/r1/unreadItems", `{"chat":["m1"],"mention":[]}`)
			h.get(20, 30, 1, r1+"/m1", M{ID: "m1", From: "u2"}.String()) // user 2's flag: not user 1's state
			h.get(40, 50, 0, "/v1/user/u1/rooms/r1/unreadItems", `{"chat":["m1"],"mention":[]}`)
		}},
		{name: "listed unread, marked read, flagged read", run: func(h *hist) {
			h.get(0, 10, 0, "/v1/user/me/rooms/r1/unreadItems", `{"chat":["m1"],"mention":[]}`)
			h.ex(11, 12, 0, "POST", "/v1/user/me/rooms/r1/unreadItems", 200, `{"chat":["m1"]}`, `{}`)
			h.get(20, 30, 0, r1+"/m1", M{ID: "m1", From: "u2", ReadBy: 1}.String())
			h.get(40, 50, 0, "/v1/user/me/rooms/r1/unreadItems", `{"chat":["m1"],"mention":[]}`) // a stale list, within Eventually
		}},
		{name: "the flag is another user's", run: func(h *hist) {
			h.get(0, 10, 0, r1+"/m1", M{ID: "m1", From: "u2", Unread: true}.String())
			h.get(20, 30, 1, r1+"?limit=5", page(M{ID: "m1", From: "u2"}))
		}},
	})
}

func TestUnusableAnswersStateNothing(t *testing.T) {
	h := newHist(Options{})
	h.users()
	for i, body := range []string{``, `null`, `{}`, `[1,2]`, `[{"id":"m1"}] trailing`, `[{"id":"m1","v":2]`, `[{"id":"m1" "v":2}]`, `[{"id":"m1\q"}]`, `<html>`, `[{"id":"m1","v":1}`, `"x"`} {
		h.get(float64(i*10), float64(i*10+5), 0, r2, body)
	}
	h.get(100, 110, 0, r1, page(M{ID: "m1"}))
	check(t, h)
}

func TestBoundPerRequirement(t *testing.T) {
	h := newHist(Options{MaxPerRequirement: 3})
	h.users()
	for i := range 7 {
		h.get(float64(i*10), float64(i*10+5), 0, r1+"?limit=9", page(M{ID: "m1"}, M{ID: "m1"}))
	}
	got := check(t, h, PageUnique, PageUnique, PageUnique)
	if got[2].More != 4 || got[0].More != 0 || !strings.Contains(got[2].String(), "4 more") {
		t.Errorf("more: %d %d\n%s", got[0].More, got[2].More, describe(got))
	}
	if !got[0].Exchanges[0].Start.Before(got[1].Exchanges[0].Start) {
		t.Errorf("not in time order")
	}
}

func TestTextIsRedactedAndNamesTheExchanges(t *testing.T) {
	h := newHist(Options{Redact: func(s string) string { return strings.ReplaceAll(s, "s3cret", "REDACTED") }})
	h.users()
	h.get(0, 10, 0, r1, page(M{ID: "s3cret-m1"}))
	h.get(20, 30, 1, r2+"?access_token=REDACTED", page(M{ID: "s3cret-m1"}))
	got := check(t, h, MsgRoomScope)
	c := got[0]
	if strings.Contains(c.String(), "s3cret") || !strings.Contains(c.Text, r1) || !strings.Contains(c.Text, r2) {
		t.Errorf("%s", c.String())
	}
	if len(c.Exchanges) != 2 || c.Exchanges[0].User != 0 || c.Exchanges[1].User != 1 || c.Exchanges[1].Path != r2+"?access_token=REDACTED" ||
		c.Exchanges[0].Method != "GET" || c.Exchanges[0].Status != 200 || !strings.HasPrefix(c.Exchanges[0].Reproduce, "curl") {
		t.Errorf("exchanges %+v", c.Exchanges)
	}
}

func TestStatsAndConcurrentUse(t *testing.T) {
	h := newHist(Options{})
	h.users()
	done := make(chan bool)
	for g := range 4 {
		go func() {
			for i := range 50 {
				h.get(float64(i), float64(i+1), g%2, r1+"?limit=3", page(M{ID: "m1"}, M{ID: "m2"}))
				if i%10 == 0 {
					h.c.Check()
				}
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	check(t, h)
	if s := h.c.Stats(); s.Observed != 202 || s.Kept != 202 || s.Messages != 2 || s.Users != 2 || s.Rooms != 1 {
		t.Errorf("stats %+v", s)
	}
}

func TestListFlicker(t *testing.T) {
	const dm = `{"id":"d1","oneToOne":true,"platformType":"ONETOONE","url":"/bob"}`
	const org = `{"id":"o1","platformType":"ORG","url":"/org"}`
	rooms := func(h *hist, start float64, user int, list string, rs ...string) {
		h.get(start, start+5, user, "/v1/user/me/"+list, "["+strings.Join(rs, ",")+"]")
	}
	shared := Options{Shared: true, Eventually: 50 * time.Millisecond}
	quick := Options{Eventually: 50 * time.Millisecond}
	sharedQuick := Options{Shared: true, Eventually: 50 * time.Millisecond}
	runCases(t, []historyCase{
		{name: "a one-to-one room left out of one answer in between", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			rooms(h, 10, 0, "rooms", org)
			rooms(h, 20, 0, "rooms", dm, org)
		}, want: []string{RoomKinds}},
		{name: "a channel left out of one answer in between", run: func(h *hist) {
			rooms(h, 0, 1, "channels", `{"id":"c1","platformType":"USER_CHANNEL"}`)
			rooms(h, 10, 1, "channels")
			rooms(h, 20, 1, "channels", `{"id":"c1","platformType":"USER_CHANNEL"}`)
		}, want: []string{ChannelList}},
		{name: "a room that leaves and does not come back", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			rooms(h, 10, 0, "rooms", org)
			rooms(h, 20, 0, "rooms", org)
		}},
		{name: "a room that comes late", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", org)
			rooms(h, 10, 0, "rooms", dm, org)
		}},
		{name: "a room the run hid and that came back", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 10, 0, "rooms", org)
			rooms(h, 20, 0, "rooms", dm, org)
		}},
		{name: "a hidden room shown again between two answers that leave it out", opt: quick, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 100, 0, "rooms", org)
			rooms(h, 110, 0, "rooms", dm, org)
			rooms(h, 120, 0, "rooms", org)
		}, want: []string{RoomHide}},
		{name: "a hidden channel: the rooms list need not hold channels, hidden or not", opt: quick, run: func(h *hist) {
			ch := `{"id":"c1","platformType":"USER_CHANNEL","security":"PUBLIC"}`
			rooms(h, 0, 0, "rooms", ch, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/c1", 204, "", "")
			rooms(h, 100, 0, "rooms", org)
			rooms(h, 110, 0, "rooms", ch, org)
			rooms(h, 120, 0, "rooms", org)
		}},
		{name: "with other clients, a hidden room left out again soon after it came back: a post of theirs may lag", opt: sharedQuick, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 100, 0, "rooms", org)
			rooms(h, 110, 0, "rooms", dm, org)
			rooms(h, 120, 0, "rooms", org)
		}},
		{name: "with other clients, a hidden room left out again long after it came back", opt: sharedQuick, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 100, 0, "rooms", org)
			rooms(h, 110, 0, "rooms", dm, org)
			rooms(h, 200, 0, "rooms", org)
		}, want: []string{RoomHide}},
		{name: "another user's hide is not the user's", opt: quick, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 1, "DELETE", "/v1/user/u1/rooms/d1", 204, "", "")
			rooms(h, 100, 0, "rooms", org)
			rooms(h, 110, 0, "rooms", dm, org)
			rooms(h, 120, 0, "rooms", org)
		}},
		{name: "a hidden room shown again within Eventually of the hide", opt: quick, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 10, 0, "rooms", org)
			rooms(h, 20, 0, "rooms", dm, org)
			rooms(h, 120, 0, "rooms", org)
		}},
		{name: "a hidden room back, then hidden again", opt: quick, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 100, 0, "rooms", org)
			rooms(h, 110, 0, "rooms", dm, org)
			h.ex(116, 118, 0, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 200, 0, "rooms", org)
		}},
		{name: "a hidden room the run posted in may come back", opt: quick, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 100, 0, "rooms", org)
			h.ex(104, 106, 1, "POST", "/v1/rooms/d1/chatMessages", 200, `{"text":"a"}`, M{ID: "m1", Text: "a", From: "u2"}.String())
			rooms(h, 110, 0, "rooms", dm, org)
			rooms(h, 120, 0, "rooms", org)
		}},
		{name: "a refused hide may have hidden the room or not: neither rule judges it", opt: quick, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 0, "DELETE", "/v1/user/me/rooms/d1", 500, "", `{"error":"x"}`)
			rooms(h, 100, 0, "rooms", org)
			rooms(h, 110, 0, "rooms", dm, org)
			rooms(h, 120, 0, "rooms", org)
		}},
		{name: "a room another user hid", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			h.ex(6, 8, 1, "DELETE", "/v1/user/me/rooms/d1", 204, "", "")
			rooms(h, 10, 0, "rooms", org)
			rooms(h, 20, 0, "rooms", dm, org)
		}, want: []string{RoomKinds}},
		{name: "other users' lists are other lists", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			rooms(h, 10, 1, "rooms", org)
			rooms(h, 20, 0, "rooms", dm, org)
		}},
		{name: "overlapping answers are not in between", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			rooms(h, 3, 0, "rooms", org)
			rooms(h, 20, 0, "rooms", dm, org)
		}},
		{name: "a room of a kind the rooms list need not hold", run: func(h *hist) {
			rooms(h, 0, 0, "rooms", `{"id":"c1","platformType":"USER_CHANNEL","security":"PUBLIC"}`)
			rooms(h, 10, 0, "rooms")
			rooms(h, 20, 0, "rooms", `{"id":"c1","platformType":"USER_CHANNEL","security":"PUBLIC"}`)
		}},
		{name: "an organisation left out of one answer in between", run: func(h *hist) {
			rooms(h, 0, 1, "orgs", `{"id":7,"name":"a"}`, `{"id":8,"name":"b"}`)
			rooms(h, 10, 1, "orgs", `{"id":8,"name":"b"}`)
			rooms(h, 20, 1, "orgs", `{"id":7,"name":"a"}`, `{"id":8,"name":"b"}`)
		}, want: []string{OrgList}},
		{name: "a private repository left out of one answer in between", run: func(h *hist) {
			rooms(h, 0, 0, "repos", `{"id":7,"name":"a","private":true}`, `{"id":8,"name":"b","private":false}`)
			rooms(h, 10, 0, "repos", `{"id":8,"name":"b","private":false}`)
			rooms(h, 20, 0, "repos", `{"id":7,"name":"a","private":true}`, `{"id":8,"name":"b","private":false}`)
		}, want: []string{RepoPrivateGranted}},
		{name: "a public repository left out of one answer in between", run: func(h *hist) {
			rooms(h, 0, 0, "repos", `{"id":7,"name":"a","private":false}`)
			rooms(h, 10, 0, "repos")
			rooms(h, 20, 0, "repos", `{"id":7,"name":"a","private":false}`)
		}, want: []string{RepoList}},
		{name: "entries with ids of another type are not followed", run: func(h *hist) {
			rooms(h, 0, 0, "repos", `{"id":"7","name":"a"}`)
			rooms(h, 10, 0, "repos")
			rooms(h, 20, 0, "repos", `{"id":"7","name":"a"}`)
		}},
		{name: "with other clients, a room added during the run may lag", opt: shared, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", org)
			rooms(h, 10, 0, "rooms", dm, org)
			rooms(h, 20, 0, "rooms", org)
			rooms(h, 30, 0, "rooms", dm, org)
		}},
		{name: "with other clients, a room the user had before the run does not lag", opt: shared, run: func(h *hist) {
			rooms(h, 0, 0, "rooms", dm, org)
			rooms(h, 10, 0, "rooms", org)
			rooms(h, 20, 0, "rooms", dm, org)
		}, want: []string{RoomKinds}},
	})
}
