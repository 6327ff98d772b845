package selftest

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/chatrooms/conformance/suites/target"
)

// blindVariants are conforming servers written without reading the checks:
// each follows the API document and chooses differently where it is silent.
// Two of them rest on a reading of the document that is open to doubt; their
// What says so.
func blindVariants() []Variant {
	return []Variant{
		{Name: "afterid-newest", What: "answers afterId with the newest limit messages after the cursor, not the ones right after it",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				limit, ok := pageLimit(q)
				if !ok || !has(q, "afterId") || has(q, "beforeId") || has(q, "aroundId") || has(q, "q") || has(q, "skip") {
					return next()
				}
				cursor := q.Get("afterId")
				anchor, isMsg := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+cursor, nil, nil).get().(map[string]any)
				if !isMsg {
					return next()
				}
				x := c.do("GET", c.r.URL.Path, url.Values{"limit": {strconv.Itoa(limit)}}, nil)
				if !x.ok() {
					return next()
				}
				list := asList(x.get())
				for i, m := range list {
					if asString(m.(map[string]any)["id"]) == cursor {
						x.set(list[i+1:])
						return x
					}
				}
				at := asString(anchor["sent"])
				x.set(filter(list, func(m map[string]any) bool { return asString(m["sent"]) > at }))
				return x
			})}},
		{Name: "aroundid-lopsided", What: "splits an aroundId page a quarter before the anchor and the rest after it",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				limit, ok := pageLimit(q)
				if !ok || !has(q, "aroundId") || has(q, "beforeId") || has(q, "afterId") || has(q, "q") || has(q, "skip") {
					return next()
				}
				a := q.Get("aroundId")
				anchor := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+a, nil, nil)
				if !anchor.ok() {
					return next()
				}
				before := (limit - 1) / 4
				after := limit - 1 - before
				var list []any
				if before > 0 {
					list = append(list, asList(c.do("GET", c.r.URL.Path, url.Values{"beforeId": {a}, "limit": {strconv.Itoa(before)}}, nil).get())...)
				}
				list = append(list, anchor.get())
				if after > 0 {
					list = append(list, asList(c.do("GET", c.r.URL.Path, url.Values{"afterId": {a}, "limit": {strconv.Itoa(after)}}, nil).get())...)
				}
				anchor.set(list)
				return anchor
			})}},
		{Name: "me-not-accepted", What: "does not know the literal me in place of a user id: such paths answer 404",
			steps: []step{answer("all", func(c *call, next func() *reply) *reply {
				if c.user == "me" {
					return refuse(http.StatusNotFound, "no such user")
				}
				return next()
			})}},
		{Name: "other-user-allowed", What: "serves a path naming another user as that user would see it, instead of refusing it (whether :userId may name another user is not shown; unsure whether a room's counts must then be the caller's)",
			steps: []step{onRequest("all", func(c *call) {
				me, ok := c.caller()
				if !ok || c.user == "" || c.user == "me" || c.user == me.ID {
					return
				}
				if u, known := c.st.byID[c.user]; known {
					setToken(c.r, u.Token)
				}
			})}},
		{Name: "writes-answer-state", What: "answers hiding a room with the rooms list left, and marking read with the unread items left",
			steps: []step{
				onSuccess("hideUserRoom", func(c *call, x *reply) {
					if y := c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil); y.ok() {
						x.set(y.get())
					}
				}),
				onSuccess("markUnreadItemsRead", func(c *call, x *reply) {
					if y := c.do("GET", c.r.URL.Path, nil, nil); y.ok() {
						x.set(y.get())
					}
				}),
			}},
		{Name: "accepted-202", What: `answers hiding a room and marking read with 202 and {"status":"accepted"} (the effect is immediate)`,
			steps: []step{onSuccess("hideUserRoom markUnreadItemsRead", func(c *call, x *reply) {
				x.status = http.StatusAccepted
				x.set(map[string]any{"status": "accepted"})
			})}},
		{Name: "quoted-charset", What: `labels JSON application/json; charset="utf-8" (the parameter value as a quoted string)`,
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if strings.HasPrefix(x.header.Get("Content-Type"), "application/json") {
					x.header.Set("Content-Type", `application/json; charset="utf-8"`)
				}
				return x
			}}},
		{Name: "reversed-ids", What: "writes every id with its characters reversed, so ids no longer sort by time",
			steps: []step{reverseIDs()}, describe: reversedDescription},
		{Name: "utc-offset-times", What: "writes UTC timestamps with +00:00 instead of Z",
			steps: []step{
				messages("msgs", func(c *call, m map[string]any) {
					for _, k := range []string{"sent", "editedAt"} {
						m[k] = zToOffset(m[k])
					}
				}),
				rooms("rooms", func(c *call, r map[string]any) {
					if _, ok := r["lastAccessTime"]; ok {
						r["lastAccessTime"] = zToOffset(r["lastAccessTime"])
					}
				}),
			}},
		{Name: "numeric-entities", What: "escapes special characters in html as numeric character references (&#60; not &lt;)",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				m["html"] = numericEntities.Replace(asString(m["html"]))
			})}},
		{Name: "markup-respelled", What: "writes mention, issue and link markup with other attribute order, an extra class, and single quotes on issue spans",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				h := asString(m["html"])
				h = mentionOpen.ReplaceAllString(h, `<span class="chat-mention mention" data-screen-name="$1" data-link-type="mention">`)
				h = issueOpen.ReplaceAllString(h, `<span class='issue' data-issue='$1' data-link-type='issue'>`)
				h = linkOpen.ReplaceAllString(h, `<a class="link external" target="_blank" rel="$2" href="$1">`)
				m["html"] = h
			})}},
		{Name: "skip-over-5000-clamped", What: "treats a skip above 5000 as 5000 instead of refusing it",
			steps: []step{onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("skip"); ok && n > 5000 {
					setParam(c, "skip", "5000")
				}
			})}},
		{Name: "limit-zero-empty", What: "answers limit=0 with an empty page",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				if c.query().Get("limit") == "0" {
					x := next()
					if x.ok() {
						x.set([]any{})
					}
					return x
				}
				return next()
			})}},
		{Name: "rooms-without-channels", What: "leaves channels out of the rooms list (the document names one-to-one, organisation and repository rooms there)",
			steps: []step{onSuccess("listUserRooms", func(c *call, x *reply) {
				x.set(filter(x.get(), func(r map[string]any) bool { return r["platformType"] != "USER_CHANNEL" }))
			})}},
		{Name: "search-case-sensitive", What: "matches search terms case-sensitively",
			steps: []step{onSuccess("listMessages", func(c *call, x *reply) {
				terms := strings.Fields(c.query().Get("q"))
				if len(terms) == 0 {
					return
				}
				x.set(filter(x.get(), func(m map[string]any) bool {
					for _, t := range terms {
						if !strings.Contains(asString(m["text"]), t) {
							return false
						}
					}
					return true
				}))
			})}},
		{Name: "html-paragraphs-kept", What: "keeps the <p> element around a text of one paragraph",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				h := asString(m["html"])
				for _, block := range []string{"<p>", "<ul", "<ol", "<pre", "<blockquote", "<h", "<table", "<hr", "<div"} {
					if strings.HasPrefix(h, block) {
						return
					}
				}
				if h != "" {
					m["html"] = "<p>" + h + "</p>"
				}
			})}},
		{Name: "microsecond-times", What: "writes timestamps with six fraction digits",
			steps: []step{
				messages("msgs", func(c *call, m map[string]any) {
					for _, k := range []string{"sent", "editedAt"} {
						m[k] = toMicros(m[k])
					}
				}),
				rooms("rooms", func(c *call, r map[string]any) {
					if _, ok := r["lastAccessTime"]; ok {
						r["lastAccessTime"] = toMicros(r["lastAccessTime"])
					}
				}),
			}},
		{Name: "hidden-until-any-post", What: "brings a hidden room back to the user's rooms list as soon as anyone posts in it, not only the user",
			steps: []step{
				answer("hideUserRoom", func(c *call, next func() *reply) *reply {
					if y := c.do("GET", "/v1/user/"+c.user+"/rooms/"+c.room+"/unreadItems", nil, nil); !y.ok() {
						return y
					}
					me, _ := c.caller()
					c.st.stamp("b-hide:"+me.ID+":"+c.room, time.Now())
					return succeed()
				}),
				onSuccess("sendMessage", func(c *call, x *reply) { c.st.stamp("b-post:"+c.room, time.Now()) }),
				onSuccess("listUserRooms", func(c *call, x *reply) {
					me, _ := c.caller()
					x.set(filter(x.get(), func(r map[string]any) bool {
						id := asString(r["id"])
						hid := c.st.when("b-hide:" + me.ID + ":" + id)
						return hid.IsZero() || c.st.when("b-post:"+id).After(hid)
					}))
				}),
			}},
		{Name: "channels-owned-only", What: "lists under a user's channels only the channels that user owns, not those joined (unsure: the document says channels that belong to a user, which may mean owned)",
			steps: []step{onSuccess("listUserChannels", func(c *call, x *reply) {
				me, _ := c.caller()
				owner := map[string]string{}
				for _, r := range c.st.world.Rooms {
					owner[r.ID] = r.Owner
				}
				x.set(filter(x.get(), func(r map[string]any) bool { return owner[asString(r["id"])] == me.ID }))
			})}},
	}
}

// pageLimit is the page size a list request asks for, as the reference
// reads it (default 50, at most 100); ok is false for a limit the reference
// refuses.
func pageLimit(q url.Values) (int, bool) {
	raw := q.Get("limit")
	if raw == "" {
		return 50, true
	}
	n, err := strconv.Atoi(raw)
	switch {
	case err != nil || n < 0:
		return 0, false
	case n == 0:
		return 50, true
	}
	return min(n, 100), true
}

var (
	mentionOpen     = regexp.MustCompile(`<span data-link-type="mention" data-screen-name="([^"]*)" class="mention">`)
	issueOpen       = regexp.MustCompile(`<span data-link-type="issue" data-issue="([^"]*)" class="issue">`)
	linkOpen        = regexp.MustCompile(`<a href="([^"]*)" rel="([^"]*)" target="_blank" class="link">`)
	numericEntities = strings.NewReplacer("&lt;", "&#60;", "&gt;", "&#62;", "&amp;", "&#38;", "&quot;", "&#34;")
	bareHexID       = regexp.MustCompile(`^[0-9a-f]{24}$`)
)

// toMicros writes a timestamp with six fraction digits; anything else is
// left as it is.
func toMicros(v any) any {
	t, err := time.Parse(time.RFC3339Nano, asString(v))
	if err != nil {
		return v
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// zToOffset writes a timestamp ending in Z with +00:00 instead.
func zToOffset(v any) any {
	if s, ok := v.(string); ok && strings.HasSuffix(s, "Z") {
		return strings.TrimSuffix(s, "Z") + "+00:00"
	}
	return v
}

// reverseID reverses a 24-hex id; it is its own inverse.
func reverseID(id string) string {
	b := []byte(id)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// reverseIDs shows every id reversed and takes them back that way: in the
// path, in query values and in JSON bodies.
func reverseIDs() step {
	return func(c *call, next func() *reply) *reply {
		seg := strings.Split(c.r.URL.Path, "/")
		for i, s := range seg {
			if bareHexID.MatchString(s) {
				seg[i] = reverseID(s)
			}
		}
		c.r.URL.Path, c.r.URL.RawPath = strings.Join(seg, "/"), ""
		q := c.query()
		for k, vs := range q {
			for i, v := range vs {
				if bareHexID.MatchString(v) {
					q[k][i] = reverseID(v)
				}
			}
		}
		c.setQuery(q)
		if c.r.Body != nil {
			raw, _ := io.ReadAll(c.r.Body)
			c.setRawBody(reverseQuoted(raw))
		}
		x := next()
		x.setRaw(reverseQuoted(x.bytes()))
		return x
	}
}

// reverseQuoted reverses every JSON string that is a bare 24-hex id.
func reverseQuoted(b []byte) []byte {
	return hexID.ReplaceAllFunc(b, func(m []byte) []byte {
		return []byte(`"` + reverseID(string(m[1:len(m)-1])) + `"`)
	})
}

func reversedDescription(d *target.Description) {
	for _, p := range []*string{&d.WriteRoom, &d.HideRoom, &d.Rooms.Org, &d.Rooms.Repo, &d.Rooms.Channel, &d.Rooms.OneToOne} {
		if len(*p) == 24 {
			*p = reverseID(*p)
		}
	}
	for i := range d.Users {
		d.Users[i].ID = reverseID(d.Users[i].ID)
	}
}
