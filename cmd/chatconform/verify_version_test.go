package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// --version names the harness: the version set at build time or the
// module's, and the VCS revision when the build knows it; the reports,
// records and attestations carry the same version (version()).
func TestVersionNamesTheRevision(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	devel := debug.Module{Path: "github.com/chatrooms/conformance", Version: "(devel)"}
	pseudo := debug.Module{Path: devel.Path, Version: "v0.0.0-20260101000000-0123456789ab+dirty"}
	for _, tc := range []struct {
		name    string
		bi      *debug.BuildInfo
		set     string
		version string
		line    string
	}{
		{"no build information", nil, "", "devel", "chatconform devel (go1.x)"},
		{"a test or -buildvcs=false", &debug.BuildInfo{Main: devel}, "", "devel", "chatconform devel (go1.x)"},
		{"a work tree, no module version", &debug.BuildInfo{Main: devel, Settings: vcs("true")}, "", "devel+0123456789ab.modified",
			"chatconform devel+0123456789ab.modified (go1.x; vcs.revision " + rev + ", vcs.modified true)"},
		{"a work tree, its pseudo-version", &debug.BuildInfo{Main: pseudo, Settings: vcs("true")}, "", pseudo.Version,
			"chatconform " + pseudo.Version + " (go1.x; vcs.revision " + rev + ", vcs.modified true)"},
		{"go install @v1.2.3", &debug.BuildInfo{Main: debug.Module{Path: devel.Path, Version: "v1.2.3"}}, "", "v1.2.3", "chatconform v1.2.3 (go1.x)"},
		{"the action's ref, no VCS", &debug.BuildInfo{Main: devel}, "v2", "v2", "chatconform v2 (go1.x)"},
		{"the action's ref in a clean work tree", &debug.BuildInfo{Main: pseudo, Settings: vcs("false")}, "main", "main+0123456789ab",
			"chatconform main+0123456789ab (go1.x; vcs.revision " + rev + ", vcs.modified false; module version " + pseudo.Version + ")"},
	} {
		if got := versionOf(tc.bi, tc.set); got != tc.version {
			t.Errorf("%s: version %q, want %q", tc.name, got, tc.version)
		}
		if got := versionLine(tc.bi, tc.set, "go1.x"); got != tc.line {
			t.Errorf("%s: --version says\n%q\nwant\n%q", tc.name, got, tc.line)
		}
	}
}

// The action builds chatconform with its own ref as the version, so that
// the reports and attestations a CI job makes name their harness; a ref
// that is not a plain tag, branch or commit is left out, with a warning.
func TestVersionOfTheActionBuildIsItsRef(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	var build *actionStep
	a := loadAction(t)
	for i, st := range a.Runs.Steps {
		if strings.HasPrefix(st.Name, "Build chatconform") {
			build = &a.Runs.Steps[i]
		}
	}
	if build == nil {
		t.Fatal("the action has no build step")
	}
	if build.Env["ACTION_REF"] != "${{ github.action_ref }}" {
		t.Fatalf("the build step's ACTION_REF is %q", build.Env["ACTION_REF"])
	}
	run := func(ref, prelude string) (string, string) {
		temp := t.TempDir()
		script := strings.ReplaceAll(build.Run, "${{ github.action_path }}", actionPath(t))
		if strings.Contains(script, "${{") {
			t.Fatalf("the build step uses an expression this test does not evaluate:\n%s", script)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", prelude+script)
		cmd.Dir = temp
		cmd.Env = append(childEnvWithout("CHATCONFORM_MAIN", "GITHUB_"), "RUNNER_TEMP="+temp, "ACTION_REF="+ref, "GOWORK=off")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("ref %q: %v\n%s", ref, err, out.String())
		}
		return temp, out.String()
	}
	// Built for real: the linker sets the variable --version reads.
	if _, out := run("v1.2.3-test", ""); !strings.HasPrefix(out, "chatconform v1.2.3-test") {
		t.Errorf("the action's build says %q", out)
	}
	// What go build is given for a ref that could smuggle flags into the
	// linker's, with go stood in for (a second real build costs a link).
	fake := `go() { printf '%s\n' "$@" > "$RUNNER_TEMP/go-args"; mkdir -p "$RUNNER_TEMP/chatconform-action"; ` +
		`printf '#!/bin/sh\necho chatconform devel\n' > "$RUNNER_TEMP/chatconform-action/chatconform"; chmod +x "$RUNNER_TEMP/chatconform-action/chatconform"; }` + "\n"
	for ref, want := range map[string]string{
		"main' -X main.x=1": "the action's ref is not a plain tag, branch or commit",
		"":                  "chatconform devel",
		"releases/v2.0":     "chatconform devel",
	} {
		temp, out := run(ref, fake)
		args := string(mustRead(t, filepath.Join(temp, "go-args")))
		ldflags := strings.Contains(args, "-ldflags\n-X main.buildVersion="+ref+"\n")
		if !strings.Contains(out, want) || ldflags != (ref == "releases/v2.0") || strings.Contains(args, "main.x") {
			t.Errorf("ref %q: go build %q, output %q", ref, args, out)
		}
	}
}
