package generate

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/chatrooms/conformance/suites/client"
)

// Beside other checks (Config.Quiet), GEN-REFUSED-NO-CHANGE and
// GEN-GET-NO-CHANGE read the state, send and read it again while the
// other checks go on writing to the write room. A change seen across a
// request is first held to the writes of the other checks that overlap
// the two reads (client.WriteLog): when each difference is one that
// those writes name (a message another check sent, edited or marked
// read, an unread item of such a message, a room another check hid),
// the request is not suspected. Any other difference is confirmed as in
// turn, inside a quiet window: holding it means every write of the others
// let through has ended and is in the log, so the difference is held to
// the complete log once more, and only then put to flickers and blame.
// The second try of blame (caused) is held to the log the same way: a
// write of the others answered before the window may show only inside it.
//
// What the others' writes account for is decided by ids, never by time
// or count alone: a request that changes another message than the one
// another check wrote, or an unread item nobody named, is confirmed.
// Dropped messages of the newest page are the one exception, counted: as
// many may leave the page as the others' messages that entered it. The
// others' writes are looked at from Config.Settle before the first read
// (a write answered earlier may show late on an eventually consistent
// server) to the end of the second.

// accountFor says whether the writes named account for a state read's
// change from before to after (values as readOne keeps them: the status,
// and for a 200 the projected body).
type accountFor func(before, after string, named func(string) bool) bool

// explained reports whether the writes of other checks than ctx's
// account for every difference between two snapshots of one case's state
// (see the comment at the top of this file). false when the client keeps
// no log of writes.
func (e *Engine) explained(ctx context.Context, before, after snapshot) bool {
	if len(before.reads) != len(after.reads) || before.sent.IsZero() {
		return false
	}
	ws, ok := e.cfg.Client.Writes().Overlapping(client.CheckOf(ctx), before.sent.Add(-e.cfg.Settle), after.read)
	if !ok || len(ws) == 0 {
		return false
	}
	named := func(s string) bool {
		for _, w := range ws {
			if w.Names(s) {
				return true
			}
		}
		return false
	}
	for i, b := range before.reads {
		a := after.reads[i]
		if a.what != b.what {
			return false
		}
		if a.value != b.value && (b.others == nil || !b.others(b.value, a.value, named)) {
			return false
		}
	}
	return true
}

// bodies returns the projected bodies of two reads answered 200 each.
func bodies(before, after string) (b, a string, ok bool) {
	b, okb := strings.CutPrefix(before, "200 ")
	a, oka := strings.CutPrefix(after, "200 ")
	return b, a, okb && oka
}

// unreadAccounted: every id that entered or left either list is named.
func unreadAccounted(before, after string, named func(string) bool) bool {
	bb, ab, ok := bodies(before, after)
	if !ok {
		return false
	}
	var b, a struct{ Chat, Mention []string }
	if json.Unmarshal([]byte(bb), &b) != nil || json.Unmarshal([]byte(ab), &a) != nil {
		return false
	}
	return allNamed(symmetricDiff(b.Chat, a.Chat), named) && allNamed(symmetricDiff(b.Mention, a.Mention), named)
}

// messageAccounted: the message is the same one, and named.
func messageAccounted(before, after string, named func(string) bool) bool {
	bb, ab, ok := bodies(before, after)
	if !ok {
		return false
	}
	var b, a msgState
	if json.Unmarshal([]byte(bb), &b) != nil || json.Unmarshal([]byte(ab), &a) != nil {
		return false
	}
	return b.ID != "" && b.ID == a.ID && named(b.ID)
}

// pageAccounted: every message that entered the page is named (by its id,
// or by its text, which the send carried), every message on both sides
// that changed is named, and no more messages left than entered.
func pageAccounted(before, after string, named func(string) bool) bool {
	bb, ab, ok := bodies(before, after)
	if !ok {
		return false
	}
	var b, a []msgState
	if json.Unmarshal([]byte(bb), &b) != nil || json.Unmarshal([]byte(ab), &a) != nil {
		return false
	}
	was := map[string]string{}
	for _, m := range b {
		if m.ID == "" {
			return false
		}
		out, _ := json.Marshal(m)
		was[m.ID] = string(out)
	}
	entered := 0
	for _, m := range a {
		old, ok := was[m.ID]
		switch {
		case m.ID == "":
			return false
		case !ok:
			if !named(m.ID) && (m.Text == "" || !named(m.Text)) {
				return false
			}
			entered++
		default:
			delete(was, m.ID)
			if out, _ := json.Marshal(m); string(out) != old && !named(m.ID) {
				return false
			}
		}
	}
	return len(was) <= entered
}

// roomsAccounted: every room that entered or left the list is named.
func roomsAccounted(before, after string, named func(string) bool) bool {
	bb, ab, ok := bodies(before, after)
	if !ok {
		return false
	}
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	return allNamed(symmetricDiff(split(bb), split(ab)), named)
}

// symmetricDiff returns what is in one of a and b and not in the other.
func symmetricDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	return out
}

func allNamed(ids []string, named func(string) bool) bool {
	for _, id := range ids {
		if !named(id) {
			return false
		}
	}
	return true
}
