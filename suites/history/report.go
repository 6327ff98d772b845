package history

import (
	"fmt"
	"maps"
)

// finding is a contradiction before it is reported.
type finding struct {
	req  string
	text string
	exs  []int32
}

// collector keeps the first findings of each requirement and counts all.
type collector struct {
	max   int
	kept  map[string][]finding
	count map[string]int
}

func newCollector(max int) collector {
	return collector{max: max, kept: map[string][]finding{}, count: map[string]int{}}
}

// note counts a finding of req and reports whether it is to be kept (then
// the caller words it and calls add).
func (c *collector) note(req string) bool {
	c.count[req]++
	return len(c.kept[req]) < c.max
}

func (c *collector) add(req string, exs []int32, format string, args ...any) {
	c.kept[req] = append(c.kept[req], finding{req: req, text: fmt.Sprintf(format, args...), exs: exs})
}

func (c *collector) clone() collector {
	out := collector{max: c.max, kept: make(map[string][]finding, len(c.kept)), count: maps.Clone(c.count)}
	for k, v := range c.kept {
		out.kept[k] = append([]finding(nil), v...)
	}
	return out
}

// result turns the findings into contradictions.
func (st *state) result(c *collector) []Contradiction {
	var out []Contradiction
	redact := st.opt.Redact
	if redact == nil {
		redact = func(s string) string { return s }
	}
	for req, fs := range c.kept {
		start := len(out)
		for _, f := range fs {
			ct := Contradiction{Requirement: req, Text: redact(f.text)}
			for _, id := range f.exs {
				e := &st.ex[id]
				ct.Exchanges = append(ct.Exchanges, Exchange{Start: e.at, End: e.till, User: int(e.user), Method: e.op.method(),
					Path: redact(e.path), Status: int(e.status), Reproduce: redact(e.reproduce)})
			}
			out = append(out, ct)
		}
		sortContradictions(out[start:])
		if more := c.count[req] - len(fs); more > 0 && len(out) > start {
			out[len(out)-1].More = more
		}
	}
	sortContradictions(out)
	return out
}

// reqBit is the bit of a requirement in msgState.reported.
func reqBit(req string) uint32 {
	switch req {
	case MsgRoomScope:
		return 1 << 0
	case MsgStable:
		return 1 << 1
	case MsgEditVInc:
		return 1 << 2
	case MsgSendEditedAtNull:
		return 1 << 3
	case MsgEditEditedAt:
		return 1 << 4
	case MsgEditPersisted:
		return 1 << 5
	case UnreadReadBy:
		return 1 << 6
	case HTTPGetSafe:
		return 1 << 7
	case UnreadMarkRead:
		return 1 << 8
	case UnreadFlag:
		return 1 << 9
	case MsgSendDefaults:
		return 1 << 10
	case MsgSendText:
		return 1 << 11
	case MsgSendStatus:
		return 1 << 12
	case MsgEdit:
		return 1 << 13
	case RenderEscape:
		return 1 << 14
	}
	return 1 << 31
}
