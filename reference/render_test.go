package reference

import (
	"strings"
	"testing"
	"time"

	xhtml "golang.org/x/net/html"
)

const (
	anchorAttrs = `rel="nofollow noopener noreferrer" target="_blank" class="link"`
)

func mentionHTML(n string) string {
	return `<span data-link-type="mention" data-screen-name="` + n + `" class="mention">@` + n + `</span>`
}
func issueHTML(n string) string {
	return `<span data-link-type="issue" data-issue="` + n + `" class="issue">#` + n + `</span>`
}
func linkHTML(href, text string) string {
	return `<a href="` + href + `" ` + anchorAttrs + `>` + text + `</a>`
}

func TestRender(t *testing.T) {
	r := NewRenderer()
	cases := []struct {
		name, in, html         string
		urls, mentions, issues []string
	}{
		{name: "plain text loses the paragraph", in: "hello", html: "hello"},
		{name: "mention", in: "hi @ada!", html: "hi " + mentionHTML("ada") + "!", mentions: []string{"ada"}},
		{name: "mention with dash and underscore", in: "@ada_l-x,", html: mentionHTML("ada_l-x") + ",", mentions: []string{"ada_l-x"}},
		{name: "same mention twice is listed once", in: "@ada @ADA", html: mentionHTML("ada") + " " + mentionHTML("ADA"), mentions: []string{"ada"}},
		{name: "e-mail address is not a mention", in: "mail ada@example.com", html: "mail ada@example.com"},
		{name: "issue", in: "see #12.", html: "see " + issueHTML("12") + ".", issues: []string{"12"}},
		{name: "issue glued to a word is not one", in: "abc#12 #12abc", html: "abc#12 #12abc"},
		{name: "heading marker is not an issue", in: "# 12", html: "<h1>12</h1>"},
		{name: "code span keeps @ and #", in: "`@ada #12`", html: "<code>@ada #12</code>"},
		{name: "code block keeps @ and #", in: "```\n@ada #12\n```", html: "<pre><code>@ada #12\n</code></pre>"},
		{name: "indented code", in: "    @ada #3", html: "<pre><code>@ada #3\n</code></pre>"},
		{name: "nested markdown", in: "**bold _and @ada_** #4", html: "<strong>bold <em>and " + mentionHTML("ada") + "</em></strong> " + issueHTML("4"), mentions: []string{"ada"}, issues: []string{"4"}},
		{name: "URL with query and fragment", in: "go https://ex.com/a?b=c&d=e#f now", html: "go " + linkHTML("https://ex.com/a?b=c&amp;d=e#f", "https://ex.com/a?b=c&amp;d=e#f") + " now", urls: []string{"https://ex.com/a?b=c&d=e#f"}},
		{name: "URL with parentheses", in: "(see https://en.wikipedia.org/wiki/Go_(language))", html: "(see " + linkHTML("https://en.wikipedia.org/wiki/Go_(language)", "https://en.wikipedia.org/wiki/Go_(language)") + ")", urls: []string{"https://en.wikipedia.org/wiki/Go_(language)"}},
		{name: "URL fragment is not an issue", in: "https://ex.com/#12", html: linkHTML("https://ex.com/#12", "https://ex.com/#12"), urls: []string{"https://ex.com/#12"}},
		{name: "markdown link", in: "[docs](https://ex.com/d)", html: linkHTML("https://ex.com/d", "docs"), urls: []string{"https://ex.com/d"}},
		{name: "javascript link is not a link", in: "[x](javascript:alert(1))", html: "x"},
		{name: "script tag is escaped", in: "<script>alert('x')</script>", html: "&lt;script&gt;alert('x')&lt;/script&gt;"},
		{name: "inline tag is escaped", in: "a <b onclick=x>b</b>", html: "a &lt;b onclick=x&gt;b&lt;/b&gt;"},
		{name: "special characters", in: `5 > 3 & "q"`, html: "5 &gt; 3 &amp; &quot;q&quot;"},
		{name: "newline becomes br", in: "one\ntwo", html: "one<br>two"},
		{name: "two paragraphs keep their tags", in: "one\n\ntwo", html: "<p>one</p>\n<p>two</p>"},
		{name: "unicode", in: "naïve 日本語 @zoë #7", html: "naïve 日本語 @zoë " + issueHTML("7"), issues: []string{"7"}},
		{name: "strikethrough", in: "~~gone~~", html: "<del>gone</del>"},
	}
	for _, tc := range cases {
		got := r.Render(tc.in)
		if got.HTML != tc.html {
			t.Errorf("%s: %q\n got  %s\n want %s", tc.name, tc.in, got.HTML, tc.html)
		}
		for _, l := range []struct {
			what      string
			got, want []string
		}{{"urls", got.URLs, tc.urls}, {"mentions", got.Mentions, tc.mentions}, {"issues", got.Issues, tc.issues}} {
			if strings.Join(l.got, "|") != strings.Join(l.want, "|") {
				t.Errorf("%s: %s %q, want %q", tc.name, l.what, l.got, l.want)
			}
		}
	}
}

func TestRenderVeryLongText(t *testing.T) {
	in := strings.Repeat("@ada #1 https://ex.com/x <i> ", 2000)
	got := NewRenderer().Render(in)
	if strings.Contains(got.HTML, "<i>") || len(got.Mentions) != 1 || len(got.Issues) != 1 || len(got.URLs) != 2000 {
		t.Errorf("long text: %d mentions, %d issues, %d urls", len(got.Mentions), len(got.Issues), len(got.URLs))
	}
}

// FuzzRender renders arbitrary texts of a length the server accepts. Each
// must finish within renderHangBound (a hang detector, far above the few
// milliseconds a text takes; speed is measured by BenchmarkRender), pass no
// raw script tag, and link only to http, https or mailto targets.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"@ada #1", "<script>", "```\n@x\n```", "[a](b)", "https://x.y/(z)",
		"[x](java\tscript:alert(1))", strings.Repeat("a ", 2048), strings.Repeat("*a ", 1000), strings.Repeat("[a ", 1000)} {
		f.Add(s)
	}
	r := NewRenderer()
	f.Fuzz(func(t *testing.T, in string) {
		if CheckText(in) != nil {
			return // the server refuses it before rendering
		}
		done := make(chan Rendered, 1)
		go func() { done <- r.Render(in) }()
		var out Rendered
		select {
		case out = <-done:
		case <-time.After(renderHangBound):
			t.Fatalf("rendering %d bytes took over %v: %q", len(in), renderHangBound, in)
		}
		if strings.Contains(out.HTML, "<script") {
			t.Errorf("raw script tag survived: %q -> %q", in, out.HTML)
		}
		for _, u := range append(out.URLs, linkTargets(t, out.HTML)...) {
			if u := browserURL(u); !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "mailto:") {
				t.Errorf("%q: link target %q", in, u)
			}
		}
	})
}

// renderHangBound is how long one render may take in FuzzRender before the
// input counts as a hang.
const renderHangBound = 2 * time.Second

// scriptPayloads are link targets a browser would run as script (or that
// would smuggle data in), written the ways such targets are usually hidden.
var scriptPayloads = []string{
	"javascript:alert(1)",
	"JaVaScRiPt:alert(1)",
	"java\tscript:alert(1)",
	"java&#9;script:alert(1)",
	"java&#x0A;script:alert(1)",
	"&#106;avascript:alert(1)",
	"&#x6A;avascript:alert(1)",
	"javascript&colon;alert(1)",
	"&#1;javascript:alert(1)",
	"\x01javascript:alert(1)",
	"vbscript:msgbox(1)",
	"VBScript:msgbox(1)",
	"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
	"DATA:text/html,<script>alert(1)</script>",
	"file:///etc/passwd",
	"jav\u00e1script:alert(1)",
	"javascript%3Aalert(1)",
	"//evil.example/x",
}

// The usual script-URL payloads, as markdown links, pointy-bracket links,
// autolinks, images and reference links: none comes out as a link target.
func TestRenderScriptURLs(t *testing.T) {
	r := NewRenderer()
	for _, p := range scriptPayloads {
		for _, in := range []string{
			"[x](" + p + ")",
			"[x](<" + p + ">)",
			"[x]( " + p + " )",
			"<" + p + ">",
			"![x](" + p + ")",
			"[x][r]\n\n[r]: " + p,
			"see " + p,
		} {
			out := r.Render(in)
			for _, u := range out.URLs {
				t.Errorf("%q: urls holds %q", in, u)
			}
			for _, href := range linkTargets(t, out.HTML) {
				t.Errorf("%q: html links to %q (%s)", in, href, out.HTML)
			}
		}
	}
}

// Targets that are linked come out normalised as a browser reads them.
func TestRenderLinkNormalised(t *testing.T) {
	r := NewRenderer()
	for in, want := range map[string]string{
		"[x](HTTPS://ex.com/a)":     "https://ex.com/a",
		"[x](<ht\ttps://ex.com/a>)": "https://ex.com/a",
		"<mailto:ada@example.com>":  "mailto:ada@example.com",
		"<ada@example.com>":         "mailto:ada@example.com",
		"www.example.com/x":         "http://www.example.com/x",
		"ftp://example.com/x":       "",
		"[x](/relative/path)":       "",
	} {
		out := r.Render(in)
		got := strings.Join(out.URLs, " ")
		if got != want {
			t.Errorf("%q: urls %q, want %q", in, got, want)
		}
		hrefs := linkTargets(t, out.HTML)
		if want == "" && hrefs != nil || want != "" && (len(hrefs) != 1 || hrefs[0] != want) {
			t.Errorf("%q: html %s, want one link to %q", in, out.HTML, want)
		}
	}
}

// linkTargets parses rendered html as a browser would and returns every
// href and src in it, normalised by browserURL.
func linkTargets(t *testing.T, h string) []string {
	t.Helper()
	var out []string
	z := xhtml.NewTokenizer(strings.NewReader(h))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return out
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			for _, a := range tok.Attr {
				if a.Key == "href" || a.Key == "src" {
					out = append(out, browserURL(a.Val))
				}
			}
		}
	}
}

// browserURL applies the URL parser's first steps: drop leading and
// trailing C0 controls and spaces, remove tabs and newlines, lower-case the
// scheme.
func browserURL(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	if scheme, rest, ok := strings.Cut(s, ":"); ok && !strings.ContainsAny(scheme, "/?#") {
		return strings.ToLower(scheme) + ":" + rest
	}
	return s
}
