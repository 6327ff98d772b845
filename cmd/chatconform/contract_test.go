package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/suites/bundled"
	"github.com/chatrooms/conformance/suites/runner"
	planted "github.com/chatrooms/conformance/suites/selftest"
	"github.com/chatrooms/conformance/suites/target"
)

// repoRoot is the repository this test was built from.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// startReference serves the reference world of seed in-process and writes
// its description, edited by edit, to a file.
func startReference(t *testing.T, seed uint64, edit func(d *target.Description)) string {
	t.Helper()
	srv, err := bundled.Start(seed, reference.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if edit != nil {
		edit(srv.Target)
	}
	raw, err := srv.Target.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	desc := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(desc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return desc
}

// Green without testing anything: a target variable that is set but empty
// (a CI secret on a fork's pull request) is an error naming it, exit 2; it
// never falls back to the bundled reference server.
func TestEmptyTargetVariableIsAnError(t *testing.T) {
	for _, env := range [][]string{
		{"CHAT_BASE_URL="},
		{"CHAT_BASE_URL=https://127.0.0.1:1", "CHAT_TOKEN="},
		{"CHAT_BASE_URL=https://127.0.0.1:1", "CHAT_TOKEN=tok-one", "CHAT_TOKEN_2="},
		{"CHAT_TARGET="},
		{"CHAT_HIDE_ROOM="},
	} {
		name := strings.TrimSuffix(env[len(env)-1], "=")
		dir := t.TempDir()
		report := filepath.Join(dir, "r.json")
		code, out := chatconformEnv(t, env, "--seed", "2", "--json", report)
		if code != 2 || !strings.Contains(out, name+": set but empty") || strings.Contains(out, "bundled") {
			t.Errorf("%v: exit %d\n%s", env, code, out)
		}
		if raw, err := os.ReadFile(report); err == nil && strings.Contains(string(raw), `"bundled": true`) {
			t.Errorf("%v: the report says the bundled server was checked", env)
		}
	}
}

// A run that names no target says so on its first line and in every report.
func TestBundledRunSaysSoEverywhere(t *testing.T) {
	o := runWithReports(t, "--seed", "5", "--label-filter", "USER-SHAPE")
	first, _, _ := strings.Cut(o.console, "\n")
	if o.code != 0 || !strings.HasPrefix(first, "chatconform: "+runner.BundledNote+", https://127.0.0.1:") {
		t.Fatalf("exit %d, first line %q\n%s", o.code, first, o.console)
	}
	if !o.report.Bundled || o.report.TargetNote != runner.BundledNote {
		t.Errorf("JSON: bundled %v, note %q", o.report.Bundled, o.report.TargetNote)
	}
	for name, text := range map[string]string{"junit": o.junit, "html": o.html} {
		if !strings.Contains(text, "bundled reference server") {
			t.Errorf("%s does not say the bundled reference server was checked", name)
		}
	}
	if !strings.Contains(o.junit, `timestamp="20`) {
		t.Errorf("JUnit has no timestamp:\n%.400s", o.junit)
	}
}

// Green while checking less: a run with one token says how much it judged
// and why not the rest, with what to do; --min-judged and --require turn
// that into exit 1.
func TestOneTokenRunStatesItsCoverage(t *testing.T) {
	desc := startReference(t, 7, func(d *target.Description) { d.Users = d.Users[:1] })
	o := runWithReports(t, "--target", desc, "--seed", "7", "--min-judged", "100%", "--require", "UNREAD-CHAT")
	cov := o.report.Coverage
	if o.code != 1 || cov == nil || cov.Judged >= cov.Total || cov.Total < 60 {
		t.Fatalf("exit %d, coverage %+v\n%s", o.code, cov, o.console)
	}
	for _, want := range []string{"Not judged: ", "needs a second user", "do: name a second user: --token again, CHAT_TOKEN_2",
		"coverage short: UNREAD-CHAT is required (--require) but was not judged: SKIP", "--min-judged 100% asks for",
		"FAIL (exit 1; coverage short of --min-judged/--require)"} {
		if !strings.Contains(o.console, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if o.report.Counts["FAIL"] != 0 || len(o.report.CoverageShort) != 2 {
		t.Errorf("counts %v, short %v", o.report.Counts, o.report.CoverageShort)
	}
	if !strings.Contains(o.html, `id="coverage"`) || !strings.Contains(o.junit, `name="Judged" value="`) {
		t.Error("the HTML and JUnit reports do not carry the coverage")
	}
}

// Every setting of a description can be given by a flag or a variable:
// hide_room, private grants and room hints a description leaves out are
// judged when the flags (or the environment) name them.
func TestFlagsAndVariablesNameEverySetting(t *testing.T) {
	var hide, org string
	var granted []bool
	desc := startReference(t, 9, func(d *target.Description) {
		hide, org = d.HideRoom, d.Rooms.Org
		for _, u := range d.Users[:2] {
			granted = append(granted, u.PrivateReposGranted != nil && *u.PrivateReposGranted)
		}
		d.HideRoom, d.Rooms = "", target.RoomHints{}
		d.Users = d.Users[:2]
		for i := range d.Users {
			d.Users[i].PrivateReposGranted = nil
		}
	})
	filter := "ROOM-HIDE || REPO-PRIVATE-GRANTED || REPO-PRIVATE-WITHHELD || ORG-ROOM"
	verdicts := func(o outputs) map[string]string {
		v := map[string]string{}
		for _, q := range o.report.Requirements {
			v[q.ID] = q.Verdict.String()
		}
		return v
	}
	bare := runWithReports(t, "--target", desc, "--seed", "9", "--label-filter", filter)
	if v := verdicts(bare); v["ROOM-HIDE"] != "SKIP" || v["REPO-PRIVATE-GRANTED"] != "SKIP" {
		t.Fatalf("without the settings: %v\n%s", v, bare.console)
	}
	args := []string{"--target", desc, "--seed", "9", "--label-filter", filter, "--hide-room", hide, "--rooms-org", org}
	for _, g := range granted {
		args = append(args, "--private-repos-granted", map[bool]string{true: "true", false: "false"}[g])
	}
	flags := runWithReports(t, args...)
	if v := verdicts(flags); v["ROOM-HIDE"] != "PASS" || (v["REPO-PRIVATE-GRANTED"] != "PASS" && v["REPO-PRIVATE-WITHHELD"] != "PASS") {
		t.Errorf("with flags: %v\n%s", v, flags.console)
	}
	// The same through the environment, on a fresh server (the hide room is gone from the first).
	desc2 := startReference(t, 9, func(d *target.Description) { d.HideRoom = ""; d.Users = d.Users[:2] })
	env := []string{"CHAT_TARGET=" + desc2, "CHAT_HIDE_ROOM=" + hide}
	code, out := chatconformEnv(t, env, "--seed", "9", "--label-filter", "ROOM-HIDE")
	if code != 0 || !strings.Contains(out, "PASS         ROOM-HIDE") {
		t.Errorf("CHAT_TARGET and CHAT_HIDE_ROOM: exit %d\n%s", code, out)
	}
}

// A healthy server blamed: a description copied from another server (ids
// and usernames of another world) is a description error naming the key,
// exit 2, not failures of the server.
func TestDescriptionOfAnotherServerIsADescriptionError(t *testing.T) {
	other, err := fixtures.Generate(8)
	if err != nil {
		t.Fatal(err)
	}
	desc := startReference(t, 7, func(d *target.Description) {
		for i := range d.Users {
			d.Users[i].ID, d.Users[i].Username = other.Users[i].ID, other.Users[i].Username
		}
	})
	o := runWithReports(t, "--target", desc, "--seed", "7")
	if o.code != 2 || !strings.Contains(o.console, "users[0].id in "+desc+": ") || strings.Contains(o.console, "FAIL ") {
		t.Errorf("exit %d\n%s", o.code, o.console)
	}
	if !strings.Contains(o.report.Halted, "users[1].id") {
		t.Errorf("the report does not name the key: %q", o.report.Halted)
	}
}

// Runs that did not happen do not count: --write-baseline after an
// unreachable target leaves the baseline alone, and diff refuses a report
// of a run that did not reach its end.
func TestRunsThatDidNotHappenChangeNothing(t *testing.T) {
	dir := t.TempDir()
	known := filepath.Join(dir, "known.yaml")
	hand := "# kept by hand\nknown:\n  MSG-SEND-200: answers 201; fix tracked in issue 42\n"
	if err := os.WriteFile(known, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	down := writeDesc(t, "base_url: https://127.0.0.1:1\nusers:\n  - token: tok-down\n")
	halted := filepath.Join(dir, "halted.json")
	code, out := chatconform(t, "--target", down, "--write-baseline", known, "--json", halted)
	if raw, _ := os.ReadFile(known); code != 3 || string(raw) != hand || !strings.Contains(out, "--write-baseline: not written: the run did not reach its end") {
		t.Errorf("exit %d, baseline now:\n%s\n%s", code, raw, out)
	}
	full := filepath.Join(dir, "full.json")
	if code, out := chatconform(t, "--seed", "3", "--profile", "core", "--label-filter", "USER-SHAPE", "--json", full); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"diff", full, halted}, noEnv, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "did not reach its end") || strings.Contains(stdout.String(), "no regression") {
		t.Errorf("diff against an incomplete run: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	// A file that is not a baseline is not overwritten.
	code, out = chatconform(t, "--target", down, "--write-baseline", down)
	if code != 2 || !strings.Contains(out, "is not a baseline") {
		t.Errorf("--write-baseline over a description: exit %d\n%s", code, out)
	}
}

// The cause first: a progress line marks the FAIL as it happens, and the
// output ends with the failing requirement and its one-line cause; with
// -v, no path of the build machine appears.
func TestTheCauseComesFirst(t *testing.T) {
	desc := filepath.Join(t.TempDir(), "fault.json")
	stop, err := planted.Serve("MSG-SEND-200/shape", 3, desc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	args := []string{"--target", desc, "--seed", "3", "--label-filter", "MSG-SEND-200 || MSG-EDIT || MSG-GET-ONE || MSG-SEND-STORED"}
	code, out := chatconform(t, args...)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	progress := strings.Index(out, "] FAIL: ")
	summary := strings.Index(out, "Verdict per requirement")
	if progress < 0 || progress > summary {
		t.Errorf("no progress line marks the FAIL before the summary:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	tail := strings.Join(lines[max(0, len(lines)-4):], "\n")
	if !strings.Contains(tail, "failing requirement") || !strings.Contains(tail, "  FAIL MSG-SEND-200") || !strings.HasSuffix(tail, "chatconform: FAIL (exit 1; replay with --seed 3), judged "+tail[strings.LastIndex(tail, "judged ")+len("judged "):]) {
		t.Errorf("the output does not end with the cause:\n%s", tail)
	}
	_, verbose := chatconform(t, append(args, "-v")...)
	if root := repoRoot(t); strings.Contains(verbose, root+string(filepath.Separator)) {
		i := strings.Index(verbose, root)
		t.Errorf("-v prints paths of the build machine: …%s…", verbose[max(0, i-60):min(len(verbose), i+100)])
	}
	// A send answered 201 with the message blocks nothing (the checks go
	// on with the message); one answered 202 with no body blocks the
	// checks that need a message, and -v lists them.
	desc2 := filepath.Join(t.TempDir(), "fault2.json")
	stop2, err := planted.Serve("MSG-SEND-200/shape#2", 3, desc2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop2)
	_, verbose = chatconform(t, "--target", desc2, "--seed", "3", "--label-filter", "MSG-SEND-200 || MSG-EDIT || MSG-GET-ONE || MSG-SEND-STORED", "-v")
	if !strings.Contains(verbose, "BLOCKED: ") {
		t.Error("-v does not list the blocked checks")
	}
}

// --version, --help on standard output, selftest --list without running.
func TestVersionHelpAndSelftestList(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, noEnv, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "chatconform devel (go") {
		t.Errorf("--version: exit %d %q %q", code, stdout.String(), stderr.String())
	}
	for _, args := range [][]string{{"--help"}, {"help"}, {"help", "selftest"}, {"help", "diff"}, {"diff", "--help"}} {
		stdout.Reset()
		stderr.Reset()
		if code := run(context.Background(), args, noEnv, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Usage:") || stderr.Len() > 0 {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"selftest", "--list"}, noEnv, &stdout, &stderr); code != 0 {
		t.Fatalf("selftest --list: exit %d %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != len(planted.Faults())+len(planted.Variants()) || !strings.Contains(stdout.String(), "fault    MSG-SEND-200/shape ") ||
		!strings.Contains(stdout.String(), "variant  newest-first ") {
		t.Errorf("selftest --list: %d lines\n%.400s", len(lines), stdout.String())
	}
	stdout.Reset()
	run(context.Background(), []string{"selftest", "--list", "--variants"}, noEnv, &stdout, &stderr)
	if strings.Contains("\n"+stdout.String(), "\nfault ") {
		t.Error("selftest --list --variants lists faults")
	}
}

// The README documents every key of a description with its flag and its
// variable, and the CI recipe uses what this repository provides.
func TestREADMEDocumentsEveryTargetSetting(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	for _, s := range target.Settings() {
		for _, want := range []string{"`" + s.Key + "`", "`" + s.Flag + "`", "`" + s.Env + "`"} {
			if !strings.Contains(readme, want) {
				t.Errorf("the README does not document %s (%s)", s.Key, want)
			}
		}
	}
	for _, want := range []string{"CHAT_TARGET", "--min-judged", "--require", "--wait", "--version"} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README does not document %s", want)
		}
	}
	var recipe string
	for _, block := range strings.Split(readme, "```yaml\n")[1:] {
		if body, _, _ := strings.Cut(block, "```"); strings.Contains(body, "jobs:") {
			recipe = body
		}
	}
	if !strings.Contains(recipe, "uses: chatrooms/conformance/cmd/chatconform@main") || strings.Contains(recipe, "@latest") {
		t.Errorf("the CI recipe does not use the action:\n%s", recipe)
	}
	inputs := actionInputs(t)
	for _, line := range strings.Split(recipe[strings.Index(recipe, "chatconform@main"):], "\n")[1:] {
		k, _, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "-") || k == "with" || k == "env" || strings.HasPrefix(k, "CHAT_") || strings.HasPrefix(k, "#") {
			continue
		}
		if _, ok := inputs[k]; !ok && strings.HasPrefix(line, "          ") && !strings.HasPrefix(line, "            ") {
			t.Errorf("the recipe gives the action an input it does not have: %q", k)
		}
	}
	if !strings.Contains(recipe, "min-judged:") {
		t.Error("the CI recipe does not gate on coverage")
	}
	// The .gitignore advice ignores reports only, not the workflow itself.
	_, advice, _ := strings.Cut(readme, "out of version control")
	advice, _, _ = strings.Cut(advice, "in `.gitignore`")
	for _, pat := range strings.Split(advice, "`")[1:] {
		if strings.ContainsAny(pat, " \n") || pat == ".gitignore" {
			continue
		}
		if gitignoreMatches(pat, ".github/workflows/conformance.yml") {
			t.Errorf("the README's .gitignore pattern %q also ignores the workflow", pat)
		}
	}
}

// gitignoreMatches is enough of .gitignore matching for the README's
// advice: a pattern with a slash (other than at its end) is anchored at the
// top, one without matches a name at any depth.
func gitignoreMatches(pat, path string) bool {
	dir := strings.HasSuffix(pat, "/")
	pat = strings.TrimSuffix(pat, "/")
	parts := strings.Split(path, "/")
	if strings.Contains(pat, "/") {
		pat = strings.TrimPrefix(pat, "/")
		for i := range parts {
			if ok, _ := filepath.Match(pat, strings.Join(parts[:i+1], "/")); ok && (!dir || i < len(parts)-1) {
				return true
			}
		}
		return false
	}
	for i, p := range parts {
		if ok, _ := filepath.Match(pat, p); ok && (!dir || i < len(parts)-1) {
			return true
		}
	}
	return false
}

func TestGitignoreMatches(t *testing.T) {
	for _, tc := range []struct {
		pat, path string
		want      bool
	}{
		{"conformance.*", ".github/workflows/conformance.yml", true},
		{"/conformance-reports/", ".github/workflows/conformance.yml", false},
		{"/conformance-reports/", "conformance-reports/report.json", true},
		{"target.yaml", "ci/target.yaml", true},
	} {
		if got := gitignoreMatches(tc.pat, tc.path); got != tc.want {
			t.Errorf("%s %s: %v", tc.pat, tc.path, got)
		}
	}
}
