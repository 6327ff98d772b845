package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/model"
)

// The model of the API (package model) drives random sequences of
// operations by every user of the write room and holds each answer to what
// the description allows in the model's state. One check per area, each
// judging its area's requirements, so a defect of one area does not hide
// the others'.

type modelArea struct {
	text  string
	reqs  []string
	mix   model.Mix
	steps int
	users int // described users the area needs
	// apart says the area's statements are each about one answer and
	// what the model wrote, so a breach of one tells nothing of the
	// others: after a finding the area's sequences are drawn again
	// without the requirements found, until each is judged.
	apart bool
}

var modelAreas = []modelArea{
	{"sends, edits and reads by id keep to the model of the API over random sequences",
		[]string{"MSG-SEND-200", "MSG-SEND-DEFAULTS", "MSG-SEND-EDITEDAT-NULL", "MSG-SEND-TEXT", "MSG-SEND-STATUS", "MSG-SEND-STORED",
			"MSG-EDIT", "MSG-EDIT-EDITEDAT", "MSG-EDIT-V-INC", "MSG-EDIT-PERSISTED", "MSG-GET-ONE", "MSG-ROOM-SCOPE", "MSG-TEXT-REQUIRED", "GEN-NO-5XX", "HTTP-JSON-BODY"},
		model.Mix{model.Send: 4, model.SendNoText: 1, model.Edit: 4, model.EditNoText: 1, model.Get: 4, model.List: 1, model.Mark: 1}, 30, 1, false},
	{"pages with every combination of cursors and limit keep to the model of the API over random sequences",
		[]string{"MSG-LIST", "PAGE-LIMIT", "PAGE-UNIQUE", "PAGE-BEFOREID", "PAGE-BEFOREID-WALK", "PAGE-AFTERID", "PAGE-AROUNDID", "LIMIT-CAP", "LIMIT-100", "MSG-ROOM-SCOPE", "GEN-NO-5XX"},
		model.Mix{model.Send: 3, model.List: 6, model.Edit: 1}, 40, 1, false},
	{"unread state, marking read and readBy, in pages and search results, keep to the model of the API over random sequences",
		[]string{"UNREAD-CHAT", "UNREAD-MENTION", "UNREAD-MARK-READ", "UNREAD-READBY", "UNREAD-FLAG", "GEN-NO-5XX"},
		model.Mix{model.Send: 3, model.Edit: 1, model.Mark: 3, model.Unread: 3, model.Get: 1, model.List: 1, model.Search: 1}, 30, 2, false},
	{"mentions, issue references and links are rendered and listed in every answer, over random sequences of sends and edits",
		[]string{"RENDER-MENTION", "RENDER-ISSUE", "RENDER-LINK", "RENDER-ESCAPE", "META-URLS", "META-MENTIONS", "META-ISSUES"},
		model.Mix{model.Send: 4, model.Edit: 2, model.Get: 2, model.List: 1}, 30, 1, true},
	{"searches (for the room's words and another room's), the room's unread counts and lastAccessTime in every list that holds it keep to the model of the API over random sequences",
		[]string{"SEARCH-Q", "PAGE-UNIQUE", "MSG-ROOM-SCOPE", "UNREAD-ROOM-COUNTS", "ROOM-LAST-ACCESS"},
		model.Mix{model.Send: 3, model.Edit: 1, model.Mark: 1, model.Rooms: 3, model.Search: 3}, 30, 1, true},
}

func modelSpecs(d decl) {
	Describe("The model of the API", func() {
		for _, a := range modelAreas {
			d.long().it(a.text, reqs(a.reqs...), func(e *Env) { e.runModel(a) })
		}
	})
}

func (e *Env) runModel(a modelArea) {
	GinkgoHelper()
	e.needUsers(a.users)
	room := e.writeRoom()
	sequences := e.ModelSequences
	if sequences == 0 && a.mix[model.List] > a.mix[model.Send] {
		sequences = 6 // pages have the most combinations to walk through
	}
	cfg := model.Config{Judge: a.reqs, Mix: a.mix, Seed: e.Seed, Steps: a.steps, Sequences: sequences,
		Eventually: e.Eventually, SoleWriter: e.SoleWriter, SharedUsers: e.Beside, Marker: e.Marker(),
		Unusable: func(resp *client.Response) (string, string, []string) {
			owner, sig := unusable(resp, resp.Violations)
			return owner, sig, breaches(resp, resp.Violations)
		}}
	e.noteModelReads(a.mix)
	var err error
	e.step("ROOM-LIST", func() { err = model.FromTarget(e.ctx, e.Client, e.Target, &cfg) })
	var reps []*model.Report
	for err == nil {
		var rep *model.Report
		rep, err = model.Run(e.ctx, cfg)
		if rep == nil {
			break
		}
		for i, ids := range rep.Unread { // leave nothing unread for the next run
			e.left.mu.Lock()
			reader := cfg.Users[i].Index
			if e.left.ids[reader] == nil {
				e.left.ids[reader] = map[string][]string{}
			}
			e.left.ids[reader][room] = append(e.left.ids[reader][room], ids...)
			e.left.mu.Unlock()
		}
		reps = append(reps, rep)
		if err != nil {
			break
		}
		if rep.Blocked != "" {
			// An answer of another requirement's the area could not use:
			// draw again without the kind of operation that met it, so
			// that what the other kinds apply is judged all the same.
			if mix := withoutKind(cfg.Mix, rep.BlockedOp); mix != nil && len(reps) <= maxRedraws {
				cfg.Mix = mix
				cfg.Seed = e.Seed + uint64(len(reps))<<32
				continue
			}
			break
		}
		if !a.apart || rep.Finding == nil {
			break
		}
		// Judge the rest of the area without what was found.
		cfg.Judge = slices.DeleteFunc(slices.Clone(cfg.Judge), func(r string) bool { return r == rep.Finding.Requirement })
		if len(cfg.Judge) == 0 {
			break
		}
		cfg.Seed = e.Seed + uint64(len(reps))<<32 // other draws: other words, not the first run's again
	}
	if len(reps) > 0 {
		e.judgeModel(a, reps)
	}
	var te *model.TransportError
	if errors.As(err, &te) {
		e.transportFailure(te.Err)
	} else if err != nil {
		e.fail(err.Error())
	}
}

// modelReads are the kinds of read (see readKind) each kind of the
// model's operations makes.
var modelReads = map[model.Kind][]string{model.Get: {"getMessage"}, model.List: {"listMessages", "aroundId"},
	model.Search: {"q"}, model.Rooms: {"listUserRooms"}}

// noteModelReads records the kinds of read an area's sequences make, as
// noteWrite records a check's own: the model's requests do not pass
// through call.
func (e *Env) noteModelReads(mix model.Mix) {
	if e.wrote == nil {
		return
	}
	e.wrote.mu.Lock()
	defer e.wrote.mu.Unlock()
	if e.wrote.reads == nil {
		e.wrote.reads = map[string]bool{}
	}
	for kind, n := range mix {
		for _, r := range modelReads[kind] {
			e.wrote.reads[r] = e.wrote.reads[r] || n > 0
		}
	}
}

// maxRedraws bounds the runs of an area drawn again without a kind of
// operation whose answers blocked it.
const maxRedraws = 2

// withoutKind is mix without kind k, or nil when k is not in it, when k
// is Send (without sends a sequence has no message of its own, and what it
// would apply is judged on none), or when nothing would be left to draw
// but sends (sends alone judge only themselves).
func withoutKind(mix model.Mix, k model.Kind) model.Mix {
	if mix[k] == 0 || k == model.Send {
		return nil
	}
	out := model.Mix{}
	for kind, n := range mix {
		if kind != k && n > 0 {
			out[kind] = n
		}
	}
	if len(out) == 0 || len(out) == 1 && out[model.Send] > 0 {
		return nil
	}
	return out
}

// judgeModel reports the area's runs: the first run's, and for an area
// whose statements stand apart the runs drawn again without what an
// earlier one found. The first finding is the check's failure; those of
// later runs are findings of their requirements met on the way.
func (e *Env) judgeModel(a modelArea, reps []*model.Report) {
	GinkgoHelper()
	var applied, ranThrough []string
	failed := map[string]bool{}
	for i, rep := range reps {
		what := "the model's sequences"
		switch {
		case i > 0 && reps[i-1].Blocked != "":
			what = "drawn again, also without " + reps[i-1].BlockedOp.String() + " operations"
		case i > 0:
			what = "drawn again without " + reps[i-1].Finding.Requirement
		}
		e.by(fmt.Sprintf("%s: %d sequences, %d operations, %d requests; statements of %s applied", what, rep.Sequences, rep.Operations, rep.Requests, strings.Join(rep.Applied, ", ")))
		for _, r := range rep.Applied {
			if !slices.Contains(applied, r) {
				applied = append(applied, r)
			}
			if rep.Blocked == "" && !slices.Contains(ranThrough, r) {
				ranThrough = append(ranThrough, r)
			}
		}
		if rep.Finding != nil {
			failed[rep.Finding.Requirement] = true
		}
	}
	for _, rep := range reps {
		for _, m := range rep.Met { // answers read again: breaches of other requirements, met here
			what := "gave the model's sequence an answer nothing could be read in: the sequence read it again, and went on with the second answer, or without the read when that one was no better"
			if m.Made {
				what = "gave the model's sequence an answer it could not use, though the write was made: the sequence read it back and went on with what it read"
			}
			e.noteSoft(m.Requirement, m.Signature, explain(m.Response, what))
		}
	}
	first := reps[0]
	if first.Blocked == "AUTH-BEARER" {
		e.noteSoft(first.Blocked, refusedAcceptedSig, "the model's sequence: "+first.BlockedText) // see the model's wanted
	}
	later := func() {
		for _, rep := range reps[1:] {
			if rep.Blocked != "" {
				e.by(fmt.Sprintf("the area drawn again could not go on (%s): %s", rep.Blocked, rep.BlockedText))
			}
			if f := rep.Finding; f != nil {
				for _, w := range f.Writes {
					e.noteWrite(w.User, w.Request, w.Response)
				}
				e.noteSoft(f.Requirement, "the model: "+f.Requirement, e.Client.Redactor().String(f.String()))
			}
		}
	}
	if first.Blocked != "" {
		// The area is blocked; what the runs drawn again without the
		// blocking kinds of operation applied and found held (to their end,
		// or up to a finding) is judged.
		later()
		for _, r := range ranThrough {
			if !failed[r] {
				e.verifies(r, func() {})
			}
		}
		e.step(first.Blocked, func() { e.fail("the model needed an answer it could not use: " + first.BlockedText) })
	}
	for _, r := range applied {
		if !failed[r] {
			e.verifies(r, func() {})
		}
	}
	for _, r := range e.ids {
		if !failed[r] && !slices.Contains(applied, r) {
			e.entry(EntryNotApplied, r+"\nno sequence of the model's draws applied a statement of "+r+" in this run")
		}
	}
	later()
	if f := first.Finding; f != nil {
		for _, w := range f.Writes { // for the root probe, should the finding stand on a lost write
			e.noteWrite(w.User, w.Request, w.Response)
		}
		e.verifies(f.Requirement, func() {
			e.fail(e.Client.Redactor().String(f.String()))
		})
	}
}
