package generate

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chatrooms/conformance/spec"
)

// operation is what the engine reads off the document for one operation.
// Everything the generators vary comes from here; the only knowledge added
// by hand is which names refer to ids of the world (see refKind).
type operation struct {
	ID         string
	Method     string
	Path       string                     // template, e.g. /v1/rooms/{roomId}/chatMessages
	PathParams []*openapi3.Parameter      // in the order they appear in Path
	Query      []*openapi3.Parameter      // documented query parameters
	Body       *openapi3.Schema           // JSON request body; nil when none
	BodyNeeded bool                       // the request body is required
	BodyType   string                     // its media type
	Security   []*openapi3.SecurityScheme // ways to present a token, in the document's order
	Others     []string                   // methods the path does not document
}

// writes reports whether a 2xx answer may change state.
func (o *operation) writes() bool { return o.Method != http.MethodGet }

// roomScoped reports whether the operation's path names a room.
func (o *operation) roomScoped() bool { return o.pathParam(refRoom) != nil }

func (o *operation) pathParam(kind refKind) *openapi3.Parameter {
	for _, p := range o.PathParams {
		if refOf(p.Name) == kind {
			return p
		}
	}
	return nil
}

// candidateMethods are the methods an undocumented-method probe picks from.
var candidateMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions}

// readContract walks every operation of a profile's document.
func readContract(doc *spec.Document) (map[string]*operation, []string, error) {
	ops := map[string]*operation{}
	var order []string
	for _, so := range doc.Operations() {
		item := doc.T.Paths.Value(so.Path)
		if item == nil {
			return nil, nil, fmt.Errorf("generate: %s: no path item %s", so.ID, so.Path)
		}
		raw := item.GetOperation(so.Method)
		if raw == nil {
			return nil, nil, fmt.Errorf("generate: %s: no %s on %s", so.ID, so.Method, so.Path)
		}
		op := &operation{ID: so.ID, Method: so.Method, Path: so.Path}
		params := map[string]*openapi3.Parameter{}
		var names []string
		for _, list := range []openapi3.Parameters{item.Parameters, raw.Parameters} {
			for _, ref := range list {
				if ref == nil || ref.Value == nil {
					continue
				}
				key := ref.Value.In + " " + ref.Value.Name
				if _, seen := params[key]; !seen {
					names = append(names, key)
				}
				params[key] = ref.Value // the operation's own wins
			}
		}
		for _, key := range names {
			p := params[key]
			switch p.In {
			case openapi3.ParameterInPath:
				op.PathParams = append(op.PathParams, p)
			case openapi3.ParameterInQuery:
				op.Query = append(op.Query, p)
			}
		}
		slices.SortStableFunc(op.PathParams, func(a, b *openapi3.Parameter) int {
			return strings.Index(so.Path, "{"+a.Name+"}") - strings.Index(so.Path, "{"+b.Name+"}")
		})
		if rb := raw.RequestBody; rb != nil && rb.Value != nil {
			for _, mt := range []string{"application/json"} {
				if c := rb.Value.Content.Get(mt); c != nil && c.Schema != nil && c.Schema.Value != nil {
					op.Body, op.BodyType, op.BodyNeeded = c.Schema.Value, mt, rb.Value.Required
				}
			}
			if op.Body == nil {
				return nil, nil, fmt.Errorf("generate: %s: the request body has no JSON schema", so.ID)
			}
		}
		reqs := doc.T.Security
		if raw.Security != nil {
			reqs = *raw.Security
		}
		for _, req := range reqs { // in the document's order: the first is the usual way
			names := make([]string, 0, len(req))
			for name := range req {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				ref := doc.T.Components.SecuritySchemes[name]
				if ref != nil && ref.Value != nil && !slices.Contains(op.Security, ref.Value) {
					op.Security = append(op.Security, ref.Value)
				}
			}
		}
		documented := item.Operations()
		for _, m := range candidateMethods {
			if _, ok := documented[m]; !ok {
				op.Others = append(op.Others, m)
			}
		}
		ops[op.ID] = op
		order = append(order, op.ID)
	}
	return ops, order, nil
}

// refKind says what kind of world id a parameter or property names.
type refKind int

const (
	refNothing refKind = iota
	refUser            // a user id
	refRoom            // a room id
	refMessage         // a message id of the room in the path
)

// refOf maps the names the document uses for ids to the world. Path
// parameters are named after what they identify; the list cursors and the
// mark-read list carry message ids.
func refOf(name string) refKind {
	switch name {
	case "userId":
		return refUser
	case "roomId":
		return refRoom
	case "messageId", "chatMessageId", "beforeId", "afterId", "aroundId", "chat":
		return refMessage
	}
	return refNothing
}
