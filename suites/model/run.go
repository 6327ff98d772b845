package model

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/chatrooms/conformance/suites/client"
)

// User is a described user who may write in the write room.
type User struct {
	ID       string
	Token    string
	Username string // for mentions ("" leaves mentions out)
	// Index is the user's place among the described users (0: user 1).
	Index int
}

// Config configures a run of the model against a target.
type Config struct {
	Client *client.Client
	// Users are the described users who belong to the write room, user 1
	// first: every operation is made by one of them.
	Users     []User
	WriteRoom string
	// OtherRooms[i] is a room of Users[i] besides the write room, only
	// read (and written through, to see a write refused): "" when none.
	OtherRooms []string
	// Judge names the requirements this run holds answers to; a statement
	// of any other requirement is not applied (another run judges it).
	Judge []string
	// Mix weighs the operations drawn.
	Mix Mix
	// Seed fixes the sequences drawn: the same seed draws the same ones.
	Seed uint64
	// Sequences is how many sequences are drawn (default 4), each of Steps
	// operations (default 30).
	Sequences, Steps int
	// ShrinkBudget bounds the requests spent shrinking a failing sequence
	// (default 600), and ShrinkTime the time (default 8 s: a replay that
	// waits out Eventually is slow).
	ShrinkBudget int
	ShrinkTime   time.Duration
	// Eventually is how long unread state and readBy may lag a write.
	Eventually time.Duration
	// SoleWriter says nobody but this run writes to the write room, so
	// messages the run did not send are older than every one it sent, and
	// readBy and v are exact.
	SoleWriter bool
	// SharedUsers says other clients act as the run's own users while a
	// sequence runs (the run's other checks, running beside the model's):
	// a message may then leave a user's unread items because another
	// client of that user marked it read, which the model learns instead
	// of judging, when one of their writes named it (the Client's
	// WriteLog; without one, any message).
	SharedUsers bool
	// Marker is a word every text the run writes carries.
	Marker string
	// Unusable, when set, names the requirement an answer breaks in a way
	// that leaves nothing to read in it (a refused token, a server
	// failure, a success of another shape), with the breach's signature,
	// or "" when the answer is usable, and every requirement the answer
	// breaks. A read whose answer is unusable, and breaks no requirement
	// the run judges, is sent again once; when the second answer is
	// usable the run goes on with it and reports the first in Report.Met.
	Unusable func(*client.Response) (requirement, signature string, breaks []string)
}

// Met is an answer a run could not use and read again: a breach of a
// requirement the run does not judge, met on the way.
type Met struct {
	Requirement, Signature string
	Response               *client.Response
	// Made says the answer was to a write the sequence found made all
	// the same (read back), rather than to a read it sent again.
	Made bool
}

// Finding is a statement of the description a sequence broke.
type Finding struct {
	Requirement string
	// Statement says what the model expected and what came back.
	Statement string
	// Steps is the failing sequence, shrunk: one line per operation.
	Steps []string
	// Drawn is the length of the sequence as drawn, before shrinking.
	Drawn int
	// Exchanges are the last exchanges of the failing sequence, the
	// failing one last.
	Exchanges []*client.Exchange
	// Writes are the requests of the failing sequence that the target
	// acknowledged with a success (sends, edits, marks read), in order: a
	// caller can read back what the sequence stood on.
	Writes []Write
	// Sequence is the index of the failing sequence under Config.Seed.
	Sequence int
	// Intermittent says the failure did not come back when the sequence
	// was replayed, so it was not shrunk.
	Intermittent bool
	// Went on says the answer could be used and the sequences went on
	// past it (see machine.softly): the sequence is shown as far as it was
	// when the breach was met, not shrunk.
	WentOn bool
}

func (f *Finding) String() string {
	var b strings.Builder
	if f.WentOn {
		fmt.Fprintf(&b, "%s\nsequence %d of the model's draws, up to the breach (%d operations; the answer could be used, so the sequences went on and it was not shrunk):\n", f.Statement, f.Sequence+1, len(f.Steps))
	} else if f.Intermittent {
		fmt.Fprintf(&b, "%s\nsequence %d of the model's draws (%d operations; replayed, it did not fail again, so it was not shrunk):\n", f.Statement, f.Sequence+1, len(f.Steps))
	} else {
		fmt.Fprintf(&b, "%s\nsequence %d of the model's draws (shrunk from %d to %d operations):\n", f.Statement, f.Sequence+1, f.Drawn, len(f.Steps))
	}
	for i, s := range f.Steps {
		fmt.Fprintf(&b, "  %2d. %s\n", i+1, s)
	}
	if n := len(f.Exchanges); n > 0 {
		x := f.Exchanges[n-1]
		fmt.Fprintf(&b, "request:  %s %s %s\n", x.Method, x.URL, x.RequestBody)
		fmt.Fprintf(&b, "response: %d %s\n", x.Status, cut(x.ResponseBody, 600))
		if x.Reproduce != "" {
			fmt.Fprintf(&b, "reproduce: %s\n", x.Reproduce)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Report is what a run found.
type Report struct {
	Sequences, Operations, Requests int
	// Finding is the first statement broken (nil when none).
	Finding *Finding
	// Blocked names the requirement of an answer the model needed and
	// could not use, when it is not one this run judges; BlockedText says
	// what came back.
	Blocked, BlockedText string
	// BlockedOp is the kind of operation that met that answer: a run drawn
	// again without it may judge the rest of what the run judges.
	BlockedOp Kind
	// Applied lists the requirements whose statements were applied to at
	// least one answer.
	Applied []string
	// Met are the answers the run read again (see Config.Unusable).
	Met []Met
	// Unread is, per index in Config.Users, the ids the run's messages left unread
	// for that user, for the caller to mark read when it is done.
	Unread map[int][]string
}

// TransportError is the error of a run the target stopped answering.
type TransportError struct{ Err error }

func (e *TransportError) Error() string { return e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// Run draws Config.Sequences sequences and holds every answer to the
// model. It stops at the first sequence that breaks a statement, shrinks
// it, and reports it. The error is a *TransportError when the target gave
// no answer to judge.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Users) == 0 || cfg.WriteRoom == "" || cfg.Client == nil {
		return nil, errors.New("model: a run needs a client, a write room and a user who may write in it")
	}
	if cfg.Sequences == 0 {
		cfg.Sequences = 4
	}
	if cfg.Steps == 0 {
		cfg.Steps = 30
	}
	if cfg.ShrinkBudget == 0 {
		cfg.ShrinkBudget = 600
	}
	if cfg.ShrinkTime == 0 {
		cfg.ShrinkTime = 8 * time.Second
	}
	judge := map[string]bool{}
	for _, r := range cfg.Judge {
		judge[r] = true
	}
	rep := &Report{Unread: map[int][]string{}}
	applied := map[string]bool{}
	defer func() {
		for r := range applied {
			rep.Applied = append(rep.Applied, r)
		}
	}()
	runs, room, walked := 0, map[string]*shown{}, false
	foreign, foreignRead := map[string]foreignMsg{}, false
	accessMax := map[int]time.Time{}
	var soft *Finding
	defer func() {
		if rep.Finding == nil && rep.Blocked == "" && soft != nil {
			rep.Finding = soft // a breach the sequences went on past, reported as met (not shrunk)
		}
	}()
	exec := func(ops []op) (*machine, any) {
		runs++
		m := &machine{ctx: ctx, cfg: &cfg, st: newState(len(cfg.Users)), judge: judge, applied: applied, seq: runs, room: room, walked: &walked, foreign: foreign, foreignRead: &foreignRead, accessMax: accessMax, soft: &soft, met: &rep.Met, marked: map[int]time.Time{}, sent: map[int]*written{}}
		end := m.exec(ops)
		rep.Requests += m.reqs
		rep.Operations += len(m.steps)
		m.leave(rep)
		return m, end
	}
	for i := range cfg.Sequences {
		r := rand.New(rand.NewPCG(cfg.Seed, derive(cfg.Seed, i)))
		ops := draw(r, cfg.Mix, cfg.Steps)
		rep.Sequences++
		m, end := exec(ops)
		switch e := end.(type) {
		case nil:
			continue
		case aborted:
			return rep, &TransportError{e.err}
		case blocked:
			rep.Blocked, rep.BlockedText, rep.BlockedOp = e.req, e.text, m.kind
			return rep, nil
		case violation:
			f := shrink(ctx, &cfg, ops, m, e, exec)
			f.Sequence, f.Drawn = i, len(ops)
			rep.Finding = f
			return rep, nil
		}
	}
	return rep, nil
}

// exec runs ops in order and returns what ended the sequence (nil when it
// ran to its end).
func (m *machine) exec(ops []op) (end any) {
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case violation, blocked, aborted:
				end = r
			default:
				panic(r)
			}
		}
	}()
	for _, o := range ops {
		if m.ctx.Err() != nil {
			return aborted{m.ctx.Err()}
		}
		m.run(o)
	}
	return nil
}

// leave adds to the report what the sequence left unread for each user.
func (m *machine) leave(rep *Report) {
	for _, k := range m.st.msgs {
		for u := range m.cfg.Users {
			if u != k.from {
				if _, read := k.read[u]; !read {
					rep.Unread[u] = append(rep.Unread[u], k.id)
				}
			}
		}
	}
}

// shrink looks for a shorter sequence that breaks the same requirement:
// it removes runs of operations, halving their length, while the budget
// of requests lasts (a sequence replays against the live target, whose
// earlier messages the model treats as a world it did not create).
func shrink(ctx context.Context, cfg *Config, ops []op, m *machine, v violation, exec func([]op) (*machine, any)) *Finding {
	best, bestM, bestV := ops, m, v
	// A failure that does not come back when its sequence is replayed (one
	// answer in N) is reported as drawn: shrinking it would replay in vain.
	if _, end := exec(ops); !sameViolation(end, v) {
		f := finding(m, v)
		f.Intermittent = true
		return f
	}
	spent, deadline := 0, cfg.Client.Now().Add(cfg.ShrinkTime)
	more := func() bool { return spent < cfg.ShrinkBudget && cfg.Client.Now().Before(deadline) }
	for chunk := len(best) / 2; chunk >= 1 && more(); {
		removed := false
		for start := 0; start+chunk <= len(best) && more(); {
			try := append(append([]op(nil), best[:start]...), best[start+chunk:]...)
			tm, end := exec(try)
			spent += tm.reqs
			if tv, ok := end.(violation); ok && tv.req == v.req {
				best, bestM, bestV, removed = try, tm, tv, true
				continue
			}
			if _, ok := end.(aborted); ok || ctx.Err() != nil {
				return finding(bestM, bestV)
			}
			start += chunk
		}
		if !removed {
			chunk /= 2
		}
	}
	return finding(bestM, bestV)
}

func sameViolation(end any, v violation) bool {
	tv, ok := end.(violation)
	return ok && tv.req == v.req
}

func finding(m *machine, v violation) *Finding {
	steps := make([]string, 0, len(m.steps))
	steps = append(steps, m.steps...)
	return &Finding{Requirement: v.req, Statement: v.text, Steps: steps, Exchanges: m.last, Writes: m.writes}
}

// Write is a request of a sequence that the target acknowledged.
type Write struct {
	// User is the described user who sent it (User.Index).
	User     int
	Request  client.Request
	Response *client.Response
}

func derive(seed uint64, i int) uint64 {
	h := fnv.New64a()
	h.Write([]byte("model/" + strconv.FormatUint(seed, 10) + "/" + strconv.Itoa(i)))
	return h.Sum64()
}
