// Package spec holds the contract of the Chat Rooms REST API: two OpenAPI
// 3.0 documents, a requirement catalogue, and the validation that the
// reference server's tests and the conformance suites share.
//
// # Two profiles, one source
//
// openapi.yaml is the core contract. It says what the API document says and
// nothing more: a server that made other choices where the API document is
// silent (another default limit, 422 errors, newest-first order) validates
// against it.
//
// The reference profile is not a second hand-kept copy. It is derived at load
// time by merging reference.overlay.yaml onto openapi.yaml with a small set of
// rules (see merge): mappings merge, a null deletes, a schema's required list
// is united with the core one, anything else replaces. The overlay therefore
// holds only the reference server's decisions (required room fields, error
// bodies per status, rate-limit headers, id patterns, success bodies), and a
// change to a core schema reaches both profiles at once. A merge that would
// delete a key the core document lacks fails loudly, so the overlay cannot
// silently drift from the document it patches.
//
// openapi.reference.yaml is the merge result written out for readers and
// linters. It is never read by code; TestReferenceDocumentIsInStep fails when
// it differs from a fresh merge (regenerate with
// `go test ./spec -run TestReferenceDocumentIsInStep -update`).
//
// # Validation
//
// Load parses and validates a profile's document once per process. A
// Validator routes a request to its operation (any host; the API may be
// mounted below a path prefix) and checks requests and responses with
// kin-openapi's openapi3filter, collecting every error and reporting statuses
// the operation does not document. Errors come back as Violations naming the
// operation, a JSON path, the rule and the offending value.
//
// # Requirements
//
// requirements.yaml lists every checkable statement of the API document with
// a stable id, its level and its section, plus each reference decision.
// Statements an outside client cannot check are listed too, with the reason.
package spec
