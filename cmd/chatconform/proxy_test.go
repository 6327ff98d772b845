package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// The proxy's default address is not chatref's (127.0.0.1:8443), so the
// README's two terminals do not collide; an address in use is named, with
// the flag that picks another.
func TestProxyListenAddress(t *testing.T) {
	var out, errw bytes.Buffer
	if code := run(context.Background(), []string{"proxy", "--help"}, noEnv, &out, &errw); code != 0 ||
		!strings.Contains(out.String(), `(default "127.0.0.1:9443")`) {
		t.Errorf("proxy --help: exit %d\n%s", code, out.String())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	out.Reset()
	errw.Reset()
	code := run(context.Background(), []string{"proxy", "--base-url", "https://127.0.0.1:1", "--token", "tok-proxy", "--listen", addr,
		"--ca-out", filepath.Join(t.TempDir(), "ca.pem")}, noEnv, &out, &errw)
	if code != 3 || !strings.Contains(errw.String(), "could not listen on "+addr+": the address is already in use") ||
		!strings.Contains(errw.String(), "pick another with --listen") {
		t.Errorf("address in use: exit %d, stderr %q", code, errw.String())
	}
}
