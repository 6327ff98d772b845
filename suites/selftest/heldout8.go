package selftest

import "github.com/chatrooms/conformance/suites/selftest/independent"

// heldOut8What is a defect of the eighth held-out set of the independent
// implementation (independent.HeldOut8) described in its author's words.
// Its author wrote what goes wrong and the requirement it breaks, without
// having read the checks; the fault's class in its name is the
// self-test's reading of it.
func heldOut8What(defect string) string {
	for _, d := range independent.HeldOut8() {
		if d.Name == defect {
			return "independent implementation (held out, eighth set): " + d.What
		}
	}
	panic("selftest: the independent implementation has no defect " + defect + " in its eighth held-out set")
}

// heldOut8Faults are the defects of the eighth held-out set, every area in
// one list: the set was declared whole, before any check was changed for it.
func heldOut8Faults() []Fault {
	return []Fault{
		HeldOut8.fault("AUTH-CURRENT-USER/intermittent#3", heldOut8What("auth-context-leak-flaky")).inIndependent("auth-context-leak-flaky"),
		HeldOut8.fault("AUTH-REQUIRED/wrong-subject#3", heldOut8What("auth-anonymous-inherits-connection-user")).inIndependent("auth-anonymous-inherits-connection-user"),
		HeldOut8.fault("CHANNEL-LIST/intermittent#3", heldOut8What("channels-empty-flaky")).inIndependent("channels-empty-flaky"),
		HeldOut8.fault("CHANNEL-LIST/shape#3", heldOut8What("channels-single-unwrapped")).inIndependent("channels-single-unwrapped"),
		HeldOut8.fault("HTTP-GET-SAFE/collateral#15", heldOut8What("rooms-list-delivers-as-read")).inIndependent("rooms-list-delivers-as-read"),
		HeldOut8.fault("HTTP-JSON-BODY/shape#11", heldOut8What("content-length-in-characters")).inIndependent("content-length-in-characters"),
		HeldOut8.fault("HTTP-JSON-CONTENT-TYPE/shape#12", heldOut8What("ctype-header-doubled")).inIndependent("ctype-header-doubled"),
		HeldOut8.fault("HTTP-V1-PREFIX/shape#5", heldOut8What("v1-orgs-gone-410")).inIndependent("v1-orgs-gone-410"),
		HeldOut8.fault("LIMIT-CAP/ignores-input#10", heldOut8What("limit-int32-wrap-unbounded")).inIndependent("limit-int32-wrap-unbounded"),
		HeldOut8.fault("META-ISSUES/too-wide", heldOut8What("meta-issues-from-url-fragments")).inIndependent("meta-issues-from-url-fragments"),
		HeldOut8.fault("META-MENTIONS/ignores-input#2", heldOut8What("render-mention-room-members-only")).inIndependent("render-mention-room-members-only"),
		HeldOut8.fault("META-URLS/ignores-input#2", heldOut8What("meta-urls-seen-in-room-dropped")).inIndependent("meta-urls-seen-in-room-dropped"),
		HeldOut8.fault("MSG-EDIT-PERSISTED/stale-derived#6", heldOut8What("list-cache-not-invalidated-on-edit")).inIndependent("list-cache-not-invalidated-on-edit"),
		HeldOut8.fault("MSG-EDIT-V-INC/collateral", heldOut8What("mark-read-bumps-v")).inIndependent("mark-read-bumps-v"),
		HeldOut8.fault("MSG-EDIT/ignores-input#2", heldOut8What("edit-twice-conflict")).inIndependent("edit-twice-conflict"),
		HeldOut8.fault("MSG-EDIT/intermittent#3", heldOut8What("edit-author-cache-403-flaky")).inIndependent("edit-author-cache-403-flaky"),
		HeldOut8.fault("MSG-LIST/shape#9", heldOut8What("list-streamed-ndjson-full-page")).inIndependent("list-streamed-ndjson-full-page"),
		HeldOut8.fault("MSG-META-EMPTY/shape#8", heldOut8What("send-body-extras-into-meta")).inIndependent("send-body-extras-into-meta"),
		HeldOut8.fault("MSG-ROOM-SCOPE/intermittent#2", heldOut8What("list-previous-room-flaky")).inIndependent("list-previous-room-flaky"),
		HeldOut8.fault("MSG-SEND-200/intermittent#2", heldOut8What("send-503-after-store-flaky")).inIndependent("send-503-after-store-flaky"),
		HeldOut8.fault("MSG-SEND-STATUS/intermittent#2", heldOut8What("send-status-dropped-flaky")).inIndependent("send-status-dropped-flaky"),
		HeldOut8.fault("MSG-SEND-STATUS/wrong-subject#3", heldOut8What("send-status-applied-to-previous")).inIndependent("send-status-applied-to-previous"),
		HeldOut8.fault("MSG-SEND-TEXT/shape", heldOut8What("send-text-latin1-column")).inIndependent("send-text-latin1-column"),
		HeldOut8.fault("MSG-STABLE/intermittent#3", heldOut8What("fromuser-ghost-on-timeout-flaky")).inIndependent("fromuser-ghost-on-timeout-flaky").inWholeRun(),
		HeldOut8.fault("MSG-STABLE/shape#2", heldOut8What("get-one-text-from-html-column")).inIndependent("get-one-text-from-html-column").inWholeRun(),
		HeldOut8.fault("MSG-TEXT-REQUIRED/collateral#2", heldOut8What("send-refused-still-stored")).inIndependent("send-refused-still-stored"),
		HeldOut8.fault("MSG-TEXT-REQUIRED/ignores-input#7", heldOut8What("send-null-text-stringified")).inIndependent("send-null-text-stringified"),
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
		HeldOut8.fault("RENDER-ESCAPE/shape#15", heldOut8What("render-markdown-path-unsafe")).inIndependent("render-markdown-path-unsafe"),
		HeldOut8.fault("RENDER-ISSUE/ignores-input#5", heldOut8What("render-issue-repo-rooms-only")).inIndependent("render-issue-repo-rooms-only"),
		HeldOut8.fault("RENDER-LINK/ignores-input#4", heldOut8What("render-link-bare-host-plain")).inIndependent("render-link-bare-host-plain"),
		HeldOut8.fault("RENDER-MENTION/shape#7", heldOut8What("list-html-mentions-unwrapped")).inIndependent("list-html-mentions-unwrapped"),
		HeldOut8.fault("REPO-LIST/shape#7", heldOut8What("repo-id-shadowed-by-room")).inIndependent("repo-id-shadowed-by-room"),
		HeldOut8.fault("ROOM-HIDE/ignores-input#4", heldOut8What("hide-dm-refused")).inIndependent("hide-dm-refused"),
		HeldOut8.fault("ROOM-HIDE/too-wide#4", heldOut8What("hide-matches-uri-prefix")).inIndependent("hide-matches-uri-prefix"),
		HeldOut8.fault("ROOM-KINDS/not-stored", heldOut8What("rooms-keyed-by-access-time")).inIndependent("rooms-keyed-by-access-time"),
		HeldOut8.fault("ROOM-LAST-ACCESS/intermittent#2", heldOut8What("send-touch-dropped-flaky")).inIndependent("send-touch-dropped-flaky"),
		HeldOut8.fault("ROOM-LAST-ACCESS/stale-derived#8", heldOut8What("room-lastaccess-from-marked-message")).inIndependent("room-lastaccess-from-marked-message"),
		HeldOut8.fault("ROOM-ONE-TO-ONE/wrong-subject#6", heldOut8What("dm-peer-from-visible-members")).inIndependent("dm-peer-from-visible-members"),
		HeldOut8.fault("ROOM-STABLE/shape#5", heldOut8What("rooms-url-path-escaped")).inIndependent("rooms-url-path-escaped").inWholeRun(),
		HeldOut8.fault("SEARCH-Q/stale-derived#5", heldOut8What("search-edited-unfindable")).inIndependent("search-edited-unfindable"),
		HeldOut8.fault("SEARCH-Q/stale-derived#6", heldOut8What("search-index-one-behind")).inIndependent("search-index-one-behind"),
		HeldOut8.fault("UNREAD-CHAT/not-stored#6", heldOut8What("unread-chat-oldest-100")).inIndependent("unread-chat-oldest-100"),
		HeldOut8.fault("UNREAD-CHAT/stale-derived#2", heldOut8What("unread-cached-until-mark")).inIndependent("unread-cached-until-mark"),
		HeldOut8.fault("UNREAD-FLAG/wrong-subject#8", heldOut8What("unread-flag-own-messages")).inIndependent("unread-flag-own-messages"),
		HeldOut8.fault("UNREAD-MARK-READ/not-stored#7", heldOut8What("mark-read-room-doc-lost-update")).inIndependent("mark-read-room-doc-lost-update"),
		HeldOut8.fault("UNREAD-MARK-READ/too-wide#6", heldOut8What("mark-read-empty-marks-all")).inIndependent("mark-read-empty-marks-all"),
		HeldOut8.fault("UNREAD-READBY/too-wide#2", heldOut8What("readby-raised-by-batch-size")).inIndependent("readby-raised-by-batch-size"),
		HeldOut8.fault("UNREAD-ROOM-COUNTS/intermittent#4", heldOut8What("room-counts-zipped-flaky")).inIndependent("room-counts-zipped-flaky"),
		HeldOut8.fault("UNREAD-ROOM-COUNTS/stale-derived#11", heldOut8What("room-unread-capped-badge")).inIndependent("room-unread-capped-badge"),
		HeldOut8.fault("UNREAD-SHAPE/shape#8", heldOut8What("unread-keys-untagged")).inIndependent("unread-keys-untagged"),
		HeldOut8.fault("USER-SHAPE/shape#9", heldOut8What("avatar-initials-name-unescaped")).inIndependent("avatar-initials-name-unescaped"),
		HeldOut8.fault("USER-STABLE/wrong-subject", heldOut8What("dm-user-id-membership-row")).inIndependent("dm-user-id-membership-row").inWholeRun(),
	}
}
