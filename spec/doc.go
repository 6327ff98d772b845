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
// kin-openapi reads nothing more of an answer whose status the operation does
// not document. When that status is a success and the operation documents
// exactly one success (201 for sendMessage, which documents 200), the answer
// is also read as that success: the result holds the status violation and
// then its headers' and body's own (a 204 or 205, which has no body, has its
// headers read so).
//
// Every answer goes through kin-openapi. A hand-written second JSON reader
// and schema validator once let the answers it found valid skip it (about
// 1,270 lines with its equivalence tests and fuzz targets). Measured on the
// project's 2-core machine on 2026-11-24, with and without, interleaved,
// under other engineers' load (load average 3 to 27), it saved less than the
// 15 % that would pay for keeping a twin of a dependency in step with it, so
// it was removed (issue 19):
//   - a default run (chatconform --seed N --json), 60 pairs: wall time median
//     1.22 s with, 1.34 s without (9 %; paired median 12 %); CPU time 0.87 s
//     against 0.97 s (10 %). Replaying one run's 1,702 answers: 29 ms of
//     validation CPU with it, 120 ms without.
//   - the self-test's 70 variants, 7 runs each: 57 s against 66 s wall
//     (13 %; paired median 5 %), 64 s against 71 s CPU (9 %).
//   - CI (go test -race ./...): validation weighs only in the packages that
//     make whole runs (the self-test's, cmd/chatconform's and
//     suites/conformance's tests), where it saved about a tenth as above
//     (under -race, 0.18 s of a run's validation); suites/client took 9 s
//     either way, and the quick path's own tests cost the spec package 5 s
//     (7.0 s against 1.6 s): at most about 4 % of CI's 7 minutes.
//
// # Requirements
//
// requirements.yaml lists every checkable statement of the API document with
// a stable id, its level and its section, plus each reference decision.
// Statements an outside client cannot check are listed too, with the reason.
package spec
