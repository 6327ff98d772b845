package proxy

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// budget bounds the bytes held in copies for judging, across every
// exchange in flight: a copy that does not fit is dropped (its exchange is
// then not judged), so memory stays bounded whatever the traffic.
type budget struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

func (b *budget) take(n int) bool {
	for {
		u := b.used.Load()
		if u+int64(n) > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+int64(n)) {
			if p := b.peak.Load(); u+int64(n) > p {
				b.peak.CompareAndSwap(p, u+int64(n))
			}
			return true
		}
	}
}

func (b *budget) give(n int) {
	if n > 0 {
		b.used.Add(-int64(n))
	}
}

// Why a copy was dropped.
const (
	dropTooLarge = "a body longer than the proxy copies for judging (--max-judged-body)"
	dropBudget   = "the proxy's judging budget was full (too many large bodies in flight)"
	dropUnread   = "the body was not read to its end (the other side stopped)"
)

// capture passes a body through unchanged and keeps a bounded copy of it.
// Reads and Close come from one goroutine at a time (the reverse proxy's),
// but the judge reads the result from another, after done.
type capture struct {
	rc  io.ReadCloser
	max int64
	b   *budget

	mu      sync.Mutex
	buf     []byte
	held    int // bytes taken from the budget
	size    int64
	dropped string
	eof     bool
	end     time.Time
	closed  bool
}

func newCapture(rc io.ReadCloser, max int64, b *budget) *capture {
	return &capture{rc: rc, max: max, b: b}
}

func (c *capture) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > 0 {
		c.size += int64(n)
		if c.dropped == "" {
			switch {
			case c.size > c.max:
				c.drop(dropTooLarge)
			case !c.b.take(n):
				c.drop(dropBudget)
			default:
				c.held += n
				c.buf = append(c.buf, p[:n]...)
			}
		}
	}
	if err == io.EOF && !c.eof {
		c.eof, c.end = true, time.Now()
	}
	return n, err
}

// drop gives the copy up; the caller holds the lock.
func (c *capture) drop(why string) {
	c.dropped = why
	c.b.give(c.held)
	c.held, c.buf = 0, nil
}

func (c *capture) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		if c.end.IsZero() {
			c.end = time.Now()
		}
	}
	c.mu.Unlock()
	return c.rc.Close()
}

// result returns the copy, or why there is none; the caller must call
// release once it is done with the bytes.
func (c *capture) result() (body []byte, size int64, dropped string, end time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.eof && c.dropped == "" {
		c.drop(dropUnread)
	}
	return c.buf, c.size, c.dropped, c.end
}

func (c *capture) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.give(c.held)
	c.held, c.buf = 0, nil
}
