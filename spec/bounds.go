package spec

import "strconv"

// BeyondListBounds says a list's query asks for more than the document
// allows (a limit over 100, a skip over 5000) or gives either as no
// integer: a request the harness sends on purpose, marked so, whose
// request is not validated and whose answer is judged as any other.
func BeyondListBounds(query map[string][]string) bool {
	for key, bound := range map[string]int{"limit": 100, "skip": 5000} {
		for _, v := range query[key] {
			if n, err := strconv.Atoi(v); err != nil || n > bound {
				return true
			}
		}
	}
	return false
}
