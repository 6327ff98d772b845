package generate

import (
	"flag"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// How rapid is driven outside `go test`.
//
// rapid.Check takes a rapid.TB; the engine passes its own (searchTB), so a
// property runs in any program. Three things of rapid are global and are
// set for each check, under one lock:
//
//   - the seed: rapid starts from the value of its -rapid.seed flag (the
//     RAPID_SEED environment variable at start-up; 0 picks a random one)
//     and draws each example from a seed advanced by the example's index.
//     The engine sets the flag through flag.CommandLine for every check, to
//     a seed derived from Config.Seed, the property and the operation, so
//     the same Config.Seed replays the same draws;
//   - the number of examples (-rapid.checks) and the time spent shrinking
//     (-rapid.shrinktime);
//   - fail files (-rapid.nofailfile): rapid writes one under
//     testdata/rapid/ after a failure unless told not to; the engine reports
//     failures itself and never writes files.
//
// rapid.Check also calls testing.Short, which panics unless the testing
// flags are registered and flag.CommandLine is parsed. Outside `go test`
// the engine registers them (testing.Init) and marks the command line
// parsed with no arguments; programs of this module parse their own flag
// sets, never flag.CommandLine, so nothing of theirs is lost.
var rapidMu sync.Mutex

var initTesting = sync.OnceFunc(func() {
	testing.Init()
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
})

// searchStop unwinds rapid.Check when it calls FailNow, as testing.T's
// runtime.Goexit would.
type searchStop struct{}

// searchTB is the rapid.TB of a check. rapid calls its Errorf with the
// summary of a failure and FailNow at the end; the engine keeps its own
// record of the failure (see check), so this only remembers that one
// happened.
type searchTB struct {
	name   string
	mu     sync.Mutex
	failed bool
	errs   []string
}

func (tb *searchTB) Helper()      {}
func (tb *searchTB) Name() string { return tb.name }
func (tb *searchTB) Logf(string, ...any) {
}
func (tb *searchTB) Log(...any) {}
func (tb *searchTB) Skipf(string, ...any) {
	panic(searchStop{})
}
func (tb *searchTB) Skip(...any) { panic(searchStop{}) }
func (tb *searchTB) SkipNow()    { panic(searchStop{}) }
func (tb *searchTB) Errorf(format string, args ...any) {
	tb.record(fmt.Sprintf(format, args...))
}
func (tb *searchTB) Error(args ...any) { tb.record(fmt.Sprint(args...)) }
func (tb *searchTB) Fatalf(format string, args ...any) {
	tb.record(fmt.Sprintf(format, args...))
	panic(searchStop{})
}
func (tb *searchTB) Fatal(args ...any) {
	tb.record(fmt.Sprint(args...))
	panic(searchStop{})
}
func (tb *searchTB) FailNow() {
	tb.record("")
	panic(searchStop{})
}
func (tb *searchTB) Fail() { tb.record("") }
func (tb *searchTB) Failed() bool {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.failed
}

func (tb *searchTB) record(msg string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.failed = true
	if msg != "" && len(tb.errs) < 4 {
		tb.errs = append(tb.errs, msg)
	}
}

// search runs rapid.Check on prop with the given seed and number of
// examples. It returns rapid's own failure summary ("" when it found none).
func search(name string, seed uint64, examples int, shrink time.Duration, prop func(*rapid.T)) (summary string) {
	initTesting()
	rapidMu.Lock()
	defer rapidMu.Unlock()
	settings := map[string]string{
		"rapid.seed":       strconv.FormatUint(seed, 10),
		"rapid.checks":     strconv.Itoa(examples),
		"rapid.shrinktime": shrink.String(),
		"rapid.nofailfile": "true",
		"rapid.failfile":   "",
		"rapid.v":          "false",
		"rapid.log":        "false",
		"rapid.debug":      "false",
		"rapid.debugvis":   "false",
	}
	for name, value := range settings {
		f := flag.Lookup(name)
		if f == nil {
			panic("generate: rapid has no flag " + name)
		}
		old := f.Value.String()
		if err := f.Value.Set(value); err != nil {
			panic(err)
		}
		defer func() { _ = f.Value.Set(old) }()
	}
	tb := &searchTB{name: name}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(searchStop); !ok {
					panic(r)
				}
			}
		}()
		rapid.Check(tb, prop)
	}()
	if len(tb.errs) > 0 {
		return tb.errs[0]
	}
	if tb.failed {
		return "rapid reported a failure"
	}
	return ""
}

// deriveSeed gives each (property, operation) check a seed of its own,
// fixed by the run's seed: checks do not share draws, and each replays.
func deriveSeed(seed uint64, parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatUint(seed, 10)))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	s := h.Sum64()
	if s == 0 {
		s = 1 // rapid reads 0 as "pick a random seed"
	}
	return s
}
