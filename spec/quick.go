package spec

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// This file holds the quick path of response validation. kin-openapi spends
// as long walking a decoded body as decoding it (it sorts every object's
// keys, keeps a stack of visited schemas and prepares errors on the way), and
// a conforming server's answers are nearly always valid. So each schema a
// response body can have is compiled once, when the Validator is built, into
// a tree of checks that only answers "valid", "invalid" or "cannot tell", and
// that mirrors kin-openapi's own OpenAPI 3.0 visitor keyword by keyword.
//
// Only "valid" is acted on: the exchange then has no violations, which is
// what kin-openapi would have said. Any other answer, or any body, header,
// status or schema the quick path is not sure of, goes through kin-openapi as
// before, so every violation reported still comes from kin-openapi, with the
// same location, rule and message. A schema using a keyword the compiler does
// not know compiles to "cannot tell" rather than to a guess.

// verdict is the quick path's answer for one value under one schema.
type verdict uint8

const (
	unsure  verdict = iota // the quick path cannot tell; ask kin-openapi
	valid                  // kin-openapi would accept the value
	invalid                // kin-openapi would reject the value
)

// check is one compiled schema. Its fields mirror the keywords of
// openapi3.Schema that kin-openapi's OpenAPI 3.0 visitor reads.
type check struct {
	unsupported bool // a keyword this file does not mirror is set
	empty       bool // openapi3.Schema.IsEmpty: any value but null passes
	nullable    bool

	// types is nil when the schema names no type (every type passes).
	types *openapi3.Types

	not                 *check
	oneOf, anyOf, allOf []*check
	enum                []any // strings and booleans only

	// strings
	minLength uint64
	maxLength *uint64
	pattern   *regexp.Regexp
	format    *openapi3.Schema // a schema holding only type string and the format: kin-openapi checks formats

	// numbers
	min, max *float64

	// arrays
	minItems uint64
	maxItems *uint64
	items    *check

	// objects
	required             []string
	properties           map[string]*check
	minProps             uint64
	maxProps             *uint64
	additionalAllowed    bool   // additionalProperties is not false
	additionalProperties *check // nil: any value
}

// inertFields are fields of openapi3.Schema that the 3.0 visitor does not
// read when it validates a response (readOnly matters only in requests;
// defaults are written only with the DefaultsSet option, never used here),
// or that compile below. Any other field that is set makes a schema
// unsupported, so that a field a later kin-openapi adds is never ignored.
var inertFields = map[string]bool{
	"Extensions": true, "Origin": true, "Title": true, "Description": true, "Default": true, "Example": true,
	"ExternalDocs": true, "Deprecated": true, "XML": true, "Examples": true, "Comment": true, "ReadOnly": true,
	// compiled:
	"OneOf": true, "AnyOf": true, "AllOf": true, "Not": true, "Type": true, "Format": true, "Enum": true,
	"Nullable": true, "Min": true, "Max": true, "MinLength": true, "MaxLength": true, "Pattern": true,
	"MinItems": true, "MaxItems": true, "Items": true, "Required": true, "Properties": true,
	"MinProps": true, "MaxProps": true, "AdditionalProperties": true,
}

// compiler turns schemas into checks, once per schema (shared $refs compile
// once, and recursive schemas close into loops of checks).
type compiler struct {
	done map[*openapi3.Schema]*check
	// writeOnly is set when some schema is writeOnly: kin-openapi then lets
	// a response leave out a required property declared writeOnly by any
	// schema applied to the same value, which is not mirrored here.
	writeOnly bool
	// formats holds, per format name, the leaf schema kin-openapi checks the
	// format with.
	formats map[string]*openapi3.Schema
}

func (c *compiler) ref(r *openapi3.SchemaRef) *check {
	if r == nil || r.Value == nil {
		return &check{unsupported: true} // kin-openapi reports an unresolved $ref
	}
	return c.compile(r.Value)
}

func (c *compiler) compile(s *openapi3.Schema) *check {
	if k, ok := c.done[s]; ok {
		return k
	}
	k := &check{}
	c.done[s] = k
	if s.WriteOnly {
		c.writeOnly = true
	}
	sv := reflect.ValueOf(s).Elem()
	for i := range sv.NumField() {
		if name := sv.Type().Field(i).Name; !inertFields[name] && !sv.Field(i).IsZero() {
			k.unsupported = true
			return k
		}
	}
	k.empty = s.IsEmpty()
	k.nullable = s.Nullable || s.Type.IncludesNull()
	k.types = s.Type
	if s.Not != nil {
		k.not = c.ref(s.Not)
	}
	for _, r := range s.OneOf {
		k.oneOf = append(k.oneOf, c.ref(r))
	}
	for _, r := range s.AnyOf {
		k.anyOf = append(k.anyOf, c.ref(r))
	}
	for _, r := range s.AllOf {
		k.allOf = append(k.allOf, c.ref(r))
	}
	for _, e := range s.Enum {
		switch e.(type) {
		case string, bool:
			k.enum = append(k.enum, e)
		default:
			k.unsupported = true // kin-openapi compares numbers and structures its own way
			return k
		}
	}
	k.minLength, k.maxLength = s.MinLength, s.MaxLength
	if s.Pattern != "" {
		// kin-openapi compiles a pattern with regexp.Compile after turning
		// \uXXXX into \x{XXXX}; a pattern without \u is compiled as written.
		re, err := regexp.Compile(s.Pattern)
		if err != nil || strings.Contains(s.Pattern, `\u`) {
			k.unsupported = true
			return k
		}
		k.pattern = re
	}
	if s.Format != "" {
		if s.Type.Permits(openapi3.TypeNumber) || s.Type.Permits(openapi3.TypeInteger) {
			k.unsupported = true // number formats are not mirrored
			return k
		}
		leaf, ok := c.formats[s.Format]
		if !ok {
			leaf = &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Format: s.Format}
			c.formats[s.Format] = leaf
		}
		k.format = leaf
	}
	k.min, k.max = s.Min, s.Max
	k.minItems, k.maxItems = s.MinItems, s.MaxItems
	if s.Items != nil {
		k.items = c.ref(s.Items)
	}
	k.required = s.Required
	if len(s.Properties) > 0 {
		k.properties = make(map[string]*check, len(s.Properties))
		for name, r := range s.Properties {
			k.properties[name] = c.ref(r)
		}
	}
	k.minProps, k.maxProps = s.MinProps, s.MaxProps
	k.additionalAllowed = s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has
	if r := s.AdditionalProperties.Schema; r != nil {
		k.additionalProperties = c.ref(r)
	}
	return k
}

// sameValueCycle reports whether some check reaches itself through not,
// oneOf, anyOf or allOf alone (schemas applied to the same value), where
// kin-openapi's cycle detection would accept the value part-way.
func sameValueCycle(checks map[*openapi3.Schema]*check) bool {
	const (
		white = iota
		grey
		black
	)
	colour := map[*check]int{}
	var visit func(k *check) bool
	visit = func(k *check) bool {
		switch colour[k] {
		case grey:
			return true
		case black:
			return false
		}
		colour[k] = grey
		next := append(append(append([]*check(nil), k.oneOf...), k.anyOf...), k.allOf...)
		if k.not != nil {
			next = append(next, k.not)
		}
		for _, n := range next {
			if visit(n) {
				return true
			}
		}
		colour[k] = black
		return false
	}
	for _, k := range checks {
		if visit(k) {
			return true
		}
	}
	return false
}

// quickRun carries what one response's walk needs: the options kin-openapi
// checks formats with, and the strings already matched against a pattern or
// a format in this body (a sender's id, URL and avatars repeat from message
// to message).
type quickRun struct {
	opts    []openapi3.SchemaValidationOption
	matched map[matchKey]bool
}

type matchKey struct {
	k     *check
	value string
}

func is(ok bool) verdict {
	if ok {
		return valid
	}
	return invalid
}

func (r *quickRun) number(k *check, n json.Number) verdict {
	f, err := n.Float64()
	if err != nil {
		return invalid // kin-openapi: "cannot convert json.Number to float64"
	}
	integer, number := k.types.Permits(openapi3.TypeInteger), k.types.Permits(openapi3.TypeNumber)
	switch {
	case integer && !number:
		if f != math.Trunc(f) { // big.Float.IsInt, as kin-openapi asks, for a finite float
			return invalid
		}
	case !integer && !number:
		return invalid
	}
	if k.min != nil && !(*k.min <= f) {
		return invalid
	}
	if k.max != nil && !(*k.max >= f) {
		return invalid
	}
	return valid
}

func (r *quickRun) str(k *check, s string) verdict {
	if !k.types.Permits(openapi3.TypeString) {
		return invalid
	}
	if k.minLength != 0 || k.maxLength != nil {
		// kin-openapi counts runes this way (a rune of a Go string is never
		// a surrogate, so this is the number of runes).
		var length int64
		for range s {
			length++
		}
		if k.minLength != 0 && length < int64(k.minLength) {
			return invalid
		}
		if k.maxLength != nil && length > int64(*k.maxLength) {
			return invalid
		}
	}
	if k.pattern == nil && k.format == nil {
		return valid
	}
	key := matchKey{k, s}
	ok, seen := r.matched[key]
	if !seen {
		ok = (k.pattern == nil || k.pattern.MatchString(s)) &&
			(k.format == nil || k.format.VisitJSON(s, r.opts...) == nil)
		if r.matched == nil {
			r.matched = map[matchKey]bool{}
		}
		r.matched[key] = ok
	}
	return is(ok)
}

// quick is the compiled form of a document's response bodies.
type quick struct {
	checks map[*openapi3.Schema]*check
	opts   []openapi3.SchemaValidationOption // kin-openapi's options for a response body
	// headers checks the status and the headers of a response (the body is
	// left out) exactly as CheckResponse's full path does.
	headers *openapi3filter.Options
}

// newQuick compiles every response body schema of t, or returns nil when
// the quick path cannot be trusted for this document.
func newQuick(t *openapi3.T, opts *openapi3filter.Options) *quick {
	if !quickDecoding || t.IsOpenAPI31OrLater() || opts.MultiError == false ||
		reflect.ValueOf(openapi3filter.RegisteredBodyDecoder("application/json")).Pointer() !=
			reflect.ValueOf(openapi3filter.JSONBodyDecoder).Pointer() {
		return nil
	}
	c := &compiler{done: map[*openapi3.Schema]*check{}, formats: map[string]*openapi3.Schema{}}
	for _, path := range t.Paths.InMatchingOrder() {
		for _, op := range t.Paths.Value(path).Operations() {
			if op.Responses == nil {
				continue
			}
			for _, resp := range op.Responses.Map() {
				if resp == nil || resp.Value == nil {
					continue
				}
				for _, mt := range resp.Value.Content {
					if mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
						c.compile(mt.Schema.Value)
					}
				}
			}
		}
	}
	if c.writeOnly || sameValueCycle(c.done) {
		return nil
	}
	headers := *opts
	headers.ExcludeResponseBody = true
	q := &quick{checks: c.done, headers: &headers}
	q.opts = append(q.opts, openapi3.MultiErrors())
	q.opts = append(q.opts, opts.SchemaValidationOptions...)
	q.opts = append(q.opts, openapi3.VisitAsResponse())
	return q
}

// pass reports whether kin-openapi's ValidateResponse, with the options the
// validator was built with, certainly returns no error for this response.
// false means "not known": the caller then runs the full validation.
func (q *quick) pass(ctx context.Context, req *http.Request, route *routers.Route, status int, header http.Header, body []byte) bool {
	return q.verdict(ctx, req, route, status, header, body) == valid
}

// verdict is the quick path's answer for a whole response. It is invalid
// only when the status and headers pass and the body decodes but breaks its
// schema.
func (q *quick) verdict(ctx context.Context, req *http.Request, route *routers.Route, status int, header http.Header, body []byte) verdict {
	if q == nil {
		return unsure
	}
	reqIn := &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: q.headers}
	in := &openapi3filter.ResponseValidationInput{RequestValidationInput: reqIn, Status: status, Header: header, Options: q.headers}
	if openapi3filter.ValidateResponse(ctx, in) != nil {
		return unsure
	}
	responses := route.Operation.Responses
	if responses.Len() == 0 {
		return valid
	}
	ref := responses.Status(status)
	if ref == nil {
		ref = responses.Default()
	}
	if ref == nil || ref.Value == nil {
		return unsure
	}
	content := ref.Value.Content
	if len(content) == 0 {
		return valid
	}
	ct := header.Get("Content-Type")
	mt := content.Get(ct)
	if mt == nil {
		return unsure
	}
	if mt.Schema == nil {
		return valid
	}
	media, _, _ := strings.Cut(ct, ";")
	if strings.ToLower(strings.TrimSpace(media)) != "application/json" || len(mt.Encoding) > 0 || mt.Schema.Value == nil ||
		mt.Schema.Value.Type.Is(openapi3.TypeString) && mt.Schema.Value.Format == "binary" { // read as a file, not decoded
		return unsure
	}
	k, ok := q.checks[mt.Schema.Value]
	if !ok || k.unsupported {
		return unsure
	}
	return scanBody(body, k, &quickRun{opts: q.opts})
}
