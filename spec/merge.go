package spec

import "fmt"

// merge applies an overlay to a decoded YAML document in place and returns it.
//
// The rules are deliberately few, so that the overlay reads like the part of
// the document it changes:
//   - mappings merge key by key, recursively;
//   - a null overlay value deletes the key;
//   - a list under the key "required" (a schema's required properties) is united with the base list, keeping
//     the base order and appending new names;
//   - any other value, lists included, replaces the base value.
func merge(base, overlay any, path string) (any, error) {
	over, ok := overlay.(map[string]any)
	if !ok {
		return overlay, nil
	}
	into, ok := base.(map[string]any)
	if !ok {
		if base != nil {
			return nil, fmt.Errorf("overlay: %s is a mapping in the overlay but not in the document", path)
		}
		into = map[string]any{}
	}
	for key, value := range over {
		where := path + "/" + key
		switch {
		case value == nil:
			if _, exists := into[key]; !exists {
				return nil, fmt.Errorf("overlay: %s deletes a key the document does not have", where)
			}
			delete(into, key)
		case key == "required" && isList(value):
			united, err := unite(into[key], value, where)
			if err != nil {
				return nil, err
			}
			into[key] = united
		default:
			merged, err := merge(into[key], value, where)
			if err != nil {
				return nil, err
			}
			into[key] = merged
		}
	}
	return into, nil
}

func unite(base, extra any, path string) ([]any, error) {
	have, _ := base.([]any)
	add, ok := extra.([]any)
	if !ok {
		return nil, fmt.Errorf("overlay: %s must be a list", path)
	}
	out := append([]any(nil), have...)
	seen := make(map[any]bool, len(have))
	for _, name := range have {
		seen[name] = true
	}
	for _, name := range add {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out, nil
}

func isList(v any) bool {
	_, ok := v.([]any)
	return ok
}
