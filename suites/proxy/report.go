package proxy

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/report"
	"github.com/chatrooms/conformance/suites/runner"
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
	// Verdicts are the judges' verdicts over the session, both sides.
	Verdicts *record.Verdicts `json:"-"`
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
		Unanswered: int(p.unanswered.Load()), HistoryWindows: v.HistoryWindows, Requirements: []Requirement{}, Verdicts: v}
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

// The judges a proxy session's report has besides the document and history
// checkers.
const (
	ClientJudge = "Client requests: every request the client sent is within the document"
)

// RunReport is the session as a run report: the server's answers
// judged by the document and history checkers, each requirement they can
// judge from traffic PASS or FAIL, the other checkable ones NOT RUN with
// why; what the client's requests broke, which is no verdict on the
// server, in the report's proxy note. Its exit code is the session's.
func (r *Report) RunReport() *runner.Result {
	v := r.Verdicts
	if v == nil {
		v = &record.Verdicts{}
	}
	server, client := v.Split()
	in := runner.External{Profile: r.Profile, Target: r.Target, Version: r.Version, Started: r.Started, Duration: r.Duration, Requests: r.Exchanges}
	// A requirement passes only where the session's answers reached it: a
	// success of an operation whose answers can break it. The history
	// checker's rules are many, and a session does not show which of them
	// its traffic reached, so finding no contradiction passes none.
	judgeable := record.Judgeable(r.Profile)
	shown, unreached := server.Reach(r.Profile, judgeable)
	judgments, unsupported := record.JudgmentsOf(&server, shown)
	for id, why := range unreached {
		if _, ok := unsupported[id]; !ok {
			unsupported[id] = why
		}
	}
	note := &report.ProxyNote{Listen: r.Listen, Forwarded: r.Exchanges, Unanswered: r.Unanswered, JudgedAgainstDocument: r.Judged,
		ExchangesNotJudged: r.NotJudged, HistoryWindows: r.HistoryWindows}
	note.Unattributed = in.AddJudgments(judgments, unsupported, judgeable,
		"not judged from this traffic: ", "send requests that reach them through the proxy",
		"not judged from traffic: judged by a run's checks", "run chatconform against the target for these verdicts")
	note.Client = record.ClientBreaches(client)
	in.Proxy = note
	// The client's requests are judged too: one judge, counted as a check
	// in every output, that fails on any breach of the client's; and the
	// server's breaches under no requirement of the catalogue fail one
	// of their own.
	cj := runner.CheckResult{Name: ClientJudge, Area: "Proxy", Outcome: runner.Pass}
	var lines []string
	for _, c := range note.Client {
		cj.IDs = append(cj.IDs, c.Requirement)
		lines = append(lines, c.Requirement+": "+report.FirstLine(strings.TrimPrefix(c.Message, "client's, ")))
	}
	if len(lines) > 0 {
		cj.Outcome, cj.Message = runner.Fail, "the client's requests broke the document (no verdict on the server):\n"+strings.Join(lines, "\n")
	}
	in.Judges = append(in.Judges, cj)
	if len(note.Unattributed) > 0 {
		in.Judges = append(in.Judges, runner.Unattributed(note.Unattributed))
	}
	res := runner.NewReport(in)
	res.ExitStatus = r.ExitCode()
	return res
}
