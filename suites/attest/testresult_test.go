package attest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The in-toto Test Result maps each requirement's verdict to the list it
// belongs in, and says PASSED only of a run that judged every requirement
// it lists and failed none.
func TestTestResultMapsTheVerdicts(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	setVerdict(st, "ROOM-SHAPE", "SKIP")
	setVerdict(st, "MSG-SEND-200", "KNOWN")
	setVerdict(st, "AUTH-WEBHOOK", "N/A")
	tr := NewTestResult(st, "https://ci.example/run/1")
	p := tr.Predicate
	if tr.Type != StatementType || tr.PredicateType != TestResultPredicateType || tr.Subject[0].Digest["sha256"] != st.Subject[0].Digest["sha256"] {
		t.Fatalf("statement %+v", tr)
	}
	if p.Result != ResultFailed || !slices.Equal(p.FailedTests, []string{"MSG-SEND-200", "PAGE-UNIQUE", "UNREAD-READBY"}) ||
		!slices.Equal(p.PassedTests, []string{"MSG-SHAPE", "USER-SHAPE"}) || len(p.WarnedTests) != 0 || p.URL != "https://ci.example/run/1" {
		t.Errorf("predicate %+v", p)
	}
	names := map[string]string{}
	for _, c := range p.Configuration {
		names[c.Name] = c.Digest["sha256"] + c.URI
	}
	if names["spec/requirements.yaml"] != st.Predicate.Digests.Catalogue || names["spec/openapi.yaml"] != st.Predicate.Digests.Core ||
		names["target"] != st.Predicate.Target || names["chatconform"] != HarnessURI {
		t.Errorf("configuration %+v", p.Configuration)
	}
	for _, id := range []string{"MSG-SEND-200", "PAGE-UNIQUE", "UNREAD-READBY"} {
		setVerdict(st, id, "PASS")
	}
	if r := NewTestResult(st, "").Predicate.Result; r != ResultWarned {
		t.Errorf("nothing failed, a requirement skipped: %s", r)
	}
	setVerdict(st, "ROOM-SHAPE", "PASS")
	if r := NewTestResult(st, "").Predicate; r.Result != ResultPassed || slices.Contains(r.PassedTests, "AUTH-WEBHOOK") {
		t.Errorf("every requirement passed or N/A: %+v", r)
	}
	raw, _ := json.Marshal(tr)
	for _, field := range []string{`"result":`, `"configuration":`, `"url":`, `"passedTests":`, `"warnedTests":[]`, `"failedTests":`} {
		if !strings.Contains(string(raw), field) {
			t.Errorf("the predicate lacks %s: %s", field, raw)
		}
	}
}

// The Test Result written beside an attestation verifies against it; one
// whose result was edited and signed again does not, nor one signed by
// another key.
func TestTestResultVerifiesAgainstTheAttestation(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	ctx := context.Background()
	tr := NewTestResult(st, "https://ci.example/run/1")
	env, err := SignTestResult(ctx, tr, f.priv)
	if err != nil {
		t.Fatal(err)
	}
	problems, u, err := VerifyTestResult(ctx, env, f.pub, st)
	if err != nil || len(problems) != 0 || u != "https://ci.example/run/1" {
		t.Fatalf("%v %v %q", err, problems, u)
	}
	tr.Predicate.Result, tr.Predicate.FailedTests = ResultPassed, []string{}
	forged, _ := SignTestResult(ctx, tr, f.priv)
	if problems, _, _ := VerifyTestResult(ctx, forged, f.pub, st); len(problems) != 1 || !strings.Contains(problems[0], "is not the mapping of the attestation's verdicts") {
		t.Errorf("an edited result: %v", problems)
	}
	other, _, _ := GenerateKey()
	stranger, _ := SignTestResult(ctx, NewTestResult(st, ""), other)
	if problems, _, _ := VerifyTestResult(ctx, stranger, f.pub, st); len(problems) != 1 || !strings.Contains(problems[0], "does not verify with this key") {
		t.Errorf("another key: %v", problems)
	}
	// verify given the Test Result instead of the attestation says which
	// file is which.
	v := f.verify(t, env, true)
	if v.OK() || !hasProblem(v, "this is the in-toto Test Result statement") {
		t.Errorf("the Test Result as an attestation: %v", v.Problems)
	}
}
