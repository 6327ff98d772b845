package reference

import (
	"testing"

	"github.com/chatrooms/conformance/spec"
)

// Every fault breaks a core requirement of the catalogue, and every core
// requirement an outside client can check has a fault that breaks it, so
// the self-test proves each one is caught.
func TestFaultsCoverTheCoreCatalogue(t *testing.T) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, f := range Faults() {
		req, ok := cat.Lookup(f.Name)
		switch {
		case !ok:
			t.Errorf("fault %s names no requirement of the catalogue", f.Name)
		case req.Level != spec.Core || !req.IsCheckable():
			t.Errorf("fault %s breaks %s, which is not a checkable core requirement", f.Name, req.ID)
		case f.What == "":
			t.Errorf("fault %s does not say what it breaks", f.Name)
		}
		if named[f.Name] {
			t.Errorf("fault %s twice", f.Name)
		}
		named[f.Name] = true
	}
	for _, r := range cat.Requirements {
		if r.Level == spec.Core && r.IsCheckable() && !named[r.ID] {
			t.Errorf("core requirement %s has no fault to prove its checks", r.ID)
		}
	}
	if len(Faults()) < 40 {
		t.Errorf("%d faults, want at least 40", len(Faults()))
	}
}

func TestUnknownFaultOrVariantIsRefused(t *testing.T) {
	for _, cfg := range []Config{{Faults: []string{"NO-SUCH-ID"}}, {Variant: "sideways"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v accepted", cfg)
				}
			}()
			New(testWorld(), cfg)
		}()
	}
}
