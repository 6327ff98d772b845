package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/chatrooms/conformance/suites/client"
)

// ServerError reports that the target answered its own API wrongly while the
// harness was finding its bearings (preflight, discovery): a 5xx, an HTML
// page, invalid JSON, the wrong shape. It is a failure of the target, not of
// the description. Its text holds no secret.
type ServerError struct {
	Key    string // the user concerned ("users[1]"), or "" when none
	Op     string // "GET /v1/user"
	Status int    // the status that came back (0 when the fault is not the status)
	Reason string // what was wrong, with the start of the body, redacted
	// Requirement is the catalogue id of the requirement the answer breaks.
	Requirement string
}

func (e *ServerError) Error() string {
	who := ""
	if e.Key != "" {
		who = e.Key + ": "
	}
	return fmt.Sprintf("target failure: %s%s %s", who, e.Op, e.Reason)
}

// Preflight tries every user's token with GET /v1/user before any check, and
// fills in the ids and usernames the description left out. Errors, by what
// the caller should do:
//   - *Error (joined with errors.Join when several users fail): the user must
//     fix the description: a token the target refuses (401 or 403, as a
//     bearer header and as the access_token parameter), or an id or username
//     the answer contradicts (users[i].id, users[i].username) where the
//     answer is no other described user.
//   - *ServerError: the target answered its own API wrongly.
//   - *client.TransportError: the target could not be reached (its Kind
//     says why), and *client.UnavailableError: it kept answering 429 or 503.
//
// Only description errors are gathered over all users; any other error ends
// the preflight at once.
func (d *Description) Preflight(ctx context.Context, c *client.Client) error {
	// Every token is asked at once; the answers are read in user order, so
	// errors come out as a sequential preflight would give them.
	type answer struct {
		me  me
		err error
	}
	// User 1 is asked first: a server that answers every caller with the
	// user of its first call then names user 1 rightly, and the checks of
	// one user are judged.
	answers := make([]answer, len(d.Users))
	var wg sync.WaitGroup
	for i := range d.Users {
		ask := func() {
			m, err := whoami(ctx, c, d.Users[i].Token)
			answers[i] = answer{m, err}
		}
		if i == 0 {
			ask()
			continue
		}
		wg.Go(ask)
	}
	wg.Wait()
	var refused []error
	described := map[string]bool{} // every id the description gives
	for _, u := range d.Users {
		if u.ID != "" {
			described[u.ID] = true
		}
	}
	for i := range d.Users {
		u := &d.Users[i]
		me, err := answers[i].me, answers[i].err
		if err != nil {
			var se *ServerError
			var de *Error
			switch {
			case errors.As(err, &de):
				de.Key = fmt.Sprintf("users[%d].token", i)
				de.Where = d.Where(de.Key)
				refused = append(refused, de)
				continue
			case errors.As(err, &se):
				se.Key = fmt.Sprintf("users[%d]", i)
			}
			return err
		}
		// An id or username the description gives that GET /v1/user
		// contradicts is the description's error (one copied from another
		// server, say), unless the answer is another described user: a
		// server that mixes its users up is the likelier fault then, and the
		// check of the current user (AUTH-CURRENT-USER) judges it.
		switch {
		case u.ID != "" && me.ID != u.ID && !described[me.ID]:
			refused = append(refused, d.errorf(fmt.Sprintf("users[%d].id", i), "%q, but GET /v1/user with user %d's token answers id %q: "+
				"fix it, or leave it out and it is discovered (a description written for another server?)", u.ID, i+1, me.ID))
			continue
		case u.ID != "" && me.ID == u.ID && u.Username != "" && me.Username != "" && me.Username != u.Username:
			refused = append(refused, d.errorf(fmt.Sprintf("users[%d].username", i), "%q, but GET /v1/user with user %d's token answers username %q: "+
				"fix it, or leave it out and it is discovered", u.Username, i+1, me.Username))
			continue
		case u.ID == "" && u.Username != "" && me.Username != "" && me.Username != u.Username && !usernameDescribed(d.Users, me.Username):
			refused = append(refused, d.errorf(fmt.Sprintf("users[%d].username", i), "%q, but GET /v1/user with user %d's token answers username %q: "+
				"fix it, or leave it out and it is discovered (a description written for another server?)", u.Username, i+1, me.Username))
			continue
		}
		if u.ID == "" {
			u.ID = me.ID
		}
		if u.Username == "" {
			u.Username = me.Username
		}
	}
	if len(refused) > 0 {
		return errors.Join(refused...)
	}
	if err := d.tellApart(ctx, c, func(i int) string { return answers[i].me.ID }); err != nil {
		return err
	}
	d.preflighted = true
	return nil
}

// Confusion says why the run cannot act as a described user: GET /v1/user
// answered that user's token with the user of an earlier token. The
// checks that need the user are blocked by Requirement, which the
// preflight found broken.
type Confusion struct {
	Requirement string // AUTH-BEARER when the header alone mixes the users up, else AUTH-CURRENT-USER
	// Also names the other requirements the same answers break: GET
	// /v1/user answering one token with another's user breaks the
	// operation's own statement too (USER-GET-ARRAY: the token's user).
	Also []string
	Text string
}

// Confused says whether user u (0-based) cannot be told apart from an
// earlier described user; user 1 always can.
func (d *Description) Confused(u int) (Confusion, bool) {
	c, ok := d.confused[u]
	return c, ok
}

// tellApart records, for each user after the first whose token GET
// /v1/user answered with the id it answered an earlier user's token, a
// Confusion. Described users are distinct people, so one of the two
// answers is wrong. The token is asked twice more first: an answer that
// names another user once in a few is AUTH-CURRENT-USER's own check's to
// judge, and leaves the run its users. When the access_token parameter
// tells the two apart where the header did not, the header is at fault.
func (d *Description) tellApart(ctx context.Context, c *client.Client, answered func(int) string) error {
	first := map[string]int{}
	for i := range d.Users {
		id := answered(i)
		j, seen := first[id]
		if !seen {
			first[id] = i
			continue
		}
		again := 0
		for range 2 {
			m, err := whoamiAt(ctx, c, d.Users[i].Token, client.Bearer)
			if err != nil {
				return err
			}
			if m.ID == id {
				again++
			}
		}
		if again < 2 {
			continue
		}
		conf := Confusion{Requirement: "AUTH-CURRENT-USER", Also: []string{"USER-GET-ARRAY"}, Text: fmt.Sprintf("GET /v1/user answers the tokens of users %d and %d with one user (id %s) on every read: the run cannot act as user %d (described users are distinct people)", j+1, i+1, id, i+1)}
		mi, erri := whoamiAt(ctx, c, d.Users[i].Token, client.QueryToken)
		mj, errj := whoamiAt(ctx, c, d.Users[j].Token, client.QueryToken)
		if erri == nil && errj == nil && mi.ID != "" && mj.ID != "" && mi.ID != mj.ID {
			conf = Confusion{Requirement: "AUTH-BEARER", Text: fmt.Sprintf("GET /v1/user answers the tokens of users %d and %d with one user (id %s) when they are sent in the Authorization header, and with two users when they are sent as the access_token parameter: the header does not tell user %d apart", j+1, i+1, id, i+1)}
		}
		if d.confused == nil {
			d.confused = map[int]Confusion{}
		}
		d.confused[i] = conf
	}
	return nil
}

func usernameDescribed(users []User, name string) bool {
	for _, u := range users {
		if u.Username == name {
			return true
		}
	}
	return false
}

type me struct {
	ID       string `json:"id"`
	Username string `json:"username"`
}

// whoami asks GET /v1/user with token, as a bearer header and, when that is
// refused, as the access_token parameter (a server that ignores the header
// should fail the bearer check, not look like a bad token). A refusal both
// ways is an *Error; a wrong answer a *ServerError.
func whoami(ctx context.Context, c *client.Client, token string) (me, error) {
	const op = "GET /v1/user"
	resp, err := c.Do(ctx, client.Request{Method: "GET", Path: "/v1/user", Token: token})
	if err != nil {
		return me{}, err
	}
	if resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden {
		q, err := c.Do(ctx, client.Request{Method: "GET", Path: "/v1/user", Token: token, Place: client.QueryToken})
		if err != nil {
			return me{}, err
		}
		if q.Status != http.StatusOK {
			return me{}, &Error{Reason: fmt.Sprintf("the server answered %d to %s with this token (%s)", resp.Status, op, bodyStart(c, resp))}
		}
		resp = q
	}
	switch {
	case resp.Status == http.StatusNotFound:
		return me{}, &ServerError{Op: op, Status: resp.Status, Requirement: "HTTP-V1-PREFIX", Reason: fmt.Sprintf("answered 404 (is base_url right? it names the mount path, without /v1): %s", bodyStart(c, resp))}
	case resp.Status != http.StatusOK:
		return me{}, &ServerError{Op: op, Status: resp.Status, Requirement: "USER-GET-ARRAY", Reason: fmt.Sprintf("answered %d: %s", resp.Status, bodyStart(c, resp))}
	}
	// The answer is read as loosely as the run can use it: an id written as
	// a number still names the user (the document checker reports the
	// shape, and the run goes on judging the rest).
	var users []map[string]json.RawMessage
	if err := json.Unmarshal(resp.Body, &users); err != nil {
		req := "USER-GET-ARRAY"
		if !json.Valid(resp.Body) {
			req = "HTTP-JSON-BODY"
		}
		return me{}, &ServerError{Op: op, Requirement: req, Reason: fmt.Sprintf("answered 200 with a body that is not a JSON array of users (%v): %s", c.Redactor().Error(err), bodyStart(c, resp))}
	}
	var u me
	if len(users) == 1 {
		u = me{ID: scalar(users[0]["id"]), Username: scalar(users[0]["username"])}
	}
	if len(users) != 1 || u.ID == "" {
		return me{}, &ServerError{Op: op, Requirement: "USER-GET-ARRAY", Reason: fmt.Sprintf("answered 200 with %d users, want exactly one carrying an id: %s", len(users), bodyStart(c, resp))}
	}
	return u, nil
}

// whoamiAt asks GET /v1/user with token in one place and reads the id and
// username of a one-user answer; any other answer gives the zero me.
func whoamiAt(ctx context.Context, c *client.Client, token string, place client.TokenPlace) (me, error) {
	resp, err := c.Do(ctx, client.Request{Method: "GET", Path: "/v1/user", Token: token, Place: place})
	if err != nil || resp.Status != http.StatusOK {
		return me{}, err
	}
	var users []map[string]json.RawMessage
	if json.Unmarshal(resp.Body, &users) != nil || len(users) != 1 {
		return me{}, nil
	}
	return me{ID: scalar(users[0]["id"]), Username: scalar(users[0]["username"])}, nil
}

// scalar is a JSON string's value, or a number's text ("" for anything
// else): what a path or a mention can still use of a field of the wrong
// type.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// bodyStart is the start of a response body for a message, redacted.
func bodyStart(c *client.Client, resp *client.Response) string {
	ct := resp.Header.Get("Content-Type")
	s := c.Redactor().Cut(string(resp.Body), 160)
	if s == "" {
		s = "(empty body)"
	}
	if ct != "" {
		return c.Redactor().String(ct) + " " + s
	}
	return s
}
