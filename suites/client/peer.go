package client

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
)

// Peer is what the client saw of the server that gave an answer: the
// address the request went to, the address of the socket's other end, and
// the certificates the server presented. Nothing in it is secret (a
// certificate is what a server shows anyone who connects). A Peer may be
// shared by the answers of one connection: do not modify it.
type Peer struct {
	// Address is the host and port the request was addressed to, as the
	// client dialled them: the URL's host, with the scheme's default port
	// written out (chat.example.com:443).
	Address string
	// Remote is the IP address and port of the connection's other end, as
	// the socket reports it ("" when the transport did not say). Through a
	// proxy it is the proxy's.
	Remote string
	// TLS says the answer came over TLS. Chain is then the SHA-256
	// fingerprint of each certificate the server presented (lowercase hex
	// of the DER bytes), leaf first; nil without TLS.
	TLS   bool
	Chain []string
}

// Leaf is the fingerprint of the server's own certificate ("" without TLS).
func (p *Peer) Leaf() string {
	if p == nil || len(p.Chain) == 0 {
		return ""
	}
	return p.Chain[0]
}

// Fingerprint is the SHA-256 fingerprint of a certificate's DER bytes, in
// lowercase hex: what `openssl x509 -noout -fingerprint -sha256` prints,
// without the colons.
func Fingerprint(der []byte) string {
	s := sha256.Sum256(der)
	return hex.EncodeToString(s[:])
}

// connSeen keeps the remote address of the connection a request went over,
// as httptrace reports it (possibly from another goroutine).
type connSeen struct{ remote atomic.Pointer[string] }

func (s *connSeen) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if info.Conn == nil {
			return
		}
		if a := info.Conn.RemoteAddr(); a != nil {
			r := a.String()
			s.remote.Store(&r)
		}
	}}
}

func (s *connSeen) addr() string {
	if s == nil {
		return ""
	}
	if r := s.remote.Load(); r != nil {
		return *r
	}
	return ""
}

// peerMemo is the last Peer made, with what identifies its connection, so
// that the answers of one connection share one Peer and its fingerprints
// are computed once per connection, not once per answer.
type peerMemo struct {
	address, remote string
	tls             bool
	first           **x509.Certificate // the connection's certificate slice
	n               int
	peer            *Peer
}

// HostPort is the host and port a URL is dialled at: its host, with the
// scheme's default port written out when it names none.
func HostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// peerOf is the Peer of an answer to a request for u, which came over a
// connection to remote with TLS state state (nil without TLS).
func (c *Client) peerOf(u *url.URL, state *tls.ConnectionState, remote string) *Peer {
	address := c.red.String(HostPort(u))
	var first **x509.Certificate
	n := 0
	if state != nil && len(state.PeerCertificates) > 0 {
		first, n = &state.PeerCertificates[0], len(state.PeerCertificates)
	}
	if m := c.peers.Load(); m != nil && m.address == address && m.remote == remote && m.tls == (state != nil) && m.first == first && m.n == n {
		return m.peer
	}
	p := newPeer(address, remote, state)
	c.peers.Store(&peerMemo{address: address, remote: remote, tls: state != nil, first: first, n: n, peer: p})
	return p
}

func newPeer(address, remote string, state *tls.ConnectionState) *Peer {
	p := &Peer{Address: address, Remote: remote, TLS: state != nil}
	if state != nil {
		p.Chain = make([]string, len(state.PeerCertificates))
		for i, cert := range state.PeerCertificates {
			p.Chain[i] = Fingerprint(cert.Raw)
		}
	}
	return p
}

// Probe sends one GET to rawURL with hc, carrying no credential, and
// returns what it saw of the server whatever the answer's status (a
// redirect is not followed with NewHTTPClient's clients). The body is not
// read. ctx bounds the whole exchange: give it a deadline. The error is a
// *TransportError naming the kind of failure (DNS, connect, TLS, timeout).
func Probe(ctx context.Context, hc *http.Client, rawURL string) (*Peer, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("client: %q is not an http or https URL", rawURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("client: %s carries credentials; name the server without them", u.Redacted())
	}
	seen := &connSeen{}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, seen.trace()), http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &TransportError{Method: http.MethodGet, URL: u.String(), Kind: classify(ctxErr(ctx, err)), Err: unwrapURL(err)}
	}
	resp.Body.Close()
	return newPeer(HostPort(u), seen.addr(), resp.TLS), nil
}
