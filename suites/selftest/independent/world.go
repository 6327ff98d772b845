package independent

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Platform kinds of rooms.
const (
	kindOneToOne = "ONETOONE"
	kindOrg      = "ORG"
	kindRepo     = "REPO"
	kindChannel  = "USER_CHANNEL"
)

type grant int

const (
	grantUnstated grant = iota
	grantYes
	grantNo
)

// member is a person known to the service.
type member struct {
	id, username, display string
	v                     int
	token                 string
	grantState            grant
}

type room struct {
	id, kind, uri, topic string
	v                    int // 0 means the room carries no version field
	members              []*member
	lastAccess           map[*member]time.Time
	hidden               map[*member]bool
	lurk                 map[*member]bool
	msgs                 []*msg // always in sending order
	statusMode           bool   // defect send-status-sticky
	editCount            int    // defect edit-v-room-counter
}

func (r *room) has(u *member) bool {
	for _, m := range r.members {
		if m == u {
			return true
		}
	}
	return false
}

// peer is the other side of a one-to-one room.
func (r *room) peer(u *member) *member {
	for _, m := range r.members {
		if m != u {
			return m
		}
	}
	return nil
}

type msg struct {
	id      string
	seq     uint64
	room    *room
	from    *member
	text    string
	status  bool
	r       rendered
	sent    time.Time
	edited  time.Time // zero while never edited
	v       int
	readers map[*member]bool
	indexed string // the text the search looks at
	rereads int    // defect readby-recount
	edits   int

	sentMentions []*member // defect unread-mention-send-time: the mentions of the text as sent
	migrated     bool      // defect list-rerender-bumps-v

	prev       *msg     // defect get-one-stale-version-flaky: the message before its latest edit
	oldIndexed []string // defect search-edit-indexed-twice: index entries of earlier texts

	readByBonus int            // defect readby-raised-by-batch-size: batch sizes added to the counter
	meta        map[string]any // defect send-body-extras-into-meta: body fields other than text
}

type org struct {
	id     int
	name   string
	room   *room
	people []*member
}

type repo struct {
	id      int
	name    string
	uri     string
	private bool
	room    *room
	people  []*member
}

// world holds the complete state; one mutex guards all of it.
type world struct {
	mu     sync.Mutex
	defect string
	rng    *mrand.Rand
	seq    uint64

	people   []*member
	byToken  map[string]*member
	byID     map[string]*member
	rooms    []*room
	roomByID map[string]*room
	msgByID  map[string]*msg
	orgs     []*org
	repos    []*repo

	advertised []*member
	writeRoom  string
	hideRoom   string

	// State used only by planted defects.
	ticks      map[string]int
	meCache    *userJSON
	repoCache  []repoJSON
	countCache map[*room]map[*member][2]int
	hidAny     map[*member]bool
	sessions   map[string]*member
	lastUser   *member
	meList     []*userJSON               // defect me-list-accumulates
	flagCache  map[*msg]map[*member]bool // defect unread-flag-cached
	oneCache   map[*msg]messageJSON      // defect get-one-cached

	// fourth held-out set
	built       uint64                 // seq of the last seeded message
	qcache      map[string]*member     // defect auth-query-token-cached-by-path
	meLast      *member                // defect me-shared-buffer-flaky
	roomsCache  map[*member][]roomJSON // defect rooms-list-cached-until-send
	grantLoaded map[*member]bool       // defect repo-grant-lazy-first-list
	pageCache   map[*room][]*msg       // defect list-default-page-cached
	snaps       map[*msg]msg           // defect send-reverts-edits

	// fifth held-out set
	raceMu       sync.Mutex                       // defect auth-identity-race
	raceAuth     string                           // defect auth-identity-race
	accessCache  map[*member]map[*room]string     // defect room-lastaccess-cached-first-list
	dmUserCache  map[*room]*member                // defect dm-user-cached-first-viewer
	preMark      map[*member]map[*room]unreadJSON // defect unread-replica-lag-flaky
	viewerCache  map[*msg]map[*member]messageJSON // defect edit-render-cache-per-viewer
	beforeOffset map[*msg]int                     // defect before-cursor-offset-from-newest
	searchCache  map[string][]*msg                // defect search-results-cached

	// sixth held-out set
	locked         map[string]bool           // defect auth-lockout-after-bad-token: client hosts that sent an unknown token
	lastGrant      bool                      // defect repo-grant-of-last-lister
	mentionCleared map[*msg]map[*member]bool // defect mark-read-mention-stays-chat
	readByCol      map[*msg]int              // defect readby-list-counter-stale

	// seventh held-out set
	queryUsed    map[string]bool            // defect auth-query-token-one-time: query tokens already used
	cookieUser   map[string]*member         // defect auth-session-cookie-wins: session id to user
	cookieOf     map[*member]string         // defect auth-session-cookie-wins: user to session id
	writeTouched map[*room]map[*member]bool // defect room-lastaccess-millis-after-write
	countDrift   map[*room]map[*member]int  // defect room-count-decrement-per-request
	sentSnap     map[*msg]msg               // defect mark-read-reverts-edit: each message as sent
	versions     map[*msg][]msg             // defect list-shows-every-version: earlier versions

	// eighth held-out set
	connUser     map[string]*member               // defect auth-anonymous-inherits-connection-user: last user per connection
	ctxUser      *member                          // defect auth-context-leak-flaky: the worker's user context
	unreadCache  map[*member]map[*room]unreadJSON // defect unread-cached-until-mark
	listCache    map[*room]map[*msg]messageJSON   // defect list-cache-not-invalidated-on-edit
	seenURLs     map[*room]map[string]bool        // defect meta-urls-seen-in-room-dropped
	listRoomPrev *room                            // defect list-previous-room-flaky: the shared query's room
}

func (w *world) is(defect string) bool { return w.defect == defect }

// every reports true on every n-th call while defect is planted; it drives
// the intermittent defects. Callers hold w.mu.
func (w *world) every(defect string, n int) bool {
	if w.defect != defect {
		return false
	}
	w.ticks[defect]++
	return w.ticks[defect]%n == 0
}

// render derives html and metadata of a text, with any planted rendering defect.
func (w *world) render(text string, edit bool, from *member) rendered {
	return renderWith(text, w.lookupName, w.flags(edit, from))
}

// renderIn renders a text of room r: the same as render, but for the planted
// defects that depend on the room the message belongs to.
func (w *world) renderIn(r *room, text string, edit bool, from *member) rendered {
	if !w.is("render-mention-room-members-only") && !w.is("render-issue-repo-rooms-only") && !w.is("meta-urls-seen-in-room-dropped") {
		return w.render(text, edit, from)
	}
	f := w.flags(edit, from)
	lookup := w.lookupName
	if w.is("render-mention-room-members-only") {
		// Names are resolved among the room's members only.
		lookup = func(name string) *member {
			for _, p := range r.members {
				if strings.EqualFold(p.username, name) {
					return p
				}
			}
			return nil
		}
	}
	if w.is("render-issue-repo-rooms-only") && r.kind != kindRepo {
		f.issuePlainAll = true // the issue link needs a repository
	}
	res := renderWith(text, lookup, f)
	if w.is("meta-urls-seen-in-room-dropped") {
		// The unfurler's per-room cache of links already seen filters the list.
		if w.seenURLs[r] == nil {
			w.seenURLs[r] = map[string]bool{}
		}
		kept := []string{}
		for _, u := range res.urls {
			if !w.seenURLs[r][u] {
				kept = append(kept, u)
				w.seenURLs[r][u] = true
			}
		}
		res.urls = kept
	}
	return res
}

// flags switches on the renderer's planted defects.
func (w *world) flags(edit bool, from *member) renderFlags {
	f := renderFlags{
		escape:                   !w.is("html-unescaped") && !(edit && w.is("render-escape-edit")),
		mentionRepeatPlain:       w.is("render-mention-repeat"),
		issueEndPlain:            w.is("render-issue-at-end"),
		linkQueryPlain:           w.is("render-link-query"),
		urlsFirstOnly:            w.is("meta-urls-first-only"),
		linkAfterFirstPlain:      w.is("render-link-second-plain"),
		rawAfterLink:             w.is("render-escape-after-link"),
		rawAfterNewline:          w.is("render-escape-first-line"),
		issueLongPlain:           w.is("render-issue-five-digits"),
		ampRaw:                   w.is("render-amp-unescaped"),
		mentionPunctPlain:        w.is("render-mention-trailing-punct"),
		issueNeedsSpace:          w.is("render-issue-needs-space"),
		linkHTTPPlain:            w.is("render-link-http-plain"),
		urlsLower:                w.is("meta-urls-lowercased"),
		mentionAfterNewlinePlain: w.is("render-mention-after-newline"),
		issuePunctPlain:          w.is("render-issue-trailing-punct"),
		linkPortPlain:            w.is("render-link-with-port-plain"),
		linkFragmentCut:          w.is("link-fragment-cut"),
		linkAmpRaw:               w.is("render-link-amp-raw"),
		mentionStopsAtDash:       w.is("mention-name-stops-at-dash"),
		codeSpanRaw:              w.is("render-code-span-raw"),
		mentionCaseSensitive:     w.is("render-mention-case-sensitive"),
		issueStartPlain:          w.is("render-issue-at-start-plain"),
		urlsNoTrailingSlash:      w.is("meta-urls-trailing-slash-dropped"),
		urlsEscaped:              w.is("meta-urls-from-html-escaped"),
		mentionAnchor:            w.is("render-mention-anchor"),
		doubleEscape:             w.is("render-double-escaped"),
		linkClassOnSpan:          w.is("render-link-class-on-span"),
		issueOneDigitPlain:       w.is("render-issue-one-digit-plain"),
		urlsNoQuery:              w.is("meta-urls-query-stripped"),
		markdownUnsafe:           w.is("render-markdown-path-unsafe"),
		linkNeedsPath:            w.is("render-link-bare-host-plain"),
		issuesFromFragments:      w.is("meta-issues-from-url-fragments"),
	}
	if w.is("render-mention-self") {
		f.plainMentionOf = from
	}
	return f
}

func (w *world) lookupName(name string) *member {
	for _, p := range w.people {
		if strings.EqualFold(p.username, name) {
			return p
		}
	}
	return nil
}

// uuid4 draws a random-looking, version-4 shaped UUID from the world's generator.
func (w *world) uuid4() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		x := w.rng.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(x >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

const base32chars = "abcdefghijkmnpqrstuvwxyz23456789"

func (w *world) tag(prefix string, n int) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	for i := 0; i < n; i++ {
		sb.WriteByte(base32chars[w.rng.IntN(len(base32chars))])
	}
	return sb.String()
}

func freshToken() (string, error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "tok_" + hex.EncodeToString(b[:]), nil
}

func pick[T any](g *mrand.Rand, xs []T) T { return xs[g.IntN(len(xs))] }

var (
	surnames  = []string{"Okafor", "Lindqvist", "Moreau", "Tanaka", "Haddad", "Novak", "Castillo", "Brennan", "Ivanova", "Mensah", "Kowalski", "Duarte"}
	orgWords  = []string{"acme", "globex", "initech", "umbrella", "hooli", "vandelay", "tyrell", "wonka", "cyberdyne", "stark"}
	repoWords = []string{"widgets", "gears", "sprockets", "ledger", "compass", "lantern", "harbor", "quarry", "orchard", "beacon"}
	chanWords = []string{"lounge", "garage", "attic", "porch", "den", "studio", "workshop", "library"}
	verbs     = []string{"shipped", "reviewed", "broke", "fixed", "renamed", "benchmarked", "documented", "reverted", "profiled", "merged"}
	nouns     = []string{"the parser", "the cache", "the login page", "our CI", "the build", "the exporter", "the scheduler", "the docs", "the API client", "the migration"}
	tails     = []string{"today", "again", "before lunch", "last night", "on staging", "for the release", "by accident", "with tests", "at last", "in a hurry"}
)

// sentence composes a seeded chat line; extras sprinkle the features the
// renderer has to recognise.
func sentence(g *mrand.Rand, people []*member, i int) string {
	s := fmt.Sprintf("%s %s %s", pick(g, []string{"I", "We", "Someone", "The bot", "Nobody"}), pick(g, verbs), pick(g, nouns))
	s += " " + pick(g, tails)
	switch i % 11 {
	case 3:
		s += fmt.Sprintf(", see #%d", 10+g.IntN(900))
	case 5:
		s += fmt.Sprintf(" https://example.org/notes/%d.", g.IntN(10000))
	case 7:
		s += " (x < y && y > z)"
	case 9:
		p := pick(g, people)
		s = "@" + p.username + " " + s
	}
	return s
}

// buildWorld creates the seeded world. Content (names, texts, ids) depends
// only on seed; timestamps are anchored a few days before now.
func buildWorld(seed uint64, defect string, now time.Time) (*world, error) {
	g := mrand.New(mrand.NewPCG(seed, 0x1d3a5eed))
	w := &world{
		defect:   defect,
		rng:      mrand.New(mrand.NewPCG(seed^0x9e3779b97f4a7c15, 0xc0ffee)),
		byToken:  map[string]*member{},
		byID:     map[string]*member{},
		roomByID: map[string]*room{},
		msgByID:  map[string]*msg{},

		ticks:      map[string]int{},
		countCache: map[*room]map[*member][2]int{},
		hidAny:     map[*member]bool{},
		sessions:   map[string]*member{},
		flagCache:  map[*msg]map[*member]bool{},
		oneCache:   map[*msg]messageJSON{},

		qcache:      map[string]*member{},
		roomsCache:  map[*member][]roomJSON{},
		grantLoaded: map[*member]bool{},
		pageCache:   map[*room][]*msg{},
		snaps:       map[*msg]msg{},

		accessCache:  map[*member]map[*room]string{},
		dmUserCache:  map[*room]*member{},
		preMark:      map[*member]map[*room]unreadJSON{},
		viewerCache:  map[*msg]map[*member]messageJSON{},
		beforeOffset: map[*msg]int{},
		searchCache:  map[string][]*msg{},

		locked:         map[string]bool{},
		mentionCleared: map[*msg]map[*member]bool{},
		readByCol:      map[*msg]int{},

		queryUsed:    map[string]bool{},
		cookieUser:   map[string]*member{},
		cookieOf:     map[*member]string{},
		writeTouched: map[*room]map[*member]bool{},
		countDrift:   map[*room]map[*member]int{},
		sentSnap:     map[*msg]msg{},
		versions:     map[*msg][]msg{},

		connUser:    map[string]*member{},
		unreadCache: map[*member]map[*room]unreadJSON{},
		listCache:   map[*room]map[*msg]messageJSON{},
		seenURLs:    map[*room]map[string]bool{},
	}
	suffix := ""
	if seed != 0 {
		suffix = "-" + w.tag("", 3)
	}
	mk := func(first string, gs grant) (*member, error) {
		tok, err := freshToken()
		if err != nil {
			return nil, err
		}
		p := &member{
			id:         w.tag("usr_", 14),
			username:   strings.ToLower(first) + suffix,
			display:    first + " " + pick(g, surnames),
			v:          1 + g.IntN(9),
			token:      tok,
			grantState: gs,
		}
		w.people = append(w.people, p)
		w.byToken[tok] = p
		w.byID[p.id] = p
		return p, nil
	}
	alice, err := mk("Alice", grantYes)
	if err != nil {
		return nil, err
	}
	bob, err := mk("Bob", grantNo)
	if err != nil {
		return nil, err
	}
	carol, err := mk("Carol", grantUnstated)
	if err != nil {
		return nil, err
	}
	dave, err := mk("Dave", grantUnstated)
	if err != nil {
		return nil, err
	}
	w.advertised = []*member{alice, bob, carol}

	base := now.UTC().Add(-96 * time.Hour).Truncate(time.Millisecond)
	perm := g.Perm(len(orgWords))
	orgMain, orgBare, orgCarol := orgWords[perm[0]], orgWords[perm[1]], orgWords[perm[2]]
	rperm := g.Perm(len(repoWords))
	cperm := g.Perm(len(chanWords))

	newRoom := func(kind, uri, topic string, v int, people ...*member) *room {
		r := &room{
			id:         w.tag("room_", 12),
			kind:       kind,
			uri:        uri,
			topic:      topic,
			v:          v,
			members:    people,
			lastAccess: map[*member]time.Time{},
			hidden:     map[*member]bool{},
			lurk:       map[*member]bool{},
		}
		for i, p := range people {
			r.lastAccess[p] = base.Add(time.Duration(i+1) * 37 * time.Minute)
		}
		w.rooms = append(w.rooms, r)
		w.roomByID[r.id] = r
		return r
	}

	dmAB := newRoom(kindOneToOne, "", "", 0, alice, bob)
	newRoom(kindOneToOne, "", "", 0, carol, dave)
	town := newRoom(kindOrg, orgMain, "Everything about "+orgMain+", "+pick(g, tails), 1+g.IntN(5), alice, bob, carol, dave)
	town.lurk[carol] = true
	workRepo := orgMain + "/" + repoWords[rperm[0]]
	work := newRoom(kindRepo, workRepo, "", 1+g.IntN(5), alice, bob)
	newRoom(kindChannel, alice.username+"/"+chanWords[cperm[0]], "A quiet corner", 0, alice, carol)
	newRoom(kindChannel, bob.username+"/"+chanWords[cperm[1]], "", 0, bob)

	w.writeRoom = work.id
	w.hideRoom = dmAB.id

	w.orgs = []*org{
		{id: 100000 + g.IntN(900000), name: orgMain, room: town, people: []*member{alice, bob, carol, dave}},
		{id: 100000 + g.IntN(900000), name: orgBare, people: []*member{alice}},
		{id: 100000 + g.IntN(900000), name: orgCarol, people: []*member{carol}},
	}
	w.repos = []*repo{
		{id: 2000000 + g.IntN(8000000), name: repoWords[rperm[0]], uri: workRepo, room: work, people: []*member{alice, bob}},
		{id: 2000000 + g.IntN(8000000), name: repoWords[rperm[1]], uri: alice.username + "/" + repoWords[rperm[1]], people: []*member{alice}},
		{id: 2000000 + g.IntN(8000000), name: repoWords[rperm[2]], uri: alice.username + "/" + repoWords[rperm[2]], private: true, people: []*member{alice}},
		{id: 2000000 + g.IntN(8000000), name: repoWords[rperm[3]], uri: bob.username + "/" + repoWords[rperm[3]], private: true, people: []*member{bob}},
		{id: 2000000 + g.IntN(8000000), name: repoWords[rperm[4]], uri: carol.username + "/" + repoWords[rperm[4]], people: []*member{carol}},
	}

	// History of the organisation room: a few hundred lines, arriving in
	// bursts whose members share one millisecond.
	const history = 320
	t := base.Add(time.Hour)
	burstLeft := 0
	for i := 0; i < history; i++ {
		if burstLeft == 0 {
			t = t.Add(time.Duration(5+g.IntN(600))*time.Second + time.Duration(g.IntN(1000))*time.Millisecond)
			burstLeft = 1
			if g.IntN(4) == 0 {
				burstLeft = 2 + g.IntN(3)
			}
		}
		burstLeft--
		var from *member
		tail := i >= history-8
		if tail {
			from = []*member{carol, dave}[i%2]
		} else {
			from = town.members[g.IntN(len(town.members))]
		}
		text := sentence(g, w.people, i)
		switch i {
		case history - 5:
			text = "@" + alice.username + " could you look at #" + fmt.Sprint(400+g.IntN(99)) + "?"
		case history - 3:
			text = "@" + bob.username + " the build is green <again> & ready"
		case history - 2:
			text = "@" + alice.username + " @" + bob.username + " standup moved to https://meet.example.net/" + w.tag("", 6)
		}
		m := w.seedMessage(town, from, text, t)
		for _, p := range town.members {
			if p == from {
				continue
			}
			if !tail || p == carol || p == dave {
				m.readers[p] = true
			}
		}
	}
	for _, p := range town.members {
		town.lastAccess[p] = t.Add(-time.Duration(20+g.IntN(40)) * time.Minute)
	}

	// A short private conversation; bob's last two lines are still unread.
	t = base.Add(30 * time.Minute)
	for i := 0; i < 6; i++ {
		from := alice
		if i%2 == 1 || i == 4 {
			from = bob
		}
		text := sentence(g, []*member{alice, bob}, i+1)
		if i == 5 {
			text = "@" + alice.username + " ping me when you are back"
		}
		if i != 3 { // line 3 shares the millisecond of line 2
			t = t.Add(time.Duration(30+g.IntN(300)) * time.Second)
		}
		m := w.seedMessage(dmAB, from, text, t)
		if i < 4 {
			m.readers[dmAB.peer(from)] = true
		}
	}
	w.built = w.seq
	return w, nil
}

func (w *world) seedMessage(r *room, from *member, text string, at time.Time) *msg {
	w.seq++
	m := &msg{
		id:      w.uuid4(),
		seq:     w.seq,
		room:    r,
		from:    from,
		text:    text,
		sent:    at,
		v:       1,
		readers: map[*member]bool{},
		indexed: text,
	}
	m.r = w.renderIn(r, text, false, from)
	m.sentMentions = m.r.mentions
	r.msgs = append(r.msgs, m)
	w.msgByID[m.id] = m
	if w.is("mark-read-reverts-edit") {
		w.sentSnap[m] = *m // the read-receipt path's cache entry, filled at sending
	}
	return m
}
