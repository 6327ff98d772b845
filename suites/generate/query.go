package generate

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

func (b *builder) queryValues(d defectChoice) bool {
	q := url.Values{}
	b.cs.query = q
	cursors := 0
	for _, p := range b.op.Query {
		s := schemaOf(p.Schema)
		if s == nil {
			continue
		}
		if d.param == p.Name && d.kind >= dQueryWrongType && d.kind <= dQueryPattern {
			b.queryDefect(p, s, d)
			continue
		}
		v, set := b.queryValue(p, s)
		if !set {
			continue
		}
		q.Set(p.Name, v)
		b.cs.qdesc = append(b.cs.qdesc, p.Name+"="+describeQuery(v))
		if refOf(p.Name) == refMessage {
			cursors++
		}
	}
	if cursors > 1 {
		b.cs.note(refusable, ref2xx, "%d cursors combined (the document does not say how they combine)", cursors)
	}
	if cursors > 0 && q.Get("q") != "" {
		b.cs.note(refusable, ref2xx, "a cursor combined with q (the document does not say how they combine)")
	}
	if d.kind == dQueryUnknown {
		b.unknownQuery()
	}
	return true
}

func describeQuery(v string) string {
	if len([]rune(v)) > 24 {
		return describeText(v)
	}
	return v
}

// queryValue picks a value the parameter's schema allows, or none.
func (b *builder) queryValue(p *openapi3.Parameter, s *openapi3.Schema) (string, bool) {
	label := "query " + p.Name
	switch {
	case s.Type.Is("integer"):
		lo, hi, hasMin := 0, 1000, s.Min != nil
		if hasMin {
			lo = int(*s.Min)
		}
		if s.Max != nil {
			hi = int(*s.Max)
		}
		alts := []func() int{
			func() int { return lo }, func() int { return lo + 1 }, func() int { return hi },
			func() int { return hi - 1 }, func() int { return b.c.vary(label+" value", lo, hi) },
		}
		if !hasMin && !b.plain {
			alts = append(alts, func() int { return -b.c.vary(label+" negative", 1, 10) })
		}
		weights := append([]int{len(alts)}, uniform(len(alts))...)
		i := b.c.pick(label, weights...)
		if i == 0 {
			return "", false
		}
		n := alts[i-1]()
		if n < 0 {
			b.cs.note(refusable, ref2xx, "%s is negative (the document gives no meaning to it)", p.Name)
		}
		if n == 0 && p.Name == "limit" {
			// A page of at most no messages: the document gives no lower
			// bound, so a server may refuse it rather than answer nothing.
			b.cs.note(refusable, ref2xx, "limit is 0 (the document gives limit no lower bound or meaning at 0)")
		}
		return strconv.Itoa(n), true
	case s.Type.Is("string") && refOf(p.Name) == refMessage:
		type alt struct {
			value, why string
		}
		alts := []alt{}
		if ms := b.w.messagesIn(b.cs.room); len(ms) > 0 {
			// The ends of what is known of the room: the oldest and the
			// newest message (the newest page read before the run, and
			// the messages the engine sent).
			oldest, newest := oldestNewest(ms)
			alts = append(alts, alt{oldest.ID, ""})
			if newest.ID != oldest.ID {
				alts = append(alts, alt{newest.ID, ""})
			}
		}
		if !b.plain {
			alts = append(alts, alt{unknownID(b.w.caller().ID), "an unknown message id"})
			if m, ok := b.otherRoomMessage(b.cs.room); ok {
				alts = append(alts, alt{m.ID, "a message of another room"})
			}
			if s.Pattern == "" {
				alts = append(alts, alt{shortText(b.c, label+" text", asciiLetters), "not an id of this server"})
			}
		}
		// Absent twice as likely as any single cursor value: many cursors
		// together are a corner case, not the common one.
		weights := append([]int{2 * len(alts)}, uniform(len(alts))...)
		i := b.c.pick(label, weights...)
		if i == 0 {
			return "", false
		}
		a := alts[i-1]
		if a.why != "" {
			b.cs.note(refusable, ref2xx, "%s is %s", p.Name, a.why)
		}
		return a.value, true
	case s.Type.Is("string"):
		i := b.c.pick(label, 3, 1, 1, 1, 1)
		switch i {
		case 0:
			return "", false
		case 1:
			return shortText(b.c, label+" text", asciiLetters), true
		case 2:
			return shortText(b.c, label+" text", anyOf(b.c, label+" alphabet", textAlphabets)), true
		case 3:
			return shortText(b.c, label+" text", markup), true
		default:
			return longText(b.c, label+" long", anyOf(b.c, label+" alphabet", textAlphabets), 300), true
		}
	case s.Type.Is("boolean"):
		i := b.c.pick(label, 2, 1, 1)
		if i == 0 {
			return "", false
		}
		return strconv.FormatBool(i == 2), true
	}
	if len(s.Enum) > 0 {
		i := b.c.pick(label, append([]int{len(s.Enum)}, uniform(len(s.Enum))...)...)
		if i == 0 {
			return "", false
		}
		return fmt.Sprint(s.Enum[i-1]), true
	}
	return "", false
}

// queryDefect sets one query parameter to a value its schema forbids.
func (b *builder) queryDefect(p *openapi3.Parameter, s *openapi3.Schema, d defectChoice) {
	label := "query " + p.Name + " departure"
	var v, what string
	ref := refBadRequest
	switch d.kind {
	case dQueryWrongType:
		// The empty value first: the coverage case takes it, as a
		// server may read it as no value at all.
		values := []string{"", "abc", "1.5", "true", "٣", "99999999999999999999999"}
		v = values[b.c.prefer(label, uniform(len(values))...)]
		what = "not an integer"
		if v == "99999999999999999999999" {
			what = "an integer far above any bound"
		}
	case dQueryAboveMax:
		hi := int(*s.Max)
		v = strconv.Itoa([]int{hi + 1, hi + b.c.vary(label+" excess", 2, 10000)}[b.c.prefer(label, 3, 1)])
		what = fmt.Sprintf("above its maximum %d", hi)
		if refClampsAbove(p.Name) {
			ref = ref2xx
		}
	case dQueryBelowMin:
		lo := int(*s.Min)
		v = strconv.Itoa([]int{lo - 1, lo - b.c.vary(label+" excess", 2, 10000)}[b.c.prefer(label, 3, 1)])
		what = fmt.Sprintf("below its minimum %d", lo)
	case dQueryPattern:
		v = anyOf(b.c, label, malformedIDs(b.w.caller().ID))
		what = "not of the pattern " + s.Pattern
	}
	b.cs.query.Set(p.Name, v)
	b.cs.qdesc = append(b.cs.qdesc, p.Name+"="+describeQuery(v))
	b.cs.note(invalid, ref, "query %s is %s", p.Name, what)
}

// refClampsAbove names the parameters the reference profile clamps instead
// of refusing above their maximum (REF-LIMIT: a limit above 100 is served
// as 100).
func refClampsAbove(name string) bool { return name == "limit" }

// unknownQuery adds a parameter the operation does not document.
func (b *builder) unknownQuery() {
	name := anyOf(b.c, "unknown query name", []string{"foo", "page", "sort", "callback"})
	if len(b.op.Query) > 0 && chance(b.c, "unknown query name like a documented one", 50) {
		// A documented name in another case is unknown too.
		p := anyOf(b.c, "unknown query name base", b.op.Query)
		name = strings.ToUpper(p.Name[:1]) + p.Name[1:]
	}
	if b.cs.query.Has(name) {
		name += "_"
	}
	v := anyOf(b.c, "unknown query value", []string{"1", "abc", "", "ü😀", "-1"})
	b.cs.query.Set(name, v)
	b.cs.qdesc = append(b.cs.qdesc, name+"="+describeQuery(v))
	b.cs.note(open, refNone, "query parameter %s is not documented", name)
}
