package generate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// judge sends a case and checks one property on it. It returns a failure,
// or an error when the target gave nothing to judge.
func (e *Engine) judge(ctx context.Context, p Property, cs *testCase) (*Failure, error) {
	switch p.ID {
	case RefusedNoChange:
		return e.judgeRefused(ctx, cs)
	case GetNoChange:
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
	return e.failure(p.ID, cs, resp, problem, key), nil
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
	if resp, ok := e.shared[cs.shareKey]; ok && cs.shareKey != "" {
		return resp, nil
	}
	resp, err := e.send(ctx, cs.request())
	if err != nil {
		return nil, err
	}
	if cs.shareKey != "" {
		e.shared[cs.shareKey] = resp
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
	f := &Failure{Property: property, Operation: cs.op.ID, Request: e.red.String(cs.describe()), Problem: e.red.String(problem), Seed: e.cfg.Seed}
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
}

type stateRead struct {
	what, value string
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

// state reads the state a case could change, from the cache when nothing
// could have changed it since it was read.
func (e *Engine) state(ctx context.Context, cs *testCase, fresh bool) (snapshot, error) {
	room, message, rooms, key := e.snapshotKey(cs)
	if s, ok := e.snaps[key]; ok && !fresh {
		return s, nil
	}
	me := e.world.caller()
	var s snapshot
	read := func(what string, r client.Request, project func([]byte) string) error {
		r.Token = me.Token
		resp, err := e.send(ctx, r)
		if err != nil {
			return err
		}
		v := fmt.Sprint(resp.Status)
		if resp.Status == 200 {
			v += " " + project(resp.Body)
		}
		s.reads = append(s.reads, stateRead{what, v})
		return nil
	}
	roomPath := "/v1/rooms/" + url.PathEscape(room)
	if err := read("the caller's unread items of the room", client.Request{Method: "GET", Path: "/v1/user/" + url.PathEscape(me.ID) + "/rooms/" + url.PathEscape(room) + "/unreadItems"}, projectUnread); err != nil {
		return s, err
	}
	if message != "" {
		if err := read("the targeted message", client.Request{Method: "GET", Path: roomPath + "/chatMessages/" + url.PathEscape(message)}, projectMessage); err != nil {
			return s, err
		}
	}
	if err := read("the room's newest page", client.Request{Method: "GET", Path: roomPath + "/chatMessages", Query: url.Values{"limit": {newestPage}}}, projectPage); err != nil {
		return s, err
	}
	if rooms {
		if err := read("the caller's rooms list", client.Request{Method: "GET", Path: "/v1/user/" + url.PathEscape(me.ID) + "/rooms"}, projectRooms); err != nil {
			return s, err
		}
	}
	e.snaps[key] = s
	return s, nil
}

// forget drops every cached state read: something may have changed.
func (e *Engine) forget() { clear(e.snaps) }

// changed says which read differs ("" when none).
func changed(before, after snapshot) string {
	for i, r := range before.reads {
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
	slices.Sort(u.Chat)
	slices.Sort(u.Mention)
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
// sent, and when it was refused, state read again and compared.
func (e *Engine) judgeRefused(ctx context.Context, cs *testCase) (*Failure, error) {
	before, err := e.state(ctx, cs, false)
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
	if what := changed(before, after); what != "" {
		e.forget()
		return e.failure(RefusedNoChange, cs, resp, fmt.Sprintf("refused with %d, yet %s changed", resp.Status, what), "changed "+what), nil
	}
	return nil, nil
}

// judgeGet checks GEN-GET-NO-CHANGE: a valid GET between two state reads.
func (e *Engine) judgeGet(ctx context.Context, cs *testCase) (*Failure, error) {
	before, err := e.state(ctx, cs, false)
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
	if what := changed(before, after); what != "" {
		e.forget()
		return e.failure(GetNoChange, cs, resp, fmt.Sprintf("answered %d, and %s changed", resp.Status, what), "changed "+what), nil
	}
	return nil, nil
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
	back, err := e.send(ctx, client.Request{Method: "GET", Path: "/v1/rooms/" + url.PathEscape(cs.room) + "/chatMessages/" + url.PathEscape(id), Token: e.world.caller().Token})
	if err != nil {
		return nil, err
	}
	if back.Status != 200 {
		return e.failure(RoundTrip, cs, resp, fmt.Sprintf("answered %d, and the message answers %d when read back by id", resp.Status, back.Status), "read back status"), nil
	}
	var m struct {
		Text *string `json:"text"`
	}
	if back.JSON(&m) != nil || m.Text == nil {
		return e.failure(RoundTrip, cs, resp, "the message read back by id has no text", "no text"), nil
	}
	if *m.Text != cs.text {
		return e.failure(RoundTrip, cs, resp, fmt.Sprintf("the text read back by id differs from the text sent: %s, sent %s (first difference at byte %d)",
			describeText(*m.Text), describeText(cs.text), firstDiff(*m.Text, cs.text)), "text differs"), nil
	}
	return nil, nil
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
