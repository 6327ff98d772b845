package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// Every command's --help reads the same way: on standard output, flags
// named by what they take (not by a Go type), and the dash said once; a
// flag it does not have is named on standard error with where to look.
func TestEveryHelpReadsAlike(t *testing.T) {
	generic := regexp.MustCompile(`(?m)^  -[a-z0-9-]+ (value|string|int|uint|float)$`)
	for _, cmd := range []string{"", "diff", "selftest", "proxy", "replay", "verify", "keygen"} {
		args := []string{"--help"}
		if cmd != "" {
			args = []string{cmd, "--help"}
		}
		var out, errw bytes.Buffer
		if code := run(context.Background(), args, noEnv, &out, &errw); code != 0 || errw.Len() > 0 || !strings.Contains(out.String(), "Usage:") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errw.String())
		}
		if m := generic.FindAllString(out.String(), -1); len(m) > 0 {
			t.Errorf("%q names flags by a Go type: %q", args, m)
		}
		if cmd != "diff" && !strings.Contains(out.String(), "Flags (-name and --name are the same):") {
			t.Errorf("%q does not say that -name and --name are the same", args)
		}
		out.Reset()
		errw.Reset()
		bad := []string{"--bogus"}
		if cmd != "" {
			bad = []string{cmd, "--bogus"}
		}
		code := run(context.Background(), bad, noEnv, &out, &errw)
		want := "see chatconform --help"
		if cmd != "" {
			want = "see chatconform " + cmd + " --help"
		}
		if code != 2 || out.Len() > 0 || !strings.Contains(errw.String(), "flag provided but not defined: -bogus") || !strings.Contains(errw.String(), want) {
			t.Errorf("%q: exit %d, stdout %.60q, stderr %q (want %q)", bad, code, out.String(), errw.String(), want)
		}
	}
}

// Every --help names what a flag takes once: on the flag's line, not again
// at the start of its text ("-private-repos-granted true|false" then
// "true|false: whether ...").
func TestHelpSaysWhatAFlagTakesOnce(t *testing.T) {
	repeated := regexp.MustCompile(`(?m)^  -[a-z0-9-]+ (\S+)\n    \t(\S+)`)
	for _, cmd := range []string{"", "selftest", "proxy", "replay", "verify", "keygen"} {
		args := []string{"--help"}
		if cmd != "" {
			args = []string{cmd, "--help"}
		}
		var out bytes.Buffer
		run(context.Background(), args, noEnv, &out, &out)
		for _, m := range repeated.FindAllStringSubmatch(out.String(), -1) {
			if m[2] == m[1]+":" || strings.Contains(m[1], "|") && strings.Contains(m[2], m[1]) {
				t.Errorf("%q says %q twice: %q", args, m[1], m[0])
			}
		}
	}
}
