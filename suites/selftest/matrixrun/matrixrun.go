// Package matrixrun runs chatconform selftest from a test and fails the
// test with each problem its kill matrix lists. The self-test is split
// over several test packages (faults, variants, held-out faults, world
// shapes) so that each fits in go test's default ten-minute budget.
package matrixrun

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// The self-test runs a chatconform it builds, which go test's cache
	// cannot see: linking what that binary is made of into the test makes
	// a change to the checks or the judges run the test again rather than
	// replay a cached pass (a test package outside suites/selftest imports
	// that package too, for the faults and variants).
	_ "github.com/chatrooms/conformance/suites/runner"
)

// Build builds chatconform into a temporary directory of t.
func Build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "chatconform")
	build := exec.Command("go", "build", "-o", bin, "github.com/chatrooms/conformance/cmd/chatconform")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Check runs chatconform selftest with args (and --seed 1, --worlds 0 and
// a matrix file of its own) and reports every problem its matrix lists;
// the exit status must agree with them. CHATCONFORM_SELFTEST_MATRIX, when
// set, names where the matrix is kept.
func Check(t *testing.T, args ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("the self-test runs chatconform once per fault and variant")
	}
	bin := Build(t)
	matrix := os.Getenv("CHATCONFORM_SELFTEST_MATRIX")
	if matrix == "" {
		matrix = filepath.Join(t.TempDir(), "matrix.txt")
	}
	cmd := exec.CommandContext(t.Context(), bin, append([]string{"selftest", "--seed", "1", "--matrix", matrix, "--worlds", "0"}, args...)...)
	cmd.Env = append(os.Environ(), "CHATCONFORM_MAIN=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("chatconform selftest: %v\n%s", err, out)
	}
	raw, rerr := os.ReadFile(matrix)
	if rerr != nil {
		t.Fatalf("chatconform selftest wrote no matrix: %v\n%s", rerr, out)
	}
	t.Logf("kill matrix:\n%s", raw)
	problems := Problems(string(raw))
	for _, p := range problems {
		t.Error(p)
	}
	if (err == nil) != (len(problems) == 0) {
		t.Errorf("chatconform selftest exit status (%v) disagrees with the %d problem(s) its matrix lists", err, len(problems))
	}
}

// Problems returns the problems a written matrix lists at its end.
func Problems(matrix string) []string {
	_, tail, ok := strings.Cut(matrix, " problem(s)\n")
	if !ok {
		return []string{"the matrix has no problem list"}
	}
	var out []string
	for _, l := range strings.Split(tail, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
