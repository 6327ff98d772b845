package generate

import (
	"net/http"
	"slices"

	"github.com/chatrooms/conformance/spec"
)

// mode says which requests a property wants.
type mode int

const (
	// modeAny: the plain request or one departure of any kind.
	modeAny mode = iota
	// modeMostlyValid: as modeAny, weighted towards valid requests.
	modeMostlyValid
	// modeValid: requests the document allows (ids may still name things
	// the caller cannot see).
	modeValid
	// modeToken: a missing, unknown or altered token, and at most one other
	// departure.
	modeToken
	// modeDefect: exactly one departure for which the reference profile
	// documents an answer; everything else plain.
	modeDefect
	// modeRoundTrip: valid requests with a plain path, varied bodies.
	modeRoundTrip
)

// CoreTextLimit is the text length (UTF-16 units) up to which a core server
// must accept a message. The API document states no maximum, so a server
// may refuse longer texts; a limit below this would refuse ordinary chat
// messages, which the document gives no room for.
const CoreTextLimit = 256

// Statuses the reference profile documents for ids (REF-USERID-OTHER,
// REF-NOT-FOUND, REF-EDIT-RULES), for tokens (REF-AUTH) and for methods.
const (
	refOtherUser  = http.StatusForbidden
	refNotFound   = http.StatusNotFound
	refNotAuthor  = http.StatusForbidden
	refBadRequest = http.StatusBadRequest
	refNoToken    = http.StatusUnauthorized
	refBadMethod  = http.StatusMethodNotAllowed
)

// builder makes one testCase for an operation.
type builder struct {
	w       World
	profile spec.Profile
	writes  bool
	op      *operation
	c       chooser
	mode    mode
	cs      *testCase
	plain   bool // non-defect values are plain: nothing a server may refuse
}

// defectKind is what a departure changes.
type defectKind int

const (
	dNone defectKind = iota
	dPathID
	dQueryWrongType
	dQueryAboveMax
	dQueryBelowMin
	dQueryPattern
	dQueryUnknown
	dBodyMalformed
	dBodyContentType
	dBodyMissing
	dBodyWrongType
	dBodyUnknownField
	dBodyMinLength
	dBodyMaxLength
	dBodyMinItems
	dBodyItem
	dBodyNotObject
	dMethod
	dToken
)

type defectChoice struct {
	kind  defectKind
	param string // path or query parameter, or body property
}

// build makes a case, or reports that the operation has none in this mode
// (a plain value it needs is missing from the world).
func (b *builder) build() (*testCase, bool) {
	b.cs = &testCase{op: b.op, method: b.op.Method, header: http.Header{}}
	b.plain = b.mode == modeDefect || b.mode == modeToken
	choices := b.defects()
	var d, second defectChoice
	switch b.mode {
	case modeToken:
		d = defectChoice{kind: dToken}
		others := append([]defectChoice{{kind: dNone}}, b.filter(choices, func(x defectChoice) bool {
			return x.kind == dQueryUnknown || x.kind == dBodyMalformed || x.kind == dBodyNotObject || x.kind == dBodyContentType
		})...)
		second = b.pickDefect("second defect", others, 4)
	default:
		if len(choices) == 0 {
			return nil, false
		}
		d = b.pickDefect("defect", choices, map[mode]int{modeAny: 2, modeMostlyValid: 6, modeValid: 2, modeDefect: 0}[b.mode])
	}
	if d.kind == dMethod {
		ms := b.allowedMethods()
		if len(ms) == 0 {
			return nil, false
		}
		b.cs.method = anyOf(b.c, "method", ms)
	}
	if !b.pathValues(d) || !b.queryValues(d) || !b.bodyValue(d) {
		return nil, false
	}
	b.tokenValue(d)
	if d.kind == dMethod {
		b.methodDefect()
	}
	if second.kind != dNone {
		b.apply(second)
	}
	return b.cs, true
}

// pickDefect picks among the departures; none (when offered) comes first
// with noneShare times the weight of all the others together, in quarters.
func (b *builder) pickDefect(label string, choices []defectChoice, noneShare int) defectChoice {
	weights := make([]int, len(choices))
	for i, ch := range choices {
		weights[i] = 4
		if ch.kind == dNone {
			weights[i] = max(1, noneShare*(len(choices)-1))
		}
	}
	return choices[b.c.pick(label, weights...)]
}

func (b *builder) filter(xs []defectChoice, keep func(defectChoice) bool) []defectChoice {
	var out []defectChoice
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// apply adds a second departure to a token case (modeToken). It only uses
// kinds that do not change what was already built in a way that matters.
func (b *builder) apply(d defectChoice) {
	switch d.kind {
	case dQueryUnknown:
		b.unknownQuery()
	case dBodyMalformed, dBodyNotObject, dBodyContentType:
		if b.cs.body != nil {
			b.bodyDefect(d, b.plainBody())
		}
	}
}

// defects lists the departures the operation offers in the builder's mode,
// in a fixed order; none comes first where it is allowed.
func (b *builder) defects() []defectChoice {
	if b.mode == modeRoundTrip {
		return []defectChoice{{kind: dNone}}
	}
	var out []defectChoice
	add := func(d defectChoice, class noteClass) {
		switch b.mode {
		case modeValid:
			if class != refusable {
				return
			}
		case modeDefect:
			if class == open {
				return
			}
		}
		out = append(out, d)
	}
	if b.mode != modeDefect && b.mode != modeToken {
		out = append(out, defectChoice{kind: dNone})
	}
	for _, p := range b.op.PathParams {
		if b.mode == modeValid && hasPattern(p.Schema) {
			// Only the well-formed id defects keep the request valid.
			if len(b.pathIDVariants(p, "", true)) == 0 {
				continue
			}
		}
		add(defectChoice{kind: dPathID, param: p.Name}, refusable)
	}
	for _, p := range b.op.Query {
		s := schemaOf(p.Schema)
		if s == nil {
			continue
		}
		if s.Type.Is("integer") || s.Type.Is("number") {
			add(defectChoice{kind: dQueryWrongType, param: p.Name}, invalid)
			if s.Max != nil {
				add(defectChoice{kind: dQueryAboveMax, param: p.Name}, invalid)
			}
			if s.Min != nil {
				add(defectChoice{kind: dQueryBelowMin, param: p.Name}, invalid)
			}
		}
		if s.Pattern != "" {
			add(defectChoice{kind: dQueryPattern, param: p.Name}, invalid)
		}
	}
	add(defectChoice{kind: dQueryUnknown}, open)
	if s := b.op.Body; s != nil {
		add(defectChoice{kind: dBodyMalformed}, invalid)
		add(defectChoice{kind: dBodyContentType}, invalid)
		add(defectChoice{kind: dBodyNotObject}, invalid)
		for _, name := range propertyNames(s) {
			ps := schemaOf(s.Properties[name])
			if slices.Contains(s.Required, name) {
				add(defectChoice{kind: dBodyMissing, param: name}, invalid)
			}
			add(defectChoice{kind: dBodyWrongType, param: name}, invalid)
			if ps.MinLength > 0 {
				add(defectChoice{kind: dBodyMinLength, param: name}, invalid)
			}
			if ps.MaxLength != nil {
				add(defectChoice{kind: dBodyMaxLength, param: name}, invalid)
			}
			if ps.Type.Is("array") {
				if ps.MinItems > 0 {
					add(defectChoice{kind: dBodyMinItems, param: name}, invalid)
				}
				add(defectChoice{kind: dBodyItem, param: name}, invalid)
			}
		}
		class := open
		if closed(s) {
			class = invalid
		}
		add(defectChoice{kind: dBodyUnknownField}, class)
	}
	if len(b.allowedMethods()) > 0 {
		add(defectChoice{kind: dMethod}, badMethod)
	}
	add(defectChoice{kind: dToken}, badToken)
	return out
}
