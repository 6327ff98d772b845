package conformance

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/gomega"
)

// runRecording runs body as a check under a Recording and returns it.
func runRecording(t *testing.T, ctx context.Context, body func(r *Recording)) *Recording {
	t.Helper()
	r := NewRecording("a check", []string{"MSG-SEND-200"})
	r.Run(ctx, func(context.Context, CheckT) { body(r) }, func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), time.Second)
	})
	return r
}

func TestRecordingKeepsTheFirstFailureAndWhatCameBefore(t *testing.T) {
	r := runRecording(t, context.Background(), func(r *Recording) {
		r.By("a step")
		r.AddReportEntry(EntryJudged, "MSG-SEND-200")
		r.Gomega().Expect(1).To(gomega.Equal(2), "one is not two")
		r.Fail("never reached", 0)
	})
	if r.end != failed || !strings.Contains(r.message, "one is not two") {
		t.Errorf("end %v, message %q: want the assertion's failure", r.end, r.message)
	}
	if got := r.ReportEntries(); len(got) != 1 || got[0] != (CheckEntry{EntryJudged, "MSG-SEND-200"}) {
		t.Errorf("entries %v", got)
	}
	if len(r.events) != 2 || !r.events[0].step || r.events[0].value != "a step" {
		t.Errorf("events %+v: want the step, then the entry", r.events)
	}
	if r.Start.IsZero() || r.End.Before(r.Start) {
		t.Errorf("times %v – %v", r.Start, r.End)
	}
}

func TestRecordingRunsCleanupsLastFirstAndKeepsASkip(t *testing.T) {
	var order []int
	r := runRecording(t, context.Background(), func(r *Recording) {
		r.DeferCleanup(func(context.Context) { order = append(order, 1) })
		r.DeferCleanup(func(ctx context.Context) {
			if ctx.Err() != nil {
				t.Error("a clean-up got a context already done")
			}
			order = append(order, 2)
		})
		r.Skip("nothing to judge")
	})
	if r.end != skipped || r.message != "nothing to judge" {
		t.Errorf("end %v, message %q", r.end, r.message)
	}
	if len(order) != 2 || order[0] != 2 || order[1] != 1 {
		t.Errorf("clean-ups ran in order %v, want [2 1]", order)
	}
}

func TestRecordingTakesAGoroutinesFailureAndAPanic(t *testing.T) {
	r := runRecording(t, context.Background(), func(r *Recording) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { r.Recovered(recover()) }()
			r.Fail("in a goroutine", 0)
		}()
		wg.Wait()
	})
	if r.end != failed || r.message != "in a goroutine" {
		t.Errorf("end %v, message %q", r.end, r.message)
	}
	p := runRecording(t, context.Background(), func(*Recording) { panic("boom") })
	if p.end != panicked || p.panicked != "boom" || !strings.Contains(p.message, "boom") {
		t.Errorf("end %v, panicked %v", p.end, p.panicked)
	}
}

func TestRecordingOfACheckOutOfTimeIsAnError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	r := runRecording(t, ctx, func(*Recording) { <-ctx.Done() })
	entries := r.ReportEntries()
	if r.end != failed || len(entries) != 1 || entries[0].Name != EntryError {
		t.Errorf("end %v, entries %v: want a failure with an error entry", r.end, entries)
	}
}

// A check of several statements judges each on its own (holds) and fails
// on the first breach once the rest is judged; a statement that held once
// and was breached after is not counted judged beside that failure, and
// its breach is a finding of its own.
func TestHoldsJudgesEachStatementAndCountsNoneBreachedAsJudged(t *testing.T) {
	const defaults, editedAt, text = "MSG-SEND-DEFAULTS", "MSG-SEND-EDITEDAT-NULL", "MSG-SEND-TEXT"
	r := NewRecording("a check", []string{defaults, editedAt, text})
	r.Run(context.Background(), func(_ context.Context, ct CheckT) {
		e := &Env{t: ct, ids: []string{defaults, editedAt, text}, blocker: new(string), judging: new(string),
			suspect: new(string), judged: map[string]bool{}, soft: map[string]bool{}, later: new([]laterFail), held: new([]string)}
		defer e.unwind()
		e.holds(defaults, func(g gomega.Gomega) { g.Expect(1).To(gomega.Equal(1)) })
		e.holds(editedAt, func(g gomega.Gomega) { g.Expect("2026").To(gomega.BeEmpty(), "editedAt of a new message") })
		e.holds(defaults, func(g gomega.Gomega) { g.Expect(0).To(gomega.Equal(1), "v of the second message") })
		e.holds(text, func(g gomega.Gomega) { g.Expect("a").To(gomega.Equal("a")) })
		e.failLater()
	}, func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), time.Second)
	})
	if r.end != failed || !strings.Contains(r.message, "editedAt of a new message") {
		t.Errorf("end %v, message %q: want the first breach", r.end, r.message)
	}
	var judged, soft []string
	fails := ""
	for _, e := range r.ReportEntries() {
		switch e.Name {
		case EntryJudged:
			judged = append(judged, e.Value)
		case EntryFailed:
			fails = e.Value
		case EntrySoftFail:
			soft = append(soft, strings.SplitN(e.Value, "\n", 2)[0])
		}
	}
	if strings.Join(soft, ",") != defaults {
		t.Errorf("soft failures %v, want %s: its breach is a finding beside the check's failure", soft, defaults)
	}
	if fails != editedAt {
		t.Errorf("fails %q, want %s", fails, editedAt)
	}
	if strings.Join(judged, ",") != text {
		t.Errorf("judged %v, want only %s: %s was breached after it held once", judged, text, defaults)
	}
}

// A check that ends blocked keeps as findings the breaches it had gone on
// past, but for those met after a breach of the ground under it (its
// suspect), which that breach explains.
func TestABlockedCheckKeepsTheBreachesNotStandingOnBrokenGround(t *testing.T) {
	const defaults, text = "MSG-SEND-DEFAULTS", "MSG-SEND-TEXT"
	breach := func(e *Env) {
		e.holds(defaults, func(g gomega.Gomega) { g.Expect(0).To(gomega.Equal(1), "v of a new message") })
	}
	ground := func(e *Env) { e.groundBroken(text, "a send answered another text", "a send answered another text") }
	for _, tc := range []struct {
		name      string
		body      func(e *Env)
		blockedBy string
		soft      string // the soft failures, in order
	}{
		{"blocked by a later step", func(e *Env) {
			breach(e)
			e.step("MSG-GET-ONE", func() { e.fail("a read by id answered 500") })
		}, "MSG-GET-ONE", "MSG-GET-ONE," + defaults}, // the step's own finding, then the breach
		{"a breach after the broken ground", func(e *Env) {
			ground(e)
			breach(e)
			e.fail("a later assertion")
		}, text, text},
		{"a breach before the broken ground", func(e *Env) {
			breach(e)
			ground(e)
			e.fail("a later assertion")
		}, text, text + "," + defaults},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids := []string{defaults, "UNREAD-CHAT"}
			r := NewRecording("a check", ids)
			r.Run(context.Background(), func(_ context.Context, ct CheckT) {
				e := &Env{t: ct, ids: ids, blocker: new(string), judging: new(string), suspect: new(string), suspectAt: new(int),
					judged: map[string]bool{}, soft: map[string]bool{}, later: new([]laterFail), held: new([]string)}
				defer e.unwind()
				tc.body(e)
				e.failLater()
			}, func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Second)
			})
			var soft []string
			blockedBy := ""
			for _, x := range r.ReportEntries() {
				switch x.Name {
				case EntrySoftFail:
					soft = append(soft, strings.SplitN(x.Value, "\n", 2)[0])
				case EntryBlockedBy:
					blockedBy = x.Value
				}
			}
			if blockedBy != tc.blockedBy || strings.Join(soft, ",") != tc.soft {
				t.Errorf("blocked by %q, soft failures %v; want %q and %s", blockedBy, soft, tc.blockedBy, tc.soft)
			}
		})
	}
}
