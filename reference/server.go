// Package reference is the reference implementation of the Chat Rooms REST
// API: an in-memory store loaded from a fixtures.World, markdown rendering,
// and HTTP handlers. Where the API document leaves a point open it follows
// the decisions of DESIGN.md section 5; one further decision of its own: a
// room the caller is not a member of answers 404, like an unknown one, so
// room ids do not leak.
package reference

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chatrooms/conformance/fixtures"
)

// DefaultEditWindow is how long after sending a message its author may edit it.
const DefaultEditWindow = 600 * time.Second

// Config tunes a Server. The zero value is the default behaviour.
type Config struct {
	// RateLimit is the number of requests a user may make per 60-second
	// window; 0 turns rate limiting off.
	RateLimit int
	// EditWindow defaults to DefaultEditWindow.
	EditWindow time.Duration
	// Logger receives one line per request; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server serves the API. It is an http.Handler, safe for concurrent use.
type Server struct {
	store   *Store
	msgs    *messageCache
	log     *slog.Logger
	limiter *limiter
	root    http.Handler
}

// New returns a Server over the given world.
func New(w *fixtures.World, cfg Config) *Server {
	if cfg.EditWindow == 0 {
		cfg.EditWindow = DefaultEditWindow
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	store := NewStore(w, cfg.Now, cfg.EditWindow)
	s := &Server{store: store, msgs: &messageCache{store: store}, log: cfg.Logger}
	if cfg.RateLimit > 0 {
		s.limiter = newLimiter(cfg.RateLimit, time.Minute, cfg.Now)
	}
	s.root = s.recoverer(s.logged(s.routes()))
	return s
}

// Store returns the server's state, for tests and benchmarks.
func (s *Server) Store() *Store { return s.store }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.root.ServeHTTP(w, r) }

type ctxKey struct{}

func caller(r *http.Request) *user { return r.Context().Value(ctxKey{}).(*user) }

// authenticated resolves the caller's token (Authorization: Bearer,
// ?access_token= or x-access-token), applies the rate limit, then calls next.
func (s *Server) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, err := credential(r)
		if err != nil {
			writeError(w, s.log, r, err)
			return
		}
		u, ok := s.store.Authenticate(token)
		if !ok {
			writeError(w, s.log, r, errorf(Unauthorized, "unknown token"))
			return
		}
		if s.limiter != nil && !s.limiter.allow(w.Header(), u.ID) {
			writeError(w, s.log, r, errorf(TooMany, "rate limit"))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, u)))
	})
}

func credential(r *http.Request) (string, error) {
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return "", errorf(Invalid, "malformed query string")
	}
	// Every credential the request carries is read, each header line
	// included: two that differ are refused rather than one picked.
	var tokens []string
	lines := r.Header.Values("Authorization")
	for _, h := range lines {
		// A header of another scheme, or a Bearer one with no token, is no
		// credential this API takes: the request is answered as one
		// without a token (401 with the Bearer challenge), as HTTP's
		// bearer scheme reads it, not as a malformed request.
		scheme, token, _ := strings.Cut(h, " ")
		token = strings.TrimSpace(token)
		if !strings.EqualFold(scheme, "bearer") || token == "" {
			if len(lines) > 1 {
				// Beside another line it is not "no credential" but a
				// request that says two things.
				return "", errorf(Invalid, "malformed Authorization header among several")
			}
			continue
		}
		tokens = append(tokens, token)
	}
	tokens = append(tokens, query["access_token"]...)
	for _, h := range r.Header.Values("x-access-token") {
		if h != "" {
			tokens = append(tokens, h)
		}
	}
	if len(tokens) == 0 {
		return "", errorf(Unauthorized, "no token")
	}
	for _, t := range tokens[1:] {
		if t != tokens[0] {
			return "", errorf(Invalid, "two different tokens")
		}
	}
	return tokens[0], nil
}

// statusRecorder remembers the status for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (s *Server) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		// The path only: the query may carry access_token.
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration", time.Since(start))
	})
}

func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				writeError(w, s.log, r, errorf(Internal, fmt.Sprintf("panic: %v", v)))
			}
		}()
		next.ServeHTTP(w, r)
	})
}
