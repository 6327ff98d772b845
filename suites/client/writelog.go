package client

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// WriteLog keeps, for a while, what the writes a client sent named: every
// request but GET, HEAD and OPTIONS, answered or not (Config.Writes). A
// check that reads state on both sides of its own request, while other
// checks write beside it, asks it which of the changes it saw another
// check's write can account for (Write.Names). It keeps words, not
// whole exchanges, and nothing of it leaves the process.
//
// It is complete for the writes sent through the client: an attempt is
// logged before the client's Gate releases it, so once a quiet window is
// held (every write of the others let through has ended) the log holds
// every write sent before.
type WriteLog struct {
	keep time.Duration
	mu   sync.Mutex
	w    []Write
}

// Write is one write a WriteLog kept.
type Write struct {
	// Check is the check the write was sent for (CheckOf).
	Check string
	// Start is when the attempt was handed to the transport; End when its
	// answer was read, or when it failed.
	Start, End time.Time
	// Status is the answer's status, 0 when none came: such a write may or
	// may not have been carried out.
	Status int
	names  map[string]bool
}

// Names reports whether the write named s: as a segment of its path, or
// as a string in the JSON of its body or of its answer (a message's id in
// a send's answer, the ids a mark-read lists, the text a send carried).
func (w Write) Names(s string) bool { return s != "" && w.names[s] }

// NewWriteLog returns a log that keeps each write for at least keep after
// it ended (0: ten minutes).
func NewWriteLog(keep time.Duration) *WriteLog {
	if keep <= 0 {
		keep = 10 * time.Minute
	}
	return &WriteLog{keep: keep}
}

// Writes reports whether a request may change what the server holds.
func Writes(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// add logs one attempt of a write.
func (l *WriteLog) add(check, path string, reqBody, respBody []byte, status int, start, end time.Time) {
	names := map[string]bool{}
	for _, seg := range strings.Split(path, "/") {
		if s, err := url.PathUnescape(seg); err == nil && s != "" {
			names[s] = true
		}
	}
	jsonStrings(reqBody, names)
	jsonStrings(respBody, names)
	l.mu.Lock()
	defer l.mu.Unlock()
	// Drop what is older than keep: a log is read for recent writes only.
	cut := 0
	for cut < len(l.w) && end.Sub(l.w[cut].End) > l.keep {
		cut++
	}
	if cut > 0 {
		l.w = append(l.w[:0], l.w[cut:]...)
	}
	l.w = append(l.w, Write{Check: check, Start: start, End: end, Status: status, names: names})
}

// Overlapping returns the writes of checks other than check that may have
// taken effect in [from, to]: sent before to, and ended (or failed) after
// from. ok is false when the log no longer holds every such write (from
// is older than what it keeps).
func (l *WriteLog) Overlapping(check string, from, to time.Time) (ws []Write, ok bool) {
	if l == nil {
		return nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.w) > 0 && l.w[len(l.w)-1].End.Sub(from) > l.keep {
		return nil, false // some that ended after from may be dropped
	}
	for _, w := range l.w {
		if w.Check != check && !w.Start.After(to) && !w.End.Before(from) {
			ws = append(ws, w)
		}
	}
	return ws, true
}

// jsonStrings adds every string of a JSON document to names (nothing when
// b is not JSON).
func jsonStrings(b []byte, names map[string]bool) {
	if len(b) == 0 {
		return
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			names[v] = true
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
}
