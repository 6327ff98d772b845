package selftest

import "github.com/chatrooms/conformance/suites/selftest/independent"

// heldOut8What is a defect of the eighth held-out set of the independent
// implementation (independent.HeldOut8) described in its author's words.
// Its author wrote what goes wrong and the requirement it breaks, without
// having read the checks; the fault's class in its name is the
// self-test's reading of it.
func heldOut8What(defect string) string {
	for _, d := range independent.HeldOut8() {
		if d.Name == defect {
			return "independent implementation (held out, eighth set): " + d.What
		}
	}
	panic("selftest: the independent implementation has no defect " + defect + " in its eighth held-out set")
}
