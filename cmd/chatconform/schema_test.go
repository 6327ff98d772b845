package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	planted "github.com/chatrooms/conformance/suites/selftest"
)

// The JSON reports chatconform writes are valid against the published
// schema, suites/report/report.schema.json: a whole core run's, with failed
// exchanges, a short passing one's, and those of runs that stopped early
// (the preflight failing a requirement, the target unreachable, the
// description wrong). That the
// schema is the Go types' own is TestReportSchemaIsCurrent's job.
func TestJSONReportsMatchTheSchema(t *testing.T) {
	sch := reportSchema(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		target func(t *testing.T) string
		code   int
		whole  bool
	}{
		{"whole core run", func(t *testing.T) string {
			desc := filepath.Join(t.TempDir(), "target.json")
			stop, err := planted.Serve("MSG-SEND-200/shape", 2, desc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
			return desc
		}, 1, true},
		// A passing run against the bundled reference server: its judges
		// of no requirement write "ids": null.
		{"bundled, filtered", func(*testing.T) string { return "" }, 0, false},
		{"preflight fails", func(t *testing.T) string {
			return serveTLS(t, userAnswers(500, "text/html", "<h1>oops</h1>", ""), "tok-one")
		}, 1, false},
		{"unreachable", func(t *testing.T) string {
			return writeDesc(t, "base_url: https://127.0.0.1:1\nusers:\n  - token: tok-down\n")
		}, 3, false},
		{"description error", func(t *testing.T) string {
			return writeDesc(t, "base_url: https://127.0.0.1:1\nusers: []\n")
		}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.whole && testing.Short() {
				t.Skip("a whole core run")
			}
			path := filepath.Join(dir, tc.name+".json")
			args := []string{"--profile", "core", "--seed", "2", "--eventually", "3s", "--timeout", "3s", "--json", path}
			if target := tc.target(t); target != "" {
				args = append(args, "--target", target)
			} else {
				args = append(args, "--label-filter", "USER-SHAPE")
			}
			code, out := chatconform(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, out)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			report := decode(t, raw)
			if err := sch.Validate(report); err != nil {
				t.Fatalf("the JSON report breaks suites/report/report.schema.json:\n%v", err)
			}
			if m, _ := report.(map[string]any); tc.whole && m["failedExchanges"] == nil {
				t.Error("the whole run lists no failed exchange: their part of the schema went unchecked")
			}
		})
	}

	// The schema is not one that takes anything: a field it does not
	// describe, or a duration written as text, breaks it.
	raw, err := os.ReadFile(filepath.Join(dir, "unreachable.json"))
	if err != nil {
		t.Skip("no report to alter")
	}
	for _, alter := range []func(map[string]any){
		func(m map[string]any) { m["surprise"] = true },
		func(m map[string]any) { m["durationNs"] = "1.5s" },
		func(m map[string]any) { delete(m, "format") },
	} {
		m := decode(t, raw).(map[string]any)
		alter(m)
		b, _ := json.Marshal(m)
		if err := sch.Validate(decode(t, b)); err == nil {
			t.Errorf("the schema takes an altered report: %s", b)
		}
	}
}

// reportSchema compiles suites/report/report.schema.json, formats asserted.
func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "suites", "report", "report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc := decode(t, raw)
	id, _ := doc.(map[string]any)["$id"].(string)
	if id == "" {
		t.Fatal("report.schema.json has no $id")
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// decode reads JSON as the validator wants it (numbers kept exact).
func decode(t *testing.T, raw []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
