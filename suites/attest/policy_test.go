package attest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/record"
)

func flags(rs []Refusal) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Flag)
	}
	sort.Strings(out)
	return out
}

func sortedIDs(ds []Derivation) []string {
	out := ids(ds)
	sort.Strings(out)
	return out
}

// setVerdict gives requirement id verdict v (adding it when the statement
// does not list it) and keeps the counts the tally of the verdicts, as a
// careful forger would.
func setVerdict(st *Statement, id, v string) {
	p := &st.Predicate
	found := false
	for i := range p.Requirements {
		if p.Requirements[i].ID == id {
			p.Requirements[i].Verdict, found = v, true
		}
	}
	if !found {
		p.Requirements = append(p.Requirements, Requirement{ID: id, Verdict: v})
	}
	p.Counts = map[string]int{}
	for _, rq := range p.Requirements {
		p.Counts[rq.Verdict]++
	}
}

func checkable(t *testing.T, p spec.Profile) int {
	t.Helper()
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range cat.Requirements {
		if r.InProfile(p) && r.IsCheckable() {
			n++
		}
	}
	return n
}

// The fixture's run judged 4 requirements: two FAILs the record shows (a
// document violation, a history contradiction), two PASSes of checks. By
// default verify refuses it twice over, and says what it re-derived.
func TestTheDefaultPolicyRefusesWhatWouldMislead(t *testing.T) {
	f := newFixture(t)
	env := f.sign(t, f.statement(t))
	v := f.verifyWith(t, env, true, Policy{})
	if len(v.Problems) > 0 || v.OK() {
		t.Fatalf("problems %v, refused %v", v.Problems, v.Refused)
	}
	if got := flags(v.Refused); !slices.Equal(got, []string{FlagAcceptSigned, FlagMinJudged}) {
		t.Fatalf("refused %v", v.Refused)
	}
	if got := sortedIDs(v.Rederived); !slices.Equal(got, []string{"PAGE-UNIQUE", "UNREAD-READBY"}) {
		t.Errorf("re-derived %v", v.Rederived)
	}
	if got := sortedIDs(v.Trusted); !slices.Equal(got, []string{"MSG-SHAPE", "USER-SHAPE"}) {
		t.Errorf("trusted %v", v.Trusted)
	}
	if !v.SameDocuments || v.Coverage.Judged != 4 || v.Coverage.Total != checkable(t, spec.Reference) || !strings.Contains(v.Coverage.Basis, "this build's") {
		t.Errorf("documents the same: %v, coverage %+v", v.SameDocuments, v.Coverage)
	}
	for _, r := range v.Refused {
		if r.Flag == FlagAcceptSigned && !strings.Contains(r.Text, "2 verdicts signed, not re-derived from the record: MSG-SHAPE, USER-SHAPE") {
			t.Errorf("the refusal of trusted verdicts says %q", r.Text)
		}
	}

	// Each flag accepts what it names, and only that.
	v = f.verifyWith(t, env, true, Policy{MinJudged: &MinJudged{Text: "4", Count: 4}})
	if got := flags(v.Refused); !slices.Equal(got, []string{FlagAcceptSigned}) || !slices.Equal(flags(v.Allowed), []string{FlagMinJudged}) {
		t.Errorf("--min-judged 4: refused %v, allowed %v", v.Refused, v.Allowed)
	}
	v = f.verifyWith(t, env, true, Policy{MinJudged: &MinJudged{Text: "5", Count: 5}, AcceptSigned: true})
	if got := flags(v.Refused); !slices.Equal(got, []string{FlagMinJudged}) || !strings.Contains(v.Refused[0].Text, "asks for 5") {
		t.Errorf("--min-judged 5: refused %v", v.Refused)
	}
	v = f.verifyWith(t, env, true, Policy{MinJudged: &MinJudged{Text: "1%", Percent: 1}, AcceptSigned: true})
	if !v.OK() || !slices.Equal(flags(v.Allowed), []string{FlagAcceptSigned, FlagMinJudged}) {
		t.Errorf("--min-judged 1%% --accept-signed: problems %v, refused %v, allowed %v", v.Problems, v.Refused, v.Allowed)
	}
	v = f.verifyWith(t, env, true, Policy{MinJudged: &MinJudged{Text: "10%", Percent: 10}, AcceptSigned: true})
	if v.OK() || !strings.Contains(v.Refused[0].Text, "asks for 10%") {
		t.Errorf("--min-judged 10%%: refused %v", v.Refused)
	}

	// Without the record nothing is re-derived.
	v = f.verifyWith(t, env, false, Policy{MinJudged: &MinJudged{Text: "0"}})
	if len(v.Rederived) != 0 || len(v.Trusted) != 4 || !slices.Equal(flags(v.Refused), []string{FlagAcceptSigned}) {
		t.Errorf("without the record: re-derived %v, trusted %v, refused %v", v.Rederived, v.Trusted, v.Refused)
	}
}

// A requirement only the history checker judges is re-derived from the
// record when it passes; unless the caller cannot say which requirements
// a check judges.
func TestAPassOfTheHistoryCheckerAloneIsRederived(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	setVerdict(st, "USER-STABLE", "PASS")
	env := f.sign(t, st)
	v := f.verifyWith(t, env, true, lenient)
	if !v.OK() || !slices.Contains(ids(v.Rederived), "USER-STABLE") || slices.Contains(ids(v.Trusted), "USER-STABLE") {
		t.Fatalf("problems %v, re-derived %v, trusted %v", v.Problems, v.Rederived, v.Trusted)
	}
	v, err := Verify(t.Context(), env, f.pub, Options{Record: f.recordPath, Version: "test", Policy: lenient})
	if err != nil || !slices.Contains(ids(v.Trusted), "USER-STABLE") {
		t.Fatalf("without Checked: %v, trusted %v", err, v.Trusted)
	}
}

func TestABundledRunIsRefusedUnlessAllowed(t *testing.T) {
	f := newFixture(t)
	var rep map[string]any
	if err := json.Unmarshal(f.report, &rep); err != nil {
		t.Fatal(err)
	}
	rep["bundled"] = true
	f.report, _ = json.Marshal(rep)
	env := f.sign(t, f.statement(t))
	pol := lenient
	pol.AllowBundled = false
	v := f.verifyWith(t, env, false, pol)
	if v.OK() || !slices.Equal(flags(v.Refused), []string{FlagAllowBundled}) || !strings.Contains(v.Refused[0].Text, "bundled reference server") {
		t.Fatalf("refused %v, problems %v", v.Refused, v.Problems)
	}
	if v = f.verifyWith(t, env, false, lenient); !v.OK() || !slices.Equal(flags(v.Allowed), []string{FlagAcceptSigned, FlagAllowBundled, FlagMinJudged}) {
		t.Fatalf("allowed: refused %v, problems %v, allowed %v", v.Refused, v.Problems, v.Allowed)
	}
	// The record says it is not: the statement does not hold.
	if v = f.verifyWith(t, env, true, lenient); v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "bundled") {
		t.Fatalf("with the record: %v", v.Problems)
	}
}

// A run judged by another catalogue (a fork's, an older build's) is
// refused unless allowed; the statement's digests are what the record's
// header says, and a build does not sign a record another build wrote.
func TestAnotherCatalogueIsRefusedUnlessAllowed(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	cur, err := record.CurrentDigests()
	if err != nil {
		t.Fatal(err)
	}
	if st.Predicate.Digests != cur {
		t.Fatalf("the statement names %+v, this build %+v", st.Predicate.Digests, cur)
	}
	other := strings.Repeat("ab", 32)
	raw, _ := os.ReadFile(f.recordPath)
	head, rest, _ := bytes.Cut(raw, []byte("\n"))
	fork := append(bytes.Replace(head, []byte(`"catalogue":"`+cur.Catalogue+`"`), []byte(`"catalogue":"`+other+`"`), 1), '\n')
	if bytes.Equal(fork[:len(fork)-1], head) {
		t.Fatal("no catalogue digest in the record's header")
	}
	forked := filepath.Join(f.dir, "fork.jsonl")
	if err := os.WriteFile(forked, append(fork, rest...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewStatement(f.report, forked); err == nil || !strings.Contains(err.Error(), "requirement catalogue changed") {
		t.Fatalf("signing a record of other documents: %v", err)
	}
	// As the fork's build would sign it.
	d, _ := fileDigest(forked)
	st.Subject[0].Digest["sha256"] = d
	st.Predicate.Digests.Catalogue = other
	env := f.sign(t, st)
	verify := func(pol Policy) *Verified {
		v, err := Verify(t.Context(), env, f.pub, Options{Record: forked, Version: "test", Policy: pol, Checked: everyCheck})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	pol := lenient
	pol.AllowOtherCatalogue = false
	v := verify(pol)
	if v.OK() || v.SameDocuments || len(v.Problems) > 0 || !slices.Equal(flags(v.Refused), []string{FlagAllowOtherCatalogue}) ||
		!strings.Contains(v.Refused[0].Text, "the requirement catalogue changed (sha256 abababababab -> "+cur.Catalogue[:12]) {
		t.Fatalf("problems %v, refused %v", v.Problems, v.Refused)
	}
	if v = verify(lenient); !v.OK() || !slices.Contains(flags(v.Allowed), FlagAllowOtherCatalogue) || !strings.Contains(v.Coverage.Basis, "statement's own list") {
		t.Fatalf("allowed: problems %v, refused %v, coverage %+v", v.Problems, v.Refused, v.Coverage)
	}
	// Without the record, the statement's digests alone decide.
	if v = f.verifyWith(t, env, false, pol); v.OK() || !slices.Equal(flags(v.Refused), []string{FlagAllowOtherCatalogue}) {
		t.Fatalf("without the record: refused %v", v.Refused)
	}
	// The statement's digests edited, the record left alone: they differ.
	st = f.statement(t)
	st.Predicate.Digests.Core = other
	if v = f.verifyWith(t, f.sign(t, st), true, lenient); v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "document digests") {
		t.Fatalf("digests edited: %v", v.Problems)
	}
}

// A forger who hides a failure the record shows, or rewrites verdicts
// without the counts or the coverage, signs a statement that does not hold.
func TestRewrittenTalliesAndHiddenFailuresAreRejected(t *testing.T) {
	f := newFixture(t)
	t.Run("a failure the record shows, said to be skipped", func(t *testing.T) {
		st := f.statement(t)
		setVerdict(st, "UNREAD-READBY", "SKIP")
		v := f.verifyWith(t, f.sign(t, st), true, lenient)
		if v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "UNREAD-READBY broken by the server (document, ") ||
			!strings.Contains(strings.Join(v.Problems, "\n"), "the statement says SKIP, not FAIL") {
			t.Fatalf("problems %v", v.Problems)
		}
	})
	t.Run("verdicts rewritten, counts left", func(t *testing.T) {
		st := f.statement(t)
		st.Predicate.Requirements[0].Verdict = "SKIP"
		v := f.verifyWith(t, f.sign(t, st), false, lenient)
		if v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "not the tally of its verdicts") {
			t.Fatalf("problems %v", v.Problems)
		}
	})
	t.Run("coverage rewritten", func(t *testing.T) {
		st := f.statement(t)
		st.Predicate.Coverage = json.RawMessage(`{"judged":4,"total":4}`)
		v := f.verifyWith(t, f.sign(t, st), false, lenient)
		if v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "claims 4 of 4 checkable requirements judged; its verdicts judge 4 of ") {
			t.Fatalf("problems %v", v.Problems)
		}
	})
	t.Run("a requirement of no catalogue", func(t *testing.T) {
		st := f.statement(t)
		setVerdict(st, "NOPE-NOTHING", "PASS")
		v := f.verifyWith(t, f.sign(t, st), false, lenient)
		if v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "NOPE-NOTHING a verdict") {
			t.Fatalf("problems %v", v.Problems)
		}
	})
}

// The spare bits of a base64 text's last character decode to nothing: an
// edit to them changes the file, not what the signature covers, and is
// caught all the same.
func TestAnEditToSpareBase64BitsIsCaught(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	for {
		raw, _ := json.Marshal(st)
		if len(raw)%3 != 0 {
			break
		}
		st.Predicate.Target += "/"
	}
	env := f.sign(t, st)
	var e struct{ Payload string }
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	body := strings.TrimRight(e.Payload, "=")
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	last := strings.IndexByte(alphabet, body[len(body)-1])
	edited := body[:len(body)-1] + string(alphabet[last^1]) + e.Payload[len(body):] // the lowest bit is spare
	a, _ := base64.StdEncoding.DecodeString(e.Payload)
	b, err := base64.StdEncoding.DecodeString(edited)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("the edit changes the decoded payload (%v): pick another character", err)
	}
	bad := bytes.Replace(env, []byte(e.Payload), []byte(edited), 1)
	if v := f.verify(t, bad, false); v.OK() {
		t.Fatal("an edit to the payload's spare bits passes")
	}
}

// With a replay of the run's checks against the record (Options.Checks),
// every verdict it reaches again is re-derived, so nothing is taken on
// trust; a verdict whose checks asked for what the record does not hold
// is not; a PASS the replay fails is a claim the record contradicts,
// unless another harness version replayed (its checks may differ); and a
// replay that could not be made leaves the record's judges alone.
func TestAReplayOfTheChecksRederivesWhatItReaches(t *testing.T) {
	f := newFixture(t)
	env := f.sign(t, f.statement(t))
	claimed := map[string]string{"UNREAD-READBY": "FAIL", "PAGE-UNIQUE": "FAIL", "MSG-SHAPE": "PASS", "USER-SHAPE": "PASS"}
	replay := func(verdicts map[string]string, unanswered map[string]int, version string) *Verified {
		t.Helper()
		v, err := Verify(t.Context(), env, f.pub, Options{Record: f.recordPath, Version: "test", Policy: Policy{MinJudged: &MinJudged{Text: "4", Count: 4}},
			Checked: everyCheck, Checks: &CheckReplay{Verdicts: verdicts, Unanswered: unanswered, Version: version}})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	v := replay(claimed, nil, "test")
	if !v.OK() || len(v.Trusted) != 0 || !slices.Equal(sortedIDs(v.Rederived), []string{"MSG-SHAPE", "PAGE-UNIQUE", "UNREAD-READBY", "USER-SHAPE"}) {
		t.Errorf("the same verdicts: problems %v, refused %v, re-derived %v, trusted %v", v.Problems, v.Refused, v.Rederived, v.Trusted)
	}

	v = replay(claimed, map[string]int{"USER-SHAPE": 2}, "test")
	if v.OK() || !slices.Equal(ids(v.Trusted), []string{"USER-SHAPE"}) || !strings.Contains(v.Trusted[0].How, "asked 2 requests the record holds no answer for") ||
		!slices.Equal(flags(v.Refused), []string{FlagAcceptSigned}) || len(v.Problems) > 0 {
		t.Errorf("a check that asked what the record lacks: problems %v, refused %v, trusted %v", v.Problems, v.Refused, v.Trusted)
	}

	failed := maps.Clone(claimed)
	failed["MSG-SHAPE"] = "FAIL"
	v = replay(failed, nil, "test")
	if v.OK() || len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "replaying the run's checks against the record fails MSG-SHAPE; the statement says PASS") {
		t.Errorf("a PASS the replay fails: problems %v", v.Problems)
	}
	v = replay(failed, map[string]int{"MSG-SHAPE": 1}, "test")
	if len(v.Problems) > 0 || !slices.Contains(ids(v.Trusted), "MSG-SHAPE") {
		t.Errorf("a FAIL reached with requests the record lacks is no contradiction: problems %v, trusted %v", v.Problems, v.Trusted)
	}
	v = replay(failed, map[string]int{"USER-SHAPE": 1}, "test")
	if len(v.Problems) > 0 || !slices.Contains(ids(v.Trusted), "MSG-SHAPE") {
		t.Errorf("a FAIL in a replay that went another way elsewhere is no contradiction: problems %v, trusted %v", v.Problems, v.Trusted)
	}
	v = replay(failed, nil, "other")
	if len(v.Problems) > 0 || !slices.Contains(ids(v.Trusted), "MSG-SHAPE") {
		t.Errorf("another version's checks: problems %v, trusted %v", v.Problems, v.Trusted)
	}

	v, err := Verify(t.Context(), env, f.pub, Options{Record: f.recordPath, Version: "test", Policy: lenient, Checked: everyCheck,
		Checks: &CheckReplay{Err: "the replay of the checks wrote no report"}})
	if err != nil || !v.OK() || !slices.Equal(sortedIDs(v.Rederived), []string{"PAGE-UNIQUE", "UNREAD-READBY"}) {
		t.Errorf("no replay of the checks: %v, re-derived %v", err, v.Rederived)
	}
}
