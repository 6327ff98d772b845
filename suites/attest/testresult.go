package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// TestResultPredicateType is the in-toto Test Result predicate (v0.1):
// https://github.com/in-toto/attestation/blob/main/spec/predicates/test-result.md
const TestResultPredicateType = "https://in-toto.io/attestation/test-result/v0.1"

// The results a Test Result predicate gives.
const (
	ResultPassed = "PASSED"
	ResultWarned = "WARNED"
	ResultFailed = "FAILED"
)

// TestResultStatement is an in-toto Statement v1 carrying the Test Result
// predicate of a run, made from the run's own statement (NewTestResult).
type TestResultStatement struct {
	Type          string     `json:"_type"`
	Subject       []Subject  `json:"subject"`
	PredicateType string     `json:"predicateType"`
	Predicate     TestResult `json:"predicate"`
}

// TestResult is the in-toto Test Result predicate. Its tests are the
// requirements of the run's profile, named by their ids.
type TestResult struct {
	// Result is PASSED when every checkable requirement of the profile was
	// judged and none failed, FAILED when one failed (a KNOWN failure
	// included), WARNED otherwise: nothing failed, but the run did not
	// judge every checkable requirement.
	Result string `json:"result"`
	// Configuration names what the run was judged by: the requirement
	// catalogue and the OpenAPI documents (by their SHA-256 digests), the
	// harness and its profile, and the target.
	Configuration []ResourceDescriptor `json:"configuration"`
	// URL is the run's page in CI (GitHub Actions), when known.
	URL string `json:"url,omitempty"`
	// PassedTests are the requirements judged PASS; FailedTests those
	// judged FAIL or KNOWN (a failure listed in the run's baseline is a
	// failure still). WarnedTests stays empty: no verdict of the run means
	// "passed with a warning", and a requirement the run did not judge
	// (SKIP, BLOCKED, ERROR, INCONCLUSIVE, NOT RUN) did not pass, so it is
	// in no list; a requirement no client can check (N/A) is in none
	// either.
	PassedTests []string `json:"passedTests"`
	WarnedTests []string `json:"warnedTests"`
	FailedTests []string `json:"failedTests"`
}

// ResourceDescriptor is the in-toto ResourceDescriptor (v1), with the
// fields used here.
type ResourceDescriptor struct {
	Name        string            `json:"name,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Digest      map[string]string `json:"digest,omitempty"`
	Annotations map[string]any    `json:"annotations,omitempty"`
}

// HarnessURI names the harness in a Test Result's configuration.
const HarnessURI = "https://github.com/chatrooms/conformance"

// NewTestResult maps the statement of a run to the in-toto Test Result
// predicate, with the same subject (the run record); runURL is the run's
// page in CI, or "". See TestResult for the mapping.
func NewTestResult(st *Statement, runURL string) *TestResultStatement {
	p := &st.Predicate
	tr := TestResult{URL: runURL, PassedTests: []string{}, WarnedTests: []string{}, FailedTests: []string{}}
	unjudged := 0
	for _, rq := range p.Requirements {
		switch rq.Verdict {
		case "PASS":
			tr.PassedTests = append(tr.PassedTests, rq.ID)
		case "FAIL", "KNOWN":
			tr.FailedTests = append(tr.FailedTests, rq.ID)
		case "N/A":
		default:
			unjudged++
		}
	}
	sort.Strings(tr.PassedTests)
	sort.Strings(tr.FailedTests)
	switch {
	case len(tr.FailedTests) > 0:
		tr.Result = ResultFailed
	case unjudged > 0 || len(tr.PassedTests) == 0:
		tr.Result = ResultWarned
	default:
		tr.Result = ResultPassed
	}
	d := p.Digests
	tr.Configuration = []ResourceDescriptor{
		{Name: "spec/requirements.yaml", Digest: map[string]string{"sha256": d.Catalogue}},
		{Name: "spec/openapi.yaml", Digest: map[string]string{"sha256": d.Core}},
		{Name: "spec/openapi.yaml with spec/reference.overlay.yaml applied", Digest: map[string]string{"sha256": d.Reference}},
		{Name: "chatconform", URI: HarnessURI, Annotations: map[string]any{"version": p.HarnessVersion, "profile": p.Profile, "seed": p.Seed}},
	}
	target := ResourceDescriptor{Name: "target", URI: p.Target, Annotations: map[string]any{}}
	if p.Bundled {
		target.Annotations["bundled"] = true
	}
	if leaves := p.Observed.Leaves(); len(leaves) > 0 {
		target.Annotations["tlsLeafCertificateSha256"] = leaves
	}
	if len(target.Annotations) == 0 {
		target.Annotations = nil
	}
	tr.Configuration = append(tr.Configuration, target)
	subject := make([]Subject, len(st.Subject))
	copy(subject, st.Subject)
	return &TestResultStatement{Type: StatementType, Subject: subject, PredicateType: TestResultPredicateType, Predicate: tr}
}

// SignTestResult wraps a Test Result statement in a DSSE envelope signed
// with the private key in keyPEM, as Sign does.
func SignTestResult(ctx context.Context, st *TestResultStatement, keyPEM []byte) ([]byte, error) {
	return sign(ctx, st, keyPEM)
}

// VerifyTestResult checks a Test Result envelope (as SignTestResult
// writes it) against the public key in pubPEM and the run's statement st
// (verified on its own): that it is signed by the same key, names the same
// subject, and maps st's verdicts as NewTestResult does. Its URL is the
// signer's word; it is returned. The error is for a key that cannot be
// read; what does not hold is in the problems.
func VerifyTestResult(ctx context.Context, envelope, pubPEM []byte, st *Statement) (problems []string, runURL string, err error) {
	sv, err := signerVerifier(pubPEM)
	if err != nil {
		return nil, "", err
	}
	var env dsse.Envelope
	if err := json.Unmarshal(envelope, &env); err != nil {
		return []string{fmt.Sprintf("the test result is not a DSSE envelope: %v", err)}, "", nil
	}
	verifier, err := dsse.NewEnvelopeVerifier(sv)
	if err != nil {
		return nil, "", err
	}
	if _, err := verifier.Verify(ctx, &env); err != nil {
		return []string{fmt.Sprintf("the test result's signature does not verify with this key: %v", err)}, "", nil
	}
	if env.PayloadType != PayloadType {
		problems = append(problems, fmt.Sprintf("the test result's payload type is %q, not %q", env.PayloadType, PayloadType))
	}
	payload, err := env.DecodeB64Payload()
	if err != nil {
		return append(problems, fmt.Sprintf("the test result's payload: %v", err)), "", nil
	}
	var got TestResultStatement
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		return append(problems, fmt.Sprintf("the test result is not a statement of this kind: %v", err)), "", nil
	}
	want := NewTestResult(st, got.Predicate.URL)
	switch {
	case got.PredicateType != TestResultPredicateType:
		problems = append(problems, fmt.Sprintf("the test result's predicate type is %q, not %q", got.PredicateType, TestResultPredicateType))
	case !reflect.DeepEqual(got.Subject, want.Subject):
		problems = append(problems, "the test result names another subject than the attestation: it is not of the same run record")
	default:
		// Compare as JSON: annotations decode as float64 where they were
		// written from integers.
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		var x, y any
		_ = json.Unmarshal(a, &x)
		_ = json.Unmarshal(b, &y)
		if !reflect.DeepEqual(x, y) {
			problems = append(problems, fmt.Sprintf("the test result (result %s, %d passed, %d failed) is not the mapping of the attestation's verdicts (result %s, %d passed, %d failed)",
				got.Predicate.Result, len(got.Predicate.PassedTests), len(got.Predicate.FailedTests),
				want.Predicate.Result, len(want.Predicate.PassedTests), len(want.Predicate.FailedTests)))
		}
	}
	return problems, got.Predicate.URL, nil
}
