package model

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
)

var allJudged = []string{
	"MSG-SEND-200", "MSG-SEND-DEFAULTS", "MSG-SEND-EDITEDAT-NULL", "MSG-SEND-TEXT", "MSG-SEND-STATUS", "MSG-SEND-STORED",
	"MSG-EDIT", "MSG-EDIT-EDITEDAT", "MSG-EDIT-V-INC", "MSG-EDIT-PERSISTED", "MSG-GET-ONE", "MSG-ROOM-SCOPE", "MSG-TEXT-REQUIRED",
	"MSG-LIST", "PAGE-LIMIT", "PAGE-UNIQUE", "PAGE-BEFOREID", "PAGE-BEFOREID-WALK", "PAGE-AFTERID", "PAGE-AROUNDID", "LIMIT-CAP",
	"UNREAD-CHAT", "UNREAD-MARK-READ", "UNREAD-READBY", "UNREAD-FLAG", "GEN-NO-5XX",
	"UNREAD-MENTION", "UNREAD-ROOM-COUNTS", "ROOM-LAST-ACCESS", "SEARCH-Q",
	"RENDER-MENTION", "RENDER-ISSUE", "RENDER-LINK", "META-URLS", "META-MENTIONS", "META-ISSUES",
}

var everything = Mix{Send: 4, SendNoText: 1, Edit: 3, EditNoText: 1, Get: 3, List: 6, Mark: 3, Unread: 3, Rooms: 2, Search: 2}

// rewrite is a fault planted on the client's side of the wire: it sees
// each request and may change the answer.
type rewrite func(req *http.Request, status int, body []byte) (int, []byte)

type faulty struct {
	next http.RoundTripper
	f    rewrite
}

func (t faulty) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || t.f == nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	status, body := t.f(req, resp.StatusCode, body)
	resp.StatusCode, resp.Body, resp.ContentLength = status, io.NopCloser(bytes.NewReader(body)), int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

func run(t *testing.T, f rewrite, seed uint64) *Report { return runMix(t, f, seed, everything) }

func runMix(t *testing.T, f rewrite, seed uint64, mix Mix) *Report {
	t.Helper()
	return runWith(t, f, seed, mix, sharing{})
}

// sharing runs the model as beside other checks of a run (SharedUsers):
// log gives its client a WriteLog; other, when set, runs beside the
// model as another check, with the same client, until the model ends.
type sharing struct {
	shared, log bool
	other       func(ctx context.Context, c *client.Client, d *target.Description)
	unusable    func(*client.Response) (string, string, []string) // Config.Unusable
	judge       []string                                          // Config.Judge; nil: allJudged
}

func runWith(t *testing.T, f rewrite, seed uint64, mix Mix, sh sharing) *Report {
	t.Helper()
	srv, err := bundled.Start(7, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	d := srv.Target
	cc, err := d.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cc.HTTP.Transport = faulty{next: cc.HTTP.Transport, f: f}
	t.Cleanup(cc.HTTP.CloseIdleConnections)
	doc, err := spec.Load(spec.Core)
	if err != nil {
		t.Fatal(err)
	}
	if cc.Validator, err = doc.NewValidator(d.MountPath()); err != nil {
		t.Fatal(err)
	}
	if sh.log {
		cc.Writes = client.NewWriteLog(0)
	}
	c, err := client.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := client.WithCheck(context.Background(), "the model")
	if err := d.Discover(ctx, c); err != nil {
		t.Fatal(err)
	}
	judge := allJudged
	if sh.judge != nil {
		judge = sh.judge
	}
	cfg := Config{Judge: judge, Mix: mix, Steps: 40, Seed: seed, Eventually: time.Second, SoleWriter: !sh.shared, SharedUsers: sh.shared, Marker: "mdl", Unusable: sh.unusable}
	if err := FromTarget(ctx, c, d, &cfg); err != nil {
		t.Fatal(err)
	}
	if sh.other != nil {
		octx, stop := context.WithCancel(client.WithCheck(context.Background(), "another check"))
		done := make(chan struct{})
		go func() { defer close(done); sh.other(octx, c, d) }()
		defer func() { stop(); <-done }()
	}
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestReferencePasses(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		rep := run(t, nil, seed)
		if rep.Finding != nil || rep.Blocked != "" {
			t.Fatalf("seed %d: the reference server breaks the model: blocked %q %s\n%s", seed, rep.Blocked, rep.BlockedText, rep.Finding)
		}
		t.Logf("seed %d: %d sequences, %d operations, %d requests; applied %d requirements", seed, rep.Sequences, rep.Operations, rep.Requests, len(rep.Applied))
		if len(rep.Applied) < len(allJudged)-6 {
			t.Errorf("seed %d: only %d of %d requirements applied: %v", seed, len(rep.Applied), len(allJudged), rep.Applied)
		}
	}
}

// jsonEdit rewrites a JSON object answer of the matching requests.
func jsonEdit(match func(*http.Request) bool, edit func(map[string]any)) rewrite {
	return func(req *http.Request, status int, body []byte) (int, []byte) {
		if !match(req) {
			return status, body
		}
		var m map[string]any
		if json.Unmarshal(body, &m) != nil {
			return status, body
		}
		edit(m)
		out, _ := json.Marshal(m)
		return status, out
	}
}

func isSend(r *http.Request) bool {
	return r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/chatMessages")
}

func TestFaultsAreCaught(t *testing.T) {
	var n atomic.Int64
	cases := []struct {
		name, req string
		f         rewrite
	}{
		{"send v 0", "MSG-SEND-DEFAULTS", jsonEdit(isSend, func(m map[string]any) { m["v"] = 0 })},
		{"status false read as true", "MSG-SEND-STATUS", jsonEdit(isSend, func(m map[string]any) { m["status"] = true })},
		{"aroundId with limit=1 is a 500", "PAGE-AROUNDID", func(r *http.Request, s int, b []byte) (int, []byte) {
			q := r.URL.Query()
			if q.Get("aroundId") != "" && q.Get("limit") == "1" {
				return 500, []byte(`{"error":"boom"}`)
			}
			return s, b
		}},
		{"unread true on one send answer in five", "MSG-SEND-DEFAULTS", jsonEdit(isSend, func(m map[string]any) {
			if n.Add(1)%5 == 0 {
				m["unread"] = true
			}
		})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mix := everything
			if c.req == "PAGE-AROUNDID" {
				mix = Mix{Send: 3, List: 6, Edit: 1} // the pages check's mix
			}
			rep := runMix(t, c.f, 1, mix)
			if rep.Finding == nil {
				t.Fatalf("not caught (blocked %q)", rep.Blocked)
			}
			if rep.Finding.Requirement != c.req {
				t.Errorf("caught under %s, not %s:\n%s", rep.Finding.Requirement, c.req, rep.Finding)
			}
			t.Logf("%s\n%s", rep.Finding.Requirement, rep.Finding)
		})
	}
}

func TestShortBeforePage(t *testing.T) {
	f := func(r *http.Request, s int, b []byte) (int, []byte) {
		q := r.URL.Query()
		n := len(q.Get("limit"))
		if q.Get("beforeId") == "" || q.Get("afterId") != "" || n == 0 || q.Get("limit") > "5" || q.Get("limit") < "2" || n > 1 {
			return s, b
		}
		var l []json.RawMessage
		if json.Unmarshal(b, &l) == nil && len(l) > 1 {
			out, _ := json.Marshal(l[1:])
			return s, out
		}
		return s, b
	}
	rep := runMix(t, f, 1, Mix{Send: 3, List: 6, Edit: 1})
	if rep.Finding == nil || rep.Finding.Requirement != "PAGE-BEFOREID-WALK" {
		t.Fatalf("not caught under PAGE-BEFOREID-WALK: %v", rep.Finding)
	}
	t.Log(rep.Finding)
}

// TestSoftBreachGoesOn: a send answered 201 with the message breaks
// MSG-SEND-200 and is the run's finding, yet the sequences go on with the
// message, so the statements of the other requirements are still applied.
func TestSoftBreachGoesOn(t *testing.T) {
	rep := run(t, func(req *http.Request, status int, body []byte) (int, []byte) {
		if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/chatMessages") && status == 200 {
			return 201, body
		}
		return status, body
	}, 1)
	if rep.Finding == nil || rep.Finding.Requirement != "MSG-SEND-200" {
		t.Fatalf("not found under MSG-SEND-200: %v", rep.Finding)
	}
	for _, r := range []string{"MSG-EDIT", "MSG-GET-ONE", "PAGE-BEFOREID", "UNREAD-CHAT"} {
		if !strings.Contains(strings.Join(rep.Applied, " "), r) {
			t.Errorf("%s was not applied after the soft breach: applied %v", r, rep.Applied)
		}
	}
	if rep.Operations < 40 {
		t.Errorf("the run stopped early: %d operations", rep.Operations)
	}
}

// msgsEdit rewrites every message of the matching answers, whether the
// answer is one message or a page of them.
func msgsEdit(match func(*http.Request) bool, edit func(map[string]any)) rewrite {
	return func(req *http.Request, status int, body []byte) (int, []byte) {
		if !match(req) || status/100 != 2 {
			return status, body
		}
		var one map[string]any
		if json.Unmarshal(body, &one) == nil {
			if _, ok := one["id"]; ok {
				edit(one)
				out, _ := json.Marshal(one)
				return status, out
			}
			return status, body
		}
		var page []map[string]any
		if json.Unmarshal(body, &page) != nil {
			return status, body
		}
		for _, m := range page {
			if _, ok := m["id"]; ok {
				edit(m)
			}
		}
		out, _ := json.Marshal(page)
		return status, out
	}
}

func isMessages(r *http.Request) bool { return strings.Contains(r.URL.Path, "/chatMessages") }

func isRead(r *http.Request) bool { return r.Method == "GET" && isMessages(r) }

// TestWiderClassesAreCaught: a fault on each class of input and state the
// model draws besides its first ones — lists with no query parameter,
// searches of two words, every user's read state after another's mark,
// texts with escapes and a case-sensitive link — is caught, under the
// requirement whose statement it breaks.
func TestWiderClassesAreCaught(t *testing.T) {
	cases := []struct {
		name, req string
		mix       Mix
		f         func() rewrite
	}{
		// 1. Lists with no query parameter at all.
		// A cache per caller, so that only the page's age is wrong (one
		// shared by every caller shows each the first caller's flags, and is
		// caught under UNREAD-FLAG); in the pages area's mix.
		{"a list without parameters is answered from a stale cache", "PAGE-BEFOREID-WALK", Mix{Send: 3, List: 6, Edit: 1}, func() rewrite {
			cached := map[string][]byte{}
			return func(r *http.Request, s int, b []byte) (int, []byte) {
				if !isRead(r) || !strings.HasSuffix(r.URL.Path, "/chatMessages") || r.URL.RawQuery != "" || s != 200 {
					return s, b
				}
				who := r.Header.Get("Authorization")
				if cached[who] == nil {
					cached[who] = b
				}
				return s, cached[who]
			}
		}},
		{"a list without parameters is empty", "PAGE-BEFOREID-WALK", nil, func() rewrite {
			return func(r *http.Request, s int, b []byte) (int, []byte) {
				if isRead(r) && strings.HasSuffix(r.URL.Path, "/chatMessages") && r.URL.RawQuery == "" && s == 200 {
					return s, []byte("[]")
				}
				return s, b
			}
		}},
		{"a list without parameters holds another room's newest messages too", "MSG-ROOM-SCOPE", nil, func() rewrite {
			var other []json.RawMessage
			return func(r *http.Request, s int, b []byte) (int, []byte) {
				if !isRead(r) || !strings.HasSuffix(r.URL.Path, "/chatMessages") || s != 200 {
					return s, b
				}
				var page []json.RawMessage
				if json.Unmarshal(b, &page) != nil {
					return s, b
				}
				if r.URL.Query().Get("limit") == "20" && other == nil && len(page) > 0 {
					other = page[:1] // the model reads another room with limit 20
				}
				if r.URL.RawQuery != "" || other == nil {
					return s, b
				}
				out, _ := json.Marshal(append(page, other...))
				return s, out
			}
		}},
		// 2. Searches of two words.
		{"a search of two words lists each hit once per word", "PAGE-UNIQUE", nil, func() rewrite {
			return func(r *http.Request, s int, b []byte) (int, []byte) {
				var page []json.RawMessage
				if !isRead(r) || !strings.Contains(r.URL.Query().Get("q"), " ") || json.Unmarshal(b, &page) != nil {
					return s, b
				}
				out, _ := json.Marshal(append(page, page...))
				return s, out
			}
		}},
		{"a search of two words finds nothing", "SEARCH-Q", nil, func() rewrite {
			return func(r *http.Request, s int, b []byte) (int, []byte) {
				if isRead(r) && strings.Contains(r.URL.Query().Get("q"), " ") && s == 200 {
					return s, []byte("[]")
				}
				return s, b
			}
		}},
		// 3. Every user's read state after another user's mark.
		{"the unread flag is false once anyone read the message", "UNREAD-FLAG", unreadMix, func() rewrite {
			return msgsEdit(isRead, func(m map[string]any) {
				if n, _ := m["readBy"].(float64); n > 0 {
					m["unread"] = false
				}
			})
		}},
		{"readBy is capped at 1", "UNREAD-READBY", unreadMix, func() rewrite {
			return msgsEdit(isRead, func(m map[string]any) {
				if n, _ := m["readBy"].(float64); n > 1 {
					m["readBy"] = 1
				}
			})
		}},
		// 4. Texts with escapes and a case-sensitive link.
		{"tabs are dropped from texts", "MSG-SEND-TEXT", nil, func() rewrite {
			return msgsEdit(isMessages, func(m map[string]any) {
				if s, ok := m["text"].(string); ok {
					m["text"] = strings.ReplaceAll(s, "\t", "")
				}
			})
		}},
		{"a CR LF line break is read back as LF", "MSG-SEND-STORED", nil, func() rewrite {
			return msgsEdit(isRead, func(m map[string]any) {
				if s, ok := m["text"].(string); ok {
					m["text"] = strings.ReplaceAll(s, "\r\n", "\n")
				}
			})
		}},
		{"urls are lower-cased", "META-URLS", renderMix, func() rewrite {
			return msgsEdit(isMessages, func(m map[string]any) {
				urls, _ := m["urls"].([]any)
				for _, u := range urls {
					if o, ok := u.(map[string]any); ok {
						if s, ok := o["url"].(string); ok {
							o["url"] = strings.ToLower(s)
						}
					}
				}
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mix := c.mix
			if mix == nil {
				mix = everything
			}
			rep := runMix(t, c.f(), 1, mix)
			if rep.Finding == nil {
				t.Fatalf("not caught (blocked %q %s)", rep.Blocked, rep.BlockedText)
			}
			if rep.Finding.Requirement != c.req {
				t.Errorf("caught under %s, not %s:\n%s", rep.Finding.Requirement, c.req, rep.Finding)
			}
			t.Logf("%s\n%s", rep.Finding.Requirement, rep.Finding)
		})
	}
}

// The unread check's and the rendering check's mixes (suites/conformance).
var (
	unreadMix = Mix{Send: 3, Edit: 1, Mark: 3, Unread: 3, Get: 1, List: 1}
	renderMix = Mix{Send: 4, Edit: 2, Get: 2, List: 1}
)

// Beside other checks (SharedUsers), a message leaves a user's unread
// items without the model's doing when another client of that user marks
// it read: the model learns that, but only for a message one of the other
// checks' writes named (the client's WriteLog). A server that drops the
// newest message from the unread lists by itself is caught all the same;
// without a log, any message may have been marked elsewhere, and it is
// not.
func TestOtherClientsMarksAreLearnedOnlyWhenNamed(t *testing.T) {
	// Another check marks every unread message of user 1 read, again and
	// again, as a client of user 1 would.
	marker := func(ctx context.Context, c *client.Client, d *target.Description) {
		u := d.Users[0]
		path := "/v1/user/" + u.ID + "/rooms/" + d.WriteRoom + "/unreadItems"
		for ctx.Err() == nil {
			resp, err := c.Do(ctx, client.Request{Method: "GET", Path: path, Token: u.Token})
			var un struct{ Chat []string }
			if err == nil && resp.JSON(&un) == nil && len(un.Chat) > 0 {
				_, _ = c.Do(ctx, client.Request{Method: "POST", Path: path, Token: u.Token, Body: map[string]any{"chat": un.Chat}})
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	dropNewest := func(r *http.Request, status int, body []byte) (int, []byte) {
		if r.Method != "GET" || !strings.HasSuffix(r.URL.Path, "/unreadItems") {
			return status, body
		}
		var un map[string][]string
		if json.Unmarshal(body, &un) != nil || len(un["chat"]) == 0 {
			return status, body
		}
		un["chat"] = un["chat"][:len(un["chat"])-1]
		out, _ := json.Marshal(un)
		return status, out
	}
	unreadMix := Mix{Send: 4, Mark: 3, Unread: 4, List: 2, Get: 1}
	for _, seed := range []uint64{1, 2} {
		if rep := runWith(t, nil, seed, unreadMix, sharing{shared: true, log: true, other: marker}); rep.Finding != nil || rep.Blocked != "" {
			t.Errorf("seed %d: another client's marks read fail the model: blocked %q\n%s", seed, rep.Blocked, rep.Finding)
		}
	}
	rep := runWith(t, dropNewest, 1, unreadMix, sharing{shared: true, log: true})
	if rep.Finding == nil || !strings.HasPrefix(rep.Finding.Requirement, "UNREAD-") {
		t.Errorf("a server that drops the newest unread message is not caught beside other checks: %v", rep.Finding)
	}
	if rep := runWith(t, dropNewest, 1, unreadMix, sharing{shared: true}); rep.Finding != nil {
		t.Logf("without a log of writes, caught anyway: %s", rep.Finding.Requirement)
	}
}

// A read whose answer breaks another requirement than those the run
// judges, in a way that leaves nothing to read, is read again once: the
// run goes on with a usable second answer and reports the first as met;
// with a second answer no better, the read is left out (nothing judged
// on it) and the sequence goes on.
func TestAnUnusableReadOfAnotherRequirementIsReadAgain(t *testing.T) {
	var n atomic.Int64
	every := int64(3)
	wrapped := func(req *http.Request, status int, body []byte) (int, []byte) {
		if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/unreadItems") && n.Add(1)%every == 0 {
			return status, []byte(`{"items":` + string(body) + `}`)
		}
		return status, body
	}
	unusable := func(resp *client.Response) (string, string, []string) {
		var top map[string]any
		if resp.Operation == "getUnreadItems" && (json.Unmarshal(resp.Body, &top) != nil || top["chat"] == nil) {
			return "UNREAD-SHAPE", "another shape", []string{"UNREAD-SHAPE"}
		}
		return "", "", nil
	}
	mix := Mix{Send: 2, Unread: 4, Mark: 1}
	rep := runWith(t, wrapped, 1, mix, sharing{unusable: unusable})
	if rep.Blocked != "" || rep.Finding != nil {
		t.Fatalf("one answer in three of another shape: blocked %q %s, finding %v", rep.Blocked, rep.BlockedText, rep.Finding)
	}
	if len(rep.Met) == 0 || rep.Met[0].Requirement != "UNREAD-SHAPE" || rep.Met[0].Response == nil {
		t.Errorf("met %+v, want the wrapped answers under UNREAD-SHAPE", rep.Met)
	}
	every = 1
	rep = runWith(t, wrapped, 1, mix, sharing{unusable: unusable})
	if rep.Blocked != "" || rep.Finding != nil {
		t.Errorf("every answer of another shape: blocked %q, finding %v; want the reads left out, and no finding", rep.Blocked, rep.Finding)
	}
	if len(rep.Met) == 0 || slices.Contains(rep.Applied, "UNREAD-CHAT") {
		t.Errorf("every answer of another shape: met %d, applied %v; want them met, and UNREAD-CHAT never applied", len(rep.Met), rep.Applied)
	}
}

// A send or an edit whose answer the sequence cannot use, where the
// write was made all the same, is read back and the sequence goes on with
// what it read, when the run judges neither the answer's breach nor any
// statement about the write's answer; a run that judges one is blocked
// as before.
func TestAWriteWhoseAnswerIsUnusableIsReadBack(t *testing.T) {
	empty := func(req *http.Request, status int, body []byte) (int, []byte) {
		if status == http.StatusOK && (req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/chatMessages") || req.Method == http.MethodPut) {
			return http.StatusAccepted, nil
		}
		return status, body
	}
	unusable := func(resp *client.Response) (string, string, []string) {
		if resp.Status == http.StatusAccepted {
			return "MSG-SEND-200", "accepted", []string{"MSG-SEND-200"}
		}
		return "", "", nil
	}
	mix := Mix{Send: 3, Edit: 2, Unread: 3, Mark: 1}
	unreadOnly := []string{"UNREAD-CHAT", "UNREAD-MARK-READ", "UNREAD-READBY", "MSG-EDIT-PERSISTED"}
	rep := runWith(t, empty, 1, mix, sharing{unusable: unusable, judge: unreadOnly})
	if rep.Blocked != "" || rep.Finding != nil {
		t.Fatalf("every write answered 202 with no body: blocked %q %s, finding %v; want the writes read back", rep.Blocked, rep.BlockedText, rep.Finding)
	}
	if len(rep.Met) == 0 || !rep.Met[0].Made || rep.Met[0].Requirement != "MSG-SEND-200" {
		t.Errorf("met %+v, want the 202s met as made writes under MSG-SEND-200", rep.Met)
	}
	if !slices.Contains(rep.Applied, "UNREAD-CHAT") || !slices.Contains(rep.Applied, "MSG-EDIT-PERSISTED") {
		t.Errorf("applied %v, want UNREAD-CHAT and MSG-EDIT-PERSISTED judged on the messages read back", rep.Applied)
	}
	rep = runWith(t, empty, 1, mix, sharing{unusable: unusable, judge: append(slices.Clone(unreadOnly), "MSG-SEND-DEFAULTS")})
	if rep.Blocked != "MSG-SEND-200" {
		t.Errorf("a run that judges the send's answer: blocked %q, finding %v; want blocked by MSG-SEND-200", rep.Blocked, rep.Finding)
	}
}
