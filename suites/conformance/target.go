package conformance

// What a check needs of the target (users, rooms), and the texts it writes.

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/spec"
)

// me returns user u's id. A check that needs a user the preflight could
// not tell apart from an earlier one is blocked by the requirement whose
// breach that is (see target.Confusion): what it would judge as that user
// would be another user's answers.
func (e *Env) me(u int) string {
	GinkgoHelper()
	e.distinct(u)
	return e.Users[u].ID
}

func (e *Env) needUsers(n int) {
	GinkgoHelper()
	if len(e.Users) < n {
		e.skip(fmt.Sprintf("needs %d users in the target description, it has %d", n, len(e.Users)))
	}
	for u := range n {
		e.distinct(u)
	}
}

// distinct blocks the check when user u cannot be told apart from an
// earlier described user.
func (e *Env) distinct(u int) {
	GinkgoHelper()
	if c, ok := e.Target.Confused(u); ok {
		var own []string
		for _, r := range append([]string{c.Requirement}, c.Also...) {
			if slices.Contains(e.ids, r) {
				own = append(own, r)
			} else {
				e.noteSoft(r, "GET /v1/user answers the tokens of two described users with one user", c.Text)
			}
		}
		// Whatever the check was judging gives way.
		switch len(own) {
		case 0:
			e.lacking(c.Requirement, c.Text)
		case 1:
			e.lacking(own[0], c.Text)
		default: // several of the check's own statements are broken: each fails
			*e.blocker, *e.judging = "", ""
			e.fail(c.Text)
		}
	}
}

func (e *Env) writeRoom() string {
	GinkgoHelper()
	if e.Target.WriteRoom == "" {
		e.skip("no write_room in the target description and none could be discovered (a group room shared by users 1 and 2)")
	}
	return e.Target.WriteRoom
}

func (e *Env) reference() bool { return e.Profile == spec.Reference }

// text returns generated prose carrying a fresh run marker, and the marker.
// The prose depends only on the seed, the spec and the call's sequence
// number, so a run with the same seed writes the same words.
func (e *Env) text() (string, string) {
	GinkgoHelper()
	m, n := e.nextMarker()
	return e.Faker(fmt.Sprintf("%s#%d", e.name(), n)).Sentence() + " " + m, m
}

// word returns 16 lower-case letters, fresh for each call and unrelated
// to the run marker other texts carry: however a server splits words, no
// other message holds it.
func (e *Env) word() string {
	return strings.ToLower(e.Faker(e.name() + e.Marker()).LetterN(16))
}

// otherRooms returns the rooms of user 1 the description names (or
// discovery found), other than the write room and hide_room.
func (e *Env) otherRooms() []string {
	var out []string
	for _, id := range []string{e.Target.Rooms.Org, e.Target.Rooms.Repo, e.Target.Rooms.Channel, e.Target.Rooms.OneToOne} {
		if id != "" && id != e.Target.WriteRoom && id != e.Target.HideRoom && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
