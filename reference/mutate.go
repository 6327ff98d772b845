package reference

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chatrooms/conformance/spec"
)

// exchange is a captured response that faults and variants may rewrite.
type exchange struct {
	op     string
	status int
	header http.Header
	body   any    // decoded JSON, nil when the body is not JSON
	raw    []byte // when set, sent instead of body
}

// buffered captures a handler's response.
type buffered struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (b *buffered) Header() http.Header         { return b.header }
func (b *buffered) WriteHeader(code int)        { b.status = code }
func (b *buffered) Write(p []byte) (int, error) { return b.buf.Write(p) }

var (
	hexID      = regexp.MustCompile(`"([0-9a-f]{24})"`)
	prefixedID = regexp.MustCompile(`"id-([0-9a-f]{24})"`)
)

// rewriting wraps next with the configured faults and variant. It is only
// in the chain when one of them is set, so the plain server pays nothing.
func (s *Server) rewriting(next http.Handler) http.Handler {
	val, err := spec.MustLoad(spec.Core).NewValidator("")
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.variant == "prefixed-ids" {
			unprefixRequest(r)
		}
		op := val.OperationID(r)
		if op == "listMessages" {
			q := r.URL.Query()
			if s.variant == "default-limit-20" && q.Get("limit") == "" {
				q.Set("limit", "20")
				r.URL.RawQuery = q.Encode()
			}
			if n, err := strconv.Atoi(q.Get("limit")); s.variant == "limit-over-100-rejected" && err == nil && n > MaxLimit {
				writeError(w, s.log, r, errorf(Invalid, "limit above 100"))
				return
			}
		}
		rec := &buffered{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		x := &exchange{op: op, status: rec.status, header: rec.header}
		if err := json.Unmarshal(rec.buf.Bytes(), &x.body); err != nil {
			x.raw = rec.buf.Bytes()
		}
		for _, f := range faultList {
			if s.faults[f.Name] && f.rewrite != nil && (f.op == "" || f.op == op) {
				f.rewrite(x)
			}
		}
		if s.variant != "" {
			s.vary(x, r)
		}
		out := x.raw
		if out == nil && x.body != nil {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(x.body)
			out = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		}
		if s.variant == "prefixed-ids" {
			out = hexID.ReplaceAll(out, []byte(`"id-$1"`))
		}
		for k, v := range x.header {
			w.Header()[k] = v
		}
		if x.status == http.StatusNoContent {
			w.Header().Del("Content-Type")
			w.WriteHeader(x.status)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(x.status)
		_, _ = w.Write(out)
	})
}

// vary applies the server's variant to a response.
func (s *Server) vary(x *exchange, r *http.Request) {
	reverse := func() {
		if list, ok := x.body.([]any); ok {
			slices.Reverse(list)
		}
	}
	switch s.variant {
	case "newest-first":
		if x.op == "listMessages" {
			reverse()
		}
	case "search-newest-first":
		if x.op == "listMessages" && r.URL.Query().Get("q") != "" {
			reverse()
		}
	case "errors-422":
		if x.status >= 400 && x.status < 500 {
			if x.status == http.StatusBadRequest {
				x.status = http.StatusUnprocessableEntity
			}
			x.body = map[string]any{"message": "request refused: " + strings.ToLower(http.StatusText(x.status))}
		}
	case "empty-object-bodies":
		if x.status == 200 && (x.op == "hideUserRoom" || x.op == "markUnreadItemsRead") {
			x.body = map[string]any{}
		}
	case "no-content":
		if x.status == 200 && (x.op == "hideUserRoom" || x.op == "markUnreadItemsRead") {
			x.status, x.body = http.StatusNoContent, nil
		}
	case "minimal-rooms":
		strip := func(room map[string]any) {
			for _, k := range []string{"topic", "lurk", "v", "unreadItems", "mentions", "lastAccessTime", "name", "url"} {
				delete(room, k)
			}
			if room["platformType"] != "USER_CHANNEL" {
				delete(room, "security")
			}
			if room["oneToOne"] != true {
				delete(room, "uri")
			}
		}
		switch x.op {
		case "listUserRooms", "listUserChannels":
			each(x.body, strip)
		case "listUserOrgs", "listUserRepos":
			each(x.body, func(e map[string]any) {
				if room, ok := e["room"].(map[string]any); ok {
					strip(room)
				}
			})
		}
	case "status-omitted":
		each(x.body, func(m map[string]any) {
			if m["status"] == false {
				delete(m, "status")
			}
		})
	case "users-with-v":
		if x.op == "getCurrentUser" {
			each(x.body, func(u map[string]any) { u["v"] = 1 })
		}
	}
}

// unprefixRequest turns id-<hex> back into <hex> in the path, the query and
// the body of a request to the prefixed-ids variant.
func unprefixRequest(r *http.Request) {
	r.URL.Path = strings.ReplaceAll(r.URL.Path, "id-", "")
	r.URL.RawPath = ""
	if r.URL.RawQuery != "" {
		q := r.URL.Query()
		for k, vs := range q {
			for i, v := range vs {
				vs[i] = strings.TrimPrefix(v, "id-")
			}
			q[k] = vs
		}
		r.URL.RawQuery = q.Encode()
	}
	if r.Body != nil {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(http.MaxBytesReader(nil, r.Body, maxBody))
		body := prefixedID.ReplaceAll(buf.Bytes(), []byte(`"$1"`))
		r.Body = readCloser{bytes.NewReader(body)}
		r.ContentLength = int64(len(body))
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }
