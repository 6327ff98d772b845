package runner

import (
	"os"

	"github.com/chatrooms/conformance/suites/target"
)

// Inputs name a target the ways a user can: a description file, flags and
// environment variables (CHAT_BASE_URL, CHAT_TOKEN, CHAT_TOKEN_2, ...,
// CHAT_CA_FILE, CHAT_INSECURE_SKIP_VERIFY). A flag beats the environment,
// which beats the file.
type Inputs struct {
	File               string
	BaseURL            string
	Tokens             []string
	CAFile             string // relative to the working directory
	InsecureSkipVerify bool
	Getenv             func(string) string // nil: os.Getenv
}

// ResolveTarget builds the checked description the inputs name, or returns
// nil when they name none: the bundled reference server is wanted. On a
// description error the partial description (as far as it was read) is
// returned with it, so that reports can still say what was tried.
func ResolveTarget(in Inputs) (*target.Description, error) {
	if in.Getenv == nil {
		in.Getenv = os.Getenv
	}
	env := target.FromEnv(in.Getenv)
	if in.File == "" && in.BaseURL == "" && env.BaseURL == "" && len(in.Tokens) == 0 && len(env.Tokens) == 0 {
		return nil, nil
	}
	d := &target.Description{}
	if in.File != "" {
		var err error
		if d, err = target.Load(in.File); err != nil {
			return nil, err
		}
	}
	d.Apply(env)
	d.Apply(target.Overrides{BaseURL: in.BaseURL, Tokens: in.Tokens, CAFile: in.CAFile, InsecureSkipVerify: in.InsecureSkipVerify})
	if err := d.Check(); err != nil {
		return d, err
	}
	return d, nil
}

// InputTokens returns every token the inputs name (flags and environment),
// for redacting what is printed before a description is read whole.
func InputTokens(in Inputs) []string {
	if in.Getenv == nil {
		in.Getenv = os.Getenv
	}
	return append(append([]string(nil), in.Tokens...), target.FromEnv(in.Getenv).Tokens...)
}
