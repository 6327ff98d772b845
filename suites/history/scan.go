package history

import (
	"bytes"
	"hash/maphash"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON reader: the checker takes a few fields out of each answer
// and hashes others, and decoding whole pages into maps would cost more
// than the rest of the checker together. It reads the grammar encoding/json
// reads (a duplicate key: the last one counts), but is lenient where the
// facts do not depend on it (control characters inside strings, invalid
// UTF-8). Any syntax error makes the whole answer unusable: the caller drops
// every fact of it.

// maxDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxDepth = 256

type scanner struct {
	b     []byte
	i     int
	depth int
	bad   bool
	arena []byte // unescaped strings live here
	seed  maphash.Seed
}

func (s *scanner) reset(b []byte, seed maphash.Seed) {
	s.b, s.i, s.depth, s.bad, s.arena, s.seed = b, 0, 0, false, s.arena[:0], seed
}

func (s *scanner) fail() {
	s.bad = true
	s.i = len(s.b)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte that is not white space (0 at the end).
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only white space is left: a body is one JSON value.
func (s *scanner) end() bool {
	s.ws()
	return !s.bad && s.i == len(s.b)
}

// rawString reads a string and returns the bytes between its quotes, and
// whether they hold an escape; with check, the escapes are validated (str
// validates them as it decodes them).
func (s *scanner) rawString(check bool) (raw []byte, escaped bool) {
	if s.peek() != '"' {
		s.fail()
		return nil, false
	}
	s.i++
	start := s.i
	// Most strings are short and plain (keys, ids, times): a plain loop
	// finds their end sooner than IndexByte, which pays off from a few
	// dozen bytes on.
	short := s.b[start:min(start+24, len(s.b))]
	for k, c := range short {
		if c == '"' {
			s.i = start + k + 1
			return short[:k], false
		}
		if c == '\\' {
			break
		}
	}
	for {
		j := bytes.IndexByte(s.b[s.i:], '"')
		if j < 0 {
			s.fail()
			return nil, false
		}
		k := s.i + j
		n := 0
		for p := k - 1; p >= start && s.b[p] == '\\'; p-- {
			n++
		}
		s.i = k + 1
		if n > 0 {
			escaped = true
		}
		if n%2 == 0 {
			raw = s.b[start:k]
			if !escaped {
				escaped = bytes.IndexByte(raw, '\\') >= 0
			}
			return s.checked(raw, escaped, check)
		}
	}
}

func (s *scanner) checked(raw []byte, escaped, check bool) ([]byte, bool) {
	if escaped && check && !validEscapes(raw) {
		s.fail()
		return nil, false
	}
	return raw, escaped
}

// str reads a string and returns its value, unescaped.
func (s *scanner) str() []byte {
	raw, escaped := s.rawString(false)
	if s.bad || !escaped {
		return raw
	}
	return s.unescape(raw)
}

// validEscapes reports whether every escape of a string's raw text is one
// JSON allows.
func validEscapes(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+1 >= len(raw) {
			return false
		}
		switch raw[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if _, ok := hex4(raw[i+2:]); !ok {
				return false
			}
			i += 5
		default:
			return false
		}
	}
	return true
}

// unescape decodes the escapes of raw into the arena. The result stays
// valid when the arena grows later (it then moves, the old array stays).
func (s *scanner) unescape(raw []byte) []byte {
	start := len(s.arena)
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := bytes.IndexByte(raw[i:], '\\')
			if j < 0 {
				j = len(raw) - i
			}
			s.arena = append(s.arena, raw[i:i+j]...)
			i += j
			continue
		}
		if i+1 >= len(raw) {
			s.fail()
			return nil
		}
		switch e := raw[i+1]; e {
		case '"', '\\', '/':
			s.arena = append(s.arena, e)
		case 'b':
			s.arena = append(s.arena, '\b')
		case 'f':
			s.arena = append(s.arena, '\f')
		case 'n':
			s.arena = append(s.arena, '\n')
		case 'r':
			s.arena = append(s.arena, '\r')
		case 't':
			s.arena = append(s.arena, '\t')
		case 'u':
			r, ok := hex4(raw[i+2:])
			if !ok {
				s.fail()
				return nil
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// A pair makes one character; a lone half becomes U+FFFD,
				// as encoding/json decodes it.
				if r2, ok := hex4(raw[min(i+2, len(raw)):]); ok && i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						s.arena = utf8.AppendRune(s.arena, d)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			s.arena = utf8.AppendRune(s.arena, r)
			continue
		default:
			s.fail()
			return nil
		}
		i += 2
	}
	return s.arena[start:len(s.arena):len(s.arena)]
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// object reads an object, calling member for each key with the scanner
// placed on the value, which member must read (or skip). It reports false,
// reading nothing, when the next value is not an object.
func (s *scanner) object(member func(key []byte)) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		s.fail()
		return true
	}
	if !s.eat('}') {
		for !s.bad {
			key := s.str()
			if !s.eat(':') {
				s.fail()
				break
			}
			s.ws()
			at := s.i
			member(key)
			if s.i == at && !s.bad { // a member that did not read its value
				s.skip()
			}
			if s.eat(',') {
				continue
			}
			if !s.eat('}') {
				s.fail()
			}
			break
		}
	}
	s.depth--
	return true
}

// array reads an array, calling elem with the scanner on each element,
// which elem must read (or skip). It reports false, reading nothing, when
// the next value is not an array.
func (s *scanner) array(elem func()) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		s.fail()
		return true
	}
	if !s.eat(']') {
		for !s.bad {
			s.ws()
			at := s.i
			elem()
			if s.i == at && !s.bad {
				s.skip()
			}
			if s.eat(',') {
				continue
			}
			if !s.eat(']') {
				s.fail()
			}
			break
		}
	}
	s.depth--
	return true
}

// skip reads any value.
func (s *scanner) skip() {
	switch c := s.peek(); c {
	case '"':
		s.rawString(true)
	case '{':
		s.object(func([]byte) { s.skip() })
	case '[':
		s.array(s.skip)
	case 't':
		s.word("true")
	case 'f':
		s.word("false")
	case 'n':
		s.word("null")
	default:
		s.number()
	}
}

func (s *scanner) word(w string) {
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return
	}
	s.fail()
}

// number reads a number and returns its text.
func (s *scanner) number() []byte {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		s.fail()
		return nil
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			s.fail()
			return nil
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			s.fail()
			return nil
		}
	}
	return s.b[start:s.i]
}

// integer reads a value and returns it when it is an integer that fits an
// int32 (what the checker compares: v, readBy, limits).
func (s *scanner) integer() (int32, bool) {
	c := s.peek()
	if c != '-' && (c < '0' || c > '9') {
		s.skip()
		return 0, false
	}
	n, err := strconv.ParseInt(string(s.number()), 10, 32)
	return int32(n), err == nil
}

// boolean reads a value: 1 for true, 0 for false, -1 for anything else
// (null included).
func (s *scanner) boolean() int8 {
	switch s.peek() {
	case 't':
		s.word("true")
		return 1
	case 'f':
		s.word("false")
		return 0
	}
	s.skip()
	return -1
}

// null reads a null and reports true, or reports false and reads nothing.
func (s *scanner) null() bool {
	if s.peek() != 'n' {
		return false
	}
	s.word("null")
	return true
}

// optString reads a value and returns it when it is a string.
func (s *scanner) optString() ([]byte, bool) {
	if s.peek() != '"' {
		s.skip()
		return nil, false
	}
	return s.str(), !s.bad
}

// Hashes of values, to tell two answers apart without keeping them. Member
// order within an object does not count (members are summed), element order
// within an array does; strings are hashed unescaped, numbers as written.

// Distinct starting values per kind of value (arbitrary odd constants).
const (
	tagString uint64 = 0x9e3779b97f4a7c15
	tagNumber uint64 = 0xc2b2ae3d27d4eb4f
	tagTrue   uint64 = 0x165667b19e3779f9
	tagFalse  uint64 = 0x27d4eb2f165667c5
	tagNull   uint64 = 0x85ebca77c2b2ae63
	tagArray  uint64 = 0xff51afd7ed558ccd
	tagObject uint64 = 0xc4ceb9fe1a85ec53
)

// mix folds b into a, so that mix(a, b) != mix(b, a).
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a^0x2d358dccaa6c78a5, b^0x8bb84b93962eacc9)
	return hi ^ lo
}

func (s *scanner) hashBytes(b []byte) uint64 {
	return maphash.Bytes(s.seed, b)
}

// hashValue reads any value and returns its hash.
func (s *scanner) hashValue() uint64 {
	switch c := s.peek(); c {
	case '"':
		return mix(tagString, s.hashBytes(s.str()))
	case '{':
		var sum uint64
		s.object(func(key []byte) {
			k := s.hashBytes(key)
			sum += mix(k, s.hashValue())
		})
		return mix(tagObject, sum)
	case '[':
		h := tagArray
		s.array(func() { h = mix(h, s.hashValue()) })
		return h
	case 't':
		s.word("true")
		return tagTrue
	case 'f':
		s.word("false")
		return tagFalse
	case 'n':
		s.word("null")
		return tagNull
	}
	return mix(tagNumber, s.hashBytes(s.number()))
}

// The hashes of an empty array and an empty object: an absent list or meta
// counts as an empty one (whether a field may be left out is a question of
// shape, judged elsewhere).
var (
	emptyArray  = tagArray
	emptyObject = mix(tagObject, 0)
)
