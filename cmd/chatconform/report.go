package main

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chatrooms/conformance/client"
	"github.com/chatrooms/conformance/conformance"
	"github.com/chatrooms/conformance/spec"
)

// Verdicts of a requirement.
const (
	pass         = "PASS"
	fail         = "FAIL"
	skip         = "SKIP"    // every check of it skipped itself, with a reason
	notRun       = "NOT RUN" // filtered out by --label-filter or --focus
	notCheckable = "N/A"     // the catalogue says no outside client can check it
)

// Summary is a run organised by requirement.
type Summary struct {
	Profile      spec.Profile       `json:"profile"`
	Target       string             `json:"target"`
	Seed         uint64             `json:"seed"`
	Duration     time.Duration      `json:"durationNs"`
	Requests     int                `json:"requests"`
	Requirements []Requirement      `json:"requirements"`
	Counts       map[string]int     `json:"counts"`
	Checks       map[string]int     `json:"checks"`
	Failed       int                `json:"-"`
	Unreachable  int                `json:"-"`
	Exchanges    []*client.Exchange `json:"failedExchanges,omitempty"`
}

// Requirement is the verdict on one catalogue entry.
type Requirement struct {
	ID      string        `json:"id"`
	Level   spec.Profile  `json:"level"`
	Section string        `json:"section"`
	Text    string        `json:"text"`
	Verdict string        `json:"verdict"`
	Reason  string        `json:"reason,omitempty"`
	Checks  []CheckResult `json:"checks,omitempty"`
}

// CheckResult is the outcome of one spec.
type CheckResult struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
}

func summarize(r types.Report, checks []conformance.Check, p spec.Profile, seed uint64, url string, d time.Duration, requests int) *Summary {
	cat, _ := spec.LoadCatalogue()
	s := &Summary{Profile: p, Target: url, Seed: seed, Duration: d, Requests: requests, Counts: map[string]int{}, Checks: map[string]int{}}
	byID := map[string][]CheckResult{}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt || (p == spec.Core && slices.Contains(sr.Labels(), string(spec.Reference))) {
			continue // not a check, or not one of this profile
		}
		res := CheckResult{Name: sr.FullText(), State: sr.State.String(), Message: firstLines(sr.Failure.Message, 6)}
		switch {
		case sr.State.Is(types.SpecStateFailureStates):
			res.State = "failed"
			s.Failed++
			if strings.Contains(sr.Failure.Message, "could not be reached") {
				s.Unreachable++
			}
		case sr.State == types.SpecStateSkipped && sr.Failure.Message == "":
			res.State = "not run"
		}
		s.Checks[res.State]++
		for _, label := range sr.LeafNodeLabels {
			if _, ok := cat.Lookup(label); ok {
				byID[label] = append(byID[label], res)
			}
		}
	}
	for _, req := range cat.Requirements {
		if !req.InProfile(p) {
			continue
		}
		v := Requirement{ID: req.ID, Level: req.Level, Section: req.Section, Text: req.Text, Checks: byID[req.ID]}
		switch {
		case !req.IsCheckable():
			v.Verdict, v.Reason = notCheckable, req.Reason
		default:
			v.Verdict = verdict(v.Checks)
		}
		s.Counts[v.Verdict]++
		s.Requirements = append(s.Requirements, v)
	}
	return s
}

func verdict(cs []CheckResult) string {
	states := map[string]int{}
	for _, c := range cs {
		states[c.State]++
	}
	switch {
	case states["failed"] > 0:
		return fail
	case states["passed"] > 0:
		return pass
	case states["skipped"] > 0:
		return skip
	}
	return notRun
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

func (s *Summary) print(w io.Writer) {
	fmt.Fprintf(w, "\nVerdict per requirement (profile %s):\n", s.Profile)
	for _, r := range s.Requirements {
		fmt.Fprintf(w, "  %-8s %-26s %s\n", r.Verdict, r.ID, r.Text)
		if r.Verdict == fail || r.Verdict == skip {
			for _, c := range r.Checks {
				if c.State == "failed" || c.State == "skipped" {
					fmt.Fprintf(w, "           %s: %s\n", c.State, c.Name)
					if c.Message != "" {
						fmt.Fprintf(w, "             %s\n", strings.ReplaceAll(firstLines(c.Message, 3), "\n", "\n             "))
					}
				}
			}
		}
	}
	keys := make([]string, 0, len(s.Counts))
	for k := range s.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range []string{pass, fail, skip, notRun, notCheckable} {
		if n := s.Counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	fmt.Fprintf(w, "\nchatconform: %d requirements: %s\n", len(s.Requirements), strings.Join(parts, ", "))
	fmt.Fprintf(w, "chatconform: %d checks (%d passed, %d failed, %d skipped, %d not run) in %s, %d requests; seed %d\n",
		s.Checks["passed"]+s.Checks["failed"]+s.Checks["skipped"]+s.Checks["not run"], s.Checks["passed"], s.Checks["failed"],
		s.Checks["skipped"], s.Checks["not run"], s.Duration.Round(time.Millisecond), s.Requests, s.Seed)
	if s.Failed == 0 {
		fmt.Fprintln(w, "chatconform: PASS")
	} else {
		fmt.Fprintf(w, "chatconform: FAIL (replay with --seed %d)\n", s.Seed)
	}
}

func (s *Summary) writeJSON(rec *client.Recorder) func(io.Writer) error {
	return func(w io.Writer) error {
		for _, e := range rec.Exchanges() {
			if len(e.Violations) > 0 || e.Status >= 500 {
				s.Exchanges = append(s.Exchanges, e)
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
}

var page = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chatconform: {{.Profile}} profile</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}td,th{padding:.3em .6em;text-align:left;vertical-align:top}
.PASS{color:#060}.FAIL{color:#b00;font-weight:bold}.SKIP,.N\/A,.NOT{color:#777}pre{white-space:pre-wrap;margin:0}</style></head>
<body><h1>Chat Rooms API conformance</h1>
<p>Profile <b>{{.Profile}}</b>, target {{.Target}}, seed {{.Seed}}, {{.Requests}} requests in {{.Duration}}.</p>
<table><tr><th>Verdict</th><th>Requirement</th><th>Level</th><th>Statement</th><th>Checks</th></tr>
{{range .Requirements}}<tr><td class="{{.Verdict}}">{{.Verdict}}</td><td>{{.ID}}</td><td>{{.Level}}</td><td>{{.Text}}<br><small>{{.Section}}</small>{{if .Reason}}<br><small>{{.Reason}}</small>{{end}}</td>
<td>{{range .Checks}}<div>{{.State}}: {{.Name}}{{if .Message}}<pre>{{.Message}}</pre>{{end}}</div>{{end}}</td></tr>
{{end}}</table></body></html>
`))

func (s *Summary) writeHTML(w io.Writer) error { return page.Execute(w, s) }
