package reference

import (
	"sort"

	"github.com/chatrooms/conformance/fixtures"
)

// roomView is a room as viewer sees it. Every id in a membership's unread
// sets is a message the room holds, so the counts are the sets' sizes.
func (s *Store) roomView(r *room, viewer string) RoomView {
	v := RoomView{ID: r.ID, Name: r.Name, Topic: r.Topic, URI: r.URI, OneToOne: r.Kind == fixtures.OneToOne,
		URL: "/" + r.URI, PlatformType: r.Kind, Security: r.Security, V: r.V}
	if r.Kind == fixtures.OneToOne {
		for _, id := range r.Members {
			if id != viewer {
				other := s.users[id].view
				v.User, v.Name, v.URL = &other, other.DisplayName, other.URL
			}
		}
	}
	if r.Kind != fixtures.Channel {
		n := len(r.members)
		v.UserCount = &n
	}
	if m, ok := r.members[viewer]; ok {
		v.UnreadItems, v.Mentions = len(m.unread), len(m.mentions)
		if m.lastAccess != nil {
			t := timestamp(*m.lastAccess)
			v.LastAccessTime = &t
		}
	}
	return v
}

// Rooms lists the rooms of viewer that viewer has not hidden.
func (s *Store) Rooms(viewer string) []RoomView {
	return s.roomsWhere(viewer, func(r *room, m *membership) bool { return !m.hidden })
}

// Channels lists the channels viewer belongs to.
func (s *Store) Channels(viewer string) []RoomView {
	return s.roomsWhere(viewer, func(r *room, _ *membership) bool { return r.Kind == fixtures.Channel })
}

func (s *Store) roomsWhere(viewer string, keep func(*room, *membership) bool) []RoomView {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []RoomView{}
	for _, r := range s.sortedRooms() {
		if m, ok := r.members[viewer]; ok && keep(r, m) {
			out = append(out, s.roomView(r, viewer))
		}
	}
	return out
}

func (s *Store) sortedRooms() []*room {
	rs := make([]*room, 0, len(s.rooms))
	for _, r := range s.rooms {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
	return rs
}

// Orgs lists the organisations viewer belongs to.
func (s *Store) Orgs(viewer string) []OrgView {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []OrgView{}
	for _, o := range s.orgs {
		if !contains(o.Members, viewer) {
			continue
		}
		v := OrgView{ID: o.ID, Name: o.Name, AvatarURL: o.AvatarURL}
		if r, ok := s.rooms[o.RoomID]; ok {
			rv := s.roomView(r, viewer)
			v.Room = &rv
		}
		out = append(out, v)
	}
	return out
}

// Repos lists viewer's repositories; private ones only when viewer granted access.
func (s *Store) Repos(viewer string) []RepoView {
	s.mu.RLock()
	defer s.mu.RUnlock()
	u := s.users[viewer]
	out := []RepoView{}
	for _, p := range s.repos {
		hidden := p.Private && !u.PrivateReposGranted
		if !contains(p.Members, viewer) || hidden {
			continue
		}
		v := RepoView{ID: p.ID, Name: p.Name, URI: p.URI, Private: p.Private}
		if r, ok := s.rooms[p.RoomID]; ok {
			rv := s.roomView(r, viewer)
			v.Room = &rv
		}
		out = append(out, v)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Hide removes a room from viewer's rooms list until viewer posts in it.
func (s *Store) Hide(viewer, roomID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, m, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return err
	}
	m.hidden = true
	return nil
}
