package runner

import "testing"

// A check verifying several requirements that failed on one of them fails
// that one only; it did not judge the others, which read as blocked by it.
func TestACheckFailsOnlyTheRequirementItFailedOn(t *testing.T) {
	c := CheckResult{Name: "send", IDs: []string{"MSG-SEND-200", "MSG-SEND-DEFAULTS"}, Outcome: Fail, Fails: "MSG-SEND-DEFAULTS"}
	if got := outcomeFor(c, nil, "MSG-SEND-DEFAULTS"); got != Fail {
		t.Errorf("for the requirement it failed on: %s", got)
	}
	if got := outcomeFor(c, nil, "MSG-SEND-200"); got != Blocked {
		t.Errorf("for the requirement it did not judge: %s", got)
	}
	whole := CheckResult{Outcome: Fail}
	if got := outcomeFor(whole, nil, "MSG-SEND-200"); got != Fail {
		t.Errorf("a check that names no failed requirement fails all of them: %s", got)
	}
}
