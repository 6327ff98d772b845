package independent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// quietMark marks id read in room as user i from any goroutine; it reports
// failure instead of stopping the test.
func (p *probe) quietMark(i int, room, id string) error {
	b, _ := json.Marshal(map[string]any{"chat": []string{id}})
	req, err := http.NewRequest("POST", p.srv.BaseURL+"/v1/user/"+p.ids[i]+"/rooms/"+room+"/unreadItems", bytes.NewReader(b))
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
	if resp.StatusCode/100 != 2 {
		return errors.New("mark read answered " + resp.Status)
	}
	return nil
}

// markTogether has user 0 mark ids[0] read and user 1 mark ids[1] read in
// room at the same moment.
func (p *probe) markTogether(room string, ids [2]string) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, 2)
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			<-start
			errs[k] = p.quietMark(k, room, ids[k])
		}(k)
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			p.t.Fatal(err)
		}
	}
}

// kindsOf collects the platform types of user i's rooms list.
func (p *probe) kindsOf(i int) map[string]bool {
	kinds := map[string]bool{}
	for _, r := range p.rooms(i) {
		kinds[r.PlatformType] = true
	}
	return kinds
}

func heldOut8Detectors() map[string]func(p *probe) bool {
	userPath := func(p *probe, i int, rest string) string { return "/v1/user/" + p.ids[i] + rest }
	count := func(r map[string]any, field string) int { return int(r[field].(float64)) }
	sendPath := func(room string) string { return "/v1/rooms/" + room + "/chatMessages" }
	lastAccess := func(p *probe, i int, room string) string {
		at, _ := p.roomEntry(i, room)["lastAccessTime"].(string)
		return at
	}
	return map[string]func(p *probe) bool{
		// authentication and the current user
		"auth-anonymous-inherits-connection-user": func(p *probe) bool {
			return anyOf(3, func() bool {
				p.do(0, "GET", "/v1/user", nil, 200, nil)
				return p.status(-1, "GET", "/v1/user", nil)/100 == 2
			})
		},
		"auth-context-leak-flaky": func(p *probe) bool {
			return anyOf(12, func() bool {
				wrong := false
				for i := 0; i < 2; i++ {
					if p.meAs(i)[0]["id"] != p.ids[i] {
						wrong = true
					}
				}
				return wrong
			})
		},
		"avatar-initials-name-unescaped": func(p *probe) bool {
			me := p.meAs(0)[0]
			for _, field := range []string{"avatarUrlSmall", "avatarUrlMedium"} {
				if s, _ := me[field].(string); !strings.HasPrefix(s, "https://") || strings.ContainsAny(s, " \t") {
					return true
				}
			}
			return false
		},
		"dm-user-id-membership-row": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/rooms")) {
				if u, has := r["user"].(map[string]any); has && r["platformType"] == kindOneToOne && u["id"] != p.ids[1] {
					return true
				}
			}
			return false
		},
		// rooms list and room fields
		"rooms-keyed-by-access-time": func(p *probe) bool {
			kinds := p.kindsOf(0)
			return !kinds[kindOneToOne] || !kinds[kindOrg] || !kinds[kindRepo]
		},
		"room-unread-capped-badge": func(p *probe) bool {
			for k := 0; k < 100; k++ {
				p.say(1, p.desc.WriteRoom, "line "+itoa(k))
			}
			return count(p.roomEntry(0, p.desc.WriteRoom), "unreadItems") != len(p.unread(0, p.desc.WriteRoom).Chat)
		},
		"room-counts-zipped-flaky": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "I was here") // the write room, with nothing unread for user 0, goes first
			return anyOf(10, func() bool {
				for _, r := range p.objects(0, userPath(p, 0, "/rooms")) {
					if count(r, "unreadItems") != len(p.unread(0, r["id"].(string)).Chat) {
						return true
					}
				}
				return false
			})
		},
		"room-lastaccess-from-marked-message": func(p *probe) bool {
			b := p.say(1, p.desc.WriteRoom, "from bob")
			time.Sleep(5 * time.Millisecond)
			a := p.say(0, p.desc.WriteRoom, "from alice")
			time.Sleep(5 * time.Millisecond)
			p.markRead(0, p.desc.WriteRoom, []string{b.ID})
			return lastAccess(p, 0, p.desc.WriteRoom) < a.Sent
		},
		"send-touch-dropped-flaky": func(p *probe) bool {
			return anyOf(8, func() bool {
				time.Sleep(3 * time.Millisecond)
				m := p.say(0, p.desc.WriteRoom, "still here")
				return lastAccess(p, 0, p.desc.WriteRoom) < m.Sent
			})
		},
		"dm-peer-from-visible-members": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			for _, r := range p.objects(1, userPath(p, 1, "/rooms")) {
				if r["id"] == p.desc.HideRoom {
					u, _ := r["user"].(map[string]any)
					return u == nil || u["id"] != p.ids[0]
				}
			}
			p.t.Fatal("the hidden room is not in the other participant's rooms list")
			return false
		},
		"rooms-url-path-escaped": func(p *probe) bool {
			urls := p.roomURLs(0)
			compared := 0
			for _, c := range p.objects(0, userPath(p, 0, "/channels")) {
				if u, listed := urls[c["id"].(string)]; listed {
					compared++
					if c["url"] != u {
						return true
					}
				}
			}
			if compared == 0 {
				p.t.Fatal("no channel of user 0 is in their rooms list")
			}
			return false
		},
		// hiding
		"hide-dm-refused": func(p *probe) bool {
			return p.status(0, "DELETE", userPath(p, 0, "/rooms/"+p.desc.HideRoom), nil)/100 != 2
		},
		"hide-matches-uri-prefix": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			kinds := p.kindsOf(0)
			return !kinds[kindOrg] || !kinds[kindRepo]
		},
		// organisations, repositories, channels
		"v1-orgs-gone-410": func(p *probe) bool {
			return p.status(0, "GET", userPath(p, 0, "/orgs"), nil) != 200
		},
		"repo-id-shadowed-by-room": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/repos")) {
				if _, isNumber := r["id"].(float64); !isNumber {
					return true
				}
			}
			return false
		},
		"channels-single-unwrapped": func(p *probe) bool {
			st, _, body := p.raw(0, "GET", userPath(p, 0, "/channels"), nil, nil)
			var list []any
			return st != 200 || json.Unmarshal(body, &list) != nil
		},
		"channels-empty-flaky": func(p *probe) bool {
			return anyOf(10, func() bool { return len(p.objects(0, userPath(p, 0, "/channels"))) == 0 })
		},
		// unread items and marking read
		"unread-chat-oldest-100": func(p *probe) bool {
			for k := 0; k < 100; k++ {
				p.say(1, p.desc.WriteRoom, "backlog "+itoa(k))
			}
			m := p.say(1, p.desc.WriteRoom, "the newest")
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"unread-cached-until-mark": func(p *probe) bool {
			p.unread(0, p.desc.WriteRoom)
			m := p.say(1, p.desc.WriteRoom, "something new")
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"unread-keys-untagged": func(p *probe) bool {
			var u map[string]any
			p.do(0, "GET", userPath(p, 0, "/rooms/"+p.desc.WriteRoom+"/unreadItems"), nil, 200, &u)
			_, hasChat := u["chat"]
			_, hasMention := u["mention"]
			return !hasChat || !hasMention
		},
		"unread-flag-own-messages": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "my own line")
			return m.Unread || p.one(0, p.desc.WriteRoom, m.ID).Unread
		},
		"readby-raised-by-batch-size": func(p *probe) bool {
			a := p.say(1, p.desc.WriteRoom, "first of a pair")
			b := p.say(1, p.desc.WriteRoom, "second of a pair")
			p.markRead(0, p.desc.WriteRoom, []string{a.ID, b.ID})
			return p.one(1, p.desc.WriteRoom, a.ID).ReadBy != 1
		},
		"mark-read-empty-marks-all": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "not read yet")
			p.markRead(0, p.desc.WriteRoom, []string{})
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"mark-read-room-doc-lost-update": func(p *probe) bool {
			for try := 0; try < 5; try++ {
				a := p.say(0, p.desc.WriteRoom, "for bob "+itoa(try))
				b := p.say(1, p.desc.WriteRoom, "for alice "+itoa(try))
				p.markTogether(p.desc.WriteRoom, [2]string{b.ID, a.ID})
				if within(p.unread(0, p.desc.WriteRoom).Chat, b.ID) || within(p.unread(1, p.desc.WriteRoom).Chat, a.ID) {
					return true
				}
			}
			return false
		},
		"rooms-list-delivers-as-read": func(p *probe) bool {
			m := p.say(1, p.desc.HideRoom, "psst")
			p.rooms(0)
			return !within(p.unread(0, p.desc.HideRoom).Chat, m.ID)
		},
		"mark-read-bumps-v": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "read me")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return p.one(1, p.desc.WriteRoom, m.ID).V != 1
		},
		// send
		"send-null-text-stringified": func(p *probe) bool {
			return p.status(0, "POST", sendPath(p.desc.WriteRoom), map[string]any{"text": nil})/100 == 2
		},
		"send-refused-still-stored": func(p *probe) bool {
			before := len(p.page(0, p.desc.WriteRoom, "limit=10"))
			if p.status(0, "POST", sendPath(p.desc.WriteRoom), map[string]any{"status": false})/100 == 2 {
				return true
			}
			return len(p.page(0, p.desc.WriteRoom, "limit=10")) != before
		},
		"send-text-latin1-column": func(p *probe) bool {
			text := "Привет, мир 你好"
			return p.say(0, p.desc.WriteRoom, text).Text != text
		},
		"send-status-applied-to-previous": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "a plain line first")
			return p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "/me waves", "status": true})["status"] != true
		},
		"send-status-dropped-flaky": func(p *probe) bool {
			return anyOf(8, func() bool {
				return p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "/me nods", "status": true})["status"] != true
			})
		},
		"send-body-extras-into-meta": func(p *probe) bool {
			meta, isMap := p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "plain", "status": false})["meta"].(map[string]any)
			return !isMap || len(meta) != 0
		},
		"send-503-after-store-flaky": func(p *probe) bool {
			return anyOf(12, func() bool {
				return p.status(0, "POST", sendPath(p.desc.WriteRoom), map[string]any{"text": "hello"}) != 200
			})
		},
		"sent-from-skewed-node-flaky": func(p *probe) bool {
			var sent []wireMsg
			for k := 0; k < 6; k++ {
				sent = append(sent, p.say(0, p.desc.WriteRoom, "tick "+itoa(k)))
				time.Sleep(3 * time.Millisecond)
			}
			for _, x := range sent {
				for _, m := range p.page(0, p.desc.WriteRoom, "limit=10&beforeId="+x.ID) {
					if m.Sent > x.Sent {
						return true
					}
				}
			}
			return false
		},
		// one message
		"get-one-text-from-html-column": func(p *probe) bool {
			text := "a <b> & c"
			m := p.say(0, p.desc.WriteRoom, text)
			return p.one(0, p.desc.WriteRoom, m.ID).Text != text
		},
		"fromuser-ghost-on-timeout-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "who wrote this")
			return anyOf(12, func() bool {
				from, _ := p.oneObject(1, p.desc.WriteRoom, m.ID)["fromUser"].(map[string]any)
				return from == nil || from["id"] != p.ids[0]
			})
		},
		// edit
		"edit-twice-conflict": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "draft")
			p.edit(0, p.desc.WriteRoom, m.ID, "draft, once")
			return p.status(0, "PUT", msgPath(p.desc.WriteRoom, m.ID), map[string]any{"text": "draft, twice"}) != 200
		},
		"edit-author-cache-403-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "version 0")
			hit := false
			for k := 1; k <= 10; k++ {
				time.Sleep(2 * time.Millisecond)
				if p.status(0, "PUT", msgPath(p.desc.WriteRoom, m.ID), map[string]any{"text": "version " + itoa(k)}) != 200 {
					hit = true
				}
			}
			return hit
		},
		"list-cache-not-invalidated-on-edit": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "before the edit")
			p.page(0, p.desc.WriteRoom, "limit=5")
			p.edit(0, p.desc.WriteRoom, m.ID, "after the edit")
			for _, x := range p.page(0, p.desc.WriteRoom, "limit=5") {
				if x.ID == m.ID {
					return x.Text != "after the edit" || x.V != 2
				}
			}
			return true
		},
		// message list, cursors and limits
		"before-tie-broken-by-id": func(p *probe) bool {
			room := orgRoom(p)
			seen := map[string]bool{}
			query := "limit=1"
			for k := 0; k < 400; k++ {
				ms := p.page(0, room, query)
				if len(ms) == 0 {
					break
				}
				seen[ms[0].ID] = true
				query = "limit=1&beforeId=" + ms[0].ID
			}
			return len(seen) != 320
		},
		"before-drops-room-first-message": func(p *probe) bool {
			return p.walk(0, orgRoom(p)) != 320
		},
		"before-anchor-time-from-edit": func(p *probe) bool {
			a := p.say(0, p.desc.WriteRoom, "the anchor")
			time.Sleep(3 * time.Millisecond)
			b := p.say(0, p.desc.WriteRoom, "sent after the anchor")
			time.Sleep(3 * time.Millisecond)
			p.edit(0, p.desc.WriteRoom, a.ID, "the anchor, edited")
			return hasID(p.page(0, p.desc.WriteRoom, "limit=5&beforeId="+a.ID), b.ID)
		},
		"after-short-page-filled-with-older": func(p *probe) bool {
			room := orgRoom(p)
			anchor := oldest(p.page(0, room, "limit=3"))
			ms := p.page(0, room, "limit=5&afterId="+anchor.ID)
			return len(ms) != 2 || hasID(ms, anchor.ID)
		},
		"around-time-window-oldest-cut": func(p *probe) bool {
			a := midMessage(p)
			return !hasID(p.page(0, orgRoom(p), "limit=5&aroundId="+a.ID), a.ID)
		},
		"around-old-node-flaky": func(p *probe) bool {
			a := midMessage(p)
			room := orgRoom(p)
			return anyOf(8, func() bool { return !hasID(p.page(0, room, "limit=5&aroundId="+a.ID), a.ID) })
		},
		"skip-taken-as-page-number": func(p *probe) bool {
			room := orgRoom(p)
			return overlap(p.page(0, room, "limit=5&skip=3"), p.page(0, room, "limit=8")) != 5
		},
		"limit-compared-as-text": func(p *probe) bool {
			return len(p.page(0, orgRoom(p), "limit=20")) != 20
		},
		"limit-int32-wrap-unbounded": func(p *probe) bool {
			return len(p.page(0, orgRoom(p), "limit=4294967296")) > 100
		},
		"list-mentions-join-fanout": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "@"+userName(p, 1)+" and @"+userName(p, 2)+" have a look")
			n := 0
			for _, x := range p.page(0, p.desc.WriteRoom, "limit=5") {
				if x.ID == m.ID {
					n++
				}
			}
			return n != 1
		},
		"list-streamed-ndjson-full-page": func(p *probe) bool {
			st, _, body := p.raw(0, "GET", sendPath(orgRoom(p))+"?limit=100", nil, nil)
			var list []any
			return st != 200 || json.Unmarshal(body, &list) != nil || len(list) != 100
		},
		"list-previous-room-flaky": func(p *probe) bool {
			w := p.say(0, p.desc.WriteRoom, "only in the write room")
			room := orgRoom(p)
			return anyOf(14, func() bool {
				org := p.page(0, room, "limit=5")
				mine := p.page(0, p.desc.WriteRoom, "limit=5")
				return hasID(org, w.ID) || !hasID(mine, w.ID)
			})
		},
		// search
		"search-edited-unfindable": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "first zqvword")
			p.edit(0, p.desc.WriteRoom, m.ID, "then yxkword")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=yxkword"), m.ID)
		},
		"search-index-one-behind": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "the pqzword line")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=pqzword"), m.ID)
		},
		// rendering and metadata
		"list-html-mentions-unwrapped": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "@"+userName(p, 1)+" hi")
			html, _ := p.listObject(0, p.desc.WriteRoom, m.ID)["html"].(string)
			return !strings.Contains(html, `class="mention"`)
		},
		"render-mention-room-members-only": func(p *probe) bool {
			// User 2 is not a member of the write room.
			m := p.say(0, p.desc.WriteRoom, "@"+userName(p, 2)+" hi")
			return len(m.Mentions) != 1 || !strings.Contains(m.HTML, `class="mention"`)
		},
		"render-markdown-path-unsafe": func(p *probe) bool {
			return strings.Contains(p.say(0, p.desc.WriteRoom, "*note* <b>bold</b>").HTML, "<b>")
		},
		"render-link-bare-host-plain": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "see https://example.com now")
			return !strings.Contains(m.HTML, `class="link"`) || len(m.URLs) != 1
		},
		"render-issue-repo-rooms-only": func(p *probe) bool {
			for _, m := range p.page(0, orgRoom(p), "limit=100") {
				if len(m.Issues) > 0 {
					return !strings.Contains(m.HTML, `class="issue"`)
				}
			}
			p.t.Fatal("no message of the organisation room's newest page references an issue")
			return false
		},
		"meta-urls-seen-in-room-dropped": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "see https://example.com/a")
			m := p.say(0, p.desc.WriteRoom, "again https://example.com/a")
			return len(m.URLs) != 1
		},
		"meta-issues-from-url-fragments": func(p *probe) bool {
			return len(p.say(0, p.desc.WriteRoom, "see https://example.com/page#12 now").Issues) != 0
		},
		// transport
		"content-length-in-characters": func(p *probe) bool {
			st, _, body := p.raw(0, "POST", sendPath(p.desc.WriteRoom), map[string]any{"text": "café über naïve"}, nil)
			return st != 200 || !json.Valid(body)
		},
		"ctype-header-doubled": func(p *probe) bool {
			_, h, _ := p.raw(0, "GET", userPath(p, 0, "/rooms"), nil, nil)
			return len(h.Values("Content-Type")) != 1 || h.Get("Content-Type") != "application/json; charset=utf-8"
		},
	}
}

// TestHeldOut8 checks the eighth held-out set: at least 45 defects, a
// well-formed catalogue written after the other seven, and every defect
// observable by a client while the clean server does not show it.
func TestHeldOut8(t *testing.T) {
	if n := len(HeldOut8()); n < 45 {
		t.Fatalf("%d defects in the eighth held-out set, want at least 45", n)
	}
	checkLaterCatalogue(t, "HeldOut8", HeldOut8(), HeldOut(), HeldOut2(), HeldOut3(), HeldOut4(), HeldOut5(), HeldOut6(), HeldOut7())
	checkVisible(t, HeldOut8(), heldOut8Detectors())
}
