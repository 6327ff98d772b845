package attest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/attest/internal/predicateschema"
	"github.com/chatrooms/conformance/suites/internal/schemagen"
	"github.com/chatrooms/conformance/suites/record/recordtest"
)

// predicate.schema.json is the schema of the predicate's Go types as they
// are now: a field added, renamed or dropped without regenerating it fails
// here.
func TestPredicateSchemaIsCurrent(t *testing.T) {
	stale, err := schemagen.Stale("predicate.schema.json", "./suites/attest", predicateschema.Generate)
	if err != nil {
		t.Fatal(err)
	}
	if stale != "" {
		t.Fatal(stale)
	}
}

// A predicate as NewStatement makes it, with the target as observed and a
// coverage, is valid against the schema; so is one made before the
// observation was kept, and one with a field the schema does not know is
// not.
func TestPredicatesMatchTheSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustRead(t, "predicate.schema.json")))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(predicateschema.ID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(predicateschema.ID)
	if err != nil {
		t.Fatal(err)
	}
	d := recordtest.StartReference(t, recordtest.Faults)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, recordtest.Record(t, d), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, _ := json.Marshal(map[string]any{
		"version": "test", "profile": "reference", "target": d.BaseURL, "seed": recordtest.Seed, "started": time.Now().UTC(),
		"requests": recordtest.SessionExchanges, "exitCode": 1, "counts": map[string]int{"FAIL": 1, "NOT RUN": 1},
		"checks":       map[string]int{"FAIL": 1},
		"coverage":     map[string]any{"judged": 1, "total": 2, "notJudged": []map[string]any{{"outcome": "NOT RUN", "cause": "not selected", "do": "select it", "requirements": []string{"PAGE-UNIQUE"}}}},
		"requirements": []map[string]string{{"id": "UNREAD-READBY", "verdict": "FAIL"}, {"id": "PAGE-UNIQUE", "verdict": "NOT RUN"}},
	})
	st, err := attest.NewStatement(rep, path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Predicate.Observed == nil || len(st.Predicate.Observed.Chains) != 1 {
		t.Fatalf("the statement does not carry the target as observed: %+v", st.Predicate.Observed)
	}
	valid := func(what string, p any, want bool) {
		t.Helper()
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != want {
			t.Errorf("%s: valid %v, want %v: %v\n%s", what, err == nil, want, err, raw)
		}
	}
	valid("a predicate", st.Predicate, true)
	old := st.Predicate
	old.Observed, old.Coverage = nil, nil
	valid("a predicate made before the observation was kept", old, true)
	var m map[string]any
	raw, _ := json.Marshal(st.Predicate)
	_ = json.Unmarshal(raw, &m)
	m["observed"].(map[string]any)["tlsChains"].([]any)[0].(map[string]any)["sha256"] = []string{"not a fingerprint"}
	valid("a chain of no fingerprint", m, false)
	m["surprise"] = true
	valid("an unknown field", m, false)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
