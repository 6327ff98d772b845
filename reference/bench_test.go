package reference

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference/localtls"
)

// serve runs one request through the whole handler stack (auth, routing,
// store, JSON) without a network, and fails the benchmark on a non-200.
func serve(b *testing.B, h http.Handler, method, path, token, body string) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
}

func BenchmarkPage100(b *testing.B) {
	w := testWorld()
	s := New(w, Config{})
	path := "/v1/rooms/" + w.Hints.Org + "/chatMessages?limit=100"
	b.ReportAllocs()
	b.ResetTimer() // loading the world is not part of a page
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			serve(b, s, "GET", path, w.Users[0].Token, "")
		}
	})
}

func BenchmarkSend(b *testing.B) {
	w := testWorld()
	s := New(w, Config{})
	path := "/v1/rooms/" + w.Hints.WriteRoom + "/chatMessages"
	b.ReportAllocs()
	for b.Loop() {
		serve(b, s, "POST", path, w.Users[0].Token, `{"text":"hello @someone, see #12 and https://example.com/x"}`)
	}
}

func BenchmarkEdit(b *testing.B) {
	w := testWorld()
	s := New(w, Config{})
	m, _, err := s.Store().Send(w.Users[0].ID, w.Hints.WriteRoom, "to be edited", false)
	if err != nil {
		b.Fatal(err)
	}
	path := "/v1/rooms/" + w.Hints.WriteRoom + "/chatMessages/" + m.ID
	b.ReportAllocs()
	for b.Loop() {
		serve(b, s, "PUT", path, w.Users[0].Token, `{"text":"edited **again**"}`)
	}
}

// A world with one extra room of a million short messages, built once.
var millionRoom = sync.OnceValues(func() (*Server, string) {
	const n = 1_000_000
	w := fixtures.WithRoom(testWorld(), strings.Repeat("e", 24), n, func(i int) string { return fmt.Sprintf("message %d", i) })
	msgs := w.Rooms[len(w.Rooms)-1].Messages
	return New(w, Config{}), msgs[n/100].ID + " " + msgs[n-200].ID
})

// A beforeId page deep in the room (1% from the oldest end) against one near
// its newest end: with the binary-searched window both cost the same.
func BenchmarkBeforeIDMillion(b *testing.B) {
	s, cursors := millionRoom()
	deep, near := strings.Fields(cursors)[0], strings.Fields(cursors)[1]
	token := testWorld().Users[0].Token
	for _, bc := range []struct{ name, cursor string }{{"deep", deep}, {"near-newest", near}} {
		b.Run(bc.name, func(b *testing.B) {
			path := "/v1/rooms/" + strings.Repeat("e", 24) + "/chatMessages?limit=100&beforeId=" + bc.cursor
			b.ReportAllocs()
			for b.Loop() {
				serve(b, s, "GET", path, token, "")
			}
		})
	}
}

// BenchmarkPage100OverTLS serves 100-message pages over a real TLS
// listener on loopback, with the client on the same two cores.
func BenchmarkPage100OverTLS(b *testing.B) {
	w := testWorld()
	srv := httptest.NewTLSServer(New(w, Config{}))
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	url := srv.URL + "/v1/rooms/" + w.Hints.Org + "/chatMessages?limit=100"
	b.SetParallelism(4)
	b.ReportAllocs()
	b.ResetTimer() // loading the world is not part of a page
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Authorization", "Bearer "+w.Users[0].Token)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatal(resp.Status)
			}
		}
	})
}

// A world with one extra room of 200,000 messages of a few words each,
// built once; every 1,000th message holds the word "needle".
var searchRoom = sync.OnceValue(func() *Server {
	return New(fixtures.WithRoom(testWorld(), strings.Repeat("d", 24), 200_000, searchText), Config{})
})

// searchText is the i-th text of the search benchmarks' big room.
func searchText(i int) string {
	text := fmt.Sprintf("message %d about the weather, lunch and the build", i)
	if i%1000 == 0 {
		text += " needle"
	}
	return text
}

// BenchmarkSearch200k is one search (two terms, 200 matches, a page of the
// newest 100) in a room of 200,000 messages.
func BenchmarkSearch200k(b *testing.B) {
	s := searchRoom()
	path := "/v1/rooms/" + strings.Repeat("d", 24) + "/chatMessages?limit=100&q=NEEDLE+weather"
	token := testWorld().Users[0].Token
	b.ReportAllocs()
	for b.Loop() {
		serve(b, s, "GET", path, token, "")
	}
}

// BenchmarkStartup is what a run that names no target pays before its
// first check: generate the seeded world, load it (rendering its history)
// and make a certificate.
func BenchmarkStartup(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		w, err := fixtures.Generate(1)
		if err != nil {
			b.Fatal(err)
		}
		New(w, Config{})
		if _, _, err := localtls.SelfSigned(CertOrg, CertName); err != nil {
			b.Fatal(err)
		}
	}
}
