// Package independent is a second, separately written, in-memory server for
// the chat rooms API. It exists only to be a target for the conformance
// harness: it makes its own choices wherever the API description leaves a
// point open, and it can plant one named defect at a time.
package independent

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Options selects the world (Seed) and, optionally, one planted defect.
type Options struct {
	Seed   uint64
	Defect string
}

// Server is a running instance. BaseURL has the form https://127.0.0.1:PORT
// and CAPEM is the PEM encoding of the self-signed certificate it presents.
type Server struct {
	BaseURL string
	CAPEM   []byte

	httpSrv *http.Server
	ln      net.Listener
	done    chan struct{}
	world   *world

	closeOnce sync.Once
	closeErr  error
}

// defectCatalogue maps each plantable defect to what goes wrong with it on.
var defectCatalogue = map[string]string{
	"mark-all-read":       "marking any message read marks every message of the room read for that user",
	"readby-stuck":        "readBy is always reported as 0, however many users have read the message",
	"edit-no-bump":        "editing a message leaves v unchanged",
	"unread-shared":       "read state is not kept per user: one user marking a message read marks it read for every member",
	"before-inclusive":    "beforeId pages include the anchor message itself",
	"around-drops-anchor": "aroundId windows leave out the anchor message",
	"hide-ignored":        "hiding a room answers success but the room stays in the user's rooms list",
	"private-leak":        "private repositories are listed even when the user has not granted access",
	"channels-unfiltered": "the channels list returns every room of the user, not only USER_CHANNEL rooms",
	"html-unescaped":      "message html does not escape special characters of plain text",
	"query-token-refused": "the access_token query parameter is not accepted; only the Authorization header works",
	"limit-unbounded":     "limit above 100 is honoured, so a page can hold more than 100 messages",
}

// Defects lists the accepted defect names with a one-line description each.
func Defects() map[string]string {
	out := make(map[string]string, len(defectCatalogue))
	for k, v := range defectCatalogue {
		out[k] = v
	}
	return out
}

// Start builds the world for opts and serves it over TLS on a random port of
// the loopback interface.
func Start(opts Options) (*Server, error) {
	if opts.Defect != "" && !knownDefect(opts.Defect) {
		return nil, errors.New("independent: unknown defect " + opts.Defect)
	}
	certPEM, cert, err := selfSigned()
	if err != nil {
		return nil, err
	}
	w, err := buildWorld(opts.Seed, opts.Defect, time.Now())
	if err != nil {
		return nil, err
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	tlsCfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
	}
	var ln net.Listener
	if w.is("tls-plain-also") {
		ln = &sniffListener{Listener: raw, cfg: tlsCfg}
	} else {
		ln = tls.NewListener(raw, tlsCfg)
	}
	s := &Server{
		BaseURL: "https://" + raw.Addr().String(),
		CAPEM:   certPEM,
		ln:      ln,
		done:    make(chan struct{}),
		world:   w,
	}
	s.httpSrv = &http.Server{
		Handler:           &gateway{w: w},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          quietLogger(),
	}
	go func() {
		defer close(s.done)
		_ = s.httpSrv.Serve(ln)
	}()
	return s, nil
}

// Close stops serving and waits for the serving goroutine to end.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.httpSrv.Shutdown(ctx); err != nil {
			s.closeErr = s.httpSrv.Close()
		}
		<-s.done
	})
	return s.closeErr
}

type descUser struct {
	Name    string `yaml:"name"`
	Token   string `yaml:"token"`
	Granted *bool  `yaml:"private_repos_granted,omitempty"`
}

type description struct {
	BaseURL   string     `yaml:"base_url"`
	CAFile    string     `yaml:"ca_file"`
	Users     []descUser `yaml:"users"`
	WriteRoom string     `yaml:"write_room,omitempty"`
	HideRoom  string     `yaml:"hide_room,omitempty"`
}

// Description renders the YAML target description the harness reads.
func (s *Server) Description(caFile string) []byte {
	d := description{BaseURL: s.BaseURL, CAFile: caFile}
	w := s.world
	for _, u := range w.advertised {
		du := descUser{Name: u.username, Token: u.token}
		if u.grantState != grantUnstated {
			g := u.grantState == grantYes
			du.Granted = &g
		}
		d.Users = append(d.Users, du)
	}
	d.WriteRoom = w.writeRoom
	d.HideRoom = w.hideRoom
	out, err := yaml.Marshal(d)
	if err != nil {
		// Marshalling a plain struct of strings cannot fail; keep a sane value anyway.
		return []byte("base_url: " + s.BaseURL + "\n")
	}
	return out
}

// defectNames returns the catalogue keys in a stable order (used by tests).
func defectNames() []string {
	names := make([]string, 0, len(defectCatalogue))
	for k := range defectCatalogue {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// HeldOutDefect is a plantable defect of the second, held-out catalogue:
// what goes wrong with it on, and the id of the one core requirement of
// spec/requirements.yaml whose statement it breaks.
type HeldOutDefect struct {
	Name, What, Requirement string
}

// heldOutCatalogue is kept apart from defectCatalogue: Defects() lists only
// the original twelve, HeldOut() lists these. Names are unique across both.
var heldOutCatalogue = []HeldOutDefect{
	// current user
	{"me-cached-first", "GET /v1/user caches the first answer it builds and returns that user to every later caller", "USER-GET-ARRAY"},
	{"me-url-no-slash", "the user returned by GET /v1/user has a url without the leading slash", "USER-SHAPE"},
	{"me-avatar-flaky", "every 7th GET /v1/user answers avatarUrlMedium as a relative path instead of a URI", "USER-SHAPE"},
	// rooms list
	{"room-dm-uri", "one-to-one rooms carry a uri (the other participant's username)", "ROOM-ONE-TO-ONE"},
	{"room-dm-user-second-member", "a one-to-one room's user is always the room's second member, so for that member it is the caller, not the other participant", "ROOM-ONE-TO-ONE"},
	{"room-two-member-user", "any room with exactly two members (a small repository room, a shared channel) carries the other member as user", "ROOM-USER-ONLY-ONE-TO-ONE"},
	{"room-kind-flaky", "every 9th view of an organisation room reports platformType REPO", "ROOM-STABLE"},
	{"room-lastaccess-offset", "after the user posts or marks read in a room, its lastAccessTime is written with a +02:00 offset instead of UTC", "ROOM-SHAPE"},
	{"rooms-dm-missing-flaky", "every 13th rooms list leaves out the one-to-one rooms", "ROOM-KINDS"},
	{"rooms-drop-slashed", "the rooms list drops every room whose uri holds a slash (meant to drop channels), so repository rooms are missing", "ROOM-KINDS"},
	// hide a room
	{"hide-for-everyone", "hiding a room hides it for every member, not only for the caller", "ROOM-HIDE"},
	{"hide-dm-peer", "hiding a one-to-one room hides it for the other participant instead of the caller", "ROOM-HIDE"},
	{"hide-second-ignored", "a user can hide only one room: once one is hidden, hiding another answers success and changes nothing", "ROOM-HIDE"},
	// organisations
	{"org-room-stale-var", "an organisation without a room embeds the room of the organisation listed before it", "ORG-ROOM"},
	{"org-avatar-flaky", "every 6th organisations list gives avatar_url as a relative path", "ORG-LIST"},
	{"org-room-counts-first-member", "the room embedded in an organisation entry counts unread items and mentions of the organisation's first member, not of the caller", "UNREAD-ROOM-COUNTS"},
	// repositories
	{"repo-private-roomless-hidden", "a private repository is listed for a user who granted access only when it has a room", "REPO-PRIVATE-GRANTED"},
	{"repo-cache-global", "the repositories list is cached once for all users, so later callers get the first caller's list, private repositories included", "REPO-PRIVATE-WITHHELD"},
	{"repo-room-flaky", "every 7th repositories list embeds in roomless repositories the room of the entry before", "REPO-ROOM"},
	// channels
	{"channel-usercount-multi", "channels with more than one member carry userCount", "CHANNEL-NO-USERCOUNT"},
	{"channel-security-missing", "the channels list leaves security out of its rooms", "CHANNEL-SECURITY"},
	{"channel-kind-flaky", "every 8th channels list reports platformType CHANNEL instead of USER_CHANNEL", "CHANNEL-LIST"},
	// unread items (GET)
	{"unread-null-arrays", "unread items answers null instead of an empty array when a list is empty", "UNREAD-SHAPE"},
	{"unread-newest-dropped", "unread items never lists the newest message of the room (off-by-one loop)", "UNREAD-CHAT"},
	{"unread-mention-first-only", "a message counts as a mention only of the first user it mentions", "UNREAD-MENTION"},
	{"unread-get-clears", "GET unreadItems marks what it lists as read, so a repeated call comes back empty", "HTTP-GET-SAFE"},
	{"unread-chat-flaky", "every 7th GET unreadItems answers an empty chat list", "UNREAD-CHAT"},
	// mark read (POST)
	{"mark-read-first-only", "marking read applies only the first id of the chat array", "UNREAD-MARK-READ"},
	{"mark-read-flaky", "every 8th mark-read request answers success but marks nothing", "UNREAD-MARK-READ"},
	{"mark-read-mention-sticky", "the mention list ignores read state, so a mention stays listed after it is marked read", "UNREAD-MARK-READ"},
	{"readby-recount", "readBy counts mark-read calls, so a user marking a message read twice counts twice", "UNREAD-READBY"},
	{"unread-flag-first-member", "the unread flag of a message is computed for the room's first member, not for the caller", "UNREAD-FLAG"},
	{"room-counts-cached", "a room's unreadItems and mentions are cached per user at first view and never refreshed", "UNREAD-ROOM-COUNTS"},
	// message list and pagination
	{"skip-off-by-one", "skip n leaves out only n-1 messages", "PAGE-SKIP"},
	{"skip-ignored-with-before", "skip is ignored when beforeId is given", "PAGE-SKIP"},
	{"after-inclusive", "afterId pages include the anchor message itself", "PAGE-AFTERID"},
	{"around-mirrored", "aroundId places its window at the anchor's position counted from the wrong end, then swaps the anchor in", "PAGE-AROUNDID"},
	{"before-skips-neighbour", "a beforeId page leaves out the message right before the anchor", "PAGE-BEFOREID-WALK"},
	{"limit-99", "limit is capped at 99, so limit=100 never gives a full page of 100", "LIMIT-100"},
	{"limit-cap-skip", "limit is not capped at 100 when skip is also given", "LIMIT-CAP"},
	{"page-dup-flaky", "every 10th page of two or more messages repeats its first message in place of its last", "PAGE-UNIQUE"},
	{"limit-flaky", "every 12th page without aroundId holds limit+1 messages when the room has them", "PAGE-LIMIT"},
	// search
	{"search-lowercase-query-only", "search lowercases the query but not the text, so words written with capitals are never found", "SEARCH-Q"},
	{"search-global", "search looks through the messages of every room, not only the room of the path", "MSG-ROOM-SCOPE"},
	{"search-stale-after-edit", "the search index is not updated on edit: an edited message is found by its old words and not by its new ones", "SEARCH-Q"},
	{"search-flaky", "every 8th search ignores q and answers an unfiltered page", "SEARCH-Q"},
	// one message
	{"get-one-wrapped", "GET one message answers an array holding the message", "MSG-GET-ONE"},
	{"get-one-oldest-missing", "GET one message answers 404 for the oldest message of a room", "MSG-GET-ONE"},
	{"get-one-fromuser-caller", "GET one message fills fromUser with the caller instead of the sender", "MSG-STABLE"},
	// send
	{"send-201", "sending a message answers 201", "MSG-SEND-200"},
	{"send-readby-one", "the sender is recorded as a reader, so a new message has readBy 1", "MSG-SEND-DEFAULTS"},
	{"send-status-sticky", "the status flag is kept per room: after one status message every later message of the room is a status update", "MSG-SEND-STATUS"},
	{"send-text-trimmed", "the text of a new message is stored trimmed of leading and trailing white space", "MSG-SEND-TEXT"},
	{"send-lost-flaky", "every 8th send is answered but the message is not stored", "MSG-SEND-STORED"},
	// edit
	{"edit-v-double-second", "edits after the first raise v by two", "MSG-EDIT-V-INC"},
	{"edit-editedat-null-response", "the answer to an edit has editedAt null (the stored message is right)", "MSG-EDIT-EDITEDAT"},
	{"edit-second-lost", "edits after the first one are answered but not stored", "MSG-EDIT-PERSISTED"},
	{"editedat-flaky", "every 11th view of an edited message shows editedAt null", "MSG-EDIT-EDITEDAT"},
	{"edit-old-text-flaky", "every 6th edit answers with the text from before the edit", "MSG-EDIT"},
	// rendering and metadata
	{"render-mention-repeat", "a user mentioned twice in one message is wrapped in the mention span only the first time", "RENDER-MENTION"},
	{"render-issue-at-end", "an issue reference at the very end of the text is not wrapped in its span", "RENDER-ISSUE"},
	{"render-link-query", "a link with a query string is written as plain text, not as an anchor", "RENDER-LINK"},
	{"render-escape-edit", "an edited text is rendered without HTML escaping", "RENDER-ESCAPE"},
	{"meta-urls-first-only", "urls lists only the first URL of the text", "META-URLS"},
	{"meta-mention-userid-username", "mentions carry the username in userId", "META-MENTIONS"},
	{"meta-issues-int", "issues carry number as a JSON number", "META-ISSUES"},
	{"mention-screenname-as-typed", "a mention's screenName is the name as typed in the text, not the user's username, when the case differs", "USER-STABLE"},
	{"gv-flaky", "every 10th message view carries gv", "MSG-NO-GV"},
	{"meta-flaky", "every 12th message view carries a non-empty meta", "MSG-META-EMPTY"},
	{"sent-flaky", "every 15th message view writes sent with a +01:00 offset instead of UTC", "MSG-SHAPE"},
	// authentication
	{"auth-token-prefix", "tokens are compared on their first 20 characters only, so an altered token is accepted", "AUTH-UNKNOWN-TOKEN"},
	{"auth-anonymous-first-user", "a request without any token is served as the first user", "AUTH-REQUIRED"},
	{"auth-query-get-only", "the access_token query parameter is honoured only on GET", "AUTH-QUERY-TOKEN"},
	{"auth-bearer-with-query", "when the URL has a query string only access_token is consulted, so a bearer request with query parameters is refused", "AUTH-BEARER"},
	{"auth-session-by-addr", "the first user authenticated on a connection stays the caller for every later request on that connection, whatever token they carry", "AUTH-CURRENT-USER"},
	{"auth-unknown-fallback-flaky", "every 10th request with an unknown token is served as the last authenticated user", "AUTH-UNKNOWN-TOKEN"},
	// transport
	{"ctype-no-charset-writes", "successful POST and PUT answers are labelled application/json without charset", "HTTP-JSON-CONTENT-TYPE"},
	{"ctype-flaky", "every 9th successful answer is labelled text/plain", "HTTP-JSON-CONTENT-TYPE"},
	{"json-cut-16k", "response bodies longer than 16 KiB are cut at 16 KiB", "HTTP-JSON-BODY"},
	{"tls-plain-also", "a connection that does not start a TLS handshake is served as plain HTTP on the same port", "HTTP-TLS-ONLY"},
}

// HeldOut lists the held-out defects, sorted by name.
func HeldOut() []HeldOutDefect {
	out := append([]HeldOutDefect(nil), heldOutCatalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func knownDefect(name string) bool {
	if _, ok := defectCatalogue[name]; ok {
		return true
	}
	for _, d := range heldOutCatalogue {
		if d.Name == name {
			return true
		}
	}
	return false
}
