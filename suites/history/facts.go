package history

import (
	"hash/maphash"
	"net/url"
	"strconv"
	"strings"
)

// opKind is an operation of the API.
type opKind uint8

const (
	opNone opKind = iota
	opCurrentUser
	opRooms
	opHide
	opUnread
	opMarkRead
	opOrgs
	opRepos
	opChannels
	opList
	opGet
	opSend
	opEdit
)

var operations = map[string]opKind{
	"getCurrentUser": opCurrentUser, "listUserRooms": opRooms, "hideUserRoom": opHide,
	"getUnreadItems": opUnread, "markUnreadItemsRead": opMarkRead, "listUserOrgs": opOrgs,
	"listUserRepos": opRepos, "listUserChannels": opChannels, "listMessages": opList,
	"getMessage": opGet, "sendMessage": opSend, "updateMessage": opEdit,
}

func (op opKind) method() string {
	switch op {
	case opHide:
		return "DELETE"
	case opMarkRead, opSend:
		return "POST"
	case opEdit:
		return "PUT"
	}
	return "GET"
}

// write reports whether the operation may change state.
func (op opKind) write() bool { return op.method() != "GET" }

// pathParams are the identifiers a path names, unescaped.
type pathParams struct {
	user, room, msg string
}

// parsePath reads the identifiers of path, which must have the shape of
// op's path.
func parsePath(op opKind, path string) (pathParams, bool) {
	var p pathParams
	seg := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(seg) < 2 || seg[0] != "v1" {
		return p, false
	}
	unesc := func(s string) (string, bool) {
		u, err := url.PathUnescape(s)
		return u, err == nil && u != ""
	}
	var ok bool
	switch op {
	case opCurrentUser:
		return p, len(seg) == 2 && seg[1] == "user"
	case opRooms, opOrgs, opRepos, opChannels:
		if len(seg) != 4 || seg[1] != "user" {
			return p, false
		}
		p.user, ok = unesc(seg[2])
		return p, ok
	case opHide, opUnread, opMarkRead:
		if len(seg) < 5 || seg[1] != "user" || seg[3] != "rooms" {
			return p, false
		}
		if (op == opHide) != (len(seg) == 5) {
			return p, false
		}
		p.user, ok = unesc(seg[2])
		if !ok {
			return p, false
		}
		p.room, ok = unesc(seg[4])
		return p, ok
	case opList, opSend, opGet, opEdit:
		if len(seg) < 4 || seg[1] != "rooms" || seg[3] != "chatMessages" {
			return p, false
		}
		if (op == opGet || op == opEdit) != (len(seg) == 5) || len(seg) > 5 {
			return p, false
		}
		p.room, ok = unesc(seg[2])
		if !ok {
			return p, false
		}
		if len(seg) == 5 {
			p.msg, ok = unesc(seg[4])
		}
		return p, ok
	}
	return p, false
}

// limitOf returns the limit parameter of a query when it is given once (or
// always with the same value) as an integer.
func limitOf(query string) (int, bool) {
	if !strings.Contains(query, "limit") {
		return 0, false
	}
	q, err := url.ParseQuery(query)
	if err != nil || len(q["limit"]) == 0 {
		return 0, false
	}
	vs := q["limit"]
	for _, v := range vs[1:] {
		if v != vs[0] {
			return 0, false
		}
	}
	n, err := strconv.Atoi(vs[0])
	return n, err == nil
}

// The facts one answer states, read by facts.parse. Byte slices point into
// the body or the scanner's arena: they are valid during Observe only.

type userFact struct {
	id, username, url   []byte
	hasUsername, hasURL bool
	hasID               bool
}

type mentionFact struct {
	userID, screenName []byte
}

type msgFact struct {
	id                   []byte
	v, readBy            int32
	hasV, hasReadBy      bool
	unread               int8 // 1 true, 0 false, -1 absent or not a boolean
	status               int8 // 1 true, 0 false or null, -1 absent, -2 anything else
	text, html, meta     uint64
	hasText, hasHTML     bool
	textRaw              []byte // the text, unescaped (valid during Observe)
	esc                  escFinding
	sent, edited         []byte
	hasSent              bool
	editedKind           int8 // editedAbsent, editedNull, editedSet, editedOther
	from                 userFact
	mentionLo, mentionHi int
}

const (
	editedAbsent int8 = iota
	editedNull
	editedSet
	editedOther
)

type roomFact struct {
	id, platformType, url []byte
	hasPT, hasURL         bool
	oneToOne              int8 // 1, 0, -1 absent
	user                  userFact
	// Members present with a value other than null (a null is a question
	// of type, which the document checker judges).
	hasURI, hasUser, hasUserCount, hasSecurity bool
}

// entryFact is an entry of an organisations or repositories list.
type entryFact struct {
	id      []byte // the integer id's text
	private int8   // 1 true, 0 false, -1 absent or not a boolean
}

// reqFact is what a send or edit request asks for.
type reqFact struct {
	ok      bool   // the body is a JSON object
	text    uint64 // hash of text, when hasText
	textRaw []byte
	hasText bool
	status  int8 // 1 true, 0 false, -1 absent, -2 anything else
}

type facts struct {
	sc       scanner
	msgs     []msgFact
	rooms    []roomFact
	entries  []entryFact // organisations and repositories lists
	me       userFact    // getCurrentUser
	mentions []mentionFact
	chat     [][]byte // unread lists
	mention  [][]byte
	marked   [][]byte // ids a mark-read request names
	req      reqFact  // a send's or an edit's request
	count    int      // elements of a page
	limit    int
	limitOK  bool
	markSc   scanner
}

func (f *facts) reset() {
	f.msgs, f.rooms, f.mentions, f.entries = f.msgs[:0], f.rooms[:0], f.mentions[:0], f.entries[:0]
	f.chat, f.mention, f.marked = f.chat[:0], f.mention[:0], f.marked[:0]
	f.me = userFact{}
	f.req = reqFact{}
	f.count, f.limit, f.limitOK = 0, 0, false
}

// parse reads the facts of a 2xx answer of op; false when the body is not
// the JSON value op answers (nothing of it is then used).
func (f *facts) parse(op opKind, body []byte, seed maphash.Seed) bool {
	f.reset()
	s := &f.sc
	s.reset(body, seed)
	var ok bool
	switch op {
	case opCurrentUser:
		first := true
		ok = s.array(func() {
			if first {
				first = false
				f.me = s.user()
			}
		})
	case opRooms, opChannels:
		ok = s.array(func() {
			if r, isRoom := f.room(s); isRoom {
				f.rooms = append(f.rooms, r)
			}
		})
	case opOrgs, opRepos:
		ok = s.array(func() {
			e := entryFact{private: -1}
			s.object(func(key []byte) {
				switch string(key) {
				case "room":
					if r, isRoom := f.room(s); isRoom {
						f.rooms = append(f.rooms, r)
					}
				case "id":
					if c := s.peek(); c == '-' || ('0' <= c && c <= '9') {
						e.id = s.number()
					} else {
						s.skip() // an id of another type: the document checker's
					}
				case "private":
					e.private = s.boolean()
				}
			})
			if len(e.id) > 0 {
				f.entries = append(f.entries, e)
			}
		})
	case opUnread:
		ok = s.object(func(key []byte) {
			switch string(key) {
			case "chat":
				f.chat = s.strings(f.chat[:0])
			case "mention":
				f.mention = s.strings(f.mention[:0])
			}
		})
	case opList:
		ok = s.array(func() {
			f.count++
			f.message(s)
		})
	case opGet, opSend, opEdit:
		ok = f.message(s)
	case opHide, opMarkRead:
		return false // what they answer is not shown: no facts
	}
	if !ok || !s.end() {
		f.reset()
		return false
	}
	return true
}

// parseMark reads the ids a mark-read request names.
func (f *facts) parseMark(body []byte, seed maphash.Seed) {
	f.marked = f.marked[:0]
	s := &f.markSc
	s.reset(body, seed)
	s.object(func(key []byte) {
		if string(key) == "chat" {
			f.marked = s.strings(f.marked[:0])
		}
	})
	if !s.end() {
		f.marked = f.marked[:0]
	}
}

// parseRequest reads the text and status a send or edit request asks
// for. It leaves f.req.ok false when the body is not one JSON object.
func (f *facts) parseRequest(body []byte, seed maphash.Seed) {
	r := reqFact{status: -1}
	s := &f.markSc
	s.reset(body, seed)
	isObj := s.object(func(key []byte) {
		switch string(key) {
		case "text":
			r.textRaw, r.hasText = s.optString()
			if r.hasText {
				r.text = s.hashBytes(r.textRaw)
			} else {
				r.textRaw = nil
			}
		case "status":
			switch b := s.boolean(); b {
			case 1, 0:
				r.status = b
			default:
				r.status = -2
			}
		}
	})
	r.ok = isObj && s.end()
	if !r.ok {
		r = reqFact{}
	}
	f.req = r
}

// strings reads an array and appends its string elements to dst.
func (s *scanner) strings(dst [][]byte) [][]byte {
	s.array(func() {
		if b, ok := s.optString(); ok {
			dst = append(dst, b)
		}
	})
	return dst
}

// user reads a User object (anything else yields an empty fact).
func (s *scanner) user() userFact {
	var u userFact
	s.object(func(key []byte) {
		switch string(key) {
		case "id":
			u.id, u.hasID = s.optString()
		case "username":
			u.username, u.hasUsername = s.optString()
		case "url":
			u.url, u.hasURL = s.optString()
		}
	})
	if len(u.id) == 0 {
		u.hasID = false
	}
	return u
}

// room reads a Room object; false when the value is not an object with an id.
func (f *facts) room(s *scanner) (roomFact, bool) {
	r := roomFact{oneToOne: -1}
	hasID := false
	isObj := s.object(func(key []byte) {
		switch string(key) {
		case "id":
			r.id, hasID = s.optString()
		case "platformType":
			r.platformType, r.hasPT = s.optString()
		case "url":
			r.url, r.hasURL = s.optString()
		case "oneToOne":
			r.oneToOne = s.boolean()
		case "user":
			if r.hasUser = !s.null(); r.hasUser {
				r.user = s.user()
			}
		case "uri":
			r.hasURI = !s.null()
		case "userCount":
			r.hasUserCount = !s.null()
		case "security":
			r.hasSecurity = !s.null()
		}
	})
	return r, isObj && hasID && len(r.id) > 0
}

// message reads a Message object into f.msgs; false when the value is not
// an object. Objects without an id yield no fact.
func (f *facts) message(s *scanner) bool {
	m := msgFact{unread: -1, status: -1}
	urls, mentions, issues, meta, status := emptyArray, emptyArray, emptyArray, emptyObject, tagFalse
	hasID := false
	var html []byte
	isObj := s.object(func(key []byte) {
		switch string(key) {
		case "id":
			m.id, hasID = s.optString()
		case "text":
			if b, ok := s.optString(); ok {
				m.text, m.hasText, m.textRaw = s.hashBytes(b), true, b
			}
		case "html":
			if b, ok := s.optString(); ok {
				m.html, m.hasHTML, html = s.hashBytes(b), true, b
			}
		case "sent":
			m.sent, m.hasSent = s.optString()
		case "editedAt":
			switch s.peek() {
			case 'n':
				s.word("null")
				m.editedKind, m.edited = editedNull, nil
			case '"':
				m.edited, m.editedKind = s.str(), editedSet
			default:
				s.skip()
				m.editedKind, m.edited = editedOther, nil
			}
		case "fromUser":
			m.from = s.user()
		case "unread":
			m.unread = s.boolean()
		case "readBy":
			m.readBy, m.hasReadBy = s.integer()
		case "v":
			m.v, m.hasV = s.integer()
		case "urls":
			urls = s.hashValue()
		case "issues":
			issues = s.hashValue()
		case "meta":
			meta = s.hashValue()
		case "status":
			switch s.peek() {
			case 'n': // null as false: presence is a question of shape
				s.word("null")
				status, m.status = tagFalse, 0
			case 't':
				s.word("true")
				status, m.status = tagTrue, 1
			case 'f':
				s.word("false")
				status, m.status = tagFalse, 0
			default:
				status, m.status = s.hashValue(), -2
			}
		case "mentions":
			m.mentionLo = len(f.mentions)
			mentions = f.mentionList(s)
			m.mentionHi = len(f.mentions)
		}
	})
	if !isObj {
		return false
	}
	if hasID && len(m.id) > 0 {
		m.meta = mix(mix(mix(mix(urls, mentions), issues), meta), status)
		if m.hasHTML {
			m.esc = escapeCheck(m.textRaw, html)
		}
		f.msgs = append(f.msgs, m)
	}
	return true
}

// mentionList reads the mentions of a message, hashing them as hashValue
// would and keeping each screenName and userId.
func (f *facts) mentionList(s *scanner) uint64 {
	if s.peek() != '[' {
		return s.hashValue()
	}
	h := tagArray
	s.array(func() {
		if s.peek() != '{' {
			h = mix(h, s.hashValue())
			return
		}
		var sum uint64
		var mf mentionFact
		s.object(func(key []byte) {
			k := s.hashBytes(key)
			if (string(key) == "screenName" || string(key) == "userId") && s.peek() == '"' {
				b := s.str()
				if string(key) == "screenName" {
					mf.screenName = b
				} else {
					mf.userID = b
				}
				sum += mix(k, mix(tagString, s.hashBytes(b)))
				return
			}
			sum += mix(k, s.hashValue())
		})
		h = mix(h, mix(tagObject, sum))
		if len(mf.userID) > 0 && len(mf.screenName) > 0 {
			f.mentions = append(f.mentions, mf)
		}
	})
	return h
}
