package selftest

import "github.com/chatrooms/conformance/suites/selftest/independent"

// heldOut6What is a defect of the sixth held-out set of the independent
// implementation (independent.HeldOut6) described in its author's words.
// Its author wrote what goes wrong and the requirement it breaks, without
// having read the checks; the fault's class in its name is the
// self-test's reading of it.
func heldOut6What(defect string) string {
	for _, d := range independent.HeldOut6() {
		if d.Name == defect {
			return "independent implementation (held out, sixth set): " + d.What
		}
	}
	panic("selftest: the independent implementation has no defect " + defect + " in its sixth held-out set")
}
