package history

import (
	"cmp"
	"slices"
)

// Lists do not flicker. A room one answer of a user's rooms list (or
// channels list) holds, that an answer after it leaves out and an answer
// after that holds again, was the user's all along: the answer in between
// was wrong. The same holds of the entries of a user's organisations and
// repositories lists. Only a hide changes whether a room is listed, so a
// room a request of the run hid for the user is not judged in that user's
// lists (ROOM-HIDE's checks judge it). Where other clients may act
// (Options.Shared), a room or entry may have been added to the user during
// the run, and a replica that lags may not have the addition yet; so there
// only what the list held in its first answer of the run is judged: the
// user had it before the run, and for a lagging copy to leave it out
// another client would have to take it from the user and give it back
// while the run reads.

// listKey names one list of one user as one token sees it: the caller, the
// user the path names, and the operation.
type listKey struct {
	user     int16
	pathUser string
	op       opKind
}

// listHist is what is kept of the answers of one list.
type listHist struct {
	answers []int32 // every 2xx answer that could be read, as observed
	// present: by room id (rooms and channels lists) or entry id
	// (organisations and repositories lists), the answers holding it.
	present map[string][]int32
	private map[string]bool // repositories an answer gave private true
}

// listSeen records one answer of a list of a user's rooms or entries.
func (st *state) listSeen(op opKind, p pathParams, user int16, f *facts, id int32) {
	if user < 0 {
		return
	}
	k := listKey{user: user, pathUser: p.user, op: op}
	if st.lists == nil {
		st.lists = map[listKey]*listHist{}
	}
	h := st.lists[k]
	if h == nil {
		h = &listHist{present: map[string][]int32{}, private: map[string]bool{}}
		st.lists[k] = h
	}
	if len(h.answers) >= maxWrites || len(h.present) >= maxWrites {
		return
	}
	h.answers = append(h.answers, id)
	add := func(key string) {
		if ids := h.present[key]; len(ids) == 0 || ids[len(ids)-1] != id {
			h.present[key] = append(ids, id)
		}
	}
	if op == opOrgs || op == opRepos {
		for _, e := range f.entries {
			add(string(e.id))
			if e.private == 1 {
				h.private[string(e.id)] = true
			}
		}
		return
	}
	for i := range f.rooms {
		if len(f.rooms[i].id) > 0 {
			add(string(f.rooms[i].id)) // roomSeen has given it its index
		}
	}
}

// listFlicker judges every list kept: for each room or entry, an answer
// leaving it out between two holding it.
func (c *checker) listFlicker() {
	keys := make([]listKey, 0, len(c.st.lists))
	for k := range c.st.lists {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b listKey) int {
		return cmp.Or(cmp.Compare(a.user, b.user), cmp.Compare(a.pathUser, b.pathUser), cmp.Compare(a.op, b.op))
	})
	for _, k := range keys {
		h := c.st.lists[k]
		ids := make([]string, 0, len(h.present))
		for id := range h.present {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			c.flicker(k, h, id)
		}
	}
}

// flickerKinds are the kinds of room the rooms list must hold (ROOM-KINDS
// names them); a room of another kind, or of no kind the run saw, is not
// judged in it.
var flickerKinds = []string{"ONETOONE", "ORG", "REPO"}

func (c *checker) flicker(k listKey, h *listHist, id string) {
	var req, what, list string
	switch k.op {
	case opRooms, opChannels:
		ri, known := c.st.roomIdx[id]
		if !known {
			return
		}
		r := &c.st.rooms[ri]
		req, what, list = ChannelList, "Room", "channels list"
		if k.op == opRooms {
			if !r.hasPT || !slices.Contains(flickerKinds, r.pt) {
				return // the rooms list need not hold it, hidden or not
			}
			req, list = RoomKinds, "rooms list"
		}
		for _, w := range r.writes {
			if x := &c.st.ex[w]; x.op == opHide && (x.subject == k.user || x.user == k.user || x.subject < 0) {
				if k.op == opRooms {
					c.hiddenShown(k, h, id, r)
				}
				return
			}
		}
	case opOrgs:
		req, what, list = OrgList, "Organisation", "organisations list"
	case opRepos:
		req, what, list = RepoList, "Repository", "repositories list"
		if h.private[id] {
			req = RepoPrivateGranted
		}
	default:
		return
	}
	present := h.present[id]
	if c.st.opt.Shared && present[0] != h.answers[0] {
		return // it may have come during the run, and a replica may lag that
	}
	in := make(map[int32]bool, len(present))
	for _, x := range present {
		in[x] = true
	}
	for _, b := range h.answers {
		if in[b] {
			continue
		}
		a := int32(-1)
		for _, x := range present {
			if c.end(x) < c.start(b) {
				a = x
				break
			}
		}
		if a < 0 {
			continue
		}
		for _, x := range present {
			if c.start(x) > c.end(b) {
				if c.found.note(req) {
					c.found.add(req, []int32{a, b, x}, "%s %s is in user %d's %s %s, left out of %s, and back in %s; no request of the run hid it, so it was the user's all along and the answer in between left it out.",
						what, quote(id), k.user+1, list, c.st.desc(a), c.st.desc(b), c.st.desc(x))
				}
				return
			}
		}
	}
}

// hiddenShown judges a room the user hid by a request of the run: once an
// answer of the user's rooms list has left it out after the hide, an
// answer that holds it again with one after that leaving it out once more,
// and no hide of the room in between, showed a hidden room (ROOM-HIDE).
// Whether something brings a hidden room back is not stated (a post in
// it, say), but nothing but a hide takes it out again. Answers starting
// within Eventually of a hide are not judged, and a room the run wrote in
// otherwise (a send, an edit, a mark read) is not judged at all. Where
// other clients may post (Options.Shared), a post of theirs may bring the
// room back while a lagging copy still leaves it out: there the answer
// leaving it out again must start more than Eventually after the one
// holding it ended.
func (c *checker) hiddenShown(k listKey, h *listHist, id string, r *roomState) {
	var hides []int32
	for _, w := range r.writes {
		x := &c.st.ex[w]
		if x.op != opHide {
			return
		}
		if x.user == k.user && (x.subject == k.user || x.subject < 0) {
			hides = append(hides, w)
		}
	}
	hid := func(x int32) bool { // a 2xx hide ended at least Eventually before x began
		for _, w := range hides {
			if c.st.ex[w].status/100 == 2 && c.end(w)+c.lag < c.start(x) {
				return true
			}
		}
		return false
	}
	hideBetween := func(from, to int32) bool { // a hide that may fall between the two answers
		for _, w := range hides {
			if c.start(w) < c.end(to) && c.end(w) > c.start(from) {
				return true
			}
		}
		return false
	}
	in := make(map[int32]bool, len(h.present[id]))
	for _, x := range h.present[id] {
		in[x] = true
	}
	for _, b := range h.present[id] {
		if !hid(b) {
			continue
		}
		a := int32(-1)
		for _, x := range h.answers {
			if !in[x] && hid(x) && c.end(x) < c.start(b) && !hideBetween(x, b) {
				a = x
				break
			}
		}
		if a < 0 {
			continue
		}
		for _, x := range h.answers {
			after := c.end(b)
			if c.st.opt.Shared {
				after += c.lag
			}
			if !in[x] && c.start(x) > after && !hideBetween(b, x) {
				if c.found.note(RoomHide) {
					c.found.add(RoomHide, []int32{a, b, x}, "Room %s, which the run hid for user %d, is left out of user %d's rooms list %s, back in %s and left out again in %s, with no hide in between: nothing but a hide takes a room out, so the answer in between showed a hidden room.",
						quote(id), k.user+1, k.user+1, c.st.desc(a), c.st.desc(b), c.st.desc(x))
				}
				return
			}
		}
	}
}
