package record

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/conformance"
	"github.com/chatrooms/conformance/suites/history"
	"github.com/chatrooms/conformance/suites/report"
)

// HistoryRequirements are the ids the history checker reports under.
var HistoryRequirements = history.Requirements()

// Replayed is a record judged again.
type Replayed struct {
	Header  Header
	Trailer *Trailer // nil when the record was cut short
	// Verdicts are the current build's verdicts on the record's exchanges.
	Verdicts *Verdicts
	// Current is the digests of this build; Changes says how they differ
	// from the record's (nil when they agree), and VersionChanged whether
	// the harness version does.
	Current        Digests
	Changes        []string
	Version        string
	VersionChanged bool
	// Differences lists how Verdicts differ from the verdicts recorded in
	// the trailer (nil when they agree, or when there are none to compare).
	Differences []string
	// Judgeable are the requirements a record can judge: those the
	// document validation blames and the history checker's, sorted.
	Judgeable []string
	// Span is how long the recorded exchanges took, from the run's start
	// to the end of the last one.
	Span time.Duration
}

// Same reports whether the replay reproduced the recorded verdicts with the
// same documents and harness.
func (r *Replayed) Same() bool {
	return r.Trailer != nil && r.Trailer.Verdicts != nil && len(r.Differences) == 0 && len(r.Changes) == 0 && !r.VersionChanged
}

// ReplayFile replays the record in a file; version is this build's.
func ReplayFile(path, version string) (*Replayed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Replay(f, version)
}

// Replay judges every exchange of a record again, with this build's
// validator and history checker, and compares with the verdicts recorded.
func Replay(r io.Reader, version string) (*Replayed, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	h := rd.Header
	p, err := spec.ParseProfile(h.Profile)
	if err != nil {
		return nil, fmt.Errorf("record header: %w", err)
	}
	j, err := NewJudge(JudgeOptions{Profile: p, MountPath: h.MountPath, Eventually: h.Eventually, Shared: h.Shared, Started: h.Started,
		Redactor: client.NewRedactor(), ResponseHeaders: h.ResponseHeaders, Index: true, UserIDs: UserIDs(h.Described)})
	if err != nil {
		return nil, err
	}
	var span time.Duration
	for {
		x, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		j.Add(x)
		span = max(span, x.End)
	}
	out := &Replayed{Header: h, Trailer: rd.Trailer, Verdicts: j.Verdicts(), Version: version, VersionChanged: version != h.Version, Span: span}
	if out.Current, err = CurrentDigests(); err != nil {
		return nil, err
	}
	out.Changes = h.Digests.Changes(out.Current)
	if rd.Trailer != nil && rd.Trailer.Verdicts != nil {
		out.Differences = Compare(rd.Trailer.Verdicts, out.Verdicts)
	}
	out.Judgeable = Judgeable(p)
	return out, nil
}

// Compare lists how verdicts b differ from a: a requirement broken in one
// and not the other, or broken a different number of times.
func Compare(a, b *Verdicts) []string {
	var out []string
	if a.Exchanges != b.Exchanges {
		out = append(out, fmt.Sprintf("exchanges: %d recorded, %d now", a.Exchanges, b.Exchanges))
	}
	if a.Judged != b.Judged {
		out = append(out, fmt.Sprintf("exchanges judged against the document: %d recorded, %d now", a.Judged, b.Judged))
	}
	count := func(v *Verdicts) map[string]int {
		m := map[string]int{}
		for _, f := range v.Failures {
			m[f.key()] = f.Count
		}
		return m
	}
	ca, cb := count(a), count(b)
	var keys []string
	for k := range ca {
		keys = append(keys, k)
	}
	for k := range cb {
		if _, ok := ca[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		x, inA := ca[k]
		y, inB := cb[k]
		parts := strings.SplitN(k, " ", 3)
		what := fmt.Sprintf("%s (%s's, %s)", parts[0], parts[1], parts[2])
		switch {
		case inA && !inB:
			out = append(out, fmt.Sprintf("%s: FAIL (%d) recorded, no longer found", what, x))
		case !inA && inB:
			out = append(out, fmt.Sprintf("%s: not found when recorded, FAIL (%d) now", what, y))
		case x != y:
			out = append(out, fmt.Sprintf("%s: FAIL %d times recorded, %d times now", what, x, y))
		}
	}
	return out
}

// Judgeable returns the requirements of profile p that document validation
// or the history checker can find broken, sorted.
func Judgeable(p spec.Profile) []string {
	set := map[string]bool{}
	for _, id := range HistoryRequirements {
		set[id] = true
	}
	for _, ids := range judgeableByOperation(p, true) {
		for _, id := range ids {
			set[id] = true
		}
	}
	return inProfile(set, p)
}

// JudgeableByOperation returns, for each operation of profile p's
// document, the requirements a judged success of it shows held: those of
// its Content-Type and body, and those of the fields of its success
// bodies, each sorted. The requirement its status alone is filed under
// (the operation's own, such as ROOM-HIDE) is left out: its statement
// says more than a status, which is all the document checker holds it to.
func JudgeableByOperation(p spec.Profile) map[string][]string {
	return judgeableByOperation(p, false)
}

// judgeableByOperation is JudgeableByOperation, with the requirement of
// each operation's status when status is set.
func judgeableByOperation(p spec.Profile, status bool) map[string][]string {
	out := map[string][]string{}
	doc, err := spec.Load(p)
	if err != nil {
		return out
	}
	for _, o := range doc.Operations() {
		set := map[string]bool{}
		rules := []string{"content-type", "decode"}
		if status {
			rules = append(rules, "status")
		}
		for _, rule := range rules {
			set[conformance.Blame(o.ID, spec.Violation{Rule: rule, Location: "$"})] = true
		}
		if item := doc.T.Paths.Value(o.Path); item != nil {
			if op := item.GetOperation(o.Method); op != nil && op.Responses != nil {
				for code, r := range op.Responses.Map() {
					if !strings.HasPrefix(code, "2") || r.Value == nil {
						continue
					}
					for _, mt := range r.Value.Content {
						if mt.Schema != nil {
							walkSchema(mt.Schema.Value, "$", 0, func(loc string) {
								for _, rule := range []string{"type", "required", "enum", "format", "not"} {
									set[conformance.Blame(o.ID, spec.Violation{Rule: rule, Location: loc})] = true
								}
							})
						}
					}
				}
			}
		}
		out[o.ID] = inProfile(set, p)
	}
	return out
}

// inProfile is the ids of set that are requirements of profile p (or no
// catalogue entry), sorted.
func inProfile(set map[string]bool, p spec.Profile) []string {
	delete(set, "")
	cat, _ := spec.LoadCatalogue()
	var out []string
	for id := range set {
		if cat != nil {
			if r, ok := cat.Lookup(id); ok && !r.InProfile(p) {
				continue
			}
		}
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// walkSchema calls at with every location a schema's fields sit at, to a
// small depth.
func walkSchema(s *openapi3.Schema, loc string, depth int, at func(string)) {
	if s == nil || depth > 4 {
		return
	}
	at(loc)
	for _, sub := range append(append(append([]*openapi3.SchemaRef{}, s.AllOf...), s.OneOf...), s.AnyOf...) {
		if sub != nil {
			walkSchema(sub.Value, loc, depth+1, at)
		}
	}
	if s.Items != nil {
		walkSchema(s.Items.Value, loc+"[0]", depth+1, at)
	}
	for name, p := range s.Properties {
		if p != nil {
			walkSchema(p.Value, loc+"."+name, depth+1, at)
		}
	}
}

// Print writes the replay's verdicts, one line a requirement, then what it
// could not judge and how it compares with the recorded verdicts.
func (r *Replayed) Print(w io.Writer) {
	h, v := r.Header, r.Verdicts
	fmt.Fprintf(w, "chatconform replay: a run of profile %s, seed %d, harness %s, target %s: %d exchanges\n",
		h.Profile, h.Seed, h.Version, h.Target, v.Exchanges)
	if r.Trailer == nil {
		fmt.Fprintln(w, "  the record has no trailer: the run was cut short, or the file is incomplete")
	} else {
		r.Trailer.Observed.Print(w, "  ")
	}
	switch {
	case len(r.Changes) == 0 && !r.VersionChanged:
		fmt.Fprintf(w, "  judged by the same documents and harness as the run (core %s, reference %s, catalogue %s)\n",
			short(r.Current.Core), short(r.Current.Reference), short(r.Current.Catalogue))
	default:
		fmt.Fprintln(w, "  judged by a newer version than the run's:")
		if r.VersionChanged {
			fmt.Fprintf(w, "    harness %s recorded, %s now\n", h.Version, r.Version)
		}
		for _, c := range r.Changes {
			fmt.Fprintf(w, "    %s\n", c)
		}
	}
	failed := map[string][]Verdict{}
	for _, f := range v.Failures {
		failed[f.Requirement] = append(failed[f.Requirement], f)
	}
	ids := append([]string(nil), r.Judgeable...)
	for id := range failed {
		if !contains(ids, id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	server, _ := v.Split()
	_, unreached := server.Reach(profileOf(h.Profile), r.Judgeable)
	for _, id := range ids {
		// The server's line first: its failures, or why it was not judged,
		// or no contradiction; then what the harness's own requests broke,
		// which is no verdict on the server.
		if !server.Failed(id) {
			switch why, unsupported := v.Unsupported[id]; {
			case unsupported:
				fmt.Fprintf(w, "%-12s %-26s not judged: %s\n", "NOT JUDGED", id, why)
			case unreached[id] != "":
				fmt.Fprintf(w, "%-12s %-26s not judged: %s\n", "NOT JUDGED", id, unreached[id])
			case contains(r.Judgeable, id):
				n, what := v.Judged, "answers judged against the document"
				fmt.Fprintf(w, "%-12s %-26s no contradiction in %d %s\n", "ok", id, n, what)
			}
		}
		for _, f := range failed[id] {
			label := "FAIL"
			if f.Whose == Client {
				label = "CLIENT"
			}
			fmt.Fprintf(w, "%-12s %-26s %s\n", label, id, indent(strings.TrimSuffix(f.Evidence(), "\n"), "             "))
		}
	}
	if len(v.NotJudged) > 0 {
		var keys []string
		for k := range v.NotJudged {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %d exchanges not judged against the document: %s\n", v.NotJudged[k], k)
		}
	}
	switch {
	case r.Trailer == nil || r.Trailer.Verdicts == nil:
		fmt.Fprintln(w, "chatconform replay: the record holds no verdicts of its run to compare with")
	case len(r.Differences) == 0:
		fmt.Fprintln(w, "chatconform replay: the same verdicts as the run recorded")
	default:
		if len(r.Changes) == 0 && !r.VersionChanged {
			fmt.Fprintln(w, "chatconform replay: DIFFERENT verdicts from the run's, with the same documents and harness:")
		} else {
			fmt.Fprintln(w, "chatconform replay: what the newer version judges differently from the run:")
		}
		for _, d := range r.Differences {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
}

// Plural writes n and the noun, with an s unless n is 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func indent(s, pad string) string { return strings.ReplaceAll(s, "\n", "\n"+pad) }

// Evidence is a failure in words, as replay prints it: whose it is, what
// found it and how often, then each example with the exchanges that show
// it (number, method, path, status, and how to send the request again).
func (v Verdict) Evidence() string {
	return fmt.Sprintf("%s's, %s: %s\n", v.Whose, v.Source, v.count()) + v.examples()
}

func (v Verdict) count() string {
	unit := "exchange"
	if v.Source == History {
		unit = "contradiction"
	}
	return Plural(v.Count, unit)
}

// examples writes each example of v with the exchanges that show it.
func (v Verdict) examples() string {
	var b strings.Builder
	for _, e := range v.Examples {
		fmt.Fprintf(&b, "%s\n", e.Text)
		for _, x := range e.Exchanges {
			n := "#?"
			if x.N > 0 {
				n = fmt.Sprintf("#%d", x.N)
			}
			fmt.Fprintf(&b, "  %s %s %s -> %d\n", n, x.Method, x.Path, x.Status)
			if x.Reproduce != "" {
				fmt.Fprintf(&b, "    reproduce: %s\n", x.Reproduce)
			}
		}
	}
	return b.String()
}

// Judgment is the replay's verdict on one requirement from one source:
// broken, with the evidence, or not, with what that rests on.
type Judgment struct {
	Requirement string
	Source      string // Document or History
	Failed      bool
	Text        string
}

// Judgments are the replay's verdicts per requirement: a failure of each
// requirement broken, per source, and for each requirement of Judgeable
// found unbroken, what it was held to. Unsupported are the requirements of
// Judgeable the record cannot judge, with why (they have no Judgment).
//
// A requirement of the document passes only where a success of an
// operation whose answers can break it was judged (Verdicts.Reach); the
// others the record can judge are unsupported, with why.
//
// Only the server's findings are verdicts; the harness's own requests that
// broke the document (ClientFindings) are no verdict on the server.
func (r *Replayed) Judgments() (out []Judgment, unsupported map[string]string) {
	server, _ := r.Verdicts.Split()
	shown, unreached := server.Reach(profileOf(r.Header.Profile), r.Judgeable)
	out, unsupported = JudgmentsOf(&server, shown)
	for id, why := range unreached {
		if _, ok := unsupported[id]; !ok {
			unsupported[id] = why
		}
	}
	return out, unsupported
}

// JudgmentsOf is what verdicts say of each requirement of judgeable (those
// the judges can judge from exchanges), and of each requirement they
// found broken: a failure, no contradiction, or why they could not judge
// it (unsupported).
func JudgmentsOf(v *Verdicts, judgeable []string) (out []Judgment, unsupported map[string]string) {
	failed := map[string]bool{}
	for _, f := range v.Failures {
		failed[f.Requirement] = true
		// The first line ends with a colon, so that a one-line cause
		// (runner.Result.Causes) carries the first example with it.
		text := fmt.Sprintf("%s's, %s, %s:\n", f.Whose, f.Source, f.count()) + f.examples()
		out = append(out, Judgment{Requirement: f.Requirement, Source: f.Source, Failed: true, Text: text})
	}
	unsupported = map[string]string{}
	for _, id := range judgeable {
		if failed[id] {
			continue
		}
		if why, ok := v.Unsupported[id]; ok {
			unsupported[id] = why
			continue
		}
		if contains(HistoryRequirements, id) {
			out = append(out, Judgment{Requirement: id, Source: History, Text: fmt.Sprintf("no contradiction in %d exchanges", v.Exchanges)})
			continue
		}
		out = append(out, Judgment{Requirement: id, Source: Document, Text: fmt.Sprintf("no contradiction in %d answers judged against the document", v.Judged)})
	}
	return out, unsupported
}

// ClientBreaches are the client's failures (Verdicts.Split), each as a
// report states it: no verdict on the server.
func ClientBreaches(client Verdicts) []report.ClientBreach {
	said, _ := JudgmentsOf(&client, nil) // one per failure, in order
	cat, _ := spec.LoadCatalogue()
	var out []report.ClientBreach
	for i, f := range client.Failures {
		b := report.ClientBreach{Requirement: f.Requirement, Source: f.Source, Count: f.Count, Message: said[i].Text}
		if t, ok := LabelText(f.Requirement); ok {
			b.Text = t
		} else if cat != nil {
			if q, ok := cat.Lookup(f.Requirement); ok {
				b.Text = q.Text
			}
		}
		out = append(out, b)
	}
	return out
}
