package selftest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/suites/selftest"
	"github.com/chatrooms/conformance/suites/selftest/independent"
)

// fileOfPrefix reads the table of the package comment (doc.go) that maps
// requirement id prefixes to the files their faults are declared in.
func fileOfPrefix(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	table := map[string]string{}
	for _, l := range strings.Split(f.Doc.Text(), "\n") {
		fields := strings.Fields(l)
		if len(fields) < 2 || !strings.HasSuffix(fields[len(fields)-1], ".go") {
			continue
		}
		for _, p := range fields[:len(fields)-1] {
			if !strings.HasSuffix(p, "-") || strings.ToUpper(p) != p {
				t.Fatalf("doc.go: %q in the table is not a requirement id prefix like MSG-", p)
			}
			table[p] = fields[len(fields)-1]
		}
	}
	if len(table) == 0 {
		t.Fatal("doc.go: the package comment has no table of prefixes and files")
	}
	return table
}

// faultDeclarations finds every fault declaration, Origin.fault("NAME",
// ...), in the package's files and returns the files that declare each
// name. A declaration whose name is not a string literal is reported.
func faultDeclarations(t *testing.T) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "fault" || len(call.Args) == 0 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: a fault declared with a name that is not a string literal", fset.Position(call.Pos()))
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			found[s] = append(found[s], name)
			return true
		})
	}
	return found
}

// A reader adding a fault finds its file from the requirement id alone:
// every fault is declared, once, in the file that the table of doc.go
// gives for the prefix of its requirement id.
func TestFaultsAreDeclaredInTheFileOfTheirRequirement(t *testing.T) {
	table := fileOfPrefix(t)
	declared := faultDeclarations(t)
	inCatalogue := map[string]bool{}
	for _, f := range selftest.Faults() {
		inCatalogue[f.Name] = true
		prefix, _, _ := strings.Cut(f.Req, "-")
		want, ok := table[prefix+"-"]
		files := declared[f.Name]
		switch {
		case !ok:
			t.Errorf("fault %s: no file for the prefix %s- in the table of doc.go; add it", f.Name, prefix)
		case len(files) != 1:
			t.Errorf("fault %s: declared by name in %d places %v, want once in %s", f.Name, len(files), files, want)
		case files[0] != want:
			t.Errorf("fault %s is declared in %s; %s- faults belong in %s", f.Name, files[0], prefix, want)
		}
	}
	for name, files := range declared {
		if !inCatalogue[name] {
			t.Errorf("fault %s is declared in %v but not in Faults(): is its file's list in Faults()?", name, files)
		}
	}
}

var faultName = regexp.MustCompile(`^([A-Z0-9]+(?:-[A-Z0-9]+)*)/([a-z-]+)(?:#([0-9]+))?$`)

// Names are the faults' for good and written where they are declared:
// unique among faults and variants, REQUIREMENT-ID/class with #N from #2
// on, and the requirement and class read from them.
func TestNamesAreUniqueAndWellFormed(t *testing.T) {
	seen := map[string]bool{}
	perBase := map[string][]int{}
	for _, f := range selftest.Faults() {
		if seen[f.Name] {
			t.Errorf("fault name %s twice", f.Name)
		}
		seen[f.Name] = true
		m := faultName.FindStringSubmatch(f.Name)
		if m == nil {
			t.Errorf("fault %q is not named REQUIREMENT-ID/class or REQUIREMENT-ID/class#N", f.Name)
			continue
		}
		if m[1] != f.Req || m[2] != f.Class {
			t.Errorf("fault %s: Req %q and Class %q do not match the name", f.Name, f.Req, f.Class)
		}
		n := 1
		if m[3] != "" {
			n, _ = strconv.Atoi(m[3])
			if n < 2 || m[3] != strconv.Itoa(n) {
				t.Errorf("fault %s: the number is written #2, #3 ...; the first of a class has none", f.Name)
			}
		}
		perBase[m[1]+"/"+m[2]] = append(perBase[m[1]+"/"+m[2]], n)
	}
	for base, ns := range perBase {
		if len(ns) > 1 && !slices.Contains(ns, 1) {
			t.Errorf("%s: numbered faults %v but none without a number", base, ns)
		}
	}
	for _, v := range selftest.Variants() {
		if seen[v.Name] {
			t.Errorf("variant name %s taken", v.Name)
		}
		seen[v.Name] = true
	}
}

// Every fault and variant says which round of work wrote it.
func TestEveryFaultAndVariantHasAnOrigin(t *testing.T) {
	known := selftest.Origins()
	for _, f := range selftest.Faults() {
		if !slices.Contains(known, f.Origin) {
			t.Errorf("fault %s: origin %q is not one of %v", f.Name, f.Origin, known)
		}
	}
	for _, v := range selftest.Variants() {
		if !slices.Contains(known, v.Origin) {
			t.Errorf("variant %s: origin %q is not one of %v", v.Name, v.Origin, known)
		}
	}
}

// TestEveryHeldOutDefectIsAFault checks that each defect of the two
// held-out sets of the independent implementation is declared as a fault
// of its origin exactly once, under the requirement its author named.
func TestEveryHeldOutDefectIsAFault(t *testing.T) {
	sets := []struct {
		origin selftest.Origin
		list   []independent.HeldOutDefect
	}{{selftest.HeldOut, independent.HeldOut()}, {selftest.HeldOut2, independent.HeldOut2()}, {selftest.HeldOut3, independent.HeldOut3()}, {selftest.HeldOut4, independent.HeldOut4()}, {selftest.HeldOut5, independent.HeldOut5()}, {selftest.HeldOut6, independent.HeldOut6()}, {selftest.HeldOut7, independent.HeldOut7()}, {selftest.HeldOut8, independent.HeldOut8()}}
	for _, set := range sets {
		declared := map[string]int{} // requirement and what, as declared
		for _, f := range selftest.Faults() {
			if f.Origin == set.origin {
				declared[f.Req+" "+f.What[strings.Index(f.What, ": ")+2:]]++
			}
		}
		for _, d := range set.list {
			if n := declared[d.Requirement+" "+d.What]; n != 1 {
				t.Errorf("%s: defect %s (%s) is declared as %d fault(s), want 1", set.origin, d.Name, d.Requirement, n)
			}
		}
		if total := len(declared); total != len(set.list) {
			t.Errorf("%s: %d faults, %d defects", set.origin, total, len(set.list))
		}
	}
}
