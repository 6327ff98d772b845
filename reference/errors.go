package reference

import "net/http"

// Kind classifies an error; one table (status) maps kinds to HTTP statuses.
type Kind int

const (
	Invalid      Kind = iota + 1 // malformed input: 400
	Unauthorized                 // no or unknown credentials: 401
	Forbidden                    // authenticated but not allowed: 403
	NotFound                     // unknown room, message or path: 404
	TooMany                      // rate limit exceeded: 429
	Internal                     // a bug: 500
)

var statusOf = map[Kind]int{
	Invalid:      http.StatusBadRequest,
	Unauthorized: http.StatusUnauthorized,
	Forbidden:    http.StatusForbidden,
	NotFound:     http.StatusNotFound,
	TooMany:      http.StatusTooManyRequests,
	Internal:     http.StatusInternalServerError,
}

// Error is a failure with a kind. Detail is for logs only: clients get the
// reason phrase of the status, as the original service did.
type Error struct {
	Kind   Kind
	Detail string
}

func (e *Error) Error() string { return http.StatusText(statusOf[e.Kind]) + ": " + e.Detail }

func errorf(k Kind, detail string) *Error { return &Error{Kind: k, Detail: detail} }
