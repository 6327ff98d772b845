package spec

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite openapi.reference.yaml from openapi.yaml and the overlay")

// The reference document is generated; the checked-in copy exists for readers
// and linters, and this test keeps it in step with its sources.
func TestReferenceDocumentIsInStep(t *testing.T) {
	want, err := Source(Reference)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("openapi.reference.yaml", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("openapi.reference.yaml")
	if err != nil {
		t.Fatalf("%v (run: go test ./spec -run TestReferenceDocumentIsInStep -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("spec/openapi.reference.yaml is stale: run go test ./spec -run TestReferenceDocumentIsInStep -update")
	}
}
