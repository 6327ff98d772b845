package target

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// hostile serves GET /v1/user by token: each token picks how the server
// (mis)behaves, and every answer quotes the token it got.
func hostile(w http.ResponseWriter, r *http.Request) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if q := r.URL.Query().Get("access_token"); q != "" {
		tok = q
	}
	w.Header().Set("Content-Type", "application/json")
	user := func(id string) {
		_ = json.NewEncoder(w).Encode([]map[string]string{{"id": id, "username": "u-" + id}})
	}
	if r.URL.Path != "/v1/user" {
		w.WriteHeader(500)
		fmt.Fprintf(w, `{"error":"rooms broken for %s"}`, tok)
		return
	}
	switch {
	case strings.HasPrefix(tok, "good"):
		user(strings.TrimPrefix(tok, "good"))
	case strings.HasPrefix(tok, "refused"):
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":"token %s is unknown"}`, tok)
	case strings.HasPrefix(tok, "forbidden"):
		w.WriteHeader(403)
		fmt.Fprintf(w, `{"error":"Forbidden"}`)
	case strings.HasPrefix(tok, "crash"):
		w.WriteHeader(500)
		fmt.Fprintf(w, `{"error":"panic handling token %s"}`, tok)
	case strings.HasPrefix(tok, "html"):
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body>Welcome %s</body></html>", html.EscapeString(tok))
	case strings.HasPrefix(tok, "garbled"):
		fmt.Fprintf(w, `[{"id": "x", `)
	case strings.HasPrefix(tok, "numid"): // the wrong type, still usable
		fmt.Fprintf(w, `[{"id": %s, "username": "u-%s"}]`, strings.TrimPrefix(tok, "numid-"), strings.TrimPrefix(tok, "numid-"))
	case strings.HasPrefix(tok, "object"):
		fmt.Fprintf(w, `{"id":"x","username":"y"}`)
	case strings.HasPrefix(tok, "queryonly"):
		if r.URL.Query().Get("access_token") == "" {
			w.WriteHeader(401)
			return
		}
		user("q1")
	case strings.HasPrefix(tok, "same"): // every token of this kind is one user
		user("s1")
	case strings.HasPrefix(tok, "hdrsame"): // one user in the header, the token's own in the query
		if r.URL.Query().Get("access_token") == "" {
			user("h1")
			return
		}
		user(strings.TrimPrefix(tok, "hdrsame"))
	case strings.HasPrefix(tok, "busy"):
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(429)
	default:
		w.WriteHeader(404)
	}
}

func newTestClient(t *testing.T, srv *httptest.Server, d *Description) *client.Client {
	t.Helper()
	v, err := spec.MustLoad(spec.Core).NewValidator(d.MountPath())
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: d.BaseURL, HTTP: srv.Client(), Validator: v, Secrets: d.Secrets(), Timeout: 5 * time.Second, MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPreflightTellsTheDescriptionFromTheServer(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(hostile))
	defer srv.Close()
	type want struct {
		desc   []string // keys of the *Error values, in order
		server string   // key of the *ServerError
	}
	for _, tc := range []struct {
		tokens []string
		ids    []string
		want   want
	}{
		{tokens: []string{"good1", "good2"}},
		{tokens: []string{"good1", "refused-2"}, want: want{desc: []string{"users[1].token"}}},
		{tokens: []string{"refused-1", "forbidden-2"}, want: want{desc: []string{"users[0].token", "users[1].token"}}},
		{tokens: []string{"good1", "good2"}, ids: []string{"1", "3"}, want: want{desc: []string{"users[1].id"}}}, // no described user is 2: a description for another server
		{tokens: []string{"good1", "good2"}, ids: []string{"7", "8"}, want: want{desc: []string{"users[0].id", "users[1].id"}}},
		{tokens: []string{"good1", "good2"}, ids: []string{"2", "1"}}, // the server mixes described users up: left to the AUTH-CURRENT-USER check
		{tokens: []string{"queryonly-1"}},
		{tokens: []string{"numid-17"}}, // an id written as a number: the document checker's to report; the run goes on
		{tokens: []string{"good1", "crash-2"}, want: want{server: "users[1]"}},
		{tokens: []string{"html-1"}, want: want{server: "users[0]"}},
		{tokens: []string{"garbled-1"}, want: want{server: "users[0]"}},
		{tokens: []string{"object-1"}, want: want{server: "users[0]"}},
		{tokens: []string{"unknown-1"}, want: want{server: "users[0]"}},
	} {
		d := &Description{BaseURL: srv.URL}
		for i, tok := range tc.tokens {
			u := User{Token: tok}
			if i < len(tc.ids) {
				u.ID = tc.ids[i]
			}
			d.Users = append(d.Users, u)
		}
		c := newTestClient(t, srv, d)
		err := d.Preflight(context.Background(), c)
		name := strings.Join(tc.tokens, ",")
		var se *ServerError
		switch {
		case tc.want.server != "":
			if !errors.As(err, &se) || se.Key != tc.want.server {
				t.Errorf("%s: want a server error about %s, got %v", name, tc.want.server, err)
			}
			var de *Error
			if errors.As(err, &de) {
				t.Errorf("%s: a server fault blamed on the description: %v", name, err)
			}
		case len(tc.want.desc) > 0:
			var keys []string
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					var de *Error
					if errors.As(e, &de) {
						keys = append(keys, de.Key)
					}
				}
			}
			if strings.Join(keys, " ") != strings.Join(tc.want.desc, " ") {
				t.Errorf("%s: want description errors about %v, got %v", name, tc.want.desc, err)
			}
		default:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if d.Users[0].ID == "" || d.Users[0].Username == "" {
				t.Errorf("%s: ids not filled in: %+v", name, d.Users)
			}
		}
		if err != nil {
			for _, tok := range tc.tokens {
				if strings.Contains(err.Error(), tok) || strings.Contains(err.Error(), html.EscapeString(tok)) {
					t.Errorf("%s: the error quotes a token: %v", name, err)
				}
			}
		}
	}
}

func TestPreflightSaysWhatCameBack(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(hostile))
	defer srv.Close()
	d := &Description{BaseURL: srv.URL, Users: []User{{Token: "good1"}, {Token: "refused-2"}}}
	err := d.Preflight(context.Background(), newTestClient(t, srv, d))
	if err == nil || !strings.HasPrefix(err.Error(), "the second token (users[1].token): the server answered 401 to GET /v1/user") {
		t.Errorf("%v", err)
	}
}

func TestPreflightUnreachableAndRefusing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := httptest.NewTLSServer(http.HandlerFunc(hostile))
	defer srv.Close()
	d := &Description{BaseURL: "https://" + addr, Users: []User{{Token: "good1"}}}
	err = d.Discover(context.Background(), newTestClient(t, srv, d))
	var te *client.TransportError
	if !errors.As(err, &te) || te.Kind != client.KindConnect {
		t.Errorf("unreachable: %v", err)
	}
	d = &Description{BaseURL: srv.URL, Users: []User{{Token: "busy-1"}}}
	err = d.Discover(context.Background(), newTestClient(t, srv, d))
	var ue *client.UnavailableError
	if !errors.As(err, &ue) {
		t.Errorf("rate limited: %v", err)
	}
}

func TestDiscoverSurvivesBrokenRoomLists(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(hostile))
	defer srv.Close()
	d := &Description{BaseURL: srv.URL, Users: []User{{Token: "good1"}, {Token: "good2"}}}
	if err := d.Discover(context.Background(), newTestClient(t, srv, d)); err != nil {
		t.Fatal(err)
	}
	if d.Users[1].ID != "2" || d.Users[1].Username != "u-2" || d.WriteRoom != "" || d.Rooms.Org != "" {
		t.Errorf("%+v", d)
	}
}

// writeCA writes srv's certificate as a PEM file in dir and returns its name.
func writeCA(t *testing.T, srv *httptest.Server, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCAFileFromTheEnvironmentIsTrusted(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(hostile))
	defer srv.Close()
	dir := t.TempDir()
	writeCA(t, srv, dir)
	t.Chdir(dir) // a relative path from the environment is relative to the working directory
	env := map[string]string{"CHAT_BASE_URL": srv.URL, "CHAT_TOKEN": "good1", "CHAT_CA_FILE": "ca.pem"}
	d := &Description{}
	d.Apply(FromEnv(func(k string) string { return env[k] }))
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if d.CAFile != filepath.Join(dir, "ca.pem") {
		t.Errorf("ca_file %q", d.CAFile)
	}
	hc, err := d.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(srv.URL + "/v1/user")
	if err != nil {
		t.Fatalf("with the CA: %v", err)
	}
	resp.Body.Close()
	// Without it the certificate is refused.
	bare, _ := (&Description{BaseURL: srv.URL}).HTTPClient()
	if _, err := bare.Get(srv.URL + "/v1/user"); err == nil {
		t.Error("an unknown CA was trusted")
	}
	// Redirects are answers, not followed.
	if hc.CheckRedirect == nil || hc.CheckRedirect(nil, nil) != http.ErrUseLastResponse {
		t.Error("redirects must not be followed")
	}
}

func TestInsecureSkipVerifyOverrides(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(hostile))
	defer srv.Close()
	for _, tc := range []struct {
		env     string
		flag    bool
		want    bool
		wantErr bool
	}{
		{"", false, false, false},
		{"1", false, true, false},
		{"true", false, true, false},
		{"0", true, true, false},
		{"maybe", false, false, true},
	} {
		d := &Description{BaseURL: srv.URL, Users: []User{{Token: "good1"}}}
		d.Apply(FromEnv(func(k string) string {
			if k == "CHAT_INSECURE_SKIP_VERIFY" {
				return tc.env
			}
			return ""
		}))
		d.Apply(Overrides{InsecureSkipVerify: tc.flag})
		err := d.Check()
		var de *Error
		if tc.wantErr != (errors.As(err, &de) && de.Key == "CHAT_INSECURE_SKIP_VERIFY") || d.InsecureSkipVerify != tc.want {
			t.Errorf("env %q flag %v: insecure %v, err %v", tc.env, tc.flag, d.InsecureSkipVerify, err)
		}
		if tc.want {
			hc, _ := d.HTTPClient()
			resp, err := hc.Get(srv.URL + "/v1/user")
			if err != nil {
				t.Errorf("insecure client: %v", err)
			} else {
				resp.Body.Close()
			}
		}
	}
}

func TestCAFileMustHoldACertificate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := &Description{BaseURL: "https://x", Users: []User{{Token: "t"}}}
	d.Apply(Overrides{CAFile: p})
	var de *Error
	if err := d.Check(); !errors.As(err, &de) || de.Key != "ca_file" {
		t.Errorf("%v", err)
	}
}

// A description copied from another server (chatref --target-out, say)
// gives ids and usernames the target does not know: a description error
// naming the key, not nine failures of a healthy server.
func TestPreflightRefusesIDsOfAnotherServer(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(hostile))
	defer srv.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "t.yaml")
	body := "base_url: " + srv.URL + "\nusers:\n  - token: good1\n    id: 5f1a00000000000000000001\n    username: alice\n  - token: good2\n    username: bob\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	err = d.Preflight(context.Background(), newTestClient(t, srv, d))
	for _, want := range []string{"users[0].id in " + file + `: "5f1a00000000000000000001", but GET /v1/user with user 1's token answers id "1"`,
		"users[1].username in " + file + `: "bob", but GET /v1/user with user 2's token answers username "u-2"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
	var de *Error
	if !errors.As(err, &de) {
		t.Errorf("not a description error: %v", err)
	}
	// Given by a flag, the error names the flag too.
	d = &Description{BaseURL: srv.URL}
	d.Apply(Overrides{Tokens: []string{"good1"}, IDs: []string{"9"}})
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	err = d.Preflight(context.Background(), newTestClient(t, srv, d))
	if err == nil || !strings.HasPrefix(err.Error(), `users[0].id (--user-id #1): "9", but`) {
		t.Errorf("flag: %v", err)
	}
}

// Two described users whom GET /v1/user answers as one user cannot both
// be acted as: the preflight passes (a server that mixes its users up is
// the server's fault) and says which user is confused with an earlier
// one, and whose breach that is: the header's, when the access_token
// parameter tells them apart.
func TestPreflightTellsUsersApart(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(hostile))
	defer srv.Close()
	for _, tc := range []struct {
		tokens []string
		want   map[int]string
	}{
		{[]string{"good1", "good2", "good3"}, nil},
		{[]string{"sameA", "sameB", "good3"}, map[int]string{1: "AUTH-CURRENT-USER"}},
		{[]string{"good1", "sameA", "sameB", "sameC"}, map[int]string{2: "AUTH-CURRENT-USER", 3: "AUTH-CURRENT-USER"}},
		{[]string{"hdrsame1", "hdrsame2"}, map[int]string{1: "AUTH-BEARER"}},
	} {
		d := &Description{BaseURL: srv.URL}
		for _, tok := range tc.tokens {
			d.Users = append(d.Users, User{Token: tok})
		}
		if err := d.Preflight(context.Background(), newTestClient(t, srv, d)); err != nil {
			t.Fatalf("%v: %v", tc.tokens, err)
		}
		for u := range d.Users {
			c, ok := d.Confused(u)
			if want, confused := tc.want[u]; ok != confused || c.Requirement != want {
				t.Errorf("%v: user %d confused %v (%q: %s), want %v (%q)", tc.tokens, u+1, ok, c.Requirement, c.Text, confused, want)
			}
		}
	}
}
