package target

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadAndCheck(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	ca := writeCA(t, srv, dir)
	file := filepath.Join(dir, "t.yaml")
	good := "base_url: https://chat.example.com/api\nca_file: ca.pem\nusers:\n  - token: t1\n    private_repos_granted: true\n  - token: t2\nrooms:\n  org: o1\nwrite_room: w\n"
	if err := os.WriteFile(file, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if d.CAFile != ca || d.MountPath() != "/api" || d.Users[0].Name != "user1" || *d.Users[0].PrivateReposGranted != true || d.Rooms.Org != "o1" {
		t.Errorf("%+v", d)
	}
	// JSON is YAML.
	if _, err := Parse([]byte(`{"base_url":"https://x","users":[{"token":"t"}]}`)); err != nil {
		t.Error(err)
	}
}

func TestBadDescriptionsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ yaml, key string }{
		{"base_url: https://x\nuser:\n  - token: t\n", "user"},
		{"base_url: https://x\nusers:\n  - token: t\n    tokn: u\n", "tokn"},
		{"users:\n  - token: t\n", "base_url"},
		{"base_url: http://x\nusers:\n  - token: t\n", "base_url"},
		{"base_url: https://x/v1\nusers:\n  - token: t\n", "base_url"},
		{"base_url: https://x\n", "users"},
		{"base_url: https://x\nusers:\n  - name: a\n", "users[0].token"},
		{"base_url: https://x\nca_file: /nonexistent/ca.pem\nusers:\n  - token: t\n", "ca_file"},
	} {
		d, err := Parse([]byte(tc.yaml))
		if err == nil {
			err = d.Check()
		}
		var te *Error
		if !errors.As(err, &te) || te.Key != tc.key {
			t.Errorf("%q: error %v, want one about %s", tc.yaml, err, tc.key)
		}
	}
}

func TestFlagBeatsEnvBeatsFile(t *testing.T) {
	d, _ := Parse([]byte("base_url: https://file\nusers:\n  - token: file1\n    id: abc\n"))
	env := FromEnv(func(k string) string {
		return map[string]string{"CHAT_BASE_URL": "https://env", "CHAT_TOKEN": "env1", "CHAT_TOKEN_2": "env2"}[k]
	})
	d.Apply(env)
	d.Apply(Overrides{BaseURL: "https://flag"})
	if d.BaseURL != "https://flag" || len(d.Users) != 2 || d.Users[0].Token != "env1" || d.Users[0].ID != "" || d.Users[1].Token != "env2" {
		t.Errorf("%+v", d)
	}
	if !strings.HasPrefix(d.BaseURL, "https://") {
		t.Fail()
	}
}

// An error names the value the way the user gave it: the flag, the
// environment variable or the key of the file, and a token by its place.
func TestErrorsNameWhereTheValueCameFrom(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(file, []byte("base_url: http://file\nusers:\n  - token: file1\n  - token: file2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(vars map[string]string) Overrides { return FromEnv(func(k string) string { return vars[k] }) }
	for _, tc := range []struct {
		name  string
		file  bool
		over  []Overrides
		key   string
		where string
	}{
		{"file", true, nil, "base_url", "base_url in " + file},
		{"flag", false, []Overrides{{BaseURL: "http://flag", Tokens: []string{"t"}}}, "base_url", "--base-url"},
		{"env", true, []Overrides{env(map[string]string{"CHAT_BASE_URL": "https://env/v1"})}, "base_url", "CHAT_BASE_URL"},
		{"flag over env", false, []Overrides{env(map[string]string{"CHAT_BASE_URL": "http://env", "CHAT_TOKEN": "e"}), {BaseURL: "http://flag"}}, "base_url", "--base-url"},
		{"no token", false, []Overrides{{BaseURL: "https://flag"}}, "users", "no token"},
		{"flag ca", false, []Overrides{{BaseURL: "https://flag", Tokens: []string{"t"}, CAFile: filepath.Join(dir, "none.pem")}}, "ca_file", "--ca-file"},
	} {
		d := &Description{}
		if tc.file {
			var err error
			if d, err = Load(file); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range tc.over {
			d.Apply(o)
		}
		err := d.Check()
		var te *Error
		if !errors.As(err, &te) || te.Key != tc.key || !strings.HasPrefix(err.Error(), tc.where+": ") || strings.Contains(err.Error(), "target description:") {
			t.Errorf("%s: %v, want it about %s said as %q", tc.name, err, tc.key, tc.where)
		}
	}
	d, _ := Load(file)
	d.Apply(env(map[string]string{"CHAT_TOKEN": "e1", "CHAT_TOKEN_2": "e2"}))
	d.Apply(Overrides{Tokens: []string{"f1"}})
	for i, want := range []string{"the first token (--token #1)", "the second token (CHAT_TOKEN_2)"} {
		if got := d.Where(fmt.Sprintf("users[%d].token", i)); got != want {
			t.Errorf("token %d: %q, want %q", i+1, got, want)
		}
	}
	d, _ = Load(file)
	if got := d.Where("users[1].token"); got != "the second token (users[1].token in "+file+")" {
		t.Errorf("file token: %q", got)
	}
}

// A variable that is set but empty is an error naming it, never "not set":
// an empty CI secret must not turn a run against a server into a run
// against the bundled reference, or a run with fewer users.
func TestEmptyVariablesAreErrors(t *testing.T) {
	for _, name := range []string{"CHAT_BASE_URL", "CHAT_TOKEN", "CHAT_TOKEN_2", "CHAT_CA_FILE", "CHAT_INSECURE_SKIP_VERIFY", "CHAT_HIDE_ROOM", "CHAT_USER_ID_2", "CHAT_PRIVATE_REPOS_GRANTED"} {
		env := map[string]string{"CHAT_BASE_URL": "https://x", "CHAT_TOKEN": "t1", "CHAT_TOKEN_2": "t2"}
		env[name] = ""
		o := FromLookupEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		d := &Description{}
		d.Apply(o)
		err := d.Check()
		var de *Error
		if !errors.As(err, &de) || de.Key != name || !strings.HasPrefix(err.Error(), name+": set but empty") {
			t.Errorf("%s empty: %v", name, err)
		}
	}
	got := EnvNames(func(k string) (string, bool) { return "", k == "CHAT_BASE_URL" || k == "CHAT_TOKEN_3" })
	if strings.Join(got, " ") != "CHAT_BASE_URL CHAT_TOKEN_3" {
		t.Errorf("EnvNames: %v", got)
	}
}

// Every key of a description can be given by a flag and by a variable,
// named by one rule; the environment beats the file, and names a user's
// key by the user's number.
func TestEverySettingFromTheEnvironment(t *testing.T) {
	env := map[string]string{
		"CHAT_BASE_URL": "https://env", "CHAT_TOKEN": "t1", "CHAT_TOKEN_2": "t2", "CHAT_USER_NAME": "alice", "CHAT_USER_ID_2": "id2",
		"CHAT_USERNAME": "al", "CHAT_PRIVATE_REPOS_GRANTED": "true", "CHAT_PRIVATE_REPOS_GRANTED_2": "0", "CHAT_ROOMS_ORG": "o", "CHAT_ROOMS_REPO": "r",
		"CHAT_ROOMS_CHANNEL": "c", "CHAT_ROOMS_ONE_TO_ONE": "1", "CHAT_WRITE_ROOM": "w", "CHAT_HIDE_ROOM": "h", "CHAT_INSECURE_SKIP_VERIFY": "1",
	}
	d, _ := Parse([]byte("base_url: https://file\nusers:\n  - token: f1\n    id: fid1\nhide_room: fh\n"))
	d.Apply(FromLookupEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }))
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	u1, u2 := d.Users[0], d.Users[1]
	if d.BaseURL != "https://env" || u1.Token != "t1" || u1.ID != "" || u1.Name != "alice" || u1.Username != "al" || !*u1.PrivateReposGranted ||
		u2.Token != "t2" || u2.ID != "id2" || *u2.PrivateReposGranted || d.Rooms != (RoomHints{Org: "o", Repo: "r", Channel: "c", OneToOne: "1"}) ||
		d.WriteRoom != "w" || d.HideRoom != "h" || !d.InsecureSkipVerify {
		t.Errorf("%+v %+v %+v", d, u1, u2)
	}
	if got := d.Where("users[1].id"); got != "users[1].id (CHAT_USER_ID_2)" {
		t.Errorf("Where: %q", got)
	}
	// A user's key for a user without a token says which variable named it.
	d = &Description{}
	d.Apply(FromLookupEnv(func(k string) (string, bool) {
		v, ok := map[string]string{"CHAT_BASE_URL": "https://x", "CHAT_TOKEN": "t1", "CHAT_USER_ID_2": "u2"}[k]
		return v, ok
	}))
	if err := d.Check(); err == nil || !strings.Contains(err.Error(), "CHAT_USER_ID_2 names user 2, who has no token (give it with CHAT_TOKEN_2") {
		t.Errorf("user without a token: %v", err)
	}
	// The README documents every setting with its flag and variable.
	for _, s := range Settings() {
		for _, name := range []string{s.Flag, s.Env} {
			if !strings.HasPrefix(name, "--") && !strings.HasPrefix(name, "CHAT_") {
				t.Errorf("%s: %q", s.Key, name)
			}
		}
	}
}

// A token with a line end (a paste, a CI secret written with echo) or any
// other character a header value cannot carry is a description error naming
// where the token came from, never the token, before anything is sent.
func TestTokenAHeaderCannotCarryIsADescriptionError(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(file, []byte("base_url: https://file\nusers:\n  - token: zq9file1\n  - token: \"zq9file2\\n\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(vars map[string]string) Overrides {
		return FromLookupEnv(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	}
	for _, tc := range []struct {
		name  string
		file  bool
		over  []Overrides
		key   string
		where string
	}{
		{"file", true, nil, "users[1].token", "the second token (users[1].token in " + file + ")"},
		{"env CR LF", false, []Overrides{env(map[string]string{"CHAT_BASE_URL": "https://x", "CHAT_TOKEN": "zq9env1\r\n"})}, "users[0].token", "the first token (CHAT_TOKEN)"},
		{"env 2", false, []Overrides{env(map[string]string{"CHAT_BASE_URL": "https://x", "CHAT_TOKEN": "zq9env1", "CHAT_TOKEN_2": "zq9env2\n"})}, "users[1].token", "the second token (CHAT_TOKEN_2)"},
		{"flag", false, []Overrides{{BaseURL: "https://x", Tokens: []string{"zq9flag1\r"}}}, "users[0].token", "the first token (--token #1)"},
		{"flag control", false, []Overrides{{BaseURL: "https://x", Tokens: []string{"zq9flag1", "zq9\x00flag2"}}}, "users[1].token", "the second token (--token #2)"},
		{"DEL", false, []Overrides{{BaseURL: "https://x", Tokens: []string{"zq9\x7fflag1"}}}, "users[0].token", "the first token (--token #1)"},
	} {
		d := &Description{}
		if tc.file {
			var err error
			if d, err = Load(file); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range tc.over {
			d.Apply(o)
		}
		err := d.Check()
		var te *Error
		if !errors.As(err, &te) || te.Key != tc.key || !strings.HasPrefix(err.Error(), tc.where+": ") {
			t.Errorf("%s: %v, want an error about %s said as %q", tc.name, err, tc.key, tc.where)
			continue
		}
		if strings.Contains(err.Error(), "zq9") {
			t.Errorf("%s: the error prints the token: %v", tc.name, err)
		}
	}
	// What a header carries is still fine: spaces inside, non-ASCII bytes.
	d := &Description{}
	d.Apply(Overrides{BaseURL: "https://x", Tokens: []string{"a b", "tökén"}})
	if err := d.Check(); err != nil {
		t.Errorf("valid header values: %v", err)
	}
}
