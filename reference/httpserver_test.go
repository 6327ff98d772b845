package reference

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrooms/conformance/reference/localtls"
)

// lockedBuffer collects log output written from the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hardened serves the reference with newHTTPServer and the given limits on
// a loopback port, and returns its address and a TLS client config.
func hardened(t *testing.T, lim limits) (addr string, conf *tls.Config, logs *lockedBuffer) {
	t.Helper()
	cert, caPEM, err := localtls.SelfSigned(CertOrg, CertName)
	if err != nil {
		t.Fatal(err)
	}
	logs = &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil)) // the default level
	srv, err := localtls.Start(newHTTPServer(New(testWorld(), Config{}), localtls.Config(cert), log, lim), localtls.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	return srv.TCPAddr.String(), &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}, logs
}

func shortLimits() limits {
	l := defaultLimits()
	l.readHeader, l.read, l.write, l.idle = 300*time.Millisecond, 500*time.Millisecond, 2*time.Second, 300*time.Millisecond
	return l
}

// closedWithin reports whether the server closes c (the read ends) within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

func TestIdleConnectionsAreClosed(t *testing.T) {
	addr, conf, _ := hardened(t, shortLimits())
	c, err := tls.Dial("tcp", addr, conf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// One request, then silence: the keep-alive connection goes idle.
	_, _ = io.WriteString(c, "GET /v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+testWorld().Users[0].Token+"\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first request: %v %v", resp, err)
	}
	if !closedWithin(c, 10*time.Second) {
		t.Error("an idle connection was still open 10 s after an idle timeout of 300 ms")
	}
}

func TestSlowClientsAreCut(t *testing.T) {
	addr, conf, _ := hardened(t, shortLimits())
	token := testWorld().Users[0].Token
	for name, partial := range map[string]string{
		"headers never end": "GET /v1/user HTTP/1.1\r\nHost: x\r\nX-Slow: ",
		"body never ends": "POST /v1/rooms/" + testWorld().Hints.WriteRoom + "/chatMessages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
			"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"text\":\"",
	} {
		c, err := tls.Dial("tcp", addr, conf)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(c, partial)
		if !closedWithin(c, 10*time.Second) {
			t.Errorf("%s: the connection was still open 10 s after a read timeout under 1 s", name)
		}
		c.Close()
	}
}

func TestConnectionsPastTheCapAreRefusedAndLogged(t *testing.T) {
	lim := defaultLimits()
	lim.conns = 2
	addr, conf, logs := hardened(t, lim)
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for range 2 {
		c, err := tls.Dial("tcp", addr, conf)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
	}
	if c, err := tls.Dial("tcp", addr, conf); err == nil {
		open = append(open, c)
		if !closedWithin(c, 10*time.Second) {
			t.Error("a third connection was served past a cap of 2")
		}
	}
	if !strings.Contains(logs.String(), "connection refused") || !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("no refused-connection line at the default level in the log:\n%s", logs)
	}
	// Once one closes, a new connection is served again.
	open[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := tls.Dial("tcp", addr, conf)
		if err == nil {
			_, _ = io.WriteString(c, "GET /v1/user HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			c.Close()
			if err == nil && resp.StatusCode == 401 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no connection was served after one under the cap closed")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TLS 1.2 is offered with AEAD suites only: a client that knows nothing
// but CBC suites cannot connect, one with GCM can.
func TestTLS12OffersAEADSuitesOnly(t *testing.T) {
	addr, conf, _ := hardened(t, defaultLimits())
	for _, tc := range []struct {
		suite uint16
		ok    bool
	}{
		{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, false},
		{tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, false},
		{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, false},
		{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true},
		{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, true},
	} {
		c := conf.Clone()
		c.MaxVersion, c.CipherSuites = tls.VersionTLS12, []uint16{tc.suite}
		conn, err := tls.Dial("tcp", addr, c)
		if (err == nil) != tc.ok {
			t.Errorf("%s: handshake error %v, want success %v", tls.CipherSuiteName(tc.suite), err, tc.ok)
		}
		if err == nil {
			conn.Close()
		}
	}
	c := conf.Clone()
	c.MaxVersion = tls.VersionTLS11
	if conn, err := tls.Dial("tcp", addr, c); err == nil {
		conn.Close()
		t.Error("TLS 1.1 was accepted")
	}
}

// The HTTP/2 stream cap is announced to clients.
func TestHTTP2StreamCap(t *testing.T) {
	srv := NewHTTPServer(http.NotFoundHandler(), nil, nil)
	if srv.HTTP2 == nil || srv.HTTP2.MaxConcurrentStreams != MaxConcurrentStreams || srv.IdleTimeout != IdleTimeout ||
		srv.ReadTimeout != ReadTimeout || srv.WriteTimeout != WriteTimeout || srv.ReadHeaderTimeout != ReadHeaderTimeout {
		t.Errorf("server limits: %+v", srv)
	}
}

// Two different credentials in one request, whatever their places (two
// Authorization lines included), are refused with 400; the same token
// repeated is accepted.
func TestTwoAuthorizationHeaders(t *testing.T) {
	w := testWorld()
	s := New(w, Config{})
	for _, tc := range []struct {
		name   string
		auth   []string
		x      []string
		status int
	}{
		{"two different Authorization lines", []string{"Bearer " + w.Users[0].Token, "Bearer " + w.Users[1].Token}, nil, 400},
		{"the same Authorization line twice", []string{"Bearer " + w.Users[0].Token, "Bearer " + w.Users[0].Token}, nil, 200},
		{"a valid line and a malformed one", []string{"Bearer " + w.Users[0].Token, "Basic eDp5"}, nil, 400},
		{"two different x-access-token lines", nil, []string{w.Users[0].Token, w.Users[1].Token}, 400},
	} {
		req := httptest.NewRequest("GET", "/v1/user", nil)
		for _, a := range tc.auth {
			req.Header.Add("Authorization", a)
		}
		for _, a := range tc.x {
			req.Header.Add("x-access-token", a)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, rec.Code, rec.Body, tc.status)
		}
	}
}

// Text that is not valid Unicode (invalid UTF-8, a lone surrogate escape)
// is refused with 400 and stores nothing; a proper surrogate pair is kept.
func TestInvalidUnicodeTextIsRefused(t *testing.T) {
	h := newHarness(t, Config{})
	room := h.world.Hints.WriteRoom
	msgs := "/v1/rooms/" + room + "/chatMessages"
	mine := h.send(0, room, "to be edited")
	before := len(h.list(0, room, "?limit=100"))
	for _, body := range []string{
		"{\"text\":\"a\xffb\"}",
		"{\"text\":\"\xc3\"}",
		`{"text":"\ud800"}`,
		`{"text":"x\udc00y"}`,
		`{"text":"\ud800\u0041"}`,
		`{"text":"\ud83d"}`,
	} {
		for _, c := range []call{{method: "POST", path: msgs}, {method: "PUT", path: msgs + "/" + mine.ID}} {
			c.body, c.invalid = body, true
			if r := h.do(c); r.status != 400 {
				t.Errorf("%s %q: %d %s, want 400", c.method, body, r.status, r.body)
			}
		}
	}
	if n := len(h.list(0, room, "?limit=100")); n != before {
		t.Errorf("refused sends changed the room: %d messages, was %d", n, before)
	}
	if got := h.get(msgs + "/" + mine.ID); !strings.Contains(string(got.body), `"text":"to be edited"`) {
		t.Errorf("refused edits changed the message: %s", got.body)
	}
	var m MessageView
	h.do(call{method: "POST", path: msgs, body: `{"text":"smile \ud83d\ude00 \\ud800"}`}).decode(t, &m)
	if m.Text != `smile 😀 \ud800` {
		t.Errorf("a surrogate pair and an escaped backslash: text %q", m.Text)
	}
}
