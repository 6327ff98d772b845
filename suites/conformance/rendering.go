package conformance

import (
	"regexp"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/suites/markup"
)

type element = markup.Element

// elements parses a message's html as a fragment, the way a browser would,
// and returns every element with its class and text.
func (e *Env) elements(fragment string) []element {
	GinkgoHelper()
	els, err := markup.Parse(fragment)
	e.Expect(err).NotTo(HaveOccurred(), "html %q does not parse", fragment)
	return els
}

// textOfFragment is the text a browser would show for an html fragment.
func (e *Env) textOfFragment(fragment string) string {
	GinkgoHelper()
	text, err := markup.Text(fragment)
	e.Expect(err).NotTo(HaveOccurred(), "html %q does not parse", fragment)
	return text
}

func withClass(els []element, tag, class string) []element {
	var out []element
	for _, e := range els {
		if e.HasClass(tag, class) {
			out = append(out, e)
		}
	}
	return out
}

func renderingSpecs(d decl) {
	Describe("Message rendering", func() {
		d.it("wraps a mention of a user in a span with class mention and lists it", reqs("RENDER-MENTION", "META-MENTIONS"), func(e *Env) {
			e.needUsers(2)
			_, marker := e.text()
			// Two mentions, of two users: each is wrapped and listed.
			m := e.send(0, e.writeRoom(), "@"+e.Users[1].Username+" hello "+marker+" cc @"+e.Users[0].Username)
			// The html and the list are judged each on its own (holds).
			els := e.elements(m.HTML)
			e.holds("RENDER-MENTION", func(g Gomega) {
				var shown []string
				for _, span := range withClass(els, "span", "mention") {
					shown = append(shown, span.Text)
				}
				g.Expect(shown).To(ConsistOf("@"+e.Users[1].Username, "@"+e.Users[0].Username), "mention spans of a text with two mentions; html: %s", m.HTML)
			})
			e.verifies("META-MENTIONS", func() {
				e.Expect(m.Mentions).To(ContainElements(MentionRef{ScreenName: e.Users[1].Username, UserID: e.me(1)}, MentionRef{ScreenName: e.Users[0].Username, UserID: e.me(0)}),
					"mentions of a text with two mentions")
				status := e.sendBody(0, e.writeRoom(), map[string]any{"text": "waves at @" + e.Users[1].Username + " " + marker, "status": true})
				e.Expect(status.Mentions).To(ContainElement(MentionRef{ScreenName: e.Users[1].Username, UserID: e.me(1)}), "mentions of a status update with a mention")
			})
		})

		d.it("wraps an issue reference in a span with class issue and lists its number as a string", reqs("RENDER-ISSUE", "META-ISSUES"), func(e *Env) {
			_, marker := e.text()
			m := e.send(0, e.writeRoom(), "fixed in #4321 "+marker)
			els := e.elements(m.HTML)
			e.holds("RENDER-ISSUE", func(g Gomega) {
				spans := withClass(els, "span", "issue")
				g.Expect(spans).To(HaveLen(1), "html: %s", m.HTML)
				g.Expect(spans[0].Text).To(Equal("#4321"))
			})
			e.verifies("META-ISSUES", func() { e.Expect(m.Issues).To(ContainElement(IssueRef{Number: "4321"})) })
		})

		d.it("turns a URL into an anchor with class link and lists it", reqs("RENDER-LINK", "META-URLS"), func(e *Env) {
			_, marker := e.text()
			// Three links, https and http, one with a query and a fragment,
			// one with a path, one the bare host: each becomes an anchor and
			// is listed.
			urls := []string{"https://example.com/" + marker + "?a=1&b=2#frag", "http://example.org/" + marker + "/plain", "https://example.net"}
			m := e.send(0, e.writeRoom(), "see "+urls[0]+"\nand "+urls[1]+" please, or "+urls[2]+" for the start")
			els := e.elements(m.HTML)
			e.holds("RENDER-LINK", func(g Gomega) {
				anchors := withClass(els, "a", "link")
				g.Expect(anchors).To(HaveLen(len(urls)), "anchors of a text with %d links; html: %s", len(urls), m.HTML)
				// A server may normalise a URL (escape it, drop a default port):
				// the link must lead to the same place, not be the same bytes.
				for _, url := range urls {
					g.Expect(anchors).To(ContainElement(WithTransform(func(a element) bool { return markup.SameURL(a.Attrs["href"], url) }, BeTrue())),
						"no link's href leads to %q; html: %s", url, m.HTML)
				}
			})
			e.verifies("META-URLS", func() {
				for _, url := range urls {
					e.Expect(m.URLs).To(ContainElement(WithTransform(func(u URLRef) bool { return markup.SameURL(u.URL, url) }, BeTrue())), "urls %v do not list %q", m.URLs, url)
				}
			})
		})

		d.it("renders the new text after an edit: markup and metadata follow the text", reqs("MSG-EDIT", "RENDER-MENTION", "RENDER-ISSUE", "RENDER-LINK", "META-URLS", "META-MENTIONS", "META-ISSUES"), func(e *Env) {
			// Each statement is judged on its own (holds): a mention not
			// rendered leaves the issue, the link and the lists judged.
			e.needUsers(2)
			room := e.writeRoom()
			_, marker := e.text()
			m := e.send(0, room, "nothing to render yet "+marker)
			e.holds("META-MENTIONS", func(g Gomega) { g.Expect(m.Mentions).To(BeEmpty(), "mentions of a text without a mention") })
			url := "https://example.com/" + marker
			newText := "now @" + e.Users[1].Username + " #808 " + url + " " + marker
			edited := e.edit(0, room, m.ID, newText)
			e.holdsLater("MSG-EDIT", (edited.ID == "" || edited.ID == m.ID) && (edited.Text == "" || edited.Text == newText), // an absent field is the shape's
				"an edit of %s to %q answered message %s with the text %q", m.ID, newText, edited.ID, edited.Text)
			var readBack Message
			e.step("MSG-EDIT-PERSISTED", func() { // rendering is judged on the new text, once it is there
				e.eventually(func(g Gomega) {
					readBack = e.peek(g, 1, room, m.ID)
					g.Expect(readBack.Text).To(Equal(newText), "user 2 reads the edited message")
				})
			})
			for _, got := range []Message{edited, readBack} {
				els := e.elements(got.HTML)
				e.holds("RENDER-MENTION", func(g Gomega) {
					g.Expect(withClass(els, "span", "mention")).To(HaveLen(1), "html after the edit: %s", got.HTML)
				})
				e.holds("RENDER-ISSUE", func(g Gomega) {
					g.Expect(withClass(els, "span", "issue")).To(HaveLen(1), "html after the edit: %s", got.HTML)
				})
				e.holds("RENDER-LINK", func(g Gomega) {
					g.Expect(withClass(els, "a", "link")).To(HaveLen(1), "html after the edit: %s", got.HTML)
				})
				e.holds("META-MENTIONS", func(g Gomega) {
					g.Expect(got.Mentions).To(ContainElement(MentionRef{ScreenName: e.Users[1].Username, UserID: e.me(1)}), "mentions after the edit")
				})
				e.holds("META-ISSUES", func(g Gomega) {
					g.Expect(got.Issues).To(ContainElement(IssueRef{Number: "808"}), "issues after the edit")
				})
				e.holds("META-URLS", func(g Gomega) {
					g.Expect(got.URLs).To(ContainElement(WithTransform(func(u URLRef) bool { return markup.SameURL(u.URL, url) }, BeTrue())), "urls after the edit")
				})
			}
			e.by("editing the mention, issue and link away again")
			e.edit(0, room, m.ID, "nothing left "+marker)
			var plain Message
			e.step("MSG-EDIT-PERSISTED", func() {
				e.eventually(func(g Gomega) { // how soon another user sees a write is not shown
					plain = e.peek(g, 1, room, m.ID)
					g.Expect(plain.Text).To(Equal("nothing left " + marker))
				})
			})
			els := e.elements(plain.HTML)
			e.holds("RENDER-MENTION", func(g Gomega) {
				g.Expect(withClass(els, "span", "mention")).To(BeEmpty(), "html still shows a mention: %s", plain.HTML)
			})
			e.holds("RENDER-ISSUE", func(g Gomega) {
				g.Expect(withClass(els, "span", "issue")).To(BeEmpty(), "html still shows an issue: %s", plain.HTML)
			})
			e.holds("RENDER-LINK", func(g Gomega) {
				g.Expect(withClass(els, "a", "link")).To(BeEmpty(), "html still shows a link: %s", plain.HTML)
			})
			e.holds("META-MENTIONS", func(g Gomega) { g.Expect(plain.Mentions).To(BeEmpty(), "mentions after the mention was edited away") })
			e.holds("META-ISSUES", func(g Gomega) { g.Expect(plain.Issues).To(BeEmpty(), "issues after the issue was edited away") })
			e.holds("META-URLS", func(g Gomega) { g.Expect(plain.URLs).To(BeEmpty(), "urls after the link was edited away") })
		})

		d.it("escapes special characters and never passes markup through", reqs("RENDER-ESCAPE"), func(e *Env) {
			_, marker := e.text()
			room := e.writeRoom()
			// Markup on the first line and after a line break.
			text := `<script>alert("x")</script> <b>bold?</b> 1 < 2 & 3 > 2 ` + marker + "\n<i>second</i> line & <iframe src=x></iframe> and `<b>code</b>`"
			m := e.send(0, room, text)
			e.escaped(m, `<script>alert("x")</script>`, "1 < 2 & 3 > 2", "<i>second</i> line & ", "<b>code</b>")
			e.by("sending markup beside markdown's own marks (emphasis, a list, a quote): a text that takes another rendering path is escaped too")
			// Markdown's emphasis may become elements of its own (em, strong,
			// even b or i), so only the elements typed as text are looked for.
			marked := e.send(0, room, "*starred* and **strong** and _under_ <iframe src=y></iframe> & "+marker+"\n- item <img src=x>\n> quoted <script>x()</script>")
			e.escapedAs(marked, []string{"script", "img", "iframe"}, "<iframe src=y></iframe> & ", "item <img src=x>", "quoted <script>x()</script>")
			e.by("editing the text to other markup: the edit's html is escaped too")
			edited := e.edit(0, room, m.ID, `<b>edited</b> & <img src=x> `+marker)
			e.escaped(edited, "<b>edited</b> & ")
		})

		d.it("leaves @names and #numbers in code alone", reqs("REF-HTML"), func(e *Env) {
			e.needUsers(2)
			_, marker := e.text()
			m := e.send(0, e.writeRoom(), "`@"+e.Users[1].Username+" #77` "+marker)
			els := e.elements(m.HTML)
			e.Expect(withClass(els, "span", "mention")).To(BeEmpty(), "html: %s", m.HTML)
			e.Expect(withClass(els, "span", "issue")).To(BeEmpty(), "html: %s", m.HTML)
		})
	})
}

// escaped checks that m's html shows each of texts as text, with no
// element the text spelled and no bare &.
func (e *Env) escaped(m Message, texts ...string) {
	GinkgoHelper()
	e.escapedAs(m, []string{"script", "b", "i", "img", "iframe"}, texts...)
}

// escapedAs is escaped where the text's own markup was typed with the
// elements tags only.
func (e *Env) escapedAs(m Message, tags []string, texts ...string) {
	GinkgoHelper()
	for _, el := range e.elements(m.HTML) {
		e.Expect(slices.Contains(tags, el.Tag)).To(BeFalse(), "html %q holds a <%s> element", m.HTML, el.Tag)
	}
	// Escaped characters read back as the text that was sent, whichever
	// escape (&lt; or &#60;) the server chose.
	shown := e.textOfFragment(m.HTML)
	for _, t := range texts {
		e.Expect(shown).To(ContainSubstring(t), "html %q", m.HTML)
	}
	// Escaped means every & in the html starts a character reference: a
	// browser forgives a bare "& ", the document does not.
	e.Expect(bareAmpersand(m.HTML)).To(BeEmpty(), "html %q holds an unescaped &", m.HTML)
}

// characterReference is what may follow an & in escaped html.
var characterReference = regexp.MustCompile(`^&([a-zA-Z][a-zA-Z0-9]*|#[0-9]+|#[xX][0-9a-fA-F]+);`)

// bareAmpersand returns the html from its first & that starts no
// character reference on (a few characters of it), or "".
func bareAmpersand(html string) string {
	for i := 0; i < len(html); i++ {
		if html[i] == '&' && !characterReference.MatchString(html[i:]) {
			return html[i:min(len(html), i+12)]
		}
	}
	return ""
}
