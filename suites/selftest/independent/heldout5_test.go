package independent

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// meConcurrently sends GET /v1/user as users 0 and 1 at the same moment and
// reports whether either answer named somebody else. It is safe to run off
// the test goroutine: failures are reported, not fatal.
func (p *probe) meConcurrently() bool {
	var wg sync.WaitGroup
	start := make(chan struct{})
	wrong := make([]bool, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, err := http.NewRequest("GET", p.srv.BaseURL+"/v1/user", nil)
			if err != nil {
				wrong[i] = true
				return
			}
			req.Header.Set("Authorization", "Bearer "+p.desc.Users[i].Token)
			<-start
			resp, err := p.hc.Do(req)
			if err != nil {
				wrong[i] = true
				return
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var me []map[string]any
			if json.Unmarshal(raw, &me) != nil || len(me) != 1 || me[0]["id"] != p.ids[i] {
				wrong[i] = true
			}
		}(i)
	}
	close(start)
	wg.Wait()
	return wrong[0] || wrong[1]
}

// walk pages through room with beforeId and limit 50 and counts the
// distinct messages it visits.
func (p *probe) walk(i int, room string) int {
	seen := map[string]bool{}
	query := "limit=50"
	for pages := 0; pages < 20; pages++ {
		ms := p.page(i, room, query)
		for _, m := range ms {
			seen[m.ID] = true
		}
		if len(ms) < 50 {
			break
		}
		query = "limit=50&beforeId=" + oldest(ms).ID
	}
	return len(seen)
}

// listObject finds message id in the newest page of room as user i, decoded as an object.
func (p *probe) listObject(i int, room, id string) map[string]any {
	for _, m := range p.objects(i, "/v1/rooms/"+room+"/chatMessages?limit=10") {
		if m["id"] == id {
			return m
		}
	}
	p.t.Fatalf("message %s not in the newest page", id)
	return nil
}

// Helpers of the fifth and sixth sets' detectors.
func orgRoom(p *probe) string { return p.roomOfKind(0, kindOrg) }

func midMessage(p *probe) wireMsg { return p.page(0, orgRoom(p), "limit=1&skip=100")[0] }

func userName(p *probe, i int) string { return p.desc.Users[i].Name }

func queryToken(p *probe, i int) string {
	return "access_token=" + url.QueryEscape(p.desc.Users[i].Token)
}

func msgPath(room, id string) string { return "/v1/rooms/" + room + "/chatMessages/" + id }

func heldOut5Detectors() map[string]func(p *probe) bool {
	return map[string]func(p *probe) bool{
		// authentication and the current user
		"auth-anonymous-post-last-sender": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "somebody was here")
			return p.status(-1, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "anonymous"})/100 == 2
		},
		"auth-query-token-user-subpaths-refused": func(p *probe) bool {
			return p.status(-1, "GET", "/v1/user/"+p.ids[0]+"/rooms?"+queryToken(p, 0), nil) != 200
		},
		"auth-identity-race": func(p *probe) bool {
			return anyOf(8, p.meConcurrently)
		},
		"me-query-token-bare-object": func(p *probe) bool {
			st, _, body := p.raw(-1, "GET", "/v1/user?"+queryToken(p, 0), nil, nil)
			var me []map[string]any
			return st != 200 || json.Unmarshal(body, &me) != nil || len(me) != 1
		},
		"fromuser-avatar-relative-list": func(p *probe) bool {
			for _, m := range p.objects(0, "/v1/rooms/"+orgRoom(p)+"/chatMessages?limit=5") {
				u := m["fromUser"].(map[string]any)
				if !strings.HasPrefix(u["avatarUrlSmall"].(string), "https://") {
					return true
				}
			}
			return false
		},
		// rooms list
		"room-lastaccess-cached-first-list": func(p *probe) bool {
			p.roomEntry(0, p.desc.WriteRoom)
			m := p.say(0, p.desc.WriteRoom, "I was here")
			return p.roomEntry(0, p.desc.WriteRoom)["lastAccessTime"].(string) < m.Sent
		},
		"room-counts-lurk-zero": func(p *probe) bool {
			room := orgRoom(p)
			p.say(1, room, "news for everyone")
			n := p.roomEntry(2, room)["unreadItems"].(float64)
			return int(n) != len(p.unread(2, room).Chat)
		},
		"rooms-repo-needs-grant": func(p *probe) bool {
			return !p.listed(1, p.desc.WriteRoom)
		},
		"dm-user-cached-first-viewer": func(p *probe) bool {
			p.roomEntry(0, p.desc.HideRoom)
			u, _ := p.roomEntry(1, p.desc.HideRoom)["user"].(map[string]any)
			return u != nil && u["id"] != p.ids[0]
		},
		"room-kind-from-uri-slash": func(p *probe) bool {
			kinds := map[any]any{}
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/rooms") {
				kinds[r["id"]] = r["platformType"]
			}
			chans := p.objects(0, "/v1/user/"+p.ids[0]+"/channels")
			if len(chans) == 0 {
				p.t.Fatal("user 0 has no channel")
			}
			for _, c := range chans {
				if k, listed := kinds[c["id"]]; listed && k != c["platformType"] {
					return true
				}
			}
			return false
		},
		// hide a room
		"hide-needs-all-read": func(p *probe) bool {
			if len(p.unread(0, p.desc.HideRoom).Chat) == 0 {
				p.t.Fatal("the hide room holds nothing unread for user 0")
			}
			p.hide(0, p.desc.HideRoom)
			return p.listed(0, p.desc.HideRoom)
		},
		// organisations, repositories, channels
		"org-avatar-protocol-relative": func(p *probe) bool {
			for _, o := range p.objects(0, "/v1/user/"+p.ids[0]+"/orgs") {
				if !strings.HasPrefix(o["avatar_url"].(string), "https://") {
					return true
				}
			}
			return false
		},
		"repo-grant-skipped-query-auth": func(p *probe) bool {
			var rs []map[string]any
			p.do(-1, "GET", "/v1/user/"+p.ids[0]+"/repos?"+queryToken(p, 0), nil, 200, &rs)
			for _, r := range rs {
				if r["private"] == true {
					return false
				}
			}
			return true
		},
		"channel-usercount-in-rooms-list": func(p *probe) bool {
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/rooms") {
				if _, has := r["userCount"]; has {
					for _, c := range p.objects(0, "/v1/user/"+p.ids[0]+"/channels") {
						if c["id"] == r["id"] {
							return true
						}
					}
				}
			}
			return false
		},
		// unread items and read state
		"unread-mention-dm-skipped": func(p *probe) bool {
			m := p.say(1, p.desc.HideRoom, "@"+userName(p, 0)+" are you there?")
			return !within(p.unread(0, p.desc.HideRoom).Mention, m.ID)
		},
		"mark-read-duplicate-rolls-back": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "read me twice")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID, m.ID})
			return within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"readby-dm-hidden": func(p *probe) bool {
			m := p.say(0, p.desc.HideRoom, "did you read this?")
			p.markRead(1, p.desc.HideRoom, []string{m.ID})
			return p.one(0, p.desc.HideRoom, m.ID).ReadBy != 1
		},
		"unread-flag-mention-only": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "no names in here")
			return !p.one(0, p.desc.WriteRoom, m.ID).Unread
		},
		"unread-replica-lag-flaky": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "catch up")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return anyOf(8, func() bool { return within(p.unread(0, p.desc.WriteRoom).Chat, m.ID) })
		},
		// send
		"send-text-entities-decoded": func(p *probe) bool {
			text := "write &amp; and &lt;b&gt; literally"
			m := p.say(0, p.desc.WriteRoom, text)
			return m.Text != text || p.one(0, p.desc.WriteRoom, m.ID).Text != text
		},
		"send-unread-for-peer-dm": func(p *probe) bool {
			return p.say(0, p.desc.HideRoom, "hello there").Unread
		},
		"list-status-dropped": func(p *probe) bool {
			m := p.post(0, p.desc.WriteRoom, map[string]any{"text": "stretches", "status": true})
			return p.listObject(0, p.desc.WriteRoom, m.ID)["status"] != true
		},
		"send-dm-accepted-202": func(p *probe) bool {
			return p.status(0, "POST", "/v1/rooms/"+p.desc.HideRoom+"/chatMessages", map[string]any{"text": "private words"}) != 200
		},
		"send-id-collision-flaky": func(p *probe) bool {
			var sent []wireMsg
			for k := 0; k < 12; k++ {
				sent = append(sent, p.say(0, p.desc.WriteRoom, "line number "+itoa(k)))
			}
			for _, m := range sent {
				if p.status(0, "GET", msgPath(p.desc.WriteRoom, m.ID), nil) != 200 || p.one(0, p.desc.WriteRoom, m.ID).Text != m.Text {
					return true
				}
			}
			return false
		},
		"editedat-zero-time-list": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "untouched")
			return p.listObject(0, p.desc.WriteRoom, m.ID)["editedAt"] != nil
		},
		// edit
		"edit-refused-still-bumps": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "stay as I am")
			if p.status(0, "PUT", msgPath(p.desc.WriteRoom, m.ID), map[string]any{})/100 == 2 {
				p.t.Fatal("an edit without text was accepted")
			}
			got := p.one(0, p.desc.WriteRoom, m.ID)
			return got.V != 1 || got.EditedAt != nil
		},
		"edit-coalesce-same-second": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "first")
			p.edit(0, p.desc.WriteRoom, m.ID, "second")
			e := p.edit(0, p.desc.WriteRoom, m.ID, "third")
			return e.V != 3 || p.one(0, p.desc.WriteRoom, m.ID).V != 3
		},
		"edit-render-cache-per-viewer": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "before")
			p.one(1, p.desc.WriteRoom, m.ID)
			p.edit(0, p.desc.WriteRoom, m.ID, "after")
			got := p.one(1, p.desc.WriteRoom, m.ID)
			return got.Text != "after" || got.V != 2
		},
		"edit-other-room-applied-then-404": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "original words")
			p.status(0, "PUT", msgPath(orgRoom(p), m.ID), map[string]any{"text": "words from elsewhere"})
			got := p.one(0, p.desc.WriteRoom, m.ID)
			return got.Text != "original words" || got.V != 1
		},
		// one message
		"get-one-edited-missing": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "draft")
			p.edit(0, p.desc.WriteRoom, m.ID, "final")
			return p.status(0, "GET", msgPath(p.desc.WriteRoom, m.ID), nil) != 200
		},
		"get-one-by-sent-time": func(p *probe) bool {
			room := orgRoom(p)
			a, b := p.sameMilli(0, room)
			return p.one(0, room, a.ID).ID != a.ID || p.one(0, room, b.ID).ID != b.ID
		},
		"get-one-stale-version-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "old text")
			p.edit(0, p.desc.WriteRoom, m.ID, "new text")
			return anyOf(9, func() bool { return p.one(0, p.desc.WriteRoom, m.ID).Text != "new text" })
		},
		// message list and cursors
		"after-oldest-anchor-empty": func(p *probe) bool {
			a := p.say(0, p.desc.WriteRoom, "a")
			p.say(0, p.desc.WriteRoom, "b")
			p.say(0, p.desc.WriteRoom, "c")
			return len(p.page(0, p.desc.WriteRoom, "limit=5&afterId="+a.ID)) != 2
		},
		"around-window-limit-plus-one": func(p *probe) bool {
			return len(p.page(0, orgRoom(p), "limit=4&aroundId="+midMessage(p).ID)) > 4
		},
		"before-cursor-offset-from-newest": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "a")
			p.say(0, p.desc.WriteRoom, "b")
			c := p.say(0, p.desc.WriteRoom, "c")
			p.page(0, p.desc.WriteRoom, "limit=5&beforeId="+c.ID)
			d := p.say(0, p.desc.WriteRoom, "d")
			page := p.page(0, p.desc.WriteRoom, "limit=5&beforeId="+c.ID)
			return hasID(page, c.ID) || hasID(page, d.ID)
		},
		"before-ignored-with-after": func(p *probe) bool {
			var ms []wireMsg
			for k := 0; k < 6; k++ {
				ms = append(ms, p.say(0, p.desc.WriteRoom, "step "+itoa(k)))
			}
			page := p.page(0, p.desc.WriteRoom, "limit=10&afterId="+ms[0].ID+"&beforeId="+ms[3].ID)
			return hasID(page, ms[3].ID) || hasID(page, ms[4].ID) || hasID(page, ms[5].ID)
		},
		"skip-deep-timeout": func(p *probe) bool {
			return p.status(0, "GET", "/v1/rooms/"+orgRoom(p)+"/chatMessages?limit=5&skip=2000", nil) != 200
		},
		"limit-cap-around": func(p *probe) bool {
			return len(p.page(0, orgRoom(p), "limit=300&aroundId="+midMessage(p).ID)) > 100
		},
		"page-truncated-flaky": func(p *probe) bool {
			room := orgRoom(p)
			return p.walk(0, room) != 320 || p.walk(0, room) != 320
		},
		"search-edit-indexed-twice": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "alpha quux")
			p.edit(0, p.desc.WriteRoom, m.ID, "alpha quuz")
			hits := p.page(0, p.desc.WriteRoom, "q=alpha")
			return len(ids(hits)) != len(hits)
		},
		// search
		"search-digits-split": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "ticket zq7841 closed")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=zq7841"), m.ID)
		},
		"search-results-cached": func(p *probe) bool {
			p.page(0, p.desc.WriteRoom, "q=zebrafish")
			m := p.say(0, p.desc.WriteRoom, "a zebrafish swims by")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=zebrafish"), m.ID)
		},
		// rendering and metadata
		"render-mention-after-newline": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "hello\n@"+userName(p, 1)+" look here").HTML, `class="mention"`)
		},
		"render-issue-trailing-punct": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "fixed in #42.").HTML, `class="issue"`)
		},
		"render-link-with-port-plain": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "see https://example.com:8443/x now").HTML, `class="link"`)
		},
		"link-fragment-cut": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "read https://example.com/page#intro now")
			return len(m.URLs) != 1 || m.URLs[0].URL != "https://example.com/page#intro"
		},
		"render-link-amp-raw": func(p *probe) bool {
			return strings.Contains(p.say(0, p.desc.WriteRoom, "see https://example.com/?a=1&b=2").HTML, "&b=")
		},
		"mention-name-stops-at-dash": func(p *probe) bool {
			if !strings.Contains(userName(p, 1), "-") {
				p.t.Fatal("user 1's username holds no dash")
			}
			m := p.say(0, p.desc.WriteRoom, "@"+userName(p, 1)+" hi")
			return len(m.Mentions) != 1
		},
		// transport
		"ctype-empty-array-plain": func(p *probe) bool {
			st, h, body := p.raw(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", nil, nil)
			if st != 200 || strings.TrimSpace(string(body)) != "[]" {
				p.t.Fatalf("the empty write room answered %d %s", st, body)
			}
			return h.Get("Content-Type") != "application/json; charset=utf-8"
		},
		"json-bom-lists-flaky": func(p *probe) bool {
			return anyOf(10, func() bool {
				st, _, body := p.raw(0, "GET", "/v1/user/"+p.ids[0]+"/rooms", nil, nil)
				return st != 200 || !json.Valid(body)
			})
		},
	}
}

// TestHeldOut5 checks the fifth held-out set: at least 40 defects, a
// well-formed catalogue written after the other four, and every defect
// observable by a client while the clean server does not show it.
func TestHeldOut5(t *testing.T) {
	if n := len(HeldOut5()); n < 40 {
		t.Fatalf("%d defects in the fifth held-out set, want at least 40", n)
	}
	checkLaterCatalogue(t, "HeldOut5", HeldOut5(), HeldOut(), HeldOut2(), HeldOut3(), HeldOut4())
	checkVisible(t, HeldOut5(), heldOut5Detectors())
}
