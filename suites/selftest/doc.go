// Package selftest proves the checks against servers written on purpose:
// the reference server, unmodified, wrapped in decorators that rewrite
// requests and answers or make extra calls. A planted fault breaks one
// requirement and must be caught on it; a conforming variant makes another
// choice where the API document is silent and must pass the core profile.
// Run runs them all and returns the kill matrix.
//
// # Where a fault or variant is declared
//
// Faults and variants are declared by the area of the API they concern,
// one file an area, after the files of the checks in suites/conformance. A
// fault goes to the file its requirement id's prefix names (the test
// TestFaultsAreDeclaredInTheFileOfTheirRequirement reads this table):
//
//	HTTP- AUTH-                  transport.go
//	USER-                        user.go
//	ROOM- CHANNEL- ORG- REPO-    rooms.go
//	UNREAD-                      unread.go
//	MSG-                         messages.go
//	RENDER- META-                rendering.go
//	PAGE- LIMIT-                 pagination.go
//	SEARCH-                      search.go
//	GEN-                         generated.go
//
// Each of these files holds its area's faults (transportFaults, ...), by
// requirement in catalogue order, then by class, then by number; its
// variants (transportVariants, ...); and the steps only they use. A variant
// goes to the file of the area its choice concerns; those on how values are
// written, which no one area owns (ids, timestamps, the layout of the JSON
// text), go to variants_encoding.go. Steps several areas use are in
// vocab.go (steps on named operations, the state a decorated server keeps,
// JSON and list helpers) and query.go (the query of a message list).
//
// # Names and origins
//
// A fault is named REQUIREMENT-ID/class, with #2, #3 ... for the second and
// later faults of one class for one requirement, and the whole name is
// written where the fault is declared: moving a declaration changes
// nothing, and a new fault takes the next number free. Every fault and
// variant also records its Origin, the round of work that wrote it (the
// first catalogue, faults by class, the rounds written without reading the
// checks, ...); the matrix does not show it.
package selftest
