package history

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/chatrooms/conformance/suites/client"
)

// exRec is what is kept of an exchange: enough to place it in time and to
// report it.
type exRec struct {
	start, end int64 // nanoseconds from the first exchange's start (monotonic)
	at, till   time.Time
	user       int16 // token index, -1 none
	subject    int16 // token index of the user the path names ("me" or the caller's id), -1 otherwise
	op         opKind
	status     int16
	room       int32 // room the path names, -1 none
	msg        int32 // message an edit's path names, -1 none
	path       string
	reproduce  string
}

// span remembers, among the answers stating one fact, the one that ended
// first and the one that started last: the witnesses that matter for the
// real-time rules (an answer A ended before B started).
type span struct{ minEnd, maxStart int32 }

var noSpan = span{-1, -1}

func (s *span) add(st *state, ex int32) {
	if s.minEnd < 0 || st.ex[ex].end < st.ex[s.minEnd].end {
		s.minEnd = ex
	}
	if s.maxStart < 0 || st.ex[ex].start > st.ex[s.maxStart].start {
		s.maxStart = ex
	}
}

// verState is one version (v) of a message as answered.
type verState struct {
	v                int32
	text, html, meta uint64
	hasText, hasHTML bool
	editedKind       int8
	editedRaw        uint64
	edited           instant
	editedOK         bool
	first            int32 // the first answer with this v
	any, get         span  // every answer with it; GET answers with it
	put              int32 // the earliest-ending 2xx edit answering it, -1
}

// rbState is one readBy value of a message as answered.
type rbState struct {
	n        int32
	any, get span
}

type editRec struct {
	ex      int32
	v       int32
	hasV    bool
	text    uint64 // hash of the text the edit answered, when hasText
	hasText bool
}

type msgState struct {
	id       string
	room     int32 // room it was first answered under (where the room counts), -1
	roomEx   int32
	pathRoom int32 // room of the first path it was seen under, any operation, -1
	hasSent  bool
	sentOK   bool
	sentRaw  uint64
	sent     instant
	sentEx   int32
	from     int32 // user index, -1
	fromEx   int32
	send     int32 // the 2xx send that created it, -1
	sendV    int32
	sendRead bool   // that send answered it with unread false
	page     int32  // last page it was listed in, -1
	reported uint32 // requirements already reported for it
	vers     []verState
	rbs      []rbState
	puts     []int32   // every edit request naming it, any status
	edits    []editRec // 2xx edits answered with it
	marks    []int32   // every mark-read naming it, any status
}

func (m *msgState) version(v int32) *verState {
	for i := range m.vers {
		if m.vers[i].v == v {
			return &m.vers[i]
		}
	}
	return nil
}

type roomURL struct {
	viewer, url string
	ex          int32
}

type roomState struct {
	id       string
	pt       string
	hasPT    bool
	ptEx     int32
	oto      int8
	otoEx    int32
	urls     []roomURL // distinct (viewer, url)
	writes   []int32   // every write whose path names the room
	reported bool      // ROOM-STABLE: its kind changed
	// The first answer showing it with uri, with user, with userCount
	// outside the channels list, and without security outside the
	// channels list (-1 none): judged against its kind by the check.
	uriEx, userEx, countEx, noSecEx int32
	selfEx                          int32  // the first own list of a user giving that user as its user, -1
	self                            string // that user's id
	kindClash                       bool   // its kind is contradicted: the kind rules do not judge it
	done                            uint8  // room requirements reported (roomBit)
}

type nameSeen struct {
	name string
	ex   int32
}

type userState struct {
	id          string
	username    string
	hasUsername bool
	usernameEx  int32
	url         string
	hasURL      bool
	urlEx       int32
	mentions    []nameSeen // distinct screenNames mentions gave it
	reported    bool
}

// readState is the unread state of one message for one user of the run.
type readState struct {
	mark   int32 // the earliest-ending 2xx mark-read by the user naming it, -1
	yes    span  // answers saying it is unread for the user (flag true, listed)
	flag   span  // answers to the user with unread true
	listed span  // the user's unread lists holding it
	no     span  // the user's GET answers with unread false
}

type readKey struct {
	msg  int32
	user int16
}

// Caps on what one fact may accumulate, so hostile answers cannot grow the
// checker without bound.
const (
	maxURLs     = 16
	maxMentions = 8
	maxVersions = 64
	maxReadBys  = 64
	maxWrites   = 1 << 16
)

type state struct {
	opt     Options
	seed    maphash.Seed
	base    time.Time
	hasBase bool
	ex      []exRec
	msgIdx  map[string]int32
	msgs    []msgState
	roomIdx map[string]int32
	rooms   []roomState
	userIdx map[string]int32
	// byUsername and byURL name the user first seen with a username, or a
	// url: a username, like the path of a user, names one user.
	byUsername, byURL map[string]int32
	users             []userState
	tokenUser         []int32 // token index -> user index, -1 (none yet), -2 (answered as several)
	reads             map[readKey]*readState
	lists             map[listKey]*listHist // rooms and channels lists (lists.go)
	found             collector
}

func (st *state) init(opt Options, seed maphash.Seed) {
	st.opt, st.seed = opt, seed
	st.msgIdx, st.roomIdx, st.userIdx = map[string]int32{}, map[string]int32{}, map[string]int32{}
	st.byUsername, st.byURL = map[string]int32{}, map[string]int32{}
	st.reads = map[readKey]*readState{}
	st.found = newCollector(opt.MaxPerRequirement)
}

func (st *state) hash(b []byte) uint64 { return maphash.Bytes(st.seed, b) }

func (st *state) msg(id []byte) int32 {
	if i, ok := st.msgIdx[string(id)]; ok {
		return i
	}
	i := int32(len(st.msgs))
	s := string(id)
	st.msgIdx[s] = i
	st.msgs = append(st.msgs, msgState{id: s, room: -1, roomEx: -1, pathRoom: -1, from: -1, fromEx: -1, send: -1, page: -1, sentEx: -1})
	return i
}

func (st *state) room(id string) int32 {
	if i, ok := st.roomIdx[id]; ok {
		return i
	}
	i := int32(len(st.rooms))
	st.roomIdx[id] = i
	st.rooms = append(st.rooms, roomState{id: id, oto: -1, ptEx: -1, otoEx: -1, uriEx: -1, userEx: -1, countEx: -1, noSecEx: -1, selfEx: -1})
	return i
}

func (st *state) user(id []byte) int32 {
	if i, ok := st.userIdx[string(id)]; ok {
		return i
	}
	i := int32(len(st.users))
	s := string(id)
	st.userIdx[s] = i
	st.users = append(st.users, userState{id: s, usernameEx: -1, urlEx: -1})
	return i
}

func (st *state) read(msg int32, user int16, create bool) *readState {
	k := readKey{msg, user}
	if r := st.reads[k]; r != nil || !create {
		return r
	}
	r := &readState{mark: -1, yes: noSpan, flag: noSpan, listed: noSpan, no: noSpan}
	st.reads[k] = r
	return r
}

// tokenUserID is the id of the user token i authenticates, "" if unknown.
//
// A token is taken to be a user only while the answers agree: when two
// tokens were answered the same user, one token two users, or a token
// another user than the description gives it (Options.UserIDs), the
// current user's answers are wrong (AUTH-CURRENT-USER's, judged by its
// checks), and nothing here is judged by who the caller is.
func (st *state) tokenUserID(i int16) string {
	if i < 0 || int(i) >= len(st.tokenUser) || st.tokenUser[i] < 0 {
		return ""
	}
	for j, u := range st.tokenUser {
		if j != int(i) && u == st.tokenUser[i] {
			return ""
		}
	}
	return st.users[st.tokenUser[i]].id
}

// subject is the token index of the user a path names when that is the
// caller itself ("me" or the caller's own id), else -1: whose unread state
// another user's path shows is not shown by the document.
func (st *state) subject(pathUser string, token int16) int16 {
	if pathUser == "" || token < 0 {
		return -1
	}
	if pathUser == "me" || pathUser == st.tokenUserID(token) {
		return token
	}
	return -1
}

// viewer names whose view a user-scoped list is.
func (st *state) viewer(pathUser string, token int16) string {
	if pathUser == "me" {
		if id := st.tokenUserID(token); id != "" {
			return id
		}
		return "me#" + strconv.Itoa(int(token))
	}
	return pathUser
}

// merge adds the facts of one exchange. ok says it answered 2xx, parsed
// that its body was read.
func (st *state) merge(o *client.Observed, op opKind, p pathParams, f *facts, parsed, ok bool) {
	if !st.hasBase {
		st.base, st.hasBase = o.Start, true
	}
	e := exRec{
		start: int64(o.Start.Sub(st.base)), end: int64(o.End.Sub(st.base)), at: o.Start, till: o.End,
		user: -1, subject: -1, op: op, status: int16(min(max(o.Status, -1), 9999)), room: -1, msg: -1,
		path: o.Path, reproduce: o.Reproduce,
	}
	if o.Query != "" {
		e.path += "?" + o.Query
	}
	if o.User >= 0 && o.User < 1<<14 {
		e.user = int16(o.User)
	}
	if p.room != "" {
		e.room = st.room(p.room)
	}
	e.subject = st.subject(p.user, e.user)
	id := int32(len(st.ex))
	st.ex = append(st.ex, e)
	if op.write() && e.room >= 0 && len(st.rooms[e.room].writes) < maxWrites {
		st.rooms[e.room].writes = append(st.rooms[e.room].writes, id)
	}

	switch op {
	case opCurrentUser:
		if parsed && f.me.hasID {
			u := st.userSeen(&f.me, id)
			if e.user >= 0 {
				for len(st.tokenUser) <= int(e.user) {
					st.tokenUser = append(st.tokenUser, -1)
				}
				switch t := st.tokenUser[e.user]; {
				case int(e.user) < len(st.opt.UserIDs) && st.opt.UserIDs[e.user] != "" && st.opt.UserIDs[e.user] != st.users[u].id:
					st.tokenUser[e.user] = -2 // answered as another user than described: not known
				case t == -1:
					st.tokenUser[e.user] = u
				case t >= 0 && t != u:
					st.tokenUser[e.user] = -2 // answered as two users: no longer known
				}
			}
		}
	case opRooms, opChannels, opOrgs, opRepos:
		if parsed {
			viewer := st.viewer(p.user, e.user)
			// The other participant of a one-to-one room is judged only in
			// the caller's own lists: whose view a path naming another
			// user shows is not stated.
			self := ""
			if e.subject >= 0 {
				self = st.tokenUserID(e.subject)
			}
			for i := range f.rooms {
				st.roomSeen(&f.rooms[i], viewer, id)
				st.roomAnswer(&f.rooms[i], op, self, id)
			}
			if op == opOrgs || op == opRepos {
				st.entryRooms(op, f.rooms, id)
			}
			st.listSeen(op, p, e.user, f, id)
		}
	case opUnread:
		if parsed && e.subject >= 0 {
			for _, list := range [2][][]byte{f.chat, f.mention} {
				for _, mid := range list {
					mi := st.msg(mid)
					if st.msgs[mi].pathRoom < 0 {
						st.msgs[mi].pathRoom = e.room
					}
					r := st.read(mi, e.subject, true)
					r.yes.add(st, id)
					r.listed.add(st, id)
				}
			}
		}
	case opMarkRead:
		for _, mid := range f.marked {
			mi := st.msg(mid)
			m := &st.msgs[mi]
			if len(m.marks) < maxWrites {
				m.marks = append(m.marks, id)
			}
			if ok && e.subject >= 0 {
				r := st.read(mi, e.subject, true)
				if r.mark < 0 || st.ex[id].end < st.ex[r.mark].end {
					r.mark = id
				}
			}
		}
	case opList:
		if !parsed {
			break
		}
		st.pageLimits(f, id)
		dup := false
		for i := range f.msgs {
			mi := st.msgSeen(f, &f.msgs[i], id, e.room, true)
			m := &st.msgs[mi]
			if m.page == id && !dup {
				dup = true
				if st.found.note(PageUnique) {
					st.found.add(PageUnique, []int32{id}, "The page %s lists message %s more than once.", st.desc(id), quote(m.id))
				}
			}
			m.page = id
		}
	case opGet:
		if parsed && len(f.msgs) == 1 {
			st.msgSeen(f, &f.msgs[0], id, e.room, true)
		}
	case opSend:
		if parsed && len(f.msgs) == 1 {
			mi := st.msgSeen(f, &f.msgs[0], id, e.room, false)
			m := &st.msgs[mi]
			if m.send < 0 {
				m.send, m.sendV, m.sendRead = id, -1, f.msgs[0].unread == 0
				if f.msgs[0].hasV {
					m.sendV = f.msgs[0].v
				}
			}
			st.sendAnswer(mi, &f.msgs[0], &f.req, id)
		}
	case opEdit:
		pm := st.msg([]byte(p.msg))
		st.ex[id].msg = pm
		if m := &st.msgs[pm]; len(m.puts) < maxWrites {
			m.puts = append(m.puts, id)
			if m.pathRoom < 0 {
				m.pathRoom = e.room
			}
		}
		if parsed && len(f.msgs) == 1 {
			mf := &f.msgs[0]
			mi := st.msgSeen(f, mf, id, e.room, false)
			if ok && mi == pm {
				st.editAnswered(mi, mf, id)
				st.editAnswer(mi, mf, &f.req, id)
			}
		}
	}
}

// pageLimits checks the length of a page against limit and the cap.
func (st *state) pageLimits(f *facts, id int32) {
	switch {
	case f.limitOK && f.limit >= 1 && f.limit <= 100 && f.count > f.limit:
		if st.found.note(PageLimit) {
			st.found.add(PageLimit, []int32{id}, "The page %s holds %d messages although it asked for at most %d.", st.desc(id), f.count, f.limit)
		}
	case f.count > 100:
		if st.found.note(LimitCap) {
			st.found.add(LimitCap, []int32{id}, "The page %s holds %d messages, more than the 100 any page may hold.", st.desc(id), f.count)
		}
	}
}

// editAnswered records a 2xx edit that answered with the message it named.
func (st *state) editAnswered(mi int32, mf *msgFact, id int32) {
	m := &st.msgs[mi]
	if len(m.edits) >= maxWrites {
		return
	}
	for _, ed := range m.edits {
		if mf.hasV && ed.hasV && ed.v == mf.v {
			if st.once(m, MsgEditVInc) {
				st.found.add(MsgEditVInc, []int32{ed.ex, id}, "Two successful edits of message %s both answered v %d: %s and %s. Each edit raises v by one, so no two edits can answer the same v (one of them was lost or not counted).",
					quote(m.id), mf.v, st.desc(ed.ex), st.desc(id))
			}
			break
		}
	}
	m.edits = append(m.edits, editRec{ex: id, v: mf.v, hasV: mf.hasV, text: mf.text, hasText: mf.hasText})
	if mf.hasV {
		if ver := m.version(mf.v); ver != nil && (ver.put < 0 || st.ex[id].end < st.ex[ver.put].end) {
			ver.put = id
		}
	}
}

// once reports whether requirement req has not been reported for message m
// yet, and marks it reported; it counts the finding either way.
func (st *state) once(m *msgState, req string) bool {
	b := reqBit(req)
	if m.reported&b != 0 {
		return false
	}
	m.reported |= b
	return st.found.note(req)
}

// msgSeen adds the facts of one message of an answer. scope is the room
// the answer places it in (-1: none); get says the answer is a GET's.
func (st *state) msgSeen(f *facts, mf *msgFact, id int32, scope int32, get bool) int32 {
	mi := st.msg(mf.id)
	m := &st.msgs[mi]
	e := &st.ex[id]
	if m.pathRoom < 0 {
		m.pathRoom = e.room
	}
	if scope >= 0 {
		switch {
		case m.room < 0:
			m.room, m.roomEx = scope, id
		case m.room != scope:
			if st.once(m, MsgRoomScope) {
				st.found.add(MsgRoomScope, []int32{m.roomEx, id}, "Message %s is answered in room %s by %s and in room %s by %s; a message is in one room only.",
					quote(m.id), quote(st.rooms[m.room].id), st.desc(m.roomEx), quote(st.rooms[scope].id), st.desc(id))
			}
		}
	}
	if mf.hasSent {
		h := st.hash(mf.sent)
		switch {
		case !m.hasSent:
			m.hasSent, m.sentRaw, m.sentEx = true, h, id
			m.sent, m.sentOK = parseInstant(mf.sent)
		case h != m.sentRaw && m.reported&reqBit(MsgStable) == 0:
			in, okIn := parseInstant(mf.sent)
			if !(okIn && m.sentOK && cmpInstant(in, m.sent) == 0) && st.once(m, MsgStable) {
				st.found.add(MsgStable, []int32{m.sentEx, id}, "Message %s was sent at %s according to %s, but at %s according to %s; the time a message was sent never changes.",
					quote(m.id), quote(m.sentText()), st.desc(m.sentEx), quote(string(mf.sent)), st.desc(id))
			}
		}
	}
	if mf.from.hasID {
		u := st.userSeen(&mf.from, id)
		switch {
		case m.from < 0:
			m.from, m.fromEx = u, id
		case m.from != u:
			if st.once(m, MsgStable) {
				st.found.add(MsgStable, []int32{m.fromEx, id}, "Message %s is from user %s according to %s, but from user %s according to %s; the sender of a message never changes.",
					quote(m.id), quote(st.users[m.from].id), st.desc(m.fromEx), quote(st.users[u].id), st.desc(id))
			}
		}
	}
	if mf.esc.kind != escOK {
		st.escapeFound(m, mf, id)
	}
	if mf.hasV {
		st.versionSeen(m, mf, id, get)
	}
	if mf.hasReadBy {
		var rb *rbState
		for i := range m.rbs {
			if m.rbs[i].n == mf.readBy {
				rb = &m.rbs[i]
			}
		}
		if rb == nil && len(m.rbs) < maxReadBys {
			m.rbs = append(m.rbs, rbState{n: mf.readBy, any: noSpan, get: noSpan})
			rb = &m.rbs[len(m.rbs)-1]
		}
		if rb != nil {
			rb.any.add(st, id)
			if get {
				rb.get.add(st, id)
			}
		}
	}
	if mf.unread >= 0 && e.user >= 0 {
		if mf.unread == 1 {
			r := st.read(mi, e.user, true)
			r.yes.add(st, id)
			r.flag.add(st, id)
		} else if r := st.read(mi, e.user, false); r != nil && get {
			r.no.add(st, id)
		}
	}
	for _, mn := range f.mentions[mf.mentionLo:mf.mentionHi] {
		u := &st.users[st.user(mn.userID)]
		seen := false
		for _, n := range u.mentions {
			if n.name == string(mn.screenName) {
				seen = true
				break
			}
		}
		if !seen && len(u.mentions) < maxMentions {
			u.mentions = append(u.mentions, nameSeen{name: string(mn.screenName), ex: id})
		}
	}
	return mi
}

// sentText is the sent time the first answer gave, as parsed (the raw text
// is not kept).
func (m *msgState) sentText() string {
	if m.sentOK {
		return m.sent.String()
	}
	return "(not a timestamp)"
}

// versionSeen adds an answer giving message m version mf.v.
func (st *state) versionSeen(m *msgState, mf *msgFact, id int32, get bool) {
	ver := m.version(mf.v)
	if ver == nil {
		if len(m.vers) >= maxVersions {
			return
		}
		m.vers = append(m.vers, verState{v: mf.v, text: mf.text, html: mf.html, meta: mf.meta, hasText: mf.hasText, hasHTML: mf.hasHTML,
			editedKind: mf.editedKind, first: id, any: noSpan, get: noSpan, put: -1})
		ver = &m.vers[len(m.vers)-1]
		if mf.editedKind == editedSet {
			ver.editedRaw = st.hash(mf.edited)
			ver.edited, ver.editedOK = parseInstant(mf.edited)
		}
	} else if e := &st.ex[id]; m.reported&reqBit(MsgStable) == 0 && !(ver.put >= 0 && e.op == opEdit && e.status/100 == 2 && st.msgs[e.msg].id == m.id) {
		// (Two successful edits answering one v differ as a matter of
		// course: that is reported as MSG-EDIT-V-INC, not here.)
		var differ []string
		if mf.hasText && ver.hasText && mf.text != ver.text {
			differ = append(differ, "text")
		}
		if mf.hasHTML && ver.hasHTML && mf.html != ver.html {
			differ = append(differ, "html")
		}
		if mf.meta != ver.meta {
			differ = append(differ, "urls, mentions, issues, meta or status")
		}
		if st.editedDiffers(ver, mf) {
			differ = append(differ, "editedAt")
		}
		if len(differ) > 0 {
			// Only a text or html that differs can be an edit's doing (or a
			// second edit that answered the same v): the same text with
			// other metadata or editedAt is no edit's.
			textual := slices.Contains(differ, "text") || slices.Contains(differ, "html")
			st.versionDiffers(m, ver, mf, id, join(differ), textual)
		}
	}
	if !ver.hasText && mf.hasText {
		ver.text, ver.hasText = mf.text, true
	}
	if !ver.hasHTML && mf.hasHTML {
		ver.html, ver.hasHTML = mf.html, true
	}
	ver.any.add(st, id)
	if get {
		ver.get.add(st, id)
	}

	// A send's and an edit's own answer are judged by their own rules
	// (sendAnswer, editAnswer): there the request says which of v and
	// editedAt is wrong. Elsewhere v says whether the message was edited:
	// v 1 with editedAt set breaks "null until edited"
	// (MSG-SEND-EDITEDAT-NULL), v above 1 without it breaks "after an
	// edit, editedAt holds a timestamp" (MSG-EDIT-EDITEDAT).
	e := &st.ex[id]
	own := e.op == opSend || e.op == opEdit && e.status/100 == 2 && e.msg >= 0 && st.msgs[e.msg].id == m.id
	switch {
	case own && e.op == opSend && mf.editedKind == editedSet:
		// reported by sendAnswer as MSG-SEND-EDITEDAT-NULL
	case own && (mf.editedKind != editedSet || mf.v == 1):
		// reported by sendAnswer or editAnswer
	case mf.v == 1 && mf.editedKind == editedSet && editedText(m, mf, true) != nil:
		// The text of the run's edit at v 1: the edit was not counted,
		// which is the edit's breach, not a wrong editedAt.
		if ed := editedText(m, mf, true); st.once(m, MsgEditVInc) {
			st.found.add(MsgEditVInc, []int32{ed.ex, id}, "The edit %s answered message %s with its new text, yet %s gives that text at v 1 (with editedAt %s); a message starts at v 1 and each edit raises it.",
				st.desc(ed.ex), quote(m.id), st.desc(id), quote(string(mf.edited)))
		}
	case mf.v == 1 && mf.editedKind == editedSet:
		if st.once(m, MsgSendEditedAtNull) {
			st.found.add(MsgSendEditedAtNull, []int32{id}, "Message %s has v 1, never edited, yet %s gives it editedAt %s; editedAt is null until the first edit, which makes v 2.",
				quote(m.id), st.desc(id), quote(string(mf.edited)))
		}
	case mf.v > 1 && (mf.editedKind == editedNull || mf.editedKind == editedAbsent):
		if st.once(m, MsgEditEditedAt) {
			st.found.add(MsgEditEditedAt, []int32{id}, "Message %s has v %d, so it was edited, yet %s gives it no editedAt.", quote(m.id), mf.v, st.desc(id))
		}
	case mf.editedKind == editedSet && m.sentOK && m.reported&reqBit(MsgEditEditedAt) == 0:
		ed, ok := ver.edited, ver.editedOK
		if st.hash(mf.edited) != ver.editedRaw {
			ed, ok = parseInstant(mf.edited)
		}
		if ok && cmpInstant(ed, m.sent) < 0 && st.once(m, MsgEditEditedAt) {
			st.found.add(MsgEditEditedAt, []int32{m.sentEx, id}, "Message %s was sent at %s (%s) but %s says it was edited at %s, before it was sent.",
				quote(m.id), m.sent, st.desc(m.sentEx), st.desc(id), quote(string(mf.edited)))
		}
	}
}

// editedText returns the run's 2xx edit of m whose answer carried the text
// mf shows (under another v than mf's, unless anyV); nil when there is none.
func editedText(m *msgState, mf *msgFact, anyV bool) *editRec {
	for i := range m.edits {
		if ed := &m.edits[i]; ed.hasV && (anyV || ed.v != mf.v) && ed.hasText && mf.hasText && ed.text == mf.text {
			return ed
		}
	}
	return nil
}

// versionDiffers reports that answer id gives message m version mf.v
// with other content than ver, the same version as first answered. Two
// contents under one v break MSG-STABLE, unless an edit of the run's
// explains them: the edit's requirement is the one broken.
//   - The edit answered a v the message already had with other content,
//     or another answer gave the v an edit answered with other content
//     first: the edit did not raise v (MSG-EDIT-V-INC).
//   - The version was first answered by an edit, and a later answer gives
//     it other content: what the edit answered is not what was kept
//     (MSG-EDIT-PERSISTED), or, when the edit's answer did not carry the
//     text asked for (MSG-EDIT, reported by editAnswer), the edit's answer
//     was the wrong one and nothing more is said. When the later answer
//     gives the text the edit answered, only what is derived from it
//     (html, metadata) differs: the edit was kept, and one v shows two
//     renderings of one text (MSG-STABLE).
//   - A text an edit answered under one v and shown under another moved
//     between versions (MSG-EDIT-V-INC), unless an edit of that other v
//     wrote the same text again.
func (st *state) versionDiffers(m *msgState, ver *verState, mf *msgFact, id int32, differ string, textual bool) {
	edit := func(x int32) bool {
		e := &st.ex[x]
		return e.op == opEdit && e.status/100 == 2 && e.msg >= 0 && st.msgs[e.msg].id == m.id
	}
	answeredBefore := slices.ContainsFunc(m.edits, func(ed editRec) bool { return ed.hasV && ed.v == mf.v && ed.ex != ver.first })
	moved := editedText(m, mf, false) // an edit's text, shown under another v than the edit answered
	if moved != nil && slices.ContainsFunc(m.edits, func(ed editRec) bool { return ed.hasV && ed.v == mf.v && ed.hasText && ed.text == mf.text }) {
		moved = nil // an edit of this v wrote that text too (a text written again): no v moved
	}
	sameText := mf.hasText && ver.hasText && mf.text == ver.text
	switch {
	case !textual && !answeredBefore: // the same text and html, and no second edit of that v: no edit's doing
		if st.once(m, MsgStable) {
			st.found.add(MsgStable, []int32{ver.first, id}, "Message %s has v %d in %s and in %s, but its %s differ; only an edit changes them, and an edit raises v.",
				quote(m.id), mf.v, st.desc(ver.first), st.desc(id), differ)
		}
	case moved != nil && !edit(id):
		if st.once(m, MsgEditVInc) {
			st.found.add(MsgEditVInc, []int32{moved.ex, id}, "The edit %s answered message %s with v %d, yet %s gives its text under v %d: the v of an edit is kept with what it wrote.",
				st.desc(moved.ex), quote(m.id), moved.v, st.desc(id), mf.v)
		}
	case edit(id) || answeredBefore && (!edit(ver.first) || !textual):
		by := id
		if !edit(id) {
			for _, ed := range m.edits {
				if ed.hasV && ed.v == mf.v {
					by = ed.ex
					break
				}
			}
		}
		if st.once(m, MsgEditVInc) {
			st.found.add(MsgEditVInc, []int32{ver.first, by}, "The edit %s answered message %s with v %d, the v %s gave it with another %s: an edit raises v, so no two contents share one.",
				st.desc(by), quote(m.id), mf.v, st.desc(ver.first), differ)
		}
	case edit(ver.first) && m.reported&reqBit(MsgEdit) != 0:
		return // the edit's answer was the wrong one, and is reported
	case edit(ver.first) && !sameText:
		if st.once(m, MsgEditPersisted) {
			st.found.add(MsgEditPersisted, []int32{ver.first, id}, "The edit %s answered message %s with v %d, yet %s gives v %d with another %s: the message an edit answers is the one kept.",
				st.desc(ver.first), quote(m.id), mf.v, st.desc(id), mf.v, differ)
		}
	default:
		if st.once(m, MsgStable) {
			st.found.add(MsgStable, []int32{ver.first, id}, "Message %s has v %d in %s and in %s, but its %s differ; only an edit changes them, and an edit raises v.",
				quote(m.id), mf.v, st.desc(ver.first), st.desc(id), differ)
		}
	}
}

// editedDiffers reports whether an answer's editedAt differs from the one
// its version was first answered with. Only two set values are compared:
// null or absent where v says otherwise is reported by the editedAt rules
// of the answer itself, so one defect is not reported twice.
func (st *state) editedDiffers(ver *verState, mf *msgFact) bool {
	if mf.editedKind != editedSet || ver.editedKind != editedSet || st.hash(mf.edited) == ver.editedRaw {
		return false
	}
	in, ok := parseInstant(mf.edited)
	return !(ok && ver.editedOK && cmpInstant(in, ver.edited) == 0)
}

// sameName holds that one username (or url) names one user: the user
// first seen with it in an answer, by id. Another id with it breaks
// USER-STABLE once per user (a user object carrying the id of something
// else, such as a membership row, shows this way).
//
// Only a collision with a user a token of the run stands for is judged:
// a service may show accounts it no longer knows (deleted, renamed) under
// one placeholder name, and no statement says how.
func (st *state) sameName(ui int32, by map[string]int32, what, name string, id int32) {
	if name == "" {
		return
	}
	first, seen := by[name]
	switch {
	case !seen:
		by[name] = ui
	case first != ui && (slices.Contains(st.tokenUser, first) || slices.Contains(st.tokenUser, ui)) &&
		!st.users[ui].reported && !st.users[first].reported:
		st.users[ui].reported = true
		if st.found.note(UserStable) {
			ex := st.users[first].usernameEx
			if what == "url" {
				ex = st.users[first].urlEx
			}
			st.found.add(UserStable, []int32{ex, id}, "The %s %s names user %s in %s but user %s in %s.",
				what, quote(name), quote(st.users[first].id), st.desc(ex), quote(st.users[ui].id), st.desc(id))
		}
	}
}

// userSeen adds a user object of an answer and returns the user's index.
func (st *state) userSeen(uf *userFact, id int32) int32 {
	ui := st.user(uf.id)
	u := &st.users[ui]
	if uf.hasUsername {
		switch {
		case !u.hasUsername:
			u.username, u.hasUsername, u.usernameEx = string(uf.username), true, id
		case u.username != string(uf.username) && !u.reported:
			u.reported = true
			if st.found.note(UserStable) {
				st.found.add(UserStable, []int32{u.usernameEx, id}, "User %s has username %s in %s but %s in %s.",
					quote(u.id), quote(u.username), st.desc(u.usernameEx), quote(string(uf.username)), st.desc(id))
			}
		}
	}
	if uf.hasUsername {
		st.sameName(ui, st.byUsername, "username", string(uf.username), id)
	}
	if uf.hasURL {
		st.sameName(ui, st.byURL, "url", string(uf.url), id)
	}
	u = &st.users[ui]
	if uf.hasURL {
		switch {
		case !u.hasURL:
			u.url, u.hasURL, u.urlEx = string(uf.url), true, id
		case u.url != string(uf.url) && !u.reported:
			u.reported = true
			if st.found.note(UserStable) {
				st.found.add(UserStable, []int32{u.urlEx, id}, "User %s has url %s in %s but %s in %s.",
					quote(u.id), quote(u.url), st.desc(u.urlEx), quote(string(uf.url)), st.desc(id))
			}
		}
	}
	return ui
}

// platformTypes are the values of a room's platformType the document lists.
var platformTypes = []string{"ONETOONE", "ORG", "REPO", "USER_CHANNEL"}

// roomSeen adds a room object of a list.
func (st *state) roomSeen(rf *roomFact, viewer string, id int32) {
	ri := st.room(string(rf.id))
	r := &st.rooms[ri]
	// Only the values the document lists are compared: another value is
	// the shape's breach (ROOM-PLATFORM-TYPE), which the document checker
	// reports wherever it is met.
	if rf.hasPT && slices.Contains(platformTypes, string(rf.platformType)) {
		switch {
		case !r.hasPT:
			r.pt, r.hasPT, r.ptEx = string(rf.platformType), true, id
		case r.pt != string(rf.platformType) && !r.reported:
			r.reported = true
			if st.found.note(RoomStable) {
				st.found.add(RoomStable, []int32{r.ptEx, id}, "Room %s has platformType %s in %s but %s in %s.",
					quote(r.id), quote(r.pt), st.desc(r.ptEx), quote(string(rf.platformType)), st.desc(id))
			}
		}
	}
	if rf.oneToOne >= 0 {
		switch {
		case r.oto < 0:
			r.oto, r.otoEx = rf.oneToOne, id
		case r.oto != rf.oneToOne && !r.reported:
			r.reported = true
			if st.found.note(RoomStable) {
				st.found.add(RoomStable, []int32{r.otoEx, id}, "Room %s has oneToOne %t in %s but %t in %s.",
					quote(r.id), r.oto == 1, st.desc(r.otoEx), rf.oneToOne == 1, st.desc(id))
			}
		}
	}
	if rf.hasURL && len(r.urls) < maxURLs {
		seen := false
		for _, u := range r.urls {
			if u.viewer == viewer && u.url == string(rf.url) {
				seen = true
				break
			}
		}
		if !seen {
			r.urls = append(r.urls, roomURL{viewer: viewer, url: string(rf.url), ex: id})
		}
	}
	if rf.user.hasID {
		st.userSeen(&rf.user, id)
	}
}

// desc names an exchange in a text: method, path and when, and whose.
func (st *state) desc(id int32) string {
	e := &st.ex[id]
	who := "no user of the run"
	if e.user >= 0 {
		who = "user " + strconv.Itoa(int(e.user)+1)
	}
	return fmt.Sprintf("%s %s (%s, %d, %s-%s)", e.op.method(), e.path, who, e.status, clock(e.at), clock(e.till))
}

// quote cuts a value taken from an answer and quotes it.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

func join(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	out := parts[0]
	for _, p := range parts[1 : len(parts)-1] {
		out += ", " + p
	}
	return out + " and " + parts[len(parts)-1]
}

// entryRooms judges the rooms the entries of one organisations or
// repositories list embed: each is the room of its own entry, so it is of
// the entry's kind, and no two entries share one.
func (st *state) entryRooms(op opKind, rooms []roomFact, id int32) {
	req, kind, list, lists := OrgRoom, "ORG", "organisation", "organisations"
	if op == opRepos {
		req, kind, list, lists = RepoRoom, "REPO", "repository", "repositories"
	}
	for i := range rooms {
		r := &rooms[i]
		if r.hasPT && string(r.platformType) != kind && st.found.note(req) {
			st.found.add(req, []int32{id}, "The %s list %s embeds room %s of platformType %s in a %s entry; the room an entry embeds is that %s's room (%s).",
				lists, st.desc(id), quote(string(r.id)), quote(string(r.platformType)), list, list, kind)
		}
		for j := range i {
			if string(rooms[j].id) == string(r.id) && len(r.id) > 0 && st.found.note(req) {
				st.found.add(req, []int32{id}, "The %s list %s embeds room %s in two entries; the room an entry embeds is that %s's own.",
					lists, st.desc(id), quote(string(r.id)), list)
				break
			}
		}
	}
}
