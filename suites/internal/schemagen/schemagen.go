// Package schemagen holds what the generators of the project's JSON Schemas
// share (the run report's, suites/report/internal/reportschema, and the
// attestation predicate's, suites/attest/internal/predicateschema): a
// reflector that refuses two types of one name, the mapping of the types
// encoding/json writes in its own way, the outcome words, and the
// corrections that make a schema say what encoding/json writes.
package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
)

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	rawType      = reflect.TypeFor[json.RawMessage]()
)

// Reflector returns a reflector with the root type expanded when root is
// true, mapping time.Time to an RFC 3339 date-time, time.Duration to its
// integer of nanoseconds, and each type of refs to a reference to the
// definition named by the map's value; more maps further types (nil for
// the reflector's own reading). clash, called after reflecting, reports
// two types that would share a definition name.
func Reflector(root bool, refs map[reflect.Type]string, more func(reflect.Type) *jsonschema.Schema) (r *jsonschema.Reflector, clash func() error) {
	names := map[string]reflect.Type{} // $defs name → the type it stands for
	var err error
	r = &jsonschema.Reflector{
		ExpandedStruct: root,
		Namer: func(t reflect.Type) string {
			// invopop names a definition by the bare type name: two types of
			// one name in different packages would share it silently.
			if prev, ok := names[t.Name()]; ok && prev != t && t.Name() != "" && err == nil {
				err = fmt.Errorf("two types named %s: %s and %s", t.Name(), prev, t)
			}
			names[t.Name()] = t
			return t.Name()
		},
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if name, ok := refs[t]; ok {
				return &jsonschema.Schema{Ref: "#/$defs/" + name}
			}
			switch t {
			case durationType: // encoding/json writes the int64 of nanoseconds
				return &jsonschema.Schema{Type: "integer"}
			case timeType: // MarshalJSON: RFC 3339
				return &jsonschema.Schema{Type: "string", Format: "date-time"}
			}
			if more != nil {
				return more(t)
			}
			return nil
		},
	}
	return r, func() error { return err }
}

// Words is the enumeration of a type written as words: the words of
// word(0), word(1), ... up to the first that starts with stop.
func Words(word func(int) string, stop string) []any {
	var out []any
	for i := 0; ; i++ {
		w := word(i)
		if strings.HasPrefix(w, stop) {
			return out
		}
		out = append(out, w)
	}
}

// AsWritten corrects the schema of struct t (the root's when t is root,
// else its definition) and of the structs it holds where invopop's reading
// differs from what encoding/json writes: a slice, map or pointer field
// without omitempty is written null when nil, and a struct field is written
// even with omitempty. json.RawMessage fields are left as mapped.
func AsWritten(s *jsonschema.Schema, root, t reflect.Type) error {
	return asWritten(s, s.Definitions, root, t, map[reflect.Type]bool{})
}

func asWritten(rootSchema *jsonschema.Schema, defs jsonschema.Definitions, root, t reflect.Type, done map[reflect.Type]bool) error {
	if done[t] {
		return nil
	}
	done[t] = true
	s := rootSchema
	if t != root {
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
			if err := asWritten(rootSchema, defs, root, e, done); err != nil {
				return err
			}
		}
	}
	return nil
}

// Property is the schema of property name of s; of a nullable one, its
// non-null branch.
func Property(s *jsonschema.Schema, name string) (*jsonschema.Schema, error) {
	p, ok := s.Properties.Get(name)
	if !ok {
		return nil, fmt.Errorf("no field %q", name)
	}
	if p.OneOf != nil { // nullable: the value is its first branch
		p = p.OneOf[0]
	}
	return p, nil
}

// Marshal is the schema indented, with a final newline: a file's bytes.
func Marshal(s *jsonschema.Schema) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Stale compares the schema file at path with what generate makes now and
// says where they first part ("" when they agree); pkg names the package
// whose go generate writes the file.
func Stale(path, pkg string, generate func() ([]byte, error)) (string, error) {
	want, err := generate()
	if err != nil {
		return "", err
	}
	got, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%w: run `go generate %s` from the module root", err, pkg)
	}
	if bytes.Equal(got, want) {
		return "", nil
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	i := 0
	for i < min(len(g), len(w)) && g[i] == w[i] {
		i++
	}
	line := func(ls []string) string {
		if i < len(ls) {
			return strings.TrimSpace(ls[i])
		}
		return "(end of file)"
	}
	return fmt.Sprintf("%s is not the schema of the Go types (line %d: has %q, the types say %q): run `go generate %s` from the module root and commit the file",
		path, i+1, line(g), line(w), pkg), nil
}
