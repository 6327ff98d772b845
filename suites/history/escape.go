package history

import (
	"bytes"
)

// RENDER-ESCAPE on every message of every answer. The html is a rendering
// of markdown, and the document names no flavour: a renderer may make
// paragraphs, emphasis, code, lists, tables, images, task-list check boxes
// or headings of the text, so no element a markdown construct can yield is
// evidence of anything. What holds under every flavour that escapes the
// special characters of the text:
//
//   - every & of the html, in text and in attribute values alike (link
//     text and href included), starts a character reference (&name;,
//     &#digits;, &#xhex;): an & of the text comes out as &amp; or a
//     reference, and no renderer writes a bare & of its own;
//   - every < of the html starts markup (a tag, an end tag or a comment:
//     a renderer that drops raw HTML may leave one): a < of the text that
//     starts no tag comes out as &lt;;
//   - no element the text spells as raw markup (<script, <iframe, ...) is
//     an element of the html when it is of a kind no markdown construct
//     yields (neverMarkdown); and no tag of the html carries an event
//     handler attribute (on...) the text spells: markdown yields none.
//
// Elements markdown can yield (b, i, img, input, ...) are left to the
// RENDER-ESCAPE check, which knows the text it sent. A > of the text may
// stay as it is in HTML text, and some renderers leave it; it is not
// judged.

// escFinding is what escapeCheck found wrong with one html, if anything.
type escFinding struct {
	kind int8   // escOK, ...
	at   int    // byte offset in the html
	what []byte // the excerpt of the html from at (valid during Observe)
	name []byte // the element or attribute name, for escElement and escHandler
}

const (
	escOK int8 = iota
	escAmp
	escLT
	escElement
	escHandler
)

// neverMarkdown are the elements no markdown construct of any flavour
// yields: in an html they come from raw markup of the text.
var neverMarkdown = map[string]bool{
	"script": true, "style": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true,
	"applet": true, "form": true, "textarea": true, "select": true, "button": true, "meta": true, "link": true,
	"base": true, "noscript": true, "template": true, "title": true, "marquee": true, "html": true, "head": true,
	"body": true,
}

// escapeCheck judges an html against the text it renders.
func escapeCheck(text, html []byte) escFinding {
	found := func(kind int8, at int, name []byte) escFinding {
		return escFinding{kind: kind, at: at, what: excerpt(html, at), name: name}
	}
	for i := 0; ; {
		j := bytes.IndexByte(html[i:], '&')
		if j < 0 {
			break
		}
		i += j
		n := referenceLen(html[i:])
		if n == 0 {
			return found(escAmp, i, nil)
		}
		i += n
	}
	textMarkup := bytes.IndexByte(text, '<') >= 0
	for i := 0; ; {
		j := bytes.IndexByte(html[i:], '<')
		if j < 0 {
			break
		}
		i += j
		var c byte
		if i+1 < len(html) {
			c = html[i+1]
		}
		switch {
		case isASCIILetter(c):
			k := i + 1
			for k < len(html) && !isHTMLSpace(html[k]) && html[k] != '/' && html[k] != '>' {
				k++
			}
			name := html[i+1 : k]
			if textMarkup && len(name) <= 10 && neverMarkdown[string(bytes.ToLower(name))] && spellsTag(text, name) {
				return found(escElement, i, name)
			}
			end, handler := scanAttributes(html, k, textMarkup, text)
			if handler != nil {
				return found(escHandler, i, handler)
			}
			i = end
		case c == '/' && i+2 < len(html) && isASCIILetter(html[i+2]):
			i = skipPast(html, i, ">")
		case c == '!' && bytes.HasPrefix(html[i:], []byte("<!--")):
			i = skipPast(html, i+4, "-->")
		default:
			// A < that starts no tag: "1 < 2", "</ x", "<!x", "<?x", or at
			// the end.
			return found(escLT, i, nil)
		}
	}
	return escFinding{}
}

// referenceLen is the length of the character reference b starts with,
// or 0 when it starts none. Any name counts: which names a renderer knows
// is its own affair (some pass &name; of the text through).
func referenceLen(b []byte) int {
	if len(b) < 3 || b[0] != '&' {
		return 0
	}
	k := 1
	switch {
	case b[1] == '#' && len(b) > 2 && (b[2] == 'x' || b[2] == 'X'):
		k = 3
		for k < len(b) && isHex(b[k]) {
			k++
		}
		if k == 3 {
			return 0
		}
	case b[1] == '#':
		k = 2
		for k < len(b) && '0' <= b[k] && b[k] <= '9' {
			k++
		}
		if k == 2 {
			return 0
		}
	case isASCIILetter(b[1]):
		for k < len(b) && (isASCIILetter(b[k]) || '0' <= b[k] && b[k] <= '9') {
			k++
		}
	default:
		return 0
	}
	if k < len(b) && b[k] == ';' {
		return k + 1
	}
	return 0
}

// scanAttributes reads the attributes of a start tag from k (just after
// its name) and returns the index after the tag; with textMarkup, also the
// first event handler attribute (on...) the text spells, if any.
func scanAttributes(html []byte, k int, textMarkup bool, text []byte) (int, []byte) {
	for k < len(html) {
		for k < len(html) && (isHTMLSpace(html[k]) || html[k] == '/') {
			k++
		}
		if k >= len(html) {
			break
		}
		if html[k] == '>' {
			return k + 1, nil
		}
		a := k
		for k < len(html) && !isHTMLSpace(html[k]) && html[k] != '/' && html[k] != '>' && (html[k] != '=' || k == a) {
			k++
		}
		name := html[a:k]
		if textMarkup && len(name) > 2 && (name[0]|0x20) == 'o' && (name[1]|0x20) == 'n' && containsFold(text, name) {
			return k, name
		}
		for k < len(html) && isHTMLSpace(html[k]) {
			k++
		}
		if k >= len(html) || html[k] != '=' {
			continue
		}
		k++
		for k < len(html) && isHTMLSpace(html[k]) {
			k++
		}
		if k < len(html) && (html[k] == '"' || html[k] == '\'') {
			q := html[k]
			if e := bytes.IndexByte(html[k+1:], q); e >= 0 {
				k += e + 2
			} else {
				k = len(html)
			}
			continue
		}
		for k < len(html) && !isHTMLSpace(html[k]) && html[k] != '>' {
			k++
		}
	}
	return len(html), nil
}

// skipPast returns the index after the first end found from i on, or the
// end of b.
func skipPast(b []byte, i int, end string) int {
	if j := bytes.Index(b[i:], []byte(end)); j >= 0 {
		return i + j + len(end)
	}
	return len(b)
}

// spellsTag reports whether text holds <name as the start of a tag: the
// name, in any case, followed by white space, /, > or the end.
func spellsTag(text, name []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(text[i:], '<')
		if j < 0 {
			return false
		}
		i += j + 1
		if len(text)-i >= len(name) && bytes.EqualFold(text[i:i+len(name)], name) {
			if k := i + len(name); k == len(text) || isHTMLSpace(text[k]) || text[k] == '/' || text[k] == '>' {
				return true
			}
		}
	}
}

// containsFold reports whether b holds sub, ASCII letters in any case.
func containsFold(b, sub []byte) bool {
	for i := 0; i+len(sub) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func excerpt(b []byte, at int) []byte {
	end := min(len(b), at+40)
	for end < len(b) && end > at && b[end]&0xC0 == 0x80 {
		end--
	}
	return b[at:end]
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }

func isHTMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
