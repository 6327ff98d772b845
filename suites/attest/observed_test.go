package attest

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/record"
)

// The statement carries the target as the record observed it, and an edit
// to either is caught.
func TestTheStatementCarriesTheTargetAsObserved(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	o := st.Predicate.Observed
	u, _ := url.Parse(st.Predicate.Target)
	if o == nil || len(o.Addresses) != 1 || o.Addresses[0].Address != u.Host || len(o.Leaves()) != 1 {
		t.Fatalf("observed %+v", o)
	}
	if v := f.verify(t, f.sign(t, st), true); !v.OK() {
		t.Fatalf("problems: %v", v.Problems)
	}
	// Another certificate claimed, signed again: the record contradicts it.
	o.Chains[0].SHA256 = []string{strings.Repeat("ab", 32)}
	v := f.verify(t, f.sign(t, st), true)
	if v.OK() || !hasProblem(v, "the record's observed target (addresses https://"+u.Host+"; leaf certificates sha256 ") {
		t.Errorf("an edited certificate: %v", v.Problems)
	}
}

// A target renamed after the run (in the report and the record alike) is
// caught by the address the harness connected to.
func TestARenamedTargetIsRejected(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	st.Predicate.Target = "https://chat.mycompany.example"
	v := f.verify(t, f.sign(t, st), false)
	if v.OK() || !hasProblem(v, "the statement names target https://chat.mycompany.example (chat.mycompany.example:443), but the record shows the harness connected to 127.0.0.1:") {
		t.Errorf("a renamed target: %v", v.Problems)
	}
}

func hasProblem(v *Verified, prefix string) bool {
	return slices.ContainsFunc(v.Problems, func(p string) bool { return strings.HasPrefix(p, prefix) })
}

// --against: the live leaf certificate is compared with the recorded one;
// a statement that recorded none says why it cannot be compared, without
// connecting; a server that cannot be reached is neither a match nor a
// mismatch.
func TestCheckAgainst(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	v := f.verify(t, f.sign(t, st), true)
	leaf := st.Predicate.Observed.Leaves()[0]
	addr := st.Predicate.Observed.Addresses[0].Address
	live := func(p *client.Peer) func() (*client.Peer, error) {
		return func() (*client.Peer, error) { return p, nil }
	}

	v.CheckAgainst("https://"+addr, live(&client.Peer{Address: addr, TLS: true, Chain: []string{leaf}}))
	if a := v.Against; !a.Matched || a.Problem != "" || len(a.Notes) != 0 || !v.OK() {
		t.Errorf("the same certificate: %+v", a)
	}
	v.CheckAgainst("https://chat.example:443", live(&client.Peer{Address: "chat.example:443", TLS: true, Chain: []string{leaf}}))
	if a := v.Against; !a.Matched || len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "the run connected to "+addr) {
		t.Errorf("the same certificate under another name: %+v", a)
	}
	other := strings.Repeat("0f", 32)
	v.CheckAgainst("https://"+addr, live(&client.Peer{Address: addr, TLS: true, Chain: []string{other, leaf}}))
	if a := v.Against; a.Matched || v.OK() || !strings.Contains(a.Problem, "presents leaf certificate sha256 "+other+"; the run recorded sha256 "+leaf) {
		t.Errorf("another certificate: %+v", a)
	}
	v.CheckAgainst("http://"+addr, live(&client.Peer{Address: addr}))
	if a := v.Against; a.Matched || !strings.Contains(a.Problem, "presented no TLS certificate") {
		t.Errorf("no TLS now: %+v", a)
	}
	down := errors.New("connect: connection refused")
	v.CheckAgainst("https://"+addr, func() (*client.Peer, error) { return nil, down })
	if a := v.Against; a.Matched || a.Problem != "" || a.Unreached != down || v.OK() {
		t.Errorf("unreachable: %+v", a)
	}

	called := false
	probe := func() (*client.Peer, error) { called = true; return nil, down }
	plain := *st
	plain.Predicate.Observed = &record.Observation{Addresses: []record.Address{{Scheme: "http", Address: addr, Exchanges: 8}}, Chains: []record.Chain{}}
	pv := &Verified{Statement: &plain}
	pv.CheckAgainst("https://"+addr, probe)
	if a := pv.Against; called || a.Matched || !strings.Contains(a.Problem, "the run saw no TLS certificate (its target was reached over plain http)") {
		t.Errorf("a plain-http run: called %v, %+v", called, a)
	}
	old := *st
	old.Predicate.Observed = nil
	ov := &Verified{Statement: &old}
	ov.CheckAgainst("https://"+addr, probe)
	if a := ov.Against; called || a.Matched || !strings.Contains(a.Problem, "does not record the server's certificate") {
		t.Errorf("an older attestation: called %v, %+v", called, a)
	}
}

// An attestation and record made before the observation was kept are read
// and verified as before, and say it was not recorded.
func TestAnAttestationWithoutTheObservationVerifies(t *testing.T) {
	f := newFixture(t)
	raw, err := os.ReadFile(f.recordPath)
	if err != nil {
		t.Fatal(err)
	}
	old := regexp.MustCompile(`,"observed":\{.*\}\}\n$`).ReplaceAll(raw, []byte("}\n"))
	if len(old) == len(raw) {
		t.Fatal("no observation in the record to take out")
	}
	f.recordPath = filepath.Join(f.dir, "old.jsonl")
	if err := os.WriteFile(f.recordPath, old, 0o600); err != nil {
		t.Fatal(err)
	}
	st := f.statement(t)
	if st.Predicate.Observed != nil {
		t.Fatalf("observed %+v", st.Predicate.Observed)
	}
	env := f.sign(t, st)
	if strings.Contains(string(env), "observed") {
		t.Error("the statement names an observation it does not have")
	}
	if v := f.verify(t, env, true); !v.OK() {
		t.Fatalf("problems: %v", v.Problems)
	}
}

// Expect foresees what Verify refuses of a fresh run's statement by
// default, without replaying the record.
func TestExpectForeseesVerify(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	exp, err := Expect(st, f.recordPath, everyCheck, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := f.verifyWith(t, f.sign(t, st), true, Policy{})
	if !slices.Equal(flags(exp.Refused), flags(v.Refused)) || exp.Coverage != v.Coverage ||
		!slices.Equal(sortedIDs(exp.Trusted), sortedIDs(v.Trusted)) || !slices.Equal(sortedIDs(exp.Rederived), sortedIDs(v.Rederived)) {
		t.Errorf("expected %v %v trusted %v, verify says %v %v trusted %v", flags(exp.Refused), exp.Coverage, sortedIDs(exp.Trusted),
			flags(v.Refused), v.Coverage, sortedIDs(v.Trusted))
	}
	if len(exp.Refused) == 0 {
		t.Error("the fixture's run is refused by default; Expect says nothing")
	}
}
