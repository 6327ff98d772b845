package model

import (
	"fmt"
	"time"
)

// msg is what the model knows of a message the sequence sent.
type msg struct {
	id     string
	text   string
	from   int // index of the sender among Config.Users
	status bool
	// v is the version the model expects: exact with SoleWriter, a lower
	// bound otherwise.
	v    int
	seq  int       // acknowledgement order of the send within the sequence
	sent time.Time // the server's sent time ("zero" when it could not be read)
	// editFloor is the machine's clock when the last acknowledged edit was
	// asked for: that edit's editedAt is not older.
	editFloor time.Time
	// read says, per user, whether the model knows the message read by that
	// user (the sender reads it by sending), and since when; unknown marks
	// a user whose read state the model cannot know (a mark read through
	// another room).
	read    map[int]time.Time
	unknown map[int]bool
	acked   time.Time // when the send was acknowledged
	// changed is when the last write of the message was acknowledged: a
	// read by another user may show it as it was before for Eventually.
	changed time.Time
	// ownRead counts the sender among readers whose effect on readBy the
	// description does not fix (a sender marking their own message read).
	ownRead bool
	// refused names the requirement of the last write of this message the
	// server refused, since the last it accepted: a read that shows a
	// change then breaks that requirement (the refused write was applied).
	refused string
	// refusedText is the text that refused write carried, when it carried
	// one ("" when not).
	refusedText string
	// What the text holds, as the model wrote it: the users it mentions,
	// its issue numbers, its links, and a word no other message has.
	mentions []int
	// sureMentions are the users whose unread mention the description
	// settles: mentioned by the send and still by the text (what an edit
	// that adds or drops a mention does to unread mentions is not stated).
	sureMentions []int
	prevText     string // the text before the last edit
	issues       []string
	links        []string
	word         string
	pair         string // two words the text holds side by side (see written)
	// fresh is, per user, the version and read state that user has been
	// shown since the last write: once a read shows the new state, no later
	// read may show the old one, lag or not.
	freshV    map[int]int
	freshRead map[int]bool
	// found says a search has found the message since its last write: a
	// later search for a word it holds finds it too, lag or not.
	found bool
	// listed is, per user, whether an unread list has shown the message as
	// that user's unread item since the state last changed.
	listed map[int]bool
}

// state is the model of one sequence.
type state struct {
	msgs  []*msg // in acknowledgement order
	byID  map[string]*msg
	users int
}

func newState(users int) *state {
	return &state{byID: map[string]*msg{}, users: users}
}

func (s *state) add(m *msg) {
	m.seq = len(s.msgs)
	s.msgs = append(s.msgs, m)
	s.byID[m.id] = m
}

// readFor reports what the model knows of m's read state for user u:
// settled is true when the state is known and older than the lag allowed,
// so an answer must show it.
func (m *msg) readFor(u int, now time.Time, lag time.Duration) (read, settled bool) {
	if u == m.from {
		return true, true
	}
	if m.unknown[u] {
		return false, false
	}
	if at, ok := m.read[u]; ok {
		return true, now.Sub(at) > lag
	}
	return false, now.Sub(m.acked) > lag
}

// settled reports whether the last write of m is older than the lag
// allowed, so every read must show it.
func (m *msg) settled(now time.Time, lag time.Duration) bool { return now.Sub(m.changed) > lag }

// readByOther returns a user besides u and the sender who marked m read
// (-1 when none).
func (m *msg) readByOther(u int) int {
	for w := range m.read {
		if w != u && w != m.from {
			return w
		}
	}
	return -1
}

// markedBy says who else marked m read, for a failure text.
func (m *msg) markedBy(u int) string {
	if w := m.readByOther(u); w >= 0 {
		return fmt.Sprintf(" (user %d marked it read)", w+1)
	}
	return ""
}

// visible reports whether m's send is older than the lag allowed, so every
// read must find the message (an edit does not hide it again).
func (m *msg) visible(now time.Time, lag time.Duration) bool { return now.Sub(m.acked) > lag }

// readBy returns the bounds readBy must keep: low counts the other users
// whose read is settled, high every user that may have read it by now
// (unbounded without a sole writer).
func (m *msg) readByBounds(now time.Time, lag time.Duration, users int, sole bool) (low, high int) {
	for u := range users {
		if u == m.from {
			continue
		}
		if at, ok := m.read[u]; ok {
			high++
			if now.Sub(at) > lag {
				low++
			}
		} else if m.unknown[u] {
			high++
		}
	}
	if m.ownRead {
		high++
	}
	if !sole {
		high = -1
	}
	return low, high
}

// before reports whether a comes before b in the room, as far as the
// model knows: ok is false when it cannot tell.
func (s *state) before(a, b ref, sole bool) (isBefore, ok bool) {
	ka, kb := a.known, b.known
	switch {
	case ka != nil && kb != nil:
		return ka.seq < kb.seq, true
	case ka == nil && kb == nil:
		return false, false
	case sole: // messages the sequence did not send are older than its own
		return ka == nil, true
	}
	if a.sent.IsZero() || b.sent.IsZero() || a.sent.Equal(b.sent) {
		return false, false
	}
	return a.sent.Before(b.sent), true
}

// ref is a message of a page: known to the model or not.
type ref struct {
	id    string
	known *msg
	sent  time.Time
}
