package runner

import (
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// Outputs name source files the way a reader of this repository finds them
// (suites/conformance/user.go:35), never by where the binary was built:
// Ginkgo's -v output, a panic's stack and a failure's location would
// otherwise carry the build machine's paths (/home/someone/src/...,
// /root/go/pkg/mod/..., /usr/local/go/src/...).

// moduleRoot is the directory this module was built from ("" when the
// build trimmed paths).
var moduleRoot = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) // suites/runner/scrub.go -> the module
}()

// goPath matches an absolute path to a Go source file.
var goPath = regexp.MustCompile(`(?:[A-Za-z]:)?[/\\][^\s"'<>()\[\]{}:,;]*\.go\b`)

// ScrubPaths rewrites the paths of Go source files in s relative to where
// a reader finds them: this module's files relative to the repository, a
// dependency's from its module path (github.com/onsi/ginkgo/v2@v2.34.0/...),
// the standard library's from its package (runtime/panic.go).
func ScrubPaths(s string) string {
	if strings.Contains(s, ".go") {
		s = goPath.ReplaceAllStringFunc(s, goFile)
	}
	// Any other mention of the module's directory (Ginkgo's suite path,
	// say) is relative to the repository too.
	if root := moduleRoot; len(root) > 1 && strings.Contains(s, root) {
		s = strings.ReplaceAll(s, root+string(filepath.Separator), "")
		s = strings.ReplaceAll(s, root, ".")
	}
	return s
}

// goFile is the path of a Go source file as a reader finds it.
func goFile(p string) string {
	slash := filepath.ToSlash(p)
	root := filepath.ToSlash(moduleRoot)
	switch {
	case root != "" && strings.HasPrefix(slash, root+"/"):
		return strings.TrimPrefix(slash, root+"/")
	case strings.Contains(slash, "/pkg/mod/"):
		return slash[strings.LastIndex(slash, "/pkg/mod/")+len("/pkg/mod/"):]
	case strings.Contains(slash, "/src/"):
		return slash[strings.LastIndex(slash, "/src/")+len("/src/"):]
	}
	return p
}

// scrubBytes is ScrubPaths over bytes.
func scrubBytes(b []byte) []byte {
	return []byte(ScrubPaths(string(b)))
}

// scrubWriter scrubs each write before passing it on. Paths are written
// whole by the formatters upstream (each Fprintf is one write), so a write
// is the unit.
type scrubWriter struct{ w io.Writer }

type flusher interface{ Flush() error }

func scrubbing(w io.Writer) *scrubWriter { return &scrubWriter{w} }

func (s *scrubWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(scrubBytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush flushes the writer below, when it buffers.
func (s *scrubWriter) Flush() error {
	if f, ok := s.w.(flusher); ok {
		return f.Flush()
	}
	return nil
}
