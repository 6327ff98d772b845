package proxy

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/report"
	"github.com/chatrooms/conformance/suites/target"
)

// syncBuffer is a bytes.Buffer safe for the proxy's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startBundled starts the reference server as a conformance run would.
func startBundled(t testing.TB) *target.Description {
	t.Helper()
	srv, err := bundled.Start(11, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Target
}

// startFaulty serves the reference server of seed 11 behind fault, over TLS
// on loopback.
func startFaulty(t testing.TB, fault func(http.Handler) http.Handler) *target.Description {
	t.Helper()
	world, err := fixtures.Generate(11)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(fault(reference.New(world, reference.Config{})))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "target-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	d := target.FromWorld(world, srv.URL)
	d.CAFile = ca
	return d
}

func startProxy(t testing.TB, d *target.Description, out io.Writer, mod func(*Config)) *Proxy {
	t.Helper()
	cfg := Config{Target: d, Profile: spec.Core, Listen: "127.0.0.1:0", CAOut: filepath.Join(t.TempDir(), "proxy-ca.pem"), Out: out, Version: "test"}
	if mod != nil {
		mod(&cfg)
	}
	p, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	return p
}

// sessionEnv is the environment of the session scripts.
func sessionEnv(p *Proxy, d *target.Description) []string {
	return append(os.Environ(), "PROXY="+p.URL(), "CA="+p.CAFile(), "NODE_EXTRA_CA_CERTS="+p.CAFile(),
		"TOKEN="+d.Users[0].Token, "TOKEN2="+d.Users[1].Token, "USER_ID="+d.Users[0].ID, "USER2_ID="+d.Users[1].ID, "ROOM="+d.WriteRoom, "ORG_ROOM="+d.Rooms.Org)
}

func runScript(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// noToken fails when any token of d shows in text.
func noToken(t *testing.T, d *target.Description, what, text string) {
	t.Helper()
	for _, u := range d.Users {
		if strings.Contains(text, u.Token) {
			t.Errorf("%s holds a token", what)
		}
	}
}

// writeReports writes the session's run report in every format, as
// chatconform proxy does, and returns the JSON, JUnit and HTML.
func writeReports(t *testing.T, p *Proxy, r *Report) (string, string, string) {
	t.Helper()
	dir := t.TempDir()
	j, x, h := filepath.Join(dir, "p.json"), filepath.Join(dir, "p.xml"), filepath.Join(dir, "p.html")
	if err := r.RunReport().WriteReports(p.tok.redactor(), x, j, h); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return read(j), read(x), read(h)
}

func TestCurlSessionAgainstTheReferenceIsClean(t *testing.T) {
	d := startBundled(t)
	var live syncBuffer
	p := startProxy(t, d, &live, nil)
	out := runScript(t, sessionEnv(p, d), "bash", "testdata/session.sh")
	r := p.Stop(5 * time.Second)
	var sum strings.Builder
	r.Print(&sum)
	if !r.Clean || r.Exchanges != 17 || r.Judged != 17 {
		t.Fatalf("a clean session: %d exchanges, %d judged\n%s\nlive:\n%s\ncurl:\n%s", r.Exchanges, r.Judged, sum.String(), live.String(), out)
	}
	if live.String() != "" {
		t.Errorf("live output of a clean session:\n%s", live.String())
	}
	j, x, h := writeReports(t, p, r)
	for what, text := range map[string]string{"the live output": live.String(), "the JSON report": j, "the JUnit report": x, "the HTML report": h} {
		noToken(t, d, what, text)
	}
	rep, err := report.Decode([]byte(j))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(x, `failures="0"`) || rep.ExitStatus != 0 || rep.Counts["FAIL"] != 0 || rep.Counts["PASS"] == 0 || rep.Proxy == nil ||
		rep.Proxy.Forwarded != 17 || len(rep.Proxy.Client) != 0 || !strings.Contains(h, "PASS, judged") {
		t.Errorf("reports of a clean session:\n%s\n%s", j, x)
	}
}

func TestNodeSessionAgainstTheReferenceIsClean(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	d := startBundled(t)
	var live syncBuffer
	p := startProxy(t, d, &live, nil)
	out := runScript(t, sessionEnv(p, d), "node", "testdata/session.mjs")
	r := p.Stop(5 * time.Second)
	if !r.Clean || r.Exchanges < 11 || r.Judged != r.Exchanges {
		var sum strings.Builder
		r.Print(&sum)
		t.Fatalf("node session:\n%s\nlive:\n%s\nnode:\n%s", sum.String(), live.String(), out)
	}
}

// plantFaults breaks four answers: GET /v1/user loses its Content-Type,
// a page of messages carries a text that is a number (or, asked with skip,
// lists a message twice), and the organisations list answers 500.
func plantFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/user":
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			w.Header()["Content-Type"] = nil // not sniffed either
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		case strings.HasSuffix(r.URL.Path, "/orgs"):
			http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
		case r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/chatMessages"):
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var page []map[string]any
			body := rec.Body.Bytes()
			if json.Unmarshal(body, &page) == nil && len(page) > 0 {
				if r.URL.Query().Has("skip") {
					page[len(page)-1] = page[0] // listed twice: for the history checker
				} else {
					page[0]["text"] = 42
				}
				body, _ = json.Marshal(page)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write(body)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func TestEachPlantedFaultAndClientErrorIsNamed(t *testing.T) {
	d := startFaulty(t, plantFaults)
	var live syncBuffer
	p := startProxy(t, d, &live, nil)
	runScript(t, sessionEnv(p, d), "bash", "testdata/faults.sh")
	r := p.Stop(5 * time.Second)
	var sum strings.Builder
	r.Print(&sum)
	want := map[string]string{ // requirement -> whose
		"HTTP-JSON-CONTENT-TYPE":   "server", // no Content-Type
		"MSG-SHAPE":                "server", // a text that is a number
		"ORG-LIST":                 "server", // 500
		"AUTH-BEARER":              "client", // no token
		"REQUEST-sendMessage":      "client", // text is not a string
		"REQUEST-listUserChannels": "client", // no such parameter
		"PAGE-UNIQUE":              "server", // a message twice in a page (history)
	}
	got := map[string]string{}
	for _, q := range r.Requirements {
		got[q.ID] = q.Whose
	}
	for id, whose := range want {
		if got[id] != whose {
			t.Errorf("%s: want the %s's violation, got %q", id, whose, got[id])
		}
		if !strings.Contains(live.String(), strings.ToUpper(whose)) || !strings.Contains(live.String(), id) {
			t.Errorf("live output does not name %s %s", whose, id)
		}
	}
	if len(got) != len(want) {
		t.Errorf("found %v, want exactly %v", got, want)
	}
	if r.Clean || r.ExitCode() != 1 {
		t.Error("a faulty session is clean")
	}
	j, x, h := writeReports(t, p, r)
	for what, text := range map[string]string{"the live output": live.String(), "the JSON report": j, "the JUnit report": x, "the HTML report": h, "the summary": sum.String()} {
		noToken(t, d, what, text)
	}
	// The run report: the server's breaches fail their requirements, the
	// client's are the proxy note's; JUnit fails the two judges and the
	// judge of the client's requests.
	rep, err := report.Decode([]byte(j))
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, q := range rep.Requirements {
		if q.Verdict == report.Fail {
			failed[q.ID] = "server"
		}
	}
	for _, c := range rep.Proxy.Client {
		failed[c.Requirement] = "client"
	}
	if rep.ExitStatus != 1 || len(failed) != len(want) || len(rep.Proxy.Client) != 3 {
		t.Errorf("the run report fails %v (exit %d), want %v", failed, rep.ExitStatus, want)
	}
	for id, whose := range want {
		if failed[id] != whose {
			t.Errorf("the run report: %s is the %s's, want the %s's", id, failed[id], whose)
		}
	}
	if !strings.Contains(x, `<testsuite name="chatconform proxy session (core)" tests="3" failures="3"`) {
		t.Errorf("JUnit report:\n%s", x)
	}
	t.Logf("live:\n%s\nsummary:\n%s", live.String(), sum.String())
}

// client returns an HTTP client that trusts the proxy.
func proxyClient(t testing.TB, p *Proxy) *http.Client {
	t.Helper()
	pemBytes, err := os.ReadFile(p.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableCompression: true, MaxIdleConnsPerHost: 8}}
}

func TestTheTrafficIsUnchanged(t *testing.T) {
	d := startBundled(t)
	p := startProxy(t, d, io.Discard, nil)
	direct, err := d.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	via := proxyClient(t, p)
	for _, path := range []string{"/v1/user", "/v1/rooms/" + d.WriteRoom + "/chatMessages?limit=30", "/v1/nowhere"} {
		get := func(c *http.Client, base string, gzipped bool) (int, http.Header, []byte) {
			req, _ := http.NewRequest("GET", base+path, nil)
			req.Header.Set("Authorization", "Bearer "+d.Users[0].Token)
			if gzipped {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, resp.Header, b
		}
		for _, gz := range []bool{false, true} {
			s1, h1, b1 := get(direct, d.BaseURL, gz)
			s2, h2, b2 := get(via, p.URL(), gz)
			if s1 != s2 || !bytes.Equal(b1, b2) {
				t.Errorf("%s (gzip %v): direct %d %d bytes, through the proxy %d %d bytes", path, gz, s1, len(b1), s2, len(b2))
			}
			for _, k := range []string{"Content-Type", "Content-Encoding", "Content-Length", "X-Ratelimit-Limit"} {
				if h1.Get(k) != h2.Get(k) {
					t.Errorf("%s (gzip %v): header %s %q direct, %q through the proxy", path, gz, k, h1.Get(k), h2.Get(k))
				}
			}
		}
	}
	r := p.Stop(5 * time.Second)
	// The gzip page is judged too (its copy is decoded); only the
	// undocumented path is the client's.
	if len(r.Requirements) != 1 || r.Requirements[0].ID != "NO-OPERATION" || r.Judged != r.Exchanges {
		var sum strings.Builder
		r.Print(&sum)
		t.Errorf("report:\n%s", sum.String())
	}
}

func TestStreamingAnswersAreNotHeldBack(t *testing.T) {
	second := make(chan struct{})
	d := startFaulty(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write([]byte(`[{"id":"a","username":"u","displayName":"U",`))
			w.(http.Flusher).Flush()
			<-second // the rest only once the client has the first part
			w.Write([]byte(`"url":"/u","avatarUrlSmall":"https://a/s","avatarUrlMedium":"https://a/m"}]`))
		})
	})
	p := startProxy(t, d, io.Discard, nil)
	req, _ := http.NewRequest("GET", p.URL()+"/v1/user", nil)
	req.Header.Set("Authorization", "Bearer "+d.Users[0].Token)
	resp, err := proxyClient(t, p).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 10)
	done := make(chan error, 1)
	go func() { _, err := io.ReadFull(resp.Body, buf); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		close(second)
		t.Fatal("the first part of a streamed answer was held back")
	}
	close(second)
	rest, _ := io.ReadAll(resp.Body)
	if !json.Valid(append(buf, rest...)) {
		t.Fatalf("streamed body: %s%s", buf, rest)
	}
	r := p.Stop(5 * time.Second)
	if r.Judged != 1 || !r.Clean {
		var sum strings.Builder
		r.Print(&sum)
		t.Errorf("the streamed answer is judged whole:\n%s", sum.String())
	}
}

func TestLargeBodiesAreForwardedButNotJudged(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 300<<10)
	d := startFaulty(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write([]byte(`"`))
			w.Write(big)
			w.Write([]byte(`"`))
		})
	})
	p := startProxy(t, d, io.Discard, func(c *Config) { c.MaxJudgedBody = 100 << 10 })
	req, _ := http.NewRequest("GET", p.URL()+"/v1/user", nil)
	req.Header.Set("Authorization", "Bearer "+d.Users[0].Token)
	resp, err := proxyClient(t, p).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(b) != len(big)+2 {
		t.Fatalf("forwarded %d bytes of %d", len(b), len(big)+2)
	}
	r := p.Stop(5 * time.Second)
	if r.Judged != 0 || r.NotJudged["response: "+dropTooLarge] != 1 || p.budget.used.Load() != 0 {
		t.Errorf("judged %d, not judged %v, budget held %d", r.Judged, r.NotJudged, p.budget.used.Load())
	}
}

func TestPlainHTTPOnLoopbackOnly(t *testing.T) {
	d := startBundled(t)
	if _, err := Start(Config{Target: d, Listen: "0.0.0.0:0", PlainHTTP: true}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("plain HTTP on every address: %v", err)
	}
	p := startProxy(t, d, io.Discard, func(c *Config) { c.PlainHTTP = true })
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") || p.CAFile() != "" {
		t.Fatalf("plain proxy at %s, CA %q", p.URL(), p.CAFile())
	}
	p.StopAfter(2)
	for range 2 {
		req, _ := http.NewRequest("GET", p.URL()+"/v1/user", nil)
		req.Header.Set("Authorization", "Bearer "+d.Users[0].Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after the requests asked for")
	}
	if r := p.Stop(5 * time.Second); !r.Clean || r.Exchanges != 2 {
		t.Errorf("report: %+v", r)
	}
}

// TestAClientsMalformedBodyIsTheClientsViolation: a body the operation does
// not take is reported with what the client did wrong, under a label for
// the operation's requests, never under the requirement (and statement) of
// the server's answer; the live line, the summary, the JSON and the HTML
// report say the same.
func TestAClientsMalformedBodyIsTheClientsViolation(t *testing.T) {
	d := startBundled(t)
	var live syncBuffer
	p := startProxy(t, d, &live, nil)
	req, err := http.NewRequest("POST", p.URL()+"/v1/rooms/"+d.WriteRoom+"/chatMessages", strings.NewReader(`{"txt":"hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.Users[0].Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := proxyClient(t, p).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	r := p.Stop(5 * time.Second)
	var sum strings.Builder
	r.Print(&sum)
	j, _, h := writeReports(t, p, r)

	const label = "REQUEST-sendMessage"
	const violation = "property \"text\" is missing"
	if len(r.Requirements) != 1 || r.Requirements[0].ID != label || r.Requirements[0].Whose != "client" {
		t.Fatalf("requirements %+v, want exactly the client's %s\nsummary:\n%s", r.Requirements, label, sum.String())
	}
	if statement := r.Requirements[0].Text; !strings.Contains(statement, "sendMessage request follows the document") {
		t.Errorf("the statement of %s is %q, not one a client follows", label, statement)
	}
	rep, err := report.Decode([]byte(j))
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]string{"the live line": live.String(), "the summary": sum.String(), "the HTML report": h}
	if rep.Proxy != nil && len(rep.Proxy.Client) == 1 && rep.Counts["FAIL"] == 0 {
		c := rep.Proxy.Client[0]
		shown["the JSON report"] = "client " + c.Requirement + ": " + c.Text + "\n" + c.Message
	} else {
		t.Errorf("JSON report:\n%s", j)
	}
	for what, text := range shown {
		text = strings.ReplaceAll(text, "&#34;", `"`) // HTML escapes the quotes
		if !strings.Contains(strings.ToLower(text), "client") || !strings.Contains(text, label) || !strings.Contains(text, "sendMessage request") || !strings.Contains(text, violation) {
			t.Errorf("%s does not say the client broke %s with %s:\n%s", what, label, violation, text)
		}
		if what == "the HTML report" { // it lists every requirement, with its verdict
			if !strings.Contains(text, `<td class="id">MSG-SEND-200<`) || strings.Contains(text, `<td class="o FAIL">FAIL</td><td class="id">MSG-SEND-200<`) {
				t.Errorf("%s fails MSG-SEND-200 (or leaves it out):\n%s", what, text)
			}
			continue
		}
		if strings.Contains(text, "MSG-SEND-200") || strings.Contains(text, "Sending a message answers status 200") {
			t.Errorf("%s files the client's body under the server's requirement:\n%s", what, text)
		}
	}
	for _, q := range rep.Requirements {
		for _, c := range q.Checks {
			if strings.Contains(c.Message, violation) {
				t.Errorf("the JSON report files the client's body under the server's %s:\n%s", q.ID, c.Message)
			}
		}
	}
}

func TestDefaultListenAddress(t *testing.T) {
	if DefaultListen != "127.0.0.1:9443" {
		t.Errorf("DefaultListen is %s, want 127.0.0.1:9443 (chatref's default is 127.0.0.1:8443)", DefaultListen)
	}
}

// A client's session cookie goes through the proxy, but not into the curl
// command of its exchange: the value is a credential.
func TestReproduceDoesNotCarryASession(t *testing.T) {
	d := &target.Description{BaseURL: "https://chat.example", Users: []target.User{{Token: "tok-one-0123456789"}}}
	p := &Proxy{cfg: Config{Target: d}}
	red := client.NewRedactor(d.Secrets()...)
	j := &job{method: "GET", path: "/v1/user", header: http.Header{
		"Authorization": {"Bearer tok-one-0123456789"}, "Cookie": {"sid=s3ss10n; lang=en"}}}
	got := p.reproduce(j, nil, red)
	if strings.Contains(got, "s3ss10n") || strings.Contains(got, "tok-one") || !strings.Contains(got, "sid=REDACTED") {
		t.Errorf("reproduce %s", got)
	}
}
