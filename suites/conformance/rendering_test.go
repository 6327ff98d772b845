package conformance

import "testing"

func TestBareAmpersandFindsOnlyUnescapedAmpersands(t *testing.T) {
	for html, bare := range map[string]bool{
		"1 &lt; 2 &amp; 3":           false,
		"&#60;&#x3C;&#X3c;":          false,
		"a &quot;b&quot;":            false,
		"1 < 2 & 3":                  true,
		"AT&T":                       true,
		"tail &":                     true,
		"&#;":                        true,
		"&#x;":                       true,
		"&amp":                       true,
		"&#12a":                      true,
		"<a href=\"x?a=1&amp;b=2\">": false,
	} {
		if got := bareAmpersand(html) != ""; got != bare {
			t.Errorf("%q: bare & found = %v, want %v", html, got, bare)
		}
	}
}
