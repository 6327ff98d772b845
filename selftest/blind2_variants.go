package selftest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// blind2Variants are a second round of conforming servers written without
// reading the checks: each follows the API document and chooses differently
// where it is silent, mostly in how it writes its answers (JSON layout and
// escaping, compression, headers, list order) and in what it does with
// requests the document gives no answer for. The What of one that rests on a
// reading open to doubt says so.
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
