package report

import (
	"html/template"
	"io"
	"sort"
)

// htmlView is what the HTML report shows, in the order a person reads it:
// the verdict and the counts, then each root-cause failure with the checks
// it blocked folded under it, then what could not be judged, then every
// requirement.
type htmlView struct {
	*Report
	Verdict      string
	Class        string // pass, fail, error
	Took         string
	ReqCounts    []count
	CheckCounts  []count
	RootCauses   []rootCause
	Unjudged     []Check // ERROR, INCONCLUSIVE, BLOCKED by what did not fail
	KnownCauses  []rootCause
	BlockedTotal int
}

type count struct {
	Outcome string
	N       int
}

type rootCause struct {
	Req     Requirement
	Failing []foldedFailure
	Blocked []Check
}

// foldedFailure is a failure shown in full once, with the other checks that met
// the same breach on the way (same signature) folded under it.
type foldedFailure struct {
	Check
	Again []string
}

func (r *Report) htmlView() htmlView {
	v := htmlView{Report: r, Verdict: r.Verdict(), Took: Readable(r.Duration)}
	switch r.ExitStatus {
	case ExitPass:
		v.Class = "pass"
		if r.Coverage != nil && r.Coverage.Judged < r.Coverage.Total {
			v.Class = "partial" // green only when every checkable requirement was judged
		}
	case ExitFail:
		v.Class = "fail"
	default:
		v.Class = "error"
	}
	for _, o := range []Outcome{Pass, Fail, Blocked, Error, Inconclusive, Known, Skip, NotRun, NotCheckable} {
		if n := r.Counts[o.String()]; n > 0 {
			v.ReqCounts = append(v.ReqCounts, count{o.String(), n})
		}
		if n := r.Checks[o.String()]; n > 0 && o != NotCheckable {
			v.CheckCounts = append(v.CheckCounts, count{o.String(), n})
		}
	}
	blockedBy := map[string][]Check{}
	for _, c := range r.CheckList(nil) { // each check once, with the outcome every output counts
		switch c.Outcome {
		case Blocked:
			blockedBy[c.BlockedBy] = append(blockedBy[c.BlockedBy], c)
		case Error, Inconclusive:
			v.Unjudged = append(v.Unjudged, c)
		}
	}
	causes := map[string]bool{}
	for _, q := range r.Requirements {
		if q.Verdict != Fail && q.Verdict != Known {
			continue
		}
		rc := rootCause{Req: q, Blocked: blockedBy[q.ID]}
		first := map[string]int{} // signature → its row in rc.Failing
		for _, c := range q.Checks {
			if c.Outcome != Fail && c.Outcome != Known {
				continue
			}
			if i, ok := first[c.Signature]; ok && c.Signature != "" {
				rc.Failing[i].Again = append(rc.Failing[i].Again, c.Name)
				continue
			}
			first[c.Signature] = len(rc.Failing)
			rc.Failing = append(rc.Failing, foldedFailure{Check: c})
		}
		causes[q.ID] = true
		v.BlockedTotal += len(rc.Blocked)
		if q.Verdict == Known {
			v.KnownCauses = append(v.KnownCauses, rc)
		} else {
			v.RootCauses = append(v.RootCauses, rc)
		}
	}
	// Root causes that block the most come first.
	sort.SliceStable(v.RootCauses, func(i, j int) bool { return len(v.RootCauses[i].Blocked) > len(v.RootCauses[j].Blocked) })
	for id, cs := range blockedBy {
		if !causes[id] {
			v.Unjudged = append(v.Unjudged, cs...)
		}
	}
	sort.SliceStable(v.Unjudged, func(i, j int) bool { return v.Unjudged[i].Name < v.Unjudged[j].Name })
	return v
}

var funcs = template.FuncMap{"readable": Readable}

var page = template.Must(template.New("report").Funcs(funcs).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>chatconform: {{.Verdict}}</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:1.5em;max-width:75em;color:#222}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd}
.banner{padding:.8em 1em;border-radius:6px;font-size:1.25em;font-weight:bold;margin:.6em 0}
.banner.pass{background:#e3f4e3;color:#064}.banner.partial{background:#eef4d8;color:#4a5a00}.banner.fail{background:#fbe3e3;color:#900}.banner.error{background:#fdf0d8;color:#7a4b00}
.counts span{display:inline-block;margin:.2em .8em .2em 0;padding:.1em .5em;border-radius:4px;background:#f2f2f2}
pre{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;background:#f7f7f7;padding:.6em;border-radius:4px;margin:.4em 0;font-size:13px}
table{border-collapse:collapse;width:100%}td,th{padding:.3em .5em;text-align:left;vertical-align:top;border-bottom:1px solid #eee;overflow-wrap:anywhere}
.o,.id{font-weight:bold;white-space:nowrap}.PASS{color:#064}.FAIL{color:#b00}.BLOCKED,.ERROR,.INCONCLUSIVE{color:#a60}.KNOWN{color:#559}.SKIP,.N\/A,.NOT{color:#777}
.cause{border-left:4px solid #b00;padding:.2em 0 .2em .8em;margin:1em 0}.cause.known{border-color:#559}
details summary{cursor:pointer}small{color:#666}
</style></head>
<body><h1>Chat Rooms API conformance</h1>
<div class="banner {{.Class}}" id="verdict">{{.Verdict}}</div>
<p class="counts" id="counts"><b>{{len .Requirements}} requirements:</b> {{range .ReqCounts}}<span class="{{.Outcome}}">{{.N}} {{.Outcome}}</span>{{end}}<br>
<b>Checks:</b> {{range .CheckCounts}}<span class="{{.Outcome}}">{{.N}} {{.Outcome}}</span>{{else}}none ran{{end}}</p>
{{if .Proxy}}<p id="target">A proxy session on <code>{{.Proxy.Listen}}</code> forwarding to <code>{{.Target}}</code>, profile <b>{{.Profile}}</b>: {{.Proxy.Forwarded}} exchanges forwarded, {{.Proxy.JudgedAgainstDocument}} judged against the document{{if .Proxy.Unanswered}}, {{.Proxy.Unanswered}} without an answer from the target{{end}}, in {{.Took}}{{if .Started.IsZero}}{{else}}, started {{.Started.UTC.Format "2006-01-02 15:04:05"}} UTC{{end}}{{if .Version}}, chatconform {{.Version}}{{end}}.</p>
{{else}}<p id="target">{{if .Bundled}}<b>{{.TargetNote}}</b> (<code>{{.Target}}</code>). {{end}}Profile <b>{{.Profile}}</b>{{if not .Bundled}}, target <code>{{.Target}}</code>{{end}}, seed {{.Seed}} (replay with <code>--seed {{.Seed}}</code>), {{.Requests}} requests in {{.Took}}{{if .Started.IsZero}}{{else}}, started {{.Started.UTC.Format "2006-01-02 15:04:05"}} UTC{{end}}{{if .Version}}, chatconform {{.Version}}{{end}}.</p>{{end}}
{{with .Coverage}}<p id="judged"><b>{{.}}</b>{{if .NotJudged}}; what was not judged, and why, is listed below{{end}}.</p>{{end}}
{{range .CoverageShort}}<p class="banner fail">Coverage short: {{.}}</p>{{end}}
{{if .Halted}}<p class="banner error" id="halted">The run stopped early: {{.Halted}}</p>{{end}}
{{range .Fixed}}<p class="banner fail">{{.}} is listed in the baseline but now passes: remove it from the baseline.</p>{{end}}
{{if .RootCauses}}<h2 id="failures">Failing requirements: {{len .RootCauses}}; checks blocked by them: {{.BlockedTotal}}</h2>
{{range .RootCauses}}{{template "cause" .}}{{end}}{{end}}
{{with .Proxy}}{{template "notes" .}}{{end}}{{with .Replay}}{{template "notes" .}}{{end}}
{{with .Coverage}}{{if .NotJudged}}<h2 id="coverage">Not judged: {{len .NotJudged}} causes</h2>
{{range .NotJudged}}<div class="cause known"><span class="o {{.Outcome}}">{{.Outcome}}</span> <b>{{.Cause}}</b>: {{len .Requirements}} requirements<br><small>{{range $i, $id := .Requirements}}{{if $i}}, {{end}}{{$id}}{{end}}</small>
{{range .Reasons}}<br><small>({{.}})</small>{{end}}{{if .Do}}<br>Do: {{.Do}}{{end}}</div>{{end}}{{end}}{{end}}
{{if .Unjudged}}<h2 id="unjudged">Could not judge ({{len .Unjudged}} checks)</h2>
{{range .Unjudged}}<div class="cause known"><span class="o {{.Outcome}}">{{.Outcome}}</span> {{.Name}} <small>[{{range $i, $id := .IDs}}{{if $i}}, {{end}}{{$id}}{{end}}]</small>
{{if .BlockedBy}}<br><small>blocked by {{.BlockedBy}}</small>{{end}}{{if .Message}}<pre>{{.Message}}</pre>{{end}}</div>{{end}}{{end}}
{{if .KnownCauses}}<h2 id="known">Known failures (baseline)</h2>
{{range .KnownCauses}}{{template "cause" .}}{{end}}{{end}}
<h2 id="requirements">Every requirement</h2>
<table><tr><th>Verdict</th><th>Requirement</th><th>Statement</th><th>Checks</th></tr>
{{range .Requirements}}<tr><td class="o {{.Verdict}}">{{.Verdict}}</td><td class="id">{{.ID}}<br><small>{{.Level}}</small></td><td>{{.Text}}<br><small>{{.Section}}</small>{{if .Reason}}<br><small>{{.Reason}}</small>{{end}}{{if .Known}}<br><small>known failure: {{.Known}}</small>{{end}}</td>
<td>{{range .Checks}}<div><span class="o {{.Outcome}}">{{.Outcome}}</span> {{.Name}}{{if .Duration}} <small>{{readable .Duration}}</small>{{end}}{{if .BlockedBy}} <small>(blocked by {{.BlockedBy}})</small>{{end}}</div>{{end}}</td></tr>
{{end}}</table>
{{if .Exchanges}}<h2 id="exchanges">Exchanges that broke the document or answered 5xx</h2>
{{range .Exchanges}}<details><summary>{{.Status}} {{.Method}} {{.URL}}</summary><pre>{{range .Violations}}- {{.}}
{{end}}response: {{.Status}} {{.ResponseBody}}
reproduce: {{.Curl}}</pre></details>{{end}}
{{if .ExchangesOmitted}}<p><small>… [cut: {{.ExchangesOmitted}} more exchanges not listed]</small></p>{{end}}{{end}}
</body></html>
{{define "notes"}}{{if .Client}}<h2 id="client">Broken by the client's requests: {{len .Client}} requirements (no verdict on the server)</h2>
{{range .Client}}<div class="cause"><span class="o FAIL">CLIENT</span> <b>{{.Requirement}}</b>: {{.Text}} <small>{{.Source}}, {{.Count}}</small><pre>{{.Message}}</pre></div>{{end}}{{end}}
{{if .Unattributed}}<h2 id="unattributed">Broken under no requirement of the catalogue: {{len .Unattributed}}</h2>
{{range .Unattributed}}<div class="cause"><pre>{{.}}</pre></div>{{end}}{{end}}{{end}}
{{define "cause"}}<div class="cause{{if .Req.Known}} known{{end}}"><span class="o {{.Req.Verdict}}">{{.Req.Verdict}}</span> <b>{{.Req.ID}}</b>: {{.Req.Text}} <small>{{.Req.Section}}</small>
{{if .Req.Known}}<br><small>known failure: {{.Req.Known}}</small>{{end}}
{{range .Failing}}<div><b>{{.Name}}</b>{{if .Duration}} <small>{{readable .Duration}}</small>{{end}}<pre>{{.Message}}</pre>{{if .Again}}<details><summary>the same breach, met on the way by {{len .Again}} other checks too</summary><ul>{{range .Again}}<li>{{.}}</li>{{end}}</ul></details>{{end}}</div>{{end}}
{{if .Blocked}}<details><summary>{{len .Blocked}} checks blocked by {{.Req.ID}}</summary><ul>{{range .Blocked}}<li><span class="o BLOCKED">BLOCKED</span> {{.Name}} <small>[{{range $i, $id := .IDs}}{{if $i}}, {{end}}{{$id}}{{end}}]</small></li>{{end}}</ul></details>{{end}}
</div>{{end}}
`))

func (r *Report) WriteHTML(w io.Writer) error { return page.Execute(w, r.htmlView()) }
