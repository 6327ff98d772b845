package selftest

import "github.com/chatrooms/conformance/suites/selftest/independent"

// heldOut7What is a defect of the seventh held-out set of the independent
// implementation (independent.HeldOut7) described in its author's words.
// Its author wrote what goes wrong and the requirement it breaks, without
// having read the checks; the fault's class in its name is the
// self-test's reading of it.
func heldOut7What(defect string) string {
	for _, d := range independent.HeldOut7() {
		if d.Name == defect {
			return "independent implementation (held out, seventh set): " + d.What
		}
	}
	panic("selftest: the independent implementation has no defect " + defect + " in its seventh held-out set")
}
