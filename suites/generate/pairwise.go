package generate

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
)

// Pairwise coverage. The coverage cases vary one decision of the plain
// request at a time, so a server that fails only on two values together
// (aroundId with limit=1, both valid) passes them all. For the properties
// that judge one answer (GEN-NO-5XX, GEN-VALID-ANSWER, which share the
// answers), the coverage cases of an operation also cover every pair of
// its parameters (each query parameter and each body field), each with
// every value the builder offers it (for limit: absent, its bounds, 1, 99
// and one more; for a cursor: absent, the oldest and the newest known
// message of the room, an unknown id, a message of another room ...): an
// all-pairs covering set, built greedily in an order fixed by the seed.
// Each row is built like any case, so the notes say what the document
// leaves open (two cursors together, a cursor with q, limit 0 ...), and
// the properties hold each row only to what they assume of such a request.

// PairCoverage is how many pairs of parameter values of an operation the
// cases sent covered, out of all of them.
type PairCoverage struct {
	Params   []string // the parameters, as "query limit", "body text kind"
	Covered  int
	Possible int
	// Valid counts the pairs of values valid on their own that were sent
	// in a request with no refusal at all (which GEN-VALID-ANSWER holds to
	// a 2xx), out of ValidPossible: the pairs of such values that are not
	// a combination the document leaves open (two cursors, a cursor with
	// q).
	Valid         int
	ValidPossible int
}

func (p PairCoverage) String() string {
	if p.Possible == 0 {
		return "no pairs"
	}
	out := fmt.Sprintf("%d of %d pairs (%d%%)", p.Covered, p.Possible, p.Covered*100/p.Possible)
	if p.ValidPossible > 0 {
		out += fmt.Sprintf(", %d of %d pairs of valid values in a request with no refusal", p.Valid, p.ValidPossible)
	}
	return out
}

// isParam reports whether a decision sets a query parameter or a body
// field (not one of the decisions inside a value, such as whether a text
// mixes scripts).
func isParam(label string) bool {
	return (strings.HasPrefix(label, "query ") || strings.HasPrefix(label, "body ")) && !strings.HasSuffix(label, " mixed")
}

// pairParams lists the parameter decisions of a build, each once, in the
// order they were made.
func pairParams(seen []decision) []decision {
	var out []decision
	for _, d := range seen {
		if isParam(d.label) && d.n > 1 && !slices.ContainsFunc(out, func(x decision) bool { return x.label == d.label }) {
			out = append(out, d)
		}
	}
	return out
}

// assignment is the value each parameter took in a build under a script.
func assignment(s *scripted) map[string]int {
	out := map[string]int{}
	for _, d := range s.seen {
		if !isParam(d.label) {
			continue
		}
		v := 0
		if i, ok := s.script[d.label]; ok && i < d.n {
			v = i
		}
		out[d.label] = v
	}
	return out
}

// pairKey names the pair of values a of params[i] and b of params[j], i < j.
func pairKey(params []decision, i, a, j, b int) string {
	return fmt.Sprintf("%s=%d\x00%s=%d", params[i].label, a, params[j].label, b)
}

// pairsOf adds to set the pairs an assignment covers.
func pairsOf(params []decision, asg map[string]int, set map[string]bool) {
	for i := range params {
		a, ok := asg[params[i].label]
		if !ok || a >= params[i].n {
			continue
		}
		for j := i + 1; j < len(params); j++ {
			b, ok := asg[params[j].label]
			if !ok || b >= params[j].n {
				continue
			}
			set[pairKey(params, i, a, j, b)] = true
		}
	}
}

// possiblePairs counts the pairs of values of params.
func possiblePairs(params []decision) int {
	n := 0
	for i := range params {
		for j := i + 1; j < len(params); j++ {
			n += params[i].n * params[j].n
		}
	}
	return n
}

// allPairs builds scripts that, with the pairs already covered, cover
// every pair of values of params: each row starts from the first pair not
// yet covered (in an order the seed fixes) and gives every other parameter
// the value that covers most pairs not yet covered with those already set.
func allPairs(params []decision, covered map[string]bool, seed uint64, op string) []map[string]int {
	type pair struct{ i, a, j, b int }
	var todo []pair
	for i := range params {
		for j := i + 1; j < len(params); j++ {
			for a := range params[i].n {
				for b := range params[j].n {
					if !covered[pairKey(params, i, a, j, b)] {
						todo = append(todo, pair{i, a, j, b})
					}
				}
			}
		}
	}
	h := fnv.New64a()
	h.Write([]byte(op))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	rng.Shuffle(len(todo), func(x, y int) { todo[x], todo[y] = todo[y], todo[x] })
	done := map[string]bool{}
	for k := range covered {
		done[k] = true
	}
	var rows []map[string]int
	for _, first := range todo {
		if done[pairKey(params, first.i, first.a, first.j, first.b)] {
			continue
		}
		row := make([]int, len(params))
		set := make([]bool, len(params))
		row[first.i], row[first.j], set[first.i], set[first.j] = first.a, first.b, true, true
		for _, k := range rng.Perm(len(params)) {
			if set[k] {
				continue
			}
			best, bestGain := 0, -1
			for _, v := range rng.Perm(params[k].n) {
				gain := 0
				for m := range params {
					if !set[m] {
						continue
					}
					i, a, j, b := m, row[m], k, v
					if i > j {
						i, a, j, b = j, b, i, a
					}
					if !done[pairKey(params, i, a, j, b)] {
						gain++
					}
				}
				if gain > bestGain {
					best, bestGain = v, gain
				}
			}
			row[k], set[k] = best, true
		}
		asg := map[string]int{}
		for k, v := range row {
			asg[params[k].label] = v
		}
		pairsOf(params, asg, done)
		rows = append(rows, asg)
	}
	return rows
}

// countValidPairs counts the pairs of values valid on their own.
func countValidPairs(params []decision, valid [][]bool) int {
	n := 0
	for i := range params {
		for j := i + 1; j < len(params); j++ {
			n += countTrue(valid[i]) * countTrue(valid[j])
		}
	}
	return n
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// cleanPairs builds rows that send every pair of values valid on their own
// in a request clean says makes no refusal: each row starts from a pair not
// yet so covered (in an order the seed fixes), and gives every other
// parameter the valid value that covers most such pairs while the row
// stays clean (absent, value 0, always does). A pair that alone makes a
// refusal (two cursors) is a combination the document leaves open: it is
// left to allPairs, and counted in combos.
func cleanPairs(params []decision, valid [][]bool, covered map[string]bool, seed uint64, op string, clean func(map[string]int) bool) (rows []map[string]int, combos int) {
	type pair struct{ i, a, j, b int }
	var todo []pair
	for i := range params {
		for j := i + 1; j < len(params); j++ {
			for a := range params[i].n {
				for b := range params[j].n {
					if valid[i][a] && valid[j][b] && !covered[pairKey(params, i, a, j, b)] {
						todo = append(todo, pair{i, a, j, b})
					}
				}
			}
		}
	}
	h := fnv.New64a()
	h.Write([]byte("clean " + op))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	rng.Shuffle(len(todo), func(x, y int) { todo[x], todo[y] = todo[y], todo[x] })
	done := map[string]bool{}
	for k := range covered {
		done[k] = true
	}
	for _, first := range todo {
		if done[pairKey(params, first.i, first.a, first.j, first.b)] {
			continue
		}
		asg := map[string]int{params[first.i].label: first.a, params[first.j].label: first.b}
		if !clean(asg) {
			combos++
			done[pairKey(params, first.i, first.a, first.j, first.b)] = true
			continue
		}
		for _, k := range rng.Perm(len(params)) {
			if _, ok := asg[params[k].label]; ok {
				continue
			}
			best, bestGain := 0, 0
			for _, v := range rng.Perm(params[k].n) {
				if v == 0 || !valid[k][v] {
					continue
				}
				gain := 0
				for m := range params {
					a, ok := asg[params[m].label]
					if !ok {
						continue
					}
					i, x, j, y := m, a, k, v
					if i > j {
						i, x, j, y = j, y, i, x
					}
					if valid[i][x] && valid[j][y] && !done[pairKey(params, i, x, j, y)] {
						gain++
					}
				}
				if gain <= bestGain {
					continue
				}
				asg[params[k].label] = v
				if clean(asg) {
					best, bestGain = v, gain
				}
				delete(asg, params[k].label)
			}
			asg[params[k].label] = best
		}
		pairsOf(params, asg, done)
		rows = append(rows, asg)
	}
	return rows, combos
}
