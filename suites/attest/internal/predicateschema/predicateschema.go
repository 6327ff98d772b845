// Package predicateschema derives the JSON Schema of the predicate of
// chatconform's attestations (attest.Predicate, predicate type
// attest.PredicateType) from the Go types, as encoding/json writes them.
// go generate in suites/attest writes it to
// suites/attest/predicate.schema.json; TestPredicateSchemaIsCurrent holds
// that file to what Generate says.
package predicateschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/runner"
)

// ID is the schema's $id.
const ID = "https://github.com/chatrooms/conformance/suites/attest/predicate.schema.json"

const (
	title       = "chatconform attestation predicate"
	description = "The predicate of the in-toto statement chatconform --attest signs (predicateType " + attest.PredicateType + "): " +
		"one conformance run of the Chat Rooms API against one target, whose subject is the run record by its SHA-256 digest. " +
		"It names the target, the profile, the harness version, the SHA-256 digests of the requirement catalogue and OpenAPI documents " +
		"the run was judged by, the seed, the run's exit code, the counts by verdict and by check outcome, the coverage (as the run's JSON report, " +
		"suites/runner/report.schema.json, gives them), every requirement's verdict, what the record's exchanges show broken, " +
		"and the target as observed: the addresses the harness connected to and the SHA-256 fingerprints of the TLS certificate chains " +
		"presented, leaf first (absent from statements made before it was kept). Times are RFC 3339 date-times."
)

var (
	timeType     = reflect.TypeFor[time.Time]()
	rawType      = reflect.TypeFor[json.RawMessage]()
	outcomeType  = reflect.TypeFor[runner.Outcome]()
	coverageType = reflect.TypeFor[runner.Coverage]()
	rootType     = reflect.TypeFor[attest.Predicate]()
)

// Generate returns the schema of the predicate, indented, with a final
// newline: the bytes of predicate.schema.json.
func Generate() ([]byte, error) {
	names := map[string]reflect.Type{}
	var clash error
	namer := func(t reflect.Type) string {
		// invopop names a definition by the bare type name: two types of
		// one name in different packages would share it silently.
		if prev, ok := names[t.Name()]; ok && prev != t && t.Name() != "" && clash == nil {
			clash = fmt.Errorf("two types named %s: %s and %s", t.Name(), prev, t)
		}
		names[t.Name()] = t
		return t.Name()
	}
	mapper := func(t reflect.Type) *jsonschema.Schema {
		switch t {
		case timeType: // MarshalJSON: RFC 3339
			return &jsonschema.Schema{Type: "string", Format: "date-time"}
		case outcomeType: // an int written with MarshalText: its word
			return &jsonschema.Schema{Ref: "#/$defs/Outcome"}
		case rawType: // Coverage: the run's JSON report's, copied as is
			return &jsonschema.Schema{Ref: "#/$defs/Coverage"}
		}
		return nil
	}
	r := &jsonschema.Reflector{ExpandedStruct: true, Namer: namer, Mapper: mapper} // the predicate at the root
	s := r.Reflect(&attest.Predicate{})
	// The coverage is the report's (runner.Coverage), held as raw JSON.
	cov := (&jsonschema.Reflector{Namer: namer, Mapper: mapper}).Reflect(&runner.Coverage{})
	if clash != nil {
		return nil, clash
	}
	for name, d := range cov.Definitions {
		if _, ok := s.Definitions[name]; ok {
			return nil, fmt.Errorf("two definitions named %s", name)
		}
		s.Definitions[name] = d
	}
	s.ID = jsonschema.ID(ID)
	s.Title, s.Description = title, description
	if err := asWritten(s, s.Definitions, rootType, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	if err := asWritten(s, s.Definitions, coverageType, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	var words []any
	for o := runner.Outcome(0); ; o++ {
		w := o.String()
		if strings.HasPrefix(w, "Outcome(") {
			break
		}
		words = append(words, w)
	}
	s.Definitions["Outcome"] = &jsonschema.Schema{Type: "string", Enum: words,
		Description: "A requirement's verdict or a check's outcome, in the words of every output of a run."}
	prop := func(sch *jsonschema.Schema, name string) (*jsonschema.Schema, error) {
		p, ok := sch.Properties.Get(name)
		if !ok {
			return nil, fmt.Errorf("no field %q", name)
		}
		if p.OneOf != nil { // nullable: the value is its first branch
			p = p.OneOf[0]
		}
		return p, nil
	}
	var profiles []any
	for _, p := range spec.Profiles {
		profiles = append(profiles, string(p))
	}
	p, err := prop(s, "profile")
	if err != nil {
		return nil, err
	}
	p.Enum = profiles
	for _, counts := range []string{"counts", "checks"} { // keyed by outcome words
		p, err := prop(s, counts)
		if err != nil {
			return nil, err
		}
		p.PropertyNames = &jsonschema.Schema{Ref: "#/$defs/Outcome"}
	}
	req := s.Definitions["Requirement"]
	if req == nil {
		return nil, fmt.Errorf("no definition of Requirement")
	}
	req.Properties.Set("verdict", &jsonschema.Schema{Ref: "#/$defs/Outcome"})
	hex := &jsonschema.Schema{Type: "string", Pattern: "^[0-9a-f]{64}$"}
	if d := s.Definitions["Digests"]; d != nil {
		for pair := d.Properties.Oldest(); pair != nil; pair = pair.Next() {
			pair.Value.Pattern = hex.Pattern
		}
	} else {
		return nil, fmt.Errorf("no definition of Digests")
	}
	chain := s.Definitions["Chain"]
	if chain == nil {
		return nil, fmt.Errorf("no definition of Chain")
	}
	if p, err = prop(chain, "sha256"); err != nil {
		return nil, err
	}
	p.Items, p.MinItems = hex, ptr(uint64(1))
	addr := s.Definitions["Address"]
	if addr == nil {
		return nil, fmt.Errorf("no definition of Address")
	}
	if p, err = prop(addr, "scheme"); err != nil {
		return nil, err
	}
	p.Enum = []any{"https", "http"}

	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func ptr[T any](v T) *T { return &v }

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
	if t != rootType {
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
		case omitempty && k == reflect.Struct && f.Type != timeType:
			if !slices.Contains(s.Required, name) {
				s.Required = append(s.Required, name)
			}
		case !omitempty && f.Type != rawType && (k == reflect.Slice || k == reflect.Map || k == reflect.Pointer):
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
