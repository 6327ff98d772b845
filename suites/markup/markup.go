// Package markup reads a message's html as a browser would: its elements
// with their class, text and attributes, and whether two links lead to the
// same place. The conformance checks and the model of the API both judge
// rendering with it.
package markup

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Element is an element of a fragment: its tag, class, text and attributes.
type Element struct {
	Tag, Class, Text string
	Attrs            map[string]string
}

// Parse parses fragment as the content of a div and returns every element
// in document order.
func Parse(fragment string) ([]Element, error) {
	nodes, err := parse(fragment)
	if err != nil {
		return nil, err
	}
	var out []Element
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			el := Element{Tag: n.Data, Attrs: map[string]string{}}
			for _, a := range n.Attr {
				el.Attrs[a.Key] = a.Val
				if a.Key == "class" {
					el.Class = a.Val
				}
			}
			el.Text = textOf(n)
			out = append(out, el)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return out, nil
}

// Text is the text a browser shows for fragment.
func Text(fragment string) (string, error) {
	nodes, err := parse(fragment)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(textOf(n))
	}
	return b.String(), nil
}

func parse(fragment string) ([]*html.Node, error) {
	return html.ParseFragment(strings.NewReader(fragment), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// HasClass reports whether e is a tag element whose classes include class.
func (e Element) HasClass(tag, class string) bool {
	return e.Tag == tag && strings.Contains(" "+e.Class+" ", " "+class+" ")
}

// SameURL reports whether two URLs lead to the same place: a server may
// escape a URL, change the letter case of its scheme and host, or drop a
// default port.
func SameURL(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return false
	}
	norm := func(u *url.URL) string {
		host := strings.ToLower(u.Hostname())
		if p := u.Port(); p != "" && !(p == "443" && strings.EqualFold(u.Scheme, "https") || p == "80" && strings.EqualFold(u.Scheme, "http")) {
			host += ":" + p
		}
		path := u.EscapedPath()
		if path == "" {
			path = "/" // a bare host and its root are one place
		}
		return strings.ToLower(u.Scheme) + "://" + host + path + "?" + u.Query().Encode() + "#" + u.Fragment
	}
	return norm(ua) == norm(ub)
}
