package reference

import (
	"strings"
	"sync"
	"testing"
)

// A send into a full room evicts its oldest messages: the room keeps the
// newest up to the bound, an evicted message is gone (404) and unread by
// no one, and its cached JSON is dropped.
func TestFullRoomEvictsItsOldest(t *testing.T) {
	h := newHarness(t, Config{})
	s := h.srv.Config.Handler.(*Server)
	room := h.world.Hints.WriteRoom
	s.store.mu.Lock()
	held := len(s.store.rooms[room].msgs)
	s.store.maxMsgs = held + 3
	s.store.mu.Unlock()

	var sent []MessageView
	for i := range 5 {
		sent = append(sent, h.send(1, room, "message "+strings.Repeat("x", i)))
	}
	s.store.mu.RLock()
	n := len(s.store.rooms[room].msgs)
	s.store.mu.RUnlock()
	if n != held+3 {
		t.Errorf("room holds %d messages, bound %d", n, held+3)
	}
	// The newest held+3 of the room's messages stay; older ones are gone.
	for i, m := range sent {
		want := 200
		if len(sent)-i > held+3 {
			want = 404
		}
		if r := h.get("/v1/rooms/" + room + "/chatMessages/" + m.ID); r.status != want {
			t.Errorf("sent message %d of %d (room held %d, bound %d): %d, want %d", i+1, len(sent), held, held+3, r.status, want)
		}
	}
	unread := map[string]bool{}
	var u UnreadView
	h.get("/v1/user/me/rooms/"+room+"/unreadItems").decode(t, &u)
	for _, id := range u.Chat {
		unread[id] = true
	}
	for _, it := range h.list(0, room, "?limit=100") {
		delete(unread, it.ID)
	}
	if len(unread) > 0 {
		t.Errorf("unread ids of evicted messages: %v", unread)
	}

	// The text bound: a room over it evicts until the new text fits.
	s.store.mu.Lock()
	s.store.maxMsgs, s.store.maxText = MaxRoomMessages, s.store.rooms[room].text+5000
	s.store.mu.Unlock()
	long := strings.Repeat("long text ", 400)
	for range 3 {
		h.send(0, room, long)
	}
	s.store.mu.RLock()
	text := s.store.rooms[room].text
	s.store.mu.RUnlock()
	if text > s.store.maxText {
		t.Errorf("room holds %d bytes of text, bound %d", text, s.store.maxText)
	}
}

// The JSON cache holds current versions only: an edited message's old
// version leaves it, whether it was cached before or during the edit.
func TestMessageCacheDropsOldVersions(t *testing.T) {
	h := newHarness(t, Config{})
	s := h.srv.Config.Handler.(*Server)
	room := h.world.Hints.WriteRoom
	m := h.send(0, room, "version 1")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 20 {
				h.get("/v1/rooms/" + room + "/chatMessages/" + m.ID)
				if i == 0 {
					h.do(call{method: "PUT", path: "/v1/rooms/" + room + "/chatMessages/" + m.ID, body: `{"text":"again"}`})
				}
			}
		})
	}
	wg.Wait()
	h.get("/v1/rooms/" + room + "/chatMessages/" + m.ID)
	versions := 0
	s.msgs.m.Range(func(k, _ any) bool {
		if msg := k.(*Message); msg.ID == m.ID {
			versions++
			if !s.store.Current(msg) {
				t.Errorf("cached version v%d is not current", msg.V)
			}
		}
		return true
	})
	if versions != 1 {
		t.Errorf("%d cached versions of one message, want 1", versions)
	}
}
