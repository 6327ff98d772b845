package reference

import "sort"

// Unread returns viewer's unread message ids in a room, each list ascending.
func (s *Store) Unread(viewer, roomID string) (UnreadView, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, m, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return UnreadView{}, err
	}
	return UnreadView{Chat: sortedIDs(m.unread), Mention: sortedIDs(m.mentions)}, nil
}

// MarkRead marks messages of a room read for viewer. Ids of messages that
// are not in the room are ignored, so marking is idempotent.
func (s *Store) MarkRead(viewer, roomID string, ids []string) error {
	if len(ids) == 0 {
		return errorf(Invalid, "chat must list at least one message id")
	}
	for _, id := range ids {
		if !validID(id) {
			return errorf(Invalid, "malformed message id in chat")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, m, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return err
	}
	for _, id := range ids {
		delete(m.unread, id)
		delete(m.mentions, id)
		if e, ok := r.find(id); ok && e.msg.From.ID != viewer {
			e.readBy[viewer] = struct{}{}
		}
	}
	return nil
}

// sortedIDs lists a set of message ids, ascending.
func sortedIDs(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// markUnread records a new message as unread for a member, and as an
// unread mention when it mentions them.
func markUnread(m *membership, msg *Message, userID string) {
	m.unread[msg.ID] = struct{}{}
	for _, ref := range msg.body().Mentions {
		if ref.UserID == userID {
			m.mentions[msg.ID] = struct{}{}
		}
	}
}

func (r *room) isUnread(viewer, id string) bool {
	m, ok := r.members[viewer]
	if !ok {
		return false
	}
	_, unread := m.unread[id]
	return unread
}
