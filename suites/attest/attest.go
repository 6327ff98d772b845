// Package attest signs what a conformance run found, so that others can
// check an implementer's claim of conformance: an in-toto Statement (v1)
// whose subject is the run record (suites/record) by its SHA-256 digest, and
// whose predicate holds the target, the profile, the harness version, the
// digests of the documents the run was judged by, the seed, the counts,
// every requirement's verdict and the target as the record observed it
// (addresses, TLS certificate fingerprints). The statement travels in a
// DSSE envelope, signed with an ECDSA (P-256) or Ed25519 key in PEM,
// through the DSSE and key code of go-securesystemslib, the library the
// in-toto project keeps.
//
// Verify checks the signature; given the record, it also checks the
// record's digest, replays the record with this build's validator and
// history checker, and checks that the replay finds what the statement
// says it found, and that no requirement the record shows broken is
// claimed to pass. It sorts the verdicts into those the replay re-derived
// and those it did not: the verdicts of checks that read answers the way
// only a running check can are signed, not re-derived. By default it
// refuses what would mislead (a Policy allows each): a verdict it did not
// re-derive, a run that did not judge every checkable requirement of its
// profile, a run of the bundled reference server, and a run judged by
// another requirement catalogue or OpenAPI document than this build's.
//
// CheckAgainst compares the certificate a live server presents with the
// recorded ones (chatconform verify --against). NewTestResult maps a
// statement to the in-toto Test Result predicate, signed beside it.
// predicate.schema.json is the JSON Schema of Predicate.
//
// What a verified attestation proves: that the holder of the key signed
// this record and these verdicts, that the record is unchanged since, and
// that this build, replaying it, finds what the re-derived verdicts say.
// What it cannot prove: that the record is what a server really answered.
// A record is written by whoever runs the harness, and a key says who
// signed, not that the run was honest.
package attest

// predicate.schema.json is the JSON Schema of Predicate; after changing a
// field of it (or of a type it holds), regenerate the file with:
//
//go:generate go run ./internal/predicateschema/gen.go predicate.schema.json

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"

	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/report"
)

// In-toto names.
const (
	StatementType = "https://in-toto.io/Statement/v1"
	PayloadType   = "application/vnd.in-toto+json"
	// PredicateType names this package's predicate.
	PredicateType = "https://github.com/chatrooms/conformance/attestation/conformance-run/v1"
)

// Statement is an in-toto Statement v1.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject is a resource described by its digests.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate is what a run claims. Digests are the SHA-256 digests of the
// OpenAPI documents and the requirement catalogue of the build that ran,
// judged and signed (as the record's header gives them).
type Predicate struct {
	Target         string         `json:"target"`
	Bundled        bool           `json:"bundled,omitempty"`
	Profile        string         `json:"profile"`
	HarnessVersion string         `json:"harnessVersion"`
	Digests        record.Digests `json:"digests"`
	Seed           uint64         `json:"seed"`
	Started        time.Time      `json:"started"`
	ExitCode       int            `json:"exitCode"`
	Halted         string         `json:"halted,omitempty"`
	Requests       int            `json:"requests"`
	// Counts are requirements per verdict, Checks checks per outcome, and
	// Coverage what the run judged: as the run's JSON report gives them.
	Counts   map[string]int  `json:"counts"`
	Checks   map[string]int  `json:"checks,omitempty"`
	Coverage json.RawMessage `json:"coverage,omitempty"`
	// Requirements is every requirement's verdict.
	Requirements []Requirement `json:"requirements"`
	// Record is what the record's exchanges show, judged while the run
	// went on: what a replay of the record must find again.
	Record RecordClaim `json:"record"`
	// Observed is what the harness saw of the server, as the record's
	// trailer keeps it: the addresses it reached and the SHA-256
	// fingerprints of the TLS certificate chains presented. Absent from
	// statements made before it was kept.
	Observed *record.Observation `json:"observed,omitempty"`
}

// Requirement is one requirement's verdict.
type Requirement struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"`
}

// RecordClaim is what the record's exchanges show.
type RecordClaim struct {
	Exchanges int `json:"exchanges"`
	Judged    int `json:"judged"`
	// Broken lists each requirement the exchanges break, by whom and how
	// found, with how many times.
	Broken []Broken `json:"broken"`
	// Unsupported lists requirements the record cannot judge, with why.
	Unsupported map[string]string `json:"unsupported,omitempty"`
}

// Broken is one requirement the record's exchanges break.
type Broken struct {
	Requirement string `json:"requirement"`
	Whose       string `json:"whose"`
	Source      string `json:"source"`
	Count       int    `json:"count"`
}

// NewStatement builds the statement of a run from its JSON report (the
// bytes chatconform --json writes) and its record file.
func NewStatement(reportJSON []byte, recordPath string) (*Statement, error) {
	rep, err := report.Decode(reportJSON)
	if err != nil {
		return nil, fmt.Errorf("attest: the run's report: %w", err)
	}
	var coverage json.RawMessage
	if rep.Coverage != nil {
		if coverage, err = json.Marshal(rep.Coverage); err != nil {
			return nil, fmt.Errorf("attest: the run's coverage: %w", err)
		}
	}
	reqs := make([]Requirement, len(rep.Requirements))
	for i, q := range rep.Requirements {
		reqs[i] = Requirement{ID: q.ID, Verdict: q.Verdict.String()}
	}
	digest, err := fileDigest(recordPath)
	if err != nil {
		return nil, err
	}
	h, tr, err := readRecord(recordPath)
	if err != nil {
		return nil, err
	}
	if h.Seed != rep.Seed || h.Profile != string(rep.Profile) {
		return nil, fmt.Errorf("attest: the record (seed %d, profile %s) is not of the run reported (seed %d, profile %s)", h.Seed, h.Profile, rep.Seed, rep.Profile)
	}
	// The statement names the documents and catalogue the run was judged
	// by, which are this build's: a record another build wrote is not
	// this build's to sign.
	cur, err := record.CurrentDigests()
	if err != nil {
		return nil, err
	}
	if ch := h.Digests.Changes(cur); len(ch) > 0 {
		return nil, fmt.Errorf("attest: the record was written by a build judging by other documents than this one's: %s", strings.Join(ch, "; "))
	}
	p := Predicate{Target: rep.Target, Bundled: rep.Bundled, Profile: string(rep.Profile), HarnessVersion: rep.Version, Digests: h.Digests,
		Seed: rep.Seed, Started: rep.Started, ExitCode: rep.ExitStatus, Halted: rep.Halted, Requests: rep.Requests, Counts: rep.Counts,
		Checks: rep.Checks, Coverage: coverage, Requirements: reqs, Record: claim(tr.Verdicts), Observed: tr.Observed}
	return &Statement{Type: StatementType, PredicateType: PredicateType, Predicate: p,
		Subject: []Subject{{Name: filepath.Base(recordPath), Digest: map[string]string{"sha256": digest}}}}, nil
}

// readRecord reads the header and the trailer of a record written with
// verdicts.
func readRecord(path string) (record.Header, *record.Trailer, error) {
	f, err := os.Open(path)
	if err != nil {
		return record.Header{}, nil, err
	}
	defer f.Close()
	rd, err := record.NewReader(f)
	if err != nil {
		return record.Header{}, nil, err
	}
	for {
		if _, err := rd.Next(); err == io.EOF {
			break
		} else if err != nil {
			return record.Header{}, nil, err
		}
	}
	if rd.Trailer == nil || rd.Trailer.Verdicts == nil {
		return record.Header{}, nil, errors.New("attest: the record holds no verdicts (it was cut short, or written without judging)")
	}
	return rd.Header, rd.Trailer, nil
}

// claim turns verdicts into what a statement says of them.
func claim(v *record.Verdicts) RecordClaim {
	c := RecordClaim{Exchanges: v.Exchanges, Judged: v.Judged, Unsupported: v.Unsupported, Broken: []Broken{}}
	for _, f := range v.Failures {
		c.Broken = append(c.Broken, Broken{Requirement: f.Requirement, Whose: f.Whose, Source: f.Source, Count: f.Count})
	}
	sort.Slice(c.Broken, func(i, j int) bool {
		a, b := c.Broken[i], c.Broken[j]
		return a.Requirement+" "+a.Whose+" "+a.Source < b.Requirement+" "+b.Whose+" "+b.Source
	})
	return c
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// signerVerifier loads a PEM key (private to sign, public or private to
// verify): ECDSA, Ed25519 or RSA.
func signerVerifier(pemBytes []byte) (dsse.SignerVerifier, error) {
	key, err := signerverifier.LoadKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("attest: reading the key: %w", err)
	}
	switch key.KeyType {
	case signerverifier.ECDSAKeyType:
		return signerverifier.NewECDSASignerVerifierFromSSLibKey(key)
	case signerverifier.ED25519KeyType:
		return signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
	case signerverifier.RSAKeyType:
		return signerverifier.NewRSAPSSSignerVerifierFromSSLibKey(key)
	}
	return nil, fmt.Errorf("attest: unsupported key type %q", key.KeyType)
}

// Sign wraps a statement in a DSSE envelope signed with the private key in
// keyPEM, and returns the envelope's JSON.
func Sign(ctx context.Context, st *Statement, keyPEM []byte) ([]byte, error) {
	return sign(ctx, st, keyPEM)
}

// sign signs any in-toto statement.
func sign(ctx context.Context, st any, keyPEM []byte) ([]byte, error) {
	sv, err := signerVerifier(keyPEM)
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	signer, err := dsse.NewEnvelopeSigner(sv)
	if err != nil {
		return nil, err
	}
	env, err := signer.SignPayload(ctx, PayloadType, payload)
	if err != nil {
		return nil, fmt.Errorf("attest: signing (is the key a private key?): %w", err)
	}
	return json.MarshalIndent(env, "", "  ")
}

// GenerateKey makes an ECDSA P-256 key pair: the private key in PKCS #8 PEM
// and the public key in PKIX PEM.
func GenerateKey() (private, public []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), nil
}

// CheckPrivateKey reports whether keyPEM holds a private key Sign can use.
func CheckPrivateKey(keyPEM []byte) error {
	key, err := signerverifier.LoadKey(keyPEM)
	if err != nil {
		return fmt.Errorf("not a PEM key (ECDSA, Ed25519 or RSA): %w", err)
	}
	if key.KeyVal.Private == "" {
		return errors.New("a public key; signing needs the private key")
	}
	_, err = signerVerifier(keyPEM)
	return err
}
