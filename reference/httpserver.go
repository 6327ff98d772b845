package reference

import (
	"context"
	"crypto/tls"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The limits of the HTTP server that NewHTTPServer builds. They are chosen
// so that one client cannot hold what others need: a connection that sends
// nothing, or sends slowly, or stops reading, is closed after a bounded
// time, and the number of connections and of HTTP/2 streams on each is
// capped. Every limit is far above what a well-behaved client of this API
// needs (the largest request body is 64 KiB; the largest response, a page
// of 100 messages, well under 1 MiB).
const (
	// ReadHeaderTimeout bounds the time from accepting a connection (or
	// the end of the previous request on it) to the end of the request's
	// headers: a slowloris client is cut after it.
	ReadHeaderTimeout = 5 * time.Second
	// ReadTimeout bounds the reading of a whole request, body included: a
	// body that never completes is cut after it.
	ReadTimeout = 15 * time.Second
	// WriteTimeout bounds the time from the end of the request's headers
	// to the end of the response: a client that stops reading releases
	// its handler after it.
	WriteTimeout = 15 * time.Second
	// IdleTimeout closes a keep-alive connection (HTTP/1 or HTTP/2) with
	// no request under way.
	IdleTimeout = 30 * time.Second
	// MaxHeaderBytes bounds a request's header section.
	MaxHeaderBytes = 16 << 10
	// MaxConcurrentStreams bounds the requests under way on one HTTP/2
	// connection.
	MaxConcurrentStreams = 64
	// MaxConnections bounds the open connections. Past it a new connection
	// is closed at once (and logged) instead of waiting unseen in the
	// kernel's queue; it stays well below the usual open-file limits.
	MaxConnections = 4096
)

// NewHTTPServer returns the http.Server the reference is served with:
// handler h, the limits above, and TLS from tlsConf hardened by
// HardenTLS. The server's own error log (accept errors, TLS handshake
// failures, refused connections) goes to log at warning level, so it shows
// at the default level; log may be nil to discard it. Serve it with
// ServeTLS(ln, "", "").
//
// Some requests are refused by Go's HTTP/1 layer before any handler runs,
// with a plain-text body the server cannot change: a malformed request line
// or header (400), a header section over MaxHeaderBytes (431), an
// unsupported Transfer-Encoding (501), a request line naming another HTTP
// version such as HTTP/2.0 (505), an Expect other than 100-continue (417),
// and plain HTTP sent to the TLS port (400). Everything that reaches the
// handler is answered in JSON.
func NewHTTPServer(h http.Handler, tlsConf *tls.Config, log *slog.Logger) *http.Server {
	return newHTTPServer(h, tlsConf, log, defaultLimits())
}

// limits are the values NewHTTPServer uses; tests shorten them.
type limits struct {
	readHeader, read, write, idle  time.Duration
	maxHeaderBytes, streams, conns int
}

func defaultLimits() limits {
	return limits{readHeader: ReadHeaderTimeout, read: ReadTimeout, write: WriteTimeout, idle: IdleTimeout,
		maxHeaderBytes: MaxHeaderBytes, streams: MaxConcurrentStreams, conns: MaxConnections}
}

func newHTTPServer(h http.Handler, tlsConf *tls.Config, log *slog.Logger, lim limits) *http.Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conns := &connCap{max: lim.conns, log: log}
	return &http.Server{
		Handler:           h,
		TLSConfig:         HardenTLS(tlsConf),
		ReadHeaderTimeout: lim.readHeader,
		ReadTimeout:       lim.read,
		WriteTimeout:      lim.write,
		IdleTimeout:       lim.idle,
		MaxHeaderBytes:    lim.maxHeaderBytes,
		HTTP2: &http.HTTP2Config{
			MaxConcurrentStreams: lim.streams,
			// A request body is at most 64 KiB: no stream needs a larger
			// window, and a client cannot make the server buffer more.
			MaxReceiveBufferPerStream:     maxBody,
			MaxReceiveBufferPerConnection: 1 << 20,
		},
		ConnState: conns.track,
		ErrorLog:  errorLog(log),
	}
}

// connCap counts open connections and closes those past max.
type connCap struct {
	mu   sync.Mutex
	n    int
	max  int
	log  *slog.Logger
	warn time.Time // when "limit reached" was last logged
}

func (c *connCap) track(conn net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		c.mu.Lock()
		c.n++
		over, n := c.n > c.max, c.n
		// One line per second at most while the cap is hit: a flood of
		// connections must not become a flood of log lines.
		logIt := over && time.Since(c.warn) >= time.Second
		if logIt {
			c.warn = time.Now()
		}
		c.mu.Unlock()
		if over {
			if logIt {
				c.log.Warn("connection refused: too many open connections", "remote", conn.RemoteAddr().String(), "open", n-1, "limit", c.max)
			}
			_ = conn.Close()
		}
	case http.StateClosed, http.StateHijacked:
		c.mu.Lock()
		c.n--
		c.mu.Unlock()
	}
}

// errorLog adapts the server's log.Logger output to slog. Handshake
// failures on connections the server closed itself (a refused connection,
// shutdown) are expected and go to debug; everything else is a warning.
func errorLog(l *slog.Logger) *log.Logger {
	return log.New(logWriter{l}, "", 0)
}

type logWriter struct{ l *slog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	level := slog.LevelWarn
	if strings.Contains(msg, "use of closed network connection") {
		level = slog.LevelDebug
	}
	w.l.Log(context.Background(), level, "http server", "msg", msg)
	return len(p), nil
}
