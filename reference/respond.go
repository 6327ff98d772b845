package reference

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

const jsonContentType = "application/json; charset=utf-8"

// maxBody caps request bodies; the longest valid text fits several times over.
const maxBody = 64 << 10

// writeJSON sends v with status. Every success carries a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	switch raw := v.(type) {
	case RawJSON:
		writeBody(w, status, raw)
		return
	case *jsonBuf:
		writeBody(w, status, raw.b)
		raw.release()
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // html fields stay readable; JSON needs no such escaping
	var body []byte
	if err := enc.Encode(v); err != nil {
		body, status = []byte(`{"error":"Internal Server Error"}`), http.StatusInternalServerError
	} else {
		body = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	writeBody(w, status, body)
}

// writeBody sends a JSON body with its length, so large pages are not
// sent in chunks.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = []string{jsonContentType}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError is the one place that turns an error into a response:
// {"error": "<reason phrase>"}, plus uniqueId on a 5xx so a log line can be
// found from a bug report.
func writeError(w http.ResponseWriter, log *slog.Logger, r *http.Request, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Kind: Internal, Detail: err.Error()}
	}
	status := statusOf[e.Kind]
	body := map[string]string{"error": http.StatusText(status)}
	if status >= 500 {
		var id [12]byte
		_, _ = rand.Read(id[:])
		body["uniqueId"] = hex.EncodeToString(id[:])
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "uniqueId", body["uniqueId"], "err", e.Detail)
	} else {
		log.Debug("request refused", "method", r.Method, "path", r.URL.Path, "status", status, "why", e.Detail)
	}
	if status == http.StatusUnauthorized {
		// HTTP asks every 401 to name the scheme that would be accepted.
		w.Header().Set("WWW-Authenticate", `Bearer realm="chat"`)
	}
	writeJSON(w, status, body)
}

// decodeBody reads a JSON object into v: Content-Type application/json, one
// value, no unknown fields, at most maxBody bytes, and text that is valid
// Unicode. encoding/json would replace invalid UTF-8 and lone surrogate
// escapes with U+FFFD without a word; the server refuses them instead, so
// what it stores is what the client sent.
func decodeBody(r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return errorf(Invalid, "Content-Type must be application/json")
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return errorf(Invalid, "body: "+err.Error())
	}
	if !utf8.Valid(raw) || !pairedSurrogates(raw) {
		return errorf(Invalid, "body is not valid UTF-8")
	}
	if err := exactFields(raw, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(Invalid, "body: "+err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return errorf(Invalid, "body holds more than one JSON value")
	}
	return nil
}

// exactFields refuses what encoding/json would let through into v, a
// struct: a field named in another letter case ("Text" for "text", which
// the decoder matches and lets win over the real one) and a null value
// (which the decoder turns into the field's zero value without a word).
// A body that is not an object is left to the decoder to refuse.
func exactFields(raw []byte, v any) error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	known := map[string]bool{}
	t := reflect.TypeOf(v).Elem()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	for name, value := range fields {
		if !known[name] {
			return errorf(Invalid, "body: unknown field "+strconv.Quote(name))
		}
		if string(bytes.TrimSpace(value)) == "null" {
			return errorf(Invalid, "body: "+name+" is null")
		}
	}
	return nil
}

// pairedSurrogates reports whether every \u escape of a UTF-16 surrogate in
// a JSON text is a high surrogate followed at once by a low one. Outside
// strings JSON has no backslash, so the text can be scanned as a whole.
func pairedSurrogates(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		i++ // the escaped character
		if i >= len(b) || b[i] != 'u' {
			continue
		}
		c, ok := hex4(b[i+1:])
		if !ok {
			continue // not valid JSON; the decoder says so
		}
		i += 4
		switch {
		case c >= 0xDC00 && c <= 0xDFFF:
			return false
		case c >= 0xD800 && c <= 0xDBFF:
			if len(b) < i+7 || b[i+1] != '\\' || b[i+2] != 'u' {
				return false
			}
			if low, ok := hex4(b[i+3:]); !ok || low < 0xDC00 || low > 0xDFFF {
				return false
			}
			i += 6
		}
	}
	return true
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var c rune
	for _, d := range b[:4] {
		switch {
		case d >= '0' && d <= '9':
			c = c<<4 | rune(d-'0')
		case d >= 'a' && d <= 'f':
			c = c<<4 | rune(d-'a'+10)
		case d >= 'A' && d <= 'F':
			c = c<<4 | rune(d-'A'+10)
		default:
			return 0, false
		}
	}
	return c, true
}
