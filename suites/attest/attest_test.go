package attest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/chatrooms/conformance/suites/record/recordtest"
)

// fixture is a record of a session against a server with planted faults,
// the report of "its run", and a key pair.
type fixture struct {
	dir, recordPath string
	report          []byte
	priv, pub       []byte
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	d := recordtest.StartReference(t, recordtest.Faults)
	f := &fixture{dir: t.TempDir()}
	f.recordPath = filepath.Join(f.dir, "run.jsonl")
	if err := os.WriteFile(f.recordPath, recordtest.Record(t, d), 0o600); err != nil {
		t.Fatal(err)
	}
	rep := map[string]any{
		"version": "test", "profile": "reference", "target": d.BaseURL, "seed": recordtest.Seed, "started": time.Now().UTC(),
		"requests": recordtest.SessionExchanges, "exitCode": 1, "counts": map[string]int{"FAIL": 2, "PASS": 2},
		"requirements": []map[string]string{{"id": "UNREAD-READBY", "verdict": "FAIL"}, {"id": "PAGE-UNIQUE", "verdict": "FAIL"},
			{"id": "MSG-SHAPE", "verdict": "PASS"}, {"id": "USER-SHAPE", "verdict": "PASS"}},
	}
	var err error
	if f.report, err = json.Marshal(rep); err != nil {
		t.Fatal(err)
	}
	if f.priv, f.pub, err = GenerateKey(); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) statement(t *testing.T) *Statement {
	t.Helper()
	st, err := NewStatement(f.report, f.recordPath)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (f *fixture) sign(t *testing.T, st *Statement) []byte {
	t.Helper()
	env, err := Sign(context.Background(), st, f.priv)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// lenient accepts every claim the default policy refuses: the tests of
// the signature and of the record see only Problems.
var lenient = Policy{MinJudged: &MinJudged{Text: "0"}, AllowBundled: true, AllowOtherCatalogue: true, AcceptSigned: true}

func (f *fixture) verify(t *testing.T, env []byte, withRecord bool) *Verified {
	t.Helper()
	return f.verifyWith(t, env, withRecord, lenient)
}

func (f *fixture) verifyWith(t *testing.T, env []byte, withRecord bool, pol Policy) *Verified {
	t.Helper()
	path := ""
	if withRecord {
		path = f.recordPath
	}
	v, err := Verify(context.Background(), env, f.pub, Options{Record: path, Version: "test", Policy: pol, Checked: everyCheck})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// everyCheck says a check judges every requirement but the history
// checker's stability requirements, as in this build.
func everyCheck(id string) bool { return !strings.HasSuffix(id, "-STABLE") }

func TestASignedRunVerifies(t *testing.T) {
	f := newFixture(t)
	st := f.statement(t)
	if st.Type != StatementType || st.Subject[0].Name != "run.jsonl" || len(st.Subject[0].Digest["sha256"]) != 64 {
		t.Fatalf("statement: %+v", st)
	}
	broken := map[string]bool{}
	for _, b := range st.Predicate.Record.Broken {
		broken[b.Requirement] = true
	}
	if !broken["UNREAD-READBY"] || !broken["PAGE-UNIQUE"] || len(broken) != 2 {
		t.Fatalf("the record claims %+v", st.Predicate.Record.Broken)
	}
	env := f.sign(t, st)
	v := f.verify(t, env, true)
	if !v.OK() || !v.RecordChecked || v.KeyID == "" {
		t.Fatalf("problems: %v", v.Problems)
	}
	if v = f.verify(t, env, false); !v.OK() || len(v.Notes) == 0 {
		t.Fatalf("without the record: %v %v", v.Problems, v.Notes)
	}
	// The envelope is an ordinary DSSE envelope of an in-toto statement.
	var e dsse.Envelope
	if err := json.Unmarshal(env, &e); err != nil || e.PayloadType != PayloadType || len(e.Signatures) != 1 {
		t.Fatalf("envelope: %v %+v", err, e)
	}
}

func TestAnEd25519KeyMadeElsewhereWorks(t *testing.T) {
	f := newFixture(t)
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	pder, _ := x509.MarshalPKIXPublicKey(pub)
	f.priv = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	f.pub = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder})
	if v := f.verify(t, f.sign(t, f.statement(t)), true); !v.OK() {
		t.Fatal(v.Problems)
	}
}

func TestAnotherKeyIsRejected(t *testing.T) {
	f := newFixture(t)
	env := f.sign(t, f.statement(t))
	_, other, _ := GenerateKey()
	v, err := Verify(context.Background(), env, other, Options{Record: f.recordPath, Version: "test", Policy: lenient})
	if err != nil {
		t.Fatal(err)
	}
	if v.OK() || !strings.Contains(v.Problems[0], "signature") {
		t.Fatalf("another key: %v", v.Problems)
	}
}

func TestEveryByteOfTheAttestationIsCovered(t *testing.T) {
	f := newFixture(t)
	env := f.sign(t, f.statement(t))
	for i := range env {
		bad := bytes.Clone(env)
		bad[i] ^= 0x01
		if v := f.verify(t, bad, false); v.OK() {
			t.Fatalf("flipping byte %d (%q) passes", i, env[i])
		}
	}
}

func TestEveryByteOfTheRecordIsCovered(t *testing.T) {
	f := newFixture(t)
	env := f.sign(t, f.statement(t))
	orig, err := os.ReadFile(f.recordPath)
	if err != nil {
		t.Fatal(err)
	}
	step := max(1, len(orig)/400)
	for i := 0; i < len(orig); i += step {
		bad := bytes.Clone(orig)
		bad[i] ^= 0x01
		if err := os.WriteFile(f.recordPath, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		v := f.verify(t, env, true)
		if v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "sha256") {
			t.Fatalf("flipping byte %d of the record: %v", i, v.Problems)
		}
	}
}

// A signer who edits what it claims, or the record, and signs again is
// still caught by the replay.
func TestEditedClaimsSignedAgainAreRejected(t *testing.T) {
	f := newFixture(t)
	t.Run("a verdict the record contradicts", func(t *testing.T) {
		st := f.statement(t)
		for i := range st.Predicate.Requirements {
			if st.Predicate.Requirements[i].ID == "UNREAD-READBY" {
				st.Predicate.Requirements[i].Verdict = "PASS"
			}
		}
		v := f.verify(t, f.sign(t, st), true)
		if v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "UNREAD-READBY broken by the server") {
			t.Fatalf("problems: %v", v.Problems)
		}
	})
	t.Run("a finding of the record left out", func(t *testing.T) {
		st := f.statement(t)
		st.Predicate.Record.Broken = st.Predicate.Record.Broken[1:]
		if v := f.verify(t, f.sign(t, st), true); v.OK() {
			t.Fatal("accepted")
		}
	})
	t.Run("a count changed", func(t *testing.T) {
		st := f.statement(t)
		st.Predicate.Record.Broken[0].Count++
		if v := f.verify(t, f.sign(t, st), true); v.OK() {
			t.Fatal("accepted")
		}
	})
	t.Run("the seed changed", func(t *testing.T) {
		st := f.statement(t)
		st.Predicate.Seed++
		if v := f.verify(t, f.sign(t, st), true); v.OK() {
			t.Fatal("accepted")
		}
	})
	t.Run("the record edited and its new digest signed", func(t *testing.T) {
		st := f.statement(t)
		raw, _ := os.ReadFile(f.recordPath)
		fixed := bytes.ReplaceAll(raw, []byte(`\"readBy\":\"0\"`), []byte(`\"readBy\":0`))
		if bytes.Equal(fixed, raw) {
			t.Fatal("the record holds no readBy fault to edit")
		}
		edited := filepath.Join(f.dir, "edited.jsonl")
		if err := os.WriteFile(edited, fixed, 0o600); err != nil {
			t.Fatal(err)
		}
		d, _ := fileDigest(edited)
		st.Subject[0].Digest["sha256"] = d
		v, err := Verify(context.Background(), f.sign(t, st), f.pub, Options{Record: edited, Version: "test", Policy: lenient})
		if err != nil {
			t.Fatal(err)
		}
		if v.OK() || !strings.Contains(strings.Join(v.Problems, "\n"), "UNREAD-READBY") {
			t.Fatalf("problems: %v", v.Problems)
		}
	})
}
