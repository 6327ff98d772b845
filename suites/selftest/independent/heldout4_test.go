package independent

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// meAs answers GET /v1/user as user i, decoded as objects.
func (p *probe) meAs(i int) []map[string]any {
	var me []map[string]any
	p.do(i, "GET", "/v1/user", nil, 200, &me)
	return me
}

// roomURLs maps the ids of user i's rooms to their url.
func (p *probe) roomURLs(i int) map[string]any {
	out := map[string]any{}
	for _, r := range p.objects(i, "/v1/user/"+p.ids[i]+"/rooms") {
		out[r["id"].(string)] = r["url"]
	}
	return out
}

func heldOut4Detectors() map[string]func(p *probe) bool {
	org := func(p *probe) string { return p.roomOfKind(0, kindOrg) }
	mid := func(p *probe) wireMsg { return p.page(0, org(p), "limit=1&skip=100")[0] }
	orgRooms := func(p *probe) []map[string]any {
		var out []map[string]any
		for _, o := range p.objects(0, "/v1/user/"+p.ids[0]+"/orgs") {
			if r, has := o["room"].(map[string]any); has {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			p.t.Fatal("no organisation of user 0 has a room")
		}
		return out
	}
	return map[string]func(p *probe) bool{
		// authentication and the current user
		"auth-query-token-cached-by-path": func(p *probe) bool {
			as := func(i int) any {
				var me []map[string]any
				p.do(-1, "GET", "/v1/user?access_token="+url.QueryEscape(p.desc.Users[i].Token), nil, 200, &me)
				return me[0]["username"]
			}
			as(0)
			return as(1) != p.desc.Users[1].Name
		},
		"auth-token-flaky-401": func(p *probe) bool {
			return anyOf(12, func() bool { return p.status(0, "GET", "/v1/user", nil) != 200 })
		},
		"me-v-string": func(p *probe) bool {
			v, has := p.meAs(0)[0]["v"]
			_, number := v.(float64)
			return has && !number
		},
		"me-shared-buffer-flaky": func(p *probe) bool {
			for k := 0; k < 12; k++ {
				i := k % 2
				if p.meAs(i)[0]["id"] != p.ids[i] {
					return true
				}
			}
			return false
		},
		// rooms list
		"room-lastaccess-truncated-seconds": func(p *probe) bool {
			for k := 0; k < 3; k++ {
				m := p.say(0, p.desc.WriteRoom, "touch "+itoa(k))
				if p.roomEntry(0, p.desc.WriteRoom)["lastAccessTime"].(string) < m.Sent {
					return true
				}
				time.Sleep(3 * time.Millisecond)
			}
			return false
		},
		"room-unread-count-includes-own": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "my own words")
			n := p.roomEntry(0, p.desc.WriteRoom)["unreadItems"].(float64)
			return int(n) != len(p.unread(0, p.desc.WriteRoom).Chat)
		},
		"room-mentions-count-read": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "@"+p.desc.Users[0].Name+" have a look")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return p.roomEntry(0, p.desc.WriteRoom)["mentions"].(float64) != 0
		},
		"room-topic-empty-null": func(p *probe) bool {
			for _, r := range p.objects(1, "/v1/user/"+p.ids[1]+"/rooms") {
				if v, has := r["topic"]; has && v == nil {
					return true
				}
			}
			return false
		},
		"dm-user-last-sender": func(p *probe) bool {
			p.say(0, p.desc.HideRoom, "my turn")
			u, _ := p.roomEntry(0, p.desc.HideRoom)["user"].(map[string]any)
			return u != nil && u["id"] == p.ids[0]
		},
		"channel-owner-as-user": func(p *probe) bool {
			for _, c := range p.objects(0, "/v1/user/"+p.ids[0]+"/channels") {
				if _, has := c["user"]; has {
					return true
				}
			}
			return false
		},
		"room-counts-zero-flaky": func(p *probe) bool {
			room := org(p)
			return anyOf(10, func() bool { return p.roomEntry(0, room)["unreadItems"].(float64) == 0 })
		},
		"rooms-list-cached-until-send": func(p *probe) bool {
			if !p.listed(0, p.desc.HideRoom) {
				p.t.Fatal("the hide room is not listed before hiding")
			}
			p.hide(0, p.desc.HideRoom)
			return p.listed(0, p.desc.HideRoom)
		},
		// organisations, repositories, channels
		"org-room-url-by-id": func(p *probe) bool {
			urls := p.roomURLs(0)
			for _, r := range orgRooms(p) {
				if r["url"] != urls[r["id"].(string)] {
					return true
				}
			}
			return false
		},
		"org-room-kind-lowercase": func(p *probe) bool {
			for _, r := range orgRooms(p) {
				switch r["platformType"] {
				case kindOneToOne, kindOrg, kindRepo, kindChannel:
				default:
					return true
				}
			}
			return false
		},
		"repo-private-leak-query-auth": func(p *probe) bool {
			var rs []map[string]any
			p.do(-1, "GET", "/v1/user/"+p.ids[1]+"/repos?access_token="+url.QueryEscape(p.desc.Users[1].Token), nil, 200, &rs)
			for _, r := range rs {
				if r["private"] == true {
					return true
				}
			}
			return false
		},
		"repo-grant-lazy-first-list": func(p *probe) bool {
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/repos") {
				if r["private"] == true {
					return false
				}
			}
			return true
		},
		"channel-usercount-zero": func(p *probe) bool {
			for _, c := range p.objects(0, "/v1/user/"+p.ids[0]+"/channels") {
				if _, has := c["userCount"]; has {
					return true
				}
			}
			return false
		},
		// unread items and read state
		"unread-status-skipped": func(p *probe) bool {
			m := p.post(1, p.desc.WriteRoom, map[string]any{"text": "waves hello", "status": true})
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"unread-old-expired": func(p *probe) bool {
			p.say(1, p.desc.HideRoom, "one more line")
			return len(p.unread(0, p.desc.HideRoom).Chat) < 3
		},
		"unread-mention-leading-only": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "hello @"+p.desc.Users[0].Name+" how are you")
			return !within(p.unread(0, p.desc.WriteRoom).Mention, m.ID)
		},
		"mark-read-dedup-drops-last": func(p *probe) bool {
			a := p.say(1, p.desc.WriteRoom, "one")
			b := p.say(1, p.desc.WriteRoom, "two")
			p.markRead(0, p.desc.WriteRoom, []string{a.ID, b.ID})
			return len(p.unread(0, p.desc.WriteRoom).Chat) != 0
		},
		"mark-read-up-to": func(p *probe) bool {
			a := p.say(1, p.desc.WriteRoom, "older")
			b := p.say(1, p.desc.WriteRoom, "newer")
			p.markRead(0, p.desc.WriteRoom, []string{b.ID})
			return !within(p.unread(0, p.desc.WriteRoom).Chat, a.ID)
		},
		"readby-any-reader-one": func(p *probe) bool {
			room := org(p)
			m := p.say(2, room, "count the readers")
			p.markRead(0, room, []string{m.ID})
			p.markRead(1, room, []string{m.ID})
			return p.one(2, room, m.ID).ReadBy != 2
		},
		"unread-flag-from-readby": func(p *probe) bool {
			room := org(p)
			m := p.say(2, room, "flag check")
			p.markRead(1, room, []string{m.ID})
			return !p.one(0, room, m.ID).Unread
		},
		"list-rerender-bumps-v": func(p *probe) bool {
			room := org(p)
			first := map[string]int{}
			for _, m := range p.page(0, room, "limit=5") {
				first[m.ID] = m.V
			}
			for _, m := range p.page(0, room, "limit=5") {
				if v, seen := first[m.ID]; seen && v != m.V {
					return true
				}
			}
			return false
		},
		// message list and cursors
		"before-limit-default": func(p *probe) bool {
			return len(p.page(0, org(p), "limit=10&beforeId="+mid(p).ID)) > 10
		},
		"before-compares-ids": func(p *probe) bool {
			anchor := mid(p)
			for _, m := range p.page(0, org(p), "limit=20&beforeId="+anchor.ID) {
				if m.Sent > anchor.Sent || m.ID == anchor.ID {
					return true
				}
			}
			return false
		},
		"after-anchor-counted-in-limit": func(p *probe) bool {
			return len(p.page(0, org(p), "limit=5&afterId="+mid(p).ID)) != 5
		},
		"around-gap-after-anchor": func(p *probe) bool {
			room, anchor := org(p), mid(p)
			next := p.page(0, room, "limit=1&afterId="+anchor.ID)
			if len(next) != 1 {
				p.t.Fatal("no message after the anchor")
			}
			return !hasID(p.page(0, room, "limit=5&aroundId="+anchor.ID), next[0].ID)
		},
		"skip-after-limit": func(p *probe) bool {
			return len(p.page(0, org(p), "limit=5&skip=3")) != 5
		},
		"history-cap-300": func(p *probe) bool {
			room := org(p)
			seen := map[string]bool{}
			query := "limit=50"
			for pages := 0; pages < 20; pages++ {
				ms := p.page(0, room, query)
				for _, m := range ms {
					seen[m.ID] = true
				}
				if len(ms) < 50 {
					break
				}
				query = "limit=50&beforeId=" + oldest(ms).ID
			}
			return len(seen) != 320
		},
		"search-terms-union-dup": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "kumquat and zephyrine")
			hits := p.page(0, p.desc.WriteRoom, "q="+url.QueryEscape("kumquat zephyrine"))
			return len(ids(hits)) != len(hits)
		},
		"limit-cap-search": func(p *probe) bool {
			return len(p.page(0, org(p), "q=the&limit=500")) > 100
		},
		"list-default-page-cached": func(p *probe) bool {
			p.page(0, p.desc.WriteRoom, "")
			m := p.say(0, p.desc.WriteRoom, "fresh off the press")
			return !hasID(p.page(0, p.desc.WriteRoom, ""), m.ID)
		},
		// search
		"search-prefix-of-text": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "alpha quokkaword omega")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=quokkaword"), m.ID)
		},
		"search-query-html-escaped": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "our R&D budget")
			return !hasID(p.page(0, p.desc.WriteRoom, "q="+url.QueryEscape("R&D")), m.ID)
		},
		// one message
		"get-one-editedat-omitted": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "never edited")
			var got map[string]any
			p.do(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, nil, 200, &got)
			_, has := got["editedAt"]
			return !has
		},
		"get-one-lag-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "read me back")
			return anyOf(10, func() bool {
				return p.status(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, nil) != 200
			})
		},
		// send
		"send-crlf-normalised": func(p *probe) bool {
			text := "line one\r\nline two"
			m := p.say(0, p.desc.WriteRoom, text)
			return p.one(0, p.desc.WriteRoom, m.ID).Text != text
		},
		"send-astral-dropped": func(p *probe) bool {
			text := "ship it 🚀 now"
			m := p.say(0, p.desc.WriteRoom, text)
			return p.one(0, p.desc.WriteRoom, m.ID).Text != text
		},
		"send-answer-v-zero": func(p *probe) bool {
			return p.say(0, p.desc.WriteRoom, "version please").V != 1
		},
		"send-status-not-stored": func(p *probe) bool {
			m := p.post(0, p.desc.WriteRoom, map[string]any{"text": "dances", "status": true})
			var got map[string]any
			p.do(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, nil, 200, &got)
			return got["status"] != true
		},
		"send-ctype-charset-refused": func(p *probe) bool {
			st, _, _ := p.raw(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "with charset"}, func(r *http.Request) {
				r.Header.Set("Content-Type", "application/json; charset=utf-8")
			})
			return st != 200
		},
		// edit
		"edit-missing-text-blank": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "keep me")
			return p.status(0, "PUT", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, map[string]any{})/100 == 2
		},
		"edit-v-room-counter": func(p *probe) bool {
			a := p.say(0, p.desc.WriteRoom, "a")
			b := p.say(0, p.desc.WriteRoom, "b")
			p.edit(0, p.desc.WriteRoom, a.ID, "a2")
			return p.edit(0, p.desc.WriteRoom, b.ID, "b2").V != 2
		},
		"edit-v-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "v0")
			for k := 1; k <= 8; k++ {
				if p.edit(0, p.desc.WriteRoom, m.ID, "v"+itoa(k)).V != 1+k {
					return true
				}
			}
			return false
		},
		"list-editedat-not-selected": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "to be edited")
			p.edit(0, p.desc.WriteRoom, m.ID, "edited")
			for _, x := range p.page(0, p.desc.WriteRoom, "limit=5") {
				if x.ID == m.ID {
					return x.EditedAt == nil
				}
			}
			p.t.Fatal("edited message not in the newest page")
			return false
		},
		"send-reverts-edits": func(p *probe) bool {
			a := p.say(0, p.desc.WriteRoom, "draft")
			p.edit(0, p.desc.WriteRoom, a.ID, "final")
			p.say(0, p.desc.WriteRoom, "next")
			return p.one(0, p.desc.WriteRoom, a.ID).Text != "final"
		},
		"edit-editedat-is-sent": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "edit me later")
			time.Sleep(20 * time.Millisecond)
			e := p.edit(0, p.desc.WriteRoom, m.ID, "edited later")
			return e.EditedAt == nil || *e.EditedAt == m.Sent
		},
		"list-sent-seconds": func(p *probe) bool {
			room := org(p)
			for _, x := range p.page(0, room, "limit=20") {
				if p.one(0, room, x.ID).Sent != x.Sent {
					return true
				}
			}
			return false
		},
		// rendering and metadata
		"render-amp-unescaped": func(p *probe) bool {
			return strings.Contains(p.say(0, p.desc.WriteRoom, "salt & pepper").HTML, "& ")
		},
		"render-mention-trailing-punct": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "@"+p.desc.Users[1].Name+", look at this").HTML, `class="mention"`)
		},
		"render-issue-needs-space": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "fixed (#42) today").HTML, `class="issue"`)
		},
		"render-link-http-plain": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "see http://example.com/page").HTML, `class="link"`)
		},
		"meta-urls-lowercased": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "read https://example.com/ReadMe now")
			return len(m.URLs) != 1 || m.URLs[0].URL != "https://example.com/ReadMe"
		},
		"meta-mention-userid-sender": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "@"+p.desc.Users[1].Name+" hi")
			return len(m.Mentions) != 1 || m.Mentions[0].UserID != p.ids[1]
		},
		"meta-carries-mentions": func(p *probe) bool {
			m := p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "@" + p.desc.Users[1].Name + " hi"})
			meta, _ := m["meta"].(map[string]any)
			return len(meta) != 0
		},
		"fromuser-gv": func(p *probe) bool {
			m := p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "hello"})
			_, has := m["fromUser"].(map[string]any)["gv"]
			return has
		},
		// transport
		"ctype-unread-missing": func(p *probe) bool {
			st, h, _ := p.raw(0, "GET", "/v1/user/"+p.ids[0]+"/rooms/"+p.desc.WriteRoom+"/unreadItems", nil, nil)
			if st != 200 {
				p.t.Fatalf("unread items answered %d", st)
			}
			return h.Get("Content-Type") != "application/json; charset=utf-8"
		},
		"json-raw-tab": func(p *probe) bool {
			st, _, body := p.raw(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "col1\tcol2"}, nil)
			if st != 200 {
				p.t.Fatalf("send answered %d", st)
			}
			return !json.Valid(body)
		},
	}
}

// TestHeldOut4DefectsAreVisible checks that every defect of the fourth
// held-out set changes something a client can observe, and that the clean
// server does not show it.
func TestHeldOut4DefectsAreVisible(t *testing.T) {
	if n := len(HeldOut4()); n < 40 {
		t.Fatalf("%d defects in the fourth held-out set, want at least 40", n)
	}
	checkVisible(t, HeldOut4(), heldOut4Detectors())
}

func TestHeldOut4Catalogue(t *testing.T) {
	checkLaterCatalogue(t, "HeldOut4", HeldOut4(), HeldOut(), HeldOut2(), HeldOut3())
}
