package reference

import (
	"net/http"
	"net/url"
	"strconv"
)

// Default and largest page sizes, and the deepest skip.
const (
	DefaultLimit = 50
	MaxLimit     = 100
	MaxSkip      = 5000
)

var success = map[string]bool{"success": true}

// handler adapts a function returning a value or an error.
func (s *Server) handler(f func(r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := f(r)
		if err != nil {
			writeError(w, s.log, r, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// pathUser checks {userId}: the caller's own id or "me".
func pathUser(r *http.Request) (string, error) {
	me := caller(r).ID
	switch id := r.PathValue("userId"); {
	case id == "me" || id == me:
		return me, nil
	case !validID(id):
		return "", errorf(Invalid, "malformed user id")
	default:
		return "", errorf(Forbidden, "userId names another user")
	}
}

func (s *Server) handleCurrentUser() http.Handler {
	return s.handler(func(r *http.Request) (any, error) {
		return []UserView{s.store.User(caller(r).ID)}, nil
	})
}

// userScoped wraps the handlers below /v1/user/{userId}.
func (s *Server) userScoped(f func(r *http.Request, userID string) (any, error)) http.Handler {
	return s.handler(func(r *http.Request) (any, error) {
		id, err := pathUser(r)
		if err != nil {
			return nil, err
		}
		return f(r, id)
	})
}

func (s *Server) handleRooms() http.Handler {
	return s.userScoped(func(_ *http.Request, id string) (any, error) { return s.store.Rooms(id), nil })
}

func (s *Server) handleChannels() http.Handler {
	return s.userScoped(func(_ *http.Request, id string) (any, error) { return s.store.Channels(id), nil })
}

func (s *Server) handleOrgs() http.Handler {
	return s.userScoped(func(_ *http.Request, id string) (any, error) { return s.store.Orgs(id), nil })
}

func (s *Server) handleRepos() http.Handler {
	return s.userScoped(func(_ *http.Request, id string) (any, error) { return s.store.Repos(id), nil })
}

func (s *Server) handleHideRoom() http.Handler {
	return s.userScoped(func(r *http.Request, id string) (any, error) {
		return success, s.store.Hide(id, r.PathValue("roomId"))
	})
}

func (s *Server) handleUnread() http.Handler {
	return s.userScoped(func(r *http.Request, id string) (any, error) {
		return s.store.Unread(id, r.PathValue("roomId"))
	})
}

func (s *Server) handleMarkRead() http.Handler {
	return s.userScoped(func(r *http.Request, id string) (any, error) {
		var body struct {
			Chat []string `json:"chat"`
		}
		if err := decodeBody(r, &body); err != nil {
			return nil, err
		}
		return success, s.store.MarkRead(id, r.PathValue("roomId"), body.Chat)
	})
}

func (s *Server) handleListMessages() http.Handler {
	return s.handler(func(r *http.Request) (any, error) {
		q, err := s.parseQuery(r.URL.Query())
		if err != nil {
			return nil, err
		}
		items, err := s.store.List(caller(r).ID, r.PathValue("roomId"), q)
		if err != nil {
			return nil, err
		}
		return s.msgs.page(items), nil
	})
}

// parseQuery applies the list parameters' rules: limit defaults to 50 (also
// for 0) and is clamped to 100; skip may not exceed 5000; negative or
// non-integer numbers and malformed ids are refused.
func (s *Server) parseQuery(v url.Values) (Query, error) {
	q := Query{Limit: DefaultLimit, BeforeID: v.Get("beforeId"), AfterID: v.Get("afterId"), AroundID: v.Get("aroundId"), Q: v.Get("q")}
	for _, name := range []string{"limit", "skip"} {
		if v.Has(name) && v.Get(name) == "" {
			return q, errorf(Invalid, name+" must be an integer")
		}
	}
	if raw := v.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 {
			return q, errorf(Invalid, "limit must be a non-negative integer")
		}
		q.Limit = min(n, MaxLimit)
		if n == 0 {
			q.Limit = DefaultLimit
		}
	}
	if raw := v.Get("skip"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 || n > MaxSkip {
			return q, errorf(Invalid, "skip must be an integer from 0 to 5000")
		}
		q.Skip = n
	}
	for _, id := range []string{q.BeforeID, q.AfterID, q.AroundID} {
		if id != "" && !validID(id) {
			return q, errorf(Invalid, "malformed message id in a cursor")
		}
	}
	return q, nil
}

func (s *Server) handleMessage() http.Handler {
	return s.handler(func(r *http.Request) (any, error) {
		it, err := s.store.Message(caller(r).ID, r.PathValue("roomId"), r.PathValue("messageId"))
		if err != nil {
			return nil, err
		}
		return s.msgs.one(it), nil
	})
}

func (s *Server) handleSend() http.Handler {
	return s.handler(func(r *http.Request) (any, error) {
		var body struct {
			Text   *string `json:"text"`
			Status bool    `json:"status"`
		}
		if err := decodeBody(r, &body); err != nil {
			return nil, err
		}
		if body.Text == nil {
			return nil, errorf(Invalid, "text is required")
		}
		msg, dropped, err := s.store.Send(caller(r).ID, r.PathValue("roomId"), *body.Text, body.Status)
		if err != nil {
			return nil, err
		}
		s.msgs.drop(dropped)
		return s.msgs.one(Item{Msg: msg}), nil
	})
}

func (s *Server) handleEdit() http.Handler {
	return s.handler(func(r *http.Request) (any, error) {
		var body struct {
			Text *string `json:"text"`
		}
		if err := decodeBody(r, &body); err != nil {
			return nil, err
		}
		if body.Text == nil {
			return nil, errorf(Invalid, "text is required")
		}
		it, dropped, err := s.store.Edit(caller(r).ID, r.PathValue("roomId"), r.PathValue("messageId"), *body.Text)
		if err != nil {
			return nil, err
		}
		s.msgs.drop(dropped)
		return s.msgs.one(it), nil
	})
}
