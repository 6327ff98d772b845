package runner

import (
	"fmt"
	"io"

	"github.com/chatrooms/conformance/suites/report"
)

// Change is one requirement whose verdict differs between two runs.
type Change struct {
	ID       string
	Text     string
	Old, New Outcome // NotRun when the requirement is absent from a run
}

// Diff is what changed between two runs, per requirement.
type Diff struct {
	NewFailures []Change // now FAIL, and not failing before (FAIL or KNOWN)
	Fixed       []Change // failing before (FAIL or KNOWN), now PASS
	// Unjudged were judged before (PASS, FAIL, KNOWN) and are not now: the
	// newer run says nothing about them.
	Unjudged []Change
	Changed  []Change // every other change of verdict
}

// Regressed reports whether the newer run fails a requirement the older
// one did not.
func (d *Diff) Regressed() bool { return len(d.NewFailures) > 0 }

func failing(o Outcome) bool { return o == Fail || o == Known }

// Compare lists the changes from old to new.
func Compare(old, new *Result) *Diff {
	before := map[string]Outcome{}
	for _, q := range old.Requirements {
		before[q.ID] = q.Verdict
	}
	d := &Diff{}
	seen := map[string]bool{}
	for _, q := range new.Requirements {
		seen[q.ID] = true
		o, ok := before[q.ID]
		if !ok {
			o = NotRun
		}
		c := Change{ID: q.ID, Text: q.Text, Old: o, New: q.Verdict}
		switch {
		case o == q.Verdict:
		case q.Verdict == Fail && !failing(o):
			d.NewFailures = append(d.NewFailures, c)
		case failing(o) && q.Verdict == Pass:
			d.Fixed = append(d.Fixed, c)
		case judged(o) && !judged(q.Verdict):
			d.Unjudged = append(d.Unjudged, c)
		default:
			d.Changed = append(d.Changed, c)
		}
	}
	for _, q := range old.Requirements {
		switch {
		case seen[q.ID] || q.Verdict == NotRun:
		case judged(q.Verdict):
			d.Unjudged = append(d.Unjudged, Change{ID: q.ID, Text: q.Text, Old: q.Verdict, New: NotRun})
		default:
			d.Changed = append(d.Changed, Change{ID: q.ID, Text: q.Text, Old: q.Verdict, New: NotRun})
		}
	}
	return d
}

// Print writes the changes for a person.
func (d *Diff) Print(w io.Writer) {
	for _, group := range []struct {
		title string
		list  []Change
	}{{"New failures", d.NewFailures}, {"Fixed", d.Fixed}, {"No longer judged", d.Unjudged}, {"Changed outcomes", d.Changed}} {
		if len(group.list) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%d):\n", group.title, len(group.list))
		for _, c := range group.list {
			fmt.Fprintf(w, "  %-26s %-12s -> %-12s %s\n", c.ID, c.Old, c.New, c.Text)
		}
	}
	verdict := "no regression"
	if d.Regressed() {
		verdict = "REGRESSED"
	}
	fmt.Fprintf(w, "chatconform diff: %d new failures, %d fixed, %d no longer judged, %d other changes: %s\n", len(d.NewFailures), len(d.Fixed), len(d.Unjudged), len(d.Changed), verdict)
}

// Comparable says why a report cannot be compared with another: the run
// did not reach its end (it stopped before judging what it selected, or
// never reached its target), so its verdicts are no news about the server
// ("" when it can be compared).
func (r *Result) Comparable() string {
	if r.Halted != "" {
		return "the run did not reach its end (" + r.Halted + ")"
	}
	return ""
}

// LoadResult reads a JSON report written by a run.
func LoadResult(path string) (*Result, error) {
	rep, err := report.Read(path)
	if err != nil {
		return nil, err
	}
	if len(rep.Requirements) == 0 {
		return nil, fmt.Errorf("%s: a chatconform JSON report lists requirements; this one lists none", path)
	}
	return &Result{Report: *rep}, nil
}
