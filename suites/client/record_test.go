package client

import (
	"bytes"
	"io"
	"strconv"
	"testing"
	"testing/iotest"
)

// A full recorder keeps the newest exchanges, in order, within its count
// and byte limits, and counts what it dropped.
func TestRecorderKeepsTheNewest(t *testing.T) {
	ex := func(i int) *Exchange {
		return &Exchange{Operation: strconv.Itoa(i), ResponseBody: string(make([]byte, 100*(i%3)))}
	}
	for _, tc := range []struct {
		rec  *Recorder
		kept int
	}{
		{&Recorder{Limit: 3}, 3},
		{&Recorder{Limit: 1}, 1},
		{&Recorder{MaxBytes: 1000}, 0}, // as many as fit
	} {
		const n = 50
		for i := range n {
			tc.rec.add(ex(i))
		}
		got := tc.rec.Exchanges()
		if tc.kept > 0 && len(got) != tc.kept {
			t.Errorf("limit %d: kept %d", tc.rec.Limit, len(got))
		}
		var bytes int64
		for j, e := range got {
			if want := strconv.Itoa(n - len(got) + j); e.Operation != want {
				t.Errorf("limit %d, bytes %d: exchange %d is %s, want %s", tc.rec.Limit, tc.rec.MaxBytes, j, e.Operation, want)
			}
			bytes += e.size()
		}
		if tc.rec.Count() != n || tc.rec.Dropped() != n-len(got) || tc.rec.Bytes() != bytes {
			t.Errorf("count %d, dropped %d, bytes %d (kept %d of %d bytes)", tc.rec.Count(), tc.rec.Dropped(), tc.rec.Bytes(), len(got), bytes)
		}
		if tc.rec.MaxBytes > 0 && (bytes > tc.rec.MaxBytes || len(got) < 2) {
			t.Errorf("byte budget %d: kept %d exchanges of %d bytes", tc.rec.MaxBytes, len(got), bytes)
		}
	}
}

// readBody reads what io.ReadAll of the limited reader reads, whatever size
// the answer announced.
func TestReadBodyIsReadAll(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 70000} {
		body := bytes.Repeat([]byte("0123456789"), n/10+1)[:n]
		for _, limit := range []int64{1, 512, int64(n), int64(n) + 1, 1 << 20} {
			want, _ := io.ReadAll(io.LimitReader(iotest.HalfReader(bytes.NewReader(body)), limit))
			for _, announced := range []int64{-1, 0, 1, int64(n) - 1, int64(n), int64(n) + 1, 1 << 30} {
				got, err := readBody(iotest.HalfReader(bytes.NewReader(body)), limit, announced)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("body %d, limit %d, announced %d: %d bytes, %v; want %d", n, limit, announced, len(got), err, len(want))
				}
			}
		}
	}
	if _, err := readBody(iotest.ErrReader(io.ErrUnexpectedEOF), 10, 5); err != io.ErrUnexpectedEOF {
		t.Errorf("a failing read: %v", err)
	}
}
