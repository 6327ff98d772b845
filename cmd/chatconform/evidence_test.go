package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/attest"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/conformance"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/record/recordtest"
	reportpkg "github.com/chatrooms/conformance/suites/report"
	"github.com/chatrooms/conformance/suites/runner"
	"github.com/chatrooms/conformance/suites/target"
)

// writeTarget writes a description of d into dir.
func writeTarget(t *testing.T, dir string, d *target.Description) string {
	t.Helper()
	raw, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRecordCmdReplayReproducesTheRunAndVerifyCatchesEdits records a whole
// run against the reference server with two planted faults (a field of the
// wrong type, a message listed twice in a page), replays the record, checks
// its verdicts against the run's own report, and signs and verifies the run.
func TestRecordCmdReplayReproducesTheRunAndVerifyCatchesEdits(t *testing.T) {
	d := recordtest.StartReference(t, recordtest.Faults)
	dir := t.TempDir()
	desc := writeTarget(t, dir, d)
	path := func(name string) string { return filepath.Join(dir, name) }
	if code, out := chatconform(t, "keygen", "--key", path("key.pem"), "--pub", path("pub.pem")); code != 0 {
		t.Fatalf("keygen: exit %d\n%s", code, out)
	}
	code, out := chatconform(t, "--target", desc, "--profile", "reference", "--seed", "5", "--record", path("run.jsonl"),
		"--attest", path("att.json"), "--key", path("key.pem"), "--json", path("report.json"))
	if code != 1 || !strings.Contains(out, "record of ") || !strings.Contains(out, "attestation of the run signed") {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	raw, err := os.ReadFile(path("run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range d.Users {
		if bytes.Contains(raw, []byte(u.Token)) {
			t.Fatal("the record holds a token")
		}
	}

	// Replay: the same verdicts as recorded, and the faults found.
	code, out = chatconform(t, "replay", path("run.jsonl"), "--json", path("replay.json"))
	if code != 1 || !strings.Contains(out, "the same verdicts as the run recorded") {
		t.Fatalf("replay: exit %d\n%s", code, out)
	}
	var rep runner.Result
	if b, err := os.ReadFile(path("report.json")); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report: %v", err)
	}
	r, err := record.ReplayFile(path("run.jsonl"), version())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Same() {
		t.Fatalf("replayed in process: %v", r.Differences)
	}
	replayed := map[string]bool{} // requirement+source -> broken by the server
	for _, f := range r.Verdicts.Failures {
		if f.Whose == record.Server {
			replayed[f.Requirement+" "+f.Source] = true
		}
	}
	if !replayed["UNREAD-READBY document"] || !replayed["PAGE-UNIQUE history"] {
		t.Fatalf("replay misses a planted fault: %v\n%s", replayed, out)
	}
	// History: the run's history checker and the replay's agree on every
	// requirement.
	compared, docs := 0, 0
	for _, q := range rep.Requirements {
		for _, c := range q.Checks {
			if c.Name != runner.HistoryCheck {
				continue
			}
			compared++
			if run, again := c.Outcome == runner.Fail, replayed[q.ID+" history"]; run != again {
				t.Errorf("%s: the run's history checker says %s, the replay FAIL=%v", q.ID, c.Outcome, again)
			}
		}
	}
	// Document: every requirement an answer the run kept broke (the run
	// keeps the last exchanges only) is broken in the replay too, but those
	// the record cannot judge (the answers' headers).
	for _, x := range rep.Exchanges {
		for _, v := range x.Violations {
			id := conformance.Blame(x.Operation, v)
			if v.Side != "response" || id == "" || r.Verdicts.Unsupported[id] != "" {
				continue
			}
			docs++
			if !replayed[id+" document"] {
				t.Errorf("the run found %s broken (%s); the replay does not", id, v)
			}
		}
	}

	if compared < 10 || docs == 0 {
		t.Fatalf("compared %d history verdicts and %d violations of the run", compared, docs)
	}
	t.Logf("compared %d history verdicts and %d violations the run kept", compared, docs)

	// Verify: the signed run holds, and no edit passes. The run does not
	// judge every requirement, which verify refuses unless told; a
	// verdict its replay of the checks does not reach is accepted too.
	code, out = chatconform(t, "verify", path("att.json"), "--key", path("pub.pem"), "--record", path("run.jsonl"), "--accept-signed", "--min-judged", "0")
	if code != 0 || !strings.Contains(out, "OK: the signature holds, the record is the one signed") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	att, _ := os.ReadFile(path("att.json"))
	flip := func(name string, orig []byte, at int) {
		bad := bytes.Clone(orig)
		bad[at] ^= 0x01
		if err := os.WriteFile(path(name), bad, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	flip("att-edited.json", att, len(att)/2)
	if code, out := chatconform(t, "verify", path("att-edited.json"), "--key", path("pub.pem"), "--record", path("run.jsonl")); code != 1 || !strings.Contains(out, "REJECTED") {
		t.Errorf("an edited attestation: exit %d\n%s", code, out)
	}
	flip("run-edited.jsonl", raw, len(raw)/3)
	if code, out := chatconform(t, "verify", path("att.json"), "--key", path("pub.pem"), "--record", path("run-edited.jsonl")); code != 1 || !strings.Contains(out, "sha256") {
		t.Errorf("an edited record: exit %d\n%s", code, out)
	}
	// One verdict flipped and signed again with the same key.
	st, err := attest.NewStatement(mustRead(t, path("report.json")), path("run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range st.Predicate.Requirements {
		if q.ID == "PAGE-UNIQUE" {
			if q.Verdict != "FAIL" {
				t.Fatalf("the run's PAGE-UNIQUE is %s", q.Verdict)
			}
			st.Predicate.Requirements[i].Verdict = "PASS"
		}
	}
	env, err := attest.Sign(context.Background(), st, mustRead(t, path("key.pem")))
	if err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(path("att-flipped.json"), append(env, '\n'), 0o600)
	if code, out := chatconform(t, "verify", path("att-flipped.json"), "--key", path("pub.pem"), "--record", path("run.jsonl")); code != 1 || !strings.Contains(out, "PAGE-UNIQUE broken by the server") {
		t.Errorf("a flipped verdict: exit %d\n%s", code, out)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRecordCmdFlags(t *testing.T) {
	dir := t.TempDir()
	key, pub, _ := attest.GenerateKey()
	_ = os.WriteFile(filepath.Join(dir, "key.pem"), key, 0o600)
	_ = os.WriteFile(filepath.Join(dir, "pub.pem"), pub, 0o600)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--attest", "a.json"}, 2, "--attest needs --record"},
		{[]string{"--record", "r.jsonl", "--key", filepath.Join(dir, "key.pem")}, 2, "--key signs --attest"},
		{[]string{"--record", "r.jsonl", "--attest", "a.json", "--key", filepath.Join(dir, "pub.pem")}, 2, "a public key"},
		{[]string{"--record", filepath.Join(dir, "none", "r.jsonl")}, 2, "cannot write in"},
		{[]string{"replay"}, 2, "name one record file"},
		{[]string{"replay", filepath.Join(dir, "pub.pem")}, 2, "chatconform replay"},
		{[]string{"verify", "a.json"}, 2, "--key PUBLIC.pem"},
		{[]string{"keygen", "--key", filepath.Join(dir, "key.pem"), "--pub", filepath.Join(dir, "p2.pem")}, 2, "exists"},
		{[]string{"proxy"}, 2, "name the server to forward to"},
		{[]string{"proxy", "--base-url", "https://127.0.0.1:1", "--token", "tok-proxy", "--plain-http", "--listen", "0.0.0.0:0"}, 2, "loopback"},
	} {
		var out, errw bytes.Buffer
		code := run(context.Background(), tc.args, noEnv, &out, &errw)
		if code != tc.code || !strings.Contains(errw.String()+out.String(), tc.says) {
			t.Errorf("%v: exit %d (want %d), output %q (want %q)", tc.args, code, tc.code, errw.String()+out.String(), tc.says)
		}
	}
}

// TestProxyCmdJudgesCurlTraffic runs `chatconform proxy` as a child in
// front of the bundled reference server, sends it curl requests, and
// reads what it says and writes.
func TestProxyCmdJudgesCurlTraffic(t *testing.T) {
	srv, err := bundled.Start(3, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := srv.Target
	dir := t.TempDir()
	desc := writeTarget(t, dir, d)
	ca, report := filepath.Join(dir, "proxy-ca.pem"), filepath.Join(dir, "proxy.json")
	cmd := exec.Command(os.Args[0], "proxy", "--target", desc, "--listen", "127.0.0.1:0", "--ca-out", ca, "--requests", "3",
		"--json", report, "--junit", filepath.Join(dir, "proxy.xml"), "--html", filepath.Join(dir, "proxy.html"), "--max-time", "2m")
	cmd.Env = childEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	var all strings.Builder
	url := ""
	for url == "" && lines.Scan() {
		all.WriteString(lines.Text() + "\n")
		if u, _, ok := strings.Cut(lines.Text(), " forwards to "); ok {
			url = strings.TrimPrefix(u, "chatconform proxy: ")
		}
	}
	if url == "" {
		t.Fatalf("no URL printed:\n%s\n%s", all.String(), stderr.String())
	}
	curl := func(args ...string) {
		out, err := exec.Command("curl", append([]string{"-sS", "--cacert", ca}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("curl %v: %v %s", args, err, out)
		}
	}
	tok := "Authorization: Bearer " + d.Users[0].Token
	curl("-H", tok, url+"/v1/user")
	curl("-H", tok, url+"/v1/user/"+d.Users[0].ID+"/rooms")
	curl(url + "/v1/user") // no token: the client's violation
	for lines.Scan() {     // the rest, up to the end of the output
		all.WriteString(lines.Text() + "\n")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the proxy did not stop after --requests 3")
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, all.String(), stderr.String())
	}
	text := all.String()
	for _, want := range []string{"its certificate (its own CA) is in " + ca, "CLIENT AUTH-BEARER", "stopped: 3 exchanges forwarded (--requests)",
		"3 exchanges forwarded, 3 judged", "0 requirements broken by the server, 1 by the client"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// The JSON is a run report: the server broke nothing, the client one
	// requirement, which makes the session exit 1.
	r, err := reportpkg.Read(report)
	if err != nil || r.Proxy == nil || r.Proxy.Forwarded != 3 || len(r.Proxy.Client) != 1 || r.Proxy.Client[0].Requirement != "AUTH-BEARER" ||
		r.Counts["FAIL"] != 0 || r.Counts["PASS"] == 0 || r.ExitStatus != 1 {
		t.Errorf("report: %v %+v", err, r)
	}
	for _, f := range []string{report, filepath.Join(dir, "proxy.xml"), filepath.Join(dir, "proxy.html")} {
		if bytes.Contains(mustRead(t, f), []byte(d.Users[0].Token)) {
			t.Errorf("%s holds a token", f)
		}
	}
	if strings.Contains(text, d.Users[0].Token) {
		t.Error("the output holds a token")
	}
}
