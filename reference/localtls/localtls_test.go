package localtls

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

func TestSelfSignedNamesLoopbackAndHosts(t *testing.T) {
	_, caPEM, err := SelfSigned("org", "name", "proxy.example", "10.0.0.7", "0.0.0.0", "localhost", "")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(caPEM)
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !c.IsCA || c.Subject.CommonName != "name" || !slices.Equal(c.Subject.Organization, []string{"org"}) {
		t.Errorf("subject %v, CA %v", c.Subject, c.IsCA)
	}
	if !slices.Equal(c.DNSNames, []string{"localhost", "proxy.example"}) {
		t.Errorf("DNS names %v", c.DNSNames)
	}
	var ips []string
	for _, ip := range c.IPAddresses {
		ips = append(ips, ip.String())
	}
	if !slices.Equal(ips, []string{"127.0.0.1", "::1", "10.0.0.7"}) {
		t.Errorf("IP addresses %v", ips)
	}
}

func clientTrusting(t *testing.T, caPEM []byte) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("no certificate in the PEM")
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
}

func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Proto + " " + string(b)
}

func TestStartServesTLSOnALoopbackPort(t *testing.T) {
	cert, caPEM, err := SelfSigned("org", "name")
	if err != nil {
		t.Fatal(err)
	}
	var wrapped atomic.Int32
	srv := &http.Server{TLSConfig: Config(cert), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hello") })}
	s, err := Start(srv, Options{Wrap: func(ln net.Listener) net.Listener { wrapped.Add(1); return ln }})
	if err != nil {
		t.Fatal(err)
	}
	if !s.TCPAddr.IP.IsLoopback() || s.TCPAddr.Port == 0 || s.URL != "https://"+s.TCPAddr.String() {
		t.Fatalf("listens on %v, URL %s", s.TCPAddr, s.URL)
	}
	if got := get(t, clientTrusting(t, caPEM), s.URL); got != "HTTP/2.0 hello" {
		t.Errorf("answered %q, want HTTP/2.0 hello", got)
	}
	if wrapped.Load() != 1 {
		t.Errorf("Wrap called %d times, want 1", wrapped.Load())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-s.Served(); err != http.ErrServerClosed {
		t.Errorf("served: %v", err)
	}
}

func TestStartPlain(t *testing.T) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "plain") })}
	s, err := Start(srv, Options{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %s", s.URL)
	}
	if got := get(t, http.DefaultClient, s.URL); got != "HTTP/1.1 plain" {
		t.Errorf("answered %q", got)
	}
}

func TestStartRefusesABusyAddress(t *testing.T) {
	s, err := Start(&http.Server{}, Options{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Start(&http.Server{}, Options{Addr: s.TCPAddr.String()}); err == nil {
		t.Error("a second server on a busy address started")
	}
}
