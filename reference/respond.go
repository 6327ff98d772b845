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
)

const jsonContentType = "application/json; charset=utf-8"

// maxBody caps request bodies; the longest valid text fits several times over.
const maxBody = 64 << 10

// writeJSON sends v with status. Every success carries a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	if raw, ok := v.(RawJSON); ok {
		w.Header().Set("Content-Type", jsonContentType)
		w.WriteHeader(status)
		_, _ = w.Write(raw)
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
	w.Header().Set("Content-Type", jsonContentType)
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
	writeJSON(w, status, body)
}

// decodeBody reads a JSON object into v: Content-Type application/json, one
// value, no unknown fields, at most maxBody bytes.
func decodeBody(r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return errorf(Invalid, "Content-Type must be application/json")
	}
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(Invalid, "body: "+err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return errorf(Invalid, "body holds more than one JSON value")
	}
	return nil
}
