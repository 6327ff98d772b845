package generate

import (
	"regexp"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

func schemaOf(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil {
		return nil
	}
	return ref.Value
}

func hasPattern(ref *openapi3.SchemaRef) bool {
	s := schemaOf(ref)
	return s != nil && s.Pattern != ""
}

// closed reports whether an object schema forbids properties it does not
// name.
func closed(s *openapi3.Schema) bool {
	return s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has
}

// propertyNames lists an object's properties, required ones first, each
// group sorted: a fixed order, so that a seed replays.
func propertyNames(s *openapi3.Schema) []string {
	var req, opt []string
	for name := range s.Properties {
		if slices.Contains(s.Required, name) {
			req = append(req, name)
		} else {
			opt = append(opt, name)
		}
	}
	slices.Sort(req)
	slices.Sort(opt)
	return append(req, opt...)
}

// stringViolation says how a string breaks a string schema ("" when it
// does not). Lengths count UTF-16 units.
func stringViolation(s *openapi3.Schema, v string) string {
	if s == nil {
		return ""
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err == nil && !re.MatchString(v) {
			return "not of the pattern " + s.Pattern
		}
	}
	if n := units(v); uint64(n) < s.MinLength || s.MaxLength != nil && uint64(n) > *s.MaxLength {
		return "of a length outside the schema's"
	}
	return ""
}
