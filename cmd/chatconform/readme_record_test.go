package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the README says a record holds is what chatconform --record writes:
// the answers' headers, from which a replay judges HTTP-JSON-CONTENT-TYPE.
func TestREADMESaysWhatARecordHolds(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.jsonl")
	if code, out := chatconform(t, "--seed", "21", "--label-filter", "USER-SHAPE || HTTP-JSON-CONTENT-TYPE", "--record", rec); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var head struct {
		ResponseHeaders bool `json:"responseHeaders"`
	}
	withHeaders := 0
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var x struct {
			ResponseHeader map[string][]string `json:"responseHeader"`
		}
		if json.Unmarshal(sc.Bytes(), &x) == nil && len(x.ResponseHeader["Content-Type"]) > 0 {
			withHeaders++
		}
	}
	if !head.ResponseHeaders || withHeaders == 0 {
		t.Fatalf("the record does not carry the answers' headers (header says %v, %d exchanges with a Content-Type)", head.ResponseHeaders, withHeaders)
	}
	code, out := chatconform(t, "replay", rec)
	if code != 0 || !strings.Contains(out, "HTTP-JSON-CONTENT-TYPE     no contradiction in") {
		t.Fatalf("replay: exit %d, HTTP-JSON-CONTENT-TYPE not judged\n%s", code, out)
	}

	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(raw), "## Claiming conformance")
	section, _, _ = strings.Cut(section, "\n## ")
	section = strings.Join(strings.Fields(section), " ")
	for _, stale := range []string{"does not see the answers' headers", "leaves `HTTP-JSON-CONTENT-TYPE` to the run", "headers as far as the run's observer sees them"} {
		if strings.Contains(section, stale) {
			t.Errorf("the README says %q, which is no longer true", stale)
		}
	}
	if !strings.Contains(section, "the record carries the answers' headers, so a replay judges `HTTP-JSON-CONTENT-TYPE`") {
		t.Error("the README does not say that a replay judges HTTP-JSON-CONTENT-TYPE from the recorded headers")
	}
}
