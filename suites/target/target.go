// Package target loads the description of a server under test: where it is,
// how to trust it, whose tokens to use and which rooms to use for what. The
// format is a contract (DESIGN.md 3.1): chatref writes it, chatconform reads
// it, and users write it by hand for their own servers.
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
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

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
	var i int
	if _, err := fmt.Sscanf(key, "users[%d].token", &i); err == nil {
		if src == "" {
			src = key
		}
		return ordinal(i) + " token (" + src + ")"
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
// beat, the file. Empty (false) values leave the description alone.
type Overrides struct {
	BaseURL string
	Tokens  []string // user 1, user 2, ...
	// CAFile is a PEM file of CAs to trust besides the system's; a relative
	// path is relative to the working directory.
	CAFile string
	// InsecureSkipVerify turns certificate verification off.
	InsecureSkipVerify bool
	// Err is a variable FromEnv could not read (such as
	// CHAT_INSECURE_SKIP_VERIFY=maybe). Apply keeps it and Check reports it,
	// so a typo cannot silently change how the target is trusted.
	Err error
	// Env says the values come from the environment (FromEnv), not from
	// flags: errors then name CHAT_BASE_URL, CHAT_TOKEN_2, ... instead of
	// --base-url, --token #2, ...
	Env bool
}

// name is how the user gave key through o: a flag or a variable.
func (o Overrides) name(key string, token int) string {
	if o.Env {
		switch key {
		case "base_url":
			return "CHAT_BASE_URL"
		case "ca_file":
			return "CHAT_CA_FILE"
		case "insecure_skip_verify":
			return "CHAT_INSECURE_SKIP_VERIFY"
		}
		if token == 0 {
			return "CHAT_TOKEN"
		}
		return "CHAT_TOKEN_" + strconv.Itoa(token+1)
	}
	switch key {
	case "base_url":
		return "--base-url"
	case "ca_file":
		return "--ca-file"
	case "insecure_skip_verify":
		return "--insecure-skip-verify"
	}
	return "--token #" + strconv.Itoa(token+1)
}

// FromEnv reads CHAT_BASE_URL, CHAT_TOKEN, CHAT_TOKEN_2, CHAT_TOKEN_3, ...,
// CHAT_CA_FILE and CHAT_INSECURE_SKIP_VERIFY (a boolean: 1, true, 0, false).
func FromEnv(getenv func(string) string) Overrides {
	o := Overrides{BaseURL: getenv("CHAT_BASE_URL"), CAFile: getenv("CHAT_CA_FILE"), Env: true}
	if v := strings.TrimSpace(getenv("CHAT_INSECURE_SKIP_VERIFY")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			o.Err = &Error{Key: "CHAT_INSECURE_SKIP_VERIFY", Reason: fmt.Sprintf("%q is not a boolean (1, true, 0, false)", v)}
		}
		o.InsecureSkipVerify = b
	}
	if t := getenv("CHAT_TOKEN"); t != "" {
		o.Tokens = append(o.Tokens, t)
		for i := 2; ; i++ {
			t := getenv("CHAT_TOKEN_" + strconv.Itoa(i))
			if t == "" {
				break
			}
			o.Tokens = append(o.Tokens, t)
		}
	}
	return o
}

// Apply lays o over d: a base URL replaces d's, token i replaces user i's
// token (a user is added when d has fewer). A replaced token drops the
// user's id and username, which belonged to the old token. A CA file
// replaces d's (made absolute against the working directory); a true
// InsecureSkipVerify sets d's.
func (d *Description) Apply(o Overrides) {
	if o.Err != nil && d.overrideErr == nil {
		d.overrideErr = o.Err
	}
	if d.from == nil {
		d.from = map[string]string{}
	}
	if o.BaseURL != "" {
		d.BaseURL = o.BaseURL
		d.from["base_url"] = o.name("base_url", 0)
	}
	if o.CAFile != "" {
		d.CAFile = o.CAFile
		if abs, err := filepath.Abs(o.CAFile); err == nil {
			d.CAFile = abs
		}
		d.from["ca_file"] = o.name("ca_file", 0)
	}
	if o.InsecureSkipVerify {
		d.InsecureSkipVerify = true
		d.from["insecure_skip_verify"] = o.name("insecure_skip_verify", 0)
	}
	for i, t := range o.Tokens {
		if t == "" {
			continue
		}
		if i >= len(d.Users) {
			d.Users = append(d.Users, User{Name: "user" + strconv.Itoa(i+1)})
		}
		if d.Users[i].Token != t {
			d.Users[i].Token, d.Users[i].ID, d.Users[i].Username = t, "", ""
		}
		d.from[fmt.Sprintf("users[%d].token", i)] = o.name("token", i)
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
			return d.errorf(fmt.Sprintf("users[%d].token", i), "required")
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
