package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/target"
)

// Starts the real program on :0, reads the description it wrote, and talks
// to it over TLS trusting only the CA it wrote.
func TestRunServesTLSAndWritesAUsableTarget(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "target.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	var stdout, stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--seed", "3", "--target-out", out, "--log-level", "warn"},
			func(string) string { return "" }, &stdout, &stderr, options{ready: func(u string) { ready <- u }})
	}()
	var url string
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("run ended early: %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}
	d, err := target.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if d.BaseURL != url || len(d.Users) < 5 || d.WriteRoom == "" || d.HideRoom == "" || !strings.HasSuffix(d.CAFile, "target-ca.pem") {
		t.Fatalf("description %+v (url %s)", d, url)
	}
	ca, err := os.ReadFile(d.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("CA file holds no certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest("GET", d.BaseURL+"/v1/user", nil)
	req.Header.Set("Authorization", "Bearer "+d.Users[1].Token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var users []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&users); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(users) != 1 || users[0]["id"] != d.Users[1].ID {
		t.Errorf("GET /v1/user as user 2: %v", users)
	}
	if !strings.Contains(stdout.String(), url) {
		t.Errorf("the URL is not printed: %q", stdout.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no graceful shutdown")
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--seed", "0"}, {"--tls-cert", "x.pem"}, {"--rate-limit", "-1"}, {"extra"}, {"--log-level", "loud"},
		{"--shape", "users=9"}, {"--shape", "users=2,repo=12:1", "--shape-file", "s.txt"}, {"--shape-file", "/nonexistent/shape"}} {
		var out, errw bytes.Buffer
		err := run(context.Background(), args, func(string) string { return "" }, &out, &errw, options{})
		if err == nil {
			t.Errorf("%v accepted", args)
		}
		// main prints the error once; run itself prints nothing of it.
		if errw.Len() > 0 || out.Len() > 0 {
			t.Errorf("%v: run printed %q %q besides returning %v", args, out.String(), errw.String(), err)
		}
	}
}

// The limits the help text states are the server's.
func TestUsageStatesTheServerLimits(t *testing.T) {
	for _, want := range []string{
		"within " + reference.ReadHeaderTimeout.String(), "whole request within " + reference.ReadTimeout.String(),
		"read within " + reference.WriteTimeout.String(), "close after " + reference.IdleTimeout.String(),
		fmt.Sprintf("at most %d connections", reference.MaxConnections), fmt.Sprintf("%d HTTP/2 streams", reference.MaxConcurrentStreams),
		fmt.Sprintf("newest %d,%03d messages", reference.MaxRoomMessages/1000, reference.MaxRoomMessages%1000),
		fmt.Sprintf("%d MiB of text", reference.MaxRoomText>>20),
	} {
		if !strings.Contains(strings.Join(strings.Fields(usage), " "), want) {
			t.Errorf("usage does not say %q", want)
		}
	}
}

// Without --target-out the user is told how to get the tokens and the CA.
func TestWithoutTargetOutSaysHowToGetOne(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--seed", "3", "--log-level", "warn"},
			func(string) string { return "" }, &stdout, &stderr, options{ready: func(string) { cancel() }})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("server did not start")
	}
	if !strings.Contains(stdout.String(), "--target-out FILE") {
		t.Errorf("stdout %q", stdout.String())
	}
}

// --help prints the usage, whose curl example trusts the CA the example
// before it writes.
func TestHelpPrintsTheUsage(t *testing.T) {
	var out, errw bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, &errw, options{}); err == nil || !strings.Contains(errw.String(), "--target-out target.yaml") || !strings.Contains(errw.String(), "-rate-limit") {
		t.Errorf("%v: %q", err, errw.String())
	}
	lines := strings.Split(usage, "\n")
	for i, l := range lines {
		if strings.Contains(l, "curl --cacert target-ca.pem") && !strings.Contains(strings.Join(lines[max(0, i-4):i], "\n"), "chatref --target-out target.yaml") {
			t.Errorf("the curl example does not follow the example that writes target-ca.pem:\n%s", usage)
		}
	}
}

// A shape from a file (with comments) makes the world the description
// describes: as many users as the shape has, the flagged rooms named, no
// room hint the shape cannot give.
func TestShapeFileMakesTheDescribedWorld(t *testing.T) {
	dir := t.TempDir()
	shape := filepath.Join(dir, "shape.txt")
	text := "# two users and a channel to write in\nusers=2, granted=2\nchan=12:3 # shared\none=12:0h\nrepo=2:1p\n"
	if err := os.WriteFile(shape, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--shape-file", shape, "--target-out", out, "--log-level", "warn"},
			func(string) string { return "" }, &stdout, &stderr, options{ready: func(string) { cancel() }})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}
	d, err := target.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	granted := func(u int) string {
		if d.Users[u].PrivateReposGranted == nil {
			return "nil"
		}
		return fmt.Sprint(*d.Users[u].PrivateReposGranted)
	}
	if len(d.Users) != 2 || d.WriteRoom == "" || d.HideRoom == "" || d.HideRoom != d.Rooms.OneToOne || d.Rooms.Channel != d.WriteRoom ||
		d.Rooms.Org != "" || d.Rooms.Repo != "" || granted(0) != "false" || granted(1) != "true" {
		t.Errorf("description %+v, granted %s %s", d, granted(0), granted(1))
	}
	if !strings.Contains(stdout.String(), "world shape users=2,granted=2,repo=2:1p,one=12:0h,chan=12:3") {
		t.Errorf("stdout %q", stdout.String())
	}
}
