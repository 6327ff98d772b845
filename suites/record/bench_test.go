package record

import (
	"fmt"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// What judging one answer costs: a page of 50 messages against the core
// document and through the history checker, as the proxy does for each.
//
//	go test ./suites/record -run X -bench Judge
func BenchmarkJudgePage50(b *testing.B) {
	j, err := NewJudge(JudgeOptions{Profile: spec.Core, Started: time.Now(), Redactor: client.NewRedactor(), ResponseHeaders: true,
		ClientSide: true, HistoryWindow: 20000})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = fmt.Sprintf("m%02d", i)
	}
	body := page(ids...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		j.Add(&Exchange{N: i + 1, Start: time.Duration(i) * time.Millisecond, End: time.Duration(i)*time.Millisecond + 500*time.Microsecond,
			Method: "GET", Path: "/v1/rooms/r1/chatMessages", Query: "limit=50", Operation: "listMessages", Status: 200,
			RequestHeader: map[string][]string{"Authorization": {"Bearer x"}}, ResponseHeader: map[string][]string{"Content-Type": {"application/json; charset=utf-8"}},
			ResponseBody: body})
	}
}
