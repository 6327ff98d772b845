package selftest

import (
	"net/url"
	"sort"
	"strconv"
)

// dropParam removes a query parameter of listMessages before it goes in.
func dropParam(name string) step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		q.Del(name)
		c.setQuery(q)
	})
}

// has reports whether the query q gives k a value that is not empty.
func has(q map[string][]string, k string) bool { return len(q[k]) > 0 && q[k][0] != "" }

// setParam sets (or, with "", removes) a query parameter of the request.
func setParam(c *call, k, v string) {
	q := c.query()
	if v == "" {
		q.Del(k)
	} else {
		q.Set(k, v)
	}
	c.setQuery(q)
}

// swapParam sends parameter from as parameter to.
func swapParam(from, to string) step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		if v := q.Get(from); v != "" {
			q.Del(from)
			q.Set(to, v)
			c.setQuery(q)
		}
	})
}

// sortBySent orders messages by sent time, then id: oldest first, as the
// reference lists them.
func sortBySent(list []any) {
	key := func(v any) string {
		m, _ := v.(map[string]any)
		return asString(m["sent"]) + asString(m["id"])
	}
	sort.SliceStable(list, func(i, j int) bool { return key(list[i]) < key(list[j]) })
}

// pageLimit is the page size a list request asks for, as the reference
// reads it (default 50, at most 100); ok is false for a limit the reference
// refuses.
func pageLimit(q url.Values) (int, bool) {
	raw := q.Get("limit")
	if raw == "" {
		return 50, true
	}
	n, err := strconv.Atoi(raw)
	switch {
	case err != nil || n < 0:
		return 0, false
	case n == 0:
		return 50, true
	}
	return min(n, 100), true
}
