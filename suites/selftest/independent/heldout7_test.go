package independent

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// tagOf names the element of html that carries class, or "" when none does.
func tagOf(html, class string) string {
	i := strings.Index(html, `class="`+class+`"`)
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(html[:i], "<")
	if j < 0 {
		return ""
	}
	name := html[j+1:]
	if k := strings.IndexAny(name, " >"); k >= 0 {
		name = name[:k]
	}
	return name
}

// walkBy pages through room with beforeId and limit n and counts the
// distinct messages it visits.
func (p *probe) walkBy(i int, room string, n int) int {
	seen := map[string]bool{}
	query := "limit=" + itoa(n)
	for pages := 0; pages < 50; pages++ {
		ms := p.page(i, room, query)
		for _, m := range ms {
			seen[m.ID] = true
		}
		if len(ms) < n {
			break
		}
		query = "limit=" + itoa(n) + "&beforeId=" + oldest(ms).ID
	}
	return len(seen)
}

// alteredToken is user i's token with its last character changed.
func alteredToken(p *probe, i int) string {
	tok := p.desc.Users[i].Token
	alt := "0"
	if tok[len(tok)-1] == '0' {
		alt = "1"
	}
	return tok[:len(tok)-1] + alt
}

func heldOut7Detectors() map[string]func(p *probe) bool {
	userPath := func(p *probe, i int, rest string) string { return "/v1/user/" + p.ids[i] + rest }
	count := func(r map[string]any, field string) int { return int(r[field].(float64)) }
	hideRefused := func(p *probe) bool {
		return p.status(0, "DELETE", userPath(p, 0, "/rooms/"+p.desc.HideRoom), nil)/100 != 2
	}
	return map[string]func(p *probe) bool{
		// authentication and the current user
		"auth-empty-bearer-bot": func(p *probe) bool {
			st, _, _ := p.raw(-1, "GET", "/v1/user", nil, func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") })
			return st/100 == 2
		},
		"auth-query-token-one-time": func(p *probe) bool {
			first := p.status(-1, "GET", "/v1/user?"+queryToken(p, 0), nil)
			second := p.status(-1, "GET", "/v1/user?"+queryToken(p, 0), nil)
			return first != 200 || second != 200
		},
		"auth-compare-skips-last-byte": func(p *probe) bool {
			altered := alteredToken(p, 0)
			st, _, _ := p.raw(-1, "GET", "/v1/user", nil, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+altered) })
			return st/100 == 2
		},
		"auth-session-cookie-wins": func(p *probe) bool {
			_, h, _ := p.raw(0, "GET", "/v1/user", nil, nil)
			cookies := (&http.Response{Header: h}).Cookies()
			if len(cookies) == 0 {
				return false
			}
			st, _, body := p.raw(1, "GET", "/v1/user", nil, func(r *http.Request) {
				for _, c := range cookies {
					r.AddCookie(c) // one cookie jar shared by the client's users
				}
			})
			var me []map[string]any
			if st != 200 || json.Unmarshal(body, &me) != nil || len(me) != 1 {
				return true
			}
			return me[0]["id"] != p.ids[1]
		},
		"me-url-api-path": func(p *probe) bool {
			mine := p.meAs(0)[0]["url"]
			m := p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "who am I"})
			return m["fromUser"].(map[string]any)["url"] != mine
		},
		"dm-user-no-avatars": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/rooms")) {
				u, has := r["user"].(map[string]any)
				if r["platformType"] != kindOneToOne || !has {
					continue
				}
				for _, field := range []string{"avatarUrlSmall", "avatarUrlMedium"} {
					if s, _ := u[field].(string); !strings.HasPrefix(s, "https://") {
						return true
					}
				}
			}
			return false
		},
		// rooms list and room fields
		"room-dm-uri-empty": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/rooms")) {
				if _, has := r["uri"]; has && r["platformType"] == kindOneToOne {
					return true
				}
			}
			return false
		},
		"room-user-null-group": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/rooms")) {
				if _, has := r["user"]; has && r["platformType"] != kindOneToOne {
					return true
				}
			}
			return false
		},
		"room-lastaccess-throttled": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "first visit")
			time.Sleep(5 * time.Millisecond)
			m := p.say(0, p.desc.WriteRoom, "second visit")
			at, _ := p.roomEntry(0, p.desc.WriteRoom)["lastAccessTime"].(string)
			return at < m.Sent
		},
		"room-lastaccess-epoch-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "a visit")
			return anyOf(12, func() bool {
				at, _ := p.roomEntry(0, p.desc.WriteRoom)["lastAccessTime"].(string)
				return at < m.Sent
			})
		},
		"room-lastaccess-millis-after-write": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "a visit")
			_, isString := p.roomEntry(0, p.desc.WriteRoom)["lastAccessTime"].(string)
			return !isString
		},
		"room-unread-sums-both-lists": func(p *probe) bool {
			p.say(1, p.desc.WriteRoom, "@"+userName(p, 0)+" look here")
			return count(p.roomEntry(0, p.desc.WriteRoom), "unreadItems") != len(p.unread(0, p.desc.WriteRoom).Chat)
		},
		"room-count-decrement-per-request": func(p *probe) bool {
			a := p.say(1, p.desc.WriteRoom, "first of two")
			b := p.say(1, p.desc.WriteRoom, "second of two")
			p.markRead(0, p.desc.WriteRoom, []string{a.ID, b.ID})
			return count(p.roomEntry(0, p.desc.WriteRoom), "unreadItems") != len(p.unread(0, p.desc.WriteRoom).Chat)
		},
		// hiding
		"hide-answer-404-after-apply": hideRefused,
		"hide-demands-json-body":      hideRefused,
		// organisations, repositories, channels
		"org-room-counts-unset": func(p *probe) bool {
			rooms := 0
			for _, o := range p.objects(0, userPath(p, 0, "/orgs")) {
				r, has := o["room"].(map[string]any)
				if !has {
					continue
				}
				rooms++
				if count(r, "unreadItems") != len(p.unread(0, r["id"].(string)).Chat) {
					return true
				}
			}
			if rooms == 0 {
				p.t.Fatal("no organisation of user 0 has a room")
			}
			return false
		},
		"repo-private-needs-query-param": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/repos")) {
				if r["private"] == true {
					return false
				}
			}
			return true
		},
		"repo-private-leak-flaky": func(p *probe) bool {
			return anyOf(12, func() bool {
				for _, r := range p.objects(1, userPath(p, 1, "/repos")) {
					if r["private"] == true {
						return true
					}
				}
				return false
			})
		},
		"repo-private-as-string": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/repos")) {
				if _, isBool := r["private"].(bool); !isBool {
					return true
				}
			}
			return false
		},
		"channel-list-url-short-name": func(p *probe) bool {
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
		// unread items and marking read
		"unread-mention-excluded-from-chat": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "@"+userName(p, 0)+" ping")
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"unread-chat-message-objects": func(p *probe) bool {
			p.say(1, p.desc.WriteRoom, "something new")
			var u map[string]any
			p.do(0, "GET", userPath(p, 0, "/rooms/"+p.desc.WriteRoom+"/unreadItems"), nil, 200, &u)
			chat, isList := u["chat"].([]any)
			if !isList || len(chat) == 0 {
				return true
			}
			for _, c := range chat {
				if _, isString := c.(string); !isString {
					return true
				}
			}
			return false
		},
		"unread-mention-latest-only": func(p *probe) bool {
			a := p.say(1, p.desc.WriteRoom, "@"+userName(p, 0)+" first question")
			p.say(1, p.desc.WriteRoom, "@"+userName(p, 0)+" second question")
			return !within(p.unread(0, p.desc.WriteRoom).Mention, a.ID)
		},
		"unread-flag-from-last-access": func(p *probe) bool {
			a := p.say(1, p.desc.WriteRoom, "older line")
			time.Sleep(5 * time.Millisecond)
			b := p.say(1, p.desc.WriteRoom, "newer line")
			time.Sleep(5 * time.Millisecond)
			p.markRead(0, p.desc.WriteRoom, []string{a.ID})
			return !p.one(0, p.desc.WriteRoom, b.ID).Unread
		},
		"unread-flag-inverted-flaky": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "not read by alice")
			return anyOf(15, func() bool { return !p.one(0, p.desc.WriteRoom, m.ID).Unread })
		},
		"unread-ids-doubled-flaky": func(p *probe) bool {
			p.say(1, p.desc.WriteRoom, "one unread line")
			return anyOf(15, func() bool {
				seen := map[string]bool{}
				for _, id := range p.unread(0, p.desc.WriteRoom).Chat {
					if seen[id] {
						return true
					}
					seen[id] = true
				}
				return false
			})
		},
		"readby-zero-flaky": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "count my reader")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return anyOf(15, func() bool { return count(p.listObject(1, p.desc.WriteRoom, m.ID), "readBy") == 0 })
		},
		"after-page-marks-read": func(p *probe) bool {
			a := p.say(1, p.desc.WriteRoom, "catch up from here")
			b := p.say(1, p.desc.WriteRoom, "the new one")
			p.page(0, p.desc.WriteRoom, "limit=5&afterId="+a.ID)
			return !within(p.unread(0, p.desc.WriteRoom).Chat, b.ID)
		},
		"mark-read-reverts-edit": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "draft")
			p.edit(1, p.desc.WriteRoom, m.ID, "revised")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return p.one(1, p.desc.WriteRoom, m.ID).Text != "revised"
		},
		// send
		"send-text-nfc": func(p *probe) bool {
			text := "cafe\u0301 cre\u0300me"
			return p.say(0, p.desc.WriteRoom, text).Text != text
		},
		"send-tags-stripped": func(p *probe) bool {
			text := "a <b>bold</b> move"
			return p.say(0, p.desc.WriteRoom, text).Text != text
		},
		"send-backslash-unescaped": func(p *probe) bool {
			text := `saved to C:\new\table`
			return p.say(0, p.desc.WriteRoom, text).Text != text
		},
		"send-answer-draft-id": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "keep my id")
			return p.status(0, "GET", msgPath(p.desc.WriteRoom, m.ID), nil) != 200
		},
		"send-v-from-previous-message": func(p *probe) bool {
			a := p.say(0, p.desc.WriteRoom, "first")
			p.edit(0, p.desc.WriteRoom, a.ID, "first, edited")
			return p.say(0, p.desc.WriteRoom, "second").V != 1
		},
		"send-status-false-refused": func(p *probe) bool {
			return p.status(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "plain", "status": false}) != 200
		},
		"send-answer-html-unrendered-flaky": func(p *probe) bool {
			return anyOf(12, func() bool {
				return !strings.Contains(p.say(0, p.desc.WriteRoom, "read https://example.com/docs now").HTML, `class="link"`)
			})
		},
		"meta-arrays-null-when-empty": func(p *probe) bool {
			m := p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "nothing to see"})
			for _, field := range []string{"urls", "mentions", "issues"} {
				if _, isList := m[field].([]any); !isList {
					return true
				}
			}
			return false
		},
		// one message
		"get-one-own-only": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "from bob")
			return p.status(0, "GET", msgPath(p.desc.WriteRoom, m.ID), nil) != 200
		},
		"get-one-fromuser-unexpanded": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "mine")
			_, isObject := p.oneObject(0, p.desc.WriteRoom, m.ID)["fromUser"].(map[string]any)
			return !isObject
		},
		// edit
		"edit-null-text-accepted": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "keep me")
			return p.status(0, "PUT", msgPath(p.desc.WriteRoom, m.ID), map[string]any{"text": nil})/100 == 2
		},
		"edit-editedat-whole-seconds": func(p *probe) bool {
			for k := 0; k < 3; k++ {
				m := p.say(0, p.desc.WriteRoom, "quick fix "+itoa(k))
				e := p.edit(0, p.desc.WriteRoom, m.ID, "quick fix "+itoa(k)+", fixed")
				if e.EditedAt != nil && *e.EditedAt < m.Sent {
					return true
				}
			}
			return false
		},
		"edit-updates-same-text-siblings": func(p *probe) bool {
			a := p.say(0, p.desc.WriteRoom, "twin words")
			b := p.say(0, p.desc.WriteRoom, "twin words")
			p.edit(0, p.desc.WriteRoom, a.ID, "changed words")
			return p.one(0, p.desc.WriteRoom, b.ID).Text != "twin words"
		},
		"edit-newlines-collapsed": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "one line")
			text := "line one\nline two"
			return p.edit(0, p.desc.WriteRoom, m.ID, text).Text != text
		},
		"edit-answer-gv": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "to change")
			var e map[string]any
			p.do(0, "PUT", msgPath(p.desc.WriteRoom, m.ID), map[string]any{"text": "changed"}, 200, &e)
			_, has := e["gv"]
			return has
		},
		"edit-answer-html-stale-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "version 0")
			hit := false
			for k := 1; k <= 12; k++ {
				text := "version " + itoa(k)
				if !strings.Contains(p.edit(0, p.desc.WriteRoom, m.ID, text).HTML, text) {
					hit = true
				}
			}
			return hit
		},
		"edit-other-room-200-unchanged": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "mine, in the write room")
			return p.status(0, "PUT", msgPath(orgRoom(p), m.ID), map[string]any{"text": "through the wrong room"})/100 == 2
		},
		// message list, cursors and limits
		"after-newest-404": func(p *probe) bool {
			room := orgRoom(p)
			newest := p.page(0, room, "limit=1")[0]
			return p.status(0, "GET", "/v1/rooms/"+room+"/chatMessages?limit=5&afterId="+newest.ID, nil) != 200
		},
		"after-cursor-dropped-flaky": func(p *probe) bool {
			room := orgRoom(p)
			anchor := oldest(p.page(0, room, "limit=3"))
			return anyOf(12, func() bool {
				ms := p.page(0, room, "limit=5&afterId="+anchor.ID)
				return hasID(ms, anchor.ID) || len(ms) > 2
			})
		},
		"around-min-window-three": func(p *probe) bool {
			a := midMessage(p)
			return len(p.page(0, orgRoom(p), "limit=1&aroundId="+a.ID)) > 1
		},
		"list-shows-every-version": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "first wording")
			p.edit(0, p.desc.WriteRoom, m.ID, "second wording")
			n := 0
			for _, x := range p.page(0, p.desc.WriteRoom, "limit=10") {
				if x.ID == m.ID {
					n++
				}
			}
			return n != 1
		},
		"before-needs-limit": func(p *probe) bool {
			a := midMessage(p)
			for _, x := range p.page(0, orgRoom(p), "beforeId="+a.ID) {
				if x.Sent > a.Sent {
					return true
				}
			}
			return false
		},
		"skip-from-oldest-end": func(p *probe) bool {
			room := orgRoom(p)
			return overlap(p.page(0, room, "limit=5&skip=3"), p.page(0, room, "limit=5")) != 2
		},
		"list-sent-coalesced-edit": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "said once")
			time.Sleep(5 * time.Millisecond)
			p.edit(0, p.desc.WriteRoom, m.ID, "said once, then again")
			return p.listObject(0, p.desc.WriteRoom, m.ID)["sent"] != m.Sent
		},
		"list-empty-204": func(p *probe) bool {
			// The write room holds no message before the first send.
			return p.status(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", nil) != 200
		},
		"before-status-anchor-empty": func(p *probe) bool {
			room := p.desc.WriteRoom
			for k := 0; k < 3; k++ {
				p.say(0, room, "plain line "+itoa(k))
				time.Sleep(3 * time.Millisecond)
			}
			p.post(0, room, map[string]any{"text": "/me pauses", "status": true})
			time.Sleep(3 * time.Millisecond)
			for k := 3; k < 5; k++ {
				p.say(0, room, "plain line "+itoa(k))
				time.Sleep(3 * time.Millisecond)
			}
			return p.walkBy(0, room, 3) != 6
		},
		// search
		"search-short-words-unindexed": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "the zqx report")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=zqx"), m.ID)
		},
		"search-ignores-limit": func(p *probe) bool {
			return len(p.page(0, orgRoom(p), "q=the&limit=3")) > 3
		},
		"search-indexes-preview-only": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, strings.Repeat("filler words here ", 10)+"zorbleword")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=zorbleword"), m.ID)
		},
		"search-shard-missing-flaky": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "shardword one")
			p.say(0, p.desc.WriteRoom, "shardword two")
			return anyOf(12, func() bool { return len(p.page(0, p.desc.WriteRoom, "q=shardword")) != 2 })
		},
		// rendering and metadata
		"render-mention-anchor": func(p *probe) bool {
			return tagOf(p.say(0, p.desc.WriteRoom, "@"+userName(p, 1)+" hi").HTML, "mention") != "span"
		},
		"render-double-escaped": func(p *probe) bool {
			return strings.Contains(p.say(0, p.desc.WriteRoom, "fish & chips").HTML, "&amp;amp;")
		},
		"render-status-unescaped": func(p *probe) bool {
			m := p.post(0, p.desc.WriteRoom, map[string]any{"text": "/me likes <b>bold</b>", "status": true})
			return strings.Contains(m.HTML, "<b>")
		},
		"render-link-class-on-span": func(p *probe) bool {
			return tagOf(p.say(0, p.desc.WriteRoom, "see https://example.com/docs now").HTML, "link") != "a"
		},
		"render-issue-one-digit-plain": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "see #7 now").HTML, `class="issue"`)
		},
		"meta-urls-query-stripped": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "go to https://example.com/a?b=1 now")
			return len(m.URLs) != 1 || m.URLs[0].URL != "https://example.com/a?b=1"
		},
		"meta-mention-snake-case": func(p *probe) bool {
			m := p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "@" + userName(p, 1) + " hi"})
			ms, _ := m["mentions"].([]any)
			if len(ms) != 1 {
				return true
			}
			e, _ := ms[0].(map[string]any)
			_, hasName := e["screenName"]
			_, hasID := e["userId"]
			return !hasName || !hasID
		},
		"meta-issue-number-hash": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "fixes #42 today")
			return len(m.Issues) != 1 || m.Issues[0].Number != "42"
		},
		"meta-mention-screenname-at": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "@"+userName(p, 1)+" hi")
			return len(m.Mentions) != 1 || m.Mentions[0].ScreenName != userName(p, 1)
		},
		"list-meta-null": func(p *probe) bool {
			for _, m := range p.objects(0, "/v1/rooms/"+orgRoom(p)+"/chatMessages?limit=5") {
				if _, isMap := m["meta"].(map[string]any); !isMap {
					return true
				}
			}
			return false
		},
		// transport
		"json-xssi-prefix-messages": func(p *probe) bool {
			st, _, body := p.raw(0, "GET", "/v1/rooms/"+orgRoom(p)+"/chatMessages?limit=5", nil, nil)
			return st != 200 || !json.Valid(body)
		},
		"gzip-without-encoding-header": func(p *probe) bool {
			st, _, body := p.raw(0, "GET", userPath(p, 0, "/rooms"), nil, nil)
			return st != 200 || !json.Valid(body)
		},
		"ctype-search-vnd": func(p *probe) bool {
			_, h, _ := p.raw(0, "GET", "/v1/rooms/"+orgRoom(p)+"/chatMessages?q=build", nil, nil)
			return h.Get("Content-Type") != "application/json; charset=utf-8"
		},
		"unread-routes-without-v1": func(p *probe) bool {
			return p.status(0, "GET", userPath(p, 0, "/rooms/"+p.desc.WriteRoom+"/unreadItems"), nil) != 200
		},
	}
}

// TestHeldOut7 checks the seventh held-out set: at least 45 defects, a
// well-formed catalogue written after the other six, and every defect
// observable by a client while the clean server does not show it.
func TestHeldOut7(t *testing.T) {
	if n := len(HeldOut7()); n < 45 {
		t.Fatalf("%d defects in the seventh held-out set, want at least 45", n)
	}
	checkLaterCatalogue(t, "HeldOut7", HeldOut7(), HeldOut(), HeldOut2(), HeldOut3(), HeldOut4(), HeldOut5(), HeldOut6())
	checkVisible(t, HeldOut7(), heldOut7Detectors())
}
