package selftest

import (
	"net/http"
	"slices"
	"sort"

	"github.com/chatrooms/conformance/suites/target"
)

// Variant is a conforming alternative: the reference server decorated to
// make another choice where the API document is silent. The core profile
// must pass every variant.
type Variant struct {
	Name   string
	Origin Origin // the round of work that wrote the variant
	What   string
	steps  []step
	// describe adjusts the target description (ids the variant shows
	// differently, say).
	describe func(d *target.Description)
	// http1 turns HTTP/2 off on the listener.
	http1 bool
	// independent serves the independent implementation instead of the
	// decorated reference server.
	independent bool
}

// Variants returns every variant, sorted by name.
func Variants() []Variant {
	vs := slices.Concat(transportVariants(), encodingVariants(), userVariants(), roomVariants(), unreadVariants(),
		messageVariants(), renderingVariants(), paginationVariants(), searchVariants(), independentVariants())
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	return vs
}

func (v Variant) handler(inner http.Handler, st *state) http.Handler {
	return decorate(inner, st, v.steps)
}
