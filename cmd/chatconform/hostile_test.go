package main

import (
	"bufio"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/runner"
	"github.com/chatrooms/conformance/suites/target"
)

// serveTLS serves h over HTTPS on a loopback port and returns a target
// description for it naming tokens, with the server's certificate as CA.
func serveTLS(t *testing.T, h http.Handler, tokens ...string) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.StartTLS()
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &target.Description{BaseURL: srv.URL, CAFile: ca}
	for i, tok := range tokens {
		d.Users = append(d.Users, target.User{Name: fmt.Sprintf("user%d", i+1), Token: tok})
	}
	raw, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	desc := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(desc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return desc
}

// outputs is what one chatconform run produced.
type outputs struct {
	code                     int
	console                  string // stdout and stderr
	junit, json, html        string
	report                   runner.Result
	jsonPath, junitPath, dir string
}

// runWithReports runs chatconform in a child process asking for every
// report, and reads them all.
func runWithReports(t *testing.T, args ...string) outputs {
	t.Helper()
	dir := t.TempDir()
	o := outputs{dir: dir, jsonPath: filepath.Join(dir, "report.json"), junitPath: filepath.Join(dir, "junit.xml")}
	html := filepath.Join(dir, "report.html")
	o.code, o.console = chatconform(t, append(args, "--junit", o.junitPath, "--json", o.jsonPath, "--html", html)...)
	for path, dst := range map[string]*string{o.junitPath: &o.junit, o.jsonPath: &o.json, html: &o.html} {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("exit %d wrote no %s: %v\n%s", o.code, filepath.Base(path), err, o.console)
		}
		*dst = string(raw)
	}
	if o.json != "" {
		if err := json.Unmarshal([]byte(o.json), &o.report); err != nil {
			t.Errorf("json report: %v", err)
		}
	}
	return o
}

func (o outputs) all() map[string]string {
	return map[string]string{"console": o.console, "junit": o.junit, "json": o.json, "html": o.html}
}

// checkRows counts the checks of the JSON report per outcome (a check
// listed under several requirements counts once).
func (o outputs) checkRows() map[string]int {
	n := map[string]int{}
	seen := map[string]bool{}
	for _, q := range o.report.Requirements {
		for _, c := range q.Checks {
			if !seen[c.Name] {
				seen[c.Name] = true
				n[c.Outcome.String()]++
			}
		}
	}
	return n
}

// forms are the ways an output can carry a token: raw, and escaped for
// HTML, URLs and JSON (with and without HTML-safe escapes), and JSON of the
// HTML-escaped form.
func forms(tok string) []string {
	jsonOf := func(s string, htmlSafe bool) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(htmlSafe)
		_ = enc.Encode(s)
		out := strings.TrimSpace(b.String())
		return out[1 : len(out)-1]
	}
	return []string{tok, html.EscapeString(tok), url.QueryEscape(tok), url.PathEscape(tok),
		jsonOf(tok, true), jsonOf(tok, false), jsonOf(html.EscapeString(tok), true)}
}

// echo answers every request with every token of the run in every form,
// in its body, its headers and its error messages; GET /v1/user answers
// the token's own user (so the run gets past preflight), with the tokens
// in the display name.
func echo(tokens []string) http.Handler {
	var all []string
	for _, tok := range tokens {
		all = append(all, forms(tok)...)
	}
	joined := strings.Join(all, " | ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i, f := range all {
			w.Header().Add(fmt.Sprintf("X-Echo-%d", i), f)
		}
		w.Header().Set("X-Seen-Authorization", r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		user := -1
		for i, tok := range tokens {
			if r.Header.Get("Authorization") == "Bearer "+tok || r.URL.Query().Get("access_token") == tok {
				user = i
			}
		}
		body, _ := json.Marshal(map[string]any{"error": "bad token " + joined, "seen": r.URL.String(), "auth": r.Header.Get("Authorization")})
		switch {
		case user < 0:
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Path == "/v1/user":
			body, _ = json.Marshal([]map[string]any{{"id": fmt.Sprintf("u%d", user+1), "username": fmt.Sprintf("user%d", user+1),
				"displayName": joined, "url": "/" + tokens[user], "avatarUrlSmall": "https://a.example/" + url.PathEscape(tokens[user]),
				"avatarUrlMedium": "https://a.example/m"}})
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusInternalServerError)
		case strings.HasSuffix(r.URL.Path, "/rooms"):
			body, _ = json.Marshal([]map[string]any{{"id": "r1", "name": joined, "topic": tokens[user], "oneToOne": false, "platformType": "REPO", "url": "/" + tokens[user]}})
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
		_, _ = w.Write(body)
	})
}

// A server that echoes every token back in every form, with tokens holding
// & < > + " and a space, and a token of three characters: no output of the
// run holds any token in any form.
func TestEchoingServerLeaksNoTokenInAnyOutput(t *testing.T) {
	tokens := []string{`a&b<c>"d+e'f`, "x+y z%/=?", "Q7z"}
	desc := serveTLS(t, echo(tokens), tokens...)
	o := runWithReports(t, "--target", desc, "--seed", "5", "--timeout", "5s")
	if o.code != 1 || !strings.Contains(o.console, "checks (") {
		t.Fatalf("exit %d; the run did not get to the checks:\n%s", o.code, o.console)
	}
	if o.checkRows()["FAIL"] == 0 {
		t.Errorf("the echoing server failed no check: %v", o.checkRows())
	}
	outputs := o.all()
	_, outputs["console -v"] = chatconform(t, "--target", desc, "--seed", "5", "--timeout", "5s", "-v")
	if !strings.Contains(outputs["console -v"], "Ran ") {
		t.Error("-v did not print Ginkgo's report")
	}
	for name, text := range outputs {
		for _, tok := range tokens {
			for _, f := range forms(tok) {
				if i := strings.Index(text, f); i >= 0 {
					t.Errorf("%s holds token %q as %q: …%s…", name, tok, f, text[max(0, i-80):min(len(text), i+len(f)+40)])
				}
			}
		}
	}
	for name, text := range outputs {
		if !strings.Contains(text, "REDACTED") {
			t.Errorf("%s shows no redacted echo: the test did not exercise redaction there", name)
		}
	}
	if !strings.Contains(o.json, "$CHAT_TOKEN") {
		t.Error("no reproduce command names the token variable")
	}
}

// stopsAnswering answers preflight and discovery, then, from the first
// request of a check on, answers nothing at all until the client gives up.
func stopsAnswering(stop <-chan struct{}) http.Handler {
	var dead atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setup := r.Method == http.MethodGet && (r.URL.Path == "/v1/user" || strings.HasSuffix(r.URL.Path, "/rooms") || strings.HasSuffix(r.URL.Path, "/channels"))
		if !setup || dead.Load() {
			dead.Store(true)
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			// Never an answer: returning would send an empty 200, which the
			// document checker rightly reads as a wrong answer.
			panic(http.ErrAbortHandler)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if r.URL.Path == "/v1/user" {
			id := "u1"
			if r.Header.Get("Authorization") == "Bearer tok-two" || r.URL.Query().Get("access_token") == "tok-two" {
				id = "u2"
			}
			// Each user a url of its own: one url naming two users breaks
			// USER-STABLE, and this server breaks nothing but its answering.
			fmt.Fprintf(w, `[{"id":%q,"username":%q,"displayName":"d","url":"/%s","avatarUrlSmall":"https://a.example/s","avatarUrlMedium":"https://a.example/m"}]`, id, id, id)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/channels") {
			fmt.Fprint(w, `[]`) // every answer it gives is right: the document checker reads them all
			return
		}
		fmt.Fprint(w, `[{"id":"r1","name":"o/r","oneToOne":false,"platformType":"REPO","url":"/o/r"}]`)
	})
}

// A target that stops answering mid-run ends the run promptly with exit 3:
// the checks that could not run are NOT RUN, not failures, and every report
// is written.
func TestTargetThatStopsAnsweringEndsTheRun(t *testing.T) {
	stop := make(chan struct{})
	desc := serveTLS(t, stopsAnswering(stop), "tok-one", "tok-two")
	t.Cleanup(func() { close(stop) }) // runs before the server's cleanup
	o := runWithReports(t, "--target", desc, "--seed", "9", "--timeout", "2s")
	rows := o.checkRows()
	if o.code != 3 || !strings.Contains(o.console, "stopped answering") {
		t.Fatalf("exit %d\n%s", o.code, o.console)
	}
	t.Logf("%s", o.console)
	if rows["FAIL"]+rows["BLOCKED"] > 0 || rows["NOT RUN"] < 40 || rows["ERROR"] > 3 {
		t.Errorf("check rows %v: want NOT RUN for the checks that could not run, no failures", rows)
	}
	if o.report.Halted == "" || o.report.ExitStatus != 3 {
		t.Errorf("report: halted %q, exit %d", o.report.Halted, o.report.ExitStatus)
	}
	if !strings.Contains(o.junit, "NOT RUN: not run: the target stopped answering") {
		t.Error("junit does not say why the checks did not run")
	}
}

func userAnswers(status int, contentType, body string, refuse string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse != "" && (r.Header.Get("Authorization") == "Bearer "+refuse || r.URL.Query().Get("access_token") == refuse) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	})
}

// Before any check, every token is tried: a server that answers its own
// API wrongly is a target failure (exit 1) on the requirement it breaks,
// with that one FAIL row; a refused token is a description error naming
// the user (exit 2), an unreachable target exits 3, both with no check
// rows; each writes its reports with one sentence.
func TestPreflight(t *testing.T) {
	user := `[{"id":"u1","username":"a","displayName":"a","url":"/a","avatarUrlSmall":"https://a.example/s","avatarUrlMedium":"https://a.example/m"}]`
	for _, tc := range []struct {
		name  string
		desc  string
		code  int
		says  string
		fails string // the requirement the preflight fails, for a target failure
	}{
		{"500 html", serveTLS(t, userAnswers(500, "text/html", "<h1>oops</h1>", ""), "tok-one"), 1, "answers its own API wrongly", "USER-GET-ARRAY"},
		{"invalid json", serveTLS(t, userAnswers(200, "application/json", "[{", ""), "tok-one"), 1, "answers its own API wrongly", "HTTP-JSON-BODY"},
		{"refused token", serveTLS(t, userAnswers(200, "application/json; charset=utf-8", user, "tok-two"), "tok-one", "tok-two"), 2, "users[1].token", ""},
		{"unreachable", writeDesc(t, "base_url: https://127.0.0.1:1\nusers:\n  - token: tok-one\n"), 3, "could not be reached", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := runWithReports(t, "--target", tc.desc, "--seed", "3", "--timeout", "3s")
			if o.code != tc.code || !strings.Contains(o.console, tc.says) {
				t.Fatalf("exit %d (want %d), output lacks %q:\n%s", o.code, tc.code, tc.says, o.console)
			}
			rows := o.checkRows()
			switch {
			case tc.fails != "":
				if len(rows) != 1 || rows["FAIL"] != 1 || !strings.Contains(o.console, "FAIL         "+tc.fails) {
					t.Errorf("want one FAIL row on %s; check rows %v; console:\n%s", tc.fails, rows, o.console)
				}
			case len(rows) != 0 || strings.Count(o.console, "\n") > 6:
				t.Errorf("check rows %v; console:\n%s", rows, o.console)
			}
			if !strings.Contains(o.report.Halted, tc.says) || !strings.Contains(o.junit, tc.says) || !strings.Contains(o.html, "stopped early") {
				t.Errorf("reports do not say why: halted %q\n%s", o.report.Halted, o.junit)
			}
		})
	}
}

func writeDesc(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A description error found after the flags are read still writes the
// reports asked for.
func TestDescriptionErrorWritesReports(t *testing.T) {
	o := runWithReports(t, "--target", writeDesc(t, "base_url: https://127.0.0.1:1\nusers: []\n"))
	if o.code != 2 || !strings.Contains(o.report.Halted, "users") {
		t.Errorf("exit %d, halted %q\n%s", o.code, o.report.Halted, o.console)
	}
}

// --max-time ends a slow run: the checks not started are NOT RUN with the
// reason, the run exits 3 and writes every report.
func TestMaxTimeEndsTheRun(t *testing.T) {
	o := runWithReports(t, "--seed", "4", "--rate", "10/s", "--max-time", "15s")
	rows := o.checkRows()
	if o.code != 3 || !strings.Contains(o.report.Halted, "out of time") {
		t.Fatalf("exit %d, halted %q\n%s", o.code, o.report.Halted, o.console)
	}
	if rows["NOT RUN"] == 0 || rows["FAIL"]+rows["BLOCKED"] > 0 {
		t.Errorf("check rows %v", rows)
	}
	if !strings.Contains(o.json, "not run: out of time") {
		t.Error("the JSON report does not say why checks did not run")
	}
}

// SIGINT in the middle of a run: the run stops, the checks not run say
// they were interrupted, every report is written, exit 3.
func TestInterruptWritesReports(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	cmd := exec.Command(os.Args[0], "--seed", "6", "--rate", "25/s", "-v", "--json", report, "--junit", filepath.Join(dir, "j.xml"))
	cmd.Env = childEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var seen strings.Builder
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "•") { // Ginkgo (-v) reports the first check done
			_ = cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit %v\n%s", err, seen.String())
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var res runner.Result
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Halted, "interrupted") || !strings.Contains(string(raw), "not run: ") || strings.Contains(string(raw), `"outcome": "FAIL"`) {
		t.Errorf("halted %q; report:\n%.2000s", res.Halted, raw)
	}
}

// A core run of the bundled reference with a rate limit low enough to be
// hit: the 429 answers make checks INCONCLUSIVE at worst, never FAIL.
func TestRateLimitedReferenceHasNoFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out rate-limit windows")
	}
	srv, err := bundled.Start(8, reference.Config{RateLimit: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	raw, err := srv.Target.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	desc := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(desc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	o := runWithReports(t, "--target", desc, "--profile", "core", "--seed", "8", "--label-filter", "MSG-SEND-200 || PAGE-BEFOREID-WALK || ROOM-LIST || UNREAD-CHAT", "--check-timeout", "40s")
	rows := o.checkRows()
	t.Logf("exit %d, check rows %v, %d requests, %d answers 429", o.code, rows, o.report.Requests, o.report.RateLimited)
	if rows["FAIL"]+rows["BLOCKED"]+rows["ERROR"] > 0 || o.code == 1 {
		t.Errorf("rate limiting made checks fail:\n%s", o.console)
	}
	if o.report.RateLimited == 0 {
		t.Errorf("the rate limit was never hit: %v", rows)
	}
}
