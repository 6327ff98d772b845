package selftest

import (
	"io"
	"log"
)

// discardLog silences a decorated server's own error log (TLS handshake
// noise from the plain-http checks).
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
