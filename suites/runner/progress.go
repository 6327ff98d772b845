package runner

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress tells a person that a run is moving and how far it is, without
// -v: a line when every selected check of an area (a top-level container)
// is done, a line for each check that fails (FAIL) or gets no answer
// (ERROR) as it happens, a line when a check took long (a slow target,
// "slow (12.3s)") or when the run printed nothing for a while (saying for
// how long), and on a terminal a live line naming the last check.
type progress struct {
	w        io.Writer
	live     bool
	total    int
	doneN    int
	left     map[string]int             // checks still to run per area
	counts   map[string]map[Outcome]int // outcomes per area
	last     time.Time
	liveText bool // a live line is on screen
}

// slowLine is how long a run may go without a progress line.
const slowLine = 10 * time.Second

// newProgress counts checks and then judges (the run-wide judges, which
// run after them: see judged) in its total, as the summary does.
func newProgress(w io.Writer, checks []Check, judges int, live bool) *progress {
	p := &progress{w: w, live: live, total: len(checks) + judges, left: map[string]int{}, counts: map[string]map[Outcome]int{}, last: time.Now()}
	for _, c := range checks {
		p.left[c.Area]++
	}
	return p
}

// done counts a check that ended with o after took.
func (p *progress) done(containers []string, name string, o Outcome, took time.Duration) {
	area := areaOf(containers)
	p.doneN++
	p.left[area]--
	if p.counts[area] == nil {
		p.counts[area] = map[Outcome]int{}
	}
	p.counts[area][o]++
	if o == Fail && p.left[area] == 0 {
		// The area's line counts it; a line of its own names it first.
		p.line(fmt.Sprintf("[%*d/%d] %s: %s", width(p.total), p.doneN, p.total, o, shorten(name, 100)))
	}
	switch {
	case p.left[area] == 0:
		var parts []string
		for _, o := range []Outcome{Pass, Fail, Blocked, Error, Inconclusive, Known, Skip, NotRun} {
			if n := p.counts[area][o]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, o))
			}
		}
		p.line(fmt.Sprintf("[%*d/%d] %s: %s", width(p.total), p.doneN, p.total, area, strings.Join(parts, ", ")))
	case o == Fail || o == Error:
		p.line(fmt.Sprintf("[%*d/%d] %s: %s", width(p.total), p.doneN, p.total, o, shorten(name, 100)))
	case took >= slowLine:
		// Another outcome is printed only to say the run is moving: say so.
		p.line(fmt.Sprintf("[%*d/%d] %s, slow (%s): %s", width(p.total), p.doneN, p.total, o, Readable(took), shorten(name, 100)))
	case time.Since(p.last) >= slowLine:
		p.line(fmt.Sprintf("[%*d/%d] %s: %s (no line for %s)", width(p.total), p.doneN, p.total, o, shorten(name, 100), Readable(time.Since(p.last).Truncate(100*time.Millisecond))))
	case p.live:
		fmt.Fprintf(p.w, "\r\033[K[%*d/%d] %s", width(p.total), p.doneN, p.total, shorten(name, 70))
		p.liveText = true
	}
}

// judged reports a run-wide judge once the checks are done: one line each,
// so the count ends where the summary's does.
func (p *progress) judged(name string, o Outcome) {
	if p == nil {
		return
	}
	p.doneN++
	short, _, _ := strings.Cut(name, ":")
	p.line(fmt.Sprintf("[%*d/%d] %s: %s", width(p.total), p.doneN, p.total, short, o))
}

func (p *progress) line(s string) {
	if p.liveText {
		fmt.Fprint(p.w, "\r\033[K")
		p.liveText = false
	}
	fmt.Fprintf(p.w, "  %s\n", s)
	p.last = time.Now()
}

// finish clears the live line.
func (p *progress) finish() {
	if p != nil && p.liveText {
		fmt.Fprint(p.w, "\r\033[K")
		p.liveText = false
	}
}

func width(n int) int { return len(fmt.Sprint(n)) }
