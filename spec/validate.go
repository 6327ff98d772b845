package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Violation is one way a request or a response breaks the document.
type Violation struct {
	Operation string // operationId, or "METHOD path" when no operation matched
	Side      string // "request" or "response"
	Location  string // JSON path into the body ($, $[0].id), "header X", "query limit", "path roomId" or "status"
	Rule      string // the schema keyword or rule broken: required, type, format, enum, status, content-type, ...
	Value     any    // the offending value, when there is one
	Message   string // what went wrong, in words
}

// NullForArray is the Message of a "nullable" violation where the
// document has an array: the answer names no element there, which a
// reader that needs only the elements can still use as an empty list.
const NullForArray = "null where the document has an array"

func (v Violation) String() string {
	s := fmt.Sprintf("%s %s %s: %s", v.Operation, v.Side, v.Location, v.Message)
	if v.Rule != "" {
		s += " [" + v.Rule + "]"
	}
	if v.Value != nil {
		s += fmt.Sprintf(" (got %s)", shortValue(v.Value))
	}
	return s
}

func shortValue(v any) string {
	s := fmt.Sprintf("%#v", v)
	if _, ok := v.(string); !ok {
		s = fmt.Sprintf("%v", v)
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// Validator checks requests and responses of one API mount against a
// document. It is safe for concurrent use.
type Validator struct {
	router routers.Router
	opts   *openapi3filter.Options
	// headersOnly is opts without the body: the headers of a 204 or 205
	// read as the success the operation documents.
	headersOnly *openapi3filter.Options
}

// NewValidator returns a validator for an API whose base URL has the given
// path ("" when the API sits at the root of its host; "/chat" when paths look
// like /chat/v1/user). Any host and scheme match.
func (d *Document) NewValidator(mountPath string) (*Validator, error) {
	mountPath = strings.TrimSuffix(mountPath, "/")
	t := *d.T // shallow copy: only Servers differs, the rest stays shared and read-only
	t.Servers = nil
	if mountPath != "" {
		t.Servers = openapi3.Servers{{URL: mountPath}}
	}
	router, err := gorillamux.NewRouter(&t)
	if err != nil {
		return nil, fmt.Errorf("router for %s: %w", d.Profile, err)
	}
	opts := &openapi3filter.Options{
		MultiError:            true,
		IncludeResponseStatus: true,
		AuthenticationFunc:    requireCredential,
		SchemaValidationOptions: append(d.T.GetSchemaValidationOptions(),
			openapi3.EnableFormatValidation()),
	}
	headersOnly := *opts
	headersOnly.ExcludeResponseBody = true
	return &Validator{router: router, opts: opts, headersOnly: &headersOnly}, nil
}

// requireCredential accepts a security scheme when the request presents a
// value for it; whether the token is right is the server's business.
func requireCredential(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	req := in.RequestValidationInput.Request
	switch {
	case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"):
		if h := req.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return nil
		}
	case s.Type == "apiKey" && s.In == "query":
		if req.URL.Query().Get(s.Name) != "" {
			return nil
		}
	case s.Type == "apiKey" && s.In == "header":
		if req.Header.Get(s.Name) != "" {
			return nil
		}
	}
	return fmt.Errorf("no %s credential", s.Type)
}

// OperationID returns the operationId a request addresses, or "" when it
// addresses none.
func (v *Validator) OperationID(req *http.Request) string {
	route, _, err := v.router.FindRoute(req)
	if err != nil || route.Operation == nil {
		return ""
	}
	return route.Operation.OperationID
}

// CheckRequest validates a request whose body is given separately (req.Body
// is ignored). It returns the operationId and every violation found.
func (v *Validator) CheckRequest(ctx context.Context, req *http.Request, body []byte) (string, []Violation) {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return "", []Violation{routeViolation(req, "request", err)}
	}
	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: v.opts}
	err = openapi3filter.ValidateRequest(ctx, in)
	return route.Operation.OperationID, violations(route.Operation.OperationID, "request", err)
}

// CheckResponse validates a response to req with kin-openapi. Statuses the
// operation does not document are violations.
//
// kin-openapi reads nothing more of an answer whose status is undocumented.
// When that status is a success and the operation documents exactly one
// success (201 where only 200 is documented), the answer is also read as that
// success, so that what is wrong in its headers and body is reported beside
// the status. A 204 or 205 has no body by definition: only its headers are
// read so.
func (v *Validator) CheckResponse(ctx context.Context, req *http.Request, status int, header http.Header, body []byte) (string, []Violation) {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return "", []Violation{routeViolation(req, "response", err)}
	}
	op := route.Operation.OperationID
	extra := undocumentedBody(op, route.Operation.Responses, status, header, body)
	if extra == nil {
		extra = trailingData(op, status, header, body)
	}
	meant := meantSuccess(req.Method, route.Operation.Responses, status)
	if meant == 0 {
		return op, append(violations(op, "response", v.validateResponse(ctx, req, route, params, status, header, body, v.opts)), extra...)
	}
	opts, what := v.opts, "headers and body"
	if status == http.StatusNoContent || status == http.StatusResetContent {
		opts, what = v.headersOnly, "headers"
	}
	out := []Violation{{Operation: op, Side: "response", Location: "status", Rule: "status", Value: status,
		Message: fmt.Sprintf("status is not supported (the %s are checked as the documented %d)", what, meant)}}
	return op, append(append(out, violations(op, "response", v.validateResponse(ctx, req, route, params, meant, header, body, opts))...), extra...)
}

// trailingData holds a JSON success body to being one JSON document: the
// validator reads the first value of a body and stops, so a body with
// more after it (two documents, a stray bracket) would pass unread.
func trailingData(op string, status int, header http.Header, body []byte) []Violation {
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if status < 200 || status > 299 || err != nil || !strings.HasSuffix(mt, "json") {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var first json.RawMessage
	if dec.Decode(&first) != nil {
		return nil // no first value: the validator says why
	}
	if rest := bytes.TrimSpace(body[dec.InputOffset():]); len(rest) > 0 {
		return []Violation{{Operation: op, Side: "response", Location: "$", Rule: "decode",
			Message: fmt.Sprintf("the body holds more than one JSON document: %d bytes follow the first", len(rest))}}
	}
	return nil
}

// UndocumentedBody is the Location of the violations of a success whose
// body the document does not show (undocumentedBody).
const UndocumentedBody = "body the document does not show"

// undocumentedBody holds a success whose status the document gives no
// body to, yet which carries one, to what every success body must be: a
// JSON document labelled application/json with charset utf-8. The
// validator has no schema to hold it to, so nothing else would look. A
// success without a body is not held to the label.
func undocumentedBody(op string, responses *openapi3.Responses, status int, header http.Header, body []byte) []Violation {
	if status < 200 || status > 299 || len(bytes.TrimSpace(body)) == 0 || responses == nil {
		return nil
	}
	r := responses.Status(status)
	if r == nil {
		r = responses.Value(strconv.Itoa(status/100) + "XX")
	}
	if r == nil {
		r = responses.Default()
	}
	if r == nil || r.Value == nil || len(r.Value.Content) > 0 {
		return nil // none documented at all (a route error says so), or a body the validator judges
	}
	var out []Violation
	ct := header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" || !strings.EqualFold(params["charset"], "utf-8") {
		out = append(out, Violation{Operation: op, Side: "response", Location: UndocumentedBody, Rule: "content-type", Value: ct,
			Message: fmt.Sprintf("a success that carries a body is labelled %q, not application/json with charset utf-8", ct)})
	}
	if !json.Valid(body) {
		out = append(out, Violation{Operation: op, Side: "response", Location: UndocumentedBody, Rule: "decode",
			Message: "a success carries a body that is not a JSON document"})
	}
	return out
}

// validateResponse runs kin-openapi's response validation, reading the
// answer as one of the given status.
func (v *Validator) validateResponse(ctx context.Context, req *http.Request, route *routers.Route, params map[string]string, status int, header http.Header, body []byte, opts *openapi3filter.Options) error {
	reqIn := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqIn,
		Status:                 status,
		Header:                 header,
		Options:                opts,
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(ctx, in)
}

// meantSuccess returns the one success status an operation documents when
// status is a success it does not document (nor covers with 2XX or default),
// and 0 otherwise. kin-openapi judges no response to HEAD.
func meantSuccess(method string, responses *openapi3.Responses, status int) int {
	if method == http.MethodHead || status < 200 || status > 299 || responses.Len() == 0 ||
		responses.Status(status) != nil || responses.Default() != nil {
		return 0
	}
	meant := 0
	for code := range responses.Map() {
		if n, err := strconv.Atoi(code); err == nil && n >= 200 && n <= 299 {
			if meant != 0 {
				return 0
			}
			meant = n
		}
	}
	return meant
}

func routeViolation(req *http.Request, side string, err error) Violation {
	return Violation{
		Operation: req.Method + " " + req.URL.Path,
		Side:      side,
		Location:  "path",
		Rule:      "route",
		Message:   "no operation of the document matches: " + err.Error(),
	}
}

// violations flattens kin-openapi's nested errors into one Violation per leaf.
func violations(op, side string, err error) []Violation {
	if err == nil {
		return nil
	}
	var out []Violation
	var walk func(err error, where string)
	walk = func(err error, where string) {
		var multi openapi3.MultiError
		var reqErr *openapi3filter.RequestError
		var respErr *openapi3filter.ResponseError
		var schemaErr *openapi3.SchemaError
		var secErr *openapi3filter.SecurityRequirementsError
		switch {
		case errors.As(err, &multi) && isMulti(err):
			for _, e := range multi {
				walk(e, where)
			}
		case asDirect(err, &reqErr):
			loc := where
			if p := reqErr.Parameter; p != nil {
				loc = p.In + " " + p.Name
			}
			if reqErr.Err == nil {
				out = append(out, Violation{Operation: op, Side: side, Location: loc, Rule: ruleOf(reqErr.Reason), Message: reqErr.Reason})
				return
			}
			walk(reqErr.Err, loc)
		case asDirect(err, &respErr):
			if respErr.Err == nil {
				loc, rule := "$", ruleOf(respErr.Reason)
				switch {
				case strings.Contains(respErr.Reason, "status is not supported"):
					loc, rule = "status", "status"
				case strings.Contains(respErr.Reason, "header"):
					loc = "header " + quoted(respErr.Reason)
				}
				v := Violation{Operation: op, Side: side, Location: loc, Rule: rule, Message: respErr.Reason}
				if rule == "status" {
					v.Value = respErr.Input.Status
				}
				out = append(out, v)
				return
			}
			if strings.Contains(respErr.Reason, "header") {
				where = "header " + quoted(respErr.Reason)
			}
			walk(respErr.Err, where)
		case asDirect(err, &schemaErr):
			pointer := schemaErr.JSONPointer()
			var inner openapi3.MultiError
			if schemaErr.SchemaField == "allOf" && errors.As(schemaErr.Origin, &inner) {
				// allOf hides which branch failed; report the branch's own
				// errors, whose pointers already start at the document root.
				walk(inner, where)
				return
			}
			loc := where
			if strings.HasPrefix(where, "$") {
				loc = jsonPath(pointer)
			}
			rule, value := schemaErr.SchemaField, schemaErr.Value
			if rule == "properties" && strings.Contains(schemaErr.Reason, "unsupported") {
				rule, value = "additionalProperties", nil
				if strings.HasPrefix(loc, "$") {
					loc = jsonPath(append(pointer, quoted(schemaErr.Reason)))
				}
			}
			msg := schemaErr.Reason
			if rule == "nullable" && schemaErr.Schema != nil && schemaErr.Schema.Type.Is("array") {
				msg = NullForArray
			}
			if msg == "" && rule == "not" {
				msg = "matches a shape it must not have (a field that must be absent is present)"
			}
			out = append(out, Violation{Operation: op, Side: side, Location: loc, Rule: rule, Value: value, Message: msg})
		case asDirect(err, &secErr):
			out = append(out, Violation{Operation: op, Side: side, Location: "credentials", Rule: "security", Message: secErr.Error()})
		default:
			out = append(out, Violation{Operation: op, Side: side, Location: orDollar(where), Rule: "decode", Message: err.Error()})
		}
	}
	walk(err, "$")
	return out
}

func isMulti(err error) bool {
	_, ok := err.(openapi3.MultiError)
	return ok
}

// asDirect is errors.As restricted to the error itself, so that wrappers are
// unwrapped one level at a time by walk rather than skipped.
func asDirect[T error](err error, target *T) bool {
	t, ok := err.(T)
	if ok {
		*target = t
	}
	return ok
}

func orDollar(s string) string {
	if s == "" {
		return "$"
	}
	return s
}

func quoted(s string) string {
	if i := strings.IndexByte(s, '"'); i >= 0 {
		if j := strings.IndexByte(s[i+1:], '"'); j >= 0 {
			return s[i+1 : i+1+j]
		}
	}
	return "?"
}

func ruleOf(reason string) string {
	switch {
	case strings.Contains(reason, "Content-Type") || strings.Contains(reason, "content type"):
		return "content-type"
	case strings.Contains(reason, "missing"):
		return "required"
	case strings.Contains(reason, "decode"):
		return "decode"
	}
	return "other"
}

// jsonPath renders a JSON pointer as a JSONPath: [] {"0","id"} -> $[0].id.
func jsonPath(pointer []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, part := range pointer {
		if _, err := strconv.Atoi(part); err == nil {
			b.WriteString("[" + part + "]")
		} else {
			b.WriteString("." + part)
		}
	}
	return b.String()
}
