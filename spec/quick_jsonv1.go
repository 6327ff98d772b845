//go:build !goexperiment.jsonv2

package spec

// quickDecoding says whether the quick path may decode a body itself: with
// encoding/json v1, kin-openapi decodes a JSON body exactly as quick.pass
// does.
const quickDecoding = true
