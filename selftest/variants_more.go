package selftest

// moreVariants are conforming choices on points the API document leaves
// open, each breaking an assumption a check might make.
func moreVariants() []Variant { return nil }
