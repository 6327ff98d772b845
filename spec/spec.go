package spec

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"
)

//go:embed openapi.yaml reference.overlay.yaml requirements.yaml
var files embed.FS

// Profile names a level of strictness: what a server is judged by.
type Profile string

const (
	// Core holds only what the API document states. Third-party servers are
	// judged by it.
	Core Profile = "core"
	// Reference adds the decisions of the bundled reference server on every
	// point the API document leaves open.
	Reference Profile = "reference"
)

// Profiles lists every profile, least strict first.
var Profiles = []Profile{Core, Reference}

// ParseProfile returns the profile called name, or an error listing the valid names.
func ParseProfile(name string) (Profile, error) {
	for _, p := range Profiles {
		if string(p) == name {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown profile %q: want core or reference", name)
}

// Document is a loaded and validated OpenAPI document of one profile. It is
// shared and must not be modified.
type Document struct {
	Profile Profile
	T       *openapi3.T
	ops     map[string]Operation
	order   []string
}

// Operation is one method on one path of the document.
type Operation struct {
	ID     string // operationId
	Method string // upper case, e.g. GET
	Path   string // templated path with the /v1 prefix, e.g. /v1/rooms/{roomId}/chatMessages
}

// Operation returns the operation with the given operationId.
func (d *Document) Operation(id string) (Operation, bool) {
	op, ok := d.ops[id]
	return op, ok
}

// Operations returns every operation, ordered by path and then method.
func (d *Document) Operations() []Operation {
	out := make([]Operation, 0, len(d.order))
	for _, id := range d.order {
		out = append(out, d.ops[id])
	}
	return out
}

var loaded = map[Profile]func() (*Document, error){
	Core:      sync.OnceValues(func() (*Document, error) { return load(Core) }),
	Reference: sync.OnceValues(func() (*Document, error) { return load(Reference) }),
}

// Load returns the document of a profile. The documents are parsed and
// validated once per process; every caller shares the result.
func Load(p Profile) (*Document, error) {
	f, ok := loaded[p]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q", p)
	}
	return f()
}

// MustLoad is Load for callers that treat a broken embedded document as a
// programming error (tests, and program start-up after Load succeeded once).
func MustLoad(p Profile) *Document {
	d, err := Load(p)
	if err != nil {
		panic(err)
	}
	return d
}

// Source returns the YAML text of a profile's document: the core file as
// written, or the reference document generated from it and the overlay.
func Source(p Profile) ([]byte, error) {
	core, err := files.ReadFile("openapi.yaml")
	if err != nil {
		return nil, err
	}
	switch p {
	case Core:
		return core, nil
	case Reference:
		overlay, err := files.ReadFile("reference.overlay.yaml")
		if err != nil {
			return nil, err
		}
		return applyOverlay(core, overlay)
	}
	return nil, fmt.Errorf("unknown profile %q", p)
}

func applyOverlay(core, overlay []byte) ([]byte, error) {
	var base, over any
	if err := yaml.Unmarshal(core, &base); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	if err := yaml.Unmarshal(overlay, &over); err != nil {
		return nil, fmt.Errorf("reference.overlay.yaml: %w", err)
	}
	merged, err := merge(base, over, "")
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteString("# Generated from openapi.yaml and reference.overlay.yaml by the spec package; do not edit.\n")
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(merged); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func load(p Profile) (*Document, error) {
	src, err := Source(p)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	t, err := loader.LoadFromData(src)
	if err != nil {
		return nil, fmt.Errorf("%s document: %w", p, err)
	}
	t.SetStringFormatValidator("uri", openapi3.NewCallbackValidator(validateURI))
	if err := t.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("%s document is not valid OpenAPI: %w", p, err)
	}
	d := &Document{Profile: p, T: t, ops: map[string]Operation{}}
	for _, path := range t.Paths.InMatchingOrder() {
		for method, op := range t.Paths.Value(path).Operations() {
			if op.OperationID == "" {
				return nil, fmt.Errorf("%s document: %s %s has no operationId", p, method, path)
			}
			if _, dup := d.ops[op.OperationID]; dup {
				return nil, fmt.Errorf("%s document: operationId %q is used twice", p, op.OperationID)
			}
			d.ops[op.OperationID] = Operation{ID: op.OperationID, Method: strings.ToUpper(method), Path: path}
			d.order = append(d.order, op.OperationID)
		}
	}
	sort.Slice(d.order, func(i, j int) bool {
		a, b := d.ops[d.order[i]], d.ops[d.order[j]]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
	return d, nil
}

// validateURI accepts an absolute URI, which is what the "uri" format means.
// Beyond what url.Parse refuses, no URI holds white space, a control
// character, one of the characters RFC 3986 leaves out (" < > \ ^ ` { | })
// or a % not followed by two hex digits. Characters beyond ASCII are let
// through: a server may write an IRI, and browsers and clients read one.
func validateURI(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c <= ' ' || c == 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0:
			return fmt.Errorf("holds %q at byte %d, which no URI holds unescaped", c, i)
		case c == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])):
			return fmt.Errorf("holds a %% at byte %d not followed by two hex digits", i)
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() || (u.Host == "" && u.Opaque == "") {
		return fmt.Errorf("not an absolute URI")
	}
	return nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
