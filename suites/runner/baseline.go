package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/report"
)

// Baseline lists requirements known to fail, each with the reason. A run
// with a baseline reports their failures as KNOWN and does not fail for
// them; it fails for any other failure, and for an entry whose requirement
// now passes (so the baseline cannot rot).
type Baseline struct {
	// Known maps a requirement id to why it is expected to fail.
	Known map[string]string `yaml:"known"`
}

// LoadBaseline reads a baseline file. Unknown keys, ids the catalogue does
// not know and entries without a reason are usage errors.
func LoadBaseline(path string) (*Baseline, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &UsageError{"--baseline: " + err.Error()}
	}
	var b Baseline
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&b); err != nil && !errors.Is(err, io.EOF) {
		return nil, &UsageError{fmt.Sprintf("--baseline %s: %v", path, err)}
	}
	cat, err := spec.LoadCatalogue()
	if err != nil {
		return nil, err
	}
	for _, id := range sortedIDs(b.Known) {
		req, ok := cat.Lookup(id)
		switch {
		case !ok:
			return nil, &UsageError{fmt.Sprintf("--baseline %s: %s is not a requirement id (chatconform --list shows them)", path, id)}
		case !req.IsCheckable():
			return nil, &UsageError{fmt.Sprintf("--baseline %s: %s cannot be checked, so it cannot be a known failure", path, id)}
		case strings.TrimSpace(b.Known[id]) == "":
			return nil, &UsageError{fmt.Sprintf("--baseline %s: %s: give the reason it is expected to fail", path, id)}
		}
	}
	return &b, nil
}

func (b *Baseline) has(id string) bool {
	if b == nil || id == "" {
		return false
	}
	_, ok := b.Known[id]
	return ok
}

// applyBaseline marks the failures the baseline lists as KNOWN and lists
// the entries whose requirement now passes as fixed.
func (r *Result) applyBaseline(b *Baseline) {
	r.baseline = b
	selected := r.SelectedNames()
	for i := range r.Requirements {
		q := &r.Requirements[i]
		q.Known = b.Known[q.ID]
		for j := range q.Checks {
			c := &q.Checks[j]
			switch c.CheckOutcome() {
			case Fail:
				// Known when the requirement it failed on is listed (or, for a
				// check that did not say, every requirement it verifies).
				known := c.Fails != "" && b.has(c.Fails)
				if c.Fails == "" {
					known = len(c.IDs) > 0
					for _, id := range c.IDs {
						known = known && b.has(id)
					}
				}
				if known {
					if c.Outcome == Fail {
						c.Outcome = Known
					} else {
						c.Whole = Known
					}
				}
			}
		}
	}
	r.tally(selected)
	r.Fixed = nil
	for _, q := range r.Requirements {
		if q.Known != "" && q.Verdict == Pass {
			r.Fixed = append(r.Fixed, q.ID)
		}
	}
}

// ErrIncomplete is the error of WriteBaseline for a run that did not reach
// its end: such a run says nothing about the requirements it did not judge,
// so the file is left as it was.
var ErrIncomplete = errors.New("the run did not reach its end")

// BaselineWrite says what WriteBaseline did.
type BaselineWrite struct {
	Entries int      // entries written
	Kept    []string // entries of the old file this run did not judge, kept as they were
	Dropped []string // entries of the old file whose requirement now passes
}

// CheckBaselineOut makes sure --write-baseline may replace path: a file
// that exists must read as a baseline, so a typo cannot overwrite anything
// else (a target description, a report).
func CheckBaselineOut(path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if _, err := LoadBaseline(path); err != nil {
		return &UsageError{fmt.Sprintf("--write-baseline %s: the file exists and is not a baseline chatconform can read, so it is not replaced (%v)", path, err)}
	}
	return nil
}

// WriteBaseline writes a baseline listing every requirement that failed
// in this run (FAIL or KNOWN), and only after a run that reached its end
// (else ErrIncomplete, and the file is left alone). An existing file at
// path is read first: its reason for an entry that still fails is kept
// (so is the reason of the --baseline the run used), an entry this run
// did not judge is kept as it was, and only an entry whose requirement now
// passes is dropped. A new entry gets the first line of its failure. The
// file goes through red like every output.
func (r *Result) WriteBaseline(path string, red *client.Redactor) (BaselineWrite, error) {
	var w BaselineWrite
	if r.Halted != "" {
		return w, fmt.Errorf("%w (%s): %s is left as it was", ErrIncomplete, r.Halted, path)
	}
	old := map[string]string{}
	if _, err := os.Stat(path); err == nil {
		b, err := LoadBaseline(path)
		if err != nil {
			return w, err
		}
		old = b.Known
	}
	known := map[string]string{}
	verdict := map[string]Outcome{}
	for _, q := range r.Requirements {
		verdict[q.ID] = q.Verdict
		if q.Verdict != Fail && q.Verdict != Known {
			continue
		}
		reason := q.Known
		if reason == "" {
			reason = old[q.ID]
		}
		if reason == "" {
			for _, c := range q.Checks {
				if c.Outcome == Fail {
					reason = report.FirstLine(c.Message)
					break
				}
			}
			reason = fmt.Sprintf("failed on %s (seed %d): %s", time.Now().UTC().Format("2006-01-02"), r.Seed, reason)
		}
		known[q.ID] = reason
	}
	for _, id := range sortedIDs(old) {
		switch v, ok := verdict[id]; {
		case known[id] != "":
		case ok && v == Pass:
			w.Dropped = append(w.Dropped, id)
		default: // not judged here (not selected, skipped, blocked, another profile): no news about it
			known[id] = old[id]
			w.Kept = append(w.Kept, id)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Requirements expected to fail, each with the reason (chatconform --baseline).\n# Remove an entry once its requirement passes: a run fails while a listed requirement passes.\n")
	if len(known) == 0 {
		b.WriteString("known: {}\n")
	} else {
		b.WriteString("known:\n")
		ids := sortedIDs(known)
		sort.Strings(ids)
		for _, id := range ids {
			v, _ := yaml.Marshal(known[id])
			fmt.Fprintf(&b, "  %s: %s", id, v)
		}
	}
	w.Entries = len(known)
	return w, os.WriteFile(path, red.Bytes(b.Bytes()), 0o644)
}
