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

	"gopkg.in/yaml.v3"
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
	if opts.Defect != "" {
		if _, ok := defectCatalogue[opts.Defect]; !ok {
			return nil, errors.New("independent: unknown defect " + opts.Defect)
		}
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
	ln := tls.NewListener(raw, &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
	})
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
