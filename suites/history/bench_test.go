package history

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/suites/client"
)

// benchMessage is a message of about 700 bytes, as the reference server
// writes them: a sentence with a mention, an issue and a link.
func benchMessage(i, v int) string { return benchMessageRead(i, v, i%3) }

// benchText is the text of message i.
func benchText(i int) string {
	return fmt.Sprintf("Release notes %d are up, cc @ada see #%d and https://example.com/n/%d", i, i%500, i)
}

// benchRequest is the body of a send or edit of message i's text.
func benchRequest(i int) []byte {
	b, _ := json.Marshal(map[string]string{"text": benchText(i)})
	return b
}

// benchMessageRead is message i at version v, read by readBy users.
func benchMessageRead(i, v, readBy int) string {
	text := benchText(i)
	html := fmt.Sprintf(`Release notes %d are up, cc <span class="mention">@ada</span> see <span class="issue">#%d</span> and <a href="https://example.com/n/%d" class="link">https://example.com/n/%d</a>`, i, i%500, i, i)
	edited := "null"
	if v > 1 {
		edited = fmt.Sprintf(`"2026-11-02T08:%02d:%02d.%03dZ"`, i/60%60, i%60, v)
	}
	return fmt.Sprintf(`{"id":"5f1a0c2b9d3e4f5a6b%06x","text":%q,"html":%q,"sent":"2026-11-02T07:%02d:%02d.%03dZ","editedAt":%s,`+
		`"fromUser":{"id":"5f1a0c2b9d3e4f5a6b7c8d90","username":"ada","displayName":"Ada","url":"/ada","avatarUrlSmall":"https://a.test/s","v":3},`+
		`"unread":false,"readBy":%d,"urls":[{"url":"https://example.com/n/%d"}],"mentions":[{"screenName":"ada","userId":"5f1a0c2b9d3e4f5a6b7c8d90"}],"issues":[{"number":"%d"}],"meta":{},"v":%d,"status":false}`,
		i, text, html, i/60%60, i%60, i%1000, edited, readBy, i, i%500, v)
}

func benchPage(from, n int) []byte {
	parts := make([]string, n)
	for k := range n {
		parts[k] = benchMessage(from+k, 1)
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

// benchRun builds a run of n exchanges. With pagesOnly every exchange is a
// page of 100 messages (the heaviest load a run could be); otherwise the
// mix is modelled on a reference run (about 1,700 exchanges and 2.2 MB of
// answers): mostly sends and single reads, a tenth pages of 5 to 100
// messages, unread lists, marks, edits and room lists.
func benchRun(n int, pagesOnly bool) []client.Observed {
	var out []client.Observed
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	add := func(user int, method, path, query string, status int, req, resp []byte) {
		start := at
		at = at.Add(500 * time.Microsecond)
		out = append(out, client.Observed{Start: start, End: at, User: user, Method: method, Path: path, Query: query,
			Operation: operationOf(method, path), Status: status, RequestBody: req, ResponseBody: resp,
			Reproduce: "curl -sS -X " + method + " -H 'Authorization: Bearer '\"$CHAT_TOKEN\"'' 'https://chat.example.com" + path + "'"})
	}
	add(0, "GET", "/v1/user", "", 200, nil, []byte(`[{"id":"5f1a0c2b9d3e4f5a6b7c8d90","username":"ada","displayName":"Ada Lovelace","url":"/ada"}]`))
	add(1, "GET", "/v1/user", "", 200, nil, []byte(`[{"id":"5f1a0c2b9d3e4f5a6b7c8d91","username":"bob","displayName":"Bob","url":"/bob"}]`))
	const org, write = "/v1/rooms/5f1a0c2b9d3e4f5a6b7c8e00/chatMessages", "/v1/rooms/5f1a0c2b9d3e4f5a6b7c8e01/chatMessages"
	sent := 6000 // ids below are the organisation room's history
	for i := 0; len(out) < n; i++ {
		switch {
		case pagesOnly || i%10 == 0:
			size := []int{100, 50, 20, 5}[i%4]
			if pagesOnly {
				size = 100
			}
			from := (i * 37) % (6000 - size)
			add(0, "GET", org, fmt.Sprintf("limit=%d&beforeId=5f1a0c2b9d3e4f5a6b%06x", size, from+size), 200, nil, benchPage(from, size))
		case i%10 < 6:
			add(0, "POST", write, "", 200, benchRequest(sent), []byte(benchMessageRead(sent, 1, 0)))
			sent++
		case i%10 < 8:
			add(i%2, "GET", fmt.Sprintf("%s/5f1a0c2b9d3e4f5a6b%06x", write, sent-1), "", 200, nil, []byte(benchMessage(sent-1, 1)))
		case i%40 == 8:
			add(0, "PUT", fmt.Sprintf("%s/5f1a0c2b9d3e4f5a6b%06x", write, sent-1), "", 200, benchRequest(sent-1), []byte(benchMessage(sent-1, 2)))
		case i%10 == 8:
			ids := make([]string, 0, 20)
			for k := range 20 {
				ids = append(ids, fmt.Sprintf(`"5f1a0c2b9d3e4f5a6b%06x"`, sent-1-k))
			}
			add(1, "GET", "/v1/user/me/rooms/5f1a0c2b9d3e4f5a6b7c8e01/unreadItems", "", 200, nil, []byte(`{"chat":[`+strings.Join(ids, ",")+`],"mention":[]}`))
		case i%20 == 9:
			add(1, "POST", "/v1/user/me/rooms/5f1a0c2b9d3e4f5a6b7c8e01/unreadItems", "", 200, []byte(fmt.Sprintf(`{"chat":["5f1a0c2b9d3e4f5a6b%06x"]}`, sent-1)), []byte(`{"success":true}`))
		default:
			add(0, "GET", "/v1/user/me/rooms", "", 200, nil, []byte(`[{"id":"5f1a0c2b9d3e4f5a6b7c8e00","name":"org","topic":"","uri":"org","oneToOne":false,"userCount":6,"unreadItems":3,"mentions":0,"lurk":false,"url":"/org","platformType":"ORG","security":"PUBLIC","v":1},`+
				`{"id":"5f1a0c2b9d3e4f5a6b7c8e02","name":"Bob","topic":"","oneToOne":true,"unreadItems":0,"mentions":0,"lurk":false,"url":"/bob","platformType":"ONETOONE","user":{"id":"5f1a0c2b9d3e4f5a6b7c8d91","username":"bob","displayName":"Bob","url":"/bob"},"v":1}]`))
		}
	}
	return out
}

func benchmarkRun(b *testing.B, pagesOnly bool) {
	run := benchRun(1600, pagesOnly)
	var bytes int64
	for _, o := range run {
		bytes += int64(len(o.ResponseBody))
	}
	// What a checker keeps after the run, measured once.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := New(Options{Eventually: 5 * time.Second})
	for _, o := range run {
		c.Observe(o)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if cs := c.Check(); len(cs) > 0 {
		b.Fatalf("a contradiction in a legal run:\n%s", describe(cs))
	}
	retained := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	runtime.KeepAlive(c)

	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		c := New(Options{Eventually: 5 * time.Second})
		for _, o := range run {
			c.Observe(o)
		}
		c.Check()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(run)), "ns/exchange")
	b.ReportMetric(retained, "retained-B")
	b.ReportMetric(float64(bytes), "body-B/run")
}

// BenchmarkRunMix feeds a run of 1,600 exchanges shaped like a reference
// run, then checks it: one op is one whole run.
func BenchmarkRunMix(b *testing.B) { benchmarkRun(b, false) }

// BenchmarkRunPages100 feeds 1,600 pages of 100 messages of about 600
// bytes each (96 MB, some 40 times what a run reads), then checks them.
func BenchmarkRunPages100(b *testing.B) { benchmarkRun(b, true) }

// BenchmarkObservePage100 observes one page of 100 messages (the same page
// each time, so the state stays small): the cost of reading a page.
func BenchmarkObservePage100(b *testing.B) {
	body := benchPage(0, 100)
	o := client.Observed{Start: time.Now(), End: time.Now(), User: 0, Method: "GET", Path: "/v1/rooms/r1/chatMessages", Query: "limit=100",
		Operation: "listMessages", Status: 200, ResponseBody: body}
	c := New(Options{})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		c.Observe(o)
	}
}

// BenchmarkDecodePage100 decodes the same page with encoding/json into
// the fields the checker reads, for comparison.
func BenchmarkDecodePage100(b *testing.B) {
	body := benchPage(0, 100)
	type user struct{ ID, Username, URL string }
	type msg struct {
		ID, Text, HTML, Sent string
		EditedAt             *string
		FromUser             user
		Unread               bool
		ReadBy, V            int
		URLs, Mentions       []map[string]any
		Issues               []map[string]any
		Meta                 map[string]any
		Status               bool
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var page []msg
		if err := json.Unmarshal(body, &page); err != nil {
			b.Fatal(err)
		}
	}
}
