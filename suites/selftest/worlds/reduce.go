package worlds

import (
	"context"
	"math/bits"
	"sort"
	"sync/atomic"

	"github.com/chatrooms/conformance/fixtures"
)

// Weight orders shapes by how much there is to look at when one fails:
// users, places, members, flags, and the length of each history on a log
// scale (a room of 6,000 messages weighs little more than one of 1,000,
// but more than an empty one). Every shape Smaller returns weighs less.
func Weight(s fixtures.Shape) int {
	w := 4*s.Users + s.Granted.Len()
	if s.NoHints {
		w++
	}
	for _, k := range kinds(&s) {
		for _, p := range *k {
			w += 3 + p.Members.Len() + max(0, bits.Len(uint(max(0, p.Messages))))
			for _, f := range []bool{p.Private, p.OrgOwned, p.Write, p.Hide, p.Ties, p.Unread, p.Name != ""} {
				if f {
					w++
				}
			}
		}
	}
	return w
}

// Smaller returns the legal shapes one step smaller than s, the steps
// that remove most first: a user (from the last; users 1 and 2 stay), a
// place, a history (emptied, else halved), a flag, a grant, a member.
func Smaller(s fixtures.Shape) []fixtures.Shape {
	var out []fixtures.Shape
	try := func(c fixtures.Shape) {
		if c.Validate() == nil && Weight(c) < Weight(s) {
			out = append(out, c)
		}
	}
	for u := s.Users - 1; u >= 2; u-- {
		try(withoutUser(s, u))
	}
	for k := range kinds(&s) {
		for i := len(*kinds(&s)[k]) - 1; i >= 0; i-- {
			c := s.Clone()
			pl := kinds(&c)[k]
			*pl = append((*pl)[:i], (*pl)[i+1:]...)
			try(c)
		}
	}
	// edit tries f on a copy of each place in turn; one says the place is
	// a one-to-one room.
	edit := func(f func(p *fixtures.Place, one bool) bool) {
		for k := range kinds(&s) {
			for i := range *kinds(&s)[k] {
				c := s.Clone()
				if f(&(*kinds(&c)[k])[i], k == 2) {
					try(c)
				}
			}
		}
	}
	edit(func(p *fixtures.Place, one bool) bool {
		if p.Messages <= 0 {
			return false
		}
		p.Messages = 0
		return true
	})
	edit(func(p *fixtures.Place, one bool) bool {
		if p.Messages < 2 {
			return false
		}
		p.Messages /= 2
		return true
	})
	if s.NoHints {
		c := s.Clone()
		c.NoHints = false
		try(c)
	}
	for _, flag := range []func(p *fixtures.Place) *bool{
		func(p *fixtures.Place) *bool { return &p.Ties },
		func(p *fixtures.Place) *bool { return &p.Unread },
		func(p *fixtures.Place) *bool { return &p.Hide },
		func(p *fixtures.Place) *bool { return &p.Write },
		func(p *fixtures.Place) *bool { return &p.Private },
		func(p *fixtures.Place) *bool { return &p.OrgOwned },
	} {
		edit(func(p *fixtures.Place, one bool) bool {
			b := flag(p)
			was := *b
			*b = false
			return was
		})
	}
	edit(func(p *fixtures.Place, one bool) bool {
		was := p.Name != ""
		p.Name = ""
		return was
	})
	for _, u := range s.Granted.Indexes() {
		c := s.Clone()
		c.Granted &^= fixtures.Of(u)
		try(c)
	}
	for u := range s.Users {
		edit(func(p *fixtures.Place, one bool) bool {
			if !p.Members.Has(u) || p.Members.Len() < 2 || one {
				return false
			}
			p.Members &^= fixtures.Of(u)
			return true
		})
	}
	return out
}

// withoutUser removes user u from s: the users after u move down one, a
// place left without members goes, and so does a one-to-one room of u.
func withoutUser(s fixtures.Shape, u int) fixtures.Shape {
	c := s.Clone()
	c.Users--
	shift := func(m fixtures.Members) fixtures.Members {
		low := m & (1<<u - 1)
		return low | (m>>(u+1))<<u
	}
	c.Granted = shift(c.Granted)
	for _, k := range kinds(&c) {
		var kept []fixtures.Place
		for _, p := range *k {
			had := p.Members.Has(u)
			p.Members = shift(p.Members)
			if p.Members == 0 || k == &c.OneToOnes && had {
				continue
			}
			kept = append(kept, p)
		}
		*k = kept
	}
	return c
}

// reduceAll finds, for each requirement some shape fails, the smallest
// shape that fails it, and reduces that shape step by step (Smaller) while
// the requirement still fails, within Options.Reduce runs. The reduction
// is recorded on the result it started from.
func (r *runner) reduceAll(ctx context.Context, results []Result) {
	smallest := map[string]int{}
	for i, res := range results {
		if res.Err != "" {
			continue
		}
		for _, id := range res.FailedReqs() {
			if j, ok := smallest[id]; !ok || Weight(res.Shape) < Weight(results[j].Shape) {
				smallest[id] = i
			}
		}
	}
	var ids []string
	for id := range smallest {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if ctx.Err() != nil {
			return
		}
		i := smallest[id]
		red := r.reduce(ctx, id, results[i])
		results[i].Reductions = append(results[i].Reductions, red)
	}
}

// reduce shrinks from.Shape while req still fails, trying the candidates
// of each step Options.Parallel at a time and taking the first that fails.
func (r *runner) reduce(ctx context.Context, req string, from Result) Reduction {
	cur, runs := from, 0
	verdict := from.Verdicts[req]
	fails := func(res Result) bool { return res.Err == "" && res.Verdicts[req] == verdict }
	for runs < r.opt.Reduce && ctx.Err() == nil {
		cands := Smaller(cur.Shape)
		found := false
		for len(cands) > 0 && !found && runs < r.opt.Reduce && ctx.Err() == nil {
			n := min(len(cands), r.opt.Parallel, r.opt.Reduce-runs)
			batch := cands[:n]
			cands = cands[n:]
			out := make([]Result, n)
			var ran atomic.Int64
			r.parallel(ctx, n, func(i int) {
				var cached bool
				out[i], cached = r.run(ctx, batch[i])
				if !cached {
					ran.Add(1)
				}
			})
			runs += int(ran.Load())
			if ran.Load() == 0 {
				runs++ // a step of cached runs only still counts, so the loop ends
			}
			for _, res := range out {
				if fails(res) {
					cur, found = res, true
					r.progress("reduce %-24s %s", req, res.Shape)
					break
				}
			}
		}
		if !found {
			break
		}
	}
	red := Reduction{Req: req, Verdict: verdict, Shape: cur.Shape, Runs: runs}
	red.Check, red.Cause = causeOf(cur, req)
	return red
}

// causeOf names the check that failed (or was blocked on) req in res, and
// its line; a blocked check's line says by what.
func causeOf(res Result, req string) (check, cause string) {
	for _, f := range res.Failed {
		if f.Outcome == res.Verdicts[req] && contains(f.Reqs, req) {
			if f.Outcome == "BLOCKED" && f.BlockedBy != "" {
				return f.Check, "blocked by " + f.BlockedBy + ": " + f.Cause
			}
			return f.Check, f.Cause
		}
	}
	return "", ""
}
