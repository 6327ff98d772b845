// Package bundled starts the reference server in-process for a conformance
// run that names no target, and describes the seeded world as a target. It
// is the one place where the suites side of the project touches the
// reference implementation.
package bundled

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/target"
)

// Server is a running in-process reference server.
type Server struct {
	Target *target.Description
	srv    *http.Server
	dir    string
}

// Start serves the world of seed over HTTPS on a random loopback port with a
// fresh self-signed certificate. The caller must call Close.
func Start(seed uint64, cfg reference.Config) (*Server, error) {
	world, err := fixtures.Generate(seed)
	if err != nil {
		return nil, err
	}
	cert, caPEM, err := reference.SelfSignedCert()
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{dir: dir, srv: reference.NewHTTPServer(reference.New(world, cfg), &tls.Config{Certificates: []tls.Certificate{cert}}, nil)}
	go func() { _ = s.srv.ServeTLS(ln, "", "") }()
	s.Target = target.FromWorld(world, fmt.Sprintf("https://%s", ln.Addr()))
	s.Target.CAFile = caFile
	return s, nil
}

// Close stops the server and removes its certificate file.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	os.RemoveAll(s.dir)
	return err
}
