package runner

import (
	"context"
	"sync"
	"time"

	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/conformance"
)

// scheduler runs a run's checks beside each other, n at a time, outside
// their Ginkgo specs: each records what it did (conformance.Recording) and
// its spec replays that when Ginkgo reaches it, so the report is built as
// when the checks run one after another.
type scheduler struct {
	run   *runState
	byKey map[string]*scheduled
	// others is closed once every check the scheduler runs has ended.
	others chan struct{}
}

// scheduled is one check the scheduler runs.
type scheduled struct {
	check Check
	done  chan struct{}
	rec   *conformance.Recording
}

// startScheduler starts the checks of the run, at most n at a time, in the order given; specTimeout bounds each (0: no
// bound).
func startScheduler(run *runState, checks []Check, n int, specTimeout time.Duration) *scheduler {
	s := &scheduler{run: run, byKey: map[string]*scheduled{}, others: make(chan struct{})}
	// A job is one check, or the checks of one lane in turn; jobs of long
	// checks go first.
	var first, rest [][]*scheduled
	lanes := map[string]int{} // lane → its job's index in first or rest, +1; negative in first
	for _, c := range checks {
		sc := &scheduled{check: c, done: make(chan struct{})}
		s.byKey[c.key] = sc
		p := conformance.PlacementOf(c.key)
		if i, ok := lanes[p.Lane]; ok {
			if i < 0 {
				first[-i-1] = append(first[-i-1], sc)
			} else {
				rest[i-1] = append(rest[i-1], sc)
			}
			continue
		}
		i := 0
		if p.First {
			first = append(first, []*scheduled{sc})
			i = -len(first)
		} else {
			rest = append(rest, []*scheduled{sc})
			i = len(rest)
		}
		if p.Lane != "" {
			lanes[p.Lane] = i
		}
	}
	queue := append(first, rest...)
	work := make(chan []*scheduled)
	var wg sync.WaitGroup
	for range min(n, len(queue)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range work {
				for _, sc := range job {
					s.runOne(sc, specTimeout)
					close(sc.done)
				}
			}
		}()
	}
	go func() {
		for _, job := range queue {
			work <- job
		}
		close(work)
		wg.Wait()
		close(s.others)
	}()
	return s
}

// runOne passes a check through the run's gate and runs it.
func (s *scheduler) runOne(sc *scheduled, specTimeout time.Duration) {
	sc.rec = conformance.NewRecording(sc.check.Name, sc.check.labels)
	run, ok := conformance.Declared(sc.check.key)
	named := client.WithCheck(s.run.ctl.ctx, sc.check.Name)
	if reason := s.run.pass(named); reason != "" || !ok {
		if !ok {
			reason = "the runner found no check declared at " + sc.check.Declared
		}
		sc.rec.Run(named, func(context.Context, conformance.CheckT) {
			sc.rec.AddReportEntry(entryNotRun, reason)
			sc.rec.Skip("not run: " + reason)
		}, nil)
		return
	}
	ctx, cancel := named, context.CancelFunc(func() {})
	if specTimeout > 0 {
		ctx, cancel = s.timed(named, sc.check.Name, specTimeout)
	}
	defer cancel()
	sc.rec.Run(ctx, run, func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(client.WithCheck(context.WithoutCancel(named), sc.check.Name), time.Minute)
	})
}

// runs reports whether the scheduler runs the check named key (see
// conformance.Key; a nil scheduler runs none).
func (s *scheduler) runs(key string) bool {
	if s == nil {
		return false
	}
	_, ok := s.byKey[key]
	return ok
}

// Outcome waits for the check named key and returns its recording; for a
// check the run did not select, it returns false at once
// (conformance.Scheduler).
func (s *scheduler) Outcome(key string) (*conformance.Recording, bool) {
	sc, ok := s.byKey[key]
	if !ok {
		return nil, false
	}
	<-sc.done
	return sc.rec, true
}

// wait returns once every check the scheduler runs has ended.
func (s *scheduler) wait() { <-s.others }

// timed bounds a check to limit of its own time: the time its writes
// were held back while another check read the room quietly does not
// count. The context ends with context.DeadlineExceeded, as a timeout's.
func (s *scheduler) timed(parent context.Context, check string, limit time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	start := time.Now()
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(limit)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				left := limit - (time.Since(start) - s.run.ctl.heldFor(check))
				if left <= 0 {
					cancel(context.DeadlineExceeded)
					return
				}
				t.Reset(left)
			}
		}
	}()
	return ctx, func() { close(done); cancel(context.Canceled) }
}
