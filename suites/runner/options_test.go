package runner

import (
	"testing"

	"github.com/chatrooms/conformance/suites/target"
)

// The checks learn that the target is the bundled server (its sole
// writer) exactly when no target was named, and get the run's budget of
// the model's sequences and of generated requests.
func TestEnvOptionsTellTheChecksTheTargetAndTheBudgets(t *testing.T) {
	d := &target.Description{BaseURL: "https://chat.example"}
	for _, bundled := range []bool{true, false} {
		o := envOptions(Config{bundled: bundled, ModelSequences: 7, Examples: 3, Seed: 5}, d, nil, &control{})
		if o.SoleWriter != bundled {
			t.Errorf("bundled %v: SoleWriter %v", bundled, o.SoleWriter)
		}
		if o.ModelSequences != 7 || o.Examples != 3 || o.Seed != 5 || o.Target != d {
			t.Errorf("bundled %v: options %+v", bundled, o)
		}
	}
}
