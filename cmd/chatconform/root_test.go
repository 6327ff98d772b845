package main

import (
	"maps"
	"slices"
	"testing"
)

// A lost write is the root of what it undermines: against a server that
// acknowledges sends and never stores them, the search check (which sends
// a message and looks for it) does not fail SEARCH-Q; it is blocked by
// MSG-SEND-STORED, which fails, once, with the finding's signature. And
// against a server whose search ignores its query, the same check still
// fails SEARCH-Q: the ground under it held.
func TestALostWriteIsTheRootOfTheChecksItUndermines(t *testing.T) {
	if testing.Short() {
		t.Skip("two core runs")
	}
	type check struct {
		Name      string   `json:"name"`
		IDs       []string `json:"ids"`
		Outcome   string   `json:"outcome"`
		BlockedBy string   `json:"blockedBy"`
		Signature string   `json:"signature"`
	}
	type report struct {
		Requirements []struct {
			ID      string  `json:"id"`
			Verdict string  `json:"verdict"`
			Checks  []check `json:"checks"`
		} `json:"requirements"`
	}
	run2 := func(t *testing.T, fault, filter string) map[string][]check {
		var rep report
		runPlanted(t, fault, filter, &rep)
		verdicts := map[string][]check{}
		for _, q := range rep.Requirements {
			verdicts[q.ID+" "+q.Verdict] = q.Checks
		}
		return verdicts
	}
	run := func(t *testing.T, fault string) map[string][]check {
		return run2(t, fault, "SEARCH-Q && !MSG-ROOM-SCOPE")
	}
	t.Run("lost", func(t *testing.T) {
		t.Parallel()
		v := run(t, "MSG-SEND-STORED/not-stored")
		if _, ok := v["SEARCH-Q FAIL"]; ok {
			t.Errorf("SEARCH-Q fails, though the messages it looks for were never stored: %+v", v["SEARCH-Q FAIL"])
		}
		by := ""
		for _, c := range v["SEARCH-Q BLOCKED"] {
			if c.Outcome == "BLOCKED" {
				by = c.BlockedBy
			}
		}
		if by != "MSG-SEND-STORED" {
			t.Errorf("SEARCH-Q is not blocked by MSG-SEND-STORED: %+v", v["SEARCH-Q BLOCKED"])
		}
		var sigs []string
		for _, c := range v["MSG-SEND-STORED FAIL"] {
			if c.Outcome == "FAIL" && !slices.Contains(sigs, c.Signature) {
				sigs = append(sigs, c.Signature)
			}
		}
		if len(sigs) != 1 || sigs[0] == "" {
			t.Errorf("MSG-SEND-STORED does not fail under one signature: %q in %+v", sigs, v["MSG-SEND-STORED FAIL"])
		}
	})
	// Answers a check builds on that break the ground under it: the
	// requirement broken there fails, and the checks it undermined do not
	// fail their own requirements for it.
	for _, c := range []struct {
		name, fault, filter string
		root                string   // the requirement that must fail
		spared              []string // those that must not
		why                 string
		blocked             []string // of the spared, those that must be BLOCKED by root
		judged              []string // of the spared, those that must PASS: the root blocked none of their checks
	}{
		// These checks read back by id what they send, a step of MSG-GET-ONE.
		{"steps", "MSG-SEND-STORED/not-stored", "MSG-SEND-DEFAULTS || MSG-EDIT-V-INC", "MSG-SEND-STORED",
			[]string{"MSG-GET-ONE"}, "the messages it read back were never stored", nil, nil},
		// The generated requests name the messages the engine sent.
		{"generated", "MSG-SEND-STORED/not-stored", "GEN-VALID-ANSWER", "MSG-SEND-STORED",
			[]string{"GEN-VALID-ANSWER"}, "the message its requests named was never stored", nil, nil},
		// The searches (the model's and the room scope check's) miss others' messages.
		{"shown to its sender only", "MSG-SEND-STORED/not-stored#2", "SEARCH-Q", "MSG-SEND-STORED",
			[]string{"SEARCH-Q"}, "the messages it missed were lost to the searcher", nil, nil},
		// The unread checks count on user 2's message being unread for user 1.
		{"sent as another user", "MSG-SEND-TEXT/wrong-subject", "UNREAD-CHAT || UNREAD-FLAG", "MSG-SEND-TEXT",
			[]string{"UNREAD-CHAT", "UNREAD-FLAG", "UNREAD-MARK-READ"}, "the messages it counted on were answered as another sender's", nil, nil},
		// An edit whose answer is the room's newest message.
		{"edit answered with another message", "MSG-EDIT/wrong-subject#2", "SEARCH-Q || RENDER-LINK", "MSG-EDIT",
			[]string{"SEARCH-Q", "RENDER-LINK", "RENDER-ISSUE", "META-URLS", "META-ISSUES", "META-MENTIONS"}, "the answer it was held to was another message's", nil, nil},
		// Reads by id that fail once a message is edited, though the room
		// lists it: the read's breach, not a lost edit.
		{"listed but not found by id", "MSG-GET-ONE/not-stored#3", "MSG-EDIT-PERSISTED || GEN-ROUND-TRIP || HTTP-V1-PREFIX", "MSG-GET-ONE",
			[]string{"MSG-EDIT-PERSISTED", "GEN-ROUND-TRIP", "MSG-SEND-STORED", "HTTP-V1-PREFIX"}, "the room lists the message", nil, nil},
		// An edit applied to the message after the one named, and answered
		// with it: the named message keeps its text (an edit not kept), and
		// the edits refused because the next message is another user's are
		// MSG-EDIT's, not lost sends or marks.
		{"an edit stored on the next message", "MSG-EDIT-PERSISTED/wrong-subject", "MSG-EDIT-PERSISTED || MSG-EDIT-V-INC", "MSG-EDIT-PERSISTED",
			[]string{"MSG-SEND-STORED", "UNREAD-MARK-READ", "MSG-EDIT-V-INC"}, "the edits were applied to another message", nil, nil},
		// A list whose items are each wrapped in an object: no page at all,
		// not a page of messages that break their shape or repeat.
		{"a list of something else", "MSG-LIST/shape#2", "PAGE-UNIQUE || SEARCH-Q || MSG-SHAPE || MSG-META-EMPTY", "MSG-LIST",
			[]string{"PAGE-UNIQUE", "SEARCH-Q", "MSG-SHAPE", "MSG-META-EMPTY", "MSG-GET-ONE"}, "the list held no messages at all", nil, nil},
		// A valid request refused with a status the document does not give
		// the operation: the status is the operation's (the document
		// checker's finding), and the generated property that met it is
		// blocked by it, not failed beside it.
		{"a valid request refused with an undocumented status", "GEN-NO-5XX/shape#3", "GEN-VALID-ANSWER", "MSG-SEND-200",
			[]string{"GEN-VALID-ANSWER"}, "the status is the send's, which the document checker reports", []string{"GEN-VALID-ANSWER"}, nil},
		// GET /v1/user answers another user than the description gives the
		// token: who the caller is is unknown, and the senders and one-to-one
		// rooms the history checker would judge by it are not judged.
		{"the current user answered as another", "AUTH-CURRENT-USER/wrong-subject#2", "AUTH-CURRENT-USER || MSG-SEND-TEXT || ROOM-ONE-TO-ONE || ROOM-STABLE", "AUTH-CURRENT-USER",
			[]string{"MSG-SEND-TEXT", "ROOM-ONE-TO-ONE", "ROOM-STABLE"}, "the history checker took the answer's user for the caller", nil, nil},
		// A list of another shape one time in a few is no change of state.
		{"a state read of another shape", "MSG-LIST/intermittent", "GEN-GET-NO-CHANGE || GEN-REFUSED-NO-CHANGE", "MSG-LIST",
			[]string{"GEN-GET-NO-CHANGE", "GEN-REFUSED-NO-CHANGE"}, "the read that differed broke the document", nil, nil},
		// A null where a list belongs names nothing: the checks that read
		// the list go on with it empty, and are judged.
		{"unread lists null when empty", "UNREAD-SHAPE/shape#5", "UNREAD-CHAT || UNREAD-MARK-READ", "UNREAD-SHAPE",
			[]string{"UNREAD-CHAT", "UNREAD-MARK-READ", "UNREAD-READBY", "UNREAD-FLAG"}, "an empty list given as null is read as empty", nil,
			[]string{"UNREAD-CHAT", "UNREAD-MARK-READ", "UNREAD-READBY", "UNREAD-FLAG"}},
		{"the rooms list always null", "ROOM-LIST/shape#2", "HTTP-GET-SAFE || AUTH-BEARER", "ROOM-LIST",
			[]string{"HTTP-GET-SAFE", "AUTH-BEARER"}, "the checks need no room of the list", nil, []string{"HTTP-GET-SAFE", "AUTH-BEARER"}},
		// A send answered with no message, though stored: the checks find
		// it in the room and go on, and the model's sequences too.
		{"a send answered 202 with no body", "MSG-SEND-200/shape#2", "SEARCH-Q || RENDER-LINK", "MSG-SEND-200",
			[]string{"SEARCH-Q", "RENDER-LINK"}, "the messages were stored and found in the room", nil, []string{"SEARCH-Q", "RENDER-LINK"}},
		// Pages of another shape block the model's area of sends, edits
		// and reads by id where it pages; drawn again without pages, it
		// judges the rest.
		{"pages wrapped in an object", "MSG-LIST/shape", "MSG-SEND-STATUS || MSG-EDIT-EDITEDAT", "MSG-LIST",
			[]string{"MSG-SEND-STATUS", "MSG-EDIT-EDITEDAT"}, "sends and edits are judged on their answers", nil, []string{"MSG-SEND-STATUS", "MSG-EDIT-EDITEDAT"}},
		// A read by id that marks the message read: the unread checks that
		// read messages by id find them read, which is the read's breach.
		{"a read by id marks read", "HTTP-GET-SAFE/collateral", "UNREAD-FLAG || UNREAD-MARK-READ", "HTTP-GET-SAFE",
			[]string{"UNREAD-FLAG", "UNREAD-MARK-READ"}, "the messages were marked read by reading them", []string{"UNREAD-FLAG", "UNREAD-MARK-READ"}, nil},
		// A beforeId that answers the messages after the cursor: the skip
		// and limit checks read windows bounded by beforeId.
		{"beforeId answers newer messages", "PAGE-BEFOREID/wrong-subject", "PAGE-SKIP || LIMIT-100", "PAGE-BEFOREID",
			[]string{"PAGE-SKIP", "LIMIT-100"}, "their windows were bounded by a beforeId that answers newer messages", []string{"PAGE-SKIP", "LIMIT-100"}, nil},
		// ... but a hide is judged on a list that held the room first.
		{"no hide judged on a null rooms list", "ROOM-LIST/shape#2", "ROOM-HIDE", "ROOM-LIST",
			[]string{"ROOM-HIDE"}, "a null list shows no room to take out", []string{"ROOM-HIDE"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := run2(t, c.fault, c.filter)
			for _, id := range c.spared {
				if rows, ok := v[id+" FAIL"]; ok {
					t.Errorf("%s fails, though %s: %+v", id, c.why, rows)
				}
				// Spared means judged, blocked by a named root, or not
				// met by the checks the filter runs; not left unjudged
				// by an error.
				for _, verdict := range []string{"ERROR", "INCONCLUSIVE"} {
					if rows, ok := v[id+" "+verdict]; ok {
						t.Errorf("%s is %s, neither judged nor blocked: %+v", id, verdict, rows)
					}
				}
				for _, q := range v[id+" BLOCKED"] {
					if q.Outcome == "BLOCKED" && q.BlockedBy == "" {
						t.Errorf("%s: check %q blocked by nothing named", id, q.Name)
					}
				}
			}
			for _, id := range c.blocked {
				if !slices.ContainsFunc(v[id+" BLOCKED"], func(q check) bool { return q.Outcome == "BLOCKED" && q.BlockedBy == c.root }) {
					t.Errorf("%s is not BLOCKED by %s: %v", id, c.root, slices.Sorted(maps.Keys(v)))
				}
			}
			for _, id := range c.judged {
				if _, ok := v[id+" PASS"]; !ok {
					t.Errorf("%s does not PASS: %v", id, slices.Sorted(maps.Keys(v)))
				}
			}
			if _, ok := v[c.root+" FAIL"]; !ok {
				t.Errorf("%s does not fail: %+v", c.root, slices.Sorted(maps.Keys(v)))
			}
		})
	}
	t.Run("search ignores q", func(t *testing.T) {
		t.Parallel()
		v := run(t, "SEARCH-Q/ignores-input")
		if _, ok := v["SEARCH-Q FAIL"]; !ok {
			t.Errorf("SEARCH-Q does not fail against a search that ignores q: %+v", slices.Sorted(maps.Keys(v)))
		}
		if _, ok := v["MSG-SEND-STORED FAIL"]; ok {
			t.Errorf("MSG-SEND-STORED fails, though every send was stored: %+v", v["MSG-SEND-STORED FAIL"])
		}
	})
}
