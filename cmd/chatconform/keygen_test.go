package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/suites/attest"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// keygen writes both halves of a key pair or neither: an output that exists
// (or cannot be written) is found before anything is written, and named.
func TestKeygenWritesBothOrNeither(t *testing.T) {
	keygenIn := func(args ...string) (int, string, string) {
		var out, errw bytes.Buffer
		code := run(context.Background(), append([]string{"keygen"}, args...), noEnv, &out, &errw)
		return code, out.String(), errw.String()
	}
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(p("pub.pem"), []byte("someone's public key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The public half exists: the private key is not written either.
	code, _, errw := keygenIn("--key", p("k2.pem"), "--pub", p("pub.pem"))
	if code != 2 || !strings.Contains(errw, "--pub "+p("pub.pem")+" exists and is not replaced") || !strings.Contains(errw, "--force") ||
		!strings.Contains(errw, "nothing written") {
		t.Errorf("exit %d, stderr %q", code, errw)
	}
	if got := dirNames(t, dir); len(got) != 1 || got[0] != "pub.pem" {
		t.Errorf("after a refusal the directory holds %v (want pub.pem alone)", got)
	}
	if raw, _ := os.ReadFile(p("pub.pem")); string(raw) != "someone's public key\n" {
		t.Error("the existing file was changed")
	}
	// Likewise the private half, and a directory that does not exist.
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--key", p("pub.pem"), "--pub", p("p3.pem")}, "--key " + p("pub.pem") + " exists"},
		{[]string{"--key", p("k4.pem"), "--pub", p("none/p4.pem")}, "no directory " + p("none")},
		{[]string{"--key", p("k5.pem"), "--pub", dir}, "is a directory"},
		{[]string{"--key", p("k6.pem"), "--pub", p("k6.pem")}, "the same file"},
		{[]string{"--key", p("k7.pem"), "extra"}, `unexpected argument "extra"`},
	} {
		code, _, errw := keygenIn(tc.args...)
		if code != 2 || !strings.Contains(errw, tc.says) {
			t.Errorf("%q: exit %d, stderr %q (want %q)", tc.args, code, errw, tc.says)
		}
		if got := dirNames(t, dir); len(got) != 1 {
			t.Errorf("%q: the directory holds %v", tc.args, got)
		}
	}
	// Free names: both written, the private one readable by its owner only.
	code, out, errw := keygenIn("--key", p("k.pem"), "--pub", p("p.pem"))
	if code != 0 || !strings.Contains(out, "private key in "+p("k.pem")) {
		t.Fatalf("exit %d, %q %q", code, out, errw)
	}
	st, err := os.Stat(p("k.pem"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("private key: %v %v", st, err)
	}
	priv, _ := os.ReadFile(p("k.pem"))
	if err := attest.CheckPrivateKey(priv); err != nil {
		t.Error(err)
	}
	if got := dirNames(t, dir); strings.Join(got, " ") != "k.pem p.pem pub.pem" {
		t.Errorf("the directory holds %v (a temporary file left?)", got)
	}
	// --force replaces both.
	code, _, errw = keygenIn("--key", p("k.pem"), "--pub", p("pub.pem"), "--force")
	if raw, _ := os.ReadFile(p("pub.pem")); code != 0 || !strings.Contains(string(raw), "BEGIN PUBLIC KEY") {
		t.Errorf("--force: exit %d %q, pub.pem %q", code, errw, raw)
	}
	if again, _ := os.ReadFile(p("k.pem")); bytes.Equal(again, priv) {
		t.Error("--force did not replace the private key")
	}
}
