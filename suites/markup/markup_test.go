package markup

import "testing"

func TestParseFindsClassesTextAndAttributes(t *testing.T) {
	els, err := Parse(`hi <span class="x mention">@ann</span> <a class="link" href="https://Example.com:443/a?b=1&amp;c=2">l</a>`)
	if err != nil {
		t.Fatal(err)
	}
	if len(els) != 2 || !els[0].HasClass("span", "mention") || els[0].Text != "@ann" || els[0].HasClass("a", "mention") {
		t.Fatalf("elements %+v", els)
	}
	if !SameURL(els[1].Attrs["href"], "https://example.com/a?c=2&b=1") || SameURL(els[1].Attrs["href"], "https://example.com/b") {
		t.Fatalf("href %q", els[1].Attrs["href"])
	}
	if txt, _ := Text("a &amp; <b>b</b>"); txt != "a & b" {
		t.Fatalf("text %q", txt)
	}
}

func TestSameURLTakesABareHostForItsRoot(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://example.net", "https://example.net/", true},
		{"https://EXAMPLE.net:443", "https://example.net/", true},
		{"https://example.net", "https://example.net/x", false},
		{"https://example.net", "http://example.net/", false},
	} {
		if got := SameURL(c.a, c.b); got != c.same {
			t.Errorf("SameURL(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
