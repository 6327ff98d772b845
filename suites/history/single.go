package history

import (
	"fmt"
	"strings"
)

// Statements the API document makes about one object, held on every
// answer of the run where the object appears: every page and search
// result, every read by id, every send and edit answer, every room of
// every list (rooms, channels, and the rooms organisation and repository
// entries embed), every user. A check judges such a statement on the
// answers it makes; a server that breaks it on some answers only (one send
// in ten, links of one kind) is caught here.
//
// Every statement of the document's tables about one object, and where it
// is judged on every answer:
//
//	User
//	  id, username, displayName strings; avatars URIs   document checker (schema User), USER-SHAPE
//	  url begins with /                                 document checker (schema User.url pattern ^/) on every User:
//	                                                    current user, fromUser, a room's user (blamed USER-SHAPE)
//	  v an integer where present                        document checker, USER-V-OPTIONAL
//	Room
//	  field types, url begins with /, timestamps UTC   document checker (schema Room), ROOM-SHAPE
//	  platformType one of four                          document checker, ROOM-PLATFORM-TYPE
//	  uri absent on one-to-one rooms                    here: every room of every list, ROOM-ONE-TO-ONE
//	  oneToOne true exactly on one-to-one rooms         here: within one room object and across answers, ROOM-ONE-TO-ONE
//	  user present only on one-to-one rooms             here: every room, ROOM-USER-ONLY-ONE-TO-ONE
//	  user is the other participant                     here: every room of the caller's own lists, ROOM-ONE-TO-ONE
//	  userCount absent on channels                      document checker in the channels list (schema Channel);
//	                                                    here: a USER_CHANNEL room in any other list, CHANNEL-NO-USERCOUNT
//	  security present on channels                      document checker in the channels list (schema Channel);
//	                                                    here: a USER_CHANNEL room in any other list, CHANNEL-SECURITY
//	  unreadItems, mentions count unread items          not one object: the unread lists (UNREAD-ROOM-COUNTS, its check)
//	  topic may be empty; v on some rooms               nothing to judge
//	Message
//	  field types, sent and editedAt UTC, readBy >= 0,  document checker (schema Message): MSG-SHAPE, META-*,
//	  urls/mentions/issues objects, meta {}, no gv      MSG-META-EMPTY, MSG-NO-GV
//	  special characters of the text escaped in html    here: every message, RENDER-ESCAPE (escape.go)
//	  mentions, issues, links wrapped in spans/anchors  their checks (RENDER-MENTION, -ISSUE, -LINK): what counts as a
//	                                                    mention, issue or link in a text depends on the flavour (code
//	                                                    spans, autolink rules), and the metadata lists need not match
//	                                                    the markup one to one (unknown names)
//	  editedAt null exactly while v is 1                here: every answer but a send's or an edit's own (below);
//	                                                    v 1 with editedAt set: MSG-SEND-EDITEDAT-NULL ("null until the
//	                                                    message is edited"); v above 1 without it: MSG-EDIT-EDITEDAT
//	                                                    ("after an update, editedAt holds a timestamp"). v says
//	                                                    whether the message was edited, so the editedAt side is wrong.
//	  a mention's screenName is the user's username     here (USER-STABLE, check.go)
//	  unread: whether the current user has not read it  here: a message the run sent is not unread for its sender
//	                                                    after the send answered unread false, UNREAD-FLAG (check.go)
//	  status true on a status update                    here: every send answer against its request, MSG-SEND-STATUS
//	Send answer (Details 11)
//	  unread false, readBy 0, v 1                       here: every send answer, MSG-SEND-DEFAULTS (the most specific:
//	                                                    UNREAD-FLAG says the same of unread, and is left for reads)
//	  editedAt null                                     here: every send answer, MSG-SEND-EDITEDAT-NULL
//	  the text sent, unchanged; fromUser the caller     here: every send answer of a valid request, MSG-SEND-TEXT
//	  status true asked -> true; else not true          here: every send answer of a valid request, MSG-SEND-STATUS
//	Edit answer (Details 12)
//	  the new text                                      here: every 2xx edit answer of a valid request, MSG-EDIT
//	  editedAt set                                      here: every 2xx edit answer, MSG-EDIT-EDITEDAT
//	  v incremented (so at least 2)                     here: every 2xx edit answer, MSG-EDIT-V-INC (and check.go
//	                                                    counts the edits)
//	Organisation and repository entries
//	  id, name, avatar_url / uri, private types         document checker (ORG-LIST, REPO-LIST)
//	  room present only when one exists                 their checks (ORG-ROOM, REPO-ROOM): no answer says which exist
//	Unread items
//	  chat and mention arrays of id strings             document checker (UNREAD-SHAPE)
//	GET /v1/user: an array of one user                  document checker (USER-GET-ARRAY)
//
// None of these needs the run to be the only writer but the unread flag
// of a sender, which an outside edit might reset on a server that counts
// an edit as new content (see Invariants).

// sendAnswer judges a 2xx send's answer: the new message as Details 11
// gives it, and as the request asked.
func (st *state) sendAnswer(mi int32, mf *msgFact, req *reqFact, id int32) {
	m := &st.msgs[mi]
	e := &st.ex[id]
	var bad []string
	if mf.hasV && mf.v != 1 {
		bad = append(bad, fmt.Sprintf("v %d", mf.v))
	}
	if mf.unread == 1 {
		bad = append(bad, "unread true")
	}
	if mf.hasReadBy && mf.readBy != 0 {
		bad = append(bad, fmt.Sprintf("readBy %d", mf.readBy))
	}
	if len(bad) > 0 && st.once(m, MsgSendDefaults) {
		st.found.add(MsgSendDefaults, []int32{id}, "The send %s answered the new message %s with %s; a send answers the created message with unread false, readBy 0 and v 1.",
			st.desc(id), quote(m.id), join(bad))
	}
	if mf.editedKind == editedSet && st.once(m, MsgSendEditedAtNull) {
		st.found.add(MsgSendEditedAtNull, []int32{id}, "The send %s answered the new message %s with editedAt %s; a new message has editedAt null.",
			st.desc(id), quote(m.id), quote(string(mf.edited)))
	}
	if !req.ok {
		return
	}
	bad = bad[:0]
	if req.hasText && mf.hasText && req.text != mf.text {
		bad = append(bad, fmt.Sprintf("the text %s although the request sent %s", quote(string(mf.textRaw)), quote(string(req.textRaw))))
	}
	if caller := st.tokenUserID(e.user); caller != "" && mf.from.hasID && string(mf.from.id) != caller {
		bad = append(bad, fmt.Sprintf("fromUser %s although user %d (id %s) sent it", quote(string(mf.from.id)), e.user+1, quote(caller)))
	}
	if len(bad) > 0 && st.once(m, MsgSendText) {
		st.found.add(MsgSendText, []int32{id}, "The send %s answered the new message %s with %s; the created message carries the text sent, unchanged, and the sender as fromUser.",
			st.desc(id), quote(m.id), join(bad))
	}
	asked := req.status == 1
	if (req.status >= -1) && asked != (mf.status == 1) && st.once(m, MsgSendStatus) {
		st.found.add(MsgSendStatus, []int32{id}, "The send %s %s, and its answer gives message %s %s; status true marks a status update, and only a message sent as one is one.",
			st.desc(id), map[int8]string{1: "asked for status true", 0: "asked for status false", -1: "did not ask for status"}[req.status], quote(m.id), statusWord(mf.status))
	}
}

func statusWord(s int8) string {
	switch s {
	case 1:
		return "status true"
	case 0:
		return "status false"
	case -1:
		return "no status"
	}
	return "a status that is not a boolean"
}

// editAnswer judges a 2xx edit's answer about the message it named:
// Details 12 returns the updated message with the new text, editedAt set
// and v incremented.
func (st *state) editAnswer(mi int32, mf *msgFact, req *reqFact, id int32) {
	m := &st.msgs[mi]
	if req.ok && req.hasText && mf.hasText && req.text != mf.text && st.once(m, MsgEdit) {
		st.found.add(MsgEdit, []int32{id}, "The edit %s asked for the text %s, but answered message %s with the text %s; an edit answers the updated message, carrying the new text.",
			st.desc(id), quote(string(req.textRaw)), quote(m.id), quote(string(mf.textRaw)))
	}
	// An absent editedAt breaks the schema, which the document checker
	// reports under the same requirement.
	if mf.editedKind == editedNull && st.once(m, MsgEditEditedAt) {
		st.found.add(MsgEditEditedAt, []int32{id}, "The edit %s answered message %s with editedAt null; an edit answers the message with editedAt set.",
			st.desc(id), quote(m.id))
	}
	if mf.hasV && mf.v < 2 && st.once(m, MsgEditVInc) {
		st.found.add(MsgEditVInc, []int32{id}, "The edit %s answered message %s with v %d; a message starts at v 1 and an edit increments it, so an edit answers v 2 or more.",
			st.desc(id), quote(m.id), mf.v)
	}
}

// escapeFound reports what escapeCheck found in a message's html.
func (st *state) escapeFound(m *msgState, mf *msgFact, id int32) {
	if !st.once(m, RenderEscape) {
		return
	}
	var what string
	switch mf.esc.kind {
	case escAmp:
		what = "an & that starts no character reference"
	case escLT:
		what = "a < that starts no tag"
	case escElement:
		what = fmt.Sprintf("a <%s> element, which its text spells as raw markup and no markdown construct yields", strings.ToLower(string(mf.esc.name)))
	case escHandler:
		what = fmt.Sprintf("an event handler attribute %s, which its text spells and no markdown construct yields", quote(string(mf.esc.name)))
	}
	st.found.add(RenderEscape, []int32{id}, "In %s, the html of message %s holds %s, at byte %d: %s; special characters of the text are HTML-escaped in html, and raw markup of the text never becomes elements.",
		st.desc(id), quote(m.id), what, mf.esc.at, quote(string(mf.esc.what)))
}

// Bits of roomState.done.
func roomBit(req string) uint8 {
	switch req {
	case RoomOneToOne:
		return 1 << 0
	case RoomUserOnly:
		return 1 << 1
	case ChannelNoUserCount:
		return 1 << 2
	case ChannelSecurity:
		return 1 << 3
	}
	return 1 << 7
}

// roomOnce is state.once for a room.
func (c *collector) roomOnce(r *roomState, req string) bool {
	b := roomBit(req)
	if r.done&b != 0 {
		return false
	}
	r.done |= b
	return c.note(req)
}

// roomAnswer notes what one room object of a list shows, for the kind
// rules (among it, a user that is the caller in the caller's own list:
// self, "" when the list is not the caller's), and judges what it says of
// itself: oneToOne and platformType agree.
func (st *state) roomAnswer(rf *roomFact, op opKind, self string, id int32) {
	r := &st.rooms[st.room(string(rf.id))]
	first := func(ex *int32) {
		if *ex < 0 {
			*ex = id
		}
	}
	if rf.hasURI {
		first(&r.uriEx)
	}
	if rf.hasUser {
		first(&r.userEx)
	}
	// In the channels list, the document checker judges both (schema
	// Channel).
	if op != opChannels && rf.hasUserCount {
		first(&r.countEx)
	}
	if op != opChannels && !rf.hasSecurity {
		first(&r.noSecEx)
	}
	if rf.oneToOne >= 0 && rf.hasPT && (rf.oneToOne == 1) != (string(rf.platformType) == "ONETOONE") {
		r.kindClash = true
		if st.found.roomOnce(r, RoomOneToOne) {
			st.found.add(RoomOneToOne, []int32{id}, "Room %s is listed in %s with oneToOne %t and platformType %s; oneToOne is true exactly on one-to-one rooms.",
				quote(r.id), st.desc(id), rf.oneToOne == 1, quote(string(rf.platformType)))
		}
	}
	if self != "" && rf.user.hasID && string(rf.user.id) == self && r.selfEx < 0 {
		r.selfEx, r.self = id, self
	}
}

// roomKind judges every answer that showed a room against the room's kind
// as its lists give it (platformType, oneToOne): a one-to-one room has no
// uri and its user, in the caller's own list, is not the caller; a room
// that is not one carries no user; a channel carries no userCount and
// carries security. A room whose kind its answers
// contradict is reported as such (ROOM-STABLE, ROOM-ONE-TO-ONE) and not
// judged further.
func (c *checker) roomKind(ri int) {
	r := &c.st.rooms[ri]
	once := func(req string) bool {
		b := roomBit(req)
		if c.roomDone[ri]&b != 0 {
			return false
		}
		c.roomDone[ri] |= b
		return c.found.note(req)
	}
	if r.reported || r.kindClash {
		return
	}
	one := r.oto == 1 || r.hasPT && r.pt == "ONETOONE"
	notOne := r.oto == 0 || r.hasPT && r.pt != "ONETOONE"
	// The evidence of the kind: platformType where some answer gave it.
	kindEx, kind := r.otoEx, fmt.Sprintf("oneToOne %t", r.oto == 1)
	if r.hasPT {
		kindEx, kind = r.ptEx, "platformType "+quote(r.pt)
	}
	if one && notOne {
		if once(RoomOneToOne) {
			c.found.add(RoomOneToOne, []int32{r.ptEx, r.otoEx}, "Room %s has platformType %s in %s but oneToOne %t in %s; oneToOne is true exactly on one-to-one rooms.",
				quote(r.id), quote(r.pt), c.st.desc(r.ptEx), r.oto == 1, c.st.desc(r.otoEx))
		}
		return
	}
	if one && r.uriEx >= 0 && once(RoomOneToOne) {
		c.found.add(RoomOneToOne, []int32{kindEx, r.uriEx}, "Room %s is one-to-one (%s in %s), yet %s gives it a uri; uri is absent on one-to-one rooms.",
			quote(r.id), kind, c.st.desc(kindEx), c.st.desc(r.uriEx))
	}
	// A room that is not one-to-one has no other participant: its user is
	// wrong as such, whoever it names.
	if !notOne && r.selfEx >= 0 && once(RoomOneToOne) {
		c.found.add(RoomOneToOne, []int32{r.selfEx}, "Room %s in %s, a list of user %s's own rooms, gives that same user as its user; the user of a one-to-one room is the other participant.",
			quote(r.id), c.st.desc(r.selfEx), quote(r.self))
	}
	if notOne && r.userEx >= 0 && once(RoomUserOnly) {
		c.found.add(RoomUserOnly, []int32{kindEx, r.userEx}, "Room %s is not one-to-one (%s in %s), yet %s gives it a user; user is present only on one-to-one rooms.",
			quote(r.id), kind, c.st.desc(kindEx), c.st.desc(r.userEx))
	}
	if r.hasPT && r.pt == "USER_CHANNEL" {
		if r.countEx >= 0 && once(ChannelNoUserCount) {
			c.found.add(ChannelNoUserCount, []int32{r.ptEx, r.countEx}, "Room %s is a channel (platformType \"USER_CHANNEL\" in %s), yet %s gives it a userCount; userCount is absent on channels.",
				quote(r.id), c.st.desc(r.ptEx), c.st.desc(r.countEx))
		}
		if r.noSecEx >= 0 && once(ChannelSecurity) {
			c.found.add(ChannelSecurity, []int32{r.ptEx, r.noSecEx}, "Room %s is a channel (platformType \"USER_CHANNEL\" in %s), yet %s gives it no security; security is present on channels.",
				quote(r.id), c.st.desc(r.ptEx), c.st.desc(r.noSecEx))
		}
	}
}

// senderUnread: the send of a message the run sent answered unread false,
// so its sender has read it, and nothing the document describes makes a
// message unread again; no answer to the sender that starts later than
// Eventually after the send ended gives it as unread (flagged or listed).
// An edit by someone else might, on a server that counts an edit as new
// content: a message another user edited (or, with Options.Shared, an
// outside client may have) is not judged.
func (c *checker) senderUnread(mi int32, m *msgState) {
	if c.st.opt.Shared || m.send < 0 || !m.sendRead || c.reported(mi, UnreadFlag) {
		return
	}
	u := c.st.ex[m.send].user
	if u < 0 {
		return
	}
	for _, p := range m.puts {
		if c.st.ex[p].user != u {
			return
		}
	}
	r := c.st.reads[readKey{mi, u}]
	if r == nil {
		return
	}
	if y := r.yes.maxStart; y >= 0 && c.start(y) > c.end(m.send)+c.lag && c.once(mi, UnreadFlag) {
		c.found.add(UnreadFlag, []int32{m.send, y}, "User %d sent message %s (%s), answered with unread false; yet %s, which began %s after that ended, gives it as unread for user %d: the sender has read it, and nothing makes a message unread again.",
			u+1, quote(m.id), c.st.desc(m.send), c.st.desc(y), dur(c.start(y)-c.end(m.send)), u+1)
	}
}
