package reference

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

var fuzzServer = sync.OnceValue(func() *Server { return New(testWorld(), Config{}) })

// Whatever a client sends, the server answers a JSON body and never a 5xx.
func FuzzRequests(f *testing.F) {
	w := testWorld()
	room := w.Hints.WriteRoom
	for _, seed := range []struct{ method, target, auth, body string }{
		{"GET", "/v1/rooms/" + room + "/chatMessages?limit=5&skip=2", "Bearer " + w.Users[0].Token, ""},
		{"POST", "/v1/rooms/" + room + "/chatMessages", "Bearer " + w.Users[0].Token, `{"text":"hi @x #1"}`},
		{"PUT", "/v1/rooms/" + room + "/chatMessages/" + strings.Repeat("a", 24), "Bearer " + w.Users[0].Token, `{"text":5}`},
		{"POST", "/v1/user/me/rooms/" + room + "/unreadItems", "Bearer " + w.Users[0].Token, `{"chat":["x"]}`},
		{"GET", "/v1/user/me/rooms?access_token=%zz", "", ""},
		{"DELETE", "/v1/user/me/rooms/" + room, "Token x", ""},
	} {
		f.Add(seed.method, seed.target, seed.auth, seed.body)
	}
	s := fuzzServer()
	f.Fuzz(func(t *testing.T, method, target, auth, body string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \t\r\n#") || strings.ContainsAny(method, " \t\r\n()<>@,;:\\\"/[]?={}") || method == "" {
			return // not a request line a client can send
		}
		req := httptest.NewRequest("GET", "/", strings.NewReader(body))
		req.Method = method
		req.URL.Path, req.URL.RawQuery, _ = strings.Cut(target, "?")
		req.Header.Set("Content-Type", "application/json")
		if auth != "" && !strings.ContainsAny(auth, "\r\n") {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: %d with a body that is not JSON: %q", method, target, rec.Code, rec.Body)
		}
	})
}
