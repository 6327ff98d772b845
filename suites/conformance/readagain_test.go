package conformance

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/chatrooms/conformance/suites/client"
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
			r := runCheck(t, srv.URL, srv.Client(), tc.ids, func(e *Env) {
				var rooms []Room
				e.step("ROOM-LIST", func() { e.expectOK(e.call(0, client.Request{Method: "GET", Path: "/v1/user/u1/rooms"}), &rooms) })
				e.failLater()
			})
			if got := r.end == failed; got != tc.failed {
				t.Errorf("failed %v, want %v: %s", got, tc.failed, r.message)
			}
			found, entries := hasEntry(r, tc.entry)
			if !found {
				t.Errorf("entries %q, want one starting %q", entries, tc.entry)
			}
			if n.Load() != tc.requests {
				t.Errorf("%d reads sent, want %d", n.Load(), tc.requests)
			}
		})
	}
}
