package reference

import (
	"sort"
	"time"
)

// Variant is a conforming alternative: the reference server with another
// choice on a point the API document leaves open. The core profile must
// pass every variant; tests and chatconform's self-test prove it.
type Variant struct {
	Name, What string
}

var variantList = []Variant{
	{"newest-first", "lists messages newest first"},
	{"default-limit-20", "returns 20 messages when no limit is given"},
	{"errors-422", "answers 422 instead of 400, and every error as {\"message\": ...}"},
	{"empty-object-bodies", "answers {} to hiding a room and marking messages read"},
	{"no-content", "answers 204 without a body to hiding a room and marking messages read"},
	{"prefixed-ids", "uses ids of the form id-<hex> instead of bare hex"},
	{"limit-over-100-rejected", "refuses a limit above 100 with 400 instead of clamping it"},
	{"search-newest-first", "returns search results newest first"},
	{"eventual", "makes new messages visible to search and unread state one second late"},
	{"minimal-rooms", "sends rooms with only the fields the document requires of them"},
	{"status-omitted", "leaves status out of messages that are not status updates"},
	{"users-with-v", "sends v on every user"},
}

// Variants lists every variant, by name.
func Variants() []Variant {
	out := append([]Variant(nil), variantList...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupVariant returns the variant of the given name.
func LookupVariant(name string) (Variant, bool) {
	for _, v := range variantList {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// eventualLag is how late the "eventual" variant shows new messages.
const eventualLag = time.Second
