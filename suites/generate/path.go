package generate

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// idVariant is one way to fill a path id the server should not serve.
type idVariant struct {
	value, role string
	ref         int // the reference profile's status
}

// pathIDVariants lists the departures for a path parameter. validOnly
// keeps those that match the parameter's schema.
func (b *builder) pathIDVariants(p *openapi3.Parameter, room string, validOnly bool) []idVariant {
	me := b.w.caller()
	unknown := unknownID(me.ID)
	var vs []idVariant
	switch refOf(p.Name) {
	case refUser:
		if len(b.w.Users) > 1 {
			vs = append(vs, idVariant{b.w.Users[1].ID, "user 2's id", refOtherUser})
		}
		vs = append(vs, idVariant{unknown, "an unknown user id", refOtherUser}, idVariant{"me", "me", ref2xx})
	case refRoom:
		if len(b.w.ForeignRooms) > 0 {
			vs = append(vs, idVariant{b.w.ForeignRooms[0], "a room the caller is not in", refNotFound})
		}
		vs = append(vs, idVariant{unknown, "an unknown room id", refNotFound})
	case refMessage:
		if m, ok := b.otherRoomMessage(room); ok {
			vs = append(vs, idVariant{m.ID, "a message of another room", refNotFound})
		}
		vs = append(vs, idVariant{unknown, "an unknown message id", refNotFound})
		if b.op.Method == http.MethodPut {
			if m, ok := b.othersMessage(); ok {
				vs = append(vs, idVariant{m.ID, "user 2's message", refNotAuthor})
			}
		}
	}
	bad := anyOf(b.c, "malformed "+p.Name, malformedIDs(me.ID))
	vs = append(vs, idVariant{bad, "the malformed id " + strconv.Quote(bad), refBadRequest})
	if validOnly {
		var keep []idVariant
		for _, v := range vs {
			if stringViolation(schemaOf(p.Schema), v.value) == "" {
				keep = append(keep, v)
			}
		}
		vs = keep
	}
	return vs
}

// malformedIDs are ids no server of this API issues in the reference form,
// and that a core server may still accept: the core document lets any
// string through.
func malformedIDs(real string) []string {
	return []string{"abc", strings.ToUpper(real), real + "0", real[:len(real)-1], "0", "ü", "x y", "-1", "null"}
}

// unknownID is an id of the world's shape that no user, room or message
// has: the caller's id with its counter part flipped.
func unknownID(seed string) string {
	b := []byte(seed)
	for i := len(b) - 6; i < len(b); i++ {
		if i >= 0 {
			b[i] = 'f'
		}
	}
	return string(b)
}

// otherRoomMessage is a message of another user in a room other than room
// and the write room.
func (b *builder) otherRoomMessage(room string) (Message, bool) {
	for _, m := range b.w.Messages {
		if m.Room != b.w.WriteRoom && m.Room != room && b.w.caller().ID != m.From {
			return m, true
		}
	}
	return Message{}, false
}

func (b *builder) othersMessage() (Message, bool) {
	for _, m := range b.w.Messages {
		if m.Room == b.w.WriteRoom && m.From != "" && m.From != b.w.caller().ID {
			return m, true
		}
	}
	return Message{}, false
}

// plainTargets picks the real room (and message) of a plain request.
func (b *builder) plainTargets(method string) (room string, msg *Message, ok bool) {
	op := b.op
	hasMsg := op.pathParam(refMessage) != nil
	unsafe := method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
	switch {
	case hasMsg && unsafe:
		var fresh []Message
		for _, m := range b.w.Messages {
			if m.Fresh && m.Room == b.w.WriteRoom && m.From == b.w.caller().ID {
				fresh = append(fresh, m)
			}
		}
		if len(fresh) == 0 {
			return "", nil, false
		}
		m := anyOf(b.c, "path message", fresh)
		return m.Room, &m, true
	case hasMsg:
		if len(b.w.Messages) == 0 {
			return "", nil, false
		}
		m := anyOf(b.c, "path message", b.w.Messages)
		return m.Room, &m, true
	case unsafe && strings.HasSuffix(op.Path, "/rooms/{roomId}"):
		// The path of hiding a room: only the room the world lets be hidden.
		return b.w.HideRoom, nil, b.w.HideRoom != ""
	case unsafe:
		return b.w.WriteRoom, nil, b.w.WriteRoom != ""
	}
	rooms := b.w.ownRooms()
	if len(rooms) == 0 {
		return "", nil, false
	}
	if slices.ContainsFunc(b.op.Query, func(p *openapi3.Parameter) bool { return refOf(p.Name) == refMessage }) {
		// Cursors point at messages of the room: a room with known
		// messages gives them their oldest and newest values.
		var known []string
		for _, r := range rooms {
			if len(b.w.messagesIn(r)) > 0 {
				known = append(known, r)
			}
		}
		if len(known) > 0 {
			rooms = known
		}
	}
	return anyOf(b.c, "path room", rooms), nil, true
}

// pathValues fills the path: the plain values, or the departure d.
func (b *builder) pathValues(d defectChoice) bool {
	op := b.op
	room, msg, ok := "", (*Message)(nil), true
	if op.roomScoped() || op.pathParam(refMessage) != nil {
		room, msg, ok = b.plainTargets(b.cs.method)
	}
	roles := map[string][2]string{} // name -> value, role
	me := b.w.caller()
	for _, p := range op.PathParams {
		switch refOf(p.Name) {
		case refUser:
			roles[p.Name] = [2]string{me.ID, "caller"}
		case refRoom:
			role := "room"
			switch room {
			case b.w.WriteRoom:
				role = "write room"
			case b.w.HideRoom:
				role = "hide room"
			}
			roles[p.Name] = [2]string{room, role}
		case refMessage:
			if msg != nil {
				role := "message"
				switch {
				case msg.Fresh && msg.From == me.ID:
					role = "own message"
				case msg.From == me.ID:
					role = "own old message"
				}
				roles[p.Name] = [2]string{msg.ID, role}
			}
		default:
			return false // a path parameter the world has no ids for
		}
	}
	if d.kind == dPathID {
		p := paramNamed(op.PathParams, d.param)
		vs := b.pathIDVariants(p, room, b.mode == modeValid)
		if len(vs) == 0 {
			return false
		}
		v := vs[b.c.pick("path "+p.Name+" departure", uniform(len(vs))...)]
		roles[p.Name] = [2]string{v.value, v.role}
		if violation := stringViolation(schemaOf(p.Schema), v.value); violation != "" {
			b.cs.note(invalid, refBadRequest, "path %s is %s (%s)", p.Name, v.role, violation)
		} else {
			b.cs.note(refusable, v.ref, "path %s is %s", p.Name, v.role)
		}
		switch refOf(p.Name) {
		case refRoom:
			room = ""
		case refMessage:
			msg = nil
		}
	} else if !ok {
		return false
	}
	for _, p := range op.PathParams {
		if roles[p.Name][0] == "" {
			return false
		}
	}
	path, tmpl := op.Path, op.Path
	for _, p := range op.PathParams {
		v := roles[p.Name]
		path = strings.Replace(path, "{"+p.Name+"}", url.PathEscape(v[0]), 1)
		tmpl = strings.Replace(tmpl, "{"+p.Name+"}", "{"+v[1]+"}", 1)
	}
	b.cs.path, b.cs.template = path, tmpl
	if room == "" && op.roomScoped() {
		room = b.w.WriteRoom // state reads still watch the write room
	}
	b.cs.room = room
	if room == b.w.HideRoom && b.w.HideRoom != "" && strings.HasSuffix(op.Path, "/rooms/{roomId}") {
		b.cs.hideRoom = true
	}
	if msg != nil {
		b.cs.message = msg.ID
	}
	return true
}

func paramNamed(ps []*openapi3.Parameter, name string) *openapi3.Parameter {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return nil
}
