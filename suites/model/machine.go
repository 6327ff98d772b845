package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// wireMsg is a message as a server answers it; pointers tell an absent
// field from a zero one.
type wireMsg struct {
	ID       string           `json:"id"`
	Text     *string          `json:"text"`
	Sent     string           `json:"sent"`
	EditedAt *json.RawMessage `json:"editedAt"`
	FromUser *struct {
		ID string `json:"id"`
	} `json:"fromUser"`
	Unread   *bool   `json:"unread"`
	ReadBy   *int    `json:"readBy"`
	V        *int    `json:"v"`
	Status   *bool   `json:"status"`
	HTML     *string `json:"html"`
	Mentions []struct {
		ScreenName string `json:"screenName"`
		UserID     string `json:"userId"`
	} `json:"mentions"`
	Issues []struct {
		Number any `json:"number"`
	} `json:"issues"`
	URLs []struct {
		URL string `json:"url"`
	} `json:"urls"`
}

func (w wireMsg) edited() (present, null bool) {
	if w.EditedAt == nil {
		return false, false
	}
	return true, string(*w.EditedAt) == "null"
}

// tick moves the machine's clock to t, when t is later.
func (m *machine) tick(t time.Time) {
	if t.After(m.clock) {
		m.clock = t
	}
}

// editedTime is editedAt as a time, zero when absent, null or unreadable.
func (w wireMsg) editedTime() time.Time {
	if w.EditedAt == nil {
		return time.Time{}
	}
	var at string
	if json.Unmarshal(*w.EditedAt, &at) != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return time.Time{}
	}
	return t
}

func (w wireMsg) sentTime() time.Time {
	t, err := time.Parse(time.RFC3339Nano, w.Sent)
	if err != nil {
		return time.Time{}
	}
	return t
}

type unreadItems struct {
	Chat    []string `json:"chat"`
	Mention []string `json:"mention"`
}

// violation ends a sequence: the answer broke a statement the model
// applied.
type violation struct {
	req, text string
}

// shown is when a message of the room was first shown, and to whom.
type shown struct {
	at   time.Time
	by   map[int]bool
	sent time.Time // as the page gave it (zero when it could not be read)
}

// pending is a mismatch the lag allowed for eventual state may still
// explain: a read that raised it is made again until it settles.
type pending struct{}

// blocked ends a sequence: an answer the sequence needed could not be
// used, and the requirement it broke is not one this run judges.
type blocked struct {
	req, text string
}

// aborted ends the run: the target gave no answer to judge.
type aborted struct{ err error }

// machine runs one sequence against the target and holds the model.
type machine struct {
	kind Kind // the kind of the operation running
	// touched is the message the operation running wrote to or named
	// (see echo); echoTurn says how the next echo reads it.
	touched  *msg
	echoTurn int
	// accessShown is, by user, the message of theirs whose send a read of
	// the write room's lastAccessTime has already shown (see rooms).
	accessShown map[int]*msg
	// accessMax is, by user, the latest lastAccessTime of the write room a
	// read of the run has shown (shared like room).
	accessMax map[int]time.Time
	// counted are the rooms besides the write room whose counts the
	// sequence has compared with the unread lists, by user, list and room
	// (see rooms).
	counted map[string]bool
	// clock is the latest time the server wrote in an acknowledged answer
	// (a send's sent, an edit's editedAt): what it stamps on a write
	// requested after that is not older.
	clock time.Time
	// searching: the message judged is one a search found (see judgeMsg).
	searching bool
	ctx       context.Context
	cfg       *Config
	st        *state
	judge     map[string]bool
	// applied are the requirements a judgement was applied for.
	applied map[string]bool
	steps   []string // what ran, one line per operation
	last    []*client.Exchange
	writes  []Write // the sequence's acknowledged writes
	seq     int     // the how-manieth sequence of the run this is (replays count too)
	// room is every message id of the write room the run has been shown,
	// when first and to whom (shared by every sequence of the run).
	room map[string]*shown
	// soft is the run's first breach that left its answer usable (see
	// softly), shared by every sequence.
	soft **Finding
	met  *[]Met // see Config.Unusable
	// walked says whether a sequence of the run has paged the room from
	// its newest message to its oldest (shared like room).
	walked *bool
	// foreign are the messages of the users' other rooms the run has read,
	// by id (shared like room): no page of the write room holds one.
	foreign map[string]foreignMsg
	// foreignRead says whether a list without parameters has read another
	// room to learn some (shared like room).
	foreignRead *bool
	// marked says when each user last made a mark read in this sequence
	// (zero: never).
	marked map[int]time.Time
	// sent is what each user's last send of the sequence wrote.
	sent map[int]*written
	// edited is the message the sequence's last accepted edit changed.
	edited *msg
	// lastCursor is the cursor and anchor of the sequence's last list that
	// named one of its messages (see op.Again).
	lastCursor struct {
		cursor Cursor
		anchor *msg
	}
	// settleStart is when the read under way was first sent, on the
	// client's clock (see settle); settling says a read is under way.
	settleStart time.Time
	settling    bool
	// readAt is when the last read of the operation under way was asked
	// (zero after a write, and when an operation starts).
	readAt time.Time
	reqs   int
}

// now is the time a judgement is made at: for an answer to a read, when
// the read was asked (the server answered from a state at least that
// recent, however long the answer took to come back and be judged); else
// the time it is.
func (m *machine) now() time.Time {
	if !m.readAt.IsZero() {
		return m.readAt
	}
	return m.cfg.Client.Now()
}

// check applies a statement of requirement req: when ok is false the
// sequence stops with a violation, if this run judges req.
func (m *machine) check(req string, ok bool, format string, args ...any) {
	if !m.judge[req] {
		return
	}
	m.applied[req] = true
	if !ok {
		panic(violation{req: req, text: fmt.Sprintf(format, args...)})
	}
}

// leaf are the requirements whose statements nothing in a sequence goes
// on from (a room's counts, its lastAccessTime): where a run does not apply
// them, waiting out the lag for them would serve no verdict. Every other
// statement's wait also waits for an answer the sequence needs (a message
// another user sees late), so it is waited for whether applied or not.
var leaf = map[string]bool{"UNREAD-ROOM-COUNTS": true, "ROOM-LAST-ACCESS": true}

// eventually applies a statement about state that may lag a write: while
// the expectation is not settled a mismatch sends the read round again.
func (m *machine) eventually(req string, settled, ok bool, format string, args ...any) {
	if !m.judge[req] && leaf[req] {
		return // a leaf statement this run does not apply is not waited for either
	}
	if m.waited() {
		settled = true // a read that has waited out the lag sees the state as it is
	}
	if !ok && !settled {
		panic(pending{})
	}
	// An answer that already keeps the statement applies it, settled or
	// not; only a breach waits for the lag to pass.
	if settled || ok {
		m.check(req, ok, format, args...)
	}
}

// softly applies a statement whose breach leaves the answer usable: the
// first such breach of the run is its finding unless a sequence breaks a
// statement outright, and the sequence goes on.
func (m *machine) softly(req string, ok bool, format string, args ...any) {
	if !m.judge[req] {
		return
	}
	m.applied[req] = true
	if !ok && *m.soft == nil {
		f := finding(m, violation{req: req, text: fmt.Sprintf(format, args...)})
		f.WentOn, f.Sequence = true, m.seq-1
		*m.soft = f
	}
}

func (m *machine) need(req string, ok bool, format string, args ...any) {
	m.check(req, ok, format, args...)
	if !ok {
		panic(blocked{req: req, text: fmt.Sprintf(format, args...)})
	}
}

// needAnswer is need for a success that should carry a message: one whose
// body is not JSON at all (cut short, another format) is HTTP-JSON-BODY's
// breach, which leaves the operation unjudged. An empty body carries no
// data to be JSON: the operation's own breach.
func (m *machine) needAnswer(req string, resp *client.Response, ok bool, format string, args ...any) {
	if !ok && ok2xx(resp.Status) && (resp.BrokenOff || len(bytes.TrimSpace(resp.Body)) > 0 && !json.Valid(resp.Body)) {
		req, format = "HTTP-JSON-BODY", format+" (its body broke off or is not JSON)"
	}
	m.need(req, ok, format, args...)
}

func (m *machine) user(o op) int { return o.User % len(m.cfg.Users) }

func (m *machine) do(u int, r client.Request) *client.Response {
	r.Token = m.cfg.Users[u].Token
	// A limit over 100 (or a skip over 5000) is outside what the document
	// allows: the request is not validated, though the answer is judged
	// as any other (asked says what the draw meant to break).
	asked := r.Invalid
	r.Invalid = r.Invalid || spec.BeyondListBounds(r.Query)
	m.readAt = time.Time{}
	resp, err := m.cfg.Client.Do(m.ctx, r)
	m.reqs++
	if err != nil {
		panic(aborted{err})
	}
	if r.Method == http.MethodGet && !asked && m.cfg.Unusable != nil {
		// A server failure is the run's own finding where it judges them.
		req, sig, breaks := m.cfg.Unusable(resp)
		judged := slices.ContainsFunc(breaks, func(r string) bool { return m.judge[r] })
		if req != "" && !judged && !(resp.Status >= 500 && m.judge["GEN-NO-5XX"]) {
			again, err := m.cfg.Client.Do(m.ctx, r)
			m.reqs++
			if err != nil {
				panic(aborted{err})
			}
			switch still, _, _ := m.cfg.Unusable(again); {
			case still == "": // usable, or a refusal for the run to judge
				*m.met = append(*m.met, Met{Requirement: req, Signature: sig, Response: resp})
				resp = again
			case resp.Status != http.StatusUnauthorized: // a token refused twice is for wanted to tell apart
				// Nothing in it is the run's to judge: what it would read
				// there is no ground for a finding of its own. A read
				// operation is left out (the model learns nothing from it,
				// and the sequence goes on); a read a write needs blocks
				// the run.
				*m.met = append(*m.met, Met{Requirement: req, Signature: sig, Response: resp})
				if m.settling {
					panic(abandoned{})
				}
				panic(blocked{req: req, text: fmt.Sprintf("%s %s answered %d, twice, with an answer that breaks %s: %s", r.Method, r.Path, resp.Status, req, cut(string(resp.Body), 300))})
			}
		}
	}
	if r.Method == http.MethodGet {
		m.readAt = resp.Sent
	}
	if m.settling && m.settleStart.IsZero() {
		m.settleStart = resp.Sent
	}
	// Only answers the model reads the body of: a refused request's status
	// is its own statement's to judge first, and the answers to marking
	// read and hiding have no documented body (the document checker holds
	// what they carry).
	reads := !asked && (r.Method == http.MethodGet || r.Method == http.MethodPut || r.Method == http.MethodPost && !strings.HasSuffix(r.Path, "/unreadItems"))
	if reads && ok2xx(resp.Status) && len(bytes.TrimSpace(resp.Body)) > 0 {
		// A success whose body is not one JSON document breaks the rule
		// for every body (HTTP-JSON-BODY), whatever was asked: the
		// operation's own statements cannot be judged on it.
		if !json.Valid(resp.Body) {
			text := fmt.Sprintf("%s %s answered %d with a body that is not one JSON document: %s", r.Method, r.Path, resp.Status, cut(string(resp.Body), 300))
			m.check("HTTP-JSON-BODY", false, "%s", text)
			if r.Method == http.MethodGet {
				panic(blocked{req: "HTTP-JSON-BODY", text: text})
			}
			// A send or an edit: the caller needs its message (needAnswer),
			// or finds what the write made (madeDespite).
		} else {
			m.check("HTTP-JSON-BODY", true, "")
		}
	}
	if r.Method == "POST" || r.Method == "PUT" {
		if ok2xx(resp.Status) && len(m.writes) < 300 {
			m.writes = append(m.writes, Write{User: m.cfg.Users[u].Index, Request: r, Response: resp})
		}
	}
	if resp.Exchange != nil {
		m.last = append(m.last, resp.Exchange)
		if len(m.last) > 6 {
			m.last = m.last[1:]
		}
	}
	return resp
}

func ok2xx(s int) bool { return s >= 200 && s < 300 }

// wanted is called where the model demands a success: a request of a
// described user, valid, through a room of theirs. A 401 there, for a
// token GET /v1/user accepts when asked right after in the same place,
// is the token header's breach (AUTH-BEARER, the place the model sends
// its tokens in), met here, and no finding of the operation's; the
// sequence cannot go on.
func (m *machine) wanted(u int, resp *client.Response) {
	if resp.Status != http.StatusUnauthorized {
		return
	}
	for range 3 { // a server that refuses one request in a few may refuse this one too
		again, err := m.cfg.Client.Do(m.ctx, client.Request{Method: http.MethodGet, Path: "/v1/user", Token: m.cfg.Users[u].Token})
		m.reqs++
		if err != nil {
			return
		}
		if ok2xx(again.Status) {
			panic(blocked{req: "AUTH-BEARER", text: fmt.Sprintf("a request of user %d answered 401, and GET /v1/user accepts the same token in the same place right after", m.cfg.Users[u].Index)})
		}
	}
}

// noServerError holds an answer to a request whose outcome the
// description leaves open: anything but a server error.
func (m *machine) noServerError(resp *client.Response, what string) {
	m.check("GEN-NO-5XX", resp.Status < 500, "%s answered %d: a server error is never the answer to a client's request", what, resp.Status)
}

func messagesPath(room string) string { return "/v1/rooms/" + url.PathEscape(room) + "/chatMessages" }
func messagePath(room, id string) string {
	return messagesPath(room) + "/" + url.PathEscape(id)
}

func (m *machine) unreadPath(u int, room string) string {
	return "/v1/user/" + url.PathEscape(m.cfg.Users[u].ID) + "/rooms/" + url.PathEscape(room) + "/unreadItems"
}

// listOther pages the write room with a cursor that names a message of
// another room of u's: what the answer is, the document does not say (a
// refusal, an empty page, a page of the write room), but it holds no
// message of the other room, for a message belongs to one room.
func (m *machine) listOther(u int, o op) {
	other, t, ids := m.otherMessage(u, o)
	if other == "" {
		return
	}
	q := url.Values{[...]string{"", "beforeId", "afterId", "aroundId", "beforeId"}[o.Cursor]: {t.ID}}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	what := fmt.Sprintf("GET %s?%s, a cursor naming message %s of room %s", messagesPath(m.cfg.WriteRoom), q.Encode(), t.ID, other)
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(m.cfg.WriteRoom), Query: q})
	m.noServerError(resp, what)
	page, ok := decodePage(resp)
	if !ok2xx(resp.Status) || !ok {
		return
	}
	for _, w := range page {
		m.check("MSG-ROOM-SCOPE", !ids[w.ID], "%s answered message %s, which room %s lists as its own", what, w.ID, other)
	}
}

// foreignMsg is a message of another room the run has read.
type foreignMsg struct{ room, text string }

// notForeign holds a page of the write room to the messages of other
// rooms the run has read: a message belongs to one room, so the page holds
// none of them (the same id with the same text).
func (m *machine) notForeign(page []wireMsg, what string) {
	for _, w := range page {
		if f, ok := m.foreignOf(w); ok {
			m.check("MSG-ROOM-SCOPE", false, "%s holds message %s, which room %s lists as its own", what, w.ID, f.room)
		}
	}
}

// foreignOf says whether w is a message of another room the run has read.
func (m *machine) foreignOf(w wireMsg) (foreignMsg, bool) {
	f, ok := m.foreign[w.ID]
	return f, ok && w.ID != "" && (w.Text == nil || *w.Text == f.text)
}

// otherMessage reads the newest messages of a room of u's besides the
// write room and picks one as o says: the room ("" when u has none, or it
// shows no message; the lists' checks judge that room's pages), the
// message, and the ids of the messages read.
func (m *machine) otherMessage(u int, o op) (string, wireMsg, map[string]bool) {
	other := m.otherRoom(u)
	if other == "" {
		return "", wireMsg{}, nil
	}
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(other), Query: url.Values{"limit": {"20"}}})
	theirs, ok := decodePage(resp)
	if !ok || len(theirs) == 0 {
		return "", wireMsg{}, nil
	}
	ids := map[string]bool{}
	for _, w := range theirs {
		ids[w.ID] = true
		if w.ID != "" && w.Text != nil && m.foreign != nil {
			m.foreign[w.ID] = foreignMsg{room: other, text: *w.Text}
		}
	}
	return other, theirs[o.Picks[1]%len(theirs)], ids
}

// otherRoom is a room of user u besides the write room ("" when none).
func (m *machine) otherRoom(u int) string {
	if u < len(m.cfg.OtherRooms) {
		return m.cfg.OtherRooms[u]
	}
	return ""
}

// pick resolves a message of the sequence ("nil" when it has sent none).
func (m *machine) pick(a Anchor, p int) *msg {
	n := len(m.st.msgs)
	if n == 0 {
		return nil
	}
	switch a {
	case Oldest:
		return m.st.msgs[0]
	case Newest:
		return m.st.msgs[n-1]
	}
	return m.st.msgs[p%n]
}

// missingID is an id no message has, nor will: a known id of the room with
// its leading characters made zeros (same length and alphabet; an id that
// counts time or a sequence from its front then lies long before any
// message), or a made-up one. Changing the end instead could name the
// next message a server makes.
func (m *machine) missingID() string {
	if len(m.st.msgs) == 0 {
		return "000000000000000000000000"
	}
	id := []byte(m.st.msgs[len(m.st.msgs)-1].id)
	for i := 0; i < len(id) && i < 8; i++ {
		id[i] = '0'
	}
	if _, known := m.st.byID[string(id)]; known || len(id) == 0 {
		return "000000000000000000000000"
	}
	return string(id)
}

// written is a text the model writes and what it holds.
type written struct {
	text     string
	mentions []int
	issues   []string
	links    []string
	word     string
	// pair is two words the text holds side by side: its own word and the
	// word of the sequence's newest message ("" when it holds no such).
	pair string
}

// text composes the text of a send or an edit: the run marker, a word no
// other message has (letters of both cases and digits, for searches), one
// of the plain texts, and the parts o asks for.
func (m *machine) text(o op) written {
	n := len(m.steps)
	// Every other unique word holds a capital outside ASCII: a search
	// finds a word whatever its letters.
	capital := ""
	if n%2 == 1 {
		capital = "Ä"
	}
	w := written{word: fmt.Sprintf("Qz%s%sX%dk%d", strings.ToUpper(m.cfg.Marker[:1])+m.cfg.Marker[1:], capital, m.seq, n)}
	parts := []string{m.cfg.Marker, w.word}
	if n := len(m.st.msgs); o.Pair && n > 0 && m.st.msgs[n-1].word != "" {
		// The newest message's word after this one's: a search for both
		// finds this message under every reading of several words, and
		// the newest message holds one of them only.
		parts = append(parts, m.st.msgs[n-1].word)
		w.pair = w.word + " " + m.st.msgs[n-1].word
	}
	parts = append(parts, texts[o.Text%len(texts)])
	for i := range o.Parts & 3 {
		if len(m.cfg.Users) == 0 || m.cfg.Users[0].Username == "" {
			break
		}
		u := o.Picks[i%len(o.Picks)] % len(m.cfg.Users)
		if m.cfg.Users[u].Username == "" || slices.Contains(w.mentions, u) {
			continue
		}
		w.mentions = append(w.mentions, u)
		parts = append(parts, "hi @"+m.cfg.Users[u].Username)
		if i == 0 && o.Parts&4 != 0 {
			parts = append(parts, "and again @"+m.cfg.Users[u].Username)
		}
	}
	link := func(i int) string {
		l := fmt.Sprintf("https://example.com/%s/%d/%d?a=%d&b=two", m.cfg.Marker, n, i, i)
		switch (n + i) % 3 {
		case 0:
			l = fmt.Sprintf("https://example.com/%s/%d/%d/", m.cfg.Marker, n, i) // a path that ends in a slash, kept as written
		case 1:
			l += fmt.Sprintf("#part%d", i) // a fragment is part of the link as written
		}
		w.links = append(w.links, l)
		return l
	}
	if o.Odd {
		// Characters a JSON writer must escape and a server may normalise
		// (a tab, a CR LF line break), and a link whose path and query
		// carry capitals: after the host, a URL is case-sensitive.
		l := fmt.Sprintf("https://example.com/%s/CaseSensitive/Path%d?Key=Value%d", strings.ToUpper(m.cfg.Marker[:1])+m.cfg.Marker[1:], n, n)
		// And a link with a port and two query parameters (an & to
		// escape in href and anchor text), text that reads like HTML
		// entities (kept as written, escaped in html), and a mention at
		// the start of a line.
		port := fmt.Sprintf("https://example.com:8443/Port%d?a=%d&b=%s", n, n, m.cfg.Marker)
		w.links = append(w.links, l, port)
		parts = append(parts, "tab\there", "line one\r\nline two", "see "+l+" now", "and "+port+" too", "fish &amp; chips &lt;b&gt;")
		// Characters a server may normalise or decode twice: an accent
		// written as a combining mark, the angstrom sign (Unicode
		// normalisation makes both one precomposed letter), and
		// backslashes before letters a decoder reads as escapes. A text
		// comes back exactly as it was sent.
		parts = append(parts, "cafe\u0301 \u212b", `C:\new\table \u00e9 \"`)
		if len(w.mentions) > 0 {
			parts = append(parts, "ok\n@"+m.cfg.Users[w.mentions[0]].Username+" there")
		}
	}
	switch (o.Parts >> 5) & 3 {
	case 1:
		parts = append(parts, "see "+link(1)+" for more")
	case 3:
		parts = append(parts, "see "+link(1)+" and")
	}
	// Issue numbers of one to six digits: an issue reference is # and
	// digits, however many.
	issue := strconv.Itoa([]int{100 + n, 1 + n%9, 10000 + n, 200000 + n}[o.Picks[len(o.Picks)-1]%4])
	if (o.Parts>>3)&3 == 1 {
		w.issues = append(w.issues, issue)
		parts = append(parts, "fixes #"+issue+" today")
	}
	if (o.Parts>>5)&3 >= 2 {
		parts = append(parts, "at "+link(2))
	}
	if (o.Parts>>3)&3 == 2 {
		w.issues = append(w.issues, issue)
		parts = append(parts, "closes #"+issue)
	}
	// Where a part sits: the start and the end of a text bound a word in
	// every reading, so one text in eight opens with its issue reference,
	// one in eight with its first mention, one in eight with its first
	// link (when it holds one), and one in four ends with a bare mention
	// (taken from what is drawn already).
	place := (o.Picks[2]/4 + o.Text + n) % 8
	lead := func(prefix string) {
		for i, p := range parts {
			if i > 1 && strings.HasPrefix(p, prefix) {
				parts = slices.Insert(slices.Delete(parts, i, i+1), 0, strings.TrimPrefix(p, prefix))
				return
			}
		}
	}
	switch place {
	case 1:
		lead("fixes ")
		lead("closes ")
	case 2:
		lead("hi ")
	case 3:
		lead("see ")
	case 4, 5:
		if len(w.mentions) > 0 {
			parts = append(parts, "@"+m.cfg.Users[w.mentions[len(w.mentions)-1]].Username)
		}
	}
	// A status update is written the way chat clients write one, after
	// /me: the text comes back as it was sent, prefix and all.
	if o.Kind == Send && o.Status == 1 && (o.Picks[0]+n)%2 == 0 {
		parts = slices.Insert(parts, 0, "/me")
	}
	w.text = strings.Join(parts, " ")
	return w
}

// run executes one operation.
func (m *machine) run(o op) {
	m.kind = o.Kind
	m.readAt = time.Time{}
	o.User = m.user(o)
	m.steps = append(m.steps, o.String())
	m.touched = nil
	defer func() {
		if k := m.touched; k != nil && (o.Kind == Edit || o.Kind == EditNoText || o.Kind == Mark) {
			m.echo(o, k)
		}
	}()
	switch o.Kind {
	case Get, List, Unread, Rooms, Search:
		m.settle(o)
	case Send:
		m.send(o)
		if o.Bare {
			// A list with no query parameter at all, right after the send.
			m.settle(op{Kind: List, User: o.User, Anchor: Newest, Picks: o.Picks})
		}
	case SendNoText:
		m.sendNoText(o)
	case Edit:
		m.edit(o)
	case EditNoText:
		m.editNoText(o)
	case Mark:
		m.mark(o)
	}
}

func (m *machine) readOp(o op) {
	switch o.Kind {
	case Get:
		m.get(o)
	case List:
		m.list(o)
	case Unread:
		m.unread(o)
	case Rooms:
		m.rooms(o)
	case Search:
		m.search(o)
	}
}

// settle runs a read until what it shows of eventual state has settled:
// a mismatch the lag may explain sends it round again, at most until the
// lag has passed since the write, when the mismatch is a violation.
func (m *machine) settle(o op) {
	// From when its first request was sent: a replay of the checks,
	// whose clock is the record's, then waits exactly as the run did.
	m.settling, m.settleStart = true, time.Time{}
	defer func() { m.settling, m.settleStart = false, time.Time{} }()
	for {
		if m.read(o) {
			return
		}
		if m.ctx.Err() != nil {
			panic(aborted{m.ctx.Err()})
		}
		if m.cfg.Client.Replaying() {
			continue // the record holds what the run read after its waits
		}
		select {
		case <-m.ctx.Done():
			panic(aborted{m.ctx.Err()})
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// abandoned ends a read operation whose answer nothing can be read in,
// twice (see do): the operation is left out and the sequence goes on.
type abandoned struct{}

// read makes one read; false when it met a pending mismatch.
func (m *machine) read(o op) (done bool) {
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case pending:
				done = false
			case abandoned:
				done = true
			default:
				panic(r)
			}
		}
	}()
	m.readOp(o)
	return true
}

// A field of the wrong type is left unset, as if absent, and the answer
// stays usable: the breach is the document checker's to report, under the
// field's owner, and the model judges what the answer does carry.
func decode[T any](resp *client.Response) (T, bool) {
	var v T
	if !ok2xx(resp.Status) {
		return v, false
	}
	if err := json.Unmarshal(resp.Body, &v); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field == "" {
			return v, false
		}
	}
	return v, true
}

func (m *machine) send(o op) {
	u := m.user(o)
	wr := m.text(o)
	if o.Same && m.sent[u] != nil {
		// The text of the user's previous send again: a second message,
		// stored like the first.
		wr = *m.sent[u]
	}
	m.sent[u] = &wr
	text := wr.text
	body := map[string]any{"text": text}
	switch o.Status {
	case 1:
		body["status"] = true
	case 2:
		body["status"] = false
	}
	resp := m.do(u, client.Request{Method: http.MethodPost, Path: messagesPath(m.cfg.WriteRoom), Body: body})
	m.wanted(u, resp)
	w, ok := decode[wireMsg](resp)
	where := "the send answer"
	if !(ok && w.ID != "") {
		if found, made := m.madeDespite(resp, sendAnswer, func() (wireMsg, bool) { return m.findSent(u, text) }); made {
			w, ok, where = found, true, "the sent message as the room lists it"
		}
	}
	if ok && w.ID != "" {
		// Another success carrying the message: the sequence goes on with it.
		m.softly("MSG-SEND-200", resp.Status == http.StatusOK, "a valid send answered %d, not 200 (the sequence went on with the message it carried)", resp.Status)
	}
	m.check("MSG-SEND-200", resp.Status == http.StatusOK || ok && w.ID != "", "a valid send answered %d, not 200", resp.Status)
	if !ok || w.ID == "" {
		m.noServerError(resp, "a valid send") // a run that judges server errors judges this one
	}
	m.needAnswer("MSG-SEND-200", resp, ok && w.ID != "", "a valid send answered %d without a usable message", resp.Status)
	_, dup := m.st.byID[w.ID]
	m.check("MSG-SEND-STORED", !dup, "a send answered the id %s of a message sent before it", w.ID)
	m.tick(w.sentTime())
	m.check("MSG-SEND-TEXT", w.Text != nil && *w.Text == text, "the send answer's text is %s, not the text sent %q", quote(w.Text), text)
	// A message answered as another user's is no ground for what the
	// sequence builds on its sender (whose unread list it is in, whose
	// last access it moves): a run that does not judge the send is blocked.
	m.need("MSG-SEND-TEXT", w.FromUser == nil || w.FromUser.ID == m.cfg.Users[u].ID, "the send answer's fromUser is %s, not the sender %s", fromID(w), m.cfg.Users[u].ID)
	// The creation defaults and the status flag are statements about the
	// send's answer alone: a breach leaves the message usable, and the
	// sequence goes on with what the model says the message is, so reads
	// and edits are judged for themselves.
	m.softly("MSG-SEND-DEFAULTS", w.V == nil || *w.V == 1, "a new message has v %s, not 1 (the sequence went on)", intp(w.V))
	m.softly("MSG-SEND-DEFAULTS", w.ReadBy == nil || *w.ReadBy == 0, "a new message has readBy %s, not 0 (the sequence went on)", intp(w.ReadBy))
	m.softly("MSG-SEND-DEFAULTS", w.Unread == nil || !*w.Unread, "a new message is unread for its own sender (the sequence went on)")
	present, null := w.edited()
	m.softly("MSG-SEND-EDITEDAT-NULL", !present || null, "a new message has editedAt %s, not null (the sequence went on)", editedText(w))
	want := o.Status == 1
	m.softly("MSG-SEND-STATUS", w.Status == nil && !want || w.Status != nil && *w.Status == want,
		"sent with %s, the message's status is %s (the sequence went on)", [...]string{"no status field", "status true", "status false"}[o.Status], boolp(w.Status))
	if dup {
		return
	}
	now := m.now()
	k := &msg{id: w.ID, text: text, from: u, status: want, v: 1, sent: w.sentTime(),
		read: map[int]time.Time{}, unknown: map[int]bool{}, acked: now, changed: now,
		mentions: wr.mentions, sureMentions: wr.mentions, issues: wr.issues, links: wr.links, word: wr.word, pair: wr.pair,
		freshV: map[int]int{}, freshRead: map[int]bool{}, listed: map[int]bool{}}
	if w.Text != nil && *w.Text != text {
		// MSG-SEND-TEXT's breach, which this run does not judge: the message
		// holds what the server says it stored, and its word is not looked
		// for, nor the markup of the text sent.
		k.text, k.word, k.pair = *w.Text, "", ""
		k.mentions, k.sureMentions, k.issues, k.links = nil, nil, nil, nil
	}
	m.judgeRendering(k, w, where)
	m.st.add(k)
}

// The statements about the answer to a send or an edit itself: a run
// that applies one of them judges that answer, and never goes on with what
// a read shows instead (see madeDespite).
var (
	sendAnswer = []string{"MSG-SEND-200", "MSG-SEND-DEFAULTS", "MSG-SEND-EDITEDAT-NULL", "MSG-SEND-TEXT", "MSG-SEND-STATUS"}
	editAnswer = []string{"MSG-EDIT", "MSG-EDIT-EDITEDAT", "MSG-EDIT-V-INC"}
)

// madeDespite lets a sequence go on past a write whose answer it cannot
// use (a success of another shape; for a send, a server failure too: an
// edit refused with one is taken as not applied) when the write was made
// all the same: the answer's breach is one this run does not judge,
// nor any statement in about, and read finds what the write made. The
// answer is then reported met (Report.Met) and the sequence goes on with
// what was read; otherwise the answer blocks the run as before.
func (m *machine) madeDespite(resp *client.Response, about []string, read func() (wireMsg, bool)) (wireMsg, bool) {
	if m.cfg.Unusable == nil || !ok2xx(resp.Status) && resp.Status < 500 {
		return wireMsg{}, false
	}
	req, sig, breaks := m.cfg.Unusable(resp)
	if req == "" || slices.ContainsFunc(slices.Concat(breaks, about), func(r string) bool { return m.judge[r] }) ||
		resp.Status >= 500 && m.judge["GEN-NO-5XX"] {
		return wireMsg{}, false
	}
	w, ok := read()
	if !ok {
		return wireMsg{}, false
	}
	*m.met = append(*m.met, Met{Requirement: req, Signature: sig, Response: resp, Made: true})
	return w, true
}

// findSent finds in the write room's newest page the one message user u
// sent with text that the model does not know yet.
func (m *machine) findSent(u int, text string) (wireMsg, bool) {
	page, ok := decodePage(m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(m.cfg.WriteRoom), Query: url.Values{"limit": {"100"}}}))
	if !ok {
		return wireMsg{}, false
	}
	var found []wireMsg
	for _, w := range page {
		if _, known := m.st.byID[w.ID]; !known && w.Text != nil && *w.Text == text && w.FromUser != nil && w.FromUser.ID == m.cfg.Users[u].ID {
			found = append(found, w)
		}
	}
	if len(found) != 1 {
		return wireMsg{}, false
	}
	return found[0], true
}

// findEdited reads message id of the write room back as user u, and finds
// it when it shows the new text.
func (m *machine) findEdited(u int, id, text string) (wireMsg, bool) {
	w, ok := decode[wireMsg](m.do(u, client.Request{Method: http.MethodGet, Path: messagePath(m.cfg.WriteRoom, id)}))
	return w, ok && w.ID == id && w.Text != nil && *w.Text == text
}

func (m *machine) sendNoText(o op) {
	u := m.user(o)
	body := map[string]any{}
	if o.Odd {
		body["text"] = nil // a text of null is no text either
	}
	if o.Status == 1 {
		body["status"] = true
	}
	newest := ""
	if top := m.page(u, url.Values{"limit": {"1"}}); len(top) == 1 {
		newest = top[0].ID
	}
	resp := m.do(u, client.Request{Method: http.MethodPost, Path: messagesPath(m.cfg.WriteRoom), Body: body, Invalid: true})
	m.noServerError(resp, "a send without text")
	m.check("MSG-TEXT-REQUIRED", !ok2xx(resp.Status), "a send without the required text answered %d", resp.Status)
	if w, ok := decode[wireMsg](resp); ok && w.ID != "" {
		// Accepted although it must not be: learn the message, so the rest
		// of the sequence is judged against what the server holds.
		text := ""
		if w.Text != nil {
			text = *w.Text
		}
		now := m.now()
		m.st.add(&msg{id: w.ID, text: text, from: u, v: 1, sent: w.sentTime(), read: map[int]time.Time{}, unknown: map[int]bool{}, acked: now, changed: now,
			freshV: map[int]int{}, freshRead: map[int]bool{}, listed: map[int]bool{}})
		return
	}
	// Refused: nothing may have been stored, so the room's newest message
	// is the one it was just before (as a refused generated request, this
	// reads the room around the request). Where others may write, a newer
	// message is the refused send's only when it is this user's and has no
	// text.
	if top := m.page(u, url.Values{"limit": {"1"}}); len(top) == 1 && !ok2xx(resp.Status) {
		_, known := m.st.byID[top[0].ID]
		stray := top[0].ID != newest && !known
		if stray && !m.cfg.SoleWriter {
			mine := top[0].FromUser != nil && top[0].FromUser.ID == m.cfg.Users[u].ID
			stray = mine && (top[0].Text == nil || *top[0].Text == "")
		}
		m.check("MSG-TEXT-REQUIRED", !stray, "a send without text was refused (%d), yet the room's newest message is now %s, not %s", resp.Status, top[0].ID, newest)
	}
}

// decodePage reads a page of messages: a list whose every item carries
// an id. A list of something else (items wrapped in another object, say)
// is no page: the sequence cannot go on from it (MSG-LIST's breach).
func decodePage(resp *client.Response) ([]wireMsg, bool) {
	page, ok := decode[[]wireMsg](resp)
	if !ok || slices.ContainsFunc(page, func(w wireMsg) bool { return w.ID == "" }) {
		return nil, false
	}
	return page, true
}

// page reads a page the model needs, without judging it as a List.
func (m *machine) page(u int, q url.Values) []wireMsg {
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(m.cfg.WriteRoom), Query: q})
	m.wanted(u, resp)
	ms, ok := decodePage(resp)
	m.need("MSG-LIST", ok, "listing the room answered %d without a usable page", resp.Status)
	return ms
}

func (m *machine) edit(o op) {
	u := m.user(o)
	target := m.pick(o.Anchor, o.Picks[0])
	if o.Picks[1]%2 == 0 {
		// Every other edit is of one of the editor's own messages, which
		// the description lets its author edit: an accepted edit, so the
		// reads and searches after it have an edit to follow.
		if own := m.ownMessages(u); len(own) > 0 {
			target = own[o.Picks[0]%len(own)]
		}
	}
	if o.Again && m.edited != nil {
		target = m.edited
	}
	if target == nil {
		return
	}
	room, other := m.cfg.WriteRoom, false
	if o.Other && m.otherRoom(u) != "" {
		room, other = m.otherRoom(u), true
	}
	wr := m.text(o)
	if o.Same {
		// An edit to the text the message has: an edit all the same.
		wr = written{text: target.text, mentions: target.mentions, issues: target.issues, links: target.links, word: target.word, pair: target.pair}
	} else if o.keepsWord() && target.word != "" && !strings.Contains(wr.text, target.word) {
		// The new text keeps the message's word: a search for it matches
		// the old text and the new, and finds the message once.
		wr.text += " " + target.word
		wr.word = target.word
	}
	text := wr.text
	floor := m.clock
	m.touched = target
	resp := m.do(u, client.Request{Method: http.MethodPut, Path: messagePath(room, target.id), Body: map[string]any{"text": text}})
	switch {
	case other:
		m.noServerError(resp, "an edit through another room")
		m.check("MSG-ROOM-SCOPE", !ok2xx(resp.Status), "editing message %s of the write room through the path of room %s answered %d, as if it were that room's", target.id, room, resp.Status)
	case target.from == u:
		m.wanted(u, resp)
		m.check("MSG-EDIT", ok2xx(resp.Status), "the author's edit of their own message answered %d", resp.Status)
		m.noServerError(resp, "the author's edit of their own message")
	default: // another user's message: the description does not say who may edit
		m.noServerError(resp, "an edit of another user's message")
	}
	if !ok2xx(resp.Status) {
		target.refused, target.refusedText = "", ""
		if other {
			target.refused, target.refusedText = "MSG-ROOM-SCOPE", text
		}
		return
	}
	w, ok := decode[wireMsg](resp)
	where := "the edit answer"
	if !(ok && w.ID != "") && !other && target.from == u {
		if found, made := m.madeDespite(resp, editAnswer, func() (wireMsg, bool) { return m.findEdited(u, target.id, text) }); made {
			w, ok, where = found, true, "the edited message read back by id"
		}
	}
	m.needAnswer("MSG-EDIT", resp, ok && w.ID != "", "an edit answered %d without a usable message", resp.Status)
	// An answer about another message is no ground for what the sequence
	// learns of this one: a run that does not judge the edit is blocked.
	m.need("MSG-EDIT", w.ID == target.id, "editing %s answered message %s", target.id, w.ID)
	m.check("MSG-EDIT", w.Text != nil && *w.Text == text, "the edit answer's text is %s, not the new text %q", quote(w.Text), text)
	present, null := w.edited()
	m.check("MSG-EDIT-EDITEDAT", present && !null, "after an edit, editedAt is %s", editedText(w))
	want := target.v + 1
	if m.cfg.SoleWriter {
		m.check("MSG-EDIT-V-INC", w.V == nil || *w.V == want, "an edit of a message at v %d answered v %s, not %d", target.v, intp(w.V), want)
	} else {
		m.check("MSG-EDIT-V-INC", w.V == nil || *w.V >= want, "an edit of a message at v %d answered v %s", target.v, intp(w.V))
	}
	m.edited = target
	target.editFloor = floor
	m.tick(w.editedTime())
	target.prevText = target.text
	target.text, target.v, target.refused, target.refusedText, target.changed = text, want, "", "", m.now()
	target.found = false
	if w.Text != nil && *w.Text != text {
		// MSG-EDIT's breach, which this run does not judge: as for a send,
		// the message holds what the answer says, whose markup the model
		// does not know.
		target.text = *w.Text
		wr.word, wr.pair, wr.mentions, wr.issues, wr.links = "", "", nil, nil, nil
	}
	target.mentions, target.issues, target.links, target.word, target.pair = wr.mentions, wr.issues, wr.links, wr.word, wr.pair
	target.sureMentions = slices.DeleteFunc(slices.Clone(target.sureMentions), func(u int) bool { return !slices.Contains(wr.mentions, u) })
	m.judgeRendering(target, w, where)
	if w.V != nil && *w.V > want {
		target.v = *w.V
	}
}

func (m *machine) editNoText(o op) {
	u := m.user(o)
	target := m.pick(o.Anchor, o.Picks[0])
	if target == nil {
		return
	}
	m.touched = target
	body := map[string]any{}
	if o.Odd {
		body["text"] = nil // a text of null is no text either
	}
	resp := m.do(u, client.Request{Method: http.MethodPut, Path: messagePath(m.cfg.WriteRoom, target.id), Body: body, Invalid: true})
	m.noServerError(resp, "an edit without text")
	m.check("MSG-TEXT-REQUIRED", !ok2xx(resp.Status), "an edit without the required text answered %d", resp.Status)
	if w, ok := decode[wireMsg](resp); ok && w.ID == target.id {
		if w.Text != nil {
			target.prevText, target.text = target.text, *w.Text
		}
		if w.V != nil {
			target.v = *w.V
		}
		target.mentions, target.sureMentions, target.issues, target.links = nil, nil, nil, nil
		if !strings.Contains(target.text, target.word) {
			target.word = ""
		}
		if !strings.Contains(target.text, target.pair) {
			target.pair = ""
		}
		target.changed, target.found = m.now(), false
		return
	}
	target.refused, target.refusedText = "MSG-TEXT-REQUIRED", ""
}

func (m *machine) get(o op) {
	u := m.user(o)
	target := m.pick(o.Anchor, o.Picks[0])
	id := m.missingID()
	if target != nil && o.Anchor != Missing {
		id = target.id
	} else {
		target = nil
	}
	room := m.cfg.WriteRoom
	if o.Shown && !o.Other {
		m.getShown(u, o)
		return
	}
	if o.Other && m.otherRoom(u) != "" {
		room = m.otherRoom(u)
		resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagePath(room, id)})
		m.noServerError(resp, "reading a message through another room")
		if w, ok := decode[wireMsg](resp); ok && target != nil {
			m.check("MSG-ROOM-SCOPE", w.ID != id, "reading message %s of the write room through the path of room %s answered it (%d), as if it were that room's", id, room, resp.Status)
		}
		return
	}
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagePath(room, id)})
	if target == nil {
		m.noServerError(resp, "reading an id no message has")
		if w, ok := decode[wireMsg](resp); ok {
			m.check("MSG-GET-ONE", w.ID == id, "reading id %s, which no message has, answered message %s", id, w.ID)
		}
		return
	}
	m.wanted(u, resp)
	notFound := resp.Status == http.StatusNotFound || resp.Status == http.StatusGone
	if notFound && target.visible(m.now(), m.cfg.Eventually) && m.listed(u, id) {
		// Stored, since the room lists it: the read by id is what fails.
		m.check("MSG-GET-ONE", false, "message %s is in the room's pages, yet reading it by id answered %d", id, resp.Status)
		return
	}
	m.eventually("MSG-SEND-STORED", target.visible(m.now(), m.cfg.Eventually), !notFound,
		"message %s, whose send was acknowledged, is not found (%d), by id nor in the room's newest 100 messages", id, resp.Status)
	if notFound {
		// Past the lag (a judged statement would have ended the sequence
		// above): a run that does not judge the send is blocked by it, not
		// by the read that could not find what was never kept.
		m.need("MSG-SEND-STORED", false, "message %s, whose send was acknowledged, is not found (%d), by id nor in the room's newest 100 messages", id, resp.Status)
	}
	m.eventually("MSG-GET-ONE", target.visible(m.now(), m.cfg.Eventually), ok2xx(resp.Status), "reading message %s of the room answered %d", id, resp.Status)
	w, ok := decode[wireMsg](resp)
	m.needAnswer("MSG-GET-ONE", resp, ok, "reading message %s answered %d without a usable message", id, resp.Status)
	m.check("MSG-GET-ONE", w.ID == id, "reading message %s answered message %s", id, w.ID)
	m.judgeMsg(u, target, w, "read by id")
}

// getShown reads by id a message the room's pages showed that the run did
// not send (the oldest shown, or another): whatever the room lists, it
// serves by id through the room's path.
func (m *machine) getShown(u int, o op) {
	if !*m.walked && m.judge["MSG-GET-ONE"] {
		m.walk(u) // the room's own oldest message, an edge no sequence reaches by its own sends
	}
	var ids []string
	for id := range m.room {
		if m.st.byID[id] == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	slices.SortFunc(ids, func(a, b string) int {
		if c := m.room[a].sent.Compare(m.room[b].sent); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	// The oldest the pages showed (an edge of the room) and another.
	for _, id := range slices.Compact([]string{ids[0], ids[o.Picks[2]%len(ids)]}) {
		resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagePath(m.cfg.WriteRoom, id)})
		m.wanted(u, resp)
		m.eventually("MSG-GET-ONE", m.now().Sub(m.room[id].at) > m.cfg.Eventually, ok2xx(resp.Status), "the room's pages show message %s, yet reading it by id through the room answered %d", id, resp.Status)
		w, ok := decode[wireMsg](resp)
		m.check("MSG-GET-ONE", ok && w.ID == id, "reading message %s, which the room's pages show, answered %s", id, cut(string(resp.Body), 200))
	}
}

// walk pages the room as a client would, from the newest page back with
// beforeId set to the oldest message of the page before, until a page
// holds fewer than the limit (at most 30 pages of 100): every page is
// judged as a page, and every message it shows is one the room holds.
func (m *machine) walk(u int) {
	*m.walked = true
	q := url.Values{"limit": {"100"}}
	for range 30 {
		resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(m.cfg.WriteRoom), Query: q})
		m.wanted(u, resp)
		what := "GET " + messagesPath(m.cfg.WriteRoom) + "?" + q.Encode() + " (walking the room to its oldest message)"
		m.check("MSG-LIST", ok2xx(resp.Status), "%s answered %d", what, resp.Status)
		page, ok := decodePage(resp)
		m.need("MSG-LIST", ok, "%s answered %d without a usable page", what, resp.Status)
		m.judgePage(u, 100, BeforeAndAfter, nil, nil, page, what) // no anchor the model knows: the page as such
		if len(page) < 100 {
			return
		}
		oldest := page[0]
		for _, w := range page[1:] {
			if t := w.sentTime(); !t.IsZero() && t.Before(oldest.sentTime()) {
				oldest = w
			}
		}
		q.Set("beforeId", oldest.ID)
	}
}

// listed reports whether the room's pages hold message id: a page shown
// before, or the room's newest 100 messages now.
func (m *machine) listed(u int, id string) bool {
	if m.room[id] != nil {
		return true
	}
	for _, w := range m.page(u, url.Values{"limit": {"100"}}) {
		if w.ID == id {
			return true
		}
	}
	return false
}

// lostTo applies the ground under a read that misses message k: when
// user u can neither read it by id nor find it among the room's newest 100
// messages once the lag has passed, the acknowledged send is lost to u
// (shown to its sender only, say), which is MSG-SEND-STORED's, not the
// statement of the read that missed it. It is called only where a read
// has missed a message past the lag, which a conforming server never does.
func (m *machine) lostTo(u int, k *msg) {
	if k == nil || !k.visible(m.now(), m.cfg.Eventually) {
		return
	}
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagePath(m.cfg.WriteRoom, k.id)})
	if resp.Status != http.StatusNotFound && resp.Status != http.StatusGone {
		return
	}
	for _, w := range m.page(u, url.Values{"limit": {"100"}}) {
		if w.ID == k.id {
			return
		}
	}
	m.need("MSG-SEND-STORED", false, "message %s, whose send user %d saw acknowledged, is not found by user %d (%d), by id nor in the room's newest 100 messages", k.id, k.from+1, u+1, resp.Status)
}

// judgeMsg holds a message as answered to user u to what the model knows.
func (m *machine) judgeMsg(u int, k *msg, w wireMsg, where string) {
	now := m.now()
	textReq, vReq := "MSG-SEND-STORED", "MSG-EDIT-PERSISTED"
	if k.v > 1 {
		textReq = "MSG-EDIT-PERSISTED"
	}
	if k.refused != "" {
		vReq = k.refused
		// A text other than the refused write's is not that write applied:
		// the message's own requirement answers for it.
		if k.refusedText == "" || w.Text != nil && *w.Text == k.refusedText {
			textReq = k.refused
		}
	}
	settled := k.settled(now, m.cfg.Eventually)
	if w.Text != nil && k.refusedText != "" && k.refusedText != k.text {
		// The text of a refused edit, which nobody else wrote (it holds
		// the step's own word): the refused write was applied, whoever
		// else may write.
		m.check(k.refused, *w.Text != k.refusedText, "message %s (%s) has the text of an edit that was refused (%s): %q", k.id, where, k.refused, k.refusedText)
	}
	if w.Text != nil {
		m.eventually(textReq, settled, *w.Text == k.text || !m.cfg.SoleWriter && w.V != nil && *w.V > k.v,
			"message %s (%s) has text %q; the model holds %q (v %d)", k.id, where, *w.Text, k.text, k.v)
	}
	if w.V != nil {
		// What a search finds may come from an index of its own, which
		// lags on its own: once past the lag it agrees, and before it no
		// order with the pages' answers is stated.
		m.check("MSG-EDIT-PERSISTED", m.searching || *w.V >= k.freshV[u], "message %s (%s) is at v %d, yet user %d was shown it at v %d before", k.id, where, *w.V, u+1, k.freshV[u])
		if *w.V <= k.v && *w.V > k.freshV[u] && !m.searching {
			k.freshV[u] = *w.V
		}
		switch {
		case *w.V < 1 && k.v == 1:
			m.check("MSG-SEND-DEFAULTS", false, "message %s (%s), never edited, is at v %d, not 1", k.id, where, *w.V)
		case *w.V < k.v:
			m.eventually("MSG-EDIT-PERSISTED", settled, false, "message %s (%s) is at v %d; %d edit(s) were acknowledged, so it is at v %d", k.id, where, *w.V, k.v-1, k.v)
		case *w.V > k.v && m.cfg.SoleWriter:
			m.check(vReq, false, "message %s (%s) is at v %d; only %d edit(s) were accepted, so it is at v %d", k.id, where, *w.V, k.v-1, k.v)
		}
	}
	if at := w.editedTime(); !at.IsZero() && w.V != nil && *w.V == k.v && k.v > 1 && !k.editFloor.IsZero() {
		// The message as the last acknowledged edit left it: its editedAt
		// is the time of that edit, not older than what the server stamped
		// on writes acknowledged before the edit was asked for.
		m.check("MSG-EDIT-PERSISTED", !at.Before(k.editFloor.Add(-time.Millisecond)), "message %s (%s) is at v %d with editedAt %s, older than %s, a time the server wrote before that edit was asked for: the edit's time was not stored", k.id, where, *w.V, at.Format(time.RFC3339Nano), k.editFloor.Format(time.RFC3339Nano))
	}
	if present, null := w.edited(); present {
		if w.V != nil && *w.V == 1 {
			m.check("MSG-SEND-EDITEDAT-NULL", null, "message %s (%s) is at v 1 with editedAt %s", k.id, where, editedText(w))
		}
		if k.v > 1 {
			m.eventually("MSG-EDIT-PERSISTED", settled, !null, "message %s (%s) was edited, yet its editedAt is null", k.id, where)
		}
	}
	m.check("MSG-SEND-STATUS", w.Status == nil && !k.status || w.Status != nil && *w.Status == k.status,
		"message %s (%s) has status %s; it was sent with status %v", k.id, where, boolp(w.Status), k.status)
	if w.Unread != nil && !*w.Unread && !k.unknown[u] && m.cfg.SharedUsers && k.from != u && m.othersNamed(k) {
		if read, _ := k.readFor(u, now, 0); !read {
			k.unknown[u] = true // another client of this user may have marked it read
		}
	}
	if w.Unread != nil && !k.unknown[u] {
		read, settled := k.readFor(u, now, m.cfg.Eventually)
		if read && *w.Unread == !read && !m.searching {
			k.freshRead[u] = true
		}
		req := "UNREAD-FLAG"
		if !read && !*w.Unread && k.readByOther(u) >= 0 && (settled || m.waited()) && !m.stillListed(u, k.id) {
			// another user's mark read reached this user: their unread list
			// lost it too (a list that still holds it leaves the flag wrong)
			req = "UNREAD-MARK-READ"
		}
		m.eventually(req, settled || read && k.freshRead[u] && !m.searching, *w.Unread == !read, "message %s (%s) is unread %v for user %d, who %s", k.id, where, *w.Unread, u+1, readWords(k, u, read))
	}
	if w.Text != nil && *w.Text == k.text {
		m.judgeRendering(k, w, where)
	}
	if w.ReadBy != nil {
		low, high := k.readByBounds(now, m.cfg.Eventually, len(m.cfg.Users), m.cfg.SoleWriter)
		m.check("UNREAD-READBY", *w.ReadBy >= low, "message %s (%s) has readBy %d, yet %d other user(s) marked it read", k.id, where, *w.ReadBy, low)
		// Every reader counts once the lag has passed: a count short of
		// the readers whose marks are still fresh is read again till then.
		marked := 0
		for r := range k.read {
			if r != k.from {
				marked++
			}
		}
		m.eventually("UNREAD-READBY", low >= marked, *w.ReadBy >= marked, "message %s (%s) has readBy %d, yet %d user(s) besides its sender marked it read", k.id, where, *w.ReadBy, marked)
		m.check("UNREAD-READBY", high < 0 || *w.ReadBy <= high, "message %s (%s) has readBy %d, yet at most %d user(s) besides its sender can have read it", k.id, where, *w.ReadBy, high)
	}
}

func readWords(k *msg, u int, read bool) string {
	switch {
	case k.from == u:
		return "sent it"
	case read:
		return "marked it read"
	}
	return "has not marked it read"
}

func (m *machine) list(o op) {
	u := m.user(o)
	m.listOwn(u, o)
	if o.Other && o.Cursor != NoCursor && m.otherRoom(u) != "" {
		m.listOther(u, o) // the same cursor, naming another room's message
	}
	if o.Bare {
		m.listOwn(u, op{Kind: List, User: u, Anchor: Newest, Picks: o.Picks}) // no query parameter at all
	}
}

func (m *machine) listOwn(u int, o op) {
	q := url.Values{}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Skip > 0 {
		q.Set("skip", strconv.Itoa(o.Skip-1))
	}
	anchor := m.pick(o.Anchor, o.Picks[0])
	if o.Anchor == Missing {
		anchor = nil
	}
	cursorID := m.missingID()
	if anchor != nil {
		cursorID = anchor.id
	}
	var older *msg // BeforeAndAfter: afterId names an older message than beforeId
	cursor := o.Cursor
	if o.Again && m.lastCursor.anchor != nil && cursor != NoCursor {
		// The cursor of an earlier list again, after what the sequence
		// wrote since: a page follows the messages as they are now.
		cursor, anchor = m.lastCursor.cursor, m.lastCursor.anchor
		cursorID = anchor.id
	}
	if anchor != nil && (cursor == BeforeID || cursor == AfterID || cursor == AroundID) {
		m.lastCursor.cursor, m.lastCursor.anchor = cursor, anchor
	}
	if len(m.st.msgs) == 0 && cursor != NoCursor {
		anchor = nil
	}
	switch cursor {
	case BeforeID:
		q.Set("beforeId", cursorID)
	case AfterID:
		q.Set("afterId", cursorID)
	case AroundID:
		q.Set("aroundId", cursorID)
	case BeforeAndAfter:
		if anchor == nil {
			q.Set("beforeId", cursorID)
			q.Set("afterId", m.missingID())
			break
		}
		older = m.st.msgs[0]
		if anchor == older && len(m.st.msgs) > 1 {
			anchor = m.st.msgs[len(m.st.msgs)-1]
		}
		q.Set("beforeId", anchor.id)
		q.Set("afterId", older.id)
	}
	defined := cursor == NoCursor || anchor != nil && cursor != BeforeAndAfter
	// Which end skip counts from is not shown, and a limit beyond 100 may be
	// refused or capped: such a page is held to what every reading keeps.
	whole := o.Skip == 0 && o.Limit <= 100
	if len(q) == 0 && !*m.foreignRead && m.otherRoom(u) != "" && m.judge["MSG-ROOM-SCOPE"] {
		// Once a run: another room's messages, which no page of the write
		// room may hold (a list without parameters is a server's default
		// answer, the likeliest to come from the wrong place).
		*m.foreignRead = true
		m.otherMessage(u, o)
	}
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(m.cfg.WriteRoom), Query: q})
	m.wanted(u, resp)
	what := "GET " + messagesPath(m.cfg.WriteRoom) + "?" + q.Encode()
	if len(q) == 0 {
		what = "GET " + messagesPath(m.cfg.WriteRoom) + " (no query parameter: the server's default limit)"
	}
	if !defined || !whole {
		m.noServerError(resp, what)
		if !ok2xx(resp.Status) {
			return
		}
	} else {
		req := [...]string{"MSG-LIST", "PAGE-BEFOREID", "PAGE-AFTERID", "PAGE-AROUNDID"}[cursor]
		m.check(req, ok2xx(resp.Status), "%s, valid on the caller's own room, answered %d", what, resp.Status)
	}
	page, ok := decodePage(resp)
	m.need("MSG-LIST", ok, "%s answered %d without a usable page", what, resp.Status)
	if !whole {
		m.judgePage(u, o.Limit, BeforeAndAfter, nil, nil, page, what) // no anchor: the page as such, its size and its messages
		if defined || cursor == BeforeAndAfter && anchor != nil {
			// Whichever end skip counts from, and whatever a limit beyond
			// the bound does, a cursor still bounds the page: skip and
			// limit choose among the messages on the cursor's side only.
			m.judgeBounds(cursor, anchor, older, page, what)
		}
		return
	}
	m.judgePage(u, o.Limit, cursor, anchor, older, page, what)
}

// judgeBounds holds a page to its cursors' sides alone: no message at or
// after beforeId, none at or before afterId. It says nothing of which
// messages of that side the page holds.
func (m *machine) judgeBounds(cursor Cursor, anchor, older *msg, page []wireMsg, what string) {
	sole := m.cfg.SoleWriter
	var refs []ref
	for _, w := range page {
		if _, foreign := m.foreignOf(w); !foreign {
			refs = append(refs, ref{id: w.ID, known: m.st.byID[w.ID], sent: w.sentTime()})
		}
	}
	side := func(req string, lo, hi *msg, cur *msg, word string) {
		for _, r := range refs {
			m.check(req, r.id != cur.id, "%s holds its own %s cursor", what, word)
			var isBefore, ok bool
			if lo == nil {
				isBefore, ok = m.st.before(r, ref{id: hi.id, known: hi, sent: hi.sent}, sole)
			} else {
				isBefore, ok = m.st.before(ref{id: lo.id, known: lo, sent: lo.sent}, r, sole)
			}
			m.check(req, !ok || isBefore, "%s holds message %s, which is not %s %s", what, r.id, map[string]string{"beforeId": "before", "afterId": "after"}[word], cur.id)
		}
	}
	switch cursor {
	case BeforeID:
		side("PAGE-BEFOREID", nil, anchor, anchor, "beforeId")
	case AfterID:
		side("PAGE-AFTERID", anchor, nil, anchor, "afterId")
	case BeforeAndAfter:
		side("PAGE-BEFOREID", nil, anchor, anchor, "beforeId")
		side("PAGE-AFTERID", older, nil, older, "afterId")
	}
}

// judgePage holds a page to the model.
func (m *machine) judgePage(u, limit int, cursor Cursor, anchor, older *msg, page []wireMsg, what string) {
	if limit > 0 {
		m.check("PAGE-LIMIT", len(page) <= limit, "%s holds %d messages", what, len(page))
	}
	now, shownAt := m.now(), m.cfg.Client.Now() // shown by the time the answer came back
	for _, w := range page {
		if _, foreign := m.foreignOf(w); foreign {
			continue // not the write room's (see notForeign), whatever this run judges
		}
		if m.room[w.ID] == nil {
			m.room[w.ID] = &shown{at: shownAt, by: map[int]bool{}, sent: w.sentTime()}
		}
		m.room[w.ID].by[u] = true
	}
	m.check("LIMIT-CAP", len(page) <= 100, "%s holds %d messages, more than 100", what, len(page))
	m.notForeign(page, what)
	seen := map[string]bool{}
	refs := make([]ref, 0, len(page))
	for _, w := range page {
		m.check("PAGE-UNIQUE", !seen[w.ID], "%s holds message %s twice", what, w.ID)
		seen[w.ID] = true
		k := m.st.byID[w.ID]
		refs = append(refs, ref{id: w.ID, known: k, sent: w.sentTime()})
		if k != nil {
			m.judgeMsg(u, k, w, "in "+what)
		}
	}
	if anchor == nil && cursor != NoCursor {
		return // a cursor the run does not know: nothing else is stated
	}
	sole := m.cfg.SoleWriter
	a := ref{}
	if anchor != nil {
		a = ref{id: anchor.id, known: anchor, sent: anchor.sent}
	}
	// known lists the sequence's messages that the page may hold, and
	// short is the requirement a page short of them breaks.
	var known []*msg
	switch cursor {
	case NoCursor:
		known = m.st.msgs
	case BeforeID, BeforeAndAfter:
		m.check("PAGE-BEFOREID", !seen[anchor.id], "%s holds its own cursor", what)
		for _, r := range refs {
			isBefore, ok := m.st.before(r, a, sole)
			m.check("PAGE-BEFOREID", !ok || isBefore, "%s holds message %s, which is not before %s", what, r.id, anchor.id)
		}
		known = m.st.msgs[:anchor.seq]
		if cursor == BeforeAndAfter {
			o := ref{id: older.id, known: older, sent: older.sent}
			m.check("PAGE-AFTERID", !seen[older.id], "%s holds its own afterId cursor", what)
			for _, r := range refs {
				isBefore, ok := m.st.before(o, r, sole)
				m.check("PAGE-AFTERID", !ok || isBefore, "%s holds message %s, which is not after %s", what, r.id, older.id)
			}
			return
		}
	case AfterID:
		m.check("PAGE-AFTERID", !seen[anchor.id], "%s holds its own cursor", what)
		for _, r := range refs {
			isBefore, ok := m.st.before(a, r, sole)
			m.check("PAGE-AFTERID", !ok || isBefore, "%s holds message %s, which is not after %s", what, r.id, anchor.id)
		}
		after := m.st.msgs[anchor.seq+1:]
		want := len(after)
		if limit > 0 {
			want = min(want, limit)
		} else {
			want = min(want, 1)
		}
		settled := true
		for _, k := range after {
			settled = settled && k.visible(m.now(), m.cfg.Eventually)
		}
		m.eventually("PAGE-AFTERID", settled, len(page) >= want, "%s holds %d message(s), yet %d message(s) of this run follow %s", what, len(page), len(after), anchor.id)
		return
	case AroundID:
		m.eventually("PAGE-AROUNDID", anchor.visible(m.now(), m.cfg.Eventually), seen[anchor.id], "%s leaves out its anchor", what)
		if limit == 1 {
			m.check("PAGE-AROUNDID", len(page) == 1, "%s holds %d messages besides its anchor", what, len(page)-1)
		}
		// A window: no message of the run between the anchor and a message
		// of the page is left out.
		for _, r := range refs {
			if r.known == nil {
				continue
			}
			lo, hi := min(r.known.seq, anchor.seq), max(r.known.seq, anchor.seq)
			for _, k := range m.st.msgs[lo:hi] {
				m.eventually("PAGE-AROUNDID", k.visible(m.now(), m.cfg.Eventually), seen[k.id], "%s holds %s but leaves out %s, which lies between it and the anchor", what, r.id, k.id)
			}
		}
		return
	}
	// No cursor or beforeId: the page is the newest messages before the
	// cursor, so none of the run's is skipped, and a short page is the last.
	if cursor == NoCursor && limit == 0 && len(page) == 0 {
		// Without limit the page size is the server's default, unknown but
		// not none: a room that holds a message the run has been shown has
		// a newest page that holds one.
		sure, lagging := 0, 0
		for _, sh := range m.room {
			if sh.by[u] || now.Sub(sh.at) > m.cfg.Eventually {
				sure++
			}
		}
		for _, k := range m.st.msgs {
			switch {
			case m.room[k.id] != nil:
			case k.visible(now, m.cfg.Eventually):
				sure++
			default:
				lagging++
			}
		}
		m.eventually("PAGE-BEFOREID-WALK", sure > 0, sure+lagging == 0, "%s is empty, yet the room holds at least %d message(s) the run sent or was shown, and nothing removes one; an empty page ends a walk before it starts", what, sure+lagging)
	}
	if cursor == NoCursor && limit > 0 {
		// The room only grows (nothing deletes a message): a newest page
		// holds as many as limit asks, up to the messages the run has been
		// shown in the room (by this caller, or long enough ago for every
		// reader to see them).
		held := 0
		for _, sh := range m.room {
			if sh.by[u] || now.Sub(sh.at) > m.cfg.Eventually {
				held++
			}
		}
		req := "PAGE-BEFOREID-WALK"
		if limit == 100 {
			req = "LIMIT-100"
		}
		// A message another user sent a moment ago may not show yet and push
		// an older one off a page that is then short: judged once past the lag.
		lagging := false
		for _, k := range m.st.msgs {
			lagging = lagging || k.from != u && !k.visible(now, m.cfg.Eventually)
		}
		m.eventually(req, !lagging, len(page) >= min(limit, held), "%s holds %d message(s), yet user %d has been shown %d messages of the room, and nothing removes one", what, len(page), u+1, held)
	}
	// A message another user sent a moment ago may not show yet, and the
	// page is then short by it: a short page is judged once every message
	// it lacks is past the lag.
	lagging := false
	for _, k := range known {
		lagging = lagging || !seen[k.id] && !k.visible(now, m.cfg.Eventually)
	}
	for _, k := range known {
		if seen[k.id] {
			continue
		}
		settled := k.visible(now, m.cfg.Eventually)
		if limit > 0 {
			if len(page) < limit && (settled && !lagging || m.waited()) {
				m.lostTo(u, k)
			}
			m.eventually("PAGE-BEFOREID-WALK", settled && !lagging, len(page) >= limit, "%s holds %d message(s), fewer than its limit, yet leaves out %s of this run; a short page ends a walk", what, len(page), k.id)
		}
		kr := ref{id: k.id, known: k, sent: k.sent}
		for _, r := range refs {
			isBefore, ok := m.st.before(r, kr, sole)
			if ok && isBefore && (settled || m.waited()) {
				m.lostTo(u, k)
			}
			m.eventually("PAGE-BEFOREID-WALK", settled, !ok || !isBefore, "%s holds %s but leaves out the newer %s: a walk would skip it", what, r.id, k.id)
		}
	}
}

func (m *machine) mark(o op) {
	u := m.user(o)
	room, other := m.cfg.WriteRoom, false
	if o.Other && m.otherRoom(u) != "" {
		room, other = m.otherRoom(u), true
	}
	var ids []string
	var named []*msg
	if o.Anchor == Missing || len(m.st.msgs) == 0 {
		ids = []string{m.missingID()}
	} else {
		for i, p := range o.Picks {
			k := m.pick(Middle, p)
			if i == 0 {
				k = m.pick(o.Anchor, p)
			}
			if !slices.Contains(named, k) {
				named = append(named, k)
				ids = append(ids, k.id)
			}
		}
	}
	// One mark in five names its first id twice: the document does not
	// forbid it, so the server marks the messages or refuses the whole
	// request, and a refusal changes nothing.
	twice := o.Odd && len(named) > 0
	if twice {
		ids = append(ids, ids[0])
	}
	now := m.now()
	fresh := len(named) > 0 // every id names a message unread for u
	for _, k := range named {
		if read, _ := k.readFor(u, now, 0); read || k.unknown[u] {
			fresh = false
		}
	}
	m.marked[u] = now
	resp := m.do(u, client.Request{Method: http.MethodPost, Path: m.unreadPath(u, room), Body: map[string]any{"chat": ids}})
	m.noServerError(resp, "marking read")
	if fresh && !other && !(twice && resp.Status/100 == 4) {
		m.wanted(u, resp)
		m.check("UNREAD-MARK-READ", ok2xx(resp.Status), "marking read %d message(s) unread for user %d answered %d", len(ids), u+1, resp.Status)
	}
	for _, k := range named {
		switch {
		case k.from == u:
			if ok2xx(resp.Status) && !other {
				k.ownRead = true
			}
		case other:
			if _, read := k.read[u]; !read {
				k.unknown[u] = true
			}
		case ok2xx(resp.Status):
			if _, read := k.read[u]; !read {
				k.read[u] = now
				delete(k.listed, u)
			}
			delete(k.unknown, u)
		case !fresh: // refused with ids already read among them: unknown
			if _, read := k.read[u]; !read {
				k.unknown[u] = true
			}
		}
	}
	if o.Then && !other && ok2xx(resp.Status) && len(named) > 0 {
		m.others(u, o, named[0])
	}
	if len(named) > 0 {
		m.touched = named[0]
	}
}

// echoWays are the reads a write is followed by, in turn.
var echoWays = [...]string{"by id", "in a window around it", "in a search for its word", "in the unread lists"}

// echo follows a write that named message k (an edit, accepted or
// refused, an edit without text, a mark read) with one read of k, the
// ways to read it taken in turn and the reader alternating between the
// writer and another user: over a sequence, what every kind of write did
// is read back through every path that shows a message, by its author
// and by others.
func (m *machine) echo(o op, k *msg) {
	way := m.echoTurn % len(echoWays)
	reader := o.User
	if (m.echoTurn/len(echoWays))%2 == 1 && len(m.cfg.Users) > 1 {
		reader = (o.User + 1) % len(m.cfg.Users)
	}
	m.echoTurn++
	m.steps = append(m.steps, fmt.Sprintf("  then user %d reads message %s %s", reader+1, k.id, echoWays[way]))
	picks := []int{k.seq, 1, 1}
	switch way {
	case 0:
		m.settle(op{Kind: Get, User: reader, Anchor: Middle, Picks: picks})
	case 1:
		m.settle(op{Kind: List, User: reader, Cursor: AroundID, Anchor: Middle, Limit: 5, Picks: picks})
	case 2:
		if k.word != "" {
			m.settle(op{Kind: Search, User: reader, Anchor: Middle, Picks: picks})
		}
	case 3:
		m.settle(op{Kind: Unread, User: reader, Picks: picks})
	}
}

// others follows user a's mark read of k: with a third user who may read
// the write room (every user of the run may) and has not read k, that
// user marks it read too, so readBy counts two readers; then every other
// user reads k by id, in a page of the room's newest messages and in
// their unread list, where k is unread for whoever has not marked it,
// whatever another user did.
func (m *machine) others(a int, o op, k *msg) {
	second := -1
	n := len(m.cfg.Users)
	if k.from != a && n >= 3 {
		for i := range n {
			c := (i + o.Picks[0]) % n
			if _, read := k.read[c]; c == a || c == k.from || read || k.unknown[c] {
				continue
			}
			m.mark(op{Kind: Mark, User: c, Anchor: Middle, Picks: []int{k.seq}})
			second = c
			break
		}
	}
	limit := min(100, len(m.st.msgs)-k.seq+2)
	for b := range n {
		if b == a || b == second {
			continue
		}
		m.settle(op{Kind: Get, User: b, Anchor: Middle, Picks: []int{k.seq, 0, 0}})
		m.settle(op{Kind: List, User: b, Cursor: NoCursor, Limit: limit, Anchor: Newest, Picks: []int{0, 0, 0}})
		m.settle(op{Kind: Unread, User: b, Picks: []int{0, 0, 0}})
	}
}

// stillListed reports whether user u's unread list of the write room
// lists id (false when it cannot be read).
func (m *machine) stillListed(u int, id string) bool {
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: m.unreadPath(u, m.cfg.WriteRoom)})
	items, _ := decode[unreadItems](resp)
	return slices.Contains(items.Chat, id)
}

// waited reports whether the read under way has waited out the lag (see
// eventually).
func (m *machine) waited() bool {
	return !m.settleStart.IsZero() && m.now().Sub(m.settleStart) > m.cfg.Eventually+time.Second
}

func (m *machine) unread(o op) {
	u := m.user(o)
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: m.unreadPath(u, m.cfg.WriteRoom)})
	m.wanted(u, resp)
	m.check("UNREAD-CHAT", ok2xx(resp.Status), "reading user %d's unread items of the write room answered %d", u+1, resp.Status)
	items, ok := decode[unreadItems](resp)
	m.need("UNREAD-CHAT", ok, "reading unread items answered %d without a usable object", resp.Status)
	in, mentioned := map[string]bool{}, map[string]bool{}
	for _, id := range items.Chat {
		in[id] = true
	}
	for _, id := range items.Mention {
		mentioned[id] = true
	}
	now := m.now()
	// relisted reads the list again, twice at most and only when a mark is
	// about to be blamed for a message missing from it: a list that shows
	// the message again, nothing sent between, disagrees with itself, which
	// is the list's breach (UNREAD-CHAT), not the mark's.
	var rereads []map[string]bool
	relisted := func(id string) bool {
		for i := 0; i < 2; i++ {
			if i == len(rereads) {
				again := m.do(u, client.Request{Method: http.MethodGet, Path: m.unreadPath(u, m.cfg.WriteRoom)})
				items, _ := decode[unreadItems](again)
				set := map[string]bool{}
				for _, id := range items.Chat {
					set[id] = true
				}
				rereads = append(rereads, set)
			}
			if rereads[i][id] {
				return true
			}
		}
		return false
	}
	for _, k := range m.st.msgs {
		if k.unknown[u] {
			continue // marked read through another room: either state is allowed
		}
		read, settled := k.readFor(u, now, m.cfg.Eventually)
		// Once a list has shown the message as it now is, no later list may
		// show it as it was: the lag covers the first change only.
		if !read && in[k.id] {
			k.listed[u] = true
		}
		settled = settled || !read && k.listed[u]
		switch {
		case k.from == u:
			m.check("UNREAD-CHAT", !in[k.id], "user %d's unread items list %s, which that user sent", u+1, k.id)
		case read:
			m.eventually("UNREAD-MARK-READ", settled, !in[k.id], "user %d's unread items list %s, which that user marked read", u+1, k.id)
			m.eventually("UNREAD-MARK-READ", settled, !mentioned[k.id], "user %d's unread mentions list %s, which that user marked read", u+1, k.id)
		case m.cfg.SharedUsers && !in[k.id] && m.othersNamed(k):
			k.unknown[u] = true // another client of this user may have marked it read
		default:
			req := "UNREAD-CHAT"
			if k.readByOther(u) >= 0 || !m.marked[u].IsZero() && !(k.v > 1 && k.changed.After(m.marked[u])) {
				// a mark read of another user's reached this user, or one of
				// this user's reached a message it did not name (unless the
				// message was edited since: then the edit is what took it
				// out, and the statement broken is that it stays listed)
				req = "UNREAD-MARK-READ"
				if !in[k.id] && settled && relisted(k.id) {
					req = "UNREAD-CHAT"
				}
			}
			m.eventually(req, settled, in[k.id], "user %d's unread items leave out %s, which user %d sent and user %d has not marked read%s", u+1, k.id, k.from+1, u+1, k.markedBy(u))
			if slices.Contains(k.sureMentions, u) {
				m.eventually("UNREAD-MENTION", settled, mentioned[k.id], "user %d's unread mentions leave out %s, which mentions them and which they have not read", u+1, k.id)
			}
		}
	}
}

func quote(s *string) string {
	if s == nil {
		return "absent"
	}
	return strconv.Quote(*s)
}

func intp(i *int) string {
	if i == nil {
		return "absent"
	}
	return strconv.Itoa(*i)
}

func boolp(b *bool) string {
	if b == nil {
		return "absent"
	}
	return strconv.FormatBool(*b)
}

func fromID(w wireMsg) string {
	if w.FromUser == nil {
		return "absent"
	}
	return w.FromUser.ID
}

func editedText(w wireMsg) string {
	if w.EditedAt == nil {
		return "absent"
	}
	return strings.TrimSpace(string(*w.EditedAt))
}

// ownMessages lists the sequence's messages that user u sent.
func (m *machine) ownMessages(u int) []*msg {
	var out []*msg
	for _, k := range m.st.msgs {
		if k.from == u {
			out = append(out, k)
		}
	}
	return out
}

// othersNamed reports whether a write of the run's other checks (beside
// the model's: SharedUsers) named message k, in flight or done: the only
// way another client of the model's users could have marked it read. Only
// then does the model learn k's unread state instead of judging it. When
// the client keeps no log of writes (client.WriteLog), or no longer holds
// every write since k was sent, any message may have been.
func (m *machine) othersNamed(k *msg) bool {
	from := k.acked.Add(-time.Minute) // the others learn its id from an answer after the send's
	if k.acked.IsZero() {
		return true
	}
	ws, ok := m.cfg.Client.Writes().Overlapping(client.CheckOf(m.ctx), from, from.Add(24*time.Hour)) // in flight now included
	if !ok {
		return true
	}
	for _, w := range ws {
		if w.Names(k.id) {
			return true
		}
	}
	return false
}
