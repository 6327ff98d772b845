package history

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/suites/client"
)

// A synthetic history: exchanges placed on a time line in milliseconds.

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func ms(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }

type hist struct {
	c *Checker
}

func newHist(opt Options) *hist {
	if opt.Eventually == 0 {
		opt.Eventually = 5 * time.Second
	}
	return &hist{c: New(opt)}
}

// operationOf names the operation of a method and path as the validator
// would.
func operationOf(method, path string) string {
	seg := strings.Split(strings.TrimPrefix(strings.SplitN(path, "?", 2)[0], "/"), "/")
	switch {
	case len(seg) == 2 && seg[1] == "user":
		return "getCurrentUser"
	case len(seg) == 4 && seg[1] == "user":
		return map[string]string{"rooms": "listUserRooms", "orgs": "listUserOrgs", "repos": "listUserRepos", "channels": "listUserChannels"}[seg[3]]
	case len(seg) == 5 && seg[1] == "user" && method == "DELETE":
		return "hideUserRoom"
	case len(seg) == 6 && seg[5] == "unreadItems" && method == "GET":
		return "getUnreadItems"
	case len(seg) == 6 && seg[5] == "unreadItems" && method == "POST":
		return "markUnreadItemsRead"
	case len(seg) == 4 && seg[1] == "rooms" && method == "GET":
		return "listMessages"
	case len(seg) == 4 && seg[1] == "rooms" && method == "POST":
		return "sendMessage"
	case len(seg) == 5 && seg[1] == "rooms" && method == "GET":
		return "getMessage"
	case len(seg) == 5 && seg[1] == "rooms" && method == "PUT":
		return "updateMessage"
	}
	return method + " " + path
}

// observed builds one exchange from start to end (milliseconds) by user
// (0-based, -1 none); target is the path with an optional query.
func observed(start, end float64, user int, method, target string, status int, reqBody, respBody string, invalid bool) client.Observed {
	path, query, _ := strings.Cut(target, "?")
	var req []byte
	if reqBody != "" {
		req = []byte(reqBody)
	}
	return client.Observed{Start: ms(start), End: ms(end), User: user, Method: method, Path: path, Query: query,
		Operation: operationOf(method, path), Status: status, RequestBody: req, ResponseBody: []byte(respBody), Invalid: invalid,
		Reproduce: fmt.Sprintf("curl -sS -X %s 'https://chat.test%s'", method, target)}
}

func (h *hist) ex(start, end float64, user int, method, target string, status int, reqBody, respBody string) {
	h.c.Observe(observed(start, end, user, method, target, status, reqBody, respBody, false))
}

func (h *hist) get(start, end float64, user int, target, body string) {
	h.ex(start, end, user, "GET", target, 200, "", body)
}

// users observes GET /v1/user for users 1 and 2 (ids u1, u2).
func (h *hist) users() {
	h.get(-100, -99, 0, "/v1/user", `[{"id":"u1","username":"ada","displayName":"Ada","url":"/ada"}]`)
	h.get(-98, -97, 1, "/v1/user", `[{"id":"u2","username":"bob","displayName":"Bob","url":"/bob"}]`)
}

// M is a message answer.
type M struct {
	ID       string
	Text     string
	HTML     string
	Sent     string
	EditedAt string // "" for null (v 1) or a time after sent (v > 1); "-" to leave the field out
	From     string // user id; u1 (ada) by default, u2 is bob
	V        int
	ReadBy   int
	Unread   bool
	Extra    string // more members, starting with a comma
}

func (m M) String() string {
	if m.V == 0 {
		m.V = 1
	}
	if m.Text == "" {
		m.Text = "hello " + m.ID
	}
	if m.HTML == "" {
		m.HTML = m.Text
	}
	if m.Sent == "" {
		m.Sent = "2026-11-02T08:00:00.000Z"
	}
	from := map[string]string{"": `{"id":"u1","username":"ada","url":"/ada"}`, "u1": `{"id":"u1","username":"ada","url":"/ada"}`,
		"u2": `{"id":"u2","username":"bob","url":"/bob"}`}[m.From]
	if from == "" {
		from = m.From
	}
	edited := `,"editedAt":null`
	switch {
	case m.EditedAt == "-":
		edited = ""
	case m.EditedAt != "":
		edited = `,"editedAt":"` + m.EditedAt + `"`
	case m.V > 1:
		edited = fmt.Sprintf(`,"editedAt":"2026-11-02T08:%02d:00.000Z"`, m.V)
	}
	text, _ := json.Marshal(m.Text)
	html, _ := json.Marshal(m.HTML)
	return fmt.Sprintf(`{"id":%q,"text":%s,"html":%s,"sent":%q%s,"fromUser":%s,"unread":%t,"readBy":%d,"urls":[],"mentions":[],"issues":[],"meta":{},"v":%d%s}`,
		m.ID, text, html, m.Sent, edited, from, m.Unread, m.ReadBy, m.V, m.Extra)
}

func page(ms ...M) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// ids lists the requirement of each contradiction, sorted.
func ids(cs []Contradiction) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Requirement
	}
	sort.Strings(out)
	return out
}

func describe(cs []Contradiction) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.String() + "\n")
	}
	return b.String()
}

func check(t *testing.T, h *hist, want ...string) []Contradiction {
	t.Helper()
	got := h.c.Check()
	sort.Strings(want)
	if strings.Join(ids(got), " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v\n%s", ids(got), want, describe(got))
	}
	for _, c := range got {
		if len(c.Exchanges) == 0 || c.Text == "" {
			t.Errorf("contradiction without exchanges or text: %+v", c)
		}
	}
	return got
}
