package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
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
			v, err := spec.MustLoad(spec.Core).NewValidator("")
			if err != nil {
				t.Fatal(err)
			}
			c, err := client.New(client.Config{BaseURL: srv.URL, HTTP: srv.Client(), Validator: v, Timeout: time.Second, MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			var got Message
			r := NewRecording("a check", tc.ids)
			r.Run(context.Background(), func(ctx context.Context, ct CheckT) {
				e := &Env{t: ct, ctx: ctx, ids: tc.ids, blocker: new(string), judging: new(string), suspect: new(string),
					judged: map[string]bool{}, soft: map[string]bool{}, later: new([]laterFail), held: new([]string)}
				e.Client, e.Profile, e.Users, e.Eventually = c, spec.Core, []target.User{{Token: "token-1", ID: "u1"}}, 300*time.Millisecond
				defer e.unwind()
				got = e.send(0, "r1", "a text with a fresh marker")
				e.failLater()
			}, func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 5*time.Second)
			})
			if failed := r.end == failed; failed != tc.failed {
				t.Errorf("failed %v, want %v: %s", failed, tc.failed, r.message)
			}
			if !tc.failed && (got.ID == "" || got.Text != "a text with a fresh marker") {
				t.Errorf("the check went on with %+v, want the message the room lists", got)
			}
			var entries []string
			found := false
			for _, x := range r.ReportEntries() {
				entries = append(entries, x.Name+" "+x.Value)
				found = found || strings.HasPrefix(x.Name+" "+x.Value, tc.entry)
			}
			if !found {
				t.Errorf("entries %q, want one starting %q", entries, tc.entry)
			}
		})
	}
}
