package conformance

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
)

// Options configure an Env.
type Options struct {
	Target  *target.Description // checked (see target.Description.Check)
	Profile spec.Profile
	// Seed drives the generated text and Ginkgo's spec order; printed at the
	// start of every run so a run can be replayed.
	Seed uint64
	// Eventually is how long search results and unread state may lag behind
	// a write on an eventually consistent server.
	Eventually time.Duration
	// Process tells parallel Ginkgo processes apart in run markers.
	Process int
	// Marker, when set, is the run's marker: the word every text the run
	// writes carries, so that its messages are told from others'. Empty,
	// the run makes one from the clock (see NewMarker).
	Marker string
	// Examples is how many random requests each generated check draws per
	// operation besides its coverage cases (0: the engine's default).
	Examples int
	// ModelSequences is how many random sequences each check of the model
	// draws (0: the model's default).
	ModelSequences int
	// Parallel is how many requests a generated check may have in flight
	// at once (0: the engine's default; 1: one at a time).
	Parallel int
	// SoleWriter says nothing but this run writes to the target (the
	// bundled server): the model then holds readBy and v exactly, and
	// places messages the run did not send before every one it sent.
	SoleWriter bool
	// Beside says checks run beside each other (see Scheduler): each
	// numbers the texts it writes on its own, so that what a check writes
	// does not depend on what the others wrote before it.
	Beside bool
	// Quiet, when set, holds every other check's writes back until release
	// is called, once those in flight have ended; the writes of the check
	// ctx names (client.CheckOf) go through. Checks that compare answers about the write room read
	// apart in time use it (see Env.quietly) when checks run beside each
	// other.
	Quiet func(ctx context.Context) (quiet context.Context, release func())
	// Client is the client the checks use (required; the runner builds it
	// so that it can preflight the target, throttle and stop the run).
	Client *client.Client
}

// Env is what specs use: the discovered target and a validating client.
type Env struct {
	Options
	Client *client.Client
	Users  []target.User
	marker string
	seq    *atomic.Int64

	// Set on each check's own copy (see decl.bind).
	t       CheckT // what runs the check
	ctx     context.Context
	ids     []string // the requirement ids the check verifies
	blocker *string  // the requirement of the step under way, if any
	judging *string  // the requirement the assertions under way are about
	// suspect is the requirement of a breach the check went on past that
	// can explain a failure after it (a page longer than its limit): should
	// the check fail, it is blocked by that requirement (see unwind).
	suspect *string
	// suspectAt is how many breaches the check had gone on past (later)
	// when the suspect was met: those stand on other ground.
	suspectAt *int
	soft      map[string]bool // requirements recorded as soft failures (see softly)
	judged    map[string]bool // own requirements whose verifies blocks held (see verifies)
	// later holds breaches of the check's own requirements on answers the
	// check could go on with (see softViolations): each fails the check
	// once the rest of it has been judged.
	later *[]laterFail
	// held are the check's own requirements whose statements held so far
	// on such answers (see holdsLater).
	held *[]string
	// stepFails are the steps of other requirements that failed in the
	// check, noted once the ground under it is probed (see unwind).
	stepFails *[]stepFail
	// rooted says the ground under the check named what broke (see
	// rootFound): a suspect then explains nothing.
	rooted *bool
	left   *leftover
	wrote  *checkWrites // the check's acknowledged writes, for the root probe
	last   *lastCall    // the user and token place of the check's latest call
	gen    *generated   // the run's generated-request engine, shared by every check
	early  *early       // answers to reads sent ahead (see readTogether)
}

// NewEnv discovers what the description left out, through o.Client.
// Errors are *target.Error (a bad description) or *client.TransportError
// (the target cannot be reached).
func NewEnv(ctx context.Context, o Options) (*Env, error) {
	if o.Client == nil {
		return nil, errors.New("conformance: Options.Client is required")
	}
	if o.Eventually == 0 {
		o.Eventually = 5 * time.Second
	}
	if err := o.Target.Discover(ctx, o.Client); err != nil {
		return nil, err
	}
	return newEnv(o, o.Client, o.Target), nil
}

func newEnv(o Options, c *client.Client, d *target.Description) *Env {
	e := &Env{Options: o, Client: c, Users: d.Users, seq: new(atomic.Int64), ctx: context.Background(), blocker: new(string), judging: new(string), gen: &generated{}}
	e.marker = o.Marker
	if e.marker == "" {
		e.marker = NewMarker(o.Process)
	}
	return e
}

// NewMarker makes a run marker from the clock: two runs started apart
// write texts apart, on a server that keeps both.
func NewMarker(process int) string {
	return "cc" + strconv.FormatInt(time.Now().UnixNano()%1e12, 36) + "p" + strconv.Itoa(process)
}

// Unreachable reports whether err means the target could not be reached.
func Unreachable(err error) bool {
	var te *client.TransportError
	return errors.As(err, &te)
}

// Marker returns a word unique to this run, process and call, to put in
// texts the specs write so they can find their own messages.
func (e *Env) Marker() string {
	m, _ := e.nextMarker()
	return m
}

func (e *Env) nextMarker() (string, int64) {
	n := e.seq.Add(1)
	return fmt.Sprintf("%sn%d", e.marker, n), n
}

// Faker returns a generator seeded from the run seed and the spec's name, so
// a spec writes the same text in every run with the same seed.
func (e *Env) Faker(specName string) *gofakeit.Faker {
	h := fnv.New64a()
	_, _ = h.Write([]byte(specName))
	s := e.Seed ^ h.Sum64()
	if s == 0 {
		s = 1
	}
	return gofakeit.New(s)
}
