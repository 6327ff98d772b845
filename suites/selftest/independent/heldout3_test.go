package independent

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// sendRaw posts body to room as user i and decodes the answer as an object.
func (p *probe) sendRaw(i int, room string, body map[string]any) map[string]any {
	var m map[string]any
	p.do(i, "POST", "/v1/rooms/"+room+"/chatMessages", body, 200, &m)
	return m
}

// roomEntry finds room in user i's rooms list, as a decoded object.
func (p *probe) roomEntry(i int, room string) map[string]any {
	for _, r := range p.objects(i, "/v1/user/"+p.ids[i]+"/rooms") {
		if r["id"] == room {
			return r
		}
	}
	p.t.Fatalf("room %s not in the rooms list of user %d", room, i)
	return nil
}

// status is the HTTP status of a request as user i (i < 0: no credentials).
func (p *probe) status(i int, method, path string, body any) int {
	st, _, _ := p.raw(i, method, path, body, nil)
	return st
}

func heldOut3Detectors() map[string]func(p *probe) bool {
	org := func(p *probe) string { return p.roomOfKind(0, kindOrg) }
	newest := func(p *probe) wireMsg { return p.page(0, org(p), "limit=1")[0] }
	return map[string]func(p *probe) bool{
		// authentication
		"auth-anonymous-path-user": func(p *probe) bool {
			return p.status(-1, "GET", "/v1/user/"+p.ids[0]+"/rooms", nil)/100 == 2
		},
		"auth-token-extra-suffix": func(p *probe) bool {
			st, _, _ := p.raw(-1, "GET", "/v1/user", nil, func(r *http.Request) {
				r.Header.Set("Authorization", "Bearer "+p.desc.Users[0].Token+"0")
			})
			return st/100 == 2
		},
		// users
		"fromuser-url-by-id": func(p *probe) bool {
			var me []map[string]any
			p.do(0, "GET", "/v1/user", nil, 200, &me)
			m := p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "who am I"})
			return m["fromUser"].(map[string]any)["url"] != me[0]["url"]
		},
		// rooms list
		"rooms-empty-dropped": func(p *probe) bool {
			for _, r := range p.rooms(0) {
				if r.PlatformType == kindRepo {
					return false
				}
			}
			return true
		},
		"room-onetoone-two-members": func(p *probe) bool {
			for _, r := range p.objects(0, "/v1/user/"+p.ids[0]+"/rooms") {
				if (r["oneToOne"] == true) != (r["platformType"] == kindOneToOne) {
					return true
				}
			}
			return false
		},
		"send-status-no-touch": func(p *probe) bool {
			m := p.post(0, p.desc.WriteRoom, map[string]any{"text": "waves", "status": true})
			return p.roomEntry(0, p.desc.WriteRoom)["lastAccessTime"].(string) < m.Sent
		},
		// hide a room
		"hide-toggle": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			p.hide(0, p.desc.HideRoom)
			return p.listed(0, p.desc.HideRoom)
		},
		"hide-lost-flaky": func(p *probe) bool {
			stays := false
			for _, room := range []string{p.desc.HideRoom, org(p), p.desc.WriteRoom} {
				p.hide(0, room)
				if p.listed(0, room) {
					stays = true
				}
			}
			return stays
		},
		// organisations, repositories, channels
		"org-room-empty-object": func(p *probe) bool {
			for _, o := range p.objects(0, "/v1/user/"+p.ids[0]+"/orgs") {
				if r, has := o["room"].(map[string]any); has && r["id"] == nil {
					return true
				}
			}
			return false
		},
		"repo-room-owner-match": func(p *probe) bool {
			for _, e := range p.objects(0, "/v1/user/"+p.ids[0]+"/repos") {
				if r, has := e["room"].(map[string]any); has && r["uri"] != e["uri"] {
					return true
				}
			}
			return false
		},
		"channel-security-needs-topic": func(p *probe) bool {
			for _, c := range p.objects(1, "/v1/user/"+p.ids[1]+"/channels") {
				if _, has := c["security"].(string); !has {
					return true
				}
			}
			return false
		},
		// unread items and read state
		"edit-marks-read-all": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "first draft")
			p.edit(1, p.desc.WriteRoom, m.ID, "second draft")
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"unread-mention-send-time": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "hello there")
			p.edit(1, p.desc.WriteRoom, m.ID, "@"+p.desc.Users[0].Name+" hello there")
			return !within(p.unread(0, p.desc.WriteRoom).Mention, m.ID)
		},
		"mark-read-recent-window": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "read me later")
			for k := 0; k < 50; k++ {
				p.say(0, p.desc.WriteRoom, "filler "+itoa(k))
			}
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"readby-caller-excluded": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "count me")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return p.one(0, p.desc.WriteRoom, m.ID).ReadBy != 1
		},
		"unread-flag-list-false": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "unread for alice")
			for _, x := range p.page(0, p.desc.WriteRoom, "limit=5") {
				if x.ID == m.ID {
					return !x.Unread
				}
			}
			p.t.Fatal("fresh message not in the newest page")
			return false
		},
		"around-marks-read": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "jump here")
			p.page(0, p.desc.WriteRoom, "limit=3&aroundId="+m.ID)
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		// message list and cursors
		"after-newest-fallback": func(p *probe) bool {
			return len(p.page(0, org(p), "limit=5&afterId="+newest(p).ID)) != 0
		},
		"before-oldest-self": func(p *probe) bool {
			room := org(p)
			first := p.page(0, room, "limit=1&skip=319")[0]
			if len(p.page(0, room, "limit=1&skip=320")) != 0 {
				p.t.Fatal("the organisation room holds more than 320 messages")
			}
			return len(p.page(0, room, "limit=5&beforeId="+first.ID)) != 0
		},
		"around-newest-drops-anchor": func(p *probe) bool {
			last := newest(p)
			return !hasID(p.page(0, org(p), "limit=5&aroundId="+last.ID), last.ID)
		},
		"skip-clamped-to-oldest": func(p *probe) bool {
			return len(p.page(0, org(p), "limit=5&skip=400")) != 0
		},
		"around-anchor-twice": func(p *probe) bool {
			room := org(p)
			mid := p.page(0, room, "limit=1&skip=100")[0]
			win := p.page(0, room, "limit=5&aroundId="+mid.ID)
			return len(ids(win)) != len(win)
		},
		"before-last-page-empty": func(p *probe) bool {
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
		"skip-over-count-refused": func(p *probe) bool {
			return p.status(0, "GET", "/v1/rooms/"+org(p)+"/chatMessages?limit=5&skip=1000", nil) != 200
		},
		// search
		"search-ascii-fold-query": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "crème ÉCLAIRZOR brûlée")
			return !hasID(p.page(0, p.desc.WriteRoom, "q="+url.QueryEscape("ÉCLAIRZOR")), m.ID)
		},
		"search-plus-not-space": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "alpha zebrafoo gamma betaqux")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=zebrafoo+betaqux"), m.ID)
		},
		// one message, room scope
		"get-one-cached": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "before")
			p.one(0, p.desc.WriteRoom, m.ID)
			p.edit(0, p.desc.WriteRoom, m.ID, "after")
			return p.one(0, p.desc.WriteRoom, m.ID).Text != "after"
		},
		"edit-any-room": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "lives in the write room")
			return p.status(0, "PUT", "/v1/rooms/"+org(p)+"/chatMessages/"+m.ID, map[string]any{"text": "moved?"})/100 == 2
		},
		"around-other-room": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "anchor elsewhere")
			st, _, body := p.raw(0, "GET", "/v1/rooms/"+org(p)+"/chatMessages?limit=3&aroundId="+m.ID, nil, nil)
			return st == 200 && strings.Contains(string(body), m.ID)
		},
		// send
		"send-status-present-true": func(p *probe) bool {
			return p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "plain words", "status": false})["status"] != false
		},
		"send-repeat-dropped": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "same again")
			m := p.say(0, p.desc.WriteRoom, "same again")
			return p.status(0, "GET", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages/"+m.ID, nil) != 200
		},
		"send-status-without-text": func(p *probe) bool {
			return p.status(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"status": true})/100 == 2
		},
		"send-text-bytes-cut": func(p *probe) bool {
			text := strings.Repeat("é", 3000)
			m := p.say(0, p.desc.WriteRoom, text)
			return p.one(0, p.desc.WriteRoom, m.ID).Text != text
		},
		// edit
		"edit-same-text-no-bump": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "steady")
			return p.edit(0, p.desc.WriteRoom, m.ID, "steady").V != 2
		},
		"edit-answers-newest": func(p *probe) bool {
			a := p.say(0, p.desc.WriteRoom, "first")
			p.say(0, p.desc.WriteRoom, "second")
			e := p.edit(0, p.desc.WriteRoom, a.ID, "first, edited")
			return e.ID != a.ID || e.Text != "first, edited"
		},
		"editedat-unzoned-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "to be edited")
			p.edit(0, p.desc.WriteRoom, m.ID, "edited")
			return anyOf(12, func() bool {
				e := p.one(0, p.desc.WriteRoom, m.ID).EditedAt
				return e == nil || !strings.HasSuffix(*e, "Z")
			})
		},
		// rendering and metadata
		"render-escape-first-line": func(p *probe) bool {
			return strings.Contains(p.say(0, p.desc.WriteRoom, "first line\nsecond <b>line</b>").HTML, "<b>")
		},
		"render-issue-five-digits": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "see #12345 for details").HTML, `class="issue"`)
		},
		"meta-mentions-dm-empty": func(p *probe) bool {
			m := p.say(0, p.desc.HideRoom, "@"+p.desc.Users[1].Name+" are you there?")
			return len(m.Mentions) != 1 || m.Mentions[0].UserID != p.ids[1]
		},
		// transport
		"ctype-hide-plain": func(p *probe) bool {
			st, h, _ := p.raw(0, "DELETE", "/v1/user/"+p.ids[0]+"/rooms/"+p.desc.HideRoom, nil, nil)
			if st/100 != 2 {
				p.t.Fatalf("hide answered %d", st)
			}
			return h.Get("Content-Type") != "application/json; charset=utf-8"
		},
		"mark-read-body-text": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "mark me")
			st, _, body := p.raw(0, "POST", "/v1/user/"+p.ids[0]+"/rooms/"+p.desc.WriteRoom+"/unreadItems", map[string]any{"chat": []string{m.ID}}, nil)
			if st/100 != 2 {
				p.t.Fatalf("mark read answered %d", st)
			}
			return len(body) > 0 && !json.Valid(body)
		},
	}
}

// TestHeldOut3DefectsAreVisible checks that every defect of the third
// held-out set changes something a client can observe, and that the clean
// server does not show it.
func TestHeldOut3DefectsAreVisible(t *testing.T) {
	if n := len(HeldOut3()); n < 40 {
		t.Fatalf("%d defects in the third held-out set, want at least 40", n)
	}
	checkVisible(t, HeldOut3(), heldOut3Detectors())
}

func TestHeldOut3Catalogue(t *testing.T) {
	checkLaterCatalogue(t, "HeldOut3", HeldOut3(), HeldOut(), HeldOut2())
}

// checkLaterCatalogue checks a held-out set written after others: sorted
// by name, each name once and in no earlier set nor the original
// catalogue, described, under a core and checkable requirement, accepted
// by Start, and not listed by Defects().
func checkLaterCatalogue(t *testing.T, name string, held []HeldOutDefect, earlierSets ...[]HeldOutDefect) {
	t.Helper()
	if !sort.SliceIsSorted(held, func(i, j int) bool { return held[i].Name < held[j].Name }) {
		t.Fatal(name + " is not sorted by name")
	}
	earlier := map[string]bool{}
	for _, set := range earlierSets {
		for _, d := range set {
			earlier[d.Name] = true
		}
	}
	usable := coreRequirements(t)
	seen := map[string]bool{}
	for _, d := range held {
		if seen[d.Name] {
			t.Errorf("held-out defect %s listed twice", d.Name)
		}
		seen[d.Name] = true
		if _, clash := defectCatalogue[d.Name]; clash {
			t.Errorf("held-out defect %s also in the original catalogue", d.Name)
		}
		if earlier[d.Name] {
			t.Errorf("held-out defect %s also in an earlier held-out set", d.Name)
		}
		if d.What == "" {
			t.Errorf("held-out defect %s has no description", d.Name)
		}
		if !usable[d.Requirement] {
			t.Errorf("%s: %q is not a core, checkable requirement", d.Name, d.Requirement)
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
	for n := range Defects() {
		if seen[n] {
			t.Errorf("Defects() lists held-out defect %s", n)
		}
	}
}
