package selftest

import "github.com/chatrooms/conformance/suites/selftest/independent"

// heldOut3What is a defect of the third held-out set of the independent
// implementation (independent.HeldOut3) described in its author's words.
// Its author wrote what goes wrong and the requirement it breaks; the
// fault's class in its name is the self-test's reading of it.
func heldOut3What(defect string) string {
	for _, d := range independent.HeldOut3() {
		if d.Name == defect {
			return "independent implementation (held out, third set): " + d.What
		}
	}
	panic("selftest: the independent implementation has no defect " + defect + " in its third held-out set")
}
