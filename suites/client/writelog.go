package client

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// WriteLog keeps, for a while, what the writes a client sent named: every
// request but GET, HEAD and OPTIONS, answered or not (Config.Writes). A
// check that reads state while other checks write beside it asks it which
// of the changes it saw another check's write can account for
// (Write.Names). It keeps words, not whole exchanges, and nothing of it
// leaves the process.
//
// A write is in the log from the moment it is handed to the transport,
// with what its path and body name; what its answer names (the id of a
// message it created) joins when the answer is read, before the client's
// Gate releases it. So once a quiet window is held, every write of the
// others let through is in the log with its answer.
type WriteLog struct {
	keep time.Duration
	mu   sync.Mutex
	w    []*Write
}

// Write is one write a WriteLog kept.
type Write struct {
	// Check is the check the write was sent for (CheckOf).
	Check string
	// Start is when the attempt was handed to the transport; End when its
	// answer was read, or when it failed: zero while it is in flight.
	Start, End time.Time
	// Status is the answer's status, 0 when none came (yet): such a write
	// may or may not have been carried out.
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

// begin logs an attempt of a write as it is sent; end completes it.
func (l *WriteLog) begin(check, path string, reqBody []byte, start time.Time) *Write {
	names := map[string]bool{}
	for _, seg := range strings.Split(path, "/") {
		if s, err := url.PathUnescape(seg); err == nil && s != "" {
			names[s] = true
		}
	}
	jsonStrings(reqBody, names)
	w := &Write{Check: check, Start: start, names: names}
	l.mu.Lock()
	defer l.mu.Unlock()
	// Drop what ended longer than keep ago: a log is read for recent
	// writes only. Writes in flight stay.
	l.w = slices.DeleteFunc(l.w, func(o *Write) bool { return !o.End.IsZero() && start.Sub(o.End) > l.keep })
	l.w = append(l.w, w)
	return w
}

// end records the answer to a write begin logged (status 0 and no body
// when none came), and its times (a replay's are the record's).
func (l *WriteLog) end(w *Write, respBody []byte, status int, start, end time.Time) {
	answered := map[string]bool{}
	jsonStrings(respBody, answered)
	l.mu.Lock()
	defer l.mu.Unlock()
	// A new map: copies Overlapping handed out keep reading the old one.
	names := maps.Clone(w.names)
	maps.Copy(names, answered)
	w.names, w.Status, w.Start, w.End = names, status, start, end
}

// Overlapping returns the writes of checks other than check that may have
// taken effect in [from, to]: sent before to, and in flight or ended (or
// failed) after from. ok is false when the log no longer holds every such
// write (from is older than what it keeps).
func (l *WriteLog) Overlapping(check string, from, to time.Time) (ws []Write, ok bool) {
	if l == nil {
		return nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.w) > 0 && l.w[len(l.w)-1].Start.Sub(from) > l.keep {
		return nil, false // some that ended after from may be dropped
	}
	for _, w := range l.w {
		if w.Check != check && !w.Start.After(to) && (w.End.IsZero() || !w.End.Before(from)) {
			ws = append(ws, *w)
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
