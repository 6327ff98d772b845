package selftest

import "strings"

// Why faults survive the core checks of today, by fault name. "weak check"
// marks a gap a stronger check can close; "attribution" a defect a check
// sees but blames on another requirement; "runner" a run the harness halts
// before any check. The matrix prints each beside its fault.
var survivorReasons = map[string]string{
	// weak check: no core check looks where the defect shows.
	"CHANNEL-LIST/too-wide":                "weak check: the channels list is not compared with the channels the user belongs to",
	"MSG-EDIT-EDITEDAT/stale-derived#2":    "weak check: editedAt after an edit must be a timestamp, not one later than sent",
	"ORG-LIST/too-wide":                    "weak check: the organisations list is not compared with the user's memberships; the description names none",
	"ORG-ROOM/shape#2":                     "weak check: the organisation room hint is not required to appear embedded in the organisations list",
	"ORG-ROOM/wrong-subject":               "weak check: embedded rooms are not matched to their organisation (names or hints)",
	"PAGE-SKIP/wrong-subject#2":            "weak check: skip is judged in windows bounded by cursors, where counting from either end agrees",
	"REPO-PRIVATE-GRANTED/wrong-subject#2": "weak check: the granted user of the description is the first user, the one this server favours",
	"REPO-ROOM/shape#2":                    "weak check: the repository room hint is not required to appear embedded in the repositories list",
	"REPO-ROOM/wrong-subject":              "weak check: embedded rooms are not matched to their repository",
	"ROOM-USER-ONLY-ONE-TO-ONE/shape#2":    "weak check: the user-only-on-one-to-one rule is judged on the rooms list only",
	"ROOM-USER-ONLY-ONE-TO-ONE/shape#3":    "weak check: the user-only-on-one-to-one rule is judged on the rooms list only",
	"USER-V-OPTIONAL/shape#2":              "weak check: USER-V-OPTIONAL is judged on GET /v1/user only, not on a message's fromUser",
	"MSG-SHAPE/shape#4":                    "weak check: MSG-SHAPE is judged on a sent message without URLs, so plain-string urls never reach it",

	// attribution: a check sees the defect, and blames it on another
	// requirement than the one it breaks (ELSEWHERE, or BLOCKED by it).
	"CHANNEL-LIST/wrong-subject": "attribution: the repository rooms in the channels list carry userCount, and the channels check judges userCount before platformType, so CHANNEL-NO-USERCOUNT fails instead of CHANNEL-LIST",
	"MSG-LIST/shape#2":           "attribution: list items that are not messages are blamed on MSG-META-EMPTY (their first missing field the check verifies), not MSG-LIST",
	"MSG-SHAPE/shape#5":          "attribution: missing urls are blamed on META-URLS and block the send check; presence of every field but status is MSG-SHAPE's (--full: a META-URLS check fails for it)",
	"ROOM-LIST/shape#3":          "attribution: list items that are not rooms (no id) are blamed on ROOM-SHAPE, not ROOM-LIST",
	"UNREAD-READBY/shape":        "attribution: a string readBy is blamed on MSG-SHAPE, which blocks the mark-read check that verifies UNREAD-READBY (--full: a MSG-SHAPE check fails for it)",
}

// intermittentReason is why an intermittent fault may survive: the checks
// read each answer a few times only, and the defective one in N may fall
// on requests whose answer no check examines.
const intermittentReason = "intermittent: the defect shows on one answer in N; the checks read this answer few times, and the defective one fell on a request no check examines"

func survivalReason(f Fault) string {
	if r, ok := survivorReasons[f.Name]; ok {
		return r
	}
	if f.Class == Intermittent && strings.Contains(f.What, "one ") {
		return intermittentReason
	}
	return ""
}
