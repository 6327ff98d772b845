package history

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The rules that need the whole history: they compare answers in real time
// and count writes, so they run when Check is called, over the facts
// merged so far. Nothing here changes the state.

// checker is one pass of Check.
type checker struct {
	st    *state
	found collector
	lag   int64    // Options.Eventually in nanoseconds
	done  []uint32 // per message: requirements reported (online ones included)
	// per room: requirements reported (online ones included)
	roomDone []uint8
}

func (st *state) check() []Contradiction {
	c := &checker{st: st, found: st.found.clone(), lag: int64(st.opt.Eventually), done: make([]uint32, len(st.msgs))}
	for i := range st.msgs {
		c.done[i] = st.msgs[i].reported
	}
	for i := range st.msgs {
		c.message(int32(i))
	}
	keys := make([]readKey, 0, len(st.reads))
	for k := range st.reads {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b readKey) int { return cmp.Or(cmp.Compare(a.msg, b.msg), cmp.Compare(a.user, b.user)) })
	for _, k := range keys {
		c.unread(k, st.reads[k])
	}
	c.roomDone = make([]uint8, len(st.rooms))
	for i := range st.rooms {
		c.roomDone[i] = st.rooms[i].done
		c.roomURLs(&st.rooms[i])
		c.roomKind(i)
	}
	for i := range st.users {
		c.mentionNames(&st.users[i])
	}
	c.listFlicker()
	return st.result(&c.found)
}

func (c *checker) start(id int32) int64 { return c.st.ex[id].start }
func (c *checker) end(id int32) int64   { return c.st.ex[id].end }

// once is state.once for the offline pass.
func (c *checker) once(mi int32, req string) bool {
	b := reqBit(req)
	if c.done[mi]&b != 0 {
		return false
	}
	c.done[mi] |= b
	return c.found.note(req)
}

func (c *checker) reported(mi int32, req string) bool { return c.done[mi]&reqBit(req) != 0 }

func (c *checker) message(mi int32) {
	m := &c.st.msgs[mi]
	c.editedAtOrder(mi, m)
	if !c.st.opt.Shared {
		c.editCount(mi, m)
	}
	c.persisted(mi, m)
	c.vNeverDown(mi, m)
	c.readByNeverDown(mi, m)
	if !c.st.opt.Shared {
		c.getSafeV(mi, m)
		c.getSafeReadBy(mi, m)
	}
	c.senderUnread(mi, m)
}

// editedAtOrder: as v rises, editedAt does not go back.
func (c *checker) editedAtOrder(mi int32, m *msgState) {
	var set []*verState
	for i := range m.vers {
		if v := &m.vers[i]; v.v > 1 && v.editedKind == editedSet && v.editedOK {
			set = append(set, v)
		}
	}
	slices.SortFunc(set, func(a, b *verState) int { return cmp.Compare(a.v, b.v) })
	for i := 1; i < len(set); i++ {
		for j := range i {
			a, b := set[j], set[i]
			if a.put >= 0 && b.put >= 0 && c.start(a.put) < c.end(b.put) && c.start(b.put) < c.end(a.put) {
				continue // concurrent edits: a server may take the time before it takes the number
			}
			if cmpInstant(a.edited, b.edited) > 0 && c.once(mi, MsgEditEditedAt) {
				c.found.add(MsgEditEditedAt, []int32{a.first, b.first}, "Message %s was edited at %s at v %d (%s) but at %s at v %d (%s): a later edit cannot have happened earlier.",
					quote(m.id), a.edited, a.v, c.st.desc(a.first), b.edited, b.v, c.st.desc(b.first))
				return
			}
		}
	}
}

// editCount: the n successful edits of a message the run sent answer
// exactly v 2..n+1 (only when the run is the only writer).
func (c *checker) editCount(mi int32, m *msgState) {
	if m.send < 0 || m.sendV != 1 || len(m.edits) == 0 || c.reported(mi, MsgEditVInc) {
		return
	}
	vs := make([]int32, 0, len(m.edits))
	for _, ed := range m.edits {
		if !ed.hasV {
			return
		}
		vs = append(vs, ed.v)
	}
	slices.Sort(vs)
	for i, v := range vs {
		if v == int32(i)+2 {
			continue
		}
		var bad int32 = -1
		for _, ed := range m.edits {
			if ed.v == v {
				bad = ed.ex
				break
			}
		}
		if c.once(mi, MsgEditVInc) {
			c.found.add(MsgEditVInc, []int32{m.send, bad}, "The run sent message %s (%s, v 1) and edited it successfully %d times, so its edits answer v 2 to %d, each once; they answered %s, among them v %d (%s).",
				quote(m.id), c.st.desc(m.send), len(vs), len(vs)+1, list(vs), v, c.st.desc(bad))
		}
		return
	}
}

// persisted: a read that started after every edit of the message ended
// (and Eventually more) shows the text of the edit answered with the
// highest v. A read of a higher v is left to the other rules (an outside
// edit, or a v that moved without a write).
func (c *checker) persisted(mi int32, m *msgState) {
	var top *editRec
	for i := range m.edits {
		if ed := &m.edits[i]; ed.hasV && (top == nil || ed.v > top.v) {
			top = ed
		}
	}
	if top == nil {
		return
	}
	topVer := m.version(top.v)
	if topVer == nil || !topVer.hasText || c.reported(mi, MsgStable) || c.reported(mi, MsgEditVInc) {
		return // with MSG-STABLE or an edit's v not kept, the text kept for a v is not the only one it was answered with
	}
	var last int64
	for _, p := range m.puts {
		last = max(last, c.end(p))
	}
	for i := range m.vers {
		ver := &m.vers[i]
		if ver.v >= top.v || !ver.hasText || ver.text == topVer.text || ver.get.maxStart < 0 {
			continue
		}
		if r := ver.get.maxStart; c.start(r) > last+c.lag && c.once(mi, MsgEditPersisted) {
			c.found.add(MsgEditPersisted, []int32{top.ex, r}, "The edit %s answered message %s with v %d; every edit of it had ended when %s began (%s later), yet that read shows the text of v %d.",
				c.st.desc(top.ex), quote(m.id), top.v, c.st.desc(r), dur(c.start(r)-last), ver.v)
			return
		}
	}
}

// vNeverDown: no answer starts after another ended and shows a lower v,
// beyond Eventually after the edit that first answered the higher one.
func (c *checker) vNeverDown(mi int32, m *msgState) {
	if c.reported(mi, MsgEditPersisted) || c.reported(mi, MsgEditVInc) {
		return
	}
	for i := range m.vers {
		a := &m.vers[i]
		A := a.any.minEnd
		if A < 0 {
			continue
		}
		w := c.end(A)
		if a.put >= 0 {
			w = c.end(a.put)
		}
		threshold := max(c.end(A), w+c.lag)
		for j := range m.vers {
			b := &m.vers[j]
			if b.v >= a.v || b.any.maxStart < 0 {
				continue
			}
			if B := b.any.maxStart; c.start(B) > threshold && c.once(mi, MsgEditVInc) {
				c.found.add(MsgEditVInc, []int32{A, B}, "Message %s had v %d in %s, yet %s, which began after it ended%s, shows v %d: v never goes down.",
					quote(m.id), a.v, c.st.desc(A), c.st.desc(B), c.lagText(a.put, B), b.v)
				return
			}
		}
	}
}

// lagText says how late an answer came after the write that opened the
// Eventually window, when there is one.
func (c *checker) lagText(write, later int32) string {
	if write < 0 {
		return ""
	}
	return fmt.Sprintf(" and %s after the edit that made that v ended (%s)", dur(c.start(later)-c.end(write)), c.st.desc(write))
}

// readByNeverDown: readBy never goes down, beyond Eventually after the
// last mark-read that could have raised it.
func (c *checker) readByNeverDown(mi int32, m *msgState) {
	outside := c.st.opt.Shared && m.send < 0
	for i := range m.rbs {
		a := &m.rbs[i]
		A := a.any.minEnd
		if A < 0 {
			continue
		}
		w, mark := c.end(A), int32(-1)
		if !outside {
			for _, mk := range m.marks {
				if c.start(mk) < c.end(A) && (mark < 0 || c.end(mk) > c.end(mark)) {
					mark = mk
				}
			}
			if mark >= 0 {
				w = c.end(mark)
			}
		}
		threshold := max(c.end(A), w+c.lag)
		for j := range m.rbs {
			b := &m.rbs[j]
			if b.n >= a.n || b.any.maxStart < 0 {
				continue
			}
			if B := b.any.maxStart; c.start(B) > threshold && c.once(mi, UnreadReadBy) {
				extra := ""
				if mark >= 0 {
					extra = fmt.Sprintf(" and %s after the last mark-read naming it ended (%s)", dur(c.start(B)-c.end(mark)), c.st.desc(mark))
				}
				c.found.add(UnreadReadBy, []int32{A, B}, "Message %s had readBy %d in %s, yet %s, which began after it ended%s, shows readBy %d: users who read a message stay counted.",
					quote(m.id), a.n, c.st.desc(A), c.st.desc(B), extra, b.n)
				return
			}
		}
	}
}

// explains reports whether write w can explain a change seen between an
// earlier answer r1 and a later one r2: it started before r2 ended, and
// r1 may not have seen it yet (r1 started no later than Eventually after
// w ended).
func (c *checker) explains(w, r1, r2 int32) bool {
	return w != r1 && c.start(w) < c.end(r2) && c.end(w)+c.lag >= c.start(r1)
}

// witnesses are the pairs of answers (earlier, later) worth testing for a
// change between two facts: the first to end of one with the last to start
// of the other, and the last to start of one with the first to end of the
// other.
func witnesses(a, b span) [2][2]int32 {
	return [2][2]int32{{a.minEnd, b.maxStart}, {a.maxStart, b.minEnd}}
}

// getSafeV: v rises between two answers only by as many edits as can
// explain it.
func (c *checker) getSafeV(mi int32, m *msgState) {
	if c.reported(mi, HTTPGetSafe) || c.reported(mi, MsgStable) || c.reported(mi, MsgEditVInc) {
		return // where edits number wrongly, a v no edit explains is not a read's doing
	}
	for i := range m.vers {
		for j := range m.vers {
			a, b := &m.vers[i], &m.vers[j]
			if a.v >= b.v {
				continue
			}
			for _, p := range witnesses(a.any, b.get) {
				r1, r2 := p[0], p[1]
				if r1 < 0 || r2 < 0 || c.end(r1) >= c.start(r2) {
					continue
				}
				n := 0
				for _, w := range m.puts {
					if c.explains(w, r1, r2) {
						n++
					}
				}
				if int64(n) < int64(b.v)-int64(a.v) && c.once(mi, HTTPGetSafe) {
					c.found.add(HTTPGetSafe, []int32{r1, r2}, "Message %s had v %d in %s and v %d in %s, which began after it ended, with %s of it in between to explain the change; reads must not change a message.",
						quote(m.id), a.v, c.st.desc(r1), b.v, c.st.desc(r2), count(n, "edit"))
					return
				}
			}
		}
	}
}

// getSafeReadBy: readBy rises between two answers only by as many writes
// naming the message or its room as can explain it.
func (c *checker) getSafeReadBy(mi int32, m *msgState) {
	if c.reported(mi, HTTPGetSafe) || c.reported(mi, UnreadReadBy) {
		return
	}
	for i := range m.rbs {
		for j := range m.rbs {
			a, b := &m.rbs[i], &m.rbs[j]
			if a.n >= b.n {
				continue
			}
			for _, p := range witnesses(a.any, b.get) {
				r1, r2 := p[0], p[1]
				if r1 < 0 || r2 < 0 || c.end(r1) >= c.start(r2) {
					continue
				}
				n := c.roomWrites(m, r1, r2, -1)
				if int64(n) < int64(b.n)-int64(a.n) && c.once(mi, HTTPGetSafe) {
					c.found.add(HTTPGetSafe, []int32{r1, r2}, "Message %s had readBy %d in %s and readBy %d in %s, which began after it ended, with %s naming it or its room in between to explain the change; reads must not mark a message read.",
						quote(m.id), a.n, c.st.desc(r1), b.n, c.st.desc(r2), count(n, "write"))
					return
				}
			}
		}
	}
}

// roomWrites counts the writes that can explain a change of message m
// between r1 and r2: mark-reads naming it and writes to its room (by user
// `by` only, when by >= 0).
func (c *checker) roomWrites(m *msgState, r1, r2 int32, by int16) int {
	n := 0
	if m.pathRoom >= 0 {
		for _, w := range c.st.rooms[m.pathRoom].writes {
			e := &c.st.ex[w]
			if (by < 0 || e.user == by || e.subject == by) && c.explains(w, r1, r2) {
				n++
			}
		}
	}
	for _, w := range m.marks {
		if c.st.ex[w].room != m.pathRoom && c.explains(w, r1, r2) {
			n++
		}
	}
	return n
}

// unread judges one user's unread state of one message: after the user
// marked it read, it is not unread again; and reads alone do not make it
// read.
func (c *checker) unread(k readKey, r *readState) {
	m := &c.st.msgs[k.msg]
	// Only a mark made under the message's own room counts: marking a
	// message of another room read under this room's path may be ignored
	// by a server (what it does with such an id is not stated).
	if y := r.yes.maxStart; r.mark >= 0 && y >= 0 && c.st.ex[r.mark].room == m.pathRoom && c.start(y) > c.end(r.mark)+c.lag && c.once(k.msg, UnreadMarkRead) {
		c.found.add(UnreadMarkRead, []int32{r.mark, y}, "User %d marked message %s read (%s), yet %s, which began %s after that ended, still gives it as unread for user %d.",
			k.user+1, quote(m.id), c.st.desc(r.mark), c.st.desc(y), dur(c.start(y)-c.end(r.mark)), k.user+1)
	}
	if c.st.opt.Shared || c.reported(k.msg, HTTPGetSafe) {
		return
	}
	// explained: a write of the user in the room, or a mark-read naming the
	// message, lies between r1 and r2 (or just before r1).
	explained := func(r1, r2 int32) bool {
		return c.end(r1) >= c.start(r2) || c.roomWrites(m, r1, r2, k.user) > 0 || c.countMarks(m, r1, r2) > 0
	}
	for _, p := range witnesses(r.flag, r.no) {
		if r1, r2 := p[0], p[1]; r1 >= 0 && r2 >= 0 && !explained(r1, r2) && c.once(k.msg, HTTPGetSafe) {
			c.found.add(HTTPGetSafe, []int32{r1, r2}, "Message %s was unread for user %d in %s and read in %s, which began after it ended, with no write of user %d in its room and no mark-read naming it in between; reads must not mark a message read.",
				quote(m.id), k.user+1, c.st.desc(r1), c.st.desc(r2), k.user+1)
			return
		}
	}
	// The unread lists and the flag disagree, in either order, with no
	// write between: the flag is wrong (a read that marked the message
	// read would have raised readBy too, reported above as HTTP-GET-SAFE).
	if c.reported(k.msg, HTTPGetSafe) {
		return
	}
	pairs := witnesses(r.listed, r.no)
	back := witnesses(r.no, r.listed)
	for _, p := range append(pairs[:], back[:]...) {
		if r1, r2 := p[0], p[1]; r1 >= 0 && r2 >= 0 && !explained(r1, r2) && c.once(k.msg, UnreadFlag) {
			c.found.add(UnreadFlag, []int32{r1, r2}, "Message %s is %s for user %d in %s and %s in %s, which began after it ended, with no write of user %d in its room and no mark-read naming it in between: the unread lists and the unread flag disagree.",
				quote(m.id), readWord(c.st.ex[r1].op), k.user+1, c.st.desc(r1), readWord(c.st.ex[r2].op), c.st.desc(r2), k.user+1)
			return
		}
	}
}

// readWord says what an answer of op says of a message in a readState:
// an unread list holds it, a message answer flags it read.
func readWord(op opKind) string {
	if op == opUnread {
		return "listed unread"
	}
	return "flagged read"
}

// countMarks counts the mark-reads naming m (by anyone) that explain a
// change between r1 and r2.
func (c *checker) countMarks(m *msgState, r1, r2 int32) int {
	n := 0
	for _, w := range m.marks {
		if c.explains(w, r1, r2) {
			n++
		}
	}
	return n
}

// roomURLs: a room has one url for every user, and a one-to-one room one
// url per user.
func (c *checker) roomURLs(r *roomState) {
	if r.reported || len(r.urls) < 2 {
		return
	}
	oneToOne := r.oto == 1 || r.hasPT && r.pt == "ONETOONE"
	for i := 1; i < len(r.urls); i++ {
		for j := range i {
			a, b := &r.urls[j], &r.urls[i]
			if a.url == b.url || oneToOne && a.viewer != b.viewer {
				continue
			}
			if c.found.note(RoomStable) {
				how := "for every user"
				if oneToOne {
					how = "for one user, one-to-one as it is"
				}
				c.found.add(RoomStable, []int32{a.ex, b.ex}, "Room %s has url %s in %s but %s in %s; its url is the same wherever it is listed %s.",
					quote(r.id), quote(a.url), c.st.desc(a.ex), quote(b.url), c.st.desc(b.ex), how)
			}
			return
		}
	}
}

// mentionNames: a mention names the user by the user's username.
func (c *checker) mentionNames(u *userState) {
	if u.reported || !u.hasUsername {
		return
	}
	for _, n := range u.mentions {
		if !strings.EqualFold(n.name, u.username) {
			if c.found.note(UserStable) {
				c.found.add(UserStable, []int32{u.usernameEx, n.ex}, "User %s has username %s in %s, but a mention of that user in %s gives screenName %s.",
					quote(u.id), quote(u.username), c.st.desc(u.usernameEx), c.st.desc(n.ex), quote(n.name))
			}
			return
		}
	}
}

func list(vs []int32) string {
	parts := make([]string, 0, min(len(vs), 12))
	for i, v := range vs {
		if i == 11 {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(vs)))
			break
		}
		parts = append(parts, fmt.Sprint(v))
	}
	return strings.Join(parts, ", ")
}

func count(n int, what string) string {
	switch n {
	case 0:
		return "no " + what
	case 1:
		return "one " + what
	}
	return fmt.Sprintf("only %d %ss", n, what)
}

// dur prints a duration given in nanoseconds.
func dur(ns int64) string {
	return time.Duration(ns).String()
}
