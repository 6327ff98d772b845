package conformance

// The ground under a failing check. A check that fails because one of its
// own writes was lost (a send acknowledged and never stored, an edit
// answered and not kept) or because reads by id answer another message
// fails for a reason that is not its own: the walk has a gap, the search
// finds nothing, the unread list lacks the message, all for one defect.
// When a check fails, the root probe reads back by id what the check
// wrote; when the ground was not solid, the check is blocked by the
// requirement that was broken, which is recorded as a finding with one
// signature wherever it is met, so one defect gives one failing
// requirement and every check it undermined says so.

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/generate"
)

// The requirements a root probe may name.
const (
	rootLost   = "MSG-SEND-STORED"
	rootStale  = "MSG-EDIT-PERSISTED"
	rootEdit   = "MSG-EDIT"
	rootGetOne = "MSG-GET-ONE"
)

// maxProbed bounds the messages a root probe reads back; maxConfirmed
// those it reads again, once the lag has passed, to confirm a loss.
const (
	maxProbed    = 300
	maxConfirmed = 10
)

// write is a send or an edit of the check, acknowledged with a success.
type write struct {
	u        int
	room, id string
	edit     bool
	text     string // the text the request carried
	answered string // the text the answer carried ("" when it carried none)
	other    bool   // an edit answered with another message than the one named
}

// checkWrites is what a check wrote, in order, and whether it read a message
// by id (a read the root probe may find unreliable).
type checkWrites struct {
	mu       sync.Mutex
	list     []write
	readByID bool
	beforeID bool            // it read a page with beforeId
	reads    map[string]bool // the kinds of read of its own it made (see readKind)
}

// readKind names the kind of a read of user u's own that shows messages
// to u: getMessage, listMessages (a page with no cursor or search),
// aroundId, q, listUserRooms; "" for any other request.
func readKind(req client.Request) string {
	if req.Method != "GET" {
		return ""
	}
	if strings.HasSuffix(req.Path, "/rooms") {
		return "listUserRooms"
	}
	m := messagePath.FindStringSubmatch(req.Path)
	switch {
	case m == nil:
		return ""
	case m[2] != "":
		return "getMessage"
	case req.Query.Has("q"):
		return "q"
	case req.Query.Has("aroundId"):
		return "aroundId"
	case !req.Query.Has("beforeId") && !req.Query.Has("afterId"):
		return "listMessages"
	}
	return ""
}

var messagePath = regexp.MustCompile(`^/v1/rooms/([^/]+)/chatMessages(?:/([^/]+))?$`)

// noteWrite records a send or edit of user u that the target acknowledged,
// and reads by id, for the root probe. Only requests a conforming server
// must store are recorded: with the user's own token and a text.
func (e *Env) noteWrite(u int, req client.Request, resp *client.Response) {
	if e.wrote == nil {
		return
	}
	if k := readKind(req); k != "" {
		e.wrote.mu.Lock()
		if e.wrote.reads == nil {
			e.wrote.reads = map[string]bool{}
		}
		e.wrote.reads[k] = true
		e.wrote.mu.Unlock()
	}
	m := messagePath.FindStringSubmatch(req.Path)
	if m == nil {
		return
	}
	e.wrote.mu.Lock()
	defer e.wrote.mu.Unlock()
	if req.Method == "GET" && m[2] != "" {
		e.wrote.readByID = true
		return
	}
	if req.Method == "GET" && req.Query.Has("beforeId") {
		e.wrote.beforeID = true
		return
	}
	edit := req.Method == "PUT" && m[2] != ""
	if !(req.Method == "POST" && m[2] == "" || edit) || resp.Status/100 != 2 || req.Invalid || req.Place == client.NoToken {
		return
	}
	text := textOf(req.Body)
	if text == "" || len(e.wrote.list) >= maxProbed {
		return
	}
	if owner, _ := unusable(resp, resp.Violations); owner != "" && !edit {
		return // an answer of another shape names no message: sent records what the check finds
	}
	var got struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	_ = resp.JSON(&got)
	id := m[2]
	if !edit {
		id = got.ID
	}
	if id == "" {
		return
	}
	// An edit answered with another message is recorded all the same: its
	// answer is the edit's own breach (MSG-EDIT), and the message it named
	// read back with its old text is, besides, an edit not kept.
	e.wrote.list = append(e.wrote.list, write{u: u, room: m[1], id: id, edit: edit, text: text, answered: got.Text, other: edit && got.ID != "" && got.ID != id})
}

// noteMade records, as noteWrite does for an acknowledged send, a message
// user u sent whose answer the check could not use and which it found
// stored (see madeDespite).
func (e *Env) noteMade(u int, room, id, text string) {
	e.noteSent(u, room, id)
	if e.wrote == nil {
		return
	}
	e.wrote.mu.Lock()
	defer e.wrote.mu.Unlock()
	if len(e.wrote.list) < maxProbed {
		e.wrote.list = append(e.wrote.list, write{u: u, room: room, id: id, text: text})
	}
}

// noteGenerated records, for the root probe, a message a generated request
// of user 1 wrote and read back by id, with the texts the engine wrote to
// it before.
func (e *Env) noteGenerated(w *generate.Written) {
	if e.wrote == nil || w == nil {
		return
	}
	e.wrote.mu.Lock()
	defer e.wrote.mu.Unlock()
	e.wrote.readByID = true
	if w.Edit {
		for i, t := range w.Earlier {
			e.wrote.list = append(e.wrote.list, write{room: w.Room, id: w.ID, edit: i > 0, text: t, answered: t})
		}
	}
	e.wrote.list = append(e.wrote.list, write{room: w.Room, id: w.ID, edit: w.Edit, text: w.Text, answered: w.Answered})
}

// textOf is the text field of a request body, "" when it has none.
func textOf(body any) string {
	switch b := body.(type) {
	case map[string]any:
		s, _ := b["text"].(string)
		return s
	case map[string]string:
		return b["text"]
	}
	return ""
}

// probeRoot runs when a check fails. It reads back, as their writer and
// through their room, the messages the check wrote, waiting out the
// target's lag, and when one of them is gone (404), shows another
// message, or does not show its last acknowledged edit, it names the
// broken requirement as what blocks the check (or as its verdict, when the
// check verifies it), and records the breach under one signature.
func (e *Env) probeRoot() {
	if e.wrote == nil {
		return
	}
	e.wrote.mu.Lock()
	list, readByID := append([]write(nil), e.wrote.list...), e.wrote.readByID
	e.wrote.mu.Unlock()
	if len(list) == 0 {
		return
	}
	sent := map[string]bool{}        // the messages this check sent
	last := map[string]write{}       // each message's latest write
	earlier := map[string][]string{} // the texts each message had before it
	var order []string
	for _, w := range list {
		if _, ok := last[w.id]; !ok {
			order = append(order, w.id)
		} else {
			earlier[w.id] = append(earlier[w.id], last[w.id].text)
		}
		last[w.id] = w
		sent[w.id] = sent[w.id] || !w.edit
	}
	// An edit is not kept when a read shows a text the message had before
	// it; a read that shows some other text is about the text (characters
	// lost, say), which is not the ground's concern.
	older := func(id, text string) bool { return text != last[id].text && slices.Contains(earlier[id], text) }
	type seen struct {
		status int
		id     string
		text   string
		reader int // the user whose read it is
	}
	got := map[string]seen{}
	pending := order
	deadline := e.now().Add(e.Eventually)
	// Three reads at most: one now, and two once the lag has passed (a
	// read that misses one time in a few is not taken for a loss).
	for round := 0; round < 3 && len(pending) > 0; round++ {
		if round == 1 {
			if !e.waitUntil(deadline) { // a run that is stopped does not wait out the lag
				return
			}
		}
		var again []string
		for _, id := range pending {
			w := last[id]
			resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: messagesPath(w.room) + "/" + id, Token: e.Users[w.u].Token})
			if err != nil {
				return // no answer, no conclusion
			}
			var m struct {
				ID   string `json:"id"`
				Text string `json:"text"`
			}
			s := seen{status: resp.Status, reader: w.u}
			if resp.Status == 200 && resp.JSON(&m) == nil {
				s.id, s.text = m.ID, m.Text
			}
			if o := min(w.u, 1) ^ 1; s.status == 200 && s.id == id && len(e.Users) > 1 && w.room == e.Target.WriteRoom {
				// Users 1 and 2 both post in the write room: a send its
				// sender reads back and the other cannot is lost to them.
				resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: messagesPath(w.room) + "/" + id, Token: e.Users[o].Token})
				if err != nil {
					return
				}
				if resp.Status == http.StatusNotFound {
					s = seen{status: resp.Status, reader: o}
				}
			}
			got[id] = s
			switch {
			case s.status == http.StatusNotFound,
				s.status == 200 && s.id == id && w.edit && older(id, s.text):
				again = append(again, id) // lost or stale, unless the lag explains it
			}
		}
		if round == 0 && len(again) > maxConfirmed {
			for _, id := range again[maxConfirmed:] {
				delete(got, id) // not read again: no conclusion drawn from it
			}
			again = again[:maxConfirmed]
		}
		pending = again
	}
	var lost, gone, stale, unedited, other, misdirected []string
	for _, id := range order {
		s, w := got[id], last[id]
		switch {
		case s.status == 200 && s.id != "" && s.id != id:
			other = append(other, id)
		case s.status == http.StatusNotFound && (!w.edit || s.reader != w.u):
			lost = append(lost, id)
		case s.status == http.StatusNotFound:
			gone = append(gone, id) // edited, then not found: unless the room lists it, no conclusion
		case s.status == 200 && s.id == id && w.edit && older(id, s.text) && w.other:
			misdirected = append(misdirected, id)
		case s.status == 200 && s.id == id && w.edit && older(id, s.text):
			if w.answered == w.text {
				stale = append(stale, id)
			} else {
				unedited = append(unedited, id)
			}
		}
	}
	// A message the room lists to its reader, which its writer reads by id
	// or edited, is stored: a read by id that answers 404 for it is the
	// read's breach (MSG-GET-ONE), not a lost write. A message only sent,
	// which even its sender cannot read by id, is another matter: that a
	// sent message reads back by id is MSG-SEND-STORED's own statement.
	var unreadable []string
	for i := 0; i < len(lost) && i < maxConfirmed; {
		if id := lost[i]; got[id].reader != last[id].u && e.roomLists(last[id].room, id, got[id].reader) {
			unreadable = append(unreadable, id)
			lost = slices.Delete(lost, i, i+1)
			continue
		}
		i++
	}
	for _, id := range gone[:min(len(gone), maxConfirmed)] {
		switch {
		case e.roomLists(last[id].room, id, got[id].reader):
			unreadable = append(unreadable, id)
		case sent[id]:
			lost = append(lost, id) // sent here, edited, and found nowhere
		}
	}
	example := func(ids []string) string {
		w := last[ids[0]]
		if r := got[ids[0]].reader; r != w.u {
			return fmt.Sprintf("GET %s/%s as user %d (user %d sent it and reads it)", messagesPath(w.room), ids[0], r+1, w.u+1)
		}
		return fmt.Sprintf("GET %s/%s as user %d", messagesPath(w.room), ids[0], w.u+1)
	}
	if len(misdirected) > 0 {
		// The edit answered another message, which is the edit's breach and
		// whatever the check makes of it; that the message it named kept
		// its old text is an edit not kept besides: a finding, which
		// leaves the check's verdict as it is.
		w := last[misdirected[0]]
		text := fmt.Sprintf("%d of the messages this check edited were answered as another message and read back by id with their old text: %s answered %q, not %q",
			len(misdirected), fmt.Sprintf("GET %s/%s as user %d", messagesPath(w.room), misdirected[0], got[misdirected[0]].reader+1), got[misdirected[0]].text, w.text)
		e.by("the ground under this check: " + text)
		e.noteSoft(rootStale, "updateChatMessage answered another message, and the one named keeps its old text", text)
	}
	lag := ""
	if e.Eventually > 0 {
		lag = fmt.Sprintf(", read again until %s had passed", e.Eventually)
	}
	switch {
	case len(other) > 0:
		s := got[other[0]]
		text := fmt.Sprintf("a read by id answered another message: %s answered message %s (%d of the %d messages this check wrote were read back as another message)",
			example(other), s.id, len(other), len(order))
		e.rootFound(rootGetOne, "getChatMessage answers another message than the one named", text, readByID)
	case len(unreadable) > 0:
		text := fmt.Sprintf("%d message(s) this check wrote are listed in their room, yet reading them by id answers 404: %s answered 404", len(unreadable), example(unreadable))
		e.rootFound(rootGetOne, "getChatMessage answers 404 for a message the room lists", text, readByID)
	case len(lost) > 0:
		text := fmt.Sprintf("%d message(s) this check sent, each answered with its id, are not found by id%s (of the %d it wrote; at most %d are read again): %s answered 404",
			len(lost), lag, len(order), maxConfirmed, example(lost))
		e.rootFound(rootLost, "sendChatMessage acknowledged, then getChatMessage 404", text, true)
	case len(stale) > 0:
		text := fmt.Sprintf("%d of the messages this check edited, each edit answered with the new text, read back by id with another text%s: %s answered %q, not %q",
			len(stale), lag, example(stale), got[stale[0]].text, last[stale[0]].text)
		e.rootFound(rootStale, "updateChatMessage answered the new text, then getChatMessage shows another", text, true)
	case len(unedited) > 0:
		w := last[unedited[0]]
		text := fmt.Sprintf("%d of the messages this check edited were answered without the new text and read back by id without it%s: the edit sent %q and answered %q; %s answered %q",
			len(unedited), lag, w.text, w.answered, example(unedited), got[unedited[0]].text)
		e.rootFound(rootEdit, "updateChatMessage does not apply the new text", text, true)
	}
}

// roomLists reports whether room's newest 100 messages, or the page
// around id, hold message id, as user u reads them.
func (e *Env) roomLists(room, id string, u int) bool {
	for _, q := range []url.Values{{"limit": {"100"}}, {"aroundId": {id}, "limit": {"5"}}} {
		resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: messagesPath(room), Query: q, Token: e.Users[u].Token})
		if err != nil {
			return false
		}
		var page []Message
		if resp.Status == http.StatusOK && resp.JSON(&page) == nil && slices.ContainsFunc(page, func(m Message) bool { return m.ID == id }) {
			return true
		}
	}
	return false
}

// rootFound records that req, which the ground under a failing check
// broke, explains the failure: the check's verdict when it verifies req,
// otherwise req blocks it and the breach is a finding of req (sig names it
// wherever it is met). blocks is false when the breach cannot have caused
// the failure (reads by id the check never made): the finding is recorded
// and the check's outcome left as it was.
func (e *Env) rootFound(req, sig, text string, blocks bool) {
	e.by("the ground under this check: " + text)
	if e.rooted != nil {
		*e.rooted = true
	}
	if *e.judging == req || *e.blocker == req {
		return // the check already fails on the ground itself
	}
	if slices.Contains(e.ids, req) {
		*e.blocker, *e.judging = "", req
		return
	}
	e.noteSoft(req, sig, text)
	if blocks {
		*e.blocker, *e.judging = req, ""
	}
}

// steady holds a read to what the check knows of the state: hold reads
// and reports whether the answer shows it. When it does not, the read is
// made twice more, nothing sent between: a read that then shows it means
// the answers disagree among themselves (one wrong in a few), which breaks
// owner, the statement of what the read answers, and not what the check
// was about to blame (a write, a GET's side effect). rootFound files it
// under owner. steady reports whether the first read held.
func (e *Env) steady(owner, what string, hold func() bool) bool {
	if hold() {
		return true
	}
	for range 2 {
		if hold() {
			e.rootFound(owner, what+": one read leaves out what the reads before and after it show",
				fmt.Sprintf("%s: a read left out what the next read showed again, with nothing sent between them; the answers disagree among themselves", what), true)
			return false
		}
	}
	return false
}

// unreadReqs are the requirements whose checks read unread state: when
// one fails, the ground under it is whether reading the state changes it.
var unreadReqs = []string{"UNREAD-CHAT", "UNREAD-MENTION", "UNREAD-MARK-READ", "UNREAD-ROOM-COUNTS", "UNREAD-FLAG", "UNREAD-READBY"}

// probeUnreadGround runs when a check fails on unread state (its own
// requirement or the step that blocks it is one of unreadReqs): it tells
// a server whose reading of the unread list marks what it lists read from
// one whose marking or listing is wrong. User 2 sends a message in the
// write room; once user 1's list shows it, the list is read twice more,
// nothing sent between. A message gone from both reads was marked read by
// the read before them: HTTP-GET-SAFE is the ground that broke, and it
// blocks the check. Otherwise each other read that shows the message to
// user 1 (by id, a page, a window around it, a search, the rooms list) is
// made in turn, the list read after each: the same holds of the first read
// after which the list leaves it out.
func (e *Env) probeUnreadGround() {
	req := *e.judging
	if *e.blocker != "" {
		req = *e.blocker
	}
	if !slices.Contains(unreadReqs, req) || len(e.Users) < 2 || e.Target.WriteRoom == "" || e.ctx.Err() != nil {
		return
	}
	room, word := e.Target.WriteRoom, e.word()
	resp, err := e.Client.Do(e.ctx, client.Request{Method: "POST", Path: messagesPath(room), Token: e.Users[1].Token,
		Body: map[string]any{"text": "the ground under an unread check: does a read mark it read? " + word + " " + e.Marker()}})
	var sent struct {
		ID string `json:"id"`
	}
	if err != nil || resp.Status/100 != 2 || resp.JSON(&sent) != nil || sent.ID == "" {
		return
	}
	e.noteSent(1, room, sent.ID)
	listed := func() (bool, bool) {
		r, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: unreadPath(e.me(0), room), Token: e.Users[0].Token})
		var un Unread
		if err != nil || r.Status != 200 || r.JSON(&un) != nil {
			return false, false
		}
		return slices.Contains(un.Chat, sent.ID), true
	}
	deadline := e.now().Add(e.Eventually)
	for {
		in, ok := listed()
		if !ok {
			return
		}
		if in {
			break
		}
		if e.now().After(deadline) {
			return // never listed: the unread checks judge that
		}
		if !e.pause(100 * time.Millisecond) {
			return
		}
	}
	gone := func() bool { // left out of two reads in a row
		for range 2 {
			if in, ok := listed(); !ok || in {
				return false
			}
		}
		return true
	}
	// goneForGood is gone, and gone still once the lag has passed: a list
	// that leaves a message out one time in a few shows it again.
	goneForGood := func() bool {
		return gone() && e.pause(e.Eventually) && gone()
	}
	if gone() {
		e.rootFound("HTTP-GET-SAFE", "getUnreadItems marks read what it lists",
			fmt.Sprintf("a message user 2 sent (%s) was listed in user 1's unread items, and the next two reads of the list, nothing marked between, left it out: reading the list marked it read", sent.ID), true)
		return
	}
	// The list keeps it: each other read that shows the message to user 1
	// of a kind the check made, in turn, and the list again after it.
	var made map[string]bool
	if e.wrote != nil {
		e.wrote.mu.Lock()
		made = maps.Clone(e.wrote.reads)
		e.wrote.mu.Unlock()
	}
	for _, read := range []struct {
		op  string
		req client.Request
	}{
		{"getMessage", client.Request{Method: "GET", Path: messagesPath(room) + "/" + sent.ID}},
		{"listMessages", client.Request{Method: "GET", Path: messagesPath(room), Query: url.Values{"limit": {"5"}}}},
		{"listMessages with aroundId", client.Request{Method: "GET", Path: messagesPath(room), Query: url.Values{"aroundId": {sent.ID}, "limit": {"3"}}}},
		{"listMessages with q", client.Request{Method: "GET", Path: messagesPath(room), Query: url.Values{"q": {word}}}},
		{"listUserRooms", client.Request{Method: "GET", Path: "/v1/user/" + e.me(0) + "/rooms"}},
	} {
		if kind := readKind(read.req); !made[kind] {
			continue // a read the check never made is not what it stands on
		}
		read.req.Token = e.Users[0].Token
		if r, err := e.Client.Do(e.ctx, read.req); err != nil {
			return
		} else if r.Status/100 != 2 {
			continue
		}
		if goneForGood() {
			e.rootFound("HTTP-GET-SAFE", read.op+" marks read what it shows",
				fmt.Sprintf("a message user 2 sent (%s) was listed in user 1's unread items, read after read, until user 1 read %s %s; the next two reads of the list left it out: that read marked it read", sent.ID, read.req.Method, read.req.Path+"?"+read.req.Query.Encode()), true)
			return
		}
	}
}

// probePageGround runs when a check that read pages with beforeId fails on
// another requirement than PAGE-BEFOREID: its windows are bounded by
// beforeId, so a beforeId that answers the cursor or newer messages breaks
// them all (a skip that leaves out too few, a page of 100 that is not
// full, a walk that repeats). Of the messages the check sent in one room,
// one after another, beforeId is asked at a middle one, twice: when both
// answers hold it or one sent after it, PAGE-BEFOREID is the ground that
// broke, and it blocks the check.
func (e *Env) probePageGround() {
	failing := *e.judging
	if *e.blocker != "" {
		failing = *e.blocker
	}
	own := failing == "" && slices.Contains(e.ids, "PAGE-BEFOREID") // a failure named by no step or statement is the check's own
	if e.wrote == nil || failing == "PAGE-BEFOREID" || own || (e.rooted != nil && *e.rooted) || e.noAnswer() {
		return
	}
	e.wrote.mu.Lock()
	beforeID := e.wrote.beforeID
	byRoom := map[string][]write{}
	for _, w := range e.wrote.list {
		if !w.edit {
			byRoom[w.room] = append(byRoom[w.room], w)
		}
	}
	e.wrote.mu.Unlock()
	var sends []write
	for _, ws := range byRoom {
		if len(ws) > len(sends) {
			sends = ws
		}
	}
	if !beforeID || len(sends) < 3 {
		return
	}
	mid := len(sends) / 2
	cursor := sends[mid]
	newer := map[string]bool{cursor.id: true}
	for _, w := range sends[mid+1:] {
		newer[w.id] = true
	}
	var held []string
	for range 2 {
		resp, err := e.Client.Do(e.ctx, client.Request{Method: "GET", Path: messagesPath(cursor.room), Query: url.Values{"beforeId": {cursor.id}, "limit": {"5"}}, Token: e.Users[cursor.u].Token})
		var page []struct {
			ID string `json:"id"`
		}
		if err != nil || resp.Status != 200 || resp.JSON(&page) != nil {
			return
		}
		held = held[:0]
		for _, m := range page {
			if newer[m.ID] {
				held = append(held, m.ID)
			}
		}
		if len(held) == 0 {
			return
		}
	}
	e.rootFound("PAGE-BEFOREID", "listMessages with beforeId answers the cursor or a message sent after it",
		fmt.Sprintf("of the messages this check sent one after another in room %s, beforeId=%s (the %d-th of %d) answered, twice, %s: the cursor or messages sent after it, so the pages the check bounded by beforeId are no ground for its verdict", cursor.room, cursor.id, mid+1, len(sends), strings.Join(held, ", ")), true)
}
