package runner

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/report"
)

func judged(o Outcome) bool { return o == Pass || o == Fail || o == Known }

// CoverageGate turns coverage short of what the user asks into exit 1
// (--min-judged, --require).
type CoverageGate struct {
	// MinJudged is the least number of judged requirements; MinPercent the
	// least share of the profile's checkable requirements (0: no bound).
	MinJudged  int
	MinPercent float64
	// Require lists requirement ids that must be judged.
	Require []string
}

// Active reports whether the gate asks anything.
func (g CoverageGate) Active() bool {
	return g.MinJudged > 0 || g.MinPercent > 0 || len(g.Require) > 0
}

// ParseMinJudged reads --min-judged: a count ("60") or a share of the
// profile's checkable requirements ("90%").
func ParseMinJudged(s string) (CoverageGate, error) {
	var g CoverageGate
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 || f > 100 {
			return g, &UsageError{fmt.Sprintf("--min-judged %q: want a count (60) or a share of the profile's checkable requirements (90%%)", s)}
		}
		g.MinPercent = f
		return g, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return g, &UsageError{fmt.Sprintf("--min-judged %q: want a count (60) or a share of the profile's checkable requirements (90%%)", s)}
	}
	g.MinJudged = n
	return g, nil
}

// ParseRequire reads --require: requirement ids separated by commas, each
// a checkable requirement of the profile.
func ParseRequire(s string, p spec.Profile) ([]string, error) {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		req, ok := cat.Lookup(id)
		switch {
		case !ok:
			return nil, &UsageError{fmt.Sprintf("--require: %s is not a requirement id (chatconform --list shows them)", id)}
		case !req.IsCheckable():
			return nil, &UsageError{fmt.Sprintf("--require: %s cannot be checked by any client (%s)", id, req.Reason)}
		case p != "" && !req.InProfile(p):
			return nil, &UsageError{fmt.Sprintf("--require: %s is not part of the %s profile", id, p)}
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, &UsageError{"--require: give requirement ids separated by commas"}
	}
	return ids, nil
}

// shortOf lists how the coverage falls short of the gate ("" when it does
// not).
func (g CoverageGate) shortOf(c *Coverage, verdicts map[string]Outcome) []string {
	var out []string
	if g.MinJudged > 0 && c.Judged < g.MinJudged {
		out = append(out, fmt.Sprintf("%s; --min-judged %d asks for %d", c, g.MinJudged, g.MinJudged))
	}
	if g.MinPercent > 0 && float64(c.Judged)*100 < g.MinPercent*float64(c.Total) {
		out = append(out, fmt.Sprintf("%s; --min-judged %s%% asks for %d", c, strconv.FormatFloat(g.MinPercent, 'f', -1, 64), int(ceil(g.MinPercent*float64(c.Total)/100))))
	}
	for _, id := range g.Require {
		if v := verdicts[id]; !judged(v) {
			out = append(out, fmt.Sprintf("%s is required (--require) but was not judged: %s", id, v))
		}
	}
	return out
}

func ceil(f float64) float64 {
	n := float64(int(f))
	if n < f {
		n++
	}
	return n
}

// coverage computes what the run judged and groups the rest by cause.
func (r *Result) coverage() *Coverage {
	c := &Coverage{}
	verdict := map[string]Outcome{}
	for _, q := range r.Requirements {
		verdict[q.ID] = q.Verdict
	}
	groups := map[string]*Gap{}
	var order []string
	add := func(o Outcome, cause, do, id, reason string) {
		key := o.String() + "\x00" + cause
		g := groups[key]
		if g == nil {
			g = &Gap{Outcome: o, Cause: cause, Do: do}
			groups[key] = g
			order = append(order, key)
		}
		if !slices.Contains(g.Requirements, id) {
			g.Requirements = append(g.Requirements, id)
		}
		if reason != "" && !slices.Contains(g.Reasons, reason) {
			g.Reasons = append(g.Reasons, reason)
		}
	}
	for _, q := range r.Requirements {
		if q.Verdict == NotCheckable {
			continue
		}
		c.Total++
		if judged(q.Verdict) {
			c.Judged++
			continue
		}
		cause, do, reason := r.causeOf(q, verdict)
		add(q.Verdict, cause, do, q.ID, reason)
	}
	rank := map[Outcome]int{Blocked: 0, Error: 1, Inconclusive: 2, Skip: 3, NotRun: 4}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := groups[order[i]], groups[order[j]]
		if rank[a.Outcome] != rank[b.Outcome] {
			return rank[a.Outcome] < rank[b.Outcome]
		}
		return len(a.Requirements) > len(b.Requirements)
	})
	for _, k := range order {
		c.NotJudged = append(c.NotJudged, *groups[k])
	}
	return c
}

// causeOf says why requirement q was not judged and what the user can do.
func (r *Result) causeOf(q Requirement, verdict map[string]Outcome) (cause, do, reason string) {
	first := func(o Outcome) CheckResult {
		for _, c := range q.Checks {
			if c.Outcome == o {
				return c
			}
		}
		return CheckResult{}
	}
	switch q.Verdict {
	case Blocked:
		c := first(Blocked)
		if verdict[c.BlockedBy] == Known {
			return "blocked by a known failure (baseline)", "fix " + c.BlockedBy + ": while it fails, the baseline keeps the run green but these requirements go unjudged", c.BlockedBy
		}
		return "blocked by a failing requirement", "fix the failing requirements listed last; each check they blocked is judged once they pass", c.BlockedBy
	case Error:
		for _, c := range q.Checks {
			if c.Outcome == Error && strings.HasPrefix(c.Message, orphanPrefix) {
				by, _, _ := strings.Cut(strings.TrimPrefix(c.Message, orphanPrefix), ",")
				return "blocked by a requirement that did not fail in this run", "run that requirement's checks too (without --label-filter); if it passes, a check named the wrong requirement: report it", by
			}
		}
		return "no answer to judge (transport failure, timeout, a check cut short)", "see the ERROR rows: check that the target stays up; raise --timeout or --check-timeout for a slow one", report.FirstLine(first(Error).Message)
	case Inconclusive:
		return "the target kept answering 429 or 503", "keep the run under the target's rate limit with --rate N/s", ""
	case NotRun:
		c := first(NotRun)
		switch {
		case strings.HasPrefix(c.Message, "not selected"):
			return "not selected (--label-filter, --focus)", "run without --label-filter and --focus to judge them", ""
		case r.Halted != "":
			return "the run stopped before judging them", stopAdvice(r.Halted), r.Halted
		}
		return "not run", "run again", strings.TrimPrefix(c.Message, "not run: ")
	case Skip:
		c := first(Skip)
		reason = report.FirstLine(c.Message)
		cause, do = skipCause(reason)
		return cause, do, reason
	}
	return q.Verdict.String(), "", ""
}

// stopAdvice is what to do about a run that stopped early.
func stopAdvice(why string) string {
	switch {
	case strings.Contains(why, "out of time"):
		return "give the run more time: --max-time"
	case strings.Contains(why, "interrupted"):
		return "run again without interrupting it"
	case strings.Contains(why, "could not be reached"), strings.Contains(why, "stopped answering"):
		return "make sure the target is up and reachable (--wait gives a server that is starting time to answer)"
	case strings.Contains(why, "certificate"):
		return "trust the target's certificate: --ca-file, CHAT_CA_FILE or ca_file:"
	case strings.Contains(why, "answers its own API wrongly"):
		return "fix the answer the preflight names; no check runs before it is right"
	}
	return "fix what stopped the run (said above) and run again"
}

// skipCauses maps what a skipped check says to its cause and the one thing
// to do about it; the first whose words all appear (in lower case) wins, so
// the more specific come first. Every skip reason the checks of
// suites/conformance give has an entry here (TestEverySkipReasonHasItsCause
// reads them from the source), and each cause points at the setting the
// check needs, not at one the reason merely mentions: the ROOM-KINDS check
// says "other than hide_room", which is no reason to ask for a hide_room a
// run already names.
var skipCauses = []struct {
	words     []string
	cause, do string
}{
	{[]string{"needs 2 users"}, "needs a second user",
		"name a second user: --token again, CHAT_TOKEN_2, or users[1].token in the description"},
	{[]string{"needs", "users in the target description"}, "needs more users",
		"name as many users as the reason says: --token once per user, CHAT_TOKEN_2, CHAT_TOKEN_3 ..., or users: in the description"},
	{[]string{"name hide_room"}, "no hide_room named (hiding a room is destructive)",
		"name a room user 1 may lose from their list: --hide-room ID, CHAT_HIDE_ROOM or hide_room:"},
	{[]string{"private_repos_granted: true"}, "no user is described as having granted access to private repositories",
		"describe a user who granted it and owns a private repository: --private-repos-granted true (once per user, in order), CHAT_PRIVATE_REPOS_GRANTED(_2) or users[i].private_repos_granted: true"},
	{[]string{"private_repos_granted: false"}, "no user is described as having withheld access to private repositories",
		"describe a user who did not grant it: --private-repos-granted false (once per user, in order), CHAT_PRIVATE_REPOS_GRANTED(_2) or users[i].private_repos_granted: false"},
	{[]string{"private_repos_granted"}, "no user says whether they granted access to private repositories",
		"say it per user: --private-repos-granted true|false (once per user), CHAT_PRIVATE_REPOS_GRANTED(_2) or users[i].private_repos_granted:"},
	{[]string{"no write_room"}, "no room users 1 and 2 share to post in",
		"name one: --write-room ID, CHAT_WRITE_ROOM or write_room:"},
	{[]string{"write room is in none of user"}, "the write room is missing from a described user's lists",
		"name as write_room a group room that users 1 and 2 both list: --write-room ID, CHAT_WRITE_ROOM or write_room:"},
	{[]string{"names no rooms", "one_to_one, org, repo"}, "no one-to-one, organisation or repository room of user 1 named (other than hide_room), and write_room is none",
		"name one: --rooms-one-to-one, --rooms-org or --rooms-repo ID (CHAT_ROOMS_ONE_TO_ONE, CHAT_ROOMS_ORG, CHAT_ROOMS_REPO) or rooms: one_to_one, org, repo in the description; a room that is also hide_room does not count"},
	{[]string{"no second room of user 1"}, "no second room of user 1 known (besides write_room and hide_room)",
		"name another room of user 1: --rooms-org, --rooms-repo, --rooms-channel or --rooms-one-to-one ID (CHAT_ROOMS_ORG ...) or rooms: in the description"},
	{[]string{"no organisation room"}, "no organisation room of user 1 known",
		"name user 1's organisation room: --rooms-org ID, CHAT_ROOMS_ORG or rooms.org: (discovery found none in user 1's rooms list)"},
	{[]string{"fewer than 2,000 messages"}, "no named room short enough to walk to its start",
		"name a room of user 1 with fewer than 2,000 messages: --rooms-channel, --rooms-repo, --rooms-one-to-one, --rooms-org or --write-room ID (other than hide_room)"},
	{[]string{"lists a one-to-one room"}, "no described user has a one-to-one room",
		"give user 1 a one-to-one room (a conversation with another user) other than hide_room, which an earlier run may have hidden"},
	{[]string{"no message older than an hour"}, "user 1 has no message older than an hour in the organisation room",
		"have user 1 post in the organisation room (rooms.org) and run again an hour later, or name an organisation room where they have"},
	{[]string{"has no channel"}, "user 1 has no channel",
		"make user 1 a member of a channel, or describe as user 1 a user who is one"},
	{[]string{"belongs to no organisation"}, "user 1 belongs to no organisation",
		"make user 1 a member of an organisation, or describe as user 1 a user who is one"},
	{[]string{"has no repository"}, "user 1 has no repository",
		"give user 1 a repository, or describe as user 1 a user who has one"},
	{[]string{"neither unreadItems nor mentions"}, "the target's room entries carry neither unreadItems nor mentions",
		"nothing in the description: the fields are optional; they are judged on a target that carries them"},
	{[]string{"rate limit"}, "the target has no rate limit configured",
		"configure one on the target (the reason says at what level)"},
}

func skipCause(reason string) (cause, do string) {
	low := strings.ToLower(reason)
	for _, sc := range skipCauses {
		all := true
		for _, w := range sc.words {
			all = all && strings.Contains(low, strings.ToLower(w))
		}
		if all {
			return sc.cause, sc.do
		}
	}
	return "the target holds nothing to check it on", "give user 1 what the reason names (or describe a user who has it)"
}

// judge computes the coverage and holds it to the gate. A run that did not
// reach its end keeps the exit code of what stopped it (its coverage is
// reported all the same).
func (r *Result) judge(g CoverageGate) {
	r.Coverage = r.coverage()
	r.CoverageShort = nil
	if r.halt != nil || !g.Active() {
		return
	}
	verdicts := map[string]Outcome{}
	for _, q := range r.Requirements {
		verdicts[q.ID] = q.Verdict
	}
	r.CoverageShort = g.shortOf(r.Coverage, verdicts)
}
