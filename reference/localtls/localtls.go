// Package localtls is the project's one home for a self-signed certificate
// and for an HTTPS server started on a port of its own (a fresh loopback
// port by default): the reference server, the bundled server, the
// benchmarks, the self-test and the proxy use it. It imports the standard
// library alone, so both reference/ and suites/ may use it.
package localtls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"time"
)

// SelfSigned makes a certificate that is its own CA, valid from an hour ago
// for 30 days for 127.0.0.1, ::1 and localhost and for each of hosts (an IP
// address or a name; an unspecified address such as 0.0.0.0 adds nothing).
// org and commonName name its subject. It returns the certificate for a
// tls.Config and its PEM encoding, which clients add to their trusted roots.
func SelfSigned(org, commonName string, hosts ...string) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{org}, CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, host := range hosts {
		switch ip := net.ParseIP(host); {
		case host == "" || host == "localhost":
		case ip == nil:
			tmpl.DNSNames = append(tmpl.DNSNames, host)
		case !ip.IsUnspecified():
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	return cert, certPEM, err
}

// Config returns a tls.Config serving cert.
func Config(cert tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{cert}}
}

// Options say where and how Start serves.
type Options struct {
	// Addr is the address to listen on; "" is 127.0.0.1:0, a fresh
	// loopback port.
	Addr string
	// Wrap, when set, wraps the TCP listener (a cap on connections, say)
	// before the server serves it.
	Wrap func(net.Listener) net.Listener
	// Plain serves the (wrapped) listener as it is, without TLS of the
	// server's own: plain HTTP, or TLS that Wrap's listener does itself.
	Plain bool
}

// Server is an http.Server serving on a listener Start opened.
type Server struct {
	*http.Server
	// TCPAddr is the address it listens on, with the real port when
	// port 0 was asked.
	TCPAddr *net.TCPAddr
	// URL is "https://" and TCPAddr ("http://" with Options.Plain).
	URL    string
	served chan error
}

// Start listens as o says and serves srv on the listener in a goroutine:
// over TLS with srv.TLSConfig (which holds the certificate, see Config)
// unless o.Plain. Stop it with srv's Close or Shutdown.
func Start(srv *http.Server, o Options) (*Server, error) {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{Server: srv, TCPAddr: ln.Addr().(*net.TCPAddr), URL: "https://", served: make(chan error, 1)}
	if o.Plain {
		s.URL = "http://"
	}
	s.URL += s.TCPAddr.String()
	if o.Wrap != nil {
		ln = o.Wrap(ln)
	}
	go func() {
		if o.Plain {
			s.served <- srv.Serve(ln)
		} else {
			s.served <- srv.ServeTLS(ln, "", "")
		}
	}()
	return s, nil
}

// Served receives what serving ended with: http.ErrServerClosed after
// Close or Shutdown, another error when serving failed.
func (s *Server) Served() <-chan error { return s.served }
