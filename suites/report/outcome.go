package report

import "fmt"

// Outcome is the result of one check, and the verdict on one requirement.
// The same words appear in every output: stdout, JUnit, JSON and HTML.
type Outcome int

const (
	// NotRun: filtered out, or the run ended (out of time, interrupted, the
	// target stopped answering) before the check started.
	NotRun Outcome = iota
	// Skip: not applicable to this target, with the reason.
	Skip
	// Pass: the server met the requirement.
	Pass
	// Known: failed, and listed in the baseline as expected to fail.
	Known
	// Blocked: a precondition failed (it names the requirement whose
	// failure blocked it); the check could not judge its own requirement.
	Blocked
	// Inconclusive: the target kept answering 429 or 503 after the allowed
	// retries.
	Inconclusive
	// Error: the target's environment or the harness failed (transport,
	// timeout); no verdict on the server.
	Error
	// Fail: the server broke a requirement.
	Fail
	// NotCheckable: the catalogue says no outside client can observe the
	// requirement; only ever a requirement's verdict.
	NotCheckable
)

var outcomeNames = [...]string{NotRun: "NOT RUN", Skip: "SKIP", Pass: "PASS", Known: "KNOWN", Blocked: "BLOCKED",
	Inconclusive: "INCONCLUSIVE", Error: "ERROR", Fail: "FAIL", NotCheckable: "N/A"}

func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// MarshalText writes the outcome's word, so JSON reports read like stdout.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an outcome's word back (for run diffs and baselines).
func (o *Outcome) UnmarshalText(b []byte) error {
	for i, n := range outcomeNames {
		if n == string(b) {
			*o = Outcome(i)
			return nil
		}
	}
	return fmt.Errorf("unknown outcome %q", b)
}

// Severity orders outcomes for a requirement's verdict: the worst check
// outcome wins.
func (o Outcome) Severity() int { return severity[o] }

var severity = map[Outcome]int{NotRun: 0, Skip: 1, Pass: 2, Known: 3, Blocked: 4, Inconclusive: 5, Error: 6, Fail: 7}

// Worst is the most severe of the outcomes (NOT RUN for none).
func Worst(os []Outcome) Outcome {
	v := NotRun
	for _, o := range os {
		if severity[o] > severity[v] {
			v = o
		}
	}
	return v
}
