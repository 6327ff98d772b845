package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// encoders are what an output of the harness may do to a token: every
// single encoding and the chains of two and three that reports produce.
func encoders() map[string]func(string) string {
	base := map[string]func(string) string{
		"raw":        func(s string) string { return s },
		"json":       func(s string) string { b, _ := json.Marshal(s); return unquote(string(b)) },
		"jsonNoHTML": func(s string) string { return jsonString(s, false) },
		"jsonSlash":  func(s string) string { return strings.ReplaceAll(jsonString(s, false), "/", `\/`) },
		"jsonASCII":  func(s string) string { return unquote(strconv.QuoteToASCII(s)) },
		"quote":      func(s string) string { return unquote(strconv.Quote(s)) },
		"htmlTmpl":   func(s string) string { return htmltemplate.HTMLEscapeString(s) },
		"htmlAttr": func(s string) string {
			var b bytes.Buffer
			t := htmltemplate.Must(htmltemplate.New("").Parse(`<a title="{{.}}" data-x={{.}}>{{.}}</a><script>var x = {{.}};</script>`))
			_ = t.Execute(&b, s)
			return b.String()
		},
		"query":     url.QueryEscape,
		"path":      url.PathEscape,
		"urlLower":  func(s string) string { return lowerHex(url.QueryEscape(s)) },
		"jsonUpper": func(s string) string { return upperHex(jsonString(s, true)) },
		"numeric":   numericRefs,
		"allU":      allUnicodeEscapes,
		"allPct":    allPercent,
		"urlURL": func(s string) string {
			return (&url.URL{Scheme: "https", Host: "h", Path: "/p/" + s, RawQuery: url.Values{"access_token": {s}}.Encode()}).String()
		},
	}
	out := map[string]func(string) string{}
	for n, f := range base {
		out[n] = f
	}
	// Chains a report can produce: a URL or body in JSON, JSON in HTML, ...
	for _, chain := range [][]string{
		{"json", "htmlTmpl"}, {"htmlTmpl", "json"}, {"query", "json"}, {"query", "htmlTmpl"},
		{"json", "query"}, {"quote", "json"}, {"json", "json"}, {"htmlTmpl", "htmlTmpl"},
		{"query", "json", "htmlTmpl"}, {"htmlTmpl", "json", "htmlAttr"}, {"json", "quote", "json"},
		{"numeric", "json"}, {"allU", "htmlTmpl"}, {"jsonASCII", "htmlAttr"}, {"urlURL", "json", "htmlTmpl"},
		{"path", "quote"}, {"allPct", "json"}, {"jsonSlash", "htmlTmpl"},
	} {
		fs := make([]func(string) string, len(chain))
		for i, n := range chain {
			fs[i] = base[n]
		}
		out[strings.Join(chain, "+")] = func(s string) string {
			for _, f := range fs {
				s = f(s)
			}
			return s
		}
	}
	return out
}

// unquote drops the quotes an encoder put around a string.
func unquote(s string) string { return s[1 : len(s)-1] }

// lowerHex lower-cases the hex digits of %XX escapes.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lower(b[i+1]), lower(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func upperHex(s string) string {
	// Upper-case the hex digits of \u escapes only.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+5 < len(s) && s[i+1] == 'u' {
			b.WriteString(`\u` + strings.ToUpper(s[i+2:i+6]))
			i += 5
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func numericRefs(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r%2 == 0 {
			fmt.Fprintf(&b, "&#%d;", r)
		} else {
			fmt.Fprintf(&b, "&#X%X;", r)
		}
	}
	return b.String()
}

func allUnicodeEscapes(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0xFFFF {
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&b, `\u%04X\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func allPercent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// mixed escapes each character of s in a way picked at random.
func mixed(rng *rand.Rand, s string) string {
	var b strings.Builder
	for _, r := range s {
		ch := string(r)
		switch rng.IntN(6) {
		case 0:
			b.WriteString(ch)
		case 1:
			b.WriteString(allUnicodeEscapes(ch))
		case 2:
			b.WriteString(numericRefs(ch))
		case 3:
			b.WriteString(allPercent(ch))
		case 4:
			b.WriteString(htmltemplate.HTMLEscapeString(ch))
		case 5:
			b.WriteString(url.QueryEscape(ch))
		}
	}
	return b.String()
}

// tokenAlphabet holds the characters that escape differently in each format.
var tokenAlphabet = []rune(`abcXYZ078&<>+"'%/\ =?#;:-_.~é€中😀` + "\t")

func randomToken(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(tokenAlphabet[rng.IntN(len(tokenAlphabet))])
	}
	return b.String()
}

// The surroundings hold no character of any token above.
const before, after = "QW[", "]KJ"

func checkGone(t *testing.T, r *Redactor, tok, name, enc string) {
	t.Helper()
	text := before + enc + after
	got := r.String(text)
	if got != before+r.Marker()+after {
		t.Errorf("token %q, %s form %q: redacted to %q", tok, name, enc, got)
	}
}

func TestRedactorRemovesEveryEscapedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tokens := []string{"a", "&", "<>", "+", `"'`, "%41", "é", "😀", "a b", `\/`, "x&y<z>w+v\"u'", "0123456789abcdef"}
	for i := 0; i < 60; i++ {
		tokens = append(tokens, randomToken(rng, 1+rng.IntN(24)))
	}
	encs := encoders()
	for _, tok := range tokens {
		r := NewRedactor(tok)
		for name, enc := range encs {
			if name == "htmlAttr" || strings.HasSuffix(name, "+htmlAttr") || name == "urlURL" || strings.HasPrefix(name, "urlURL+") {
				// These surround the token with markup; check only that no
				// form is left.
				out := r.String(enc(tok))
				for n2, e2 := range encs {
					if strings.Contains(out, e2(tok)) && e2(tok) != "" {
						t.Errorf("token %q: %s output still holds its %s form: %q", tok, name, n2, out)
					}
				}
				continue
			}
			checkGone(t, r, tok, name, enc(tok))
		}
		for i := 0; i < 5; i++ {
			checkGone(t, r, tok, "mixed", mixed(rng, tok))
		}
	}
}

func TestRedactorManySecretsAndOverlaps(t *testing.T) {
	r := NewRedactor("abcdef", "def", "", "zzz")
	cases := map[string]string{
		"xabcdefx":           "x" + DefaultMarker + "x",
		"xdefx":              "x" + DefaultMarker + "x",
		"abcdezzz":           "abcde" + DefaultMarker,
		"abcdefzzz":          DefaultMarker + DefaultMarker,
		"ab%63def":           DefaultMarker,
		"no secret here":     "no secret here",
		"abc\\u0064ef &amp;": DefaultMarker + " &amp;",
	}
	for in, want := range cases {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	// Overlapping occurrences of two secrets are replaced as one.
	r2 := NewRedactor("abcd", "cdef")
	if got := r2.String("xxabcdefyy"); got != "xx"+DefaultMarker+"yy" {
		t.Errorf("overlap: %q", got)
	}
	var idx []int
	r3 := NewRedactor("one1", "two2")
	out := r3.ReplaceFunc("two2 one1", func(i int) string { idx = append(idx, i); return "<" + strconv.Itoa(i) + ">" })
	if out != "<1> <0>" || len(idx) != 2 {
		t.Errorf("ReplaceFunc: %q %v", out, idx)
	}
}

func TestRedactorMarkerNeverHoldsASecret(t *testing.T) {
	for _, secrets := range [][]string{{"E"}, {"E", "*"}, {"D", "*", "h", "#"}} {
		r := NewRedactor(secrets...)
		out := r.String("E*h#D")
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("secrets %q: %q still holds %q (marker %q)", secrets, out, s, r.Marker())
			}
		}
	}
}

func TestRedactorShortTokenIsReplacedEverywhere(t *testing.T) {
	// Documented trade-off: a one-character token blanks every occurrence.
	r := NewRedactor("a")
	if got := r.String("banana"); got != "b"+DefaultMarker+"n"+DefaultMarker+"n"+DefaultMarker {
		t.Errorf("%q", got)
	}
	if got := r.String("BANANA &#97;"); got != "BANANA "+DefaultMarker {
		t.Errorf("raw text is case-sensitive, escapes are not: %q", got)
	}
}

func TestRedactorCutKeepsNoPartOfASecret(t *testing.T) {
	tok := "secretTOKEN123"
	r := NewRedactor(tok)
	s := strings.Repeat("x", 95) + tok + strings.Repeat("y", 100)
	got := r.Cut(s, 100)
	want := strings.Repeat("x", 95) + DefaultMarker + "… [cut: 209 bytes total]"
	if got != want {
		t.Errorf("Cut = %q, want %q", got, want)
	}
	if got := r.Cut("short", 100); got != "short" {
		t.Errorf("no cut: %q", got)
	}
	if got := (*Redactor)(nil).Cut("ééé", 3); got != "é… [cut: 6 bytes total]" {
		t.Errorf("cut inside a rune: %q", got)
	}
}

func TestRedactorWriterMatchesString(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50; i++ {
		tok := randomToken(rng, 1+rng.IntN(12))
		r := NewRedactor(tok, "fixedsecret")
		encs := encoders()
		var text strings.Builder
		for name, enc := range encs {
			text.WriteString(name + " " + enc(tok) + " fixedsecret\n")
		}
		var out bytes.Buffer
		w := r.Writer(&out)
		rest := text.String()
		for rest != "" {
			n := min(len(rest), 1+rng.IntN(40))
			if _, err := w.Write([]byte(rest[:n])); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if want := r.String(text.String()); out.String() != want {
			t.Fatalf("token %q: writer output differs from String:\n%q\n%q", tok, out.String(), want)
		}
	}
}

func TestRedactorWriterReleasesPlainText(t *testing.T) {
	var out bytes.Buffer
	w := NewRedactor("tok3n").Writer(&out)
	_, _ = w.Write([]byte("progress: messages 12/68\n"))
	if out.String() != "progress: messages 12/68\n" {
		t.Errorf("plain text held back: %q", out.String())
	}
	_, _ = w.Write([]byte("a to"))
	if out.String() != "progress: messages 12/68\na " {
		t.Errorf("only a possible secret start may be held back: %q", out.String())
	}
	_, _ = w.Write([]byte("k3n!"))
	_ = w.Flush()
	if out.String() != "progress: messages 12/68\na "+DefaultMarker+"!" {
		t.Errorf("%q", out.String())
	}
}

func TestNilRedactor(t *testing.T) {
	var r *Redactor
	if r.String("x") != "x" || r.Error(nil) != nil || string(r.Bytes([]byte("y"))) != "y" {
		t.Error("a nil redactor must pass text through")
	}
}

func FuzzRedactor(f *testing.F) {
	f.Add("a&b<c>d+e\"f'g%h/i\\jé😀", "prefix ", " suffix")
	f.Add("t", "", "")
	encs := encoders()
	f.Fuzz(func(t *testing.T, tok, pre, post string) {
		if tok == "" || !utf8.ValidString(tok) || strings.Contains(tok+pre+post, "\x00") {
			return
		}
		r := NewRedactor(tok)
		for name, enc := range encs {
			e := enc(tok)
			// Markers stand apart: a token may be spelled across a marker
			// and its neighbours, but no original occurrence may survive.
			out := strings.ReplaceAll(r.String(pre+e+post), r.Marker(), "\x00")
			if strings.Contains(out, e) || strings.Contains(out, tok) {
				t.Fatalf("token %q: %s form %q survives in %q", tok, name, e, out)
			}
		}
	})
}

// cutBytes must give what Cut gives for the same text: secrets placed
// across the cut in each encoding, multi-byte runes around it, and no
// secrets at all.
func TestCutBytesIsCut(t *testing.T) {
	tok := "tok&en<2>+\"é"
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range []*Redactor{nil, NewRedactor(), NewRedactor(tok, "k9")} {
		for name, enc := range encoders() {
			for range 20 {
				limit := 1 + rng.IntN(60)
				var b strings.Builder
				for b.Len() < limit+rng.IntN(80) {
					switch rng.IntN(4) {
					case 0:
						b.WriteString(enc(tok))
					case 1:
						b.WriteString("é€")
					default:
						b.WriteByte(byte('a' + rng.IntN(26)))
					}
				}
				s := b.String()
				if got, want := r.cutBytes([]byte(s), limit), r.Cut(s, limit); got != want {
					t.Fatalf("%s, limit %d, %q:\ncutBytes %q\nCut      %q", name, limit, s, got, want)
				}
			}
		}
	}
}

func TestRedactorHeader(t *testing.T) {
	r := NewRedactor("s3cr3t-token")
	if r.Header(nil, true) != nil {
		t.Error("a nil header block redacted is not nil")
	}
	in := http.Header{
		"Authorization":       {" Bearer s3cr3t-token", "opaque"},
		"Proxy-Authorization": {"Basic anything"},
		"X-Access-Token":      {"whatever it holds"},
		"Cookie":              {"t=1"},
		"X-Echo":              {"was s3cr3t-token"},
	}
	want := http.Header{
		"Authorization":       {"Bearer REDACTED", "REDACTED"},
		"Proxy-Authorization": {"REDACTED"},
		"X-Access-Token":      {"REDACTED"},
		"Cookie":              {"REDACTED"},
		"X-Echo":              {"was REDACTED"},
	}
	if got := r.Header(in, true); !reflect.DeepEqual(got, want) {
		t.Errorf("request header:\n got %v\nwant %v", got, want)
	}
	// In a response, values holding a secret change, and a cookie's value
	// (a session is a credential) but not its name or attributes.
	resp := http.Header{"Set-Cookie": {"sid=abc123; Path=/; HttpOnly", "odd"}, "X-Echo": {"was s3cr3t-token"}}
	if got := r.Header(resp, false); !reflect.DeepEqual(got, http.Header{"Set-Cookie": {"sid=REDACTED; Path=/; HttpOnly", "REDACTED"}, "X-Echo": {"was REDACTED"}}) {
		t.Errorf("response header: %v", got)
	}
	if in.Get("X-Echo") != "was s3cr3t-token" {
		t.Error("the header block given was changed")
	}
}
