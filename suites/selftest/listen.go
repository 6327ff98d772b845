package selftest

import (
	"bufio"
	"crypto/tls"
	"net"
)

// plainToo is the listener of the HTTP-TLS-ONLY fault: it looks at the
// first byte of each connection and serves TLS handshakes over TLS and
// anything else as plain http, on the same port.
type plainToo struct {
	net.Listener
	tls *tls.Config
}

func (l plainToo) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	peeked := &peekedConn{Conn: c, r: br}
	if err == nil && first[0] == 0x16 { // a TLS handshake record
		return tls.Server(peeked, l.tls), nil
	}
	return peeked, nil
}

type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
