package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

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
}

var modelAreas = []modelArea{
	{"sends, edits and reads by id keep to the model of the API over random sequences",
		[]string{"MSG-SEND-200", "MSG-SEND-DEFAULTS", "MSG-SEND-EDITEDAT-NULL", "MSG-SEND-TEXT", "MSG-SEND-STATUS", "MSG-SEND-STORED",
			"MSG-EDIT", "MSG-EDIT-EDITEDAT", "MSG-EDIT-V-INC", "MSG-EDIT-PERSISTED", "MSG-GET-ONE", "MSG-ROOM-SCOPE", "MSG-TEXT-REQUIRED", "GEN-NO-5XX"},
		model.Mix{model.Send: 4, model.SendNoText: 1, model.Edit: 4, model.EditNoText: 1, model.Get: 4, model.List: 1, model.Mark: 1}, 30, 1},
	{"pages with every combination of cursors and limit keep to the model of the API over random sequences",
		[]string{"MSG-LIST", "PAGE-LIMIT", "PAGE-UNIQUE", "PAGE-BEFOREID", "PAGE-BEFOREID-WALK", "PAGE-AFTERID", "PAGE-AROUNDID", "LIMIT-CAP", "LIMIT-100", "MSG-ROOM-SCOPE", "GEN-NO-5XX"},
		model.Mix{model.Send: 3, model.List: 6, model.Edit: 1}, 40, 1},
	{"unread state, marking read and readBy, in pages and search results, keep to the model of the API over random sequences",
		[]string{"UNREAD-CHAT", "UNREAD-MENTION", "UNREAD-MARK-READ", "UNREAD-READBY", "UNREAD-FLAG", "GEN-NO-5XX"},
		model.Mix{model.Send: 3, model.Edit: 1, model.Mark: 3, model.Unread: 3, model.Get: 1, model.List: 1, model.Search: 1}, 30, 2},
	{"mentions, issue references and links are rendered and listed in every answer, over random sequences of sends and edits",
		[]string{"RENDER-MENTION", "RENDER-ISSUE", "RENDER-LINK", "RENDER-ESCAPE", "META-URLS", "META-MENTIONS", "META-ISSUES"},
		model.Mix{model.Send: 4, model.Edit: 2, model.Get: 2, model.List: 1}, 30, 1},
	{"searches (for the room's words and another room's), the room's unread counts and lastAccessTime in every list that holds it keep to the model of the API over random sequences",
		[]string{"SEARCH-Q", "PAGE-UNIQUE", "MSG-ROOM-SCOPE", "UNREAD-ROOM-COUNTS", "ROOM-LAST-ACCESS"},
		model.Mix{model.Send: 3, model.Edit: 1, model.Mark: 1, model.Rooms: 3, model.Search: 3}, 30, 1},
}

func modelSpecs(d decl) {
	Describe("The model of the API", func() {
		for _, a := range modelAreas {
			d.it(a.text, reqs(a.reqs...), func(e *Env) { e.runModel(a) })
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
		Eventually: e.Eventually, SoleWriter: e.SoleWriter, Marker: e.Marker()}
	var err error
	e.step("ROOM-LIST", func() { err = model.FromTarget(e.ctx, e.Client, e.Target, &cfg) })
	if err == nil {
		var rep *model.Report
		rep, err = model.Run(e.ctx, cfg)
		if rep != nil {
			for i, ids := range rep.Unread { // leave nothing unread for the next run
				e.left.mu.Lock()
				reader := cfg.Users[i].Index
				if e.left.ids[reader] == nil {
					e.left.ids[reader] = map[string][]string{}
				}
				e.left.ids[reader][room] = append(e.left.ids[reader][room], ids...)
				e.left.mu.Unlock()
			}
			e.judgeModel(a, rep)
		}
	}
	var te *model.TransportError
	if errors.As(err, &te) {
		transportFailure(te.Err)
	} else if err != nil {
		Fail(err.Error())
	}
}

func (e *Env) judgeModel(a modelArea, rep *model.Report) {
	GinkgoHelper()
	By(fmt.Sprintf("%d sequences, %d operations, %d requests; statements of %s applied", rep.Sequences, rep.Operations, rep.Requests, strings.Join(rep.Applied, ", ")))
	if rep.Blocked == "AUTH-BEARER" {
		e.noteSoft(rep.Blocked, refusedAcceptedSig, "the model's sequence: "+rep.BlockedText) // see the model's wanted
	}
	if rep.Blocked != "" {
		e.step(rep.Blocked, func() { Fail("the model needed an answer it could not use: " + rep.BlockedText) })
	}
	failed := ""
	if rep.Finding != nil {
		failed = rep.Finding.Requirement
	}
	for _, r := range rep.Applied {
		if r != failed {
			e.verifies(r, func() {})
		}
	}
	for _, r := range e.ids {
		if r != failed && !slices.Contains(rep.Applied, r) {
			AddReportEntry(EntryNotApplied, r+"\nno sequence of the model's draws applied a statement of "+r+" in this run")
		}
	}
	if rep.Finding != nil {
		for _, w := range rep.Finding.Writes { // for the root probe, should the finding stand on a lost write
			e.noteWrite(w.User, w.Request, w.Response)
		}
		e.verifies(failed, func() {
			Fail(e.Client.Redactor().String(rep.Finding.String()))
		})
	}
}
