package runner

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chatrooms/conformance/client"
	"github.com/chatrooms/conformance/conformance"
	"github.com/chatrooms/conformance/spec"
)

// Result is a run organised by requirement.
type Result struct {
	Profile      spec.Profile       `json:"profile"`
	Target       string             `json:"target"`
	Seed         uint64             `json:"seed"`
	Duration     time.Duration      `json:"durationNs"`
	Requests     int                `json:"requests"`
	Requirements []Requirement      `json:"requirements"`
	Counts       map[string]int     `json:"counts"` // requirements per verdict
	Checks       map[string]int     `json:"checks"` // checks per outcome
	Exchanges    []*client.Exchange `json:"failedExchanges,omitempty"`
	outcomes     map[Outcome]int
}

// Requirement is the verdict on one catalogue entry.
type Requirement struct {
	ID      string        `json:"id"`
	Level   spec.Profile  `json:"level"`
	Section string        `json:"section"`
	Text    string        `json:"text"`
	Verdict Outcome       `json:"verdict"`
	Reason  string        `json:"reason,omitempty"`
	Checks  []CheckResult `json:"checks,omitempty"`
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	Name      string   `json:"name"`
	IDs       []string `json:"ids"`
	Outcome   Outcome  `json:"outcome"`
	BlockedBy string   `json:"blockedBy,omitempty"`
	Message   string   `json:"message,omitempty"`
}

func summarize(r types.Report, checks []Check, p spec.Profile, seed uint64, url string, d time.Duration, rec *client.Recorder) *Result {
	cat, _ := spec.LoadCatalogue()
	res := &Result{Profile: p, Target: url, Seed: seed, Duration: d, Requests: rec.Count(), Counts: map[string]int{}, Checks: map[string]int{}, outcomes: map[Outcome]int{}}
	byID := map[string][]CheckResult{}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		labels := sr.Labels()
		if p == spec.Core && conformance.ProfileOf(labels) == spec.Reference {
			continue // not part of this run
		}
		cr := checkResult(sr)
		res.Checks[cr.Outcome.String()]++
		res.outcomes[cr.Outcome]++
		for _, id := range cr.IDs {
			byID[id] = append(byID[id], cr)
		}
	}
	for _, req := range cat.Requirements {
		if !req.InProfile(p) {
			continue
		}
		v := Requirement{ID: req.ID, Level: req.Level, Section: req.Section, Text: req.Text, Checks: byID[req.ID]}
		if !req.IsCheckable() {
			v.Verdict, v.Reason = NotCheckable, req.Reason
		} else {
			var os []Outcome
			for _, c := range v.Checks {
				os = append(os, c.Outcome)
			}
			v.Verdict = worst(os)
		}
		res.Counts[v.Verdict.String()]++
		res.Requirements = append(res.Requirements, v)
	}
	for _, x := range rec.Exchanges() {
		if len(x.Violations) > 0 || x.Status >= 500 {
			res.Exchanges = append(res.Exchanges, x)
		}
	}
	return res
}

// checkResult reads a check's outcome from its Ginkgo report and the
// entries the check left.
func checkResult(sr types.SpecReport) CheckResult {
	cr := CheckResult{Name: sr.FullText(), IDs: conformance.RequirementIDs(sr.Labels()), Message: strings.TrimSpace(sr.Failure.Message)}
	entry := func(name string) (string, bool) {
		for _, e := range sr.ReportEntries {
			if e.Name == name {
				return e.StringRepresentation(), true
			}
		}
		return "", false
	}
	switch {
	case sr.State == types.SpecStatePassed:
		cr.Outcome = Pass
	case sr.State == types.SpecStateSkipped && sr.Failure.Message != "":
		cr.Outcome = Skip
	case sr.State == types.SpecStateSkipped || sr.State == types.SpecStatePending:
		cr.Outcome, cr.Message = NotRun, ""
	case sr.State == types.SpecStateInterrupted || sr.State == types.SpecStateAborted:
		cr.Outcome = NotRun
	case sr.State == types.SpecStateTimedout:
		cr.Outcome = Error
	default:
		if _, ok := entry(conformance.EntryInconclusive); ok {
			cr.Outcome = Inconclusive
		} else if _, ok := entry(conformance.EntryError); ok {
			cr.Outcome = Error
		} else if by, ok := entry(conformance.EntryBlockedBy); ok {
			cr.Outcome, cr.BlockedBy = Blocked, by
		} else {
			cr.Outcome = Fail
		}
	}
	return cr
}

// Count returns how many checks had the outcome.
func (r *Result) Count(o Outcome) int { return r.outcomes[o] }

// ExitCode is chatconform's exit status for the run: 0 when nothing failed,
// 1 when the server broke a requirement, 3 when checks could not judge it
// (transport errors, timeouts, the target kept refusing).
func (r *Result) ExitCode() int {
	switch {
	case r.outcomes[Fail] > 0 || r.outcomes[Blocked] > 0:
		return 1
	case r.outcomes[Error] > 0 || r.outcomes[Inconclusive] > 0:
		return 3
	}
	return 0
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// Print writes the verdict per requirement and the totals.
func (r *Result) Print(w io.Writer) {
	fmt.Fprintf(w, "\nVerdict per requirement (profile %s):\n", r.Profile)
	for _, q := range r.Requirements {
		fmt.Fprintf(w, "  %-12s %-26s %s\n", q.Verdict, q.ID, q.Text)
		if q.Verdict == Pass || q.Verdict == NotCheckable || q.Verdict == NotRun {
			continue
		}
		for _, c := range q.Checks {
			if c.Outcome == Pass || c.Outcome == NotRun {
				continue
			}
			fmt.Fprintf(w, "               %s: %s\n", c.Outcome, c.Name)
			if c.BlockedBy != "" {
				fmt.Fprintf(w, "                 blocked by %s (its own check says why)\n", c.BlockedBy)
				continue
			}
			if c.Message != "" {
				fmt.Fprintf(w, "                 %s\n", strings.ReplaceAll(c.Message, "\n", "\n                 "))
			}
		}
	}
	var parts []string
	for _, o := range []Outcome{Pass, Fail, Blocked, Error, Inconclusive, Known, Skip, NotRun, NotCheckable} {
		if n := r.Counts[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	fmt.Fprintf(w, "\nchatconform: %d requirements: %s\n", len(r.Requirements), strings.Join(parts, ", "))
	parts = parts[:0]
	total := 0
	for _, o := range []Outcome{Pass, Fail, Blocked, Error, Inconclusive, Known, Skip, NotRun} {
		if n := r.outcomes[o]; n > 0 {
			total += n
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	fmt.Fprintf(w, "chatconform: %d checks (%s) in %s, %d requests; seed %d\n", total, strings.Join(parts, ", "), r.Duration.Round(time.Millisecond), r.Requests, r.Seed)
	if code := r.ExitCode(); code == 0 {
		fmt.Fprintln(w, "chatconform: PASS")
	} else {
		fmt.Fprintf(w, "chatconform: FAIL (replay with --seed %d)\n", r.Seed)
	}
}

func (r *Result) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

var page = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chatconform: {{.Profile}} profile</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}td,th{padding:.3em .6em;text-align:left;vertical-align:top}
.PASS{color:#060}.FAIL{color:#b00;font-weight:bold}.SKIP,.N\/A,.NOT{color:#777}pre{white-space:pre-wrap;margin:0}</style></head>
<body><h1>Chat Rooms API conformance</h1>
<p>Profile <b>{{.Profile}}</b>, target {{.Target}}, seed {{.Seed}}, {{.Requests}} requests in {{.Duration}}.</p>
<table><tr><th>Verdict</th><th>Requirement</th><th>Level</th><th>Statement</th><th>Checks</th></tr>
{{range .Requirements}}<tr><td class="{{.Verdict}}">{{.Verdict}}</td><td>{{.ID}}</td><td>{{.Level}}</td><td>{{.Text}}<br><small>{{.Section}}</small>{{if .Reason}}<br><small>{{.Reason}}</small>{{end}}</td>
<td>{{range .Checks}}<div>{{.Outcome}}: {{.Name}}{{if .BlockedBy}} (blocked by {{.BlockedBy}}){{end}}{{if .Message}}<pre>{{.Message}}</pre>{{end}}</div>{{end}}</td></tr>
{{end}}</table></body></html>
`))

func (r *Result) writeHTML(w io.Writer) error { return page.Execute(w, r) }

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
