package runner

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The summary counts the target's refusals in words that fit the count.
func TestRateLimitedLineFitsTheCount(t *testing.T) {
	for n, want := range map[int]string{
		1: "the target answered 429 or 503 once (",
		2: "the target answered 429 or 503 2 times (",
	} {
		res := synthetic(req("MSG-SEND-200", CheckResult{Outcome: Pass}))
		res.RateLimited = n
		var b bytes.Buffer
		res.settled().Print(&b)
		if !strings.Contains(b.String(), want) {
			t.Errorf("%d refusals: no %q in\n%s", n, want, b.String())
		}
	}
}

// A line printed for a passing check says why it is there: the check was
// slow, or the run had printed nothing for a while.
func TestProgressSaysWhyAPassIsPrinted(t *testing.T) {
	var b bytes.Buffer
	checks := []Check{{Name: "a", Area: "Messages"}, {Name: "b", Area: "Messages"}, {Name: "c", Area: "Messages"}, {Name: "d", Area: "Messages"}}
	p := newProgress(&b, checks, 0, false)
	p.done([]string{"", "Messages"}, "a", Pass, time.Second)
	if b.Len() > 0 {
		t.Errorf("a quick pass printed %q", b.String())
	}
	p.done([]string{"", "Messages"}, "b", Pass, 12300*time.Millisecond)
	if !strings.Contains(b.String(), "[2/4] PASS, slow (12.3s): b") {
		t.Errorf("slow check: %q", b.String())
	}
	b.Reset()
	p.last = time.Now().Add(-11 * time.Second)
	p.done([]string{"", "Messages"}, "c", Pass, time.Second)
	if got := b.String(); !strings.Contains(got, "[3/4] PASS: c (no line for 11.0s)") {
		t.Errorf("quiet run: %q", got)
	}
}
