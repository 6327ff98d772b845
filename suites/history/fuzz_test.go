package history

import (
	"testing"
	"time"
)

// fuzzTargets are one request of each operation.
var fuzzTargets = []struct{ method, target string }{
	{"GET", "/v1/user"},
	{"GET", "/v1/user/me/rooms"},
	{"GET", "/v1/user/u1/orgs"},
	{"GET", "/v1/user/u1/repos"},
	{"GET", "/v1/user/me/channels"},
	{"GET", "/v1/user/me/rooms/r1/unreadItems"},
	{"POST", "/v1/user/me/rooms/r1/unreadItems"},
	{"DELETE", "/v1/user/me/rooms/r1"},
	{"GET", r1 + "?limit=3"},
	{"GET", r1 + "/m1"},
	{"POST", r1},
	{"PUT", r1 + "/m1"},
}

// FuzzObserve feeds arbitrary answers (the target's bytes are outside
// input) to every operation, twice at different times and by two users, and
// checks: nothing panics, and Check stays well-formed.
func FuzzObserve(f *testing.F) {
	f.Add(uint8(8), []byte(page(M{ID: "m1"}, M{ID: "m1", V: 2, EditedAt: "2026-11-02T07:00:00Z"})), []byte(page(M{ID: "m1", Text: "x"})), []byte(`{"chat":["m1"]}`))
	f.Add(uint8(9), []byte(M{ID: "m1", Unread: true, Extra: `,"mentions":[{"screenName":"x","userId":"u1"}]`}.String()), []byte(M{ID: "m1", From: "u2", ReadBy: 3}.String()), []byte(nil))
	f.Add(uint8(1), []byte(`[{"id":"d1","oneToOne":true,"url":"/a","user":{"id":"u1","username":"z"}}]`), []byte(`[{"id":"d1","oneToOne":false,"platformType":"ORG"}]`), []byte(`[]`))
	f.Add(uint8(5), []byte(`{"chat":["m1",1,null],"mention":["m2"]}`), []byte(`{"chat":"m1"}`), []byte(`{"chat":["m1"]}`))
	f.Add(uint8(0), []byte(`[{"id":"u1","username":"ada","url":"/ada"}]`), []byte(`[{"id":"u1","username":"eve"}]`), []byte(`{}`))
	f.Add(uint8(11), []byte(`{"id":"m1","v":1e400,"readBy":-1,"sent":"9999-99-99T99:99:99Z","editedAt":{}}`), []byte(`{"id":"\ud800","text":"\u0000"}`), []byte(`[[[[`))
	f.Fuzz(func(t *testing.T, op uint8, first, second, request []byte) {
		c := New(Options{Eventually: time.Millisecond, Profile: "reference", MaxPerRequirement: 2})
		h := &hist{c: c}
		h.users()
		x := fuzzTargets[int(op)%len(fuzzTargets)]
		y := fuzzTargets[(int(op)/len(fuzzTargets))%len(fuzzTargets)]
		h.ex(0, 10, 0, x.method, x.target, 200, string(request), string(first))
		h.ex(20, 30, 1, y.method, y.target, 200, string(request), string(second))
		h.ex(40, 50, 0, x.method, x.target, 200, string(request), string(second))
		for _, ct := range c.Check() {
			if ct.Requirement == "" || ct.Text == "" || len(ct.Exchanges) == 0 {
				t.Fatalf("malformed contradiction %+v", ct)
			}
			_ = ct.String()
		}
	})
}
