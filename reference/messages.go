package reference

import (
	"sort"
	"time"
)

// Query selects messages of a room; see List.
type Query struct {
	Skip, Limit                 int
	BeforeID, AfterID, AroundID string
	Q                           string
}

// List returns messages of a room in ascending id (and so sent) order.
//
//   - beforeId and afterId bound the window, exclusively;
//   - aroundId gives max(1, limit/2) messages up to and including the anchor
//     and limit/2 after it;
//   - with afterId the window is read from its oldest end; otherwise skip
//     messages are dropped from its newest end and the newest limit kept;
//   - q keeps only messages whose text holds every term, ignoring case
//     (see search).
//
// Without q a page costs O(log n + limit) under the read lock: the window
// is found by binary search over the ascending ids.
func (s *Store) List(viewer, roomID string, q Query) ([]Item, error) {
	if q.Q != "" {
		return s.search(viewer, roomID, q)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, _, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return nil, err
	}
	start, end := pageWindow(len(r.msgs), func(i int) string { return r.msgs[i].msg.ID }, q)
	items := make([]Item, 0, end-start)
	for _, e := range r.msgs[start:end] {
		items = append(items, r.item(e, viewer))
	}
	return items, nil
}

// pageWindow applies q's cursors, skip and limit to n messages in ascending id
// order (idAt gives the id of the i-th) and returns the page as [start, end).
func pageWindow(n int, idAt func(int) string, q Query) (start, end int) {
	lo, hi := 0, n
	after := func(id string) int { return sort.Search(n, func(i int) bool { return idAt(i) > id }) }
	if q.AfterID != "" {
		lo = after(q.AfterID)
	}
	if q.BeforeID != "" {
		hi = sort.Search(n, func(i int) bool { return idAt(i) >= q.BeforeID })
	}
	hi = max(hi, lo)
	switch {
	case q.AroundID != "":
		k := after(q.AroundID) // messages [.., k) are up to and including the anchor
		start, end = max(lo, k-max(1, q.Limit/2)), min(hi, k+q.Limit/2)
		return start, max(start, end)
	case q.AfterID != "":
		hi = max(lo, hi-q.Skip)
		return lo, min(hi, lo+q.Limit)
	default:
		hi = max(lo, hi-q.Skip)
		return max(lo, hi-q.Limit), hi
	}
}

// item is e as viewer sees it now. Call it under the lock.
func (r *room) item(e *entry, viewer string) Item {
	return Item{Msg: e.msg, Unread: r.isUnread(viewer, e.msg.ID), ReadBy: len(e.readBy)}
}

// Message returns one message of a room.
func (s *Store) Message(viewer, roomID, messageID string) (Item, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, e, err := s.message(viewer, roomID, messageID)
	if err != nil {
		return Item{}, err
	}
	return r.item(e, viewer), nil
}

func (s *Store) message(viewer, roomID, messageID string) (*room, *entry, error) {
	if !validID(messageID) {
		return nil, nil, errorf(Invalid, "malformed message id")
	}
	r, _, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return nil, nil, err
	}
	e, ok := r.find(messageID)
	if !ok {
		return nil, nil, errorf(NotFound, "no message "+messageID+" in room "+roomID)
	}
	return r, e, nil
}

// Send stores a new message from viewer. It returns the message and the
// versions the room evicted to make room for it (see MaxRoomMessages).
// The text is rendered before the lock is taken.
func (s *Store) Send(viewer, roomID, text string, status bool) (*Message, []*Message, error) {
	if err := CheckText(text); err != nil {
		return nil, nil, err
	}
	c := s.prepare(text)
	s.mu.Lock()
	defer s.mu.Unlock()
	r, me, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return nil, nil, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	msg := &Message{ID: s.ids.next(now), Room: r.ID, From: s.users[viewer].senderView(), Status: status, Sent: now, V: 1, content: c}
	dropped := s.makeRoom(r, len(text), nil)
	r.append(&entry{msg: msg, readBy: map[string]struct{}{}})
	for id, m := range r.members {
		if id != viewer {
			markUnread(m, msg, id)
		}
	}
	me.hidden, me.lastAccess = false, &now
	return msg, dropped, nil
}

// Edit replaces the text of viewer's own message within the edit window.
// It returns the new version and the versions dropped: the one replaced,
// and any the room evicted if the longer text passed its bound. The text
// is rendered before the lock is taken.
func (s *Store) Edit(viewer, roomID, messageID, text string) (Item, []*Message, error) {
	if err := CheckText(text); err != nil {
		return Item{}, nil, err
	}
	if !validID(messageID) {
		return Item{}, nil, errorf(Invalid, "malformed message id")
	}
	c := s.prepare(text)
	s.mu.Lock()
	defer s.mu.Unlock()
	r, e, err := s.message(viewer, roomID, messageID)
	if err != nil {
		return Item{}, nil, err
	}
	old := e.msg
	if old.From.ID != viewer {
		return Item{}, nil, errorf(Forbidden, "only the author may edit a message")
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	if now.Sub(old.Sent) > s.edit {
		return Item{}, nil, errorf(Invalid, "the edit window of this message has closed")
	}
	edited := *old
	edited.content, edited.EditedAt, edited.V = c, &now, old.V+1
	dropped := append(s.makeRoom(r, len(text)-len(old.Text), e), old)
	e.msg = &edited
	r.text += len(text) - len(old.Text)
	return r.item(e, viewer), dropped, nil
}
