package model

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/markup"
)

// judgeRendering holds a message's html and metadata to what its text, as
// the model wrote it, holds: every mention wrapped in a mention span and
// listed, every issue reference in an issue span and listed with its
// number as a string, every link an anchor of class link and listed. The
// model's texts are plain words around these parts, which every reading
// of markdown renders alike.
func (m *machine) judgeRendering(k *msg, w wireMsg, where string) {
	if w.HTML != nil {
		// Escaped html holds & only where a character reference begins,
		// in text and in attributes alike.
		if i := rawAmpersand(*w.HTML); i >= 0 {
			m.check("RENDER-ESCAPE", false, "message %s (%s) has an & in its html that begins no character reference (at byte %d): %s", k.id, where, i, cut((*w.HTML)[max(0, i-120):], 300))
		}
		els, _ := markup.Parse(*w.HTML) // html that does not parse is the escaping rule's to judge
		for _, u := range k.mentions {
			name := "@" + m.cfg.Users[u].Username
			want := strings.Count(k.text, name+" ") + strings.Count(k.text+"\x00", name+"\x00")
			got := 0
			for _, e := range els {
				if e.HasClass("span", "mention") && e.Text == name {
					got++
				}
			}
			m.check("RENDER-MENTION", got >= want, "message %s (%s) mentions %s %d time(s), and its html wraps %d in a mention span: %s", k.id, where, name, want, got, cut(*w.HTML, 400))
		}
		for _, n := range k.issues {
			found := false
			for _, e := range els {
				found = found || e.HasClass("span", "issue") && e.Text == "#"+n
			}
			m.check("RENDER-ISSUE", found, "message %s (%s) refers to issue #%s, and its html has no issue span for it: %s", k.id, where, n, cut(*w.HTML, 400))
		}
		for _, l := range k.links {
			found := false
			for _, e := range els {
				found = found || e.HasClass("a", "link") && markup.SameURL(e.Attrs["href"], l)
			}
			m.check("RENDER-LINK", found, "message %s (%s) holds the link %s, and its html has no anchor of class link to it: %s", k.id, where, l, cut(*w.HTML, 400))
		}
	}
	if w.Mentions != nil {
		for _, u := range k.mentions {
			found := false
			for _, x := range w.Mentions {
				found = found || x.UserID == m.cfg.Users[u].ID && x.ScreenName == m.cfg.Users[u].Username
			}
			m.check("META-MENTIONS", found, "message %s (%s) mentions @%s, and its mentions %v do not list {screenName %s, userId %s}", k.id, where, m.cfg.Users[u].Username, w.Mentions, m.cfg.Users[u].Username, m.cfg.Users[u].ID)
		}
	}
	if w.Issues != nil {
		for _, n := range k.issues {
			found := false
			for _, x := range w.Issues {
				found = found || x.Number == n
			}
			m.check("META-ISSUES", found, "message %s (%s) refers to issue #%s, and its issues %v do not list the number \"%s\" as a string", k.id, where, n, w.Issues, n)
		}
	}
	if w.URLs != nil {
		for _, l := range k.links {
			found := false
			for _, x := range w.URLs {
				found = found || markup.SameURL(x.URL, l)
			}
			m.check("META-URLS", found, "message %s (%s) holds the link %s, and its urls %v do not list it", k.id, where, l, w.URLs)
		}
	}
}

type wireRoom struct {
	ID             string  `json:"id"`
	UnreadItems    *int    `json:"unreadItems"`
	Mentions       *int    `json:"mentions"`
	LastAccessTime *string `json:"lastAccessTime"`
}

// roomLists are the lists whose answers hold Room objects, and how to find
// the rooms in each: the rooms and channels lists are rooms, the
// organisations and repositories lists embed one in an entry.
var roomLists = []struct {
	name, path string
	embedded   bool
}{
	{"rooms list", "rooms", false},
	{"organisations list", "orgs", true},
	{"repositories list", "repos", true},
	{"channels list", "channels", false},
}

// rooms reads one of user u's lists that hold rooms and holds the write
// room, wherever it appears, to the model: a Room's counts are the
// caller's, in every answer that carries it, so they are at least the
// unread messages and mentions of the run's that u has not read, and its
// lastAccessTime, where present, is not older than u's last message there.
func (m *machine) rooms(o op) {
	u := m.user(o)
	l := roomLists[o.List%len(roomLists)]
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: "/v1/user/" + url.PathEscape(m.cfg.Users[u].ID) + "/" + l.path})
	var rooms []wireRoom
	if l.embedded {
		entries, ok := decode[[]struct {
			Room *wireRoom `json:"room"`
		}](resp)
		if !ok {
			return // the list's own checks judge a list that cannot be read
		}
		for _, e := range entries {
			if e.Room != nil {
				rooms = append(rooms, *e.Room)
			}
		}
	} else {
		var ok bool
		rooms, ok = decode[[]wireRoom](resp)
		if !ok && l.path == "rooms" {
			m.wanted(u, resp)
			m.need("ROOM-LIST", ok, "user %d's rooms list answered %d without a usable list", u+1, resp.Status)
		}
	}
	var w *wireRoom
	var others []*wireRoom
	for i := range rooms {
		if rooms[i].ID == m.cfg.WriteRoom {
			w = &rooms[i]
		} else if rooms[i].ID != "" {
			others = append(others, &rooms[i])
		}
	}
	where := "user " + strconv.Itoa(u+1) + "'s " + l.name
	// Every room of the list, once per sequence for each user and list: a
	// room's counts are the caller's wherever the room is shown, the rooms
	// a user only lurks in and those embedded in an entry too.
	sort.Slice(others, func(i, j int) bool { return others[i].ID < others[j].ID })
	for _, r := range others {
		key := strconv.Itoa(u) + "\x00" + l.path + "\x00" + r.ID
		if m.counted[key] {
			continue
		}
		m.countsOf(u, r, where)
		if m.counted == nil {
			m.counted = map[string]bool{}
		}
		m.counted[key] = true
	}
	if w == nil {
		return // a list without the write room is the lists' checks to judge
	}
	// The write room's counts are held to its unread lists like any
	// other room's (the lower bounds below hold besides).
	m.countsOf(u, w, where)
	now := m.now()
	unread, mentions, settled := 0, 0, true
	var last *msg
	for _, k := range m.st.msgs {
		if k.from == u {
			last = k
			continue
		}
		if k.unknown[u] {
			continue
		}
		read, s := k.readFor(u, now, m.cfg.Eventually)
		settled = settled && s
		if !read {
			unread++
			for _, x := range k.sureMentions {
				if x == u {
					mentions++
				}
			}
		}
	}
	if w.UnreadItems != nil && unread > 0 {
		m.eventually("UNREAD-ROOM-COUNTS", settled, *w.UnreadItems >= unread, "%s counts %d unread items in the write room, yet %d message(s) of this run are unread for them", where, *w.UnreadItems, unread)
	}
	if w.Mentions != nil && mentions > 0 {
		m.eventually("UNREAD-ROOM-COUNTS", settled, *w.Mentions >= mentions, "%s counts %d unread mentions in the write room, yet %d message(s) of this run mention them unread", where, *w.Mentions, mentions)
	}
	if w.LastAccessTime == nil {
		return
	}
	at, err := time.Parse(time.RFC3339Nano, *w.LastAccessTime)
	if err != nil {
		return // the shape's breach, which the document checker reports
	}
	// The time of the last access never goes back: no read shows an
	// older one than a read before it, lag or not.
	// A time kept to the second is allowed the second.
	slack := time.Millisecond
	if !strings.Contains(*w.LastAccessTime, ".") {
		slack = time.Second
	}
	if prev, seen := m.accessMax[u]; seen {
		m.check("ROOM-LAST-ACCESS", !at.Before(prev.Add(-slack)), "%s says they last accessed the write room at %s, before the %s an earlier read gave", where, *w.LastAccessTime, prev.Format(time.RFC3339Nano))
	}
	if at.After(m.accessMax[u]) {
		m.accessMax[u] = at
	}
	if last == nil || last.sent.IsZero() {
		return
	}
	// Once a read has shown the access of a send, no later read goes back
	// before it, lag or not.
	shown := m.accessShown[u] == last
	ok := !at.Before(last.sent.Add(-slack))
	m.eventually("ROOM-LAST-ACCESS", shown || now.Sub(last.acked) > m.cfg.Eventually, ok,
		"%s says they last accessed the write room at %s, before their message %s sent at %s%s", where, *w.LastAccessTime, last.id, last.sent.Format(time.RFC3339Nano),
		map[bool]string{true: ", after an earlier read had shown that access", false: ""}[shown])
	if ok {
		if m.accessShown == nil {
			m.accessShown = map[int]*msg{}
		}
		m.accessShown[u] = last
	}
}

// countsOf holds a room of a list to user u's unread lists of it: its
// unreadItems and mentions count them, whichever list the room is shown
// in. A mismatch is read again until it has lasted past the lag allowed;
// unread lists that changed between two reads (another writer) leave it
// unjudged.
func (m *machine) countsOf(u int, r *wireRoom, where string) {
	if r.UnreadItems == nil && r.Mentions == nil {
		return
	}
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: m.unreadPath(u, r.ID)})
	un, ok := decode[unreadItems](resp)
	if !ok {
		return // the unread checks judge a list that cannot be read
	}
	if r.UnreadItems != nil && *r.UnreadItems != len(un.Chat) || r.Mentions != nil && *r.Mentions != len(un.Mention) {
		// Lists that move between two reads (another writer) say nothing
		// of the counts read before them.
		again, ok := decode[unreadItems](m.do(u, client.Request{Method: http.MethodGet, Path: m.unreadPath(u, r.ID)}))
		if !ok || !sameIDs(again.Chat, un.Chat) || !sameIDs(again.Mention, un.Mention) {
			return
		}
	}
	if r.UnreadItems != nil {
		m.eventually("UNREAD-ROOM-COUNTS", false, *r.UnreadItems == len(un.Chat), "%s counts %d unread items in room %s, and user %d's unread chat list of that room holds %d", where, *r.UnreadItems, r.ID, u+1, len(un.Chat))
	}
	if r.Mentions != nil {
		m.eventually("UNREAD-ROOM-COUNTS", false, *r.Mentions == len(un.Mention), "%s counts %d unread mentions in room %s, and user %d's unread mention list of that room holds %d", where, *r.Mentions, r.ID, u+1, len(un.Mention))
	}
}

// search looks for the word of one of the run's messages, as written:
// every reading of a search finds a whole word written as it is, and no
// reading finds a message that does not hold the word in any letter case.
func (m *machine) search(o op) {
	u := m.user(o)
	if o.Other {
		m.searchOther(u, o)
		return
	}
	m.searchWord(u, o)
	if o.Pair {
		m.searchPair(u, o)
	}
}

// searchWord searches for the word of one message of the sequence.
func (m *machine) searchWord(u int, o op) {
	k := m.pick(o.Anchor, o.Picks[0])
	if m.edited != nil && m.edited.word != "" && o.Picks[1]%3 == 0 {
		k = m.edited // one search in three: the message edited last, whose old text may hold its word too
	}
	if k == nil || k.word == "" {
		return
	}
	q := url.Values{"q": {k.word}, "limit": {"100"}}
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(m.cfg.WriteRoom), Query: q})
	what := fmt.Sprintf("searching the write room for %q", k.word)
	m.wanted(u, resp)
	m.check("SEARCH-Q", ok2xx(resp.Status), "%s answered %d", what, resp.Status)
	page, ok := decodePage(resp)
	m.need("MSG-LIST", ok, "%s answered %d without a usable page", what, resp.Status)
	found := false
	seen := map[string]bool{}
	for _, w := range page {
		m.check("PAGE-UNIQUE", !seen[w.ID], "%s found message %s twice", what, w.ID)
		seen[w.ID] = true
		found = found || w.ID == k.id
		x := m.st.byID[w.ID]
		if x == nil {
			continue
		}
		m.judgeFound(u, x, w, "in "+what)
		word := strings.ToLower(k.word)
		now, before := strings.Contains(strings.ToLower(x.text), word), strings.Contains(strings.ToLower(x.prevText), word)
		// A lagging index may still find an edited message by its old
		// words, never a message that did not hold the word at all.
		m.eventually("SEARCH-Q", !before || x.settled(m.now(), m.cfg.Eventually), now, "%s found message %s, whose text %q does not hold it in any letter case", what, x.id, x.text)
	}
	if !found && (k.found || k.settled(m.now(), m.cfg.Eventually) || m.waited()) {
		m.lostTo(u, k)
	}
	m.eventually("SEARCH-Q", k.found || k.settled(m.now(), m.cfg.Eventually), found, "%s did not find message %s, whose text holds it%s", what, k.id, foundBefore(k))
	// Every message of the sequence that holds the word as a word of its
	// own (a pair puts one word in two messages) is found too; and once a
	// search has found a message, a later one finds it again, lag or not.
	word := strings.ToLower(k.word)
	var holders []*msg
	for _, x := range m.st.msgs {
		if x.word != "" && slices.Contains(strings.Fields(strings.ToLower(x.text)), word) {
			holders = append(holders, x)
		}
	}
	for _, x := range holders {
		if x != k {
			if !seen[x.id] && (x.found || x.settled(m.now(), m.cfg.Eventually) || m.waited()) {
				m.lostTo(u, x)
			}
			m.eventually("SEARCH-Q", x.found || x.settled(m.now(), m.cfg.Eventually), seen[x.id], "%s did not find message %s, whose text holds it too (a search finds every message that holds the word)%s", what, x.id, foundBefore(x))
		}
	}
	for _, x := range holders {
		x.found = x.found || seen[x.id]
	}
}

// foundBefore says, for a failure text, that an earlier search found k.
func foundBefore(k *msg) string {
	if k.found {
		return "; an earlier search had found it"
	}
	return ""
}

// judgeFound judges a message a search found as a page's message: every
// statement about one message holds in search results too, but for the
// order of a search index's own lag with the pages' (see judgeMsg). A
// violation or a pending mismatch unwinds through it, so the flag is reset
// on the way out.
func (m *machine) judgeFound(u int, k *msg, w wireMsg, where string) {
	m.searching = true
	defer func() { m.searching = false }()
	m.judgeMsg(u, k, w, where)
}

// searchPair searches for two words one message of the sequence holds side
// by side, in that order, the second also in the message before it (false
// when no message holds such a pair). The description does not say how
// several words in q combine (all, any, a phrase): under every reading the
// message that holds both side by side is found, each hit is listed once,
// and a hit holds at least one of the words in some letter case.
func (m *machine) searchPair(u int, o op) bool {
	var holders []*msg
	for _, k := range m.st.msgs {
		if k.pair != "" {
			holders = append(holders, k)
		}
	}
	if len(holders) == 0 {
		return false
	}
	k := holders[o.Picks[0]%len(holders)]
	words := strings.Fields(strings.ToLower(k.pair))
	holds := func(text string) bool {
		text = strings.ToLower(text)
		for _, w := range words {
			if strings.Contains(text, w) {
				return true
			}
		}
		return false
	}
	q := url.Values{"q": {k.pair}, "limit": {"100"}}
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(m.cfg.WriteRoom), Query: q})
	what := fmt.Sprintf("searching the write room for %q, two words message %s holds side by side", k.pair, k.id)
	m.wanted(u, resp)
	m.check("SEARCH-Q", ok2xx(resp.Status), "%s answered %d", what, resp.Status)
	page, ok := decodePage(resp)
	m.need("MSG-LIST", ok, "%s answered %d without a usable page", what, resp.Status)
	seen := map[string]bool{}
	for _, w := range page {
		m.check("PAGE-UNIQUE", !seen[w.ID], "%s found message %s twice", what, w.ID)
		seen[w.ID] = true
		x := m.st.byID[w.ID]
		if x == nil {
			continue
		}
		m.judgeFound(u, x, w, "in "+what)
		m.eventually("SEARCH-Q", !holds(x.prevText) || x.settled(m.now(), m.cfg.Eventually), holds(x.text), "%s found message %s, whose text %q holds neither word in any letter case", what, x.id, x.text)
	}
	m.eventually("SEARCH-Q", k.settled(m.now(), m.cfg.Eventually), seen[k.id], "%s did not find message %s, whose text holds both words side by side, in that order", what, k.id)
	return true
}

// searchOther searches the write room for a word of a message of another
// room of u's: whatever the search finds, it is not a message of the other
// room, for a message belongs to one room.
func (m *machine) searchOther(u int, o op) {
	other, t, ids := m.otherMessage(u, o)
	if other == "" {
		return
	}
	word := ""
	if t.Text != nil {
		for _, f := range strings.FieldsFunc(*t.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len([]rune(f)) > len([]rune(word)) {
				word = f
			}
		}
	}
	if len([]rune(word)) < 3 {
		return
	}
	q := url.Values{"q": {word}, "limit": {"100"}}
	resp := m.do(u, client.Request{Method: http.MethodGet, Path: messagesPath(m.cfg.WriteRoom), Query: q})
	what := fmt.Sprintf("searching the write room for %q, a word of message %s of room %s", word, t.ID, other)
	m.wanted(u, resp)
	m.check("SEARCH-Q", ok2xx(resp.Status), "%s answered %d", what, resp.Status)
	page, ok := decodePage(resp)
	m.need("MSG-LIST", ok, "%s answered %d without a usable page", what, resp.Status)
	for _, w := range page {
		m.check("MSG-ROOM-SCOPE", !ids[w.ID], "%s found message %s, which room %s lists as its own", what, w.ID, other)
	}
}

// charRef is a character reference: named, decimal or hexadecimal.
var charRef = regexp.MustCompile(`^&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);`)

// rawAmpersand is the byte offset of the first & of html that begins no
// character reference, or -1.
func rawAmpersand(html string) int {
	for i := 0; i < len(html); i++ {
		if html[i] == '&' && !charRef.MatchString(html[i:]) {
			return i
		}
	}
	return -1
}

// sameIDs reports whether a and b hold the same ids, in any order.
func sameIDs(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
