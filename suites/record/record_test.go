package record_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/record/recordtest"
)

func TestReplayReproducesTheRecordedVerdicts(t *testing.T) {
	d := recordtest.StartReference(t, recordtest.Faults)
	raw := recordtest.Record(t, d)
	for _, u := range d.Users {
		if bytes.Contains(raw, []byte(u.Token)) {
			t.Fatalf("the record holds a token")
		}
	}
	r, err := record.Replay(bytes.NewReader(raw), "test")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.Print(&out)
	if !r.Same() {
		t.Fatalf("replay differs: %v\n%s", r.Differences, out.String())
	}
	for _, id := range []string{"UNREAD-READBY", "PAGE-UNIQUE"} {
		if !r.Verdicts.Failed(id) {
			t.Errorf("replay does not find %s broken\n%s", id, out.String())
		}
	}
	// A history rule that found nothing passes nothing: the exchanges do
	// not show which rules they reached.
	if !strings.Contains(out.String(), "not judged: the history checker found no contradiction") || !strings.Contains(out.String(), "the same verdicts as the run recorded") {
		t.Errorf("replay output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "HTTP-JSON-CONTENT-TYPE") {
		t.Errorf("replay does not say the content type cannot be judged:\n%s", out.String())
	}
	t.Log(out.String())
}

func TestReplayOfACleanSessionFindsNothing(t *testing.T) {
	d := recordtest.StartReference(t, nil)
	r, err := record.Replay(bytes.NewReader(recordtest.Record(t, d)), "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Verdicts.Failures) != 0 || !r.Same() {
		var out strings.Builder
		r.Print(&out)
		t.Fatalf("a clean session:\n%s", out.String())
	}
	if r.Verdicts.Judged != 8 {
		t.Errorf("judged %d of 8", r.Verdicts.Judged)
	}
}

func TestReplaySaysWhatANewerVersionChanged(t *testing.T) {
	d := recordtest.StartReference(t, recordtest.Faults)
	raw := recordtest.Record(t, d)
	lines := strings.SplitN(string(raw), "\n", 2)
	var h record.Header
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	h.Digests.Core = strings.Repeat("0", 64)
	// A recorded verdict the current version does not reach.
	tr := strings.TrimSpace(lines[1][strings.LastIndex(strings.TrimSpace(lines[1]), "\n")+1:])
	var trailer record.Trailer
	if err := json.Unmarshal([]byte(tr), &trailer); err != nil {
		t.Fatal(err)
	}
	trailer.Verdicts.Failures = append(trailer.Verdicts.Failures, record.Verdict{Requirement: "MSG-SHAPE", Whose: record.Server, Source: record.Document, Count: 1})
	head, _ := json.Marshal(h)
	tail, _ := json.Marshal(trailer)
	edited := string(head) + "\n" + strings.Replace(lines[1], tr, string(tail), 1)
	r, err := record.Replay(strings.NewReader(edited), "v9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.Print(&out)
	for _, want := range []string{"harness test recorded, v9.9.9 now", "the core OpenAPI document changed", "MSG-SHAPE (server's, document): FAIL (1) recorded, no longer found"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if r.Same() {
		t.Error("Same() after a change")
	}
}

func TestReaderRefusesBrokenRecords(t *testing.T) {
	d := recordtest.StartReference(t, nil)
	raw := string(recordtest.Record(t, d))
	lines := strings.Split(strings.TrimSpace(raw), "\n")
	cases := map[string]string{
		"empty":              "",
		"not a record":       `{"kind":"header","format":"other"}`,
		"exchange dropped":   strings.Join(append(append([]string{}, lines[:2]...), lines[3:]...), "\n"),
		"exchanges swapped":  strings.Join(append([]string{lines[0], lines[2], lines[1]}, lines[3:]...), "\n"),
		"a line after":       raw + lines[1] + "\n",
		"an unknown field":   strings.Replace(raw, `"kind":"exchange"`, `"kind":"exchange","extra":1`, 1),
		"a truncated line":   raw[:len(raw)-10],
		"an unknown kind":    strings.Replace(raw, `"kind":"exchange"`, `"kind":"other"`, 1),
		"counts that differ": strings.Replace(raw, `{"kind":"end","exchanges":8`, `{"kind":"end","exchanges":9`, 1),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := record.Replay(strings.NewReader(text), "test"); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	// Cut short (no trailer): replayed, and said.
	r, err := record.Replay(strings.NewReader(strings.Join(lines[:len(lines)-1], "\n")), "test")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.Print(&out)
	if r.Trailer != nil || !strings.Contains(out.String(), "cut short") {
		t.Errorf("a record without trailer:\n%s", out.String())
	}
}
