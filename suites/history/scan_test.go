package history

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"testing"
	"unicode/utf8"
)

var testSeed = maphash.MakeSeed()

func hashOf(t *testing.T, doc string) uint64 {
	t.Helper()
	var s scanner
	s.reset([]byte(doc), testSeed)
	h := s.hashValue()
	if !s.end() {
		t.Fatalf("%s: not one JSON value", doc)
	}
	return h
}

func TestHashValue(t *testing.T) {
	same := [][2]string{
		{`{"a":1,"b":[1,2]}`, ` { "b" : [ 1 , 2 ] , "a" : 1 } `},
		{`"é/😀"`, `"\u00e9\/\ud83d\ude00"`},
		{`"\ud800x"`, `"\ufffdx"`}, // a lone surrogate reads as U+FFFD, as encoding/json reads it
		{`{}`, `{ }`},
		{`[]`, "[\n]"},
	}
	for _, p := range same {
		if hashOf(t, p[0]) != hashOf(t, p[1]) {
			t.Errorf("%s and %s hash differently", p[0], p[1])
		}
	}
	differ := [][2]string{
		{`[1,2]`, `[2,1]`}, {`"1"`, `1`}, {`{"a":1}`, `{"b":1}`}, {`{"a":1,"b":2}`, `{"a":2,"b":1}`},
		{`[[1],[2]]`, `[[1,2]]`}, {`null`, `false`}, {`[]`, `{}`}, {`""`, `[]`}, {`1`, `1.0`},
	}
	for _, p := range differ {
		if hashOf(t, p[0]) == hashOf(t, p[1]) {
			t.Errorf("%s and %s hash the same", p[0], p[1])
		}
	}
	if hashOf(t, `[]`) != emptyArray || hashOf(t, `{}`) != emptyObject {
		t.Error("the hashes of absent lists and meta are not those of empty ones")
	}
}

func TestScannerRefusesWhatIsNotJSON(t *testing.T) {
	for _, doc := range []string{``, `[`, `[1,]`, `{"a"}`, `{"a":1,}`, `[1 2]`, `"abc`, `"\x"`, `"\u12"`, `tru`, `01x`, `-`, `1.`, `1e`, `[1] [2]`,
		string(bytes.Repeat([]byte("["), maxDepth+1)) + string(bytes.Repeat([]byte("]"), maxDepth+1))} {
		var s scanner
		s.reset([]byte(doc), testSeed)
		s.skip()
		if s.end() {
			t.Errorf("%q read as JSON", doc)
		}
	}
}

func TestInstants(t *testing.T) {
	in := func(s string) instant {
		i, ok := parseInstant([]byte(s))
		if !ok {
			t.Fatalf("%s: not read", s)
		}
		return i
	}
	cases := []struct {
		a, b string
		cmp  int
	}{
		{"2026-11-02T08:00:00.250Z", "2026-11-02t08:00:00.250z", 0},
		{"2026-11-02T08:00:00.250Z", "2026-11-02T08:00:00.250000+00:00", 0},
		{"2026-11-02T08:00:00.250Z", "2026-11-02T09:00:00.250+01:00", 0},
		{"2026-11-02T08:00:00.999Z", "2026-11-02T08:00:00Z", 0}, // to the second: the same second
		{"2026-11-02T08:00:00.250Z", "2026-11-02T08:00:00.251Z", -1},
		{"2026-11-02T08:00:01Z", "2026-11-02T08:00:00.999Z", 0}, // cut or rounded: less than a second apart
		{"2026-11-02T08:00:02Z", "2026-11-02T08:00:00.999Z", 1},
		{"2026-11-02T08:00:00.000001Z", "2026-11-02T08:00:00.000Z", 0},
	}
	for _, c := range cases {
		if got := cmpInstant(in(c.a), in(c.b)); got != c.cmp {
			t.Errorf("cmp(%s, %s) = %d, want %d", c.a, c.b, got, c.cmp)
		}
	}
	for _, bad := range []string{"", "yesterday", "2026-11-02", "2026-11-02 08:00:00Z", "2026-13-02T08:00:00Z"} {
		if _, ok := parseInstant([]byte(bad)); ok {
			t.Errorf("%q read as a time", bad)
		}
	}
}

// FuzzString compares the strings the scanner reads with encoding/json's.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9\/\"\\\b\f\n\r\t"`, `"\ud83d\ude00"`, `"\ud800\u0041"`, `"\udc00"`, `"é"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var want string
		if json.Unmarshal([]byte(doc), &want) != nil || !utf8.ValidString(doc) {
			return
		}
		var s scanner
		s.reset([]byte(doc), testSeed)
		s.ws()
		if s.peek() != '"' {
			return
		}
		got := s.str()
		if !s.end() || string(got) != want {
			t.Fatalf("%q: read %q, encoding/json reads %q", doc, got, want)
		}
	})
}
