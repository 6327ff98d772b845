package reference

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
)

// A handler that panics answers 500 with {"error","uniqueId"} and the
// server keeps serving.
func TestPanicsAnswer500WithAUniqueID(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	h := s.recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	for range 2 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/user", nil))
		var body map[string]string
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if rec.Code != 500 || body["error"] != "Internal Server Error" || !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(body["uniqueId"]) || len(body) != 2 {
			t.Errorf("%d %v", rec.Code, body)
		}
	}
}
