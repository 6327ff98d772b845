package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatrooms/conformance/suites/client"
)

// halt is why a run stopped before judging every selected check, and the
// exit code that goes with it.
type halt struct {
	Code   int    // exit code (ExitFail, ExitUsage or ExitUnreachable)
	Reason string // one sentence for a person
}

// control ends a run early: when it runs out of time, when the target
// stops answering, or when the run is interrupted. Once stopped, every
// request through its transport fails at once (in-flight ones are
// cancelled) and the checks not yet started are skipped as NOT RUN.
type control struct {
	ctx    context.Context // done when the run must stop
	cancel context.CancelFunc

	mu     sync.Mutex
	reason string
	at     time.Time

	// sent counts the requests handed to the transport, every attempt
	// included, answered or not.
	// waits counts those sent while no other was in flight (from being
	// sent until its answer is read or it fails): the answers the run
	// waited for one after another.
	wire        sync.Mutex
	sent, waits int64
	inFlight    int
	fastest     time.Duration // see fastestAnswer
	// byCheck counts, for each check by the name its requests carry
	// (client.CheckOf; "" for the run's setup), the requests it sent, those
	// sent while no other of the same check was in flight (checks may run
	// beside each other), those a replay of the checks could not answer
	// from the record (client.ErrNotRecorded), and how long its writes were
	// held back by another check's quiet reads.
	byCheck map[string]*checkCounts

	// quiet holds the run's writes back while a check that needs the write
	// room still reads it (see quietly); shared is set when checks run
	// beside each other, the only time it is used.
	quiet  sync.RWMutex
	shared bool
	// quietBy names the check holding the quiet window (nil when none):
	// its own writes go through, from whichever of its goroutines.
	quietBy atomic.Pointer[string]
}

// of returns check's counts; call it with c.wire held.
func (c *control) of(check string) *checkCounts {
	if c.byCheck == nil {
		c.byCheck = map[string]*checkCounts{}
	}
	n := c.byCheck[check]
	if n == nil {
		n = &checkCounts{}
		c.byCheck[check] = n
	}
	return n
}

// heldFor is how long check's writes were held back so far, a wait still
// going on included.
func (c *control) heldFor(check string) time.Duration {
	c.wire.Lock()
	defer c.wire.Unlock()
	n := c.of(check)
	if n.waiting > 0 {
		return n.held + time.Since(n.waitSince)
	}
	return n.held
}

// quietly waits until no write of any other check is in flight, then holds
// every other check's writes back until release is called: the writes of
// the check ctx carries (client.CheckOf) go through. Checks that compare
// answers about the write room read a second apart use it.
func (c *control) quietly(ctx context.Context) (context.Context, func()) {
	c.quiet.Lock()
	check := client.CheckOf(ctx)
	c.quietBy.Store(&check)
	since := time.Now()
	return ctx, sync.OnceFunc(func() {
		c.wire.Lock()
		n := c.of(check)
		n.windows++
		n.holding += time.Since(since)
		c.wire.Unlock()
		c.quietBy.Store(nil)
		c.quiet.Unlock()
	})
}

// answered keeps the fastest answer so far (its headers' arrival).
func (c *control) answered(d time.Duration) {
	c.wire.Lock()
	if c.fastest == 0 || d < c.fastest {
		c.fastest = d
	}
	c.wire.Unlock()
}

// fastestAnswer is the shortest time the target took to answer a request
// of the run so far (0 before any answer): about its round trip, whatever
// a connection's set-up or a busy moment added to the others.
func (c *control) fastestAnswer() time.Duration {
	c.wire.Lock()
	defer c.wire.Unlock()
	return c.fastest
}

// gate holds a write of check back while another check holds the quiet
// window (client.Config.Gate; the run's transport for a request sent past
// the client), and returns what ends the request's claim. The time it
// waits counts once per check however many of its writes wait together,
// and counts while it lasts (heldFor).
func (c *control) gate(check, method string) (release func()) {
	if !c.shared || !writes(method) {
		return func() {}
	}
	if c.holdsQuiet(check) {
		return func() {}
	}
	if c.quiet.TryRLock() {
		return c.quiet.RUnlock
	}
	c.wire.Lock()
	n := c.of(check)
	if n.waiting == 0 {
		n.waitSince = time.Now()
	}
	n.waiting++
	c.wire.Unlock()
	// Blocking, not polling: when the window ends, the writes it held go
	// out before the next window can start (a sync.RWMutex lets the
	// readers that waited in first), so windows back to back do not
	// starve them. A check opens its windows with none of its own
	// requests in flight, so none of them can be caught waiting here for
	// its own window.
	c.quiet.RLock()
	c.wire.Lock()
	if n.waiting--; n.waiting == 0 {
		n.held += time.Since(n.waitSince)
	}
	c.wire.Unlock()
	return c.quiet.RUnlock
}

// holdsQuiet reports whether check holds the quiet window.
func (c *control) holdsQuiet(check string) bool {
	by := c.quietBy.Load()
	return by != nil && *by == check
}

// writes reports whether a request may change what the server holds.
func writes(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// checkCounts are one check's counts (see control.byCheck).
type checkCounts struct {
	sent, waits, unrecorded int64
	inFlight                int
	held                    time.Duration
	windows                 int           // quiet windows it held
	holding                 time.Duration // how long it held them
	waiting                 int           // writes held back now
	waitSince               time.Time     // since when, while waiting > 0
}

// perCheck returns each check's counts (see checkCounts), by check name.
func (c *control) perCheck() map[string]checkCounts {
	c.wire.Lock()
	defer c.wire.Unlock()
	out := map[string]checkCounts{}
	for name, n := range c.byCheck {
		if name != "" {
			out[name] = *n
		}
	}
	return out
}

// counts returns how many requests were sent, and how many of them waited
// for every request before them (see control.waits).
func (c *control) counts() (sent, waits int64) {
	c.wire.Lock()
	defer c.wire.Unlock()
	return c.sent, c.waits
}

// started counts a request about to be sent; call the function it
// returns once when it is over.
func (c *control) started(check string) (over func()) {
	c.wire.Lock()
	c.sent++
	if c.inFlight == 0 {
		c.waits++
	}
	c.inFlight++
	n := c.of(check)
	n.sent++
	if n.inFlight == 0 {
		n.waits++
	}
	n.inFlight++
	c.wire.Unlock()
	return sync.OnceFunc(func() {
		c.wire.Lock()
		c.inFlight--
		n.inFlight--
		c.wire.Unlock()
	})
}

// newControl returns a control bound to parent (cancelled on a signal) and
// limited to maxTime (0: no limit).
func newControl(parent context.Context, maxTime time.Duration) *control {
	c := &control{}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	context.AfterFunc(parent, func() { c.stop("interrupted: the run received a signal to stop") })
	if maxTime > 0 {
		t := time.AfterFunc(maxTime, func() { c.stop("out of time: the run reached --max-time " + maxTime.String()) })
		context.AfterFunc(c.ctx, func() { t.Stop() })
	}
	return c
}

// stop ends the run; the first reason given is kept.
func (c *control) stop(reason string) {
	c.mu.Lock()
	if c.reason == "" {
		c.reason, c.at = reason, time.Now()
	}
	c.mu.Unlock()
	c.cancel()
}

// stopped returns why the run was stopped and when ("" while it runs).
func (c *control) stopped() (string, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason, c.at
}

// close releases the timer; call it when the run is over.
func (c *control) close() { c.cancel() }

// errStopped is what a request sent after the run stopped fails with.
var errStopped = errors.New("the run has stopped")

// transport wraps rt so that a stopped run sends nothing more and cancels
// what is in flight.
func (c *control) transport(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		if c.ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%w)", errStopped, context.Canceled)
		}
		check := client.CheckOf(req.Context())
		if !client.Gated(req.Context()) { // a request sent past the client's gate
			defer c.gate(check, req.Method)()
		}
		over := c.started(check)
		ctx, cancel := context.WithCancel(req.Context())
		detach := context.AfterFunc(c.ctx, cancel)
		sentAt := time.Now()
		resp, err := rt.RoundTrip(req.WithContext(ctx))
		if err == nil {
			c.answered(time.Since(sentAt))
		}
		if err != nil {
			if errors.Is(err, client.ErrNotRecorded) {
				c.wire.Lock()
				c.of(check).unrecorded++
				c.wire.Unlock()
			}
			detach()
			cancel()
			over()
			return nil, err
		}
		resp.Body = &releaseBody{ReadCloser: resp.Body, release: func() { detach(); cancel(); over() }}
		return resp, nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// releaseBody cancels the request's context once the body is closed.
type releaseBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
