package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/chatrooms/conformance/suites/record"
)

// Verified is what Verify found.
type Verified struct {
	// KeyID names the key whose signature was accepted ("" when none was).
	KeyID     string
	Statement *Statement
	// RecordChecked says a record was given and read.
	RecordChecked bool
	Replay        *record.Replayed
	// Problems are the reasons to reject the attestation; none means it
	// holds.
	Problems []string
	// Notes say what was not checked, or what changed without harm.
	Notes []string
}

// OK reports whether the attestation holds.
func (v *Verified) OK() bool { return len(v.Problems) == 0 }

func (v *Verified) problem(format string, args ...any) {
	v.Problems = append(v.Problems, fmt.Sprintf(format, args...))
}

// Verify checks an attestation (a DSSE envelope's JSON, as Sign writes it)
// against the public key in pubPEM; with recordPath, also the record (see
// the package doc). version is this build's harness version. The error is
// for a key that cannot be read; everything wrong with the files is a
// Problem.
func Verify(ctx context.Context, envelope, pubPEM []byte, recordPath, version string) (*Verified, error) {
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
	if canonical, err := json.MarshalIndent(&env, "", "  "); err != nil || !bytes.Equal(bytes.TrimSpace(envelope), canonical) {
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
	if recordPath == "" {
		out.Notes = append(out.Notes, "no record given (--record): its digest and the verdicts it supports were not checked")
		return out, nil
	}
	out.checkRecord(recordPath, version)
	return out, nil
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
	if len(r.Changes) > 0 || r.VersionChanged {
		v.Notes = append(v.Notes, fmt.Sprintf("replayed with harness %s, not the run's %s: %v", version, h.Version, r.Changes))
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
		if b.Whose == record.Server && claimed[b.Requirement] == "PASS" {
			v.problem("the record shows %s broken by the server (%s, %d times); the statement claims PASS", b.Requirement, b.Source, b.Count)
		}
	}
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
