package selftest

import "strings"

// Why faults survive the core checks of today, by fault name. "not
// observable" marks a defect no client can tell from a right answer with
// what the document states; "weak check" a gap a stronger check can close;
// "attribution" a defect a check sees but blames on another requirement.
// The matrix prints each beside its fault.
var survivorReasons = map[string]string{
	"PAGE-AFTERID/ignores-input#2":  "not a statement: the document lists each parameter on its own and says nothing of a cursor combined with q; a server that searches the whole room whatever the cursor answers the search it was asked (accepted reading, PAGE-AFTERID's catalogue reason)",
	"PAGE-BEFOREID/ignores-input#3": "not a statement: the document lists each parameter on its own and says nothing of a cursor combined with q; a server that searches the whole room whatever the cursor answers the search it was asked (accepted reading, PAGE-BEFOREID's catalogue reason)",
	"CHANNEL-LIST/too-wide":         "not observable: the document gives a client no way to learn which channels are a user's other than the channels list itself (members are not listed, and user 2 may share every channel of user 1)",
	"ORG-LIST/too-wide":             "not observable: the document gives a client no way to learn which organisations a user is in other than the organisations list itself; an extra entry without a room looks like any other",
	"ORG-ROOM/wrong-subject":        "not observable: nothing the document states ties a room to its organisation but the embedding itself (no field of a room names its organisation), so rooms swapped between a user's organisations look right",
	"REPO-ROOM/wrong-subject":       "not observable: nothing the document states ties a room to its repository but the embedding itself (a room's uri is not said to be the repository's), so rooms swapped between a user's repositories look right",
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
