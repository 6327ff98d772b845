package reference

import (
	"net/http"
	"path"
	"strings"
)

// routes lists the whole API surface, in the order of the API document.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, m methods) { mux.Handle(pattern, s.authenticated(m.handler(s))) }

	api("/v1/user", methods{"GET": s.handleCurrentUser()})
	api("/v1/user/{userId}/rooms", methods{"GET": s.handleRooms()})
	api("/v1/user/{userId}/rooms/{roomId}", methods{"DELETE": s.handleHideRoom()})
	api("/v1/user/{userId}/rooms/{roomId}/unreadItems", methods{"GET": s.handleUnread(), "POST": s.handleMarkRead()})
	api("/v1/user/{userId}/orgs", methods{"GET": s.handleOrgs()})
	api("/v1/user/{userId}/repos", methods{"GET": s.handleRepos()})
	api("/v1/user/{userId}/channels", methods{"GET": s.handleChannels()})
	api("/v1/rooms/{roomId}/chatMessages", methods{"GET": s.handleListMessages(), "POST": s.handleSend()})
	api("/v1/rooms/{roomId}/chatMessages/{messageId}", methods{"GET": s.handleMessage(), "PUT": s.handleEdit()})

	// Anything else is a JSON 404, never the mux's text/plain one.
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, s.log, r, errorf(NotFound, "no such path"))
	})
	mux.Handle("/", notFound)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The mux would redirect an unclean path (/v1//user, /v1/./user)
		// with an empty body; no such path is part of the API.
		if !clean(r.URL.Path) {
			notFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// methods dispatches on the request method and answers a JSON 405 (with
// Allow) for the others, instead of the mux's text/plain one.
type methods map[string]http.Handler

func (m methods) handler(s *Server) http.Handler {
	allow := ""
	for _, name := range []string{"GET", "POST", "PUT", "DELETE"} {
		if _, ok := m[name]; ok {
			if allow != "" {
				allow += ", "
			}
			allow += name
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := m[r.Method]; ok {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Allow", allow)
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": http.StatusText(http.StatusMethodNotAllowed)})
	})
}

// clean reports whether p is already in the canonical form the mux wants.
func clean(p string) bool {
	want := path.Clean(p)
	if strings.HasSuffix(p, "/") && want != "/" {
		want += "/"
	}
	return p != "" && want == p
}
