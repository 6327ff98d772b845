package worlds

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteSummary writes what a Run found: a line per shape, then each
// distinct failing requirement with how many shapes fail it, the check and
// its line, the smallest shape found to fail it and the commands that
// reproduce that, then the skips seen, by requirement, with their reasons.
// It returns how many shapes did not pass.
func WriteSummary(w io.Writer, results []Result) int {
	bad := 0
	failing := map[string]int{}
	for _, r := range results {
		fmt.Fprintln(w, r.line())
		if !r.Passed() {
			bad++
		}
		for _, id := range r.FailedReqs() {
			failing[id]++
		}
	}
	fmt.Fprintf(w, "\n%d of %d shapes pass", len(results)-bad, len(results))
	if len(results) > 0 {
		fmt.Fprintf(w, " (seed %d)", results[0].Seed)
	}
	fmt.Fprintln(w)

	var reds []Reduction
	for _, r := range results {
		reds = append(reds, r.Reductions...)
	}
	sort.Slice(reds, func(i, j int) bool { return reds[i].Req < reds[j].Req })
	if len(reds) > 0 {
		fmt.Fprintf(w, "\n%d distinct failing requirement(s):\n", len(reds))
	}
	for _, d := range reds {
		fmt.Fprintf(w, "\n%s %s in %d shape(s); smallest found (%d reducing runs): %s\n", d.Req, d.Verdict, failing[d.Req], d.Runs, d.Shape)
		fmt.Fprintf(w, "  check: %s\n  cause: %s\n  reproduce:\n    %s\n", d.Check, d.Cause,
			strings.ReplaceAll(Reproduce(seedOf(results), d.Shape), "\n", "\n    "))
	}
	for _, r := range results {
		if r.Err != "" {
			fmt.Fprintf(w, "\n#%d could not be judged: %s\n  reproduce:\n    %s\n", r.Index, r.Err, strings.ReplaceAll(r.Reproduce(), "\n", "\n    "))
		}
	}

	skips := map[string]map[string]int{} // requirement -> reason -> shapes
	for _, r := range results {
		for _, f := range r.Skipped {
			for _, id := range f.Reqs {
				if skips[id] == nil {
					skips[id] = map[string]int{}
				}
				skips[id][f.Cause]++
			}
		}
	}
	if len(skips) > 0 {
		fmt.Fprintln(w, "\nskips (requirement: shapes, reason):")
	}
	var ids []string
	for id := range skips {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		var reasons []string
		for why := range skips[id] {
			reasons = append(reasons, why)
		}
		sort.Strings(reasons)
		for _, why := range reasons {
			fmt.Fprintf(w, "  %s: %d, %s\n", id, skips[id][why], why)
		}
	}
	return bad
}

func seedOf(results []Result) uint64 {
	if len(results) == 0 {
		return 1
	}
	return results[0].Seed
}
