//go:build ignore

// Gen writes the JSON Schema of the attestation predicate to the file named
// by its argument: go generate in suites/attest runs it (see attest.go).
package main

import (
	"fmt"
	"os"

	"github.com/chatrooms/conformance/suites/attest/internal/predicateschema"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run gen.go FILE")
		os.Exit(2)
	}
	b, err := predicateschema.Generate()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "predicateschema:", err)
		os.Exit(1)
	}
}
