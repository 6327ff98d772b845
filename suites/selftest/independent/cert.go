package independent

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"sync"
	"time"
)

// selfSigned makes a throw-away P-256 certificate valid for 127.0.0.1 and
// localhost; it doubles as its own trust anchor.
func selfSigned() ([]byte, tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "independent chat rooms target", Organization: []string{"selftest"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(72 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	return certPEM, pair, err
}

// quietLogger swallows the http server's own log lines (TLS handshake noise
// from plain-HTTP probes, for instance).
func quietLogger() *log.Logger { return log.New(io.Discard, "", 0) }

// sniffListener (defect tls-plain-also) hands out connections that decide on
// their first read whether the peer speaks TLS; anything else is served as
// plain HTTP.
type sniffListener struct {
	net.Listener
	cfg *tls.Config
}

func (l *sniffListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &sniffConn{Conn: c, cfg: l.cfg}, nil
}

type sniffConn struct {
	net.Conn
	cfg  *tls.Config
	once sync.Once
	mu   sync.Mutex // guards rw for Close, which may run beside a Read
	rw   net.Conn
	err  error
}

type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (p *peekedConn) Read(b []byte) (int, error) { return p.r.Read(b) }

func (s *sniffConn) pick() {
	s.once.Do(func() {
		br := bufio.NewReader(s.Conn)
		first, err := br.Peek(1)
		if err != nil {
			s.err = err
			return
		}
		pc := &peekedConn{Conn: s.Conn, r: br}
		var rw net.Conn = pc
		if first[0] == 0x16 { // TLS handshake record
			rw = tls.Server(pc, s.cfg)
		}
		s.mu.Lock()
		s.rw = rw
		s.mu.Unlock()
	})
}

func (s *sniffConn) Read(b []byte) (int, error) {
	s.pick()
	if s.err != nil {
		return 0, s.err
	}
	return s.rw.Read(b)
}

func (s *sniffConn) Write(b []byte) (int, error) {
	s.pick()
	if s.err != nil {
		return 0, s.err
	}
	return s.rw.Write(b)
}

func (s *sniffConn) Close() error {
	s.mu.Lock()
	rw := s.rw
	s.mu.Unlock()
	if rw != nil {
		return rw.Close()
	}
	return s.Conn.Close()
}
