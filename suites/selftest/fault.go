package selftest

import (
	"net/http"
	"slices"
	"sort"
	"strings"
)

// Classes of planted faults. Each class is applied to every requirement it
// fits; a fault is named REQUIREMENT-ID/class.
const (
	IgnoresInput = "ignores-input" // a parameter, cursor, query, body field or header is ignored; a plausible default comes back
	WrongSubject = "wrong-subject" // the right operation on the wrong user, message, room or set
	StaleDerived = "stale-derived" // after a write, derived fields (rendering, metadata, counts, flags) keep old values
	NotStored    = "not-stored"    // answered correctly but not persisted, or persisted but answered wrongly
	TooWide      = "too-wide"      // an effect meant for one user or room reaches others
	Collateral   = "collateral"    // a write (or a read) changes a field it must leave alone
	Shape        = "shape"         // type, format, presence or encoding of a documented field
	Intermittent = "intermittent"  // the defect shows on one response in N
)

// Classes lists the fault classes in report order.
func Classes() []string {
	return []string{IgnoresInput, WrongSubject, StaleDerived, NotStored, TooWide, Collateral, Shape, Intermittent}
}

// Origin is the round of work that wrote a fault or a variant. It is a
// record of history only: it changes neither what the fault does nor how
// it is judged, and the matrix does not show it.
type Origin string

const (
	// FirstCatalogue is the first catalogue: one fault per checkable core
	// requirement, each the defect its checks were first written against,
	// and the first conforming variants.
	FirstCatalogue Origin = "first catalogue"
	// ByClass is faults by class: each class applied to every requirement
	// it fits. Together with the first catalogue every checkable core
	// requirement has at least three where the classes fit.
	ByClass Origin = "by class"
	// OpenPoints is variants: conforming choices on points the API document
	// leaves open, each breaking an assumption a check might make.
	OpenPoints Origin = "open points"
	// Assumptions is variants: conforming servers, each breaking one
	// assumption that suites/conformance/ASSUMPTIONS.md lists as something
	// a check must not make.
	Assumptions Origin = "assumptions"
	// BlindRound1 is faults and variants written without reading the
	// checks. Each fault is what a lazy or sloppy implementer might ship,
	// the least work that still answers plausibly, and each breaks a
	// statement of the API document that a client can observe: they test
	// the checks from outside, where the other faults were written beside
	// them. Each variant follows the API document and chooses differently
	// where it is silent; two of them rest on a reading of the document that
	// is open to doubt, and their What says so.
	BlindRound1 Origin = "blind round 1"
	// BlindRound2 is a second round written without reading the checks.
	// Most of its faults show only in a corner: for the second user, on a
	// cursor page, after a second edit, for a status update, with non-ASCII
	// text, with the token in the query, for rooms of one kind, or for a
	// list of one. Most of its variants choose differently in how answers
	// are written (JSON layout and escaping, compression, headers, list
	// order) and in what the server does with requests the document gives
	// no answer for; the What of one that rests on a reading open to doubt
	// says so.
	BlindRound2 Origin = "blind round 2"
	// Independent is the second implementation (package independent),
	// written from the API description alone by an author who read neither
	// the checks nor the reference server: its own world, ids, page order
	// and errors. Its variant is that server as it is; its faults are the
	// defects its author planted in it, each switched on by name.
	Independent Origin = "independent implementation"
	// OtherWorlds is variants written when the checks were first tried on
	// servers they had not been written beside: worlds unlike the reference
	// server's, and pages in no order over timestamps that tie.
	OtherWorlds Origin = "other worlds"
	// HistoryRound is faults written for the history checker: each shows
	// on one answer in N, where no check looks, but contradicts another
	// answer of the run.
	HistoryRound Origin = "history"
	// GeneratedRound is faults written for the generated checks: each
	// shows only on an input no hand-written check sends.
	GeneratedRound Origin = "generated inputs"
	// ModelRound is faults written for the model of the API: each breaks
	// a statement only a sequence of operations shows (the wrong room's
	// path, a cursor at the edge of what a room holds, a body of several
	// ids, a repeated write, a write acknowledged and lost, a required
	// field left out, two parameters together).
	ModelRound Origin = "model"
	// HeldOut is the defects planted in the independent implementation by
	// an author who had read neither the checks, the model nor the
	// self-test, written before the model (see independent.HeldOut); no
	// check was written to catch one of them in particular.
	HeldOut Origin = "held-out"
	// HeldOut2 is a second set of defects planted in the independent
	// implementation blind (see independent.HeldOut2), written after the
	// model's first round and measured before its second.
	HeldOut2 Origin = "held-out-2"
	// HeldOut3 is a third set written blind the same way (see
	// independent.HeldOut3), after the second round of attribution work
	// and before any check was written for it.
	HeldOut3 Origin = "held-out-3"
	// HeldOut4 is a fourth set written blind the same way (see
	// independent.HeldOut4), after the fourth round of the model's class
	// rules, and measured before any check was changed for it.
	HeldOut4 Origin = "held-out-4"
	// HeldOut5 is a fifth set written blind the same way (see
	// independent.HeldOut5), after the fifth round: measured before any
	// check was changed for it.
	HeldOut5 Origin = "held-out-5"
	// HeldOut6 is a sixth set written blind the same way (see
	// independent.HeldOut6), after the sixth round: measured before any
	// check was changed for it.
	HeldOut6 Origin = "held-out-6"
	// HeldOut7 is a seventh set written blind the same way (see
	// independent.HeldOut7), after the seventh round: measured before any
	// check was changed for it.
	HeldOut7 Origin = "held-out-7"
	// HeldOut8 is an eighth set written blind the same way (see
	// independent.HeldOut8), after the eleventh session: measured before
	// any check was changed for it.
	HeldOut8 Origin = "held-out-8"
)

// Origins lists the origins in the order they were written.
func Origins() []Origin {
	return []Origin{FirstCatalogue, ByClass, OpenPoints, Assumptions, BlindRound1, BlindRound2, Independent, OtherWorlds, HistoryRound, GeneratedRound, ModelRound, HeldOut, HeldOut2, HeldOut3, HeldOut4, HeldOut5, HeldOut6, HeldOut7, HeldOut8}
}

// Fault is a planted defect: a decorator around the unmodified reference
// server that breaks one requirement of the catalogue.
type Fault struct {
	// Name is REQUIREMENT-ID/class, with #2, #3 ... when a class holds
	// several faults of one requirement. It is written where the fault is
	// declared, never derived from where the declaration stands.
	Name   string
	Req    string // the catalogue id the fault breaks
	Class  string
	Origin Origin // the round of work that wrote the fault
	What   string // what the decorated server does, in words
	// Survives, when not empty, is why the core checks do not catch the
	// fault: either what a check would have to look at (a gap the checks
	// can close) or why no outside client can see it.
	Survives string
	steps    []step
	// plainHTTP serves plain http on the HTTPS port as well (a fault of the
	// listener, not of the handler).
	plainHTTP bool
	// wholeRun runs the fault against the whole core profile even by
	// default: its requirement is judged by the history checker over a
	// whole run, and no check is labelled with it.
	wholeRun bool
	// defect, when not empty, is a defect of the independent implementation:
	// the fault is that server with the defect switched on, not a decorator
	// around the reference server.
	defect string
}

// fault declares a fault of origin o by its name, REQUIREMENT-ID/class or
// REQUIREMENT-ID/class#N; the requirement and the class are read from the
// name. The name is the fault's for good (the survivors' reasons, --only,
// --serve and matrices already written refer to it): a new fault takes the
// next number free for its requirement and class, and a removed fault's
// number is not given again.
func (o Origin) fault(name, what string, steps ...step) Fault {
	req, class, _ := strings.Cut(name, "/")
	class, _, _ = strings.Cut(class, "#")
	return Fault{Name: name, Req: req, Class: class, Origin: o, What: what, steps: steps}
}

// inIndependent makes the fault the independent implementation with its
// author's defect of that name switched on (see independent.Defects).
func (f Fault) inIndependent(defect string) Fault { f.defect = defect; return f }

// inWholeRun marks a fault whose requirement only the history checker
// judges (see Fault.wholeRun).
func (f Fault) inWholeRun() Fault { f.wholeRun = true; return f }

// withPlainHTTP has the fault's listener serve plain http on the HTTPS port
// as well.
func (f Fault) withPlainHTTP() Fault { f.plainHTTP = true; return f }

// survives records why a fault is expected to survive the core checks.
func (f Fault) survives(reason string) Fault { f.Survives = reason; return f }

// Faults returns the whole catalogue, sorted by name.
func Faults() []Fault {
	all := slices.Concat(transportFaults(), userFaults(), roomFaults(), unreadFaults(),
		messageFaults(), renderingFaults(), paginationFaults(), searchFaults(), generatedFaults(),
		modelMessageFaults(), modelPaginationFaults(), modelUnreadFaults(), modelRoomFaults(),
		heldOutTransportFaults(), heldOutUserFaults(), heldOutRoomsFaults(), heldOutUnreadFaults(), heldOutMessagesFaults(),
		heldOutRenderingFaults(), heldOutPaginationFaults(), heldOutSearchFaults(),
		heldOut2MessagesFaults(), heldOut2PaginationFaults(), heldOut2RenderingFaults(), heldOut2RoomsFaults(), heldOut2SearchFaults(), heldOut2TransportFaults(), heldOut2UnreadFaults(), heldOut2UserFaults(),
		heldOut3MessagesFaults(), heldOut3PaginationFaults(), heldOut3RenderingFaults(), heldOut3RoomsFaults(), heldOut3SearchFaults(), heldOut3TransportFaults(), heldOut3UnreadFaults(), heldOut3UserFaults(), heldOut4MessagesFaults(), heldOut4PaginationFaults(), heldOut4RenderingFaults(), heldOut4RoomsFaults(), heldOut4SearchFaults(), heldOut4TransportFaults(), heldOut4UnreadFaults(), heldOut4UserFaults(),
		heldOut5MessagesFaults(), heldOut5PaginationFaults(), heldOut5RenderingFaults(), heldOut5RoomsFaults(), heldOut5SearchFaults(), heldOut5TransportFaults(), heldOut5UnreadFaults(), heldOut5UserFaults(),
		heldOut6MessagesFaults(), heldOut6PaginationFaults(), heldOut6RenderingFaults(), heldOut6RoomsFaults(), heldOut6SearchFaults(), heldOut6TransportFaults(), heldOut6UnreadFaults(), heldOut6UserFaults(),
		heldOut7MessagesFaults(), heldOut7PaginationFaults(), heldOut7RenderingFaults(), heldOut7RoomsFaults(), heldOut7SearchFaults(), heldOut7TransportFaults(), heldOut7UnreadFaults(), heldOut7UserFaults(),
		heldOut8MessagesFaults(), heldOut8PaginationFaults(), heldOut8RenderingFaults(), heldOut8RoomsFaults(), heldOut8SearchFaults(), heldOut8TransportFaults(), heldOut8UnreadFaults(), heldOut8UserFaults())
	for i := range all {
		if all[i].Survives == "" {
			all[i].Survives = survivalReason(all[i])
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// Handler decorates inner, an unmodified reference server, with the fault.
func (f Fault) handler(inner http.Handler, st *state) http.Handler {
	return decorate(inner, st, f.steps)
}
