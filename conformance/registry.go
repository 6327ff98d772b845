// Package conformance holds the conformance specs (Ginkgo and Gomega) and what
// they share. Register declares every spec against an environment getter
// that is evaluated when specs run, after flags are parsed and the target is
// known; it returns the list of checks, so a run can be organised by
// requirement and a test can prove every requirement has a check.
package conformance

import (
	"fmt"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chatrooms/conformance/spec"
)

// Check is one spec: its full name, the requirement ids it verifies and the
// profile it belongs to (the strictest level of its ids).
type Check struct {
	Name    string
	IDs     []string
	Profile spec.Profile
}

// registry declares specs to Ginkgo, or, in collect mode, only lists them
// as Checks. Two passes are needed because Ginkgo runs container bodies
// lazily, when RunSpecs builds its tree.
type registry struct {
	cat     *spec.Catalogue
	collect bool
	path    []string
	checks  []Check
}

func (r *registry) describe(text string, body func()) {
	if !r.collect {
		Describe(text, body)
		return
	}
	r.path = append(r.path, text)
	defer func() { r.path = r.path[:len(r.path)-1] }()
	body()
}

// it declares a spec verifying the given requirement ids. Its labels are the
// ids plus the profile, so --label-filter can select by either.
func (r *registry) it(text string, ids []string, body func()) {
	if len(ids) == 0 {
		panic("conformance: spec " + text + " names no requirement")
	}
	profile := spec.Core
	for _, id := range ids {
		req, ok := r.cat.Lookup(id)
		if !ok {
			panic(fmt.Sprintf("conformance: spec %q names unknown requirement %s", text, id))
		}
		if req.Level == spec.Reference {
			profile = spec.Reference
		}
	}
	if r.collect {
		r.checks = append(r.checks, Check{Name: strings.Join(append(append([]string(nil), r.path...), text), " "), IDs: ids, Profile: profile})
		return
	}
	It(text, Label(append(append([]string(nil), ids...), string(profile))...), body)
}

// ids is shorthand for a requirement list.
func ids(s ...string) []string { return s }

var areas = []func(*registry, func() *Env){
	transportSpecs, userSpecs, roomSpecs, messageSpecs, renderingSpecs,
	versioningSpecs, paginationSpecs, limitSpecs, searchSpecs, unreadSpecs,
	referenceSpecs,
}

// Checks lists every spec without declaring anything to Ginkgo.
func Checks() []Check {
	r := &registry{cat: catalogue(), collect: true}
	for _, area := range areas {
		area(r, nil)
	}
	sort.SliceStable(r.checks, func(i, j int) bool { return r.checks[i].Name < r.checks[j].Name })
	return r.checks
}

// Register declares every spec to Ginkgo and returns them as Checks. env is
// called when a spec runs. Call it once per process, before RunSpecs.
func Register(env func() *Env) []Check {
	r := &registry{cat: catalogue()}
	for _, area := range areas {
		area(r, env)
	}
	return Checks()
}

func catalogue() *spec.Catalogue {
	cat, err := spec.LoadCatalogue()
	if err != nil {
		panic(err)
	}
	return cat
}

// ProfileFilter is the label filter that keeps a run to a profile's checks.
func ProfileFilter(p spec.Profile) string {
	if p == spec.Core {
		return "!reference"
	}
	return ""
}
