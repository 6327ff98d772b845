package attest

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/record"
)

// describe says in a few words what an observation holds.
func describe(o *record.Observation) string {
	if o == nil {
		return "not recorded"
	}
	var addrs []string
	for _, a := range o.Addresses {
		addrs = append(addrs, a.Scheme+"://"+a.Address)
	}
	s := "addresses " + strings.Join(addrs, ", ")
	if len(addrs) == 0 {
		s = "no address"
	}
	if leaves := o.Leaves(); len(leaves) > 0 {
		s += "; leaf certificates sha256 " + strings.Join(leaves, ", ")
	} else {
		s += "; no TLS"
	}
	return s
}

// checkAddresses checks that the harness connected where the statement
// says the run went: a target renamed after the run (in the report and
// the record) still shows the address the client dialled. The bundled
// server is named by what it is, not by its (random) address.
func (v *Verified) checkAddresses(p *Predicate) {
	o := p.Observed
	if o == nil || p.Bundled || (v.Replay != nil && v.Replay.Header.Bundled) {
		return
	}
	u, err := url.Parse(p.Target)
	if err != nil || u.Host == "" {
		v.problem("the statement's target %q is not a URL", p.Target)
		return
	}
	want := client.HostPort(u)
	for _, a := range o.Addresses {
		if a.Address != want {
			v.problem("the statement names target %s (%s), but the record shows the harness connected to %s: the target was renamed after the run", p.Target, want, a.Address)
		}
	}
}

// Against is what chatconform verify --against found: the server at URL
// compared with the certificates the statement recorded.
type Against struct {
	URL string
	// Live is what the server showed now; nil when it was not asked
	// (nothing to compare) or not reached.
	Live *client.Peer
	// Matched says the live leaf certificate is one the run recorded.
	Matched bool
	// Unreached is why the server could not be reached (nil when it was,
	// or was not asked).
	Unreached error
	// Problem says why the server is not shown to be the one the run
	// observed ("" when Matched or Unreached).
	Problem string
	// Notes say what differs without harm (another name for the server).
	Notes []string
}

// CannotCompare says why the statement gives nothing to compare a live
// server with ("" when it does): no observation recorded, or no TLS.
func (v *Verified) CannotCompare() string {
	switch {
	case v.Statement == nil:
		return "the attestation could not be read"
	case v.Statement.Predicate.Observed == nil:
		return "the attestation does not record the server's certificate (it was made before chatconform kept it): there is nothing to compare with"
	case len(v.Statement.Predicate.Observed.Leaves()) == 0:
		return "the run saw no TLS certificate (its target was reached over plain http): there is no certificate to compare with"
	}
	return ""
}

// CheckAgainst compares the server at rawURL with the leaf certificates
// the statement recorded, and keeps the finding in v.Against. probe is
// called only when there is something to compare; it connects to the
// server (client.Probe) and returns what it saw, or why it could not.
func (v *Verified) CheckAgainst(rawURL string, probe func() (*client.Peer, error)) {
	a := &Against{URL: rawURL}
	v.Against = a
	if why := v.CannotCompare(); why != "" {
		a.Problem = why
		return
	}
	live, err := probe()
	if err != nil {
		a.Unreached = err
		return
	}
	a.Live = live
	obs := v.Statement.Predicate.Observed
	recorded := obs.Leaves()
	switch {
	case live == nil || !live.TLS || live.Leaf() == "":
		a.Problem = fmt.Sprintf("%s presented no TLS certificate; the run recorded leaf sha256 %s", rawURL, strings.Join(recorded, ", "))
		return
	case !slices.Contains(recorded, live.Leaf()):
		a.Problem = fmt.Sprintf("the server at %s presents leaf certificate sha256 %s; the run recorded sha256 %s: it is not the server the run observed, or its certificate changed since",
			rawURL, live.Leaf(), strings.Join(recorded, ", "))
		return
	}
	a.Matched = true
	var addrs []string
	for _, x := range obs.Addresses {
		if !slices.Contains(addrs, x.Address) {
			addrs = append(addrs, x.Address)
		}
	}
	if !slices.Contains(addrs, live.Address) {
		a.Notes = append(a.Notes, fmt.Sprintf("%s names %s; the run connected to %s (the same certificate under another name)", rawURL, live.Address, strings.Join(addrs, ", ")))
	}
}

// Expect says what Verify, given the record and the zero Policy, will
// refuse of the statement st of the record at recordPath, with this
// build: a replay of a record this build wrote finds what the record's
// trailer says, so the trailer stands in for the replay. checked is as
// Options.Checked, checks Options.Checks. The Verified it returns holds
// the refusals, the coverage and the verdicts that will be taken on trust.
func Expect(st *Statement, recordPath string, checked func(string) bool, checks *CheckReplay) (*Verified, error) {
	h, tr, err := readRecord(recordPath)
	if err != nil {
		return nil, err
	}
	p, err := spec.ParseProfile(h.Profile)
	if err != nil {
		return nil, err
	}
	v := &Verified{Statement: st, RecordChecked: true,
		Replay: &record.Replayed{Header: h, Trailer: tr, Verdicts: tr.Verdicts, Judgeable: record.Judgeable(p)}}
	if v.Current, err = record.CurrentDigests(); err != nil {
		return nil, err
	}
	v.SameDocuments = st.Predicate.Digests == v.Current
	v.judge(Options{Checked: checked, Checks: checks})
	return v, nil
}
