package selftest

import (
	"os"
	"strings"

	"github.com/chatrooms/conformance/suites/selftest/independent"
)

// The independent implementation as a conforming variant: the core profile
// must pass a server nobody on the checks' side wrote, in a world unlike
// the reference server's (three users, the third outside the write room;
// hide_room the user's only one-to-one room; ids that are not hex; pages
// in no order, with timestamps that tie).
func independentVariants() []Variant {
	return []Variant{
		{Name: "independent-implementation", Origin: Independent, independent: true,
			What: "a second implementation written from the API description alone, with its own world, ids, page order, errors and answers where no answer is shown"},
	}
}

// independentWhat is the independent implementation's defect described
// in its author's words.
func independentWhat(defect string) string {
	what, ok := independent.Defects()[defect]
	if !ok {
		panic("selftest: the independent implementation has no defect " + defect)
	}
	return "independent implementation: " + what
}

// heldOutWhat is a held-out defect of the independent implementation
// described in its author's words.
func heldOutWhat(defect string) string {
	for _, d := range independent.HeldOut() {
		if d.Name == defect {
			return "independent implementation (held out): " + d.What
		}
	}
	panic("selftest: the independent implementation has no held-out defect " + defect)
}

// serveIndependent starts the independent implementation (with defect
// switched on, when not empty) and writes its description to desc, its
// certificate beside it. The caller must call stop.
func serveIndependent(s runSetup, defect, desc string) (stop func(), err error) {
	srv, err := independent.Start(independent.Options{Seed: s.seed, Defect: defect})
	if err != nil {
		return nil, err
	}
	caFile := strings.TrimSuffix(desc, ".json") + "-ca.pem"
	if err := os.WriteFile(caFile, srv.CAPEM, 0o600); err != nil {
		srv.Close()
		return nil, err
	}
	if err := os.WriteFile(desc, srv.Description(caFile), 0o600); err != nil {
		srv.Close()
		return nil, err
	}
	return func() { srv.Close() }, nil
}
