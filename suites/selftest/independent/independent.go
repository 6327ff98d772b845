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
func HeldOut() []HeldOutDefect { return byName(heldOutCatalogue) }

// byName returns a copy of a catalogue sorted by name.
func byName(catalogue []HeldOutDefect) []HeldOutDefect {
	out := append([]HeldOutDefect(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// heldOut2Catalogue is a second held-out set, written from the API
// description alone. HeldOut2() lists it; neither Defects() nor HeldOut()
// does. Names are unique across all three catalogues.
var heldOut2Catalogue = []HeldOutDefect{
	// current user
	{"me-list-accumulates", "GET /v1/user appends the user to an answer buffer kept between calls and never reset, so every answer after the first holds several users", "USER-GET-ARRAY"},
	{"dm-peer-url-display", "the other participant embedded in a one-to-one room has a url built from their display name instead of their username", "USER-STABLE"},
	// rooms list
	{"room-mentions-count-any", "a room's mentions counts every unread message that mentions anybody, not only the current user", "UNREAD-ROOM-COUNTS"},
	{"send-touch-first-member", "sending a message updates the lastAccessTime of the room's first member instead of the sender's", "ROOM-LAST-ACCESS"},
	{"rooms-lurk-dropped", "rooms the user lurks in are taken for muted ones and left out of the rooms list", "ROOM-KINDS"},
	// hide a room
	{"hide-next-room", "hiding a room hides the room after it in the user's rooms instead (index advanced once too often)", "ROOM-HIDE"},
	// organisations
	{"org-id-string", "organisation ids are written as JSON strings", "ORG-LIST"},
	// repositories
	{"repo-private-omitempty", "the private flag is left out of public repository entries (omitted when false)", "REPO-LIST"},
	{"repo-grant-flaky", "every 5th repositories list of a user who granted access withholds the private repositories", "REPO-PRIVATE-GRANTED"},
	// channels
	{"channel-security-rooms-list", "channels reached through the rooms list carry no security; only the channels list fills it in", "CHANNEL-SECURITY"},
	// unread items (GET)
	{"unread-mention-case", "a message that mentions the user with different letter case is not listed under mention", "UNREAD-MENTION"},
	{"unread-scans-newest-page", "unread items looks only at the newest 35 messages of the room, so older unread messages are never listed", "UNREAD-CHAT"},
	// mark read (POST)
	{"mark-read-stops-at-read", "marking read stops at the first id of the chat array that is already read, leaving the ids after it unread", "UNREAD-MARK-READ"},
	{"unread-flag-cached", "a message's unread flag is cached per user at its first view and never refreshed, so it stays true after the message is marked read", "UNREAD-FLAG"},
	// message list and cursors
	{"after-ignored-with-before", "when beforeId and afterId come together, afterId is ignored and older messages fill the page", "PAGE-AFTERID"},
	{"skip-counts-anchor", "with beforeId, skip counts the anchor as the first skipped message, so skip n leaves out only n-1", "PAGE-SKIP"},
	{"around-limit-one-neighbour", "the aroundId window starts (limit+1)/2 before the anchor, so with limit=1 the page is the message before the anchor", "PAGE-AROUNDID"},
	{"before-by-sent-time", "beforeId compares sent times, so messages sent in the same millisecond just before the anchor are never reached", "PAGE-BEFOREID-WALK"},
	{"skip-5000-refused", "skip=5000 is refused (the bound is checked with >=)", "LIMIT-SKIP-5000"},
	{"list-empty-null", "an empty message list is answered as null instead of an empty array", "MSG-LIST"},
	// search
	{"search-status-excluded", "status messages are left out of the search", "SEARCH-Q"},
	{"search-filters-page", "search filters only the newest limit messages of the room instead of the whole room", "SEARCH-Q"},
	// one message
	{"get-one-any-room", "GET one message finds the message by id whatever room the path names", "MSG-ROOM-SCOPE"},
	{"get-one-marks-read", "GET one message marks it read for the caller", "HTTP-GET-SAFE"},
	// send
	{"send-status-needs-me", "status true is honoured only when the text starts with /me", "MSG-SEND-STATUS"},
	{"send-unread-flaky", "every 4th send answers the new message with unread true", "MSG-SEND-DEFAULTS"},
	{"send-editedat-sent", "a new message has editedAt set to its sent time", "MSG-SEND-EDITEDAT-NULL"},
	// edit
	{"edit-meta-stale", "an edit re-renders html but keeps the urls, mentions and issues of the old text", "META-URLS"},
	{"edit-moves-sent", "an edit sets sent to the time of the edit", "MSG-STABLE"},
	{"edit-v-lost-update", "an edit writes v from the value read before taking the lock, so concurrent edits lose increments", "MSG-EDIT-V-INC"},
	// rendering and metadata
	{"render-link-second-plain", "only the first link of a text becomes an anchor; later links are plain text", "RENDER-LINK"},
	{"render-escape-after-link", "text after a link is not HTML-escaped", "RENDER-ESCAPE"},
	{"render-mention-self", "a mention of the sender is not wrapped in the mention span", "RENDER-MENTION"},
	{"meta-mention-userid-flaky", "every 9th mention written in a message view has no userId", "META-MENTIONS"},
	// authentication
	{"auth-token-case-insensitive", "tokens are compared ignoring case, so an upper-cased token is accepted", "AUTH-UNKNOWN-TOKEN"},
	{"auth-anonymous-reads-messages", "GET requests for a room's messages without any token are served as the room's first member", "AUTH-REQUIRED"},
	{"auth-query-token-rawquery", "access_token is read off the raw query string and works only as the sole query parameter", "AUTH-QUERY-TOKEN"},
	{"auth-bearer-writes-refused", "POST and PUT consult only the access_token query parameter, so bearer writes are refused", "AUTH-BEARER"},
	// transport
	{"ctype-jsonp-query-token", "success answers to requests authenticated by access_token are labelled application/javascript", "HTTP-JSON-CONTENT-TYPE"},
	{"edit-body-twice-flaky", "every 5th edit answer carries its JSON document twice", "HTTP-JSON-BODY"},
}

// HeldOut2 lists the second held-out set, sorted by name.
func HeldOut2() []HeldOutDefect { return byName(heldOut2Catalogue) }

// heldOut3Catalogue is a third held-out set, written blind from the API
// description, without reading any check. HeldOut3() lists it; Defects(),
// HeldOut() and HeldOut2() do not. Names are unique across all catalogues.
var heldOut3Catalogue = []HeldOutDefect{
	// authentication
	{"auth-anonymous-path-user", "a request without any token to a /v1/user/:userId/... path is served as the user the path names", "AUTH-REQUIRED"},
	{"auth-token-extra-suffix", "a presented token is matched when it starts with an issued token, so a valid token with characters appended is accepted", "AUTH-UNKNOWN-TOKEN"},
	// users
	{"fromuser-url-by-id", "the fromUser of a message has url /<user id> instead of the user's url /<username>", "USER-STABLE"},
	// rooms list
	{"rooms-empty-dropped", "rooms without any message are left out of the rooms list, so the empty repository room is missing", "ROOM-KINDS"},
	{"room-onetoone-two-members", "oneToOne is computed as 'exactly two members', so two-member repository rooms and channels are flagged one-to-one", "ROOM-ONE-TO-ONE"},
	{"send-status-no-touch", "sending a status message does not update the sender's lastAccessTime of the room", "ROOM-LAST-ACCESS"},
	// hide a room
	{"hide-toggle", "hiding a room that is already hidden shows it again (the hide flag is toggled)", "ROOM-HIDE"},
	{"hide-lost-flaky", "every 3rd hide is answered with success but not applied", "ROOM-HIDE"},
	// organisations, repositories, channels
	{"org-room-empty-object", "an organisation without a room carries an empty room object", "ORG-ROOM"},
	{"repo-room-owner-match", "a roomless repository embeds a room of the user whose uri starts with the repository's owner, such as the owner's channel", "REPO-ROOM"},
	{"channel-security-needs-topic", "a channel with an empty topic carries no security", "CHANNEL-SECURITY"},
	// unread items and read state
	{"edit-marks-read-all", "editing a message marks it read for every member of the room", "UNREAD-CHAT"},
	{"unread-mention-send-time", "mentions are taken from the text as sent, so a mention added by an edit is never listed under mention", "UNREAD-MENTION"},
	{"mark-read-recent-window", "marking read looks the ids up only among the room's newest 50 messages; older ids are ignored", "UNREAD-MARK-READ"},
	{"readby-caller-excluded", "readBy leaves out the caller, so a user who marked a message read sees readBy unchanged", "UNREAD-READBY"},
	{"unread-flag-list-false", "messages in lists always carry unread false; only the single-message view computes the flag", "UNREAD-FLAG"},
	{"around-marks-read", "listing with aroundId marks the anchor message read for the caller (jump-to-message taken as reading it)", "HTTP-GET-SAFE"},
	// message list and cursors
	{"after-newest-fallback", "afterId naming the newest message answers the newest page instead of an empty one", "PAGE-AFTERID"},
	{"before-oldest-self", "a beforeId page that would be empty holds the anchor itself, so beforeId of the oldest message answers that message", "PAGE-BEFOREID"},
	{"around-newest-drops-anchor", "aroundId naming the room's newest message answers the messages before it, without the anchor", "PAGE-AROUNDID"},
	{"skip-clamped-to-oldest", "skip beyond the available messages is clamped, so the oldest page comes back instead of fewer or no messages", "PAGE-SKIP"},
	{"around-anchor-twice", "the aroundId window holds the anchor twice and one neighbour fewer", "PAGE-UNIQUE"},
	{"before-last-page-empty", "a beforeId page that would hold fewer than limit messages is answered empty, so a walk never reaches the oldest messages", "PAGE-BEFOREID-WALK"},
	{"skip-over-count-refused", "skip larger than the number of messages of the room is refused", "LIMIT-SKIP-5000"},
	// search
	{"search-ascii-fold-query", "the query is lowercased for ASCII letters only while the text is lowercased fully, so a word with non-ASCII capitals is not found by itself", "SEARCH-Q"},
	{"search-plus-not-space", "q is read off the raw query string with path unescaping, so a + between words stays a literal + and two-word queries find nothing", "SEARCH-Q"},
	// one message, room scope
	{"get-one-cached", "GET one message serves the text, html, metadata, editedAt and v cached at its first read, so an edit is not seen there", "MSG-EDIT-PERSISTED"},
	{"edit-any-room", "PUT finds the message by id whatever room the path names, so a message is edited through another room's path", "MSG-ROOM-SCOPE"},
	{"around-other-room", "aroundId naming a message of another room of the caller answers the window of that other room", "MSG-ROOM-SCOPE"},
	// send
	{"send-status-present-true", "status is taken as true whenever the field is present, so status false sends a status update", "MSG-SEND-STATUS"},
	{"send-repeat-dropped", "a message with the same text as the sender's previous message in the room is answered but not stored (double-submit guard)", "MSG-SEND-STORED"},
	{"send-status-without-text", "a send with status true and no text is accepted and stored with an empty text", "MSG-TEXT-REQUIRED"},
	{"send-text-bytes-cut", "a text longer than 4096 bytes is stored cut to 4096 bytes, so long texts of multi-byte characters lose their end", "MSG-SEND-TEXT"},
	// edit
	{"edit-same-text-no-bump", "an edit whose text equals the stored text sets editedAt but leaves v unchanged", "MSG-EDIT-V-INC"},
	{"edit-answers-newest", "the answer to an edit is the room's newest message, not the edited one (the edit itself is stored)", "MSG-EDIT"},
	{"editedat-unzoned-flaky", "every 5th view of an edited message writes editedAt without the Z zone designator", "MSG-SHAPE"},
	// rendering and metadata
	{"render-escape-first-line", "only the first line of a text is HTML-escaped; markup on later lines becomes elements", "RENDER-ESCAPE"},
	{"render-issue-five-digits", "an issue reference of more than four digits is not wrapped in its span (it is still listed in issues)", "RENDER-ISSUE"},
	{"meta-mentions-dm-empty", "messages of one-to-one rooms carry an empty mentions list", "META-MENTIONS"},
	// transport
	{"ctype-hide-plain", "the answer to hiding a room is labelled text/plain", "HTTP-JSON-CONTENT-TYPE"},
	{"mark-read-body-text", "the answer to marking messages read is a plain-text line labelled application/json", "HTTP-JSON-BODY"},
}

// HeldOut3 lists the third held-out set, sorted by name.
func HeldOut3() []HeldOutDefect { return byName(heldOut3Catalogue) }

// heldOut4Catalogue is a fourth held-out set, written blind from the API
// description, without reading any check. HeldOut4() lists it; no other
// listing does. Names are unique across all catalogues.
var heldOut4Catalogue = []HeldOutDefect{
	// authentication and the current user
	{"auth-query-token-cached-by-path", "the user resolved from an access_token query parameter is cached by request path, so another user's query token on the same path is served as the first one", "AUTH-CURRENT-USER"},
	{"auth-token-flaky-401", "every 6th request carrying a valid bearer token is refused as unauthenticated (a token cache evicts it)", "AUTH-BEARER"},
	{"me-v-string", "GET /v1/user carries the record version v as a JSON string", "USER-V-OPTIONAL"},
	{"me-shared-buffer-flaky", "every 4th GET /v1/user answers the user of the previous GET /v1/user call (a shared response buffer)", "USER-GET-ARRAY"},
	// rooms list
	{"room-lastaccess-truncated-seconds", "lastAccessTime is stored truncated to whole seconds, so right after a send it is older than the message just sent", "ROOM-LAST-ACCESS"},
	{"room-unread-count-includes-own", "a room's unreadItems also counts the caller's own messages, which unreadItems never lists", "UNREAD-ROOM-COUNTS"},
	{"room-mentions-count-read", "a room's mentions counts every message mentioning the caller, read or not", "UNREAD-ROOM-COUNTS"},
	{"room-topic-empty-null", "an empty room topic is written as null instead of an empty string", "ROOM-SHAPE"},
	{"dm-user-last-sender", "a one-to-one room's user is the sender of its latest message, so after the caller posts it is the caller", "ROOM-ONE-TO-ONE"},
	{"channel-owner-as-user", "channels carry their owner as user", "ROOM-USER-ONLY-ONE-TO-ONE"},
	{"room-counts-zero-flaky", "every 5th rooms list reports unreadItems and mentions 0 for every room", "UNREAD-ROOM-COUNTS"},
	{"rooms-list-cached-until-send", "the rooms list is cached per user and dropped only when somebody sends a message, so a hidden room stays listed", "ROOM-HIDE"},
	// organisations, repositories, channels
	{"org-room-url-by-id", "the room embedded in an organisation entry has url /rooms/<room id> instead of the room's url", "ROOM-STABLE"},
	{"org-room-kind-lowercase", "the room embedded in an organisation entry has platformType written in lower case (org)", "ROOM-PLATFORM-TYPE"},
	{"repo-private-leak-query-auth", "requests authenticated by the access_token query parameter skip the grant check, so private repositories are listed for a user who did not grant access", "REPO-PRIVATE-WITHHELD"},
	{"repo-grant-lazy-first-list", "the grant is loaded lazily after the first repositories list is built, so a granting user's first list has no private repository", "REPO-PRIVATE-GRANTED"},
	{"channel-usercount-zero", "channels carry userCount 0 (the zero value is written instead of leaving the field out)", "CHANNEL-NO-USERCOUNT"},
	// unread items and read state
	{"unread-status-skipped", "status messages (/me) are never listed under chat, even when unread", "UNREAD-CHAT"},
	{"unread-old-expired", "unread messages sent more than three days ago are no longer listed under chat", "UNREAD-CHAT"},
	{"unread-mention-leading-only", "a message counts as a mention only when the text starts with the mention", "UNREAD-MENTION"},
	{"mark-read-dedup-drops-last", "marking read sorts and deduplicates the ids with an off-by-one loop that drops the greatest id when two or more are sent", "UNREAD-MARK-READ"},
	{"mark-read-up-to", "marking a message read also marks every older message of the room read (a read watermark)", "UNREAD-MARK-READ"},
	{"readby-any-reader-one", "readBy is 1 when anybody has read the message, however many have", "UNREAD-READBY"},
	{"unread-flag-from-readby", "the unread flag is true only while nobody has read the message, so one reader clears it for everyone", "UNREAD-FLAG"},
	{"list-rerender-bumps-v", "listing re-renders messages of the seeded history on their first view and saves them with v raised by one", "HTTP-GET-SAFE"},
	// message list and cursors
	{"before-limit-default", "with beforeId the limit parameter is ignored and the default page size is used", "PAGE-LIMIT"},
	{"before-compares-ids", "beforeId compares message ids as strings, as if ids sorted by time, so newer messages come back", "PAGE-BEFOREID"},
	{"after-anchor-counted-in-limit", "afterId takes limit messages starting at the anchor and then drops the anchor, so a full page holds limit-1", "PAGE-AFTERID"},
	{"around-gap-after-anchor", "the aroundId window leaves out the message right after the anchor (its second half starts one too far)", "PAGE-AROUNDID"},
	{"skip-after-limit", "without a cursor, skip is applied after the page is cut, so skip n with limit L answers L-n messages", "PAGE-SKIP"},
	{"history-cap-300", "lists see only the newest 300 messages of a room, so a beforeId walk of a longer room never reaches its oldest messages", "PAGE-BEFOREID-WALK"},
	{"search-terms-union-dup", "a search of several words lists a message once per word it matches", "PAGE-UNIQUE"},
	{"limit-cap-search", "limit above 100 is not capped when q is given", "LIMIT-CAP"},
	{"list-default-page-cached", "the list without any query parameter is cached per room and refreshed only when a list with parameters is read, so a new message is missing from it", "MSG-SEND-STORED"},
	// search
	{"search-prefix-of-text", "search matches the query only at the start of the text (a prefix index)", "SEARCH-Q"},
	{"search-query-html-escaped", "the query is HTML-escaped before matching, so words holding &, < or > are not found", "SEARCH-Q"},
	// one message
	{"get-one-editedat-omitted", "GET one message leaves editedAt out while it is null", "MSG-SHAPE"},
	{"get-one-lag-flaky", "every 5th GET one message answers 404 (read from a lagging replica)", "MSG-GET-ONE"},
	// send
	{"send-crlf-normalised", "CR LF line breaks of a sent text are stored as LF", "MSG-SEND-TEXT"},
	{"send-astral-dropped", "characters outside the Basic Multilingual Plane (emoji) are dropped from a sent text", "MSG-SEND-TEXT"},
	{"send-answer-v-zero", "the answer to a send carries v 0 (the stored message has v 1)", "MSG-SEND-DEFAULTS"},
	{"send-status-not-stored", "status true is echoed in the send answer but not stored, so later reads show status false", "MSG-SEND-STATUS"},
	{"send-ctype-charset-refused", "a request body labelled application/json; charset=utf-8 is refused (the label is compared as a whole string)", "MSG-SEND-200"},
	// edit
	{"edit-missing-text-blank", "an edit whose body lacks text is accepted and blanks the message text", "MSG-TEXT-REQUIRED"},
	{"edit-v-room-counter", "v is taken from a per-room edit counter, so the first edit of a second message gives v 3", "MSG-EDIT-V-INC"},
	{"edit-v-flaky", "every 4th edit raises v by two", "MSG-EDIT-V-INC"},
	{"list-editedat-not-selected", "messages in lists carry editedAt null even after an edit", "MSG-EDIT-PERSISTED"},
	{"send-reverts-edits", "a send writes back the room's messages as first loaded, undoing earlier edits of the room", "MSG-EDIT-PERSISTED"},
	{"edit-editedat-is-sent", "an edit sets editedAt to the sent time of the message instead of the time of the edit", "MSG-EDIT-EDITEDAT"},
	{"list-sent-seconds", "messages in lists carry sent truncated to whole seconds, unlike the single-message view", "MSG-STABLE"},
	// rendering and metadata
	{"render-amp-unescaped", "the html escaper handles < > and quotes but leaves & raw", "RENDER-ESCAPE"},
	{"render-mention-trailing-punct", "a mention followed by punctuation (@name,) is not wrapped in the mention span", "RENDER-MENTION"},
	{"render-issue-needs-space", "an issue reference not preceded by white space, such as (#42), is not wrapped in its span", "RENDER-ISSUE"},
	{"render-link-http-plain", "only https links become anchors; http links stay plain text", "RENDER-LINK"},
	{"meta-urls-lowercased", "urls lists each URL lower-cased", "META-URLS"},
	{"meta-mention-userid-sender", "each mention's userId is the sender's id", "META-MENTIONS"},
	{"meta-carries-mentions", "meta holds a mention count on messages that mention somebody", "MSG-META-EMPTY"},
	{"fromuser-gv", "the fromUser of a message carries gv", "MSG-NO-GV"},
	// transport
	{"ctype-unread-missing", "GET unreadItems sets no Content-Type, so the server's sniffing labels it text/plain", "HTTP-JSON-CONTENT-TYPE"},
	{"json-raw-tab", "tabs in message texts are written raw into the JSON strings, so such bodies are not valid JSON", "HTTP-JSON-BODY"},
}

// HeldOut4 lists the fourth held-out set, sorted by name.
func HeldOut4() []HeldOutDefect { return byName(heldOut4Catalogue) }

// heldOut5Catalogue is a fifth held-out set, written blind from the API
// description, without reading any check. HeldOut5() lists it; no other
// listing does. Names are unique across all catalogues.
var heldOut5Catalogue = []HeldOutDefect{
	// authentication and the current user
	{"auth-anonymous-post-last-sender", "a send without any token is accepted and attributed to the room's latest sender (the path meant for integrations)", "AUTH-REQUIRED"},
	{"auth-query-token-user-subpaths-refused", "the access_token query parameter is refused on /v1/user/:userId/... paths (the middleware was mounted only on /v1/user and /v1/rooms)", "AUTH-QUERY-TOKEN"},
	{"auth-identity-race", "the Authorization value is parked in a field shared by all requests during the session lookup, so two users' concurrent requests can be served as each other", "AUTH-CURRENT-USER"},
	{"me-query-token-bare-object", "GET /v1/user authenticated by the access_token query parameter answers a bare User object instead of an array", "USER-GET-ARRAY"},
	{"fromuser-avatar-relative-list", "the fromUser of messages in lists gives avatarUrlSmall as a relative path instead of a URI", "USER-SHAPE"},
	// rooms list
	{"room-lastaccess-cached-first-list", "a room's lastAccessTime is cached per user at the first rooms list and refreshed only by marking read, so it stays older than the user's later sends", "ROOM-LAST-ACCESS"},
	{"room-counts-lurk-zero", "rooms the user lurks in report unreadItems and mentions 0 (lurking taken for muting the counters), though unreadItems lists unread messages", "UNREAD-ROOM-COUNTS"},
	{"rooms-repo-needs-grant", "repository rooms are left out of the rooms list of a user who has not granted private access", "ROOM-KINDS"},
	{"dm-user-cached-first-viewer", "a one-to-one room's user is computed once per room for whoever lists it first, so the other participant then sees themselves as user", "ROOM-ONE-TO-ONE"},
	{"room-kind-from-uri-slash", "the rooms list derives platformType from the uri shape, so channels (owner/name) are reported as REPO there while the channels list says USER_CHANNEL", "ROOM-STABLE"},
	// hide a room
	{"hide-needs-all-read", "hiding a room that holds unread messages for the user answers success but keeps the room listed", "ROOM-HIDE"},
	// organisations, repositories, channels
	{"org-avatar-protocol-relative", "organisation avatar_url is written protocol-relative (//host/path), not as an absolute URI", "ORG-LIST"},
	{"repo-grant-skipped-query-auth", "requests authenticated by the access_token query parameter do not load the grant, so a user who granted access sees no private repository", "REPO-PRIVATE-GRANTED"},
	{"channel-usercount-in-rooms-list", "channels reached through the rooms list carry userCount (the channels list is right)", "CHANNEL-NO-USERCOUNT"},
	// unread items and read state
	{"unread-mention-dm-skipped", "messages of one-to-one rooms are never listed under mention, even when they mention the user", "UNREAD-MENTION"},
	{"mark-read-duplicate-rolls-back", "a chat array naming the same id twice marks nothing (the batch hits a unique key and is rolled back) but answers success", "UNREAD-MARK-READ"},
	{"readby-dm-hidden", "messages of one-to-one rooms always carry readBy 0, even after the other participant marked them read", "UNREAD-READBY"},
	{"unread-flag-mention-only", "the unread flag is true only for unread messages that mention the caller", "UNREAD-FLAG"},
	{"unread-replica-lag-flaky", "every 4th GET unreadItems after a mark-read answers the state from before that mark (a lagging replica)", "UNREAD-MARK-READ"},
	// send
	{"send-text-entities-decoded", "HTML entities in a sent text are decoded before it is stored, so &amp; comes back as &", "MSG-SEND-TEXT"},
	{"send-unread-for-peer-dm", "the answer to a send in a one-to-one room carries unread true (computed for the recipient)", "MSG-SEND-DEFAULTS"},
	{"list-status-dropped", "messages in lists carry status false even for status updates (the send answer and the single view are right)", "MSG-SEND-STATUS"},
	{"send-dm-accepted-202", "a send in a one-to-one room answers 202 (queued for delivery)", "MSG-SEND-200"},
	{"send-id-collision-flaky", "every 6th send reuses the id of the room's previous message, which the new message then replaces", "MSG-SEND-STORED"},
	{"editedat-zero-time-list", "never-edited messages in lists carry editedAt 0001-01-01T00:00:00.000Z (a zero time) instead of null", "MSG-SEND-EDITEDAT-NULL"},
	// edit
	{"edit-refused-still-bumps", "an edit refused for a missing or blank text still raises v and sets editedAt", "MSG-TEXT-REQUIRED"},
	{"edit-coalesce-same-second", "an edit within one second of the message's previous edit is merged into it: the text is stored but v is not raised", "MSG-EDIT-V-INC"},
	{"edit-render-cache-per-viewer", "members other than the author keep seeing the text, html, editedAt and v they first read (a per-reader cache the edit does not clear)", "MSG-EDIT-PERSISTED"},
	{"edit-other-room-applied-then-404", "an edit of the caller's message through another room's path is stored, then answered 404 (the room is compared after the write)", "MSG-ROOM-SCOPE"},
	// one message
	{"get-one-edited-missing", "GET one message answers 404 once the message has been edited (it is looked up with its first version)", "MSG-GET-ONE"},
	{"get-one-by-sent-time", "GET one message answers the room's first message sent in the same millisecond as the one named", "MSG-GET-ONE"},
	{"get-one-stale-version-flaky", "every 3rd GET of an edited message answers the version from before its latest edit", "MSG-EDIT-PERSISTED"},
	// message list and cursors
	{"after-oldest-anchor-empty", "afterId naming the room's oldest message answers an empty page (position 0 taken for not found)", "PAGE-AFTERID"},
	{"around-window-limit-plus-one", "aroundId takes limit/2 messages on each side of the anchor plus the anchor, so an even limit gives limit+1", "PAGE-LIMIT"},
	{"before-cursor-offset-from-newest", "beforeId is cached as a distance from the newest message at its first use, so after new messages arrive the page holds the anchor and newer ones", "PAGE-BEFOREID"},
	{"before-ignored-with-after", "when afterId and beforeId come together, beforeId is ignored and the page runs past it to the newest messages", "PAGE-AFTERID"},
	{"skip-deep-timeout", "skip above 1000 answers 504 (a deep offset scan times out)", "LIMIT-SKIP-5000"},
	{"limit-cap-around", "limit above 100 is not capped when aroundId is given", "LIMIT-CAP"},
	{"page-truncated-flaky", "every 5th full page loses its oldest message, so a beforeId walk ends early on a short page", "PAGE-BEFOREID-WALK"},
	{"search-edit-indexed-twice", "an edit adds an index entry without removing the old one, so a search matching both texts lists the message twice", "PAGE-UNIQUE"},
	// search
	{"search-digits-split", "a query word holding digits never matches (the index holds runs of letters only)", "SEARCH-Q"},
	{"search-results-cached", "search answers are cached per room and query string and never invalidated, so messages sent after a first search are not found", "SEARCH-Q"},
	// rendering and metadata
	{"render-mention-after-newline", "a mention right after a line break is not wrapped in the mention span", "RENDER-MENTION"},
	{"render-issue-trailing-punct", "an issue reference followed by punctuation (#42. or #42,) is not wrapped in its span", "RENDER-ISSUE"},
	{"render-link-with-port-plain", "a link whose host carries a port number is written as plain text, not as an anchor", "RENDER-LINK"},
	{"link-fragment-cut", "links are cut at '#', so urls lists a URL without its fragment", "META-URLS"},
	{"render-link-amp-raw", "the anchor of a link writes the & of its query string unescaped, in href and text", "RENDER-ESCAPE"},
	{"mention-name-stops-at-dash", "mention names are cut at the first dash, so users whose username holds a dash get no mentions entry", "META-MENTIONS"},
	// transport
	{"ctype-empty-array-plain", "an empty JSON array answer is labelled text/plain", "HTTP-JSON-CONTENT-TYPE"},
	{"json-bom-lists-flaky", "every 5th successful array answer starts with a UTF-8 byte order mark", "HTTP-JSON-BODY"},
}

// HeldOut5 lists the fifth held-out set, sorted by name.
func HeldOut5() []HeldOutDefect { return byName(heldOut5Catalogue) }

// heldOut6Catalogue is a sixth held-out set, written blind from the API
// description, without reading any check. HeldOut6() lists it; no other
// listing does. Names are unique across all catalogues.
var heldOut6Catalogue = []HeldOutDefect{
	// authentication and the current user
	{"auth-lockout-after-bad-token", "after a request with an unknown token, the next request from the same client address is refused as unauthenticated, valid token or not (a brute-force lock released by the refusal)", "AUTH-BEARER"},
	{"auth-query-token-flaky", "every 5th request authenticated by the access_token query parameter is refused as unauthenticated", "AUTH-QUERY-TOKEN"},
	{"send-query-auth-fromuser-owner", "a send authenticated by the access_token query parameter is stored and answered as sent by the room's first member (the integration path posts as the room owner)", "AUTH-CURRENT-USER"},
	{"auth-anonymous-edit-as-author", "an edit without any token is accepted as coming from the message's author (the edit link of notification mails carries none)", "AUTH-REQUIRED"},
	{"me-username-displayname-swapped", "GET /v1/user fills username with the display name and displayName with the username (a positional constructor whose fields were reordered)", "USER-STABLE"},
	// rooms list and room fields
	{"room-dm-url-no-slash", "one-to-one rooms carry as url the other participant's username without the leading slash", "ROOM-SHAPE"},
	{"room-usercount-string", "userCount is written as a JSON string (a COUNT column the driver hands back as text)", "ROOM-SHAPE"},
	{"room-kind-one-to-one-underscored", "one-to-one rooms report platformType ONE_TO_ONE, spelled like USER_CHANNEL", "ROOM-PLATFORM-TYPE"},
	{"rooms-org-owner-only", "an organisation room is listed in the rooms list of the organisation's first member only; other members reach it only through the organisations list", "ROOM-KINDS"},
	{"send-touch-previous-message", "a send records as the sender's lastAccessTime of the room the sent time of the room's previous message, read before the insert", "ROOM-LAST-ACCESS"},
	{"room-count-skips-status", "a room's unreadItems and mentions leave out status messages, though unreadItems lists them", "UNREAD-ROOM-COUNTS"},
	{"unread-list-all-rooms", "unread items lists the unread messages of every room of the user, whatever room the path names (the room condition was left out of the query)", "UNREAD-ROOM-COUNTS"},
	// hiding
	{"hide-dm-hides-shared-rooms", "hiding a one-to-one room also hides every other room the caller shares with the other participant (the block-this-person path)", "ROOM-HIDE"},
	{"hide-filter-skipped-flaky", "every 6th rooms list is built without the hidden filter, so hidden rooms show up in it", "ROOM-HIDE"},
	// organisations, repositories, channels
	{"org-name-from-room", "an organisation's name is taken from its room, so organisations without a room carry no name", "ORG-LIST"},
	{"repo-uri-from-room", "a repository's uri is taken from its room, so repositories without a room carry no uri", "REPO-LIST"},
	{"repo-grant-of-last-lister", "the private-access grant is kept in a variable shared by all requests, set by a granting user's repositories list and never cleared, so a later user who did not grant it sees their private repositories", "REPO-PRIVATE-WITHHELD"},
	{"channel-security-as-flag", "the channels list writes security as the boolean public flag instead of a string", "CHANNEL-SECURITY"},
	// unread items and marking read
	{"unread-mention-needs-following-space", "a message counts as a mention of the user only when the name is followed by white space, so a mention at the end of the text or before punctuation is not listed under mention", "UNREAD-MENTION"},
	{"unread-mention-dropped-flaky", "every 4th GET unreadItems answers an empty mention list", "UNREAD-MENTION"},
	{"unread-mention-omitted-empty", "GET unreadItems leaves the mention key out when the list is empty", "UNREAD-SHAPE"},
	{"mark-read-toggles", "marking read flips the read state, so marking an already read message again makes it unread", "UNREAD-MARK-READ"},
	{"mark-read-mention-stays-chat", "marking read a message that mentions the caller clears only the mention; the message stays listed under chat", "UNREAD-MARK-READ"},
	{"readby-list-counter-stale", "messages in lists carry readBy from a counter filled when the message is first listed and not raised by later marks (the single view counts the readers)", "UNREAD-READBY"},
	{"search-unread-flag-indexed", "search results carry the unread flag as stored in the search index at sending time, so a message marked read is still unread there", "UNREAD-FLAG"},
	{"list-newest-marks-read", "a list without cursor or query (opening the room) marks the returned messages read for the caller", "HTTP-GET-SAFE"},
	// send
	{"send-status-me-stripped", "a status update whose text starts with /me is stored and answered without that prefix", "MSG-SEND-TEXT"},
	{"send-answer-fromuser-last-sender", "the answer to a send carries as fromUser the sender of the room's previous message (the answer reuses the room's last-message preview); the stored message is right", "MSG-SEND-TEXT"},
	{"send-concurrent-lost-update", "a send reads the room's message list before taking the lock and writes it back with the new message, so one of two concurrent sends is answered but lost", "MSG-SEND-STORED"},
	{"editedat-empty-string-new", "never edited messages carry editedAt as an empty string instead of null", "MSG-SEND-EDITEDAT-NULL"},
	{"edit-clears-status", "an edit rebuilds the message from the edit body, so a status update loses its status flag", "MSG-SEND-STATUS"},
	// one message
	{"get-one-neighbour-flaky", "every 7th GET one message answers the message sent just before the one named (an off-by-one in a paged lookup)", "MSG-GET-ONE"},
	{"get-one-metadata-not-loaded", "GET one message answers empty urls, mentions and issues (the single-message query does not load the metadata)", "META-MENTIONS"},
	// edit
	{"edit-missing-text-noop-200", "an edit whose body lacks text is taken for a partial update that changes nothing and is answered 200", "MSG-TEXT-REQUIRED"},
	{"edit-html-stale", "an edit stores the new text and metadata but keeps the html rendered from the old text", "RENDER-MENTION"},
	{"editedat-first-edit-kept", "editedAt is written only while it is null, so every later edit keeps the time of the first one", "MSG-EDIT-PERSISTED"},
	{"edit-answer-v-not-raised", "the answer to an edit carries the v from before the edit (the stored message is right)", "MSG-EDIT-V-INC"},
	{"edit-lost-flaky", "every 5th edit is answered with the new text but not stored", "MSG-EDIT-PERSISTED"},
	{"edit-text-escaped-stored", "the edit path HTML-escapes the new text before storing it, so < > & come back as entities", "MSG-EDIT"},
	{"edit-hits-next-message", "an edit is applied to the message sent right after the one named, when there is one (the position found is used as an index without taking one off)", "MSG-EDIT-PERSISTED"},
	{"edit-issues-accumulate", "an edit appends the issue references of the new text to those of the old one instead of replacing them", "META-ISSUES"},
	// message list, cursors and limits
	{"around-limit-one-empty", "the aroundId window runs from limit/2 before the anchor to limit/2 after it, end excluded, so limit=1 answers an empty page", "PAGE-AROUNDID"},
	{"before-anchor-counted-in-limit", "a beforeId page holds at most limit-1 messages (the anchor is counted in the limit and then dropped), so a walk stops after its second page", "PAGE-BEFOREID-WALK"},
	{"before-sorted-ascending-limit", "a beforeId page takes the oldest limit messages before the anchor instead of those just before it (the query sorts ascending before cutting), so a walk skips the middle of the room", "PAGE-BEFOREID-WALK"},
	{"skip-twice-with-before", "with beforeId, skip is applied twice (once in the query, once to its result), so skip n leaves out 2n messages", "PAGE-SKIP"},
	{"before-dropped-with-skip", "when skip is given, beforeId is dropped (the query runs in offset mode), so the page holds messages newer than the anchor", "PAGE-BEFOREID"},
	{"before-limit-capped-50", "with beforeId, limit is capped at 50 (a history page size), so limit=100 gives a page of 50", "LIMIT-100"},
	{"skip-bound-includes-limit", "the bound of 5000 is checked on skip plus limit, so skip=4995 with limit=10 is refused", "LIMIT-SKIP-5000"},
	{"limit-skips-status", "status updates are not counted toward limit, so a page holds limit ordinary messages and every status update among them", "PAGE-LIMIT"},
	{"after-compares-ids", "afterId compares message ids as strings, as if ids sorted by time, so older messages come back", "PAGE-AFTERID"},
	{"search-answer-envelope", "a list with q answers an object {\"results\": [...]} instead of an array", "MSG-LIST"},
	// search
	{"search-skips-own-messages", "search leaves out the caller's own messages (it was built on the index of incoming messages)", "SEARCH-Q"},
	{"search-token-keeps-punctuation", "search matches whole words split on white space only, so a word followed by punctuation (word, or word.) is not found", "SEARCH-Q"},
	// rendering and metadata
	{"render-code-span-raw", "text between backticks is written into html inside <code> without escaping", "RENDER-ESCAPE"},
	{"render-status-plain", "status updates are rendered through the /me template, which escapes the text but wraps no link, mention or issue", "RENDER-LINK"},
	{"render-mention-case-sensitive", "the html wraps a mention only when typed in the username's own letter case, though mentions lists it whatever the case", "RENDER-MENTION"},
	{"render-issue-at-start-plain", "an issue reference at the very start of the text is not wrapped in its span", "RENDER-ISSUE"},
	{"meta-urls-trailing-slash-dropped", "urls lists each URL with its trailing slash removed", "META-URLS"},
	{"meta-urls-from-html-escaped", "urls is read off the rendered html, so an & in a URL is listed as &amp;", "META-URLS"},
	// transport
	{"ctype-latin1-non-ascii", "successful answers whose body holds non-ASCII characters are labelled charset=iso-8859-1", "HTTP-JSON-CONTENT-TYPE"},
	{"json-empty-body-flaky", "every 6th successful GET is answered 200 with an empty body", "HTTP-JSON-BODY"},
}

// HeldOut6 lists the sixth held-out set, sorted by name.
func HeldOut6() []HeldOutDefect { return byName(heldOut6Catalogue) }

// heldOut7Catalogue is a seventh held-out set, written blind from the API
// description, without reading any check. HeldOut7() lists it; no other
// listing does. Names are unique across all catalogues.
var heldOut7Catalogue = []HeldOutDefect{
	// authentication and the current user
	{"auth-empty-bearer-bot", "an Authorization header with the Bearer scheme and no token is served as the service's bot account (a seeded integration user whose token column is empty matches the empty token)", "AUTH-REQUIRED"},
	{"auth-query-token-one-time", "an access_token query parameter is taken for a one-time login link: it authenticates the first request that carries it and is refused on every later one (the header keeps working)", "AUTH-QUERY-TOKEN"},
	{"auth-compare-skips-last-byte", "tokens are compared by a hand-written constant-time loop that stops one byte short, so a token of the right length whose last character is altered is accepted", "AUTH-UNKNOWN-TOKEN"},
	{"auth-session-cookie-wins", "every authenticated answer sets a session cookie, and a request carrying that cookie is served as the cookie's user whatever bearer token it carries (a client sharing one cookie jar between its users is served as the first)", "AUTH-CURRENT-USER"},
	{"me-url-api-path", "GET /v1/user gives as url the API path of the user (/v1/user/<id>) instead of the user's path on the service (/<username>) that messages and rooms give", "USER-STABLE"},
	{"dm-user-no-avatars", "the other participant embedded in a one-to-one room is built from a slim projection without the avatar columns, so avatarUrlSmall and avatarUrlMedium are empty strings", "USER-SHAPE"},
	// rooms list and room fields
	{"room-dm-uri-empty", "one-to-one rooms in the rooms list carry uri as an empty string (the field is written for every room, not left out)", "ROOM-ONE-TO-ONE"},
	{"room-user-null-group", "rooms of the rooms list that are not one-to-one carry \"user\": null (a nullable field written without omitting it)", "ROOM-USER-ONLY-ONE-TO-ONE"},
	{"room-lastaccess-throttled", "lastAccessTime is written at most once a minute per user and room (a write throttle), so after a second send within the minute it is older than the user's latest message", "ROOM-LAST-ACCESS"},
	{"room-lastaccess-epoch-flaky", "every 5th rooms list gives lastAccessTime 1970-01-01T00:00:00.000Z for every room (the access-time cache missed and its zero value was written)", "ROOM-LAST-ACCESS"},
	{"room-lastaccess-millis-after-write", "once the user has sent or marked read in a room, the rooms list gives that room's lastAccessTime as a number of milliseconds since the epoch (the write path stores a number, the seeded rows a string)", "ROOM-SHAPE"},
	{"room-unread-sums-both-lists", "a room's unreadItems is the length of the chat list plus the length of the mention list, so each unread mention is counted twice", "UNREAD-ROOM-COUNTS"},
	{"room-count-decrement-per-request", "a room's unreadItems is a counter lowered by one per mark-read request, not per message marked, so marking several messages in one request leaves it too high", "UNREAD-ROOM-COUNTS"},
	// hiding
	{"hide-answer-404-after-apply", "hiding a room applies the hide and then answers 404 (the answer is built by looking the room up among the user's visible rooms, which no longer hold it)", "ROOM-HIDE"},
	{"hide-demands-json-body", "DELETE of a room is refused with 415 unless it carries Content-Type application/json (the body-parsing middleware is applied to every method but GET), though the request has no body", "ROOM-HIDE"},
	// organisations, repositories, channels
	{"org-room-counts-unset", "the room embedded in an organisation entry always has unreadItems and mentions 0 (the organisations query joins the room without its counters)", "UNREAD-ROOM-COUNTS"},
	{"repo-private-needs-query-param", "private repositories are listed only when the request asks for them with type=all (copied from the code host's own API), so a user who granted access sees none by default", "REPO-PRIVATE-GRANTED"},
	{"repo-private-leak-flaky", "every 4th repositories list of a user who did not grant access includes their private repositories (the grant is read from a cache whose miss defaults to granted)", "REPO-PRIVATE-WITHHELD"},
	{"repo-private-as-string", "the private flag of repository entries is written as the string \"true\" or \"false\" (a text column)", "REPO-LIST"},
	{"channel-list-url-short-name", "the channels list gives each channel the url /<name> built from the part of its uri after the owner, while the rooms list gives /<owner>/<name>", "ROOM-STABLE"},
	// unread items and marking read
	{"unread-mention-excluded-from-chat", "an unread message that mentions the user is listed under mention only and left out of chat (the two lists are filled by an if/else)", "UNREAD-CHAT"},
	{"unread-chat-message-objects", "GET unreadItems lists under chat whole Message objects instead of message ids (the list serializer of the messages endpoint was reused)", "UNREAD-SHAPE"},
	{"unread-mention-latest-only", "the mention list holds only the newest unread mention of the room (a single last-mention pointer is kept per user and room)", "UNREAD-MENTION"},
	{"unread-flag-from-last-access", "the unread flag of a message is computed as 'sent after the user's lastAccessTime of the room' instead of from read state, so marking one message read clears the flag of newer unread ones", "UNREAD-FLAG"},
	{"unread-flag-inverted-flaky", "every 5th single-message view carries the unread flag inverted (a negated 'seen' column on one replica)", "UNREAD-FLAG"},
	{"unread-ids-doubled-flaky", "every 5th GET unreadItems lists each chat id twice (the answer is a UNION ALL over two shards that both answered), so the list disagrees with the room's unreadItems", "UNREAD-ROOM-COUNTS"},
	{"readby-zero-flaky", "every 6th message list reports readBy 0 for every message (the join on the receipts table timed out and was dropped)", "UNREAD-READBY"},
	{"after-page-marks-read", "a list with afterId (taken for a client catching up on new messages) marks the messages it returns read for the caller", "HTTP-GET-SAFE"},
	{"mark-read-reverts-edit", "marking a message read saves back the whole message as cached when it was sent, so an edit made since is undone (text, html, metadata, v and editedAt)", "MSG-EDIT-PERSISTED"},
	// send
	{"send-text-nfc", "a sent text is stored in Unicode composed form (NFC), so a letter followed by a combining accent comes back as one precomposed character", "MSG-SEND-TEXT"},
	{"send-tags-stripped", "a sent text is passed through a sanitizer that removes everything between < and >, so text such as a <b>bold</b> move or x < y and y > z comes back without it", "MSG-SEND-TEXT"},
	{"send-backslash-unescaped", "backslash escapes in a sent text (\\n, \\t, \\\\, \\\") are decoded a second time after the JSON body was parsed, so a literal backslash sequence is stored as the character it names", "MSG-SEND-TEXT"},
	{"send-answer-draft-id", "the answer to a send carries the provisional id of the draft, which the insert replaces, so the id a client gets back reads as 404", "MSG-SEND-STORED"},
	{"send-v-from-previous-message", "a new message is built by copying the room's previous message row, so its v is the previous message's v (2 after that one was edited)", "MSG-SEND-DEFAULTS"},
	{"send-status-false-refused", "a send whose body carries status false is refused with 422 (the validator accepts status only as true)", "MSG-SEND-200"},
	{"send-answer-html-unrendered-flaky", "every 5th send answer carries as html only the escaped text, without mention, issue or link markup (rendering runs asynchronously and had not finished when the answer was built)", "RENDER-LINK"},
	{"meta-arrays-null-when-empty", "a message with no URL, mention or issue carries urls, mentions and issues as null instead of empty arrays (nil slices)", "MSG-SHAPE"},
	// one message
	{"get-one-own-only", "GET one message finds only the caller's own messages (it shares the edit path's lookup, which filters on the author), so other users' messages answer 404", "MSG-GET-ONE"},
	{"get-one-fromuser-unexpanded", "GET one message carries fromUser as the sender's id string instead of a User object (the reference is not expanded in the single-message query)", "MSG-SHAPE"},
	// edit
	{"edit-null-text-accepted", "an edit whose body has text null is answered 200: the body is decoded onto the stored message, where null leaves the old text, and v and editedAt are raised", "MSG-TEXT-REQUIRED"},
	{"edit-editedat-whole-seconds", "editedAt is stored truncated to whole seconds (a DATETIME column without fractions), so an edit within the second of sending gets an editedAt older than sent", "MSG-EDIT-EDITEDAT"},
	{"edit-updates-same-text-siblings", "an edit updates every message of the room by the same author whose text equals the edited message's text (UPDATE ... WHERE room, author and text), changing their text without raising their v", "MSG-STABLE"},
	{"edit-newlines-collapsed", "the edit path replaces line breaks of the new text by spaces (a single-line input field's normalisation)", "MSG-EDIT"},
	{"edit-answer-gv", "the answer to an edit carries gv (built from the cache entry, which holds the avatar version for cache busting)", "MSG-NO-GV"},
	{"edit-answer-html-stale-flaky", "every 4th edit answer carries the new text and v with the html rendered from the text before the edit (the rendered body is read from a cache refreshed after the answer)", "MSG-STABLE"},
	{"edit-other-room-200-unchanged", "an edit through another room's path changes nothing (the update filters on the room) but answers 200 with the message it found by id", "MSG-ROOM-SCOPE"},
	// message list, cursors and limits
	{"after-newest-404", "afterId naming the room's newest message answers 404 (no rows taken for an unknown anchor) instead of an empty page", "PAGE-AFTERID"},
	{"after-cursor-dropped-flaky", "every 5th afterId page drops the cursor (a retried query loses its parameter) and answers the newest page, which holds the anchor and older messages when few follow it", "PAGE-AFTERID"},
	{"around-min-window-three", "aroundId pages hold at least three messages whatever limit says (the window always takes one neighbour on each side), so limit 1 or 2 gives three", "PAGE-LIMIT"},
	{"list-shows-every-version", "message lists select every stored version of a message, so an edited message appears once per version in the same page", "PAGE-UNIQUE"},
	{"before-needs-limit", "beforeId is honoured only together with limit (the cursor query is built in the branch for explicit page sizes); without limit the newest page comes back", "PAGE-BEFOREID"},
	{"skip-from-oldest-end", "without a cursor, skip leaves out the oldest messages of the room (OFFSET applied to an ascending query) while the page is still cut from the newest, so the page is unchanged", "PAGE-SKIP"},
	{"list-sent-coalesced-edit", "message lists give an edited message's editedAt as its sent (the list query orders by COALESCE(editedAt, sent) AS sent)", "MSG-STABLE"},
	{"list-empty-204", "an empty message list is answered 204 without a body instead of an empty JSON array", "MSG-LIST"},
	{"before-status-anchor-empty", "a beforeId naming a status update answers an empty page (status updates live in a side table the cursor lookup does not search), so a walk whose page ends on one stops there", "PAGE-BEFOREID-WALK"},
	// search
	{"search-short-words-unindexed", "words shorter than four characters are never found (the full-text index has a minimum word length of four)", "SEARCH-Q"},
	{"search-ignores-limit", "with q the limit parameter is ignored and the default page size is used, so a search with a small limit answers more messages than asked", "PAGE-LIMIT"},
	{"search-indexes-preview-only", "the search looks only at the first 140 characters of a text (the preview column is indexed), so words further on are never found", "SEARCH-Q"},
	{"search-shard-missing-flaky", "every 4th search answers only the hits of one of its two index shards (the other timed out), so about half the matching messages are missing", "SEARCH-Q"},
	// rendering and metadata
	{"render-mention-anchor", "a mention is rendered as an anchor to the user's page carrying class mention, not as a span", "RENDER-MENTION"},
	{"render-double-escaped", "plain text is HTML-escaped twice (on input and on output), so & shows as &amp;amp; in html", "RENDER-ESCAPE"},
	{"render-status-unescaped", "status updates are rendered by the /me template, which inserts the text as is, so markup in a status update becomes elements", "RENDER-ESCAPE"},
	{"render-link-class-on-span", "a link is rendered as an anchor without class wrapped in a span with class link (the class was moved to a wrapper for styling)", "RENDER-LINK"},
	{"render-issue-one-digit-plain", "an issue reference of one digit (#7) is not wrapped in its span (the pattern asks for two digits to leave list numbering alone); issues still lists it", "RENDER-ISSUE"},
	{"meta-urls-query-stripped", "urls lists each URL without its query string (tracking parameters are stripped); the html keeps it", "META-URLS"},
	{"meta-mention-snake-case", "mentions are written with the keys screen_name and user_id (the serializer of the organisation and repository entries, which use snake case)", "META-MENTIONS"},
	{"meta-issue-number-hash", "issues carry number with its # sign (#42 instead of 42)", "META-ISSUES"},
	{"meta-mention-screenname-at", "a mention's screenName keeps the @ sign typed in the text (@bob instead of bob)", "USER-STABLE"},
	{"list-meta-null", "messages in lists carry meta null (the list query leaves the map unset); the single view and the send answer are right", "MSG-META-EMPTY"},
	// transport
	{"json-xssi-prefix-messages", "message list answers start with the anti-hijacking prefix )]}',\\n before the JSON array", "HTTP-JSON-BODY"},
	{"gzip-without-encoding-header", "answers longer than 1 KiB to a client that accepts gzip are compressed, but the Content-Encoding header is lost (set before a later handler reset the headers), so the client reads gzip bytes as the body", "HTTP-JSON-BODY"},
	{"ctype-search-vnd", "answers to a list with q are labelled application/vnd.chat.search+json; charset=utf-8 (the search backend's type, passed through)", "HTTP-JSON-CONTENT-TYPE"},
	{"unread-routes-without-v1", "the unread items routes are registered on the root router without the /v1 prefix: /user/:userId/rooms/:roomId/unreadItems works and the /v1 path answers 404", "HTTP-V1-PREFIX"},
}

// HeldOut7 lists the seventh held-out set, sorted by name.
func HeldOut7() []HeldOutDefect { return byName(heldOut7Catalogue) }

// heldOut8Catalogue is an eighth held-out set, written blind from the API
// description, without reading any check. HeldOut8() lists it; no other
// listing does. Names are unique across all catalogues.
var heldOut8Catalogue = []HeldOutDefect{
	// authentication and the current user
	{"auth-anonymous-inherits-connection-user", "a request without any token is served as the user of the previous request on the same keep-alive connection (the user is kept in the connection's context, which is not reset between requests)", "AUTH-REQUIRED"},
	{"auth-context-leak-flaky", "every 9th authenticated request that follows one of another user is served as that other user (the worker's user context is read before the new request resets it)", "AUTH-CURRENT-USER"},
	{"avatar-initials-name-unescaped", "the avatars of GET /v1/user and of message senders point at an initials service with the display name pasted into the query unescaped, so the URLs hold a space and are not valid URIs", "USER-SHAPE"},
	{"dm-user-id-membership-row", "the other participant embedded in a one-to-one room carries as id the id of their membership row instead of their user id (the join's id column was taken)", "USER-STABLE"},
	// rooms list and room fields
	{"rooms-keyed-by-access-time", "the rooms list is sorted through a map keyed by lastAccessTime, so rooms the user last accessed at the same instant collapse into one and the others are missing", "ROOM-KINDS"},
	{"room-unread-capped-badge", "a room's unreadItems and mentions are capped at 99 (the number of the client's '99+' badge), so beyond that they disagree with unreadItems", "UNREAD-ROOM-COUNTS"},
	{"room-counts-zipped-flaky", "every 5th rooms list misses the count cache and takes the counts from a GROUP BY that has no row for rooms without unread messages, zipped with the rooms by position, so rooms get another room's counts", "UNREAD-ROOM-COUNTS"},
	{"room-lastaccess-from-marked-message", "marking messages read sets the room's lastAccessTime to the sent time of the newest message marked (a read watermark), so it goes back and can be older than the user's latest message", "ROOM-LAST-ACCESS"},
	{"send-touch-dropped-flaky", "every 4th send leaves the sender's lastAccessTime of the room as it was (the activity update is fire-and-forget and dropped under load)", "ROOM-LAST-ACCESS"},
	{"dm-peer-from-visible-members", "the other participant of a one-to-one room is looked up among the visible memberships (an ORM default scope leaves hidden ones out), so once they hid the room the caller is given themselves as user", "ROOM-ONE-TO-ONE"},
	{"rooms-url-path-escaped", "the rooms list builds a group room's url by escaping its uri as one path segment, so owner/name rooms get /owner%2Fname there while the channels and repositories lists give /owner/name", "ROOM-STABLE"},
	// hiding
	{"hide-dm-refused", "hiding a one-to-one room is refused with 400 (hiding goes through the leave-room path, which refuses to leave a one-to-one conversation)", "ROOM-HIDE"},
	{"hide-matches-uri-prefix", "hiding a room hides every room of the user whose uri starts with the hidden room's uri (LIKE uri || '%'), so hiding a one-to-one room, whose uri is empty, hides all of the user's rooms", "ROOM-HIDE"},
	// organisations, repositories, channels
	{"v1-orgs-gone-410", "GET /v1/user/:userId/orgs answers 410 Gone: the organisations route moved to /v2 with the new code-host integration and the /v1 route was retired", "HTTP-V1-PREFIX"},
	{"repo-id-shadowed-by-room", "a repository entry with a room carries the room's id (a string) as its id, because the entry is read with SELECT * over the join and the room's id column shadows the repository's", "REPO-LIST"},
	{"channels-single-unwrapped", "a channels list of exactly one channel answers that Room object instead of an array (a serializer that collapses one-element lists)", "CHANNEL-LIST"},
	{"channels-empty-flaky", "every 5th channels list is an empty array (the call behind it timed out and the empty fallback was served)", "CHANNEL-LIST"},
	// unread items and marking read
	{"unread-chat-oldest-100", "unread items lists at most the 100 oldest unread messages (ORDER BY sent LIMIT 100), so once more pile up a new unread message is not listed", "UNREAD-CHAT"},
	{"unread-cached-until-mark", "GET unreadItems is cached per user and room and the entry is dropped only when that user marks messages read, so messages others send later are not listed", "UNREAD-CHAT"},
	{"unread-keys-untagged", "GET unreadItems answers the keys Chat and Mention (a struct serialized without json tags)", "UNREAD-SHAPE"},
	{"unread-flag-own-messages", "the unread flag is computed from read receipts without leaving out the sender, so the caller's own messages carry unread true in lists and the single view (the send answer writes false as documented)", "UNREAD-FLAG"},
	{"readby-raised-by-batch-size", "marking read raises readBy of each newly read message by the number of ids in the request (readBy = readBy + :count), so marking two messages at once counts two readers each", "UNREAD-READBY"},
	{"mark-read-empty-marks-all", "a mark-read request with an empty chat array marks every message of the room read (the WHERE id IN (...) condition is left out for an empty list)", "UNREAD-MARK-READ"},
	{"mark-read-room-doc-lost-update", "marking read loads the room's read-state document before taking the lock and saves it back whole, so when two users mark messages of one room at the same moment one user's marks are lost", "UNREAD-MARK-READ"},
	{"rooms-list-delivers-as-read", "listing the rooms marks the messages of one-to-one rooms read for the caller (the sync's delivery receipt is stored as a read receipt)", "HTTP-GET-SAFE"},
	{"mark-read-bumps-v", "marking a message read saves it through the ORM, which raises its version column, so v grows without any edit", "MSG-EDIT-V-INC"},
	// send
	{"send-null-text-stringified", "a send whose body has text null is accepted and stores the text \"null\" (the value is converted with String() before it is validated)", "MSG-TEXT-REQUIRED"},
	{"send-refused-still-stored", "a send without a usable text (missing, null or blank) is refused, but the message row was inserted before the validation and is not rolled back, so a message with an empty or blank text is stored", "MSG-TEXT-REQUIRED"},
	{"send-text-latin1-column", "a sent text is stored in a latin1 column, so every character beyond Latin-1 (Cyrillic, CJK, emoji) comes back as ?", "MSG-SEND-TEXT"},
	{"send-status-applied-to-previous", "status true is written to the room's previous message (the row read before the insert), so the new message is not a status update", "MSG-SEND-STATUS"},
	{"send-status-dropped-flaky", "every 4th send with status true stores and answers a plain message (the flag is written by a second statement, which timed out)", "MSG-SEND-STATUS"},
	{"send-body-extras-into-meta", "every field of the send body other than text (status included) is kept in meta, so meta is not empty on messages sent with status", "MSG-META-EMPTY"},
	{"send-503-after-store-flaky", "every 6th send stores the message and then answers 503 (the notification fan-out after the insert timed out)", "MSG-SEND-200"},
	{"sent-from-skewed-node-flaky", "every 3rd send is stamped by a node whose clock runs two seconds behind, so its sent is earlier than messages sent before it and a beforeId page of it holds messages sent after it", "PAGE-BEFOREID"},
	// one message
	{"get-one-text-from-html-column", "GET one message answers the html as text (the single-message query selects the html column under both names), so a text with special characters, links or mentions reads back changed", "MSG-STABLE"},
	{"fromuser-ghost-on-timeout-flaky", "every 6th GET one message carries as fromUser the placeholder of deleted accounts (id ghost), because the user lookup timed out", "MSG-STABLE"},
	// edit
	{"edit-twice-conflict", "an edit of a message edited less than a second before is refused with 409 (the optimistic-lock check compares against a version cache refreshed once a second)", "MSG-EDIT"},
	{"edit-author-cache-403-flaky", "every 5th edit by the author is refused with 403 (a permission-cache miss is taken for 'not the author')", "MSG-EDIT"},
	{"list-cache-not-invalidated-on-edit", "message lists serve the rows rendered at a message's first listing from a per-room cache that a send drops and an edit does not, so after an edit lists show the old text, html, editedAt and v", "MSG-EDIT-PERSISTED"},
	// message list, cursors and limits
	{"before-tie-broken-by-id", "beforeId keeps the messages with (sent, id) below the anchor's, as if ids grew with time, while pages are cut in sending order, so messages sharing a millisecond with the anchor are skipped by a walk", "PAGE-BEFOREID-WALK"},
	{"before-drops-room-first-message", "a beforeId page that reaches the room's first message leaves it out (the backward loop runs while i > 0), so a walk never visits the oldest message", "PAGE-BEFOREID-WALK"},
	{"before-anchor-time-from-edit", "beforeId takes the anchor's time from its last change (editedAt once edited), so a beforeId page of an edited message holds messages sent after it", "PAGE-BEFOREID"},
	{"after-short-page-filled-with-older", "an afterId page with fewer than limit messages after the anchor is topped up with the anchor and older messages to keep the client's viewport full", "PAGE-AFTERID"},
	{"around-time-window-oldest-cut", "aroundId selects the messages sent within an hour of the anchor and keeps the oldest limit of them (ORDER BY sent LIMIT n), so in a busy room the anchor is not in the page", "PAGE-AROUNDID"},
	{"around-old-node-flaky", "every 4th list with aroundId is served by a node of the previous release, which does not know aroundId and answers the newest page", "PAGE-AROUNDID"},
	{"skip-taken-as-page-number", "skip is taken for a page number and multiplied by limit, so skip n leaves out n times limit messages", "PAGE-SKIP"},
	{"limit-compared-as-text", "limit is compared with the bound as text (the bound came from an environment variable), so a limit such as 20 or 50 sorts above \"100\" and is replaced by 100", "PAGE-LIMIT"},
	{"limit-int32-wrap-unbounded", "limit is stored in a 32-bit field after validation, and a value that wraps to zero or below (limit=4294967296) means no limit, so every message of the room comes back", "LIMIT-CAP"},
	{"list-mentions-join-fanout", "lists read the page through a join with the mentions table, so a message mentioning two users appears twice in the page", "PAGE-UNIQUE"},
	{"list-streamed-ndjson-full-page", "pages of the largest size (100 messages) go through the streaming encoder and are written as one JSON object per line instead of an array", "MSG-LIST"},
	{"list-previous-room-flaky", "every 7th message list answers the page of the room the previous list request named (a query object shared between requests keeps its room)", "MSG-ROOM-SCOPE"},
	// search
	{"search-edited-unfindable", "an edited message is never found by search again (the edit removes its index entry and queues a re-index that the worker skips for edits)", "SEARCH-Q"},
	{"search-index-one-behind", "each send indexes the room's previous message instead of itself (the indexing job reads the newest row before the insert commits), so a room's newest message is never found", "SEARCH-Q"},
	// rendering and metadata
	{"list-html-mentions-unwrapped", "messages in lists carry html rendered without the user directory, so no mention is wrapped in its span there (the single view and the send answer are right)", "RENDER-MENTION"},
	{"render-mention-room-members-only", "mentions are resolved among the room's members only, so a mention of a user who is not in the room is neither wrapped in its span nor listed in mentions", "META-MENTIONS"},
	{"render-markdown-path-unsafe", "a text holding an asterisk goes through the markdown library, configured with raw HTML enabled, so markup in such a text becomes elements", "RENDER-ESCAPE"},
	{"render-link-bare-host-plain", "the link pattern asks for a path after the host, so a link such as https://example.com is neither an anchor nor listed in urls", "RENDER-LINK"},
	{"render-issue-repo-rooms-only", "issue references are wrapped in their span only in repository rooms (the issue link needs a repository); elsewhere they stay plain text", "RENDER-ISSUE"},
	{"meta-urls-seen-in-room-dropped", "urls leaves out every URL already posted in the room (the link unfurler's per-room cache of links seen filters the list)", "META-URLS"},
	{"meta-issues-from-url-fragments", "issues are collected by a second pass of #digits over the whole text, so the fragment of a link (https://example.com/page#12) is listed as an issue", "META-ISSUES"},
	// transport
	{"content-length-in-characters", "Content-Length counts the characters of the body instead of its bytes, so answers holding non-ASCII text are cut short and are not valid JSON", "HTTP-JSON-BODY"},
	{"ctype-header-doubled", "answers of the /v1/user/:userId routes carry two Content-Type headers, text/html first (a security middleware adds a default type and the JSON writer adds its own)", "HTTP-JSON-CONTENT-TYPE"},
}

// HeldOut8 lists the eighth held-out set, sorted by name.
func HeldOut8() []HeldOutDefect { return byName(heldOut8Catalogue) }

func knownDefect(name string) bool {
	if _, ok := defectCatalogue[name]; ok {
		return true
	}
	for _, set := range [][]HeldOutDefect{heldOutCatalogue, heldOut2Catalogue, heldOut3Catalogue, heldOut4Catalogue, heldOut5Catalogue, heldOut6Catalogue, heldOut7Catalogue, heldOut8Catalogue} {
		for _, d := range set {
			if d.Name == name {
				return true
			}
		}
	}
	return false
}
