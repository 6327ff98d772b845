package proxy

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/record"
)

// Report is what a proxy session found, grouped by requirement.
type Report struct {
	Tool     string        `json:"tool"`
	Version  string        `json:"version,omitempty"`
	Profile  spec.Profile  `json:"profile"`
	Target   string        `json:"target"`
	Listen   string        `json:"listen"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNs"`
	// Exchanges is how many exchanges were forwarded; Judged how many were
	// judged against the document. NotJudged counts the others by reason,
	// and Unanswered those the target gave no answer to.
	Exchanges  int            `json:"exchanges"`
	Judged     int            `json:"judged"`
	NotJudged  map[string]int `json:"notJudged,omitempty"`
	Unanswered int            `json:"unanswered,omitempty"`
	// Clean says no exchange broke a requirement.
	Clean bool `json:"clean"`
	// Client and Server count the requirements each side broke.
	Client       int           `json:"clientViolations"`
	Server       int           `json:"serverViolations"`
	Requirements []Requirement `json:"requirements"`
	// HistoryWindows is how many times the history checker started afresh,
	// plus one.
	HistoryWindows int `json:"historyWindows"`
}

// Requirement is one requirement a side broke.
type Requirement struct {
	ID   string `json:"id"`
	Text string `json:"text,omitempty"`
	// Whose is "client" (the requests) or "server" (the answers); Source
	// is "document" or "history".
	Whose  string `json:"whose"`
	Source string `json:"source"`
	// Count is how many exchanges broke it (document) or how many
	// contradictions were found (history).
	Count    int              `json:"count"`
	Examples []record.Finding `json:"examples"`
}

func (p *Proxy) report() *Report {
	v := p.judge.Verdicts()
	cat, _ := spec.LoadCatalogue()
	r := &Report{Tool: "chatconform proxy", Version: p.cfg.Version, Profile: p.cfg.Profile, Target: p.cfg.Target.BaseURL, Listen: p.url,
		Started: p.started, Duration: time.Since(p.started), Exchanges: int(p.count.Load()), Judged: v.Judged,
		Unanswered: int(p.unanswered.Load()), HistoryWindows: v.HistoryWindows, Requirements: []Requirement{}}
	p.mu.Lock()
	for k, n := range p.notJudged {
		if r.NotJudged == nil {
			r.NotJudged = map[string]int{}
		}
		r.NotJudged[k] += n
	}
	p.mu.Unlock()
	for k, n := range v.NotJudged {
		if r.NotJudged == nil {
			r.NotJudged = map[string]int{}
		}
		r.NotJudged[k] += n
	}
	for _, f := range v.Failures {
		q := Requirement{ID: f.Requirement, Whose: f.Whose, Source: f.Source, Count: f.Count, Examples: f.Examples}
		if cat != nil {
			if c, ok := cat.Lookup(f.Requirement); ok {
				q.Text = c.Text
			}
		}
		if t, ok := record.LabelText(f.Requirement); ok {
			q.Text = t
		}
		if f.Whose == record.Client {
			r.Client++
		} else {
			r.Server++
		}
		r.Requirements = append(r.Requirements, q)
	}
	sort.SliceStable(r.Requirements, func(i, j int) bool {
		a, b := r.Requirements[i], r.Requirements[j]
		if a.Whose != b.Whose {
			return a.Whose > b.Whose // the server's first
		}
		return a.ID < b.ID
	})
	r.Clean = len(r.Requirements) == 0
	r.Target = p.tok.redactor().String(r.Target)
	return r
}

// ExitCode is chatconform proxy's exit status for the session: 0 when no
// exchange broke a requirement, 1 otherwise.
func (r *Report) ExitCode() int {
	if r.Clean {
		return 0
	}
	return 1
}

// Print writes the summary: one line per requirement broken.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "chatconform proxy: %d exchanges forwarded, %d judged against the %s document", r.Exchanges, r.Judged, r.Profile)
	if r.Unanswered > 0 {
		fmt.Fprintf(w, ", %d without an answer from the target", r.Unanswered)
	}
	fmt.Fprintln(w)
	keys := make([]string, 0, len(r.NotJudged))
	for k := range r.NotJudged {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  not judged: %d (%s)\n", r.NotJudged[k], k)
	}
	for _, q := range r.Requirements {
		unit := "exchange"
		if q.Source == record.History {
			unit = "contradiction"
		}
		fmt.Fprintf(w, "%-6s %-26s %s, %s: %s\n", strings.ToUpper(q.Whose), q.ID, q.Source, record.Plural(q.Count, unit), first(q))
	}
	switch {
	case r.Clean:
		fmt.Fprintln(w, "chatconform proxy: no violation: every exchange judged was within the document, and the answers agree with each other")
	default:
		fmt.Fprintf(w, "chatconform proxy: %d requirements broken by the server, %d by the client\n", r.Server, r.Client)
	}
}

func first(q Requirement) string {
	if len(q.Examples) == 0 {
		return q.Text
	}
	s := q.Examples[0].Text
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// WriteReports writes the reports asked for (empty paths are skipped),
// every text redacted by red.
func (r *Report) WriteReports(red *client.Redactor, jsonPath, junitPath, htmlPath string) error {
	for _, w := range []struct {
		path  string
		write func(io.Writer) error
	}{{jsonPath, r.WriteJSON}, {junitPath, r.WriteJUnit}, {htmlPath, r.WriteHTML}} {
		if w.path == "" {
			continue
		}
		f, err := os.Create(w.path)
		if err != nil {
			return err
		}
		rw := red.Writer(f)
		err = w.write(rw)
		if ferr := rw.Flush(); err == nil {
			err = ferr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", w.path, err)
		}
	}
	return nil
}

// WriteJSON writes the report as JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

type junitSuite struct {
	XMLName   xml.Name    `xml:"testsuite"`
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Time      float64     `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Props     []junitProp `xml:"properties>property"`
	Cases     []junitCase `xml:"testcase"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes one test case per requirement broken, by side, and
// one for the session as a whole.
func (r *Report) WriteJUnit(w io.Writer) error {
	s := junitSuite{Name: "chatconform proxy (" + string(r.Profile) + ")", Time: r.Duration.Seconds(), Timestamp: r.Started.UTC().Format(time.RFC3339),
		Props: []junitProp{{"target", r.Target}, {"exchanges", fmt.Sprint(r.Exchanges)}, {"judged", fmt.Sprint(r.Judged)}}}
	whole := junitCase{Name: "every exchange judged is within the document and agrees with the others", ClassName: "session"}
	if !r.Clean {
		whole.Failure = &junitFailure{Message: fmt.Sprintf("%d requirements broken by the server, %d by the client", r.Server, r.Client), Type: "violation"}
	}
	s.Cases = append(s.Cases, whole)
	for _, q := range r.Requirements {
		var text strings.Builder
		for _, e := range q.Examples {
			text.WriteString(e.Text + "\n")
			for _, x := range e.Exchanges {
				fmt.Fprintf(&text, "  %s %s -> %d (%s)\n", x.Method, x.Path, x.Status, userName(x.User))
				if x.Reproduce != "" {
					fmt.Fprintf(&text, "  reproduce: %s\n", x.Reproduce)
				}
			}
		}
		s.Cases = append(s.Cases, junitCase{Name: q.ID + " (" + q.Whose + ")", ClassName: q.Whose,
			Failure: &junitFailure{Message: fmt.Sprintf("%s broken by the %s (%s, %s): %s", q.ID, q.Whose, q.Source, record.Plural(q.Count, "time"), first(q)),
				Type: q.Source, Text: text.String()}})
	}
	s.Tests = len(s.Cases)
	for _, c := range s.Cases {
		if c.Failure != nil {
			s.Failures++
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

var page = template.Must(template.New("proxy").Funcs(template.FuncMap{"upper": strings.ToUpper, "user": userName}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chatconform proxy: {{.Target}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:72em}
.ok{color:#0a0}.bad{color:#b00}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
pre{white-space:pre-wrap;margin:.2em 0}
</style></head><body>
<h1 class="{{if .Clean}}ok{{else}}bad{{end}}">{{if .Clean}}No violation{{else}}{{.Server}} requirements broken by the server, {{.Client}} by the client{{end}}</h1>
<p>Target {{.Target}}, profile {{.Profile}}, through {{.Listen}}; {{.Exchanges}} exchanges forwarded, {{.Judged}} judged against the document{{if .Unanswered}}, {{.Unanswered}} without an answer{{end}}; started {{.Started.UTC.Format "2006-01-02 15:04:05"}} UTC for {{.Duration}}.</p>
{{if .NotJudged}}<h2>Not judged</h2><ul>{{range $k, $n := .NotJudged}}<li>{{$n}}: {{$k}}</li>{{end}}</ul>{{end}}
{{if .Requirements}}<h2>By requirement</h2>
<table><tr><th>side</th><th>requirement</th><th>found by</th><th>count</th><th>examples</th></tr>
{{range .Requirements}}<tr><td>{{upper .Whose}}</td><td><b>{{.ID}}</b><br>{{.Text}}</td><td>{{.Source}}</td><td>{{.Count}}</td><td>{{range .Examples}}<pre>{{.Text}}</pre>{{range .Exchanges}}<pre>{{.Method}} {{.Path}} -&gt; {{.Status}} ({{user .User}}){{if .Reproduce}}
{{.Reproduce}}{{end}}</pre>{{end}}{{end}}</td></tr>
{{end}}</table>{{end}}
</body></html>
`))

// WriteHTML writes the report as one page that needs no network.
func (r *Report) WriteHTML(w io.Writer) error { return page.Execute(w, r) }
