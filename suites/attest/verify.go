package attest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/record"
)

// The flags that allow what Verify refuses by default, as chatconform
// verify spells them.
const (
	FlagMinJudged           = "--min-judged"
	FlagAllowBundled        = "--allow-bundled"
	FlagAllowOtherCatalogue = "--allow-other-catalogue"
	FlagAcceptSigned        = "--accept-signed"
)

// Policy says what Verify refuses besides a signature, a record or a
// statement that does not hold: the zero Policy refuses every claim that
// would mislead. A refusal names the flag (and field here) that allows it.
type Policy struct {
	// MinJudged is the least coverage accepted (FlagMinJudged); nil: every
	// checkable requirement of the run's profile must have been judged.
	MinJudged *MinJudged
	// AllowBundled accepts a run of the bundled reference server
	// (FlagAllowBundled): it proves the harness, not an implementation.
	AllowBundled bool
	// AllowOtherCatalogue accepts a run judged by another requirement
	// catalogue or OpenAPI document than this build's
	// (FlagAllowOtherCatalogue).
	AllowOtherCatalogue bool
	// AcceptSigned accepts verdicts Verify did not re-derive from the
	// record, on the signer's word (FlagAcceptSigned).
	AcceptSigned bool
}

// MinJudged is a coverage bound, as the runner's --min-judged reads it: a
// count of judged requirements or a share of the profile's checkable ones.
type MinJudged struct {
	Text    string // as given ("90%", "60"), for messages
	Count   int
	Percent float64
}

// Options are what Verify checks an attestation with besides the key.
type Options struct {
	// Record is the path of the run record ("" when none is given).
	Record string
	// Version is this build's harness version.
	Version string
	Policy  Policy
	// Checked reports whether a check of this build (not the document or
	// history checker) judges requirement id. Such a requirement's PASS
	// rests on what the check asserted while it ran, which a replay of the
	// record does not judge again. nil: every requirement is taken to have
	// a check, so no PASS counts as re-derived.
	Checked func(id string) bool
	// Checks is a replay of the run's checks against its record, made by
	// this build (chatconform replay --checks); nil when none was made.
	// With it every verdict the replay reaches again, with every request
	// of its checks answered from the record, is re-derived.
	Checks *CheckReplay
}

// CheckReplay is what running a record's checks again, each request
// answered from the record, found.
type CheckReplay struct {
	// Verdicts are the replay's verdicts by requirement id.
	Verdicts map[string]string
	// Unanswered counts, by requirement id, the requests of its checks
	// that the record held no answer for: the replay asked what the run
	// did not, so its verdict there is not the record's.
	Unanswered map[string]int
	// Version is the harness version that replayed.
	Version string
	// Err says why no replay could be made ("" when one was).
	Err string
}

// Verified is what Verify found.
type Verified struct {
	// KeyID names the key whose signature was accepted ("" when none was).
	KeyID     string
	Statement *Statement
	// RecordChecked says a record was given and read.
	RecordChecked bool
	Replay        *record.Replayed
	// Current is the digests of this build's documents and catalogue;
	// SameDocuments says the statement's are the same.
	Current       record.Digests
	SameDocuments bool
	// Coverage is what the statement's verdicts judged of the profile.
	Coverage Coverage
	// Rederived are the verdicts a replay of the record found again;
	// Trusted those it did not (signed, not re-derived), each with why.
	// Both hold the judged verdicts only (PASS, FAIL, KNOWN).
	Rederived []Derivation
	Trusted   []Derivation
	// Problems are reasons the attestation does not hold (a bad
	// signature, a record that is not the one signed, a claim the record
	// contradicts). Refused are claims that would mislead, refused under
	// the Policy; Allowed those the Policy let through, each with the flag.
	Problems []string
	Refused  []Refusal
	Allowed  []Refusal
	// Notes say what was not checked, or what changed without harm.
	Notes []string
	// Against is what comparing a live server with the certificates the
	// statement recorded found (CheckAgainst); nil when not asked.
	Against *Against
}

// Coverage is how many of the profile's checkable requirements a run
// judged (PASS, FAIL or KNOWN).
type Coverage struct {
	Judged, Total int
	// Basis says what Total counts: this build's catalogue, or the
	// statement's own list of requirements when the run was judged by
	// another catalogue.
	Basis string
}

// Percent is the judged share, rounded down.
func (c Coverage) Percent() int {
	if c.Total == 0 {
		return 0
	}
	return c.Judged * 100 / c.Total
}

func (c Coverage) String() string {
	return fmt.Sprintf("judged %d of %d checkable requirements (%d%%)", c.Judged, c.Total, c.Percent())
}

// Derivation is one verdict and how Verify came by it.
type Derivation struct {
	ID, Verdict string
	How         string
}

// Refusal is one claim Verify refuses by default, with the flag that
// allows it.
type Refusal struct {
	Flag, Text string
}

// OK reports whether the attestation holds, under the Policy.
func (v *Verified) OK() bool {
	return len(v.Problems) == 0 && len(v.Refused) == 0 && (v.Against == nil || v.Against.Matched)
}

func (v *Verified) problem(format string, args ...any) {
	v.Problems = append(v.Problems, fmt.Sprintf(format, args...))
}

// refuse refuses what the policy does not allow (allowed false), or notes
// it as allowed by flag.
func (v *Verified) refuse(allowed bool, flag, format string, args ...any) {
	r := Refusal{Flag: flag, Text: fmt.Sprintf(format, args...)}
	if allowed {
		v.Allowed = append(v.Allowed, r)
	} else {
		v.Refused = append(v.Refused, r)
	}
}

// Verify checks an attestation (a DSSE envelope's JSON, as Sign writes it)
// against the public key in pubPEM; with opt.Record, also the record (see
// the package doc); then what the statement claims, under opt.Policy. The
// error is for a key that cannot be read; everything wrong with the files
// is a Problem, and every claim that would mislead a Refusal.
func Verify(ctx context.Context, envelope, pubPEM []byte, opt Options) (*Verified, error) {
	sv, err := signerVerifier(pubPEM)
	if err != nil {
		return nil, err
	}
	out := &Verified{}
	var env dsse.Envelope
	if err := json.Unmarshal(envelope, &env); err != nil {
		out.problem("the attestation is not a DSSE envelope: %v", err)
		return out, nil
	}
	// Only the bytes Sign writes are accepted, so that no edit to the file
	// passes, not even one the signature does not cover (white space, the
	// order of keys, a second signature).
	if canonical, err := json.MarshalIndent(&env, "", "  "); err != nil || !bytes.Equal(bytes.TrimSpace(envelope), canonical) || !canonicalBase64(&env) {
		out.problem("the attestation file was edited: it is not the envelope as signed")
	}
	verifier, err := dsse.NewEnvelopeVerifier(sv)
	if err != nil {
		return nil, err
	}
	accepted, err := verifier.Verify(ctx, &env)
	if err != nil {
		out.problem("the signature does not verify with this key: %v", err)
		return out, nil
	}
	if len(accepted) > 0 {
		out.KeyID = accepted[0].KeyID
	}
	// The key id beside a signature is not signed: it must name the key
	// that verified, or an edit to it would pass.
	if kid, err := sv.KeyID(); err == nil {
		for _, sig := range env.Signatures {
			if sig.KeyID != kid {
				out.problem("a signature names key %q, not the key given (%q)", sig.KeyID, kid)
			}
		}
	}
	if env.PayloadType != PayloadType {
		out.problem("the payload type is %q, not %q", env.PayloadType, PayloadType)
	}
	payload, err := env.DecodeB64Payload()
	if err != nil {
		out.problem("the payload: %v", err)
		return out, nil
	}
	var kind struct {
		PredicateType string `json:"predicateType"`
	}
	if json.Unmarshal(payload, &kind) == nil && kind.PredicateType == TestResultPredicateType {
		out.problem("this is the in-toto Test Result statement written beside an attestation; verify the attestation itself (the file given to --attest), and this file with --test-result")
		return out, nil
	}
	var st Statement
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		out.problem("the payload is not a statement of this kind: %v", err)
		return out, nil
	}
	out.Statement = &st
	if st.Type != StatementType {
		out.problem("the statement type is %q, not %q", st.Type, StatementType)
	}
	if st.PredicateType != PredicateType {
		out.problem("the predicate type is %q, not %q", st.PredicateType, PredicateType)
	}
	if len(st.Subject) != 1 || st.Subject[0].Digest["sha256"] == "" {
		out.problem("the statement must name one subject, the run record, by its sha256 digest")
		return out, nil
	}
	if out.Current, err = record.CurrentDigests(); err != nil {
		return nil, err
	}
	out.SameDocuments = st.Predicate.Digests == out.Current
	if opt.Record == "" {
		out.Notes = append(out.Notes, "no record given (--record): its digest was not checked, and no verdict was re-derived")
	} else {
		out.checkRecord(opt.Record, opt.Version)
	}
	out.judge(opt)
	return out, nil
}

// canonicalBase64 reports whether the payload and every signature are in
// standard base64 as Sign writes them: a decoder ignores the spare bits
// of the last character, so an edit to them would change the file and
// not what it says.
func canonicalBase64(env *dsse.Envelope) bool {
	same := func(s string) bool {
		b, err := base64.StdEncoding.DecodeString(s)
		return err == nil && base64.StdEncoding.EncodeToString(b) == s
	}
	ok := same(env.Payload)
	for _, sig := range env.Signatures {
		ok = ok && same(sig.Sig)
	}
	return ok
}

// checkRecord checks the record against the statement.
func (v *Verified) checkRecord(path, version string) {
	st := v.Statement
	p := &st.Predicate
	digest, err := fileDigest(path)
	if err != nil {
		v.problem("the record: %v", err)
		return
	}
	v.RecordChecked = true
	if want := st.Subject[0].Digest["sha256"]; digest != want {
		v.problem("the record's sha256 is %s; the statement signed %s: the record is not the one attested", digest, want)
		return
	}
	r, err := record.ReplayFile(path, version)
	if err != nil {
		v.problem("the record cannot be replayed: %v", err)
		return
	}
	v.Replay = r
	h := r.Header
	same := func(what string, a, b any) {
		if a != b {
			v.problem("the record's %s (%v) is not the statement's (%v)", what, a, b)
		}
	}
	same("seed", h.Seed, p.Seed)
	same("profile", h.Profile, p.Profile)
	same("harness version", h.Version, p.HarnessVersion)
	same("bundled", h.Bundled, p.Bundled)
	if !h.Bundled {
		// The bundled server's address is a random loopback port, so its
		// record names it by what it is instead.
		same("target", h.Target, p.Target)
	}
	same("document digests", h.Digests, p.Digests)
	if r.Trailer != nil && !reflect.DeepEqual(r.Trailer.Observed, p.Observed) {
		v.problem("the record's observed target (%s) is not the statement's (%s)", describe(r.Trailer.Observed), describe(p.Observed))
	}
	if r.VersionChanged {
		v.Notes = append(v.Notes, fmt.Sprintf("replayed by harness %s, not the run's %s", version, h.Version))
	}
	if len(r.Changes) > 0 {
		v.Notes = append(v.Notes, "replayed by this build's documents, not the run's: "+strings.Join(r.Changes, "; "))
	}
	got := claim(r.Verdicts)
	if got.Exchanges != p.Record.Exchanges || got.Judged != p.Record.Judged {
		v.problem("the record replays %d exchanges (%d judged against the document); the statement claims %d (%d)",
			got.Exchanges, got.Judged, p.Record.Exchanges, p.Record.Judged)
	}
	for _, d := range compareBroken(p.Record.Broken, got.Broken) {
		v.problem("replaying the record: %s", d)
	}
	claimed := map[string]string{}
	for _, rq := range p.Requirements {
		claimed[rq.ID] = rq.Verdict
	}
	for _, b := range got.Broken {
		if b.Whose != record.Server {
			continue
		}
		switch c := claimed[b.Requirement]; c {
		case "FAIL", "KNOWN":
		case "PASS":
			v.problem("the record shows %s broken by the server (%s, %d times); the statement claims PASS", b.Requirement, b.Source, b.Count)
		case "":
			v.problem("the record shows %s broken by the server (%s, %d times); the statement does not list it", b.Requirement, b.Source, b.Count)
		default:
			// A failure hidden as not judged would pass a coverage bound
			// it should have failed.
			v.problem("the record shows %s broken by the server (%s, %d times); the statement says %s, not FAIL", b.Requirement, b.Source, b.Count, c)
		}
	}
}

// judgedVerdict reports whether a verdict judges its requirement.
func judgedVerdict(s string) bool { return s == "PASS" || s == "FAIL" || s == "KNOWN" }

// judge works out what the statement's verdicts judged of the profile and
// which of them the replay re-derived, and refuses what the policy does
// not allow.
func (v *Verified) judge(opt Options) {
	p := &v.Statement.Predicate
	v.checkTally(p)
	v.checkAddresses(p)
	v.coverage(p)
	v.derive(p, opt.Checked, opt.Checks)
	pol := opt.Policy
	if !v.SameDocuments {
		v.refuse(pol.AllowOtherCatalogue, FlagAllowOtherCatalogue, "the run was judged by another requirement catalogue or OpenAPI document than this build's: %s",
			strings.Join(p.Digests.Changes(v.Current), "; "))
	}
	bundled := p.Bundled || (v.Replay != nil && v.Replay.Header.Bundled)
	if bundled {
		v.refuse(pol.AllowBundled, FlagAllowBundled, "a run of the bundled reference server, which proves the harness, not an implementation")
	}
	c := v.Coverage
	judged := fmt.Sprintf("the run judged %d of the %d checkable requirements of profile %s (%d%%)", c.Judged, c.Total, p.Profile, c.Percent())
	switch m := pol.MinJudged; {
	case m == nil:
		if c.Total == 0 || c.Judged < c.Total {
			v.refuse(false, FlagMinJudged, "%s: a claim of conformance judges every one (%s N or P%% accepts less)", judged, FlagMinJudged)
		}
	case m.Count > 0 && c.Judged < m.Count:
		v.refuse(false, FlagMinJudged, "%s; %s %s asks for %d", judged, FlagMinJudged, m.Text, m.Count)
	case m.Percent > 0 && float64(c.Judged)*100 < m.Percent*float64(c.Total):
		v.refuse(false, FlagMinJudged, "%s; %s %s asks for %s%%", judged, FlagMinJudged, m.Text, strconv.FormatFloat(m.Percent, 'f', -1, 64))
	case c.Judged < c.Total:
		v.refuse(true, FlagMinJudged, "%s; %s %s accepts it", judged, FlagMinJudged, m.Text)
	}
	if n := len(v.Trusted); n > 0 {
		v.refuse(pol.AcceptSigned, FlagAcceptSigned, "%s signed, not re-derived from the record: %s", plural(n, "verdict"), Short(ids(v.Trusted), 8))
	}
}

// checkTally checks that the statement's counts are the tally of its
// verdicts, and its coverage what they judged: a forger who rewrites
// verdicts must rewrite these too.
func (v *Verified) checkTally(p *Predicate) {
	tally := map[string]int{}
	for _, rq := range p.Requirements {
		tally[rq.Verdict]++
	}
	same := true
	for k, n := range p.Counts {
		same = same && tally[k] == n
	}
	for k, n := range tally {
		same = same && p.Counts[k] == n
	}
	if !same {
		v.problem("the statement's counts %v are not the tally of its verdicts %v", p.Counts, tally)
	}
}

// coverage counts what the statement's verdicts judged of the profile's
// checkable requirements: by this build's catalogue when the run was
// judged by it (a requirement left out of the statement was not judged),
// by the statement's own list otherwise.
func (v *Verified) coverage(p *Predicate) {
	verdict := map[string]string{}
	for _, rq := range p.Requirements {
		verdict[rq.ID] = rq.Verdict
	}
	c := Coverage{}
	prof, perr := spec.ParseProfile(p.Profile)
	cat, cerr := spec.LoadCatalogue()
	switch {
	case perr != nil:
		v.problem("the statement's profile: %v", perr)
		fallthrough
	case cerr != nil || p.Digests.Catalogue != v.Current.Catalogue:
		c.Basis = "the statement's own list of requirements (another catalogue)"
		for _, rq := range p.Requirements {
			if rq.Verdict != "N/A" {
				c.Total++
				if judgedVerdict(rq.Verdict) {
					c.Judged++
				}
			}
		}
	default:
		c.Basis = "this build's catalogue"
		for _, rq := range p.Requirements {
			if r, ok := cat.Lookup(rq.ID); !ok || !r.InProfile(prof) {
				v.problem("the statement gives %s a verdict; it is not a requirement of profile %s in the catalogue the run names", rq.ID, prof)
			}
		}
		for _, r := range cat.Requirements {
			if !r.InProfile(prof) || !r.IsCheckable() {
				continue
			}
			c.Total++
			if judgedVerdict(verdict[r.ID]) {
				c.Judged++
			}
		}
	}
	v.Coverage = c
	if len(p.Coverage) > 0 {
		var claimed struct{ Judged, Total int }
		if err := json.Unmarshal(p.Coverage, &claimed); err != nil {
			v.problem("the statement's coverage: %v", err)
		} else if claimed.Judged != c.Judged || claimed.Total != c.Total {
			v.problem("the statement claims %d of %d checkable requirements judged; its verdicts judge %d of %d", claimed.Judged, claimed.Total, c.Judged, c.Total)
		}
	}
}

// derive sorts the judged verdicts into those the replay of the record
// re-derived and those it did not.
//
// With a replay of the run's checks (checks), a verdict is re-derived
// when the checks, run again with every request answered from the
// record, reach it again and asked nothing the record does not hold; a
// PASS or an unjudged verdict they fail, in a replay that asked nothing
// the record lacks, is a claim the record contradicts (with the run's
// harness version: another version's checks may differ).
//
// Without one, only the record's own judges count: a FAIL (or KNOWN) is
// re-derived when the record shows the requirement broken by the server;
// a PASS when the replay judged the requirement (the document or the
// history checker can find it broken), found no contradiction in it, and
// no check of this build judges it.
func (v *Verified) derive(p *Predicate, checked func(string) bool, checks *CheckReplay) {
	var broken map[string]bool
	judgeable := map[string]bool{}
	why := ""
	switch r := v.Replay; {
	case !v.RecordChecked:
		why = "no record given"
	case r == nil:
		why = "the record could not be replayed"
	default:
		broken = map[string]bool{}
		for _, f := range r.Verdicts.Failures {
			if f.Whose == record.Server {
				broken[f.Requirement] = true
			}
		}
		if r.Verdicts.Exchanges > 0 {
			for _, id := range r.Judgeable {
				if _, no := r.Verdicts.Unsupported[id]; !no {
					judgeable[id] = true
				}
			}
		}
	}
	cr := checks
	if cr != nil && cr.Err != "" && broken != nil {
		v.Notes = append(v.Notes, "the run's checks could not be run again against the record, so only the document and history verdicts are re-derived: "+cr.Err)
	}
	if cr != nil && (broken == nil || cr.Err != "") {
		cr = nil
	}
	if cr != nil {
		// A replay that asked anything the record does not hold went
		// another way than the run somewhere, and a verdict can move with
		// it to another requirement (a check blocked by another's
		// failure): no verdict of it contradicts the statement then.
		asked := 0
		for _, n := range cr.Unanswered {
			asked += n
		}
		sameChecks := v.Replay.Header.Version == cr.Version && !v.Replay.VersionChanged && asked == 0
		for _, rq := range p.Requirements {
			got, ok := cr.Verdicts[rq.ID]
			if !ok {
				continue
			}
			if got == "FAIL" && rq.Verdict != "FAIL" && rq.Verdict != "KNOWN" && cr.Unanswered[rq.ID] == 0 && sameChecks {
				// The run's own checks, asking only what the run asked and
				// answered as the run was, fail it.
				v.problem("replaying the run's checks against the record fails %s; the statement says %s", rq.ID, rq.Verdict)
			}
		}
	}
	for _, rq := range p.Requirements {
		if !judgedVerdict(rq.Verdict) {
			continue
		}
		d := Derivation{ID: rq.ID, Verdict: rq.Verdict}
		if cr != nil {
			got := cr.Verdicts[rq.ID]
			if got == "FAIL" && rq.Verdict == "KNOWN" {
				got = "KNOWN" // a failure the run's baseline listed
			}
			switch n := cr.Unanswered[rq.ID]; {
			case n > 0:
				d.How = fmt.Sprintf("its checks, run again against the record, asked %s the record holds no answer for", plural(n, "request"))
			case got == rq.Verdict:
				d.How = "its checks, run again against the record, reach it"
				v.Rederived = append(v.Rederived, d)
				continue
			case got == "":
				d.How = "the replay of the checks does not list it"
			default:
				d.How = fmt.Sprintf("its checks, run again against the record, reach %s", got)
			}
			v.Trusted = append(v.Trusted, d)
			continue
		}
		switch {
		case broken == nil:
			d.How = why
		case rq.Verdict != "PASS" && broken[rq.ID]:
			d.How = "the record shows it broken by the server"
			v.Rederived = append(v.Rederived, d)
			continue
		case rq.Verdict != "PASS":
			d.How = "a check's FAIL, which the record does not show"
		case !judgeable[rq.ID]:
			d.How = "a check's PASS, which the record's judges (document, history) do not judge"
		case checked == nil || checked(rq.ID):
			d.How = "a check's PASS, which the record's judges judge only in part"
		case broken[rq.ID]:
			d.How = "the record shows it broken" // a Problem already
		default:
			d.How = "no contradiction in the record"
			v.Rederived = append(v.Rederived, d)
			continue
		}
		v.Trusted = append(v.Trusted, d)
	}
}

func ids(ds []Derivation) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

// Short lists up to n ids, then how many more there are.
func Short(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// compareBroken lists how the broken requirements b differ from a.
func compareBroken(a, b []Broken) []string {
	key := func(x Broken) string { return x.Requirement + " (" + x.Whose + "'s, " + x.Source + ")" }
	ma, mb := map[string]int{}, map[string]int{}
	for _, x := range a {
		ma[key(x)] = x.Count
	}
	for _, x := range b {
		mb[key(x)] = x.Count
	}
	var keys []string
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		x, inA := ma[k]
		y, inB := mb[k]
		switch {
		case inA && !inB:
			out = append(out, fmt.Sprintf("%s: the statement claims it broken %d times; the record does not show it broken", k, x))
		case !inA && inB:
			out = append(out, fmt.Sprintf("%s: the record shows it broken %d times; the statement does not say so", k, y))
		case x != y:
			out = append(out, fmt.Sprintf("%s: broken %d times in the record, %d in the statement", k, y, x))
		}
	}
	return out
}
