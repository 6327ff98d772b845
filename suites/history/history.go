// Package history checks a whole run's answers against each other, the way
// Jepsen's checkers judge the history of a database test.
//
// Each check of the conformance suite judges the answers it looks at. Yet
// every answer also states facts about the server's state: which room a
// message is in, its version, its text, who sent it, how many users read
// it, which room kinds and user names exist. Two answers of the same run
// can contradict each other although each passed its own check: a page
// listing a message of another room, a version that went down, a sender
// that changed. A Checker observes every exchange of a run (wire Observe
// into client.Config.Observe), keeps compact facts, never whole bodies, and
// Check reports every contradiction it finds, naming the requirement broken
// and the exchanges involved.
//
// Besides contradictions between answers, every statement the API
// document makes about one object (a message, a room, a user, a list
// entry) is held on every answer of the run where the object appears: a
// check judges such a statement on the answers it makes, and a server that
// breaks it on some answers only would otherwise go free. single.go lists
// every such statement and where it is judged (here, or by the document
// checker, which validates every answer against the OpenAPI document).
//
// Only answers with a 2xx status and a JSON body yield facts; an answer to
// a request marked Invalid yields facts too when it is a 2xx. Writes (send,
// edit, mark read, hide) of any status are kept as possible causes of a
// change: a refused write may still have been applied, and a checker that
// blames a change on no write must not overlook one.
//
// Time is real time as the client saw it: an answer A "ended before" an
// answer B started when A's body was read before B's request was sent. An
// eventually consistent server may serve a stale copy for up to
// Options.Eventually after a write; each rule below says where that window
// opens. Exchanges the client never saw an answer to (transport failures)
// are invisible: a write that timed out but was applied can make a rule
// that counts writes (GET-SAFE, the edit count) blame the server wrongly;
// such a write is rare and its exchange shows in the run's failures.
//
// The invariants, the requirement each one breaks, and how each tolerates
// lag and outside writers (Options.Shared), are in Invariants.
//
// Wiring it into a run takes three lines:
//
//	chk := history.New(history.Options{Eventually: cfg.Eventually, Profile: string(cfg.Profile)})
//	clientConfig.Observe = chk.Observe // before client.New
//	// ... run the checks, then:
//	for _, c := range chk.Check() { fmt.Fprintln(out, c) } // or report c.Requirement, c.Text, c.Exchanges
//
// Observe copies what it keeps and never blocks on anything but its own
// lock; reading a page of 100 messages costs about a sixth of decoding it
// with encoding/json (see the benchmarks).
package history

import (
	"fmt"
	"hash/maphash"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatrooms/conformance/suites/client"
)

// Requirement ids this package reports (all in the catalogue,
// spec/requirements.yaml).
const (
	MsgRoomScope = "MSG-ROOM-SCOPE"
	MsgStable    = "MSG-STABLE"
	RoomStable   = "ROOM-STABLE"
	UserStable   = "USER-STABLE"
	PageUnique   = "PAGE-UNIQUE"

	MsgEditVInc         = "MSG-EDIT-V-INC"
	MsgSendEditedAtNull = "MSG-SEND-EDITEDAT-NULL"
	MsgEditEditedAt     = "MSG-EDIT-EDITEDAT"
	MsgEditPersisted    = "MSG-EDIT-PERSISTED"
	UnreadReadBy        = "UNREAD-READBY"
	UnreadMarkRead      = "UNREAD-MARK-READ"
	UnreadFlag          = "UNREAD-FLAG"
	PageLimit           = "PAGE-LIMIT"
	LimitCap            = "LIMIT-CAP"
	HTTPGetSafe         = "HTTP-GET-SAFE"

	// Statements about one object, held on every answer (single.go).
	MsgSendDefaults    = "MSG-SEND-DEFAULTS"
	MsgSendText        = "MSG-SEND-TEXT"
	MsgSendStatus      = "MSG-SEND-STATUS"
	MsgEdit            = "MSG-EDIT"
	RenderEscape       = "RENDER-ESCAPE"
	RoomOneToOne       = "ROOM-ONE-TO-ONE"
	RoomUserOnly       = "ROOM-USER-ONLY-ONE-TO-ONE"
	ChannelNoUserCount = "CHANNEL-NO-USERCOUNT"
	ChannelSecurity    = "CHANNEL-SECURITY"
	OrgRoom            = "ORG-ROOM"
	RepoRoom           = "REPO-ROOM"

	// Lists of a user's rooms and entries (lists.go).
	RoomKinds          = "ROOM-KINDS"
	ChannelList        = "CHANNEL-LIST"
	OrgList            = "ORG-LIST"
	RepoList           = "REPO-LIST"
	RepoPrivateGranted = "REPO-PRIVATE-GRANTED"
	RoomHide           = "ROOM-HIDE"
)

// Invariant describes one rule of the checker.
type Invariant struct {
	Rule        string // what must hold between answers
	Requirement string // the id a contradiction is reported under
	Lag         string // how Options.Eventually applies
	Shared      string // with Options.Shared: "holds", or how it is relaxed
}

// Invariants is the table of rules the checker applies.
var Invariants = []Invariant{
	{"a message id is answered under one room only: pages, search results, send answers, single reads and edit answers of two rooms never hold the same id (a message is not read or edited through another room's path)",
		MsgRoomScope, "none: a room never changes", "holds"},
	{"a message's sent instant (compared at the coarser precision of the two) and fromUser.id never change",
		MsgStable, "none", "holds"},
	{"answers giving a message the same v agree on text, html, urls, mentions, issues, meta, status and editedAt",
		MsgStable, "none: a stale copy is an older version, with its own v", "holds"},
	{"v never goes down: no answer starts after another ended and shows a lower v",
		MsgEditVInc, "the later answer may be stale until Eventually after the end of the edit that first answered the higher v (after the end of the higher answer when no observed edit did)", "holds"},
	{"two successful edits of a message never answer the same v",
		MsgEditVInc, "none", "holds"},
	{"the n successful edits of a message the run sent answer exactly v 2..n+1",
		MsgEditVInc, "none", "not checked: an outside edit takes a number"},
	{"v is 1 exactly while editedAt is null or absent, in every answer but a send's or an edit's own (judged by the two rules below)",
		MsgSendEditedAtNull + " (v 1 with editedAt set), " + MsgEditEditedAt + " (v above 1 without it)", "none", "holds"},
	{"a send answers the new message with unread false, readBy 0 and v 1", MsgSendDefaults, "none", "holds"},
	{"a send answers the new message with editedAt null", MsgSendEditedAtNull, "none", "holds"},
	{"a send of a valid request answers the text sent, unchanged, and the caller as fromUser", MsgSendText, "none", "holds"},
	{"a send of a valid request asking for status true answers status true; one asking for status false, or not asking, does not answer status true",
		MsgSendStatus, "none", "holds"},
	{"a 2xx edit of a valid request answers the message it names with the new text", MsgEdit, "none", "holds"},
	{"a 2xx edit answers the message it names with editedAt set (not null)", MsgEditEditedAt, "none", "holds"},
	{"a 2xx edit answers the message it names with v 2 or more", MsgEditVInc, "none", "holds"},
	{"in every message of every answer, html escapes the special characters of the text: every & starts a character reference (in text and attributes alike), every < starts markup, and no element of a kind no markdown construct yields (script, iframe, ...) nor event handler attribute is raw markup the text spells",
		RenderEscape, "none", "holds"},
	{"in every room of every list: oneToOne and platformType agree (within one object and across answers); a one-to-one room has no uri; in the caller's own lists, its user is not the caller",
		RoomOneToOne, "none", "holds"},
	{"no answer gives a room that is not one-to-one (by its platformType or oneToOne in any answer) a user", RoomUserOnly, "none", "holds"},
	{"no answer outside the channels list (where the document checker judges it) gives a USER_CHANNEL room a userCount", ChannelNoUserCount, "none", "holds"},
	{"no answer outside the channels list (where the document checker judges it) gives a USER_CHANNEL room no security", ChannelSecurity, "none", "holds"},
	{"a message the run sent, answered unread false to its sender, is not given as unread to the sender later (flagged or listed)",
		UnreadFlag, "answers starting within Eventually of the end of the send are not judged", "not checked: an outside edit may count as new content; nor is a message someone else edited"},
	{"editedAt is not before sent, and does not go down as v rises (but between two edits that overlapped in time)",
		MsgEditEditedAt, "none", "holds"},
	{"a read that started after every edit of a message ended shows the text of the edit answered with the highest v",
		MsgEditPersisted, "reads starting within Eventually of the last edit's end are not judged", "holds: only reads of an older v are judged, in any mode (a higher v is an outside edit, or left to HTTP-GET-SAFE)"},
	{"readBy never goes down: no answer starts after another ended and shows a lower readBy",
		UnreadReadBy, "the later answer may be stale until Eventually after the end of the last mark-read naming the message that started before the higher answer ended (after the end of the higher answer when there is none)", "for messages the run did not send, always from the end of the higher answer: outside marks are not seen"},
	{"a message user U marked read (2xx) is not listed in U's unread chat or mention lists, nor answered to U with unread true",
		UnreadMarkRead, "answers starting within Eventually of the end of the mark are not judged", "holds"},
	{"a room id keeps its platformType and oneToOne in every list of every user (rooms, channels, rooms embedded in organisations and repositories)",
		RoomStable, "none", "holds"},
	{"a room's url is the same in every list for every user; for a one-to-one room, the same in every list of one user (the url may name the other participant)",
		RoomStable, "none", "holds"},
	{"in every organisations list, the room an entry embeds is that organisation's: an organisation room (platformType ORG where given), and no two entries embed the same room",
		OrgRoom, "none", "holds"},
	{"in every repositories list, the room an entry embeds is that repository's: a repository room (platformType REPO where given), and no two entries embed the same room",
		RepoRoom, "none", "holds"},
	{"a room of a kind the rooms list holds (one-to-one, organisation, repository) that one answer of a user's rooms list holds, a later one leaves out and a later one holds again was left out wrongly, unless a request of the run hid it for that user",
		RoomKinds, "none", "only rooms the first answer of the list held (a room added during the run may lag)"},
	{"likewise, a room a user's channels list holds, leaves out and holds again was left out wrongly, unless a request of the run hid it for that user",
		ChannelList, "none", "as for ROOM-KINDS"},
	{"a room a request of the run hid for a user (2xx) that an answer of the user's rooms list leaves out, a later one holds and a later one leaves out again, with no hide of the room in between, was shown wrongly: nothing but a hide takes a room out of the list",
		RoomHide, "answers starting within Eventually of the end of a hide are not judged", "the answer leaving the room out again starts more than Eventually after the one holding it ended (another client's post may bring it back while a lagging copy still leaves it out); a room the run wrote in otherwise is not judged"},
	{"likewise, an entry of a user's organisations list, or repositories list, that one answer holds, a later one leaves out and a later one holds again was left out wrongly (a private repository's under REPO-PRIVATE-GRANTED, since only a user who granted access sees one)",
		OrgList + ", " + RepoList + ", " + RepoPrivateGranted, "none", "as for ROOM-KINDS"},
	{"a user id keeps its username and url wherever it appears (current user, fromUser, the user of one-to-one rooms), and a mention's screenName is that user's username (ignoring case)",
		UserStable, "none", "holds"},
	{"a page holds each message id once", PageUnique, "none", "holds"},
	{"a page holds at most limit messages when 1 <= limit <= 100", PageLimit, "none", "holds"},
	{"a page holds at most 100 messages whatever limit says", LimitCap, "none", "holds"},
	{"a user's unread lists and the unread flag in the user's reads agree: a message listed unread for a user is not flagged read to that user in a later answer with no write of the user in the room and no mark-read naming it in between (nor listed again after such an answer)",
		UnreadFlag, "a write explains the difference as for HTTP-GET-SAFE", "not checked: another client with the same token may mark it read"},
	{"between two answers about a message, v, readBy and (for the reader) the unread flag change only where a write can explain it: v by at most the number of edits of the message, readBy by at most the number of writes naming it or its room, unread from true to false only with a write of the reader in the room or a mark-read naming the message",
		HTTPGetSafe, "a write explains a change when it started before the later answer ended and ended no more than Eventually before the earlier one started", "not checked: outside writers change all three"},
}

// Options configures a Checker.
type Options struct {
	// Eventually is how long an eventually consistent server may show a
	// stale copy after a write (the run's --eventually); 0 allows none.
	Eventually time.Duration
	// Shared says other clients may write to the target during the run:
	// the rules that hold only when the run is the only writer are relaxed
	// (see Invariants).
	Shared bool
	// Profile is the profile of the run ("core" or "reference"). Every
	// rule holds at both (single reads and edit answers count for
	// MSG-ROOM-SCOPE at core too, as the catalogue says).
	Profile string
	// Redact, when set, is applied to every text the checker writes (ids,
	// names and urls in it come from the target's answers); give it the
	// client's Redactor().String.
	Redact func(string) string
	// MaxPerRequirement bounds the contradictions reported per requirement;
	// 0 means 5. The last one kept says how many more were found.
	MaxPerRequirement int
	// UserIDs are the ids the target's description gives its users, by
	// token index ("" where it gives none). A token answered as another
	// user than its description says is no known user: the current user's
	// answers are wrong (AUTH-CURRENT-USER's), and nothing is judged by who
	// the caller is (see tokenUserID).
	UserIDs []string
}

// Exchange identifies one exchange of a contradiction.
type Exchange struct {
	Start, End time.Time
	User       int    // index of the user (0 is user 1); -1 when no token of the run
	Method     string // HTTP method
	Path       string // path and query as sent, redacted
	Status     int
	Reproduce  string // curl command, redacted
}

// Contradiction is two or more answers (one for a single page) that cannot
// all be right.
type Contradiction struct {
	Requirement string
	Text        string // one paragraph: what contradicts what
	Exchanges   []Exchange
	// More is set on the last contradiction kept for a requirement: how
	// many more of that requirement were found and left out.
	More int
}

// String renders the contradiction for a report: the requirement, the
// text, then each exchange with its reproduce command.
func (c Contradiction) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", c.Requirement, c.Text)
	if c.More > 0 {
		fmt.Fprintf(&b, " (%d more contradictions of %s not shown)", c.More, c.Requirement)
	}
	for i, e := range c.Exchanges {
		user := "no user of the run"
		if e.User >= 0 {
			user = fmt.Sprintf("user %d", e.User+1)
		}
		fmt.Fprintf(&b, "\n  [%d] %s-%s %s %s %s -> %d\n      reproduce: %s", i+1, clock(e.Start), clock(e.End), user, e.Method, e.Path, e.Status, e.Reproduce)
	}
	return b.String()
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000000") }

// Stats says how much the checker keeps.
type Stats struct {
	Observed  int // exchanges handed to Observe
	Kept      int // exchanges kept (they yielded facts or are writes)
	Messages  int
	Rooms     int
	Users     int
	ReadState int // (user, message) pairs with unread state
}

// Checker is a history checker for one run. Observe is safe for concurrent
// use, and so is Check, which can be called at any time (it reports what
// the exchanges observed so far contradict).
type Checker struct {
	opt  Options
	seed maphash.Seed
	pool sync.Pool // *facts

	observed atomic.Int64
	mu       sync.Mutex
	st       state
}

// New returns a Checker.
func New(opt Options) *Checker {
	if opt.Eventually < 0 {
		opt.Eventually = 0
	}
	if opt.MaxPerRequirement <= 0 {
		opt.MaxPerRequirement = 5
	}
	c := &Checker{opt: opt, seed: maphash.MakeSeed()}
	c.pool.New = func() any { return &facts{} }
	c.st.init(opt, c.seed)
	return c
}

// Observe takes in one exchange. It keeps no reference to o's byte slices.
func (c *Checker) Observe(o client.Observed) {
	c.observed.Add(1)
	op := operations[o.Operation]
	if op == opNone || op.method() != o.Method {
		return
	}
	ok := o.Status >= 200 && o.Status < 300
	if !ok && !op.write() {
		return
	}
	p, valid := parsePath(op, o.Path)
	if !valid {
		return
	}
	f := c.pool.Get().(*facts)
	defer c.pool.Put(f)
	parsed := ok && f.parse(op, o.ResponseBody, c.seed)
	if op == opMarkRead {
		f.parseMark(o.RequestBody, c.seed)
	}
	f.req = reqFact{}
	if (op == opSend || op == opEdit) && parsed && !o.Invalid {
		// What a deliberately defective request asked for is not clear
		// (which of two tokens, which of two texts): only a valid
		// request's answer is held to it.
		f.parseRequest(o.RequestBody, c.seed)
	}
	if !parsed && !op.write() {
		return
	}
	if op == opList && parsed {
		f.limit, f.limitOK = limitOf(o.Query)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.merge(&o, op, p, f, parsed, ok)
}

// Check returns every contradiction among the exchanges observed so far,
// at most MaxPerRequirement per requirement, sorted by requirement and then
// by the start of their first exchange.
func (c *Checker) Check() []Contradiction {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.check()
}

// Stats says how much the checker holds.
func (c *Checker) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Observed: int(c.observed.Load()), Kept: len(c.st.ex), Messages: len(c.st.msgs), Rooms: len(c.st.rooms),
		Users: len(c.st.users), ReadState: len(c.st.reads)}
}

// sortContradictions orders a report.
func sortContradictions(cs []Contradiction) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Requirement != cs[j].Requirement {
			return cs[i].Requirement < cs[j].Requirement
		}
		var a, b time.Time
		if len(cs[i].Exchanges) > 0 {
			a = cs[i].Exchanges[0].Start
		}
		if len(cs[j].Exchanges) > 0 {
			b = cs[j].Exchanges[0].Start
		}
		return a.Before(b)
	})
}

// failsOnly are the requirements the checker can find broken but never
// judges whole: the flicker of a list is one breach among many its checks
// look for, so a run without a contradiction says nothing of them.
var failsOnly = map[string]bool{RoomKinds: true, ChannelList: true, OrgList: true, RepoList: true, RepoPrivateGranted: true, RoomHide: true}

// FailsOnly reports whether the checker's silence about requirement id is
// no verdict: it reports that requirement's contradictions, never its PASS.
func FailsOnly(id string) bool { return failsOnly[id] }

// Requirements lists every requirement id the checker reports under, once
// each, in the order of Invariants.
func Requirements() []string {
	var out []string
	for _, inv := range Invariants {
		for _, id := range requirementID.FindAllString(inv.Requirement, -1) {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

var requirementID = regexp.MustCompile(`[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+`)
