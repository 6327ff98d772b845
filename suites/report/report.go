// Package report is the model of a chatconform run report: what every
// output of a run says (the terminal summary, JSON, JUnit, HTML) and what
// the programs that read a report back (the self-test, the world shapes,
// the attestation, replay and diff) read. It holds no Ginkgo: the runner
// builds a Report from the checks it ran, replay from a record, and every
// reader decodes one with Decode or Read, never a private copy of the
// struct.
//
// The JSON a run writes with --json is a Report as encoding/json writes it;
// its schema is report.schema.json beside this file, and Format is the
// version of its shape.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// Format is the version of the JSON report's shape, written as its
// "format" field. Bump it when a field changes meaning or goes away (a new
// field is no reason to), and regenerate report.schema.json with it.
const Format = 1

//go:generate go run ./internal/reportschema/gen.go report.schema.json

// Report is a run organised by requirement.
type Report struct {
	// Format is the version of the report's shape: Format.
	Format int `json:"format"`
	// Version is chatconform's version (module version, or "devel").
	Version string       `json:"version,omitempty"`
	Profile spec.Profile `json:"profile"`
	Target  string       `json:"target"`
	// Bundled says no target was named, so the bundled reference server
	// (started in-process) was checked.
	Bundled bool `json:"bundled"`
	// TargetNote says what Target is, in words, for every output.
	TargetNote string        `json:"targetNote,omitempty"`
	Seed       uint64        `json:"seed"`
	Started    time.Time     `json:"started"`
	Duration   time.Duration `json:"durationNs"`
	// ChecksDuration is the part of Duration the checks themselves took
	// (the rest is starting the bundled server, preflight and discovery).
	ChecksDuration time.Duration `json:"checksNs,omitempty"`
	// ChecksAtOnce is how many checks ran at once (0 when no check ran).
	ChecksAtOnce int `json:"checksAtOnce,omitempty"`
	Requests     int `json:"requests"`
	// RateLimited is how many recorded answers were 429 or 503 (waited out
	// or, after the allowed retries, INCONCLUSIVE).
	RateLimited int `json:"rateLimitedAnswers,omitempty"`
	// ExitStatus is chatconform's exit code for the run.
	ExitStatus int `json:"exitCode"`
	// Halted says why the run did not judge every selected check ("" when
	// it did).
	Halted       string         `json:"halted,omitempty"`
	Requirements []Requirement  `json:"requirements"`
	Counts       map[string]int `json:"counts"` // requirements per verdict
	Checks       map[string]int `json:"checks"` // selected checks per outcome
	// Fixed lists baseline entries whose requirement now passes: the run
	// fails until they are removed from the baseline.
	Fixed []string `json:"fixed,omitempty"`
	// Coverage is how many checkable requirements the run judged, and why
	// it did not judge the others.
	Coverage *Coverage `json:"coverage,omitempty"`
	// CoverageShort says how the coverage falls short of --min-judged and
	// --require (the run then exits 1).
	CoverageShort []string `json:"coverageShort,omitempty"`
	// Judges are the run-wide judges (the history checker, the document
	// checker), each once with its overall outcome: they are checks of the
	// run like the declared ones, counted in Checks and announced in the
	// run's first line, though their verdicts sit under the requirements
	// they judge (a document checker that found nothing sits under none).
	Judges []Check `json:"judges,omitempty"`
	// Exchanges are the recorded exchanges that broke the document or
	// answered 5xx, at most MaxExchanges; ExchangesOmitted says how many
	// more there were.
	Exchanges        []*client.Exchange `json:"failedExchanges,omitempty"`
	ExchangesOmitted int                `json:"failedExchangesOmitted,omitempty"`
	// Replay is set on the report of a replayed record (chatconform
	// replay): how its verdicts compare with the run's.
	Replay *ReplayNote `json:"replay,omitempty"`
	// Proxy is set on the report of a proxy session (chatconform proxy):
	// the session, and what the client's requests broke, which is no
	// verdict on the server.
	Proxy *ProxyNote `json:"proxy,omitempty"`
}

// Requirement is the verdict on one catalogue entry.
type Requirement struct {
	ID      string       `json:"id"`
	Level   spec.Profile `json:"level"`
	Section string       `json:"section"`
	Text    string       `json:"text"`
	Verdict Outcome      `json:"verdict"`
	Reason  string       `json:"reason,omitempty"`
	Known   string       `json:"known,omitempty"` // the baseline's reason, when listed there
	Checks  []Check      `json:"checks,omitempty"`
}

// Check is the outcome of one check for one requirement: a row under that
// requirement.
type Check struct {
	Name    string   `json:"name"`
	Area    string   `json:"area,omitempty"`
	IDs     []string `json:"ids"`
	Outcome Outcome  `json:"outcome"`
	// Whole is the check's own outcome where Outcome is its outcome for
	// this requirement (a check that failed on another of its requirements
	// is BLOCKED here and FAIL as a whole); NOT RUN (left out) when the two
	// are the same.
	Whole     Outcome `json:"checkOutcome,omitempty"`
	BlockedBy string  `json:"blockedBy,omitempty"`
	// Fails names, for a failed check verifying several requirements, the
	// one it failed on; it did not judge the others.
	Fails   string `json:"fails,omitempty"`
	Message string `json:"message,omitempty"`
	// Of names the check this row is part of, when it is not the check's
	// own row: a failure a check recorded on the way about another
	// requirement counts as that check's, under this one.
	Of string `json:"of,omitempty"`
	// Signature names the breach a failure on the way is about, whichever
	// check met it (the operation, the rule and where): rows of one
	// requirement with one signature are one finding met several times.
	Signature string        `json:"signature,omitempty"`
	Duration  time.Duration `json:"durationNs,omitempty"`
	// Requests is how many requests the check sent: every attempt (429 and
	// 503 answers waited out count once each), its clean-up and a liveness
	// probe the run sent before it included.
	Requests int `json:"requests,omitempty"`
	// NotRecorded is set in a replay of the checks (chatconform replay
	// --checks): how many of the check's requests the record held no
	// answer for. Its verdict is then not re-derived from the record.
	NotRecorded int `json:"notRecorded,omitempty"`
}

// CheckOutcome is the outcome of the check as a whole.
func (c Check) CheckOutcome() Outcome {
	if c.Whole != NotRun {
		return c.Whole
	}
	return c.Outcome
}

// Caps on what a report keeps, so its size is bounded whatever the target
// sends: each check's message, and the failed exchanges listed.
const (
	MaxMessage   = 8 << 10
	MaxExchanges = 100
)

// ReplayNote says, in the report of a replayed record, what the run report
// has no other place for: how the replay compares with the run recorded.
type ReplayNote struct {
	// RecordedVersion is the harness version that made the run.
	RecordedVersion string `json:"recordedVersion"`
	// Digests are the SHA-256 digests (hex) of the documents and catalogue
	// the run was judged by, as the record's header names them.
	Digests map[string]string `json:"digests"`
	// Changes say how this build's documents, catalogue and version differ
	// from the run's (none: the same judges).
	Changes []string `json:"changes,omitempty"`
	// Complete says the record has its last line (the run was not cut
	// short).
	Complete bool `json:"complete"`
	// Compared says the record holds the verdicts of its run to compare
	// with; Differences lists how the replay's differ from them.
	Compared    bool     `json:"compared"`
	Differences []string `json:"differences,omitempty"`
	// JudgedAgainstDocument is how many exchanges were held to the
	// document; ExchangesNotJudged counts the others by reason.
	JudgedAgainstDocument int            `json:"judgedAgainstDocument"`
	ExchangesNotJudged    map[string]int `json:"exchangesNotJudged,omitempty"`
	// Unattributed are findings under labels that are no requirement of
	// the catalogue (a request addressing no operation, say), in words.
	Unattributed []string `json:"unattributed,omitempty"`
	// Client lists what the run's own requests broke that were not marked
	// as meant to (a harness's mistake, never the server's).
	Client []ClientBreach `json:"client,omitempty"`
}

// ProxyNote says, in the report of a proxy session, what the run report
// has no other place for: the session, and the requirements the client's
// requests broke. The server's answers are judged as a run's are, under
// the requirements; the client's breaches are the client's, and make the
// session exit 1 as the server's do.
type ProxyNote struct {
	// Listen is the address the proxy listened on.
	Listen string `json:"listen"`
	// Forwarded is how many exchanges the proxy forwarded; Unanswered how
	// many the target gave no answer to.
	Forwarded  int `json:"forwarded"`
	Unanswered int `json:"unanswered,omitempty"`
	// JudgedAgainstDocument is how many exchanges were held to the
	// document; ExchangesNotJudged counts the others by reason.
	JudgedAgainstDocument int            `json:"judgedAgainstDocument"`
	ExchangesNotJudged    map[string]int `json:"exchangesNotJudged,omitempty"`
	// HistoryWindows is how many times the history checker started
	// afresh, plus one.
	HistoryWindows int `json:"historyWindows"`
	// Client lists the requirements the client's requests broke.
	Client []ClientBreach `json:"client,omitempty"`
	// Unattributed are the server's breaches under labels that are no
	// requirement of the catalogue (an answer to a request addressing no
	// operation, say), in words.
	Unattributed []string `json:"unattributed,omitempty"`
}

// ClientBreach is a requirement the client's requests broke.
type ClientBreach struct {
	Requirement string `json:"requirement"`
	Text        string `json:"text,omitempty"`
	// Source is the judge that found it: "document" or "history".
	Source string `json:"source"`
	// Count is how many exchanges broke it (document), or how many
	// contradictions were found (history).
	Count int `json:"count"`
	// Message is the first examples, with their exchanges.
	Message string `json:"message"`
}

// Decode reads a JSON report. It refuses a report of a later format than
// this build knows.
func Decode(raw []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("not a chatconform JSON report: %v", err)
	}
	if r.Format > Format {
		return nil, fmt.Errorf("a chatconform JSON report of format %d; this build reads format %d and earlier", r.Format, Format)
	}
	return &r, nil
}

// Read reads the JSON report at path (see Decode).
func Read(path string) (*Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Verdicts is each requirement's verdict, by id, in the words of every
// output.
func (r *Report) Verdicts() map[string]string {
	out := make(map[string]string, len(r.Requirements))
	for _, q := range r.Requirements {
		out[q.ID] = q.Verdict.String()
	}
	return out
}
