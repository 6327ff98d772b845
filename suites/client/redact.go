package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"
)

// Redactor removes secrets (the tokens of a run) from text by value.
//
// A secret is found in its raw form and in every escaped form an output of
// the harness can carry it in, character by character: each character of the
// secret may appear raw or as a JSON escape (\", \\, \/, \n, \uXXXX with a
// surrogate pair above U+FFFF), a Go or JavaScript escape (\xHH, \U00XXXXXX),
// an HTML character reference (&amp; &lt; &gt; &quot; &apos; &#DD; &#xHH;,
// with up to three leading zeros), or a URL escape (%XX of each UTF-8 byte,
// + for a space), and each of those may itself be escaped again by up to two
// further layers of JSON, HTML, JavaScript or URL escaping (JSON of an
// HTML-escaped string, HTML of a JSON string holding a URL, ...). Hex digits
// and entity names match in either case. Different characters of one secret
// may be escaped differently.
//
// A secret is replaced wherever it occurs, also inside a longer word: a token
// of one to three characters therefore also blanks out unrelated text that
// happens to contain it. That is deliberate: no output may carry a secret,
// and readable reports are the price of short tokens, not the other way
// round. Empty secrets are ignored.
//
// A Redactor is immutable and safe for concurrent use. The zero value and a
// nil *Redactor redact nothing.
type Redactor struct {
	secrets []*secretForms
	first   [256]bool // bytes that can start an encoded secret
	marker  string
	maxSpan int // longest text one encoded secret can cover
}

// DefaultMarker replaces each secret, unless a secret occurs in it.
const DefaultMarker = "REDACTED"

// markers are tried in order; the first in which no secret occurs is used.
var markers = [...]string{DefaultMarker, "***", "[hidden]", "###", "~~~", "…"}

type secretForms struct {
	index int        // position among the secrets given to NewRedactor
	chars []*charSet // one per character of the secret
	span  int        // longest encoded form of the whole secret
}

// charSet holds the forms of one character: the raw character, compared
// exactly, and its escapes, lower-cased in a trie and compared without
// regard to ASCII case (hex digits and entity names may come in either).
type charSet struct {
	raw     string
	escapes trieNode
	longest int
}

type trieNode struct {
	keys []byte
	kids []*trieNode
	end  bool // an escape ends here
}

func (n *trieNode) child(b byte) *trieNode {
	for i, k := range n.keys {
		if k == b {
			return n.kids[i]
		}
	}
	return nil
}

func (n *trieNode) insert(s string) {
	for i := 0; i < len(s); i++ {
		next := n.child(s[i])
		if next == nil {
			next = &trieNode{}
			n.keys, n.kids = append(n.keys, s[i]), append(n.kids, next)
		}
		n = next
	}
	n.end = true
}

func newCharSet(ch string, escapes []string) *charSet {
	c := &charSet{raw: ch, longest: len(ch)}
	for _, e := range escapes {
		c.escapes.insert(e)
		c.longest = max(c.longest, len(e))
	}
	return c
}

// prefixes appends to lens the length of every form of the character that
// s starts with, longest first; short is set when s ends inside a form.
func (c *charSet) prefixes(s string, lens []int) (_ []int, short bool) {
	n := &c.escapes
	for i := 0; ; i++ {
		if n.end {
			lens = append(lens, i)
		}
		if i == len(s) {
			short = len(n.keys) > 0
			break
		}
		if n = n.child(lower(s[i])); n == nil {
			break
		}
	}
	if strings.HasPrefix(s, c.raw) {
		lens = append(lens, len(c.raw))
	} else if strings.HasPrefix(c.raw, s) {
		short = true
	}
	slices.SortFunc(lens, func(a, b int) int { return b - a })
	return lens, short
}

// NewRedactor returns a Redactor for secrets. Secret i (counting from 0) is
// reported as index i by ReplaceFunc, so callers can map it back (to a user,
// for instance).
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	cache := map[string]*charSet{}
	for i, s := range secrets {
		if s == "" {
			continue
		}
		sf := &secretForms{index: i}
		for _, ch := range splitChars(s) {
			fs, ok := cache[ch]
			if !ok {
				fs = newCharSet(ch, escapesOf(ch))
				cache[ch] = fs
			}
			sf.chars = append(sf.chars, fs)
			sf.span += fs.longest
		}
		c0 := sf.chars[0]
		r.first[c0.raw[0]] = true
		for _, b := range c0.escapes.keys {
			r.first[b], r.first[upper(b)] = true, true
		}
		r.maxSpan = max(r.maxSpan, sf.span)
		r.secrets = append(r.secrets, sf)
	}
	// Longer secrets first, so that one secret holding another is replaced whole.
	sort.SliceStable(r.secrets, func(a, b int) bool { return len(r.secrets[a].chars) > len(r.secrets[b].chars) })
	for _, m := range markers {
		if !r.found(m) {
			r.marker = m
			break
		}
	}
	return r
}

// Marker returns the text that stands in for a secret.
func (r *Redactor) Marker() string {
	if r == nil || r.marker == "" && len(r.secrets) == 0 {
		return DefaultMarker
	}
	return r.marker
}

// String returns s with every secret replaced by the marker.
func (r *Redactor) String(s string) string {
	return r.ReplaceFunc(s, func(int) string { return r.Marker() })
}

// Bytes is String for a byte slice; b is not modified.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || len(r.secrets) == 0 {
		return b
	}
	return []byte(r.String(string(b)))
}

// Error returns an error whose text is err's, redacted; nil stays nil. The
// result wraps nothing: a wrapped error could still carry a secret.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(r.String(err.Error()))
}

// ReplaceFunc replaces each occurrence of a secret in s with repl(i), where
// i is the secret's index in NewRedactor's arguments.
func (r *Redactor) ReplaceFunc(s string, repl func(i int) string) string {
	if r == nil || len(r.secrets) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	r.scan(s, true, func(start, end, i int) {
		if last == 0 && b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString(repl(i))
		last = end
	})
	if last == 0 && b.Len() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Header returns a redacted copy of the header block h (nil for nil). In
// a request, the credential headers keep no value at all (Authorization its
// scheme word alone): Authorization, Proxy-Authorization, X-Access-Token
// and Cookie. Every other value is redacted by value (see String).
func (r *Redactor) Header(h http.Header, request bool) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		for _, v := range vs {
			out[k] = append(out[k], r.headerValue(k, v, request, 0))
		}
	}
	return out
}

// headerValue is value v of header k as Header keeps it, cut to about
// limit bytes as Cut does (no cut when limit <= 0).
func (r *Redactor) headerValue(k, v string, request bool, limit int) string {
	switch lk := strings.ToLower(k); {
	case request && lk == "authorization":
		if scheme, _, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
			return r.String(scheme) + " " + r.Marker()
		}
		return r.Marker()
	case request && (lk == "proxy-authorization" || lk == "x-access-token" || lk == "cookie"):
		return r.Marker()
	case !request && lk == "set-cookie":
		// A session cookie is a credential: its value goes, its name and
		// attributes stay (a replay still finds a cookie by its name).
		pair, attrs, ok := strings.Cut(v, ";")
		v = r.CookieValues(pair)
		if ok {
			v += ";" + attrs
		}
	}
	return r.Cut(v, limit)
}

// CookieValues is a Cookie header's value (name=value pairs separated by
// semicolons) with every cookie's value replaced by the marker: a session
// cookie is a credential the run did not choose, so no list of secrets
// holds it. Names stay; a pair without a name is replaced whole.
func (r *Redactor) CookieValues(v string) string {
	pairs := strings.Split(v, ";")
	for i, pair := range pairs {
		if name, _, ok := strings.Cut(pair, "="); ok {
			pairs[i] = name + "=" + r.Marker()
		} else {
			pairs[i] = r.Marker()
		}
	}
	return strings.Join(pairs, ";")
}

// Cut returns s redacted and shortened to about max bytes of its original
// text, followed by "… [cut: N bytes total]" when anything was left out. A
// secret that starts before the cut is replaced whole, so no part of it
// survives the cut. max <= 0 means no cut.
func (r *Redactor) Cut(s string, limit int) string {
	out, cut := r.cutFunc(s, limit, func(int) string { return r.Marker() })
	if cut {
		out += fmt.Sprintf("… [cut: %d bytes total]", len(s))
	}
	return out
}

// cutBytes is Cut(string(b), limit), without copying more of b than the
// window Cut reads (a body may be megabytes; a record keeps a few KiB).
func (r *Redactor) cutBytes(b []byte, limit int) string {
	if limit <= 0 || len(b) <= limit {
		return r.Cut(string(b), limit)
	}
	span := 1 // validCut looks at the byte at limit
	if r != nil {
		span = max(span, r.maxSpan)
	}
	out, _ := r.cutFunc(string(b[:min(len(b), limit+span)]), limit, func(int) string { return r.Marker() })
	return out + fmt.Sprintf("… [cut: %d bytes total]", len(b))
}

// cutFunc is ReplaceFunc keeping only the text before limit (counted in s);
// cut reports whether anything was left out.
func (r *Redactor) cutFunc(s string, limit int, repl func(int) string) (_ string, cut bool) {
	if limit <= 0 || len(s) <= limit {
		return r.ReplaceFunc(s, repl), false
	}
	var b strings.Builder
	last := 0
	if r != nil && len(r.secrets) > 0 {
		// A secret that starts before the cut ends within maxSpan of it:
		// the rest of s need not be read.
		window := s[:min(len(s), limit+r.maxSpan)]
		r.scan(window, true, func(start, end, i int) {
			if start >= limit {
				return
			}
			b.WriteString(s[last:start])
			b.WriteString(repl(i))
			last = end
		})
	}
	if last < limit {
		b.WriteString(s[last:validCut(s, limit)])
	}
	return b.String(), true
}

// validCut moves n back to the start of a UTF-8 sequence.
func validCut(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// found reports whether s holds a secret.
func (r *Redactor) found(s string) bool {
	hit := false
	r.scan(s, true, func(int, int, int) { hit = true })
	return hit
}

// scan calls hit for each occurrence of a secret in s, left to right, not
// overlapping; occurrences that overlap are merged into one. When final is
// false, s is the start of a longer text and scan returns the offset from
// which a secret might still begin (text before it is safe to release);
// otherwise it returns len(s).
func (r *Redactor) scan(s string, final bool, hit func(start, end, index int)) int {
	for i := 0; i < len(s); i++ {
		if !r.first[s[i]] {
			continue
		}
		end, idx, partial := r.longestAt(s, i, final)
		if partial {
			return i
		}
		if end < 0 {
			continue
		}
		// Extend over any occurrence that starts inside this one and ends later.
		for j := i + 1; j < end; j++ {
			if !r.first[s[j]] {
				continue
			}
			e, _, p := r.longestAt(s, j, final)
			if p {
				return i
			}
			end = max(end, e)
		}
		hit(i, end, idx)
		i = end - 1
	}
	return len(s)
}

// longestAt returns the end of the longest secret occurrence starting at i
// (-1 when none) and the index of that secret; partial is set when a secret
// could start at i but s ends first (only when !final).
func (r *Redactor) longestAt(s string, i int, final bool) (end, idx int, partial bool) {
	end = -1
	for _, sf := range r.secrets {
		m := matcher{s: s, start: i, final: final, sf: sf}
		e := m.match(i, 0)
		if m.partial {
			return -1, 0, true
		}
		if e > end {
			end, idx = e, sf.index
		}
	}
	return end, idx, false
}

type matcher struct {
	s       string
	start   int
	final   bool
	sf      *secretForms
	partial bool
	steps   int
	failed  map[[2]int]bool // (character, offset) pairs known not to lead to a match
}

// memoAfter is how many steps a match may take before failures are
// remembered: only text built to make forms overlap gets that far.
const memoAfter = 64

// match returns the end of a match of characters k... of the secret at pos,
// or -1.
func (m *matcher) match(pos, k int) int {
	if k == len(m.sf.chars) {
		return pos
	}
	key := [2]int{k, pos - m.start}
	if m.failed[key] {
		return -1
	}
	var buf [8]int
	lens, short := m.sf.chars[k].prefixes(m.s[pos:], buf[:0])
	if short && !m.final {
		m.partial = true
		return -1
	}
	for _, n := range lens {
		if e := m.match(pos+n, k+1); e >= 0 {
			return e
		}
		if m.partial {
			return -1
		}
	}
	if m.steps++; m.steps > memoAfter {
		if m.failed == nil {
			m.failed = map[[2]int]bool{}
		}
		m.failed[key] = true
	}
	return -1
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// splitChars cuts s into characters: runes, and single bytes where s is not
// valid UTF-8.
func splitChars(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		_, n := utf8.DecodeRuneInString(s[i:])
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}

// layers are the escapings applied over an already escaped character: what
// the JSON, HTML, JavaScript and URL encoders of Go and of common report
// tools do to a whole string.
var layers = []func(string) string{
	func(s string) string { return jsonString(s, true) },
	func(s string) string { return jsonString(s, false) },
	func(s string) string { return strings.ReplaceAll(jsonString(s, false), "/", `\/`) },
	func(s string) string { q := strconv.Quote(s); return q[1 : len(q)-1] },
	html.EscapeString,
	template.HTMLEscapeString,
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace, // html/template
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;").Replace,
	template.JSEscapeString,
	url.QueryEscape,
	url.PathEscape,
}

// depth is how many layers of escaping are undone: one escaping of the
// character plus two more over it.
const depth = 3

// escapesOf lists the escaped forms of character ch, lower-cased: escaped
// once in every way a single encoder escapes it, then up to depth-1 further
// layers.
func escapesOf(ch string) []string {
	seen := map[string]bool{}
	var escaped []string
	add := func(s string) bool {
		if s == ch {
			return false
		}
		ls := strings.ToLower(s)
		if seen[ls] {
			return false
		}
		seen[ls] = true
		escaped = append(escaped, ls)
		return true
	}
	for _, s := range singleEscapes(ch) {
		add(s)
	}
	for _, l := range layers {
		add(l(ch))
	}
	level := append([]string{ch}, escaped...)
	for d := 1; d < depth; d++ {
		var next []string
		for _, f := range level {
			for _, l := range layers {
				if e := l(f); add(e) {
					next = append(next, strings.ToLower(e))
				}
			}
		}
		level = next
	}
	return escaped
}

// singleEscapes are the ways one character is escaped on its own, by an
// encoder that escapes more than it must.
func singleEscapes(ch string) []string {
	var out []string
	r, size := utf8.DecodeRuneInString(ch)
	if r == utf8.RuneError && size <= 1 { // a byte of invalid UTF-8
		b := ch[0]
		return []string{fmt.Sprintf("%%%02x", b), fmt.Sprintf(`\x%02x`, b), `\ufffd`, "&#65533;", "&#xfffd;"}
	}
	// JSON and JavaScript \uXXXX, with a surrogate pair above U+FFFF.
	if r > 0xFFFF {
		r1, r2 := utf16Pair(r)
		out = append(out, fmt.Sprintf(`\u%04x\u%04x`, r1, r2), fmt.Sprintf(`\U%08x`, r))
	} else {
		out = append(out, fmt.Sprintf(`\u%04x`, r))
	}
	if r < 0x100 {
		out = append(out, fmt.Sprintf(`\x%02x`, r))
	}
	switch r {
	case '"', '\\', '/':
		out = append(out, `\`+ch)
	case '\n':
		out = append(out, `\n`)
	case '\t':
		out = append(out, `\t`)
	case '\r':
		out = append(out, `\r`)
	case '\b':
		out = append(out, `\b`)
	case '\f':
		out = append(out, `\f`)
	case '&':
		out = append(out, "&amp;")
	case '<':
		out = append(out, "&lt;")
	case '>':
		out = append(out, "&gt;")
	case '\'':
		out = append(out, `\'`, "&apos;")
	case ' ':
		out = append(out, "+")
	}
	if r == '"' {
		out = append(out, "&quot;")
	}
	// HTML numeric character references, with up to three leading zeros.
	for z := 0; z <= 3; z++ {
		pad := strings.Repeat("0", z)
		out = append(out, fmt.Sprintf("&#%s%d;", pad, r), fmt.Sprintf("&#x%s%x;", pad, r))
	}
	// Percent-encoding of every UTF-8 byte.
	var pct strings.Builder
	for i := 0; i < len(ch); i++ {
		fmt.Fprintf(&pct, "%%%02x", ch[i])
	}
	out = append(out, pct.String())
	return out
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// jsonString is the JSON encoding of s without its quotes.
func jsonString(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// Writer returns a writer that redacts what goes through it to w. It holds
// back only the tail of the text where a secret might begin but is not yet
// complete; Close (or Flush) releases it. The writer is not safe for
// concurrent use.
func (r *Redactor) Writer(w io.Writer) *Writer {
	return &Writer{r: r, w: w}
}

// Writer is a redacting io.Writer; see Redactor.Writer.
type Writer struct {
	r   *Redactor
	w   io.Writer
	buf []byte
}

// Write redacts p and passes on everything that cannot be the start of a
// secret split across writes. It reports len(p) written unless w fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if err := w.release(false); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes on everything held back.
func (w *Writer) Flush() error { return w.release(true) }

// Close flushes; it does not close the underlying writer.
func (w *Writer) Close() error { return w.Flush() }

func (w *Writer) release(final bool) error {
	if len(w.buf) == 0 {
		return nil
	}
	s := string(w.buf)
	if w.r == nil || len(w.r.secrets) == 0 {
		final = true
	}
	var out strings.Builder
	last := 0
	safe := len(s)
	if w.r != nil && len(w.r.secrets) > 0 {
		safe = w.r.scan(s, final, func(start, end, _ int) {
			out.WriteString(s[last:start])
			out.WriteString(w.r.Marker())
			last = end
		})
	}
	out.WriteString(s[last:safe])
	w.buf = append(w.buf[:0], s[safe:]...)
	if out.Len() == 0 {
		return nil
	}
	_, err := io.WriteString(w.w, out.String())
	return err
}
