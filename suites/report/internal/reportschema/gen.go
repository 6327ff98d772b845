//go:build ignore

// Gen writes the JSON Schema of the JSON report to the file named by its
// argument: go generate in suites/report runs it (see report.go).
package main

import (
	"fmt"
	"os"

	"github.com/chatrooms/conformance/suites/report/internal/reportschema"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run gen.go FILE")
		os.Exit(2)
	}
	b, err := reportschema.Generate()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reportschema:", err)
		os.Exit(1)
	}
}
