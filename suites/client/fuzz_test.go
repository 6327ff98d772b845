package client

import (
	"net/http"
	"testing"
	"time"
)

// FuzzRetryAfter feeds the rate-limit headers a target sends: whatever they
// hold, the wait is a duration between zero and a day.
func FuzzRetryAfter(f *testing.F) {
	for _, seed := range [][2]string{{"1", ""}, {"Wed, 21 Oct 2026 07:28:00 GMT", ""}, {"", "1793000000000"}, {"", "1793000000"}, {"", "2.5"}, {"-5", "-1e300"}, {"", "NaN"}, {"", "1e400"}} {
		f.Add(seed[0], seed[1])
	}
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, retry, reset string) {
		h := http.Header{}
		if retry != "" {
			h.Set("Retry-After", retry)
		}
		if reset != "" {
			h.Set("X-RateLimit-Reset", reset)
		}
		if d := retryAfter(h, now); d < 0 || d > 24*time.Hour {
			t.Fatalf("Retry-After %q, X-RateLimit-Reset %q: wait %v", retry, reset, d)
		}
	})
}
