package client

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The log keeps what each write named (path segments, the strings of its
// body and of its answer), answered or not, with the check it was sent
// for; reads are not logged; a check never sees its own writes.
func TestWriteLogNamesWhatEachWriteNamed(t *testing.T) {
	var slow atomic.Bool
	h := func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			time.Sleep(300 * time.Millisecond)
		}
		if r.Method == "GET" {
			reply(200, "[]")(w, r)
			return
		}
		reply(200, `{"id":"m9","text":"hello","v":1,"readBy":0,"nested":[{"x":"deep"}]}`)(w, r)
	}
	log := NewWriteLog(0)
	c, _ := newClient(t, h, func(c *Config) { c.Writes = log; c.Timeout = 100 * time.Millisecond })
	ctx := WithCheck(context.Background(), "sender")
	from := time.Now()
	if _, err := c.Do(ctx, Request{Method: "POST", Path: "/v1/rooms/r%2F1/chatMessages", Token: token, Body: map[string]any{"text": "hello there", "ids": []string{"a1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(ctx, Request{Method: "GET", Path: "/v1/rooms/r2/chatMessages", Token: token}); err != nil {
		t.Fatal(err)
	}
	slow.Store(true)
	if _, err := c.Do(ctx, Request{Method: "PUT", Path: "/v1/rooms/r1/chatMessages/m7", Token: token, Body: map[string]any{"text": "x"}}); err == nil {
		t.Fatal("the slow edit did not time out")
	}
	ws, ok := log.Overlapping("another check", from, time.Now())
	if !ok || len(ws) != 2 {
		t.Fatalf("got %d writes (complete: %v), want the send and the edit", len(ws), ok)
	}
	send, edit := ws[0], ws[1]
	for _, s := range []string{"v1", "rooms", "r/1", "chatMessages", "hello there", "a1", "m9", "hello", "deep"} {
		if !send.Names(s) {
			t.Errorf("the send does not name %q", s)
		}
	}
	for _, s := range []string{"", "r2", "text", "1", "hello the"} {
		if send.Names(s) {
			t.Errorf("the send names %q", s)
		}
	}
	if send.Check != "sender" || send.Status != 200 || edit.Status != 0 || !edit.Names("m7") || edit.Names("m9") {
		t.Errorf("send %+v, edit %+v", send, edit)
	}
	if ws, _ := log.Overlapping("sender", from, time.Now()); len(ws) != 0 {
		t.Errorf("a check sees %d writes of its own", len(ws))
	}
	if ws, _ := log.Overlapping("another check", time.Now(), time.Now()); len(ws) != 0 {
		t.Errorf("%d writes that ended before the interval overlap it", len(ws))
	}
	if ws, _ := log.Overlapping("another check", from.Add(-time.Hour), from.Add(-time.Minute)); len(ws) != 0 {
		t.Errorf("%d writes sent after the interval overlap it", len(ws))
	}
}

// A log drops what is older than it keeps, and says when it can no longer
// answer for an interval.
func TestWriteLogForgetsOldWrites(t *testing.T) {
	log := NewWriteLog(time.Minute)
	t0 := time.Now()
	old := log.begin("a", "/v1/x/old", nil, t0)
	log.end(old, nil, 200, t0, t0)
	inFlight := log.begin("a", "/v1/x/flying", nil, t0)
	later := t0.Add(2 * time.Minute)
	log.end(log.begin("a", "/v1/x/new", nil, later), nil, 200, later, later)
	if _, ok := log.Overlapping("b", t0, t0.Add(3*time.Minute)); ok {
		t.Error("an interval older than the log keeps is answered as complete")
	}
	ws, ok := log.Overlapping("b", t0.Add(90*time.Second), t0.Add(3*time.Minute))
	if !ok || len(ws) != 2 || !ws[0].Names("flying") || !ws[1].Names("new") {
		t.Errorf("got %d writes (complete: %v), want the one in flight and the newer one", len(ws), ok)
	}
	if len(log.w) != 2 {
		t.Errorf("the log keeps %d writes, want 2", len(log.w))
	}
	log.end(inFlight, []byte(`{"id":"m1"}`), 200, t0, t0.Add(time.Second))
	if ws, _ := log.Overlapping("b", t0.Add(90*time.Second), t0.Add(3*time.Minute)); len(ws) != 1 {
		t.Errorf("got %d writes once the one in flight ended long before, want 1", len(ws))
	}
	var none *WriteLog
	if _, ok := none.Overlapping("b", t0, t0); ok {
		t.Error("no log answers as complete")
	}
}

// Writes answered while another goroutine reads the log: go test -race
// holds the log to it (an answer's names once went into a map a reader
// had been handed).
func TestWriteLogIsSafeForConcurrentUse(t *testing.T) {
	log := NewWriteLog(0)
	t0 := time.Now()
	var wg sync.WaitGroup
	for i := range 50 {
		w := log.begin("a", "/v1/x", nil, t0)
		wg.Go(func() { log.end(w, []byte(`{"id":"m`+strconv.Itoa(i)+`"}`), 200, t0, time.Now()) })
		wg.Go(func() {
			ws, _ := log.Overlapping("b", t0, time.Now())
			for _, w := range ws {
				w.Names("m1")
			}
		})
	}
	wg.Wait()
	if ws, _ := log.Overlapping("b", t0, time.Now()); len(ws) != 50 || !ws[1].Names("m1") {
		t.Errorf("got %d writes, want 50, the second naming m1", len(ws))
	}
}
