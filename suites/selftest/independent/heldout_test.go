package independent

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// raw sends a request as user i (i < 0: no credentials) and returns what came
// back without judging it; tweak may alter the request before it is sent.
func (p *probe) raw(i int, method, path string, body any, tweak func(*http.Request)) (int, http.Header, []byte) {
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
	if tweak != nil {
		tweak(req)
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

func (p *probe) post(i int, room string, body map[string]any) wireMsg {
	var m wireMsg
	p.do(i, "POST", "/v1/rooms/"+room+"/chatMessages", body, 200, &m)
	return m
}

func (p *probe) say(i int, room, text string) wireMsg {
	return p.post(i, room, map[string]any{"text": text})
}

func (p *probe) edit(i int, room, id, text string) wireMsg {
	var m wireMsg
	p.do(i, "PUT", "/v1/rooms/"+room+"/chatMessages/"+id, map[string]any{"text": text}, 200, &m)
	return m
}

func (p *probe) one(i int, room, id string) wireMsg {
	var m wireMsg
	p.do(i, "GET", "/v1/rooms/"+room+"/chatMessages/"+id, nil, 200, &m)
	return m
}

func (p *probe) markRead(i int, room string, ids []string) {
	st, _, body := p.raw(i, "POST", "/v1/user/"+p.ids[i]+"/rooms/"+room+"/unreadItems", map[string]any{"chat": ids}, nil)
	if st/100 != 2 {
		p.t.Fatalf("mark read: %d %s", st, body)
	}
}

func (p *probe) hide(i int, room string) {
	st, _, body := p.raw(i, "DELETE", "/v1/user/"+p.ids[i]+"/rooms/"+room, nil, nil)
	if st/100 != 2 {
		p.t.Fatalf("hide: %d %s", st, body)
	}
}

// objects GETs path as user i and decodes an array of objects.
func (p *probe) objects(i int, path string) []map[string]any {
	var out []map[string]any
	p.do(i, "GET", path, nil, 200, &out)
	return out
}

func (p *probe) listed(i int, room string) bool {
	for _, r := range p.rooms(i) {
		if r.ID == room {
			return true
		}
	}
	return false
}

func ids(ms []wireMsg) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m.ID] = true
	}
	return out
}

func overlap(a, b []wireMsg) int {
	n := 0
	in := ids(b)
	for _, m := range a {
		if in[m.ID] {
			n++
		}
	}
	return n
}

func within(a []string, id string) bool {
	for _, x := range a {
		if x == id {
			return true
		}
	}
	return false
}

// anyOf runs f n times and reports whether it ever returned true.
func anyOf(n int, f func() bool) bool {
	hit := false
	for k := 0; k < n; k++ {
		if f() {
			hit = true
		}
	}
	return hit
}

func heldOutDetectors() map[string]func(p *probe) bool {
	org := func(p *probe) string { return p.roomOfKind(0, kindOrg) }
	return map[string]func(p *probe) bool{
		// current user
		"me-cached-first": func(p *probe) bool {
			var me []map[string]any
			p.do(1, "GET", "/v1/user", nil, 200, &me)
			return me[0]["username"] != p.desc.Users[1].Name
		},
		"me-url-no-slash": func(p *probe) bool {
			me := p.objects(0, "/v1/user")
			return !strings.HasPrefix(me[0]["url"].(string), "/")
		},
		"me-avatar-flaky": func(p *probe) bool {
			return anyOf(30, func() bool {
				me := p.objects(0, "/v1/user")
				return !strings.HasPrefix(me[0]["avatarUrlMedium"].(string), "https://")
			})
		},
		// rooms
		"room-dm-uri": func(p *probe) bool {
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/rooms") {
				if _, has := r["uri"]; has && r["platformType"] == kindOneToOne {
					return true
				}
			}
			return false
		},
		"room-dm-user-second-member": func(p *probe) bool {
			for _, r := range p.objects(1, "/v1/user/"+p.ids[1]+"/rooms") {
				if u, has := r["user"].(map[string]any); has && u["id"] == p.ids[1] {
					return true
				}
			}
			return false
		},
		"room-two-member-user": func(p *probe) bool {
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/rooms") {
				if _, has := r["user"]; has && r["platformType"] != kindOneToOne {
					return true
				}
			}
			return false
		},
		"room-kind-flaky": func(p *probe) bool {
			kinds := map[string]map[any]bool{}
			for k := 0; k < 30; k++ {
				for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/rooms") {
					id := r["id"].(string)
					if kinds[id] == nil {
						kinds[id] = map[any]bool{}
					}
					kinds[id][r["platformType"]] = true
				}
			}
			for _, ks := range kinds {
				if len(ks) > 1 {
					return true
				}
			}
			return false
		},
		"room-lastaccess-offset": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "touch")
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/rooms") {
				if !strings.HasSuffix(r["lastAccessTime"].(string), "Z") {
					return true
				}
			}
			return false
		},
		"rooms-dm-missing-flaky": func(p *probe) bool {
			return anyOf(30, func() bool {
				for _, r := range p.rooms(0) {
					if r.PlatformType == kindOneToOne {
						return false
					}
				}
				return true
			})
		},
		"rooms-drop-slashed": func(p *probe) bool {
			for _, r := range p.rooms(0) {
				if r.PlatformType == kindRepo {
					return false
				}
			}
			return true
		},
		// hide
		"hide-for-everyone": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			return !p.listed(1, p.desc.HideRoom)
		},
		"hide-dm-peer": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			return p.listed(0, p.desc.HideRoom)
		},
		"hide-second-ignored": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			p.hide(0, p.desc.WriteRoom)
			return p.listed(0, p.desc.WriteRoom)
		},
		// orgs
		"org-room-stale-var": func(p *probe) bool {
			n := 0
			for _, o := range p.objects(0, "/v1/user/"+p.ids[0]+"/orgs") {
				if _, has := o["room"]; has {
					n++
				}
			}
			return n > 1
		},
		"org-avatar-flaky": func(p *probe) bool {
			return anyOf(20, func() bool {
				for _, o := range p.objects(0, "/v1/user/"+p.ids[0]+"/orgs") {
					if !strings.HasPrefix(o["avatar_url"].(string), "https://") {
						return true
					}
				}
				return false
			})
		},
		"org-room-counts-first-member": func(p *probe) bool {
			for _, o := range p.objects(2, "/v1/user/"+p.ids[2]+"/orgs") {
				r, has := o["room"].(map[string]any)
				if !has {
					continue
				}
				if int(r["unreadItems"].(float64)) != len(p.unread(2, r["id"].(string)).Chat) {
					return true
				}
			}
			return false
		},
		// repos
		"repo-private-roomless-hidden": func(p *probe) bool {
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/repos") {
				if r["private"] == true {
					return false
				}
			}
			return true
		},
		"repo-cache-global": func(p *probe) bool {
			p.objects(0, "/v1/user/"+p.ids[0]+"/repos")
			for _, r := range p.objects(1, "/v1/user/"+p.ids[1]+"/repos") {
				if r["private"] == true {
					return true
				}
			}
			return false
		},
		"repo-room-flaky": func(p *probe) bool {
			return anyOf(20, func() bool {
				n := 0
				for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/repos") {
					if _, has := r["room"]; has {
						n++
					}
				}
				return n > 1
			})
		},
		// channels
		"channel-usercount-multi": func(p *probe) bool {
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/channels") {
				if _, has := r["userCount"]; has {
					return true
				}
			}
			return false
		},
		"channel-security-missing": func(p *probe) bool {
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/channels") {
				if _, has := r["security"].(string); !has {
					return true
				}
			}
			return false
		},
		"channel-kind-flaky": func(p *probe) bool {
			return anyOf(20, func() bool {
				for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/channels") {
					if r["platformType"] != kindChannel {
						return true
					}
				}
				return false
			})
		},
		// unread items
		"unread-null-arrays": func(p *probe) bool {
			var u map[string]any
			p.do(2, "GET", "/v1/user/"+p.ids[2]+"/rooms/"+p.roomOfKind(2, kindOrg)+"/unreadItems", nil, 200, &u)
			_, isList := u["chat"].([]any)
			return !isList
		},
		"unread-newest-dropped": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "new from bob")
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"unread-mention-first-only": func(p *probe) bool {
			m := p.say(0, org(p), "hey @"+p.desc.Users[1].Name+" and @"+p.desc.Users[2].Name)
			return !within(p.unread(2, org(p)).Mention, m.ID)
		},
		"unread-get-clears": func(p *probe) bool {
			first := p.unread(0, org(p))
			return len(p.unread(0, org(p)).Chat) != len(first.Chat)
		},
		"unread-chat-flaky": func(p *probe) bool {
			room := org(p)
			return anyOf(20, func() bool { return len(p.unread(0, room).Chat) == 0 })
		},
		// mark read
		"mark-read-first-only": func(p *probe) bool {
			room := org(p)
			u := p.unread(0, room)
			p.markRead(0, room, u.Chat[:2])
			return len(p.unread(0, room).Chat) != len(u.Chat)-2
		},
		"mark-read-flaky": func(p *probe) bool {
			return anyOf(12, func() bool {
				m := p.say(1, p.desc.WriteRoom, "read me")
				p.markRead(0, p.desc.WriteRoom, []string{m.ID})
				return within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
			})
		},
		"mark-read-mention-sticky": func(p *probe) bool {
			room := org(p)
			u := p.unread(0, room)
			if len(u.Mention) == 0 {
				p.t.Fatal("alice has no unread mention")
			}
			p.markRead(0, room, u.Chat)
			return len(p.unread(0, room).Mention) != 0
		},
		"readby-recount": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "read me twice")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return p.one(1, p.desc.WriteRoom, m.ID).ReadBy != 1
		},
		"unread-flag-first-member": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "for bob")
			return !p.one(1, p.desc.WriteRoom, m.ID).Unread
		},
		"room-counts-cached": func(p *probe) bool {
			room := org(p)
			p.rooms(0)
			p.markRead(0, room, p.unread(0, room).Chat)
			for _, r := range p.rooms(0) {
				if r.ID == room {
					return r.UnreadItems != 0
				}
			}
			p.t.Fatal("org room not listed")
			return false
		},
		// message list and pagination
		"skip-off-by-one": func(p *probe) bool {
			room := org(p)
			return overlap(p.page(0, room, "limit=5&skip=3"), p.page(0, room, "limit=3")) != 0
		},
		"skip-ignored-with-before": func(p *probe) bool {
			room := org(p)
			m := p.page(0, room, "limit=1&skip=20")[0]
			return overlap(p.page(0, room, "limit=3&beforeId="+m.ID), p.page(0, room, "limit=3&skip=3&beforeId="+m.ID)) != 0
		},
		"after-inclusive": func(p *probe) bool {
			room := org(p)
			m := p.page(0, room, "limit=1&skip=30")[0]
			return hasID(p.page(0, room, "limit=5&afterId="+m.ID), m.ID)
		},
		"around-mirrored": func(p *probe) bool {
			room := org(p)
			m := p.page(0, room, "limit=1&skip=60")[0]
			return overlap(p.page(0, room, "limit=9&aroundId="+m.ID), p.page(0, room, "limit=3&beforeId="+m.ID)) == 0
		},
		"before-skips-neighbour": func(p *probe) bool {
			room := org(p)
			m := p.page(0, room, "limit=1&skip=10")[0]
			want := ids(p.page(0, room, "limit=6&skip=10"))
			delete(want, m.ID)
			for _, x := range p.page(0, room, "limit=5&beforeId="+m.ID) {
				if !want[x.ID] {
					return true
				}
			}
			return false
		},
		"limit-99": func(p *probe) bool { return len(p.page(0, org(p), "limit=100")) != 100 },
		"limit-cap-skip": func(p *probe) bool {
			return len(p.page(0, org(p), "limit=150&skip=1")) > 100
		},
		"page-dup-flaky": func(p *probe) bool {
			room := org(p)
			return anyOf(25, func() bool {
				ms := p.page(0, room, "limit=10")
				return len(ids(ms)) != len(ms)
			})
		},
		"limit-flaky": func(p *probe) bool {
			room := org(p)
			return anyOf(30, func() bool { return len(p.page(0, room, "limit=10")) > 10 })
		},
		// search
		"search-lowercase-query-only": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "Zanzibarquux report")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=Zanzibarquux"), m.ID)
		},
		"search-global": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "onlyhereword")
			return len(p.page(0, org(p), "q=onlyhereword")) != 0
		},
		"search-stale-after-edit": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "alphaword")
			p.edit(0, p.desc.WriteRoom, m.ID, "betaword")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=betaword"), m.ID)
		},
		"search-flaky": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "needleword")
			p.say(0, p.desc.WriteRoom, "haystack")
			return anyOf(20, func() bool { return len(p.page(0, p.desc.WriteRoom, "q=needleword")) != 1 })
		},
		// one message
		"get-one-wrapped": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "one")
			_, _, body := p.raw(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, nil, nil)
			return bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
		},
		"get-one-oldest-missing": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "first of the room")
			st, _, _ := p.raw(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, nil, nil)
			return st != 200
		},
		"get-one-fromuser-caller": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "mine")
			var got map[string]any
			p.do(1, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, nil, 200, &got)
			return got["fromUser"].(map[string]any)["id"] != p.ids[0]
		},
		// send
		"send-201": func(p *probe) bool {
			st, _, _ := p.raw(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "x"}, nil)
			return st != 200
		},
		"send-readby-one": func(p *probe) bool { return p.say(0, p.desc.WriteRoom, "x").ReadBy != 0 },
		"send-status-sticky": func(p *probe) bool {
			p.post(0, p.desc.WriteRoom, map[string]any{"text": "waves", "status": true})
			var m map[string]any
			p.do(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "plain"}, 200, &m)
			return m["status"] == true
		},
		"send-text-trimmed": func(p *probe) bool {
			text := "  padded text \n"
			return p.say(0, p.desc.WriteRoom, text).Text != text
		},
		"send-lost-flaky": func(p *probe) bool {
			return anyOf(12, func() bool {
				m := p.say(0, p.desc.WriteRoom, "keep me")
				st, _, _ := p.raw(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, nil, nil)
				return st != 200
			})
		},
		// edit
		"edit-v-double-second": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "v1")
			p.edit(0, p.desc.WriteRoom, m.ID, "v2")
			return p.edit(0, p.desc.WriteRoom, m.ID, "v3").V != 3
		},
		"edit-editedat-null-response": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "v1")
			return p.edit(0, p.desc.WriteRoom, m.ID, "v2").EditedAt == nil
		},
		"edit-second-lost": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "v1")
			p.edit(0, p.desc.WriteRoom, m.ID, "v2")
			p.edit(0, p.desc.WriteRoom, m.ID, "v3")
			got := p.one(0, p.desc.WriteRoom, m.ID)
			return got.Text != "v3" || got.V != 3
		},
		"editedat-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "to edit")
			p.edit(0, p.desc.WriteRoom, m.ID, "edited")
			return anyOf(25, func() bool { return p.one(0, p.desc.WriteRoom, m.ID).EditedAt == nil })
		},
		"edit-old-text-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "start")
			return anyOf(12, func() bool {
				text := "text " + strings.Repeat("x", len(m.Text))
				m = p.edit(0, p.desc.WriteRoom, m.ID, text)
				return m.Text != text
			})
		},
		// rendering and metadata
		"render-mention-repeat": func(p *probe) bool {
			bob := p.desc.Users[1].Name
			m := p.say(0, p.desc.WriteRoom, "@"+bob+" and again @"+bob)
			return strings.Count(m.HTML, `class="mention"`) != 2
		},
		"render-issue-at-end": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "see #42").HTML, `class="issue"`)
		},
		"render-link-query": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "go to https://example.com/a?b=1 now").HTML, `class="link"`)
		},
		"render-escape-edit": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "plain")
			return strings.Contains(p.edit(0, p.desc.WriteRoom, m.ID, "<i>x</i> & y").HTML, "<i>")
		},
		"meta-urls-first-only": func(p *probe) bool {
			return len(p.say(0, p.desc.WriteRoom, "https://a.example/1 and https://b.example/2").URLs) != 2
		},
		"meta-mention-userid-username": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "@"+p.desc.Users[1].Name+" hi")
			return len(m.Mentions) != 1 || m.Mentions[0].UserID != p.ids[1]
		},
		"meta-issues-int": func(p *probe) bool {
			var m map[string]any
			p.do(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "fixes #7"}, 200, &m)
			_, isString := m["issues"].([]any)[0].(map[string]any)["number"].(string)
			return !isString
		},
		"mention-screenname-as-typed": func(p *probe) bool {
			bob := p.desc.Users[1].Name
			m := p.say(0, p.desc.WriteRoom, "@"+strings.ToUpper(bob)+" hi")
			return len(m.Mentions) != 1 || m.Mentions[0].ScreenName != bob
		},
		"gv-flaky": func(p *probe) bool {
			for _, m := range p.objects(0, "/v1/rooms/"+org(p)+"/chatMessages?limit=30") {
				if _, has := m["gv"]; has {
					return true
				}
			}
			return false
		},
		"meta-flaky": func(p *probe) bool {
			for _, m := range p.objects(0, "/v1/rooms/"+org(p)+"/chatMessages?limit=30") {
				if len(m["meta"].(map[string]any)) != 0 {
					return true
				}
			}
			return false
		},
		"sent-flaky": func(p *probe) bool {
			for _, m := range p.objects(0, "/v1/rooms/"+org(p)+"/chatMessages?limit=30") {
				if !strings.HasSuffix(m["sent"].(string), "Z") {
					return true
				}
			}
			return false
		},
		// authentication
		"auth-token-prefix": func(p *probe) bool {
			tok := p.desc.Users[0].Token
			altered := tok[:len(tok)-1] + string("01"[(tok[len(tok)-1]+1)%2])
			if tok[len(tok)-1] == altered[len(altered)-1] {
				altered = tok[:len(tok)-1] + "x"
			}
			st, _, _ := p.raw(-1, "GET", "/v1/user", nil, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+altered) })
			return st/100 == 2
		},
		"auth-anonymous-first-user": func(p *probe) bool {
			st, _, _ := p.raw(-1, "GET", "/v1/user", nil, nil)
			return st/100 == 2
		},
		"auth-query-get-only": func(p *probe) bool {
			st, _, _ := p.raw(-1, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages?access_token="+url.QueryEscape(p.desc.Users[0].Token), map[string]any{"text": "q"}, nil)
			return st != 200
		},
		"auth-bearer-with-query": func(p *probe) bool {
			st, _, _ := p.raw(0, "GET", "/v1/rooms/"+org(p)+"/chatMessages?limit=5", nil, nil)
			return st != 200
		},
		"auth-session-by-addr": func(p *probe) bool {
			var me []map[string]any
			p.do(0, "GET", "/v1/user", nil, 200, &me)
			p.do(1, "GET", "/v1/user", nil, 200, &me)
			return me[0]["id"] == p.ids[0] || p.ids[0] == p.ids[1]
		},
		"auth-unknown-fallback-flaky": func(p *probe) bool {
			return anyOf(25, func() bool {
				st, _, _ := p.raw(-1, "GET", "/v1/user", nil, func(r *http.Request) { r.Header.Set("Authorization", "Bearer tok_never_issued") })
				return st/100 == 2
			})
		},
		// transport
		"ctype-no-charset-writes": func(p *probe) bool {
			_, h, _ := p.raw(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "x"}, nil)
			return h.Get("Content-Type") != "application/json; charset=utf-8"
		},
		"ctype-flaky": func(p *probe) bool {
			return anyOf(25, func() bool {
				_, h, _ := p.raw(0, "GET", "/v1/user", nil, nil)
				return h.Get("Content-Type") != "application/json; charset=utf-8"
			})
		},
		"json-cut-16k": func(p *probe) bool {
			_, _, body := p.raw(0, "GET", "/v1/rooms/"+org(p)+"/chatMessages?limit=100", nil, nil)
			return !json.Valid(body)
		},
		"tls-plain-also": func(p *probe) bool {
			req, _ := http.NewRequest("GET", strings.Replace(p.srv.BaseURL, "https://", "http://", 1)+"/v1/user", nil)
			req.Header.Set("Authorization", "Bearer "+p.desc.Users[0].Token)
			resp, err := (&http.Client{}).Do(req)
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			return resp.StatusCode == 200
		},
	}
}

// TestHeldOutDefectsAreVisible checks that every held-out defect changes
// something a client can observe, and that the clean server does not show it.
func TestHeldOutDefectsAreVisible(t *testing.T) {
	if n := len(HeldOut()); n < 45 {
		t.Fatalf("only %d held-out defects", n)
	}
	checkVisible(t, HeldOut(), heldOutDetectors())
}

// checkVisible runs each defect's detector against the clean server (it
// must not fire) and the server with the defect on (it must).
func checkVisible(t *testing.T, held []HeldOutDefect, detectors map[string]func(p *probe) bool) {
	t.Helper()
	for _, d := range held {
		detect, found := detectors[d.Name]
		if !found {
			t.Errorf("no detector for held-out defect %s", d.Name)
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			if detect(launch(t, "")) {
				t.Fatal("clean server shows the defect")
			}
			if !detect(launch(t, d.Name)) {
				t.Fatal("defect not observable")
			}
		})
	}
	if len(detectors) != len(held) {
		t.Errorf("%d detectors for %d held-out defects", len(detectors), len(held))
	}
}

func TestHeldOutCatalogue(t *testing.T) {
	held := HeldOut()
	if !sort.SliceIsSorted(held, func(i, j int) bool { return held[i].Name < held[j].Name }) {
		t.Fatal("HeldOut is not sorted by name")
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
	if got := len(Defects()); got != len(defectCatalogue) {
		t.Fatalf("Defects() lists %d, want the original %d", got, len(defectCatalogue))
	}
	for name := range Defects() {
		if seen[name] {
			t.Errorf("Defects() lists held-out defect %s", name)
		}
	}
}

// TestHeldOutRequirements checks that each defect of both held-out sets
// names a core, checkable requirement of the catalogue, and none of the
// generated (GEN-*) or reference (REF-*) ones.
func TestHeldOutRequirements(t *testing.T) {
	usable := coreRequirements(t)
	for _, d := range append(HeldOut(), HeldOut2()...) {
		if !usable[d.Requirement] {
			t.Errorf("%s: %q is not a core, checkable requirement", d.Name, d.Requirement)
		}
	}
}

// coreRequirements reads spec/requirements.yaml and returns the ids of its
// core, checkable requirements, leaving out the generated (GEN-*) and
// reference (REF-*) ones.
func coreRequirements(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "spec", "requirements.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Requirements []struct {
			ID        string `yaml:"id"`
			Level     string `yaml:"level"`
			Checkable *bool  `yaml:"checkable"`
		} `yaml:"requirements"`
	}
	if err := yaml.Unmarshal(raw, &cat); err != nil {
		t.Fatal(err)
	}
	usable := map[string]bool{}
	for _, r := range cat.Requirements {
		if r.Level == "core" && (r.Checkable == nil || *r.Checkable) &&
			!strings.HasPrefix(r.ID, "GEN-") && !strings.HasPrefix(r.ID, "REF-") {
			usable[r.ID] = true
		}
	}
	if len(usable) == 0 {
		t.Fatal("no core checkable requirement found")
	}
	return usable
}
