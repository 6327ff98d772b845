package conformance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"os"
	"strconv"
	"sync"
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
	// Timeout bounds each request.
	Timeout time.Duration
	// Recorder receives every exchange (may be nil).
	Recorder *client.Recorder
	// Process tells parallel Ginkgo processes apart in run markers.
	Process int
	// Examples is how many random requests each generated check draws per
	// operation besides its coverage cases (0: the engine's default).
	Examples int
	// Client, when set, is the client the checks use (the runner builds it
	// so that it can preflight the target, throttle and stop the run);
	// Recorder and Timeout are then the client's own.
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
	ctx     context.Context
	ids     []string        // the requirement ids the check verifies
	blocker *string         // the requirement of the step under way, if any
	judging *string         // the requirement the assertions under way are about
	soft    map[string]bool // requirements recorded as soft failures (see softly)
	judged  map[string]bool // own requirements whose verifies blocks held (see verifies)
	left    *leftover
	gen     *generated // the run's generated-request engine, shared by every check
}

// leftover is what a check's sends left unread for another described
// user, by reader and room: marked read when the check ends, so a
// long-lived server's unread lists do not grow from run to run.
type leftover struct {
	mu  sync.Mutex
	ids map[int]map[string][]string
}

// NewEnv connects to the target and discovers what the description left
// out. Errors are *target.Error (a bad description) or
// *client.TransportError (the target cannot be reached).
func NewEnv(ctx context.Context, o Options) (*Env, error) {
	if o.Eventually == 0 {
		o.Eventually = 5 * time.Second
	}
	d := o.Target
	if o.Client != nil {
		if err := d.Discover(ctx, o.Client); err != nil {
			return nil, err
		}
		return newEnv(o, o.Client, d), nil
	}
	tlsConf := &tls.Config{InsecureSkipVerify: d.InsecureSkipVerify} //nolint:gosec // only when the description asks for it
	if d.CAFile != "" {
		pem, err := os.ReadFile(d.CAFile)
		if err != nil {
			return nil, &target.Error{Key: "ca_file", Reason: err.Error()}
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &target.Error{Key: "ca_file", Reason: "holds no PEM certificate"}
		}
		tlsConf.RootCAs = pool
	}
	httpClient := &http.Client{
		Transport: &http.Transport{TLSClientConfig: tlsConf, MaxIdleConnsPerHost: 16, ForceAttemptHTTP2: true},
		// A redirect is an answer to judge, not to follow (plain-http checks rely on it).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	doc, err := spec.Load(o.Profile)
	if err != nil {
		return nil, err
	}
	val, err := doc.NewValidator(d.MountPath())
	if err != nil {
		return nil, err
	}
	var secrets []string
	for _, u := range d.Users {
		secrets = append(secrets, u.Token)
	}
	c, err := client.New(client.Config{BaseURL: d.BaseURL, HTTP: httpClient, Validator: val, Timeout: o.Timeout, Secrets: secrets, Recorder: o.Recorder})
	if err != nil {
		return nil, &target.Error{Key: "base_url", Reason: err.Error()}
	}
	if err := d.Discover(ctx, c); err != nil {
		return nil, err
	}
	return newEnv(o, c, d), nil
}

func newEnv(o Options, c *client.Client, d *target.Description) *Env {
	e := &Env{Options: o, Client: c, Users: d.Users, seq: new(atomic.Int64), ctx: context.Background(), blocker: new(string), judging: new(string), gen: &generated{}}
	e.marker = "cc" + strconv.FormatInt(time.Now().UnixNano()%1e12, 36) + "p" + strconv.Itoa(o.Process)
	return e
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
