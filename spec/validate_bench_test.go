package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// page100 is a 100-message page as the reference server writes one: every
// message has its own id, text and timestamps; some are edited, and the
// urls, mentions and issues lists vary in length (0 to 2 entries).
func page100() []byte {
	msgs := make([]map[string]any, 100)
	for i := range msgs {
		m := message()
		m["id"] = fmt.Sprintf("5f1a0c2b9d3e4f5a6b7c%04x", i)
		m["text"] = fmt.Sprintf("message %d to @ada about #%d, see https://example.com/%d %s", i, i, i, strings.Repeat("word ", i%13))
		m["html"] = fmt.Sprintf(`message %d to <span class="mention">@ada</span> about #%d, see <a href="https://example.com/%d">https://example.com/%d</a> %s`, i, i, i, i, strings.Repeat("word ", i%13))
		m["sent"] = fmt.Sprintf("2026-11-02T09:%02d:%02d.%03dZ", i/60, i%60, i*7%1000)
		if i%5 == 0 {
			m["editedAt"], m["v"] = fmt.Sprintf("2026-11-02T10:%02d:%02dZ", i/60, i%60), 2
		}
		m["readBy"] = i % 4
		m["unread"] = i%3 == 0
		urls, mentions, issues := []any{}, []any{}, []any{}
		for j := range i % 3 {
			urls = append(urls, map[string]any{"url": fmt.Sprintf("https://example.com/%d/%d", i, j)})
		}
		for range i % 2 {
			mentions = append(mentions, map[string]any{"screenName": "ada", "userId": "5f1a0c2b9d3e4f5a6b7c8d90"})
		}
		for j := range (i + 1) % 3 {
			issues = append(issues, map[string]any{"number": fmt.Sprint(i*10 + j)})
		}
		m["urls"], m["mentions"], m["issues"] = urls, mentions, issues
		msgs[i] = m
	}
	raw, err := json.Marshal(msgs)
	if err != nil {
		panic(err)
	}
	return raw
}

// BenchmarkValidatePage compares, in one run, validating a 100-message page
// (the answer to GET .../chatMessages?limit=100, routed and checked by
// CheckResponse) under each profile with decoding the same bytes with
// encoding/json alone: the ratio of the two is what validation adds per page
// over reading it. Besides ns/op, each reports cpu-ns/op, the process's CPU
// time per page (garbage collection included), which a busy machine disturbs
// less.
func BenchmarkValidatePage(b *testing.B) {
	page := page100()
	b.Run("decode-json", func(b *testing.B) {
		measure(b, int64(len(page)), func() {
			var v any
			if err := json.Unmarshal(page, &v); err != nil {
				b.Fatal(err)
			}
		})
	})
	header := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	ctx := context.Background()
	req := httptest.NewRequest("GET", "https://x"+msgPath+"?limit=100", nil)
	for _, p := range Profiles {
		v, err := MustLoad(p).NewValidator("")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(p), func(b *testing.B) {
			measure(b, int64(len(page)), func() {
				if _, vs := v.CheckResponse(ctx, req, 200, header, page); len(vs) > 0 {
					b.Fatal(vs)
				}
			})
		})
	}
}

// measure runs one benchmark of f over n bytes and adds the cpu-ns/op metric.
func measure(b *testing.B, n int64, f func()) {
	b.SetBytes(n)
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
