// Package generate is the engine of generated requests: property-based
// checks of a Chat Rooms server over requests made from the OpenAPI
// document of a profile, in the manner of Schemathesis, with
// pgregory.net/rapid drawing the requests and shrinking failures.
//
// It is plain Go. A caller (the Ginkgo checks) builds an Engine from a
// validating client, a profile and a World (the ids to put in requests),
// then runs one property at a time:
//
//	w, err := generate.WorldFromTarget(ctx, c, desc)
//	e, err := generate.New(generate.Config{Client: c, Profile: p, World: w, Seed: seed, Writes: true})
//	rep, err := e.Run(ctx, generate.NoServerError)          // every operation
//	rep, err = e.Run(ctx, generate.ValidAnswer, "listMessages") // or some
//	for _, f := range rep.Failures() { ... f.Request, f.Problem, f.Reproduce ... }
//	if err := rep.Err(); err != nil { ... the target could not be judged ... }
//
// # Requests
//
// Everything varied comes from the document: the operations, their path,
// query and body parameters, their types, bounds, patterns, lengths,
// required and optional fields, whether a body object is closed, and the
// security schemes that say where a token goes. The only knowledge added by
// hand is which names carry ids of the world (refOf): userId, roomId,
// messageId and the message ids of the cursors and of the mark-read list.
//
// A request is the plain one (the caller's ids, a room and message the
// caller may use, values well inside their ranges) with at most one
// departure:
//
//   - an id the caller cannot use: another user's, an unknown one, "me", a
//     malformed one, a room the caller is not in, a message of another room
//     or of another author;
//   - a query value of the wrong type, above its maximum or below its
//     minimum, off its pattern, or an undocumented query parameter;
//   - a body that is malformed JSON, labelled with another media type, not
//     an object, missing a required field, with a field of the wrong type,
//     too short or too long (lengths in UTF-16 units), with too few items,
//     or with a field the schema does not name;
//   - a method the path does not document;
//   - no token, an unknown one, or a real one with one character changed or
//     its letter case changed, in each place the document allows.
//
// Valid values range over the bounds of every integer (for limit: 0, 1, 99,
// 100 and a random one; skip likewise up to 5000), every value of enums and
// booleans, optional fields present and absent, cursors naming messages of
// the room, of another room, or none, and texts of every kind: ASCII,
// accented Latin, CJK, emoji and other characters beyond the BMP, right-to-
// left scripts with direction marks, combining marks, markup characters,
// control characters, blank texts, and long texts up to the maximum.
//
// Each property first sends the coverage cases: the plain request, then
// every alternative of every decision it made, one at a time (each bound,
// each departure, each kind of text). Then rapid draws Config.Examples
// random requests, and shrinks a failing one to the smallest that still
// fails (within Config.ShrinkRuns runs, so a seed replays the same result
// on any machine). Coverage cases that GEN-NO-5XX and GEN-VALID-ANSWER both
// judge are sent once.
//
// # Properties
//
//	id                     profile    writes   holds when
//	GEN-NO-5XX             core       no       no answer is a 5xx (nor a dropped connection)
//	GEN-VALID-ANSWER       core       no       every 2xx matches the document; a valid request gets 2xx
//	                                           or a refusal the profile allows (table below)
//	GEN-NO-TOKEN-NO-DATA   core       no       no token, an unknown or altered one: never 2xx, never 5xx
//	                                           (a 2xx is reported under AUTH-REQUIRED or AUTH-UNKNOWN-TOKEN)
//	GEN-REFUSED-NO-CHANGE  core       no       after a 4xx, the targeted message, the room's newest
//	                                           page and the caller's unread items read as before
//	GEN-GET-NO-CHANGE      core       no       the same reads agree around a valid GET
//	GEN-ROUND-TRIP         core       yes      a text a send or an edit accepted reads back exactly
//	GEN-REF-ERROR          reference  no       one departure gets the profile's documented status and
//	                                           {"error": reason phrase}
//
// "writes: no" means the property also runs with writes off, over the GET
// operations and probes by HEAD and OPTIONS only. With writes on, every
// write stays in the write room, but for a valid hide of World.HideRoom,
// which stays hidden afterwards (leave HideRoom empty to send none).
//
// # When a valid request may be refused
//
// The core document states no error, so a refusal (any 4xx) of a valid
// request is allowed exactly where the document leaves the server room:
//
//	operation              2xx required when                            a 4xx is allowed when
//	getCurrentUser         always                                       never
//	list rooms, orgs,      userId is the caller's id                    userId is another user's, unknown,
//	  repos, channels                                                     "me", or not of the server's form
//	getUnreadItems         as above, and the room is the caller's       as above, or the room is not the
//	                                                                      caller's, unknown, malformed
//	markUnreadItemsRead    as above (the write room), and chat names    as above, or chat is empty or names
//	                         messages of that room                        unknown messages, others' or non-ids
//	hideUserRoom           as above, the room is World.HideRoom         as getUnreadItems
//	listMessages           a room of the caller; limit 0..100; skip     as getUnreadItems, or a negative
//	                         0..5000; one cursor naming a message of      number, a cursor naming no message
//	                         the room; any q                              of the room, two cursors or a
//	                                                                      cursor with q
//	getMessage             a message of the room                        a message of another room, unknown,
//	                                                                      malformed
//	sendMessage            the write room; a text with a character      a blank text, one longer than
//	                         other than white space, at most              CoreTextLimit units, or with
//	                         CoreTextLimit UTF-16 units, no control       control characters; a room not
//	                         characters; status absent, true or false     the caller's
//	updateMessage          as sendMessage, on the caller's own message  as sendMessage, or another user's
//	                         sent during the run                          message
//
// The reference profile replaces "a 4xx is allowed" by the status it
// documents (REF-USERID-OTHER 403, REF-USERID-ME 2xx, REF-NOT-FOUND 404,
// REF-EDIT-RULES 403; cursors naming no message of the room, blank texts
// and texts up to 4096 units get a 2xx), and requires that status.
// Requests with an undocumented query parameter or body field (where the
// schema does not close the object) are left open in both profiles: only
// no 5xx, a valid 2xx and no change after a refusal are required.
//
// # Requests in flight together
//
// Config.Parallel (default 8) bounds the requests in flight at once. The
// properties that judge each answer on its own (GEN-NO-5XX,
// GEN-VALID-ANSWER, GEN-NO-TOKEN-NO-DATA, GEN-REF-ERROR) send the cases
// of all the operations together, then take the answers in case order, so
// the failure reported for an operation is its first in case order, as
// with Parallel 1; their random examples are drawn by rapid first (in one
// goroutine), sent together, and a failing one is shrunk by rapid from the
// same seed. GEN-ROUND-TRIP does the same but for edits of one message,
// which keep their order. GEN-REFUSED-NO-CHANGE and GEN-GET-NO-CHANGE
// send their cases in rounds: the state the cases of a round read is read
// once before and once after, their requests go together in between, and
// a change seen is put to the second try of each case that saw it after
// the round, nothing else in flight, so that it is put only on a request
// that makes it again. A case whose state is outside the write room (where
// a change is put on the request without a second try), or whose request
// a correct server may accept and write for, has a round to itself. Their
// verdicts are those of Parallel 1; their request counts are not (a read
// serves the whole round). On a server whose refused requests or GETs
// change state, the second tries of the other cases of a round leave
// messages unread in the write room, so a property run after them on the
// same server may start from another state than in turn. parallel.go has
// the details, and what a failure costs in requests.
//
// # Running outside go test
//
// rapid.Check needs a rapid.TB and reads its seed and budget from global
// flags; see rapid.go for how the engine provides both. Runs of all
// engines of a process therefore take turns. The state properties assume
// no one else writes to the write room while a run is under way.
package generate
