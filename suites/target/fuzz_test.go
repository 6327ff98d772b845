package target

import "testing"

// A description of any shape is either accepted or refused with an *Error;
// it never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"base_url: https://x\nusers:\n  - token: t\n", "{}", "users: 5", "base_url: [", "rooms: {org: 1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := Parse([]byte(raw))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if err := d.Check(); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("check error of type %T: %v", err, err)
			}
		}
	})
}
