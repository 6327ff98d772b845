package selftest

import "github.com/chatrooms/conformance/suites/selftest/independent"

// heldOut2What is a defect of the second held-out set of the independent
// implementation (independent.HeldOut2) described in its author's words.
// Its author wrote what goes wrong and the requirement it breaks; the
// fault's class in its name is the self-test's reading of it.
func heldOut2What(defect string) string {
	for _, d := range independent.HeldOut2() {
		if d.Name == defect {
			return "independent implementation (held out, second set): " + d.What
		}
	}
	panic("selftest: the independent implementation has no defect " + defect + " in its second held-out set")
}
