package reference

import (
	"strings"
	"testing"
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

func FuzzRender(f *testing.F) {
	for _, s := range []string{"@ada #1", "<script>", "```\n@x\n```", "[a](b)", "https://x.y/(z)"} {
		f.Add(s)
	}
	r := NewRenderer()
	f.Fuzz(func(t *testing.T, in string) {
		out := r.Render(in)
		if strings.Contains(out.HTML, "<script") {
			t.Errorf("raw script tag survived: %q -> %q", in, out.HTML)
		}
	})
}
