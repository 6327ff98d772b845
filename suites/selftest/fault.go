package selftest

import (
	"fmt"
	"net/http"
	"sort"
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

// Fault is a planted defect: a decorator around the unmodified reference
// server that breaks one requirement of the catalogue.
type Fault struct {
	Name  string // REQUIREMENT-ID/class, with #2, #3 ... when a class holds several faults of one requirement
	Req   string // the catalogue id the fault breaks
	Class string
	What  string // what the decorated server does, in words
	// Survives, when not empty, is why the core checks do not catch the
	// fault: either what a check would have to look at (a gap the checks
	// can close) or why no outside client can see it.
	Survives string
	steps    []step
	// plainHTTP serves plain http on the HTTPS port as well (a fault of the
	// listener, not of the handler).
	plainHTTP bool
}

// fault declares a fault; the catalogue names it.
func fault(req, class, what string, steps ...step) Fault {
	return Fault{Req: req, Class: class, What: what, steps: steps}
}

// survives records why a fault is expected to survive the core checks.
func (f Fault) survives(reason string) Fault { f.Survives = reason; return f }

// Faults returns the whole catalogue, sorted by name.
func Faults() []Fault {
	all := append(legacyFaults(), classFaults()...)
	all = append(all, blindFaults()...)
	all = append(all, blind2Faults()...)
	seen := map[string]int{}
	for i := range all {
		base := all[i].Req + "/" + all[i].Class
		seen[base]++
		all[i].Name = base
		if n := seen[base]; n > 1 {
			all[i].Name = fmt.Sprintf("%s#%d", base, n)
		}
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
