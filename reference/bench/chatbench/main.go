// Command chatbench measures the reference server from outside, on
// loopback only: its speed against the floor of the machine (a do-nothing
// HTTPS server answering the same bytes), and how it holds up under abuse
// (idle and slow connections, costly senders, searchers, a long soak).
// Every scenario is bounded in time and stops by itself. reference/bench/run.sh
// builds it and runs the usual set.
//
//	chatbench ratio   --chatref PATH   page, /v1/user and send: chatref req/s over the floor's
//	chatbench abuse   --chatref PATH   idle, slowbody, slowloris, costly, prose
//	chatbench search                   a 200,000-message room in-process: one search, and a normal client's p99 beside a searcher
//	chatbench memory  --chatref PATH   RSS after start-up and after N sends of 4,000 characters
//	chatbench floor-serve DIR          (internal) the floor server, answering the bytes in DIR
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/reference/localtls"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: chatbench ratio|abuse|search|memory|floor-serve [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	chatref := fs.String("chatref", "", "path of a chatref binary")
	dur := fs.Duration("duration", 5*time.Second, "length of each load run")
	conns := fs.Int("c", 16, "connections of the load generator")
	only := fs.String("only", "", "comma-separated scenarios to run (default all)")
	sends := fs.Int("sends", 200_000, "memory: number of 4,000-character sends")
	rounds := fs.Int("rounds", 3, "ratio: runs of each server, alternating; the best of each counts (the machine may be shared)")
	_ = fs.Parse(os.Args[2:])
	var err error
	switch os.Args[1] {
	case "ratio":
		err = ratio(*chatref, *dur, *conns, *rounds)
	case "abuse":
		err = abuse(*chatref, *dur, *only)
	case "search":
		err = searchScenario(*dur)
	case "memory":
		err = memory(*chatref, *sends)
	case "floor-serve":
		err = floorServe(fs.Arg(0))
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chatbench:", err)
		os.Exit(1)
	}
}

// --- servers ---------------------------------------------------------------------

// world is the seeded world chatref serves with --seed 1.
func world() *fixtures.World {
	w, err := fixtures.Generate(1)
	if err != nil {
		panic(err)
	}
	return w
}

// proc is a child server process and its base URL.
type proc struct {
	cmd *exec.Cmd
	url string
}

// start runs a server command that prints "... serving https://host:port ..."
// on stdout and waits for that line.
func start(name string, args ...string) (*proc, error) {
	cmd := exec.Command(name, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "serving "); ok {
			url, _, _ := strings.Cut(rest, " ")
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return &proc{cmd: cmd, url: url}, nil
		}
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("%s printed no serving line", name)
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

func startChatref(path string) (*proc, error) {
	if path == "" {
		return nil, errors.New("--chatref is required")
	}
	return start(path, "--addr", "127.0.0.1:0", "--seed", "1", "--log-level", "error")
}

// client is an HTTP/1.1 keep-alive client trusting any certificate (the
// servers are ours, on loopback).
func client(conns int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
		MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, ForceAttemptHTTP2: false,
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}}
}

// request is one kind of request of a load run.
type request struct {
	method, path, body string
}

func (rq request) do(c *http.Client, base, token string) (int, []byte, error) {
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	req, err := http.NewRequest(rq.method, base+rq.path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if rq.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// load runs conns workers sending rq for d and returns requests per
// second and latencies.
func load(base, token string, rq request, conns int, d time.Duration) (float64, []time.Duration, error) {
	c := client(conns)
	defer c.CloseIdleConnections()
	var n atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range conns {
		wg.Go(func() {
			var mine []time.Duration
			for time.Now().Before(stop) {
				s := time.Now()
				code, _, err := rq.do(c, base, token)
				if err == nil && code != 200 {
					err = fmt.Errorf("%s %s: status %d", rq.method, rq.path, code)
				}
				if err != nil {
					mu.Lock()
					firstErr = cmp(firstErr, err)
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(s))
				n.Add(1)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(t0).Seconds(), lat, firstErr
}

func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func pct(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// --- ratio -----------------------------------------------------------------------

func ratio(chatrefPath string, d time.Duration, conns, rounds int) error {
	w := world()
	ref, err := startChatref(chatrefPath)
	if err != nil {
		return err
	}
	defer ref.stop()
	token := w.Users[0].Token
	reqs := map[string]request{
		"page": {"GET", "/v1/rooms/" + w.Hints.Org + "/chatMessages?limit=100", ""},
		"user": {"GET", "/v1/user", ""},
		"send": {"POST", "/v1/rooms/" + w.Hints.WriteRoom + "/chatMessages", `{"text":"hello @someone, see #12 and https://example.com/x"}`},
	}
	// The floor answers each request with the bytes chatref gave.
	dir, err := os.MkdirTemp("", "chatbench-floor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c := client(1)
	for name, rq := range reqs {
		code, body, err := rq.do(c, ref.url, token)
		if err != nil || code != 200 {
			return fmt.Errorf("%s: %d %v", name, code, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o600); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	floor, err := start(self, "floor-serve", dir)
	if err != nil {
		return err
	}
	defer floor.stop()
	fmt.Printf("%d connections, %v per run, best of %d alternating runs, HTTP/1.1 keep-alive over TLS, client on the same machine\n", conns, d, rounds)
	fmt.Printf("%-6s %12s %12s %7s %14s %14s\n", "what", "chatref/s", "floor/s", "ratio", "chatref p99", "floor p99")
	for _, name := range []string{"page", "user", "send"} {
		rq := reqs[name]
		var best [2]float64
		var p99 [2]time.Duration
		for range rounds {
			for i, url := range []string{ref.url, floor.url} {
				rate, lat, err := load(url, token, rq, conns, d)
				if err != nil {
					return err
				}
				if rate > best[i] {
					best[i], p99[i] = rate, pct(lat, 0.99)
				}
			}
		}
		fmt.Printf("%-6s %12.0f %12.0f %7.2f %14v %14v\n", name, best[0], best[1], best[0]/best[1],
			p99[0].Round(time.Microsecond), p99[1].Round(time.Microsecond))
	}
	return nil
}

// floorServe answers every request with the saved bytes of its kind and
// does nothing else: the fastest an HTTPS server in Go can answer them.
func floorServe(dir string) error {
	bodies := map[string][]byte{}
	for _, name := range []string{"page", "user", "send"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		bodies[name] = b
	}
	cert, _, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		return err
	}
	srv, err := localtls.Start(&http.Server{TLSConfig: localtls.Config(cert),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name := "page"
			switch {
			case r.Method == "POST":
				_, _ = io.Copy(io.Discard, r.Body)
				name = "send"
			case r.URL.Path == "/v1/user":
				name = "user"
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(bodies[name])))
			_, _ = w.Write(bodies[name])
		})}, localtls.Options{})
	if err != nil {
		return err
	}
	fmt.Printf("floor: serving %s\n", srv.URL)
	ch := make(chan os.Signal, 1)
	notify(ch)
	<-ch
	return srv.Close()
}

// --- abuse -----------------------------------------------------------------------

func abuse(chatrefPath string, d time.Duration, only string) error {
	w := world()
	ref, err := startChatref(chatrefPath)
	if err != nil {
		return err
	}
	defer ref.stop()
	host := strings.TrimPrefix(ref.url, "https://")
	token := w.Users[0].Token
	user := request{"GET", "/v1/user", ""}
	want := func(name string) bool { return only == "" || slices.Contains(strings.Split(only, ","), name) }

	if want("normal") {
		_, lat, err := load(ref.url, token, user, 1, d)
		if err != nil {
			return err
		}
		fmt.Printf("normal client alone: GET /v1/user p50 %v p99 %v\n", pct(lat, .5).Round(time.Microsecond), pct(lat, .99).Round(time.Microsecond))
	}
	if want("costly") {
		// 2,048 x "a ": the text that took tens of ms to render.
		costly := request{"POST", "/v1/rooms/" + w.Hints.WriteRoom + "/chatMessages", `{"text":"` + strings.Repeat("a ", 2048) + `"}`}
		err := beside(ref.url, w.Users[1].Token, costly, 1, token, user, d, "costly sender (2,048 x \"a \")")
		if err != nil {
			return err
		}
	}
	if want("prose") {
		prose := request{"POST", "/v1/rooms/" + w.Hints.WriteRoom + "/chatMessages", `{"text":"` + prose4000() + `"}`}
		rate, _, err := load(ref.url, w.Users[1].Token, prose, 4, d)
		if err != nil {
			return err
		}
		fmt.Printf("sends of 4,000-character prose, 4 senders: %.0f/s\n", rate)
	}
	if want("slowloris") {
		if err := slowloris(host, ref.url, token, user, 1000, d); err != nil {
			return err
		}
	}
	if want("slowbody") {
		if err := slowBody(host, w, 200); err != nil {
			return err
		}
	}
	if want("idle") {
		if err := idle(host, token, 2000, 45*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// beside runs an attacker (n workers of bad) and one normal client (good)
// together for d, and prints both.
func beside(base, badToken string, bad request, n int, token string, good request, d time.Duration, what string) error {
	var badRate float64
	var badErr error
	done := make(chan struct{})
	go func() {
		badRate, _, badErr = load(base, badToken, bad, n, d)
		close(done)
	}()
	time.Sleep(200 * time.Millisecond)
	_, lat, err := load(base, token, good, 1, d-400*time.Millisecond)
	<-done
	if err := cmp(badErr, err); err != nil {
		return err
	}
	fmt.Printf("beside a %s at %.0f req/s: normal GET /v1/user p50 %v p99 %v\n", what, badRate,
		pct(lat, .5).Round(time.Microsecond), pct(lat, .99).Round(time.Microsecond))
	return nil
}

func prose4000() string {
	const p = "The build passed on the second try, so we merged the change and moved on to the flaky test in the search suite. "
	return strings.Repeat(p, 4000/len(p)+1)[:4000]
}

func dialTLS(host string) (*tls.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second}
	return tls.DialWithDialer(d, "tcp", host, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
}

// slowloris holds n connections that send their headers one byte at a
// time (reconnecting when the server cuts them) while a normal client
// makes requests, and prints the normal client's latency.
func slowloris(host, base, token string, good request, n int, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d+2*time.Second)
	defer cancel()
	var held, cut atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * time.Millisecond) // spread the handshakes
			for ctx.Err() == nil {
				c, err := dialTLS(host)
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				held.Add(1)
				head := "GET /v1/user HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 10_000)
				for j := 0; j < len(head) && ctx.Err() == nil; j++ {
					if _, err := c.Write([]byte{head[j]}); err != nil {
						cut.Add(1)
						break
					}
					select {
					case <-ctx.Done():
					case <-time.After(time.Second):
					}
				}
				held.Add(-1)
				c.Close()
			}
		})
	}
	time.Sleep(min(d/2, 2*time.Second) + time.Duration(n)*time.Millisecond)
	peak := held.Load()
	_, lat, err := load(base, token, good, 1, d)
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}
	fmt.Printf("beside %d slowloris connections (%d held when measured, %d cut by the server): normal GET /v1/user p50 %v p99 %v\n",
		n, peak, cut.Load(), pct(lat, .5).Round(time.Microsecond), pct(lat, .99).Round(time.Microsecond))
	return nil
}

// slowBody opens n connections that promise a body and send part of it,
// and prints how long the server keeps them.
func slowBody(host string, w *fixtures.World, n int) error {
	var mu sync.Mutex
	var kept []time.Duration
	var wg sync.WaitGroup
	limit := 60 * time.Second
	for range n {
		wg.Go(func() {
			c, err := dialTLS(host)
			if err != nil {
				return
			}
			defer c.Close()
			s := time.Now()
			fmt.Fprintf(c, "POST /v1/rooms/%s/chatMessages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"text\":\"", w.Hints.WriteRoom, w.Users[0].Token)
			_ = c.SetReadDeadline(s.Add(limit))
			_, _ = io.Copy(io.Discard, c)
			mu.Lock()
			kept = append(kept, time.Since(s))
			mu.Unlock()
		})
	}
	wg.Wait()
	open := 0
	for _, k := range kept {
		if k >= limit {
			open++
		}
	}
	fmt.Printf("%d connections with a body that never completes: %d still open after %v; closed after median %v, max %v\n",
		n, open, limit, pct(kept, .5).Round(time.Millisecond), pct(kept, 1).Round(time.Millisecond))
	return nil
}

// idle opens n keep-alive connections, makes one request on each, leaves
// them idle and counts those still open after wait.
func idle(host, token string, n int, wait time.Duration) error {
	var conns []*tls.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for len(conns) < n {
		c, err := dialTLS(host)
		if err != nil {
			return fmt.Errorf("after %d connections: %w", len(conns), err)
		}
		fmt.Fprintf(c, "GET /v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", token)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		conns = append(conns, c)
	}
	time.Sleep(wait)
	// A connection the server closed reads its end at once; one still open
	// times out. All are read at once, with a deadline long enough for a
	// busy machine.
	var open atomic.Int64
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			var b [1]byte
			var ne net.Error
			if _, err := c.Read(b[:]); errors.As(err, &ne) && ne.Timeout() {
				open.Add(1)
			}
		})
	}
	wg.Wait()
	fmt.Printf("%d idle keep-alive connections: %d still open after %v\n", n, open.Load(), wait)
	return nil
}

// --- search ----------------------------------------------------------------------

// searchScenario serves a world with a 200,000-message room in-process
// (over TLS on loopback, with the production server settings), times one
// search, then a normal client's latency while one client searches and
// one writes without pause.
func searchScenario(d time.Duration) error {
	base := world()
	const n = 200_000
	roomID := strings.Repeat("d", 24)
	w := fixtures.WithRoom(base, roomID, n, func(i int) string {
		text := fmt.Sprintf("message %d about the weather, lunch and the build", i)
		if i%1000 == 0 {
			text += " needle"
		}
		return text
	})
	cert, _, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		return err
	}
	srv, err := localtls.Start(reference.NewHTTPServer(reference.New(w, reference.Config{}), localtls.Config(cert), nil), localtls.Options{})
	if err != nil {
		return err
	}
	defer srv.Close()
	url := srv.URL
	token := base.Users[0].Token
	search := request{"GET", "/v1/rooms/" + roomID + "/chatMessages?limit=100&q=NEEDLE+weather", ""}
	c := client(1)
	var one []time.Duration
	for range 5 {
		s := time.Now()
		if code, _, err := search.do(c, url, token); err != nil || code != 200 {
			return fmt.Errorf("search: %d %v", code, err)
		}
		one = append(one, time.Since(s))
	}
	fmt.Printf("one search in a %d-message room: median of 5 %v\n", n, pct(one, .5).Round(time.Microsecond))
	// The writer posts elsewhere: a send into the big room would cut it to
	// the room bound (reference.MaxRoomMessages).
	send := request{"POST", "/v1/rooms/" + base.Hints.WriteRoom + "/chatMessages", `{"text":"a writer beside the searcher"}`}
	user := request{"GET", "/v1/user", ""}
	var wg sync.WaitGroup
	var sRate, wRate float64
	var sErr, wErr error
	wg.Go(func() { sRate, _, sErr = load(url, base.Users[1].Token, search, 1, d) })
	wg.Go(func() { wRate, _, wErr = load(url, base.Users[1].Token, send, 1, d) })
	time.Sleep(200 * time.Millisecond)
	_, lat, err := load(url, token, user, 1, d-400*time.Millisecond)
	wg.Wait()
	if err := cmp(cmp(sErr, wErr), err); err != nil {
		return err
	}
	fmt.Printf("beside one searcher (%.1f searches/s) and one writer (%.0f sends/s): normal GET /v1/user p50 %v p99 %v\n",
		sRate, wRate, pct(lat, .5).Round(time.Microsecond), pct(lat, .99).Round(time.Microsecond))
	return nil
}

// --- memory ----------------------------------------------------------------------

func memory(chatrefPath string, sends int) error {
	w := world()
	ref, err := startChatref(chatrefPath)
	if err != nil {
		return err
	}
	defer ref.stop()
	time.Sleep(time.Second)
	fmt.Printf("chatref RSS after start-up: %s\n", rss(ref.cmd.Process.Pid))
	// Spread over every room user 0 can write to, 4 senders at a time.
	var rooms []string
	for _, r := range w.Rooms {
		if slices.Contains(r.Members, w.Users[0].ID) {
			rooms = append(rooms, r.ID)
		}
	}
	body := `{"text":"` + prose4000() + `"}`
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	c := client(4)
	s := time.Now()
	for range 4 {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(sends) {
					return
				}
				rq := request{"POST", "/v1/rooms/" + rooms[int(i)%len(rooms)] + "/chatMessages", body}
				if code, b, err := rq.do(c, ref.url, w.Users[0].Token); err != nil || code != 200 {
					firstErr.CompareAndSwap(nil, fmt.Errorf("send %d: %d %v %s", i, code, err, b))
					return
				}
			}
		})
	}
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return e.(error)
	}
	fmt.Printf("chatref RSS after %d sends of 4,000 characters over %d rooms (%.0f sends/s): %s\n", sends, len(rooms),
		float64(sends)/time.Since(s).Seconds(), rss(ref.cmd.Process.Pid))
	return nil
}

// rss reads a process's resident set size from /proc (Linux).
func rss(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			return strings.TrimSpace(string(v))
		}
	}
	return "unknown"
}
