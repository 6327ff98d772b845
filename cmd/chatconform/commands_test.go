package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A word that is no command says so, suggests the nearest command, lists
// them, and exits 2; a path or a URL where a command would be says which
// flag takes it.
func TestUnknownCommands(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "target")
	_ = os.WriteFile(bare, []byte("base_url: https://127.0.0.1:1\n"), 0o644)
	for _, tc := range []struct {
		args []string
		says []string
		not  []string
	}{
		{[]string{"selftst"}, []string{`chatconform: unknown command "selftst"; did you mean selftest?`, "the commands are:", "  keygen ", "  replay "}, []string{"Usage:"}},
		{[]string{"Proxy", "--listen", "x"}, []string{`unknown command "Proxy"; did you mean proxy?`}, nil},
		{[]string{"dif", "a.json", "b.json"}, []string{`did you mean diff?`}, nil},
		{[]string{"version"}, []string{`unknown command "version"; did you mean --version?`}, nil},
		{[]string{"frobnicate"}, []string{`chatconform: unknown command "frobnicate"`, "the commands are:"}, []string{"did you mean"}},
		{[]string{"help", "frobnicate"}, []string{`chatconform help: unknown command "frobnicate"`, "the commands are:", "  selftest "}, []string{"Usage:"}},
		{[]string{"help", "keygn"}, []string{`unknown command "keygn"; did you mean keygen?`}, nil},
		{[]string{"target.yaml"}, []string{`unexpected argument "target.yaml": to check the server a target description names, give --target target.yaml`}, []string{"unknown command"}},
		{[]string{"ci/target"}, []string{`give --target ci/target`}, []string{"unknown command"}},
		{[]string{bare}, []string{`give --target ` + bare}, []string{"unknown command"}},
		{[]string{"report.json"}, []string{`give --target report.json`, "chatconform diff OLD.json NEW.json"}, []string{"unknown command"}},
		{[]string{"run.jsonl"}, []string{`chatconform replay run.jsonl`}, []string{"unknown command"}},
		{[]string{"https://chat.example.com"}, []string{`give it as --base-url https://chat.example.com`}, []string{"unknown command"}},
		{[]string{"--seed", "3", "stray"}, []string{`unexpected argument "stray": chatconform takes flags only`}, []string{"unknown command"}},
		{[]string{"--seed", "3", "selftest"}, []string{`a command comes first, before any flag: chatconform selftest`}, nil},
		{[]string{"--seed", "3", "target.yaml"}, []string{`give --target target.yaml`}, nil},
	} {
		var out, errw bytes.Buffer
		code := run(context.Background(), tc.args, noEnv, &out, &errw)
		if code != 2 || out.Len() > 0 {
			t.Errorf("%q: exit %d (want 2), stdout %q", tc.args, code, out.String())
		}
		for _, s := range tc.says {
			if !strings.Contains(errw.String(), s) {
				t.Errorf("%q: stderr lacks %q:\n%s", tc.args, s, errw.String())
			}
		}
		for _, s := range tc.not {
			if strings.Contains(errw.String(), s) {
				t.Errorf("%q: stderr says %q:\n%s", tc.args, s, errw.String())
			}
		}
	}
	// help with a known command, or with help itself, prints that help.
	for _, args := range [][]string{{"help", "keygen"}, {"help", "proxy"}, {"help", "help"}, {"help", "replay"}, {"help", "verify"}} {
		var out, errw bytes.Buffer
		if code := run(context.Background(), args, noEnv, &out, &errw); code != 0 || !strings.Contains(out.String(), "Usage:") || errw.Len() > 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errw.String())
		}
	}
}

func TestSuggest(t *testing.T) {
	for in, want := range map[string]string{
		"selftst": "selftest", "sefltest": "selftest", "self": "selftest", "verfy": "verify", "vrfy": "verify", "vy": "", "replya": "replay",
		"kegen": "keygen", "prxy": "proxy", "diff": "diff", "x": "", "stray": "", "frobnicate": "", "lsit": "--list", "LIST": "--list",
	} {
		if got := suggest(in); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
