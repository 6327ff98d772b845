package reference

import (
	"fmt"
	"sort"
	"strings"
)

// Fault is a planted defect, used only by tests and by chatconform's
// self-test to prove that the suites catch what they claim to. Each breaks
// exactly one statement of the API document; Name is the catalogue id of
// that statement.
type Fault struct {
	Name string // the catalogue id the fault breaks
	What string // the defect, in words
	// rewrite, when set, corrupts the response of op; otherwise the fault
	// lives in the store or the handlers (see Server.broken).
	op      string
	rewrite func(x *exchange)
}

// Faults lists every fault, by name.
func Faults() []Fault {
	out := append([]Fault(nil), faultList...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupFault returns the fault of the given name.
func LookupFault(name string) (Fault, bool) {
	for _, f := range faultList {
		if f.Name == name {
			return f, true
		}
	}
	return Fault{}, false
}

func checkFaults(names []string) map[string]bool {
	set := map[string]bool{}
	for _, n := range names {
		if _, ok := LookupFault(n); !ok {
			panic(fmt.Sprintf("reference: unknown fault %q", n))
		}
		set[n] = true
	}
	return set
}

// behaviour is a fault implemented by a hook in the store or the handlers.
func behaviour(name, what string) Fault { return Fault{Name: name, What: what} }

func shape(name, op, what string, rewrite func(x *exchange)) Fault {
	return Fault{Name: name, What: what, op: op, rewrite: rewrite}
}

var faultList = []Fault{
	// Transport and authentication.
	shape("HTTP-JSON-CONTENT-TYPE", "", "success responses say application/json without charset", func(x *exchange) {
		if x.status < 300 {
			x.header.Set("Content-Type", "application/json")
		}
	}),
	shape("HTTP-JSON-BODY", "listUserRepos", "the repositories list is sent as an HTML page", func(x *exchange) {
		x.raw = []byte("<html><body>repositories</body></html>")
	}),
	behaviour("HTTP-GET-SAFE", "reading one message marks it read"),
	behaviour("HTTP-V1-PREFIX", "the current user is served at /user instead of /v1/user"),
	behaviour("HTTP-TLS-ONLY", "the HTTPS port also serves plain http"),
	behaviour("AUTH-BEARER", "the Authorization header is ignored"),
	behaviour("AUTH-QUERY-TOKEN", "the access_token parameter is ignored"),
	behaviour("AUTH-REQUIRED", "a request without a token acts as the first user"),
	behaviour("AUTH-UNKNOWN-TOKEN", "an unknown token acts as the first user"),
	behaviour("AUTH-CURRENT-USER", "GET /v1/user always answers the first user"),

	// User.
	shape("USER-GET-ARRAY", "getCurrentUser", "the current user is sent as a bare object", func(x *exchange) {
		if list, ok := x.body.([]any); ok && len(list) == 1 {
			x.body = list[0]
		}
	}),
	shape("USER-SHAPE", "getCurrentUser", "avatarUrlSmall is a relative path, not a URI", func(x *exchange) {
		each(x.body, func(u map[string]any) { u["avatarUrlSmall"] = "avatar.png" })
	}),
	shape("USER-V-OPTIONAL", "getCurrentUser", "the user's v is a string", func(x *exchange) {
		each(x.body, func(u map[string]any) { u["v"] = "3" })
	}),

	// Rooms.
	shape("ROOM-LIST", "listUserRooms", "the rooms list is wrapped in an object", func(x *exchange) {
		x.body = map[string]any{"rooms": x.body}
	}),
	shape("ROOM-SHAPE", "listUserRooms", "lastAccessTime is not in UTC", func(x *exchange) {
		each(x.body, func(r map[string]any) {
			if t, ok := r["lastAccessTime"].(string); ok {
				r["lastAccessTime"] = strings.TrimSuffix(t, "Z") + "+02:00"
			}
		})
	}),
	shape("ROOM-PLATFORM-TYPE", "listUserRooms", "organisation rooms say GITHUB_ORG", func(x *exchange) {
		each(x.body, func(r map[string]any) {
			if r["platformType"] == "ORG" {
				r["platformType"] = "GITHUB_ORG"
			}
		})
	}),
	shape("ROOM-KINDS", "listUserRooms", "organisation rooms are left out of the rooms list", func(x *exchange) {
		x.body = filter(x.body, func(r map[string]any) bool { return r["platformType"] != "ORG" })
	}),
	shape("ROOM-ONE-TO-ONE", "listUserRooms", "one-to-one rooms carry a uri", func(x *exchange) {
		each(x.body, func(r map[string]any) {
			if r["oneToOne"] == true {
				r["uri"] = "someone"
			}
		})
	}),
	shape("ROOM-USER-ONLY-ONE-TO-ONE", "listUserRooms", "group rooms carry a user", func(x *exchange) {
		each(x.body, func(r map[string]any) {
			if r["oneToOne"] == false {
				r["user"] = map[string]any{"id": "5f1a0c2b9d3e4f5a6b7c8d90", "username": "x", "displayName": "X", "url": "/x",
					"avatarUrlSmall": "https://a.test/x", "avatarUrlMedium": "https://a.test/x"}
			}
		})
	}),
	shape("ROOM-HIDE", "hideUserRoom", "hiding a room fails with 500", func(x *exchange) {
		x.status, x.body = 500, map[string]any{"error": "Internal Server Error", "uniqueId": "0"}
	}),
	shape("CHANNEL-LIST", "listUserChannels", "the channels list holds a repository room", func(x *exchange) {
		each(x.body, func(r map[string]any) { r["platformType"] = "REPO" })
	}),
	shape("CHANNEL-NO-USERCOUNT", "listUserChannels", "channels carry userCount", func(x *exchange) {
		each(x.body, func(r map[string]any) { r["userCount"] = 3 })
	}),
	shape("CHANNEL-SECURITY", "listUserChannels", "channels carry no security", func(x *exchange) {
		each(x.body, func(r map[string]any) { delete(r, "security") })
	}),
	shape("ORG-LIST", "listUserOrgs", "organisation ids are strings", func(x *exchange) {
		each(x.body, func(o map[string]any) { o["id"] = fmt.Sprint(o["id"]) })
	}),
	shape("ORG-ROOM", "listUserOrgs", "organisations without a room embed an empty one", func(x *exchange) {
		each(x.body, func(o map[string]any) {
			if _, ok := o["room"]; !ok {
				o["room"] = map[string]any{}
			}
		})
	}),
	shape("REPO-LIST", "listUserRepos", "repositories carry no uri", func(x *exchange) {
		each(x.body, func(p map[string]any) { delete(p, "uri") })
	}),
	shape("REPO-ROOM", "listUserRepos", "a repository's room is its name, not a Room", func(x *exchange) {
		each(x.body, func(p map[string]any) {
			if _, ok := p["room"]; ok {
				p["room"] = p["name"]
			}
		})
	}),
	behaviour("REPO-PRIVATE-GRANTED", "private repositories are hidden from everyone"),
	behaviour("REPO-PRIVATE-WITHHELD", "private repositories are shown to everyone"),

	// Unread items.
	shape("UNREAD-SHAPE", "getUnreadItems", "unread items carry no mention list", func(x *exchange) {
		each(x.body, func(u map[string]any) { delete(u, "mention") })
	}),
	behaviour("UNREAD-CHAT", "new messages are not recorded as unread for the other members"),
	behaviour("UNREAD-MENTION", "mentions are not recorded as unread"),
	behaviour("UNREAD-MARK-READ", "marking read answers success and changes nothing"),
	behaviour("UNREAD-READBY", "readBy does not count readers"),
	behaviour("UNREAD-FLAG", "the unread flag is always false"),
	behaviour("UNREAD-ROOM-COUNTS", "a room's unreadItems counts one more than the unread list"),

	// Messages.
	shape("MSG-LIST", "listMessages", "the message list is wrapped in an object", func(x *exchange) {
		x.body = map[string]any{"messages": x.body}
	}),
	shape("MSG-SHAPE", "sendMessage", "a sent message carries no sent time", func(x *exchange) {
		each(x.body, func(m map[string]any) { delete(m, "sent") })
	}),
	shape("MSG-META-EMPTY", "getMessage", "meta holds data", func(x *exchange) {
		each(x.body, func(m map[string]any) { m["meta"] = map[string]any{"source": "web"} })
	}),
	shape("MSG-NO-GV", "listMessages", "messages carry gv", func(x *exchange) {
		each(x.body, func(m map[string]any) { m["gv"] = "3" })
	}),
	behaviour("MSG-GET-ONE", "reading one message answers the room's newest"),
	shape("MSG-SEND-200", "sendMessage", "sending answers 201", func(x *exchange) {
		if x.status == 200 {
			x.status = 201
		}
	}),
	shape("MSG-SEND-DEFAULTS", "sendMessage", "a new message says readBy 1", func(x *exchange) {
		each(x.body, func(m map[string]any) { m["readBy"] = 1 })
	}),
	shape("MSG-SEND-EDITEDAT-NULL", "sendMessage", "a new message has editedAt set", func(x *exchange) {
		each(x.body, func(m map[string]any) { m["editedAt"] = m["sent"] })
	}),
	behaviour("MSG-SEND-TEXT", "non-ASCII characters are dropped from the text"),
	behaviour("MSG-SEND-STATUS", "the status flag is ignored"),
	behaviour("MSG-SEND-STORED", "a sent message is answered but not stored"),
	shape("MSG-EDIT", "updateMessage", "an edit answers the old text", func(x *exchange) {
		each(x.body, func(m map[string]any) {
			m["text"] = strings.TrimSuffix(fmt.Sprint(m["text"]), " (edited)") + " (old)"
		})
	}),
	behaviour("MSG-EDIT-EDITEDAT", "an edit leaves editedAt null"),
	behaviour("MSG-EDIT-V-INC", "an edit raises v by two"),
	behaviour("MSG-EDIT-PERSISTED", "an edit is answered correctly but not stored"),

	// Rendering.
	behaviour("RENDER-MENTION", "mentions are left as plain text"),
	shape("RENDER-ISSUE", "sendMessage", "issue spans have class ref instead of issue", func(x *exchange) {
		each(x.body, func(m map[string]any) {
			m["html"] = strings.ReplaceAll(fmt.Sprint(m["html"]), `class="issue"`, `class="ref"`)
		})
	}),
	shape("RENDER-LINK", "sendMessage", "link anchors have no class", func(x *exchange) {
		each(x.body, func(m map[string]any) { m["html"] = strings.ReplaceAll(fmt.Sprint(m["html"]), ` class="link"`, ``) })
	}),
	behaviour("RENDER-ESCAPE", "raw HTML in the text is passed through"),
	shape("META-URLS", "sendMessage", "urls is always empty", func(x *exchange) {
		each(x.body, func(m map[string]any) { m["urls"] = []any{} })
	}),
	shape("META-MENTIONS", "sendMessage", "mentions is always empty", func(x *exchange) {
		each(x.body, func(m map[string]any) { m["mentions"] = []any{} })
	}),
	shape("META-ISSUES", "sendMessage", "issue numbers are JSON numbers", func(x *exchange) {
		each(x.body, func(m map[string]any) {
			for _, i := range asList(m["issues"]) {
				if o, ok := i.(map[string]any); ok {
					var n int
					fmt.Sscan(fmt.Sprint(o["number"]), &n)
					o["number"] = n
				}
			}
		})
	}),

	// Pagination, search, limits.
	behaviour("PAGE-LIMIT", "a page holds one message more than limit"),
	behaviour("PAGE-BEFOREID-WALK", "beforeId includes the cursor message, so a walk sees it twice"),
	behaviour("PAGE-BEFOREID", "beforeId is ignored"),
	behaviour("PAGE-AFTERID", "afterId answers the messages before it"),
	behaviour("PAGE-AROUNDID", "aroundId leaves the anchor out"),
	behaviour("PAGE-SKIP", "skip is ignored"),
	behaviour("SEARCH-Q", "a search finds nothing"),
	behaviour("LIMIT-100", "limit=100 is cut to 99"),
	behaviour("LIMIT-CAP", "a limit above 100 is honoured"),
	behaviour("LIMIT-SKIP-5000", "skip above 4000 is refused"),
}

// each applies f to the object, or to every object of an array, in v.
func each(v any, f func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(t)
	case []any:
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				f(m)
			}
		}
	}
}

func filter(v any, keep func(map[string]any) bool) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := []any{}
	for _, e := range list {
		if m, ok := e.(map[string]any); !ok || keep(m) {
			out = append(out, e)
		}
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
