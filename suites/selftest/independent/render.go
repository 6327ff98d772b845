package independent

import (
	"html"
	"regexp"
	"strings"
)

// A single pass over the text finds three kinds of tokens: web links,
// @-mentions and #-issue references. Everything between tokens is plain text.
var tokenRE = regexp.MustCompile(`(https?://[^\s<>"]+)|@([A-Za-z0-9_-]+)|#([0-9]+)`)

// rendered is what the service derives from a message text.
type rendered struct {
	html     string
	urls     []string
	mentions []*member
	typed    []string // each mention's name as written in the text
	issues   []string
}

// renderFlags switch the renderer's planted defects on.
type renderFlags struct {
	escape             bool
	mentionRepeatPlain bool
	issueEndPlain      bool
	linkQueryPlain     bool
	urlsFirstOnly      bool
	// second held-out set
	linkAfterFirstPlain bool    // render-link-second-plain
	rawAfterLink        bool    // render-escape-after-link
	plainMentionOf      *member // render-mention-self: the sender
	// third held-out set
	rawAfterNewline bool // render-escape-first-line
	issueLongPlain  bool // render-issue-five-digits
	// fourth held-out set
	ampRaw            bool // render-amp-unescaped
	mentionPunctPlain bool // render-mention-trailing-punct
	issueNeedsSpace   bool // render-issue-needs-space
	linkHTTPPlain     bool // render-link-http-plain
	urlsLower         bool // meta-urls-lowercased
	// fifth held-out set
	mentionAfterNewlinePlain bool // render-mention-after-newline
	issuePunctPlain          bool // render-issue-trailing-punct
	linkPortPlain            bool // render-link-with-port-plain
	linkFragmentCut          bool // link-fragment-cut
	linkAmpRaw               bool // render-link-amp-raw
	mentionStopsAtDash       bool // mention-name-stops-at-dash
	// sixth held-out set
	codeSpanRaw          bool // render-code-span-raw
	mentionCaseSensitive bool // render-mention-case-sensitive
	issueStartPlain      bool // render-issue-at-start-plain
	urlsNoTrailingSlash  bool // meta-urls-trailing-slash-dropped
	urlsEscaped          bool // meta-urls-from-html-escaped
	// seventh held-out set
	mentionAnchor      bool // render-mention-anchor
	doubleEscape       bool // render-double-escaped
	linkClassOnSpan    bool // render-link-class-on-span
	issueOneDigitPlain bool // render-issue-one-digit-plain
	urlsNoQuery        bool // meta-urls-query-stripped
	// eighth held-out set
	markdownUnsafe      bool // render-markdown-path-unsafe
	linkNeedsPath       bool // render-link-bare-host-plain
	issuesFromFragments bool // meta-issues-from-url-fragments
	issuePlainAll       bool // render-issue-repo-rooms-only (set per room)
}

// fragmentIssueRE is the separate issue pass of defect meta-issues-from-url-fragments,
// run over the whole text, links included.
var fragmentIssueRE = regexp.MustCompile(`#([0-9]+)\b`)

// hasPath tells whether a link has anything after its host (defect render-link-bare-host-plain).
func hasPath(link string) bool {
	_, rest, _ := strings.Cut(link, "://")
	return strings.Contains(rest, "/")
}

// hasPort tells whether the host part of a link carries a port.
func hasPort(link string) bool {
	_, rest, _ := strings.Cut(link, "://")
	host, _, _ := strings.Cut(rest, "/")
	return strings.Contains(host, ":")
}

// ampRawEscaper is a hand-written escaper that forgot the ampersand.
var ampRawEscaper = strings.NewReplacer("<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// render turns text into HTML plus metadata. lookup resolves a screen name
// (case-insensitively) to a known user or nil.
func render(text string, lookup func(string) *member, escape bool) rendered {
	return renderWith(text, lookup, renderFlags{escape: escape})
}

func renderWith(text string, lookup func(string) *member, f renderFlags) rendered {
	escape := f.escape
	if escape && f.markdownUnsafe && strings.Contains(text, "*") {
		escape = false // texts with emphasis go through the markdown library, raw HTML enabled
	}
	var out strings.Builder
	res := rendered{urls: []string{}, mentions: []*member{}, issues: []string{}}
	seenURL := map[string]bool{}
	seenUser := map[*member]bool{}
	seenIssue := map[string]bool{}
	links := 0

	plain := func(s string) {
		if escape && f.codeSpanRaw && strings.Count(s, "`") >= 2 {
			// Code spans were meant to show their text as written, and were written as is.
			var b strings.Builder
			parts := strings.Split(s, "`")
			for i, part := range parts {
				switch {
				case i%2 == 1 && i < len(parts)-1:
					b.WriteString("<code>" + part + "</code>")
				case i%2 == 1:
					b.WriteString(html.EscapeString("`" + part)) // an unpaired backtick
				default:
					b.WriteString(html.EscapeString(part))
				}
			}
			out.WriteString(strings.ReplaceAll(b.String(), "\n", "<br>"))
			return
		}
		if escape && f.rawAfterNewline {
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = html.EscapeString(s[:i]) + s[i:]
				escape = false // escaping was meant for the first line, the preview
			} else {
				s = html.EscapeString(s)
			}
		} else if escape && f.ampRaw {
			s = ampRawEscaper.Replace(s)
		} else if escape && f.doubleEscape {
			s = html.EscapeString(html.EscapeString(s)) // escaped on input, and again on output
		} else if escape {
			s = html.EscapeString(s)
		}
		out.WriteString(strings.ReplaceAll(s, "\n", "<br>"))
	}

	cursor := 0
	for _, loc := range tokenRE.FindAllStringSubmatchIndex(text, -1) {
		start, end := loc[0], loc[1]
		if start < cursor {
			continue
		}
		switch {
		case loc[2] >= 0: // link
			// Trailing punctuation usually closes the sentence, not the link.
			for end > start && strings.IndexByte(".,;:!?)]}'", text[end-1]) >= 0 {
				end--
			}
			if f.linkFragmentCut {
				if i := strings.IndexByte(text[start:end], '#'); i > 0 {
					end = start + i // the link pattern stopped at '#', taken for an issue marker
				}
			}
			link := text[start:end]
			if len(link) <= len("https://") {
				continue
			}
			if f.linkNeedsPath && !hasPath(link) {
				continue // the link pattern asks for a path after the host
			}
			plain(text[cursor:start])
			if f.linkQueryPlain && strings.Contains(link, "?") || f.linkAfterFirstPlain && links > 0 ||
				f.linkHTTPPlain && strings.HasPrefix(link, "http://") || f.linkPortPlain && hasPort(link) {
				plain(link)
			} else if f.linkClassOnSpan {
				// The class moved to a wrapper for styling; the anchor itself carries none.
				out.WriteString(`<span class="link"><a href="` + html.EscapeString(link) + `" rel="nofollow noopener noreferrer" target="_blank">` + html.EscapeString(link) + `</a></span>`)
			} else if f.linkAmpRaw {
				// The link was escaped by a helper that kept query strings intact.
				raw := strings.ReplaceAll(html.EscapeString(link), "&amp;", "&")
				out.WriteString(`<a href="` + raw + `" rel="nofollow noopener noreferrer" target="_blank" class="link">` + raw + `</a>`)
			} else {
				out.WriteString(`<a href="` + html.EscapeString(link) + `" rel="nofollow noopener noreferrer" target="_blank" class="link">` + html.EscapeString(link) + `</a>`)
			}
			links++
			if f.rawAfterLink {
				escape = false // the flag is reused for the anchor text and never restored
			}
			if !seenURL[link] && !(f.urlsFirstOnly && len(res.urls) > 0) {
				seenURL[link] = true
				if f.urlsLower {
					res.urls = append(res.urls, strings.ToLower(link)) // normalised like a host name
				} else if f.urlsNoTrailingSlash {
					res.urls = append(res.urls, strings.TrimSuffix(link, "/")) // "normalised" like a path
				} else if f.urlsNoQuery {
					stripped, _, _ := strings.Cut(link, "?") // tracking parameters stripped
					res.urls = append(res.urls, stripped)
				} else if f.urlsEscaped {
					res.urls = append(res.urls, html.EscapeString(link)) // read back off the anchor's href
				} else {
					res.urls = append(res.urls, link)
				}
			}
			cursor = end
		case loc[4] >= 0: // mention
			if start > 0 && (isWordByte(text[start-1]) || text[start-1] == '@') {
				continue
			}
			name := text[loc[4]:loc[5]]
			if f.mentionStopsAtDash {
				if i := strings.IndexByte(name, '-'); i >= 0 {
					name = name[:i] // the name pattern was \w+
				}
			}
			who := lookup(name)
			if who == nil {
				continue
			}
			plain(text[cursor:start])
			punctAfter := end < len(text) && strings.IndexByte(",.;:!?", text[end]) >= 0
			if f.mentionRepeatPlain && seenUser[who] || f.plainMentionOf != nil && who == f.plainMentionOf ||
				f.mentionPunctPlain && punctAfter || f.mentionAfterNewlinePlain && start > 0 && text[start-1] == '\n' ||
				f.mentionCaseSensitive && name != who.username {
				plain(text[start:end])
			} else if f.mentionAnchor {
				out.WriteString(`<a href="/` + html.EscapeString(who.username) + `" class="mention">` + html.EscapeString(text[start:end]) + `</a>`)
			} else {
				out.WriteString(`<span data-screen-name="` + html.EscapeString(who.username) + `" class="mention">` + html.EscapeString(text[start:end]) + `</span>`)
			}
			if !seenUser[who] {
				seenUser[who] = true
				res.mentions = append(res.mentions, who)
				res.typed = append(res.typed, text[loc[4]:loc[5]])
			}
			cursor = end
		case loc[6] >= 0: // issue
			if start > 0 && (isWordByte(text[start-1]) || text[start-1] == '&') {
				continue
			}
			if end < len(text) && isWordByte(text[end]) {
				continue
			}
			num := text[loc[6]:loc[7]]
			plain(text[cursor:start])
			spaceBefore := start == 0 || text[start-1] == ' ' || text[start-1] == '\n'
			punctAfter := end < len(text) && strings.IndexByte(".,;:!?)", text[end]) >= 0
			if f.issueEndPlain && end == len(text) || f.issueLongPlain && len(num) > 4 || f.issueNeedsSpace && !spaceBefore ||
				f.issuePunctPlain && punctAfter || f.issueStartPlain && start == 0 || f.issueOneDigitPlain && len(num) < 2 ||
				f.issuePlainAll {
				plain(text[start:end])
			} else {
				out.WriteString(`<span data-issue="` + num + `" class="issue">#` + num + `</span>`)
			}
			if !seenIssue[num] {
				seenIssue[num] = true
				res.issues = append(res.issues, num)
			}
			cursor = end
		}
	}
	plain(text[cursor:])
	res.html = out.String()
	if f.issuesFromFragments {
		// A second pass over the raw text, links included.
		for _, sm := range fragmentIssueRE.FindAllStringSubmatch(text, -1) {
			if !seenIssue[sm[1]] {
				seenIssue[sm[1]] = true
				res.issues = append(res.issues, sm[1])
			}
		}
	}
	return res
}
