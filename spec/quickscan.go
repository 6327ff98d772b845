package spec

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// The quick path judges a body straight from its bytes: building the
// map[string]any that kin-openapi walks costs more than the checks
// themselves. scan reads the JSON text as encoding/json would (the same
// grammar, only stricter where that is simpler: any text it is not sure of
// makes the whole body "unsure"), and applies a check to each value as it
// goes, as kin-openapi would apply the schema to the decoded value.
//
// A value always reads to its end, even once it is known to be invalid, so
// that a later syntax error or a repeated key (encoding/json keeps the last
// one) still makes the answer "unsure": "invalid" is then exact, which not,
// oneOf and anyOf rely on, since they judge the same bytes once per branch.

// maxDepth bounds nesting; encoding/json allows 10,000 levels.
const maxDepth = 512

type scan struct {
	data   []byte
	pos    int
	depth  int
	broken bool // not JSON as encoding/json reads it, or too deep: unsure
	run    *quickRun
}

// scanBody judges a response body under k. Like kin-openapi, which decodes
// the first JSON value of the body, it ignores what follows that value; only
// an object or an array is judged.
func scanBody(body []byte, k *check, run *quickRun) verdict {
	s := scan{data: body, run: run}
	s.space()
	if s.pos >= len(s.data) || s.data[s.pos] != '[' && s.data[s.pos] != '{' {
		return unsure
	}
	v := s.value(k)
	if s.broken {
		return unsure
	}
	return v
}

func (s *scan) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// and is the verdict of two conditions that must both hold.
func and(a, b verdict) verdict {
	switch {
	case a == invalid || b == invalid:
		return invalid
	case a == unsure || b == unsure:
		return unsure
	}
	return valid
}

// value reads the value at s.pos and judges it under k (nil: any value
// passes, as where kin-openapi has no schema to apply).
func (s *scan) value(k *check) verdict {
	s.space()
	if s.pos >= len(s.data) {
		s.broken = true
		return unsure
	}
	switch {
	case k == nil:
		s.skip()
		return valid
	case k.unsupported:
		s.skip()
		return unsure
	case s.data[s.pos] == 'n':
		if !s.literal("null") {
			return unsure
		}
		if k.nullable {
			return valid
		}
		return unsure // not, oneOf and the like may still admit null; kin-openapi decides
	case k.empty:
		s.skip()
		return valid
	}
	out := valid
	if k.not != nil || len(k.oneOf)+len(k.anyOf)+len(k.allOf) > 0 {
		out = s.combined(k)
		if s.broken {
			return unsure
		}
	}
	switch c := s.data[s.pos]; {
	case c == 't' || c == 'f':
		b, word := c == 't', "false"
		if b {
			word = "true"
		}
		if !s.literal(word) {
			return unsure
		}
		out = and(out, enumHas(k, b))
		return and(out, is(k.types.Permits(openapi3.TypeBoolean)))
	case c == '"':
		str, ok := s.str(k.needsText())
		if !ok {
			return unsure
		}
		if len(k.enum) > 0 {
			out = and(out, enumHas(k, str))
		}
		return and(out, s.run.str(k, str))
	case c == '-' || c >= '0' && c <= '9':
		start := s.pos
		if !s.number() {
			return unsure
		}
		if len(k.enum) > 0 {
			out = invalid // enums hold strings and booleans only
		}
		return and(out, s.run.number(k, json.Number(s.data[start:s.pos])))
	case c == '[':
		return and(out, s.array(k))
	case c == '{':
		return and(out, s.object(k))
	}
	s.broken = true
	return unsure
}

// combined judges the value at s.pos under k's not, oneOf, anyOf and allOf,
// reading it once per branch, and leaves s.pos where it was.
func (s *scan) combined(k *check) verdict {
	start := s.pos
	branch := func(b *check) verdict {
		s.pos = start
		return s.value(b)
	}
	defer func() { s.pos = start }()
	out := valid
	if k.not != nil {
		switch branch(k.not) {
		case valid:
			out = invalid
		case unsure:
			out = unsure
		}
	}
	if len(k.oneOf) > 0 {
		matched, sure := 0, true
		for _, b := range k.oneOf {
			switch branch(b) {
			case valid:
				matched++
			case unsure:
				sure = false
			}
		}
		switch {
		case !sure:
			out = and(out, unsure)
		case matched != 1:
			out = invalid
		}
	}
	if len(k.anyOf) > 0 {
		some := invalid
		for _, b := range k.anyOf {
			switch branch(b) {
			case valid:
				some = valid
			case unsure:
				if some == invalid {
					some = unsure
				}
			}
		}
		out = and(out, some)
	}
	for _, b := range k.allOf {
		out = and(out, branch(b))
	}
	return out
}

// enumHas judges a string or boolean against k's enum (none: any passes).
func enumHas(k *check, v any) verdict {
	if len(k.enum) == 0 {
		return valid
	}
	for _, e := range k.enum {
		if e == v {
			return valid
		}
	}
	return invalid
}

// needsText reports whether judging a string under k needs its decoded text.
func (k *check) needsText() bool {
	return len(k.enum) > 0 || k.minLength != 0 || k.maxLength != nil || k.pattern != nil || k.format != nil
}

func (s *scan) literal(word string) bool {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		s.broken = true
		return false
	}
	s.pos += len(word)
	return true
}

// number reads a number of the JSON grammar.
func (s *scan) number() bool {
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		s.broken = true
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.broken = true
			return false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.broken = true
			return false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return true
}

// rawString reads a string of the JSON grammar and returns the bytes between
// its quotes and whether they hold an escape or a byte above ASCII.
func (s *scan) rawString() (raw []byte, plain bool, ok bool) {
	d := s.data
	i := s.pos + 1 // past the opening quote
	start := i
	plain = true
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return d[start:i], plain, true
		case c < 0x20:
			s.broken = true
			return nil, false, false
		case c == '\\':
			plain = false
			if i+1 >= len(d) {
				s.broken = true
				return nil, false, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					s.broken = true
					return nil, false, false
				}
				i += 6
			default:
				s.broken = true
				return nil, false, false
			}
		default:
			if c >= utf8.RuneSelf {
				plain = false
			}
			i++
		}
	}
	s.broken = true
	return nil, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// str reads a string; with text, it returns the string encoding/json
// decodes (escapes resolved, invalid UTF-8 replaced), else "".
func (s *scan) str(text bool) (string, bool) {
	start := s.pos
	raw, plain, ok := s.rawString()
	if !ok || !text {
		return "", ok
	}
	if plain || utf8.Valid(raw) && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true
	}
	var out string
	if json.Unmarshal(s.data[start:s.pos], &out) != nil {
		s.broken = true
		return "", false
	}
	return out, true
}

// key reads an object key and returns its decoded bytes.
func (s *scan) key() ([]byte, bool) {
	start := s.pos
	raw, plain, ok := s.rawString()
	if !ok {
		return nil, false
	}
	if plain || utf8.Valid(raw) && bytes.IndexByte(raw, '\\') < 0 {
		return raw, true
	}
	var out string
	if json.Unmarshal(s.data[start:s.pos], &out) != nil {
		s.broken = true
		return nil, false
	}
	return []byte(out), true
}

// skip reads any value, judging nothing.
func (s *scan) skip() {
	s.space()
	if s.pos >= len(s.data) {
		s.broken = true
		return
	}
	switch c := s.data[s.pos]; {
	case c == 'n':
		s.literal("null")
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == '"':
		s.rawString()
	case c == '-' || c >= '0' && c <= '9':
		s.number()
	case c == '[':
		s.array(nil)
	case c == '{':
		s.object(nil)
	default:
		s.broken = true
	}
}

// array reads an array and judges it under k (nil: syntax only).
func (s *scan) array(k *check) verdict {
	s.depth++
	defer func() { s.depth-- }()
	if s.depth > maxDepth {
		s.broken = true
		return unsure
	}
	out := valid
	var items *check
	if k != nil {
		if !k.types.Permits(openapi3.TypeArray) {
			out = invalid
			k = nil // read the rest for syntax only
		} else {
			items = k.items
		}
	}
	s.pos++ // [
	s.space()
	n := uint64(0)
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
	} else {
		for !s.broken {
			if k != nil {
				out = and(out, s.value(items))
			} else {
				s.skip()
			}
			n++
			s.space()
			if s.pos >= len(s.data) {
				s.broken = true
				break
			}
			if s.data[s.pos] == ',' {
				s.pos++
				continue
			}
			if s.data[s.pos] == ']' {
				s.pos++
				break
			}
			s.broken = true
		}
	}
	if s.broken {
		return unsure
	}
	if k != nil && (n < k.minItems || k.maxItems != nil && n > *k.maxItems) {
		out = invalid
	}
	return out
}

// maxKeys bounds the keys of an object judged against a schema; a bigger
// one is left to kin-openapi.
const maxKeys = 256

// object reads an object and judges it under k (nil: syntax only).
func (s *scan) object(k *check) verdict {
	s.depth++
	defer func() { s.depth-- }()
	if s.depth > maxDepth {
		s.broken = true
		return unsure
	}
	out := valid
	if k != nil && !k.types.Permits(openapi3.TypeObject) {
		out = invalid
		k = nil
	}
	var buf [32][]byte
	seen := buf[:0]
	doubt := false // a repeated key (encoding/json keeps the last value) or too many keys
	s.pos++        // {
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
	} else {
		for !s.broken {
			s.space()
			if s.pos >= len(s.data) || s.data[s.pos] != '"' {
				s.broken = true
				break
			}
			name, ok := s.key()
			if !ok {
				break
			}
			s.space()
			if s.pos >= len(s.data) || s.data[s.pos] != ':' {
				s.broken = true
				break
			}
			s.pos++
			if k == nil {
				s.skip()
			} else {
				for _, n := range seen {
					if bytes.Equal(n, name) {
						doubt = true
					}
				}
				if len(seen) == maxKeys {
					doubt = true
				} else {
					seen = append(seen, name)
				}
				p, known := k.properties[string(name)]
				switch {
				case known:
					out = and(out, s.value(p))
				case !k.additionalAllowed:
					out = invalid
					s.skip()
				default:
					out = and(out, s.value(k.additionalProperties))
				}
			}
			s.space()
			if s.pos >= len(s.data) {
				s.broken = true
				break
			}
			if s.data[s.pos] == ',' {
				s.pos++
				continue
			}
			if s.data[s.pos] == '}' {
				s.pos++
				break
			}
			s.broken = true
		}
	}
	if s.broken || doubt {
		return unsure
	}
	if k == nil {
		return out
	}
	n := uint64(len(seen))
	if n < k.minProps || k.maxProps != nil && n > *k.maxProps {
		out = and(out, invalid)
	}
	for _, want := range k.required {
		found := false
		for _, name := range seen {
			if string(name) == want {
				found = true
				break
			}
		}
		if !found {
			out = and(out, invalid)
		}
	}
	return out
}
