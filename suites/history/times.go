package history

import (
	"time"
)

// instant is a timestamp of an answer with the precision it was written
// in: two servers may write the same moment to the second or to the
// microsecond, and a server may keep a coarser copy than it first answered.
type instant struct {
	ns   int64 // Unix nanoseconds
	prec int8  // fraction digits written, 0..9
}

// parseInstant reads an RFC 3339 timestamp, allowing lower-case t and z.
func parseInstant(b []byte) (instant, bool) {
	if len(b) < 20 || len(b) > 64 {
		return instant{}, false
	}
	var buf [64]byte
	n := copy(buf[:], b)
	prec := int8(0)
	for i := 0; i < n; i++ {
		switch buf[i] {
		case 't':
			buf[i] = 'T'
		case 'z':
			buf[i] = 'Z'
		case '.':
			j := i + 1
			for j < n && '0' <= buf[j] && buf[j] <= '9' {
				j++
			}
			prec = int8(min(j-i-1, 9))
		}
	}
	t, err := time.Parse(time.RFC3339Nano, string(buf[:n]))
	if err != nil {
		return instant{}, false
	}
	return instant{ns: t.UnixNano(), prec: prec}, true
}

// unit is the resolution of the coarser of two precisions, in nanoseconds.
func unit(a, b instant) int64 {
	u := int64(1)
	for range 9 - min(a.prec, b.prec) {
		u *= 10
	}
	return u
}

// cmpInstant compares two instants as far as the coarser one tells: less
// than one unit of it apart counts as the same time (a copy may be cut or
// rounded to that unit).
func cmpInstant(a, b instant) int {
	d := a.ns - b.ns
	switch u := unit(a, b); {
	case d > -u && d < u:
		return 0
	case d < 0:
		return -1
	}
	return 1
}

func (i instant) String() string {
	return time.Unix(0, i.ns).UTC().Format(time.RFC3339Nano)
}
