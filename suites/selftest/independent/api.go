package independent

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"html"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
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
	ctype  string // set only by planted defects: overrides the success label
	twice  bool   // defect edit-body-twice-flaky: the body is written twice
	raw    []byte // defect mark-read-body-text: written as is instead of body
	// defect ctype-unread-missing: no Content-Type is set, the server sniffs one
	noCtype bool
	cookie  string // defect auth-session-cookie-wins: the session id set on the answer
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
	rawQ  string // the query string as sent
	body  []byte
	ctype string
	now   time.Time
	vSeen int // defect edit-v-lost-update: the v read before the lock, else -1
	// viaQuery tells that the token came in the access_token query parameter.
	viaQuery bool
	// msgsSeen (defect send-concurrent-lost-update) is the length of the
	// room's message list read before the lock, else -1.
	msgsSeen int
	// readSnap (defect mark-read-room-doc-lost-update) is the read state of
	// the room's messages as loaded before the lock, else nil.
	readSnap map[*msg]map[*member]bool
	// v2 (defect v1-orgs-gone-410) tells that the request came in under /v2.
	v2 bool
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
	if out.twice {
		payload = append(payload, payload...) // a retried write after a short one
	}
	if out.raw != nil {
		payload = out.raw
	}
	if g.w.is("json-raw-tab") {
		payload = bytes.ReplaceAll(payload, []byte(`\t`), []byte{'\t'}) // a hand-rolled string writer
	}
	if out.good && len(payload) > 0 && payload[0] == '[' && g.w.is("json-bom-lists-flaky") {
		g.w.mu.Lock()
		bom := g.w.every("json-bom-lists-flaky", 5)
		g.w.mu.Unlock()
		if bom {
			payload = append([]byte("\xef\xbb\xbf"), payload...) // a writer that marks its text as UTF-8
		}
	}
	if out.good && req.Method == http.MethodGet && g.w.is("json-empty-body-flaky") {
		g.w.mu.Lock()
		lost := g.w.every("json-empty-body-flaky", 6)
		g.w.mu.Unlock()
		if lost {
			payload = nil // the write failed after the status line and the error was dropped
		}
	}
	if g.w.is("json-cut-16k") && len(payload) > 16<<10 {
		payload = payload[:16<<10] // a fixed-size write buffer
	}
	if out.good && g.w.is("json-xssi-prefix-messages") && req.Method == http.MethodGet && isMessageList(req.URL.Path) {
		payload = append([]byte(")]}',\n"), payload...) // the anti-hijacking guard of the web client's endpoints
	}
	if g.w.is("gzip-without-encoding-header") && len(payload) > 1<<10 && strings.Contains(req.Header.Get("Accept-Encoding"), "gzip") {
		// Compressed by a middleware whose Content-Encoding header a later handler reset.
		var zipped bytes.Buffer
		zw := gzip.NewWriter(&zipped)
		_, _ = zw.Write(payload)
		_ = zw.Close()
		payload = zipped.Bytes()
	}
	h := rw.Header()
	if out.cookie != "" {
		h.Add("Set-Cookie", (&http.Cookie{Name: "chat_sid", Value: out.cookie, Path: "/", HttpOnly: true, Secure: true}).String())
	}
	if out.noCtype {
		// left to the server's content sniffing
	} else if out.good && out.ctype != "" {
		h.Set("Content-Type", out.ctype)
	} else if out.good && g.w.is("ctype-empty-array-plain") && string(payload) == "[]" {
		// An empty list is written through the shortcut for constant answers.
		h.Set("Content-Type", "text/plain; charset=utf-8")
	} else if out.good && g.w.is("ctype-latin1-non-ascii") && !isASCII(payload) {
		// The label was picked by a helper that falls back to the legacy charset for any non-ASCII byte.
		h.Set("Content-Type", "application/json; charset=iso-8859-1")
	} else if out.good && g.w.is("ctype-no-charset-writes") && (req.Method == http.MethodPost || req.Method == http.MethodPut) {
		h.Set("Content-Type", "application/json")
	} else if out.good && g.w.is("ctype-jsonp-query-token") && req.Header.Get("Authorization") == "" && req.URL.Query().Get("access_token") != "" {
		h.Set("Content-Type", "application/javascript; charset=utf-8") // the old JSONP path
	} else if out.good {
		h.Set("Content-Type", "application/json; charset=utf-8")
	} else {
		h.Set("Content-Type", "application/json")
	}
	if out.good && g.w.is("ctype-header-doubled") && strings.HasPrefix(req.URL.Path, "/v1/user/") {
		// The user router's security middleware adds its default type; the JSON writer adds its own after it.
		h["Content-Type"] = append([]string{"text/html; charset=utf-8"}, h.Values("Content-Type")...)
	}
	if out.allow != "" {
		h.Set("Allow", out.allow)
	}
	if out.status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="chat"`)
	}
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(payload)))
	if g.w.is("content-length-in-characters") {
		h.Set("Content-Length", strconv.Itoa(utf8.RuneCount(payload))) // the length of the string, not of its bytes
	}
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
	vSeen := -1
	if w.is("edit-v-lost-update") && req.Method == http.MethodPut {
		// The version is read ahead, outside the critical section.
		segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
		w.mu.Lock()
		if m := w.msgByID[segs[len(segs)-1]]; m != nil {
			vSeen = m.v
		}
		w.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	msgsSeen := -1
	if w.is("send-concurrent-lost-update") && req.Method == http.MethodPost {
		// The room's message list is loaded before the lock and saved back whole.
		segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
		if len(segs) == 4 && segs[0] == "v1" && segs[1] == "rooms" && segs[3] == "chatMessages" {
			w.mu.Lock()
			if r := w.roomByID[segs[2]]; r != nil {
				msgsSeen = len(r.msgs)
			}
			w.mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}
	var readSnap map[*msg]map[*member]bool
	if w.is("mark-read-room-doc-lost-update") && req.Method == http.MethodPost {
		// The room's read-state document is loaded before the lock and saved back whole.
		segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
		if len(segs) == 6 && segs[0] == "v1" && segs[1] == "user" && segs[3] == "rooms" && segs[5] == "unreadItems" {
			w.mu.Lock()
			if r := w.roomByID[segs[4]]; r != nil {
				readSnap = map[*msg]map[*member]bool{}
				for _, m := range r.msgs {
					cp := map[*member]bool{}
					for p, read := range m.readers {
						cp[p] = read
					}
					readSnap[m] = cp
				}
			}
			w.mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}
	if w.is("auth-identity-race") && req.Header.Get("Authorization") != "" {
		// The credentials are parked in a field shared by all requests while the session store is asked.
		w.raceMu.Lock()
		w.raceAuth = req.Header.Get("Authorization")
		w.raceMu.Unlock()
		time.Sleep(15 * time.Millisecond)
		w.raceMu.Lock()
		req.Header.Set("Authorization", w.raceAuth)
		w.raceMu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()

	me := w.identify(req)
	if me == nil {
		return complain(http.StatusUnauthorized, "a valid access token is required")
	}
	if w.is("auth-context-leak-flaky") {
		// The worker's user context is set per request but read before it is reset.
		prev := w.ctxUser
		w.ctxUser = me
		if prev != nil && prev != me && w.every("auth-context-leak-flaky", 9) {
			me = prev
		}
	}
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	v2 := false
	if w.is("v1-orgs-gone-410") && len(segs) == 4 && segs[0] == "v2" && segs[1] == "user" && segs[3] == "orgs" {
		segs[0], v2 = "v1", true // the organisations route moved to the /v2 router
	}
	if w.is("unread-routes-without-v1") && len(segs) >= 5 {
		// The unread items router was mounted on the root router, outside the /v1 group.
		if segs[0] == "v1" && len(segs) == 6 && segs[1] == "user" && segs[3] == "rooms" && segs[5] == "unreadItems" {
			return nothing()
		}
		if segs[0] == "user" && len(segs) == 5 && segs[2] == "rooms" && segs[4] == "unreadItems" {
			segs = append([]string{"v1"}, segs...)
		}
	}
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
		out := h(&call{
			w:     w,
			me:    me,
			args:  args,
			query: req.URL.Query(),
			rawQ:  req.URL.RawQuery,
			body:  body,
			ctype: req.Header.Get("Content-Type"),
			now:   time.Now().UTC().Truncate(time.Millisecond),
			vSeen: vSeen,

			msgsSeen: msgsSeen,
			readSnap: readSnap,
			v2:       v2,

			viaQuery: req.Header.Get("Authorization") == "" && req.URL.Query().Get("access_token") != "",
		})
		if out.good && w.every("ctype-flaky", 9) {
			out.ctype = "text/plain; charset=utf-8"
		}
		if w.is("auth-session-cookie-wins") {
			out.cookie = w.sessionOf(me)
		}
		return out
	}
	return nothing()
}

// identify resolves the caller: the Authorization header wins when present,
// otherwise the access_token query parameter is consulted.
func (w *world) identify(req *http.Request) *member {
	if w.is("auth-session-cookie-wins") {
		// A known session wins over whatever token the request carries.
		if c, err := req.Cookie("chat_sid"); err == nil && w.cookieUser[c.Value] != nil {
			return w.cookieUser[c.Value]
		}
	}
	me, presented := w.credentials(req)
	switch {
	case me != nil:
		if w.is("auth-lockout-after-bad-token") && w.locked[clientHost(req)] {
			delete(w.locked, clientHost(req)) // the lock is lifted by the refusal it causes
			return nil
		}
		if w.is("auth-session-by-addr") {
			if first, seen := w.sessions[req.RemoteAddr]; seen {
				me = first
			} else {
				w.sessions[req.RemoteAddr] = me
			}
		}
		w.lastUser = me
		if w.is("auth-anonymous-inherits-connection-user") {
			w.connUser[req.RemoteAddr] = me // kept in the connection's context
		}
	case presented:
		if w.is("auth-lockout-after-bad-token") {
			w.locked[clientHost(req)] = true // a failed attempt locks the client address
		}
		if w.every("auth-unknown-fallback-flaky", 10) {
			me = w.lastUser
		}
	default:
		if w.is("auth-anonymous-first-user") {
			me = w.people[0]
		}
		if w.is("auth-anonymous-inherits-connection-user") {
			me = w.connUser[req.RemoteAddr] // the context of the connection's previous request was not reset
		}
		if w.is("auth-anonymous-path-user") {
			// The :userId of the path was meant to be checked against the token, not to replace it.
			segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
			if len(segs) >= 3 && segs[0] == "v1" && segs[1] == "user" {
				me = w.byID[segs[2]]
			}
		}
		if w.is("auth-anonymous-post-last-sender") && req.Method == http.MethodPost {
			// Integrations post without a token; their lines are attributed to the room's latest poster.
			segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
			if len(segs) == 4 && segs[0] == "v1" && segs[1] == "rooms" && segs[3] == "chatMessages" {
				if r := w.roomByID[segs[2]]; r != nil && len(r.msgs) > 0 {
					me = r.msgs[len(r.msgs)-1].from
				}
			}
		}
		if w.is("auth-anonymous-edit-as-author") && req.Method == http.MethodPut {
			// The edit link of notification mails carries no token; the author was assumed.
			segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
			if len(segs) == 5 && segs[0] == "v1" && segs[1] == "rooms" && segs[3] == "chatMessages" {
				if m := w.msgByID[segs[4]]; m != nil {
					me = m.from
				}
			}
		}
		if w.is("auth-anonymous-reads-messages") && req.Method == http.MethodGet {
			// Room messages were meant to be public: read them as the room's first member.
			segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
			if len(segs) >= 4 && segs[0] == "v1" && segs[1] == "rooms" && segs[3] == "chatMessages" {
				if r := w.roomByID[segs[2]]; r != nil {
					me = r.members[0]
				}
			}
		}
	}
	return me
}

// credentials resolves the token of req; presented tells whether one was sent.
func (w *world) credentials(req *http.Request) (*member, bool) {
	q := req.URL.Query()
	if w.is("auth-bearer-with-query") && req.URL.RawQuery != "" {
		tok := q.Get("access_token")
		return w.tokenOwner(tok), tok != ""
	}
	writes := req.Method == http.MethodPost || req.Method == http.MethodPut
	if h := req.Header.Get("Authorization"); h != "" && w.is("auth-empty-bearer-bot") && strings.EqualFold(strings.TrimSpace(h), "Bearer") {
		// The integration bot was seeded with an empty token, which an empty bearer value matches.
		return w.people[len(w.people)-1], true
	}
	if h := req.Header.Get("Authorization"); h != "" && !(writes && w.is("auth-bearer-writes-refused")) {
		scheme, tok, found := strings.Cut(strings.TrimSpace(h), " ")
		if !found || !strings.EqualFold(scheme, "Bearer") {
			return nil, true
		}
		owner := w.tokenOwner(strings.TrimSpace(tok))
		if owner != nil && w.every("auth-token-flaky-401", 6) {
			return nil, true // evicted from the token cache
		}
		return owner, true
	}
	if w.is("query-token-refused") {
		return nil, false
	}
	if w.is("auth-query-get-only") && req.Method != http.MethodGet {
		return nil, false
	}
	if w.is("auth-query-token-user-subpaths-refused") {
		// The query-token middleware was mounted on /v1/user and /v1/rooms, not on the /v1/user/:userId router.
		segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
		if len(segs) > 2 && segs[0] == "v1" && segs[1] == "user" {
			return nil, false
		}
	}
	tok := q.Get("access_token")
	if w.is("auth-query-token-rawquery") {
		// Read straight off the raw query: right only when it is the sole parameter.
		rest, found := strings.CutPrefix(req.URL.RawQuery, "access_token=")
		tok = ""
		if found {
			tok = rest
		}
	}
	if tok != "" {
		owner := w.tokenOwner(tok)
		if owner != nil && w.every("auth-query-token-flaky", 5) {
			return nil, true // the query-token lookup timed out and was taken for a miss
		}
		if owner != nil && w.is("auth-query-token-one-time") {
			if w.queryUsed[tok] {
				return nil, true // a login link already used
			}
			w.queryUsed[tok] = true
		}
		if owner != nil && w.is("auth-query-token-cached-by-path") {
			// The lookup was cached under the path, the token being stripped from the key.
			if first, hit := w.qcache[req.URL.Path]; hit {
				return first, true
			}
			w.qcache[req.URL.Path] = owner
		}
		return owner, true
	}
	return nil, false
}

// sameButLast is a constant-time comparison whose loop stops one byte short
// (defect auth-compare-skips-last-byte). a and b have the same length.
func sameButLast(a, b string) bool {
	var diff byte
	for i := 0; i < len(a)-1; i++ {
		diff |= a[i] ^ b[i]
	}
	return diff == 0
}

// sessionOf returns the session id of u, creating one (defect auth-session-cookie-wins).
func (w *world) sessionOf(u *member) string {
	if sid, found := w.cookieOf[u]; found {
		return sid
	}
	sid := w.tag("sid_", 20)
	w.cookieOf[u] = sid
	w.cookieUser[sid] = u
	return sid
}

// isMessageList tells whether path is /v1/rooms/:roomId/chatMessages.
func isMessageList(path string) bool {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	return len(segs) == 4 && segs[0] == "v1" && segs[1] == "rooms" && segs[3] == "chatMessages"
}

// clientHost is the address part of the client's address (defect auth-lockout-after-bad-token).
func clientHost(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	return host
}

// isASCII tells whether b holds only ASCII bytes (defect ctype-latin1-non-ascii).
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func (w *world) tokenOwner(tok string) *member {
	if w.is("auth-compare-skips-last-byte") {
		for _, p := range w.people {
			if len(tok) == len(p.token) && sameButLast(tok, p.token) {
				return p
			}
		}
		return nil
	}
	if p := w.byToken[tok]; p != nil {
		return p
	}
	if w.is("auth-token-case-insensitive") {
		for _, p := range w.people {
			if strings.EqualFold(p.token, tok) {
				return p
			}
		}
	}
	if w.is("auth-token-extra-suffix") {
		for _, p := range w.people {
			if strings.HasPrefix(tok, p.token) {
				return p
			}
		}
	}
	if w.is("auth-token-prefix") && len(tok) >= 20 {
		for _, p := range w.people {
			if strings.HasPrefix(p.token, tok[:20]) {
				return p
			}
		}
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
	if c.w.is("send-ctype-charset-refused") && strings.TrimSpace(c.ctype) != "application/json" {
		return nil, complain(http.StatusUnsupportedMediaType, "send the body as application/json"), false
	}
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

// touch records that u accessed r now.
func (c *call) touch(r *room) { c.touchAs(r, c.me) }

func (c *call) touchAs(r *room, u *member) {
	if c.w.is("room-lastaccess-throttled") && c.now.Sub(r.lastAccess[u]) < time.Minute {
		return // at most one write a minute per user and room
	}
	if c.w.is("room-lastaccess-millis-after-write") {
		if c.w.writeTouched[r] == nil {
			c.w.writeTouched[r] = map[*member]bool{}
		}
		c.w.writeTouched[r][u] = true
	}
	if c.w.is("room-lastaccess-offset") {
		r.lastAccess[u] = c.now.In(time.FixedZone("CEST", 2*3600))
		return
	}
	r.lastAccess[u] = c.now
}

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

// mentioned tells whether m mentions u, as the unread lists and counts see it.
func (w *world) mentioned(m *msg, u *member) bool {
	if w.is("unread-mention-dm-skipped") && m.room.kind == kindOneToOne {
		return false // in a one-to-one room every line is addressed to you anyway
	}
	if w.is("unread-mention-send-time") {
		return contains(m.sentMentions, u)
	}
	if w.is("unread-mention-needs-following-space") {
		return mentionsOf(m, u) && followedBySpace(strings.ToLower(m.text), "@"+strings.ToLower(u.username))
	}
	if w.is("unread-mention-leading-only") {
		return mentionsOf(m, u) && strings.HasPrefix(strings.ToLower(m.text), "@"+strings.ToLower(u.username))
	}
	return mentionsOf(m, u)
}

// followedBySpace tells whether needle occurs in text with white space right
// after it (defect unread-mention-needs-following-space: the name was searched
// for with a space after it, so that @ann would not match @anna).
func followedBySpace(text, needle string) bool {
	for at := 0; ; {
		i := strings.Index(text[at:], needle)
		if i < 0 {
			return false
		}
		end := at + i + len(needle)
		if end < len(text) && strings.IndexByte(" \t\r\n", text[end]) >= 0 {
			return true
		}
		at = end
	}
}

// mentionGone tells whether the mention of u in m was cleared by a mark
// (defect mark-read-mention-stays-chat).
func (w *world) mentionGone(m *msg, u *member) bool {
	return w.is("mark-read-mention-stays-chat") && w.mentionCleared[m][u]
}

func (w *world) markOne(m *msg, u *member) {
	if m.from == u {
		return
	}
	if snap, found := w.sentSnap[m]; found && w.is("mark-read-reverts-edit") {
		// The receipt path saves back the message it loaded from the send-time cache.
		m.text, m.indexed, m.r, m.v, m.edited = snap.text, snap.indexed, snap.r, snap.v, snap.edited
	}
	if w.is("mark-read-toggles") && m.readers[u] {
		delete(m.readers, u) // the read flag is flipped, not set
		return
	}
	if w.is("readby-recount") && m.readers[u] {
		m.rereads++
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
	if w.is("mark-read-bumps-v") && !m.readers[u] {
		m.v++ // the ORM raises the version column on every save
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
	GV              string `json:"gv,omitempty"` // empty but for defect fromuser-gv
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
	Topic          any       `json:"topic"` // a string, but for defect room-topic-empty-null
	URI            string    `json:"uri,omitempty"`
	OneToOne       bool      `json:"oneToOne"`
	UserCount      any       `json:"userCount,omitempty"` // an *int, but for defect room-usercount-string
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
	if w.is("room-topic-empty-null") && r.topic == "" {
		out.Topic = nil // a nullable column
	}
	if out.OneToOne {
		peer := r.peer(u)
		if w.is("dm-peer-from-visible-members") {
			// The members query has a default scope that leaves hidden memberships out.
			peer = u
			for _, p := range r.members {
				if p != u && !r.hidden[p] {
					peer = p
					break
				}
			}
		}
		out.Name = peer.display
		out.URL = "/" + peer.username
		out.User = userView(peer, false)
		if w.is("dm-user-no-avatars") {
			out.User.AvatarURLSmall, out.User.AvatarURLMedium = "", "" // a slim projection without the avatar columns
		}
		if w.is("dm-user-last-sender") && len(r.msgs) > 0 {
			out.User = userView(r.msgs[len(r.msgs)-1].from, false) // "who is talking"
		}
		if w.is("dm-user-cached-first-viewer") {
			if first, hit := w.dmUserCache[r]; hit {
				out.User = userView(first, false) // computed once per room, for whoever looked first
			} else {
				w.dmUserCache[r] = peer
			}
		}
		if w.is("room-dm-user-second-member") {
			out.User = userView(r.members[1], false)
		}
		if w.is("room-dm-uri") {
			out.URI = peer.username
		}
		if w.is("room-dm-url-no-slash") {
			out.URL = peer.username // the slash was added only to urls built from a uri
		}
		if w.is("room-kind-one-to-one-underscored") {
			out.PlatformType = "ONE_TO_ONE"
		}
		if w.is("dm-peer-url-display") {
			out.User.URL = "/" + strings.ToLower(strings.ReplaceAll(peer.display, " ", ""))
		}
		if w.is("dm-user-id-membership-row") {
			out.User.ID = "mbr_" + strings.TrimPrefix(r.id, "room_") + strconv.Itoa(indexMember(r.members, peer)) // the membership row's id
		}
	} else {
		out.Name = r.uri
		out.URI = r.uri
		out.URL = "/" + r.uri
		if w.is("room-two-member-user") && len(r.members) == 2 {
			out.User = userView(r.peer(u), false)
		}
	}
	if w.is("room-onetoone-two-members") {
		out.OneToOne = len(r.members) == 2
	}
	if r.kind == kindOrg && w.every("room-kind-flaky", 9) {
		out.PlatformType = kindRepo
	}
	if r.kind == kindChannel {
		if !(w.is("channel-security-needs-topic") && r.topic == "") {
			out.Security = "PUBLIC"
		}
		if w.is("channel-usercount-multi") && len(r.members) > 1 {
			n := len(r.members)
			out.UserCount = &n
		}
		if w.is("channel-usercount-zero") {
			zero := 0
			out.UserCount = &zero
		}
		if w.is("channel-owner-as-user") {
			out.User = userView(r.members[0], false)
		}
	} else {
		n := len(r.members)
		out.UserCount = &n
	}
	if r.v > 0 {
		v := r.v
		out.V = &v
	}
	if n, isCount := out.UserCount.(*int); isCount && w.is("room-usercount-string") {
		out.UserCount = strconv.Itoa(*n) // a COUNT column handed back as text
	}
	for _, m := range r.msgs {
		if m.status && w.is("room-count-skips-status") {
			continue // status updates were sent through the path that raises no counter
		}
		unread := w.unreadFor(m, u)
		if w.is("room-unread-count-includes-own") && m.from == u && r.has(u) {
			unread = true
		}
		if unread {
			out.UnreadItems++
			if w.mentioned(m, u) && !w.mentionGone(m, u) || w.is("room-mentions-count-any") && len(m.r.mentions) > 0 {
				out.Mentions++
			}
		} else if w.is("room-mentions-count-read") && w.mentioned(m, u) && m.from != u {
			out.Mentions++
		}
	}
	if w.is("room-unread-sums-both-lists") {
		out.UnreadItems += out.Mentions // the lengths of both unread lists, added up
	}
	if w.is("room-unread-capped-badge") {
		out.UnreadItems, out.Mentions = min(out.UnreadItems, 99), min(out.Mentions, 99) // the badge shows 99+
	}
	if drift := w.countDrift[r][u]; drift > 0 {
		out.UnreadItems += drift // defect room-count-decrement-per-request: one decrement per request
	}
	if w.is("room-counts-lurk-zero") && r.lurk[u] {
		out.UnreadItems, out.Mentions = 0, 0 // lurking taken for muting the counters
	}
	if w.is("room-counts-cached") {
		if w.countCache[r] == nil {
			w.countCache[r] = map[*member][2]int{}
		}
		if got, hit := w.countCache[r][u]; hit {
			out.UnreadItems, out.Mentions = got[0], got[1]
		} else {
			w.countCache[r][u] = [2]int{out.UnreadItems, out.Mentions}
		}
	}
	seen, found := r.lastAccess[u]
	if !found {
		seen = time.Unix(0, 0)
	}
	if w.is("room-lastaccess-truncated-seconds") {
		seen = seen.Truncate(time.Second) // a seconds column
	}
	out.LastAccessTime = stamp(seen)
	if w.is("room-lastaccess-offset") {
		out.LastAccessTime = seen.Format("2006-01-02T15:04:05.000Z07:00")
	}
	return out
}

type urlJSON struct {
	URL string `json:"url"`
}
type mentionJSON struct {
	ScreenName string `json:"screenName,omitempty"` // never empty but for defect meta-mention-snake-case
	UserID     string `json:"userId,omitempty"`     // never empty but for defects meta-mention-userid-flaky, meta-mention-snake-case
	// defect meta-mention-snake-case: the keys of the organisation and repository serializer
	ScreenNameSnake string `json:"screen_name,omitempty"`
	UserIDSnake     string `json:"user_id,omitempty"`
}
type issueJSON struct {
	Number any `json:"number"` // a string, but for defect meta-issues-int
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
	GV       string         `json:"gv,omitempty"`
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
	out.ReadBy += m.rereads + m.readByBonus
	if w.is("avatar-initials-name-unescaped") {
		initialsAvatars(out.FromUser, m.from)
	}
	if w.is("unread-flag-own-messages") && m.from == u && m.room.has(u) {
		out.Unread = !m.readers[u] // read receipts only, the sender not left out
	}
	for k, v := range m.meta {
		out.Meta[k] = v // defect send-body-extras-into-meta
	}
	if w.is("fromuser-url-by-id") {
		out.FromUser.URL = "/" + m.from.id
	}
	if w.is("readby-caller-excluded") && m.readers[u] {
		out.ReadBy-- // meant as "read by others"
	}
	if w.is("readby-dm-hidden") && m.room.kind == kindOneToOne {
		out.ReadBy = 0 // read receipts were meant to be off in private conversations
	}
	if w.is("unread-flag-mention-only") {
		out.Unread = out.Unread && w.mentioned(m, u) // the flag was read off the mention index
	}
	if w.is("readby-stuck") {
		out.ReadBy = 0
	}
	if w.is("readby-any-reader-one") && out.ReadBy > 1 {
		out.ReadBy = 1 // an "is read" bit
	}
	if w.is("unread-flag-from-last-access") {
		seen := m.room.lastAccess[u]
		out.Unread = m.room.has(u) && m.from != u && m.sent.After(seen) // "new since your last visit"
	}
	if w.is("unread-flag-from-readby") {
		out.Unread = m.room.has(u) && m.from != u && len(m.readers) == 0
	}
	if w.is("fromuser-gv") {
		out.FromUser.GV = strconv.Itoa(m.from.v)
	}
	if w.is("unread-flag-first-member") {
		out.Unread = w.unreadFor(m, m.room.members[0])
	}
	if w.is("unread-flag-cached") {
		if w.flagCache[m] == nil {
			w.flagCache[m] = map[*member]bool{}
		}
		if got, hit := w.flagCache[m][u]; hit {
			out.Unread = got
		} else {
			w.flagCache[m][u] = out.Unread
		}
	}
	if w.every("gv-flaky", 10) {
		out.GV = strconv.Itoa(m.from.v)
	}
	if w.every("meta-flaky", 12) {
		out.Meta["source"] = "cache"
	}
	if w.every("sent-flaky", 15) {
		out.Sent = m.sent.In(time.FixedZone("CET", 3600)).Format("2006-01-02T15:04:05.000-07:00")
	}
	if !m.edited.IsZero() && !w.every("editedat-flaky", 11) {
		e := stamp(m.edited)
		if w.every("editedat-unzoned-flaky", 5) {
			e = m.edited.UTC().Format("2006-01-02T15:04:05.000")
		}
		out.EditedAt = &e
	}
	if out.EditedAt == nil && w.is("editedat-empty-string-new") {
		empty := "" // a string column without NULL
		out.EditedAt = &empty
	}
	for _, s := range m.r.urls {
		out.URLs = append(out.URLs, urlJSON{s})
	}
	for i, p := range m.r.mentions {
		e := mentionJSON{ScreenName: p.username, UserID: p.id}
		if w.is("meta-mention-userid-username") {
			e.UserID = p.username
		}
		if w.is("meta-mention-userid-sender") {
			e.UserID = m.from.id
		}
		if w.is("mention-screenname-as-typed") {
			e.ScreenName = m.r.typed[i]
		}
		if w.every("meta-mention-userid-flaky", 9) {
			e.UserID = ""
		}
		if w.is("meta-mention-screenname-at") {
			e.ScreenName = "@" + e.ScreenName // the token as matched, sign included
		}
		if w.is("meta-mention-snake-case") {
			e.ScreenNameSnake, e.UserIDSnake, e.ScreenName, e.UserID = e.ScreenName, e.UserID, "", ""
		}
		out.Mentions = append(out.Mentions, e)
	}
	if w.is("meta-carries-mentions") && len(m.r.mentions) > 0 {
		out.Meta["mentions"] = len(m.r.mentions)
	}
	if w.is("meta-mentions-dm-empty") && m.room.kind == kindOneToOne {
		out.Mentions = []mentionJSON{} // "in a one-to-one room there is nobody else to mention"
	}
	for _, n := range m.r.issues {
		if w.is("meta-issues-int") {
			k, _ := strconv.Atoi(n)
			out.Issues = append(out.Issues, issueJSON{k})
			continue
		}
		if w.is("meta-issue-number-hash") {
			out.Issues = append(out.Issues, issueJSON{"#" + n}) // the reference as typed
			continue
		}
		out.Issues = append(out.Issues, issueJSON{n})
	}
	if w.is("meta-arrays-null-when-empty") {
		// nil slices, left nil when nothing was found
		if len(out.URLs) == 0 {
			out.URLs = nil
		}
		if len(out.Mentions) == 0 {
			out.Mentions = nil
		}
		if len(out.Issues) == 0 {
			out.Issues = nil
		}
	}
	if w.is("edit-render-cache-per-viewer") && u != m.from {
		// The rendered body is cached per reader; only the author's entry is dropped on edit.
		if w.viewerCache[m] == nil {
			w.viewerCache[m] = map[*member]messageJSON{}
		}
		if hit, found := w.viewerCache[m][u]; found {
			out.Text, out.HTML, out.URLs, out.Mentions, out.Issues = hit.Text, hit.HTML, hit.URLs, hit.Mentions, hit.Issues
			out.EditedAt, out.V = hit.EditedAt, hit.V
		} else {
			w.viewerCache[m][u] = out
		}
	}
	return out
}

// ---- handlers: the user and what belongs to it ----

func showMe(c *call) outcome {
	if c.w.is("me-cached-first") {
		if c.w.meCache == nil {
			c.w.meCache = userView(c.me, false)
		}
		return ok(http.StatusOK, []*userJSON{c.w.meCache})
	}
	u := userView(c.me, false)
	if c.w.is("me-list-accumulates") {
		c.w.meList = append(c.w.meList, u) // a buffer kept between calls
		return ok(http.StatusOK, c.w.meList)
	}
	if c.w.is("me-url-no-slash") {
		u.URL = c.me.username
	}
	if c.w.is("avatar-initials-name-unescaped") {
		initialsAvatars(u, c.me)
	}
	if c.w.is("me-url-api-path") {
		u.URL = "/v1/user/" + c.me.id // the API's self link
	}
	if c.w.is("me-username-displayname-swapped") {
		u.Username, u.DisplayName = u.DisplayName, u.Username // a positional constructor, reordered
	}
	if c.w.every("me-avatar-flaky", 7) {
		u.AvatarURLMedium = "/u/" + url.PathEscape(c.me.username) + "?s=128"
	}
	if c.w.is("me-shared-buffer-flaky") {
		prev := c.w.meLast
		c.w.meLast = c.me
		if prev != nil && c.w.every("me-shared-buffer-flaky", 4) {
			u = userView(prev, false) // the buffer still held the previous answer
		}
	}
	if c.w.is("me-query-token-bare-object") && c.viaQuery {
		return ok(http.StatusOK, u) // the legacy query-token route answers the record itself
	}
	if c.w.is("me-v-string") {
		type versioned struct {
			*userJSON
			V string `json:"v"`
		}
		return ok(http.StatusOK, []versioned{{u, strconv.Itoa(c.me.v)}})
	}
	return ok(http.StatusOK, []*userJSON{u})
}

func listRooms(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	if hit, found := c.w.roomsCache[c.me]; found && c.w.is("rooms-list-cached-until-send") {
		return ok(http.StatusOK, hit)
	}
	var mine []*room
	noDM := c.w.every("rooms-dm-missing-flaky", 13)
	unfiltered := c.w.every("hide-filter-skipped-flaky", 6)
	for _, r := range c.w.rooms {
		if noDM && r.kind == kindOneToOne {
			continue
		}
		if c.w.is("rooms-drop-slashed") && strings.Contains(r.uri, "/") {
			continue // meant to leave channels out
		}
		if c.w.is("rooms-lurk-dropped") && r.lurk[c.me] {
			continue // lurked rooms were taken for muted ones
		}
		if c.w.is("rooms-empty-dropped") && len(r.msgs) == 0 {
			continue // the list was built from the rooms' latest messages
		}
		if c.w.is("rooms-repo-needs-grant") && r.kind == kindRepo && c.me.grantState != grantYes {
			continue // repository rooms were joined through the private-access grant
		}
		if c.w.is("rooms-org-owner-only") && r.kind == kindOrg && c.w.orgOwner(r) != c.me {
			continue // organisation rooms were joined through the owner's membership
		}
		if r.has(c.me) && (!r.hidden[c.me] || unfiltered) {
			mine = append(mine, r)
		}
	}
	// Most recently visited first.
	sort.SliceStable(mine, func(i, j int) bool {
		return mine[i].lastAccess[c.me].After(mine[j].lastAccess[c.me])
	})
	if c.w.is("rooms-keyed-by-access-time") {
		// The rooms were sorted through a map keyed by their access time: rooms visited at the same instant collapse.
		byTime := map[int64]*room{}
		var keys []int64
		for _, r := range mine {
			k := r.lastAccess[c.me].UnixNano()
			if _, dup := byTime[k]; !dup {
				keys = append(keys, k)
			}
			byTime[k] = r
		}
		mine = mine[:0]
		for _, k := range keys {
			mine = append(mine, byTime[k])
		}
	}
	if c.w.is("rooms-list-delivers-as-read") {
		for _, r := range mine {
			if r.kind == kindOneToOne {
				for _, m := range r.msgs {
					c.w.markOne(m, c.me) // the delivery receipt of the sync was stored as a read receipt
				}
			}
		}
	}
	out := make([]roomJSON, 0, len(mine))
	zero := c.w.every("room-counts-zero-flaky", 5)
	epoch := c.w.every("room-lastaccess-epoch-flaky", 5)
	for _, r := range mine {
		v := c.w.roomView(r, c.me)
		if c.w.is("channel-security-rooms-list") {
			v.Security = "" // only the channels handler was meant to fill it
		}
		if zero {
			v.UnreadItems, v.Mentions = 0, 0 // the counters timed out and defaulted
		}
		if epoch {
			v.LastAccessTime = stamp(time.Unix(0, 0)) // the access-time cache missed; its zero value was written
		}
		if c.w.is("room-kind-from-uri-slash") && r.kind != kindOneToOne {
			v.PlatformType = kindOrg
			if strings.Contains(r.uri, "/") {
				v.PlatformType = kindRepo // owner/name was taken for a repository
			}
		}
		if c.w.is("rooms-url-path-escaped") && r.kind != kindOneToOne {
			v.URL = "/" + url.PathEscape(r.uri) // the uri escaped as one path segment
		}
		if c.w.is("channel-usercount-in-rooms-list") && r.kind == kindChannel {
			n := len(r.members) // the rooms list fills every counter of a group room
			v.UserCount = &n
		}
		if c.w.is("room-lastaccess-cached-first-list") {
			if c.w.accessCache[c.me] == nil {
				c.w.accessCache[c.me] = map[*room]string{}
			}
			if at, hit := c.w.accessCache[c.me][r]; hit {
				v.LastAccessTime = at // refreshed only by marking read
			} else {
				c.w.accessCache[c.me][r] = v.LastAccessTime
			}
		}
		out = append(out, v)
	}
	if c.w.every("room-counts-zipped-flaky", 5) {
		// A cold count cache: the counts come from a GROUP BY that has no row for rooms
		// without unread messages, and are zipped with the rooms by position.
		var counts [][2]int
		for _, v := range out {
			if v.UnreadItems > 0 {
				counts = append(counts, [2]int{v.UnreadItems, v.Mentions})
			}
		}
		for i := range out {
			out[i].UnreadItems, out[i].Mentions = 0, 0
			if i < len(counts) {
				out[i].UnreadItems, out[i].Mentions = counts[i][0], counts[i][1]
			}
		}
	}
	if c.w.is("rooms-list-cached-until-send") {
		c.w.roomsCache[c.me] = out
	}
	if c.w.is("room-dm-uri-empty") || c.w.is("room-user-null-group") || c.w.is("room-lastaccess-millis-after-write") {
		objs := asObjects(out)
		for i, o := range objs {
			r := mine[i]
			if c.w.is("room-dm-uri-empty") && r.kind == kindOneToOne {
				o["uri"] = "" // written for every room
			}
			if c.w.is("room-user-null-group") && r.kind != kindOneToOne {
				o["user"] = nil // a nullable field, not omitted
			}
			if c.w.is("room-lastaccess-millis-after-write") && c.w.writeTouched[r][c.me] {
				o["lastAccessTime"] = r.lastAccess[c.me].UnixMilli() // the write path stores a number
			}
		}
		return ok(http.StatusOK, objs)
	}
	return ok(http.StatusOK, out)
}

// initialsAvatars points the avatars of u at the initials service, built
// from the display name without escaping it (defect avatar-initials-name-unescaped).
func initialsAvatars(u *userJSON, p *member) {
	u.AvatarURLSmall = "https://avatars.chat.test/initials?name=" + p.display + "&s=60"
	u.AvatarURLMedium = "https://avatars.chat.test/initials?name=" + p.display + "&s=128"
}

func indexMember(ms []*member, p *member) int {
	for i, m := range ms {
		if m == p {
			return i
		}
	}
	return -1
}

// orgOwner is the first member of the organisation whose room r is.
func (w *world) orgOwner(r *room) *member {
	for _, g := range w.orgs {
		if g.room == r && len(g.people) > 0 {
			return g.people[0]
		}
	}
	return nil
}

func hideRoom(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	if c.w.is("hide-demands-json-body") {
		if mt, _, err := mime.ParseMediaType(c.ctype); err != nil || mt != "application/json" {
			return complain(http.StatusUnsupportedMediaType, "send the body as application/json") // the body middleware runs for every method but GET
		}
	}
	r, found := c.memberRoom(c.args[1])
	if !found {
		return nothing()
	}
	if c.w.is("hide-dm-refused") && r.kind == kindOneToOne {
		return complain(http.StatusBadRequest, "a one-to-one conversation cannot be left") // hiding goes through the leave-room path
	}
	switch {
	case c.w.is("hide-ignored"):
	case c.w.is("hide-needs-all-read") && len(c.w.unreadView(r, c.me).Chat) > 0:
		// a room with unread messages is kept so that nothing is missed
	case c.w.is("hide-dm-hides-shared-rooms") && r.kind == kindOneToOne:
		// Hiding a conversation went through the "block this person" path.
		peer := r.peer(c.me)
		for _, x := range c.w.rooms {
			if x.has(c.me) && x.has(peer) {
				x.hidden[c.me] = true
			}
		}
		c.w.hidAny[c.me] = true
	case c.w.is("hide-for-everyone"):
		for _, p := range r.members {
			r.hidden[p] = true
		}
	case c.w.is("hide-dm-peer") && r.kind == kindOneToOne:
		r.hidden[r.peer(c.me)] = true
	case c.w.is("hide-second-ignored") && c.w.hidAny[c.me] && !r.hidden[c.me]:
	case c.w.is("hide-toggle") && r.hidden[c.me]:
		r.hidden[c.me] = false // the flag is flipped, not set
	case c.w.every("hide-lost-flaky", 3):
	case c.w.is("hide-matches-uri-prefix"):
		// UPDATE ... WHERE user = ? AND uri LIKE :uri || '%'
		for _, x := range c.w.rooms {
			if x.has(c.me) && strings.HasPrefix(x.uri, r.uri) {
				x.hidden[c.me] = true
			}
		}
		c.w.hidAny[c.me] = true
	case c.w.is("hide-next-room"):
		var visible []*room
		at := 0
		for _, x := range c.w.rooms {
			if x.has(c.me) && !x.hidden[c.me] {
				if x == r {
					at = len(visible)
				}
				visible = append(visible, x)
			}
		}
		if len(visible) > 0 {
			visible[(at+1)%len(visible)].hidden[c.me] = true // index advanced once too often
		}
	default:
		r.hidden[c.me] = true
		c.w.hidAny[c.me] = true
	}
	if c.w.is("hide-answer-404-after-apply") {
		return nothing() // the answer looks the room up among the visible rooms
	}
	o := ok(http.StatusAccepted, map[string]any{"roomId": r.id, "hidden": true})
	if c.w.is("ctype-hide-plain") {
		o.ctype = "text/plain; charset=utf-8"
	}
	return o
}

type unreadJSON struct {
	Chat    []string `json:"chat"`
	Mention []string `json:"mention"`
}

func (w *world) unreadView(r *room, u *member) unreadJSON {
	out := unreadJSON{Chat: []string{}, Mention: []string{}}
	if w.is("unread-null-arrays") {
		out = unreadJSON{}
	}
	msgs := r.msgs
	if w.is("unread-list-all-rooms") {
		// The query filtered on the user and forgot the room.
		msgs = nil
		for _, x := range w.rooms {
			if x.has(u) {
				msgs = append(msgs, x.msgs...)
			}
		}
	}
	if w.is("unread-newest-dropped") && len(msgs) > 0 {
		msgs = msgs[:len(msgs)-1]
	}
	if w.is("unread-scans-newest-page") && len(msgs) > defaultLimit {
		msgs = msgs[len(msgs)-defaultLimit:] // one default page of the newest
	}
	chatRows := 0 // defect unread-chat-oldest-100
	for _, m := range msgs {
		if w.is("unread-status-skipped") && m.status {
			continue // status updates were taken for system lines
		}
		if w.is("unread-old-expired") && time.Since(m.sent) > 72*time.Hour {
			continue // the unread index keeps three days
		}
		mentioned := w.mentioned(m, u)
		if w.is("unread-mention-first-only") {
			mentioned = len(m.r.mentions) > 0 && m.r.mentions[0] == u
		}
		if w.is("unread-mention-case") && mentioned {
			mentioned = false
			for i, p := range m.r.mentions {
				if p == u && m.r.typed[i] == u.username {
					mentioned = true
				}
			}
		}
		if w.is("mark-read-mention-sticky") && mentioned && m.from != u && m.room.has(u) {
			out.Mention = append(out.Mention, m.id)
			mentioned = false
		}
		if w.unreadFor(m, u) {
			if w.is("unread-mention-latest-only") && mentioned && !w.mentionGone(m, u) {
				out.Mention = out.Mention[:0] // one last-mention pointer per user and room
			}
			if !(w.is("unread-mention-excluded-from-chat") && mentioned) && !(w.is("unread-chat-oldest-100") && chatRows >= 100) {
				out.Chat = append(out.Chat, m.id) // defect unread-chat-oldest-100: ORDER BY sent LIMIT 100
				chatRows++
			}
			if mentioned && !w.mentionGone(m, u) {
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
	out := c.w.unreadView(r, c.me)
	if c.w.is("unread-cached-until-mark") {
		// Cached per user and room; only the user's own marks drop the entry.
		if hit, found := c.w.unreadCache[c.me][r]; found {
			out = hit
		} else {
			if c.w.unreadCache[c.me] == nil {
				c.w.unreadCache[c.me] = map[*room]unreadJSON{}
			}
			c.w.unreadCache[c.me][r] = out
		}
	}
	if lag, found := c.w.preMark[c.me][r]; found && c.w.every("unread-replica-lag-flaky", 4) {
		out = lag // read from a replica that has not seen the latest mark yet
	}
	if c.w.is("ctype-unread-missing") {
		o := ok(http.StatusOK, out)
		o.noCtype = true
		return o
	}
	if c.w.is("unread-get-clears") {
		for _, id := range out.Chat {
			c.w.markOne(c.w.msgByID[id], c.me)
		}
	}
	if c.w.every("unread-chat-flaky", 7) {
		out.Chat = []string{}
	}
	if c.w.every("unread-mention-dropped-flaky", 4) {
		out.Mention = []string{} // the mention index answered from a cold shard
	}
	if c.w.every("unread-ids-doubled-flaky", 5) {
		out.Chat = append(append([]string(nil), out.Chat...), out.Chat...) // both shards answered the UNION ALL
		sort.Strings(out.Chat)
	}
	if c.w.is("unread-chat-message-objects") {
		chat := make([]messageJSON, 0, len(out.Chat))
		for _, id := range out.Chat {
			chat = append(chat, c.w.messageView(c.w.msgByID[id], c.me)) // the messages endpoint's serializer
		}
		return ok(http.StatusOK, map[string]any{"chat": chat, "mention": out.Mention})
	}
	if c.w.is("unread-keys-untagged") {
		return ok(http.StatusOK, struct{ Chat, Mention []string }{out.Chat, out.Mention}) // a struct without json tags
	}
	if c.w.is("unread-mention-omitted-empty") && len(out.Mention) == 0 {
		return ok(http.StatusOK, map[string][]string{"chat": out.Chat}) // empty lists omitted
	}
	return ok(http.StatusOK, out)
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
	if c.readSnap != nil {
		// The read-state document loaded before the lock is saved back with this request's marks only.
		for _, m := range r.msgs {
			if snap, loaded := c.readSnap[m]; loaded {
				m.readers = snap
			}
		}
	}
	if c.w.is("mark-read-empty-marks-all") && len(ids) == 0 {
		ids = nil
		for _, m := range r.msgs {
			ids = append(ids, m.id) // WHERE id IN (:ids) left out for an empty list
		}
	}
	if c.w.is("mark-read-dedup-drops-last") && len(ids) > 1 {
		sorted := append([]string(nil), ids...)
		sort.Strings(sorted)
		uniq := []string{}
		for i := 0; i+1 < len(sorted); i++ { // the last one is never compared, so never kept
			if sorted[i] != sorted[i+1] {
				uniq = append(uniq, sorted[i])
			}
		}
		ids = uniq
	}
	if c.w.is("mark-read-duplicate-rolls-back") {
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				ids = nil // the batch insert hit its unique key and was rolled back
				break
			}
			seen[id] = true
		}
	}
	if c.w.is("unread-replica-lag-flaky") {
		if c.w.preMark[c.me] == nil {
			c.w.preMark[c.me] = map[*room]unreadJSON{}
		}
		c.w.preMark[c.me][r] = c.w.unreadView(r, c.me)
	}
	if c.w.is("mark-read-first-only") && len(ids) > 1 {
		ids = ids[:1]
	}
	if c.w.every("mark-read-flaky", 8) {
		ids = nil
	}
	recent := r.msgs
	if c.w.is("mark-read-recent-window") && len(recent) > 50 {
		recent = recent[len(recent)-50:] // only the recent messages are kept at hand
	}
	touched := false
	marked := 0
	newlyRead := 0   // defect room-count-decrement-per-request
	var newest *msg  // defect room-lastaccess-from-marked-message
	var batch []*msg // defect readby-raised-by-batch-size
	for _, id := range ids {
		m := c.w.msgByID[id]
		if m == nil || m.room != r {
			continue // ids outside this room are quietly ignored
		}
		if c.w.is("mark-read-recent-window") && !containsMsg(recent, m) {
			continue
		}
		if c.w.is("mark-read-stops-at-read") && !c.w.unreadFor(m, c.me) {
			break // meant to stop at the end of the unread run
		}
		touched = true
		marked++
		if c.w.unreadFor(m, c.me) {
			newlyRead++
			batch = append(batch, m)
		}
		if newest == nil || m.seq > newest.seq {
			newest = m
		}
		if c.w.is("mark-read-mention-stays-chat") && c.w.mentioned(m, c.me) && c.w.unreadFor(m, c.me) {
			// The mention index was cleared; the chat index was keyed with the mention flag and missed.
			if c.w.mentionCleared[m] == nil {
				c.w.mentionCleared[m] = map[*member]bool{}
			}
			c.w.mentionCleared[m][c.me] = true
			continue
		}
		c.w.markOne(m, c.me)
		if c.w.is("mark-read-up-to") {
			for _, o := range r.msgs {
				if o.seq < m.seq {
					c.w.markOne(o, c.me) // a read watermark
				}
			}
		}
	}
	if touched && c.w.is("mark-all-read") {
		for _, m := range r.msgs {
			c.w.markOne(m, c.me)
		}
	}
	if newlyRead > 1 && c.w.is("room-count-decrement-per-request") {
		if c.w.countDrift[r] == nil {
			c.w.countDrift[r] = map[*member]int{}
		}
		c.w.countDrift[r][c.me] += newlyRead - 1 // the counter went down once for the request
	}
	if c.w.is("readby-raised-by-batch-size") {
		for _, m := range batch {
			if m.readers[c.me] {
				m.readByBonus += len(ids) - 1 // readBy = readBy + :count, the size of the batch
			}
		}
	}
	c.touch(r)
	if newest != nil && c.w.is("room-lastaccess-from-marked-message") {
		r.lastAccess[c.me] = newest.sent // the access time is taken from the read watermark
	}
	delete(c.w.unreadCache[c.me], r) // defect unread-cached-until-mark
	if c.w.is("room-lastaccess-cached-first-list") {
		delete(c.w.accessCache[c.me], r)
	}
	if c.w.is("mark-read-body-text") {
		o := ok(http.StatusOK, nil)
		o.raw = []byte("marked " + strconv.Itoa(marked) + " of " + strconv.Itoa(len(ids)) + "\n")
		return o
	}
	return ok(http.StatusOK, c.w.unreadView(r, c.me))
}

type orgJSON struct {
	ID        any    `json:"id"`             // an int, but for defect org-id-string
	Name      any    `json:"name,omitempty"` // a string; nil only for defect org-name-from-room
	AvatarURL string `json:"avatar_url"`
	Room      any    `json:"room,omitempty"` // a *roomJSON, but for defect org-room-empty-object
}

func listOrgs(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	if c.w.is("v1-orgs-gone-410") && !c.v2 {
		return complain(http.StatusGone, "moved to /v2/user/:userId/orgs") // the /v1 route was retired with the new code-host integration
	}
	out := []orgJSON{}
	relative := c.w.every("org-avatar-flaky", 6)
	var last *roomJSON
	for _, g := range c.w.orgs {
		if !contains(g.people, c.me) {
			continue
		}
		e := orgJSON{ID: g.id, Name: g.name, AvatarURL: "https://avatars.chat.test/o/" + url.PathEscape(g.name) + ".png"}
		if c.w.is("org-id-string") {
			e.ID = strconv.Itoa(g.id)
		}
		if c.w.is("org-name-from-room") {
			e.Name = nil // the name was read off the joined room
			if g.room != nil {
				e.Name = c.w.roomView(g.room, c.me).Name
			}
		}
		if relative {
			e.AvatarURL = "/o/" + url.PathEscape(g.name) + ".png"
		}
		if c.w.is("org-avatar-protocol-relative") {
			e.AvatarURL = "//avatars.chat.test/o/" + url.PathEscape(g.name) + ".png" // scheme left to the page
		}
		if g.room != nil {
			who := c.me
			if c.w.is("org-room-counts-first-member") {
				who = g.people[0]
			}
			v := c.w.roomView(g.room, who)
			if c.w.is("org-room-url-by-id") {
				v.URL = "/rooms/" + g.room.id
			}
			if c.w.is("org-room-kind-lowercase") {
				v.PlatformType = strings.ToLower(v.PlatformType)
			}
			if c.w.is("org-room-counts-unset") {
				v.UnreadItems, v.Mentions = 0, 0 // joined without the counters
			}
			e.Room = &v
			last = &v
		} else if c.w.is("org-room-stale-var") && last != nil {
			e.Room = last
		} else if c.w.is("org-room-empty-object") {
			e.Room = struct{}{} // a zero room value instead of none
		}
		out = append(out, e)
	}
	return ok(http.StatusOK, out)
}

type repoJSON struct {
	ID      any       `json:"id"` // an int, but for defect repo-id-shadowed-by-room
	Name    string    `json:"name"`
	URI     any       `json:"uri,omitempty"`     // a string; nil only for defect repo-uri-from-room
	Private any       `json:"private,omitempty"` // a bool; nil only for defect repo-private-omitempty
	Room    *roomJSON `json:"room,omitempty"`
}

func listRepos(c *call) outcome {
	if o, fine := c.self(c.args[0]); !fine {
		return o
	}
	if c.w.is("repo-cache-global") && c.w.repoCache != nil {
		return ok(http.StatusOK, c.w.repoCache)
	}
	out := []repoJSON{}
	borrow := c.w.every("repo-room-flaky", 7)
	withhold := c.me.grantState == grantYes && c.w.every("repo-grant-flaky", 5)
	granted := c.me.grantState == grantYes
	if c.viaQuery && c.w.is("repo-grant-skipped-query-auth") {
		granted = false // the grant is loaded by the header-token middleware only
	}
	if c.w.is("repo-grant-of-last-lister") {
		// The grant lives in a variable shared by all requests; only a grant ever sets it.
		if granted {
			c.w.lastGrant = true
		}
		granted = c.w.lastGrant
	}
	if granted && c.w.is("repo-private-needs-query-param") && c.query.Get("type") != "all" {
		granted = false // private repositories only on request, as on the code host's API
	}
	if !granted && c.w.every("repo-private-leak-flaky", 4) {
		granted = true // a grant-cache miss defaulted to granted
	}
	if c.w.is("repo-grant-lazy-first-list") && !c.w.grantLoaded[c.me] {
		granted = false // the grant is loaded after the list was built
		c.w.grantLoaded[c.me] = true
	}
	for _, p := range c.w.repos {
		if !contains(p.people, c.me) {
			continue
		}
		if p.private && !granted && !c.w.is("private-leak") && !(c.viaQuery && c.w.is("repo-private-leak-query-auth")) {
			continue
		}
		if p.private && p.room == nil && c.w.is("repo-private-roomless-hidden") {
			continue
		}
		if p.private && withhold {
			continue // the grant was read from an expired cache entry
		}
		e := repoJSON{ID: p.id, Name: p.name, URI: p.uri, Private: p.private}
		if !p.private && c.w.is("repo-private-omitempty") {
			e.Private = nil
		}
		if c.w.is("repo-private-as-string") {
			e.Private = strconv.FormatBool(p.private) // a text column
		}
		if c.w.is("repo-uri-from-room") {
			e.URI = nil // the uri was read off the joined room
			if p.room != nil {
				e.URI = p.room.uri
			}
		}
		if p.room != nil {
			v := c.w.roomView(p.room, c.me)
			e.Room = &v
			if c.w.is("repo-id-shadowed-by-room") {
				e.ID = p.room.id // SELECT * over the join: the room's id column shadows the repository's
			}
		} else if borrow && len(out) > 0 {
			e.Room = out[len(out)-1].Room
		} else if c.w.is("repo-room-owner-match") {
			// The room was looked up by the owner part of the uri.
			owner, _, _ := strings.Cut(p.uri, "/")
			for _, r := range c.w.rooms {
				if r.has(c.me) && r.kind != kindOneToOne && strings.HasPrefix(r.uri, owner+"/") {
					v := c.w.roomView(r, c.me)
					e.Room = &v
					break
				}
			}
		}
		out = append(out, e)
	}
	if c.w.is("repo-cache-global") {
		c.w.repoCache = out
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
		v := c.w.roomView(r, c.me)
		if c.w.is("channel-security-missing") {
			v.Security = ""
		}
		if c.w.is("channel-list-url-short-name") {
			_, name, _ := strings.Cut(r.uri, "/")
			v.URL = "/" + name // built from the channel's own name
		}
		out = append(out, v)
	}
	if c.w.every("channels-empty-flaky", 5) {
		out = []roomJSON{} // the code host's call timed out and the empty fallback was served
	}
	if c.w.every("channel-kind-flaky", 8) {
		for i := range out {
			out[i].PlatformType = "CHANNEL"
		}
	}
	if c.w.is("channel-security-as-flag") {
		objs := asObjects(out)
		for _, o := range objs {
			if _, has := o["security"]; has {
				o["security"] = true // the public flag of the channel row
			}
		}
		return ok(http.StatusOK, objs)
	}
	if c.w.is("channels-single-unwrapped") && len(out) == 1 {
		return ok(http.StatusOK, out[0]) // a serializer that collapses one-element lists
	}
	return ok(http.StatusOK, out)
}

// asObjects re-reads a list answer as generic JSON objects, for defects that
// rewrite fields beyond the types of the shapes.
func asObjects(v any) []map[string]any {
	raw, _ := json.Marshal(v)
	var out []map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
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
	if c.w.is("list-previous-room-flaky") {
		// The query object is shared between requests; now and then it still holds the previous request's room.
		prev := c.w.listRoomPrev
		c.w.listRoomPrev = r
		if prev != nil && prev != r && c.w.every("list-previous-room-flaky", 7) {
			r = prev
		}
	}
	limit, fine := intParam(c.query, "limit", defaultLimit)
	if !fine || limit < 1 {
		return complain(http.StatusUnprocessableEntity, "limit must be a positive integer")
	}
	capped := !c.w.is("limit-unbounded") && !(c.w.is("limit-cap-skip") && c.query.Has("skip")) &&
		!(c.w.is("limit-cap-search") && c.query.Get("q") != "") &&
		!(c.w.is("limit-cap-around") && c.query.Get("aroundId") != "")
	if c.w.is("limit-int32-wrap-unbounded") && int32(limit) <= 0 {
		capped = false
		limit = 1 << 30 // the 32-bit page size wrapped to zero or below, which means "no limit"
	}
	if limit > maxLimit && capped {
		limit = maxLimit
	}
	if c.w.is("limit-compared-as-text") && c.query.Get("limit") > strconv.Itoa(maxLimit) {
		limit = maxLimit // the bound came from the environment as text and was compared as text
	}
	if limit >= maxLimit && c.w.is("limit-99") {
		limit = maxLimit - 1
	}
	skip, fine := intParam(c.query, "skip", 0)
	if !fine || skip < 0 || skip > maxSkip || skip == maxSkip && c.w.is("skip-5000-refused") {
		return complain(http.StatusUnprocessableEntity, "skip must be an integer from 0 to 5000")
	}
	if c.w.is("skip-bound-includes-limit") && skip+limit > maxSkip {
		// The bound was put on the last row the scan reaches.
		return complain(http.StatusUnprocessableEntity, "skip must be an integer from 0 to 5000")
	}
	if c.w.is("skip-deep-timeout") && skip > 1000 {
		return complain(http.StatusGatewayTimeout, "the query took too long") // a deep OFFSET scan hits the statement timeout
	}
	if c.w.is("skip-over-count-refused") && skip > len(r.msgs) {
		return complain(http.StatusUnprocessableEntity, "skip is past the last message")
	}
	if skip > 0 && c.w.is("skip-off-by-one") {
		skip--
	}
	if c.w.is("skip-taken-as-page-number") {
		skip *= limit // the offset was taken for a page number
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
	if !fineR && c.w.is("around-other-room") {
		// The anchor was checked for access, not for belonging to this room.
		if m := c.w.msgByID[c.query.Get("aroundId")]; m != nil && m.room.has(c.me) {
			around, fineR = m, true
		}
	}
	if !fineB || !fineA || !fineR {
		return complain(http.StatusUnprocessableEntity, "anchor message is not in this room")
	}
	if around != nil && (before != nil || after != nil) {
		return complain(http.StatusUnprocessableEntity, "aroundId cannot be combined with beforeId or afterId")
	}
	if around != nil && c.w.every("around-old-node-flaky", 4) {
		around = nil // served by a node of the previous release, which does not know aroundId
	}
	if before != nil && !c.query.Has("limit") && c.w.is("before-needs-limit") {
		before = nil // the cursor query is built only in the branch for explicit page sizes
	}
	if after != nil && before == nil && c.w.every("after-cursor-dropped-flaky", 5) {
		after = nil // a retried query lost its cursor
	}
	if before != nil && c.w.is("before-limit-default") {
		limit = defaultLimit // the beforeId query was built without the limit
	}
	if before != nil && skip > 0 && c.w.is("before-dropped-with-skip") {
		before = nil // with an offset the query runs in offset mode, without the cursor
	}
	if before != nil && limit > 50 && c.w.is("before-limit-capped-50") {
		limit = 50 // the history page size
	}

	// Search: every whitespace-separated term must occur in the text, ignoring case.
	q := c.query.Get("q")
	if c.w.is("search-plus-not-space") {
		q = ""
		for _, kv := range strings.Split(c.rawQ, "&") {
			if v, found := strings.CutPrefix(kv, "q="); found {
				q, _ = url.PathUnescape(v) // path rules: '+' is not a space
			}
		}
	}
	if c.w.is("search-query-html-escaped") {
		q = html.EscapeString(q) // input "sanitised" before use
	}
	terms := strings.Fields(strings.ToLower(q))
	if c.w.is("search-ascii-fold-query") {
		terms = strings.Fields(asciiLower(q))
	}
	if len(terms) > 0 && c.w.every("search-flaky", 8) {
		terms = nil
	}
	if len(terms) > 0 && c.w.is("search-ignores-limit") {
		limit = defaultLimit // the search branch builds its own query with the default page size
	}
	halfShard := len(terms) > 0 && c.w.every("search-shard-missing-flaky", 4)
	source := r.msgs
	if c.w.is("history-cap-300") && len(source) > 300 {
		source = source[len(source)-300:] // only the hot window is kept in memory
	}
	if around != nil && around.room != r {
		source = around.room.msgs // defect around-other-room
	}
	if len(terms) > 0 && c.w.is("search-global") {
		source = nil
		for _, other := range c.w.rooms {
			source = append(source, other.msgs...)
		}
		sort.Slice(source, func(i, j int) bool { return source[i].seq < source[j].seq })
	}
	if len(terms) > 0 && c.w.is("search-filters-page") {
		source = source[max(0, len(source)-limit):] // the page is cut before it is filtered
	}
	if c.w.is("list-shows-every-version") {
		// Every stored version is selected, the earlier ones just before the current one.
		var all []*msg
		for _, m := range source {
			for i := range c.w.versions[m] {
				all = append(all, &c.w.versions[m][i])
			}
			all = append(all, m)
		}
		source = all
	}
	pool := make([]*msg, 0, len(source))
	for _, m := range source {
		if halfShard && m.seq%2 == 0 {
			continue // the shard holding even sequence numbers timed out
		}
		if len(terms) > 0 && m.status && c.w.is("search-status-excluded") {
			continue
		}
		if len(terms) > 0 && m.from == c.me && c.w.is("search-skips-own-messages") {
			continue // the search index was built from incoming messages
		}
		low := strings.ToLower(m.indexed)
		if c.w.is("search-lowercase-query-only") {
			low = m.indexed
		}
		if c.w.is("search-indexes-preview-only") {
			if runes := []rune(low); len(runes) > 140 {
				low = string(runes[:140]) // the preview column is what is indexed
			}
		}
		if c.w.is("search-terms-union-dup") && len(terms) > 1 {
			for _, t := range terms {
				if strings.Contains(low, t) {
					pool = append(pool, m) // one hit list per word, concatenated
				}
			}
			continue
		}
		hit := true
		for _, t := range terms {
			if !strings.Contains(low, t) {
				hit = false
				break
			}
		}
		if len(terms) > 0 && c.w.is("search-token-keeps-punctuation") {
			// Whole words, split on white space only.
			words := map[string]bool{}
			for _, f := range strings.Fields(low) {
				words[f] = true
			}
			hit = true
			for _, t := range terms {
				hit = hit && words[t]
			}
		}
		if len(terms) > 0 && c.w.is("search-prefix-of-text") {
			hit = strings.HasPrefix(low, strings.Join(terms, " ")) // a prefix index
		}
		if c.w.is("search-short-words-unindexed") {
			for _, t := range terms {
				if utf8.RuneCountInString(t) < 4 {
					hit = false // below the index's minimum word length
				}
			}
		}
		if c.w.is("search-digits-split") {
			for _, t := range terms {
				if strings.ContainsAny(t, "0123456789") {
					hit = false // the index holds runs of letters; a word with digits is never a key
				}
			}
		}
		if hit {
			pool = append(pool, m)
		}
		if len(terms) > 0 && c.w.is("search-edit-indexed-twice") {
			for _, old := range m.oldIndexed {
				stale := true
				for _, t := range terms {
					if !strings.Contains(strings.ToLower(old), t) {
						stale = false
						break
					}
				}
				if stale {
					pool = append(pool, m) // the entry of the text before the edit was never removed
				}
			}
		}
	}
	if len(terms) > 0 && c.w.is("search-results-cached") {
		key := r.id + "?" + c.rawQ
		if hit, found := c.w.searchCache[key]; found {
			pool = hit // answered from the result cache, never invalidated
		} else {
			c.w.searchCache[key] = pool
		}
	}

	var page []*msg
	if around != nil && limit < 3 && c.w.is("around-min-window-three") {
		limit = 3 // the window always takes a neighbour on each side
	}
	if around != nil {
		// Window of up to limit lines placed around the anchor's position.
		pos := sort.Search(len(pool), func(i int) bool { return pool[i].seq >= around.seq })
		if c.w.is("around-mirrored") && len(pool) > 0 {
			pos = len(pool) - 1 - pos // counted from the newest end
		}
		start := pos - limit/2
		if c.w.is("around-limit-one-neighbour") {
			start = pos - (limit+1)/2
		}
		if start < 0 {
			start = 0
		}
		end := start + limit
		if end > len(pool) {
			end = len(pool)
			start = max(0, end-limit)
		}
		if c.w.is("around-limit-one-empty") {
			// limit/2 on each side of the anchor, the end excluded.
			start, end = max(0, pos-limit/2), min(len(pool), pos+limit/2)
		}
		if c.w.is("around-window-limit-plus-one") {
			// limit/2 on each side of the anchor, and the anchor itself.
			start, end = max(0, pos-limit/2), min(len(pool), pos+limit/2+1)
		}
		page = append(page, pool[start:end]...)
		if c.w.is("around-time-window-oldest-cut") {
			// WHERE sent BETWEEN anchor - 1h AND anchor + 1h ORDER BY sent LIMIT :limit
			var near []*msg
			for _, m := range pool {
				if d := m.sent.Sub(around.sent); d >= -time.Hour && d <= time.Hour {
					near = append(near, m)
				}
			}
			page = near[:min(limit, len(near))]
		}
		if c.w.is("around-gap-after-anchor") && pos+1 < end {
			// The second half was fetched after the anchor with a skip of one.
			from := pos + 2
			page = append(append([]*msg(nil), pool[start:pos+1]...), pool[min(from, len(pool)):min(from+end-pos-1, len(pool))]...)
		}
		if c.w.is("around-newest-drops-anchor") && len(pool) > 0 && pool[len(pool)-1] == around {
			// Nothing follows the anchor: the window was cut off at it, exclusively.
			page = append([]*msg(nil), pool[max(0, len(pool)-limit):len(pool)-1]...)
		}
		if c.w.is("around-anchor-twice") && len(page) >= 2 {
			if at := indexMsg(page, around); at >= 0 {
				// The first half was taken up to and including the anchor, then the anchor was added again.
				twice := append(append(append([]*msg(nil), page[:at+1]...), around), page[at+1:]...)
				if twice[len(twice)-1] != around {
					twice = twice[:len(twice)-1]
				} else {
					twice = twice[1:]
				}
				page = twice
			}
		}
		if c.w.is("around-mirrored") && len(page) > 0 && !containsMsg(page, around) {
			page[len(page)/2] = around
		}
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
		if before != nil && c.w.is("before-compares-ids") {
			kept := make([]*msg, 0, len(pool))
			for _, m := range pool {
				if m.id < before.id { // ids taken for time-ordered ones
					kept = append(kept, m)
				}
			}
			pool = kept
		}
		idsAfter := after != nil && c.w.is("after-compares-ids")
		if idsAfter {
			kept := make([]*msg, 0, len(pool))
			for _, m := range pool {
				if m.id > after.id { // ids taken for time-ordered ones
					kept = append(kept, m)
				}
			}
			pool = kept
		}
		lo, hi := 0, len(pool)
		if after != nil && !idsAfter && !(before != nil && c.w.is("after-ignored-with-before")) {
			lo = sort.Search(len(pool), func(i int) bool { return pool[i].seq > after.seq })
			if c.w.is("after-inclusive") {
				lo = sort.Search(len(pool), func(i int) bool { return pool[i].seq >= after.seq })
			}
		}
		if before != nil {
			bound := before.seq
			if c.w.is("before-inclusive") {
				bound++
			}
			hi = sort.Search(len(pool), func(i int) bool { return pool[i].seq >= bound })
			if c.w.is("before-by-sent-time") {
				hi = sort.Search(len(pool), func(i int) bool { return !pool[i].sent.Before(before.sent) })
			}
			if c.w.is("before-tie-broken-by-id") && after == nil {
				// Keyset condition (sent, id) < (anchor.sent, anchor.id), as if ids grew with time.
				kept := make([]*msg, 0, len(pool))
				for _, m := range pool {
					if m.sent.Before(before.sent) || m.sent.Equal(before.sent) && m.id < before.id {
						kept = append(kept, m)
					}
				}
				pool, hi = kept, len(kept)
			}
			if c.w.is("before-anchor-time-from-edit") && !before.edited.IsZero() {
				// The anchor's time was read from its last change.
				hi = sort.Search(len(pool), func(i int) bool { return !pool[i].sent.Before(before.edited) })
			}
			if c.w.is("before-compares-ids") {
				hi = len(pool)
			}
			if c.w.is("before-cursor-offset-from-newest") && len(terms) == 0 {
				// The cursor is kept as a distance from the newest message, worked out once.
				if off, found := c.w.beforeOffset[before]; found {
					hi = min(len(pool), max(0, len(pool)-off))
				} else {
					c.w.beforeOffset[before] = len(pool) - hi
				}
			}
			if after != nil && c.w.is("before-ignored-with-after") {
				hi = len(pool) // the forward query was built without the upper bound
			}
			if c.w.is("before-skips-neighbour") && hi > 0 {
				hi--
			}
			if c.w.is("skip-ignored-with-before") {
				skip = 0
			}
			if c.w.is("skip-counts-anchor") && skip > 0 {
				skip-- // the anchor is counted as the first skipped message
			}
			if c.w.is("skip-twice-with-before") {
				skip *= 2 // once as OFFSET in the query, once more on its rows
			}
			if c.w.is("before-anchor-counted-in-limit") {
				limit-- // the anchor took a place in the page and was then dropped
			}
		}
		if hi < lo {
			hi = lo
		}
		if before != nil && hi == lo && hi < len(pool) && c.w.is("before-oldest-self") {
			hi++ // a page is never left empty
		}
		window := pool[lo:hi]
		if c.w.every("limit-flaky", 12) {
			limit++
		}
		if after != nil && before == nil {
			// Walking forward: skip and take from the oldest end.
			window = window[min(skip, len(window)):]
			n := min(limit, len(window))
			if c.w.is("after-anchor-counted-in-limit") {
				n = min(limit-1, len(window)) // the anchor took one place, then was dropped
			}
			page = append(page, window[:n]...)
			if c.w.is("after-short-page-filled-with-older") && len(page) < limit {
				// A short page is topped up to keep the client's viewport full.
				n := min(limit, hi)
				page = append([]*msg(nil), pool[hi-n:hi]...)
			}
		} else {
			// Walking backward: skip and take from the newest end.
			if c.w.is("skip-clamped-to-oldest") && skip > 0 && skip > len(window)-limit {
				skip = max(0, len(window)-limit) // keep a full page
			}
			if before != nil && c.w.is("before-sorted-ascending-limit") {
				// The query sorted ascending before it was cut.
				window = window[:len(window)-min(skip, len(window))]
				page = append(page, window[:min(limit, len(window))]...)
			} else if c.w.is("skip-from-oldest-end") && before == nil && skip > 0 {
				window = window[min(skip, len(window)):] // OFFSET on the ascending query
				page = append(page, window[len(window)-min(limit, len(window)):]...)
			} else if c.w.is("skip-after-limit") && before == nil && skip > 0 {
				cut := window[len(window)-min(limit, len(window)):]
				page = append(page, cut[:len(cut)-min(skip, len(cut))]...) // skip applied to the page
			} else {
				window = window[:len(window)-min(skip, len(window))]
				take := min(limit, len(window))
				if c.w.is("limit-skips-status") {
					// Only ordinary messages count toward the limit.
					plain := 0
					for take = 0; take < len(window) && plain < limit; take++ {
						if !window[len(window)-1-take].status {
							plain++
						}
					}
				}
				page = append(page, window[len(window)-take:]...)
			}
			if before != nil && len(page) < limit && c.w.is("before-last-page-empty") {
				page = nil // a short page was taken for the end of the history
			}
			if before != nil && len(page) > 0 && page[0] == r.msgs[0] && c.w.is("before-drops-room-first-message") {
				page = page[1:] // the backward loop runs while i > 0
			}
		}
		if before != nil && before.status && c.w.is("before-status-anchor-empty") {
			page = nil // the cursor lookup searched the message table only, not the status side table
		}
		if after != nil && before == nil && len(page) == 0 && c.w.is("after-newest-404") {
			return nothing() // no rows taken for an unknown anchor
		}
		if after != nil && len(r.msgs) > 0 && r.msgs[0] == after && c.w.is("after-oldest-anchor-empty") {
			page = nil // the anchor's position 0 was taken for "not found"
		}
		if after != nil && before == nil && len(page) == 0 && c.w.is("after-newest-fallback") {
			// An empty result fell through to the default page.
			page = append(page, pool[len(pool)-min(limit, len(pool)):]...)
		}
	}
	if c.w.is("list-default-page-cached") {
		if c.rawQ == "" {
			if hit, found := c.w.pageCache[r]; found {
				page = append([]*msg(nil), hit...)
			} else {
				c.w.pageCache[r] = append([]*msg(nil), page...)
			}
		} else {
			delete(c.w.pageCache, r)
		}
	}
	if len(page) > 1 && len(page) == limit && c.w.every("page-truncated-flaky", 5) {
		page = page[1:] // the read timed out on the last row fetched
	}
	if len(page) > 1 && c.w.every("page-dup-flaky", 10) {
		page[len(page)-1] = page[0]
	}
	if c.w.is("list-mentions-join-fanout") {
		// The page is read through a join with the mentions table, one row per mention.
		var rows []*msg
		for _, m := range page {
			for k := 0; k < max(1, len(m.r.mentions)); k++ {
				rows = append(rows, m)
			}
		}
		page = rows[max(0, len(rows)-limit):]
	}
	// Newest first, then shuffled; the shuffle is the visible part.
	for i, j := 0, len(page)-1; i < j; i, j = i+1, j-1 {
		page[i], page[j] = page[j], page[i]
	}
	c.w.rng.Shuffle(len(page), func(i, j int) { page[i], page[j] = page[j], page[i] })
	out := make([]messageJSON, 0, len(page))
	if c.w.is("list-empty-null") {
		out = nil
	}
	noReceipts := c.w.every("readby-zero-flaky", 6)
	for _, m := range page {
		v := c.w.messageView(m, c.me)
		if noReceipts {
			v.ReadBy = 0 // the receipts join timed out and was dropped
		}
		if c.w.is("list-sent-coalesced-edit") && !m.edited.IsZero() {
			v.Sent = stamp(m.edited) // ORDER BY COALESCE(editedAt, sent) AS sent
		}
		if c.w.is("list-meta-null") {
			v.Meta = nil // the list query leaves the map unset
		}
		if c.w.is("unread-flag-list-false") {
			v.Unread = false
		}
		if c.w.is("list-editedat-not-selected") {
			v.EditedAt = nil
		}
		if c.w.is("list-sent-seconds") {
			v.Sent = stamp(m.sent.Truncate(time.Second))
		}
		if c.w.is("fromuser-avatar-relative-list") {
			v.FromUser.AvatarURLSmall = "/u/" + url.PathEscape(m.from.username) + "?s=60" // the list template's path helper
		}
		if c.w.is("list-status-dropped") {
			v.Status = false // the list query does not select the status column
		}
		if c.w.is("editedat-zero-time-list") && v.EditedAt == nil {
			zero := stamp(time.Time{}) // the zero time of a non-nullable column
			v.EditedAt = &zero
		}
		if c.w.is("readby-list-counter-stale") {
			// A denormalised counter, filled on the first listing; marks never raise it.
			if n, filled := c.w.readByCol[m]; filled {
				v.ReadBy = n
			} else {
				c.w.readByCol[m] = v.ReadBy
			}
		}
		if len(terms) > 0 && c.w.is("search-unread-flag-indexed") {
			v.Unread = m.room.has(c.me) && m.from != c.me // the flag as indexed when the message was sent
		}
		if c.w.is("list-cache-not-invalidated-on-edit") {
			// The rendered rows are cached per room; a send drops the room's entry, an edit does not.
			if c.w.listCache[m.room] == nil {
				c.w.listCache[m.room] = map[*msg]messageJSON{}
			}
			if hit, found := c.w.listCache[m.room][m]; found {
				v.Text, v.HTML, v.URLs, v.Mentions, v.Issues = hit.Text, hit.HTML, hit.URLs, hit.Mentions, hit.Issues
				v.EditedAt, v.V = hit.EditedAt, hit.V
			} else {
				c.w.listCache[m.room][m] = v
			}
		}
		if c.w.is("list-html-mentions-unwrapped") {
			// The list renderer has no user directory at hand, so no name resolves.
			v.HTML = renderWith(m.text, func(string) *member { return nil }, c.w.flags(!m.edited.IsZero(), m.from)).html
		}
		out = append(out, v)
	}
	if c.w.is("list-newest-marks-read") && before == nil && after == nil && around == nil && len(terms) == 0 {
		for _, m := range page {
			c.w.markOne(m, c.me) // opening the room was taken for reading it
		}
	}
	if c.w.is("list-rerender-bumps-v") {
		for _, m := range page {
			if m.seq <= c.w.built && !m.migrated {
				m.migrated = true
				m.v++ // re-rendered with the current renderer and saved
			}
		}
	}
	if around != nil && c.w.is("around-marks-read") {
		c.w.markOne(around, c.me) // jumping to a message was taken for reading it
	}
	if after != nil && before == nil && len(terms) == 0 && c.w.is("after-page-marks-read") {
		for _, m := range page {
			c.w.markOne(m, c.me) // catching up on new messages was taken for reading them
		}
	}
	if len(out) == 0 && c.w.is("list-empty-204") {
		return outcome{status: http.StatusNoContent, good: true, raw: []byte{}}
	}
	if c.query.Get("q") != "" && c.w.is("search-answer-envelope") {
		return ok(http.StatusOK, map[string]any{"results": out}) // the search endpoint's envelope
	}
	if c.w.is("list-streamed-ndjson-full-page") && len(out) == maxLimit {
		// Pages of the largest size go through the streaming encoder, one object per line.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, v := range out {
			_ = enc.Encode(v)
		}
		return outcome{status: http.StatusOK, good: true, raw: b.Bytes()}
	}
	o := ok(http.StatusOK, out)
	if c.query.Get("q") != "" && c.w.is("ctype-search-vnd") {
		o.ctype = "application/vnd.chat.search+json; charset=utf-8" // the search backend's type, passed through
	}
	return o
}

func indexMsg(ms []*msg, m *msg) int {
	for i, x := range ms {
		if x == m {
			return i
		}
	}
	return -1
}

// asciiLower lowercases the ASCII letters of s only (defect search-ascii-fold-query).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func showMessage(c *call) outcome {
	r, found := c.memberRoom(c.args[0])
	if !found {
		return nothing()
	}
	m := c.w.msgByID[c.args[1]]
	if m == nil || m.room != r && !c.w.is("get-one-any-room") {
		return nothing()
	}
	if c.w.is("get-one-oldest-missing") && r.msgs[0] == m {
		return nothing()
	}
	if c.w.is("get-one-own-only") && m.from != c.me {
		return nothing() // the edit path's lookup, which filters on the author
	}
	if c.w.is("get-one-edited-missing") && !m.edited.IsZero() {
		return nothing() // looked up by (id, first version)
	}
	if c.w.is("get-one-by-sent-time") {
		for _, o := range r.msgs {
			if o.sent.Equal(m.sent) {
				m = o // the id was decoded to its time and the first message of that instant taken
				break
			}
		}
	}
	if c.w.every("get-one-neighbour-flaky", 7) {
		if i := indexMsg(r.msgs, m); i > 0 {
			m = r.msgs[i-1] // a paged lookup, one row off
		}
	}
	if m.prev != nil && c.w.every("get-one-stale-version-flaky", 3) {
		m = m.prev // read from a replica one edit behind
	}
	if c.w.every("get-one-lag-flaky", 5) {
		return nothing()
	}
	out := c.w.messageView(m, c.me)
	if c.w.is("get-one-text-from-html-column") {
		out.Text = out.HTML // the single-message query selects the html column under both names
	}
	if c.w.every("fromuser-ghost-on-timeout-flaky", 6) {
		// The user lookup timed out and the placeholder of deleted accounts was used.
		out.FromUser = &userJSON{ID: "ghost", Username: "ghost", DisplayName: "Deleted user", URL: "/ghost",
			AvatarURLSmall: "https://avatars.chat.test/u/ghost?s=60", AvatarURLMedium: "https://avatars.chat.test/u/ghost?s=128"}
	}
	if c.w.is("get-one-cached") {
		// The rendered body is cached by id; only read state is live.
		if hit, found := c.w.oneCache[m]; found {
			out.Text, out.HTML, out.URLs, out.Mentions, out.Issues = hit.Text, hit.HTML, hit.URLs, hit.Mentions, hit.Issues
			out.EditedAt, out.V = hit.EditedAt, hit.V
		} else {
			c.w.oneCache[m] = out
		}
	}
	if c.w.is("get-one-marks-read") {
		c.w.markOne(m, c.me)
	}
	if c.w.is("get-one-metadata-not-loaded") {
		out.URLs, out.Mentions, out.Issues = []urlJSON{}, []mentionJSON{}, []issueJSON{} // not joined in the single-row query
	}
	if c.w.is("get-one-fromuser-caller") {
		out.FromUser = userView(c.me, true)
	}
	if c.w.every("unread-flag-inverted-flaky", 5) {
		out.Unread = !out.Unread // a negated "seen" column on one replica
	}
	if c.w.is("get-one-fromuser-unexpanded") {
		raw, _ := json.Marshal(out)
		var obj map[string]any
		_ = json.Unmarshal(raw, &obj)
		obj["fromUser"] = m.from.id // the reference is not expanded in the single-message query
		return ok(http.StatusOK, obj)
	}
	if c.w.is("get-one-wrapped") {
		return ok(http.StatusOK, []messageJSON{out})
	}
	if c.w.is("get-one-editedat-omitted") && out.EditedAt == nil {
		raw, _ := json.Marshal(out)
		var obj map[string]any
		_ = json.Unmarshal(raw, &obj)
		delete(obj, "editedAt") // the single-message serializer omits empty fields
		return ok(http.StatusOK, obj)
	}
	return ok(http.StatusOK, out)
}

// tagPattern matches anything between < and > (defect send-tags-stripped).
var tagPattern = regexp.MustCompile(`<[^<>]*>`)

// backslashDecoder decodes backslash escapes once more (defect send-backslash-unescaped).
var backslashDecoder = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\"`, `"`)

// composeNFC composes a Latin letter followed by a combining accent into the
// precomposed letter, as Unicode normalisation form C does for them (defect
// send-text-nfc). Other text is left alone.
func composeNFC(s string) string {
	marks := map[rune]string{
		0x0300: "àèìòùÀÈÌÒÙ", // grave
		0x0301: "áéíóúÁÉÍÓÚ", // acute
		0x0302: "âêîôûÂÊÎÔÛ", // circumflex
		0x0308: "äëïöüÄËÏÖÜ", // diaeresis
	}
	const bases = "aeiouAEIOU"
	in := []rune(s)
	out := make([]rune, 0, len(in))
	for i := 0; i < len(in); i++ {
		if i+1 < len(in) {
			if row, isMark := marks[in[i+1]]; isMark {
				if k := strings.IndexRune(bases, in[i]); k >= 0 {
					out = append(out, []rune(row)[k])
					i++
					continue
				}
			}
		}
		out = append(out, in[i])
	}
	return string(out)
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func containsMsg(ms []*msg, m *msg) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
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
	if raw, has := obj["text"]; has && string(raw) == "null" && c.w.is("send-null-text-stringified") {
		obj["text"] = json.RawMessage(`"null"`) // String(text) on the decoded value
	}
	text, o, fine := textField(obj)
	if !fine {
		// A status update was thought to need no text.
		if !(c.w.is("send-status-without-text") && obj["text"] == nil && string(obj["status"]) == "true") {
			if c.w.is("send-refused-still-stored") {
				// The row was inserted before the text was validated, and not rolled back.
				var partial string
				_ = json.Unmarshal(obj["text"], &partial)
				at := c.now
				if n := len(r.msgs); n > 0 && r.msgs[n-1].sent.After(at) {
					at = r.msgs[n-1].sent
				}
				c.w.seedMessage(r, c.me, partial, at)
			}
			return o
		}
		text = ""
	}
	status := false
	if raw, present := obj["status"]; present && string(raw) != "null" {
		if json.Unmarshal(raw, &status) != nil {
			return complain(http.StatusUnprocessableEntity, "status must be a boolean")
		}
		if !status && c.w.is("send-status-false-refused") {
			return complain(http.StatusUnprocessableEntity, "status may only be true") // the validator's enum holds true alone
		}
		if c.w.is("send-status-present-true") {
			status = true // the field's presence was tested, not its value
		}
	}
	if c.w.is("send-text-entities-decoded") && strings.Contains(text, "&") {
		text = html.UnescapeString(text) // input "sanitised" by decoding entities
	}
	if c.w.is("send-crlf-normalised") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	if c.w.is("send-text-nfc") {
		text = composeNFC(text)
	}
	if c.w.is("send-tags-stripped") {
		text = tagPattern.ReplaceAllString(text, "") // the input sanitizer
	}
	if c.w.is("send-backslash-unescaped") {
		text = backslashDecoder.Replace(text) // a second decoding pass after the JSON one
	}
	if c.w.is("send-astral-dropped") {
		text = strings.Map(func(r rune) rune {
			if r > 0xFFFF {
				return -1 // a three-byte UTF-8 column
			}
			return r
		}, text)
	}
	if c.w.is("send-text-latin1-column") {
		text = strings.Map(func(r rune) rune {
			if r > 0xFF {
				return '?' // a latin1 column
			}
			return r
		}, text)
	}
	if c.w.is("send-text-bytes-cut") && len(text) > 4096 {
		cut := 4096
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] // a 4096-byte column
	}
	repeat := false
	if c.w.is("send-repeat-dropped") {
		for i := len(r.msgs) - 1; i >= 0; i-- {
			if r.msgs[i].from == c.me {
				repeat = r.msgs[i].text == text
				break
			}
		}
	}
	if c.w.is("send-text-trimmed") {
		text = strings.TrimSpace(text)
	}
	if c.w.is("send-status-needs-me") && !strings.HasPrefix(text, "/me") {
		status = false
	}
	if status && c.w.is("send-status-me-stripped") {
		text = strings.TrimPrefix(text, "/me ") // the command word was taken for markup
	}
	var prev *msg // the room's previous message, read before the insert
	if n := len(r.msgs); n > 0 {
		prev = r.msgs[n-1]
	}
	from := c.me
	if c.viaQuery && c.w.is("send-query-auth-fromuser-owner") {
		from = r.members[0] // the integration path posts as the room owner
	}
	at := c.now
	if n := len(r.msgs); n > 0 && r.msgs[n-1].sent.After(at) {
		at = r.msgs[n-1].sent // never let sending order and time disagree
	}
	if c.w.every("sent-from-skewed-node-flaky", 3) {
		at = c.now.Add(-2 * time.Second) // stamped by a node whose clock runs behind
	}
	if c.w.is("send-reverts-edits") {
		for _, o := range r.msgs {
			if snap, found := c.w.snaps[o]; found {
				*o = snap // the room's messages as first loaded are written back
				delete(c.w.snaps, o)
			}
		}
	}
	if c.w.is("rooms-list-cached-until-send") {
		c.w.roomsCache = map[*member][]roomJSON{}
	}
	m := c.w.seedMessage(r, from, text, at)
	m.status = status
	if status && c.w.is("send-status-applied-to-previous") {
		m.status = false
		if prev != nil {
			prev.status = true // the flag was written to the row read before the insert
		}
	}
	if m.status && c.w.every("send-status-dropped-flaky", 4) {
		m.status = false // the flag is written by a second statement, which timed out
	}
	if c.w.is("search-index-one-behind") {
		// The indexing job reads the room's newest row before the insert commits.
		m.indexed = ""
		if prev != nil && prev.indexed == "" {
			prev.indexed = prev.text
		}
	}
	if c.w.is("send-body-extras-into-meta") {
		for k, raw := range obj {
			var v any
			if k != "text" && json.Unmarshal(raw, &v) == nil {
				if m.meta == nil {
					m.meta = map[string]any{}
				}
				m.meta[k] = v // every other field of the body is kept as metadata
			}
		}
	}
	delete(c.w.listCache, r) // defect list-cache-not-invalidated-on-edit: a send drops the room's cached rows
	if prev != nil && c.w.is("send-v-from-previous-message") {
		m.v = prev.v // the row was built by copying the room's previous one
	}
	if c.msgsSeen >= 0 && c.msgsSeen < len(r.msgs)-1 {
		// The list read before the lock is saved back with only this message added.
		for _, lost := range r.msgs[c.msgsSeen : len(r.msgs)-1] {
			delete(c.w.msgByID, lost.id)
		}
		r.msgs = append(append([]*msg(nil), r.msgs[:c.msgsSeen]...), m)
	}
	if status && c.w.is("render-status-unescaped") {
		m.r.html = strings.ReplaceAll(text, "\n", "<br>") // the /me template inserts the text as is
	}
	if status && c.w.is("render-status-plain") {
		// The /me template escapes the text itself and knows no links, mentions or issues.
		m.r.html = strings.ReplaceAll(html.EscapeString(text), "\n", "<br>")
	}
	if c.w.is("send-editedat-sent") {
		m.edited = m.sent
	}
	if c.w.is("send-status-sticky") {
		r.statusMode = r.statusMode || status
		m.status = r.statusMode
	}
	if c.w.is("send-readby-one") {
		m.readers[c.me] = true
	}
	echo := m.status
	if c.w.is("send-status-not-stored") {
		m.status = false
	}
	if n := len(r.msgs); n > 1 && c.w.every("send-id-collision-flaky", 6) {
		// Two writers drew the same id: the new message replaced the previous one.
		prev := r.msgs[n-2]
		delete(c.w.msgByID, m.id)
		m.id = prev.id
		r.msgs = append(r.msgs[:n-2], m)
		c.w.msgByID[m.id] = m
	}
	if c.w.every("send-lost-flaky", 8) || repeat {
		r.msgs = r.msgs[:len(r.msgs)-1]
		delete(c.w.msgByID, m.id)
	}
	switch {
	case c.w.is("send-touch-first-member"):
		c.touchAs(r, r.members[0])
	case c.w.is("send-status-no-touch") && m.status:
		// status updates were not counted as activity
	case c.w.is("send-touch-previous-message"):
		if prev != nil {
			r.lastAccess[c.me] = prev.sent // the time was read off the room's last row before the insert
		}
	case c.w.every("send-touch-dropped-flaky", 4):
		// the activity update is fire-and-forget and was dropped under load
	default:
		c.touch(r)
	}
	code := http.StatusOK
	if c.w.is("send-201") {
		code = http.StatusCreated
	}
	if c.w.is("send-dm-accepted-202") && r.kind == kindOneToOne {
		code = http.StatusAccepted // private messages go through the delivery queue
	}
	view := c.w.messageView(m, c.me)
	if c.w.is("send-unread-for-peer-dm") && r.kind == kindOneToOne {
		view.Unread = c.w.unreadFor(m, r.peer(c.me)) // the flag was computed for the push to the recipient
	}
	if c.w.every("send-unread-flaky", 4) {
		view.Unread = true
	}
	if c.w.is("send-status-not-stored") {
		view.Status = echo
	}
	if c.w.is("send-answer-v-zero") {
		view.V = 0 // the answer was built before the version was set
	}
	if prev != nil && c.w.is("send-answer-fromuser-last-sender") {
		view.FromUser = userView(prev.from, true) // the room's last-message preview, read before the insert
	}
	if c.w.is("send-answer-draft-id") {
		view.ID = c.w.uuid4() // the draft's provisional id; the insert assigned another
	}
	if c.w.every("send-answer-html-unrendered-flaky", 5) {
		view.HTML = strings.ReplaceAll(html.EscapeString(m.text), "\n", "<br>") // the asynchronous renderer had not finished
	}
	if c.w.is("unread-flag-own-messages") {
		view.Unread = false // written as the document shows it
	}
	if c.w.every("send-503-after-store-flaky", 6) {
		return complain(http.StatusServiceUnavailable, "the notification fan-out timed out") // after the insert committed
	}
	return ok(code, view)
}

func editMessage(c *call) outcome {
	r, found := c.memberRoom(c.args[0])
	if !found {
		return nothing()
	}
	m := c.w.msgByID[c.args[1]]
	if m != nil && m.room != r && m.from == c.me && c.w.is("edit-other-room-applied-then-404") {
		// The update ran first; the room of the path was compared with the saved message afterwards.
		if obj, _, fine := c.jsonObject(); fine {
			if text, _, fine := textField(obj); fine {
				m.text, m.indexed = text, text
				m.r = c.w.render(text, true, m.from)
				m.edited = c.now
				m.v++
			}
		}
		return nothing()
	}
	if m != nil && m.room != r && m.from == c.me && c.w.is("edit-other-room-200-unchanged") {
		// The UPDATE filtered on the room and touched nothing; the answer was built from the lookup by id.
		return ok(http.StatusOK, c.w.messageView(m, c.me))
	}
	if m == nil || m.room != r && !c.w.is("edit-any-room") {
		return nothing()
	}
	if c.w.is("edit-hits-next-message") {
		if i := indexMsg(r.msgs, m); i >= 0 && i+1 < len(r.msgs) {
			m = r.msgs[i+1] // the position found was used as an index without taking one off
		}
	}
	if m.from != c.me {
		return complain(http.StatusForbidden, "only the author may change a message")
	}
	if c.w.every("edit-author-cache-403-flaky", 5) {
		return complain(http.StatusForbidden, "only the author may change a message") // a permission-cache miss taken for "not the author"
	}
	obj, o, fine := c.jsonObject()
	if !fine {
		return o
	}
	if c.w.is("edit-twice-conflict") && !m.edited.IsZero() && c.now.Sub(m.edited) < time.Second {
		return complain(http.StatusConflict, "the message was changed meanwhile") // checked against a version cache refreshed once a second
	}
	if c.w.is("edit-refused-still-bumps") {
		if _, bad, fine := textField(obj); !fine {
			m.v++ // the version was raised before the body was validated
			m.edited = c.now
			return bad
		}
	}
	if raw, has := obj["text"]; has && string(raw) == "null" && c.w.is("edit-null-text-accepted") {
		// Decoded onto the stored message: null leaves the old text, and the edit goes on.
		m.edits++
		m.edited = c.now
		m.v++
		return ok(http.StatusOK, c.w.messageView(m, c.me))
	}
	if obj["text"] == nil && c.w.is("edit-missing-text-noop-200") {
		return ok(http.StatusOK, c.w.messageView(m, c.me)) // PUT taken for a partial update with nothing to change
	}
	text, o, fine := textField(obj)
	if !fine {
		if !(c.w.is("edit-missing-text-blank") && obj["text"] == nil) {
			return o
		}
		text = "" // PUT taken as a whole replacement
	}
	if c.w.is("edit-text-escaped-stored") {
		text = html.EscapeString(text) // the update path "sanitises" its input
	}
	if c.w.is("edit-newlines-collapsed") {
		text = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(text) // a single-line field's normalisation
	}
	if c.w.is("list-shows-every-version") {
		c.w.versions[m] = append(c.w.versions[m], *m) // versions are kept, and all of them are selected
	}
	if c.w.is("send-reverts-edits") {
		if _, found := c.w.snaps[m]; !found {
			c.w.snaps[m] = *m
		}
	}
	if c.w.is("get-one-stale-version-flaky") {
		cp := *m
		cp.prev = nil
		m.prev = &cp
	}
	if c.w.is("search-edit-indexed-twice") {
		m.oldIndexed = append(m.oldIndexed, m.indexed)
	}
	lastEdit := m.edited
	old := m.text
	oldHTML := m.r.html
	same := text == m.text
	if m.edits > 0 && c.w.is("edit-second-lost") {
		cp := *m
		m = &cp // the change only reaches the answer
	}
	if c.w.every("edit-lost-flaky", 5) {
		cp := *m
		m = &cp // the write was acknowledged before it was flushed, and then dropped
	}
	vBefore := m.v
	if c.w.is("edit-updates-same-text-siblings") {
		for _, o := range r.msgs {
			if o != m && o.from == m.from && o.text == old {
				// UPDATE ... WHERE room = ? AND author = ? AND text = ?
				o.text, o.indexed = text, text
				o.r = c.w.render(text, true, o.from)
			}
		}
	}
	m.edits++
	m.text = text
	if !c.w.is("search-stale-after-edit") {
		m.indexed = text
	}
	if c.w.is("search-edited-unfindable") {
		m.indexed = "" // the old index entry is removed; the re-index is queued to a worker that skips edits
	}
	fresh := c.w.renderIn(m.room, text, true, m.from)
	if c.w.is("edit-meta-stale") {
		fresh.urls, fresh.mentions, fresh.typed, fresh.issues = m.r.urls, m.r.mentions, m.r.typed, m.r.issues
	}
	if c.w.is("edit-html-stale") {
		fresh.html = m.r.html // the rendered body is cached apart and was not refreshed
	}
	if c.w.is("edit-issues-accumulate") {
		merged := append([]string(nil), m.r.issues...)
		for _, n := range fresh.issues {
			if !containsString(merged, n) {
				merged = append(merged, n) // appended to the stored list instead of replacing it
			}
		}
		fresh.issues = merged
	}
	m.r = fresh
	m.edited = c.now
	if c.w.is("edit-moves-sent") {
		m.sent = c.now
	}
	if m.edited.Before(m.sent) {
		m.edited = m.sent
	}
	if c.w.is("edit-editedat-is-sent") {
		m.edited = m.sent
	}
	if c.w.is("edit-editedat-whole-seconds") {
		m.edited = m.edited.Truncate(time.Second) // a DATETIME column without fractions
	}
	if c.w.is("editedat-first-edit-kept") && !lastEdit.IsZero() {
		m.edited = lastEdit // COALESCE(editedAt, now())
	}
	if c.w.is("edit-clears-status") {
		m.status = false // the message was rebuilt from the edit body
	}
	if c.w.is("edit-marks-read-all") {
		for _, p := range r.members {
			if p != m.from {
				m.readers[p] = true // the edit path reused the "seen by all" update
			}
		}
	}
	coalesced := c.w.is("edit-coalesce-same-second") && !lastEdit.IsZero() && c.now.Sub(lastEdit) < time.Second
	if !c.w.is("edit-no-bump") && !(same && c.w.is("edit-same-text-no-bump")) && !coalesced {
		m.v++
		if c.vSeen >= 0 {
			m.v = c.vSeen + 1 // written from the version read before the lock
		}
		if m.v > 2 && c.w.is("edit-v-double-second") {
			m.v++
		}
		if c.w.is("edit-v-room-counter") {
			r.editCount++
			m.v = 1 + r.editCount
		}
		if c.w.every("edit-v-flaky", 4) {
			m.v++
		}
	}
	out := c.w.messageView(m, c.me)
	if c.w.is("edit-answers-newest") && len(r.msgs) > 0 {
		out = c.w.messageView(r.msgs[len(r.msgs)-1], c.me) // the send path's "return the latest"
	}
	if c.w.is("edit-editedat-null-response") {
		out.EditedAt = nil
	}
	if c.w.is("edit-answer-v-not-raised") {
		out.V = vBefore // the answer was built from the row read before the update
	}
	if c.w.every("edit-old-text-flaky", 6) {
		out.Text = old
	}
	if c.w.is("edit-answer-gv") {
		out.GV = strconv.Itoa(m.from.v) // the cache entry holds the avatar version
	}
	if c.w.every("edit-answer-html-stale-flaky", 4) {
		out.HTML = oldHTML // the rendered body comes from a cache refreshed after the answer
	}
	o = ok(http.StatusOK, out)
	o.twice = c.w.every("edit-body-twice-flaky", 5)
	return o
}
