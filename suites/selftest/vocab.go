package selftest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
)

// The vocabulary faults and variants are written in: a handful of steps
// that rewrite requests and replies of named operations. Each fault is a
// few of these, so the whole catalogue reads as data.

// opGroups names sets of operations by what their replies hold.
var opGroups = map[string][]string{
	// replies that hold messages (an array of them, or one)
	"msgs": {"listMessages", "getMessage", "sendMessage", "updateMessage"},
	// replies that hold rooms, directly or embedded in an entry
	"rooms": {"listUserRooms", "listUserChannels", "listUserOrgs", "listUserRepos"},
	// every operation of the API
	"all": {"getCurrentUser", "listUserRooms", "hideUserRoom", "getUnreadItems", "markUnreadItemsRead", "listUserOrgs",
		"listUserRepos", "listUserChannels", "listMessages", "getMessage", "sendMessage", "updateMessage"},
}

// matches reports whether op is one of ops: operation ids and group names,
// separated by spaces.
func matches(ops, op string) bool {
	for _, o := range strings.Fields(ops) {
		if o == op || slices.Contains(opGroups[o], op) {
			return true
		}
	}
	return false
}

// onRequest rewrites the request of ops before it goes in.
func onRequest(ops string, f func(c *call)) step {
	return func(c *call, next func() *reply) *reply {
		if matches(ops, c.op) {
			f(c)
		}
		return next()
	}
}

// onReply rewrites every reply of ops, successful or not.
func onReply(ops string, f func(c *call, x *reply)) step {
	return func(c *call, next func() *reply) *reply {
		if !matches(ops, c.op) {
			return next()
		}
		x := next()
		f(c, x)
		return x
	}
}

// onSuccess rewrites the successful replies of ops.
func onSuccess(ops string, f func(c *call, x *reply)) step {
	return onReply(ops, func(c *call, x *reply) {
		if x.ok() {
			f(c, x)
		}
	})
}

// answer replaces the handling of ops: f sees the call and may use next or
// c.do, or answer on its own.
func answer(ops string, f func(c *call, next func() *reply) *reply) step {
	return func(c *call, next func() *reply) *reply {
		if matches(ops, c.op) {
			return f(c, next)
		}
		return next()
	}
}

// messages applies f to every message of the successful replies of ops.
func messages(ops string, f func(c *call, m map[string]any)) step {
	return onSuccess(ops, func(c *call, x *reply) { each(x.get(), func(m map[string]any) { f(c, m) }) })
}

// rooms applies f to every room of the successful replies of ops: the
// rooms of a rooms or channels list and those embedded in entries.
func rooms(ops string, f func(c *call, r map[string]any)) step {
	return onSuccess(ops, func(c *call, x *reply) { eachRoom(c, x, func(r map[string]any) { f(c, r) }) })
}

// eachRoom applies f to every room of a successful reply of a rooms-bearing
// operation: the rooms of a list and those embedded in entries.
func eachRoom(c *call, x *reply, f func(r map[string]any)) {
	switch c.op {
	case "listUserOrgs", "listUserRepos":
		each(x.get(), func(e map[string]any) {
			if r, ok := e["room"].(map[string]any); ok {
				f(r)
			}
		})
	default:
		each(x.get(), f)
	}
}

// everyNth applies s to one request of ops in n (the n-th, 2n-th, ...), and
// lets the others through untouched: an intermittent defect.
func everyNth(n int, ops string, s step) step {
	return func(c *call, next func() *reply) *reply {
		if matches(ops, c.op) && c.st.tick(ops)%n == 0 {
			return s(c, next)
		}
		return next()
	}
}

// refuse answers with an error status and a JSON body like the inner
// server's own errors.
func refuse(status int, detail string) *reply {
	x := &reply{status: status, header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}}
	x.set(map[string]any{"error": http.StatusText(status) + ": " + detail})
	return x
}

// succeed answers {"success":true}, as the reference does for writes
// without a documented answer.
func succeed() *reply {
	x := &reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}}
	x.set(map[string]any{"success": true})
	return x
}

// state is what one decorated server remembers: the world it serves and
// the ids and counters its steps keep. Each run has its own.
type state struct {
	world  *fixtures.World
	first  fixtures.User            // the user with the lowest id
	users  map[string]fixtures.User // by token
	byID   map[string]fixtures.User
	readBy map[string]int // readBy of each message of the history

	mu    sync.Mutex
	sets  map[string]map[string]int
	ticks map[string]int
	times map[string]time.Time
	vals  map[string]any

	renderOnce sync.Once
	renderer   *reference.Renderer
}

func newState(w *fixtures.World) *state {
	st := &state{world: w, users: map[string]fixtures.User{}, byID: map[string]fixtures.User{}, readBy: map[string]int{},
		sets: map[string]map[string]int{}, ticks: map[string]int{}, times: map[string]time.Time{}, vals: map[string]any{}}
	for i, u := range w.Users {
		if i == 0 || u.ID < st.first.ID {
			st.first = u
		}
		st.users[u.Token], st.byID[u.ID] = u, u
	}
	for _, r := range w.Rooms {
		for _, m := range r.Messages {
			st.readBy[m.ID] = len(m.ReadBy)
		}
	}
	return st
}

// add adds d to the counter of key in set and returns the new value.
func (st *state) add(set, key string, d int) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sets[set] == nil {
		st.sets[set] = map[string]int{}
	}
	st.sets[set][key] += d
	return st.sets[set][key]
}

// get returns the counter of key in set.
func (st *state) get(set, key string) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sets[set][key]
}

// keys returns the keys of set.
func (st *state) keys(set string) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []string
	for k := range st.sets[set] {
		out = append(out, k)
	}
	return out
}

// stamp records when key happened; when returns it (zero if never).
func (st *state) stamp(key string, t time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.times[key] = t
}

func (st *state) when(key string) time.Time {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.times[key]
}

// setValue remembers a value under key; value returns it.
func (st *state) setValue(key string, v any) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.vals[key] = v
}

func (st *state) value(key string) (any, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	v, ok := st.vals[key]
	return v, ok
}

// tick counts the requests of a kind and returns the count.
func (st *state) tick(kind string) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ticks[kind]++
	return st.ticks[kind]
}

// caller returns the world's user that owns the request's token.
func (c *call) caller() (fixtures.User, bool) {
	t := token(c.r)
	u, ok := c.st.users[t]
	return u, ok
}

// token returns the token a request carries, in any of the accepted places.
func token(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		_, t, _ := strings.Cut(h, " ")
		return strings.TrimSpace(t)
	}
	if t := r.URL.Query().Get("access_token"); t != "" {
		return t
	}
	return r.Header.Get("X-Access-Token")
}

// setToken makes the request carry t as its only credential.
func setToken(r *http.Request, t string) {
	q := r.URL.Query()
	q.Del("access_token")
	r.URL.RawQuery = q.Encode()
	r.Header.Del("X-Access-Token")
	r.Header.Set("Authorization", "Bearer "+t)
}

// --- JSON and list helpers -----------------------------------------------------

// each applies f to the object, or to every object of an array, in v.
func each(v any, f func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(t)
	case []any:
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				f(m)
			}
		}
	}
}

// filter keeps the objects of an array for which keep is true.
func filter(v any, keep func(map[string]any) bool) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := []any{}
	for _, e := range list {
		if m, ok := e.(map[string]any); !ok || keep(m) {
			out = append(out, e)
		}
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func asInt(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// ids returns the id of every object of a list.
func ids(v any) []string {
	var out []string
	each(v, func(m map[string]any) { out = append(out, asString(m["id"])) })
	return out
}

// rendered sets a message's text and everything derived from it (html,
// urls, mentions, issues) as the reference renders them.
func (st *state) rendered(m map[string]any, text string) {
	st.renderOnce.Do(func() { st.renderer = reference.NewRenderer() })
	r := st.renderer.Render(text)
	m["text"], m["html"] = text, r.HTML
	urls, mentions, issues := []any{}, []any{}, []any{}
	for _, u := range r.URLs {
		urls = append(urls, map[string]any{"url": u})
	}
	for _, name := range r.Mentions {
		for _, u := range st.world.Users {
			if strings.EqualFold(u.Username, name) {
				mentions = append(mentions, map[string]any{"screenName": u.Username, "userId": u.ID})
			}
		}
	}
	for _, n := range r.Issues {
		issues = append(issues, map[string]any{"number": n})
	}
	m["urls"], m["mentions"], m["issues"] = urls, mentions, issues
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// strs returns the strings of a JSON array (a list of ids, say).
func strs(v any) []string {
	var out []string
	for _, e := range asList(v) {
		out = append(out, asString(e))
	}
	return out
}

// sortedKeys returns the keys of a set in order, so answers do not depend
// on map order.
func sortedKeys(c *call, set string) []string {
	k := c.st.keys(set)
	sort.Strings(k)
	return k
}

// filterIDs keeps the id strings of a list for which keep is true.
func filterIDs(v any, keep func(id string) bool) []any {
	out := []any{}
	for _, id := range asList(v) {
		if keep(asString(id)) {
			out = append(out, id)
		}
	}
	return out
}

// isASCII reports whether s holds ASCII characters only.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// encode writes v as JSON, with no HTML escaping and no final newline.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// containsAny reports whether the JSON array l holds v.
func containsAny(l []any, v any) bool {
	for _, e := range l {
		if e == v {
			return true
		}
	}
	return false
}
