package conformance

import (
	"regexp"
	"strings"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// operationRequirement is the requirement an operation's plain success
// stands for: what a check that needed the operation as a step was blocked
// by when the operation refused or answered the wrong status.
var operationRequirement = map[string]string{
	"getCurrentUser":      "USER-GET-ARRAY",
	"listUserRooms":       "ROOM-LIST",
	"hideUserRoom":        "ROOM-HIDE",
	"getUnreadItems":      "UNREAD-SHAPE",
	"markUnreadItemsRead": "UNREAD-MARK-READ",
	"listUserOrgs":        "ORG-LIST",
	"listUserRepos":       "REPO-LIST",
	"listUserChannels":    "CHANNEL-LIST",
	"listMessages":        "MSG-LIST",
	"sendMessage":         "MSG-SEND-200",
	"getMessage":          "MSG-GET-ONE",
	"updateMessage":       "MSG-EDIT",
}

// structural reports whether a violation says the answer is not what the
// operation returns at all (a refusal, not a list, an item of another
// kind): it explains every other violation of the same answer.
func structural(op string, v spec.Violation) bool {
	r := blame(op, v)
	return r != "" && r == operationRequirement[op]
}

var arrayIndex = regexp.MustCompile(`\[\d+\]`)

// blame names the requirement a violation of the document breaks, from
// the operation and where in the exchange it sits, so a failure is counted
// against the requirement it is about: a wrong issue number in a sent
// message is a META-ISSUES failure, not a failure to send.
func blame(op string, v spec.Violation) string {
	switch v.Rule {
	case "cut": // the note that more violations were left out: the shown ones answer
		return ""
	case "status", "route", "security":
		return operationRequirement[op]
	case "content-type":
		return "HTTP-JSON-CONTENT-TYPE"
	case "decode":
		return "HTTP-JSON-BODY"
	}
	// $[3].fromUser.v -> fromUser.v ; $.issues[0].number -> issues.number
	path := strings.TrimPrefix(arrayIndex.ReplaceAllString(v.Location, ""), "$")
	path = strings.TrimPrefix(path, ".")
	first, rest, _ := strings.Cut(path, ".")
	if op != "getCurrentUser" {
		// A field of a user embedded anywhere (a message's sender, the other
		// participant of a one-to-one room) is the user's shape.
		for _, in := range []string{"fromUser.", "user.", "room.user."} {
			if field, ok := strings.CutPrefix(path, in); ok && field != "" {
				if field == "v" {
					return "USER-V-OPTIONAL"
				}
				return "USER-SHAPE"
			}
		}
	}
	switch op {
	case "getCurrentUser":
		switch {
		case path == "":
			return "USER-GET-ARRAY"
		case first == "v":
			return "USER-V-OPTIONAL"
		}
		return "USER-SHAPE"
	case "listUserRooms", "listUserChannels":
		list := map[string]string{"listUserRooms": "ROOM-LIST", "listUserChannels": "CHANNEL-LIST"}[op]
		switch {
		case v.Location == "$", path == "id" && v.Rule == "required":
			return list // not a list, or an item that is not a room at all
		case path == "" && v.Rule == "not" && op == "listUserChannels":
			return "CHANNEL-NO-USERCOUNT" // the one thing a channel must not carry
		case path == "":
			return "ROOM-SHAPE"
		case first == "platformType" && op == "listUserChannels":
			return "CHANNEL-LIST"
		case first == "platformType":
			return "ROOM-PLATFORM-TYPE"
		case first == "userCount" && op == "listUserChannels":
			return "CHANNEL-NO-USERCOUNT"
		case first == "security" && op == "listUserChannels":
			return "CHANNEL-SECURITY"
		case first == "user" && rest == "":
			return "ROOM-USER-ONLY-ONE-TO-ONE"
		case first == "uri":
			return "ROOM-ONE-TO-ONE"
		}
		return "ROOM-SHAPE"
	case "listUserOrgs", "listUserRepos":
		entry := map[string]string{"listUserOrgs": "ORG", "listUserRepos": "REPO"}[op]
		switch {
		case first == "room" && rest == "platformType" && v.Rule == "enum":
			return "ROOM-PLATFORM-TYPE" // no platform type at all
		case first == "room" && (rest == "" || rest == "id" || rest == "platformType"):
			return entry + "-ROOM" // no room, or not the entry's room
		case first == "room":
			// Any other field of the embedded room is judged as in a rooms list.
			return blame("listUserRooms", spec.Violation{Location: "$[0]." + rest, Rule: v.Rule})
		}
		return entry + "-LIST"
	case "getUnreadItems":
		return "UNREAD-SHAPE"
	case "listMessages", "getMessage", "sendMessage", "updateMessage":
		if path == "" && v.Rule == "type" && op != "listMessages" || path == "id" && v.Rule == "required" {
			// Not a message at all: the operation did not answer with one,
			// or the list holds something else.
			return operationRequirement[op]
		}
		// The fields a send or an edit states values for answer to those
		// statements.
		switch {
		case first == "readBy" && v.Rule == "type":
			return "UNREAD-READBY" // not a count at all, whatever its value
		case first == "unread" && v.Rule == "type":
			return "UNREAD-FLAG"
		case op == "sendMessage" && (first == "v" || first == "unread" || first == "readBy"):
			return "MSG-SEND-DEFAULTS"
		case op == "sendMessage" && first == "editedAt":
			return "MSG-SEND-EDITEDAT-NULL"
		case op == "updateMessage" && first == "editedAt":
			return "MSG-EDIT-EDITEDAT"
		case op == "updateMessage" && first == "v":
			return "MSG-EDIT-V-INC"
		case first == "readBy":
			return "UNREAD-READBY"
		case first == "unread":
			return "UNREAD-FLAG"
		}
		switch first {
		case "":
			if op == "listMessages" {
				return "MSG-LIST"
			}
			return "MSG-SHAPE"
		case "meta":
			return "MSG-META-EMPTY"
		case "gv":
			return "MSG-NO-GV"
		case "issues", "mentions", "urls":
			if rest == "" {
				// The lists and their items being objects are the message's
				// shape; what an item says is the metadata's own statement.
				return "MSG-SHAPE"
			}
			return map[string]string{"issues": "META-ISSUES", "mentions": "META-MENTIONS", "urls": "META-URLS"}[first]
		}
		return "MSG-SHAPE"
	}
	return operationRequirement[op]
}

// Blame names the requirement a violation of operation op breaks (see
// blame): what a recorded exchange's violations count against when a run
// is judged again from its record.
func Blame(op string, v spec.Violation) string { return blame(op, v) }

// ShapeRoot is the requirement that answers alone for an answer's
// violations when one of them says the body is not what the operation
// returns at all (not a list, an item that is no message): every other
// violation of that body follows from it. "" when none says so. A wrong
// status is left out: the body may still be the right kind.
func ShapeRoot(x *client.Exchange, p spec.Profile) string {
	for _, v := range x.Violations {
		if v.Rule != "status" && v.Rule != "route" && v.Rule != "security" && DocumentBlame(x, v, p) != "" && structural(x.Operation, v) {
			return operationRequirement[x.Operation]
		}
	}
	return ""
}

// DocumentBlame is the requirement the document checker reports a
// violation of a recorded exchange under, at profile p ("" when it reports
// none): only the answer's violations count, and at core not the status
// of a deliberately invalid request, which the document leaves open.
func DocumentBlame(x *client.Exchange, v spec.Violation, p spec.Profile) string {
	if v.Side != "response" || (x.Invalid && p == spec.Core && v.Rule == "status") {
		return ""
	}
	return blame(x.Operation, v)
}
