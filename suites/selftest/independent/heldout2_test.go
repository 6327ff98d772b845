package independent

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// sameMilli finds two messages of room that share their sent time.
func (p *probe) sameMilli(i int, room string) (wireMsg, wireMsg) {
	p.t.Helper()
	bySent := map[string]wireMsg{}
	for skip := 0; skip < 400; skip += 100 {
		for _, m := range p.page(i, room, "limit=100&skip="+itoa(skip)) {
			if o, seen := bySent[m.Sent]; seen && o.ID != m.ID {
				return o, m
			}
			bySent[m.Sent] = m
		}
	}
	p.t.Fatal("no two messages share a millisecond")
	return wireMsg{}, wireMsg{}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// quietEdit sends an edit from any goroutine; it reports failure instead of
// stopping the test.
func (p *probe) quietEdit(i int, room, id, text string) error {
	b, _ := json.Marshal(map[string]any{"text": text})
	req, err := http.NewRequest("PUT", p.srv.BaseURL+"/v1/rooms/"+room+"/chatMessages/"+id, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+p.desc.Users[i].Token)
	resp, err := p.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 {
		return &http.ProtocolError{ErrorString: "edit answered " + resp.Status}
	}
	return nil
}

func heldOut2Detectors() map[string]func(p *probe) bool {
	org := func(p *probe) string { return p.roomOfKind(0, kindOrg) }
	rooms := func(p *probe, i int) []map[string]any { return p.objects(i, "/v1/user/"+p.ids[i]+"/rooms") }
	return map[string]func(p *probe) bool{
		// current user
		"me-list-accumulates": func(p *probe) bool { return len(p.objects(0, "/v1/user")) != 1 },
		"dm-peer-url-display": func(p *probe) bool {
			for _, r := range rooms(p, 0) {
				if u, has := r["user"].(map[string]any); has && u["url"] != "/"+p.desc.Users[1].Name {
					return true
				}
			}
			return false
		},
		// rooms list
		"room-mentions-count-any": func(p *probe) bool {
			room := org(p)
			for _, r := range rooms(p, 0) {
				if r["id"] == room {
					return int(r["mentions"].(float64)) != len(p.unread(0, room).Mention)
				}
			}
			p.t.Fatal("org room not listed")
			return false
		},
		"send-touch-first-member": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "bob was here")
			for _, r := range rooms(p, 1) {
				if r["id"] == p.desc.WriteRoom {
					return r["lastAccessTime"].(string) < m.Sent
				}
			}
			p.t.Fatal("write room not listed")
			return false
		},
		"rooms-lurk-dropped": func(p *probe) bool {
			for _, r := range p.rooms(2) {
				if r.PlatformType == kindOrg {
					return false
				}
			}
			return true
		},
		// hide
		"hide-next-room": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			return p.listed(0, p.desc.HideRoom)
		},
		// orgs
		"org-id-string": func(p *probe) bool {
			for _, o := range p.objects(0, "/v1/user/"+p.ids[0]+"/orgs") {
				if _, isNumber := o["id"].(float64); !isNumber {
					return true
				}
			}
			return false
		},
		// repos
		"repo-private-omitempty": func(p *probe) bool {
			for _, r := range p.objects(1, "/v1/user/"+p.ids[1]+"/repos") {
				if _, isBool := r["private"].(bool); !isBool {
					return true
				}
			}
			return false
		},
		"repo-grant-flaky": func(p *probe) bool {
			return anyOf(15, func() bool {
				for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/repos") {
					if r["private"] == true {
						return false
					}
				}
				return true
			})
		},
		// channels
		"channel-security-rooms-list": func(p *probe) bool {
			for _, r := range rooms(p, 0) {
				if _, has := r["security"].(string); !has && r["platformType"] == kindChannel {
					return true
				}
			}
			return false
		},
		// unread items
		"unread-mention-case": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "@"+strings.ToUpper(p.desc.Users[0].Name)+" look")
			return !within(p.unread(0, p.desc.WriteRoom).Mention, m.ID)
		},
		"unread-scans-newest-page": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "from bob, before a long monologue")
			for k := 0; k < 40; k++ {
				p.say(0, p.desc.WriteRoom, "monologue")
			}
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		// mark read
		"mark-read-stops-at-read": func(p *probe) bool {
			room := org(p)
			u := p.unread(0, room)
			read := p.page(0, room, "limit=1&skip=100")[0]
			if within(u.Chat, read.ID) {
				p.t.Fatal("an old message is still unread")
			}
			p.markRead(0, room, []string{read.ID, u.Chat[0]})
			return within(p.unread(0, room).Chat, u.Chat[0])
		},
		"unread-flag-cached": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "flag me")
			if !p.one(0, p.desc.WriteRoom, m.ID).Unread {
				p.t.Fatal("a fresh message of bob is read for alice")
			}
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return p.one(0, p.desc.WriteRoom, m.ID).Unread
		},
		// message list and cursors
		"after-ignored-with-before": func(p *probe) bool {
			room := org(p)
			a := p.page(0, room, "limit=1&skip=20")[0]
			b := p.page(0, room, "limit=1&skip=10")[0]
			older := p.page(0, room, "limit=30&skip=20")
			return overlap(p.page(0, room, "limit=20&afterId="+a.ID+"&beforeId="+b.ID), older) != 0
		},
		"skip-counts-anchor": func(p *probe) bool {
			room := org(p)
			m := p.page(0, room, "limit=1&skip=10")[0]
			return overlap(p.page(0, room, "limit=3&skip=2&beforeId="+m.ID), p.page(0, room, "limit=2&beforeId="+m.ID)) != 0
		},
		"around-limit-one-neighbour": func(p *probe) bool {
			room := org(p)
			m := p.page(0, room, "limit=1&skip=50")[0]
			return !hasID(p.page(0, room, "limit=1&aroundId="+m.ID), m.ID)
		},
		"before-by-sent-time": func(p *probe) bool {
			room := org(p)
			x, y := p.sameMilli(0, room)
			return !hasID(p.page(0, room, "limit=5&beforeId="+x.ID), y.ID) && !hasID(p.page(0, room, "limit=5&beforeId="+y.ID), x.ID)
		},
		"skip-5000-refused": func(p *probe) bool {
			st, _, _ := p.raw(0, "GET", "/v1/rooms/"+org(p)+"/chatMessages?skip=5000&limit=5", nil, nil)
			return st != 200
		},
		"list-empty-null": func(p *probe) bool {
			_, _, body := p.raw(0, "GET", "/v1/rooms/"+org(p)+"/chatMessages?q=wordthatnobodywrote", nil, nil)
			return !bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
		},
		// search
		"search-status-excluded": func(p *probe) bool {
			m := p.post(0, p.desc.WriteRoom, map[string]any{"text": "waves zorblaxian", "status": true})
			return !hasID(p.page(0, p.desc.WriteRoom, "q=zorblaxian"), m.ID)
		},
		"search-filters-page": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "quuxfrobword")
			for k := 0; k < 5; k++ {
				p.say(0, p.desc.WriteRoom, "filler")
			}
			return !hasID(p.page(0, p.desc.WriteRoom, "q=quuxfrobword&limit=3"), m.ID)
		},
		// one message
		"get-one-any-room": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "lives in the write room")
			st, _, _ := p.raw(0, "GET", "/v1/rooms/"+org(p)+"/chatMessages/"+m.ID, nil, nil)
			return st/100 == 2
		},
		"get-one-marks-read": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "just look")
			p.one(0, p.desc.WriteRoom, m.ID)
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		// send
		"send-status-needs-me": func(p *probe) bool {
			var m map[string]any
			p.do(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "waves", "status": true}, 200, &m)
			return m["status"] != true
		},
		"send-unread-flaky": func(p *probe) bool {
			return anyOf(12, func() bool { return p.say(0, p.desc.WriteRoom, "x").Unread })
		},
		"send-editedat-sent": func(p *probe) bool { return p.say(0, p.desc.WriteRoom, "x").EditedAt != nil },
		// edit
		"edit-meta-stale": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "no links yet")
			return len(p.edit(0, p.desc.WriteRoom, m.ID, "now see https://example.com/z").URLs) != 1
		},
		"edit-moves-sent": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "when was this")
			time.Sleep(15 * time.Millisecond)
			p.edit(0, p.desc.WriteRoom, m.ID, "changed")
			return p.one(0, p.desc.WriteRoom, m.ID).Sent != m.Sent
		},
		"edit-v-lost-update": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "v1")
			const n = 8
			errs := make([]error, n)
			var wg sync.WaitGroup
			for k := 0; k < n; k++ {
				wg.Add(1)
				go func(k int) {
					defer wg.Done()
					errs[k] = p.quietEdit(0, p.desc.WriteRoom, m.ID, "edit "+itoa(k))
				}(k)
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					p.t.Fatal(err)
				}
			}
			return p.one(0, p.desc.WriteRoom, m.ID).V != 1+n
		},
		// rendering and metadata
		"render-link-second-plain": func(p *probe) bool {
			return strings.Count(p.say(0, p.desc.WriteRoom, "https://a.example/1 and https://b.example/2").HTML, `class="link"`) != 2
		},
		"render-escape-after-link": func(p *probe) bool {
			return strings.Contains(p.say(0, p.desc.WriteRoom, "see https://a.example/x then <b>bold</b>").HTML, "<b>")
		},
		"render-mention-self": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "@"+p.desc.Users[0].Name+" note to self").HTML, `class="mention"`)
		},
		"meta-mention-userid-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "@"+p.desc.Users[1].Name+" hi")
			return anyOf(20, func() bool {
				got := p.one(0, p.desc.WriteRoom, m.ID)
				return len(got.Mentions) != 1 || got.Mentions[0].UserID != p.ids[1]
			})
		},
		// authentication
		"auth-token-case-insensitive": func(p *probe) bool {
			upper := strings.ToUpper(p.desc.Users[0].Token)
			st, _, _ := p.raw(-1, "GET", "/v1/user", nil, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+upper) })
			return st/100 == 2
		},
		"auth-anonymous-reads-messages": func(p *probe) bool {
			st, _, _ := p.raw(-1, "GET", "/v1/rooms/"+org(p)+"/chatMessages?limit=2", nil, nil)
			return st/100 == 2
		},
		"auth-query-token-rawquery": func(p *probe) bool {
			st, _, _ := p.raw(-1, "GET", "/v1/rooms/"+org(p)+"/chatMessages?limit=2&access_token="+url.QueryEscape(p.desc.Users[0].Token), nil, nil)
			return st != 200
		},
		"auth-bearer-writes-refused": func(p *probe) bool {
			st, _, _ := p.raw(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "bearer write"}, nil)
			return st != 200
		},
		// transport
		"ctype-jsonp-query-token": func(p *probe) bool {
			_, h, _ := p.raw(-1, "GET", "/v1/user?access_token="+url.QueryEscape(p.desc.Users[0].Token), nil, nil)
			return h.Get("Content-Type") != "application/json; charset=utf-8"
		},
		"edit-body-twice-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "start")
			return anyOf(12, func() bool {
				_, _, body := p.raw(0, "PUT", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, map[string]any{"text": "again"}, nil)
				return !json.Valid(body)
			})
		},
	}
}

// TestHeldOut2DefectsAreVisible checks that every defect of the second
// held-out set changes something a client can observe, and that the clean
// server does not show it.
func TestHeldOut2DefectsAreVisible(t *testing.T) {
	if n := len(HeldOut2()); n != 40 {
		t.Fatalf("%d defects in the second held-out set, want 40", n)
	}
	checkVisible(t, HeldOut2(), heldOut2Detectors())
}

func TestHeldOut2Catalogue(t *testing.T) {
	held := HeldOut2()
	if !sort.SliceIsSorted(held, func(i, j int) bool { return held[i].Name < held[j].Name }) {
		t.Fatal("HeldOut2 is not sorted by name")
	}
	first := map[string]bool{}
	for _, d := range HeldOut() {
		first[d.Name] = true
	}
	seen := map[string]bool{}
	for _, d := range held {
		if seen[d.Name] {
			t.Errorf("held-out defect %s listed twice", d.Name)
		}
		seen[d.Name] = true
		if _, clash := defectCatalogue[d.Name]; clash {
			t.Errorf("held-out defect %s also in the original catalogue", d.Name)
		}
		if first[d.Name] {
			t.Errorf("held-out defect %s also in the first held-out set", d.Name)
		}
		if d.What == "" {
			t.Errorf("held-out defect %s has no description", d.Name)
		}
		s, err := Start(Options{Seed: 1, Defect: d.Name})
		if err != nil {
			t.Errorf("Start refuses %s: %v", d.Name, err)
			continue
		}
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	for name := range Defects() {
		if seen[name] {
			t.Errorf("Defects() lists held-out defect %s", name)
		}
	}
}
