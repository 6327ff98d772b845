package selftest

import "github.com/chatrooms/conformance/suites/selftest/independent"

// heldOut5What is a defect of the fifth held-out set of the independent
// implementation (independent.HeldOut5) described in its author's words.
// Its author wrote what goes wrong and the requirement it breaks, without
// having read the checks; the fault's class in its name is the
// self-test's reading of it.
func heldOut5What(defect string) string {
	for _, d := range independent.HeldOut5() {
		if d.Name == defect {
			return "independent implementation (held out, fifth set): " + d.What
		}
	}
	panic("selftest: the independent implementation has no defect " + defect + " in its fifth held-out set")
}
