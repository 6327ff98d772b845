package selftest

import "github.com/chatrooms/conformance/suites/selftest/independent"

// heldOut6What is a defect of the sixth held-out set of the independent
// implementation (independent.HeldOut6) described in its author's words.
// Its author wrote what goes wrong and the requirement it breaks, without
// having read the checks; the fault's class in its name is the
// self-test's reading of it.
func heldOut6What(defect string) string {
	for _, d := range independent.HeldOut6() {
		if d.Name == defect {
			return "independent implementation (held out, sixth set): " + d.What
		}
	}
	panic("selftest: the independent implementation has no defect " + defect + " in its sixth held-out set")
}

// heldOut6Faults are the defects of the sixth held-out set, every area
// in one list (the set was declared after the areas' files were split).
func heldOut6Faults() []Fault {
	return []Fault{
		HeldOut6.fault("MSG-EDIT-PERSISTED/intermittent#3", heldOut6What("edit-lost-flaky")).inIndependent("edit-lost-flaky"),
		HeldOut6.fault("MSG-EDIT-PERSISTED/stale-derived#5", heldOut6What("editedat-first-edit-kept")).inIndependent("editedat-first-edit-kept"),
		HeldOut6.fault("MSG-EDIT-PERSISTED/wrong-subject", heldOut6What("edit-hits-next-message")).inIndependent("edit-hits-next-message"),
		HeldOut6.fault("MSG-EDIT-V-INC/stale-derived#5", heldOut6What("edit-answer-v-not-raised")).inIndependent("edit-answer-v-not-raised"),
		HeldOut6.fault("MSG-EDIT/not-stored#4", heldOut6What("edit-text-escaped-stored")).inIndependent("edit-text-escaped-stored"),
		HeldOut6.fault("MSG-GET-ONE/intermittent#3", heldOut6What("get-one-neighbour-flaky")).inIndependent("get-one-neighbour-flaky"),
		HeldOut6.fault("MSG-LIST/shape#7", heldOut6What("search-answer-envelope")).inIndependent("search-answer-envelope"),
		HeldOut6.fault("MSG-SEND-EDITEDAT-NULL/shape#7", heldOut6What("editedat-empty-string-new")).inIndependent("editedat-empty-string-new"),
		HeldOut6.fault("MSG-SEND-STATUS/collateral#2", heldOut6What("edit-clears-status")).inIndependent("edit-clears-status"),
		HeldOut6.fault("MSG-SEND-STORED/not-stored#7", heldOut6What("send-concurrent-lost-update")).inIndependent("send-concurrent-lost-update"),
		HeldOut6.fault("MSG-SEND-TEXT/not-stored#12", heldOut6What("send-status-me-stripped")).inIndependent("send-status-me-stripped"),
		HeldOut6.fault("MSG-SEND-TEXT/wrong-subject#2", heldOut6What("send-answer-fromuser-last-sender")).inIndependent("send-answer-fromuser-last-sender"),
		HeldOut6.fault("MSG-TEXT-REQUIRED/ignores-input#5", heldOut6What("edit-missing-text-noop-200")).inIndependent("edit-missing-text-noop-200"),
		HeldOut6.fault("LIMIT-100/ignores-input#4", heldOut6What("before-limit-capped-50")).inIndependent("before-limit-capped-50"),
		HeldOut6.fault("LIMIT-SKIP-5000/ignores-input#4", heldOut6What("skip-bound-includes-limit")).inIndependent("skip-bound-includes-limit"),
		HeldOut6.fault("PAGE-AFTERID/wrong-subject#8", heldOut6What("after-compares-ids")).inIndependent("after-compares-ids"),
		HeldOut6.fault("PAGE-AROUNDID/ignores-input#2", heldOut6What("around-limit-one-empty")).inIndependent("around-limit-one-empty"),
		HeldOut6.fault("PAGE-BEFOREID-WALK/shape", heldOut6What("before-anchor-counted-in-limit")).inIndependent("before-anchor-counted-in-limit"),
		HeldOut6.fault("PAGE-BEFOREID-WALK/wrong-subject#6", heldOut6What("before-sorted-ascending-limit")).inIndependent("before-sorted-ascending-limit"),
		HeldOut6.fault("PAGE-BEFOREID/ignores-input#4", heldOut6What("before-dropped-with-skip")).inIndependent("before-dropped-with-skip"),
		HeldOut6.fault("PAGE-LIMIT/too-wide", heldOut6What("limit-skips-status")).inIndependent("limit-skips-status"),
		HeldOut6.fault("PAGE-SKIP/ignores-input#6", heldOut6What("skip-twice-with-before")).inIndependent("skip-twice-with-before"),
		HeldOut6.fault("META-ISSUES/stale-derived#2", heldOut6What("edit-issues-accumulate")).inIndependent("edit-issues-accumulate"),
		HeldOut6.fault("META-MENTIONS/shape#3", heldOut6What("get-one-metadata-not-loaded")).inIndependent("get-one-metadata-not-loaded"),
		HeldOut6.fault("META-URLS/shape#5", heldOut6What("meta-urls-trailing-slash-dropped")).inIndependent("meta-urls-trailing-slash-dropped"),
		HeldOut6.fault("META-URLS/shape#6", heldOut6What("meta-urls-from-html-escaped")).inIndependent("meta-urls-from-html-escaped"),
		HeldOut6.fault("RENDER-ESCAPE/shape#12", heldOut6What("render-code-span-raw")).inIndependent("render-code-span-raw"),
		HeldOut6.fault("RENDER-ISSUE/ignores-input#3", heldOut6What("render-issue-at-start-plain")).inIndependent("render-issue-at-start-plain"),
		HeldOut6.fault("RENDER-LINK/ignores-input#3", heldOut6What("render-status-plain")).inIndependent("render-status-plain"),
		HeldOut6.fault("RENDER-MENTION/ignores-input#3", heldOut6What("render-mention-case-sensitive")).inIndependent("render-mention-case-sensitive"),
		HeldOut6.fault("RENDER-MENTION/stale-derived#2", heldOut6What("edit-html-stale")).inIndependent("edit-html-stale"),
		HeldOut6.fault("CHANNEL-SECURITY/shape#7", heldOut6What("channel-security-as-flag")).inIndependent("channel-security-as-flag"),
		HeldOut6.fault("ORG-LIST/shape#6", heldOut6What("org-name-from-room")).inIndependent("org-name-from-room"),
		HeldOut6.fault("REPO-LIST/shape#5", heldOut6What("repo-uri-from-room")).inIndependent("repo-uri-from-room"),
		HeldOut6.fault("REPO-PRIVATE-WITHHELD/too-wide#5", heldOut6What("repo-grant-of-last-lister")).inIndependent("repo-grant-of-last-lister"),
		HeldOut6.fault("ROOM-HIDE/intermittent#3", heldOut6What("hide-filter-skipped-flaky")).inIndependent("hide-filter-skipped-flaky"),
		HeldOut6.fault("ROOM-HIDE/too-wide#3", heldOut6What("hide-dm-hides-shared-rooms")).inIndependent("hide-dm-hides-shared-rooms"),
		HeldOut6.fault("ROOM-KINDS/wrong-subject#9", heldOut6What("rooms-org-owner-only")).inIndependent("rooms-org-owner-only"),
		HeldOut6.fault("ROOM-LAST-ACCESS/stale-derived#6", heldOut6What("send-touch-previous-message")).inIndependent("send-touch-previous-message"),
		HeldOut6.fault("ROOM-PLATFORM-TYPE/shape#6", heldOut6What("room-kind-one-to-one-underscored")).inIndependent("room-kind-one-to-one-underscored"),
		HeldOut6.fault("ROOM-SHAPE/shape#11", heldOut6What("room-dm-url-no-slash")).inIndependent("room-dm-url-no-slash"),
		HeldOut6.fault("ROOM-SHAPE/shape#12", heldOut6What("room-usercount-string")).inIndependent("room-usercount-string"),
		HeldOut6.fault("SEARCH-Q/ignores-input#10", heldOut6What("search-skips-own-messages")).inIndependent("search-skips-own-messages"),
		HeldOut6.fault("SEARCH-Q/ignores-input#11", heldOut6What("search-token-keeps-punctuation")).inIndependent("search-token-keeps-punctuation"),
		HeldOut6.fault("AUTH-BEARER/collateral", heldOut6What("auth-lockout-after-bad-token")).inIndependent("auth-lockout-after-bad-token"),
		HeldOut6.fault("AUTH-CURRENT-USER/wrong-subject#5", heldOut6What("send-query-auth-fromuser-owner")).inIndependent("send-query-auth-fromuser-owner"),
		HeldOut6.fault("AUTH-QUERY-TOKEN/intermittent#2", heldOut6What("auth-query-token-flaky")).inIndependent("auth-query-token-flaky"),
		HeldOut6.fault("AUTH-REQUIRED/too-wide#6", heldOut6What("auth-anonymous-edit-as-author")).inIndependent("auth-anonymous-edit-as-author"),
		HeldOut6.fault("HTTP-GET-SAFE/collateral#13", heldOut6What("list-newest-marks-read")).inIndependent("list-newest-marks-read"),
		HeldOut6.fault("HTTP-JSON-BODY/intermittent#4", heldOut6What("json-empty-body-flaky")).inIndependent("json-empty-body-flaky"),
		HeldOut6.fault("HTTP-JSON-CONTENT-TYPE/shape#10", heldOut6What("ctype-latin1-non-ascii")).inIndependent("ctype-latin1-non-ascii"),
		HeldOut6.fault("UNREAD-FLAG/stale-derived#6", heldOut6What("search-unread-flag-indexed")).inIndependent("search-unread-flag-indexed"),
		HeldOut6.fault("UNREAD-MARK-READ/collateral", heldOut6What("mark-read-toggles")).inIndependent("mark-read-toggles"),
		HeldOut6.fault("UNREAD-MARK-READ/not-stored#6", heldOut6What("mark-read-mention-stays-chat")).inIndependent("mark-read-mention-stays-chat"),
		HeldOut6.fault("UNREAD-MENTION/ignores-input#4", heldOut6What("unread-mention-needs-following-space")).inIndependent("unread-mention-needs-following-space"),
		HeldOut6.fault("UNREAD-MENTION/intermittent#2", heldOut6What("unread-mention-dropped-flaky")).inIndependent("unread-mention-dropped-flaky"),
		HeldOut6.fault("UNREAD-READBY/stale-derived#6", heldOut6What("readby-list-counter-stale")).inIndependent("readby-list-counter-stale"),
		HeldOut6.fault("UNREAD-ROOM-COUNTS/stale-derived#8", heldOut6What("room-count-skips-status")).inIndependent("room-count-skips-status"),
		HeldOut6.fault("UNREAD-ROOM-COUNTS/too-wide#4", heldOut6What("unread-list-all-rooms")).inIndependent("unread-list-all-rooms"),
		HeldOut6.fault("UNREAD-SHAPE/shape#6", heldOut6What("unread-mention-omitted-empty")).inIndependent("unread-mention-omitted-empty"),
		HeldOut6.fault("USER-STABLE/shape#4", heldOut6What("me-username-displayname-swapped")).inIndependent("me-username-displayname-swapped").inWholeRun(),
	}
}
