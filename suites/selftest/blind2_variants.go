package selftest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// blind2Variants are a second round of conforming servers written without
// reading the checks: each follows the API document and chooses differently
// where it is silent, mostly in how it writes its answers (JSON layout and
// escaping, compression, headers, list order) and in what it does with
// requests the document gives no answer for. The What of one that rests on a
// reading open to doubt says so.
//
// One candidate was dropped as not conforming: integers written as 1.0. The
// document types those fields as integers, and a JSON number with a
// fraction part is read as a float by typed clients (Go, Java, the harness
// itself); JSON Schema draft 4, which OpenAPI 3.0 follows, leaves it open.
// Lower-case t and z in timestamps were kept: RFC 3339 allows them and
// states that ISO 8601 does too.
func blind2Variants() []Variant {
	return []Variant{
		{Name: "pretty-json", What: "writes every JSON body indented, with a final newline",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				var out bytes.Buffer
				if b := x.bytes(); len(b) > 0 && json.Indent(&out, b, "", "  ") == nil {
					out.WriteByte('\n')
					x.setRaw(out.Bytes())
				}
				return x
			}}},
		{Name: "ascii-escaped-json", What: `writes every non-ASCII character of a JSON string as a \u escape (surrogate pairs beyond U+FFFF) and every / as \/`,
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if b := x.bytes(); len(b) > 0 && json.Valid(b) {
					x.setRaw(asciiJSON(b))
				}
				return x
			}}},
		{Name: "gzip-responses", What: "compresses every body with gzip when the request accepts it (Content-Encoding: gzip, Vary: Accept-Encoding)",
			steps: []step{func(c *call, next func() *reply) *reply {
				accepts := strings.Contains(strings.ToLower(c.r.Header.Get("Accept-Encoding")), "gzip")
				x := next()
				if b := x.bytes(); accepts && len(b) > 0 && x.status != http.StatusNoContent {
					var z bytes.Buffer
					w := gzip.NewWriter(&z)
					_, _ = w.Write(b)
					_ = w.Close()
					x.setRaw(z.Bytes())
					x.header.Set("Content-Encoding", "gzip")
					x.header.Add("Vary", "Accept-Encoding")
				}
				return x
			}}},
		{Name: "extra-headers", What: "adds Cache-Control: no-store, X-Request-Id, an ETag and Strict-Transport-Security to every answer",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				n := c.st.tick("b3-request")
				x.header.Set("Cache-Control", "no-store")
				x.header.Set("X-Request-Id", fmt.Sprintf("req-%08d", n))
				x.header.Set("ETag", fmt.Sprintf(`W/"%x"`, n))
				x.header.Set("Strict-Transport-Security", "max-age=31536000")
				return x
			}}},
		{Name: "users-never-v", What: "sends v on no user at all, not even the sender embedded in a message",
			steps: []step{
				messages("msgs", func(c *call, m map[string]any) {
					if u, ok := m["fromUser"].(map[string]any); ok {
						delete(u, "v")
					}
				}),
				messages("getCurrentUser", func(c *call, u map[string]any) { delete(u, "v") }),
				rooms("rooms", func(c *call, r map[string]any) {
					if u, ok := r["user"].(map[string]any); ok {
						delete(u, "v")
					}
				}),
			}},
		{Name: "other-lists-reversed", What: "lists rooms, organisations, repositories, channels and unread ids in reverse of the reference's order",
			steps: []step{
				onSuccess("rooms", func(c *call, x *reply) { slices.Reverse(asList(x.get())) }),
				messages("getUnreadItems", func(c *call, u map[string]any) {
					slices.Reverse(asList(u["chat"]))
					slices.Reverse(asList(u["mention"]))
				}),
			}},
		{Name: "hide-answers-room", What: "answers hiding a room with the Room object as it was before it was hidden",
			steps: []step{answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				var room any
				each(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get(), func(r map[string]any) {
					if asString(r["id"]) == c.room {
						room = r
					}
				})
				x := next()
				if x.ok() && room != nil {
					x.set(room)
				}
				return x
			})}},
		{Name: "search-ignores-cursors", What: "ignores beforeId and afterId in a search (with q): the newest matches come back",
			steps: []step{onRequest("listMessages", func(c *call) {
				if c.query().Get("q") != "" {
					setParam(c, "beforeId", "")
					setParam(c, "afterId", "")
				}
			})}},
		{Name: "unknown-cursor-empty", What: "answers beforeId, afterId or aroundId naming no message of the room with an empty page instead of an error (unsure only in that a check may expect an error; errors are not shown)",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				for _, k := range []string{"beforeId", "afterId", "aroundId"} {
					if id := q.Get(k); id != "" && !c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+id, nil, nil).ok() {
						if y := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", nil, nil); !y.ok() {
							return y // the room itself is refused: answer as the reference does
						}
						x := &reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}}
						x.set([]any{})
						return x
					}
				}
				return next()
			})}},
		{Name: "mark-read-empty-accepted", What: "accepts marking read with chat missing or empty and answers success, changing nothing",
			steps: []step{answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				if b := c.jsonBody(); b != nil && len(asList(b["chat"])) == 0 {
					if y := c.do("GET", c.r.URL.Path, nil, nil); !y.ok() {
						return y
					}
					return succeed()
				}
				return next()
			})}},
		{Name: "search-any-term", What: "matches a search of several words when any one of them occurs (or, not and); a one-word search is as the reference's",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				terms := strings.Fields(q.Get("q"))
				limit, ok := pageLimit(q)
				if len(terms) < 2 || !ok {
					return next()
				}
				var list []any
				var seen []string
				for _, t := range terms {
					one := url.Values{}
					for k, v := range q {
						if k != "access_token" {
							one[k] = v
						}
					}
					one.Set("q", t)
					y := c.do("GET", c.r.URL.Path, one, nil)
					if !y.ok() {
						return y
					}
					each(y.get(), func(m map[string]any) {
						if id := asString(m["id"]); !slices.Contains(seen, id) {
							seen = append(seen, id)
							list = append(list, m)
						}
					})
				}
				sortBySent(list)
				x := &reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}}
				x.set(list[max(0, len(list)-limit):])
				return x
			})}},
		{Name: "search-max-20", What: "returns at most 20 matches to a search, whatever limit asks for (limit is a maximum)",
			steps: []step{onRequest("listMessages", func(c *call) {
				if q := c.query(); q.Get("q") != "" {
					if n, ok := pageLimit(q); ok && n > 20 {
						setParam(c, "limit", "20")
					}
				}
			})}},
		{Name: "bad-params-defaulted", What: "treats a negative or non-integer limit or skip as absent instead of refusing it",
			steps: []step{onRequest("listMessages", func(c *call) {
				q := c.query()
				for _, k := range []string{"limit", "skip"} {
					if v := q.Get(k); v != "" {
						if n, err := strconv.Atoi(v); err != nil || n < 0 {
							setParam(c, k, "")
						}
					}
				}
			})}},
		{Name: "skip-over-5000-empty", What: "answers a skip above 5000 with an empty page instead of refusing it",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("skip"); ok && n > 5000 {
					setParam(c, "skip", "")
					x := next()
					if x.ok() {
						x.set([]any{})
					}
					return x
				}
				return next()
			})}},
		{Name: "limit-over-100-default", What: "treats a limit above 100 as no limit at all: the default page of 50",
			steps: []step{onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("limit"); ok && n > 100 {
					setParam(c, "limit", "")
				}
			})}},
		{Name: "unknown-as-403", What: `answers 403 {"error":"Forbidden"} wherever the reference answers 404 (unknown room or message)`,
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if x.status == http.StatusNotFound {
					y := refuse(http.StatusForbidden, "")
					y.set(map[string]any{"error": "Forbidden"})
					return y
				}
				return x
			}}},
		{Name: "edit-by-anyone", What: "lets any member edit any message (the reference lets only the author); the sender stays the author (unsure only in that the document says nothing of who may edit)",
			steps: []step{answer("updateMessage", func(c *call, next func() *reply) *reply {
				x := next()
				if x.status != http.StatusForbidden {
					return x
				}
				m, ok := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				from, _ := m["fromUser"].(map[string]any)
				author, known := c.st.byID[asString(from["id"])]
				if !ok || !known {
					return x
				}
				return c.doAs("PUT", c.r.URL.Path, nil, c.jsonBody(), &author.Token)
			})}},
		{Name: "hide-again-404", What: "answers 404 to hiding a room that is not in the user's rooms list (already hidden)",
			steps: []step{answer("hideUserRoom", func(c *call, next func() *reply) *reply {
				listed := slices.Contains(ids(c.do("GET", "/v1/user/"+c.user+"/rooms", nil, nil).get()), c.room)
				if me, ok := c.caller(); ok && !listed && c.st.get("b3-hidden:"+me.ID, c.room) > 0 {
					return refuse(http.StatusNotFound, "room not in the user's list")
				}
				x := next()
				if me, ok := c.caller(); ok && x.ok() {
					c.st.add("b3-hidden:"+me.ID, c.room, 1)
				}
				return x
			})}},
		{Name: "lowercase-tz-times", What: "writes timestamps with lower-case t and z (2025-03-01t08:00:00.000z), which RFC 3339 allows (and says ISO 8601 allows)",
			steps: []step{
				messages("msgs", func(c *call, m map[string]any) {
					for _, k := range []string{"sent", "editedAt"} {
						if t, ok := m[k].(string); ok {
							m[k] = strings.ToLower(t)
						}
					}
				}),
				rooms("rooms", func(c *call, r map[string]any) {
					if t, ok := r["lastAccessTime"].(string); ok {
						r["lastAccessTime"] = strings.ToLower(t)
					}
				}),
			}},
		{Name: "unknown-mentions-plain", What: "leaves @name as plain text when no user has that name (the reference wraps it in a mention span anyway; unsure: the document may count any @name as a mention)",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				m["html"] = mentionSpan.ReplaceAllStringFunc(asString(m["html"]), func(span string) string {
					name := mentionSpan.FindStringSubmatch(span)[1]
					for _, u := range c.st.world.Users {
						if strings.EqualFold(u.Username, name) {
							return span
						}
					}
					return "@" + name
				})
			})}},
		{Name: "access-time-on-read", What: "sets a room's lastAccessTime when the user reads its messages, not only when the user posts (unsure: GET must not alter state, but lastAccessTime says when the user last accessed the room)",
			steps: []step{
				onSuccess("listMessages getMessage", func(c *call, x *reply) {
					if me, ok := c.caller(); ok {
						c.st.stamp("b3-access:"+me.ID+":"+c.room, time.Now())
					}
				}),
				rooms("rooms", func(c *call, r map[string]any) {
					me, _ := c.caller()
					if t := c.st.when("b3-access:" + me.ID + ":" + asString(r["id"])); !t.IsZero() {
						if old, err := time.Parse(time.RFC3339Nano, asString(r["lastAccessTime"])); err != nil || t.After(old) {
							r["lastAccessTime"] = t.UTC().Format("2006-01-02T15:04:05.000Z")
						}
					}
				}),
			}},
		{Name: "no-x-access-token", What: "does not accept the token in an x-access-token header (the document names only the Authorization header and access_token)",
			steps: []step{func(c *call, next func() *reply) *reply {
				if c.r.Header.Get("X-Access-Token") != "" && c.r.Header.Get("Authorization") == "" && !c.query().Has("access_token") {
					return refuse(http.StatusUnauthorized, "")
				}
				return next()
			}}},
		{Name: "text-limit-1000", What: "refuses a text longer than 1000 characters with 400 (the maximum length is not shown)",
			steps: []step{answer("sendMessage updateMessage", func(c *call, next func() *reply) *reply {
				if t, ok := c.jsonBody()["text"].(string); ok && utf8.RuneCountInString(t) > 1000 {
					return refuse(http.StatusBadRequest, "text longer than 1000 characters")
				}
				return next()
			})}},
	}
}

// asciiJSON rewrites valid JSON so that it holds ASCII only: every other
// character becomes a \u escape, and / becomes \/. Both occur only inside
// strings, where the escapes mean the same characters.
func asciiJSON(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case r == '/':
			out.WriteString(`\/`)
		case r < 0x80:
			out.WriteRune(r)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			out.WriteString(`\u` + hex4(hi) + `\u` + hex4(lo))
		default:
			out.WriteString(`\u` + hex4(r))
		}
	}
	return out.Bytes()
}

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}
