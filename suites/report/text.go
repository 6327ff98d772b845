package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// chatconform's exit codes, as a report states them (ExitStatus).
const (
	ExitPass        = 0 // every selected check passed (known failures allowed)
	ExitFail        = 1 // a requirement failed, a baseline entry now passes, or coverage is short of --min-judged/--require
	ExitUsage       = 2 // usage or target-description error
	ExitUnreachable = 3 // unreachable, stopped answering, out of time, interrupted, harness broke
)

// Shorten cuts s to n characters, marking the cut with an ellipsis.
func Shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// CheckList is every check of the run once, as every output counts them:
// each selected declared check with its own outcome, then the run-wide
// judges (Judges). selected nil takes every check.
//
// A failure a check met on the way about another requirement is a finding
// of that requirement, shown there, not a failure of the check: one defect
// met by forty checks is one failing requirement, not forty failing checks.
// It makes its check FAIL only when nothing else fails that requirement
// (no check of its own, no judge), so a failing requirement always has a
// failing check in every output.
func (r *Report) CheckList(selected map[string]bool) []Check {
	judge := map[string]bool{}
	for _, j := range r.Judges {
		judge[j.Name] = true
	}
	failedOtherwise := map[string]bool{}
	for _, q := range r.Requirements {
		for _, c := range q.Checks {
			if c.Of == "" && (c.Outcome == Fail || c.Outcome == Known) {
				failedOtherwise[q.ID] = true
			}
		}
	}
	var out []Check
	at := map[string]int{}
	for _, q := range r.Requirements {
		for _, c := range q.Checks {
			name := c.Name
			if c.Of != "" {
				if failedOtherwise[q.ID] {
					continue
				}
				name = c.Of
			}
			if judge[name] || (selected != nil && !selected[name]) {
				continue
			}
			o := c.CheckOutcome()
			i, ok := at[name]
			if !ok {
				at[name] = len(out)
				c.Name, c.Outcome, c.Whole, c.Of = name, o, NotRun, ""
				c.IDs = append([]string(nil), c.IDs...)
				out = append(out, c)
				continue
			}
			prev := &out[i]
			for _, id := range c.IDs {
				if !slices.Contains(prev.IDs, id) {
					prev.IDs = append(prev.IDs, id)
				}
			}
			if o.Severity() > prev.Outcome.Severity() {
				prev.Outcome, prev.Message, prev.BlockedBy = o, c.Message, c.BlockedBy
			}
		}
	}
	return append(out, r.Judges...)
}

// SelectedNames is the set of checks the run selected (those not marked
// as not selected).
func (r *Report) SelectedNames() map[string]bool {
	out := map[string]bool{}
	for _, q := range r.Requirements {
		for _, c := range q.Checks {
			if !strings.HasPrefix(c.Message, "not selected") {
				out[c.Name] = true
			}
		}
	}
	return out
}

// Print writes the verdict per requirement, what the run did not judge
// (grouped by cause, with what to do about each), the totals and, last,
// the failing requirements, each with its one-line cause, then the verdict.
// The text of each failure is the one every report carries. Checks a
// failure blocked are counted under their requirement, and listed only
// with verbose.
func (r *Report) Print(w io.Writer) { r.print(w, false) }

// PrintVerbose is Print listing every blocked check.
func (r *Report) PrintVerbose(w io.Writer) { r.print(w, true) }

func (r *Report) print(w io.Writer, verbose bool) {
	// Why a run halted is the caller's to print, once, on standard error
	// (the *Halt that Run returns); the summary only points at it.
	if r.Halted != "" && r.total() == 0 {
		judged := ""
		if r.Coverage != nil {
			judged = ", " + r.Coverage.String()
		}
		fmt.Fprintf(w, "\nchatconform: no check ran%s; exit %d (the reason is on standard error)\n", judged, r.ExitStatus)
		return
	}
	fmt.Fprintf(w, "\nVerdict per requirement (profile %s):\n", r.Profile)
	shown := map[string]bool{} // checks (and outcome) whose text was printed under an earlier requirement
	for _, q := range r.Requirements {
		if q.Verdict == NotRun {
			continue // counted below; the reason is the run's
		}
		if by, n := onlyBlocked(q); n > 0 && !verbose {
			// Not judged because another requirement failed: one line.
			fmt.Fprintf(w, "  %-12s %-26s %s [%s blocked by %s]\n", q.Verdict, q.ID, q.Text, plural(n, "check"), by)
			continue
		}
		fmt.Fprintf(w, "  %-12s %-26s %s\n", q.Verdict, q.ID, q.Text)
		if q.Known != "" {
			fmt.Fprintf(w, "               known failure (baseline): %s\n", q.Known)
		}
		if q.Verdict == Pass || q.Verdict == NotCheckable {
			continue
		}
		blocked := map[string]int{}    // blocked checks not listed, by blocker
		met := map[string]string{}     // signature → the first check shown with it
		again := map[string][]string{} // first check → the others that met the same breach
		for _, c := range q.Checks {
			if c.Outcome == Pass || c.Outcome == NotRun {
				continue
			}
			if c.Outcome == Blocked && !verbose {
				blocked[c.BlockedBy]++
				continue
			}
			if c.Signature != "" {
				if first, ok := met[c.Signature]; ok {
					again[first] = append(again[first], c.Name)
					continue
				}
				met[c.Signature] = c.Name
			}
			fmt.Fprintf(w, "               %s: %s\n", c.Outcome, c.Name)
			switch {
			case c.BlockedBy != "":
				fmt.Fprintf(w, "                 blocked by %s (its own check says why)\n", c.BlockedBy)
			case shown[c.Name+c.Outcome.String()]:
				fmt.Fprintf(w, "                 (the same check as above)\n")
			case c.Message != "":
				fmt.Fprintf(w, "                 %s\n", strings.ReplaceAll(c.Message, "\n", "\n                 "))
			}
			shown[c.Name+c.Outcome.String()] = true
		}
		for _, first := range slices.Sorted(maps.Keys(again)) {
			names := again[first]
			fmt.Fprintf(w, "               the same breach as \"%s\", met on the way by %s too", cutName(first), plural(len(names), "other check"))
			if !verbose {
				fmt.Fprintf(w, " (-v lists them)\n")
				continue
			}
			fmt.Fprintf(w, ":\n")
			for _, n := range names {
				fmt.Fprintf(w, "                 %s\n", n)
			}
		}
		for _, by := range slices.Sorted(maps.Keys(blocked)) {
			fmt.Fprintf(w, "               %s blocked by %s (-v lists them)\n", plural(blocked[by], "check"), by)
		}
	}
	if cov := r.Coverage; cov != nil && len(cov.NotJudged) > 0 {
		fmt.Fprintf(w, "\nNot judged: %d of %d checkable requirements, by cause:\n", cov.Total-cov.Judged, cov.Total)
		for _, g := range cov.NotJudged {
			fmt.Fprintf(w, "  %-12s %s: %s\n", g.Outcome, g.Cause, plural(len(g.Requirements), "requirement"))
			fmt.Fprintf(w, "               %s\n", wrapIDs(g.Requirements, 90, "               "))
			if g.Outcome == Skip && len(g.Reasons) > 0 {
				for _, why := range g.Reasons[:min(len(g.Reasons), 3)] {
					fmt.Fprintf(w, "               (%s)\n", why)
				}
			}
			if g.Do != "" {
				fmt.Fprintf(w, "               do: %s\n", g.Do)
			}
		}
	}
	fmt.Fprintf(w, "\nchatconform: %d requirements: %s\n", len(r.Requirements), r.countLine(r.Counts, true))
	fmt.Fprintf(w, "chatconform: %d checks (%s) in %s, %d requests; seed %d\n", r.total(), r.countLine(r.Checks, false), Readable(r.Duration), r.Requests, r.Seed)
	if r.RateLimited > 0 {
		fmt.Fprintf(w, "chatconform: the target answered 429 or 503 %s (waited out, or INCONCLUSIVE after the allowed retries)\n", times(r.RateLimited))
	}
	if r.Halted != "" {
		fmt.Fprintf(w, "chatconform: the run stopped early (the reason is on standard error)\n")
	}
	for _, why := range r.CoverageShort {
		fmt.Fprintf(w, "chatconform: coverage short: %s\n", why)
	}
	for _, id := range r.Fixed {
		fmt.Fprintf(w, "chatconform: %s now passes: remove it from the baseline\n", id)
	}
	causes := r.Causes()
	if len(causes) > 0 {
		blocked := 0
		for _, c := range causes {
			blocked += c.Blocked
		}
		fmt.Fprintf(w, "chatconform: %s", plural(len(causes), "failing requirement"))
		if blocked > 0 {
			fmt.Fprintf(w, " (%s blocked by them)", plural(blocked, "check"))
		}
		fmt.Fprintln(w, ":")
		for _, c := range causes {
			fmt.Fprintf(w, "  FAIL %-26s %s\n", c.ID, c.Line)
		}
	}
	var client []ClientBreach
	var unattributed []string
	if r.Proxy != nil {
		client, unattributed = r.Proxy.Client, r.Proxy.Unattributed
	}
	if r.Replay != nil {
		client, unattributed = r.Replay.Client, r.Replay.Unattributed
	}
	if len(client) > 0 {
		fmt.Fprintf(w, "chatconform: %s broken by the client's requests (no verdict on the server):\n", plural(len(client), "requirement"))
		for _, c := range client {
			fmt.Fprintf(w, "  CLIENT %-24s %s\n", c.Requirement, causeLine(c.Message))
		}
	}
	for _, u := range unattributed {
		fmt.Fprintf(w, "chatconform: broken under no requirement of the catalogue: %s\n", Shorten(FirstLine(u), 160))
	}
	fmt.Fprintf(w, "chatconform: %s\n", r.Verdict())
}

// cutName shortens a check's name for a line that refers back to it.
func cutName(name string) string {
	if r := []rune(name); len(r) > 70 {
		return string(r[:69]) + "…"
	}
	return name
}

// onlyBlocked returns the blocker and the number of q's checks when every
// check of q that did not pass or run was blocked by that one requirement.
func onlyBlocked(q Requirement) (string, int) {
	by, n := "", 0
	for _, c := range q.Checks {
		switch {
		case c.Outcome == Pass || c.Outcome == NotRun:
		case c.Outcome == Blocked && (by == "" || by == c.BlockedBy):
			by, n = c.BlockedBy, n+1
		default:
			return "", 0
		}
	}
	return by, n
}

// Cause is a failing requirement in one line: what the run ends with.
type Cause struct {
	ID      string
	Line    string // the first line of its failure that says what went wrong
	Blocked int    // checks this failure blocked
}

// Causes lists the requirements that failed (FAIL, not KNOWN), in catalogue
// order, each with its one-line cause.
func (r *Report) Causes() []Cause {
	blocked := map[string]int{}
	for _, c := range r.CheckList(nil) { // each check once, as every output counts it
		if c.Outcome == Blocked {
			blocked[c.BlockedBy]++
		}
	}
	var out []Cause
	for _, q := range r.Requirements {
		if q.Verdict != Fail {
			continue
		}
		line := ""
		for _, c := range q.Checks {
			if c.Outcome == Fail {
				line = causeLine(c.Message)
				break
			}
		}
		out = append(out, Cause{ID: q.ID, Line: line, Blocked: blocked[q.ID]})
	}
	return out
}

// causeLine is the line of a failure that says what went wrong: its first,
// with the next when the first only introduces it ("...:"), cut to fit a
// line.
func causeLine(msg string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(msg), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "(no message)"
	}
	// A wait that ran out (Gomega's Eventually) says so first; what was
	// still wrong when it did is the line after its preamble.
	if wait, ok := strings.CutPrefix(lines[0], "Timed out after "); ok && len(lines) > 2 && strings.HasPrefix(lines[1], "The function passed to Eventually failed") {
		lines = append([]string{"still after " + strings.TrimSuffix(wait, ".") + ": " + lines[2]}, lines[3:]...)
	}
	line := strings.TrimPrefix(lines[0], "FAIL: ")
	if strings.HasSuffix(line, ":") && len(lines) > 1 {
		line += " " + strings.TrimPrefix(lines[1], "- ")
	}
	return Shorten(line, 160)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// wrapIDs joins ids with ", ", wrapping lines at width.
func wrapIDs(ids []string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, id := range ids {
		if i > 0 {
			if n+len(id)+2 > width {
				b.WriteString(",\n" + indent)
				n = 0
			} else {
				b.WriteString(", ")
				n += 2
			}
		}
		b.WriteString(id)
		n += len(id)
	}
	return b.String()
}

// Verdict is the run's overall verdict in one line, with its coverage.
func (r *Report) Verdict() string {
	cov := ""
	if r.Coverage != nil {
		cov = r.Coverage.String()
	}
	switch r.ExitStatus {
	case ExitPass:
		if r.Coverage != nil && r.Coverage.Judged < r.Coverage.Total {
			return fmt.Sprintf("PASS, %s: %d not judged", cov, r.Coverage.Total-r.Coverage.Judged)
		}
		if cov != "" {
			return "PASS, " + cov
		}
		return "PASS"
	case ExitFail:
		why := "replay with --seed " + fmt.Sprint(r.Seed)
		switch {
		case r.Proxy != nil && r.Counts[Fail.String()] == 0 && len(r.Proxy.Client) > 0:
			why = "the client's requests broke the document"
		case r.Proxy != nil:
			why = "the server's answers broke the document or contradict each other"
		case r.Replay != nil && r.Counts[Fail.String()] == 0:
			why = "the record shows breaches under no requirement of the catalogue"
		case r.Counts[Fail.String()] == 0 && len(r.Fixed) == 0:
			why = "coverage short of --min-judged/--require"
		}
		if cov != "" {
			return fmt.Sprintf("FAIL (exit 1; %s), %s", why, cov)
		}
		return fmt.Sprintf("FAIL (exit 1; %s)", why)
	case ExitUsage:
		return "the target description must be fixed (exit 2)"
	}
	if cov != "" {
		return "INCOMPLETE: the checks could not judge the target (exit 3), " + cov
	}
	return "INCOMPLETE: the checks could not judge the target (exit 3)"
}

// total is how many checks the run counts (each selected check once, and
// the judges).
func (r *Report) total() int {
	n := 0
	for _, v := range r.Checks {
		n += v
	}
	return n
}

func (r *Report) countLine(counts map[string]int, withNA bool) string {
	var parts []string
	for _, o := range []Outcome{Pass, Fail, Blocked, Error, Inconclusive, Known, Skip, NotRun, NotCheckable} {
		if o == NotCheckable && !withNA {
			continue
		}
		if n := counts[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Readable renders a duration for a person: 850ms, 12.3s, 4m05s, 1h02m.
func Readable(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// WriteJSON writes the report as JSON (report.schema.json).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// times says how often something happened: "once", or "N times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
