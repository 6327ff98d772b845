package generate

import (
	"hash/fnv"
	"strconv"

	"pgregory.net/rapid"
)

// chooser makes every decision of a generator. Two kinds exist: rapid's
// draws (random search, with shrinking towards alternative 0 and the low
// end of each range), and a script (the coverage cases: every alternative
// of every decision of the simplest request, one at a time).
//
// Alternative 0 of a decision is always its simplest answer, so that a
// shrunk request is the plain one with as few departures as possible.
type chooser interface {
	// pick returns an index into weights, each weight the relative
	// chance of its alternative in random search. The coverage phase
	// enumerates the alternatives of picks.
	pick(label string, weights ...int) int
	// prefer is pick without enumeration: the coverage phase takes
	// alternative 0.
	prefer(label string, weights ...int) int
	// vary returns a number in [lo, hi]; the coverage phase does not
	// enumerate it but takes a fixed value derived from the seed.
	vary(label string, lo, hi int) int
}

// drawn is the chooser of random search.
type drawn struct{ t *rapid.T }

func (d drawn) pick(label string, weights ...int) int {
	if len(weights) == 1 {
		return 0
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	n := rapid.IntRange(0, total-1).Draw(d.t, label)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

func (d drawn) prefer(label string, weights ...int) int { return d.pick(label, weights...) }

func (d drawn) vary(label string, lo, hi int) int {
	if lo >= hi {
		return lo
	}
	return rapid.IntRange(lo, hi).Draw(d.t, label)
}

// decision is one pick made under a script.
type decision struct {
	label string
	n     int
}

// scripted is the chooser of the coverage phase: picks named in the script
// take the alternative given, every other pick takes 0, and vary takes a
// value fixed by the seed and the label.
type scripted struct {
	seed   uint64
	script map[string]int
	seen   []decision
}

func (s *scripted) pick(label string, weights ...int) int {
	s.seen = append(s.seen, decision{label, len(weights)})
	if i, ok := s.script[label]; ok && i < len(weights) {
		return i
	}
	return 0
}

func (s *scripted) prefer(string, ...int) int { return 0 }

func (s *scripted) vary(label string, lo, hi int) int {
	if lo >= hi {
		return lo
	}
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatUint(s.seed, 10) + "\x00" + label))
	return lo + int(h.Sum64()%uint64(hi-lo+1))
}

// uniform is n equal weights.
func uniform(n int) []int {
	w := make([]int, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

// chance picks true with the given percentage; false (absent, off) is the
// simplest answer.
func chance(c chooser, label string, percent int) bool {
	return c.pick(label, 100-percent, percent) == 1
}

// oneOf picks an element of xs uniformly.
func oneOf[T any](c chooser, label string, xs []T) T {
	return xs[c.pick(label, uniform(len(xs))...)]
}

// anyOf picks an element of xs without the coverage phase enumerating it.
func anyOf[T any](c chooser, label string, xs []T) T {
	return xs[c.vary(label, 0, len(xs)-1)]
}
