package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// judge sends a case and checks one property on it. It returns a failure,
// or an error when the target gave nothing to judge.
func (e *Engine) judge(ctx context.Context, p Property, cs *testCase) (*Failure, error) {
	switch p.ID {
	case RefusedNoChange:
		defer e.quiet(ctx)()
		return e.judgeRefused(ctx, cs)
	case GetNoChange:
		defer e.quiet(ctx)()
		return e.judgeGet(ctx, cs)
	case RoundTrip:
		return e.judgeRoundTrip(ctx, cs)
	}
	resp, err := e.exchange(ctx, cs)
	if err != nil {
		if p.ID == NoServerError && dropped(err) {
			return e.failure(p.ID, cs, nil, "no answer: the connection was dropped", "dropped"), nil
		}
		return nil, err
	}
	var problem, key string
	switch p.ID {
	case NoServerError:
		if resp.Status >= 500 {
			problem, key = fmt.Sprintf("answered %d: a request must never make the server fail", resp.Status), "5xx"
		}
	case ValidAnswer:
		problem, key = e.validAnswer(cs, resp)
	case NoTokenNoData:
		if resp.Status/100 == 2 || resp.Status >= 500 {
			problem, key = fmt.Sprintf("answered %d to a request with %s: it must get no data (a 3xx or 4xx)", resp.Status, cs.tdesc), "status"
		}
	case ReferenceError:
		problem, key = refError(cs, resp)
	}
	if problem == "" {
		return nil, nil
	}
	f := e.failure(p.ID, cs, resp, problem, key)
	if p.ID == NoTokenNoData && resp.Status/100 == 2 && cs.towner != "" {
		f.Requirement = cs.towner // data given without a valid token: the document's own statement
	}
	if p.ID == ValidAnswer && key == "status" {
		if owner, err := e.refusedAccepted(ctx, cs, resp); err != nil {
			return nil, err
		} else if owner != "" {
			f.Requirement = owner
			f.Problem += "; GET /v1/user accepts the same token in the same place right after"
		}
	}
	return f, nil
}

// refusedAccepted says whose breach a 401 to the caller's own token is,
// when GET /v1/user accepts that token in the same place right after: the
// place's (AUTH-BEARER or AUTH-QUERY-TOKEN), not the operation's. "" when
// the answer is no such refusal, or the token stays refused.
func (e *Engine) refusedAccepted(ctx context.Context, cs *testCase, resp *client.Response) (string, error) {
	me := e.world.caller()
	if resp.Status != http.StatusUnauthorized || cs.has(badToken) || cs.token != me.Token || me.Token == "" {
		return "", nil
	}
	owner := map[client.TokenPlace]string{client.Bearer: "AUTH-BEARER", client.QueryToken: "AUTH-QUERY-TOKEN"}[cs.place]
	if owner == "" || cs.header.Get("x-access-token") != "" {
		return "", nil
	}
	if ok, err := e.accepted(ctx, me.Token, cs.place); !ok || err != nil {
		return "", err
	}
	return owner, nil
}

// accepted asks GET /v1/user with token in place whether the server
// accepts it now. Asked up to three times: a server that refuses one
// request in a few may refuse this one too; a token that expired stays
// refused.
func (e *Engine) accepted(ctx context.Context, token string, place client.TokenPlace) (bool, error) {
	for range 3 {
		again, err := e.send(ctx, client.Request{Method: http.MethodGet, Path: "/v1/user", Token: token, Place: place})
		if err != nil {
			return false, err
		}
		if again.Status/100 == 2 {
			return true, nil
		}
	}
	return false, nil
}

// read sends a read of the state with the caller's token; a 401, which
// the caller's token must never get (the token checks judge that), is
// read again twice before it stands.
func (e *Engine) read(ctx context.Context, r client.Request) (*client.Response, error) {
	r.Token = e.world.caller().Token
	resp, err := e.send(ctx, r)
	for i := 0; i < 2 && err == nil && resp.Status == http.StatusUnauthorized; i++ {
		resp, err = e.send(ctx, r)
	}
	return resp, err
}

// validAnswer checks GEN-VALID-ANSWER on one exchange.
func (e *Engine) validAnswer(cs *testCase, resp *client.Response) (problem, key string) {
	if resp.Status/100 == 2 && !cs.has(badMethod) {
		if vs := responseViolations(resp); len(vs) > 0 {
			return fmt.Sprintf("answered %d with a response that breaks the %s document: %s", resp.Status, e.cfg.Profile, violationText(vs)), "2xx shape"
		}
	}
	if !cs.valid() {
		return "", ""
	}
	if e.cfg.Profile == spec.Reference {
		want, ok := cs.refExpected()
		if !ok {
			return "", ""
		}
		if !statusIn(resp.Status, want) {
			return fmt.Sprintf("answered %d; the reference profile documents %s for this request", resp.Status, statusList(want)), "status"
		}
		if resp.Status/100 == 4 {
			if vs := responseViolations(resp); len(vs) > 0 {
				return fmt.Sprintf("refused with %d but not as the document says: %s", resp.Status, violationText(vs)), "refusal shape"
			}
		}
		return "", ""
	}
	switch {
	case resp.Status/100 == 2:
	case resp.Status/100 == 4 && len(cs.refusals()) > 0:
	case resp.Status/100 == 4:
		return fmt.Sprintf("answered %d to a valid request on the caller's own ids, which the document gives no room to refuse", resp.Status), "status"
	default:
		return fmt.Sprintf("answered %d to a valid request: it must be a 2xx or a refusal (4xx)", resp.Status), "status"
	}
	return "", ""
}

// refError checks GEN-REF-ERROR: the status the reference profile
// documents, and the {"error": reason phrase} body with a refusal.
func refError(cs *testCase, resp *client.Response) (problem, key string) {
	want, ok := cs.refExpected()
	if !ok {
		return "", ""
	}
	if !statusIn(resp.Status, want) {
		return fmt.Sprintf("answered %d; the reference profile documents %s for %s", resp.Status, statusList(want), cs.defectOrRefusal()), "status"
	}
	if resp.Status/100 != 4 || cs.method == http.MethodHead {
		return "", "" // a HEAD answer has no body
	}
	var body map[string]any
	if json.Unmarshal(resp.Body, &body) != nil || len(body) != 1 || body["error"] != http.StatusText(resp.Status) {
		return fmt.Sprintf("refused with %d and the body %s; the reference profile documents {\"error\":%q}",
			resp.Status, client.Snippet(resp.Body, 120), http.StatusText(resp.Status)), "body"
	}
	return "", ""
}

func (c *testCase) defectOrRefusal() string {
	if d := c.defect(); d != "" {
		return d
	}
	if r := c.refusals(); len(r) > 0 {
		return strings.Join(r, "; ")
	}
	return "a plain request"
}

func statusIn(status int, want []int) bool {
	for _, w := range want {
		if w == ref2xx && status/100 == 2 || w == status {
			return true
		}
	}
	return false
}

func statusList(want []int) string {
	parts := make([]string, len(want))
	for i, w := range want {
		parts[i] = fmt.Sprint(w)
		if w == ref2xx {
			parts[i] = "a 2xx"
		}
	}
	return strings.Join(parts, " or ")
}

func responseViolations(resp *client.Response) []spec.Violation {
	var out []spec.Violation
	for _, v := range resp.Violations {
		if v.Side == "response" {
			out = append(out, v)
		}
	}
	return out
}

func requestViolations(resp *client.Response) []spec.Violation {
	var out []spec.Violation
	for _, v := range resp.Violations {
		if v.Side == "request" {
			out = append(out, v)
		}
	}
	return out
}

func violationText(vs []spec.Violation) string {
	parts := make([]string, 0, min(len(vs), 3))
	for _, v := range vs[:min(len(vs), 3)] {
		parts = append(parts, v.String())
	}
	if len(vs) > 3 {
		parts = append(parts, fmt.Sprintf("and %d more", len(vs)-3))
	}
	return strings.Join(parts, "; ")
}

// dropped reports whether a transport error means the server dropped the
// connection instead of answering (a crash the client could not see as a
// 5xx).
func dropped(err error) bool {
	var te *client.TransportError
	return errors.As(err, &te) && (te.Kind == client.KindReset || te.Kind == client.KindProtocol)
}

// exchange sends a case. A valid request the document's validator finds
// invalid is an error of the engine, never a verdict on the server.
func (e *Engine) exchange(ctx context.Context, cs *testCase) (*client.Response, error) {
	if cs.shareKey != "" {
		// Within a run each key is one case, judged once: the answer
		// another run kept is all there is to share, and no two
		// goroutines wait for the same key.
		e.sharedMu.Lock()
		resp, ok := e.shared[cs.shareKey]
		e.sharedMu.Unlock()
		if ok {
			return resp, nil
		}
	}
	resp, err := e.send(ctx, cs.request())
	if err != nil {
		return nil, err
	}
	if cs.shareKey != "" {
		e.sharedMu.Lock()
		e.shared[cs.shareKey] = resp
		e.sharedMu.Unlock()
	}
	if cs.valid() {
		if vs := requestViolations(resp); len(vs) > 0 {
			return nil, fmt.Errorf("generate: engine error: a request generated as valid breaks the document: %s; request: %s", violationText(vs), e.red.String(cs.describe()))
		}
	}
	switch cs.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		if resp.Status/100 != 4 {
			e.forget() // it may have changed something: read state afresh
		}
	}
	return resp, nil
}

// failure builds the report of a failing case. key names the kind of
// problem; together with the request it identifies the failure while rapid
// shrinks (it holds nothing that changes between two sends).
func (e *Engine) failure(property string, cs *testCase, resp *client.Response, problem, key string) *Failure {
	f := &Failure{Property: property, Requirement: property, Operation: cs.op.ID, Request: e.red.String(cs.describe()), Problem: e.red.String(problem), Seed: e.cfg.Seed}
	f.key = key
	if resp != nil {
		f.Status = resp.Status
		if x := resp.Exchange; x != nil {
			cp := *x
			cp.URL = e.red.String(cp.URL)
			cp.RequestBody = e.red.String(cp.RequestBody)
			cp.ResponseBody = e.red.String(cp.ResponseBody)
			cp.Reproduce = e.red.String(x.Curl())
			cp.RequestHeader = redactHeader(e.red, cp.RequestHeader)
			cp.ResponseHeader = redactHeader(e.red, cp.ResponseHeader)
			f.Exchange, f.Reproduce = &cp, cp.Reproduce
		}
	}
	return f
}

func redactHeader(red *client.Redactor, h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		for _, v := range vs {
			out[k] = append(out[k], red.String(v))
		}
	}
	return out
}

// --- state ------------------------------------------------------------------

// snapshot is what the caller can read of the state a request could
// change: the targeted message, the room's newest page, the caller's unread
// items of the room, and, for a room that may be hidden, the caller's rooms
// list.
type snapshot struct {
	reads []stateRead
	// sent is when its first read was sent, read when its last answer had
	// been read (client.Response): settle waits on these, so that a
	// replay of the checks reads as often as the run did.
	sent, read time.Time
}

type stateRead struct {
	what, value string
	// others says whether other writers account for a change of value
	// (see stateReq.others).
	others accountFor
	// broken says the answer broke the document (another shape, a body
	// that broke off): it shows no state, and a change to or from it is
	// no change (the document checker reports the breach).
	broken bool
}

// newestPage is the page size of the state reads: what a send would
// change first.
const newestPage = "5"

func (e *Engine) snapshotKey(cs *testCase) (room, message string, rooms bool, key string) {
	room = cs.room
	if room == "" {
		room = e.world.WriteRoom
	}
	if room == "" {
		if rs := e.world.ownRooms(); len(rs) > 0 {
			room = rs[0]
		}
	}
	return room, cs.message, cs.hideRoom, room + "|" + cs.message + "|" + fmt.Sprint(cs.hideRoom)
}

// The names of the state reads that show a new message (see showsMessage).
const (
	unreadRead = "the caller's unread items of the room"
	pageRead   = "the room's newest page"
)

// stateReq is one read of the state a case could change.
type stateReq struct {
	what    string
	r       client.Request
	project func([]byte) string
	// others says whether the writes of other checks account for a
	// change of the projected value (see explained).
	others accountFor
}

// stateReads lists the reads of the state a case could change, in the
// order of a snapshot's reads, and the snapshot's cache key.
func (e *Engine) stateReads(cs *testCase) (key string, reads []stateReq) {
	room, message, rooms, key := e.snapshotKey(cs)
	me := e.world.caller()
	roomPath := "/v1/rooms/" + url.PathEscape(room)
	reads = []stateReq{{unreadRead, client.Request{Method: "GET", Path: "/v1/user/" + url.PathEscape(me.ID) + "/rooms/" + url.PathEscape(room) + "/unreadItems"}, projectUnread, unreadAccounted}}
	if message != "" {
		reads = append(reads, stateReq{"the targeted message", client.Request{Method: "GET", Path: roomPath + "/chatMessages/" + url.PathEscape(message)}, projectMessage, messageAccounted})
	}
	reads = append(reads, stateReq{pageRead, client.Request{Method: "GET", Path: roomPath + "/chatMessages", Query: url.Values{"limit": {newestPage}}}, projectPage, pageAccounted})
	if rooms {
		reads = append(reads, stateReq{"the caller's rooms list", client.Request{Method: "GET", Path: "/v1/user/" + url.PathEscape(me.ID) + "/rooms"}, projectRooms, roomsAccounted})
	}
	return key, reads
}

// readValue is the answer to one state read, as a snapshot keeps it.
type readValue struct {
	value      string // "" when the read got no answer
	sent, read time.Time
	broken     bool // a success that breaks the document (see stateRead)
}

// readOne sends one state read and keeps what the snapshot compares.
func (e *Engine) readOne(ctx context.Context, q stateReq) (readValue, error) {
	resp, err := e.read(ctx, q.r)
	if err != nil {
		return readValue{}, err
	}
	v := readValue{value: fmt.Sprint(resp.Status), sent: resp.Sent, read: resp.Read}
	if resp.Status == 200 {
		v.value += " " + q.project(resp.Body)
		v.broken = resp.BrokenOff || !json.Valid(resp.Body) || otherKind(resp)
	}
	return v, nil
}

// otherKind reports whether an answer's body is not what the read returns
// at all: the body, or an item of its list, of another type, or an item
// without an id. A breach of one field leaves the state readable.
func otherKind(resp *client.Response) bool {
	for _, v := range responseViolations(resp) {
		loc := arrayItem.ReplaceAllString(v.Location, "[]")
		if (loc == "$" || loc == "$[]") && v.Rule == "type" || (loc == "$.id" || loc == "$[].id") && v.Rule == "required" {
			return true
		}
	}
	return false
}

var arrayItem = regexp.MustCompile(`\[\d+\]`)

// snapshotOf puts the answers to a snapshot's reads together, up to the
// first read without an answer.
func snapshotOf(reads []stateReq, values []readValue) snapshot {
	s := snapshot{}
	for i, r := range reads {
		if values[i].value == "" {
			break
		}
		s.reads = append(s.reads, stateRead{r.what, values[i].value, r.others, values[i].broken})
		if s.sent.IsZero() || values[i].sent.Before(s.sent) {
			s.sent = values[i].sent
		}
		if values[i].read.After(s.read) {
			s.read = values[i].read
		}
	}
	return s
}

// state reads the state a case could change, from the cache when nothing
// could have changed it since it was read.
func (e *Engine) state(ctx context.Context, cs *testCase, fresh bool) (snapshot, error) {
	key, reads := e.stateReads(cs)
	e.snapMu.Lock()
	s, ok := e.snaps[key]
	e.snapMu.Unlock()
	if ok && !fresh {
		return s, nil
	}
	// The reads only read, and nothing of the engine writes until they
	// are all answered, so they may be in flight together: the state is
	// the same one whichever answers first. In turn when Parallel is 1.
	values := make([]readValue, len(reads))
	err := e.inTurnsOf(ctx, len(reads), func(i int) error {
		v, err := e.readOne(ctx, reads[i])
		values[i] = v
		return err
	})
	s = snapshotOf(reads, values)
	if err != nil {
		return s, err
	}
	e.snapMu.Lock()
	e.snaps[key] = s
	e.snapMu.Unlock()
	return s, nil
}

// quiet opens a quiet window (Config.Quiet) and returns its end; without
// Config.Quiet it does nothing.
func (e *Engine) quiet(ctx context.Context) func() {
	if e.cfg.Quiet == nil {
		return func() {}
	}
	_, release := e.cfg.Quiet(ctx)
	return release
}

// fresh says whether the state before a case must be read again rather
// than taken from the cache: always beside other writers (Config.Quiet:
// they may have written since the last window), and in turn when the
// case's state is outside the write room.
func (e *Engine) fresh(cs *testCase) bool {
	return e.cfg.Quiet != nil || !e.writtenTo(cs)
}

// forget drops every cached state read: something may have changed.
func (e *Engine) forget() {
	e.snapMu.Lock()
	clear(e.snaps)
	e.snapMu.Unlock()
}

// changed says which read differs ("" when none). A read whose answer
// broke the document, before or after, shows no state to compare: an
// answer of the wrong shape one time in a few is the read's breach, not
// a change the request made.
func changed(before, after snapshot) string {
	for i, r := range before.reads {
		if i < len(after.reads) && (r.broken || after.reads[i].broken) {
			continue
		}
		if i >= len(after.reads) || after.reads[i].value != r.value {
			return r.what
		}
	}
	return ""
}

type msgState struct {
	ID       string  `json:"id"`
	Text     string  `json:"text"`
	V        any     `json:"v"`
	EditedAt *string `json:"editedAt"`
	Unread   any     `json:"unread"`
	ReadBy   any     `json:"readBy"`
	Status   any     `json:"status"`
}

func projectMessage(b []byte) string {
	var m msgState
	if json.Unmarshal(b, &m) != nil {
		return string(b)
	}
	out, _ := json.Marshal(m)
	return string(out)
}

func projectPage(b []byte) string {
	var ms []msgState
	if json.Unmarshal(b, &ms) != nil {
		return string(b)
	}
	slices.SortFunc(ms, func(a, b msgState) int { return strings.Compare(a.ID, b.ID) })
	out, _ := json.Marshal(ms)
	return string(out)
}

func projectUnread(b []byte) string {
	var u struct {
		Chat    []string `json:"chat"`
		Mention []string `json:"mention"`
	}
	if json.Unmarshal(b, &u) != nil {
		return string(b)
	}
	// The state is which messages are unread: an answer that names one
	// twice, or gives null for none, shows the same state (null breaks
	// the document, and a repeated id is held to the room's counts,
	// elsewhere).
	u.Chat = slices.Compact(slices.Sorted(slices.Values(u.Chat)))
	u.Mention = slices.Compact(slices.Sorted(slices.Values(u.Mention)))
	if u.Chat == nil {
		u.Chat = []string{}
	}
	if u.Mention == nil {
		u.Mention = []string{}
	}
	out, _ := json.Marshal(u)
	return string(out)
}

func projectRooms(b []byte) string {
	var rs []struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(b, &rs) != nil {
		return string(b)
	}
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	slices.Sort(ids)
	return strings.Join(ids, ",")
}

// judgeRefused checks GEN-REFUSED-NO-CHANGE: state read before, the case
// sent, and when it was refused, state read again and compared. A change
// fails the property only when the refused request makes it again from a
// settled state (see caused).
func (e *Engine) judgeRefused(ctx context.Context, cs *testCase) (*Failure, error) {
	before, err := e.state(ctx, cs, e.fresh(cs))
	if err != nil {
		return nil, err
	}
	resp, err := e.exchange(ctx, cs)
	if err != nil {
		return nil, err
	}
	if resp.Status/100 != 4 {
		e.forget()
		return nil, nil
	}
	after, err := e.state(ctx, cs, true)
	if err != nil {
		return nil, err
	}
	return e.confirm(ctx, RefusedNoChange, cs, resp, before, after, true)
}

// judgeGet checks GEN-GET-NO-CHANGE: a valid GET between two state reads.
// A change fails the property only when the GET makes it again from a
// settled state (see caused): the caller's unread items also move by
// themselves (another user's message arriving, a mark-read of an earlier
// check landing late on an eventually consistent server).
func (e *Engine) judgeGet(ctx context.Context, cs *testCase) (*Failure, error) {
	before, err := e.state(ctx, cs, e.fresh(cs))
	if err != nil {
		return nil, err
	}
	resp, err := e.exchange(ctx, cs)
	if err != nil {
		return nil, err
	}
	after, err := e.state(ctx, cs, true)
	if err != nil {
		return nil, err
	}
	return e.confirm(ctx, GetNoChange, cs, resp, before, after, true)
}

// confirm judges, for GEN-REFUSED-NO-CHANGE or GEN-GET-NO-CHANGE, the
// state read before and after a case's request (resp is its answer). No
// change holds. A change is put to flickers, then to blame, and fails the
// property only when blame puts it on the request. alone says that no
// other request of the run was sent between the two reads: only then may
// a change outside the write room be put on the request without a second
// try (see blame). confirm must run with nothing else of the run in
// flight: flickers and blame read the state again, and blame may send the
// request again.
func (e *Engine) confirm(ctx context.Context, property string, cs *testCase, resp *client.Response, before, after snapshot, alone bool) (*Failure, error) {
	what := changed(before, after)
	if what == "" {
		return nil, nil
	}
	e.forget()
	if back, err := e.flickers(ctx, cs, before); err != nil || back {
		return nil, err
	}
	var applies func(*client.Response) bool
	if property == RefusedNoChange {
		applies = func(r *client.Response) bool { return r.Status/100 == 4 }
	}
	again, err := e.blame(ctx, cs, applies, alone)
	if err != nil || again == "" {
		return nil, err
	}
	problem := fmt.Sprintf("answered %d, and %s changed: %s; %s", resp.Status, what, showChange(before, after, what), again)
	if property == RefusedNoChange {
		problem = fmt.Sprintf("refused with %d, yet %s changed: %s; %s", resp.Status, what, showChange(before, after, what), again)
	}
	return e.failure(property, cs, resp, problem, "changed "+what), nil
}

// flickers reads the state of a case twice more after a change was seen
// across a request: when a read agrees with before again, the reads
// disagree among themselves with nothing sent (an answer that is wrong one
// time in a few), which is the read's fault and no change of the
// request's. A state the request changed stays changed.
func (e *Engine) flickers(ctx context.Context, cs *testCase, before snapshot) (bool, error) {
	for range 2 {
		again, err := e.state(ctx, cs, true)
		if err != nil {
			return false, err
		}
		if changed(before, again) == "" {
			return true, nil
		}
	}
	e.forget()
	return false, nil
}

// settlePoll is the pause between two state reads while waiting for the
// state to settle.
const settlePoll = 200 * time.Millisecond

// settle reads the state of a case until two reads in a row agree, for at
// most Config.Settle; ok is false when it kept moving. shown, when not
// nil, says whether a read shows a write the engine has just made (whose
// answer was read at written): until it does, or until Config.Settle
// after the write, two reads that agree are not yet settled, for an
// eventually consistent server may show the write between them and the
// next read; settle then gives up 2×Config.Settle after the write.
func (e *Engine) settle(ctx context.Context, cs *testCase, shown func(snapshot) bool, written time.Time) (s snapshot, ok bool, err error) {
	prev, err := e.state(ctx, cs, true)
	if err != nil {
		return prev, false, err
	}
	deadline := prev.sent.Add(e.cfg.Settle)
	waited := func(cur snapshot) bool {
		return shown == nil || shown(cur) || cur.sent.After(written.Add(e.cfg.Settle))
	}
	if shown != nil {
		deadline = written.Add(2 * e.cfg.Settle)
	}
	for {
		if !e.cfg.Client.Replaying() { // a replay's record holds what the run read after its waits
			if err := sleep(ctx, settlePoll); err != nil {
				return prev, false, err
			}
		}
		cur, err := e.state(ctx, cs, true)
		if err != nil {
			return cur, false, err
		}
		if changed(prev, cur) == "" && waited(prev) {
			return cur, true, nil
		}
		if cur.read.After(deadline) {
			return cur, false, nil
		}
		prev = cur
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// writtenTo reports whether the state a case reads is in the write room,
// where the run writes: other checks' messages, their late mark-reads on
// an eventually consistent server, another user's messages. Nothing of the
// run writes to the other rooms.
func (e *Engine) writtenTo(cs *testCase) bool {
	room, _, _, _ := e.snapshotKey(cs)
	return room == e.world.WriteRoom
}

// blame tells a change a request made from one that happened around it.
// Outside the write room, when the request was alone between the two reads
// (in turn, or in a round of its own: see judgeRounds), the state was read
// right before and right after it and nothing else of the run writes
// there, so the change is the request's. Otherwise (in the write room, or
// when other requests were in flight between the reads) it is blamed on
// the request only when, from a settled state, the same request changes it
// again (see caused). It returns "" when the change is not the request's,
// else why it is, in words.
func (e *Engine) blame(ctx context.Context, cs *testCase, applies func(*client.Response) bool, alone bool) (string, error) {
	if alone && !e.writtenTo(cs) {
		return "read right before and right after the request, in a room nothing else of the run writes to", nil
	}
	return e.caused(ctx, cs, applies)
}

// caused puts a change seen across a request to a second try: from a
// settled state, the request must change it again to be blamed. Before the
// second try the caller is given an unread message (another user posts one
// in the write room, when writes are on and a second user is described),
// so that a request that marks messages read has something to mark even
// when the first try (or a late mark-read of another check) left nothing
// unread. applies, when not nil, says whether the second answer is one the
// property judges (a refusal for GEN-REFUSED-NO-CHANGE). It returns ""
// when the change is not the request's, else what the second try read, in
// words.
func (e *Engine) caused(ctx context.Context, cs *testCase, applies func(*client.Response) bool) (string, error) {
	room, _, _, _ := e.snapshotKey(cs)
	var shown func(snapshot) bool
	var written time.Time
	if e.cfg.Writes && room == e.world.WriteRoom && len(e.world.Users) > 1 {
		resp, err := e.send(ctx, client.Request{Method: "POST", Path: "/v1/rooms/" + url.PathEscape(room) + "/chatMessages",
			Token: e.world.Users[1].Token, Body: map[string]any{"text": "generated requests: an unread message for the caller, to tell a change a request made from one around it"}})
		if err != nil {
			return "", err
		} else if resp.Status/100 != 2 {
			return "", nil // the state cannot be set up for a second try: not blamed
		}
		// The message stays out of the world, so that the requests
		// generated after are those the seed makes without it. The
		// state is settled only once the caller's reads show it (or
		// Config.Settle has passed): a server that shows it late would
		// otherwise change the state across the second try by itself.
		var m struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(resp.Body, &m) == nil && m.ID != "" {
			shown, written = showsMessage(m.ID), resp.Read
		}
	}
	before, ok, err := e.settle(ctx, cs, shown, written)
	if err != nil || !ok {
		return "", err // moving by itself: the change cannot be blamed on the request
	}
	resp, err := e.exchange(ctx, cs)
	if err != nil {
		return "", err
	}
	if applies != nil && !applies(resp) {
		e.forget()
		return "", nil
	}
	after, err := e.state(ctx, cs, true)
	if err != nil {
		return "", err
	}
	e.forget()
	what := changed(before, after)
	if what == "" {
		return "", nil
	}
	if e.cfg.Quiet != nil && e.explained(ctx, before, after) {
		// Beside other checks: a write of theirs answered before the
		// quiet window may show only now on an eventually consistent
		// server, and accounts for the change (see beside.go).
		return "", nil
	}
	if back, err := e.flickers(ctx, cs, before); err != nil || back {
		return "", err
	}
	return fmt.Sprintf("sent again from a settled state, it changed %s again: %s", what, showChange(before, after, what)), nil
}

// showsMessage says whether every read of a snapshot that would show a
// new message of another user in the room shows message id: the caller's
// unread items and the room's newest page.
func showsMessage(id string) func(snapshot) bool {
	quoted, _ := json.Marshal(id)
	return func(s snapshot) bool {
		for _, r := range s.reads {
			if (r.what == unreadRead || r.what == pageRead) && !r.broken && !strings.Contains(r.value, string(quoted)) {
				return false
			}
		}
		return true
	}
}

// showChange shows what a read gave before and after, cut around the first
// difference to at most maxShown bytes each.
func showChange(before, after snapshot, what string) string {
	value := func(s snapshot) string {
		for _, r := range s.reads {
			if r.what == what {
				return r.value
			}
		}
		return "(not read)"
	}
	b, a := value(before), value(after)
	i := firstDiff(b, a)
	return fmt.Sprintf("before %s, after %s", cutAround(b, i), cutAround(a, i))
}

// maxShown bounds each value a "changed" failure shows.
const maxShown = 240

// cutAround keeps at most maxShown bytes of s around byte i, marking what
// was cut, on rune boundaries.
func cutAround(s string, i int) string {
	if len(s) <= maxShown {
		return s
	}
	start := max(0, min(i-maxShown/4, len(s)-maxShown))
	end := start + maxShown
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	out := s[start:end]
	if start > 0 {
		out = fmt.Sprintf("…(%d bytes) ", start) + out
	}
	if end < len(s) {
		out += fmt.Sprintf(" …(%d more bytes)", len(s)-end)
	}
	return out
}

// judgeRoundTrip checks GEN-ROUND-TRIP: a text accepted by a send or an
// edit reads back by id exactly.
func (e *Engine) judgeRoundTrip(ctx context.Context, cs *testCase) (*Failure, error) {
	resp, err := e.exchange(ctx, cs)
	if err != nil {
		return nil, err
	}
	e.forget()
	if resp.Status/100 != 2 || !cs.sendsText {
		return nil, nil // refusals are GEN-VALID-ANSWER's to judge
	}
	if unusableBody(resp) {
		f := e.failure(RoundTrip, cs, resp, fmt.Sprintf("answered %d with a body that broke off or is not JSON: not judged", resp.Status), "unusable")
		f.Unusable = "HTTP-JSON-BODY"
		return f, nil
	}
	id := cs.message
	if id == "" {
		var m struct {
			ID string `json:"id"`
		}
		if resp.JSON(&m) != nil || m.ID == "" {
			return e.failure(RoundTrip, cs, resp, fmt.Sprintf("answered %d without the new message's id", resp.Status), "no id"), nil
		}
		id = m.ID
	}
	var answered struct {
		Text string `json:"text"`
	}
	_ = resp.JSON(&answered)
	wrote := &Written{Room: cs.room, ID: id, Edit: cs.message != "", Text: cs.text, Answered: answered.Text}
	wrote.Earlier = e.wroteText(id, cs.text)
	fail := func(problem, key string) (*Failure, error) {
		f := e.failure(RoundTrip, cs, resp, problem, key)
		f.Wrote = wrote
		return f, nil
	}
	back, err := e.read(ctx, client.Request{Method: "GET", Path: "/v1/rooms/" + url.PathEscape(cs.room) + "/chatMessages/" + url.PathEscape(id)})
	if err != nil {
		return nil, err
	}
	if back.Status != 200 {
		return fail(fmt.Sprintf("answered %d, and the message answers %d when read back by id", resp.Status, back.Status), "read back status")
	}
	if unusableBody(back) {
		f := e.failure(RoundTrip, cs, back, "the message read back by id answered 200 with a body that broke off or is not JSON: not judged", "unusable")
		f.Unusable, f.Wrote = "HTTP-JSON-BODY", wrote
		return f, nil
	}
	var m struct {
		Text *string `json:"text"`
	}
	if back.JSON(&m) != nil || m.Text == nil {
		return fail("the message read back by id has no text", "no text")
	}
	if *m.Text != cs.text {
		return fail(fmt.Sprintf("the text read back by id differs from the text sent: %s, sent %s (first difference at byte %d)",
			describeText(*m.Text), describeText(cs.text), firstDiff(*m.Text, cs.text)), "text differs")
	}
	return nil, nil
}

// unusableBody says a success's body broke off before its declared length
// or is not one JSON document: HTTP-JSON-BODY's breach, which leaves
// nothing to read in it.
func unusableBody(resp *client.Response) bool {
	body := bytes.TrimSpace(resp.Body)
	return resp.Status/100 == 2 && (resp.BrokenOff || len(body) > 0 && !json.Valid(body))
}

func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
