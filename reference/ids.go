package reference

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// idSource makes ObjectId-like ids (24 lowercase hex characters: seconds,
// five process bytes, a counter) that are strictly increasing, so ids of
// messages created later always sort after every earlier id, fixtures
// included.
type idSource struct {
	mu      sync.Mutex
	process [5]byte
	last    [12]byte
	counter uint32
}

func newIDSource() *idSource {
	s := &idSource{}
	_, _ = rand.Read(s.process[:])
	return s
}

// observe makes later ids sort after id.
func (s *idSource) observe(id string) {
	var b [12]byte
	if _, err := hex.Decode(b[:], []byte(id)); err != nil {
		return
	}
	s.mu.Lock()
	if string(b[:]) > string(s.last[:]) {
		s.last = b
	}
	s.mu.Unlock()
}

func (s *idSource) next(t time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b [12]byte
	sec := uint32(t.Unix())
	b[0], b[1], b[2], b[3] = byte(sec>>24), byte(sec>>16), byte(sec>>8), byte(sec)
	copy(b[4:9], s.process[:])
	s.counter++
	b[9], b[10], b[11] = byte(s.counter>>16), byte(s.counter>>8), byte(s.counter)
	if string(b[:]) <= string(s.last[:]) {
		b = s.last
		for i := len(b) - 1; i >= 0; i-- { // add one
			b[i]++
			if b[i] != 0 {
				break
			}
		}
	}
	s.last = b
	return hex.EncodeToString(b[:])
}

// validID reports whether s looks like an id of this server.
func validID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
