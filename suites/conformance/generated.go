package conformance

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/suites/generate"
)

// Requests nobody wrote by hand: each property of package generate is one
// check, over requests generated from the profile's OpenAPI document (every
// bound, enum and optional field, and each kind of defect one at a time).
// The engine is built once per run from the discovered target; the checks
// that write stay inside the write room.

// generated is what a run's generated checks share.
type generated struct {
	once   sync.Once
	engine *generate.Engine
	err    error
}

// generator returns the run's engine, building it on first use.
func (e *Env) generator() *generate.Engine {
	GinkgoHelper()
	e.gen.once.Do(func() {
		w, err := generate.WorldFromTarget(e.ctx, e.Client, e.Target)
		if err != nil {
			e.gen.err = err
			return
		}
		// Hiding is the hide check's to judge: a generated hide would take
		// hide_room out of user 1's list before it looks.
		w.HideRoom = ""
		e.gen.engine, e.gen.err = generate.New(generate.Config{Client: e.Client, Profile: e.Profile, World: w, Seed: e.Seed,
			Examples: e.Examples, Writes: e.Target.WriteRoom != "", Settle: e.Eventually, Parallel: e.Parallel, Quiet: e.Quiet})
	})
	if e.gen.err != nil {
		if Unreachable(e.gen.err) {
			e.transportFailure(e.gen.err)
		}
		e.fail("preparing generated requests: " + e.gen.err.Error())
	}
	return e.gen.engine
}

func generatedSpecs(d decl) {
	Describe("Generated requests", func() {
		lane := d.inLane("generated").long() // one engine, which runs one property at a time
		// GEN-REFUSED-NO-CHANGE and GEN-GET-NO-CHANGE compare the room
		// before and after each case: beside other checks, a change the
		// others' writes do not account for is confirmed while they are
		// held back (generate.Config.Quiet).
		for _, p := range generate.Properties() {
			lane.it(strings.TrimSuffix(p.Text, "."), reqs(append([]string{p.ID}, p.Owners...)...), func(e *Env) {
				if p.Writes && e.Target.WriteRoom == "" {
					e.writeRoom() // skips with the reason
				}
				rep, err := e.generator().Run(e.ctx, p.ID)
				if err != nil {
					e.fail(err.Error())
				}
				for _, w := range e.generator().Sent() {
					e.noteGenerated(&w) // the messages the requests name: lost, they explain a 404
				}
				e.by(fmt.Sprintf("%d requests over %d operations", rep.Requests, len(rep.Results)))
				for _, l := range rep.PairLines() {
					e.by(l)
				}
				for _, r := range rep.Results {
					if r.Skipped != "" {
						e.by(r.Operation + " not judged: " + r.Skipped)
					}
				}
				// Each failure under the requirement whose statement it breaks
				// (a property's Owners), the rest under the property.
				byReq := map[string][]string{}
				// unusable holds the round trips whose success carried no
				// message id because the answer broke the document: those are
				// not judged, and block the property by the document's owner
				// unless another round trip fails it.
				var unusable []generate.Failure
				// owned holds the refusals of valid requests with a status the
				// document does not give the operation: the document checker
				// reports the status under the operation's requirement, one
				// finding there, and the property, whose own statement the
				// refusal breaks too, is blocked by it unless a failure of its
				// own judges it. A success that breaks the document leaves
				// the property judged on the rest (its owners judge the
				// breach).
				var owned []generate.Failure
				for _, f := range rep.Failures() {
					e.noteGenerated(f.Wrote) // for the root probe, should the check fail
					if f.Unusable != "" {
						unusable = append(unusable, f)
						continue
					}
					if owners := e.documentOwners(f); len(owners) > 0 {
						e.by(fmt.Sprintf("%s %s: the answer breaks the document, which the document checker reports under %s", f.Property, f.Operation, strings.Join(owners, ", ")))
						f.Unusable = owners[0]
						switch {
						case f.Property == generate.RoundTrip:
							unusable = append(unusable, f)
						case f.Exchange.Status/100 != 2:
							owned = append(owned, f)
						}
						continue
					}
					byReq[f.Requirement] = append(byReq[f.Requirement], f.String())
				}
				blocked := len(unusable) > 0 && len(byReq[generate.RoundTrip]) == 0
				ownedOnly := len(owned) > 0 && len(byReq[p.ID]) == 0
				// A refusal of the caller's token that GET /v1/user accepts right
				// after belongs to the token's place, which this property does
				// not own: a finding of that requirement, the property judged on
				// the rest.
				all := append(slices.Clone(p.Owners), p.ID)
				for _, r := range slices.Sorted(maps.Keys(byReq)) {
					if !slices.Contains(all, r) {
						e.noteSoft(r, refusedAcceptedSig, strings.Join(byReq[r], "\n"))
						delete(byReq, r)
					}
				}
				// Those that hold first, so a failure of one leaves the others
				// judged; then the failing ones, the document's own first.
				for _, r := range all {
					if len(byReq[r]) == 0 && !(blocked && r == generate.RoundTrip) && !(ownedOnly && r == p.ID) {
						e.verifies(r, func() {})
					}
				}
				for _, r := range all {
					if texts := byReq[r]; len(texts) > 0 {
						e.verifies(r, func() { e.fail(fmt.Sprintf("%d operation(s) break %s:\n%s", len(texts), r, strings.Join(texts, "\n"))) })
					}
				}
				if ownedOnly {
					f := owned[0]
					e.step(f.Unusable, func() {
						e.fail(fmt.Sprintf("%d valid generated request(s) refused with a status the document does not give; the first, under %s, which the document checker reports:\n%s", len(owned), f.Unusable, f.String()))
					})
				}
				if blocked {
					f := unusable[0]
					e.step(f.Unusable, func() {
						e.fail(fmt.Sprintf("%s %s: an answer it needed breaks %s, so the round trip could not be judged:\n%s", f.Property, f.Operation, f.Unusable, f.String()))
					})
				}
				if err := rep.Err(); err != nil {
					var be *generate.BlockedError
					if errors.As(err, &be) {
						if be.Requirement == "AUTH-BEARER" {
							e.noteSoft(be.Requirement, refusedAcceptedSig, be.Text)
						}
						e.step(be.Requirement, func() { e.fail(be.Text) })
					}
					e.transportFailure(err)
				}
			})
		}
	})
}

// documentOwners returns the requirements the document checker reports a
// failure under, when that report is the failure's one finding: a success
// that breaks the document in ways each owned by a requirement of the
// catalogue (a send answered 201 is MSG-SEND-200's wherever it is met), or
// a valid request answered with a status the document does not give its
// operation (the operation's requirement, which the status breaks). It
// returns nil otherwise: a valid request refused with a documented status
// is the property's own finding, whatever else its answer breaks, as is a
// success with a breach no requirement owns but the property.
func (e *Env) documentOwners(f generate.Failure) []string {
	x := f.Exchange
	switch {
	case x == nil:
		return nil
	case x.Status/100 != 2:
		// Only the status is the finding of a refusal (a token refused is
		// its place's, see refusedAccepted: not the property's own).
		if f.Property != generate.ValidAnswer || f.Requirement != generate.ValidAnswer {
			return nil
		}
		for _, v := range x.Violations {
			if v.Side == "response" && v.Rule == "status" {
				if id := DocumentBlame(x, v, e.Profile); id != "" {
					return []string{id}
				}
			}
		}
		return nil
	case f.Property == generate.ValidAnswer, f.Property == generate.RoundTrip && f.Wrote == nil:
		// A valid request's success, or a round trip's success that carried
		// no message id (the only round-trip failure that wrote nothing).
	default:
		return nil
	}
	var owners []string
	for _, v := range x.Violations {
		if v.Side != "response" || v.Rule == "cut" {
			continue
		}
		id := DocumentBlame(x, v, e.Profile)
		if id == "" {
			return nil
		}
		if !slices.Contains(owners, id) {
			owners = append(owners, id)
		}
	}
	return owners
}
