package reference

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// limiter is a fixed-window rate limit per user.
type limiter struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	now    func() time.Time
	users  map[string]*window
}

type window struct {
	start time.Time
	used  int
}

func newLimiter(limit int, every time.Duration, now func() time.Time) *limiter {
	return &limiter{limit: limit, window: every, now: now, users: map[string]*window{}}
}

// allow counts a request of user, writes the X-RateLimit headers, and
// reports whether the request is within the limit.
func (l *limiter) allow(h http.Header, user string) bool {
	l.mu.Lock()
	now := l.now()
	w, ok := l.users[user]
	if !ok || now.Sub(w.start) >= l.window {
		w = &window{start: now.Truncate(l.window)}
		l.users[user] = w
	}
	w.used++
	used, reset := w.used, w.start.Add(l.window)
	l.mu.Unlock()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, l.limit-used)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.UnixMilli(), 10))
	return used <= l.limit
}
