// Package target loads the description of a server under test: where it is,
// how to trust it, whose tokens to use and which rooms to use for what. The
// format is a contract (the README's "Checking your own server"): chatref
// writes it, chatconform reads it, and users write it by hand for their own
// servers; every key can also be given by a flag or an environment variable
// (Settings).
package target

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/chatrooms/conformance/suites/client"
)

// Description is a target description. YAML and JSON are both accepted.
type Description struct {
	BaseURL            string    `yaml:"base_url" json:"base_url"`
	CAFile             string    `yaml:"ca_file,omitempty" json:"ca_file,omitempty"`
	InsecureSkipVerify bool      `yaml:"insecure_skip_verify,omitempty" json:"insecure_skip_verify,omitempty"`
	Users              []User    `yaml:"users" json:"users"`
	Rooms              RoomHints `yaml:"rooms,omitempty" json:"rooms,omitempty"`
	WriteRoom          string    `yaml:"write_room,omitempty" json:"write_room,omitempty"`
	HideRoom           string    `yaml:"hide_room,omitempty" json:"hide_room,omitempty"`
	// Discovered names the room hints Discover filled in (org, repo,
	// channel, one_to_one, write_room): checks must not treat a room found
	// in a list as evidence about that same list.
	Discovered map[string]bool `yaml:"-" json:"-"`

	overrideErr error             // a variable FromEnv could not read; Check reports it
	preflighted bool              // every token was tried (see Preflight)
	confused    map[int]Confusion // users the preflight could not tell apart from an earlier one
	file        string            // the file Load read ("" when none)
	from        map[string]string // key -> the flag or variable that set it
}

// User is one account on the target. Only Token is required; ID and
// Username are discovered when left out.
type User struct {
	Name                string `yaml:"name,omitempty" json:"name,omitempty"`
	Token               string `yaml:"token" json:"token"`
	ID                  string `yaml:"id,omitempty" json:"id,omitempty"`
	Username            string `yaml:"username,omitempty" json:"username,omitempty"`
	PrivateReposGranted *bool  `yaml:"private_repos_granted,omitempty" json:"private_repos_granted,omitempty"`
}

// RoomHints names a room of each kind for user 1; each is discovered from
// the rooms list when left out.
type RoomHints struct {
	Org      string `yaml:"org,omitempty" json:"org,omitempty"`
	Repo     string `yaml:"repo,omitempty" json:"repo,omitempty"`
	Channel  string `yaml:"channel,omitempty" json:"channel,omitempty"`
	OneToOne string `yaml:"one_to_one,omitempty" json:"one_to_one,omitempty"`
}

// Error is a problem with a description; Key names the offending key as
// the file spells it. Where, when set, names the value the way the user
// gave it ("--base-url", "the second token (CHAT_TOKEN_2)"), and the
// message says that instead of the key.
type Error struct {
	Key    string
	Reason string
	Where  string
}

func (e *Error) Error() string {
	switch {
	case e.Where != "":
		return e.Where + ": " + e.Reason
	case e.Key == "":
		return "target description: " + e.Reason
	}
	return fmt.Sprintf("target description: %s: %s", e.Key, e.Reason)
}

// Where names key (base_url, ca_file, insecure_skip_verify,
// users[i].token) the way the user gave it: the flag or environment
// variable that set it, or the key in the file Load read ("" when neither
// is known, for a description built in code). Tokens are named by their
// place too: "the second token (--token #2)".
func (d *Description) Where(key string) string {
	src := d.from[key]
	if src == "" && d.file != "" {
		src = key + " in " + d.file
	}
	if i, rest, ok := userKey(key); ok {
		switch {
		case rest == "token" && src == "":
			return ordinal(i) + " token (" + key + ")"
		case rest == "token":
			return ordinal(i) + " token (" + src + ")"
		case d.from[key] != "":
			return key + " (" + src + ")"
		}
	}
	return src
}

// ordinal is "the first", "the second", ... for index i.
func ordinal(i int) string {
	words := []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
	if i >= 0 && i < len(words) {
		return "the " + words[i]
	}
	return fmt.Sprintf("the #%d", i+1)
}

// errorf is an *Error about key, named as the user gave it.
func (d *Description) errorf(key, format string, args ...any) *Error {
	return &Error{Key: key, Where: d.Where(key), Reason: fmt.Sprintf(format, args...)}
}

// Load reads a description file. Unknown keys are errors, so a typo cannot
// silently turn a check off. A relative ca_file is resolved against the
// file's directory.
func Load(path string) (*Description, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Reason: err.Error()}
	}
	d, err := Parse(raw)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Where == "" {
			e.Where = "target description " + path
			if e.Key != "" {
				e.Where += ": " + e.Key
			}
		}
		return nil, err
	}
	d.file = path
	if d.CAFile != "" && !filepath.IsAbs(d.CAFile) {
		d.CAFile = filepath.Join(filepath.Dir(path), d.CAFile)
	}
	return d, nil
}

// Parse decodes a description without checking it; see Check.
func Parse(raw []byte) (*Description, error) {
	var d Description
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		if errors.Is(err, io.EOF) { // an empty file: Check reports what is missing
			return &d, nil
		}
		if key := keyOf(err.Error()); key != "" {
			return nil, &Error{Key: key, Reason: "unknown key (" + lineOf(err.Error()) + "); a typo here would silently turn checks off, so it is refused"}
		}
		return nil, &Error{Reason: err.Error()}
	}
	return &d, nil
}

// lineOf pulls "line N" out of a yaml.v3 error.
func lineOf(msg string) string {
	if i := strings.Index(msg, "line "); i >= 0 {
		rest := msg[i:]
		if j := strings.Index(rest, ":"); j >= 0 {
			return rest[:j]
		}
	}
	return "unknown line"
}

// keyOf pulls the key out of yaml.v3's "field x not found in type ..." error.
func keyOf(msg string) string {
	if i := strings.Index(msg, "field "); i >= 0 {
		rest := msg[i+len("field "):]
		if j := strings.Index(rest, " not found"); j >= 0 {
			return rest[:j]
		}
	}
	return ""
}

// Overrides are values from flags or the environment that stand in for, or
// beat, the file. Empty (false, nil) values leave the description alone.
//
// Every key of a description can be given this way. The names follow one
// rule (see Names): a flag is the key with _ and . written as -, an
// environment variable is CHAT_ and the key in capitals with . written as _;
// a key of a user (users[i].token, users[i].id, ...) drops "users[i]." (id
// and name become user-id and user-name), and is repeated once per user in
// order as a flag, or suffixed _2, _3, ... for users 2, 3, ... as a
// variable.
type Overrides struct {
	BaseURL string
	// Tokens, Names, IDs and Usernames hold user 1's value first, then user
	// 2's ...; "" leaves that user's value alone.
	Tokens    []string
	Names     []string
	IDs       []string
	Usernames []string
	// PrivateReposGranted holds each user's grant; nil leaves it alone.
	PrivateReposGranted []*bool
	// CAFile is a PEM file of CAs to trust besides the system's; a relative
	// path is relative to the working directory.
	CAFile string
	// InsecureSkipVerify turns certificate verification off.
	InsecureSkipVerify bool
	Rooms              RoomHints
	WriteRoom          string
	HideRoom           string
	// Err is a value that could not be read (such as
	// CHAT_INSECURE_SKIP_VERIFY=maybe, or a variable set but empty). Apply
	// keeps it and Check reports it, so a typo cannot silently change what
	// is checked or how the target is trusted.
	Err error
	// Env says the values come from the environment (FromEnv), not from
	// flags: errors then name CHAT_BASE_URL, CHAT_TOKEN_2, ... instead of
	// --base-url, --token #2, ...
	Env bool
}

// Setting is one key of a description with the flag and the environment
// variable that give it.
type Setting struct {
	Key     string // as the file spells it; users[i].KEY for a user's key
	Flag    string // "--base-url"; a user's key is repeated once per user
	Env     string // "CHAT_BASE_URL"; a user's key takes _2, _3 ... for users 2, 3 ...
	PerUser bool
}

// Settings lists every key of a description with its flag and variable, in
// the order the README documents them.
func Settings() []Setting {
	return []Setting{
		{Key: "base_url", Flag: "--base-url", Env: "CHAT_BASE_URL"},
		{Key: "ca_file", Flag: "--ca-file", Env: "CHAT_CA_FILE"},
		{Key: "insecure_skip_verify", Flag: "--insecure-skip-verify", Env: "CHAT_INSECURE_SKIP_VERIFY"},
		{Key: "users[i].name", Flag: "--user-name", Env: "CHAT_USER_NAME", PerUser: true},
		{Key: "users[i].token", Flag: "--token", Env: "CHAT_TOKEN", PerUser: true},
		{Key: "users[i].id", Flag: "--user-id", Env: "CHAT_USER_ID", PerUser: true},
		{Key: "users[i].username", Flag: "--username", Env: "CHAT_USERNAME", PerUser: true},
		{Key: "users[i].private_repos_granted", Flag: "--private-repos-granted", Env: "CHAT_PRIVATE_REPOS_GRANTED", PerUser: true},
		{Key: "rooms.org", Flag: "--rooms-org", Env: "CHAT_ROOMS_ORG"},
		{Key: "rooms.repo", Flag: "--rooms-repo", Env: "CHAT_ROOMS_REPO"},
		{Key: "rooms.channel", Flag: "--rooms-channel", Env: "CHAT_ROOMS_CHANNEL"},
		{Key: "rooms.one_to_one", Flag: "--rooms-one-to-one", Env: "CHAT_ROOMS_ONE_TO_ONE"},
		{Key: "write_room", Flag: "--write-room", Env: "CHAT_WRITE_ROOM"},
		{Key: "hide_room", Flag: "--hide-room", Env: "CHAT_HIDE_ROOM"},
	}
}

// setting returns the Setting of key ("users[1].id" finds users[i].id).
func setting(key string) (Setting, int) {
	user := -1
	if i, rest, ok := userKey(key); ok {
		user, key = i, "users[i]."+rest
	}
	for _, s := range Settings() {
		if s.Key == key {
			return s, user
		}
	}
	return Setting{}, user
}

// userKey splits "users[1].id" into 1 and "id".
func userKey(key string) (int, string, bool) {
	var i int
	if _, err := fmt.Sscanf(key, "users[%d].", &i); err != nil {
		return 0, "", false
	}
	_, rest, ok := strings.Cut(key, "].")
	return i, rest, ok
}

// EnvName is the environment variable of a setting for user i (0-based;
// ignored for a key that is not a user's).
func (s Setting) EnvName(i int) string {
	if !s.PerUser || i == 0 {
		return s.Env
	}
	return s.Env + "_" + strconv.Itoa(i+1)
}

// name is how the user gave key through o: a flag or a variable.
func (o Overrides) name(key string) string {
	s, i := setting(key)
	if s.Key == "" {
		return key
	}
	if o.Env {
		return s.EnvName(i)
	}
	if s.PerUser {
		return s.Flag + " #" + strconv.Itoa(i+1)
	}
	return s.Flag
}

// MaxEnvUsers bounds the users the environment can describe
// (CHAT_TOKEN ... CHAT_TOKEN_32).
const MaxEnvUsers = 32

// FromEnv reads every setting from the environment (see Settings):
// CHAT_BASE_URL, CHAT_TOKEN, CHAT_TOKEN_2, ..., CHAT_CA_FILE,
// CHAT_INSECURE_SKIP_VERIFY (a boolean: 1, true, 0, false), CHAT_HIDE_ROOM
// ... An empty value is read as unset; see FromLookupEnv, which refuses it.
func FromEnv(getenv func(string) string) Overrides {
	return FromLookupEnv(func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	})
}

// FromLookupEnv reads every setting from the environment (see Settings). A
// variable that is set but empty is an error (Overrides.Err), never "not
// set": an empty CI secret must not turn a run against a server into a run
// against nothing, or a run with fewer users.
func FromLookupEnv(lookup func(string) (string, bool)) Overrides {
	o := Overrides{Env: true}
	var errs []error
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok && strings.TrimSpace(v) == "" {
			errs = append(errs, &Error{Key: name, Where: name, Reason: "set but empty; unset it, or give it a value (an empty CI secret, such as on a pull request from a fork, reads this way)"})
			return "", false
		}
		return v, ok
	}
	boolean := func(name string) (*bool, bool) {
		v, ok := get(name)
		if !ok {
			return nil, false
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, &Error{Key: name, Where: name, Reason: fmt.Sprintf("%q is not a boolean (1, true, 0, false)", v)})
			return nil, false
		}
		return &b, true
	}
	o.BaseURL, _ = get("CHAT_BASE_URL")
	o.CAFile, _ = get("CHAT_CA_FILE")
	if b, ok := boolean("CHAT_INSECURE_SKIP_VERIFY"); ok {
		o.InsecureSkipVerify = *b
	}
	o.Rooms.Org, _ = get("CHAT_ROOMS_ORG")
	o.Rooms.Repo, _ = get("CHAT_ROOMS_REPO")
	o.Rooms.Channel, _ = get("CHAT_ROOMS_CHANNEL")
	o.Rooms.OneToOne, _ = get("CHAT_ROOMS_ONE_TO_ONE")
	o.WriteRoom, _ = get("CHAT_WRITE_ROOM")
	o.HideRoom, _ = get("CHAT_HIDE_ROOM")
	perUser := func(s Setting, into *[]string) {
		for i := range MaxEnvUsers {
			if v, ok := get(s.EnvName(i)); ok {
				for len(*into) < i {
					*into = append(*into, "")
				}
				*into = append(*into, v)
			}
		}
	}
	for _, s := range Settings() {
		switch s.Key {
		case "users[i].token":
			perUser(s, &o.Tokens)
		case "users[i].name":
			perUser(s, &o.Names)
		case "users[i].id":
			perUser(s, &o.IDs)
		case "users[i].username":
			perUser(s, &o.Usernames)
		case "users[i].private_repos_granted":
			for i := range MaxEnvUsers {
				if b, ok := boolean(s.EnvName(i)); ok {
					for len(o.PrivateReposGranted) < i {
						o.PrivateReposGranted = append(o.PrivateReposGranted, nil)
					}
					o.PrivateReposGranted = append(o.PrivateReposGranted, b)
				}
			}
		}
	}
	// CHAT_TOKEN_3 without CHAT_TOKEN_2 leaves a hole the file must fill;
	// Check names the token that is missing.
	o.Err = errors.Join(errs...)
	return o
}

// EnvNames returns the environment variables FromLookupEnv reads that are set
// (with any value), for telling "no target named" from "a target named
// with empty values".
func EnvNames(lookup func(string) (string, bool)) []string {
	var out []string
	for _, s := range Settings() {
		n := 1
		if s.PerUser {
			n = MaxEnvUsers
		}
		for i := range n {
			if _, ok := lookup(s.EnvName(i)); ok {
				out = append(out, s.EnvName(i))
			}
		}
	}
	return out
}

// Empty reports whether o gives no value at all.
func (o Overrides) Empty() bool {
	return o.BaseURL == "" && len(o.Tokens) == 0 && len(o.Names) == 0 && len(o.IDs) == 0 && len(o.Usernames) == 0 &&
		len(o.PrivateReposGranted) == 0 && o.CAFile == "" && !o.InsecureSkipVerify && o.Rooms == (RoomHints{}) &&
		o.WriteRoom == "" && o.HideRoom == "" && o.Err == nil
}

// Apply lays o over d: a base URL replaces d's, token i replaces user i's
// token (users are added when d has fewer). A replaced token drops the
// user's id and username, which belonged to the old token, unless o gives
// them too. A CA file replaces d's (made absolute against the working
// directory); a true InsecureSkipVerify sets d's; room hints, the write
// room and the hide room replace d's.
func (d *Description) Apply(o Overrides) {
	if o.Err != nil && d.overrideErr == nil {
		d.overrideErr = o.Err
	}
	if d.from == nil {
		d.from = map[string]string{}
	}
	str := func(dst *string, v, key string) {
		if v != "" {
			*dst = v
			d.from[key] = o.name(key)
		}
	}
	str(&d.BaseURL, o.BaseURL, "base_url")
	if o.CAFile != "" {
		d.CAFile = o.CAFile
		if abs, err := filepath.Abs(o.CAFile); err == nil {
			d.CAFile = abs
		}
		d.from["ca_file"] = o.name("ca_file")
	}
	if o.InsecureSkipVerify {
		d.InsecureSkipVerify = true
		d.from["insecure_skip_verify"] = o.name("insecure_skip_verify")
	}
	str(&d.Rooms.Org, o.Rooms.Org, "rooms.org")
	str(&d.Rooms.Repo, o.Rooms.Repo, "rooms.repo")
	str(&d.Rooms.Channel, o.Rooms.Channel, "rooms.channel")
	str(&d.Rooms.OneToOne, o.Rooms.OneToOne, "rooms.one_to_one")
	str(&d.WriteRoom, o.WriteRoom, "write_room")
	str(&d.HideRoom, o.HideRoom, "hide_room")
	grow := func(n int) {
		for len(d.Users) < n {
			d.Users = append(d.Users, User{})
		}
	}
	for i, t := range o.Tokens {
		if t == "" {
			continue
		}
		grow(i + 1)
		if d.Users[i].Token != t {
			d.Users[i].Token, d.Users[i].ID, d.Users[i].Username = t, "", ""
		}
		d.from[fmt.Sprintf("users[%d].token", i)] = o.name(fmt.Sprintf("users[%d].token", i))
	}
	for _, f := range []struct {
		vals []string
		key  string
		dst  func(*User) *string
	}{
		{o.Names, "name", func(u *User) *string { return &u.Name }},
		{o.IDs, "id", func(u *User) *string { return &u.ID }},
		{o.Usernames, "username", func(u *User) *string { return &u.Username }},
	} {
		for i, v := range f.vals {
			if v == "" {
				continue
			}
			grow(i + 1)
			key := fmt.Sprintf("users[%d].%s", i, f.key)
			*f.dst(&d.Users[i]) = v
			d.from[key] = o.name(key)
		}
	}
	for i, g := range o.PrivateReposGranted {
		if g == nil {
			continue
		}
		grow(i + 1)
		v := *g
		d.Users[i].PrivateReposGranted = &v
		key := fmt.Sprintf("users[%d].private_repos_granted", i)
		d.from[key] = o.name(key)
	}
}

// Check validates a description after overrides are applied.
func (d *Description) Check() error {
	if d.overrideErr != nil {
		return d.overrideErr
	}
	if d.BaseURL == "" {
		if d.file == "" {
			return &Error{Key: "base_url", Where: "no base URL", Reason: "give --base-url URL, set CHAT_BASE_URL, or name a target description file with --target"}
		}
		return d.errorf("base_url", "required (or give --base-url, or set CHAT_BASE_URL)")
	}
	u, err := url.Parse(d.BaseURL)
	if err != nil || u.Host == "" {
		return d.errorf("base_url", "%q is not an absolute URL", d.BaseURL)
	}
	if u.Scheme != "https" {
		return d.errorf("base_url", "%q: the API is served over HTTPS only; use an https:// URL", d.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return d.errorf("base_url", "must not carry a query or fragment")
	}
	if strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/v1") {
		return d.errorf("base_url", "%q: leave out /v1: the harness adds it", d.BaseURL)
	}
	if len(d.Users) == 0 {
		if d.file == "" {
			return &Error{Key: "users", Where: "no token", Reason: "give --token T (once per user), set CHAT_TOKEN (CHAT_TOKEN_2, ... for more users), or list users in a target description file (--target)"}
		}
		return d.errorf("users", "at least one user with a token is required (or give --token, or set CHAT_TOKEN)")
	}
	for i, usr := range d.Users {
		if strings.TrimSpace(usr.Token) == "" {
			var by []string // what names this user without a token
			for k, src := range d.from {
				if j, _, ok := userKey(k); ok && j == i {
					by = append(by, src)
				}
			}
			if len(by) > 0 {
				sort.Strings(by)
				return d.errorf(fmt.Sprintf("users[%d].token", i), "required: %s names user %d, who has no token (give it with %s, or in the file)",
					strings.Join(by, ", "), i+1, Setting{Env: "CHAT_TOKEN", PerUser: true}.EnvName(i))
			}
			if i < len(d.Users)-1 {
				return d.errorf(fmt.Sprintf("users[%d].token", i), "required: a later user is named, so user %d must be too", i+1)
			}
			return d.errorf(fmt.Sprintf("users[%d].token", i), "required")
		}
		if what := badHeaderChar(usr.Token); what != "" {
			return d.errorf(fmt.Sprintf("users[%d].token", i), "%s; an HTTP header cannot carry it, so nothing was sent (a pasted token or a CI secret often brings a line end along: remove it)", what)
		}
		if usr.Name == "" {
			d.Users[i].Name = "user" + strconv.Itoa(i+1)
		}
	}
	if d.CAFile != "" {
		if _, err := d.rootCAs(); err != nil {
			return err
		}
	}
	return nil
}

// badHeaderChar describes the first character of token that an HTTP header
// value cannot carry (a control character: a line end, a tab, NUL, DEL),
// by its name and place, never by the token itself ("" when there is none):
// the Authorization header would be refused by the HTTP client, and the run
// would blame the target for a mistake of the description.
func badHeaderChar(token string) string {
	for i := 0; i < len(token); i++ {
		c := token[i]
		if c >= 0x20 && c != 0x7f {
			continue
		}
		name := map[byte]string{'\n': "a line feed (\\n)", '\r': "a carriage return (\\r)", '\t': "a tab", 0: "a NUL", 0x7f: "a DEL"}[c]
		if name == "" {
			name = fmt.Sprintf("the control character %#02x", c)
		}
		where := fmt.Sprintf("at byte %d of %d", i+1, len(token))
		switch {
		case i == len(token)-1:
			where = "at its end"
		case strings.TrimRight(token[i:], "\r\n\t ") == "":
			where = "at its end"
		case i == 0:
			where = "at its start"
		}
		return "holds " + name + " " + where
	}
	return ""
}

// rootCAs is the system pool plus the certificates of CAFile.
func (d *Description) rootCAs() (*x509.CertPool, error) {
	pem, err := os.ReadFile(d.CAFile)
	if err != nil {
		return nil, d.errorf("ca_file", "%s", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, d.errorf("ca_file", "%s holds no PEM certificate", d.CAFile)
	}
	return pool, nil
}

// HTTPClient returns the HTTP client for this target (client.NewHTTPClient):
// trusting the system CAs plus CAFile, or nothing at all with
// InsecureSkipVerify; redirects not followed; response headers capped. The
// error is a *Error about ca_file.
func (d *Description) HTTPClient() (*http.Client, error) {
	conf := &tls.Config{InsecureSkipVerify: d.InsecureSkipVerify} //nolint:gosec // only when the user asks for it
	if d.CAFile != "" {
		pool, err := d.rootCAs()
		if err != nil {
			return nil, err
		}
		conf.RootCAs = pool
	}
	return client.NewHTTPClient(conf), nil
}

// Secrets returns the users' tokens in order: client.Config.Secrets, and
// what every output of a run is redacted of.
func (d *Description) Secrets() []string {
	out := make([]string, len(d.Users))
	for i, u := range d.Users {
		out[i] = u.Token
	}
	return out
}

// ClientConfig returns a client configuration for this target with BaseURL,
// HTTP (see HTTPClient) and Secrets filled in; the caller adds the
// validator, recorder, timeouts and rate.
func (d *Description) ClientConfig() (client.Config, error) {
	hc, err := d.HTTPClient()
	if err != nil {
		return client.Config{}, err
	}
	return client.Config{BaseURL: d.BaseURL, HTTP: hc, Secrets: d.Secrets(), CAFile: d.CAFile, Insecure: d.InsecureSkipVerify}, nil
}

// Marshal renders d as YAML.
func (d *Description) Marshal() ([]byte, error) { return yaml.Marshal(d) }

// MountPath is the path part of the base URL without a trailing slash ("" at
// the root of the host).
func (d *Description) MountPath() string {
	u, err := url.Parse(d.BaseURL)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}
