package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// servedWorld is the served world's users and write room, for decorators.
func servedWorld(t testing.TB) (tokens []string, ids []string, writeRoom string) {
	t.Helper()
	w, err := fixtures.Generate(worldSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range w.Users {
		tokens, ids = append(tokens, u.Token), append(ids, u.ID)
	}
	return tokens, ids, w.Hints.WriteRoom
}

// serveAs sends one request to next as a client would, and returns the
// answer.
func serveAs(next http.Handler, method, path, token string, body any) *httptest.ResponseRecorder {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	r := httptest.NewRequest(method, path, bytes.NewReader(raw))
	r.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	return rec
}

// userTwoPostsOnce lets another user's message arrive in the write room
// once, between the engine's state reads around a GET: the caller's unread
// items change, but not because of the GET.
func userTwoPostsOnce(t testing.TB) func(http.Handler) http.Handler {
	tokens, ids, room := servedWorld(t)
	return func(next http.Handler) http.Handler {
		var mu sync.Mutex
		reads := 0
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/v1/user/"+ids[0]+"/rooms/"+room+"/unreadItems" {
				mu.Lock()
				reads++
				if reads == 2 { // the read after the first GET judged
					serveAs(next, "POST", "/v1/rooms/"+room+"/chatMessages", tokens[1], map[string]string{"text": "arriving late"})
				}
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	}
}

// listingMarksRead marks every unread message of the room read when the
// caller lists its messages (other than the engine's own state read of the
// newest page): a GET that changes state.
func listingMarksRead(t testing.TB) func(http.Handler) http.Handler {
	tokens, ids, _ := servedWorld(t)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/rooms/"), "/")
			if r.Method == http.MethodGet && len(parts) == 2 && parts[1] == "chatMessages" && r.URL.Query().Get("limit") != newestPage &&
				r.Header.Get("Authorization") == "Bearer "+tokens[0] {
				var un struct {
					Chat []string `json:"chat"`
				}
				rec := serveAs(next, "GET", "/v1/user/"+ids[0]+"/rooms/"+parts[0]+"/unreadItems", tokens[0], nil)
				if json.Unmarshal(rec.Body.Bytes(), &un) == nil && len(un.Chat) > 0 {
					serveAs(next, "POST", "/v1/user/"+ids[0]+"/rooms/"+parts[0]+"/unreadItems", tokens[0], map[string]any{"chat": un.Chat})
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// currentUserMarksRead marks every unread message of the write room read
// when the caller asks who they are: a GET that changes the state of the
// room where the run writes.
func currentUserMarksRead(t testing.TB) func(http.Handler) http.Handler {
	tokens, ids, room := servedWorld(t)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/v1/user" && r.Header.Get("Authorization") == "Bearer "+tokens[0] {
				var un struct {
					Chat []string `json:"chat"`
				}
				rec := serveAs(next, "GET", "/v1/user/"+ids[0]+"/rooms/"+room+"/unreadItems", tokens[0], nil)
				if json.Unmarshal(rec.Body.Bytes(), &un) == nil && len(un.Chat) > 0 {
					serveAs(next, "POST", "/v1/user/"+ids[0]+"/rooms/"+room+"/unreadItems", tokens[0], map[string]any{"chat": un.Chat})
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// A change of the caller's unread items that the GET did not make (a
// message of another user arriving between the reads) does not fail
// GEN-GET-NO-CHANGE; a GET that does change them still does, and the
// failure shows what was read before and after.
func TestOnlyAChangeTheRequestMadeFails(t *testing.T) {
	getsNoFailure(t, serve(t, spec.Core, userTwoPostsOnce(t)), "a message arriving between the reads")

	for _, fault := range []struct {
		op            string
		wrap          func(http.Handler) http.Handler
		writeRoomOnly bool
	}{{"listMessages", listingMarksRead(t), false}, {"getCurrentUser", currentUserMarksRead(t), true}} {
		writeRoomOnly := fault.writeRoomOnly
		s := serve(t, spec.Core, fault.wrap)
		if !writeRoomOnly {
			// The rooms the engine lists: one where the caller has unread
			// messages, and that the run does not write to.
			s.world.Rooms, s.world.HideRoom = unreadRooms(t, s), ""
		}
		e := s.engine(t, spec.Core, testSeed, true)
		r, err := e.Run(context.Background(), GetNoChange, fault.op)
		if err != nil {
			t.Fatal(err)
		}
		fs := r.Failures()
		if len(fs) == 0 {
			t.Fatalf("a listing that marks messages read (in the write room only: %v) passed GEN-GET-NO-CHANGE", writeRoomOnly)
		}
		p := fs[0].Problem
		if !strings.Contains(p, "unread items of the room changed: before 200 {\"chat\":[\"") || !strings.Contains(p, "after 200 {\"chat\":[]") ||
			writeRoomOnly && !strings.Contains(p, "it changed the caller's unread items of the room again") {
			t.Errorf("the failure does not show before and after: %s", p)
		}
		t.Logf("%s", fs[0])
	}
}

// unreadRooms lists the rooms of the world, but the write room, where the
// caller has unread messages.
func unreadRooms(t testing.TB, s *served) []string {
	t.Helper()
	me := s.world.caller()
	for _, room := range s.world.ownRooms() {
		if room == s.world.WriteRoom {
			continue
		}
		resp, err := s.client.Do(context.Background(), client.Request{Method: "GET", Path: "/v1/user/" + me.ID + "/rooms/" + room + "/unreadItems", Token: me.Token})
		if err != nil {
			t.Fatal(err)
		}
		var un struct {
			Chat []string `json:"chat"`
		}
		if resp.JSON(&un) == nil && len(un.Chat) > 0 {
			return []string{room}
		}
	}
	t.Fatal("the world has no room with unread messages of the caller")
	return nil
}

// A value a "changed" failure shows is cut around the first difference.
func TestChangedValuesAreCut(t *testing.T) {
	long := strings.Repeat("a", 1000)
	before := snapshot{reads: []stateRead{{what: "x", value: long + "b" + long}}}
	after := snapshot{reads: []stateRead{{what: "x", value: long + "c" + long}}}
	got := showChange(before, after, "x")
	if len(got) > 2*maxShown+120 || !strings.Contains(got, "b") || !strings.Contains(got, "c") || !strings.Contains(got, "more bytes") {
		t.Errorf("%d bytes: %s", len(got), got)
	}
}

// A read whose answer broke the document shows no state: a change to or
// from it is none; a change between two sound reads is one.
func TestABrokenReadIsNoChange(t *testing.T) {
	sound := func(v string) snapshot { return snapshot{reads: []stateRead{{what: "page", value: v}}} }
	broken := snapshot{reads: []stateRead{{what: "page", value: `200 {"messages":[]}`, broken: true}}}
	if got := changed(broken, sound("200 []")); got != "" {
		t.Errorf("a wrong-shaped read before, a sound one after: changed %q", got)
	}
	if got := changed(sound("200 []"), broken); got != "" {
		t.Errorf("a sound read before, a wrong-shaped one after: changed %q", got)
	}
	if got := changed(sound("200 []"), sound(`200 [{"id":"a"}]`)); got != "page" {
		t.Errorf("two sound reads that differ: changed %q", got)
	}
}

// unreadShowsLate shows the caller a message of another user in the write
// room's unread items only from the caller's lag-th read of them after the
// send: an eventually consistent server, counted in reads so that the test
// does not depend on time.
func unreadShowsLate(t testing.TB, lag int) func(http.Handler) http.Handler {
	tokens, ids, room := servedWorld(t)
	unreadPath := "/v1/user/" + ids[0] + "/rooms/" + room + "/unreadItems"
	return func(next http.Handler) http.Handler {
		var mu sync.Mutex
		seen := map[string]int{} // unread reads since each message was sent
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodPost && r.URL.Path == "/v1/rooms/"+room+"/chatMessages" && r.Header.Get("Authorization") != "Bearer "+tokens[0]:
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				var m struct {
					ID string `json:"id"`
				}
				if json.Unmarshal(rec.Body.Bytes(), &m) == nil && m.ID != "" {
					mu.Lock()
					seen[m.ID] = 0
					mu.Unlock()
				}
				for k, vs := range rec.Header() {
					w.Header()[k] = vs
				}
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
			case r.Method == http.MethodGet && r.URL.Path == unreadPath:
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				var u map[string][]string
				if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &u) != nil {
					w.WriteHeader(rec.Code)
					w.Write(rec.Body.Bytes())
					return
				}
				mu.Lock()
				for id := range seen {
					seen[id]++
				}
				for k, list := range u {
					kept := []string{}
					for _, id := range list {
						if n, ok := seen[id]; !ok || n >= lag {
							kept = append(kept, id)
						}
					}
					u[k] = kept
				}
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(u)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
}

// On a server that shows another user's message in the caller's unread
// items a few reads late, a change seen across a GET is put to a second
// try only once the message the second try sets up shows: the state is
// not settled while that message is still on its way, and its arrival
// is not blamed on the request.
func TestASecondTryWaitsForItsOwnMessage(t *testing.T) {
	late := unreadShowsLate(t, 3)
	posts := userTwoPostsOnce(t)
	getsNoFailure(t, serve(t, spec.Core, func(next http.Handler) http.Handler { return posts(late(next)) }), "a message shown late")
}

// getsNoFailure runs GEN-GET-NO-CHANGE against s, which changes state only
// by itself (why), and fails t on any failure of the property.
func getsNoFailure(t *testing.T, s *served, why string) {
	t.Helper()
	r, err := s.engine(t, spec.Core, testSeed, true).Run(context.Background(), GetNoChange)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if fs := r.Failures(); len(fs) > 0 {
		t.Errorf("%s failed the GET: %v", why, fs)
	}
}
