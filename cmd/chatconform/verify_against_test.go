package main

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/client"
)

// leafOf is the fingerprint of the certificate in a CA file the bundled
// server writes (its own, self-signed).
func leafOf(t *testing.T, caFile string) string {
	t.Helper()
	block, _ := pem.Decode(mustRead(t, caFile))
	if block == nil {
		t.Fatalf("%s holds no PEM", caFile)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return client.Fingerprint(cert.Raw)
}

// silentPort accepts connections and never answers: a server that hangs.
func silentPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// verify --against compares the certificate a live server presents with
// the one the run recorded: the server the run checked matches; another
// server (another certificate) is rejected, naming both fingerprints; a
// server that cannot be reached, or hangs, is exit 3 within the timeout,
// with the cause.
func TestVerifyAgainstComparesTheLiveCertificate(t *testing.T) {
	srvA, err := bundled.Start(4, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srvA.Close() })
	srvB, err := bundled.Start(4, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srvB.Close() })
	a := attestedRun(t, "--target", writeTarget(t, t.TempDir(), srvA.Target), "--seed", "4", "--label-filter", "AUTH-CURRENT-USER")
	if a.code != 0 {
		t.Fatalf("exit %d\n%s", a.code, a.out)
	}
	leafA, leafB := leafOf(t, srvA.Target.CAFile), leafOf(t, srvB.Target.CAFile)
	if leafA == leafB {
		t.Fatal("the two servers share a certificate")
	}
	lenient := []string{"--min-judged", "1", "--accept-signed"}

	code, out := a.verifyCmd(t, a.att, append(lenient, "--against", srvA.Target.BaseURL, "--ca-file", srvA.Target.CAFile)...)
	says(t, "the same server", code, 0, out, "TLS certificate chain (sha256, leaf first), ", leafA,
		"  against "+srvA.Target.BaseURL+": the server presents leaf certificate sha256 "+leafA+", the one the run recorded",
		"OK: the signature holds, the record is the one signed, and replaying it finds the verdicts claimed, and the server at "+srvA.Target.BaseURL+" presents the certificate the run recorded")

	code, out = a.verifyCmd(t, a.att, append(lenient, "--against", srvB.Target.BaseURL, "--ca-file", srvB.Target.CAFile)...)
	says(t, "another server", code, 1, out,
		"REJECTED (--against): the server at "+srvB.Target.BaseURL+" presents leaf certificate sha256 "+leafB+"; the run recorded sha256 "+leafA,
		"chatconform verify: REJECTED: the attestation holds, but the server at "+srvB.Target.BaseURL+" is not shown to be the one the run observed")
	// Without the server's CA its certificate is not trusted, as in a run;
	// --insecure-skip-verify compares the fingerprint all the same.
	code, out = a.verifyCmd(t, a.att, append(lenient, "--against", srvB.Target.BaseURL)...)
	says(t, "an untrusted certificate", code, 3, out, "NOT COMPARED (--against): no connection to "+srvB.Target.BaseURL+": ", "x509: ", "--ca-file FILE trusts its CA")
	code, out = a.verifyCmd(t, a.att, append(lenient, "--against", srvB.Target.BaseURL, "--insecure-skip-verify")...)
	says(t, "another server, not verified", code, 1, out, "REJECTED (--against): ", leafB)
	code, out = a.verifyCmd(t, a.att, append(lenient, "--against", srvA.Target.BaseURL, "--insecure-skip-verify")...)
	says(t, "the same server, not verified", code, 0, out, "OK: ")

	start := time.Now()
	code, out = a.verifyCmd(t, a.att, append(lenient, "--against", "https://"+silentPort(t), "--timeout", "300ms")...)
	says(t, "a server that hangs", code, 3, out, "NOT COMPARED (--against): ", "timeout")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("a server that hangs took %s", d)
	}
	code, out = a.verifyCmd(t, a.att, append(lenient, "--against", "https://127.0.0.1:1")...)
	says(t, "nothing listening", code, 3, out, "NOT COMPARED (--against): no connection to https://127.0.0.1:1: ", "connect")

	// A refused attestation stays exit 1 whatever the server says.
	code, out = a.verifyCmd(t, a.att, "--against", "https://127.0.0.1:1")
	says(t, "refused, server unreachable", code, 1, out, "REFUSED (--min-judged accepts it)")

	for _, bad := range [][]string{{"--against", "ftp://x"}, {"--against", "not a url"}, {"--ca-file", srvA.Target.CAFile},
		{"--against", srvA.Target.BaseURL, "--ca-file", filepath.Join(t.TempDir(), "none.pem")}, {"--against", srvA.Target.BaseURL, "--timeout", "0s"}} {
		if code, out := a.verifyCmd(t, a.att, append(lenient, bad...)...); code != 2 || !strings.Contains(out, "chatconform verify: ") {
			t.Errorf("%v: exit %d\n%s", bad, code, out)
		}
	}
}

// A target renamed in the report and the record after the run, signed
// again, still shows the address the harness connected to: rejected.
func TestVerifyRejectsARenamedTarget(t *testing.T) {
	srv, err := bundled.Start(5, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a := attestedRun(t, "--target", writeTarget(t, t.TempDir(), srv.Target), "--seed", "5", "--label-filter", "AUTH-CURRENT-USER")
	renamed := "https://chat.mycompany.example"
	raw := strings.ReplaceAll(string(mustRead(t, a.rec)), `"target":"`+srv.Target.BaseURL+`"`, `"target":"`+renamed+`"`)
	a.rec = filepath.Join(a.dir, "renamed.jsonl")
	if err := os.WriteFile(a.rec, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(mustRead(t, a.report), &rep); err != nil {
		t.Fatal(err)
	}
	rep["target"] = renamed
	report, _ := json.Marshal(rep)
	st, err := attest.NewStatement(report, a.rec)
	if err != nil {
		t.Fatal(err)
	}
	forged := a.resign(t, st, "renamed.json")
	code, out := a.verifyCmd(t, forged, "--min-judged", "1", "--accept-signed")
	says(t, "a renamed target", code, 1, out, "against "+renamed+",",
		"REJECTED: the statement names target "+renamed+" (chat.mycompany.example:443), but the record shows the harness connected to "+strings.TrimPrefix(srv.Target.BaseURL, "https://"))
}

// An attestation and record made before the target as observed was kept
// still verify, and say it was not recorded; --against then has nothing to
// compare, and says so. A run that saw no TLS (a record edited to say so:
// the harness checks https targets) says so, and --against refuses it with
// the reason, without connecting.
func TestVerifyOfARecordWithoutTheCertificate(t *testing.T) {
	srv, err := bundled.Start(6, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a := attestedRun(t, "--target", writeTarget(t, t.TempDir(), srv.Target), "--seed", "6", "--label-filter", "AUTH-CURRENT-USER")
	raw := mustRead(t, a.rec)
	// The observation, and after it the checks at once the run chose.
	trailer := regexp.MustCompile(`,"observed":\{.*\}(,"checksAtOnce":\d+)?\}\n$`)
	if !trailer.Match(raw) {
		t.Fatal("no observation in the record's trailer")
	}
	lenient := []string{"--min-judged", "1", "--accept-signed"}
	for _, tc := range []struct {
		name, observed, says, refusal string
	}{
		{"older", "", "  target as observed: not recorded", "the attestation does not record the server's certificate (it was made before chatconform kept it)"},
		{"plain", `,"observed":{"addresses":[{"scheme":"http","address":"` + strings.TrimPrefix(srv.Target.BaseURL, "https://") + `","exchanges":3}],"tlsChains":[]}`,
			"  TLS: none; no answer came over TLS (a plain-http target)", "the run saw no TLS certificate (its target was reached over plain http)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := *a
			a.rec = filepath.Join(a.dir, tc.name+".jsonl")
			if err := os.WriteFile(a.rec, trailer.ReplaceAll(raw, []byte(tc.observed+"${1}}\n")), 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := attest.NewStatement(mustRead(t, a.report), a.rec)
			if err != nil {
				t.Fatal(err)
			}
			att := a.resign(t, st, tc.name+".json")
			code, out := a.verifyCmd(t, att, lenient...)
			says(t, tc.name, code, 0, out, tc.says, "OK: ")
			code, out = a.verifyCmd(t, att, append(lenient, "--against", srv.Target.BaseURL, "--ca-file", srv.Target.CAFile)...)
			says(t, tc.name+" --against", code, 1, out, "REJECTED (--against): "+tc.refusal)
		})
	}
}
