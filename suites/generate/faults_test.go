package generate

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"unicode/utf8"

	"github.com/chatrooms/conformance/fixtures"
)

// Planted faults: small decorators around the unmodified reference server,
// each breaking one property the engine must catch.

// serverError answers as the reference server does when it fails.
func serverError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte(`{"error":"Internal Server Error","uniqueId":"0123456789abcdef01234567"}`))
}

// failOn answers 500 to the requests bad picks and passes on the others.
func failOn(bad func(*http.Request, []byte) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bad(r, body) {
				serverError(w)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// failOnLimitZero fails a list whose limit is 0.
var failOnLimitZero = failOn(func(r *http.Request, _ []byte) bool {
	q := r.URL.Query()
	return q.Has("limit") && q.Get("limit") == "0"
})

// failOnAroundIDLimitOne fails a list around a message with limit=1: two
// valid values, each fine alone.
var failOnAroundIDLimitOne = failOn(func(r *http.Request, _ []byte) bool {
	q := r.URL.Query()
	return q.Get("aroundId") != "" && q.Get("limit") == "1"
})

// documentedQuery are the query parameters the API document names, and
// the token parameter.
var documentedQuery = map[string]bool{"skip": true, "beforeId": true, "afterId": true, "aroundId": true, "limit": true, "q": true, "access_token": true}

// failOnUnknownQuery fails a request with a query parameter the document
// does not name.
var failOnUnknownQuery = failOn(func(r *http.Request, _ []byte) bool {
	for k := range r.URL.Query() {
		if !documentedQuery[k] {
			return true
		}
	}
	return false
})

// failOnLongMultibyte fails a text of at least 4,000 characters of which
// some take more than one byte.
var failOnLongMultibyte = failOn(func(_ *http.Request, body []byte) bool {
	var b struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(body, &b) != nil {
		return false
	}
	return utf8.RuneCountInString(b.Text) >= 4000 && len(b.Text) > utf8.RuneCountInString(b.Text)
})

// failOnExtraField fails a body object with a field the document does not
// name.
var failOnExtraField = failOn(func(_ *http.Request, body []byte) bool {
	var b map[string]json.RawMessage
	if json.Unmarshal(body, &b) != nil {
		return false
	}
	for k := range b {
		if k != "text" && k != "status" && k != "chat" {
			return true
		}
	}
	return false
})

// refusedEditStillEdits lets the server edit a message and then answers
// 400 as if it had refused.
func refusedEditStillEdits(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut || !strings.Contains(r.URL.Path, "/chatMessages/") {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(httptest.NewRecorder(), r)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"Bad Request"}`))
	})
}

// tokenAnyCase accepts a token in any letter case, in every place a token
// may be presented.
func tokenAnyCase(next http.Handler) http.Handler {
	w, err := fixtures.Generate(worldSeed)
	if err != nil {
		panic(err)
	}
	fix := func(t string) string {
		for _, u := range w.Users {
			if strings.EqualFold(t, u.Token) {
				return u.Token
			}
		}
		return t
	}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok {
			r.Header.Set("Authorization", scheme+" "+fix(tok))
		}
		if tok := r.Header.Get("x-access-token"); tok != "" {
			r.Header.Set("x-access-token", fix(tok))
		}
		if q := r.URL.Query(); q.Has("access_token") {
			q.Set("access_token", fix(q.Get("access_token")))
			r.URL.RawQuery = q.Encode()
		}
		next.ServeHTTP(rw, r)
	})
}

// notJSONAfterSend answers a successful send of a text that is not plain
// ASCII with a body that is not JSON: HTTP-JSON-BODY's breach, which
// leaves a round trip nothing to read.
func notJSONAfterSend(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chatMessages") || !bytes.ContainsFunc(body, func(c rune) bool { return c > 127 }) {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("<html>sent</html>"))
	})
}
