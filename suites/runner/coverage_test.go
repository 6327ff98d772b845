package runner

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// skipReasons is every reason a check of suites/conformance skips with, as
// its source spells it (a format for fmt.Sprintf), an instance of it, and
// the cause the coverage must list it under.
var skipReasons = []struct{ format, instance, cause string }{
	{"needs %d users in the target description, it has %d", "needs 2 users in the target description, it has 1", "needs a second user"},
	{"no write_room in the target description and none could be discovered (a group room shared by users 1 and 2)", "", "no room users 1 and 2 share to post in"},
	{"no room the description names has fewer than 2,000 messages to walk back to its start", "", "no named room short enough to walk to its start"},
	{"no organisation room to find an old message of user 1 in", "", "no organisation room of user 1 known"},
	{"user 1 has no message older than an hour in the organisation room", "", "user 1 has no message older than an hour in the organisation room"},
	{"hiding a room is destructive: name hide_room in the target description to allow it", "", "no hide_room named (hiding a room is destructive)"},
	{"the target has no rate limit configured (chatref --rate-limit 4000 turns it on at a level a whole run fits under: a run sends about 3,800 requests within a minute, about 2,900 as user 1; with a lower limit, give chatconform --rate N/60 and --check-timeout 10m)", "", "the target has no rate limit configured"},
	{"the target description names no rooms (rooms: one_to_one, org, repo) other than hide_room to look for in user 1's rooms list, and no list shows write_room as a room of one of those kinds", "", "no one-to-one, organisation or repository room of user 1 named (other than hide_room), and write_room is none"},
	{"no described user lists a one-to-one room (hide_room, if it is one, may be hidden already; the hide check judges it before hiding it)", "", "no described user has a one-to-one room"},
	{"user 1 has no channel", "", "user 1 has no channel"},
	{"user 1 belongs to no organisation", "", "user 1 belongs to no organisation"},
	{"user 1 has no repository", "", "user 1 has no repository"},
	{"no user is described with private_repos_granted: %v", "no user is described with private_repos_granted: true", "no user is described as having granted access to private repositories"},
	{"no user is described with private_repos_granted: %v", "no user is described with private_repos_granted: false", "no user is described as having withheld access to private repositories"},
	{"no second room of user 1 is known (rooms: in the target description) to tell rooms apart", "", "no second room of user 1 known (besides write_room and hide_room)"},
	{"the write room is in none of user %d's lists", "the write room is in none of user 2's lists", "the write room is missing from a described user's lists"},
	{"the room carries neither unreadItems nor mentions", "", "the target's room entries carry neither unreadItems nor mentions"},
	{"every room besides the write room carries neither unreadItems nor mentions, or its unread lists cannot be read by the users who are shown it, or they moved on every read", "", "the target's room entries carry neither unreadItems nor mentions"},
}

// Every skip reason is listed under its own cause, with advice that names
// what the check needs: ROOM-KINDS, which says "other than hide_room",
// needs room hints, not --hide-room, and no reason but the hide checks'
// points a run that names hide_room (the README's CI recipe) at --hide-room.
func TestEverySkipReasonHasItsCause(t *testing.T) {
	for _, r := range skipReasons {
		reason := r.instance
		if reason == "" {
			reason = r.format
		}
		cause, do := skipCause(reason)
		if cause != r.cause {
			t.Errorf("%q:\n  cause %q\n  want  %q", reason, cause, r.cause)
		}
		if !strings.Contains(reason, "name hide_room") && strings.Contains(do, "--hide-room") {
			t.Errorf("%q: advice %q points at --hide-room, which a run naming hide_room already gives", reason, do)
		}
		if do == "" {
			t.Errorf("%q: no advice", reason)
		}
	}
	// ROOM-KINDS is told to name rooms.
	_, do := skipCause(skipReasons[7].format)
	for _, want := range []string{"--rooms-one-to-one", "--rooms-org", "--rooms-repo"} {
		if !strings.Contains(do, want) {
			t.Errorf("ROOM-KINDS advice %q lacks %s", do, want)
		}
	}
}

// The table above is every reason the checks give: a new reason needs its
// cause here (and in skipCauses) before it can be listed right.
func TestSkipReasonsAreThoseOfTheChecks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "conformance", "*.go"))
	if err != nil || len(files) == 0 {
		t.Skip("suites/conformance not found")
	}
	known := map[string]bool{}
	for _, r := range skipReasons {
		known[r.format] = true
	}
	skip := regexp.MustCompile(`\.skip\((?:fmt\.Sprintf\()?("(?:[^"\\]|\\.)*")`)
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range skip.FindAllStringSubmatch(string(src), -1) {
			reason, err := strconv.Unquote(m[1])
			if err != nil {
				t.Fatalf("%s: %s: %v", f, m[1], err)
			}
			found++
			if !known[reason] {
				t.Errorf("%s: the skip reason %q has no cause in skipReasons (and skipCauses)", filepath.Base(f), reason)
			}
		}
	}
	if found < 10 {
		t.Errorf("found only %d skip reasons in suites/conformance", found)
	}
}
