package selftest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
)

// Every fault breaks a checkable core requirement of the catalogue and
// says how; names are unique; every checkable core requirement has faults.
func TestCatalogueNamesCheckableCoreRequirements(t *testing.T) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]bool{}
	for _, c := range Classes() {
		classes[c] = true
	}
	names, perReq := map[string]bool{}, map[string]int{}
	for _, f := range Faults() {
		req, ok := cat.Lookup(f.Req)
		switch {
		case !ok:
			t.Errorf("fault %s names no requirement of the catalogue", f.Name)
		case req.Level != spec.Core || !req.IsCheckable():
			t.Errorf("fault %s breaks %s, which is not a checkable core requirement", f.Name, f.Req)
		}
		if !classes[f.Class] {
			t.Errorf("fault %s has no known class", f.Name)
		}
		if f.What == "" {
			t.Errorf("fault %s does not say what the server does", f.Name)
		}
		if !strings.HasPrefix(f.Name, f.Req+"/"+f.Class) {
			t.Errorf("fault %s is not named REQUIREMENT-ID/class", f.Name)
		}
		if names[f.Name] {
			t.Errorf("fault %s twice", f.Name)
		}
		names[f.Name] = true
		perReq[f.Req]++
	}
	for _, r := range cat.Requirements {
		if r.Level == spec.Core && r.IsCheckable() && perReq[r.ID] == 0 {
			t.Errorf("core requirement %s has no fault to prove its checks", r.ID)
		}
	}
	for _, v := range Variants() {
		if names[v.Name] || v.What == "" {
			t.Errorf("variant %q: name taken or no description", v.Name)
		}
		names[v.Name] = true
	}
}

func TestOnlyThatSelectsNothingIsAnError(t *testing.T) {
	_, err := Run(context.Background(), Options{Binary: "/nonexistent", Only: "no such fault or variant"})
	if err == nil || !strings.Contains(err.Error(), "no fault or variant") {
		t.Fatalf("Run with an empty selection: %v", err)
	}
}

// The self-test itself: every fault against the core profile, every
// variant. It fails on a variant that does not pass, a survivor with no
// written reason, a fault caught only by checks of other requirements, and
// a run that could not be judged; survivors with a reason are listed.
func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("the self-test runs the core profile once per fault and variant")
	}
	bin := filepath.Join(t.TempDir(), "chatconform")
	build := exec.Command("go", "build", "-o", bin, "../cmd/chatconform")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // a plain binary, also under go test -race
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	m, err := Run(t.Context(), Options{Binary: bin, Seed: 1, Env: []string{"CHATCONFORM_MAIN=1"}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	m.Write(&b)
	if path := os.Getenv("CHATCONFORM_SELFTEST_MATRIX"); path != "" {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("kill matrix:\n%s", b.String())
	for _, r := range m.Survivors() {
		t.Logf("survivor %s: %s (%s)", r.Name, r.What, r.Survives)
	}
	for _, p := range m.Problems() {
		t.Error(p)
	}
}
