package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Reader reads a record one exchange at a time, so that a record of any
// length is read in the memory of its longest line.
type Reader struct {
	dec  *json.Decoder
	line int
	next int // the number the next exchange must carry
	// Header is the record's first line.
	Header Header
	// Trailer is the record's last line, once Next has returned io.EOF;
	// nil when the record ends without one (a run cut short).
	Trailer *Trailer
	done    bool
}

// NewReader reads the header of a record.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{dec: json.NewDecoder(bufio.NewReaderSize(r, 256<<10)), next: 1}
	raw, err := rd.raw()
	if err == io.EOF {
		return nil, errors.New("record: empty file")
	}
	if err != nil {
		return nil, err
	}
	if err := strict(raw, &rd.Header); err != nil {
		return nil, errorf(rd.line, "not a record header: %v", err)
	}
	if rd.Header.Kind != KindHeader || rd.Header.Format != Format {
		return nil, errorf(rd.line, "not a record of format %s (kind %q, format %q)", Format, rd.Header.Kind, rd.Header.Format)
	}
	return rd, nil
}

func (r *Reader) raw() (json.RawMessage, error) {
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, errorf(r.line+1, "%v", err)
	}
	r.line++
	return raw, nil
}

// strict decodes one line, refusing fields the format does not have.
func strict(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// Next returns the next exchange, or io.EOF after the last one. A record
// whose exchanges are out of order, or with anything after its trailer, is
// refused.
func (r *Reader) Next() (*Exchange, error) {
	if r.done {
		return nil, io.EOF
	}
	raw, err := r.raw()
	if err == io.EOF {
		r.done = true
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	var kind struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &kind); err != nil {
		return nil, errorf(r.line, "%v", err)
	}
	switch kind.Kind {
	case KindExchange:
		var l line
		if err := strict(raw, &l); err != nil {
			return nil, errorf(r.line, "%v", err)
		}
		if l.N != r.next {
			return nil, errorf(r.line, "exchange %d where %d was due", l.N, r.next)
		}
		r.next++
		x, err := l.exchange()
		if err != nil {
			return nil, errorf(r.line, "%v", err)
		}
		return x, nil
	case KindTrailer:
		var t Trailer
		if err := strict(raw, &t); err != nil {
			return nil, errorf(r.line, "%v", err)
		}
		if t.Exchanges != r.next-1 {
			return nil, errorf(r.line, "the trailer counts %d exchanges; the record holds %d", t.Exchanges, r.next-1)
		}
		if _, err := r.raw(); err != io.EOF {
			return nil, errorf(r.line, "something follows the trailer")
		}
		r.Trailer, r.done = &t, true
		return nil, io.EOF
	}
	return nil, errorf(r.line, "unknown line kind %q", kind.Kind)
}

// Count is how many exchanges were read so far.
func (r *Reader) Count() int { return r.next - 1 }

// ErrNoTrailer says a record ends without its trailer.
var ErrNoTrailer = fmt.Errorf("record: no trailer: the record was cut short")
