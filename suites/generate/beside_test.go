package generate

import (
	"strings"
	"testing"
)

// What the others' writes account for, read by read: only what they named,
// and of a page no more messages gone than came.
func TestOthersAccountOnlyForWhatTheyNamed(t *testing.T) {
	named := func(ids ...string) func(string) bool {
		return func(s string) bool {
			for _, id := range ids {
				if s == id {
					return true
				}
			}
			return false
		}
	}
	page := func(ms ...string) string { return "200 " + projectPage([]byte("["+strings.Join(ms, ",")+"]")) }
	msg := func(id, text string, readBy int) string {
		return `{"id":"` + id + `","text":"` + text + `","v":1,"editedAt":null,"unread":false,"readBy":` + string(rune('0'+readBy)) + `}`
	}
	unread := func(chat string) string { return "200 " + projectUnread([]byte(`{"chat":[`+chat+`],"mention":[]}`)) }
	cases := []struct {
		name          string
		f             accountFor
		before, after string
		named         func(string) bool
		want          bool
	}{
		{"a message another check sent enters a full page and the oldest leaves", pageAccounted,
			page(msg("a", "x", 0), msg("b", "y", 0)), page(msg("b", "y", 0), msg("c", "theirs", 0)), named("c"), true},
		{"a message nobody sent enters", pageAccounted,
			page(msg("a", "x", 0), msg("b", "y", 0)), page(msg("b", "y", 0), msg("c", "theirs", 0)), named("z"), false},
		{"a message enters by the text another check sent", pageAccounted,
			page(msg("a", "x", 0)), page(msg("a", "x", 0), msg("c", "theirs", 0)), named("theirs"), true},
		{"two messages leave for one that came", pageAccounted,
			page(msg("a", "x", 0), msg("b", "y", 0)), page(msg("c", "theirs", 0)), named("c"), false},
		{"a message another check marked read changes", pageAccounted,
			page(msg("a", "x", 0)), page(msg("a", "x", 1)), named("a"), true},
		{"a message nobody wrote changes", pageAccounted,
			page(msg("a", "x", 0), msg("b", "y", 0)), page(msg("a", "x", 1), msg("b", "y", 0)), named("b"), false},
		{"the page is refused after", pageAccounted, page(msg("a", "x", 0)), "404", named("a"), false},
		{"an unread item of another check's message comes and one it marked goes", unreadAccounted,
			unread(`"a","b"`), unread(`"b","c"`), named("a", "c"), true},
		{"an unread item nobody named goes", unreadAccounted, unread(`"a","b"`), unread(`"b"`), named("c"), false},
		{"the targeted message, named", messageAccounted, "200 " + msg("a", "x", 0), "200 " + msg("a", "x", 1), named("a"), true},
		{"the targeted message, not named", messageAccounted, "200 " + msg("a", "x", 0), "200 " + msg("a", "z", 0), named("b"), false},
		{"another message answered for the targeted one", messageAccounted, "200 " + msg("a", "x", 0), "200 " + msg("b", "x", 0), named("a", "b"), false},
		{"a room another check hid leaves the list", roomsAccounted, "200 r1,r2", "200 r1", named("r2"), true},
		{"a room nobody hid leaves the list", roomsAccounted, "200 r1,r2", "200 r1", named("r1"), false},
	}
	for _, c := range cases {
		if got := c.f(c.before, c.after, c.named); got != c.want {
			t.Errorf("%s: accounted %v, want %v", c.name, got, c.want)
		}
	}
}
