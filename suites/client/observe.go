package client

import (
	"net/http"
	"strings"
	"time"
)

// Observed is one answer the client read, handed to Config.Observe, for an
// observer that judges the answers of a whole run together (a history
// checker, say).
//
// Everything but the two bodies is redacted. The bodies are the raw bytes
// sent and read: they are only valid during the call, must not be modified,
// and must be copied if any of them is to be kept.
type Observed struct {
	// Start is when the request was handed to the transport; End is when the
	// whole response body had been read. Both carry the monotonic clock.
	Start, End time.Time
	// User is the index in Config.Secrets of the token the request carried
	// (Authorization: Bearer, then the access_token parameter, then an
	// X-Access-Token header: the first that holds one of the secrets), or -1
	// when it carried none of them.
	User   int
	Method string
	// Path is the request path below the base URL (starting with /v1) and
	// Query the encoded query, both as sent, with the access_token value
	// and every secret replaced by the redaction marker.
	Path, Query string
	// Operation is Response.Operation: the operationId, or "METHOD path"
	// when the document has none for the request.
	Operation string
	// Invalid is Request.Invalid: a request meant to break the document.
	Invalid bool
	Status  int
	// RequestBody is the body sent (nil when none); ResponseBody the whole
	// body read, not the cut copy the Exchange keeps.
	RequestBody, ResponseBody []byte
	// Reproduce is the exchange's curl command, tokens left as shell
	// variables (Exchange.Reproduce).
	Reproduce string
	// RequestHeader and ResponseHeader are the headers as the Exchange
	// keeps them: redacted and capped.
	RequestHeader, ResponseHeader http.Header
	// Peer is what the client saw of the server that answered: the
	// address, and the certificates it presented over TLS. It is shared
	// by the answers of a connection and must not be modified; nil when
	// unknown (an exchange read back from a record).
	Peer *Peer
	// Check is the check the request was sent for ("" for the run's
	// setup; see Client.SetCheck).
	Check string
	// BrokenOff is Response.BrokenOff: ResponseBody is what came before
	// the body ended short of its declared length.
	BrokenOff bool
}

// observe hands one answer to Config.Observe.
func (c *Client) observe(r Request, req *http.Request, body []byte, out *Response, start, end time.Time, peer *Peer) {
	o := Observed{
		Start: start, End: end, User: c.secretIndex(req), Method: req.Method, Peer: peer,
		Path:      c.red.String(r.Path),
		Query:     c.red.String(HideTokenParam(req.URL.RawQuery, c.red.Marker())),
		Operation: out.Operation, Invalid: r.Invalid, Status: out.Status,
		RequestBody: body, ResponseBody: out.Body, Check: CheckOf(req.Context()), BrokenOff: out.BrokenOff,
	}
	if out.Exchange != nil {
		o.Reproduce = out.Exchange.Curl()
		o.RequestHeader, o.ResponseHeader = out.Exchange.RequestHeader, out.Exchange.ResponseHeader
	}
	c.cfg.Observe(o)
}

// secretIndex says which of the client's secrets authenticates req: see
// Observed.User.
func (c *Client) secretIndex(req *http.Request) int {
	if a := req.Header.Get("Authorization"); a != "" {
		if scheme, tok, ok := strings.Cut(strings.TrimSpace(a), " "); ok && strings.EqualFold(scheme, "Bearer") {
			if i := c.secretOf(strings.TrimSpace(tok)); i >= 0 {
				return i
			}
		}
	}
	if strings.Contains(req.URL.RawQuery, "access_token") {
		for _, t := range req.URL.Query()["access_token"] {
			if i := c.secretOf(t); i >= 0 {
				return i
			}
		}
	}
	for _, t := range req.Header.Values("X-Access-Token") {
		if i := c.secretOf(strings.TrimSpace(t)); i >= 0 {
			return i
		}
	}
	return -1
}

// secretOf is the index of token among Config.Secrets, or -1.
func (c *Client) secretOf(token string) int {
	if token == "" {
		return -1
	}
	for i, s := range c.cfg.Secrets {
		if s == token {
			return i
		}
	}
	return -1
}
