package report

import "testing"

// The closing line of a failing requirement is what went wrong: the line
// after an introduction that ends with a colon, and for a wait that ran
// out, what was still wrong, not the wait.
func TestCauseLine(t *testing.T) {
	if got := causeLine("sendMessage breaks the OpenAPI document of the core profile:\n  - sendMessage response status: status is not supported (got 201)\nrequest: ..."); got != "sendMessage breaks the OpenAPI document of the core profile: sendMessage response status: status is not supported (got 201)" {
		t.Errorf("cause line %q", got)
	}
	// A wait that ran out: the line is what was still wrong, not the wait.
	if got := causeLine("Timed out after 3.000s.\nThe function passed to Eventually failed at suites/conformance/messages.go:201 with:\nuser 1's list leaves out message m1\nExpected\n    <bool>: false\nto be true"); got != "still after 3.000s: user 1's list leaves out message m1" {
		t.Errorf("cause line of a wait %q", got)
	}
}
