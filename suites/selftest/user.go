package selftest

import (
	"net/http"
	"strings"
)

// userFaults break the requirements of the user (USER-*): GET /v1/user and
// the User object wherever it is embedded.
func userFaults() []Fault {
	return []Fault{
		ByClass.fault("USER-GET-ARRAY/too-wide", "the array holds every user of the world",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				var all []any
				for _, u := range c.st.world.Users {
					all = append(all, asList(c.doAs("GET", "/v1/user", nil, nil, &u.Token).get())...)
				}
				x.set(all)
			})),
		FirstCatalogue.fault("USER-GET-ARRAY/shape", "the current user is sent as a bare object",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				if list := asList(x.get()); len(list) == 1 {
					x.set(list[0])
				}
			})),
		ByClass.fault("USER-GET-ARRAY/shape#2", "the array holds the current user twice",
			onSuccess("getCurrentUser", func(c *call, x *reply) {
				if l := asList(x.get()); len(l) == 1 {
					x.set([]any{l[0], l[0]})
				}
			})),
		ByClass.fault("USER-GET-ARRAY/intermittent", "one answer in three is a bare object",
			everyNth(3, "getCurrentUser", onSuccess("getCurrentUser", func(c *call, x *reply) {
				if l := asList(x.get()); len(l) == 1 {
					x.set(l[0])
				}
			}))),

		FirstCatalogue.fault("USER-SHAPE/shape", "avatarUrlSmall is a relative path, not a URI",
			messages("getCurrentUser", func(c *call, u map[string]any) { u["avatarUrlSmall"] = "avatar.png" })),
		ByClass.fault("USER-SHAPE/shape#2", "the user's url does not start with /", currentUser(func(u map[string]any) { u["url"] = strings.TrimPrefix(asString(u["url"]), "/") })),
		ByClass.fault("USER-SHAPE/shape#3", "the user has no displayName", currentUser(func(u map[string]any) { delete(u, "displayName") })),
		ByClass.fault("USER-SHAPE/shape#4", "a message's sender has a relative avatarUrlMedium",
			messages("listMessages", func(c *call, m map[string]any) {
				if u, ok := m["fromUser"].(map[string]any); ok {
					u["avatarUrlMedium"] = "avatars/medium.png"
				}
			})),
		BlindRound1.fault("USER-SHAPE/shape#5", "the other participant of a one-to-one room has no displayName",
			rooms("rooms", func(c *call, r map[string]any) {
				if u, ok := r["user"].(map[string]any); ok {
					delete(u, "displayName")
				}
			})),
		ByClass.fault("USER-SHAPE/intermittent", "one current user in four has no username",
			everyNth(4, "getCurrentUser", currentUser(func(u map[string]any) { delete(u, "username") }))),

		FirstCatalogue.fault("USER-V-OPTIONAL/shape", "the user's v is a string",
			messages("getCurrentUser", func(c *call, u map[string]any) { u["v"] = "3" })),
		ByClass.fault("USER-V-OPTIONAL/shape#2", "a message sender's v is a fraction",
			messages("listMessages getMessage", func(c *call, m map[string]any) {
				if u, ok := m["fromUser"].(map[string]any); ok {
					u["v"] = 1.5
				}
			})),
		ByClass.fault("USER-V-OPTIONAL/shape#3", "the current user's v is null", currentUser(func(u map[string]any) { u["v"] = nil })),
		ByClass.fault("USER-V-OPTIONAL/intermittent", "one current user in three has v as a string",
			everyNth(3, "getCurrentUser", currentUser(func(u map[string]any) { u["v"] = "3" }))),
		HistoryRound.fault("USER-STABLE/intermittent", "one message list in ten names every sender in it with a username one letter longer",
			everyNth(10, "listMessages", messages("listMessages", func(c *call, m map[string]any) {
				if u, ok := m["fromUser"].(map[string]any); ok {
					u["username"] = asString(u["username"]) + "x"
				}
			}))).inWholeRun(),
	}
}

// userVariants choose differently in the User object and in paths that name
// a user (:userId as me, as another user).
func userVariants() []Variant {
	return []Variant{
		{Name: "users-with-v", Origin: FirstCatalogue, What: "sends v on every user",
			steps: []step{messages("getCurrentUser", func(c *call, u map[string]any) { u["v"] = 1 })}},
		{Name: "other-user-404", Origin: OpenPoints, What: "answers 404 instead of 403 to a path naming another user",
			steps: []step{onReply("all", func(c *call, x *reply) {
				if x.status == http.StatusForbidden && c.user != "" {
					x.status = http.StatusNotFound
				}
			})}},
		{Name: "me-not-accepted", Origin: BlindRound1, What: "does not know the literal me in place of a user id: such paths answer 404",
			steps: []step{answer("all", func(c *call, next func() *reply) *reply {
				if c.user == "me" {
					return refuse(http.StatusNotFound, "no such user")
				}
				return next()
			})}},
		{Name: "other-user-allowed", Origin: BlindRound1, What: "serves a path naming another user as that user would see it, instead of refusing it (whether :userId may name another user is not shown; unsure whether a room's counts must then be the caller's)",
			steps: []step{onRequest("all", func(c *call) {
				me, ok := c.caller()
				if !ok || c.user == "" || c.user == "me" || c.user == me.ID {
					return
				}
				if u, known := c.st.byID[c.user]; known {
					setToken(c.r, u.Token)
				}
			})}},
		{Name: "users-never-v", Origin: BlindRound2, What: "sends v on no user at all, not even the sender embedded in a message",
			steps: []step{
				messages("msgs", func(c *call, m map[string]any) {
					if u, ok := m["fromUser"].(map[string]any); ok {
						delete(u, "v")
					}
				}),
				messages("getCurrentUser", func(c *call, u map[string]any) { delete(u, "v") }),
				rooms("rooms", func(c *call, r map[string]any) {
					if u, ok := r["user"].(map[string]any); ok {
						delete(u, "v")
					}
				}),
			}},
	}
}

// currentUser applies f to the current user, as GET /v1/user answers it.
func currentUser(f func(u map[string]any)) step {
	return messages("getCurrentUser", func(c *call, u map[string]any) { f(u) })
}

// heldOutUserFaults are the held-out defects of the independent implementation
// whose requirements belong to this file (see HeldOut).
func heldOutUserFaults() []Fault {
	return []Fault{
		HeldOut.fault("USER-SHAPE/intermittent#2", heldOutWhat("me-avatar-flaky")).inIndependent("me-avatar-flaky"),
		HeldOut.fault("USER-GET-ARRAY/wrong-subject", heldOutWhat("me-cached-first")).inIndependent("me-cached-first"),
		HeldOut.fault("USER-SHAPE/shape#6", heldOutWhat("me-url-no-slash")).inIndependent("me-url-no-slash"),
		HeldOut.fault("USER-STABLE/shape", heldOutWhat("mention-screenname-as-typed")).inIndependent("mention-screenname-as-typed").inWholeRun(),
	}
}

// heldOut2UserFaults are the defects of the second held-out set (independent.HeldOut2)
// whose requirements belong to this file.
func heldOut2UserFaults() []Fault {
	return []Fault{
		HeldOut2.fault("USER-GET-ARRAY/stale-derived", heldOut2What("me-list-accumulates")).inIndependent("me-list-accumulates"),
		HeldOut2.fault("USER-STABLE/shape#2", heldOut2What("dm-peer-url-display")).inIndependent("dm-peer-url-display").inWholeRun(),
	}
}

// heldOut3UserFaults are the defects of the third held-out set (independent.HeldOut3)
// whose requirements belong to this file (see heldOut3What).
func heldOut3UserFaults() []Fault {
	return []Fault{
		HeldOut3.fault("USER-STABLE/shape#3", heldOut3What("fromuser-url-by-id")).inIndependent("fromuser-url-by-id").inWholeRun(),
	}
}

// heldOut4UserFaults are the defects of the fourth held-out set (independent.HeldOut4)
// whose requirements belong to this file (see heldOut4What).
func heldOut4UserFaults() []Fault {
	return []Fault{
		HeldOut4.fault("USER-GET-ARRAY/intermittent#2", heldOut4What("me-shared-buffer-flaky")).inIndependent("me-shared-buffer-flaky"),
		HeldOut4.fault("USER-V-OPTIONAL/shape#4", heldOut4What("me-v-string")).inIndependent("me-v-string"),
	}
}

// heldOut5UserFaults are the defects of the fifth held-out set (independent.HeldOut5)
// whose requirements belong to this file (see heldOut5What).
func heldOut5UserFaults() []Fault {
	return []Fault{
		HeldOut5.fault("USER-GET-ARRAY/shape#3", heldOut5What("me-query-token-bare-object")).inIndependent("me-query-token-bare-object"),
		HeldOut5.fault("USER-SHAPE/shape#7", heldOut5What("fromuser-avatar-relative-list")).inIndependent("fromuser-avatar-relative-list"),
	}
}

// heldOut6UserFaults are the defects of the sixth held-out set (independent.HeldOut6)
// whose requirements belong to this file (see heldOut6What).
func heldOut6UserFaults() []Fault {
	return []Fault{
		HeldOut6.fault("USER-STABLE/shape#4", heldOut6What("me-username-displayname-swapped")).inIndependent("me-username-displayname-swapped").inWholeRun(),
	}
}

// heldOut7UserFaults are the defects of the seventh held-out set (independent.HeldOut7)
// whose requirements belong to this file (see heldOut7What).
func heldOut7UserFaults() []Fault {
	return []Fault{
		HeldOut7.fault("USER-SHAPE/shape#8", heldOut7What("dm-user-no-avatars")).inIndependent("dm-user-no-avatars"),
		HeldOut7.fault("USER-STABLE/shape#5", heldOut7What("me-url-api-path")).inIndependent("me-url-api-path").inWholeRun(),
		HeldOut7.fault("USER-STABLE/shape#6", heldOut7What("meta-mention-screenname-at")).inIndependent("meta-mention-screenname-at").inWholeRun(),
	}
}

// heldOut8UserFaults are the defects of the eighth held-out set (independent.HeldOut8)
// whose requirements belong to this file (see heldOut8What).
func heldOut8UserFaults() []Fault {
	return []Fault{
		HeldOut8.fault("USER-SHAPE/shape#9", heldOut8What("avatar-initials-name-unescaped")).inIndependent("avatar-initials-name-unescaped"),
		HeldOut8.fault("USER-STABLE/wrong-subject", heldOut8What("dm-user-id-membership-row")).inIndependent("dm-user-id-membership-row").inWholeRun(),
	}
}
