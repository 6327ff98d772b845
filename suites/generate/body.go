package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chatrooms/conformance/spec"
)

// bodyValue fills the body: a value the schema allows, or the departure d.
func (b *builder) bodyValue(d defectChoice) bool {
	s := b.op.Body
	if s == nil {
		return true
	}
	b.cs.header.Set("Content-Type", b.op.BodyType)
	if !b.plain && chance(b.c, "content type parameter", 20) {
		b.cs.header.Set("Content-Type", b.op.BodyType+"; charset=utf-8")
	}
	obj, desc := b.object(s, d)
	if d.kind == dBodyMalformed || d.kind == dBodyContentType || d.kind == dBodyNotObject {
		b.bodyDefect(d, obj)
		return true
	}
	b.setBody(obj, desc)
	return true
}

// field is one property of a generated object, kept in order.
type field struct {
	name  string
	value any
	desc  string
}

type object []field

func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(f.name)
		buf.Write(k)
		buf.WriteByte(':')
		v, err := marshal(f.value)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshal encodes without HTML escaping, so that bodies read as sent.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (o object) describe() string {
	parts := make([]string, len(o))
	for i, f := range o {
		parts[i] = fmt.Sprintf("%q: %s", f.name, f.desc)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (b *builder) setBody(o any, desc string) {
	raw, err := marshal(o)
	if err != nil {
		panic(err) // every generated value encodes
	}
	b.cs.body, b.cs.bdesc = raw, desc
}

// plainBody is the simplest body the schema allows (for departures that
// corrupt a body).
func (b *builder) plainBody() object {
	saved := b.plain
	b.plain = true
	defer func() { b.plain = saved }()
	o, _ := b.object(b.op.Body, defectChoice{})
	return o
}

// object builds a body object: required properties always, optional ones
// present or absent, values within the schema; or with departure d.
func (b *builder) object(s *openapi3.Schema, d defectChoice) (object, string) {
	var o object
	for _, name := range propertyNames(s) {
		ps := schemaOf(s.Properties[name])
		required := slices.Contains(s.Required, name)
		label := "body " + name
		if d.param == name {
			switch d.kind {
			case dBodyMissing:
				b.cs.note(invalid, refBadRequest, "the required field %s is missing", name)
				continue
			case dBodyWrongType:
				v, what := wrongType(b.c, label, ps)
				o = append(o, field{name, v, describeValue(v)})
				b.cs.note(invalid, refBadRequest, "field %s is %s", name, what)
				continue
			case dBodyMinLength:
				o = append(o, field{name, "", `""`})
				b.cs.note(invalid, refBadRequest, "field %s is shorter than %d", name, ps.MinLength)
				continue
			case dBodyMaxLength:
				v := b.overlong(label, ps)
				o = append(o, field{name, v, describeText(v)})
				b.cs.note(invalid, refBadRequest, "field %s is longer than %d UTF-16 units", name, *ps.MaxLength)
				b.cs.text, b.cs.sendsText = v, false
				continue
			case dBodyMinItems:
				o = append(o, field{name, []string{}, "[]"})
				b.cs.note(invalid, refBadRequest, "field %s has fewer than %d items", name, ps.MinItems)
				continue
			case dBodyItem:
				v, what := b.badItem(label, ps)
				o = append(o, field{name, v, describeValue(v)})
				b.cs.note(invalid, refBadRequest, "an item of %s is %s", name, what)
				continue
			}
		}
		if !required {
			if choices := finiteValues(ps); choices != nil {
				// One decision covers absent and every value.
				i := b.c.pick(label, append([]int{len(choices)}, uniform(len(choices))...)...)
				if i > 0 {
					o = append(o, field{name, choices[i-1], describeValue(choices[i-1])})
				}
				continue
			}
			if !chance(b.c, label+" present", 50) {
				continue
			}
		}
		v, desc := b.value(label, name, ps)
		o = append(o, field{name, v, desc})
	}
	if d.kind == dBodyUnknownField {
		name := anyOf(b.c, "unknown field name", []string{"extra", "id", "v", "__proto__"})
		v := anyOf(b.c, "unknown field value", []any{"x", 1, true, nil, map[string]any{}})
		if known := propertyNames(s); len(known) > 0 && chance(b.c, "unknown field like a known one", 50) {
			// A known name in another case, with a value the known field
			// takes: a decoder that matches names without regard to case
			// takes it for the known field.
			k := oneOf(b.c, "unknown field base", known)
			name = strings.ToUpper(k[:1]) + k[1:]
			v, _ = b.value("unknown field value", k, schemaOf(s.Properties[k]))
		}
		o = append(o, field{name, v, describeValue(v)})
		if closed(s) {
			b.cs.note(invalid, refBadRequest, "field %s is not in the schema, which allows no other", name)
		} else {
			b.cs.note(open, refNone, "field %s is not documented", name)
		}
	}
	return o, o.describe()
}

// finiteValues lists every value of a schema that has few (an enum, a
// boolean), nil for the others.
func finiteValues(s *openapi3.Schema) []any {
	switch {
	case len(s.Enum) > 0:
		return s.Enum
	case s.Type.Is("boolean"):
		return []any{false, true}
	}
	return nil
}

// value picks a value the schema allows for a body property.
func (b *builder) value(label, name string, s *openapi3.Schema) (any, string) {
	switch {
	case len(s.Enum) > 0:
		v := oneOf(b.c, label, s.Enum)
		return v, describeValue(v)
	case s.Type.Is("boolean"):
		v := b.c.pick(label, 1, 1) == 1
		return v, strconv.FormatBool(v)
	case s.Type.Is("integer"):
		lo, hi := 0, 1000
		if s.Min != nil {
			lo = int(*s.Min)
		}
		if s.Max != nil {
			hi = int(*s.Max)
		}
		v := oneOf(b.c, label, []int{lo, hi, b.c.vary(label+" value", lo, hi)})
		return v, strconv.Itoa(v)
	case s.Type.Is("array"):
		return b.array(label, name, s)
	case s.Type.Is("string") && refOf(name) == refMessage:
		return b.messageRef(label, s)
	case s.Type.Is("string"):
		v := b.text(label, s)
		b.cs.text, b.cs.sendsText = v, true
		return v, describeText(v)
	}
	return map[string]any{}, "{}"
}

// text picks a message text the schema allows, with the refusals a core
// server may make of it noted.
func (b *builder) text(label string, s *openapi3.Schema) string {
	bound := 4096
	if s.MaxLength != nil {
		bound = int(*s.MaxLength)
	}
	kinds := []int{4, 4, 2, 2, 2, 2, 4, 1, 1} // ascii, alphabet, rtl, combining, emoji, markup, long, blank, control
	if b.plain {
		kinds = kinds[:7]
	}
	var v string
	switch b.c.pick(label+" kind", kinds...) {
	case 0:
		v = shortText(b.c, label, asciiLetters)
	case 1:
		v = shortText(b.c, label, anyOf(b.c, label+" alphabet", textAlphabets))
	case 2:
		v = shortText(b.c, label, rtl)
	case 3:
		v = shortText(b.c, label, combining)
	case 4:
		v = shortText(b.c, label, emoji)
	case 5:
		v = shortText(b.c, label, markup)
	case 6:
		a := oneOf(b.c, label+" long alphabet", []alphabet{latin, cjk, emoji, asciiLetters, rtl})
		n := oneOf(b.c, label+" long length", []int{bound, bound - 1, min(4000, bound), b.c.vary(label+" long length value", CoreTextLimit+1, bound)})
		v = longText(b.c, label+" long", a, n)
	case 7:
		v = oneOf(b.c, label+" blank", []string{" ", "\n\t ", "\u00a0", ""})
		if int(s.MinLength) > len(v) {
			v = " "
		}
	default:
		base := shortText(b.c, label, asciiLetters)
		v = base + string(anyOf(b.c, label+" control", controls.runes)) + base
	}
	if s.Pattern != "" {
		// A profile that narrows the text by a pattern (the reference one
		// refuses blank texts) makes a text off the pattern a defect, which
		// the departures generate on their own; a valid text keeps to it.
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(v) {
			v = shortText(b.c, label+" on pattern", asciiLetters)
		}
	}
	if b.profile == spec.Core || s.MaxLength == nil {
		if units(v) > CoreTextLimit {
			b.cs.note(refusable, ref2xx, "text longer than %d UTF-16 units (the document sets no maximum)", CoreTextLimit)
		}
	}
	if blank(v) {
		b.cs.note(refusable, ref2xx, "blank text (the document does not say a text may be blank)")
	}
	if hasControl(v) {
		b.cs.note(refusable, ref2xx, "control characters in the text")
	}
	return v
}

// overlong is a text just past the schema's maximum: in one-unit
// characters, or in two-unit ones whose number of code points stays
// within the maximum (the units decide: REF-TEXT-LENGTH).
func (b *builder) overlong(label string, s *openapi3.Schema) string {
	bound := int(*s.MaxLength)
	if b.c.pick(label+" overlong", 1, 1) == 1 {
		return strings.Repeat("😀", bound/2+1)
	}
	return longText(b.c, label+" long", latin, bound+b.c.vary(label+" excess", 1, 100))
}

// array picks items the schema allows.
func (b *builder) array(label, name string, s *openapi3.Schema) (any, string) {
	counts := []int{1, 2, 3}
	if s.MinItems == 0 && !b.plain {
		counts = append(counts, 0)
	}
	n := oneOf(b.c, label+" items", counts)
	items := make([]any, 0, n)
	descs := make([]string, 0, n)
	is := schemaOf(s.Items)
	for i := 0; i < n; i++ {
		v, d := b.value(fmt.Sprintf("%s[%d]", label, i), name, is)
		items = append(items, v)
		descs = append(descs, d)
	}
	if n == 0 {
		b.cs.note(refusable, ref2xx, "%s is empty (nothing to do)", name)
	}
	return items, "[" + strings.Join(descs, ", ") + "]"
}

// messageRef picks a message id for a body field that names messages.
func (b *builder) messageRef(label string, s *openapi3.Schema) (any, string) {
	ms := b.w.messagesIn(b.cs.room)
	type alt struct {
		value, role, why string
	}
	var alts []alt
	if len(ms) > 0 {
		m := anyOf(b.c, label+" message", ms)
		role := "message of the room"
		if m.From == b.w.caller().ID {
			role = "own message"
		}
		alts = append(alts, alt{m.ID, role, ""})
	}
	if !b.plain || len(alts) == 0 {
		alts = append(alts, alt{unknownID(b.w.caller().ID), "unknown message id", "an unknown message id"})
		if m, ok := b.otherRoomMessage(b.cs.room); ok {
			alts = append(alts, alt{m.ID, "message of another room", "a message of another room"})
		}
		if s.Pattern == "" {
			v := shortText(b.c, label+" text", asciiLetters)
			alts = append(alts, alt{v, strconv.Quote(v), "not an id of this server"})
		}
	}
	a := alts[b.c.pick(label, append([]int{3}, uniform(len(alts)-1)...)...)]
	if a.why != "" {
		b.cs.note(refusable, ref2xx, "%s names %s", label, a.why)
	} else if b.op.ID == "markUnreadItemsRead" {
		// Whether marking read a message that is not unread for the caller
		// (its own, or one read already) is accepted is not stated, and
		// the engine cannot tell which are unread.
		b.cs.note(refusable, ref2xx, "%s names a message that may not be unread for the caller", label)
	}
	return a.value, "{" + a.role + "}"
}

// badItem is an array item its schema forbids.
func (b *builder) badItem(label string, s *openapi3.Schema) (any, string) {
	is := schemaOf(s.Items)
	if is != nil && is.Pattern != "" && b.c.pick(label+" bad item", 1, 1) == 1 {
		v := anyOf(b.c, label+" malformed", malformedIDs(b.w.caller().ID))
		return []any{v}, "not of the pattern " + is.Pattern
	}
	v, what := wrongType(b.c, label+" item", is)
	return []any{v}, what
}

// wrongType is a JSON value of another type than the schema's.
func wrongType(c chooser, label string, s *openapi3.Schema) (any, string) {
	type alt struct {
		v    any
		what string
	}
	var alts []alt
	if s == nil || !s.Nullable {
		alts = append(alts, alt{nil, "null"})
	}
	all := []alt{{123, "a number"}, {true, "a boolean"}, {"yes", "a string"}, {[]any{}, "an array"}, {map[string]any{}, "an object"}}
	for _, a := range all {
		if !typeAllows(s, a.v) {
			alts = append(alts, a)
		}
	}
	a := alts[c.pick(label+" wrong type", uniform(len(alts))...)]
	return a.v, a.what
}

func typeAllows(s *openapi3.Schema, v any) bool {
	if s == nil || s.Type == nil || s.Type.IsEmpty() {
		return true
	}
	switch v.(type) {
	case int:
		return s.Type.Is("integer") || s.Type.Is("number")
	case bool:
		return s.Type.Is("boolean")
	case string:
		return s.Type.Is("string")
	case []any:
		return s.Type.Is("array")
	case map[string]any:
		return s.Type.Is("object")
	}
	return false
}

// bodyDefect corrupts a plain body: malformed JSON, a wrong media type, or
// a JSON value that is not an object.
func (b *builder) bodyDefect(d defectChoice, o object) {
	raw, _ := marshal(o)
	switch d.kind {
	case dBodyMalformed:
		variants := []struct {
			body []byte
			what string
		}{
			{join(raw[:len(raw)-1]), "JSON cut short"},
			{join(raw[:len(raw)-1], []byte(",}")), "JSON with a trailing comma"},
			{bytes.ReplaceAll(raw, []byte(`"`), []byte(`'`)), "JSON with single quotes"},
			{join(raw, raw), "two JSON values"},
			{invalidUTF8(raw), "not valid UTF-8"},
			{join([]byte("\xef\xbb\xbf"), raw), "a byte order mark before the JSON"},
		}
		if b.op.BodyNeeded {
			variants = append(variants, struct {
				body []byte
				what string
			}{[]byte{}, "an empty body, which the operation requires"})
		}
		v := anyOf(b.c, "malformed body", variants)
		b.cs.body, b.cs.bdesc = v.body, fmt.Sprintf("%q", cut(string(v.body), 80))
		b.cs.note(invalid, refBadRequest, "the body is %s", v.what)
	case dBodyContentType:
		ct := anyOf(b.c, "content type", []string{"", "text/plain", "application/x-www-form-urlencoded", "application/xml", "application/jsonx"})
		b.cs.header.Set("Content-Type", ct)
		if ct == "" {
			b.cs.header["Content-Type"] = []string{""} // the client drops the default
		}
		b.cs.body, b.cs.bdesc = raw, o.describe()
		b.cs.note(invalid, refBadRequest, "the body is labelled %q", ct)
	case dBodyNotObject:
		v := anyOf(b.c, "not an object", []any{[]any{}, "text", 42, nil, true})
		b.setBody(v, describeValue(v))
		b.cs.note(invalid, refBadRequest, "the body is %s, not an object", describeValue(v))
	}
	b.cs.sendsText = false
}

// join concatenates into new memory, never into a part's spare capacity.
func join(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// invalidUTF8 puts two bytes that are not UTF-8 at the start of the first
// string value of a JSON object (keys stay as they are, so that nothing
// else changes).
func invalidUTF8(raw []byte) []byte {
	bad := []byte{0xff, 0xfe}
	for _, start := range [][]byte{[]byte(`:"`), []byte(`["`)} {
		if i := bytes.Index(raw, start); i >= 0 {
			i += len(start)
			return join(raw[:i], bad, raw[i:])
		}
	}
	return join([]byte(`{"`), bad, []byte(`":1}`))
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return describeText(x)
	case nil:
		return "null"
	}
	raw, _ := marshal(v)
	return string(raw)
}
