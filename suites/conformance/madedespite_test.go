package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// A send whose answer the check cannot use (202 with no body), where the
// message was stored all the same, lets a check of another requirement go
// on with the message as the room lists it, the answer a finding of
// MSG-SEND-200; a check of a statement about the send's answer, a message
// the room does not list, or a text listed twice leave the check blocked
// as before.
func TestASendWhoseAnswerIsUnusableIsFoundInTheRoom(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ids    []string
		stored int // how many times the room lists the text sent
		// wanted: the check's end, and a report entry it must leave
		failed bool
		entry  string
	}{
		{"another requirement's check, the message listed", []string{"UNREAD-CHAT"}, 1, false, EntrySoftFail + " MSG-SEND-200"},
		{"a check of the send's answer", []string{"MSG-SEND-DEFAULTS"}, 1, true, EntryBlockedBy + " MSG-SEND-200"},
		{"the message not listed", []string{"UNREAD-CHAT"}, 0, true, EntryBlockedBy + " MSG-SEND-200"},
		{"the text listed twice", []string{"UNREAD-CHAT"}, 2, true, EntryBlockedBy + " MSG-SEND-200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var listed []map[string]any
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case r.Method == http.MethodPost:
					var body struct{ Text string }
					_ = json.NewDecoder(r.Body).Decode(&body)
					for i := range tc.stored {
						listed = append(listed, map[string]any{"id": fmt.Sprintf("m%d-%d", len(listed), i), "text": body.Text, "fromUser": map[string]any{"id": "u1"}})
					}
					w.WriteHeader(http.StatusAccepted)
				default:
					w.Header().Set("Content-Type", "application/json; charset=utf-8")
					_ = json.NewEncoder(w).Encode(append([]map[string]any{}, listed...))
				}
			}))
			defer srv.Close()
			var got Message
			r := runCheck(t, srv.URL, srv.Client(), tc.ids, func(e *Env) {
				got = e.send(0, "r1", "a text with a fresh marker")
				e.failLater()
			})
			if failed := r.end == failed; failed != tc.failed {
				t.Errorf("failed %v, want %v: %s", failed, tc.failed, r.message)
			}
			if !tc.failed && (got.ID == "" || got.Text != "a text with a fresh marker") {
				t.Errorf("the check went on with %+v, want the message the room lists", got)
			}
			found, entries := hasEntry(r, tc.entry)
			if !found {
				t.Errorf("entries %q, want one starting %q", entries, tc.entry)
			}
		})
	}
}

// An edit answered with two JSON documents, though stored, lets a check of
// another requirement go on with the message read back by id; a check of
// the edit's answer judges that answer.
func TestAnEditWhoseAnswerIsUnusableIsReadBack(t *testing.T) {
	for _, tc := range []struct {
		ids    []string
		failed bool
		entry  string
	}{
		// The bare message breaks the user's shape before the JSON's:
		// whichever owner it names, it is a finding and the check goes on.
		{[]string{"MSG-EDIT-PERSISTED"}, false, EntrySoftFail + " "},
		{[]string{"MSG-EDIT-V-INC"}, true, EntryFailed + " MSG-EDIT-V-INC"},
	} {
		var mu sync.Mutex
		text := "before"
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			if r.Method == http.MethodPut {
				var body struct{ Text string }
				_ = json.NewDecoder(r.Body).Decode(&body)
				text = body.Text
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			one, _ := json.Marshal(map[string]any{"id": "m1", "text": text, "fromUser": map[string]any{"id": "u1"}})
			if r.Method == http.MethodPut {
				one = append(one, one...) // the document twice
			}
			_, _ = w.Write(one)
		}))
		var got Message
		r := runCheck(t, srv.URL, srv.Client(), tc.ids, func(e *Env) {
			got = e.edit(0, "r1", "m1", "after")
			e.failLater()
		})
		srv.Close()
		if failed := r.end == failed; failed != tc.failed {
			t.Errorf("%v: failed %v, want %v: %s", tc.ids, failed, tc.failed, r.message)
		}
		if !tc.failed && got.Text != "after" {
			t.Errorf("%v: the check went on with %+v, want the edited message read back", tc.ids, got)
		}
		if found, entries := hasEntry(r, tc.entry); !found {
			t.Errorf("%v: entries %q, want one starting %q", tc.ids, entries, tc.entry)
		}
	}
}
