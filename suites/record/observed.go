package record

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/chatrooms/conformance/suites/client"
)

// Observation is what the harness saw of the server during a run, from
// the connections its client made: every distinct address it reached and
// every distinct TLS certificate chain the server presented, each with the
// number of exchanges answered that way. A record's trailer carries it;
// a record written before chatconform kept it has none (nil).
//
// It says which server answered as far as a client can tell, not who runs
// it: a certificate is public, and anyone who writes a record by hand can
// copy a server's fingerprints into it.
type Observation struct {
	Addresses []Address `json:"addresses"`
	// Chains is empty when no answer came over TLS (a plain-http target).
	Chains []Chain `json:"tlsChains"`
}

// Address is one address the harness reached.
type Address struct {
	// Scheme is "https" or "http" (the plain-http probe of an https
	// target goes to the same host and port).
	Scheme string `json:"scheme"`
	// Address is the host and port as dialled (client.Peer.Address).
	Address string `json:"address"`
	// Remote is the IP address and port of the connection's other end
	// (client.Peer.Remote); "" when the transport did not say.
	Remote    string `json:"remote,omitempty"`
	Exchanges int    `json:"exchanges"`
}

// Chain is one certificate chain the server presented.
type Chain struct {
	// SHA256 are the certificates' SHA-256 fingerprints (lowercase hex of
	// the DER bytes), leaf first.
	SHA256    []string `json:"sha256"`
	Exchanges int      `json:"exchanges"`
}

// Leaves are the fingerprints of the leaf certificates the server
// presented, one per distinct chain.
func (o *Observation) Leaves() []string {
	if o == nil {
		return nil
	}
	var out []string
	for _, c := range o.Chains {
		if len(c.SHA256) > 0 && !slices.Contains(out, c.SHA256[0]) {
			out = append(out, c.SHA256[0])
		}
	}
	return out
}

// Print writes the observation in words, each line after indent: the
// addresses, then the chains (or that there was no TLS). nil says it was
// not recorded.
func (o *Observation) Print(w io.Writer, indent string) {
	switch {
	case o == nil:
		fmt.Fprintf(w, "%starget as observed: not recorded (a record made before chatconform kept the server's address and certificates)\n", indent)
		return
	case len(o.Addresses) == 0:
		fmt.Fprintf(w, "%starget as observed: no answer was received\n", indent)
		return
	}
	var parts []string
	for _, a := range o.Addresses {
		s := a.Scheme + "://" + a.Address
		if a.Remote != "" && a.Remote != a.Address {
			s += " (remote " + a.Remote + ")"
		}
		parts = append(parts, fmt.Sprintf("%s, %s", s, Plural(a.Exchanges, "exchange")))
	}
	fmt.Fprintf(w, "%starget as observed: %s\n", indent, strings.Join(parts, "; "))
	if len(o.Chains) == 0 {
		fmt.Fprintf(w, "%sTLS: none; no answer came over TLS (a plain-http target), so no certificate was recorded\n", indent)
		return
	}
	for _, c := range o.Chains {
		fmt.Fprintf(w, "%sTLS certificate chain (sha256, leaf first), %s: %s\n", indent, Plural(c.Exchanges, "exchange"), strings.Join(c.SHA256, " "))
	}
}

// observer gathers an Observation from the peers of observed exchanges.
type observer struct {
	mu     sync.Mutex
	addrs  map[Address]int // Exchanges left 0 in the key
	chains map[string]*Chain
	last   *client.Peer // the last peer counted, and its keys
	lastA  Address
	lastC  string
}

func (o *observer) add(p *client.Peer, red *client.Redactor) {
	if p == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.addrs == nil {
		o.addrs, o.chains = map[Address]int{}, map[string]*Chain{}
	}
	if p != o.last {
		o.last = p
		o.lastA = Address{Scheme: "http", Address: red.String(p.Address), Remote: red.String(p.Remote)}
		if p.TLS {
			o.lastA.Scheme = "https"
		}
		o.lastC = strings.Join(p.Chain, " ")
	}
	o.addrs[o.lastA]++
	if p.TLS {
		c := o.chains[o.lastC]
		if c == nil {
			c = &Chain{SHA256: slices.Clone(p.Chain)}
			o.chains[o.lastC] = c
		}
		c.Exchanges++
	}
}

// observation is what was gathered, sorted.
func (o *observer) observation() *Observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := &Observation{Addresses: []Address{}, Chains: []Chain{}}
	for a, n := range o.addrs {
		a.Exchanges = n
		out.Addresses = append(out.Addresses, a)
	}
	slices.SortFunc(out.Addresses, func(a, b Address) int {
		return strings.Compare(a.Scheme+" "+a.Address+" "+a.Remote, b.Scheme+" "+b.Address+" "+b.Remote)
	})
	for _, c := range o.chains {
		out.Chains = append(out.Chains, *c)
	}
	slices.SortFunc(out.Chains, func(a, b Chain) int {
		return strings.Compare(strings.Join(a.SHA256, " "), strings.Join(b.SHA256, " "))
	})
	return out
}
