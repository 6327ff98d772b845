package selftest

import (
	"bytes"
	"strings"
	"testing"
)

// The spread of what one fault turns red is printed as the figures the
// project is held to: the median number of failing requirements, the share
// of faults failing three or more, and, over whole runs, the share that
// leave at least 90 % of the checkable requirements judged.
func TestTheSpreadOfFindingsPerFaultIsSummed(t *testing.T) {
	verdicts := func(fail, blocked, pass int) map[string]string {
		v := map[string]string{"N-A": "N/A"}
		for i := range fail {
			v[string(rune('A'+i))+"-FAIL"] = "FAIL"
		}
		for i := range blocked {
			v[string(rune('A'+i))+"-BLOCKED"] = "BLOCKED"
		}
		for i := range pass {
			v[string(rune('A'+i))+"-PASS"] = "PASS"
		}
		return v
	}
	m := &Matrix{Full: true, Results: []Result{
		{Kind: "fault", Verdicts: verdicts(1, 0, 19)},
		{Kind: "fault", Verdicts: verdicts(1, 3, 16)}, // 17 of 20 judged: under 90 %
		{Kind: "fault", Verdicts: verdicts(3, 0, 17)},
		{Kind: "fault", Verdicts: verdicts(4, 1, 15)},
		{Kind: "variant", Verdicts: verdicts(9, 9, 2)}, // not a fault: not counted
	}}
	var b bytes.Buffer
	m.writeRedHistogram(&b)
	want := "median FAIL 1; 2 faults (50.0 %) fail 3 or more requirements; 3 (75.0 %) leave at least 90 % of the checkable requirements judged"
	if !strings.Contains(b.String(), want) {
		t.Errorf("got:\n%s\nwant the line %q", b.String(), want)
	}
	m.Full = false
	b.Reset()
	m.writeRedHistogram(&b)
	if strings.Contains(b.String(), "judged") {
		t.Errorf("a run of each fault's own checks gives a judged share:\n%s", b.String())
	}
}
