package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// --list gives every requirement at least one line saying what judges it:
// a check, the history checker, the document checker, or why nothing can.
func TestListSaysWhatJudgesEveryRequirement(t *testing.T) {
	for _, profile := range []string{"core", "reference"} {
		var out bytes.Buffer
		if code := run(context.Background(), []string{"--list", "--profile", profile}, noEnv, &out, &out); code != 0 {
			t.Fatalf("exit %d", code)
		}
		judged := map[string][]string{}
		var order []string
		id := ""
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if !strings.HasPrefix(line, " ") {
				id = strings.Fields(line)[0]
				order = append(order, id)
				continue
			}
			judged[id] = append(judged[id], strings.TrimSpace(line))
		}
		for _, id := range order {
			if len(judged[id]) == 0 {
				t.Errorf("%s: --list says nothing judges %s", profile, id)
			}
		}
		for _, id := range []string{"USER-STABLE", "ROOM-STABLE", "MSG-STABLE", "MSG-ROOM-SCOPE"} {
			if !strings.Contains(strings.Join(judged[id], "\n"), "judged by the history checker") {
				t.Errorf("%s: %s does not say the history checker judges it: %q", profile, id, judged[id])
			}
		}
	}
}
