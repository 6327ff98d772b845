package reference

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/fixtures"
)

// Store is the in-memory state of the server; it returns values and knows
// nothing of HTTP or JSON. One RWMutex guards it: reads run in parallel,
// writes (send, edit, mark read, hide) one at a time, so no concurrent edit
// can lose an increment of v and no send can lose a message. Work that
// needs no shared state (rendering a text, matching a search) is done
// before or after the lock is held, never under it.
//
// The store's files, by concern: store.go (loading, users, rooms and their
// bounds), message.go (message versions and rendering), messages.go
// (listing, sending, editing), search.go, rooms.go (the user-scoped room
// lists), unread.go (unread state and read receipts).
type Store struct {
	mu      sync.RWMutex
	users   map[string]*user // fixed once loaded: read without the lock
	byToken map[string]*user
	byName  map[string]*user // lower-case username
	rooms   map[string]*room // the map is fixed once loaded; each room's state is under mu
	orgs    []fixtures.Organisation
	repos   []fixtures.Repository
	ids     *idSource
	render  *Renderer
	now     func() time.Time
	edit    time.Duration
	// The room bounds: MaxRoomMessages and MaxRoomText (tests lower them).
	maxMsgs, maxText int
}

type user struct {
	fixtures.User
	view UserView
}

type room struct {
	fixtures.Room // Messages of the fixture is dropped once loaded
	members       map[string]*membership
	msgs          []*entry       // ascending id
	index         map[string]int // id -> position counted from the first message ever held
	first         int            // the position of msgs[0]
	text          int            // bytes of text held, for MaxRoomText
}

type membership struct {
	unread     map[string]struct{}
	mentions   map[string]struct{}
	hidden     bool
	lastAccess *time.Time
}

// entry is a message's place in its room: the current version and who has
// read it (both change under the store's lock).
type entry struct {
	msg    *Message
	readBy map[string]struct{}
}

// NewStore loads a world. now is the clock (time.Now when nil); editWindow
// is how long after sending a message may be edited. A world is loaded as
// it is, whatever its size: the room bounds apply to what clients send.
func NewStore(w *fixtures.World, now func() time.Time, editWindow time.Duration) *Store {
	if now == nil {
		now = time.Now
	}
	s := &Store{
		users: map[string]*user{}, byToken: map[string]*user{}, byName: map[string]*user{},
		rooms: map[string]*room{}, orgs: w.Orgs, repos: w.Repos,
		ids: newIDSource(), render: NewRenderer(), now: now, edit: editWindow,
		maxMsgs: MaxRoomMessages, maxText: MaxRoomText,
	}
	for _, fu := range w.Users {
		u := &user{User: fu}
		u.view = UserView{ID: fu.ID, Username: fu.Username, DisplayName: fu.DisplayName, URL: "/" + fu.Username,
			AvatarURLSmall: fu.AvatarSmall, AvatarURLMedium: fu.AvatarMedium}
		s.users[u.ID], s.byToken[u.Token], s.byName[strings.ToLower(u.Username)] = u, u, u
		s.ids.observe(u.ID)
	}
	for _, fr := range w.Rooms {
		r := &room{Room: fr, members: map[string]*membership{}, index: make(map[string]int, len(fr.Messages))}
		r.Messages = nil
		s.ids.observe(r.ID)
		for _, id := range fr.Members {
			m := &membership{unread: map[string]struct{}{}, mentions: map[string]struct{}{}}
			if t, ok := fr.LastAccess[id]; ok {
				m.lastAccess = &t
			}
			r.members[id] = m
		}
		// Messages still unread for a member are rendered now (their
		// mentions decide the unread mention lists); the rest of the
		// history renders as it is first read.
		var now []int
		for i, fm := range fr.Messages {
			if unreadBySomeone(fm, fr.Members) {
				now = append(now, i)
			}
		}
		contents := s.prepareAll(fr.Messages, now)
		r.msgs = make([]*entry, 0, len(fr.Messages))
		for i, fm := range fr.Messages {
			msg := &Message{ID: fm.ID, Room: r.ID, From: s.users[fm.From].senderView(), Status: fm.Status, Sent: fm.Sent,
				EditedAt: fm.EditedAt, V: fm.V}
			if c, ok := contents[i]; ok {
				msg.content = c
			} else {
				msg.content = content{Text: fm.Text, folded: strings.ToLower(fm.Text)}
				msg.lazy = &lazyContent{store: s}
			}
			e := &entry{msg: msg, readBy: make(map[string]struct{}, len(fm.ReadBy))}
			for _, id := range fm.ReadBy {
				e.readBy[id] = struct{}{}
			}
			r.append(e)
			for id, m := range r.members {
				if _, read := e.readBy[id]; !read && id != fm.From {
					markUnread(m, msg, id)
				}
			}
			s.ids.observe(fm.ID)
		}
		s.rooms[r.ID] = r
	}
	return s
}

// unreadBySomeone reports whether a member other than the sender has not
// read a loaded message.
func unreadBySomeone(fm fixtures.Message, members []string) bool {
	for _, id := range members {
		if id != fm.From && !slices.Contains(fm.ReadBy, id) {
			return true
		}
	}
	return false
}

// senderView is the user as shown in fromUser, with v.
func (u *user) senderView() UserView {
	v := u.view
	v.V = u.V
	return v
}

// Authenticate returns the user a token belongs to.
func (s *Store) Authenticate(token string) (*user, bool) {
	u, ok := s.byToken[token] // fixed once loaded
	return u, ok
}

// User returns the view of a user.
func (s *Store) User(id string) UserView { return s.users[id].view }

// memberRoom returns a room viewer belongs to. A room the viewer is not in
// is reported as not found, so room ids do not leak. Call it under the lock.
func (s *Store) memberRoom(roomID, viewer string) (*room, *membership, error) {
	if !validID(roomID) {
		return nil, nil, errorf(Invalid, "malformed room id")
	}
	r, ok := s.rooms[roomID]
	if !ok {
		return nil, nil, errorf(NotFound, "no room "+roomID)
	}
	m, ok := r.members[viewer]
	if !ok {
		return nil, nil, errorf(NotFound, "not a member of room "+roomID)
	}
	return r, m, nil
}

// --- what one room may hold ------------------------------------------------------

// The bounds on what clients can make a room hold. A send that would pass
// either first evicts the room's oldest messages (as chat services expire
// history), so the server's memory is bounded by the number of rooms, which
// clients cannot change, times these: with the seeded world's 11 rooms, at
// most 220,000 messages and 88 MiB of text, under 1.5 GB all told. A room
// loaded from a world above a bound is cut to it at its first send.
const (
	MaxRoomMessages = 20_000
	MaxRoomText     = 8 << 20 // bytes of message text (UTF-8)
)

func (r *room) append(e *entry) {
	r.index[e.msg.ID] = r.first + len(r.msgs)
	r.msgs = append(r.msgs, e)
	r.text += len(e.msg.Text)
}

// find returns the entry of a message id.
func (r *room) find(id string) (*entry, bool) {
	i, ok := r.index[id]
	if !ok {
		return nil, false
	}
	return r.msgs[i-r.first], true
}

// makeRoom evicts the oldest messages of r until one more message of size
// bytes fits the bounds, keeping keep; it returns the versions evicted.
func (s *Store) makeRoom(r *room, size int, keep *entry) []*Message {
	var dropped []*Message
	for len(r.msgs) > 0 && r.msgs[0] != keep && (len(r.msgs)+1 > s.maxMsgs || r.text+size > s.maxText) {
		e := r.msgs[0]
		r.msgs[0] = nil
		r.msgs = r.msgs[1:]
		r.first++
		r.text -= len(e.msg.Text)
		delete(r.index, e.msg.ID)
		for _, m := range r.members {
			delete(m.unread, e.msg.ID)
			delete(m.mentions, e.msg.ID)
		}
		dropped = append(dropped, e.msg)
	}
	return dropped
}

// Current reports whether m is still the version its room holds.
func (s *Store) Current(m *Message) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.rooms[m.Room]
	if !ok {
		return false
	}
	e, ok := r.find(m.ID)
	return ok && e.msg == m
}
