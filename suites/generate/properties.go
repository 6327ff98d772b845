package generate

import "github.com/chatrooms/conformance/spec"

// Requirement ids of the generated checks. Each is one property the engine
// tests over many generated requests; the catalogue entry of each is
// Properties()[i].
const (
	NoServerError   = "GEN-NO-5XX"
	ValidAnswer     = "GEN-VALID-ANSWER"
	NoTokenNoData   = "GEN-NO-TOKEN-NO-DATA"
	RefusedNoChange = "GEN-REFUSED-NO-CHANGE"
	GetNoChange     = "GEN-GET-NO-CHANGE"
	RoundTrip       = "GEN-ROUND-TRIP"
	ReferenceError  = "GEN-REF-ERROR"
)

// Requirements of the document a generated property's failure may belong
// to (Property.Owners): the generated check reports a failure under the
// requirement whose statement it breaks, where one owns it.
const (
	AuthRequired     = "AUTH-REQUIRED"
	AuthUnknownToken = "AUTH-UNKNOWN-TOKEN"
)

// Property describes one generated check.
type Property struct {
	ID string
	// Profile is the least strict profile the property belongs to: a core
	// property runs in both profiles, a reference one only in reference.
	Profile spec.Profile
	// Writes is true when the property cannot be checked without requests
	// that change state (always inside the write room): it is skipped
	// unless Config.Writes is set. The other properties leave out the
	// operations that write when Config.Writes is false.
	Writes bool
	// Text is the requirement in one line, for the catalogue.
	Text string
	// Owners are the document's requirements a failure of the property
	// may break more precisely than the property itself (Failure.Requirement
	// names which): a request without a token answered 2xx breaks
	// AUTH-REQUIRED, whoever found it.
	Owners []string
}

var properties = []Property{
	{ID: NoServerError, Profile: spec.Core,
		Text: "No generated request, valid or not, is answered with a 5xx status."},
	{ID: ValidAnswer, Profile: spec.Core,
		Text: "Every 2xx answer to a generated request matches the document, and a request the document allows gets 2xx unless the profile lets the server refuse it."},
	{ID: NoTokenNoData, Profile: spec.Core, Owners: []string{AuthRequired, AuthUnknownToken},
		Text: "A generated request without a token, or with an unknown or altered token, is never answered 2xx or 5xx."},
	{ID: RefusedNoChange, Profile: spec.Core,
		Text: "A generated request answered 4xx leaves the targeted message, the room's newest page and the caller's unread items as they were."},
	{ID: GetNoChange, Profile: spec.Core,
		Text: "A valid generated GET leaves the targeted message, the room's newest page and the caller's unread items as they were."},
	{ID: RoundTrip, Profile: spec.Core, Writes: true,
		Text: "A message sent or edited with any valid generated text reads back by id with exactly that text."},
	{ID: ReferenceError, Profile: spec.Reference,
		Text: "A generated request with one defect gets the reference profile's documented status and {\"error\": reason phrase} body."},
}

// Properties lists every property, in the order Run reports them.
func Properties() []Property { return append([]Property(nil), properties...) }

// PropertyByID returns the property with the given id.
func PropertyByID(id string) (Property, bool) {
	for _, p := range properties {
		if p.ID == id {
			return p, true
		}
	}
	return Property{}, false
}

// InProfile reports whether the property is judged in profile p.
func (p Property) InProfile(profile spec.Profile) bool {
	return p.Profile == spec.Core || p.Profile == profile
}
