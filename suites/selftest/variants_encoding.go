package selftest

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/chatrooms/conformance/suites/target"
)

// encodingVariants choose differently in how values are written, which no
// one area owns: ids, timestamps and the layout of the JSON text. (A fault in
// how a field is written breaks one requirement and goes to that
// requirement's file.)
//
// One candidate was dropped as not conforming: integers written as 1.0. The
// document types those fields as integers, and a JSON number with a
// fraction part is read as a float by typed clients (Go, Java, the harness
// itself); JSON Schema draft 4, which OpenAPI 3.0 follows, leaves it open.
// Lower-case t and z in timestamps were kept: RFC 3339 allows them and
// states that ISO 8601 does too.
func encodingVariants() []Variant {
	return []Variant{
		{Name: "prefixed-ids", Origin: FirstCatalogue, What: "uses ids of the form id-<hex> instead of bare hex",
			steps: []step{prefixIDs()}, describe: prefixDescription},
		{Name: "uuid-ids", Origin: OpenPoints, What: "shows every id as a UUID instead of 24 hex characters", steps: []step{uuidIDs()}, describe: uuidDescription},
		{Name: "extra-fields", Origin: OpenPoints, What: "adds fields the document does not name to every object it sends",
			steps: []step{onSuccess("all", func(c *call, x *reply) { addExtra(x.get()) })}},
		{Name: "whole-second-times", Origin: Assumptions, What: "writes sent, editedAt and lastAccessTime to the second, with no fraction",
			steps: []step{
				messages("msgs", func(c *call, m map[string]any) {
					for _, k := range []string{"sent", "editedAt"} {
						if t, ok := m[k]; ok {
							m[k] = toSeconds(t)
						}
					}
				}),
				rooms("rooms", func(c *call, r map[string]any) {
					if t, ok := r["lastAccessTime"]; ok {
						r["lastAccessTime"] = toSeconds(t)
					}
				}),
			}},
		{Name: "reversed-ids", Origin: BlindRound1, What: "writes every id with its characters reversed, so ids no longer sort by time",
			steps: []step{reverseIDs()}, describe: reversedDescription},
		{Name: "utc-offset-times", Origin: BlindRound1, What: "writes UTC timestamps with +00:00 instead of Z",
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
		{Name: "microsecond-times", Origin: BlindRound1, What: "writes timestamps with six fraction digits",
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
		{Name: "pretty-json", Origin: BlindRound2, What: "writes every JSON body indented, with a final newline",
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				var out bytes.Buffer
				if b := x.bytes(); len(b) > 0 && json.Indent(&out, b, "", "  ") == nil {
					out.WriteByte('\n')
					x.setRaw(out.Bytes())
				}
				return x
			}}},
		{Name: "ascii-escaped-json", Origin: BlindRound2, What: `writes every non-ASCII character of a JSON string as a \u escape (surrogate pairs beyond U+FFFF) and every / as \/`,
			steps: []step{func(c *call, next func() *reply) *reply {
				x := next()
				if b := x.bytes(); len(b) > 0 && json.Valid(b) {
					x.setRaw(asciiJSON(b))
				}
				return x
			}}},
		{Name: "lowercase-tz-times", Origin: BlindRound2, What: "writes timestamps with lower-case t and z (2025-03-01t08:00:00.000z), which RFC 3339 allows (and says ISO 8601 allows)",
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
	}
}

var (
	hexID      = regexp.MustCompile(`"([0-9a-f]{24})"`)
	prefixedID = regexp.MustCompile(`id-([0-9a-f]{24})`)
	uuidForm   = regexp.MustCompile(`00000000-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})`)
	bareHexID  = regexp.MustCompile(`^[0-9a-f]{24}$`)
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

// toSeconds rewrites a timestamp to whole seconds; anything else is left as
// it is.
func toSeconds(v any) any {
	t, err := time.Parse(time.RFC3339Nano, asString(v))
	if err != nil {
		return v
	}
	return t.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z")
}

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
