package reference

import (
	"bytes"
	"strings"
)

// linkURL decides whether a link target may become a link, and in what form.
//
// It reads the target the way a browser's URL parser would before acting on
// it: leading and trailing control characters and spaces are dropped, tabs
// and line breaks anywhere are removed, and the scheme is compared without
// regard to case. Only absolute http and https URLs with an authority, and
// mailto URLs, are linked; everything else (javascript:, vbscript:, data:,
// file:, relative references, anything still holding a control character)
// is not, so neither the html nor the urls of a message can carry a target
// a browser would run. The form returned is the normalised one, with the
// scheme in lower case; it is what both href and urls show.
func linkURL(raw []byte) (string, bool) {
	u := bytes.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	if bytes.ContainsAny(u, "\t\n\r") {
		u = bytes.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, u)
	}
	for _, c := range u {
		if c < ' ' || c == 0x7f {
			return "", false
		}
	}
	colon := bytes.IndexByte(u, ':')
	if colon <= 0 || !isScheme(u[:colon]) {
		return "", false
	}
	scheme, rest := strings.ToLower(string(u[:colon])), string(u[colon+1:])
	switch scheme {
	case "http", "https":
		if !strings.HasPrefix(rest, "//") || len(rest) == 2 || rest[2] == '/' {
			return "", false
		}
	case "mailto":
		if rest == "" {
			return "", false
		}
	default:
		return "", false
	}
	return scheme + ":" + rest, true
}

// isScheme reports whether s has the form of a URL scheme: a letter, then
// letters, digits, '+', '-' or '.'.
func isScheme(s []byte) bool {
	for i, c := range s {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return len(s) > 0
}
