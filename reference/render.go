package reference

import (
	"bufio"
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Rendered is a message text turned into HTML, with what it references.
type Rendered struct {
	HTML     string
	URLs     []string // link targets, in order of appearance
	Mentions []string // screen names as written, in order, without duplicates
	Issues   []string // issue numbers, in order, without duplicates
}

// Renderer turns message markdown (GFM) into the HTML the reference server
// sends. Raw HTML is never passed through: the parsers that would recognise
// it are left out, so tags reach the output as escaped text. A Renderer is
// safe for concurrent use.
type Renderer struct {
	md   goldmark.Markdown
	bufs sync.Pool // *renderBuf
}

// renderBuf is an output buffer with the buffered writer goldmark wants
// (it would allocate a 4 KiB one per render otherwise).
type renderBuf struct {
	out bytes.Buffer
	w   *bufio.Writer
}

// NewRenderer returns a Renderer.
func NewRenderer() *Renderer {
	blocks := without(parser.DefaultBlockParsers(), parser.NewHTMLBlockParser())
	inlines := without(parser.DefaultInlineParsers(), parser.NewRawHTMLParser())
	inlines = append(inlines,
		util.Prioritized(mentionParser{}, 150),
		util.Prioritized(issueParser{}, 150),
	)
	md := goldmark.New(
		goldmark.WithParser(parser.NewParser(
			parser.WithBlockParsers(blocks...),
			parser.WithInlineParsers(inlines...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		)),
		goldmark.WithExtensions(
			extension.Table, extension.Strikethrough, extension.TaskList,
			// E-mail addresses stay text: nothing matches this pattern. It
			// is anchored because linkify tries it at every space of a
			// line: unanchored, each try scanned the rest of the line and
			// rendering grew with the square of the text's length.
			extension.NewLinkify(extension.WithLinkifyEmailRegexp(regexp.MustCompile(`^[^\x00-\x{10FFFF}]`))),
		),
		goldmark.WithRendererOptions(
			html.WithHardWraps(),
			renderer.WithNodeRenderers(util.Prioritized(chatNodes{}, 100)),
		),
	)
	return &Renderer{md: md}
}

// without drops the parsers of the same type as drop.
func without(list util.PrioritizedSlice, drop any) util.PrioritizedSlice {
	out := list[:0:0]
	for _, p := range list {
		if reflect.TypeOf(p.Value) != reflect.TypeOf(drop) {
			out = append(out, p)
		}
	}
	return out
}

// Render renders text.
func (r *Renderer) Render(source string) Rendered {
	src := []byte(source)
	doc := r.md.Parser().Parse(text.NewReader(src))
	var out Rendered
	seenMention, seenIssue := map[string]bool{}, map[string]bool{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *mention:
			if key := strings.ToLower(n.name); !seenMention[key] {
				seenMention[key] = true
				out.Mentions = append(out.Mentions, n.name)
			}
		case *issue:
			if !seenIssue[n.number] {
				seenIssue[n.number] = true
				out.Issues = append(out.Issues, n.number)
			}
		case *ast.AutoLink:
			if u, ok := autoLinkURL(n, src); ok {
				out.URLs = append(out.URLs, u)
			}
		case *ast.Link:
			if u, ok := linkURL(n.Destination); ok {
				out.URLs = append(out.URLs, u)
			}
		}
		return ast.WalkContinue, nil
	})
	rb, _ := r.bufs.Get().(*renderBuf)
	if rb == nil {
		rb = &renderBuf{}
		rb.w = bufio.NewWriter(&rb.out)
	}
	defer func() {
		rb.out.Reset()
		r.bufs.Put(rb)
	}()
	_ = r.md.Renderer().Render(rb.w, src, doc)
	_ = rb.w.Flush()
	b := bytes.ReplaceAll(rb.out.Bytes(), []byte("<br>\n"), []byte("<br>"))
	b = bytes.TrimRight(b, "\n")
	// A message that is one paragraph is sent without the <p> wrapper.
	if doc.ChildCount() == 1 && doc.FirstChild().Kind() == ast.KindParagraph {
		b = bytes.TrimSuffix(bytes.TrimPrefix(b, []byte("<p>")), []byte("</p>"))
	}
	out.HTML = string(b)
	return out
}

// --- mentions and issue references -----------------------------------------

var kindMention = ast.NewNodeKind("Mention")
var kindIssue = ast.NewNodeKind("Issue")

type mention struct {
	ast.BaseInline
	name string
}

func (n *mention) Kind() ast.NodeKind            { return kindMention }
func (n *mention) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }
func (n *issue) Kind() ast.NodeKind              { return kindIssue }
func (n *issue) Dump(source []byte, level int)   { ast.DumpHelper(n, source, level, nil, nil) }

type issue struct {
	ast.BaseInline
	number string
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// A mention is @name where name is letters, digits, '_' or '-', not preceded
// by a word character (so e-mail addresses are left alone).
type mentionParser struct{}

func (mentionParser) Trigger() []byte { return []byte{'@'} }

func (mentionParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	if prev := block.PrecendingCharacter(); prev < 0x80 && (isWord(byte(prev)) || prev == '@' || prev == '/') {
		return nil
	}
	line, _ := block.PeekLine()
	i := 1
	for i < len(line) && (isWord(line[i]) && line[i] < 0x80 || line[i] == '-') {
		i++
	}
	if i < len(line) && line[i] >= 0x80 {
		return nil // a name running into non-ASCII letters is not a screen name
	}
	name := strings.TrimRight(string(line[1:i]), "-_") // emphasis may close right after a name
	if name == "" || name[0] == '-' {
		return nil
	}
	block.Advance(1 + len(name))
	return &mention{name: name}
}

// An issue reference is #digits, not preceded or followed by a word character.
type issueParser struct{}

func (issueParser) Trigger() []byte { return []byte{'#'} }

func (issueParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	if prev := block.PrecendingCharacter(); prev < 0x80 && (isWord(byte(prev)) || prev == '&' || prev == '#') {
		return nil
	}
	line, _ := block.PeekLine()
	i := 1
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == 1 || i-1 > 9 || (i < len(line) && isWord(line[i])) {
		return nil
	}
	block.Advance(i)
	return &issue{number: string(line[1:i])}
}

// --- HTML -------------------------------------------------------------------

// chatNodes renders mentions, issues and links in the service's markup.
type chatNodes struct{}

func (chatNodes) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindMention, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			name := util.EscapeHTML([]byte(n.(*mention).name))
			_, _ = w.WriteString(`<span data-link-type="mention" data-screen-name="`)
			_, _ = w.Write(name)
			_, _ = w.WriteString(`" class="mention">@`)
			_, _ = w.Write(name)
			_, _ = w.WriteString(`</span>`)
		}
		return ast.WalkContinue, nil
	})
	reg.Register(kindIssue, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			num := n.(*issue).number
			_, _ = w.WriteString(`<span data-link-type="issue" data-issue="` + num + `" class="issue">#` + num + `</span>`)
		}
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindAutoLink, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		l := n.(*ast.AutoLink)
		label := util.EscapeHTML(l.Label(src))
		u, ok := autoLinkURL(l, src)
		if !ok {
			_, _ = w.Write(label)
			return ast.WalkContinue, nil
		}
		openAnchor(w, u)
		_, _ = w.Write(label)
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindLink, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		u, ok := linkURL(n.(*ast.Link).Destination)
		if !ok {
			return ast.WalkContinue, nil // the label is rendered as plain text
		}
		if entering {
			openAnchor(w, u)
		} else {
			_, _ = w.WriteString("</a>")
		}
		return ast.WalkContinue, nil
	})
	// An image follows the link rules; one whose target would not be
	// linked shows its description as text.
	reg.Register(ast.KindImage, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		u, ok := linkURL(n.(*ast.Image).Destination)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString(`<img src="`)
		_, _ = w.Write(util.EscapeHTML(util.URLEscape([]byte(u), false)))
		_, _ = w.WriteString(`" alt="`)
		_, _ = w.Write(util.EscapeHTML(plainText(n, src)))
		_, _ = w.WriteString(`">`)
		return ast.WalkSkipChildren, nil
	})
}

// autoLinkURL is the target of an autolink: an e-mail address becomes a
// mailto URL.
func autoLinkURL(l *ast.AutoLink, src []byte) (string, bool) {
	u := l.URL(src)
	if l.AutoLinkType == ast.AutoLinkEmail {
		u = append([]byte("mailto:"), u...)
	}
	return linkURL(u)
}

func openAnchor(w util.BufWriter, url string) {
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(util.EscapeHTML(util.URLEscape([]byte(url), false)))
	_, _ = w.WriteString(`" rel="nofollow noopener noreferrer" target="_blank" class="link">`)
}

// plainText is the text under n without markup, for an image's alt.
func plainText(n ast.Node, src []byte) []byte {
	var b []byte
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch c := c.(type) {
			case *ast.Text:
				b = append(b, c.Value(src)...)
			case *ast.String:
				b = append(b, c.Value...)
			}
		}
		return ast.WalkContinue, nil
	})
	return b
}
