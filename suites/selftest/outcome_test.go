package selftest

import "testing"

func TestOutcomeModelFindsEveryBreak(t *testing.T) {
	blocked := []FailedCheck{{Name: "c", Outcome: "BLOCKED", BlockedBy: "A"}}
	cases := []struct {
		name     string
		code     int
		failed   []FailedCheck
		verdicts map[string]string
		broken   int
	}{
		{"a pass", exitPass, nil, map[string]string{"A": "PASS"}, 0},
		{"a fail", exitFail, blocked, map[string]string{"A": "FAIL", "B": "BLOCKED"}, 0},
		{"exit 1 with no FAIL", exitFail, nil, map[string]string{"A": "BLOCKED"}, 1},
		{"a FAIL with exit 0", exitPass, nil, map[string]string{"A": "FAIL"}, 1},
		{"blocked by a pass", exitFail, blocked, map[string]string{"A": "PASS", "B": "FAIL"}, 1},
		{"exit 1 with no FAIL, blocked by a skip", exitFail, blocked, map[string]string{"A": "SKIP"}, 2},
	}
	for _, c := range cases {
		if got := outcomeModel(c.code, c.failed, c.verdicts); len(got) != c.broken {
			t.Errorf("%s: %d breaks %v, want %d", c.name, len(got), got, c.broken)
		}
	}
}
