package history

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// send observes a 2xx send by user (0-based) of the request body req,
// answered with m.
func send(h *hist, start, end float64, user int, req string, m M) {
	h.ex(start, end, user, "POST", r1, 200, req, m.String())
}

func TestSendAnswer(t *testing.T) {
	runCases(t, []historyCase{
		{name: "a send answered as the document says", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1"})
			send(h, 20, 30, 1, `{"text":"hello m2","status":false}`, M{ID: "m2", From: "u2"})
			send(h, 40, 50, 0, `{"text":"hello m3","status":true}`, M{ID: "m3", Extra: `,"status":true`})
			h.get(60, 70, 1, r1+"?limit=5", page(M{ID: "m1", ReadBy: 0, Unread: true}, M{ID: "m2", From: "u2"}, M{ID: "m3", Extra: `,"status":true`}))
		}},
		{name: "one send in ten answers unread true", run: func(h *hist) {
			for i := range 10 {
				id := fmt.Sprintf("m%d", i)
				send(h, float64(i*20), float64(i*20+10), 0, `{"text":"hello `+id+`"}`, M{ID: id, Unread: i == 7})
			}
		}, want: []string{MsgSendDefaults}},
		{name: "a send answers readBy 1", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1", ReadBy: 1})
		}, want: []string{MsgSendDefaults}},
		{name: "a send answers v 2 with editedAt null: the v is wrong, not editedAt", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1", V: 2, EditedAt: "-", Extra: `,"editedAt":null`})
		}, want: []string{MsgSendDefaults}},
		{name: "a send answers editedAt set", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1", EditedAt: "2026-11-02T08:01:00Z"})
		}, want: []string{MsgSendEditedAtNull}},
		{name: "a send answers another text", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"  hello m1 "}`, M{ID: "m1", Text: "hello m1"})
		}, want: []string{MsgSendText}},
		{name: "a send answers the text sent, written with other escapes", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"  \u00e9 \"q\" & <b> \ud83c\udf89 "}`, M{ID: "m1", Text: "  é \"q\" & <b> 🎉 ", HTML: "  é &quot;q&quot; &amp; &lt;b&gt; 🎉 "})
		}},
		{name: "a send answers another user as fromUser", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"})
		}, want: []string{MsgSendText}},
		{name: "two tokens answered as one user: the current user is wrong, and no sender is judged by it", run: func(h *hist) {
			h.get(-96, -95, 2, "/v1/user", `[{"id":"u1","username":"ada","displayName":"Ada","url":"/ada"}]`)
			send(h, 0, 10, 2, `{"text":"hello m1"}`, M{ID: "m1", From: "u3"})
			send(h, 20, 30, 0, `{"text":"hello m2"}`, M{ID: "m2", From: "u3"})
		}},
		{name: "one token answered as two users: no longer known", run: func(h *hist) {
			h.get(-96, -95, 1, "/v1/user", `[{"id":"u1","username":"ada","displayName":"Ada","url":"/ada"}]`)
			send(h, 0, 10, 1, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"})
		}},
		{name: "tokens answered as other users than described: the current user is wrong, and no sender is judged by it",
			opt: Options{UserIDs: []string{"u2", "u3"}}, run: func(h *hist) {
				send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"})
				send(h, 20, 30, 1, `{"text":"hello m2"}`, M{ID: "m2", From: "u3"})
			}},
		{name: "tokens answered as the users described: senders are judged", opt: Options{UserIDs: []string{"u1", ""}}, run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"})
			send(h, 20, 30, 1, `{"text":"hello m2"}`, M{ID: "m2", From: "u1"})
		}, want: []string{MsgSendText, MsgSendText}},
		{name: "a send of a token no GET /v1/user named is not held to its sender", run: func(h *hist) {
			send(h, 0, 10, 2, `{"text":"hello m1"}`, M{ID: "m1", From: "u2"})
		}},
		{name: "a deliberately invalid request is not held to what it asked", run: func(h *hist) {
			h.c.Observe(observed(0, 10, 0, "POST", r1, 200, `{"text":"x","text":"hello m1","status":"yes"}`, M{ID: "m9", From: "u2", Text: "y"}.String(), true))
		}},
		{name: "status true asked, status false answered", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1","status":true}`, M{ID: "m1", Extra: `,"status":false`})
		}, want: []string{MsgSendStatus}},
		{name: "status true asked, no status answered", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1","status":true}`, M{ID: "m1"})
		}, want: []string{MsgSendStatus}},
		{name: "no status asked, status true answered", run: func(h *hist) {
			send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1", Extra: `,"status":true`})
		}, want: []string{MsgSendStatus}},
		{name: "status false asked, status true answered", run: func(h *hist) {
			send(h, 0, 10, 0, `{"status":false,"text":"hello m1"}`, M{ID: "m1", Extra: `,"status":true`})
		}, want: []string{MsgSendStatus}},
		{name: "status false asked, status left out or null", run: func(h *hist) {
			send(h, 0, 10, 0, `{"status":false,"text":"hello m1"}`, M{ID: "m1"})
			send(h, 20, 30, 0, `{"text":"hello m2"}`, M{ID: "m2", Extra: `,"status":null`})
		}},
		{name: "a refused send is not an answer", run: func(h *hist) {
			h.ex(0, 10, 0, "POST", r1, 400, `{"text":"hello m1"}`, M{ID: "m1", Unread: true, V: 3}.String())
		}},
	})
}

func TestEditAnswer(t *testing.T) {
	sendM1 := func(h *hist) { send(h, 0, 10, 0, `{"text":"a"}`, M{ID: "m1", Text: "a"}) }
	edit := func(h *hist, req string, m M) { h.ex(20, 30, 0, "PUT", r1+"/m1", 200, req, m.String()) }
	runCases(t, []historyCase{
		{name: "an edit answered with the new text, editedAt and v 2", run: func(h *hist) {
			sendM1(h)
			edit(h, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2})
		}},
		{name: "an edit answers the old text", run: func(h *hist) {
			sendM1(h)
			edit(h, `{"text":"b"}`, M{ID: "m1", Text: "a", V: 2})
		}, want: []string{MsgEdit}},
		{name: "an edit answers editedAt null", run: func(h *hist) {
			sendM1(h)
			edit(h, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2, EditedAt: "-", Extra: `,"editedAt":null`})
		}, want: []string{MsgEditEditedAt}},
		{name: "an edit answers v 1 with editedAt set: the v is wrong, not editedAt", run: func(h *hist) {
			edit(h, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 1, EditedAt: "2026-11-02T08:01:00Z"})
		}, want: []string{MsgEditVInc}},
		{name: "a refused edit, and an invalid one, are not held to the text", run: func(h *hist) {
			sendM1(h)
			h.ex(20, 30, 1, "PUT", r1+"/m1", 403, `{"text":"z"}`, M{ID: "m1", Text: "a"}.String())
			h.c.Observe(observed(40, 50, 0, "PUT", r1+"/m1", 200, `{"text":"q","extra":1}`, M{ID: "m1", Text: "a", V: 2}.String(), true))
		}},
	})
}

func TestRenderEscape(t *testing.T) {
	msg := func(h *hist, text, html string) {
		h.get(0, 10, 0, r1+"?limit=5", page(M{ID: "m0"}, M{ID: "m1", Text: text, HTML: html}))
	}
	const link = `https://x.test/?a=1&b=2`
	runCases(t, []historyCase{
		{name: "& left bare inside link text", run: func(h *hist) {
			msg(h, "see "+link, `see <a href="https://x.test/?a=1&amp;b=2" class="link">https://x.test/?a=1&b=2</a>`)
		}, want: []string{RenderEscape}},
		{name: "& left bare inside an attribute", run: func(h *hist) {
			msg(h, "see "+link, `see <a href="https://x.test/?a=1&b=2" class="link">https://x.test/?a=1&amp;b=2</a>`)
		}, want: []string{RenderEscape}},
		{name: "& left bare in text", run: func(h *hist) { msg(h, "1 & 2", "1 & 2") }, want: []string{RenderEscape}},
		{name: "& at the end, and an unterminated reference", run: func(h *hist) {
			msg(h, "AT&T", "AT&T")
			h.get(20, 30, 0, r1+"/m2", M{ID: "m2", Text: "a &amp", HTML: "a &amp"}.String())
		}, want: []string{RenderEscape, RenderEscape}},
		{name: "< left bare", run: func(h *hist) { msg(h, "1 < 2", "1 < 2") }, want: []string{RenderEscape}},
		{name: "</ and <! left bare", run: func(h *hist) {
			msg(h, "a </ b", "a </ b")
			h.get(20, 30, 0, r1+"/m2", M{ID: "m2", Text: "<!x>", HTML: "<!x>"}.String())
		}, want: []string{RenderEscape, RenderEscape}},
		{name: "a script element the text spells", run: func(h *hist) {
			msg(h, `hi <SCRIPT src=x></SCRIPT>`, `hi <script src="x"></script>`)
		}, want: []string{RenderEscape}},
		{name: "an event handler attribute the text spells", run: func(h *hist) {
			msg(h, `<img src=x onerror=alert(1)>`, `<img src="x" onerror="alert(1)">`)
		}, want: []string{RenderEscape}},
		{name: "one message in ten with a bare &, in a page", run: func(h *hist) {
			var ms []M
			for i := range 10 {
				m := M{ID: fmt.Sprintf("p%d", i), Text: "fish & chips", HTML: "fish &amp; chips"}
				if i == 6 {
					m.HTML = "fish & chips"
				}
				ms = append(ms, m)
			}
			h.get(0, 10, 0, r1+"?limit=10", page(ms...))
		}, want: []string{RenderEscape}},
		{name: "escaped as the document says, whatever the flavour", run: func(h *hist) {
			msg(h, "see "+link+` & <b>x</b> 1 < 2 > 0 "q" &copy; &#60;`,
				`<p>see <a href="https://x.test/?a=1&amp;b=2" class="link">https://x.test/?a=1&amp;b=2</a> &amp; &lt;b&gt;x&lt;/b&gt; 1 &#60; 2 > 0 "q" &copy; &#x3C;</p>`)
			h.get(20, 30, 0, r1+"/m2", M{ID: "m2", Text: "*a* **b** ![i](a.png) - [ ] t <script>", HTML: "<ul><li><input type=\"checkbox\" disabled> <em>a</em> <strong>b</strong> <img src='a.png' alt=i title=\"x<y>\"></li></ul>\n&lt;script&gt;"}.String())
			h.get(40, 50, 0, r1+"/m3", M{ID: "m3", Text: "<div>x</div>", HTML: "<!-- raw HTML omitted -->x<!-- raw HTML omitted -->"}.String())
			h.get(60, 70, 0, r1+"/m4", M{ID: "m4", Text: "onerror is a word, <b>bold</b>", HTML: "onerror is a word, <b>bold</b>"}.String()) // an element markdown may yield: not judged here
			h.get(80, 90, 0, r1+"/m5", M{ID: "m5", Text: "<3", HTML: "&lt;3"}.String())
		}},
		{name: "a script element no text spells is not this rule's", run: func(h *hist) {
			msg(h, "plain", `plain<script>x()</script>`)
		}},
	})
}

func TestEscapeCheckPositions(t *testing.T) {
	for _, tc := range []struct {
		text, html string
		kind       int8
		at         int
	}{
		{"", "", escOK, 0},
		{"", "a&b", escAmp, 1},
		{"", "&#;", escAmp, 0},
		{"", "&#x;", escAmp, 0},
		{"", "&#X1f;&amp;&a1;", escOK, 0},
		{"", "<a title='&'>", escAmp, 10},
		{"", "<", escLT, 0},
		{"", "<a href=\"<x>\">y</a> <", escLT, 20},
		{"<style>", "<style>", escElement, 0},
		{"<style>", "<styles>", escOK, 0},
		{"<i onclick=x>", "<i class=a onclick=x>", escHandler, 0},
	} {
		got := escapeCheck([]byte(tc.text), []byte(tc.html))
		if got.kind != tc.kind || got.kind != escOK && got.at != tc.at {
			t.Errorf("escapeCheck(%q, %q) = kind %d at %d, want %d at %d", tc.text, tc.html, got.kind, got.at, tc.kind, tc.at)
		}
	}
}

func TestRoomKinds(t *testing.T) {
	list := func(h *hist, start float64, user int, path, body string) { h.get(start, start+5, user, path, body) }
	const dm = `{"id":"d1","oneToOne":true,"platformType":"ONETOONE","url":"/bob","user":{"id":"u2","username":"bob","url":"/bob"}}`
	const org = `{"id":"o1","oneToOne":false,"platformType":"ORG","uri":"org","url":"/org","userCount":3,"security":"PUBLIC"}`
	const ch = `{"id":"c1","oneToOne":false,"platformType":"USER_CHANNEL","uri":"ada/c","url":"/ada/c","security":"PUBLIC"}`
	runCases(t, []historyCase{
		{name: "rooms of every kind, in every list, as the document says", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/rooms", "["+dm+","+org+","+ch+"]")
			list(h, 10, 0, "/v1/user/u1/channels", "["+ch+"]")
			list(h, 20, 0, "/v1/user/me/orgs", `[{"id":1,"name":"org","avatar_url":"https://a.test/o","room":`+org+`}]`)
			list(h, 30, 1, "/v1/user/me/rooms", `[{"id":"d1","oneToOne":true,"url":"/ada","user":{"id":"u1","username":"ada","url":"/ada"}}]`)
			list(h, 40, 0, "/v1/user/me/repos", `[{"id":2,"name":"r","uri":"a/r","private":false,"room":{"id":"o1"}}]`)
		}},
		{name: "a one-to-one room with a uri", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/rooms", `[{"id":"d1","oneToOne":true,"platformType":"ONETOONE","uri":"bob","url":"/bob"}]`)
		}, want: []string{RoomOneToOne}},
		{name: "a uri on a room another answer shows one-to-one", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/rooms", "["+dm+"]")
			list(h, 10, 1, "/v1/user/me/rooms", `[{"id":"d1","uri":"ada","url":"/ada"}]`)
		}, want: []string{RoomOneToOne}},
		{name: "oneToOne and platformType disagree in one room", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/rooms", `[{"id":"o1","oneToOne":true,"platformType":"ORG","url":"/org"}]`)
		}, want: []string{RoomOneToOne}},
		{name: "oneToOne and platformType disagree across lists", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/rooms", `[{"id":"o1","oneToOne":true,"url":"/org"}]`)
			list(h, 10, 0, "/v1/user/me/orgs", `[{"id":1,"name":"org","avatar_url":"https://a.test/o","room":{"id":"o1","platformType":"ORG"}}]`)
		}, want: []string{RoomOneToOne}},
		{name: "a one-to-one room whose user is the caller", run: func(h *hist) {
			list(h, 0, 1, "/v1/user/me/rooms", "["+dm+"]")
		}, want: []string{RoomOneToOne}},
		{name: "a channel giving the caller as its user: not one-to-one, so only that", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/channels", `[{"id":"c1","platformType":"USER_CHANNEL","security":"PUBLIC","user":{"id":"u1","username":"ada","url":"/ada"}}]`)
		}, want: []string{RoomUserOnly}},
		{name: "a list of another user's rooms is not judged for the other participant", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/u2/rooms", "["+dm+"]")
		}},
		{name: "an organisation's room with a user", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/orgs", `[{"id":1,"name":"org","avatar_url":"https://a.test/o","room":{"id":"o1","platformType":"ORG","user":{"id":"u2","username":"bob","url":"/bob"}}}]`)
		}, want: []string{RoomUserOnly}},
		{name: "a user on a room another list shows is not one-to-one", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/rooms", "["+org+"]")
			list(h, 10, 0, "/v1/user/me/repos", `[{"id":2,"name":"r","uri":"a/r","private":false,"room":{"id":"o1","user":{"id":"u2","username":"bob","url":"/bob"}}}]`)
		}, want: []string{RoomUserOnly}},
		{name: "a channel with userCount in the rooms list", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/rooms", `[{"id":"c1","platformType":"USER_CHANNEL","userCount":2,"security":"PUBLIC"}]`)
		}, want: []string{ChannelNoUserCount}},
		{name: "a channel with userCount in the channels list is the document checker's", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/channels", `[{"id":"c1","platformType":"USER_CHANNEL","userCount":2}]`)
		}},
		{name: "a channel without security in the rooms list", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/channels", "["+ch+"]")
			list(h, 10, 0, "/v1/user/me/rooms", `[{"id":"c1","platformType":"USER_CHANNEL"}]`)
		}, want: []string{ChannelSecurity}},
		{name: "a room whose kind changes is ROOM-STABLE's, not judged further", run: func(h *hist) {
			list(h, 0, 0, "/v1/user/me/rooms", `[{"id":"o1","platformType":"ORG","uri":"o"}]`)
			list(h, 10, 1, "/v1/user/me/rooms", `[{"id":"o1","platformType":"ONETOONE","uri":"o"}]`)
		}, want: []string{RoomStable}},
		{name: "every kind rule broken once in a hundred rooms", run: func(h *hist) {
			var rooms []string
			for i := range 100 {
				rooms = append(rooms, fmt.Sprintf(`{"id":"o%d","platformType":"ORG","url":"/o%d"}`, i, i))
			}
			rooms[37] = `{"id":"o37","platformType":"ORG","url":"/o37","user":{"id":"u2","username":"bob","url":"/bob"}}`
			list(h, 0, 0, "/v1/user/me/rooms", "["+strings.Join(rooms, ",")+"]")
		}, want: []string{RoomUserOnly}},
	})
}

func TestSenderUnread(t *testing.T) {
	sendM1 := func(h *hist) { send(h, 0, 10, 0, `{"text":"hello m1"}`, M{ID: "m1"}) }
	runCases(t, []historyCase{
		{name: "the sender reads its message as unread long after the send", run: func(h *hist) {
			sendM1(h)
			h.get(8000, 8010, 0, r1+"?limit=5", page(M{ID: "m1", Unread: true}))
		}, want: []string{UnreadFlag}},
		{name: "the sender finds its message in its unread list", run: func(h *hist) {
			sendM1(h)
			h.get(8000, 8010, 0, "/v1/user/me/rooms/r1/unreadItems", `{"chat":["m1"],"mention":[]}`)
		}, want: []string{UnreadFlag}},
		{name: "within Eventually of the send", run: func(h *hist) {
			sendM1(h)
			h.get(100, 110, 0, r1+"/m1", M{ID: "m1", Unread: true}.String())
		}},
		{name: "unread for another user", run: func(h *hist) {
			sendM1(h)
			h.get(8000, 8010, 1, r1+"/m1", M{ID: "m1", Unread: true}.String())
		}},
		{name: "after another user edited it", run: func(h *hist) {
			sendM1(h)
			h.ex(20, 30, 1, "PUT", r1+"/m1", 200, `{"text":"b"}`, M{ID: "m1", Text: "b", V: 2}.String())
			h.get(8000, 8010, 0, r1+"/m1", M{ID: "m1", Text: "b", V: 2, Unread: true}.String())
		}},
		{name: "shared: not judged", opt: Options{Shared: true}, run: func(h *hist) {
			sendM1(h)
			h.get(8000, 8010, 0, r1+"/m1", M{ID: "m1", Unread: true}.String())
		}},
	})
}

// A check never changes what the next one finds.
func TestCheckTwice(t *testing.T) {
	h := newHist(Options{Eventually: time.Millisecond})
	h.users()
	h.get(0, 5, 0, "/v1/user/me/rooms", `[{"id":"o1","platformType":"ORG","user":{"id":"u2","username":"bob","url":"/bob"}}]`)
	check(t, h, RoomUserOnly)
	check(t, h, RoomUserOnly)
}
