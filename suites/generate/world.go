package generate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
)

// World is what the engine knows of the target: the ids it puts into paths,
// cursors and bodies. Users[0] is the caller of every generated request.
// Slices are used in their order, so that a seed replays the same choices;
// give them in a stable order.
type World struct {
	// Users are the described users, the caller first. A second user is
	// needed for "another user's id" and "another user's message".
	Users []User
	// WriteRoom is a room of Users[0] (and, for another author's message,
	// Users[1]) where the engine may post, edit and mark messages read.
	// Without it no valid write is generated.
	WriteRoom string
	// HideRoom is a room of Users[0] that may be hidden; "" means a valid
	// DELETE (hide) is never generated, only ones the server must refuse.
	HideRoom string
	// Rooms are other rooms of Users[0]: only read.
	Rooms []string
	// ForeignRooms are rooms Users[0] is not a member of (optional).
	ForeignRooms []string
	// Messages are known messages, of any room listed above.
	Messages []Message
}

// User is a described user.
type User struct {
	ID    string
	Token string
}

// Message is a known message.
type Message struct {
	ID   string
	Room string
	From string // the author's user id ("" when unknown)
	// Fresh marks a message the engine sent in this run: within any edit
	// window, so an edit of it by its author must succeed.
	Fresh bool
	// Sent is when the server says it was sent ("" when unknown: a fresh
	// message, newer than every message read before the run).
	Sent string
}

func (w World) check(writes bool) error {
	if len(w.Users) == 0 {
		return errors.New("generate: the world has no user")
	}
	for i, u := range w.Users {
		if u.ID == "" || u.Token == "" {
			return fmt.Errorf("generate: user %d has no id or no token", i+1)
		}
	}
	if writes && w.WriteRoom == "" {
		return errors.New("generate: writes are enabled but the world names no write room")
	}
	return nil
}

// caller is the user every generated request is made for.
func (w World) caller() User { return w.Users[0] }

// ownRooms are the rooms the caller belongs to, the write room first.
func (w World) ownRooms() []string {
	var out []string
	for _, r := range append([]string{w.WriteRoom, w.HideRoom}, w.Rooms...) {
		if r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// messagesIn lists the known messages of a room.
func (w World) messagesIn(room string) []Message {
	var out []Message
	for _, m := range w.Messages {
		if m.Room == room {
			out = append(out, m)
		}
	}
	return out
}

// oldestNewest returns the oldest and the newest of ms by the time the
// server says each was sent (a message without one, sent during the run, is
// newer than every other), in list order among equals.
func oldestNewest(ms []Message) (oldest, newest Message) {
	at := func(m Message) (time.Time, bool) {
		t, err := time.Parse(time.RFC3339Nano, m.Sent)
		return t, err == nil
	}
	older := func(a, b Message) bool {
		ta, oka := at(a)
		tb, okb := at(b)
		switch {
		case oka && okb:
			return ta.Before(tb)
		default:
			return oka && !okb
		}
	}
	oldest, newest = ms[0], ms[0]
	for _, m := range ms[1:] {
		if older(m, oldest) {
			oldest = m
		}
		if !older(m, newest) {
			newest = m
		}
	}
	return oldest, newest
}

// DerivedTokens returns every token the engine derives from the given real
// tokens (one character changed, letter case changed) to test that the
// server refuses them. They reveal most of a real token: a caller whose
// client records exchanges should add them to client.Config.Secrets so
// that its reports redact them too. The engine redacts them from what it
// reports whatever the client does.
func DerivedTokens(tokens []string) []string {
	var out []string
	for _, t := range tokens {
		for _, a := range alterations {
			if d := a.apply(t); d != t && d != "" && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// WorldFromTarget builds a World from a discovered target description
// (see target.Description.Discover): its users, write and hide rooms, the
// caller's other rooms, rooms only other users belong to, and a few
// messages of each readable room. It reads only; the engine adds messages
// of its own to the write room when writes are enabled. HideRoom comes from
// the description: with writes on, the engine hides that room for user 1,
// and nothing in the API document brings it back; clear World.HideRoom
// when later checks need it listed.
func WorldFromTarget(ctx context.Context, c *client.Client, d *target.Description) (World, error) {
	w := World{WriteRoom: d.WriteRoom, HideRoom: d.HideRoom}
	for i, u := range d.Users {
		if u.ID == "" {
			return World{}, fmt.Errorf("generate: users[%d] has no id; discover the target first", i)
		}
		w.Users = append(w.Users, User{ID: u.ID, Token: u.Token})
	}
	if len(w.Users) == 0 {
		return World{}, errors.New("generate: the target describes no user")
	}
	mine := map[string]bool{}
	for _, r := range []string{d.WriteRoom, d.HideRoom, d.Rooms.Org, d.Rooms.Repo, d.Rooms.Channel, d.Rooms.OneToOne} {
		if r != "" {
			mine[r] = true
		}
	}
	listed := func(user int, what string) ([]string, error) {
		u := w.Users[user]
		resp, err := c.Do(ctx, client.Request{Method: "GET", Path: "/v1/user/" + u.ID + "/" + what, Token: u.Token})
		if err != nil {
			return nil, err
		}
		var rooms []struct {
			ID string `json:"id"`
		}
		if resp.Status != 200 || resp.JSON(&rooms) != nil {
			// A list the server will not give only leaves the world
			// smaller; the checks of that list say what is wrong with it.
			return nil, nil
		}
		var ids []string
		for _, r := range rooms {
			ids = append(ids, r.ID)
		}
		return ids, nil
	}
	for _, what := range []string{"rooms", "channels"} {
		ids, err := listed(0, what)
		if err != nil {
			return World{}, err
		}
		for _, id := range ids {
			mine[id] = true
		}
	}
	for r := range mine {
		if r != w.WriteRoom && r != w.HideRoom {
			w.Rooms = append(w.Rooms, r)
		}
	}
	slices.Sort(w.Rooms)
	// Rooms other users list and the caller does not: the caller's
	// requests on them must be refused.
	for i := 1; i < len(w.Users) && i <= 3; i++ {
		ids, err := listed(i, "rooms")
		if err != nil {
			return World{}, err
		}
		for _, id := range ids {
			if !mine[id] && !slices.Contains(w.ForeignRooms, id) {
				w.ForeignRooms = append(w.ForeignRooms, id)
			}
		}
	}
	slices.Sort(w.ForeignRooms)
	// A few messages of each readable room, for cursors and message paths.
	rooms := w.ownRooms()
	if len(rooms) > 5 {
		rooms = rooms[:5]
	}
	me := w.caller()
	for _, room := range rooms {
		resp, err := c.Do(ctx, client.Request{Method: "GET", Path: "/v1/rooms/" + room + "/chatMessages", Token: me.Token, Query: map[string][]string{"limit": {"5"}}})
		if err != nil {
			return World{}, err
		}
		if resp.Status != 200 {
			continue
		}
		var msgs []struct {
			ID       string `json:"id"`
			Sent     string `json:"sent"`
			FromUser struct {
				ID string `json:"id"`
			} `json:"fromUser"`
		}
		if resp.JSON(&msgs) != nil {
			continue
		}
		for _, m := range msgs {
			w.Messages = append(w.Messages, Message{ID: m.ID, Room: room, From: m.FromUser.ID, Sent: m.Sent})
		}
	}
	return w, nil
}

// alteration derives a token the server never issued from a real one.
type alteration struct {
	name  string
	apply func(string) string
}

// alterations are the ways a real token is altered, each described in
// words for failure reports. Changing a character keeps the token's
// alphabet (hex stays hex), so a server that checks only the shape of a
// token still has to look it up.
var alterations = []alteration{
	{"its first character changed", func(t string) string { return changeAt(t, 0) }},
	{"its middle character changed", func(t string) string { return changeAt(t, len(t)/2) }},
	{"its last character changed", func(t string) string { return changeAt(t, len(t)-1) }},
	{"its letters in upper case", strings.ToUpper},
	{"the case of its first letter swapped", swapFirstLetterCase},
}

func changeAt(t string, i int) string {
	if t == "" {
		return ""
	}
	b := []byte(t)
	switch c := b[i]; {
	case c == '9':
		b[i] = '0'
	case c == 'f':
		b[i] = 'a'
	case c == 'F':
		b[i] = 'A'
	case c == 'z':
		b[i] = 'a'
	case c == 'Z':
		b[i] = 'A'
	case c >= '0' && c < '9', c >= 'a' && c < 'z', c >= 'A' && c < 'Z':
		b[i] = c + 1
	default:
		b[i] = '0'
	}
	return string(b)
}

func swapFirstLetterCase(t string) string {
	for i, c := range t {
		switch {
		case c >= 'a' && c <= 'z':
			return t[:i] + string(c-'a'+'A') + t[i+1:]
		case c >= 'A' && c <= 'Z':
			return t[:i] + string(c-'A'+'a') + t[i+1:]
		}
	}
	return t
}
