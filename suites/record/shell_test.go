package record

import (
	"net/http"
	"testing"
)

func TestShellWords(t *testing.T) {
	got := curlHeaders(`curl -sS --cacert '/tmp/x y.pem' -X GET -H 'Accept: application/json' -H 'Authorization: Bearer '"$CHAT_TOKEN"'' -H 'X-Q: it'\''s' 'https://h/v1/user'`)
	want := http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer $CHAT_TOKEN"}, "X-Q": {"it's"}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got.Get(k) != v[0] {
			t.Errorf("%s: got %q want %q", k, got.Get(k), v[0])
		}
	}
}
