package spec

import "testing"

func TestBeyondListBounds(t *testing.T) {
	for q, want := range map[string]bool{"limit=100": false, "limit=101": true, "skip=5000": false, "skip=5001": true, "limit=many": true, "": false} {
		query := map[string][]string{}
		if k, v, ok := cut(q); ok {
			query[k] = []string{v}
		}
		if got := BeyondListBounds(query); got != want {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}

func cut(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '=' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}
