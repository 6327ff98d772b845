package selftest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A step that looks at the request body after the inner handler has run
// (as "mark read for every member" does) must still see it: a fault that
// reads an empty body there plants nothing and survives for no reason.
func TestStepsReadTheRequestBodyAfterTheInnerHandler(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) != `{"chat":["a","b"]}` {
			t.Errorf("inner handler read %q", b)
		}
		w.WriteHeader(200)
	})
	var after []string
	h := decorate(inner, nil, []step{onSuccess("markUnreadItemsRead", func(c *call, x *reply) {
		after = strs(c.jsonBody()["chat"])
	})})
	req := httptest.NewRequest("POST", "/v1/user/me/rooms/r1/unreadItems", strings.NewReader(`{"chat":["a","b"]}`))
	h.ServeHTTP(httptest.NewRecorder(), req)
	if strings.Join(after, ",") != "a,b" {
		t.Fatalf("the step read chat %q after the inner handler, want a,b", after)
	}
}
