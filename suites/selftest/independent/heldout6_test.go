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

// quietSend posts text to room as user i from any goroutine and returns the
// id of the message the answer carries; it reports failure instead of
// stopping the test.
func (p *probe) quietSend(i int, room, text string) (string, error) {
	b, _ := json.Marshal(map[string]any{"text": text})
	req, err := http.NewRequest("POST", p.srv.BaseURL+"/v1/rooms/"+room+"/chatMessages", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+p.desc.Users[i].Token)
	resp, err := p.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", errors.New("send answered " + resp.Status + ": " + string(raw))
	}
	var m wireMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", err
	}
	return m.ID, nil
}

// sendTogether sends one message as user 0 and one as user 1 into room at the
// same moment and returns their ids.
func (p *probe) sendTogether(room string) []string {
	var wg sync.WaitGroup
	start := make(chan struct{})
	got := make([]string, 2)
	errs := make([]error, 2)
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			<-start
			got[k], errs[k] = p.quietSend(k, room, "at the same time, number "+itoa(k))
		}(k)
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			p.t.Fatal(err)
		}
	}
	return got
}

// oneObject reads message id of room as user i, decoded as an object.
func (p *probe) oneObject(i int, room, id string) map[string]any {
	var m map[string]any
	p.do(i, "GET", "/v1/rooms/"+room+"/chatMessages/"+id, nil, 200, &m)
	return m
}

func heldOut6Detectors() map[string]func(p *probe) bool {
	userPath := func(p *probe, i int, rest string) string { return "/v1/user/" + p.ids[i] + rest }
	count := func(r map[string]any, field string) int { return int(r[field].(float64)) }
	return map[string]func(p *probe) bool{
		// authentication and the current user
		"auth-lockout-after-bad-token": func(p *probe) bool {
			p.raw(-1, "GET", "/v1/user", nil, func(r *http.Request) { r.Header.Set("Authorization", "Bearer tok_never_issued") })
			return p.status(0, "GET", "/v1/user", nil) != 200
		},
		"auth-query-token-flaky": func(p *probe) bool {
			return anyOf(10, func() bool { return p.status(-1, "GET", "/v1/user?"+queryToken(p, 0), nil) != 200 })
		},
		"send-query-auth-fromuser-owner": func(p *probe) bool {
			var m map[string]any
			p.do(-1, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages?"+queryToken(p, 1), map[string]any{"text": "sent with the query token"}, 200, &m)
			return m["fromUser"].(map[string]any)["id"] != p.ids[1]
		},
		"auth-anonymous-edit-as-author": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "mine alone")
			return p.status(-1, "PUT", msgPath(p.desc.WriteRoom, m.ID), map[string]any{"text": "changed by nobody"})/100 == 2
		},
		"me-username-displayname-swapped": func(p *probe) bool {
			return p.meAs(0)[0]["username"] != userName(p, 0)
		},
		// rooms list and room fields
		"room-dm-url-no-slash": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/rooms")) {
				if !strings.HasPrefix(r["url"].(string), "/") {
					return true
				}
			}
			return false
		},
		"room-usercount-string": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/rooms")) {
				if n, has := r["userCount"]; has {
					if _, isNumber := n.(float64); !isNumber {
						return true
					}
				}
			}
			return false
		},
		"room-kind-one-to-one-underscored": func(p *probe) bool {
			for _, r := range p.rooms(0) {
				switch r.PlatformType {
				case kindOneToOne, kindOrg, kindRepo, kindChannel:
				default:
					return true
				}
			}
			return false
		},
		"rooms-org-owner-only": func(p *probe) bool {
			return !p.listed(1, orgRoom(p))
		},
		"send-touch-previous-message": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "first visit")
			time.Sleep(5 * time.Millisecond)
			m := p.say(0, p.desc.WriteRoom, "second visit")
			return p.roomEntry(0, p.desc.WriteRoom)["lastAccessTime"].(string) < m.Sent
		},
		"room-count-skips-status": func(p *probe) bool {
			p.post(1, p.desc.WriteRoom, map[string]any{"text": "/me stretches", "status": true})
			return count(p.roomEntry(0, p.desc.WriteRoom), "unreadItems") != len(p.unread(0, p.desc.WriteRoom).Chat)
		},
		"unread-list-all-rooms": func(p *probe) bool {
			return count(p.roomEntry(0, p.desc.WriteRoom), "unreadItems") != len(p.unread(0, p.desc.WriteRoom).Chat)
		},
		// hiding
		"hide-dm-hides-shared-rooms": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			return !p.listed(0, p.desc.WriteRoom)
		},
		"hide-filter-skipped-flaky": func(p *probe) bool {
			p.hide(0, p.desc.HideRoom)
			return anyOf(12, func() bool { return p.listed(0, p.desc.HideRoom) })
		},
		// organisations, repositories, channels
		"org-name-from-room": func(p *probe) bool {
			for _, o := range p.objects(0, userPath(p, 0, "/orgs")) {
				if _, isString := o["name"].(string); !isString {
					return true
				}
			}
			return false
		},
		"repo-uri-from-room": func(p *probe) bool {
			for _, r := range p.objects(0, userPath(p, 0, "/repos")) {
				if _, isString := r["uri"].(string); !isString {
					return true
				}
			}
			return false
		},
		"repo-grant-of-last-lister": func(p *probe) bool {
			p.objects(0, userPath(p, 0, "/repos"))
			for _, r := range p.objects(1, userPath(p, 1, "/repos")) {
				if r["private"] == true {
					return true
				}
			}
			return false
		},
		"channel-security-as-flag": func(p *probe) bool {
			chans := p.objects(0, userPath(p, 0, "/channels"))
			if len(chans) == 0 {
				p.t.Fatal("user 0 has no channel")
			}
			for _, c := range chans {
				if s, has := c["security"]; has {
					if _, isString := s.(string); !isString {
						return true
					}
				}
			}
			return false
		},
		// unread items and marking read
		"unread-mention-needs-following-space": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "thanks @"+userName(p, 0))
			return !within(p.unread(0, p.desc.WriteRoom).Mention, m.ID)
		},
		"unread-mention-dropped-flaky": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "@"+userName(p, 0)+" have a look")
			return anyOf(8, func() bool { return !within(p.unread(0, p.desc.WriteRoom).Mention, m.ID) })
		},
		"unread-mention-omitted-empty": func(p *probe) bool {
			var u map[string]any
			p.do(0, "GET", userPath(p, 0, "/rooms/"+p.desc.WriteRoom+"/unreadItems"), nil, 200, &u)
			_, isList := u["mention"].([]any)
			return !isList
		},
		"mark-read-toggles": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "read me once")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"mark-read-mention-stays-chat": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "@"+userName(p, 0)+" please read this")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		"readby-list-counter-stale": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "count my readers")
			p.page(1, p.desc.WriteRoom, "limit=5")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			return count(p.listObject(1, p.desc.WriteRoom, m.ID), "readBy") != 1
		},
		"search-unread-flag-indexed": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "a zorbquux appears")
			p.markRead(0, p.desc.WriteRoom, []string{m.ID})
			for _, x := range p.page(0, p.desc.WriteRoom, "q=zorbquux") {
				if x.ID == m.ID {
					return x.Unread
				}
			}
			p.t.Fatal("the search did not find the message")
			return false
		},
		"list-newest-marks-read": func(p *probe) bool {
			m := p.say(1, p.desc.WriteRoom, "unread until marked")
			p.page(0, p.desc.WriteRoom, "limit=5")
			return !within(p.unread(0, p.desc.WriteRoom).Chat, m.ID)
		},
		// send
		"send-status-me-stripped": func(p *probe) bool {
			text := "/me waves at everyone"
			return p.post(0, p.desc.WriteRoom, map[string]any{"text": text, "status": true}).Text != text
		},
		"send-answer-fromuser-last-sender": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "first in line")
			m := p.sendRaw(1, p.desc.WriteRoom, map[string]any{"text": "second in line"})
			return m["fromUser"].(map[string]any)["id"] != p.ids[1]
		},
		"send-concurrent-lost-update": func(p *probe) bool {
			for attempt := 0; attempt < 3; attempt++ {
				for k, id := range p.sendTogether(p.desc.WriteRoom) {
					if p.status(k, "GET", msgPath(p.desc.WriteRoom, id), nil) != 200 {
						return true
					}
				}
			}
			return false
		},
		"editedat-empty-string-new": func(p *probe) bool {
			return p.sendRaw(0, p.desc.WriteRoom, map[string]any{"text": "fresh"})["editedAt"] != nil
		},
		"edit-clears-status": func(p *probe) bool {
			m := p.post(0, p.desc.WriteRoom, map[string]any{"text": "/me stretches", "status": true})
			p.edit(0, p.desc.WriteRoom, m.ID, "/me stretches again")
			return p.oneObject(0, p.desc.WriteRoom, m.ID)["status"] != true
		},
		// one message
		"get-one-neighbour-flaky": func(p *probe) bool {
			p.say(0, p.desc.WriteRoom, "the one before")
			m := p.say(0, p.desc.WriteRoom, "the one named")
			return anyOf(14, func() bool { return p.one(0, p.desc.WriteRoom, m.ID).ID != m.ID })
		},
		"get-one-metadata-not-loaded": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "@"+userName(p, 1)+" see #12 and https://example.com/x")
			return len(p.one(0, p.desc.WriteRoom, m.ID).Mentions) != 1
		},
		// edit
		"edit-missing-text-noop-200": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "keep me")
			return p.status(0, "PUT", msgPath(p.desc.WriteRoom, m.ID), map[string]any{})/100 == 2
		},
		"edit-html-stale": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "nothing special")
			return !strings.Contains(p.edit(0, p.desc.WriteRoom, m.ID, "@"+userName(p, 1)+" look now").HTML, `class="mention"`)
		},
		"editedat-first-edit-kept": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "one")
			first := p.edit(0, p.desc.WriteRoom, m.ID, "two")
			time.Sleep(15 * time.Millisecond)
			second := p.edit(0, p.desc.WriteRoom, m.ID, "three")
			return first.EditedAt == nil || second.EditedAt == nil || *second.EditedAt == *first.EditedAt
		},
		"edit-answer-v-not-raised": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "v1")
			return p.edit(0, p.desc.WriteRoom, m.ID, "v2").V != 2
		},
		"edit-lost-flaky": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "start")
			for k := 0; k < 10; k++ {
				text := "edit number " + itoa(k)
				p.edit(0, p.desc.WriteRoom, m.ID, text)
				if p.one(0, p.desc.WriteRoom, m.ID).Text != text {
					return true
				}
			}
			return false
		},
		"edit-text-escaped-stored": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "plain")
			text := "a < b & c"
			return p.edit(0, p.desc.WriteRoom, m.ID, text).Text != text
		},
		"edit-hits-next-message": func(p *probe) bool {
			a := p.say(0, p.desc.WriteRoom, "first draft")
			p.say(0, p.desc.WriteRoom, "second line")
			p.edit(0, p.desc.WriteRoom, a.ID, "first, revised")
			return p.one(0, p.desc.WriteRoom, a.ID).Text != "first, revised"
		},
		"edit-issues-accumulate": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "fixes #11")
			e := p.edit(0, p.desc.WriteRoom, m.ID, "fixes #12")
			return len(e.Issues) != 1 || e.Issues[0].Number != "12"
		},
		// message list, cursors and limits
		"around-limit-one-empty": func(p *probe) bool {
			a := midMessage(p)
			return !hasID(p.page(0, orgRoom(p), "limit=1&aroundId="+a.ID), a.ID)
		},
		"before-anchor-counted-in-limit": func(p *probe) bool {
			return p.walk(0, orgRoom(p)) != 320
		},
		"before-sorted-ascending-limit": func(p *probe) bool {
			return p.walk(0, orgRoom(p)) != 320
		},
		"skip-twice-with-before": func(p *probe) bool {
			room := orgRoom(p)
			m := p.page(0, room, "limit=1&skip=20")[0]
			return overlap(p.page(0, room, "limit=3&skip=3&beforeId="+m.ID), p.page(0, room, "limit=6&beforeId="+m.ID)) != 3
		},
		"before-dropped-with-skip": func(p *probe) bool {
			room := orgRoom(p)
			m := p.page(0, room, "limit=1&skip=20")[0]
			newer := ids(p.page(0, room, "limit=20"))
			for _, x := range p.page(0, room, "limit=3&skip=1&beforeId="+m.ID) {
				if newer[x.ID] || x.ID == m.ID {
					return true
				}
			}
			return false
		},
		"before-limit-capped-50": func(p *probe) bool {
			room := orgRoom(p)
			newest := p.page(0, room, "limit=1")[0]
			return len(p.page(0, room, "limit=100&beforeId="+newest.ID)) != 100
		},
		"skip-bound-includes-limit": func(p *probe) bool {
			return p.status(0, "GET", "/v1/rooms/"+orgRoom(p)+"/chatMessages?limit=10&skip=4995", nil) != 200
		},
		"limit-skips-status": func(p *probe) bool {
			for k := 0; k < 3; k++ {
				p.say(0, p.desc.WriteRoom, "plain line "+itoa(k))
			}
			for k := 0; k < 3; k++ {
				p.post(0, p.desc.WriteRoom, map[string]any{"text": "/me hums " + itoa(k), "status": true})
			}
			return len(p.page(0, p.desc.WriteRoom, "limit=3")) > 3
		},
		"after-compares-ids": func(p *probe) bool {
			a := midMessage(p)
			for _, x := range p.page(0, orgRoom(p), "limit=20&afterId="+a.ID) {
				if x.Sent < a.Sent {
					return true
				}
			}
			return false
		},
		"search-answer-envelope": func(p *probe) bool {
			st, _, body := p.raw(0, "GET", "/v1/rooms/"+orgRoom(p)+"/chatMessages?q=build", nil, nil)
			return st != 200 || !bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
		},
		// search
		"search-skips-own-messages": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "a quillfeather report")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=quillfeather"), m.ID)
		},
		"search-token-keeps-punctuation": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "we met the marmoset, then left")
			return !hasID(p.page(0, p.desc.WriteRoom, "q=marmoset"), m.ID)
		},
		// rendering and metadata
		"render-code-span-raw": func(p *probe) bool {
			return strings.Contains(p.say(0, p.desc.WriteRoom, "try `<b>bold</b>` here").HTML, "<b>")
		},
		"render-status-plain": func(p *probe) bool {
			m := p.post(0, p.desc.WriteRoom, map[string]any{"text": "/me reads https://example.com/notes", "status": true})
			return !strings.Contains(m.HTML, `class="link"`)
		},
		"render-mention-case-sensitive": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "@"+strings.ToUpper(userName(p, 1))+" hello")
			return len(m.Mentions) == 1 && !strings.Contains(m.HTML, `class="mention"`)
		},
		"render-issue-at-start-plain": func(p *probe) bool {
			return !strings.Contains(p.say(0, p.desc.WriteRoom, "#42 is fixed now").HTML, `class="issue"`)
		},
		"meta-urls-trailing-slash-dropped": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "docs at https://example.com/docs/ today")
			return len(m.URLs) != 1 || m.URLs[0].URL != "https://example.com/docs/"
		},
		"meta-urls-from-html-escaped": func(p *probe) bool {
			m := p.say(0, p.desc.WriteRoom, "see https://example.com/?a=1&b=2 there")
			return len(m.URLs) != 1 || m.URLs[0].URL != "https://example.com/?a=1&b=2"
		},
		// transport
		"ctype-latin1-non-ascii": func(p *probe) bool {
			_, h, _ := p.raw(0, "POST", "/v1/rooms/"+p.desc.WriteRoom+"/chatMessages", map[string]any{"text": "un café crème"}, nil)
			return h.Get("Content-Type") != "application/json; charset=utf-8"
		},
		"json-empty-body-flaky": func(p *probe) bool {
			return anyOf(12, func() bool {
				st, _, body := p.raw(0, "GET", userPath(p, 0, "/rooms"), nil, nil)
				return st != 200 || !json.Valid(body)
			})
		},
	}
}

// TestHeldOut6 checks the sixth held-out set: at least 45 defects, a
// well-formed catalogue written after the other five, and every defect
// observable by a client while the clean server does not show it.
func TestHeldOut6(t *testing.T) {
	if n := len(HeldOut6()); n < 45 {
		t.Fatalf("%d defects in the sixth held-out set, want at least 45", n)
	}
	checkLaterCatalogue(t, "HeldOut6", HeldOut6(), HeldOut(), HeldOut2(), HeldOut3(), HeldOut4(), HeldOut5())
	checkVisible(t, HeldOut6(), heldOut6Detectors())
}
