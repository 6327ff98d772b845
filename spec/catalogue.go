package spec

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Requirement is one checkable (or explicitly uncheckable) statement.
type Requirement struct {
	ID        string  `yaml:"id"`
	Level     Profile `yaml:"level"`
	Section   string  `yaml:"section"`
	Text      string  `yaml:"text"`
	Checkable *bool   `yaml:"checkable"`
	Reason    string  `yaml:"reason"`
	// JudgedAgainst names the requirements whose answers the checks of
	// this one take as their reference (a room's counts are held to the
	// unread lists). Where one of them fails in a run, a failure of this
	// one may be that failure seen again, so it is reported as BLOCKED by
	// it: one defect, one finding.
	JudgedAgainst []string `yaml:"judgedAgainst"`
}

// IsCheckable reports whether an outside client can check the requirement.
func (r Requirement) IsCheckable() bool { return r.Checkable == nil || *r.Checkable }

// InProfile reports whether a run of profile p judges the requirement: core
// requirements belong to every profile, reference ones only to reference.
func (r Requirement) InProfile(p Profile) bool { return r.Level == Core || p == Reference }

// Catalogue is the list of requirements in catalogue order.
type Catalogue struct {
	Requirements []Requirement
	byID         map[string]int
}

// Lookup returns the requirement with the given id.
func (c *Catalogue) Lookup(id string) (Requirement, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Requirement{}, false
	}
	return c.Requirements[i], true
}

// IDs returns every id, sorted.
func (c *Catalogue) IDs() []string {
	ids := make([]string, 0, len(c.Requirements))
	for _, r := range c.Requirements {
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	return ids
}

// Sections are the headings of the API document a core requirement may cite
// ("Endpoints > Details 11" cites item 11 of the Details under Endpoints;
// "What the service does > Conventions" cites the list of conventions). Reference
// requirements name the point the document leaves open that the reference
// server decides, as "Reference decision: <point>".
var Sections = []string{
	"What the service does", "Resources and their fields",
	"States and transitions", "Endpoints", "Pagination of messages",
	"Authentication", "Events", "Errors", "Limits", "Versioning",
}

// ReferenceSection starts the section of every reference requirement.
const ReferenceSection = "Reference decision: "

var idPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)

// LoadCatalogue returns the embedded catalogue, parsed and checked once.
var LoadCatalogue = sync.OnceValues(func() (*Catalogue, error) {
	raw, err := files.ReadFile("requirements.yaml")
	if err != nil {
		return nil, err
	}
	return parseCatalogue(raw)
})

func parseCatalogue(raw []byte) (*Catalogue, error) {
	var file struct {
		Requirements []Requirement `yaml:"requirements"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("requirements.yaml: %w", err)
	}
	c := &Catalogue{Requirements: file.Requirements, byID: map[string]int{}}
	for i, r := range c.Requirements {
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("requirements.yaml entry %d: %w", i+1, err)
		}
		if _, dup := c.byID[r.ID]; dup {
			return nil, fmt.Errorf("requirements.yaml: id %s appears twice", r.ID)
		}
		c.byID[r.ID] = i
	}
	for _, r := range c.Requirements {
		for _, ref := range r.JudgedAgainst {
			i, ok := c.byID[ref]
			switch {
			case !ok:
				return nil, fmt.Errorf("requirements.yaml: %s is judged against %s, which is no requirement", r.ID, ref)
			case ref == r.ID:
				return nil, fmt.Errorf("requirements.yaml: %s is judged against itself", r.ID)
			case len(c.Requirements[i].JudgedAgainst) > 0:
				// A reference that has references of its own could block
				// its way back round to the first: each stands alone.
				return nil, fmt.Errorf("requirements.yaml: %s is judged against %s, which is judged against others in turn", r.ID, ref)
			}
		}
	}
	return c, nil
}

func (r Requirement) check() error {
	switch {
	case !idPattern.MatchString(r.ID):
		return fmt.Errorf("id %q is not of the form AREA-TOPIC", r.ID)
	case r.Level != Core && r.Level != Reference:
		return fmt.Errorf("%s: level %q is neither core nor reference", r.ID, r.Level)
	case strings.TrimSpace(r.Text) == "":
		return fmt.Errorf("%s: no text", r.ID)
	case !r.IsCheckable() && r.Reason == "":
		return fmt.Errorf("%s: not checkable but no reason given", r.ID)
	}
	if r.Level == Reference {
		if !strings.HasPrefix(r.Section, ReferenceSection) {
			return fmt.Errorf("%s: a reference requirement's section is %q and the point the document leaves open, not %q", r.ID, ReferenceSection, r.Section)
		}
		return nil
	}
	head, _, _ := strings.Cut(r.Section, " > ")
	for _, s := range Sections {
		if head == s {
			return nil
		}
	}
	return fmt.Errorf("%s: section %q is not a heading of the API document", r.ID, r.Section)
}

// CatalogueSource returns the catalogue file's bytes as embedded, for a
// digest that names exactly what a run was judged by.
func CatalogueSource() ([]byte, error) { return files.ReadFile("requirements.yaml") }
