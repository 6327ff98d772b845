package conformance

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
)

// A read whose answer the check cannot use is sent again once when the
// breach is another requirement's: with a usable second answer the first
// is that requirement's finding and the check goes on; a check of the
// requirement itself, or a second answer no better, is judged on the
// first as before.
func TestAReadTheCheckCannotUseIsSentAgainOnce(t *testing.T) {
	const wrapped, plain = `{"rooms":[]}`, `[]`
	for _, tc := range []struct {
		name    string
		ids     []string
		answers []string
		// wanted: the check's end, its entries, and how many reads it sent
		failed   bool
		entry    string // a report entry the check must leave, name then value's start
		requests int64
	}{
		{"another requirement's breach, then a usable answer", []string{"ROOM-KINDS"}, []string{wrapped, plain}, false, EntrySoftFail + " ROOM-LIST", 2},
		{"the check's own requirement", []string{"ROOM-LIST"}, []string{wrapped, plain}, true, EntryFailed + " ROOM-LIST", 1},
		{"a second answer no better", []string{"ROOM-KINDS"}, []string{wrapped, wrapped}, true, EntryBlockedBy + " ROOM-LIST", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := n.Add(1) - 1
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				_, _ = io.WriteString(w, tc.answers[min(int(i), len(tc.answers)-1)])
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
			r := NewRecording("a check", tc.ids)
			r.Run(context.Background(), func(ctx context.Context, ct CheckT) {
				e := &Env{t: ct, ctx: ctx, ids: tc.ids, blocker: new(string), judging: new(string), suspect: new(string),
					judged: map[string]bool{}, soft: map[string]bool{}, later: new([]laterFail), held: new([]string)}
				e.Client, e.Profile, e.Users = c, spec.Core, []target.User{{Token: "token-1", ID: "u1"}}
				defer e.unwind()
				var rooms []Room
				e.step("ROOM-LIST", func() { e.expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user/u1/rooms"}), &rooms) })
				e.failLater()
			}, func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 5*time.Second)
			})
			if got := r.end == failed; got != tc.failed {
				t.Errorf("failed %v, want %v: %s", got, tc.failed, r.message)
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
			if n.Load() != tc.requests {
				t.Errorf("%d reads sent, want %d", n.Load(), tc.requests)
			}
		})
	}
}
