// Package bundled starts the reference server in-process for a conformance
// run that names no target, and describes the seeded world as a target. It
// is the one place where the suites side of the project touches the
// reference implementation.
package bundled

import (
	"net/http"
	"os"
	"path/filepath"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/reference/localtls"
	"github.com/chatrooms/conformance/suites/target"
)

// Server is a running in-process reference server.
type Server struct {
	Target *target.Description
	World  *fixtures.World // what it serves, as loaded (the server's own state is apart)
	srv    *http.Server
	dir    string
}

// Start serves the world of seed over HTTPS on a random loopback port with a
// fresh self-signed certificate. The caller must call Close.
func Start(seed uint64, cfg reference.Config) (*Server, error) {
	return StartShape(seed, fixtures.Default(), cfg)
}

// StartShape is Start with the world of seed made in shape (see
// fixtures.Shape); Target describes that world as chatref --shape
// --target-out would.
func StartShape(seed uint64, shape fixtures.Shape, cfg reference.Config) (*Server, error) {
	world, err := fixtures.GenerateShape(seed, shape)
	if err != nil {
		return nil, err
	}
	cert, caPEM, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "chatconform-ref-")
	if err != nil {
		return nil, err
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	srv, err := localtls.Start(reference.NewHTTPServer(reference.New(world, cfg), localtls.Config(cert), nil), localtls.Options{})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{World: world, dir: dir, srv: srv.Server, Target: target.FromWorld(world, srv.URL)}
	s.Target.CAFile = caFile
	return s, nil
}

// Close stops the server and removes its certificate file.
//
// The server lives as long as one run, whose checks are over when it is
// closed, so connections are cut at once: a graceful shutdown would wait
// for the client's kept-alive connections to turn idle, which costs a
// second of every run.
func (s *Server) Close() error {
	err := s.srv.Close()
	os.RemoveAll(s.dir)
	return err
}
