package conformance

import (
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chatrooms/conformance/client"
)

func requestList(room string, query map[string][]string) client.Request {
	return client.Request{Method: "GET", Path: messagesPath(room), Query: query, Invalid: isOverLimit(query)}
}

// isOverLimit marks list requests outside the document's bounds as
// deliberately invalid, so only their responses are validated.
func isOverLimit(query map[string][]string) bool {
	for _, l := range query["limit"] {
		if n, err := strconv.Atoi(l); err != nil || n > 100 {
			return true
		}
	}
	for _, s := range query["skip"] {
		if n, err := strconv.Atoi(s); err != nil || n > 5000 {
			return true
		}
	}
	return false
}

func searchSpecs(d decl) {
	Describe("GET /v1/rooms/{roomId}/chatMessages?q=", func() {
		d.it("finds an older message by a unique word, and not the newer ones without it", reqs("SEARCH-Q"), func(e *Env) {
			room := e.writeRoom()
			word := "quokka" + e.Marker() + "x"
			text, _ := e.text()
			target := e.send(0, room, text+" "+word)
			// Newer messages without the word: a server that ignores q and
			// answers the newest page shows these and not the target.
			fillers := e.seed(0, room, 15)
			e.eventually(func(g Gomega) {
				var ms []Message
				resp := e.call(0, requestList(room, q("q", word, "limit", "10")))
				g.Expect(resp.Status).To(Equal(200), "%s", explain(resp, "status"))
				g.Expect(resp.JSON(&ms)).To(Succeed())
				g.Expect(idsOf(ms)).To(ContainElement(target.ID), "searching for %q did not find the message holding it", word)
				g.Expect(idsOf(ms)).NotTo(ContainElement(BeElementOf(idsOf(fillers))), "searching for %q found newer messages that do not hold it", word)
			})
		})
	})
}
