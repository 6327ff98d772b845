package selftest

import (
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// renderingFaults break the requirements of rendering and metadata (RENDER-*,
// META-*): a message's html, and the urls, mentions and issues derived from
// its text.
func renderingFaults() []Fault {
	return []Fault{
		ByClass.fault("RENDER-MENTION/stale-derived", "html is not rendered again after an edit", staleAfterEdit("html")),
		FirstCatalogue.fault("RENDER-MENTION/shape", "mentions are left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = mentionSpan.ReplaceAllString(asString(m["html"]), "@$1")
			})),
		ByClass.fault("RENDER-MENTION/shape#2", "mention spans have class user-mention", rewriteHTML("msgs", replacer(`class="mention"`, `class="user-mention"`))),
		BlindRound1.fault("RENDER-MENTION/shape#3", "only the first mention of a text is wrapped in a span",
			messages("msgs", func(c *call, m map[string]any) {
				n := 0
				m["html"] = mentionSpan.ReplaceAllStringFunc(asString(m["html"]), func(s string) string {
					if n++; n == 1 {
						return s
					}
					return mentionSpan.ReplaceAllString(s, "@$1")
				})
			})),
		BlindRound2.fault("RENDER-MENTION/shape#4", "a mention at the very start of the text is left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				h := asString(m["html"])
				if loc := mentionSpan.FindStringSubmatchIndex(h); loc != nil && loc[0] == 0 {
					m["html"] = "@" + h[loc[2]:loc[3]] + h[loc[1]:]
				}
			})),
		ByClass.fault("RENDER-MENTION/intermittent", "one message in three leaves mentions as plain text",
			everyNth(3, "sendMessage", rewriteHTML("sendMessage", func(s string) string { return mentionSpan.ReplaceAllString(s, "@$1") }))),

		ByClass.fault("RENDER-ISSUE/stale-derived", "an edit's html has issue spans without a class", rewriteHTML("updateMessage", replacer(` class="issue"`, ``))),
		FirstCatalogue.fault("RENDER-ISSUE/shape", "issue spans have class ref instead of issue",
			messages("sendMessage", func(c *call, m map[string]any) {
				m["html"] = strings.ReplaceAll(asString(m["html"]), `class="issue"`, `class="ref"`)
			})),
		ByClass.fault("RENDER-ISSUE/shape#2", "issue references are anchors with class link", rewriteHTML("msgs", replacer(`<span data-link-type="issue"`, `<a`, `class="issue">`, `class="link">`))),
		BlindRound2.fault("RENDER-ISSUE/shape#3", "issue references of four digits or more are left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = longIssue.ReplaceAllString(asString(m["html"]), "#$1")
			})),
		ByClass.fault("RENDER-ISSUE/intermittent", "one message in three has issue spans with class ref", everyNth(3, "sendMessage", rewriteHTML("sendMessage", replacer(`class="issue"`, `class="ref"`)))),

		FirstCatalogue.fault("RENDER-LINK/shape", "link anchors have no class",
			messages("sendMessage", func(c *call, m map[string]any) {
				m["html"] = strings.ReplaceAll(asString(m["html"]), ` class="link"`, ``)
			})),
		ByClass.fault("RENDER-LINK/shape#2", "link anchors have no href", rewriteHTML("msgs", func(s string) string { return hrefAttr.ReplaceAllString(s, "") })),
		ByClass.fault("RENDER-LINK/shape#3", "link anchors have class url", rewriteHTML("msgs", replacer(`class="link"`, `class="url"`))),
		BlindRound1.fault("RENDER-LINK/shape#4", "http links (not https) are left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = httpAnchor.ReplaceAllString(asString(m["html"]), "$1")
			})),
		BlindRound2.fault("RENDER-LINK/shape#5", "links with a query string are left as plain text",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = queryAnchor.ReplaceAllString(asString(m["html"]), "$1")
			})),
		ByClass.fault("RENDER-LINK/intermittent", "one message in three has link anchors without a class", everyNth(3, "sendMessage", rewriteHTML("sendMessage", replacer(` class="link"`, ``)))),

		FirstCatalogue.fault("RENDER-ESCAPE/shape", "raw HTML in the text is passed through",
			messages("msgs", func(c *call, m map[string]any) { m["html"] = html.UnescapeString(asString(m["html"])) })),
		ByClass.fault("RENDER-ESCAPE/shape#2", "ampersands are not escaped", rewriteHTML("msgs", replacer("&amp;", "&"))),
		ByClass.fault("RENDER-ESCAPE/shape#3", "special characters are escaped twice", rewriteHTML("msgs", replacer("&lt;", "&amp;lt;", "&gt;", "&amp;gt;"))),
		BlindRound1.fault("RENDER-ESCAPE/shape#4", "only the first line of a text is escaped; raw HTML after a line break passes through",
			messages("msgs", func(c *call, m map[string]any) {
				h := asString(m["html"])
				i := strings.Index(h, "<br>")
				if j := strings.Index(h, "</p>"); j >= 0 && (i < 0 || j < i) {
					i = j
				}
				if i >= 0 {
					m["html"] = h[:i] + htmlUnescape(h[i:])
				}
			})),
		BlindRound1.fault("RENDER-ESCAPE/shape#5", "an edited message's html is the raw new text, neither escaped nor rendered",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				text := asString(c.jsonBody()["text"])
				x := next()
				if m, ok := x.get().(map[string]any); ok && x.ok() {
					c.st.setValue("b-raw:"+c.msg, text)
					m["html"] = text
				}
				return x
			}),
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if v, ok := c.st.value("b-raw:" + asString(m["id"])); ok {
					m["html"] = v
				}
			})),
		BlindRound2.fault("RENDER-ESCAPE/shape#6", "raw HTML inside a code span passes through unescaped",
			messages("msgs", func(c *call, m map[string]any) {
				m["html"] = codeSpan.ReplaceAllStringFunc(asString(m["html"]), htmlUnescape)
			})),
		ByClass.fault("RENDER-ESCAPE/intermittent", "one message in three passes raw HTML through", everyNth(3, "sendMessage", rewriteHTML("sendMessage", htmlUnescape))),

		BlindRound1.fault("META-URLS/wrong-subject", "urls lists only the first URL of the text",
			messages("msgs", func(c *call, m map[string]any) {
				if l := asList(m["urls"]); len(l) > 1 {
					m["urls"] = l[:1]
				}
			})),
		BlindRound2.fault("META-URLS/wrong-subject#2", "urls lists only the URLs of the text's first line",
			messages("msgs", func(c *call, m map[string]any) {
				text := asString(m["text"])
				if i := strings.IndexAny(text, "\r\n"); i >= 0 {
					first := map[string]any{}
					c.st.rendered(first, text[:i])
					m["urls"] = first["urls"]
				}
			})),
		ByClass.fault("META-URLS/stale-derived", "urls of an edited message keep their old list", staleAfterEdit("urls")),
		FirstCatalogue.fault("META-URLS/shape", "urls is always empty",
			messages("sendMessage", func(c *call, m map[string]any) { m["urls"] = []any{} })),
		ByClass.fault("META-URLS/shape#2", "urls are listed without their query and fragment",
			messages("msgs", func(c *call, m map[string]any) {
				each(m["urls"], func(u map[string]any) {
					s := asString(u["url"])
					if i := strings.IndexAny(s, "?#"); i >= 0 {
						u["url"] = s[:i]
					}
				})
			})),
		ByClass.fault("META-URLS/intermittent", "one message in three lists no urls", everyNth(3, "sendMessage", sentMessage(func(c *call, m map[string]any) { m["urls"] = []any{} }))),

		ByClass.fault("META-MENTIONS/wrong-subject", "a mention's userId is the sender's id",
			messages("msgs", func(c *call, m map[string]any) {
				from, _ := m["fromUser"].(map[string]any)
				each(m["mentions"], func(r map[string]any) { r["userId"] = from["id"] })
			})),
		BlindRound1.fault("META-MENTIONS/wrong-subject#2", "every mention's userId is the first user's id",
			messages("msgs", func(c *call, m map[string]any) {
				each(m["mentions"], func(r map[string]any) { r["userId"] = c.st.first.ID })
			})),
		ByClass.fault("META-MENTIONS/stale-derived", "mentions of an edited message keep their old list", staleAfterEdit("mentions")),
		BlindRound2.fault("META-MENTIONS/stale-derived#2", "status updates list no mentions",
			messages("msgs", func(c *call, m map[string]any) {
				if m["status"] == true {
					m["mentions"] = []any{}
				}
			})),
		FirstCatalogue.fault("META-MENTIONS/shape", "mentions is always empty",
			messages("sendMessage", func(c *call, m map[string]any) { m["mentions"] = []any{} })),
		ByClass.fault("META-MENTIONS/shape#2", "mentions carry no screenName", messages("msgs", func(c *call, m map[string]any) {
			each(m["mentions"], func(r map[string]any) { delete(r, "screenName") })
		})),

		ByClass.fault("META-ISSUES/wrong-subject", "issues is always empty", messages("msgs", func(c *call, m map[string]any) { m["issues"] = []any{} })),
		ByClass.fault("META-ISSUES/stale-derived", "issues of an edited message keep their old list", staleAfterEdit("issues")),
		BlindRound1.fault("META-ISSUES/not-stored", "issues are listed in the send's answer only; lists and reads by id say []",
			messages("listMessages getMessage", func(c *call, m map[string]any) { m["issues"] = []any{} })),
		FirstCatalogue.fault("META-ISSUES/shape", "issue numbers are JSON numbers",
			messages("sendMessage", func(c *call, m map[string]any) {
				each(m["issues"], func(o map[string]any) {
					n, _ := strconv.Atoi(asString(o["number"]))
					o["number"] = n
				})
			})),
		ByClass.fault("META-ISSUES/shape#2", "issue numbers keep their #", messages("msgs", func(c *call, m map[string]any) {
			each(m["issues"], func(r map[string]any) { r["number"] = "#" + asString(r["number"]) })
		})),
		Independent.fault("RENDER-ESCAPE/shape#7", independentWhat("html-unescaped")).inIndependent("html-unescaped"),
	}
}

// renderingVariants choose differently in how a message's html and the
// addresses it lists are spelled.
func renderingVariants() []Variant {
	return []Variant{
		{Name: "links-respelled", Origin: Assumptions, What: "spells the address of every link and listed url with an upper-case host and the default port",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				m["html"] = hrefAttr.ReplaceAllStringFunc(asString(m["html"]), func(a string) string {
					v := strings.TrimSuffix(strings.TrimPrefix(a, ` href="`), `"`)
					return ` href="` + respell(htmlUnescape(v), true) + `"`
				})
				each(m["urls"], func(u map[string]any) { u["url"] = respell(asString(u["url"]), false) })
			})}},
		{Name: "numeric-entities", Origin: BlindRound1, What: "escapes special characters in html as numeric character references (&#60; not &lt;)",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				m["html"] = numericEntities.Replace(asString(m["html"]))
			})}},
		{Name: "markup-respelled", Origin: BlindRound1, What: "writes mention, issue and link markup with other attribute order, an extra class, and single quotes on issue spans",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				h := asString(m["html"])
				h = mentionOpen.ReplaceAllString(h, `<span class="chat-mention mention" data-screen-name="$1" data-link-type="mention">`)
				h = issueOpen.ReplaceAllString(h, `<span class='issue' data-issue='$1' data-link-type='issue'>`)
				h = linkOpen.ReplaceAllString(h, `<a class="link external" target="_blank" rel="$2" href="$1">`)
				m["html"] = h
			})}},
		{Name: "html-paragraphs-kept", Origin: BlindRound1, What: "keeps the <p> element around a text of one paragraph",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				h := asString(m["html"])
				for _, block := range []string{"<p>", "<ul", "<ol", "<pre", "<blockquote", "<h", "<table", "<hr", "<div"} {
					if strings.HasPrefix(h, block) {
						return
					}
				}
				if h != "" {
					m["html"] = "<p>" + h + "</p>"
				}
			})}},
		{Name: "unknown-mentions-plain", Origin: BlindRound2, What: "leaves @name as plain text when no user has that name (the reference wraps it in a mention span anyway; unsure: the document may count any @name as a mention)",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				m["html"] = mentionSpan.ReplaceAllStringFunc(asString(m["html"]), func(span string) string {
					name := mentionSpan.FindStringSubmatch(span)[1]
					for _, u := range c.st.world.Users {
						if strings.EqualFold(u.Username, name) {
							return span
						}
					}
					return "@" + name
				})
			})}},
	}
}

var (
	mentionSpan     = regexp.MustCompile(`<span data-link-type="mention" data-screen-name="[^"]*" class="mention">@([^<]*)</span>`)
	hrefAttr        = regexp.MustCompile(` href="[^"]*"`)
	httpAnchor      = regexp.MustCompile(`<a href="http://[^"]*"[^>]*>([^<]*)</a>`)
	codeSpan        = regexp.MustCompile(`(?s)<code>.*?</code>`)
	longIssue       = regexp.MustCompile(`<span data-link-type="issue" data-issue="([0-9]{4,})" class="issue">#[0-9]+</span>`)
	queryAnchor     = regexp.MustCompile(`<a href="[^"]*\?[^"]*"[^>]*>([^<]*)</a>`)
	mentionOpen     = regexp.MustCompile(`<span data-link-type="mention" data-screen-name="([^"]*)" class="mention">`)
	issueOpen       = regexp.MustCompile(`<span data-link-type="issue" data-issue="([^"]*)" class="issue">`)
	linkOpen        = regexp.MustCompile(`<a href="([^"]*)" rel="([^"]*)" target="_blank" class="link">`)
	numericEntities = strings.NewReplacer("&lt;", "&#60;", "&gt;", "&#62;", "&amp;", "&#38;", "&quot;", "&#34;")
)

// rewriteHTML rewrites the html of every message of the successful
// replies of ops.
func rewriteHTML(ops string, f func(string) string) step {
	return messages(ops, func(c *call, m map[string]any) { m["html"] = f(asString(m["html"])) })
}

// staleAfterEdit answers an edit (and later reads) with the field as it was
// before the edit.
func staleAfterEdit(field string) step {
	return func(c *call, next func() *reply) *reply {
		if c.op == "updateMessage" {
			old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
			x := next()
			if x.ok() && old != nil {
				c.st.setValue(field+":"+c.msg, old[field])
				each(x.get(), func(m map[string]any) { m[field] = old[field] })
			}
			return x
		}
		x := next()
		if matches("listMessages getMessage", c.op) && x.ok() {
			each(x.get(), func(m map[string]any) {
				if v, ok := c.st.value(field + ":" + asString(m["id"])); ok {
					m[field] = v
				}
			})
		}
		return x
	}
}

func replacer(oldnew ...string) func(string) string {
	r := strings.NewReplacer(oldnew...)
	return r.Replace
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&").Replace(s)
}

// respell writes an http(s) address with its scheme and host in upper case
// and the default port spelled out: the same resource, other bytes. inHTML
// escapes the result for an attribute.
func respell(raw string, inHTML bool) string {
	out := raw // an address with a port, or none it can read, is kept as it is (escaped again in html)
	if u, err := url.Parse(raw); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Port() == "" {
		port := map[string]string{"https": "443", "http": "80"}[u.Scheme]
		out = strings.ToUpper(u.Scheme) + "://" + strings.ToUpper(u.Host) + ":" + port + strings.TrimPrefix(raw, u.Scheme+"://"+u.Host)
	}
	if inHTML {
		out = strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(out)
	}
	return out
}

// heldOutRenderingFaults are the held-out defects of the independent implementation
// whose requirements belong to this file (see HeldOut).
func heldOutRenderingFaults() []Fault {
	return []Fault{
		HeldOut.fault("META-ISSUES/shape#3", heldOutWhat("meta-issues-int")).inIndependent("meta-issues-int"),
		HeldOut.fault("META-MENTIONS/wrong-subject#3", heldOutWhat("meta-mention-userid-username")).inIndependent("meta-mention-userid-username"),
		HeldOut.fault("META-URLS/ignores-input", heldOutWhat("meta-urls-first-only")).inIndependent("meta-urls-first-only"),
		HeldOut.fault("RENDER-ESCAPE/stale-derived", heldOutWhat("render-escape-edit")).inIndependent("render-escape-edit"),
		HeldOut.fault("RENDER-ISSUE/shape#4", heldOutWhat("render-issue-at-end")).inIndependent("render-issue-at-end"),
		HeldOut.fault("RENDER-LINK/shape#6", heldOutWhat("render-link-query")).inIndependent("render-link-query"),
		HeldOut.fault("RENDER-MENTION/shape#5", heldOutWhat("render-mention-repeat")).inIndependent("render-mention-repeat"),
	}
}

// heldOut2RenderingFaults are the defects of the second held-out set (independent.HeldOut2)
// whose requirements belong to this file.
func heldOut2RenderingFaults() []Fault {
	return []Fault{
		HeldOut2.fault("META-MENTIONS/intermittent", heldOut2What("meta-mention-userid-flaky")).inIndependent("meta-mention-userid-flaky"),
		HeldOut2.fault("META-URLS/stale-derived#2", heldOut2What("edit-meta-stale")).inIndependent("edit-meta-stale"),
		HeldOut2.fault("RENDER-ESCAPE/shape#8", heldOut2What("render-escape-after-link")).inIndependent("render-escape-after-link"),
		HeldOut2.fault("RENDER-LINK/shape#7", heldOut2What("render-link-second-plain")).inIndependent("render-link-second-plain"),
		HeldOut2.fault("RENDER-MENTION/wrong-subject", heldOut2What("render-mention-self")).inIndependent("render-mention-self"),
	}
}

// heldOut3RenderingFaults are the defects of the third held-out set (independent.HeldOut3)
// whose requirements belong to this file (see heldOut3What).
func heldOut3RenderingFaults() []Fault {
	return []Fault{
		HeldOut3.fault("META-MENTIONS/wrong-subject#4", heldOut3What("meta-mentions-dm-empty")).inIndependent("meta-mentions-dm-empty"),
		HeldOut3.fault("RENDER-ESCAPE/shape#9", heldOut3What("render-escape-first-line")).inIndependent("render-escape-first-line"),
		HeldOut3.fault("RENDER-ISSUE/shape#5", heldOut3What("render-issue-five-digits")).inIndependent("render-issue-five-digits"),
	}
}

// heldOut4RenderingFaults are the defects of the fourth held-out set (independent.HeldOut4)
// whose requirements belong to this file (see heldOut4What).
func heldOut4RenderingFaults() []Fault {
	return []Fault{
		HeldOut4.fault("META-MENTIONS/wrong-subject#5", heldOut4What("meta-mention-userid-sender")).inIndependent("meta-mention-userid-sender"),
		HeldOut4.fault("META-URLS/shape#3", heldOut4What("meta-urls-lowercased")).inIndependent("meta-urls-lowercased"),
		HeldOut4.fault("RENDER-ESCAPE/shape#10", heldOut4What("render-amp-unescaped")).inIndependent("render-amp-unescaped"),
		HeldOut4.fault("RENDER-ISSUE/ignores-input", heldOut4What("render-issue-needs-space")).inIndependent("render-issue-needs-space"),
		HeldOut4.fault("RENDER-LINK/ignores-input", heldOut4What("render-link-http-plain")).inIndependent("render-link-http-plain"),
		HeldOut4.fault("RENDER-MENTION/ignores-input", heldOut4What("render-mention-trailing-punct")).inIndependent("render-mention-trailing-punct"),
	}
}

// heldOut5RenderingFaults are the defects of the fifth held-out set (independent.HeldOut5)
// whose requirements belong to this file (see heldOut5What).
func heldOut5RenderingFaults() []Fault {
	return []Fault{
		HeldOut5.fault("META-MENTIONS/ignores-input", heldOut5What("mention-name-stops-at-dash")).inIndependent("mention-name-stops-at-dash"),
		HeldOut5.fault("META-URLS/shape#4", heldOut5What("link-fragment-cut")).inIndependent("link-fragment-cut"),
		HeldOut5.fault("RENDER-ESCAPE/shape#11", heldOut5What("render-link-amp-raw")).inIndependent("render-link-amp-raw"),
		HeldOut5.fault("RENDER-ISSUE/ignores-input#2", heldOut5What("render-issue-trailing-punct")).inIndependent("render-issue-trailing-punct"),
		HeldOut5.fault("RENDER-LINK/ignores-input#2", heldOut5What("render-link-with-port-plain")).inIndependent("render-link-with-port-plain"),
		HeldOut5.fault("RENDER-MENTION/ignores-input#2", heldOut5What("render-mention-after-newline")).inIndependent("render-mention-after-newline"),
	}
}

// heldOut6RenderingFaults are the defects of the sixth held-out set (independent.HeldOut6)
// whose requirements belong to this file (see heldOut6What).
func heldOut6RenderingFaults() []Fault {
	return []Fault{
		HeldOut6.fault("META-ISSUES/stale-derived#2", heldOut6What("edit-issues-accumulate")).inIndependent("edit-issues-accumulate"),
		HeldOut6.fault("META-MENTIONS/shape#3", heldOut6What("get-one-metadata-not-loaded")).inIndependent("get-one-metadata-not-loaded"),
		HeldOut6.fault("META-URLS/shape#5", heldOut6What("meta-urls-trailing-slash-dropped")).inIndependent("meta-urls-trailing-slash-dropped"),
		HeldOut6.fault("META-URLS/shape#6", heldOut6What("meta-urls-from-html-escaped")).inIndependent("meta-urls-from-html-escaped"),
		HeldOut6.fault("RENDER-ESCAPE/shape#12", heldOut6What("render-code-span-raw")).inIndependent("render-code-span-raw"),
		HeldOut6.fault("RENDER-ISSUE/ignores-input#3", heldOut6What("render-issue-at-start-plain")).inIndependent("render-issue-at-start-plain"),
		HeldOut6.fault("RENDER-LINK/ignores-input#3", heldOut6What("render-status-plain")).inIndependent("render-status-plain"),
		HeldOut6.fault("RENDER-MENTION/ignores-input#3", heldOut6What("render-mention-case-sensitive")).inIndependent("render-mention-case-sensitive"),
		HeldOut6.fault("RENDER-MENTION/stale-derived#2", heldOut6What("edit-html-stale")).inIndependent("edit-html-stale"),
	}
}

// heldOut7RenderingFaults are the defects of the seventh held-out set (independent.HeldOut7)
// whose requirements belong to this file (see heldOut7What).
func heldOut7RenderingFaults() []Fault {
	return []Fault{
		HeldOut7.fault("META-ISSUES/shape#4", heldOut7What("meta-issue-number-hash")).inIndependent("meta-issue-number-hash"),
		HeldOut7.fault("META-MENTIONS/shape#4", heldOut7What("meta-mention-snake-case")).inIndependent("meta-mention-snake-case"),
		HeldOut7.fault("META-URLS/shape#7", heldOut7What("meta-urls-query-stripped")).inIndependent("meta-urls-query-stripped"),
		HeldOut7.fault("RENDER-ESCAPE/shape#13", heldOut7What("render-double-escaped")).inIndependent("render-double-escaped"),
		HeldOut7.fault("RENDER-ESCAPE/shape#14", heldOut7What("render-status-unescaped")).inIndependent("render-status-unescaped"),
		HeldOut7.fault("RENDER-ISSUE/ignores-input#4", heldOut7What("render-issue-one-digit-plain")).inIndependent("render-issue-one-digit-plain"),
		HeldOut7.fault("RENDER-LINK/intermittent#2", heldOut7What("send-answer-html-unrendered-flaky")).inIndependent("send-answer-html-unrendered-flaky"),
		HeldOut7.fault("RENDER-LINK/shape#8", heldOut7What("render-link-class-on-span")).inIndependent("render-link-class-on-span"),
		HeldOut7.fault("RENDER-MENTION/shape#6", heldOut7What("render-mention-anchor")).inIndependent("render-mention-anchor"),
	}
}

// heldOut8RenderingFaults are the defects of the eighth held-out set (independent.HeldOut8)
// whose requirements belong to this file (see heldOut8What).
func heldOut8RenderingFaults() []Fault {
	return []Fault{
		HeldOut8.fault("META-ISSUES/too-wide", heldOut8What("meta-issues-from-url-fragments")).inIndependent("meta-issues-from-url-fragments"),
		HeldOut8.fault("META-MENTIONS/ignores-input#2", heldOut8What("render-mention-room-members-only")).inIndependent("render-mention-room-members-only"),
		HeldOut8.fault("META-URLS/ignores-input#2", heldOut8What("meta-urls-seen-in-room-dropped")).inIndependent("meta-urls-seen-in-room-dropped"),
		HeldOut8.fault("RENDER-ESCAPE/shape#15", heldOut8What("render-markdown-path-unsafe")).inIndependent("render-markdown-path-unsafe"),
		HeldOut8.fault("RENDER-ISSUE/ignores-input#5", heldOut8What("render-issue-repo-rooms-only")).inIndependent("render-issue-repo-rooms-only"),
		HeldOut8.fault("RENDER-LINK/ignores-input#4", heldOut8What("render-link-bare-host-plain")).inIndependent("render-link-bare-host-plain"),
		HeldOut8.fault("RENDER-MENTION/shape#7", heldOut8What("list-html-mentions-unwrapped")).inIndependent("list-html-mentions-unwrapped"),
	}
}
