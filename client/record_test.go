package client

import (
	"strconv"
	"testing"
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
