package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/reference/localtls"
	"github.com/chatrooms/conformance/suites/target"
)

// The composite action (cmd/chatconform/action.yml), read as GitHub reads
// it: its inputs with their defaults, and its steps.
type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

func actionPath(t *testing.T) string { return filepath.Join(repoRoot(t), "cmd", "chatconform") }

func loadAction(t *testing.T) action {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(actionPath(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(false)
	if err := dec.Decode(&a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q", a.Runs.Using)
	}
	return a
}

func actionInputs(t *testing.T) map[string]string {
	out := map[string]string{}
	for k, v := range loadAction(t).Inputs {
		out[k] = v.Default
	}
	return out
}

// actionRun is what running the action's steps gave.
type actionRun struct {
	code    int               // exit code of the step that failed (0: none did)
	outputs map[string]string // the action's outputs
	log     string            // every step's output
	upload  string            // the path the upload step was given ("" when skipped)
	cache   map[string]string // what the cache step was given (nil when skipped)
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// runAction runs the action's run: steps in a shell the way GitHub does
// (bash --noprofile --norc -eo pipefail), with ${{ inputs.X }},
// ${{ github.action_path }}, ${{ runner.temp }} and
// ${{ steps.ID.outputs.X }} substituted, GITHUB_OUTPUT read back, steps after
// a failure skipped unless if: always(), and uses: steps checked (the
// upload's path), not run. env is the step's env: of the workflow, as
// NAME=value.
func runAction(t *testing.T, workspace, temp string, with map[string]string, env []string) actionRun {
	t.Helper()
	a := loadAction(t)
	inputs := map[string]string{}
	for k, v := range a.Inputs {
		inputs[k] = v.Default
	}
	for k, v := range with {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("the action has no input %q", k)
		}
		inputs[k] = v
	}
	steps := map[string]map[string]string{}
	eval := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case strings.HasPrefix(e, "inputs."):
				return inputs[strings.TrimPrefix(e, "inputs.")]
			case e == "github.action_path":
				return actionPath(t)
			case e == "github.action_ref":
				return "" // as for a local action; TestVersionOfTheActionBuildIsItsRef gives one
			case e == "runner.temp":
				return temp
			case strings.HasPrefix(e, "steps."):
				parts := strings.Split(e, ".")
				if len(parts) == 4 && parts[2] == "outputs" {
					return steps[parts[1]][parts[3]]
				}
			}
			t.Fatalf("the action uses an expression this test does not evaluate: %s", m)
			return ""
		})
	}
	run := actionRun{outputs: map[string]string{}}
	var log strings.Builder
	for i, st := range a.Runs.Steps {
		switch st.If {
		case "":
			if run.code != 0 {
				continue
			}
		case "always()":
		default:
			t.Fatalf("step %q: condition %q is not evaluated by this test", st.Name, st.If)
		}
		if strings.HasPrefix(st.Uses, "actions/cache@") {
			run.cache = map[string]string{}
			for k, v := range st.With {
				run.cache[k] = eval(v)
			}
			continue
		}
		if st.Uses != "" {
			if !strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
				t.Fatalf("step %q uses %s, which this test cannot stand in for", st.Name, st.Uses)
			}
			run.upload = eval(st.With["path"])
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("step %q: shell %q (want bash)", st.Name, st.Shell)
		}
		script := filepath.Join(temp, fmt.Sprintf("step%d.sh", i))
		if err := os.WriteFile(script, []byte(eval(st.Run)), 0o700); err != nil {
			t.Fatal(err)
		}
		outFile := filepath.Join(temp, fmt.Sprintf("output%d", i))
		_ = os.WriteFile(outFile, nil, 0o600)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = workspace
		cmd.Env = append(childEnvWithout("CHATCONFORM_MAIN", "GITHUB_"), "RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+outFile,
			"GITHUB_ACTION_PATH="+actionPath(t), "GITHUB_WORKSPACE="+workspace)
		cmd.Env = append(cmd.Env, env...)
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		fmt.Fprintf(&log, "== %s\n%s", st.Name, out.String())
		if ee, ok := err.(*exec.ExitError); ok {
			if run.code == 0 {
				run.code = ee.ExitCode()
			}
		} else if err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(outFile)
		steps[st.ID] = map[string]string{}
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				steps[st.ID][k] = v
			}
		}
	}
	for k, o := range a.Outputs {
		run.outputs[k] = eval(o.Value)
	}
	run.log = log.String()
	return run
}

// childEnvWithout is the test's environment without CHAT_* and the given
// prefixes: a step sees what the workflow gives it.
func childEnvWithout(prefixes ...string) []string {
	var env []string
	for _, kv := range childEnv() {
		keep := true
		for _, p := range prefixes {
			keep = keep && !strings.HasPrefix(kv, p)
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// serveLate starts the reference world of seed on a loopback port after
// delay, and returns its description (with the CA beside it) at once: a
// server a workflow started in the background, still starting.
func serveLate(t *testing.T, seed uint64, delay time.Duration) (desc string) {
	t.Helper()
	world, err := fixtures.Generate(seed)
	if err != nil {
		t.Fatal(err)
	}
	cert, caPEM, err := localtls.SelfSigned(reference.CertOrg, reference.CertName)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "target-ca.pem"), caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	d := target.FromWorld(world, "https://"+addr)
	d.CAFile = "target-ca.pem"
	raw, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	desc = filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(desc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := reference.NewHTTPServer(reference.New(world, reference.Config{}), localtls.Config(cert), nil)
	started := make(chan struct{})
	go func() {
		defer close(started)
		time.Sleep(delay)
		if _, err := localtls.Start(srv, localtls.Options{Addr: addr}); err != nil {
			t.Errorf("listening late on %s: %v", addr, err)
		}
	}()
	t.Cleanup(func() {
		<-started
		_ = srv.Close()
	})
	return desc
}

// The README's CI recipe works from this repository as it is: the action
// builds chatconform from its own source, waits for a server still
// starting, runs with the reports, hands them to the upload, and fails the
// step with the exit code the README states.
func TestActionRunsAsGitHubWould(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	temp := t.TempDir()
	reports := func(ws string) []string {
		var missing []string
		for _, f := range []string{"junit.xml", "report.json", "report.html"} {
			if _, err := os.Stat(filepath.Join(ws, "conformance-reports", f)); err != nil {
				missing = append(missing, f)
			}
		}
		return missing
	}
	t.Run("pass", func(t *testing.T) {
		ws := t.TempDir()
		desc := serveLate(t, 11, 1500*time.Millisecond)
		r := runAction(t, ws, temp, map[string]string{"target": desc, "min-judged": "100%", "wait": "60s", "args": "--seed 11"}, nil)
		if r.code != 0 || r.outputs["exit-code"] != "0" || !strings.Contains(r.log, "the target answered after") || !strings.Contains(r.log, "chatconform: PASS, judged") {
			t.Fatalf("exit %d, outputs %v\n%s", r.code, r.outputs, r.log)
		}
		if m := reports(ws); len(m) > 0 || r.upload != "conformance-reports" {
			t.Errorf("reports missing %v, upload of %q", m, r.upload)
		}
		// The build cache is the harness's, keyed on its own go.mod and
		// go.sum: a caller's repository may have no go.sum at all.
		mod, _ := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
		sum, _ := os.ReadFile(filepath.Join(repoRoot(t), "go.sum"))
		h := sha256.Sum256(append(mod, sum...))
		gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
		if !strings.HasSuffix(r.cache["key"], hex.EncodeToString(h[:])[:32]) || !strings.Contains(r.cache["path"], strings.TrimSpace(string(gocache))+"\n") ||
			r.cache["restore-keys"] == "" || !strings.HasPrefix(r.cache["key"], r.cache["restore-keys"]) {
			t.Errorf("the action's cache step was given %q", r.cache)
		}
		d, err := target.Load(desc)
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range d.Secrets() {
			if strings.Contains(r.log, tok) {
				t.Error("the log shows a token")
			}
		}
	})
	t.Run("quoted args", func(t *testing.T) {
		ws := t.TempDir()
		desc := serveLate(t, 13, 0)
		// Both requirements must be judged: the filter arrives whole, as one
		// flag value, quotes removed.
		r := runAction(t, ws, temp, map[string]string{"target": desc, "require": "AUTH-CURRENT-USER,USER-SHAPE",
			"args": `--seed 13 --label-filter 'AUTH-CURRENT-USER || USER-SHAPE' --focus "GET /v1/user"`}, nil)
		if r.code != 0 || r.outputs["exit-code"] != "0" || !strings.Contains(r.log, "chatconform: PASS, judged") {
			t.Fatalf("exit %d, outputs %v\n%s", r.code, r.outputs, r.log)
		}
	})
	t.Run("args never evaluated", func(t *testing.T) {
		ws := t.TempDir()
		desc := serveLate(t, 14, 0)
		r := runAction(t, ws, temp, map[string]string{"target": desc, "args": "--seed 14 --focus $(touch pwned)"}, nil)
		if r.code != 2 || r.outputs["exit-code"] != "2" || !strings.Contains(r.log, "$(touch pwned) is a command substitution, which is never expanded") {
			t.Errorf("exit %d, outputs %v\n%s", r.code, r.outputs, r.log)
		}
		if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
			t.Error("the args input was evaluated")
		}
	})
	t.Run("coverage short", func(t *testing.T) {
		ws := t.TempDir()
		desc := serveLate(t, 12, 0)
		r := runAction(t, ws, temp, map[string]string{"target": desc, "require": "AUTH-CURRENT-USER,ROOM-HIDE", "args": "--seed 12 --label-filter AUTH-CURRENT-USER"}, nil)
		if r.code != 1 || r.outputs["exit-code"] != "1" || !strings.Contains(r.log, "ROOM-HIDE is required (--require) but was not judged") {
			t.Errorf("exit %d, outputs %v\n%s", r.code, r.outputs, r.log)
		}
		if m := reports(ws); len(m) > 0 || r.upload == "" {
			t.Errorf("after a failure: reports missing %v, upload of %q", m, r.upload)
		}
	})
	t.Run("empty secret", func(t *testing.T) {
		ws := t.TempDir()
		r := runAction(t, ws, temp, map[string]string{"base-url": "https://127.0.0.1:1"}, []string{"CHAT_TOKEN=", "CHAT_TOKEN_2="})
		if r.code != 2 || !strings.Contains(r.log, "CHAT_TOKEN: set but empty") || strings.Contains(r.log, "bundled") {
			t.Errorf("exit %d\n%s", r.code, r.log)
		}
		if m := reports(ws); len(m) > 0 {
			t.Errorf("reports missing %v", m)
		}
	})
	t.Run("no target", func(t *testing.T) {
		r := runAction(t, t.TempDir(), temp, nil, nil)
		if r.code != 2 || !strings.Contains(r.log, "name the server to check") {
			t.Errorf("exit %d\n%s", r.code, r.log)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		ws := t.TempDir()
		desc := writeDesc(t, "base_url: https://127.0.0.1:1\nusers:\n  - token: tok-down\n")
		start := time.Now()
		r := runAction(t, ws, temp, map[string]string{"target": desc, "wait": "2s"}, nil)
		if r.code != 3 || time.Since(start) < 2*time.Second || !strings.Contains(r.log, "no answer within --wait 2s") {
			t.Errorf("exit %d after %s\n%s", r.code, time.Since(start), r.log)
		}
	})
}
