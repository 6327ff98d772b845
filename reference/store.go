package reference

import (
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/chatrooms/conformance/fixtures"
)

// MaxTextUnits is the longest message text, in UTF-16 code units.
const MaxTextUnits = 4096

// Store is the in-memory state of the server. One RWMutex guards it: reads
// run in parallel, writes (send, edit, mark read, hide) one at a time, so no
// concurrent edit can lose an increment of v and no send can lose a message.
type Store struct {
	mu         sync.RWMutex
	users      map[string]*user
	byToken    map[string]*user
	byName     map[string]*user // lower-case username
	rooms      map[string]*room
	orgs       []fixtures.Organisation
	repos      []fixtures.Repository
	ids        *idSource
	render     *Renderer
	now        func() time.Time
	editWindow time.Duration
}

type user struct {
	fixtures.User
	view UserView
}

type room struct {
	fixtures.Room // Messages of the fixture is dropped once loaded
	members       map[string]*membership
	msgs          []*message // ascending id
	index         map[string]int
}

type membership struct {
	unread     map[string]struct{}
	mentions   map[string]struct{}
	hidden     bool
	lastAccess *time.Time
}

type message struct {
	id       string
	from     *user
	text     string
	rendered Rendered
	mentions []MentionRef
	status   bool
	sent     time.Time
	editedAt *time.Time
	v        int
	readBy   map[string]struct{}
	// The message's JSON split around the two fields that vary by viewer
	// and over time (unread, readBy), kept up to date by refresh.
	head, tail []byte
}

// NewStore loads a world. now is the clock (time.Now when nil); editWindow
// is how long after sending a message may be edited.
func NewStore(w *fixtures.World, now func() time.Time, editWindow time.Duration) *Store {
	if now == nil {
		now = time.Now
	}
	s := &Store{
		users: map[string]*user{}, byToken: map[string]*user{}, byName: map[string]*user{},
		rooms: map[string]*room{}, orgs: w.Orgs, repos: w.Repos,
		ids: newIDSource(), render: NewRenderer(), now: now, editWindow: editWindow,
	}
	for _, fu := range w.Users {
		u := &user{User: fu}
		u.view = UserView{ID: fu.ID, Username: fu.Username, DisplayName: fu.DisplayName, URL: "/" + fu.Username,
			AvatarURLSmall: fu.AvatarSmall, AvatarURLMedium: fu.AvatarMedium}
		s.users[u.ID], s.byToken[u.Token], s.byName[strings.ToLower(u.Username)] = u, u, u
		s.ids.observe(u.ID)
	}
	for _, fr := range w.Rooms {
		r := &room{Room: fr, members: map[string]*membership{}, index: map[string]int{}}
		r.Messages = nil
		s.ids.observe(r.ID)
		for _, id := range fr.Members {
			m := &membership{unread: map[string]struct{}{}, mentions: map[string]struct{}{}}
			if t, ok := fr.LastAccess[id]; ok {
				m.lastAccess = &t
			}
			r.members[id] = m
		}
		r.msgs = make([]*message, 0, len(fr.Messages))
		for _, fm := range fr.Messages {
			msg := &message{id: fm.ID, from: s.users[fm.From], text: fm.Text, status: fm.Status, sent: fm.Sent,
				editedAt: fm.EditedAt, v: fm.V, readBy: map[string]struct{}{}}
			s.refresh(msg)
			for _, id := range fm.ReadBy {
				msg.readBy[id] = struct{}{}
			}
			r.append(msg)
			for id, m := range r.members {
				if _, read := msg.readBy[id]; !read && id != fm.From {
					s.markUnread(m, msg, id)
				}
			}
			s.ids.observe(fm.ID)
		}
		s.rooms[r.ID] = r
	}
	return s
}

func (r *room) append(m *message) {
	r.index[m.id] = len(r.msgs)
	r.msgs = append(r.msgs, m)
}

func (s *Store) markUnread(m *membership, msg *message, userID string) {
	m.unread[msg.id] = struct{}{}
	for _, ref := range msg.mentions {
		if ref.UserID == userID {
			m.mentions[msg.id] = struct{}{}
		}
	}
}

// refresh renders msg.text, resolves its mentions to known users and
// re-encodes the cached JSON. Call it whenever text or editedAt changes.
func (s *Store) refresh(msg *message) {
	msg.rendered = s.render.Render(msg.text)
	// A fresh slice every time: views handed out earlier may still be
	// encoding the old one after the lock is released.
	msg.mentions = nil
	for _, name := range msg.rendered.Mentions {
		if u, ok := s.byName[strings.ToLower(name)]; ok {
			msg.mentions = append(msg.mentions, MentionRef{ScreenName: u.Username, UserID: u.ID})
		}
	}
	msg.head, msg.tail = splitMessageJSON(s.messageView(nil, msg, ""))
}

// Authenticate returns the user a token belongs to.
func (s *Store) Authenticate(token string) (*user, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	u, ok := s.byToken[token]
	return u, ok
}

// --- views --------------------------------------------------------------------

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
		v.UnreadItems, v.Mentions = len(s.unreadIDs(r, m.unread)), len(s.unreadIDs(r, m.mentions))
		if m.lastAccess != nil {
			t := timestamp(*m.lastAccess)
			v.LastAccessTime = &t
		}
	}
	return v
}

func (s *Store) messageView(r *room, msg *message, viewer string) MessageView {
	v := MessageView{ID: msg.id, Text: msg.text, HTML: msg.rendered.HTML, Sent: timestamp(msg.sent),
		FromUser: msg.from.view, ReadBy: len(msg.readBy), V: msg.v, Status: msg.status,
		URLs: make([]URLRef, 0, len(msg.rendered.URLs)), Mentions: msg.mentions, Issues: make([]IssueRef, 0, len(msg.rendered.Issues))}
	v.FromUser.V = msg.from.V
	if msg.editedAt != nil {
		t := timestamp(*msg.editedAt)
		v.EditedAt = &t
	}
	if v.Mentions == nil {
		v.Mentions = []MentionRef{}
	}
	for _, u := range msg.rendered.URLs {
		v.URLs = append(v.URLs, URLRef{URL: u})
	}
	for _, n := range msg.rendered.Issues {
		v.Issues = append(v.Issues, IssueRef{Number: n})
	}
	if r != nil {
		v.Unread = r.isUnread(viewer, msg.id)
	}
	return v
}

// unreadIDs lists a membership's unread ids of a kind, ascending.
func (s *Store) unreadIDs(r *room, set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func (r *room) isUnread(viewer, id string) bool {
	m, ok := r.members[viewer]
	if !ok {
		return false
	}
	_, unread := m.unread[id]
	return unread
}

// --- user-scoped reads -----------------------------------------------------------

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

// memberRoom returns a room viewer belongs to. A room the viewer is not in
// is reported as not found, so room ids do not leak.
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

// --- unread items ------------------------------------------------------------------

// Unread returns viewer's unread message ids in a room, each list ascending.
func (s *Store) Unread(viewer, roomID string) (UnreadView, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, m, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return UnreadView{}, err
	}
	return UnreadView{Chat: s.unreadIDs(r, m.unread), Mention: s.unreadIDs(r, m.mentions)}, nil
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
		if i, ok := r.index[id]; ok && r.msgs[i].from.ID != viewer {
			r.msgs[i].readBy[viewer] = struct{}{}
		}
	}
	return nil
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

// --- messages -------------------------------------------------------------------------

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
//   - q keeps only messages whose text holds every term, ignoring case.
//
// Without q a page costs O(log n + limit): the window is found by binary
// search over the ascending ids.
func (s *Store) List(viewer, roomID string, q Query) (RawJSON, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, _, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return nil, err
	}
	msgs := r.msgs
	if q.Q != "" {
		msgs = s.search(msgs, q.Q)
	}
	lo, hi := 0, len(msgs)
	after := func(id string) int { return sort.Search(len(msgs), func(i int) bool { return msgs[i].id > id }) }
	if q.AfterID != "" {
		lo = after(q.AfterID)
	}
	if q.BeforeID != "" {
		hi = sort.Search(len(msgs), func(i int) bool { return msgs[i].id >= q.BeforeID })
	}
	if hi < lo {
		hi = lo
	}
	var page []*message
	switch {
	case q.AroundID != "":
		k := after(q.AroundID) // messages [.., k) are up to and including the anchor
		start, end := max(lo, k-max(1, q.Limit/2)), min(hi, k+q.Limit/2)
		if end > start {
			page = msgs[start:end]
		}
	case q.AfterID != "":
		hi = max(lo, hi-q.Skip)
		page = msgs[lo:min(hi, lo+q.Limit)]
	default:
		hi = max(lo, hi-q.Skip)
		page = msgs[max(lo, hi-q.Limit):hi]
	}
	out := make(RawJSON, 0, 64+len(page)*1024)
	out = append(out, '[')
	for i, m := range page {
		if i > 0 {
			out = append(out, ',')
		}
		out = m.json(out, r.isUnread(viewer, m.id))
	}
	return append(out, ']'), nil
}

func (s *Store) search(msgs []*message, query string) []*message {
	terms := strings.Fields(strings.ToLower(query))
	var out []*message
	for _, m := range msgs {
		text := strings.ToLower(m.text)
		all := true
		for _, t := range terms {
			if !strings.Contains(text, t) {
				all = false
				break
			}
		}
		if all {
			out = append(out, m)
		}
	}
	return out
}

// Message returns one message of a room.
func (s *Store) Message(viewer, roomID, messageID string) (RawJSON, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, msg, err := s.message(viewer, roomID, messageID)
	if err != nil {
		return nil, err
	}
	return msg.json(nil, r.isUnread(viewer, msg.id)), nil
}

func (s *Store) message(viewer, roomID, messageID string) (*room, *message, error) {
	if !validID(messageID) {
		return nil, nil, errorf(Invalid, "malformed message id")
	}
	r, _, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return nil, nil, err
	}
	i, ok := r.index[messageID]
	if !ok {
		return nil, nil, errorf(NotFound, "no message "+messageID+" in room "+roomID)
	}
	return r, r.msgs[i], nil
}

// CheckText enforces the text rules: present, non-empty, at most
// MaxTextUnits UTF-16 units.
func CheckText(text string) error {
	if strings.TrimSpace(text) == "" {
		return errorf(Invalid, "text is required")
	}
	units := 0
	for _, r := range text {
		units += utf16.RuneLen(r)
		if units > MaxTextUnits {
			return errorf(Invalid, "text longer than 4096 UTF-16 units")
		}
	}
	return nil
}

// Send stores a new message from viewer and returns it.
func (s *Store) Send(viewer, roomID, text string, status bool) (RawJSON, error) {
	if err := CheckText(text); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, me, err := s.memberRoom(roomID, viewer)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	msg := &message{id: s.ids.next(now), from: s.users[viewer], text: text, status: status, sent: now, v: 1,
		readBy: map[string]struct{}{}}
	s.refresh(msg)
	r.append(msg)
	for id, m := range r.members {
		if id != viewer {
			s.markUnread(m, msg, id)
		}
	}
	me.hidden, me.lastAccess = false, &now
	return msg.json(nil, false), nil
}

// Edit replaces the text of viewer's own message within the edit window.
func (s *Store) Edit(viewer, roomID, messageID, text string) (RawJSON, error) {
	if err := CheckText(text); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, msg, err := s.message(viewer, roomID, messageID)
	if err != nil {
		return nil, err
	}
	if msg.from.ID != viewer {
		return nil, errorf(Forbidden, "only the author may edit a message")
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	if now.Sub(msg.sent) > s.editWindow {
		return nil, errorf(Invalid, "the edit window of this message has closed")
	}
	msg.text, msg.editedAt, msg.v = text, &now, msg.v+1
	s.refresh(msg)
	return msg.json(nil, r.isUnread(viewer, msg.id)), nil
}

// User returns the view of a user.
func (s *Store) User(id string) UserView {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.users[id].view
}
