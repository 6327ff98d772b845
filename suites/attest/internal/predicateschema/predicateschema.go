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

	"github.com/invopop/jsonschema"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/internal/schemagen"
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
		"suites/report/report.schema.json, gives them), every requirement's verdict, what the record's exchanges show broken, " +
		"and the target as observed: the addresses the harness connected to and the SHA-256 fingerprints of the TLS certificate chains " +
		"presented, leaf first (absent from statements made before it was kept). Times are RFC 3339 date-times."
)

var (
	rawType      = reflect.TypeFor[json.RawMessage]()
	coverageType = reflect.TypeFor[runner.Coverage]()
	rootType     = reflect.TypeFor[attest.Predicate]()
)

// Generate returns the schema of the predicate, indented, with a final
// newline: the bytes of predicate.schema.json.
func Generate() ([]byte, error) {
	refs := map[reflect.Type]string{
		reflect.TypeFor[runner.Outcome](): "Outcome",  // an int written with MarshalText: its word
		rawType:                           "Coverage", // Coverage: the run's JSON report's, copied as is
	}
	r, clash := schemagen.Reflector(true, refs, nil) // the predicate at the root
	s := r.Reflect(&attest.Predicate{})
	if err := clash(); err != nil {
		return nil, err
	}
	// The coverage is the report's (runner.Coverage), held as raw JSON.
	rc, clash := schemagen.Reflector(false, refs, nil)
	cov := rc.Reflect(&runner.Coverage{})
	if err := clash(); err != nil {
		return nil, err
	}
	for name, d := range cov.Definitions {
		if _, ok := s.Definitions[name]; ok {
			return nil, fmt.Errorf("two definitions named %s", name)
		}
		s.Definitions[name] = d
	}
	s.ID = jsonschema.ID(ID)
	s.Title, s.Description = title, description
	if err := schemagen.AsWritten(s, rootType, rootType); err != nil {
		return nil, err
	}
	if err := schemagen.AsWritten(s, rootType, coverageType); err != nil {
		return nil, err
	}
	words := schemagen.Words(func(i int) string { return runner.Outcome(i).String() }, "Outcome(")
	s.Definitions["Outcome"] = &jsonschema.Schema{Type: "string", Enum: words,
		Description: "A requirement's verdict or a check's outcome, in the words of every output of a run."}
	prop := schemagen.Property
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

	return schemagen.Marshal(s)
}

func ptr[T any](v T) *T { return &v }
