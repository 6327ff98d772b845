package selftest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chatrooms/conformance/suites/target"
)

// Variant is a conforming alternative: the reference server decorated to
// make another choice where the API document is silent. The core profile
// must pass every variant.
type Variant struct {
	Name, What string
	steps      []step
	// describe adjusts the target description (ids the variant shows
	// differently, say).
	describe func(d *target.Description)
	// http1 turns HTTP/2 off on the listener.
	http1 bool
}

// Variants returns every variant, sorted by name.
func Variants() []Variant {
	vs := []Variant{
		{Name: "newest-first", What: "lists messages newest first",
			steps: []step{onSuccess("listMessages", func(c *call, x *reply) { slices.Reverse(asList(x.get())) })}},
		{Name: "default-limit-20", What: "returns 20 messages when no limit is given", steps: []step{defaultLimit(20)}},
		{Name: "default-limit-10", What: "returns 10 messages when no limit is given", steps: []step{defaultLimit(10)}},
		{Name: "errors-422", What: `answers 422 instead of 400, and every error as {"message": ...}`,
			steps: []step{errors422()}},
		{Name: "empty-object-bodies", What: "answers {} to hiding a room and marking messages read",
			steps: []step{onSuccess("hideUserRoom markUnreadItemsRead", func(c *call, x *reply) { x.set(map[string]any{}) })}},
		{Name: "no-content", What: "answers 204 without a body to hiding a room and marking messages read",
			steps: []step{onSuccess("hideUserRoom markUnreadItemsRead", func(c *call, x *reply) {
				x.status = http.StatusNoContent
				x.setRaw(nil)
			})}},
		{Name: "prefixed-ids", What: "uses ids of the form id-<hex> instead of bare hex",
			steps: []step{prefixIDs()}, describe: prefixDescription},
		{Name: "limit-over-100-rejected", What: "refuses a limit above 100 with 400 instead of clamping it",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("limit"); ok && n > 100 {
					return refuse(http.StatusBadRequest, "limit above 100")
				}
				return next()
			})}},
		{Name: "search-newest-first", What: "returns search results newest first",
			steps: []step{onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					slices.Reverse(asList(x.get()))
				}
			})}},
		{Name: "eventual", What: "makes new messages visible to search and unread state one second late", steps: lagging(time.Second)},
		{Name: "minimal-rooms", What: "sends rooms with only the fields the document requires of them",
			steps: []step{rooms("rooms", func(c *call, room map[string]any) {
				for _, k := range []string{"topic", "lurk", "v", "unreadItems", "mentions", "lastAccessTime", "name", "url"} {
					delete(room, k)
				}
				if room["platformType"] != "USER_CHANNEL" {
					delete(room, "security")
				}
				if room["oneToOne"] != true {
					delete(room, "uri")
				}
			})}},
		{Name: "status-omitted", What: "leaves status out of messages that are not status updates",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				if m["status"] == false {
					delete(m, "status")
				}
			})}},
		{Name: "users-with-v", What: "sends v on every user",
			steps: []step{messages("getCurrentUser", func(c *call, u map[string]any) { u["v"] = 1 })}},
	}
	vs = append(vs, moreVariants()...)
	vs = append(vs, assumptionVariants()...)
	vs = append(vs, blindVariants()...)
	vs = append(vs, blind2Variants()...)
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	return vs
}

func (v Variant) handler(inner http.Handler, st *state) http.Handler {
	return decorate(inner, st, v.steps)
}

// defaultLimit gives listMessages a default page size of n.
func defaultLimit(n int) step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		if l := q.Get("limit"); l == "" || l == "0" {
			q.Set("limit", strconv.Itoa(n))
			c.setQuery(q)
		}
	})
}

// errors422 answers 422 instead of 400 and every client error as
// {"message": ...}.
func errors422() step {
	return func(c *call, next func() *reply) *reply {
		x := next()
		if x.status >= 400 && x.status < 500 {
			if x.status == http.StatusBadRequest {
				x.status = http.StatusUnprocessableEntity
			}
			x.set(map[string]any{"message": "request refused: " + strings.ToLower(http.StatusText(x.status))})
		}
		return x
	}
}

var (
	hexID      = regexp.MustCompile(`"([0-9a-f]{24})"`)
	prefixedID = regexp.MustCompile(`id-([0-9a-f]{24})`)
)

// prefixIDs shows every id as id-<hex> and takes them back that way.
func prefixIDs() step {
	return func(c *call, next func() *reply) *reply {
		c.r.URL.Path = prefixedID.ReplaceAllString(c.r.URL.Path, "$1")
		c.r.URL.RawPath = ""
		c.r.URL.RawQuery = prefixedID.ReplaceAllString(c.r.URL.RawQuery, "$1")
		c.setRawBody(prefixedID.ReplaceAll(c.body, []byte("$1")))
		x := next()
		x.setRaw(hexID.ReplaceAll(x.bytes(), []byte(`"id-$1"`)))
		return x
	}
}

// prefixDescription describes the prefixed-ids variant.
func prefixDescription(d *target.Description) {
	for _, p := range []*string{&d.WriteRoom, &d.HideRoom, &d.Rooms.Org, &d.Rooms.Repo, &d.Rooms.Channel, &d.Rooms.OneToOne} {
		if *p != "" {
			*p = "id-" + *p
		}
	}
	for i := range d.Users {
		d.Users[i].ID = "id-" + d.Users[i].ID
	}
}

func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// lagging holds new messages back from search and from unread state (the
// unread lists and the rooms' counts) until they are lag old.
func lagging(lag time.Duration) []step {
	young := func(c *call, id string) bool {
		t := c.st.when("sent:" + id)
		return !t.IsZero() && time.Since(t) < lag
	}
	return []step{
		onSuccess("sendMessage", func(c *call, x *reply) {
			each(x.get(), func(m map[string]any) {
				id := asString(m["id"])
				c.st.stamp("sent:"+id, time.Now())
				c.st.add("room:"+c.room, id, 1)
			})
		}),
		onSuccess("listMessages", func(c *call, x *reply) {
			if c.query().Get("q") != "" {
				x.set(filter(x.get(), func(m map[string]any) bool { return !young(c, asString(m["id"])) }))
			}
		}),
		messages("getUnreadItems", func(c *call, u map[string]any) {
			for _, k := range []string{"chat", "mention"} {
				keep := []any{}
				for _, id := range asList(u[k]) {
					if !young(c, asString(id)) {
						keep = append(keep, id)
					}
				}
				u[k] = keep
			}
		}),
		rooms("rooms", func(c *call, r map[string]any) {
			id := asString(r["id"])
			var held []string
			for _, m := range c.st.keys("room:" + id) {
				if young(c, m) {
					held = append(held, m)
				}
			}
			if len(held) == 0 {
				return
			}
			u, _ := c.do("GET", "/v1/user/"+c.user+"/rooms/"+id+"/unreadItems", nil, nil).get().(map[string]any)
			for k, field := range map[string]string{"chat": "unreadItems", "mention": "mentions"} {
				n := 0
				for _, h := range held {
					if slices.Contains(asList(u[k]), any(h)) {
						n++
					}
				}
				if _, ok := r[field]; ok {
					r[field] = asInt(r[field]) - n
				}
			}
		}),
	}
}
