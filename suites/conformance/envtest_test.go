package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
)

// runCheck runs body as a check of ids against the server at baseURL
// (reached with hc), as user u1 with token-1, at core, and returns what
// the check recorded.
func runCheck(t *testing.T, baseURL string, hc *http.Client, ids []string, body func(e *Env)) *Recording {
	t.Helper()
	v, err := spec.MustLoad(spec.Core).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: baseURL, HTTP: hc, Validator: v, Timeout: time.Second, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecording("a check", ids)
	r.Run(context.Background(), func(ctx context.Context, ct CheckT) {
		e := &Env{t: ct, ctx: ctx, ids: ids, blocker: new(string), judging: new(string), suspect: new(string),
			judged: map[string]bool{}, soft: map[string]bool{}, later: new([]laterFail), held: new([]string)}
		e.Client, e.Profile, e.Users, e.Eventually = c, spec.Core, []target.User{{Token: "token-1", ID: "u1"}}, 300*time.Millisecond
		defer e.unwind()
		body(e)
	}, func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 5*time.Second)
	})
	return r
}

// hasEntry reports whether r left a report entry whose name, a space and
// value start with prefix, and every entry so written.
func hasEntry(r *Recording, prefix string) (bool, []string) {
	var entries []string
	found := false
	for _, x := range r.ReportEntries() {
		entries = append(entries, x.Name+" "+x.Value)
		found = found || strings.HasPrefix(x.Name+" "+x.Value, prefix)
	}
	return found, entries
}
