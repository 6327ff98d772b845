package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind is a kind of operation the model drives.
type Kind int

const (
	Send       Kind = iota // POST a message (status absent, true or false)
	SendNoText             // POST a message body without its required text
	Edit                   // PUT a new text (own or another's message, own room or another)
	EditNoText             // PUT a body without its required text
	Get                    // GET one message (own room, another room, an id that does not exist)
	List                   // GET a page: every combination of cursors and limit
	Mark                   // POST unreadItems: one or several ids, read ones, another room's path
	Unread                 // GET unreadItems
	Rooms                  // GET a list that holds rooms (rooms, organisations, repositories, channels): the write room's counts and lastAccessTime
	Search                 // GET the room's messages with q: a word of a message, as written, or of another room's message
	kinds
)

var kindNames = [...]string{"send", "send-no-text", "edit", "edit-no-text", "get", "list", "mark-read", "unread", "rooms", "search"}

func (k Kind) String() string { return kindNames[k] }

// Cursor is the cursor combination of a List.
type Cursor int

const (
	NoCursor Cursor = iota
	BeforeID
	AfterID
	AroundID
	BeforeAndAfter
	cursors
)

// Anchor says which message a cursor or a pick names.
type Anchor int

const (
	Oldest Anchor = iota
	Newest
	Middle
	Missing // an id no message has
	anchors
)

var anchorNames = [...]string{"oldest", "newest", "a middle message", "an id no message has"}

// limits drawn for a List: 0 leaves the parameter out; 150 is beyond the
// bound, where a server may refuse or cap.
var limits = []int{0, 1, 2, 3, 5, 10, 100, 150}

// op is one drawn operation. Messages are named relative to what the
// sequence has sent when the operation runs (pick is an index taken modulo
// their number), so any sub-sequence of a sequence is a sequence too: the
// shrinker removes operations freely.
type op struct {
	Kind   Kind
	User   int // index among Config.Users, taken modulo their number
	Picks  []int
	Anchor Anchor
	Other  bool // through another room of the user
	Again  bool // Edit: the message the sequence edited last, when there is one; List: the cursor of the sequence's last list that named a message
	// Same repeats a text: Send, the text of the user's previous send;
	// Edit, the text the message already has.
	Same   bool
	List   int  // Rooms: which list (see roomLists)
	Shown  bool // Get: a message the room's pages showed that the sequence did not send
	Status int  // Send: 0 absent, 1 true, 2 false
	Text   int  // which text
	// Parts says what a written text holds besides plain words: bits 0-1
	// how many users it mentions (their indices from Picks), bit 2 the
	// first mention twice, bits 3-4 an issue reference (none, inside, at
	// the end), bits 5-6 links (none, inside, at the end, two).
	Parts  int
	Cursor Cursor
	Limit  int
	Skip   int // List: 0 leaves skip out, n > 0 sends skip=n-1
	// Bare: a List or a Send is followed by a list with no query parameter
	// at all (the server's default limit and order).
	Bare bool
	// Then, for a Mark: every other user who may read the write room then
	// reads the first message named (by id, in a page, in their unread
	// list), and with a third such user, that user marks it read too.
	Then bool
	// Pair: for a Send or an Edit, the text holds after its own word the
	// word of the sequence's newest message; for a Search, the search is
	// followed by one for two such words, which one message holds side by
	// side.
	Pair bool
	// Odd: the text holds characters a JSON writer escapes or a server
	// may normalise (a tab, a CR LF line break) and a link with capitals
	// in its path.
	Odd bool
}

func (o op) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s by user %d", o.Kind, o.User+1)
	switch o.Kind {
	case Send:
		fmt.Fprintf(&b, " (%s)", [...]string{"no status field", "status true", "status false"}[o.Status])
		if o.Same {
			b.WriteString(" with the text of the user's previous send")
		}
		o.texts(&b)
	case SendNoText, EditNoText:
		if o.Odd {
			b.WriteString(" (text null)")
		}
		if o.Kind == SendNoText {
			break
		}
		fallthrough
	case Edit, Get, Search:
		if o.Other && o.Kind == Search {
			b.WriteString(" for a word of a message of another room")
			return b.String()
		}
		if o.Shown && o.Kind == Get && !o.Other {
			b.WriteString(" of a message the room's pages showed, not sent by the sequence")
			return b.String()
		}
		if o.Again && o.Kind == Edit {
			b.WriteString(" of the message edited last (else " + anchorNames[o.Anchor] + ")")
		} else if o.Kind == Edit && o.Picks[1]%2 == 0 {
			b.WriteString(" of one of the editor's own messages (else " + anchorNames[o.Anchor] + ")")
		} else {
			fmt.Fprintf(&b, " of %s", anchorNames[o.Anchor])
		}
		if o.Same && o.Kind == Edit {
			b.WriteString(" to the text it has")
		} else if o.Kind == Edit {
			o.texts(&b)
			if o.keepsWord() {
				b.WriteString(", keeping the message's searched word")
			}
		}
	case List:
		fmt.Fprintf(&b, " (%s", [...]string{"no cursor", "beforeId", "afterId", "aroundId", "beforeId and afterId"}[o.Cursor])
		if o.Cursor != NoCursor {
			fmt.Fprintf(&b, " at %s", anchorNames[o.Anchor])
		}
		if o.Limit > 0 {
			fmt.Fprintf(&b, ", limit %d", o.Limit)
		}
		if o.Other {
			b.WriteString("; then the same with the cursor naming a message of another room")
		}
		if o.Again {
			b.WriteString("; the cursor of the sequence's last list that named a message instead, when there is one")
		}
		if o.Skip > 0 {
			fmt.Fprintf(&b, ", skip %d", o.Skip-1)
		}
		if o.Bare {
			b.WriteString("; then with no query parameter at all")
		}
		b.WriteString(")")
	case Rooms:
		fmt.Fprintf(&b, " (%s)", roomLists[o.List%len(roomLists)].name)
	case Mark:
		if o.Anchor == Missing {
			b.WriteString(" of an id no message has")
		} else {
			fmt.Fprintf(&b, " of %d id(s)", len(o.Picks))
			if o.Odd {
				b.WriteString(", the first named twice")
			}
		}
		if o.Then && !o.Other {
			b.WriteString("; then a third user marks the first read too, where one can, and every other user reads it (by id, in a page, in their unread list)")
		}
	}
	if o.Other {
		b.WriteString(" through another room")
	}
	if o.Pair && o.Kind == Search {
		b.WriteString("; then for two words, side by side in a message, one of them in another message too")
	}
	return b.String()
}

// keepsWord says whether an edit's new text keeps the message's searched
// word beside its own (one edit in three; taken from what is drawn
// already).
func (o op) keepsWord() bool { return o.Kind == Edit && !o.Same && o.Picks[2]%3 == 0 }

// texts says what a written text holds besides plain words, for a failure
// text.
func (o op) texts(b *strings.Builder) {
	if o.Pair {
		b.WriteString(", its text holding the newest message's word after its own")
	}
	if o.Odd {
		b.WriteString(", its text holding a tab, a CR LF, a link with capitals in its path, a link with a port and two query parameters, text that reads like HTML entities, a combining accent, the angstrom sign, backslashes before letters and, with a mention, a mention at the start of a line")
	}
}

// Mix weighs the operations a run draws.
type Mix map[Kind]int

// draw makes a sequence of n operations from r.
func draw(r *rand.Rand, mix Mix, n int) []op {
	total := 0
	for k := Kind(0); k < kinds; k++ {
		total += mix[k]
	}
	if total == 0 {
		return nil
	}
	// Lists take their cursor and limit from every combination in turn,
	// in an order of the draw's own, so a sequence of any length covers
	// them evenly rather than by chance.
	combos := r.Perm(int(cursors) * len(limits))
	lists := 0
	ops := make([]op, 0, n)
	for i := range n {
		x := r.IntN(total)
		if i < n/4 && mix[Send] > 0 {
			x = 0 // a sequence opens with sends, so its pages have messages of the run to judge
			for k := Kind(0); k < Send; k++ {
				x += mix[k]
			}
		}
		k := Kind(0)
		for ; k < kinds; k++ {
			if x < mix[k] {
				break
			}
			x -= mix[k]
		}
		o := op{Kind: k, User: r.IntN(8), Text: r.IntN(len(texts)), Parts: r.IntN(128), Anchor: Anchor(r.IntN(int(anchors)))}
		o.Picks = []int{r.IntN(64), r.IntN(64), r.IntN(64)}
		// One text in five holds escapes and a case-sensitive link, one in
		// three the word of the sequence's newest message (for searches of
		// two words). These are taken from what is drawn already, so the
		// draws of the other fields stay as they were.
		extra := (o.Picks[0] + 64*o.Picks[1] + 4096*o.Picks[2] + 7*o.Parts) % 15
		o.Odd, o.Pair = extra%5 == 0, extra%3 == 0
		switch k {
		case Send:
			// One send in five is followed by a list with no query
			// parameter at all, before any other list could refresh what
			// the server answers to it.
			o.Bare = extra%5 == 1
			o.Status = r.IntN(3)
			o.Same = o.Picks[1]%8 == 0
		case Edit, Get:
			o.Other = r.IntN(4) == 0
			if o.Anchor == Missing && k == Edit {
				o.Anchor = Middle
			}
			// An edit of a message edited before: the second edit must be
			// stored as the first was.
			o.Again = k == Edit && r.IntN(3) == 0
			o.Same = k == Edit && o.Picks[1]%8 == 0
			o.Shown = k == Get && !o.Other && r.IntN(4) == 0
		case EditNoText:
			if o.Anchor == Missing {
				o.Anchor = Newest
			}
		case List:
			// One list in five is followed by one with no query parameter
			// at all: the server's default limit and order.
			o.Bare = extra%5 == 1
			c := combos[lists%len(combos)]
			lists++
			o.Cursor, o.Limit = Cursor(c%int(cursors)), limits[c/int(cursors)]
			// One list in ten is followed by the same with its cursor
			// naming a message of another room: the wrong parent, for
			// cursors.
			o.Other = o.Cursor != NoCursor && o.Picks[2]%10 == 0
			// One list in six with a cursor asks the cursor of the last
			// list again, after what was written since (taken from what is
			// drawn already, so the other draws stay as they were).
			o.Again = o.Cursor != NoCursor && (o.Picks[1]+o.Parts)%6 == 0
			if (o.Cursor == NoCursor || o.Cursor == BeforeID) && r.IntN(3) == 0 {
				o.Skip = 1 + []int{0, 1, 3}[r.IntN(3)]
			}
			// Cursors name real messages mostly, on the side that leaves the
			// run's messages to page through, and the edges too: the oldest
			// for aroundId and beforeId, the newest for afterId.
			weights := map[Cursor][4]int{ // oldest, newest, middle, missing
				NoCursor: {1, 1, 1, 1}, BeforeID: {2, 8, 6, 2}, AfterID: {7, 4, 6, 2}, AroundID: {5, 5, 8, 2}, BeforeAndAfter: {2, 4, 4, 1},
			}[o.Cursor]
			x := r.IntN(weights[0] + weights[1] + weights[2] + weights[3])
			for a := Oldest; a < anchors; a++ {
				if x < weights[a] {
					o.Anchor = a
					break
				}
				x -= weights[a]
			}
		case Search:
			o.Other = r.IntN(3) == 0
			o.Pair = !o.Other && extra%2 == 0
		case Rooms:
			o.List = r.IntN(len(roomLists))
		case Mark:
			o.Other = r.IntN(5) == 0
			o.Picks = o.Picks[:1+r.IntN(3)]
			o.Then = !o.Other && extra%3 == 1
			if o.Anchor == Missing && r.IntN(2) == 0 {
				o.Anchor = Middle
			}
		}
		ops = append(ops, o)
	}
	return ops
}

// texts are what sends and edits write, besides the run marker: plain
// words, characters HTML must escape, a link, several scripts.
var texts = []string{
	"plain words",
	"fish & chips <b>not bold</b> \"quoted\" 'single'",
	"see https://example.com/a?b=1&c=2 for more",
	"ünïcödé ελληνικά 日本語 😀",
	"two\nlines",
}
