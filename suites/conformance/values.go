package conformance

// Small helpers over values: queries, ids, timestamps.

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
)

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func idsOf(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func idSet(ms []Message) map[string]bool {
	s := map[string]bool{}
	for _, m := range ms {
		s[m.ID] = true
	}
	return s
}

func (e *Env) parseTime(s string) time.Time {
	GinkgoHelper()
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s)) // RFC 3339 lets t and z be lower case
	if err != nil {
		// A message's timestamps are its shape's: a check that needs one
		// the answer did not give is blocked by MSG-SHAPE, whose breach
		// was recorded when the answer came.
		msg := fmt.Sprintf("a message timestamp the check needs is %q, not an RFC 3339 date-time: %v", s, err)
		e.lacking("MSG-SHAPE", msg)
	}
	return t
}

// oldest returns the message the document's recipe calls the oldest: the
// earliest sent, ties broken by the smaller id.
func oldest(ms []Message) Message {
	sorted := append([]Message(nil), ms...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ti, tj := sorted[i].Sent, sorted[j].Sent
		if a, b := parseSent(ti), parseSent(tj); !a.Equal(b) {
			return a.Before(b)
		}
		return sorted[i].ID < sorted[j].ID
	})
	return sorted[0]
}

func parseSent(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	return t
}

// isTrue reads an optional boolean: absent counts as false.
func isTrue(b *bool) bool { return b != nil && *b }
