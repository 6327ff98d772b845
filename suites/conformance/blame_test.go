package conformance

import (
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/generate"
)

func TestBlameNamesTheRequirementAViolationBreaks(t *testing.T) {
	for _, tc := range []struct {
		op   string
		v    spec.Violation
		want string
	}{
		{"sendMessage", spec.Violation{Location: "$.issues[0].number", Rule: "type"}, "META-ISSUES"},
		{"getMessage", spec.Violation{Location: "$.meta", Rule: "maxProperties"}, "MSG-META-EMPTY"},
		{"listMessages", spec.Violation{Location: "$[4].fromUser.v", Rule: "type"}, "USER-V-OPTIONAL"},
		{"listMessages", spec.Violation{Location: "$", Rule: "type"}, "MSG-LIST"},
		{"listMessages", spec.Violation{Location: "$[0].sent", Rule: "pattern"}, "MSG-SHAPE"},
		{"sendMessage", spec.Violation{Location: "status", Rule: "status"}, "MSG-SEND-200"},
		{"sendMessage", spec.Violation{Location: "$.id", Rule: "required"}, "MSG-SEND-200"},
		{"updateMessage", spec.Violation{Location: "$", Rule: "type"}, "MSG-EDIT"},
		{"getMessage", spec.Violation{Location: "$.text", Rule: "required"}, "MSG-SHAPE"},
		{"sendMessage", spec.Violation{Location: "$.v", Rule: "minimum"}, "MSG-SEND-DEFAULTS"},
		{"sendMessage", spec.Violation{Location: "$.editedAt", Rule: "required"}, "MSG-SEND-EDITEDAT-NULL"},
		{"updateMessage", spec.Violation{Location: "$.editedAt", Rule: "pattern"}, "MSG-EDIT-EDITEDAT"},
		{"getMessage", spec.Violation{Location: "$.editedAt", Rule: "pattern"}, "MSG-SHAPE"},
		{"getCurrentUser", spec.Violation{Location: "$", Rule: "type"}, "USER-GET-ARRAY"},
		{"getCurrentUser", spec.Violation{Location: "$[0].avatarUrlSmall", Rule: "format"}, "USER-SHAPE"},
		{"listUserRooms", spec.Violation{Location: "$[2].platformType", Rule: "enum"}, "ROOM-PLATFORM-TYPE"},
		{"listUserRooms", spec.Violation{Location: "$[2].user", Rule: "not"}, "ROOM-USER-ONLY-ONE-TO-ONE"},
		{"listUserChannels", spec.Violation{Location: "$[0]", Rule: "not"}, "CHANNEL-NO-USERCOUNT"},
		{"listUserRooms", spec.Violation{Location: "$[0]", Rule: "required"}, "ROOM-SHAPE"},
		{"listUserChannels", spec.Violation{Location: "$[0].userCount", Rule: "not"}, "CHANNEL-NO-USERCOUNT"},
		{"listUserRepos", spec.Violation{Location: "$[1].room.id", Rule: "required"}, "REPO-ROOM"},
		{"listUserRepos", spec.Violation{Location: "$[1].room", Rule: "type"}, "REPO-ROOM"},
		{"listUserOrgs", spec.Violation{Location: "$[0].room.url", Rule: "pattern"}, "ROOM-SHAPE"},
		{"listUserOrgs", spec.Violation{Location: "$[0].room.user.displayName", Rule: "required"}, "USER-SHAPE"},
		{"listUserRooms", spec.Violation{Location: "$[5].user.displayName", Rule: "required"}, "USER-SHAPE"},
		{"listUserRooms", spec.Violation{Location: "$[5].user.v", Rule: "type"}, "USER-V-OPTIONAL"},
		{"listUserChannels", spec.Violation{Location: "$[0].lastAccessTime", Rule: "type"}, "ROOM-SHAPE"},
		{"listMessages", spec.Violation{Location: "$[1].fromUser", Rule: "type"}, "MSG-SHAPE"},
		{"listUserOrgs", spec.Violation{Location: "$[1].id", Rule: "type"}, "ORG-LIST"},
		{"getUnreadItems", spec.Violation{Location: "$.chat", Rule: "required"}, "UNREAD-SHAPE"},
		{"listUserRepos", spec.Violation{Location: "header Content-Type", Rule: "content-type"}, "HTTP-JSON-CONTENT-TYPE"},
		{"listUserRepos", spec.Violation{Location: "$", Rule: "decode"}, "HTTP-JSON-BODY"},
		{"listMessages", spec.Violation{Location: "$[0].id", Rule: "required"}, "MSG-LIST"},
		{"listUserRooms", spec.Violation{Location: "$[3].id", Rule: "required"}, "ROOM-LIST"},
		{"listUserChannels", spec.Violation{Location: "$[1].platformType", Rule: "enum"}, "CHANNEL-LIST"},
		{"getMessage", spec.Violation{Location: "$.urls[0]", Rule: "type"}, "MSG-SHAPE"},
		{"listMessages", spec.Violation{Location: "$[2].mentions", Rule: "required"}, "MSG-SHAPE"},
		{"getMessage", spec.Violation{Location: "$.urls[0].url", Rule: "required"}, "META-URLS"},
		{"listMessages", spec.Violation{Location: "$[0].readBy", Rule: "type"}, "UNREAD-READBY"},
		{"getMessage", spec.Violation{Location: "$.unread", Rule: "type"}, "UNREAD-FLAG"},
		{"sendMessage", spec.Violation{Location: "$.readBy", Rule: "type"}, "UNREAD-READBY"},
		{"sendMessage", spec.Violation{Location: "$.readBy", Rule: "maximum"}, "MSG-SEND-DEFAULTS"},
	} {
		if got := blame(tc.op, tc.v); got != tc.want {
			t.Errorf("%s %s [%s]: blamed %q, want %q", tc.op, tc.v.Location, tc.v.Rule, got, tc.want)
		}
		if _, ok := catalogue().Lookup(tc.want); !ok {
			t.Errorf("%s is not in the catalogue", tc.want)
		}
	}
}

// An answer that is not what the operation returns explains every other
// violation in it: the check fails (or is blocked) on that, once.
func TestAStructuralViolationAnswersForTheRest(t *testing.T) {
	meta := spec.Violation{Location: "$[0].meta", Rule: "required"}
	noID := spec.Violation{Location: "$[0].id", Rule: "required"}
	for _, tc := range []struct {
		ids             []string
		judged, blocked string
	}{
		{[]string{"MSG-LIST", "MSG-META-EMPTY"}, "MSG-LIST", ""},
		{[]string{"MSG-META-EMPTY"}, "", "MSG-LIST"},
	} {
		e := &Env{ids: tc.ids, blocker: new(string), judging: new(string)}
		e.attribute("listMessages", []spec.Violation{meta, noID})
		if *e.judging != tc.judged || *e.blocker != tc.blocked {
			t.Errorf("check of %v: judged %q blocked by %q, want %q and %q", tc.ids, *e.judging, *e.blocker, tc.judged, tc.blocked)
		}
	}
}

// A generated failure is filed under the document's owners only when that
// report is its one finding: a valid request answered with a status its
// operation does not document is the operation's; one refused with a
// documented status stays the property's, whatever else the refusal's
// body breaks; a token refused is its place's, never the operation's.
func TestDocumentOwnersOfAGeneratedFailure(t *testing.T) {
	e := &Env{Options: Options{Profile: spec.Reference}}
	status := spec.Violation{Side: "response", Location: "status", Rule: "status"}
	body := spec.Violation{Side: "response", Location: "$.error", Rule: "required"}
	failure := func(code int, requirement string, vs ...spec.Violation) generate.Failure {
		return generate.Failure{Property: generate.ValidAnswer, Requirement: requirement, Operation: "listMessages",
			Exchange: &client.Exchange{Operation: "listMessages", Status: code, Violations: vs}}
	}
	for _, tc := range []struct {
		name string
		f    generate.Failure
		want string
	}{
		{"undocumented status", failure(504, generate.ValidAnswer, status), "MSG-LIST"},
		{"undocumented status and a broken body", failure(502, generate.ValidAnswer, body, status), "MSG-LIST"},
		{"documented refusal with a broken body", failure(404, generate.ValidAnswer, body), ""},
		{"documented refusal", failure(400, generate.ValidAnswer), ""},
		{"a token refused", failure(401, "AUTH-BEARER", status), ""},
	} {
		got := strings.Join(e.documentOwners(tc.f), ",")
		if got != tc.want {
			t.Errorf("%s: owners %q, want %q", tc.name, got, tc.want)
		}
	}
}
