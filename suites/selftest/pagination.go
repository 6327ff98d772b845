package selftest

import (
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// paginationFaults break the requirements of pagination and limits (PAGE-*,
// LIMIT-*): limit, skip, beforeId, afterId and aroundId of the message list,
// and the bounds on limit and skip.
func paginationFaults() []Fault {
	return []Fault{
		FirstCatalogue.fault("PAGE-LIMIT/ignores-input", "a page holds one message more than limit", pageOneMore()),
		ByClass.fault("PAGE-LIMIT/ignores-input#2", "limit is ignored: every page holds 50", dropParam("limit")),
		BlindRound1.fault("PAGE-LIMIT/ignores-input#3", "limit counts the seeded history only: a newest page also holds every message sent since start",
			recordSends("b-new"),
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				if has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") || has(q, "q") || has(q, "skip") {
					return next()
				}
				x := next()
				fresh := c.st.keys("b-new:" + c.room)
				if !x.ok() || len(fresh) == 0 {
					return x
				}
				list := asList(x.get())
				have := ids(list)
				each(c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", url.Values{"limit": {"100"}}, nil).get(), func(m map[string]any) {
					if id := asString(m["id"]); slices.Contains(fresh, id) && !slices.Contains(have, id) {
						list = append(list, m)
					}
				})
				sortBySent(list)
				x.set(list)
				return x
			})),
		BlindRound2.fault("PAGE-LIMIT/ignores-input#4", "afterId pages ignore limit and hold up to 100 messages",
			onRequest("listMessages", func(c *call) {
				if has(c.query(), "afterId") {
					setParam(c, "limit", "100")
				}
			})),
		BlindRound2.fault("PAGE-LIMIT/ignores-input#5", "a search ignores limit and returns up to 100 matches",
			onRequest("listMessages", func(c *call) {
				if has(c.query(), "q") {
					setParam(c, "limit", "100")
				}
			})),
		ByClass.fault("PAGE-LIMIT/wrong-subject", "a limit below 10 gives 10",
			onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("limit"); ok && n > 0 && n < 10 {
					setParam(c, "limit", "10")
				}
			})),
		ByClass.fault("PAGE-LIMIT/intermittent", "one page in three holds one message more than limit", everyNth(3, "listMessages", pageOneMore())),

		ByClass.fault("PAGE-BEFOREID-WALK/ignores-input", "beforeId deeper than 200 messages answers an empty page", shallowBefore(200)),
		BlindRound1.fault("PAGE-BEFOREID-WALK/ignores-input#2", "a beforeId page past the oldest message answers the newest page instead of an empty one",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				if !has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") {
					return next()
				}
				x := next()
				if x.ok() && len(asList(x.get())) == 0 {
					q.Del("beforeId")
					q.Del("access_token")
					return c.do("GET", c.r.URL.Path, q, nil)
				}
				return x
			})),
		FirstCatalogue.fault("PAGE-BEFOREID/wrong-subject#5", "beforeId includes the cursor message, so a walk would see it twice", inclusiveBefore()),
		ByClass.fault("PAGE-BEFOREID-WALK/wrong-subject", "beforeId skips the message right before the cursor", skippingBefore()),
		BlindRound2.fault("PAGE-BEFOREID-WALK/wrong-subject#3", "a beforeId page counts the cursor against limit and holds limit-1 messages, so a walk stops early",
			onRequest("listMessages", func(c *call) {
				q := c.query()
				if !has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") || has(q, "q") {
					return
				}
				if n, ok := pageLimit(q); ok && n > 1 {
					setParam(c, "limit", strconv.Itoa(n-1))
				}
			})),
		ByClass.fault("PAGE-BEFOREID-WALK/intermittent", "one beforeId page in four includes the cursor", everyNth(4, "listMessages", inclusiveBefore())),

		FirstCatalogue.fault("PAGE-BEFOREID/ignores-input", "beforeId is ignored", dropParam("beforeId")),
		ByClass.fault("PAGE-BEFOREID/ignores-input#2", "beforeId is ignored when a limit is given",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("limit") != "" {
					setParam(c, "beforeId", "")
				}
			})),
		BlindRound1.fault("PAGE-BEFOREID/ignores-input#3", "beforeId is ignored in a search (with q)",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("q") != "" {
					setParam(c, "beforeId", "")
				}
			})),
		ByClass.fault("PAGE-BEFOREID/wrong-subject", "beforeId answers the messages after it", swapParam("beforeId", "afterId")),
		ByClass.fault("PAGE-BEFOREID/intermittent", "one request in three ignores beforeId", everyNth(3, "listMessages", dropParam("beforeId"))),

		ByClass.fault("PAGE-AFTERID/ignores-input", "afterId is ignored", dropParam("afterId")),
		BlindRound1.fault("PAGE-AFTERID/ignores-input#2", "afterId is ignored in a search (with q)",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("q") != "" {
					setParam(c, "afterId", "")
				}
			})),
		FirstCatalogue.fault("PAGE-AFTERID/wrong-subject", "afterId answers the messages before it",
			onRequest("listMessages", func(c *call) {
				q := c.query()
				if a := q.Get("afterId"); a != "" {
					q.Del("afterId")
					q.Set("beforeId", a)
					c.setQuery(q)
				}
			})),
		ByClass.fault("PAGE-AFTERID/wrong-subject#2", "afterId includes the cursor message", inclusiveAfter()),
		BlindRound2.fault("PAGE-AFTERID/wrong-subject#3", "afterId skips the message right after the cursor",
			onRequest("listMessages", func(c *call) {
				q := c.query()
				if !has(q, "afterId") || has(q, "q") {
					return
				}
				if next := neighbour(c, q.Get("afterId"), "afterId"); next != "" {
					setParam(c, "afterId", next)
				}
			})),
		ByClass.fault("PAGE-AFTERID/intermittent", "one request in three answers the messages before afterId", everyNth(3, "listMessages", swapParam("afterId", "beforeId"))),

		ByClass.fault("PAGE-AROUNDID/ignores-input", "aroundId is ignored: the newest page comes back", dropParam("aroundId")),
		// Declared first under PAGE-AROUNDID; a window of 100 messages around
		// the anchor keeps that statement, and a page longer than its limit
		// breaks PAGE-LIMIT's, which is where the checks file it.
		BlindRound1.fault("PAGE-LIMIT/ignores-input#7", "aroundId ignores limit and answers 100 messages",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("aroundId") != "" {
					setParam(c, "limit", "100")
				}
			})),
		BlindRound2.fault("PAGE-AROUNDID/ignores-input#3", "aroundId looks for the anchor among the newest 100 messages only; an older anchor gives the newest page",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				a := q.Get("aroundId")
				if a == "" {
					return next()
				}
				if slices.Contains(ids(c.do("GET", c.r.URL.Path, url.Values{"limit": {"100"}}, nil).get()), a) {
					return next()
				}
				q.Del("aroundId")
				q.Del("access_token")
				return c.do("GET", c.r.URL.Path, q, nil)
			})),
		FirstCatalogue.fault("PAGE-AROUNDID/wrong-subject", "aroundId leaves the anchor out",
			onSuccess("listMessages", func(c *call, x *reply) {
				if a := c.query().Get("aroundId"); a != "" {
					x.set(filter(x.get(), func(m map[string]any) bool { return m["id"] != a }))
				}
			})),
		ByClass.fault("PAGE-AROUNDID/wrong-subject#2", "aroundId answers only the messages after the anchor", swapParam("aroundId", "afterId")),
		ByClass.fault("PAGE-AROUNDID/intermittent", "one aroundId page in two leaves the anchor out",
			everyNth(2, "listMessages", onSuccess("listMessages", func(c *call, x *reply) {
				a := c.query().Get("aroundId")
				x.set(filter(x.get(), func(m map[string]any) bool { return a == "" || m["id"] != a }))
			}))),

		FirstCatalogue.fault("PAGE-SKIP/ignores-input", "skip is ignored", dropParam("skip")),
		BlindRound1.fault("PAGE-SKIP/ignores-input#2", "skip is ignored when beforeId is given",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("beforeId") != "" {
					setParam(c, "skip", "")
				}
			})),
		ByClass.fault("PAGE-SKIP/wrong-subject", "skip n leaves out n-1 messages",
			onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("skip"); ok && n > 0 {
					setParam(c, "skip", strconv.Itoa(n-1))
				}
			})),
		ByClass.fault("PAGE-SKIP/wrong-subject#2", "skip counts from the oldest message", skipFromOldest()),
		BlindRound2.fault("PAGE-SKIP/wrong-subject#3", "skip is applied after limit: the newest page of limit loses its n newest messages",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				n, err := strconv.Atoi(q.Get("skip"))
				if err != nil || n <= 0 || n > 5000 || has(q, "beforeId") || has(q, "afterId") || has(q, "aroundId") || has(q, "q") {
					return next()
				}
				q.Del("skip")
				q.Del("access_token")
				x := c.do("GET", c.r.URL.Path, q, nil)
				if !x.ok() {
					return next()
				}
				list := asList(x.get())
				sortBySent(list)
				x.set(list[:max(0, len(list)-n)])
				return x
			})),
		ByClass.fault("PAGE-SKIP/intermittent", "one request in three ignores skip", everyNth(3, "listMessages", dropParam("skip"))),

		ByClass.fault("LIMIT-100/ignores-input", "limit=100 gives the default page of 50",
			onRequest("listMessages", func(c *call) {
				if c.query().Get("limit") == "100" {
					setParam(c, "limit", "")
				}
			})),
		BlindRound1.fault("LIMIT-100/ignores-input#2", "limit=100 gives 50 messages on beforeId pages",
			onRequest("listMessages", func(c *call) {
				if q := c.query(); q.Get("limit") == "100" && q.Get("beforeId") != "" {
					setParam(c, "limit", "50")
				}
			})),
		FirstCatalogue.fault("LIMIT-100/wrong-subject", "limit=100 is cut to 99",
			onRequest("listMessages", func(c *call) {
				q := c.query()
				if q.Get("limit") == "100" {
					q.Set("limit", "99")
					c.setQuery(q)
				}
			})),
		ByClass.fault("LIMIT-100/wrong-subject#2", "a limit above 60 gives 60",
			onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("limit"); ok && n > 60 {
					setParam(c, "limit", "60")
				}
			})),
		ByClass.fault("LIMIT-100/intermittent", "one limit=100 in two gives 99",
			everyNth(2, "listMessages", onRequest("listMessages", func(c *call) {
				if c.query().Get("limit") == "100" {
					setParam(c, "limit", "99")
				}
			}))),

		FirstCatalogue.fault("LIMIT-CAP/ignores-input", "a limit above 100 is honoured", honourLimit()),
		ByClass.fault("LIMIT-CAP/ignores-input#2", "a limit above 100 gives 101 messages", capAt(101)),
		ByClass.fault("LIMIT-CAP/ignores-input#3", "a limit above 100 gives up to 1000 messages", capAt(1000)),
		BlindRound1.fault("LIMIT-CAP/ignores-input#4", "a limit above 100 is clamped on the newest page but honoured on beforeId pages",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				n, err := strconv.Atoi(q.Get("limit"))
				if err != nil || n <= 100 || !has(q, "beforeId") {
					return next()
				}
				x := next()
				return olderToo(c, q, x, n-len(asList(x.get())))
			})),
		BlindRound2.fault("LIMIT-CAP/ignores-input#5", "aroundId honours a limit above 100: up to limit/2 messages (at most 100) on each side of the anchor",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				a := q.Get("aroundId")
				n, err := strconv.Atoi(q.Get("limit"))
				if a == "" || err != nil || n <= 100 || has(q, "q") {
					return next()
				}
				anchor := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+a, nil, nil)
				if !anchor.ok() {
					return next()
				}
				half := strconv.Itoa(n / 2)
				list := asList(c.do("GET", c.r.URL.Path, url.Values{"beforeId": {a}, "limit": {half}}, nil).get())
				list = append(list, anchor.get())
				list = append(list, asList(c.do("GET", c.r.URL.Path, url.Values{"afterId": {a}, "limit": {half}}, nil).get())...)
				sortBySent(list)
				anchor.set(list)
				return anchor
			})),
		ByClass.fault("LIMIT-CAP/intermittent", "one limit above 100 in two is honoured", everyNth(2, "listMessages", honourLimit())),

		ByClass.fault("LIMIT-SKIP-5000/ignores-input", "skip above 1000 is ignored",
			onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("skip"); ok && n > 1000 {
					setParam(c, "skip", "")
				}
			})),
		BlindRound1.fault("LIMIT-SKIP-5000/ignores-input#2", "skip above 2500 answers an empty page",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				x := next()
				if n, ok := c.intParam("skip"); ok && n > 2500 && x.ok() {
					x.set([]any{})
				}
				return x
			})),
		FirstCatalogue.fault("LIMIT-SKIP-5000/wrong-subject", "skip above 4000 is refused",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("skip"); ok && n > 4000 {
					return refuse(http.StatusBadRequest, "skip too large")
				}
				return next()
			})),
		ByClass.fault("LIMIT-SKIP-5000/wrong-subject#2", "skip=5000 is refused (the bound is taken as exclusive)",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("skip"); ok && n >= 5000 {
					return refuse(http.StatusBadRequest, "skip too large")
				}
				return next()
			})),
		ByClass.fault("LIMIT-SKIP-5000/intermittent", "one skip above 4000 in two is refused",
			everyNth(2, "listMessages", answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("skip"); ok && n > 4000 {
					return refuse(http.StatusBadRequest, "skip too large")
				}
				return next()
			}))),
		Independent.fault("PAGE-BEFOREID/wrong-subject#2", independentWhat("before-inclusive")).inIndependent("before-inclusive"),
		Independent.fault("PAGE-AROUNDID/wrong-subject#3", independentWhat("around-drops-anchor")).inIndependent("around-drops-anchor"),
		Independent.fault("LIMIT-CAP/ignores-input#6", independentWhat("limit-unbounded")).inIndependent("limit-unbounded"),
		HistoryRound.fault("PAGE-UNIQUE/shape", "a page of ten messages or more holds its first message again in place of its last",
			onSuccess("listMessages", func(c *call, x *reply) {
				if list := asList(x.get()); len(list) >= 10 {
					list[len(list)-1] = list[0]
				}
			})).inWholeRun(),
	}
}

// paginationVariants choose differently in the order of a page, the default
// page size, where an aroundId page puts its anchor, and the answer to limits,
// skips and cursors the document gives no answer for.
func paginationVariants() []Variant {
	return []Variant{
		{Name: "shuffled-pages-tied-times", Origin: OtherWorlds,
			What: "returns every page's messages in no particular order (the same messages, the same page boundaries) and writes sent and editedAt to the second, so that messages sent close together tie",
			steps: []step{
				messages("msgs", func(c *call, m map[string]any) {
					for _, k := range []string{"sent", "editedAt"} {
						if t, ok := m[k]; ok {
							m[k] = toSeconds(t)
						}
					}
				}),
				onSuccess("listMessages", func(c *call, x *reply) {
					list := asList(x.get())
					r := rand.New(rand.NewPCG(uint64(len(list)), uint64(time.Now().UnixNano())))
					r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
				}),
			}},
		{Name: "newest-first", Origin: FirstCatalogue, What: "lists messages newest first",
			steps: []step{onSuccess("listMessages", func(c *call, x *reply) { slices.Reverse(asList(x.get())) })}},
		{Name: "default-limit-20", Origin: FirstCatalogue, What: "returns 20 messages when no limit is given", steps: []step{defaultLimit(20)}},
		{Name: "default-limit-10", Origin: FirstCatalogue, What: "returns 10 messages when no limit is given", steps: []step{defaultLimit(10)}},
		{Name: "limit-over-100-rejected", Origin: FirstCatalogue, What: "refuses a limit above 100 with 400 instead of clamping it",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("limit"); ok && n > 100 {
					return refuse(http.StatusBadRequest, "limit above 100")
				}
				return next()
			})}},
		{Name: "afterid-newest", Origin: BlindRound1, What: "answers afterId with the newest limit messages after the cursor, not the ones right after it",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				limit, ok := pageLimit(q)
				if !ok || !has(q, "afterId") || has(q, "beforeId") || has(q, "aroundId") || has(q, "q") || has(q, "skip") {
					return next()
				}
				cursor := q.Get("afterId")
				anchor, isMsg := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+cursor, nil, nil).get().(map[string]any)
				if !isMsg {
					return next()
				}
				x := c.do("GET", c.r.URL.Path, url.Values{"limit": {strconv.Itoa(limit)}}, nil)
				if !x.ok() {
					return next()
				}
				list := asList(x.get())
				for i, m := range list {
					if asString(m.(map[string]any)["id"]) == cursor {
						x.set(list[i+1:])
						return x
					}
				}
				at := asString(anchor["sent"])
				x.set(filter(list, func(m map[string]any) bool { return asString(m["sent"]) > at }))
				return x
			})}},
		{Name: "aroundid-lopsided", Origin: BlindRound1, What: "splits an aroundId page a quarter before the anchor and the rest after it",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				limit, ok := pageLimit(q)
				if !ok || !has(q, "aroundId") || has(q, "beforeId") || has(q, "afterId") || has(q, "q") || has(q, "skip") {
					return next()
				}
				a := q.Get("aroundId")
				anchor := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+a, nil, nil)
				if !anchor.ok() {
					return next()
				}
				before := (limit - 1) / 4
				after := limit - 1 - before
				var list []any
				if before > 0 {
					list = append(list, asList(c.do("GET", c.r.URL.Path, url.Values{"beforeId": {a}, "limit": {strconv.Itoa(before)}}, nil).get())...)
				}
				list = append(list, anchor.get())
				if after > 0 {
					list = append(list, asList(c.do("GET", c.r.URL.Path, url.Values{"afterId": {a}, "limit": {strconv.Itoa(after)}}, nil).get())...)
				}
				anchor.set(list)
				return anchor
			})}},
		{Name: "skip-over-5000-clamped", Origin: BlindRound1, What: "treats a skip above 5000 as 5000 instead of refusing it",
			steps: []step{onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("skip"); ok && n > 5000 {
					setParam(c, "skip", "5000")
				}
			})}},
		{Name: "limit-zero-empty", Origin: BlindRound1, What: "answers limit=0 with an empty page",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				if c.query().Get("limit") == "0" {
					x := next()
					if x.ok() {
						x.set([]any{})
					}
					return x
				}
				return next()
			})}},
		{Name: "unknown-cursor-empty", Origin: BlindRound2, What: "answers beforeId, afterId or aroundId naming no message of the room with an empty page instead of an error (unsure only in that a check may expect an error; errors are not shown)",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				q := c.query()
				for _, k := range []string{"beforeId", "afterId", "aroundId"} {
					if id := q.Get(k); id != "" && !c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+url.PathEscape(id), nil, nil).ok() {
						if y := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages", nil, nil); !y.ok() {
							return y // the room itself is refused: answer as the reference does
						}
						x := &reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}}
						x.set([]any{})
						return x
					}
				}
				return next()
			})}},
		{Name: "bad-params-defaulted", Origin: BlindRound2, What: "treats a negative or non-integer limit or skip as absent instead of refusing it",
			steps: []step{onRequest("listMessages", func(c *call) {
				q := c.query()
				for _, k := range []string{"limit", "skip"} {
					if v := q.Get(k); v != "" {
						if n, err := strconv.Atoi(v); err != nil || n < 0 {
							setParam(c, k, "")
						}
					}
				}
			})}},
		{Name: "skip-over-5000-empty", Origin: BlindRound2, What: "answers a skip above 5000 with an empty page instead of refusing it",
			steps: []step{answer("listMessages", func(c *call, next func() *reply) *reply {
				if n, ok := c.intParam("skip"); ok && n > 5000 {
					setParam(c, "skip", "")
					x := next()
					if x.ok() {
						x.set([]any{})
					}
					return x
				}
				return next()
			})}},
		{Name: "limit-over-100-default", Origin: BlindRound2, What: "treats a limit above 100 as no limit at all: the default page of 50",
			steps: []step{onRequest("listMessages", func(c *call) {
				if n, ok := c.intParam("limit"); ok && n > 100 {
					setParam(c, "limit", "")
				}
			})}},
	}
}

// pageOneMore makes every page one message longer than its limit.
func pageOneMore() step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		q := c.query()
		raw := q.Get("limit")
		n, err := strconv.Atoi(raw)
		switch {
		case raw == "" || err == nil && n == 0:
			n = 50
		case err != nil || n < 0:
			return next()
		}
		if n < 100 {
			q.Set("limit", strconv.Itoa(n+1))
			c.setQuery(q)
			return next()
		}
		x := next()
		return olderToo(c, q, x, 1)
	})
}

// olderToo prepends up to n messages older than the oldest of x's page, so
// a page can grow past what the inner server will send at once.
func olderToo(c *call, q map[string][]string, x *reply, n int) *reply {
	list := asList(x.get())
	if !x.ok() || len(list) == 0 || has(q, "afterId") || has(q, "aroundId") {
		return x
	}
	for n > 0 {
		more := map[string][]string{}
		for k, v := range q {
			more[k] = v
		}
		delete(more, "skip")
		oldest, _ := list[0].(map[string]any)
		more["beforeId"] = []string{asString(oldest["id"])}
		more["limit"] = []string{strconv.Itoa(min(n, 100))}
		page := asList(c.do("GET", c.r.URL.Path, more, nil).get())
		if len(page) == 0 {
			break
		}
		list = append(append([]any{}, page...), list...)
		n -= len(page)
	}
	x.set(list)
	return x
}

// honourLimit answers a limit above 100 with that many messages.
func honourLimit() step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		q := c.query()
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n <= 100 {
			return next()
		}
		x := next()
		return olderToo(c, q, x, n-len(asList(x.get())))
	})
}

// inclusiveBefore turns beforeId into an inclusive cursor: the page is
// fetched with the id of the next newer message instead.
func inclusiveBefore() step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		b := q.Get("beforeId")
		if b == "" || q.Get("afterId") != "" || q.Get("aroundId") != "" {
			return
		}
		probe := map[string][]string{"afterId": {b}, "limit": {"1"}}
		if s := q.Get("q"); s != "" {
			probe["q"] = []string{s}
		}
		x := c.do("GET", c.r.URL.Path, probe, nil)
		if !x.ok() {
			return
		}
		if list := asList(x.get()); len(list) > 0 {
			q.Set("beforeId", asString(list[0].(map[string]any)["id"]))
		} else {
			q.Del("beforeId")
		}
		c.setQuery(q)
	})
}

// neighbour returns the id next to id (older with dir "beforeId", newer
// with "afterId"), or "" when there is none.
func neighbour(c *call, id, dir string) string {
	probe := map[string][]string{dir: {id}, "limit": {"1"}}
	if s := c.query().Get("q"); s != "" {
		probe["q"] = []string{s}
	}
	l := asList(c.do("GET", c.r.URL.Path, probe, nil).get())
	if len(l) == 0 {
		return ""
	}
	m, _ := l[0].(map[string]any)
	return asString(m["id"])
}

// skippingBefore makes beforeId skip the message right before the cursor.
func skippingBefore() step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		b := q.Get("beforeId")
		if b == "" || q.Get("afterId") != "" || q.Get("aroundId") != "" {
			return
		}
		if prev := neighbour(c, b, "beforeId"); prev != "" {
			setParam(c, "beforeId", prev)
		}
	})
}

// inclusiveAfter makes afterId include its cursor.
func inclusiveAfter() step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		a := q.Get("afterId")
		if a == "" || q.Get("beforeId") != "" || q.Get("aroundId") != "" {
			return
		}
		prev := neighbour(c, a, "beforeId")
		setParam(c, "afterId", prev)
	})
}

// shallowBefore answers an empty page to a beforeId cursor with more than
// depth newer messages.
func shallowBefore(depth int) step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		b := c.query().Get("beforeId")
		if b == "" {
			return next()
		}
		newer := c.do("GET", c.r.URL.Path, map[string][]string{"afterId": {b}, "limit": {"100"}, "skip": {strconv.Itoa(depth - 100)}}, nil)
		x := next()
		if x.ok() && newer.ok() && len(asList(newer.get())) > 0 {
			x.set([]any{})
		}
		return x
	})
}

// skipFromOldest applies skip to the oldest end of the room's history: the
// page starts after the n oldest messages.
func skipFromOldest() step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		q := c.query()
		n, ok := c.intParam("skip")
		if !ok || n <= 0 || n > 5000 || q.Get("afterId") != "" || q.Get("aroundId") != "" || q.Get("beforeId") != "" || q.Get("q") != "" {
			return next()
		}
		cursor := "000000000000000000000000"
		for n > 0 {
			l := asList(c.do("GET", c.r.URL.Path, map[string][]string{"afterId": {cursor}, "limit": {strconv.Itoa(min(n, 100))}}, nil).get())
			if len(l) == 0 {
				break
			}
			last, _ := l[len(l)-1].(map[string]any)
			cursor, n = asString(last["id"]), n-len(l)
		}
		limit := q.Get("limit")
		if limit == "" {
			limit = "50"
		}
		return c.do("GET", c.r.URL.Path, map[string][]string{"afterId": {cursor}, "limit": {limit}}, nil)
	})
}

// capAt answers a limit above 100 with up to max messages.
func capAt(max int) step {
	return answer("listMessages", func(c *call, next func() *reply) *reply {
		q := c.query()
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n <= 100 {
			return next()
		}
		x := next()
		return olderToo(c, q, x, min(n, max)-len(asList(x.get())))
	})
}

// defaultLimit gives listMessages a default page size of n.
func defaultLimit(n int) step {
	return onRequest("listMessages", func(c *call) {
		q := c.query()
		if l := q.Get("limit"); l == "" || l == "0" {
			q.Set("limit", strconv.Itoa(n))
			c.setQuery(q)
		}
	})
}

// modelPaginationFaults are the model round's faults of pages: cursors at
// the edges and parameters together (see ModelRound).
func modelPaginationFaults() []Fault {
	return []Fault{
		ModelRound.fault("PAGE-AROUNDID/intermittent#2", "aroundId together with limit=1 answers 500 (each alone is served)",
			answer("listMessages", func(c *call, next func() *reply) *reply {
				if q := c.query(); has(q, "aroundId") && q.Get("limit") == "1" {
					return refuse(http.StatusInternalServerError, "window of one")
				}
				return next()
			})),
		ModelRound.fault("PAGE-AFTERID/wrong-subject#4", "afterId of the newest message answers that message itself instead of an empty page",
			onSuccess("listMessages", func(c *call, x *reply) {
				q := c.query()
				if !has(q, "afterId") || has(q, "beforeId") || len(asList(x.get())) > 0 {
					return
				}
				if m := c.do("GET", "/v1/rooms/"+c.room+"/chatMessages/"+q.Get("afterId"), nil, nil); m.ok() {
					x.set([]any{m.get()})
				}
			})),
		ModelRound.fault("PAGE-AFTERID/ignores-input#3", "afterId is ignored when beforeId is given too",
			onRequest("listMessages", func(c *call) {
				if q := c.query(); has(q, "afterId") && has(q, "beforeId") {
					q.Del("afterId")
					c.setQuery(q)
				}
			})),
		ModelRound.fault("PAGE-BEFOREID-WALK/ignores-input#3", "a beforeId page with limit 2 to 5 holds one message fewer than limit",
			onSuccess("listMessages", func(c *call, x *reply) {
				q := c.query()
				if n, ok := c.intParam("limit"); ok && n >= 2 && n <= 5 && has(q, "beforeId") && !has(q, "afterId") && !has(q, "q") {
					if l := asList(x.get()); len(l) == n {
						x.set(l[1:])
					}
				}
			})),
	}
}

// heldOutPaginationFaults are the held-out defects of the independent implementation
// whose requirements belong to this file (see HeldOut).
func heldOutPaginationFaults() []Fault {
	return []Fault{
		HeldOut.fault("PAGE-AFTERID/wrong-subject#5", heldOutWhat("after-inclusive")).inIndependent("after-inclusive"),
		HeldOut.fault("PAGE-AROUNDID/wrong-subject#4", heldOutWhat("around-mirrored")).inIndependent("around-mirrored"),
		HeldOut.fault("PAGE-BEFOREID-WALK/wrong-subject#4", heldOutWhat("before-skips-neighbour")).inIndependent("before-skips-neighbour"),
		HeldOut.fault("LIMIT-100/ignores-input#3", heldOutWhat("limit-99")).inIndependent("limit-99"),
		HeldOut.fault("LIMIT-CAP/ignores-input#7", heldOutWhat("limit-cap-skip")).inIndependent("limit-cap-skip"),
		HeldOut.fault("PAGE-LIMIT/intermittent#2", heldOutWhat("limit-flaky")).inIndependent("limit-flaky"),
		HeldOut.fault("PAGE-UNIQUE/intermittent", heldOutWhat("page-dup-flaky")).inIndependent("page-dup-flaky"),
		HeldOut.fault("PAGE-SKIP/ignores-input#3", heldOutWhat("skip-ignored-with-before")).inIndependent("skip-ignored-with-before"),
		HeldOut.fault("PAGE-SKIP/wrong-subject#4", heldOutWhat("skip-off-by-one")).inIndependent("skip-off-by-one"),
	}
}

// heldOut2PaginationFaults are the defects of the second held-out set (independent.HeldOut2)
// whose requirements belong to this file.
func heldOut2PaginationFaults() []Fault {
	return []Fault{
		HeldOut2.fault("LIMIT-SKIP-5000/shape", heldOut2What("skip-5000-refused")).inIndependent("skip-5000-refused"),
		HeldOut2.fault("PAGE-AFTERID/ignores-input#4", heldOut2What("after-ignored-with-before")).inIndependent("after-ignored-with-before"),
		HeldOut2.fault("PAGE-AROUNDID/wrong-subject#5", heldOut2What("around-limit-one-neighbour")).inIndependent("around-limit-one-neighbour"),
		HeldOut2.fault("PAGE-BEFOREID-WALK/ignores-input#4", heldOut2What("before-by-sent-time")).inIndependent("before-by-sent-time"),
		HeldOut2.fault("PAGE-SKIP/ignores-input#4", heldOut2What("skip-counts-anchor")).inIndependent("skip-counts-anchor"),
	}
}

// heldOut3PaginationFaults are the defects of the third held-out set (independent.HeldOut3)
// whose requirements belong to this file (see heldOut3What).
func heldOut3PaginationFaults() []Fault {
	return []Fault{
		HeldOut3.fault("LIMIT-SKIP-5000/wrong-subject#3", heldOut3What("skip-over-count-refused")).inIndependent("skip-over-count-refused"),
		HeldOut3.fault("PAGE-AFTERID/ignores-input#5", heldOut3What("after-newest-fallback")).inIndependent("after-newest-fallback"),
		HeldOut3.fault("PAGE-AROUNDID/wrong-subject#6", heldOut3What("around-newest-drops-anchor")).inIndependent("around-newest-drops-anchor"),
		HeldOut3.fault("PAGE-BEFOREID-WALK/wrong-subject#5", heldOut3What("before-last-page-empty")).inIndependent("before-last-page-empty"),
		HeldOut3.fault("PAGE-BEFOREID/wrong-subject#3", heldOut3What("before-oldest-self")).inIndependent("before-oldest-self"),
		HeldOut3.fault("PAGE-SKIP/ignores-input#5", heldOut3What("skip-clamped-to-oldest")).inIndependent("skip-clamped-to-oldest"),
		HeldOut3.fault("PAGE-UNIQUE/shape#2", heldOut3What("around-anchor-twice")).inIndependent("around-anchor-twice"),
	}
}

// heldOut4PaginationFaults are the defects of the fourth held-out set (independent.HeldOut4)
// whose requirements belong to this file (see heldOut4What).
func heldOut4PaginationFaults() []Fault {
	return []Fault{
		HeldOut4.fault("LIMIT-CAP/ignores-input#8", heldOut4What("limit-cap-search")).inIndependent("limit-cap-search"),
		HeldOut4.fault("PAGE-AFTERID/wrong-subject#6", heldOut4What("after-anchor-counted-in-limit")).inIndependent("after-anchor-counted-in-limit"),
		HeldOut4.fault("PAGE-AROUNDID/wrong-subject#7", heldOut4What("around-gap-after-anchor")).inIndependent("around-gap-after-anchor"),
		HeldOut4.fault("PAGE-BEFOREID-WALK/not-stored", heldOut4What("history-cap-300")).inIndependent("history-cap-300"),
		HeldOut4.fault("PAGE-BEFOREID/wrong-subject#4", heldOut4What("before-compares-ids")).inIndependent("before-compares-ids"),
		HeldOut4.fault("PAGE-LIMIT/ignores-input#6", heldOut4What("before-limit-default")).inIndependent("before-limit-default"),
		HeldOut4.fault("PAGE-SKIP/wrong-subject#5", heldOut4What("skip-after-limit")).inIndependent("skip-after-limit"),
		HeldOut4.fault("PAGE-UNIQUE/shape#3", heldOut4What("search-terms-union-dup")).inIndependent("search-terms-union-dup"),
	}
}

// heldOut5PaginationFaults are the defects of the fifth held-out set (independent.HeldOut5)
// whose requirements belong to this file (see heldOut5What).
func heldOut5PaginationFaults() []Fault {
	return []Fault{
		HeldOut5.fault("LIMIT-CAP/ignores-input#9", heldOut5What("limit-cap-around")).inIndependent("limit-cap-around"),
		HeldOut5.fault("LIMIT-SKIP-5000/ignores-input#3", heldOut5What("skip-deep-timeout")).inIndependent("skip-deep-timeout"),
		HeldOut5.fault("PAGE-AFTERID/ignores-input#6", heldOut5What("before-ignored-with-after")).inIndependent("before-ignored-with-after"),
		HeldOut5.fault("PAGE-AFTERID/wrong-subject#7", heldOut5What("after-oldest-anchor-empty")).inIndependent("after-oldest-anchor-empty"),
		HeldOut5.fault("PAGE-BEFOREID-WALK/intermittent#2", heldOut5What("page-truncated-flaky")).inIndependent("page-truncated-flaky"),
		HeldOut5.fault("PAGE-BEFOREID/stale-derived", heldOut5What("before-cursor-offset-from-newest")).inIndependent("before-cursor-offset-from-newest"),
		HeldOut5.fault("PAGE-LIMIT/ignores-input#8", heldOut5What("around-window-limit-plus-one")).inIndependent("around-window-limit-plus-one"),
		HeldOut5.fault("PAGE-UNIQUE/stale-derived", heldOut5What("search-edit-indexed-twice")).inIndependent("search-edit-indexed-twice"),
	}
}

// heldOut6PaginationFaults are the defects of the sixth held-out set (independent.HeldOut6)
// whose requirements belong to this file (see heldOut6What).
func heldOut6PaginationFaults() []Fault {
	return []Fault{
		HeldOut6.fault("LIMIT-100/ignores-input#4", heldOut6What("before-limit-capped-50")).inIndependent("before-limit-capped-50"),
		HeldOut6.fault("LIMIT-SKIP-5000/ignores-input#4", heldOut6What("skip-bound-includes-limit")).inIndependent("skip-bound-includes-limit"),
		HeldOut6.fault("PAGE-AFTERID/wrong-subject#8", heldOut6What("after-compares-ids")).inIndependent("after-compares-ids"),
		HeldOut6.fault("PAGE-AROUNDID/ignores-input#2", heldOut6What("around-limit-one-empty")).inIndependent("around-limit-one-empty"),
		HeldOut6.fault("PAGE-BEFOREID-WALK/shape", heldOut6What("before-anchor-counted-in-limit")).inIndependent("before-anchor-counted-in-limit"),
		HeldOut6.fault("PAGE-BEFOREID-WALK/wrong-subject#6", heldOut6What("before-sorted-ascending-limit")).inIndependent("before-sorted-ascending-limit"),
		HeldOut6.fault("PAGE-BEFOREID/ignores-input#4", heldOut6What("before-dropped-with-skip")).inIndependent("before-dropped-with-skip"),
		HeldOut6.fault("PAGE-LIMIT/too-wide", heldOut6What("limit-skips-status")).inIndependent("limit-skips-status"),
		HeldOut6.fault("PAGE-SKIP/ignores-input#6", heldOut6What("skip-twice-with-before")).inIndependent("skip-twice-with-before"),
	}
}

// heldOut7PaginationFaults are the defects of the seventh held-out set (independent.HeldOut7)
// whose requirements belong to this file (see heldOut7What).
func heldOut7PaginationFaults() []Fault {
	return []Fault{
		HeldOut7.fault("PAGE-AFTERID/ignores-input#7", heldOut7What("after-newest-404")).inIndependent("after-newest-404"),
		HeldOut7.fault("PAGE-AFTERID/intermittent#2", heldOut7What("after-cursor-dropped-flaky")).inIndependent("after-cursor-dropped-flaky"),
		HeldOut7.fault("PAGE-BEFOREID-WALK/ignores-input#5", heldOut7What("before-status-anchor-empty")).inIndependent("before-status-anchor-empty"),
		HeldOut7.fault("PAGE-BEFOREID/ignores-input#5", heldOut7What("before-needs-limit")).inIndependent("before-needs-limit"),
		HeldOut7.fault("PAGE-LIMIT/ignores-input#10", heldOut7What("search-ignores-limit")).inIndependent("search-ignores-limit"),
		HeldOut7.fault("PAGE-LIMIT/ignores-input#9", heldOut7What("around-min-window-three")).inIndependent("around-min-window-three"),
		HeldOut7.fault("PAGE-SKIP/wrong-subject#6", heldOut7What("skip-from-oldest-end")).inIndependent("skip-from-oldest-end"),
		HeldOut7.fault("PAGE-UNIQUE/stale-derived#2", heldOut7What("list-shows-every-version")).inIndependent("list-shows-every-version"),
	}
}

// heldOut8PaginationFaults are the defects of the eighth held-out set (independent.HeldOut8)
// whose requirements belong to this file (see heldOut8What).
func heldOut8PaginationFaults() []Fault {
	return []Fault{
		HeldOut8.fault("LIMIT-CAP/ignores-input#10", heldOut8What("limit-int32-wrap-unbounded")).inIndependent("limit-int32-wrap-unbounded"),
		HeldOut8.fault("PAGE-AFTERID/too-wide", heldOut8What("after-short-page-filled-with-older")).inIndependent("after-short-page-filled-with-older"),
		HeldOut8.fault("PAGE-AROUNDID/ignores-input#4", heldOut8What("around-time-window-oldest-cut")).inIndependent("around-time-window-oldest-cut"),
		HeldOut8.fault("PAGE-AROUNDID/intermittent#3", heldOut8What("around-old-node-flaky")).inIndependent("around-old-node-flaky"),
		HeldOut8.fault("PAGE-BEFOREID-WALK/ignores-input#6", heldOut8What("before-tie-broken-by-id")).inIndependent("before-tie-broken-by-id"),
		HeldOut8.fault("PAGE-BEFOREID-WALK/not-stored#2", heldOut8What("before-drops-room-first-message")).inIndependent("before-drops-room-first-message"),
		HeldOut8.fault("PAGE-BEFOREID/intermittent#2", heldOut8What("sent-from-skewed-node-flaky")).inIndependent("sent-from-skewed-node-flaky"),
		HeldOut8.fault("PAGE-BEFOREID/stale-derived#2", heldOut8What("before-anchor-time-from-edit")).inIndependent("before-anchor-time-from-edit"),
		HeldOut8.fault("PAGE-LIMIT/ignores-input#11", heldOut8What("limit-compared-as-text")).inIndependent("limit-compared-as-text"),
		HeldOut8.fault("PAGE-SKIP/ignores-input#7", heldOut8What("skip-taken-as-page-number")).inIndependent("skip-taken-as-page-number"),
		HeldOut8.fault("PAGE-UNIQUE/shape#4", heldOut8What("list-mentions-join-fanout")).inIndependent("list-mentions-join-fanout"),
	}
}
