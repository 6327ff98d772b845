package independent

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	stampLayout  = "2006-01-02T15:04:05.000Z"
	defaultLimit = 35
	maxLimit     = 100
	maxSkip      = 5000
	maxTextRunes = 10000
)

func stamp(t time.Time) string { return t.UTC().Format(stampLayout) }

// outcome is what a handler decides; the gateway turns it into bytes.
type outcome struct {
	status int
	body   any
	good   bool // success responses carry the charset-qualified JSON type
	allow  string
}

func ok(status int, body any) outcome { return outcome{status: status, body: body, good: true} }

// Error shapes chosen for this implementation: 404 answers an empty object,
// everything else a {"message": ...} object.
func nothing() outcome { return outcome{status: http.StatusNotFound, body: struct{}{}} }

func complain(status int, text string) outcome {
	return outcome{status: status, body: map[string]string{"message": text}}
}

// call bundles one authenticated request.
type call struct {
	w     *world
	me    *member
	args  []string
	query url.Values
	body  []byte
	ctype string
	now   time.Time
}

type handler func(*call) outcome

type route struct {
	pattern []string // "*" matches any single segment
	methods map[string]handler
}

type gateway struct {
	w      *world
	routes []route
}

func (g *gateway) table() []route {
	if g.routes != nil {
		return g.routes
	}
	seg := func(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }
	g.routes = []route{
		{seg("v1/user"), map[string]handler{"GET": showMe}},
		{seg("v1/user/*/rooms"), map[string]handler{"GET": listRooms}},
		{seg("v1/user/*/rooms/*"), map[string]handler{"DELETE": hideRoom}},
		{seg("v1/user/*/rooms/*/unreadItems"), map[string]handler{"GET": showUnread, "POST": markRead}},
		{seg("v1/user/*/orgs"), map[string]handler{"GET": listOrgs}},
		{seg("v1/user/*/repos"), map[string]handler{"GET": listRepos}},
		{seg("v1/user/*/channels"), map[string]handler{"GET": listChannels}},
		{seg("v1/rooms/*/chatMessages"), map[string]handler{"GET": listMessages, "POST": sendMessage}},
		{seg("v1/rooms/*/chatMessages/*"), map[string]handler{"GET": showMessage, "PUT": editMessage}},
	}
	return g.routes
}

func match(pattern, segs []string) ([]string, bool) {
	if len(pattern) != len(segs) {
		return nil, false
	}
	var args []string
	for i, p := range pattern {
		if segs[i] == "" {
			return nil, false
		}
		if p == "*" {
			args = append(args, segs[i])
		} else if p != segs[i] {
			return nil, false
		}
	}
	return args, true
}

func (g *gateway) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	out := g.handle(req)
	payload, err := json.Marshal(out.body)
	if err != nil {
		out = complain(http.StatusInternalServerError, "could not encode response")
		payload, _ = json.Marshal(out.body)
	}
	h := rw.Header()
	if out.good {
		h.Set("Content-Type", "application/json; charset=utf-8")
	} else {
		h.Set("Content-Type", "application/json")
	}
	if out.allow != "" {
		h.Set("Allow", out.allow)
	}
	if out.status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="chat"`)
	}
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(payload)))
	rw.WriteHeader(out.status)
	if req.Method != http.MethodHead {
		_, _ = rw.Write(payload)
	}
}

func (g *gateway) handle(req *http.Request) outcome {
	// Read any body before taking the lock so slow clients do not stall others.
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(io.LimitReader(req.Body, 1<<20))
		if err != nil {
			return complain(http.StatusBadRequest, "unreadable request body")
		}
	}
	w := g.w
	w.mu.Lock()
	defer w.mu.Unlock()

	me := w.identify(req)
	if me == nil {
		return complain(http.StatusUnauthorized, "a valid access token is required")
	}
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	for _, r := range g.table() {
		args, hit := match(r.pattern, segs)
		if !hit {
			continue
		}
		h, known := r.methods[req.Method]
		if !known {
			verbs := make([]string, 0, len(r.methods))
			for m := range r.methods {
				verbs = append(verbs, m)
			}
			sort.Strings(verbs)
			o := complain(http.StatusMethodNotAllowed, "method not supported here")
			o.allow = strings.Join(verbs, ", ")
			return o
		}
		return h(&call{
			w:     w,
			me:    me,
			args:  args,
			query: req.URL.Query(),
			body:  body,
			ctype: req.Header.Get("Content-Type"),
			now:   time.Now().UTC().Truncate(time.Millisecond),
		})
	}
	return nothing()
}

// identify resolves the caller: the Authorization header wins when present,
// otherwise the access_token query parameter is consulted.
func (w *world) identify(req *http.Request) *member {
	if h := req.Header.Get("Authorization"); h != "" {
		scheme, tok, found := strings.Cut(strings.TrimSpace(h), " ")
		if !found || !strings.EqualFold(scheme, "Bearer") {
			return nil
		}
		return w.byToken[strings.TrimSpace(tok)]
	}
	if w.is("query-token-refused") {
		return nil
	}
	if tok := req.URL.Query().Get("access_token"); tok != "" {
		return w.byToken[tok]
	}
	return nil
}

// self checks that the :userId segment names the caller. Other known users
// are refused with 403, unknown ones get 404.
func (c *call) self(id string) (outcome, bool) {
	if id == c.me.id {
		return outcome{}, true
	}
	if _, known := c.w.byID[id]; known {
		return complain(http.StatusForbidden, "only your own user id may be used here"), false
	}
	return nothing(), false
}

// memberRoom finds a room the caller belongs to; anything else is hidden as 404.
func (c *call) memberRoom(id string) (*room, bool) {
	r := c.w.roomByID[id]
	if r == nil || !r.has(c.me) {
		return nil, false
	}
	return r, true
}

// jsonObject validates media type and shape of a request body.
func (c *call) jsonObject() (map[string]json.RawMessage, outcome, bool) {
	mt, _, err := mime.ParseMediaType(c.ctype)
	if err != nil || mt != "application/json" {
		return nil, complain(http.StatusUnsupportedMediaType, "send the body as application/json"), false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(c.body, &obj); err != nil || obj == nil {
		return nil, complain(http.StatusBadRequest, "the body must be a JSON object"), false
	}
	return obj, outcome{}, true
}

// textField extracts a mandatory, non-blank text string.
func textField(obj map[string]json.RawMessage) (string, outcome, bool) {
	raw, present := obj["text"]
	var text string
	if !present || json.Unmarshal(raw, &text) != nil {
		return "", complain(http.StatusUnprocessableEntity, "text must be a string"), false
	}
	if strings.TrimSpace(text) == "" {
		return "", complain(http.StatusUnprocessableEntity, "text must not be blank"), false
	}
	if utf8.RuneCountInString(text) > maxTextRunes {
		return "", complain(http.StatusUnprocessableEntity, "text is too long"), false
	}
	return text, outcome{}, true
}

// ---- read-state helpers ----

func (w *world) unreadFor(m *msg, u *member) bool {
	return m.room.has(u) && m.from != u && !m.readers[u]
}

func mentionsOf(m *msg, u *member) bool {
	for _, p := range m.r.mentions {
		if p == u {
			return true
		}
	}
	return false
}

func (w *world) markOne(m *msg, u *member) {
	if m.from == u {
		return
	}
	if w.is("unread-shared") {
		for _, p := range m.room.members {
			if p != m.from {
				m.readers[p] = true
			}
		}
		return
	}
	m.readers[u] = true
}

// ---- JSON shapes ----

type userJSON struct {
	ID              string `json:"id"`
	Username        string `json:"username"`
	DisplayName     string `json:"displayName"`
	URL             string `json:"url"`
	AvatarURLSmall  string `json:"avatarUrlSmall"`
	AvatarURLMedium string `json:"avatarUrlMedium"`
	V               *int   `json:"v,omitempty"`
}

func userView(p *member, withVersion bool) *userJSON {
	u := &userJSON{
		ID:              p.id,
		Username:        p.username,
		DisplayName:     p.display,
		URL:             "/" + p.username,
		AvatarURLSmall:  "https://avatars.chat.test/u/" + url.PathEscape(p.username) + "?s=60",
		AvatarURLMedium: "https://avatars.chat.test/u/" + url.PathEscape(p.username) + "?s=128",
	}
	if withVersion {
		v := p.v
		u.V = &v
	}
	return u
}

type roomJSON struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Topic          string    `json:"topic"`
	URI            string    `json:"uri,omitempty"`
	OneToOne       bool      `json:"oneToOne"`
	UserCount      *int      `json:"userCount,omitempty"`
	User           *userJSON `json:"user,omitempty"`
	UnreadItems    int       `json:"unreadItems"`
	Mentions       int       `json:"mentions"`
	LastAccessTime string    `json:"lastAccessTime"`
	Lurk           bool      `json:"lurk"`
	URL            string    `json:"url"`
	PlatformType   string    `json:"platformType"`
	Security       string    `json:"security,omitempty"`
	V              *int      `json:"v,omitempty"`
}

func (w *world) roomView(r *room, u *member) roomJSON {
	out := roomJSON{
		ID:           r.id,
		Topic:        r.topic,
		OneToOne:     r.kind == kindOneToOne,
		Lurk:         r.lurk[u],
		PlatformType: r.kind,
	}
	if out.OneToOne {
		peer := r.peer(u)
		out.Name = peer.display
		out.URL = "/" + peer.username
		out.User = userView(peer, false)
	} else {
		out.Name = r.uri
		out.URI = r.uri
		out.URL = "/" + r.uri
	}
	if r.kind == kindChannel {
		out.Security = "PUBLIC"
	} else {
		n := len(r.members)
		out.UserCount = &n
	}
	if r.v > 0 {
		v := r.v
		out.V = &v
	}
	for _, m := range r.msgs {
		if w.unreadFor(m, u) {
			out.UnreadItems++
			if mentionsOf(m, u) {
				out.Mentions++
			}
		}
	}
	seen, found := r.lastAccess[u]
	if !found {
		seen = time.Unix(0, 0)
	}
	out.LastAccessTime = stamp(seen)
	return out
}

type urlJSON struct {
	URL string `json:"url"`
}
type mentionJSON struct {
	ScreenName string `json:"screenName"`
	UserID     string `json:"userId"`
}
type issueJSON struct {
	Number string `json:"number"`
}

type messageJSON struct {
	ID       string         `json:"id"`
	Text     string         `json:"text"`
	HTML     string         `json:"html"`
	Sent     string         `json:"sent"`
	EditedAt *string        `json:"editedAt"`
	FromUser *userJSON      `json:"fromUser"`
	Unread   bool           `json:"unread"`
	ReadBy   int            `json:"readBy"`
	URLs     []urlJSON      `json:"urls"`
	Mentions []mentionJSON  `json:"mentions"`
	Issues   []issueJSON    `json:"issues"`
	Meta     map[string]any `json:"meta"`
	V        int            `json:"v"`
	Status   bool           `json:"status"`
}

func (w *world) messageView(m *msg, u *member) messageJSON {
	out := messageJSON{
		ID:       m.id,
		Text:     m.text,
		HTML:     m.r.html,
		Sent:     stamp(m.sent),
		FromUser: userView(m.from, true),
		Unread:   w.unreadFor(m, u),
		ReadBy:   len(m.readers),
		URLs:     []urlJSON{},
		Mentions: []mentionJSON{},
		Issues:   []issueJSON{},
		Meta:     map[string]any{},
		V:        m.v,
		Status:   m.status,
	}
	if w.is("readby-stuck") {
		out.ReadBy = 0
	}
	if !m.edited.IsZero() {
		e := stamp(m.edited)
		out.EditedAt = &e
	}
	for _, s := range m.r.urls {
		out.URLs = append(out.URLs, urlJSON{s})
	}
	for _, p := range m.r.mentions {
		out.Mentions = append(out.Mentions, mentionJSON{ScreenName: p.username, UserID: p.id})
	}
	for _, n := range m.r.issues {
		out.Issues = append(out.Issues, issueJSON{n})
	}
	return out
}

// ---- handlers: the user and what belongs to it ----

func showMe(c *call) outcome {
	return ok(http.StatusOK, []*userJSON{userView(c.me, false)})
}

func listRooms(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	var mine []*room
	for _, r := range c.w.rooms {
		if r.has(c.me) && !r.hidden[c.me] {
			mine = append(mine, r)
		}
	}
	// Most recently visited first.
	sort.SliceStable(mine, func(i, j int) bool {
		return mine[i].lastAccess[c.me].After(mine[j].lastAccess[c.me])
	})
	out := make([]roomJSON, 0, len(mine))
	for _, r := range mine {
		out = append(out, c.w.roomView(r, c.me))
	}
	return ok(http.StatusOK, out)
}

func hideRoom(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	r, found := c.memberRoom(c.args[1])
	if !found {
		return nothing()
	}
	if !c.w.is("hide-ignored") {
		r.hidden[c.me] = true
	}
	return ok(http.StatusAccepted, map[string]any{"roomId": r.id, "hidden": true})
}

type unreadJSON struct {
	Chat    []string `json:"chat"`
	Mention []string `json:"mention"`
}

func (w *world) unreadView(r *room, u *member) unreadJSON {
	out := unreadJSON{Chat: []string{}, Mention: []string{}}
	for _, m := range r.msgs {
		if w.unreadFor(m, u) {
			out.Chat = append(out.Chat, m.id)
			if mentionsOf(m, u) {
				out.Mention = append(out.Mention, m.id)
			}
		}
	}
	sort.Strings(out.Chat)
	sort.Strings(out.Mention)
	return out
}

func showUnread(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	r, found := c.memberRoom(c.args[1])
	if !found {
		return nothing()
	}
	return ok(http.StatusOK, c.w.unreadView(r, c.me))
}

// markRead answers with what is still unread afterwards.
func markRead(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	r, found := c.memberRoom(c.args[1])
	if !found {
		return nothing()
	}
	obj, o, fine := c.jsonObject()
	if !fine {
		return o
	}
	var ids []string
	raw, present := obj["chat"]
	if !present || json.Unmarshal(raw, &ids) != nil {
		return complain(http.StatusUnprocessableEntity, "chat must be an array of message ids")
	}
	touched := false
	for _, id := range ids {
		m := c.w.msgByID[id]
		if m == nil || m.room != r {
			continue // ids outside this room are quietly ignored
		}
		touched = true
		c.w.markOne(m, c.me)
	}
	if touched && c.w.is("mark-all-read") {
		for _, m := range r.msgs {
			c.w.markOne(m, c.me)
		}
	}
	r.lastAccess[c.me] = c.now
	return ok(http.StatusOK, c.w.unreadView(r, c.me))
}

type orgJSON struct {
	ID        int       `json:"id"`
	Name      string    `json:"name"`
	AvatarURL string    `json:"avatar_url"`
	Room      *roomJSON `json:"room,omitempty"`
}

func listOrgs(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	out := []orgJSON{}
	for _, g := range c.w.orgs {
		if !contains(g.people, c.me) {
			continue
		}
		e := orgJSON{ID: g.id, Name: g.name, AvatarURL: "https://avatars.chat.test/o/" + url.PathEscape(g.name) + ".png"}
		if g.room != nil {
			v := c.w.roomView(g.room, c.me)
			e.Room = &v
		}
		out = append(out, e)
	}
	return ok(http.StatusOK, out)
}

type repoJSON struct {
	ID      int       `json:"id"`
	Name    string    `json:"name"`
	URI     string    `json:"uri"`
	Private bool      `json:"private"`
	Room    *roomJSON `json:"room,omitempty"`
}

func listRepos(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	out := []repoJSON{}
	for _, p := range c.w.repos {
		if !contains(p.people, c.me) {
			continue
		}
		if p.private && c.me.grantState != grantYes && !c.w.is("private-leak") {
			continue
		}
		e := repoJSON{ID: p.id, Name: p.name, URI: p.uri, Private: p.private}
		if p.room != nil {
			v := c.w.roomView(p.room, c.me)
			e.Room = &v
		}
		out = append(out, e)
	}
	return ok(http.StatusOK, out)
}

func listChannels(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	out := []roomJSON{}
	for _, r := range c.w.rooms {
		if !r.has(c.me) || r.hidden[c.me] {
			continue
		}
		if r.kind != kindChannel && !c.w.is("channels-unfiltered") {
			continue
		}
		out = append(out, c.w.roomView(r, c.me))
	}
	return ok(http.StatusOK, out)
}

func contains(xs []*member, p *member) bool {
	for _, x := range xs {
		if x == p {
			return true
		}
	}
	return false
}

// ---- handlers: messages ----

func intParam(q url.Values, name string, def int) (int, bool) {
	s := q.Get(name)
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// listMessages picks a page in sending order, then deliberately shuffles it:
// the API leaves the order inside a page open.
func listMessages(c *call) outcome {
	r, found := c.memberRoom(c.args[0])
	if !found {
		return nothing()
	}
	limit, fine := intParam(c.query, "limit", defaultLimit)
	if !fine || limit < 1 {
		return complain(http.StatusUnprocessableEntity, "limit must be a positive integer")
	}
	if limit > maxLimit && !c.w.is("limit-unbounded") {
		limit = maxLimit
	}
	skip, fine := intParam(c.query, "skip", 0)
	if !fine || skip < 0 || skip > maxSkip {
		return complain(http.StatusUnprocessableEntity, "skip must be an integer from 0 to 5000")
	}
	anchor := func(name string) (*msg, bool) {
		id := c.query.Get(name)
		if id == "" {
			return nil, true
		}
		m := c.w.msgByID[id]
		return m, m != nil && m.room == r
	}
	before, fineB := anchor("beforeId")
	after, fineA := anchor("afterId")
	around, fineR := anchor("aroundId")
	if !fineB || !fineA || !fineR {
		return complain(http.StatusUnprocessableEntity, "anchor message is not in this room")
	}
	if around != nil && (before != nil || after != nil) {
		return complain(http.StatusUnprocessableEntity, "aroundId cannot be combined with beforeId or afterId")
	}

	// Search: every whitespace-separated term must occur in the text, ignoring case.
	terms := strings.Fields(strings.ToLower(c.query.Get("q")))
	pool := make([]*msg, 0, len(r.msgs))
	for _, m := range r.msgs {
		low := strings.ToLower(m.text)
		hit := true
		for _, t := range terms {
			if !strings.Contains(low, t) {
				hit = false
				break
			}
		}
		if hit {
			pool = append(pool, m)
		}
	}

	var page []*msg
	if around != nil {
		// Window of up to limit lines placed around the anchor's position.
		pos := sort.Search(len(pool), func(i int) bool { return pool[i].seq >= around.seq })
		start := pos - limit/2
		if start < 0 {
			start = 0
		}
		end := start + limit
		if end > len(pool) {
			end = len(pool)
			start = max(0, end-limit)
		}
		page = append(page, pool[start:end]...)
		if c.w.is("around-drops-anchor") {
			kept := page[:0]
			for _, m := range page {
				if m != around {
					kept = append(kept, m)
				}
			}
			page = kept
		}
	} else {
		lo, hi := 0, len(pool)
		if after != nil {
			lo = sort.Search(len(pool), func(i int) bool { return pool[i].seq > after.seq })
		}
		if before != nil {
			bound := before.seq
			if c.w.is("before-inclusive") {
				bound++
			}
			hi = sort.Search(len(pool), func(i int) bool { return pool[i].seq >= bound })
		}
		if hi < lo {
			hi = lo
		}
		window := pool[lo:hi]
		if after != nil && before == nil {
			// Walking forward: skip and take from the oldest end.
			window = window[min(skip, len(window)):]
			page = append(page, window[:min(limit, len(window))]...)
		} else {
			// Walking backward: skip and take from the newest end.
			window = window[:len(window)-min(skip, len(window))]
			page = append(page, window[len(window)-min(limit, len(window)):]...)
		}
	}
	// Newest first, then shuffled; the shuffle is the visible part.
	for i, j := 0, len(page)-1; i < j; i, j = i+1, j-1 {
		page[i], page[j] = page[j], page[i]
	}
	c.w.rng.Shuffle(len(page), func(i, j int) { page[i], page[j] = page[j], page[i] })
	out := make([]messageJSON, 0, len(page))
	for _, m := range page {
		out = append(out, c.w.messageView(m, c.me))
	}
	return ok(http.StatusOK, out)
}

func showMessage(c *call) outcome {
	r, found := c.memberRoom(c.args[0])
	if !found {
		return nothing()
	}
	m := c.w.msgByID[c.args[1]]
	if m == nil || m.room != r {
		return nothing()
	}
	return ok(http.StatusOK, c.w.messageView(m, c.me))
}

func sendMessage(c *call) outcome {
	r, found := c.memberRoom(c.args[0])
	if !found {
		return nothing()
	}
	obj, o, fine := c.jsonObject()
	if !fine {
		return o
	}
	text, o, fine := textField(obj)
	if !fine {
		return o
	}
	status := false
	if raw, present := obj["status"]; present && string(raw) != "null" {
		if json.Unmarshal(raw, &status) != nil {
			return complain(http.StatusUnprocessableEntity, "status must be a boolean")
		}
	}
	at := c.now
	if n := len(r.msgs); n > 0 && r.msgs[n-1].sent.After(at) {
		at = r.msgs[n-1].sent // never let sending order and time disagree
	}
	m := c.w.seedMessage(r, c.me, text, at)
	m.status = status
	r.lastAccess[c.me] = c.now
	return ok(http.StatusOK, c.w.messageView(m, c.me))
}

func editMessage(c *call) outcome {
	r, found := c.memberRoom(c.args[0])
	if !found {
		return nothing()
	}
	m := c.w.msgByID[c.args[1]]
	if m == nil || m.room != r {
		return nothing()
	}
	if m.from != c.me {
		return complain(http.StatusForbidden, "only the author may change a message")
	}
	obj, o, fine := c.jsonObject()
	if !fine {
		return o
	}
	text, o, fine := textField(obj)
	if !fine {
		return o
	}
	m.text = text
	m.r = render(text, c.w.lookupName, !c.w.is("html-unescaped"))
	m.edited = c.now
	if m.edited.Before(m.sent) {
		m.edited = m.sent
	}
	if !c.w.is("edit-no-bump") {
		m.v++
	}
	return ok(http.StatusOK, c.w.messageView(m, c.me))
}
