package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// Writer writes a record as the exchanges of a run come in. Observe is safe
// for concurrent use; Close writes the trailer.
type Writer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	enc    *json.Encoder
	red    *client.Redactor
	head   Header
	t0     time.Time
	n      int
	err    error
	closed bool
	judge  *Judge // nil: no verdicts in the trailer
	seen   observer
	atOnce int // Trailer.ChecksAtOnce
}

// SetChecksAtOnce keeps in the trailer how many checks the run ran at
// once (Trailer.ChecksAtOnce).
func (w *Writer) SetChecksAtOnce(n int) {
	w.mu.Lock()
	w.atOnce = n
	w.mu.Unlock()
}

// NewWriter writes h (Kind, Format, Started, Digests and BodyCap filled in)
// to w and returns a writer for the exchanges. red redacts every token of
// the run. With judge, the exchanges are judged as they come (from what the
// client saw, before redaction) and Close writes those verdicts in the
// trailer.
func NewWriter(w io.Writer, h Header, red *client.Redactor, judge bool) (*Writer, error) {
	d, err := CurrentDigests()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	h.Kind, h.Format, h.Started, h.Digests, h.BodyCap = KindHeader, Format, t0.Round(0).UTC(), d, MaxBody
	h.Target = red.String(h.Target)
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10), red: red, head: h, t0: t0}
	wr.enc = json.NewEncoder(wr.w)
	wr.enc.SetEscapeHTML(false)
	if judge {
		if wr.judge, err = NewJudge(JudgeOptions{Profile: profileOf(h.Profile), MountPath: h.MountPath, Eventually: h.Eventually,
			Shared: h.Shared, Started: t0, Redactor: red, ResponseHeaders: h.ResponseHeaders, Index: true, UserIDs: UserIDs(h.Described)}); err != nil {
			return nil, err
		}
	}
	if err := wr.enc.Encode(h); err != nil {
		return nil, err
	}
	return wr, nil
}

// Header returns the header written.
func (w *Writer) Header() Header { return w.head }

// Observe records one exchange a client observed (client.Config.Observe).
func (w *Writer) Observe(o client.Observed) {
	reqH, respH := ObservedHeaders(o)
	x := &Exchange{Start: o.Start.Sub(w.t0), End: o.End.Sub(w.t0), User: o.User, Method: o.Method, Path: o.Path, Query: o.Query,
		Operation: o.Operation, Invalid: o.Invalid, Status: o.Status, RequestHeader: reqH, ResponseHeader: respH,
		RequestBody: o.RequestBody, ResponseBody: o.ResponseBody, RequestSize: int64(len(o.RequestBody)),
		ResponseSize: int64(len(o.ResponseBody)), Reproduce: o.Reproduce, Check: o.Check, BrokenOff: o.BrokenOff}
	w.seen.add(o.Peer, w.red)
	w.Write(x)
}

// Write records one exchange; its number is set here. The exchange's bodies
// are judged as given and written redacted and cut to MaxBody; x is not
// kept.
func (w *Writer) Write(x *Exchange) {
	out := *x
	out.Path, out.Query, out.Reproduce = w.red.String(x.Path), w.red.String(x.Query), w.red.String(x.Reproduce)
	out.RequestHeader, out.ResponseHeader = w.red.Header(x.RequestHeader, true), w.red.Header(x.ResponseHeader, false)
	out.RequestBody, out.RequestCut = w.cut(x.RequestBody, x.RequestCut)
	out.ResponseBody, out.ResponseCut = w.cut(x.ResponseBody, x.ResponseCut)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.n++
	x.N, out.N = w.n, w.n
	if w.err == nil {
		w.err = w.enc.Encode(out.line())
	}
	w.mu.Unlock()
	if w.judge != nil {
		w.judge.Add(x)
	}
}

// cut redacts a body and keeps at most MaxBody of it.
func (w *Writer) cut(b []byte, wasCut bool) ([]byte, bool) {
	if b == nil {
		return nil, wasCut
	}
	if len(b) > MaxBody {
		b, wasCut = b[:MaxBody], true
	}
	return w.red.Bytes(b), wasCut
}

// Close writes the trailer and flushes; it does not close the underlying
// writer. It returns the trailer and the first write error.
func (w *Writer) Close() (*Trailer, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, errors.New("record: closed twice")
	}
	w.closed = true
	t := &Trailer{Kind: KindTrailer, Exchanges: w.n, Observed: w.seen.observation(), ChecksAtOnce: w.atOnce}
	w.mu.Unlock()
	if w.judge != nil {
		t.Verdicts = w.judge.Verdicts()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.enc.Encode(t)
	}
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	return t, w.err
}

// Err is the first error met writing.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// ObservedHeaders returns the headers of an observed exchange, as the
// client keeps them (redacted and capped); the request's are read from its
// reproduce command where the client kept none.
func ObservedHeaders(o client.Observed) (request, response http.Header) {
	if o.RequestHeader != nil {
		return o.RequestHeader, o.ResponseHeader
	}
	return curlHeaders(o.Reproduce), o.ResponseHeader
}

// curlHeaders reads the -H arguments of a curl command written by the
// client (single-quoted words, with token variables spliced in as
// '"$CHAT_TOKEN"').
func curlHeaders(cmd string) http.Header {
	if cmd == "" {
		return nil
	}
	words := shellWords(cmd)
	h := http.Header{}
	for i := 0; i+1 < len(words); i++ {
		if words[i] != "-H" {
			continue
		}
		k, v, ok := strings.Cut(words[i+1], ":")
		if !ok {
			continue
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		i++
	}
	return h
}

// shellWords splits a POSIX shell command into words: single quotes keep
// everything, double quotes keep all but the escapes \" \\ \$ \`, and a
// variable is kept as written ($CHAT_TOKEN).
func shellWords(s string) []string {
	var out []string
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

func profileOf(s string) spec.Profile { return spec.Profile(s) }

// errorf wraps a reading error with the line it was met on.
func errorf(n int, format string, args ...any) error {
	return fmt.Errorf("record line %d: "+format, append([]any{n}, args...)...)
}
