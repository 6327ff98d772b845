package proxy

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The proxy's added latency: the same requests straight to the bundled
// reference server and through the proxy, one at a time, over HTTP/2 on
// kept-alive connections both ways. "back-to-back" sends the next request
// as soon as the answer is read, so the judging of earlier answers competes
// for the CPU (and, once the queue is full, is done before answering);
// "paced" leaves 3 ms between requests (not timed), as an interactive
// client does, so only the extra hop shows.
//
//	go test ./suites/proxy -run X -bench Latency -benchtime 2000x
func BenchmarkLatency(b *testing.B) {
	d := startBundled(b)
	p := startProxy(b, d, io.Discard, nil)
	direct, err := d.HTTPClient()
	if err != nil {
		b.Fatal(err)
	}
	via := h2Client(b, p)
	for _, tc := range []struct{ name, path string }{
		{"user", "/v1/user"},
		{"page50", "/v1/rooms/" + d.Rooms.Org + "/chatMessages?limit=50"},
	} {
		for _, side := range []struct {
			name string
			c    *http.Client
			base string
		}{{"direct", direct, d.BaseURL}, {"proxy", via, p.URL()}} {
			for _, paced := range []bool{false, true} {
				name := tc.name + "/back-to-back/" + side.name
				if paced {
					name = tc.name + "/paced/" + side.name
				}
				b.Run(name, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if paced {
							b.StopTimer()
							time.Sleep(3 * time.Millisecond)
							b.StartTimer()
						}
						get(b, side.c, side.base+tc.path, d.Users[0].Token)
					}
				})
			}
		}
	}
}

func h2Client(t testing.TB, p *Proxy) *http.Client {
	pemBytes, err := os.ReadFile(p.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 16}}
}

func get(t testing.TB, c *http.Client, url, token string) []byte {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", url, resp.StatusCode, b)
	}
	return b
}

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapInuse) / (1 << 20)
}

// A long session: 20,000 exchanges (PROXY_SOAK_REQUESTS to change it) from
// four clients at once through the proxy, mostly pages of 50 messages, with
// sends, reads by id and the user's lists; the heap (after a GC) is
// sampled every quarter. The reference server runs in the same process, so
// the figures include it (its store grows by the messages sent).
//
//	go test ./suites/proxy -run X -bench Soak -benchtime 1x
func BenchmarkSoak(b *testing.B) {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("PROXY_SOAK_REQUESTS")); err == nil && v > 0 {
		n = v
	}
	for i := 0; i < b.N; i++ {
		d := startBundled(b)
		p := startProxy(b, d, io.Discard, nil)
		c := h2Client(b, p)
		tok := d.Users[0].Token
		list := p.URL() + "/v1/rooms/" + d.WriteRoom + "/chatMessages"
		org := p.URL() + "/v1/rooms/" + d.Rooms.Org + "/chatMessages"
		heaps := []float64{heapMB()}
		start := time.Now()
		var next atomic.Int64
		var mu sync.Mutex
		quarter := int64(n / 4)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					k := next.Add(1)
					if k > int64(n) {
						return
					}
					switch k % 20 {
					case 0:
						req, _ := http.NewRequest("POST", list, strings.NewReader(fmt.Sprintf(`{"text":"soak %d"}`, k)))
						req.Header.Set("Authorization", "Bearer "+tok)
						req.Header.Set("Content-Type", "application/json")
						resp, err := c.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					case 1, 2, 3:
						get(b, c, p.URL()+"/v1/user", tok)
					case 4:
						get(b, c, p.URL()+"/v1/user/"+d.Users[0].ID+"/rooms", tok)
					default:
						get(b, c, fmt.Sprintf("%s?limit=50&skip=%d", org, k%4000), tok)
					}
					if k%quarter == 0 {
						h := heapMB()
						mu.Lock()
						heaps = append(heaps, h)
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		took := time.Since(start)
		r := p.Stop(10 * time.Second)
		if !r.Clean || r.Exchanges != n || r.Judged != n {
			var sum strings.Builder
			r.Print(&sum)
			b.Fatalf("soak:\n%s", sum.String())
		}
		b.ReportMetric(float64(took.Microseconds())/float64(n), "µs/exchange")
		b.ReportMetric(heaps[len(heaps)-1], "MB-heap-end")
		b.ReportMetric(float64(peakRSS())/(1<<20), "MB-peak-RSS")
		b.ReportMetric(float64(p.Stats().BudgetPeak)/(1<<20), "MB-copies-peak")
		b.Logf("%d exchanges in %s; heap after GC (MB) at 0, 1/4, 1/2, 3/4, all: %.1f", n, took.Round(time.Millisecond), heaps)
	}
}
