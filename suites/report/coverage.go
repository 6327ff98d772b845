package report

import "fmt"

// Coverage says how much of the profile a run judged: a checkable
// requirement is judged when its verdict is PASS, FAIL or KNOWN (a FAIL the
// baseline lists). Every other checkable requirement is listed in a group
// by cause, with the one thing the user can do about it.
type Coverage struct {
	Judged int `json:"judged"`
	// Total is the number of checkable requirements of the profile
	// (requirements no outside client can check, N/A, are not counted).
	Total     int   `json:"total"`
	NotJudged []Gap `json:"notJudged,omitempty"`
}

// Gap is a group of requirements a run did not judge, for one cause.
type Gap struct {
	Outcome      Outcome  `json:"outcome"` // SKIP, BLOCKED, NOT RUN, ERROR or INCONCLUSIVE
	Cause        string   `json:"cause"`   // why, in a few words
	Do           string   `json:"do"`      // the one thing the user can do about it
	Requirements []string `json:"requirements"`
	// Reasons are the distinct reasons the checks gave (a skip's text, say).
	Reasons []string `json:"reasons,omitempty"`
}

// Percent is the judged share of the profile, rounded down.
func (c *Coverage) Percent() int {
	if c == nil || c.Total == 0 {
		return 0
	}
	return c.Judged * 100 / c.Total
}

// String is the coverage in one line: "judged 61 of 68 checkable
// requirements (89%)".
func (c *Coverage) String() string {
	if c == nil {
		return "coverage unknown"
	}
	return fmt.Sprintf("judged %d of %d checkable requirements (%d%%)", c.Judged, c.Total, c.Percent())
}
