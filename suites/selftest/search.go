package selftest

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// searchFaults break the requirement of search (SEARCH-*): q on the message
// list.
func searchFaults() []Fault {
	return []Fault{
		ByClass.fault("SEARCH-Q/ignores-input", "q is ignored: the newest page comes back", dropParam("q")),
		BlindRound2.fault("SEARCH-Q/ignores-input#2", "a search of several words looks for the first word only",
			onRequest("listMessages", func(c *call) {
				if terms := strings.Fields(c.query().Get("q")); len(terms) > 1 {
					setParam(c, "q", terms[0])
				}
			})),
		FirstCatalogue.fault("SEARCH-Q/wrong-subject", "a search finds nothing",
			onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					x.set([]any{})
				}
			})),
		BlindRound1.fault("SEARCH-Q/wrong-subject#2", "a search looks at the room's newest 50 messages only",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				terms := strings.Fields(strings.ToLower(q.Get("q")))
				if len(terms) == 0 || has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") || has(q, "skip") {
					return next()
				}
				limit := 50
				if n, ok := c.intParam("limit"); ok && n > 0 {
					limit = min(n, 100)
				}
				x := c.do("GET", c.r.URL.Path, url.Values{"limit": {"50"}}, nil)
				if !x.ok() {
					return next()
				}
				found := filter(x.get(), func(m map[string]any) bool {
					text := strings.ToLower(asString(m["text"]))
					for _, t := range terms {
						if !strings.Contains(text, t) {
							return false
						}
					}
					return true
				})
				l := asList(found)
				x.set(l[max(0, len(l)-limit):])
				return x
			})),
		BlindRound2.fault("SEARCH-Q/wrong-subject#3", "a search matches only texts that start with the query",
			onSuccess("listMessages", func(c *call, x *reply) {
				s := strings.ToLower(strings.TrimSpace(c.query().Get("q")))
				if s == "" {
					return
				}
				x.set(filter(x.get(), func(m map[string]any) bool { return strings.HasPrefix(strings.ToLower(asString(m["text"])), s) }))
			})),
		ByClass.fault("SEARCH-Q/stale-derived", "search finds only messages of the seeded history",
			onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					x.set(filter(x.get(), func(m map[string]any) bool { _, old := c.st.readBy[asString(m["id"])]; return old }))
				}
			})),
		BlindRound2.fault("SEARCH-Q/stale-derived#2", "search matches an edited message by its text before the edit, not the new one",
			answer("updateMessage", func(c *call, next func() *reply) *reply {
				old, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
				x := next()
				if x.ok() && old != nil {
					if _, seen := c.st.value("b3-indexed:" + c.msg); !seen {
						c.st.setValue("b3-indexed:"+c.msg, old["text"])
					}
					c.st.add("b3-edited:"+c.room, c.msg, 1)
				}
				return x
			}),
			onSuccess("listMessages", func(c *call, x *reply) {
				q := c.query()
				terms := strings.Fields(strings.ToLower(q.Get("q")))
				if len(terms) == 0 {
					return
				}
				indexed := func(id string) (string, bool) {
					v, ok := c.st.value("b3-indexed:" + id)
					return asString(v), ok
				}
				list := asList(filter(x.get(), func(m map[string]any) bool {
					old, ok := indexed(asString(m["id"]))
					return !ok || matchesAll(old, terms)
				}))
				have := ids(list)
				for _, id := range sortedKeys(c, "b3-edited:"+c.room) {
					if old, _ := indexed(id); matchesAll(old, terms) && !slices.Contains(have, id) {
						if m, ok := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+id, nil, nil).get().(map[string]any); ok {
							list = append(list, m)
						}
					}
				}
				sortBySent(list)
				x.set(list)
			})),
		ByClass.fault("SEARCH-Q/intermittent", "one search in two finds nothing",
			everyNth(2, "listMessages", onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					x.set([]any{})
				}
			}))),
	}
}

// searchVariants choose differently in what a search matches, in which order
// and how many, and what it makes of cursors.
func searchVariants() []Variant {
	return []Variant{
		{Name: "search-newest-first", Origin: FirstCatalogue, What: "returns search results newest first",
			steps: []step{onSuccess("listMessages", func(c *call, x *reply) {
				if c.query().Get("q") != "" {
					slices.Reverse(asList(x.get()))
				}
			})}},
		{Name: "search-whole-words", Origin: OpenPoints, What: "search matches whole words of the text, not substrings",
			steps: []step{onSuccess("listMessages", func(c *call, x *reply) {
				terms := strings.Fields(strings.ToLower(c.query().Get("q")))
				if len(terms) == 0 {
					return
				}
				x.set(filter(x.get(), func(m map[string]any) bool {
					words := map[string]bool{}
					for _, w := range wordSplit.Split(strings.ToLower(asString(m["text"])), -1) {
						words[w] = true
					}
					for _, t := range terms {
						if !words[t] {
							return false
						}
					}
					return true
				}))
			})}},
		{Name: "search-case-sensitive", Origin: BlindRound1, What: "matches search terms case-sensitively",
			steps: []step{onSuccess("listMessages", func(c *call, x *reply) {
				terms := strings.Fields(c.query().Get("q"))
				if len(terms) == 0 {
					return
				}
				x.set(filter(x.get(), func(m map[string]any) bool {
					for _, t := range terms {
						if !strings.Contains(asString(m["text"]), t) {
							return false
						}
					}
					return true
				}))
			})}},
		{Name: "search-ignores-cursors", Origin: BlindRound2, What: "ignores beforeId and afterId in a search (with q): the newest matches come back",
			steps: []step{onRequest("listMessages", func(c *call) {
				if c.query().Get("q") != "" {
					setParam(c, "beforeId", "")
					setParam(c, "afterId", "")
				}
			})}},
		{Name: "search-any-term", Origin: BlindRound2, What: "matches a search of several words when any one of them occurs (or, not and); a one-word search is as the reference's",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				terms := strings.Fields(q.Get("q"))
				limit, ok := pageLimit(q)
				if len(terms) < 2 || !ok {
					return next()
				}
				list := []any{} // no match is an empty list, not null
				var seen []string
				for _, t := range terms {
					one := url.Values{}
					for k, v := range q {
						if k != "access_token" {
							one[k] = v
						}
					}
					one.Set("q", t)
					y := c.do("GET", c.r.URL.Path, one, nil)
					if !y.ok() {
						return y
					}
					each(y.get(), func(m map[string]any) {
						if id := asString(m["id"]); !slices.Contains(seen, id) {
							seen = append(seen, id)
							list = append(list, m)
						}
					})
				}
				sortBySent(list)
				x := &reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}}
				x.set(list[max(0, len(list)-limit):])
				return x
			})}},
		{Name: "search-max-20", Origin: BlindRound2, What: "returns at most 20 matches to a search, whatever limit asks for (limit is a maximum)",
			steps: []step{onRequest("listMessages", func(c *call) {
				if q := c.query(); q.Get("q") != "" {
					if n, ok := pageLimit(q); ok && n > 20 {
						setParam(c, "limit", "20")
					}
				}
			})}},
	}
}

var wordSplit = regexp.MustCompile(`[^\p{L}\p{N}_]+`)

// matchesAll reports whether text holds every term, without regard to case.
func matchesAll(text string, terms []string) bool {
	text = strings.ToLower(text)
	for _, t := range terms {
		if !strings.Contains(text, t) {
			return false
		}
	}
	return true
}

// heldOutSearchFaults are the held-out defects of the independent implementation
// whose requirements belong to this file (see HeldOut).
func heldOutSearchFaults() []Fault {
	return []Fault{
		HeldOut.fault("SEARCH-Q/intermittent#2", heldOutWhat("search-flaky")).inIndependent("search-flaky"),
		HeldOut.fault("SEARCH-Q/ignores-input#3", heldOutWhat("search-lowercase-query-only")).inIndependent("search-lowercase-query-only"),
		HeldOut.fault("SEARCH-Q/stale-derived#3", heldOutWhat("search-stale-after-edit")).inIndependent("search-stale-after-edit"),
	}
}

// heldOut2SearchFaults are the defects of the second held-out set (independent.HeldOut2)
// whose requirements belong to this file.
func heldOut2SearchFaults() []Fault {
	return []Fault{
		HeldOut2.fault("SEARCH-Q/ignores-input#4", heldOut2What("search-filters-page")).inIndependent("search-filters-page"),
		HeldOut2.fault("SEARCH-Q/ignores-input#5", heldOut2What("search-status-excluded")).inIndependent("search-status-excluded"),
	}
}

// heldOut3SearchFaults are the defects of the third held-out set (independent.HeldOut3)
// whose requirements belong to this file (see heldOut3What).
func heldOut3SearchFaults() []Fault {
	return []Fault{
		HeldOut3.fault("SEARCH-Q/ignores-input#6", heldOut3What("search-ascii-fold-query")).inIndependent("search-ascii-fold-query"),
		HeldOut3.fault("SEARCH-Q/ignores-input#7", heldOut3What("search-plus-not-space")).inIndependent("search-plus-not-space"),
	}
}

// heldOut4SearchFaults are the defects of the fourth held-out set (independent.HeldOut4)
// whose requirements belong to this file (see heldOut4What).
func heldOut4SearchFaults() []Fault {
	return []Fault{
		HeldOut4.fault("SEARCH-Q/ignores-input#8", heldOut4What("search-query-html-escaped")).inIndependent("search-query-html-escaped"),
		HeldOut4.fault("SEARCH-Q/wrong-subject#4", heldOut4What("search-prefix-of-text")).inIndependent("search-prefix-of-text"),
	}
}

// heldOut5SearchFaults are the defects of the fifth held-out set (independent.HeldOut5)
// whose requirements belong to this file (see heldOut5What).
func heldOut5SearchFaults() []Fault {
	return []Fault{
		HeldOut5.fault("SEARCH-Q/ignores-input#9", heldOut5What("search-digits-split")).inIndependent("search-digits-split"),
		HeldOut5.fault("SEARCH-Q/stale-derived#4", heldOut5What("search-results-cached")).inIndependent("search-results-cached"),
	}
}

// heldOut6SearchFaults are the defects of the sixth held-out set (independent.HeldOut6)
// whose requirements belong to this file (see heldOut6What).
func heldOut6SearchFaults() []Fault {
	return []Fault{
		HeldOut6.fault("SEARCH-Q/ignores-input#10", heldOut6What("search-skips-own-messages")).inIndependent("search-skips-own-messages"),
		HeldOut6.fault("SEARCH-Q/ignores-input#11", heldOut6What("search-token-keeps-punctuation")).inIndependent("search-token-keeps-punctuation"),
	}
}

// heldOut7SearchFaults are the defects of the seventh held-out set (independent.HeldOut7)
// whose requirements belong to this file (see heldOut7What).
func heldOut7SearchFaults() []Fault {
	return []Fault{
		HeldOut7.fault("SEARCH-Q/ignores-input#12", heldOut7What("search-short-words-unindexed")).inIndependent("search-short-words-unindexed"),
		HeldOut7.fault("SEARCH-Q/intermittent#3", heldOut7What("search-shard-missing-flaky")).inIndependent("search-shard-missing-flaky"),
		HeldOut7.fault("SEARCH-Q/not-stored", heldOut7What("search-indexes-preview-only")).inIndependent("search-indexes-preview-only"),
	}
}

// heldOut8SearchFaults are the defects of the eighth held-out set (independent.HeldOut8)
// whose requirements belong to this file (see heldOut8What).
func heldOut8SearchFaults() []Fault {
	return []Fault{
		HeldOut8.fault("SEARCH-Q/stale-derived#5", heldOut8What("search-edited-unfindable")).inIndependent("search-edited-unfindable"),
		HeldOut8.fault("SEARCH-Q/stale-derived#6", heldOut8What("search-index-one-behind")).inIndependent("search-index-one-behind"),
	}
}
