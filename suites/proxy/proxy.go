// Package proxy is `chatconform proxy`: a reverse proxy that sits between a
// client and a Chat Rooms server and judges every exchange it forwards
// against the profile's OpenAPI document and, through the history checker
// (suites/history), against the other exchanges of the session.
//
// A request that breaks the document (a missing token, a body of the wrong
// shape, a parameter the operation does not have) is the client's
// violation; an answer that does (its status, headers or body) or that
// contradicts earlier answers is the server's. Each is reported with the
// requirement it breaks, live and, when the proxy stops, in JSON, JUnit and
// HTML reports grouped by requirement.
//
// The proxy never changes the traffic beyond what any reverse proxy does
// (hop-by-hop headers, the Host header of the target): bodies go through
// as they come, streamed, while a bounded copy of each is kept for judging.
// Judging runs after the answer has been passed on, on a few workers, so
// the client waits for it only when the workers fall behind. Memory is
// bounded whatever the traffic: the copies in flight share one budget (an
// exchange whose copy does not fit is counted, not judged), connections are
// capped, the report keeps a few examples per requirement, and the history
// checker starts afresh after a window of exchanges.
package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"

	"github.com/chatrooms/conformance/reference/localtls"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/target"
)

// DefaultListen is where a proxy listens unless told: beside chatref's
// default (127.0.0.1:8443), so the two run side by side as they are.
const DefaultListen = "127.0.0.1:9443"

// Config configures a proxy.
type Config struct {
	// Target is the server to forward to (its base URL, CA and tokens: the
	// tokens name the users in reports, and are redacted everywhere).
	Target *target.Description
	// Profile is the document exchanges are judged by; default core.
	Profile spec.Profile
	// Listen is the address to listen on; default DefaultListen.
	Listen string
	// PlainHTTP listens over plain HTTP instead of HTTPS; only a loopback
	// address may be given then, so tokens never cross a network in clear.
	PlainHTTP bool
	// CAOut is where the proxy writes its certificate (its own CA) when it
	// listens over HTTPS; default chatconform-proxy-ca.pem.
	CAOut string
	// MaxJudgedBody bounds the copy of one body kept for judging; default
	// client.DefaultMaxBody (8 MiB), what a conformance run reads.
	MaxJudgedBody int64
	// JudgeBudget bounds all copies in flight together; default 64 MiB.
	JudgeBudget int64
	// MaxConns bounds the client connections open at once; default 256.
	MaxConns int
	// Eventually is how long a stale copy may be served after a write
	// (the history checker's lag); default 5 s.
	Eventually time.Duration
	// HistoryWindow is how many exchanges the history checker keeps before
	// it starts afresh; default 20,000.
	HistoryWindow int
	// Examples is how many examples per requirement the report keeps;
	// default 5. LiveLimit is how many violations per requirement are
	// printed live; default 20.
	Examples, LiveLimit int
	// Out receives the live output (redacted); nil discards it.
	Out io.Writer
	// Version is chatconform's version, for the reports.
	Version string
}

// Proxy is a running proxy.
type Proxy struct {
	cfg     Config
	base    *url.URL
	url     string
	caFile  string
	srv     *http.Server
	rp      *httputil.ReverseProxy
	judge   *record.Judge
	tok     *tokens
	budget  *budget
	t0      time.Time
	started time.Time

	jobs    chan *job
	workers sync.WaitGroup

	count      atomic.Int64 // exchanges finished
	unanswered atomic.Int64
	limit      int64
	done       chan struct{}
	doneOnce   sync.Once

	mu          sync.Mutex
	notJudged   map[string]int
	printed     map[string]int
	printedText map[string]bool
	out         *client.Writer

	stopHist chan struct{}
	histDone chan struct{}
	stopped  bool
}

type stateKey struct{}

// state is what the reverse proxy's hooks learn of one exchange.
type state struct {
	start  time.Time
	status int
	header http.Header
	resp   *capture
	err    error
}

type job struct {
	st        *state
	req       *capture
	method    string
	path      string
	query     string
	header    http.Header
	tokenUser int
}

// Start listens and serves until Stop.
func Start(cfg Config) (*Proxy, error) {
	if cfg.Target == nil {
		return nil, errors.New("proxy: no target")
	}
	if cfg.Profile == "" {
		cfg.Profile = spec.Core
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.CAOut == "" {
		cfg.CAOut = "chatconform-proxy-ca.pem"
	}
	if cfg.MaxJudgedBody <= 0 {
		cfg.MaxJudgedBody = client.DefaultMaxBody
	}
	if cfg.JudgeBudget <= 0 {
		cfg.JudgeBudget = 64 << 20
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 256
	}
	if cfg.Eventually <= 0 {
		cfg.Eventually = 5 * time.Second
	}
	if cfg.HistoryWindow <= 0 {
		cfg.HistoryWindow = 20000
	}
	if cfg.Examples <= 0 {
		cfg.Examples = 5
	}
	if cfg.LiveLimit <= 0 {
		cfg.LiveLimit = 20
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("proxy: --listen %q: %w", cfg.Listen, err)
	}
	if cfg.PlainHTTP && !loopback(host) {
		return nil, fmt.Errorf("proxy: --plain-http listens on a loopback address only (127.0.0.1, ::1, localhost), not %q: tokens must not cross a network in clear", host)
	}
	base, err := url.Parse(cfg.Target.BaseURL)
	if err != nil {
		return nil, err
	}
	hc, err := cfg.Target.HTTPClient()
	if err != nil {
		return nil, err
	}
	tr, ok := hc.Transport.(*http.Transport)
	if !ok {
		return nil, errors.New("proxy: unexpected transport")
	}
	tr = tr.Clone()
	tr.DisableCompression = true // pass Accept-Encoding and encoded bodies on as they are
	tr.MaxIdleConnsPerHost = 64

	p := &Proxy{cfg: cfg, base: base, tok: newTokens(cfg.Target.Secrets()), budget: &budget{limit: cfg.JudgeBudget},
		notJudged: map[string]int{}, printed: map[string]int{}, printedText: map[string]bool{}, done: make(chan struct{}),
		stopHist: make(chan struct{}), histDone: make(chan struct{})}
	p.t0 = time.Now()
	p.started = p.t0
	p.out = p.tok.redactor().Writer(cfg.Out)
	if p.judge, err = record.NewJudge(record.JudgeOptions{Profile: cfg.Profile, Eventually: cfg.Eventually, Started: p.t0,
		Redactors: p.tok.redactor, ResponseHeaders: true, ClientSide: true, Examples: cfg.Examples, HistoryWindow: cfg.HistoryWindow,
		Shared: true, UserIDs: record.UserIDs(cfg.Target)}); err != nil {
		return nil, err
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(base)
			// Forwarding headers the client sent go on as sent; the proxy
			// adds none of its own.
			for _, k := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if v, ok := pr.In.Header[k]; ok {
					pr.Out.Header[k] = v
				}
			}
		},
		Transport:      tr,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       nil,
	}

	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 1 << 20,
		ErrorLog: nil}
	scheme := "http"
	var caPEM []byte
	if !cfg.PlainHTTP {
		var cert tls.Certificate
		if cert, caPEM, err = localtls.SelfSigned("chatconform", "chatconform proxy", host); err != nil {
			return nil, err
		}
		p.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
		scheme = "https"
	}

	// Half the cores judge, so that forwarding always has one.
	n := max(1, runtime.GOMAXPROCS(0)/2)
	p.jobs = make(chan *job, 256)
	for range n {
		p.workers.Add(1)
		go p.worker()
	}
	go p.historyLoop()
	srv, err := localtls.Start(p.srv, localtls.Options{Addr: cfg.Listen, Plain: cfg.PlainHTTP,
		Wrap: func(ln net.Listener) net.Listener { return netutil.LimitListener(ln, cfg.MaxConns) }})
	if err != nil {
		p.stopJudges()
		return nil, fmt.Errorf("proxy: %w", err)
	}
	if caPEM != nil {
		if err := os.WriteFile(cfg.CAOut, caPEM, 0o644); err != nil {
			_ = srv.Close()
			p.stopJudges()
			return nil, fmt.Errorf("proxy: writing its CA certificate: %w", err)
		}
		p.caFile = cfg.CAOut
	}
	shown := host
	if shown == "" || net.ParseIP(shown) != nil && net.ParseIP(shown).IsUnspecified() {
		shown = "127.0.0.1"
	}
	p.url = scheme + "://" + net.JoinHostPort(shown, strconv.Itoa(srv.TCPAddr.Port))
	return p, nil
}

// stopJudges ends the judging workers and the history loop once nothing
// more is forwarded.
func (p *Proxy) stopJudges() {
	close(p.jobs)
	p.workers.Wait()
	close(p.stopHist)
	<-p.histDone
}

// URL is the proxy's base URL: clients use it in place of the target's.
func (p *Proxy) URL() string { return p.url }

// CAFile is the file holding the proxy's certificate ("" over plain HTTP).
func (p *Proxy) CAFile() string { return p.caFile }

// StopAfter makes Done close once n exchanges have been forwarded.
func (p *Proxy) StopAfter(n int) { atomic.StoreInt64(&p.limit, int64(n)) }

// Done is closed once the exchanges asked by StopAfter have been forwarded.
func (p *Proxy) Done() <-chan struct{} { return p.done }

// ServeHTTP forwards one exchange and queues it for judging.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := &state{start: time.Now()}
	j := &job{st: st, method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone()}
	j.tokenUser = p.tok.user(r)
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		j.req = newCapture(r.Body, p.cfg.MaxJudgedBody, p.budget)
		r.Body = j.req
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
	n := p.count.Add(1)
	p.submit(j)
	if l := atomic.LoadInt64(&p.limit); l > 0 && n >= l {
		p.doneOnce.Do(func() { close(p.done) })
	}
}

func (p *Proxy) modifyResponse(resp *http.Response) error {
	st, _ := resp.Request.Context().Value(stateKey{}).(*state)
	if st == nil {
		return nil
	}
	st.status, st.header = resp.StatusCode, resp.Header.Clone()
	st.resp = newCapture(resp.Body, p.cfg.MaxJudgedBody, p.budget)
	resp.Body = st.resp
	return nil
}

func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	if st, _ := r.Context().Value(stateKey{}).(*state); st != nil {
		st.err = err
	}
	w.WriteHeader(http.StatusBadGateway)
}

// submit hands a finished exchange to the judges; when they are behind,
// the handler judges it itself, which slows the client rather than let the
// queue grow.
func (p *Proxy) submit(j *job) {
	select {
	case p.jobs <- j:
	default:
		p.judgeOne(j)
	}
}

func (p *Proxy) worker() {
	defer p.workers.Done()
	for j := range p.jobs {
		p.judgeOne(j)
	}
}

// judgeOne judges one exchange and prints what it breaks.
func (p *Proxy) judgeOne(j *job) {
	st := j.st
	defer func() {
		if j.req != nil {
			j.req.release()
		}
		if st.resp != nil {
			st.resp.release()
		}
	}()
	red := p.tok.redactor()
	where := red.String(j.method + " " + j.path)
	if st.err != nil || st.resp == nil {
		p.unanswered.Add(1)
		p.say("chatconform proxy: %s: no answer from the target (%s); answered 502\n", where, red.String(errText(st.err)))
		return
	}
	var reqBody []byte
	var reqSize int64
	if j.req != nil {
		var dropped string
		reqBody, reqSize, dropped, _ = j.req.result()
		if dropped != "" {
			p.skip("request: " + dropped)
			return
		}
		if reqBody == nil {
			reqBody = []byte{}
		}
	}
	respBody, respSize, dropped, end := st.resp.result()
	if dropped != "" {
		p.skip("response: " + dropped)
		return
	}
	if ce := strings.ToLower(strings.TrimSpace(st.header.Get("Content-Encoding"))); ce != "" && ce != "identity" {
		if ce != "gzip" {
			p.skip("an answer encoded as " + ce + ", which the proxy does not decode")
			return
		}
		zr, err := gzip.NewReader(bytes.NewReader(respBody))
		if err != nil {
			p.skip("a gzip answer that does not decode")
			return
		}
		plain, err := io.ReadAll(io.LimitReader(zr, p.cfg.MaxJudgedBody+1))
		if err != nil || int64(len(plain)) > p.cfg.MaxJudgedBody {
			p.skip("a gzip answer that does not decode within --max-judged-body")
			return
		}
		respBody = plain
	}
	if respBody == nil {
		respBody = []byte{}
	}
	query := redactQuery(j.query, red)
	x := &record.Exchange{Start: st.start.Sub(p.t0), End: end.Sub(p.t0), User: j.tokenUser, Method: j.method,
		Path: red.String(j.path), Query: query, Status: st.status,
		RequestHeader: red.Header(j.header, true), ResponseHeader: red.Header(st.header, false),
		RequestBody: reqBody, ResponseBody: respBody, RequestSize: reqSize, ResponseSize: respSize,
		Reproduce: p.reproduce(j, reqBody, red)}
	if reqBody == nil {
		x.RequestBody = nil
	}
	x.Operation = p.operation(j.method, x.Path, x.Query)
	for _, f := range p.judge.Add(x) {
		p.live(f, red)
	}
}

// operation names the operation a request addresses, as the client does.
func (p *Proxy) operation(method, path, query string) string {
	u := "https://proxy.invalid" + path
	if query != "" {
		u += "?" + query
	}
	if req, err := http.NewRequest(method, u, nil); err == nil {
		if op := p.judge.Validator().OperationID(req); op != "" {
			return op
		}
	}
	return method + " " + path
}

func errText(err error) string {
	if err == nil {
		return "no answer"
	}
	return err.Error()
}

func (p *Proxy) skip(why string) {
	p.mu.Lock()
	p.notJudged[why]++
	p.mu.Unlock()
}

func (p *Proxy) say(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, format, args...)
	_ = p.out.Flush()
}

// live prints one finding, at most LiveLimit per requirement and side.
func (p *Proxy) live(f record.Finding, red *client.Redactor) {
	key := f.Requirement + " " + f.Whose
	p.mu.Lock()
	n := p.printed[key]
	p.printed[key] = n + 1
	p.mu.Unlock()
	switch {
	case n == p.cfg.LiveLimit:
		p.say("chatconform proxy: %s %s: more violations of it are counted, not printed\n", strings.ToUpper(f.Whose), f.Requirement)
		return
	case n > p.cfg.LiveLimit:
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chatconform proxy: %-6s %-24s", strings.ToUpper(f.Whose), f.Requirement)
	for i, x := range f.Exchanges {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s %s -> %d (%s)", x.Method, x.Path, x.Status, userName(x.User))
	}
	fmt.Fprintf(&b, ": %s\n", red.String(f.Text))
	p.say("%s", b.String())
}

func userName(i int) string {
	if i < 0 {
		return "no token"
	}
	return "user " + strconv.Itoa(i+1)
}

// historyLoop prints new contradictions every two seconds.
func (p *Proxy) historyLoop() {
	defer close(p.histDone)
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	last := int64(-1)
	for {
		select {
		case <-p.stopHist:
			p.printHistory()
			return
		case <-t.C:
			if n := p.count.Load(); n != last {
				last = n
				p.printHistory()
			}
		}
	}
}

func (p *Proxy) printHistory() {
	red := p.tok.redactor()
	for _, c := range p.judge.HistoryNow() {
		p.mu.Lock()
		seen := p.printedText[c.Text]
		if !seen && len(p.printedText) < 4096 {
			p.printedText[c.Text] = true
		}
		p.mu.Unlock()
		if seen {
			continue
		}
		f := record.Finding{Requirement: c.Requirement, Whose: record.Server, Source: record.History, Text: c.Text}
		for _, e := range c.Exchanges {
			f.Exchanges = append(f.Exchanges, record.Ref{Method: e.Method, Path: e.Path, Status: e.Status, User: e.User})
		}
		p.live(f, red)
	}
}

// Stop stops listening, waits for the exchanges in flight (up to grace),
// judges what is left and returns the session's report.
func (p *Proxy) Stop(grace time.Duration) *Report {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return nil
	}
	p.stopped = true
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil {
		_ = p.srv.Close()
	}
	p.stopJudges()
	return p.report()
}

// Stats says what the proxy holds.
type Stats struct {
	Exchanges  int64 // forwarded
	BudgetPeak int64 // most bytes held in copies at once
}

// Stats returns the proxy's counters.
func (p *Proxy) Stats() Stats {
	return Stats{Exchanges: p.count.Load(), BudgetPeak: p.budget.peak.Load()}
}

// tokens tells the users of a session apart by the tokens they present:
// the description's first, in order, then up to maxExtra others in the
// order they appear; every one of them is redacted from all output.
type tokens struct {
	mu    sync.Mutex
	fixed int
	index map[string]int
	list  []string
	red   atomic.Pointer[client.Redactor]
}

const maxExtra = 64

func newTokens(known []string) *tokens {
	t := &tokens{index: map[string]int{}}
	for _, k := range known {
		if _, ok := t.index[k]; !ok && k != "" {
			t.index[k] = len(t.list)
			t.list = append(t.list, k)
		}
	}
	t.fixed = len(t.list)
	t.red.Store(client.NewRedactor(t.list...))
	return t
}

func (t *tokens) redactor() *client.Redactor { return t.red.Load() }

// user returns the index of the user whose token r carries (learning a new
// token), or -1.
func (t *tokens) user(r *http.Request) int {
	var found []string
	if a := strings.TrimSpace(r.Header.Get("Authorization")); a != "" {
		if scheme, tok, ok := strings.Cut(a, " "); ok && strings.EqualFold(scheme, "Bearer") {
			found = append(found, strings.TrimSpace(tok))
		} else {
			found = append(found, a)
		}
	}
	if strings.Contains(r.URL.RawQuery, "access_token") {
		found = append(found, r.URL.Query()["access_token"]...)
	}
	for _, v := range r.Header.Values("X-Access-Token") {
		found = append(found, strings.TrimSpace(v))
	}
	user := -1
	t.mu.Lock()
	defer t.mu.Unlock()
	changed := false
	for _, tok := range found {
		if tok == "" {
			continue
		}
		i, ok := t.index[tok]
		if !ok {
			if len(t.list) < t.fixed+maxExtra {
				i = len(t.list)
				t.index[tok] = i
				t.list = append(t.list, tok)
				changed = true
			} else {
				i = -1
			}
		}
		if user < 0 {
			user = i
		}
	}
	if changed {
		t.red.Store(client.NewRedactor(t.list...))
	}
	return user
}

// redactQuery hides the access_token parameter and every known token.
func redactQuery(q string, red *client.Redactor) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(q, "&")
	for i, kv := range parts {
		if k, _, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, "access_token") {
			parts[i] = k + "=" + red.Marker()
		}
	}
	return red.String(strings.Join(parts, "&"))
}

// reproduce is a curl command that sends the request straight to the
// target, the description's tokens as their variables ($CHAT_TOKEN, ...).
func (p *Proxy) reproduce(j *job, body []byte, red *client.Redactor) string {
	const limit = 4 << 10
	mark := func(s string) string {
		if len(s) > limit {
			s = s[:limit] + "… [cut]"
		}
		for i, tok := range p.cfg.Target.Secrets() {
			if tok != "" {
				s = strings.ReplaceAll(s, tok, "\x00"+strconv.Itoa(i)+"\x00")
			}
		}
		return quote(red.String(s))
	}
	var b strings.Builder
	b.WriteString("curl -sS")
	switch {
	case p.cfg.Target.InsecureSkipVerify:
		b.WriteString(" -k")
	case p.cfg.Target.CAFile != "":
		b.WriteString(" --cacert " + quote(p.cfg.Target.CAFile))
	}
	b.WriteString(" -X " + j.method)
	var keys []string
	for k := range j.header {
		switch strings.ToLower(k) {
		case "content-length", "connection", "accept-encoding", "user-agent":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range j.header[k] {
			if strings.EqualFold(k, "Cookie") {
				v = red.CookieValues(v) // this command does not carry a session
			}
			b.WriteString(" -H " + mark(k+": "+v))
		}
	}
	if len(body) > 0 {
		b.WriteString(" --data " + mark(string(body)))
	}
	u := strings.TrimSuffix(p.cfg.Target.BaseURL, "/") + j.path
	if j.query != "" {
		u += "?" + j.query
	}
	b.WriteString(" " + mark(u))
	return b.String()
}

// quote single-quotes s for a shell; a token marked \x00i\x00 becomes the
// variable of user i+1, outside the quotes.
func quote(s string) string {
	s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i+1:], 0)
		if j < 0 {
			return s
		}
		n, _ := strconv.Atoi(s[i+1 : i+1+j])
		v := "CHAT_TOKEN"
		if n > 0 {
			v += "_" + strconv.Itoa(n+1)
		}
		s = s[:i] + `'"$` + v + `"'` + s[i+2+j:]
	}
}

// loopback reports whether host names only this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
