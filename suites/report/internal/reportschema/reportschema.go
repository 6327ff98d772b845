// Package reportschema derives the JSON Schema of chatconform's JSON report
// (report.Report, written with --json) from the Go types, as encoding/json
// writes them. go generate in suites/report writes it to
// suites/report/report.schema.json; TestReportSchemaIsCurrent holds that
// file to what Generate says.
package reportschema

import (
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/internal/schemagen"
	"github.com/chatrooms/conformance/suites/report"
)

// ID is the schema's $id.
const ID = "https://github.com/chatrooms/conformance/suites/report/report.schema.json"

const (
	title       = "chatconform JSON report"
	description = "What chatconform writes with --json: one run of the Chat Rooms conformance checks against one target, " +
		"with a verdict per requirement of the profile and the checks behind it, the counts by verdict and by outcome, " +
		"how much of the profile the run judged, and the recorded exchanges that broke the API document or answered 5xx. " +
		"\"format\" is the version of this shape: it changes when a field changes meaning or goes away. " +
		"Durations are integers in nanoseconds; times are RFC 3339 date-times."
)

// Generate returns the schema of the JSON report, indented, with a final
// newline: the bytes of report.schema.json.
func Generate() ([]byte, error) {
	r, clash := schemagen.Reflector(true, map[reflect.Type]string{ // the report itself at the root, not a $ref
		reflect.TypeFor[report.Outcome](): "Outcome", // an int written with MarshalText: its word
		reflect.TypeFor[spec.Profile]():   "Profile",
	}, nil)
	s := r.Reflect(&report.Report{})
	if err := clash(); err != nil {
		return nil, err
	}
	s.ID = jsonschema.ID(ID)
	s.Title, s.Description = title, description

	words := schemagen.Words(func(i int) string { return report.Outcome(i).String() }, "Outcome(")
	s.Definitions["Outcome"] = &jsonschema.Schema{Type: "string", Enum: words,
		Description: "A check's outcome or a requirement's verdict, in the words of every output."}
	var profiles []any
	for _, p := range spec.Profiles {
		profiles = append(profiles, string(p))
	}
	s.Definitions["Profile"] = &jsonschema.Schema{Type: "string", Enum: profiles}

	root := reflect.TypeFor[report.Report]()
	if err := schemagen.AsWritten(s, root, root); err != nil {
		return nil, err
	}
	format, err := schemagen.Property(s, "format")
	if err != nil {
		return nil, err
	}
	format.Const = report.Format
	for _, counts := range []string{"counts", "checks"} { // keyed by outcome words
		p, err := schemagen.Property(s, counts)
		if err != nil {
			return nil, err
		}
		p.PropertyNames = &jsonschema.Schema{Ref: "#/$defs/Outcome"}
	}
	return schemagen.Marshal(s)
}
