package reference

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/fixtures"
)

func ids(ms []MessageView) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func ascending(t *testing.T, what string, ms []MessageView) {
	t.Helper()
	for i := 1; i < len(ms); i++ {
		if ms[i].ID <= ms[i-1].ID || ms[i].Sent < ms[i-1].Sent {
			t.Fatalf("%s: not ascending at %d: %s then %s", what, i, ms[i-1].ID, ms[i].ID)
		}
	}
}

func TestPagingTheHistoryRoom(t *testing.T) {
	h := newHarness(t, Config{})
	room := h.world.Hints.Org
	var history []fixtures.Message
	for _, r := range h.world.Rooms {
		if r.ID == room {
			history = r.Messages
		}
	}
	n := len(history)
	newest := func(k int) []string {
		out := make([]string, 0, k)
		for _, m := range history[n-k:] {
			out = append(out, m.ID)
		}
		return out
	}
	same := func(what string, got []MessageView, want []string) {
		t.Helper()
		ascending(t, what, got)
		if strings.Join(ids(got), ",") != strings.Join(want, ",") {
			t.Errorf("%s: got %d messages %v..., want %d", what, len(got), first(ids(got)), len(want))
		}
	}
	at := func(i int) string { return history[i].ID }
	span := func(from, to int) []string { // history[from:to]
		out := []string{}
		for _, m := range history[max(0, from):min(n, to)] {
			out = append(out, m.ID)
		}
		return out
	}

	same("default", h.list(0, room, ""), newest(50))
	same("limit=0", h.list(0, room, "?limit=0"), newest(50))
	same("limit=100", h.list(0, room, "?limit=100"), newest(100))
	var clamped []MessageView // limit above the document's bound: a deliberately invalid request
	h.do(call{method: "GET", path: "/v1/rooms/" + room + "/chatMessages?limit=150", invalid: true}).decode(t, &clamped)
	same("limit=150 is clamped", clamped, newest(100))
	same("skip=10", h.list(0, room, "?limit=5&skip=10"), span(n-15, n-10))
	same("skip=5000", h.list(0, room, "?limit=3&skip=5000"), span(n-5003, n-5000))
	same("beforeId", h.list(0, room, "?limit=4&beforeId="+at(100)), span(96, 100))
	same("afterId", h.list(0, room, "?limit=4&afterId="+at(100)), span(101, 105))
	same("afterId near the end", h.list(0, room, "?limit=10&afterId="+at(n-3)), span(n-2, n))
	same("afterId and beforeId", h.list(0, room, "?limit=50&afterId="+at(10)+"&beforeId="+at(14)), span(11, 14))
	same("aroundId", h.list(0, room, "?limit=6&aroundId="+at(200)), span(198, 204))
	same("aroundId limit 1", h.list(0, room, "?limit=1&aroundId="+at(200)), span(200, 201))
	same("aroundId at the start", h.list(0, room, "?limit=10&aroundId="+at(1)), span(0, 7))
	same("beforeId the oldest", h.list(0, room, "?beforeId="+at(0)), nil)

	// The document's recipe walks the whole history, limits 50 and 100.
	for _, limit := range []int{50, 100} {
		seen := map[string]bool{}
		page := h.list(0, room, fmt.Sprintf("?limit=%d", limit))
		pages := 1
		for {
			for _, m := range page {
				if seen[m.ID] {
					t.Fatalf("limit %d: %s twice", limit, m.ID)
				}
				seen[m.ID] = true
			}
			if len(page) < limit {
				break
			}
			page = h.list(0, room, fmt.Sprintf("?limit=%d&beforeId=%s", limit, page[0].ID))
			pages++
		}
		if len(seen) != n || pages != n/limit+1 {
			t.Errorf("limit %d: walked %d messages in %d pages, want %d in %d", limit, len(seen), pages, n, n/limit+1)
		}
	}
}

func TestSearch(t *testing.T) {
	h := newHarness(t, Config{})
	room := h.world.Hints.WriteRoom
	a := h.send(0, room, "the Quokka jumps high")
	h.send(0, room, "nothing to see")
	b := h.send(1, room, "a quokka JUMPS again")
	h.send(1, room, "jumps without the animal")
	same := func(query string, want ...string) {
		t.Helper()
		got := h.list(0, room, query)
		if strings.Join(ids(got), ",") != strings.Join(want, ",") {
			t.Errorf("%s: got %v, want %v", query, ids(got), want)
		}
	}
	same("?q=quokka", a.ID, b.ID)
	same("?q=QUOKKA+jumps", a.ID, b.ID)
	same("?q=quokka+again", b.ID)
	same("?q=quokka&limit=1", b.ID) // newest match selected
	same("?q=platypus")
}

func first(s []string) []string { return s[:min(3, len(s))] }
