package generate

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/reference/localtls"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/target"
)

// worldSeed is the seed of the served world in every test.
const worldSeed = 42

// served is a reference server on loopback TLS, optionally wrapped by a
// planted fault, with a validating client of one profile and the world as
// the engine sees it.
type served struct {
	target *target.Description
	client *client.Client
	world  World
}

// serve starts the reference server (wrapped by wrap when it is not nil)
// the way suites/bundled does, bound to 127.0.0.1, and stops it when the
// test ends.
func serve(t testing.TB, profile spec.Profile, wrap func(http.Handler) http.Handler) *served {
	t.Helper()
	w, err := fixtures.Generate(worldSeed)
	if err != nil {
		t.Fatal(err)
	}
	cert, caPEM, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	var h http.Handler = reference.New(w, reference.Config{})
	if wrap != nil {
		h = wrap(h)
	}
	srv, err := localtls.Start(reference.NewHTTPServer(h, localtls.Config(cert), nil), localtls.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	d := target.FromWorld(w, srv.URL)
	d.CAFile = caFile
	return &served{target: d, client: newClient(t, d, profile), world: worldOf(t, d, profile)}
}

// newClient builds the validating client as suites/runner does, with the
// derived tokens among the secrets so that nothing it records shows them.
func newClient(t testing.TB, d *target.Description, profile spec.Profile) *client.Client {
	t.Helper()
	cc, err := d.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cc.Secrets = append(cc.Secrets, DerivedTokens(d.Secrets())...)
	cc.Writes = client.NewWriteLog(0)
	doc, err := spec.Load(profile)
	if err != nil {
		t.Fatal(err)
	}
	if cc.Validator, err = doc.NewValidator(d.MountPath()); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cc.HTTP.CloseIdleConnections)
	return c
}

func worldOf(t testing.TB, d *target.Description, profile spec.Profile) World {
	t.Helper()
	c := newClient(t, d, profile)
	w, err := WorldFromTarget(context.Background(), c, d)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (s *served) engine(t testing.TB, profile spec.Profile, seed uint64, writes bool) *Engine {
	t.Helper()
	e, err := New(Config{Client: s.client, Profile: profile, World: s.world, Seed: seed, Writes: writes})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// testRequest is a request with a raw JSON body.
func testRequest(method, path, token, body string) client.Request {
	return client.Request{Method: method, Path: path, Token: token, RawBody: []byte(body), Invalid: true}
}
