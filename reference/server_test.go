package reference

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEveryOperationAnswers200WithItsDocumentedShape(t *testing.T) {
	h := newHarness(t, Config{})
	hint := h.world.Hints
	msg := h.send(0, hint.WriteRoom, "hello from the operations test")
	for _, c := range []call{
		{method: "GET", path: "/v1/user"},
		{method: "GET", path: "/v1/user/me/rooms"},
		{method: "GET", path: "/v1/user/" + h.userID(0) + "/rooms"},
		{method: "GET", path: "/v1/user/me/rooms/" + hint.OneToOne + "/unreadItems"},
		{method: "POST", path: "/v1/user/me/rooms/" + hint.OneToOne + "/unreadItems", body: `{"chat":["` + msg.ID + `"]}`},
		{method: "GET", path: "/v1/user/me/orgs"},
		{method: "GET", path: "/v1/user/me/repos"},
		{method: "GET", path: "/v1/user/me/channels"},
		{method: "GET", path: "/v1/rooms/" + hint.Org + "/chatMessages"},
		{method: "GET", path: "/v1/rooms/" + hint.WriteRoom + "/chatMessages/" + msg.ID},
		{method: "PUT", path: "/v1/rooms/" + hint.WriteRoom + "/chatMessages/" + msg.ID, body: `{"text":"edited"}`},
		{method: "DELETE", path: "/v1/user/me/rooms/" + hint.HideRoom},
	} {
		if r := h.do(c); r.status != 200 {
			t.Errorf("%s %s: %d %s", c.method, c.path, r.status, r.body)
		}
	}
}

func TestCurrentUserIsTheTokensUser(t *testing.T) {
	h := newHarness(t, Config{})
	for i := range 3 {
		var users []UserView
		h.do(call{method: "GET", path: "/v1/user", user: i}).decode(t, &users)
		if len(users) != 1 || users[0].ID != h.userID(i) || users[0].V != 0 {
			t.Errorf("user %d: got %+v", i, users)
		}
	}
}

// One row per error decision of DESIGN.md section 5.
func TestErrorRows(t *testing.T) {
	h := newHarness(t, Config{EditWindow: time.Minute})
	hint := h.world.Hints
	other := h.send(1, hint.WriteRoom, "written by user 1")
	mine := h.send(0, hint.WriteRoom, "written by user 0")
	historyMsg := h.list(0, hint.Org, "?limit=1")[0]
	notMine := "" // a room user 0 is not in
	for _, r := range h.world.Rooms {
		if !contains(r.Members, h.userID(0)) {
			notMine = r.ID
		}
	}
	msgs := "/v1/rooms/" + hint.WriteRoom + "/chatMessages"
	long := strings.Repeat("é", MaxTextUnits+1)
	astral := strings.Repeat("😀", MaxTextUnits/2) // 4096 UTF-16 units: allowed
	rows := []struct {
		name   string
		c      call
		status int
	}{
		{"no token", call{method: "GET", path: "/v1/user", user: -1}, 401},
		{"unknown token", call{method: "GET", path: "/v1/user", header: map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 40)}}, 401},
		{"token in the query", call{method: "GET", path: "/v1/user?access_token=" + h.token(0), user: -1}, 200},
		{"token in x-access-token", call{method: "GET", path: "/v1/user", user: -1, header: map[string]string{"x-access-token": h.token(0)}}, 200},
		{"same token twice", call{method: "GET", path: "/v1/user?access_token=" + h.token(0)}, 200},
		{"two different tokens", call{method: "GET", path: "/v1/user?access_token=" + h.token(1)}, 400},
		{"not a bearer header", call{method: "GET", path: "/v1/user", header: map[string]string{"Authorization": "Token " + strings.Repeat("0", 40)}}, 401},
		{"bearer without token", call{method: "GET", path: "/v1/user", header: map[string]string{"Authorization": "Bearer "}}, 401},
		{"me", call{method: "GET", path: "/v1/user/me/repos"}, 200},
		{"another user's id", call{method: "GET", path: "/v1/user/" + h.userID(1) + "/rooms"}, 403},
		{"malformed user id", call{method: "GET", path: "/v1/user/bob/rooms"}, 400},
		{"unknown room", call{method: "GET", path: "/v1/rooms/" + strings.Repeat("a", 24) + "/chatMessages"}, 404},
		{"room of which the user is no member", call{method: "GET", path: "/v1/rooms/" + notMine + "/chatMessages"}, 404},
		{"malformed room id", call{method: "GET", path: "/v1/rooms/general/chatMessages"}, 400},
		{"unknown message", call{method: "GET", path: msgs + "/" + strings.Repeat("b", 24)}, 404},
		{"message of another room", call{method: "GET", path: msgs + "/" + historyMsg.ID}, 404},
		{"malformed message id", call{method: "GET", path: msgs + "/42"}, 400},
		{"send without text", call{method: "POST", path: msgs, body: `{"status":true}`}, 400},
		{"send empty text", call{method: "POST", path: msgs, body: `{"text":""}`}, 400},
		{"send blank text", call{method: "POST", path: msgs, body: `{"text":"   "}`}, 400},
		{"send 4097 UTF-16 units", call{method: "POST", path: msgs, body: `{"text":"` + long + `"}`}, 400},
		{"send 4096 UTF-16 units", call{method: "POST", path: msgs, body: `{"text":"` + astral + `"}`}, 200},
		{"send text as a number", call{method: "POST", path: msgs, body: `{"text":5}`}, 400},
		{"send an unknown field", call{method: "POST", path: msgs, body: `{"text":"x","colour":"red"}`}, 400},
		{"send malformed JSON", call{method: "POST", path: msgs, body: `{"text":`}, 400},
		{"send two JSON values", call{method: "POST", path: msgs, body: `{"text":"a"}{"text":"b"}`}, 400},
		{"send without Content-Type", call{method: "POST", path: msgs, body: `{"text":"x"}`, header: map[string]string{"Content-Type": ""}}, 400},
		{"send as text/plain", call{method: "POST", path: msgs, body: `{"text":"x"}`, header: map[string]string{"Content-Type": "text/plain"}}, 400},
		{"edit someone else's message", call{method: "PUT", path: msgs + "/" + other.ID, body: `{"text":"mine now"}`}, 403},
		{"edit own message", call{method: "PUT", path: msgs + "/" + mine.ID, body: `{"text":"fixed"}`}, 200},
		{"edit without text", call{method: "PUT", path: msgs + "/" + mine.ID, body: `{}`}, 400},
		{"skip above 5000", call{method: "GET", path: msgs + "?skip=5001"}, 400},
		{"negative skip", call{method: "GET", path: msgs + "?skip=-1"}, 400},
		{"skip not a number", call{method: "GET", path: msgs + "?skip=ten"}, 400},
		{"negative limit", call{method: "GET", path: msgs + "?limit=-1"}, 400},
		{"limit not a number", call{method: "GET", path: msgs + "?limit=1.5"}, 400},
		{"malformed beforeId", call{method: "GET", path: msgs + "?beforeId=zzz"}, 400},
		{"mark read without chat", call{method: "POST", path: "/v1/user/me/rooms/" + hint.WriteRoom + "/unreadItems", body: `{}`}, 400},
		{"mark read with an empty chat", call{method: "POST", path: "/v1/user/me/rooms/" + hint.WriteRoom + "/unreadItems", body: `{"chat":[]}`}, 400},
		{"mark read with a malformed id", call{method: "POST", path: "/v1/user/me/rooms/" + hint.WriteRoom + "/unreadItems", body: `{"chat":["x"]}`}, 400},
		{"send with text and Text", call{method: "POST", path: msgs, body: `{"text":"a","Text":"b"}`}, 400},
		{"send with a null status", call{method: "POST", path: msgs, body: `{"text":"a","status":null}`}, 400},
		{"edit with a null text", call{method: "PUT", path: msgs + "/" + mine.ID, body: `{"text":null}`}, 400},
		{"mark read with Chat", call{method: "POST", path: "/v1/user/me/rooms/" + hint.WriteRoom + "/unreadItems", body: `{"Chat":["` + mine.ID + `"]}`}, 400},
		{"empty skip", call{method: "GET", path: msgs + "?skip="}, 400},
		{"empty limit", call{method: "GET", path: msgs + "?limit="}, 400},
		{"hide an unknown room", call{method: "DELETE", path: "/v1/user/me/rooms/" + strings.Repeat("c", 24)}, 404},
	}
	for _, row := range rows {
		row.c.invalid = row.status >= 400
		r := h.do(row.c)
		if r.status != row.status {
			t.Errorf("%s: status %d, want %d (%s)", row.name, r.status, row.status, r.body)
			continue
		}
		if row.status == http.StatusUnauthorized && r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: a 401 without a WWW-Authenticate challenge", row.name)
		}
		if row.status >= 400 {
			var body map[string]any
			r.decode(t, &body)
			if body["error"] != http.StatusText(row.status) || len(body) != 1 {
				t.Errorf("%s: body %s, want {\"error\":%q}", row.name, r.body, http.StatusText(row.status))
			}
		}
	}

	// Paths and methods outside the API get JSON too.
	for _, c := range []call{{method: "GET", path: "/v1/nowhere", offAPI: true}, {method: "GET", path: "/", offAPI: true}, {method: "PATCH", path: msgs, offAPI: true}} {
		r := h.do(c)
		if r.status != 404 && r.status != 405 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: %d %s %s", c.method, c.path, r.status, r.header.Get("Content-Type"), r.body)
		}
	}

	// The edit window closes.
	h.clock.add(2 * time.Minute)
	if r := h.do(call{method: "PUT", path: msgs + "/" + mine.ID, body: `{"text":"too late"}`, invalid: true}); r.status != 400 {
		t.Errorf("edit after the window: %d %s", r.status, r.body)
	}
}

func TestRateLimit(t *testing.T) {
	h := newHarness(t, Config{RateLimit: 3})
	for i := 1; i <= 4; i++ {
		r := h.get("/v1/user")
		want := 200
		if i == 4 {
			want = 429
		}
		if r.status != want {
			t.Fatalf("request %d: %d, want %d", i, r.status, want)
		}
		if got := r.header.Get("X-RateLimit-Remaining"); got != fmt.Sprint(max(0, 3-i)) {
			t.Errorf("request %d: remaining %q", i, got)
		}
		if r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-RateLimit-Reset") == "" {
			t.Errorf("request %d: headers %v", i, r.header)
		}
	}
	// Another user has a window of their own.
	if r := h.do(call{method: "GET", path: "/v1/user", user: 1}); r.status != 200 {
		t.Errorf("user 1 was limited by user 0's requests: %d", r.status)
	}
	h.clock.add(time.Minute)
	if r := h.get("/v1/user"); r.status != 200 {
		t.Errorf("after the window: %d", r.status)
	}
}

func TestPlainHTTPToTheTLSPortGets400(t *testing.T) {
	h := newHarness(t, Config{})
	resp, err := http.Get(strings.Replace(h.srv.URL, "https://", "http://", 1) + "/v1/user")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("plain http: %d", resp.StatusCode)
	}
}

func TestRoomsAndRepositories(t *testing.T) {
	h := newHarness(t, Config{})
	var rooms []RoomView
	h.get("/v1/user/me/rooms").decode(t, &rooms)
	kinds := map[string]int{}
	for _, r := range rooms {
		kinds[r.PlatformType]++
		if r.OneToOne != (r.PlatformType == "ONETOONE") || (r.User != nil) != r.OneToOne || (r.URI == "") != r.OneToOne {
			t.Errorf("room %+v breaks the one-to-one rules", r)
		}
	}
	for _, k := range []string{"ONETOONE", "ORG", "REPO", "USER_CHANNEL"} {
		if kinds[k] == 0 {
			t.Errorf("user 0 has no %s room: %v", k, kinds)
		}
	}
	var channels []RoomView
	h.get("/v1/user/me/channels").decode(t, &channels)
	if len(channels) == 0 {
		t.Error("no channels")
	}
	for _, c := range channels {
		if c.PlatformType != "USER_CHANNEL" || c.UserCount != nil {
			t.Errorf("channel %+v", c)
		}
	}
	private := func(user int) (n int) {
		var repos []RepoView
		h.do(call{method: "GET", path: "/v1/user/me/repos", user: user}).decode(t, &repos)
		for _, r := range repos {
			if r.Private {
				n++
			}
		}
		return n
	}
	if !h.world.Users[0].PrivateReposGranted || h.world.Users[1].PrivateReposGranted {
		t.Fatal("fixture assumption: user 0 granted private access, user 1 did not")
	}
	if private(0) == 0 || private(1) != 0 {
		t.Errorf("private repositories: user 0 sees %d (granted), user 1 sees %d (not granted)", private(0), private(1))
	}
	var orgs []OrgView
	h.get("/v1/user/me/orgs").decode(t, &orgs)
	withRoom := 0
	for _, o := range orgs {
		if o.Room != nil {
			withRoom++
		}
	}
	if withRoom == 0 || withRoom == len(orgs) {
		t.Errorf("want organisations with and without a room, got %d of %d with", withRoom, len(orgs))
	}
}

func TestHideRoomUntilThePostsAgain(t *testing.T) {
	h := newHarness(t, Config{})
	room := h.world.Hints.HideRoom
	listed := func() bool {
		var rooms []RoomView
		h.get("/v1/user/me/rooms").decode(t, &rooms)
		for _, r := range rooms {
			if r.ID == room {
				return true
			}
		}
		return false
	}
	if !listed() {
		t.Fatal("hide room not listed at start")
	}
	var ok map[string]bool
	h.do(call{method: "DELETE", path: "/v1/user/me/rooms/" + room}).decode(t, &ok)
	if !ok["success"] || listed() {
		t.Fatalf("after hiding: body %v, still listed %v", ok, listed())
	}
	h.send(0, room, "back again")
	if !listed() {
		t.Error("posting did not bring the room back")
	}
}

func TestUnreadItemsFollowMessages(t *testing.T) {
	h := newHarness(t, Config{})
	room := h.world.Hints.WriteRoom
	me := h.world.Users[0]
	unread := func() UnreadView {
		var u UnreadView
		h.get("/v1/user/me/rooms/"+room+"/unreadItems").decode(t, &u)
		return u
	}
	counts := func() (int, int) {
		var rooms []RoomView
		h.get("/v1/user/me/rooms").decode(t, &rooms)
		for _, r := range rooms {
			if r.ID == room {
				return r.UnreadItems, r.Mentions
			}
		}
		t.Fatal("write room not listed")
		return 0, 0
	}
	before := unread()
	plain := h.send(1, room, "no mention here")
	ping := h.send(1, room, "ping @"+me.Username)
	after := unread()
	if len(after.Chat) != len(before.Chat)+2 || len(after.Mention) != len(before.Mention)+1 {
		t.Fatalf("unread before %v, after %v", before, after)
	}
	if n, m := counts(); n != len(after.Chat) || m != len(after.Mention) {
		t.Errorf("room counts %d/%d, unread lists %d/%d", n, m, len(after.Chat), len(after.Mention))
	}
	if len(ping.Mentions) != 1 || ping.Mentions[0].UserID != me.ID {
		t.Errorf("mention metadata %+v", ping.Mentions)
	}
	var got MessageView
	h.get("/v1/rooms/"+room+"/chatMessages/"+plain.ID).decode(t, &got)
	if !got.Unread || got.ReadBy != 0 {
		t.Errorf("before reading: unread %v readBy %d", got.Unread, got.ReadBy)
	}
	h.do(call{method: "POST", path: "/v1/user/me/rooms/" + room + "/unreadItems", body: `{"chat":["` + plain.ID + `","` + ping.ID + `"]}`})
	final := unread()
	if len(final.Chat) != len(before.Chat) || len(final.Mention) != len(before.Mention) {
		t.Errorf("after marking read: %v (before %v)", final, before)
	}
	h.get("/v1/rooms/"+room+"/chatMessages/"+plain.ID).decode(t, &got)
	if got.Unread || got.ReadBy != 1 {
		t.Errorf("after reading: unread %v readBy %d", got.Unread, got.ReadBy)
	}
	if n, m := counts(); n != len(final.Chat) || m != len(final.Mention) {
		t.Errorf("room counts %d/%d, unread lists %d/%d", n, m, len(final.Chat), len(final.Mention))
	}
}

func TestSendAndEdit(t *testing.T) {
	h := newHarness(t, Config{})
	room := h.world.Hints.WriteRoom
	m := h.send(0, room, "first **draft**")
	if m.V != 1 || m.EditedAt != nil || m.Unread || m.ReadBy != 0 || m.Status || m.FromUser.ID != h.userID(0) || m.FromUser.V == 0 {
		t.Errorf("new message %+v", m)
	}
	r := h.do(call{method: "POST", path: "/v1/rooms/" + room + "/chatMessages", body: `{"text":"waves","status":true}`})
	var st MessageView
	r.decode(t, &st)
	if !st.Status {
		t.Error("status message not flagged")
	}
	for i := 2; i <= 4; i++ {
		var e MessageView
		h.do(call{method: "PUT", path: "/v1/rooms/" + room + "/chatMessages/" + m.ID, body: fmt.Sprintf(`{"text":"draft %d"}`, i)}).decode(t, &e)
		if e.V != i || e.EditedAt == nil || e.Text != fmt.Sprintf("draft %d", i) {
			t.Errorf("edit %d: %+v", i, e)
		}
	}
	var got MessageView
	h.get("/v1/rooms/"+room+"/chatMessages/"+m.ID).decode(t, &got)
	if got.V != 4 || got.Text != "draft 4" || got.HTML != "draft 4" {
		t.Errorf("stored after edits: %+v", got)
	}
}

func TestConcurrentEditsAndSendsLoseNothing(t *testing.T) {
	h := newHarness(t, Config{})
	room := h.world.Hints.WriteRoom
	m := h.send(0, room, "contended")
	const workers, each = 8, 10
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, err := h.srv.Client().Do(mustRequest(t, h, "PUT", "/v1/rooms/"+room+"/chatMessages/"+m.ID, fmt.Sprintf(`{"text":"w%d e%d"}`, w, i)))
				if err == nil {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}
		}()
	}
	before := len(h.list(1, room, "?limit=100"))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				resp, err := h.srv.Client().Do(mustRequest(t, h, "POST", "/v1/rooms/"+room+"/chatMessages", fmt.Sprintf(`{"text":"s%d-%d"}`, w, i)))
				if err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	var got MessageView
	h.get("/v1/rooms/"+room+"/chatMessages/"+m.ID).decode(t, &got)
	if got.V != 1+ok || ok != workers*each {
		t.Errorf("v = %d after %d successful edits", got.V, ok)
	}
	if after := len(h.list(1, room, "?limit=100")); after != min(100, before+workers*5) {
		t.Errorf("%d messages listed after %d concurrent sends (had %d)", after, workers*5, before)
	}
}

func mustRequest(t *testing.T, h *harness, method, path, body string) *http.Request {
	req, err := http.NewRequest(method, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token(0))
	req.Header.Set("Content-Type", "application/json")
	return req
}
