package conformance

// Marking read what a check's sends left unread, when the check ends.

import (
	"context"
	"sync"

	"github.com/chatrooms/conformance/suites/client"
)

// leftover is what a check's sends left unread for another described
// user, by reader and room: marked read when the check ends, so a
// long-lived server's unread lists do not grow from run to run.
type leftover struct {
	mu  sync.Mutex
	ids map[int]map[string][]string
}

// noteSent records a message user u sent, which it leaves unread for the
// other of users 1 and 2 (the two the write room is shared by).
func (e *Env) noteSent(u int, room, id string) {
	if id == "" || len(e.Users) < 2 || u > 1 {
		return
	}
	reader := 1 - u
	e.left.mu.Lock()
	defer e.left.mu.Unlock()
	if e.left.ids[reader] == nil {
		e.left.ids[reader] = map[string][]string{}
	}
	e.left.ids[reader][room] = append(e.left.ids[reader][room], id)
}

// markLeftRead marks what the check's sends left unread read for its
// reader, when the check ends. It judges nothing: a target that refuses is
// judged by the unread checks.
func (e *Env) markLeftRead(ctx context.Context) {
	e.left.mu.Lock()
	defer e.left.mu.Unlock()
	for reader, rooms := range e.left.ids {
		for room, ids := range rooms {
			for len(ids) > 0 { // in batches, so no request body grows large
				n := min(len(ids), 200)
				_, _ = e.Client.Do(ctx, client.Request{Method: "POST", Path: unreadPath(e.Users[reader].ID, room), // not e.me: this judges nothing
					Token: e.Users[reader].Token, Body: map[string]any{"chat": ids[:n]}})
				ids = ids[n:]
			}
		}
	}
}
