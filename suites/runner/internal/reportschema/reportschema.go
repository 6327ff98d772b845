// Package reportschema derives the JSON Schema of chatconform's JSON report
// (runner.Result, written with --json) from the Go types, as encoding/json
// writes them. go generate in suites/runner writes it to
// suites/runner/report.schema.json; TestReportSchemaIsCurrent holds that
// file to what Generate says.
package reportschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/runner"
)

// ID is the schema's $id.
const ID = "https://github.com/chatrooms/conformance/suites/runner/report.schema.json"

const (
	title       = "chatconform JSON report"
	description = "What chatconform writes with --json: one run of the Chat Rooms conformance checks against one target, " +
		"with a verdict per requirement of the profile and the checks behind it, the counts by verdict and by outcome, " +
		"how much of the profile the run judged, and the recorded exchanges that broke the API document or answered 5xx. " +
		"\"format\" is the version of this shape: it changes when a field changes meaning or goes away. " +
		"Durations are integers in nanoseconds; times are RFC 3339 date-times."
)

var (
	outcomeType  = reflect.TypeFor[runner.Outcome]()
	profileType  = reflect.TypeFor[spec.Profile]()
	durationType = reflect.TypeFor[time.Duration]()
	timeType     = reflect.TypeFor[time.Time]()
)

// Generate returns the schema of the JSON report, indented, with a final
// newline: the bytes of report.schema.json.
func Generate() ([]byte, error) {
	names := map[string]reflect.Type{} // $defs name → the type it stands for
	var clash error
	r := &jsonschema.Reflector{
		ExpandedStruct: true, // the report itself at the root, not a $ref
		Namer: func(t reflect.Type) string {
			// invopop names a definition by the bare type name: two types of
			// one name in different packages would share it silently.
			if prev, ok := names[t.Name()]; ok && prev != t && t.Name() != "" && clash == nil {
				clash = fmt.Errorf("two types named %s: %s and %s", t.Name(), prev, t)
			}
			names[t.Name()] = t
			return t.Name()
		},
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			switch t {
			case outcomeType: // an int written with MarshalText: its word
				return &jsonschema.Schema{Ref: "#/$defs/Outcome"}
			case profileType:
				return &jsonschema.Schema{Ref: "#/$defs/Profile"}
			case durationType: // encoding/json writes the int64 of nanoseconds
				return &jsonschema.Schema{Type: "integer"}
			case timeType: // MarshalJSON: RFC 3339
				return &jsonschema.Schema{Type: "string", Format: "date-time"}
			}
			return nil
		},
	}
	s := r.Reflect(&runner.Result{})
	if clash != nil {
		return nil, clash
	}
	s.ID = jsonschema.ID(ID)
	s.Title, s.Description = title, description

	var words []any
	for o := runner.Outcome(0); ; o++ {
		w := o.String()
		if strings.HasPrefix(w, "Outcome(") {
			break
		}
		words = append(words, w)
	}
	s.Definitions["Outcome"] = &jsonschema.Schema{Type: "string", Enum: words,
		Description: "A check's outcome or a requirement's verdict, in the words of every output."}
	var profiles []any
	for _, p := range spec.Profiles {
		profiles = append(profiles, string(p))
	}
	s.Definitions["Profile"] = &jsonschema.Schema{Type: "string", Enum: profiles}

	if err := asWritten(s, s.Definitions, reflect.TypeFor[runner.Result](), map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	prop := func(name string) (*jsonschema.Schema, error) {
		p, ok := s.Properties.Get(name)
		if !ok {
			return nil, fmt.Errorf("the report has no field %q", name)
		}
		return p, nil
	}
	format, err := prop("format")
	if err != nil {
		return nil, err
	}
	format.Const = runner.ReportFormat
	for _, counts := range []string{"counts", "checks"} { // keyed by outcome words
		p, err := prop(counts)
		if err != nil {
			return nil, err
		}
		if p.OneOf != nil { // nullable: the object is its first branch
			p = p.OneOf[0]
		}
		p.PropertyNames = &jsonschema.Schema{Ref: "#/$defs/Outcome"}
	}

	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// asWritten corrects the schema of struct t (root or definition) and of the
// structs it holds where invopop's reading differs from what encoding/json
// writes: a slice, map or pointer field without omitempty is written null
// when nil, and a struct field is written even with omitempty.
func asWritten(root *jsonschema.Schema, defs jsonschema.Definitions, t reflect.Type, done map[reflect.Type]bool) error {
	if done[t] {
		return nil
	}
	done[t] = true
	s := root
	if t != reflect.TypeFor[runner.Result]() {
		s = defs[t.Name()]
		if s == nil {
			return fmt.Errorf("no definition for %s", t)
		}
	}
	for f := range t.Fields() {
		if f.Anonymous {
			return fmt.Errorf("%s.%s: embedded fields are not handled", t, f.Name)
		}
		if !f.IsExported() {
			continue
		}
		tag := strings.Split(f.Tag.Get("json"), ",")
		if tag[0] == "-" && len(tag) == 1 {
			continue
		}
		name := f.Name
		if tag[0] != "" {
			name = tag[0]
		}
		omitempty := slices.Contains(tag[1:], "omitempty")
		p, ok := s.Properties.Get(name)
		if !ok {
			return fmt.Errorf("%s.%s: no property %q", t, f.Name, name)
		}
		switch k := f.Type.Kind(); {
		case omitempty && k == reflect.Struct:
			if !slices.Contains(s.Required, name) {
				s.Required = append(s.Required, name)
			}
		case !omitempty && (k == reflect.Slice || k == reflect.Map || k == reflect.Pointer):
			s.Properties.Set(name, &jsonschema.Schema{OneOf: []*jsonschema.Schema{p, {Type: "null"}}})
		}
		e := f.Type
		for e.Kind() == reflect.Pointer || e.Kind() == reflect.Slice || e.Kind() == reflect.Array || e.Kind() == reflect.Map {
			e = e.Elem()
		}
		if e.Kind() == reflect.Struct && e != timeType {
			if err := asWritten(root, defs, e, done); err != nil {
				return err
			}
		}
	}
	return nil
}
