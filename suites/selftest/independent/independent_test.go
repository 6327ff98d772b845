package independent

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

type target struct {
	BaseURL string `yaml:"base_url"`
	CAFile  string `yaml:"ca_file"`
	Users   []struct {
		Name    string `yaml:"name"`
		Token   string `yaml:"token"`
		Granted *bool  `yaml:"private_repos_granted"`
	} `yaml:"users"`
	WriteRoom string `yaml:"write_room"`
	HideRoom  string `yaml:"hide_room"`
}

type probe struct {
	t    *testing.T
	srv  *Server
	desc target
	hc   *http.Client
	ids  []string // user ids, in description order
}

func launch(t *testing.T, defect string) *probe {
	t.Helper()
	srv, err := Start(Options{Seed: 7, Defect: defect})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(srv.CAPEM) {
		t.Fatal("CAPEM holds no certificate")
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	p := &probe{t: t, srv: srv, hc: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
	dec := yaml.NewDecoder(bytes.NewReader(srv.Description("/tmp/ca.pem")))
	dec.KnownFields(true)
	if err := dec.Decode(&p.desc); err != nil {
		t.Fatal(err)
	}
	for i := range p.desc.Users {
		var me []map[string]any
		p.do(i, "GET", "/v1/user", nil, 200, &me)
		p.ids = append(p.ids, me[0]["id"].(string))
	}
	return p
}

// do sends a request as user i (i < 0: no credentials) and checks the status.
func (p *probe) do(i int, method, path string, body any, want int, into any) http.Header {
	p.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, p.srv.BaseURL+path, rd)
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if i >= 0 {
		req.Header.Set("Authorization", "Bearer "+p.desc.Users[i].Token)
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		p.t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	if into != nil {
		if err := json.Unmarshal(raw, into); err != nil {
			p.t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return resp.Header
}

type wireMsg struct {
	ID       string  `json:"id"`
	Text     string  `json:"text"`
	HTML     string  `json:"html"`
	Sent     string  `json:"sent"`
	EditedAt *string `json:"editedAt"`
	Unread   bool    `json:"unread"`
	ReadBy   int     `json:"readBy"`
	V        int     `json:"v"`
	Mentions []struct {
		ScreenName string `json:"screenName"`
		UserID     string `json:"userId"`
	} `json:"mentions"`
	Issues []struct {
		Number string `json:"number"`
	} `json:"issues"`
	URLs []struct {
		URL string `json:"url"`
	} `json:"urls"`
}

type wireRoom struct {
	ID           string `json:"id"`
	PlatformType string `json:"platformType"`
	UnreadItems  int    `json:"unreadItems"`
}

type wireUnread struct {
	Chat    []string `json:"chat"`
	Mention []string `json:"mention"`
}

func (p *probe) rooms(i int) []wireRoom {
	var rs []wireRoom
	p.do(i, "GET", "/v1/user/"+p.ids[i]+"/rooms", nil, 200, &rs)
	return rs
}

func (p *probe) roomOfKind(i int, kind string) string {
	for _, r := range p.rooms(i) {
		if r.PlatformType == kind {
			return r.ID
		}
	}
	p.t.Fatalf("user %d has no %s room", i, kind)
	return ""
}

func (p *probe) unread(i int, room string) wireUnread {
	var u wireUnread
	p.do(i, "GET", "/v1/user/"+p.ids[i]+"/rooms/"+room+"/unreadItems", nil, 200, &u)
	return u
}

func (p *probe) page(i int, room, query string) []wireMsg {
	var ms []wireMsg
	p.do(i, "GET", "/v1/rooms/"+room+"/chatMessages?"+query, nil, 200, &ms)
	return ms
}

func oldest(ms []wireMsg) wireMsg {
	o := ms[0]
	for _, m := range ms[1:] {
		if m.Sent < o.Sent {
			o = m
		}
	}
	return o
}

func TestSendEditReadFlow(t *testing.T) {
	p := launch(t, "")
	if len(p.desc.Users) != 3 || p.desc.WriteRoom == "" || p.desc.HideRoom == "" {
		t.Fatalf("unexpected description: %+v", p.desc)
	}
	h := p.do(0, "GET", "/v1/user", nil, 200, nil)
	if ct := h.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("content type %q", ct)
	}

	var sent wireMsg
	text := "hi @" + p.desc.Users[1].Name + " see #12 and https://example.com/x <b>&</b>"
	p.do(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": text}, 200, &sent)
	if sent.Unread || sent.ReadBy != 0 || sent.V != 1 || sent.EditedAt != nil || sent.Text != text {
		t.Fatalf("fresh message: %+v", sent)
	}
	if len(sent.Mentions) != 1 || sent.Mentions[0].UserID != p.ids[1] || len(sent.Issues) != 1 || sent.Issues[0].Number != "12" ||
		len(sent.URLs) != 1 || sent.URLs[0].URL != "https://example.com/x" {
		t.Fatalf("metadata: %+v", sent)
	}
	for _, frag := range []string{`class="mention"`, `class="issue"`, `class="link"`, "&lt;b&gt;&amp;&lt;/b&gt;"} {
		if !strings.Contains(sent.HTML, frag) {
			t.Fatalf("html %q lacks %q", sent.HTML, frag)
		}
	}

	u := p.unread(1, p.desc.WriteRoom)
	if len(u.Chat) != 1 || u.Chat[0] != sent.ID || len(u.Mention) != 1 {
		t.Fatalf("bob unread before: %+v", u)
	}
	var edited wireMsg
	p.do(0, "PUT", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+sent.ID, map[string]any{"text": "changed"}, 200, &edited)
	if edited.V != 2 || edited.EditedAt == nil || edited.Text != "changed" {
		t.Fatalf("edited: %+v", edited)
	}
	p.do(1, "PUT", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+sent.ID, map[string]any{"text": "nope"}, 403, nil)
	p.do(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{}, 422, nil)

	p.do(1, "POST", "/v1/user/"+p.ids[1]+"/rooms/"+p.desc.WriteRoom+"/unreadItems", map[string]any{"chat": []string{sent.ID}}, 200, nil)
	if u := p.unread(1, p.desc.WriteRoom); len(u.Chat) != 0 || len(u.Mention) != 0 {
		t.Fatalf("bob unread after: %+v", u)
	}
	var again wireMsg
	p.do(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+sent.ID, nil, 200, &again)
	if again.ReadBy != 1 || again.V != 2 {
		t.Fatalf("after read: %+v", again)
	}
	// carol is not in the write room.
	p.do(2, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", nil, 404, nil)
}

func TestAuthRefused(t *testing.T) {
	p := launch(t, "")
	p.do(-1, "GET", "/v1/user", nil, 401, nil)
	req, _ := http.NewRequest("GET", p.srv.BaseURL+"/v1/user", nil)
	req.Header.Set("Authorization", "Bearer tok_bogus")
	resp, err := p.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || strings.Contains(string(raw), "username") {
		t.Fatalf("bogus token: %d %s", resp.StatusCode, raw)
	}
	var me []map[string]any
	p.do(-1, "GET", "/v1/user?access_token="+url.QueryEscape(p.desc.Users[0].Token), nil, 200, &me)
	if len(me) != 1 || me[0]["username"] != p.desc.Users[0].Name {
		t.Fatalf("query token: %v", me)
	}
	// Plain HTTP must not be served.
	plain, err := http.Get(strings.Replace(p.srv.BaseURL, "https://", "http://", 1) + "/v1/user")
	if err == nil {
		plain.Body.Close()
		if plain.StatusCode < 400 {
			t.Fatalf("plain http answered %d", plain.StatusCode)
		}
	}
}

func TestPagination(t *testing.T) {
	p := launch(t, "")
	room := p.roomOfKind(0, kindOrg)
	seen := map[string]bool{}
	stamps := map[string]int{}
	query := "limit=50"
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("pagination does not end")
		}
		ms := p.page(0, room, query)
		for _, m := range ms {
			if !seen[m.ID] {
				stamps[m.Sent]++
			}
			seen[m.ID] = true
		}
		if len(ms) < 50 {
			break
		}
		query = "limit=50&beforeId=" + oldest(ms).ID
	}
	if len(seen) != 320 {
		t.Fatalf("collected %d distinct messages, want 320", len(seen))
	}
	shared := 0
	for _, n := range stamps {
		if n > 1 {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("no burst shares a millisecond")
	}
	t.Logf("%d timestamps are shared by several messages", shared)
	if n := len(p.page(0, room, "limit=500")); n != 100 {
		t.Fatalf("limit=500 gave %d", n)
	}
	if n := len(p.page(0, room, "")); n != defaultLimit {
		t.Fatalf("default page %d", n)
	}
	p.do(0, "GET", "/v1/rooms/"+room+"/chatMessages?skip=5001", nil, 422, nil)

	mid := p.page(0, room, "limit=1&skip=100")[0]
	win := p.page(0, room, "limit=9&aroundId="+mid.ID)
	if len(win) != 9 || !hasID(win, mid.ID) {
		t.Fatalf("around window: %d", len(win))
	}
	after := p.page(0, room, "limit=5&afterId="+mid.ID)
	if len(after) != 5 || hasID(after, mid.ID) {
		t.Fatalf("after page: %d", len(after))
	}
	for _, m := range after {
		if m.Sent < mid.Sent {
			t.Fatalf("afterId returned an older message")
		}
	}
	hits := p.page(0, room, "q=THE+build&limit=100")
	for _, m := range hits {
		if !strings.Contains(strings.ToLower(m.Text), "the build") && !strings.Contains(strings.ToLower(m.Text), "build") {
			t.Fatalf("search hit without term: %q", m.Text)
		}
	}
	if len(hits) == 0 {
		t.Fatal("search found nothing")
	}
}

func TestRoomsReposChannelsHide(t *testing.T) {
	p := launch(t, "")
	kinds := map[string]bool{}
	for _, r := range p.rooms(0) {
		kinds[r.PlatformType] = true
	}
	if len(kinds) != 4 {
		t.Fatalf("alice room kinds: %v", kinds)
	}
	var chans []wireRoom
	p.do(0, "GET", "/v1/user/"+p.ids[0]+"/channels", nil, 200, &chans)
	for _, c := range chans {
		if c.PlatformType != kindChannel {
			t.Fatalf("channel list holds %s", c.PlatformType)
		}
	}
	privates := func(i int) int {
		var rs []struct {
			Private bool `json:"private"`
		}
		p.do(i, "GET", "/v1/user/"+p.ids[i]+"/repos", nil, 200, &rs)
		n := 0
		for _, r := range rs {
			if r.Private {
				n++
			}
		}
		return n
	}
	if privates(0) != 1 || privates(1) != 0 {
		t.Fatal("private repository visibility is wrong")
	}
	p.do(0, "GET", "/v1/user/"+p.ids[1]+"/rooms", nil, 403, nil)
	p.do(0, "DELETE", "/v1/user/"+p.ids[0]+"/rooms/"+p.desc.HideRoom, nil, 202, nil)
	for _, r := range p.rooms(0) {
		if r.ID == p.desc.HideRoom {
			t.Fatal("hidden room still listed")
		}
	}
}

func hasID(ms []wireMsg, id string) bool {
	for _, m := range ms {
		if m.ID == id {
			return true
		}
	}
	return false
}

// TestDefectsAreVisible checks that every planted defect changes something
// a client can observe, and that the clean server does not show it.
func TestDefectsAreVisible(t *testing.T) {
	detectors := map[string]func(p *probe) bool{
		"mark-all-read": func(p *probe) bool {
			room := p.roomOfKind(0, kindOrg)
			u := p.unread(0, room)
			sort.Strings(u.Chat)
			p.do(0, "POST", "/v1/user/"+p.ids[0]+"/rooms/"+room+"/unreadItems", map[string]any{"chat": u.Chat[:1]}, 200, nil)
			return len(p.unread(0, room).Chat) != len(u.Chat)-1
		},
		"readby-stuck": func(p *probe) bool {
			room := p.roomOfKind(0, kindOrg)
			ms := p.page(0, room, "limit=100&skip=50")
			return ms[0].ReadBy == 0
		},
		"edit-no-bump": func(p *probe) bool {
			var m wireMsg
			p.do(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "x"}, 200, &m)
			p.do(0, "PUT", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, map[string]any{"text": "y"}, 200, &m)
			return m.V != 2
		},
		"unread-shared": func(p *probe) bool {
			room := p.roomOfKind(0, kindOrg)
			u := p.unread(0, room)
			p.do(0, "POST", "/v1/user/"+p.ids[0]+"/rooms/"+room+"/unreadItems", map[string]any{"chat": u.Chat}, 200, nil)
			return len(p.unread(1, room).Chat) == 0
		},
		"before-inclusive": func(p *probe) bool {
			room := p.roomOfKind(0, kindOrg)
			m := p.page(0, room, "limit=1&skip=10")[0]
			return hasID(p.page(0, room, "limit=5&beforeId="+m.ID), m.ID)
		},
		"around-drops-anchor": func(p *probe) bool {
			room := p.roomOfKind(0, kindOrg)
			m := p.page(0, room, "limit=1&skip=10")[0]
			return !hasID(p.page(0, room, "limit=5&aroundId="+m.ID), m.ID)
		},
		"hide-ignored": func(p *probe) bool {
			p.do(0, "DELETE", "/v1/user/"+p.ids[0]+"/rooms/"+p.desc.HideRoom, nil, 202, nil)
			for _, r := range p.rooms(0) {
				if r.ID == p.desc.HideRoom {
					return true
				}
			}
			return false
		},
		"private-leak": func(p *probe) bool {
			var rs []struct {
				Private bool `json:"private"`
			}
			p.do(1, "GET", "/v1/user/"+p.ids[1]+"/repos", nil, 200, &rs)
			for _, r := range rs {
				if r.Private {
					return true
				}
			}
			return false
		},
		"channels-unfiltered": func(p *probe) bool {
			var rs []wireRoom
			p.do(0, "GET", "/v1/user/"+p.ids[0]+"/channels", nil, 200, &rs)
			for _, r := range rs {
				if r.PlatformType != kindChannel {
					return true
				}
			}
			return false
		},
		"html-unescaped": func(p *probe) bool {
			var m wireMsg
			p.do(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "a < b"}, 200, &m)
			return strings.Contains(m.HTML, "<")
		},
		"query-token-refused": func(p *probe) bool {
			req, _ := http.NewRequest("GET", p.srv.BaseURL+"/v1/user?access_token="+url.QueryEscape(p.desc.Users[0].Token), nil)
			resp, err := p.hc.Do(req)
			if err != nil {
				p.t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode != 200
		},
		"limit-unbounded": func(p *probe) bool {
			return len(p.page(0, p.roomOfKind(0, kindOrg), "limit=150")) > 100
		},
	}
	for _, name := range defectNames() {
		detect, found := detectors[name]
		if !found {
			t.Errorf("no detector for defect %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			if detect(launch(t, "")) {
				t.Fatal("clean server shows the defect")
			}
			if !detect(launch(t, name)) {
				t.Fatal("defect not observable")
			}
		})
	}
	if _, err := Start(Options{Defect: "no-such-defect"}); err == nil {
		t.Fatal("unknown defect accepted")
	}
}
