package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Kind says why an exchange failed below HTTP.
type Kind string

const (
	KindDNS      Kind = "dns"       // the host name did not resolve
	KindConnect  Kind = "connect"   // no connection (refused, no route)
	KindTLS      Kind = "tls"       // the TLS handshake or certificate failed
	KindTimeout  Kind = "timeout"   // no (complete) answer in time
	KindReset    Kind = "reset"     // the connection was reset or closed mid-exchange
	KindTooLarge Kind = "too-large" // headers or body beyond the caps the harness reads
	KindProtocol Kind = "protocol"  // the answer was not HTTP the client could parse
	KindCanceled Kind = "canceled"  // the caller cancelled the request (an interrupted run)
	// KindNotRecorded is a request a replay of the checks sent that the
	// record holds no answer for (ErrNotRecorded): no target was asked.
	KindNotRecorded Kind = "not-recorded"
	KindOther       Kind = "other"
)

// Liveness reports whether a failure of this kind suggests the target has
// stopped answering (as opposed to answering badly, or the run being
// cancelled).
func (k Kind) Liveness() bool {
	switch k {
	case KindDNS, KindConnect, KindTLS, KindTimeout, KindReset:
		return true
	}
	return false
}

// ErrNotRecorded is the error of a request that a replay of the checks
// sent and the record it replays holds no answer for.
var ErrNotRecorded = errors.New("the record holds no answer for this request")

// TransportError is a failure to exchange anything usable with the target:
// DNS, connection, TLS, timeout, reset, an answer beyond the caps. The
// harness reports it as an error of the environment, not as a failed
// requirement. Its text holds no secret.
type TransportError struct {
	Method, URL string // URL redacted
	Kind        Kind
	Err         error // redacted text of the cause
	// brokeOff says the status and headers came and the body ended
	// before its declared length (see Response.BrokenOff).
	brokeOff bool
}

func (e *TransportError) Error() string {
	cause := fmt.Sprint(e.Err)
	if strings.HasPrefix(cause, string(e.Kind)+": ") {
		// The cause names its kind already ("tls: failed to verify ..."):
		// said once is enough.
		return fmt.Sprintf("%s %s: %s", e.Method, e.URL, cause)
	}
	return fmt.Sprintf("%s %s: %s: %s", e.Method, e.URL, e.Kind, cause)
}

func (e *TransportError) Unwrap() error { return e.Err }

// Is lets errors.Is(err, context.Canceled) and errors.Is(err,
// context.DeadlineExceeded) work although Err keeps only the cause's text.
func (e *TransportError) Is(target error) bool {
	return target == context.Canceled && e.Kind == KindCanceled || target == context.DeadlineExceeded && e.Kind == KindTimeout
}

// classify names the kind of a failure of http.Client.Do or of reading a body.
func classify(err error) Kind {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var netErr net.Error
	var opErr *net.OpError
	msg := err.Error()
	switch {
	case errors.Is(err, ErrNotRecorded):
		return KindNotRecorded
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.As(err, &dnsErr):
		return KindDNS
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &alert),
		errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalid),
		strings.Contains(msg, "tls: "), strings.Contains(msg, "x509: "):
		return KindTLS
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return KindTimeout
	case strings.Contains(msg, "response headers exceeded"), strings.Contains(msg, "header list too long"):
		return KindTooLarge
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.As(err, &opErr) && opErr.Op == "dial":
		return KindConnect
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF), strings.Contains(msg, "connection reset"),
		strings.Contains(msg, "server closed"):
		return KindReset
	case strings.Contains(msg, "malformed HTTP"), strings.Contains(msg, "bad status line"):
		return KindProtocol
	}
	return KindOther
}

// Caps on what the harness reads from a target. They bound memory whatever
// the target sends.
const (
	// MaxHeaderBytes caps the response header block. Real APIs send a few
	// KiB; 64 KiB leaves room for large cookies and tracing headers.
	MaxHeaderBytes = 64 << 10
	// DefaultMaxBody caps a response body. The largest legitimate answer is a
	// page of 100 messages: even at 16 KiB of text plus its HTML each, JSON
	// escaped, that stays under 8 MiB, and 8 MiB per request in flight is
	// affordable.
	DefaultMaxBody = 8 << 20
)

// NewHTTPClient returns the HTTP client the harness uses for a target: TLS
// as tlsConf says (nil: system roots), redirects returned rather than
// followed (a redirect is an answer to judge), response headers capped at
// MaxHeaderBytes, and connection set-up bounded in time. Per-request time
// limits come from the Client's Timeout.
func NewHTTPClient(tlsConf *tls.Config) *http.Client {
	if tlsConf == nil {
		tlsConf = &tls.Config{}
	}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  http.ProxyFromEnvironment,
			DialContext:            (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSClientConfig:        tlsConf,
			TLSHandshakeTimeout:    10 * time.Second,
			ResponseHeaderTimeout:  30 * time.Second,
			ExpectContinueTimeout:  time.Second,
			MaxResponseHeaderBytes: MaxHeaderBytes,
			MaxIdleConnsPerHost:    16,
			IdleConnTimeout:        90 * time.Second,
			ForceAttemptHTTP2:      true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// UnavailableError reports that the target kept answering 429 (Too Many
// Requests) or 503 (Service Unavailable) after the allowed attempts or wait.
// It is no verdict on the server: the check is inconclusive.
type UnavailableError struct {
	Method, URL string // URL redacted
	Status      int    // the last answer, 429 or 503
	Attempts    int
	Waited      time.Duration // time spent waiting between attempts
	// Next is how long the target last asked the client to wait (0 when it
	// did not say); it is longer than the budget left when that ended the
	// retries.
	Next     time.Duration
	Response *Response // the last answer, recorded and validated
}

func (e *UnavailableError) Error() string {
	s := fmt.Sprintf("%s %s: still %d after %d attempts and %s of waiting", e.Method, e.URL, e.Status, e.Attempts, e.Waited.Round(time.Millisecond))
	if e.Next > 0 {
		s += fmt.Sprintf(" (the target asked for %s more)", e.Next.Round(time.Millisecond))
	}
	return s
}

// Unavailable marks the error as "rate limited or unavailable", for callers
// that test for the behaviour rather than the type.
func (e *UnavailableError) Unavailable() bool { return true }

// retryAfter reads how long the target asks the client to wait: the
// Retry-After header (seconds, or an HTTP date) or else X-RateLimit-Reset (a
// Unix time in milliseconds when it is that large, else in seconds; a small
// number is taken as seconds to wait). It returns 0 when neither says.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return clampWait(time.Duration(n) * time.Second)
		}
		if t, err := http.ParseTime(v); err == nil {
			return clampWait(t.Sub(now))
		}
	}
	if v := strings.TrimSpace(h.Get("X-RateLimit-Reset")); v != "" {
		if n, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(n) && !math.IsInf(n, 0) {
			switch {
			case n >= 1e12: // Unix milliseconds (1e12 ms is in 2001)
				return clampWait(time.UnixMilli(int64(n)).Sub(now))
			case n >= 1e9: // Unix seconds (1e9 s is in 2001)
				return clampWait(time.Unix(int64(n), 0).Sub(now))
			default: // seconds from now
				return clampWait(time.Duration(min(max(n, 0), 86400) * float64(time.Second)))
			}
		}
	}
	return 0
}

// clampWait keeps a wait within [0, a day]: a date in the past means "now",
// and an absurd value must not overflow.
func clampWait(d time.Duration) time.Duration {
	return min(max(d, 0), 24*time.Hour)
}
