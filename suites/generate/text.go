package generate

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// alphabet is a set of characters a generated text draws from.
type alphabet struct {
	name  string
	runes []rune
}

// The alphabets of generated texts. Together they cover one-, two-, three-
// and four-byte UTF-8, characters outside the Basic Multilingual Plane
// (two UTF-16 units each), right-to-left scripts and direction marks,
// combining marks, joiners and variation selectors, and the characters
// that markdown and HTML give a meaning to.
var (
	asciiLetters = alphabet{"ascii", []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,!?-")}
	latin        = alphabet{"accented latin", []rune("éüñçßøåÆœŁžđ")}
	cjk          = alphabet{"CJK and Hangul", []rune("漢字中文日本語한국어")}
	emoji        = alphabet{"emoji", []rune{'😀', '🎉', '🚀', '👍', 0x1F3FD, '❤', 0xFE0F, '👩', 0x200D, '💻', '𝄞', '🀄'}}
	rtl          = alphabet{"right-to-left", []rune("שלום עולם مرحبا بالعالم\u200f\u200e\u202b\u202c")}
	combining    = alphabet{"combining marks", []rune("ae\u0301\u0308\u0323\u20dd\u0336o")}
	markup       = alphabet{"markup", []rune("<>&\"'*_`#@[]()\\/|~")}
	// controls holds control characters JSON must escape; a server may
	// refuse them (see refusal reasons), but must not fail on them.
	controls = alphabet{"control characters", []rune{0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x1b, 0x7f, 0x9f}}
)

var textAlphabets = []alphabet{asciiLetters, latin, cjk, emoji, rtl, combining, markup}

// units is the length of s in UTF-16 code units: how the reference profile
// counts text length (REF-TEXT-LENGTH), and what kin-openapi means to count.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			return true
		}
	}
	return false
}

// runesFrom makes n characters of an alphabet from one drawn number: a
// text is one decision, not one per character, which keeps shrinking short.
// The number shrinks to 0, which walks the alphabet in order.
func runesFrom(c chooser, label string, a alphabet, n int) []rune {
	seed := c.vary(label+" characters", 0, 1<<30)
	out := make([]rune, n)
	for i := range out {
		out[i] = a.runes[(seed+i*(1+seed%7))%len(a.runes)]
	}
	return out
}

// shortText is a text of 1 to 40 characters from one or two alphabets.
func shortText(c chooser, label string, a alphabet) string {
	n := c.vary(label+" length", 1, 40)
	rs := runesFrom(c, label, a, n)
	if chance(c, label+" mixed", 40) {
		b := anyOf(c, label+" second alphabet", textAlphabets)
		rs = append(rs, runesFrom(c, label+" second", b, c.vary(label+" second length", 1, 20))...)
	}
	s := string(rs)
	if blank(s) {
		s = "x" + s
	}
	return s
}

// longText repeats a drawn chunk until the text is exactly n UTF-16 units
// long (a trailing two-unit character that does not fit is replaced by a
// one-unit one).
func longText(c chooser, label string, a alphabet, n int) string {
	chunk := runesFrom(c, label+" chunk", a, c.vary(label+" chunk length", 1, 8))
	var b strings.Builder
	used := 0
	for i := 0; used < n; i++ {
		r := chunk[i%len(chunk)]
		if r == ' ' && used == 0 {
			r = 'x' // never start blank
		}
		w := utf16.RuneLen(r)
		if used+w > n {
			r, w = 'é', 1
		}
		b.WriteRune(r)
		used += w
	}
	return b.String()
}

// describeText renders a text for a one-line description: short texts
// quoted whole, long ones by their start and their size.
func describeText(s string) string {
	if len([]rune(s)) <= 24 {
		return fmt.Sprintf("%q", s)
	}
	rs := []rune(s)
	return fmt.Sprintf("%q… (%d characters, %d UTF-16 units, %d bytes)", string(rs[:12]), len(rs), units(s), len(s))
}
