// Package model is an executable model of the chat rooms API: what the API
// description states about messages, their versions, the unread state of
// each user and the pages of a room, as a state the harness keeps while it
// drives a target, and for every operation the answers that state allows.
//
// A run draws random sequences of operations by every described user who
// may write in the write room — send (with and without the optional status
// flag, with the required text left out), edit (own and others' messages,
// through the message's own room and through another), read by id (the
// right room, another room, an id that does not exist), mark read (one or
// several ids, already read ones, through another room; then, now and
// again, a third user marks the same message and every other user reads it
// by id, in a page and in their unread list), read the unread lists, list
// the room with every combination of beforeId, afterId, aroundId and limit
// around the oldest, the newest and a middle message, and with no query
// parameter at all (the server's default limit), search for one word and
// for two words one message holds side by side — with texts that now and
// again hold a tab, a CR LF line break and a link with capitals in its
// path — and holds each answer to the model. A failing sequence is shrunk to the
// shortest one that still fails with the same requirement and reported with
// its operations and exchanges; the same seed draws the same sequences.
//
// The model predicts only what the description states. Its freedoms are
// explicit:
//
//   - order: pages may come in any order; "before" and "after" follow the
//     order in which this run's sends were acknowledged (each send ends
//     before the next starts), never the order of a page or tied times;
//   - the default limit is unknown: pages without limit are held only to
//     what every default satisfies (the newest messages, none of another
//     room, at most 100, not none when the room holds a message);
//   - how several words in q combine is not stated (all of them, any, a
//     phrase): a search of two words is held to what every reading keeps
//     (the message holding both side by side is found, each hit once, and
//     every hit holds one of the words);
//   - error statuses and bodies are free: a request the description does
//     not define (two cursors at once, a cursor that does not exist, a
//     message read through another room, a repeated mark read, a non-author
//     edit) may be refused with any 4xx, and what the model learns from a
//     refusal is that nothing changed; a 5xx is never an answer;
//   - what a server does with another room's ids in a mark read is not
//     stated: those messages' read state for that user becomes unknown;
//   - unread state and readBy may lag a write by Config.Eventually;
//   - a world the run did not create: messages the sequence did not send
//     may appear in any page (older history, other writers). With
//     SoleWriter (the bundled server) they are older than every message the
//     sequence sent; without it they are placed by their sent time only
//     where it differs, and other clients may raise readBy and v.
//
// Package model imports only the validating client: it is a judge of
// answers, and the conformance checks run it as one check per area.
package model
