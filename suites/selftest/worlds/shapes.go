// Package worlds runs the core profile of chatconform against the
// reference server serving worlds of many shapes (see fixtures.Shape), not
// only the standard one every other self-test uses: fewer users, users in
// no shared room, no rooms of some kind, a single one-to-one room that may
// be hidden, empty rooms, huge rooms, messages sharing a millisecond, a
// description that names no rooms. The reference conforms in every one of
// them, so a check that fails there assumes something of the standard
// world that the API does not promise. A failing shape is reduced to a
// small one that still fails the same requirement, and reported with the
// two commands that reproduce it.
package worlds

import (
	"math/rand/v2"
	"slices"

	"github.com/chatrooms/conformance/fixtures"
)

// Shapes returns n legal shapes for seed. Shape i depends only on seed and
// i, so a longer list starts with the shorter one.
func Shapes(seed uint64, n int) []fixtures.Shape {
	out := make([]fixtures.Shape, n)
	for i := range out {
		out[i] = Random(rand.New(rand.NewPCG(seed, uint64(i))))
	}
	return out
}

// Random draws a legal shape. Each feature a check might take for granted
// turns up often enough that fifty shapes hold most of them: every count
// from none up for each kind of place, rooms from empty to thousands of
// messages (a history of over 5,000 in about one shape in eight, sizes at
// the edges of pages), tied timestamps, unread history for user 1,
// private repositories or none, a user who shares no room,
// user 1 with a single one-to-one room that is the room to hide, and
// descriptions without room hints.
func Random(r *rand.Rand) fixtures.Shape {
	s := fixtures.Shape{Users: 2 + r.IntN(fixtures.MaxUsers-1)}
	all := fixtures.Members(1<<s.Users - 1)
	s.Granted = fixtures.Members(r.Uint32()) & all
	s.NoHints = r.IntN(6) == 0
	subset := func() fixtures.Members {
		for {
			m := fixtures.Members(r.Uint32()) & all
			if r.IntN(10) < 6 {
				m |= 1 // most places are user 1's: that is where the checks look
			}
			if m != 0 {
				return m
			}
		}
	}
	// Sizes around the numbers the checks work with: a page of 100, the
	// 2,000 messages a walk back to a room's start reads at most.
	edges := []int{99, 100, 101, 199, 200, 1999, 2000, 2001}
	size := func() int {
		switch k := r.IntN(24); {
		case k < 4:
			return 0
		case k < 8:
			return 1 + r.IntN(5)
		case k < 15:
			return 6 + r.IntN(55)
		case k < 18:
			return 100 + r.IntN(200)
		case k < 20:
			return 1000 + r.IntN(1500)
		default:
			return edges[r.IntN(len(edges))]
		}
	}
	style := func(p *fixtures.Place) {
		p.Ties = p.HasRoom() && r.IntN(4) == 0
		p.Unread = p.HasRoom() && r.IntN(4) == 0
	}
	place := func(roomless bool) fixtures.Place {
		p := fixtures.Place{Members: subset(), Messages: size()}
		if roomless && r.IntN(10) < 3 {
			p.Messages = fixtures.NoRoom
		}
		style(&p)
		return p
	}
	for range r.IntN(4) {
		s.Orgs = append(s.Orgs, place(true))
	}
	for range r.IntN(5) {
		p := place(true)
		p.Private = r.IntN(10) < 3
		p.OrgOwned = len(s.Orgs) > 0 && r.IntN(10) < 3
		s.Repos = append(s.Repos, p)
	}
	var pairs []fixtures.Members
	for a := range s.Users {
		for b := a + 1; b < s.Users; b++ {
			pairs = append(pairs, fixtures.Of(a, b))
		}
	}
	r.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	for _, m := range pairs[:r.IntN(min(4, len(pairs)+1))] {
		p := fixtures.Place{Members: m, Messages: size()}
		style(&p)
		s.OneToOnes = append(s.OneToOnes, p)
	}
	for range r.IntN(3) {
		s.Channels = append(s.Channels, place(false))
	}

	// A described user who shares no room with anyone: kept only in the
	// places where they are alone.
	if s.Users > 2 && r.IntN(4) == 0 {
		u := 2 + r.IntN(s.Users-2)
		s.OneToOnes = slices.DeleteFunc(s.OneToOnes, func(p fixtures.Place) bool { return p.Members.Has(u) })
		for _, k := range []*[]fixtures.Place{&s.Orgs, &s.Repos, &s.Channels} {
			for i := range *k {
				if p := &(*k)[i]; p.Members != fixtures.Of(u) {
					p.Members &^= fixtures.Of(u)
				}
			}
		}
	}

	// One history long enough for skip=5000 to land inside it or just
	// short of that, in about one shape in eight; mostly an organisation
	// room of user 1, as the description's org hint prefers the longest.
	if r.IntN(8) == 0 {
		big := fixtures.Place{Members: subset() | 1, Messages: 5000 + r.IntN(1500), Ties: r.IntN(3) == 0}
		if r.IntN(2) == 0 {
			big.Messages = []int{5000, 5009, 5010, 5011}[r.IntN(4)]
		}
		if r.IntN(4) == 0 {
			s.Repos = append(s.Repos, big)
		} else {
			s.Orgs = append(s.Orgs, big)
		}
	}

	// Users 1 and 2 must share a group room: add one when chance gave none.
	shared := func(p fixtures.Place) bool { return p.HasRoom() && p.Members.Has(0) && p.Members.Has(1) }
	if !slices.ContainsFunc(s.Orgs, shared) && !slices.ContainsFunc(s.Repos, shared) && !slices.ContainsFunc(s.Channels, shared) {
		p := fixtures.Place{Members: subset() | fixtures.Of(0, 1), Messages: size()}
		switch r.IntN(3) {
		case 0:
			s.Orgs = append(s.Orgs, p)
		case 1:
			s.Repos = append(s.Repos, p)
		default:
			s.Channels = append(s.Channels, p)
		}
	}
	// Sometimes the write room is flagged, which need not be the first.
	if r.IntN(2) == 0 {
		var cands []*fixtures.Place
		for _, k := range []*[]fixtures.Place{&s.Orgs, &s.Repos, &s.Channels} {
			for i := range *k {
				if shared((*k)[i]) {
					cands = append(cands, &(*k)[i])
				}
			}
		}
		cands[r.IntN(len(cands))].Write = true
	}
	// A room to hide in most shapes; when user 1 has a single one-to-one
	// room, often that one.
	if r.IntN(10) < 7 {
		var cands []*fixtures.Place
		for _, k := range kinds(&s) {
			for i := range *k {
				if p := &(*k)[i]; p.HasRoom() && p.Members.Has(0) && !p.Write {
					cands = append(cands, p)
				}
			}
		}
		var ones []*fixtures.Place
		for i := range s.OneToOnes {
			if s.OneToOnes[i].Members.Has(0) {
				ones = append(ones, &s.OneToOnes[i])
			}
		}
		if len(ones) == 1 && r.IntN(2) == 0 {
			cands = ones
		}
		if len(cands) > 0 {
			c := cands[r.IntN(len(cands))]
			c.Hide = true
			if s.Validate() != nil { // it was the only room for writing
				c.Hide = false
			}
		}
	}
	s = s.Clone() // no empty slices: as a parsed shape has them
	if err := s.Validate(); err != nil {
		panic("worlds: drew an illegal shape " + s.String() + ": " + err.Error())
	}
	return s
}

// Edges are hand-picked shapes, each at one edge a check might take for
// granted, so that no seed can miss them.
func Edges() []fixtures.Shape {
	var out []fixtures.Shape
	for _, text := range []string{
		// The least a legal world holds: two users, one empty room.
		"users=2,repo=12:0",
		// A described user who is in no room at all, and one who shares
		// no room with the others.
		"users=4,repo=12:3,chan=4:2",
		// User 1's only one-to-one room is the room to hide (and the
		// one_to_one hint); user 2 has it as their only one-to-one too.
		"users=3,granted=1,org=123:-,repo=12:40w,one=13:0h,chan=3:5t",
		"users=2,chan=12:3,one=12:7h",
		// No hints: every room is discovered; the write room is a channel.
		"users=2,hints=off,chan=12:0,org=1:2",
		// Histories of exactly a page, of the 2,000 messages a walk back
		// reads at most, and of 5,010 (skip=5000 limit=10 fills the page).
		"users=3,org=123:5010,repo=12:100w,chan=1:2000,one=12:101",
		// Just short of that: skip=5000 answers a short page.
		"users=2,granted=12,org=12:5009t,repo=1:-p,repo=2:0p,repo=12:0",
		// Every history tied and unread for user 1; private repositories
		// of users who did not grant access.
		"users=3,granted=3,org=12:60tu,repo=12:30tuw,repo=1:5pt,repo=2:-p,repo=3:2p,one=12:40tu,one=13:9tuh,chan=123:25tu",
		// Six users, organisations and repositories without rooms.
		"users=6,granted=135,org=123456:-,org=56:-,repo=123:-o,repo=12:-,repo=456:4,repo=12:9w,chan=123456:0",
	} {
		s, err := fixtures.ParseShape(text)
		if err != nil {
			panic("worlds: edge shape " + text + ": " + err.Error())
		}
		out = append(out, s)
	}
	return out
}

// kinds lists the places of s by kind, in the order of the text form.
func kinds(s *fixtures.Shape) []*[]fixtures.Place {
	return []*[]fixtures.Place{&s.Orgs, &s.Repos, &s.OneToOnes, &s.Channels}
}
