package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/suites/client"
)

// A certificate the harness does not trust ends the run with what to do
// about it; other transport failures only say the target was not reached.
func TestUntrustedCertificateSaysWhatToDo(t *testing.T) {
	untrusted := &client.TransportError{Method: "GET", URL: "https://127.0.0.1:8443/v1/user", Kind: client.KindTLS,
		Err: errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority")}
	code, msg := setupHalt(untrusted)
	if code != ExitUnreachable || strings.Count(msg, "tls:") != 1 {
		t.Errorf("exit %d: %s", code, msg)
	}
	for _, want := range []string{"not trusted", "--ca-file FILE", "CHAT_CA_FILE", "ca_file:", "--insecure-skip-verify"} {
		if !strings.Contains(msg, want) {
			t.Errorf("lacks %q: %s", want, msg)
		}
	}
	refused := &client.TransportError{Method: "GET", URL: "https://127.0.0.1:1/v1/user", Kind: client.KindConnect, Err: errors.New("connection refused")}
	if _, msg := setupHalt(refused); strings.Contains(msg, "--ca-file") || !strings.Contains(msg, "could not be reached") {
		t.Errorf("refused: %s", msg)
	}
}
