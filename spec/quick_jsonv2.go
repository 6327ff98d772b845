//go:build goexperiment.jsonv2

package spec

// With encoding/json v2, kin-openapi also rejects duplicate object keys when
// it decodes a body, which quick.pass does not mirror: every response takes
// the full path.
const quickDecoding = false
