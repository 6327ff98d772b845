package runner

import (
	"os"
	"strings"

	"github.com/chatrooms/conformance/suites/target"
)

// Inputs name a target the ways a user can: a description file, flags and
// environment variables (CHAT_TARGET, CHAT_BASE_URL, CHAT_TOKEN,
// CHAT_TOKEN_2, ..., CHAT_CA_FILE, CHAT_HIDE_ROOM ...: target.Settings). A
// flag beats the environment, which beats the file.
type Inputs struct {
	File               string // --target
	BaseURL            string
	Tokens             []string
	CAFile             string // relative to the working directory
	InsecureSkipVerify bool
	// Flags holds every other setting given by a flag (room hints, users'
	// ids, private grants ...); its BaseURL, Tokens, CAFile and
	// InsecureSkipVerify add to the fields above.
	Flags target.Overrides
	// LookupEnv reads the environment (nil: os.LookupEnv, unless Getenv is
	// set). A target variable that is set but empty is an error.
	LookupEnv func(string) (string, bool)
	// Getenv is the older form of LookupEnv: an empty value reads as unset.
	Getenv func(string) string
}

// EnvTarget is the variable that names a description file (--target).
const EnvTarget = "CHAT_TARGET"

func (in Inputs) lookup() func(string) (string, bool) {
	switch {
	case in.LookupEnv != nil:
		return in.LookupEnv
	case in.Getenv != nil:
		return func(k string) (string, bool) { v := in.Getenv(k); return v, v != "" }
	}
	return os.LookupEnv
}

func (in Inputs) flags() target.Overrides {
	o := in.Flags
	o.Env = false
	if in.BaseURL != "" {
		o.BaseURL = in.BaseURL
	}
	if len(in.Tokens) > 0 {
		o.Tokens = in.Tokens
	}
	if in.CAFile != "" {
		o.CAFile = in.CAFile
	}
	o.InsecureSkipVerify = o.InsecureSkipVerify || in.InsecureSkipVerify
	return o
}

// Named reports whether the inputs name a target at all: a file, a flag or
// a target variable, even an empty one (which ResolveTarget refuses). The
// bundled reference server is checked only when they name none.
func (in Inputs) Named() bool {
	lookup := in.lookup()
	_, file := lookup(EnvTarget)
	return in.File != "" || file || !in.flags().Empty() || len(target.EnvNames(lookup)) > 0
}

// ResolveTarget builds the checked description the inputs name, or returns
// nil when they name none: the bundled reference server is wanted. On a
// description error the partial description (as far as it was read) is
// returned with it, so that reports can still say what was tried.
func ResolveTarget(in Inputs) (*target.Description, error) {
	if !in.Named() {
		return nil, nil
	}
	lookup := in.lookup()
	file := in.File
	if file == "" {
		if v, ok := lookup(EnvTarget); ok {
			if strings.TrimSpace(v) == "" {
				return nil, &target.Error{Key: EnvTarget, Where: EnvTarget, Reason: "set but empty; unset it, or name a target description file"}
			}
			file = v
		}
	}
	d := &target.Description{}
	if file != "" {
		var err error
		if d, err = target.Load(file); err != nil {
			return nil, err
		}
	}
	d.Apply(target.FromLookupEnv(lookup))
	d.Apply(in.flags())
	if err := d.Check(); err != nil {
		return d, err
	}
	return d, nil
}

// InputTokens returns every token the inputs name (flags and environment),
// for redacting what is printed before a description is read whole.
func InputTokens(in Inputs) []string {
	out := append([]string(nil), in.flags().Tokens...)
	for _, t := range target.FromLookupEnv(in.lookup()).Tokens {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}
