package runner

import (
	"os"

	"github.com/chatrooms/conformance/target"
)

// Inputs name a target the ways a user can: a description file, flags and
// environment variables (CHAT_BASE_URL, CHAT_TOKEN, CHAT_TOKEN_2, ...). A
// flag beats the environment, which beats the file.
type Inputs struct {
	File    string
	BaseURL string
	Tokens  []string
	Getenv  func(string) string // nil: os.Getenv
}

// ResolveTarget builds the checked description the inputs name, or returns
// nil when they name none: the bundled reference server is wanted.
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
	d.Apply(target.Overrides{BaseURL: in.BaseURL, Tokens: in.Tokens})
	if err := d.Check(); err != nil {
		return nil, err
	}
	return d, nil
}
