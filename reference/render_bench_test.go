package reference

import (
	"fmt"
	"strings"
	"testing"
)

// renderUnits are the patterns texts are built from in BenchmarkRender.
var renderUnits = []struct{ name, unit string }{
	{"spaces", "a "},
	{"prose", "The quick brown fox, jumps over the lazy dog. "},
	{"mentions", "@ada "},
	{"links", "https://example.com/x "},
	{"emphasis", "*a "},
	{"brackets", "[a "},
}

// repeatTo repeats unit until the text is n bytes long.
func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// BenchmarkRender renders texts of 1k, 2k and 4k characters (the longest a
// message may be) made of one repeated pattern. Linear rendering shows as
// ns/op doubling from one size to the next, not quadrupling.
func BenchmarkRender(b *testing.B) {
	r := NewRenderer()
	for _, u := range renderUnits {
		for _, n := range []int{1024, 2048, 4096} {
			text := repeatTo(u.unit, n)
			b.Run(fmt.Sprintf("%s/%d", u.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					r.Render(text)
				}
			})
		}
	}
}
