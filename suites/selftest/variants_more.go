package selftest

import (
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/chatrooms/conformance/suites/target"
)

// moreVariants are conforming choices on points the API document leaves
// open, each breaking an assumption a check might make.
func moreVariants() []Variant {
	return []Variant{
		{Name: "hidden-rooms-stay-hidden", What: "a hidden room never comes back to the user's rooms list, not even after the user posts in it",
			steps: []step{
				onSuccess("hideUserRoom", func(c *call, x *reply) {
					me, _ := c.caller()
					c.st.add("hidden:"+me.ID, c.room, 1)
				}),
				onSuccess("listUserRooms", func(c *call, x *reply) {
					me, _ := c.caller()
					x.set(filter(x.get(), func(r map[string]any) bool { return c.st.get("hidden:"+me.ID, asString(r["id"])) == 0 }))
				}),
			}},
		{Name: "search-whole-words", What: "search matches whole words of the text, not substrings",
			steps: []step{onSuccess("listMessages", func(c *call, x *reply) {
				terms := strings.Fields(strings.ToLower(c.query().Get("q")))
				if len(terms) == 0 {
					return
				}
				x.set(filter(x.get(), func(m map[string]any) bool {
					words := map[string]bool{}
					for _, w := range wordSplit.Split(strings.ToLower(asString(m["text"])), -1) {
						words[w] = true
					}
					for _, t := range terms {
						if !words[t] {
							return false
						}
					}
					return true
				}))
			})}},
		{Name: "errors-without-body", What: "answers every error with its status and no body at all",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if x.status >= 400 {
					x.header.Del("Content-Type")
					x.setRaw([]byte{})
				}
				return x
			}}},
		{Name: "errors-as-text", What: "answers every error as text/plain",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if x.status >= 400 {
					x.header.Set("Content-Type", "text/plain; charset=utf-8")
					x.setRaw([]byte(http.StatusText(x.status) + "\n"))
				}
				return x
			}}},
		{Name: "other-user-404", What: "answers 404 instead of 403 to a path naming another user",
			steps: []step{onReply("all", func(c *call, x *reply) {
				if x.status == http.StatusForbidden && c.user != "" {
					x.status = http.StatusNotFound
				}
			})}},
		{Name: "uuid-ids", What: "shows every id as a UUID instead of 24 hex characters", steps: []step{uuidIDs()}, describe: uuidDescription},
		{Name: "rooms-only-id", What: "sends rooms with only their id, and security on channels",
			steps: []step{rooms("rooms", func(c *call, r map[string]any) {
				channel := r["platformType"] == "USER_CHANNEL"
				for k := range r {
					if k != "id" && !(k == "security" && channel) {
						delete(r, k)
					}
				}
			})}},
		{Name: "extra-fields", What: "adds fields the document does not name to every object it sends",
			steps: []step{onSuccess("all", func(c *call, x *reply) { addExtra(x.get()) })}},
		{Name: "content-type-spelling", What: "labels JSON application/json;charset=UTF-8",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if strings.HasPrefix(x.header.Get("Content-Type"), "application/json") {
					x.header.Set("Content-Type", "application/json;charset=UTF-8")
				}
				return x
			}}},
		{Name: "http1-only", What: "speaks HTTP/1.1 only (no HTTP/2)", http1: true},
	}
}

var wordSplit = regexp.MustCompile(`[^\p{L}\p{N}_]+`)

// addExtra adds an unknown field to every object in v, nested ones too.
func addExtra(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if k != "meta" { // meta is documented as an empty object
				addExtra(e)
			}
		}
		t["xExtension"] = map[string]any{"note": "not in the document"}
	case []any:
		for _, e := range t {
			addExtra(e)
		}
	}
}

var uuidForm = regexp.MustCompile(`00000000-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})`)

// toUUID writes a 24-hex id as a UUID; fromUUID reads it back. Both keep
// the order of ids.
func toUUID(id string) string {
	return "00000000-" + id[0:4] + "-" + id[4:8] + "-" + id[8:12] + "-" + id[12:24]
}

func fromUUIDs(s string) string { return uuidForm.ReplaceAllString(s, "$1$2$3$4") }

// uuidIDs shows every id as a UUID and takes them back that way.
func uuidIDs() step {
	return func(c *call, next func() *reply) *reply {
		c.r.URL.Path = fromUUIDs(c.r.URL.Path)
		c.r.URL.RawPath = ""
		c.r.URL.RawQuery = fromUUIDs(c.r.URL.RawQuery)
		if c.r.Body != nil {
			raw, _ := io.ReadAll(c.r.Body)
			c.setRawBody([]byte(fromUUIDs(string(raw))))
		}
		x := next()
		x.setRaw(hexID.ReplaceAllFunc(x.bytes(), func(m []byte) []byte {
			return []byte(`"` + toUUID(string(m[1:len(m)-1])) + `"`)
		}))
		return x
	}
}

func uuidDescription(d *target.Description) {
	for _, p := range []*string{&d.WriteRoom, &d.HideRoom, &d.Rooms.Org, &d.Rooms.Repo, &d.Rooms.Channel, &d.Rooms.OneToOne} {
		if len(*p) == 24 {
			*p = toUUID(*p)
		}
	}
	for i := range d.Users {
		d.Users[i].ID = toUUID(d.Users[i].ID)
	}
}
