package record

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/suites/client"
)

func cassetteRequest(t *testing.T, method, url, token, body string) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

func answer(t *testing.T, c *Cassette, req *http.Request) (int, string, error) {
	t.Helper()
	resp, err := c.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), nil
}

// A cassette answers each request with the record's answers to that same
// request, in the record's order; who asked (by token), the scheme, the
// headers and the body tell requests apart; anything else is no answer.
func TestCassetteAnswersEachRequestWithTheRecordsAnswersInOrder(t *testing.T) {
	started := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	bearer := http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer REDACTED"}}
	post := http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer REDACTED"}, "Content-Type": {"application/json"}}
	xs := []*Exchange{
		{N: 1, Start: 1 * time.Second, End: 2 * time.Second, User: 0, Method: "GET", Path: "/v1/user", RequestHeader: bearer, Status: 200,
			ResponseHeader: http.Header{"Content-Type": {"application/json"}}, ResponseBody: []byte(`[{"id":"a"}]`), Reproduce: "curl -X GET 'https://h/api/v1/user'"},
		{N: 2, Start: 3 * time.Second, End: 4 * time.Second, User: 1, Method: "GET", Path: "/v1/user", RequestHeader: bearer, Status: 200,
			ResponseBody: []byte(`[{"id":"b"}]`), Reproduce: "curl -X GET 'https://h/api/v1/user'"},
		{N: 3, Start: 5 * time.Second, End: 6 * time.Second, User: 0, Method: "GET", Path: "/v1/user", RequestHeader: bearer, Status: 503,
			ResponseBody: []byte(`{"error":"busy"}`), Reproduce: "curl -X GET 'https://h/api/v1/user'"},
		{N: 4, Start: 7 * time.Second, End: 8 * time.Second, User: 0, Method: "POST", Path: "/v1/rooms/r/chatMessages", RequestHeader: post,
			RequestBody: []byte(`{"text":"hi"}`), Status: 200, ResponseBody: []byte(`{"id":"m"}`), Reproduce: "curl -X POST 'https://h/api/v1/rooms/r/chatMessages'"},
		{N: 5, Start: 9 * time.Second, End: 10 * time.Second, User: -1, Method: "GET", Path: "/v1/user", RequestHeader: http.Header{"Accept": {"application/json"}},
			Status: 400, ResponseBody: []byte("plain http"), Reproduce: "curl -X GET 'http://h/api/v1/user'"},
	}
	c := NewCassette(Header{Started: started, MountPath: "/api"}, xs, []string{"tok-one", "tok-two"}, nil)

	if code, body, err := answer(t, c, cassetteRequest(t, "GET", "https://other/api/v1/user", "tok-one", "")); err != nil || code != 200 || body != `[{"id":"a"}]` {
		t.Errorf("user 1's first read: %d %q %v", code, body, err)
	}
	if got := c.Now(); !got.Equal(started.Add(2 * time.Second)) {
		t.Errorf("the clock after the first answer reads %s, not the record's end of it", got)
	}
	if code, body, _ := answer(t, c, cassetteRequest(t, "GET", "https://other/api/v1/user", "tok-two", "")); code != 200 || body != `[{"id":"b"}]` {
		t.Errorf("user 2's read: %d %q", code, body)
	}
	if code, _, _ := answer(t, c, cassetteRequest(t, "GET", "https://other/api/v1/user", "tok-one", "")); code != 503 {
		t.Errorf("user 1's second read got %d, not the record's second answer to it (503)", code)
	}
	if code, _, _ := answer(t, c, cassetteRequest(t, "GET", "http://other/api/v1/user", "", "")); code != 400 {
		t.Errorf("the plain-http read got %d, not its own answer", code)
	}
	if _, _, err := answer(t, c, cassetteRequest(t, "POST", "https://other/api/v1/rooms/r/chatMessages", "tok-one", `{"text":"bye"}`)); !errors.Is(err, client.ErrNotRecorded) {
		t.Errorf("a send of another text: %v, want ErrNotRecorded", err)
	}
	resp, err := c.RoundTrip(cassetteRequest(t, "POST", "https://other/api/v1/rooms/r/chatMessages", "tok-one", `{"text":"hi"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the recorded send: %v", err)
	}
	if s, e, ok := c.Times(resp); !ok || !s.Equal(started.Add(7*time.Second)) || !e.Equal(started.Add(8*time.Second)) {
		t.Errorf("the send's times: %s %s %v", s, e, ok)
	}
	if _, _, err := answer(t, c, cassetteRequest(t, "GET", "https://other/api/v1/user", "tok-one", "")); !errors.Is(err, client.ErrNotRecorded) {
		t.Errorf("a third read of user 1, which the record does not hold: %v", err)
	}
	served, unserved := c.Served()
	misses := c.Misses()
	if served != 5 || unserved != 0 || len(misses) != 2 {
		t.Errorf("served %d, unserved %d, misses %v", served, unserved, misses)
	}
	if len(misses) > 0 && (!strings.Contains(misses[0].Request, "POST /v1/rooms/r/chatMessages as user 1 with body") || !strings.Contains(misses[0].Request, "bye")) {
		t.Errorf("the first miss is told as %q", misses[0].Request)
	}
	for _, m := range misses {
		if strings.Contains(m.Request, "tok-") {
			t.Errorf("a miss shows a token: %q", m.Request)
		}
	}
}

// An answer whose body broke off in the run breaks off in the replay, at
// the same byte and short of the same declared length.
func TestCassetteBreaksOffWhatBrokeOff(t *testing.T) {
	bearer := http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer REDACTED"}}
	xs := []*Exchange{{N: 1, Start: time.Second, End: 2 * time.Second, User: 0, Method: "GET", Path: "/v1/user", RequestHeader: bearer, Status: 200,
		ResponseHeader: http.Header{"Content-Length": {"100"}}, ResponseBody: []byte(`[{"id":`), BrokenOff: true}}
	c := NewCassette(Header{Started: time.Now()}, xs, []string{"tok-one"}, nil)
	resp, err := c.RoundTrip(cassetteRequest(t, "GET", "https://other/v1/user", "tok-one", ""))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	if resp.ContentLength != 100 || string(got) != `[{"id":` || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("declared %d, read %q, then %v", resp.ContentLength, got, err)
	}
}
