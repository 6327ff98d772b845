package selftest

import "strings"

// Why faults survive the core checks of today, by fault name. "not
// observable" marks a defect no client can tell from a right answer with
// what the document states; "weak check" a gap a stronger check can close;
// "attribution" a defect a check sees but blames on another requirement.
// The matrix prints each beside its fault.
var survivorReasons = map[string]string{
	// The eighth held-out set (origin HeldOut8), written blind and measured
	// before any check changed (46 of 62 by default, 49 with --full).
	"HTTP-GET-SAFE/collateral#15":   "not observable in this world (held out, eighth set): listing the rooms marks the messages of one-to-one rooms read; user 1's only one-to-one room is the hide room, which the reads leave out of what they observe (a hide beside them may change it), and the other one-to-one room is not user 1's",
	"META-ISSUES/too-wide":          "not checked, on purpose (held out, eighth set): a #12 in a link's fragment is listed as an issue; the document does not say what an issue reference is, so no check holds that a fragment is not one",
	"META-MENTIONS/ignores-input#2": "not checked, on purpose (held out, eighth set): a mention of a user who is not in the room is neither wrapped nor listed; who can be mentioned is not stated, and servers commonly resolve mentions among a room's members only, so the checks mention members",
	"UNREAD-MARK-READ/not-stored#7": "timing (held out, eighth set): two users' marks at the same moment lose one (the read state is loaded before the lock and saved whole); the concurrency check's two users mark at once, and the 20 ms window was met in some runs of seed 1 on the 2-core machine and not in others",
	"RENDER-ISSUE/ignores-input#5":  "not observable in this world (held out, eighth set): issue references are wrapped only in repository rooms; the independent world's write room, the only room the run writes in, is a repository room",
	// The seventh held-out set (origin HeldOut7), written blind and measured
	// before any check changed (56 of 73 by default, 60 with --full); the
	// survivors of the rules built after it keep their reasons here.
	"SEARCH-Q/ignores-input#12":          "not checked, on purpose (held out, seventh set): words shorter than four letters are never found; whether a search finds short words is not stated (full-text engines commonly index only words of some minimum length), so searches look for long words only",
	"PAGE-BEFOREID-WALK/ignores-input#5": "draws (held out, seventh set): beforeId naming a status update answers an empty page; since the eighth round a walk that ends before messages skip still reaches is the walk's finding (PAGE-BEFOREID-WALK), and the fault shows when a walk's cursor falls on a status update (seed 1 does)",
	"RENDER-LINK/intermittent#2":         "intermittent (held out, seventh set): one send answer in five carries html without any markup; since the eighth round the model's rendering area is drawn again without the requirement it found first (RENDER-MENTION), so RENDER-LINK is judged when the broken answer holds a link (seed 1 does)",
	// The sixth held-out set (origin HeldOut6), written blind and measured
	// before any check changed (44 of 61 by default, 48 with --full); the
	// survivors of the rules built after it keep their reasons here.
	"AUTH-CURRENT-USER/wrong-subject#5":  "caught under another id in --full (held out, sixth set): a send with the token in the query is stored as sent by the room's first member; the history checker finds the sender wrong (MSG-SEND-TEXT) and the token-place check of AUTH-QUERY-TOKEN reads the sender of such a send, while AUTH-CURRENT-USER's own checks send with the token in the header",
	"MSG-EDIT-PERSISTED/stale-derived#5": "draws and timing (held out, sixth set): every later edit keeps the first edit's editedAt; since the sixth round the model holds a read's editedAt to the server's clock at the last edit, and every edit is followed by a read of its message, so the fault shows when one message is edited twice with a send between and that send is stamped more than a millisecond after the first edit (caught in two of three runs of seed 1 on the 2-core machine); the edit check of MSG-EDIT-EDITEDAT meets it too in --full",
	"MSG-SEND-STORED/not-stored#7":       "not told apart (held out, sixth set): one of two concurrent sends is answered and lost; the concurrency check reads each acknowledged message by id, and a lost one answers 404, which it files under MSG-GET-ONE: to a client a read that cannot find a message and a send that was not stored look the same",
	"PAGE-AFTERID/wrong-subject#7":       "caught in 4 of 5 runs on the 2-core machine (held out, fifth set, seed 1); it survived once in a run of 332 faults 2 at a time, and the cause was not found",
	"RENDER-MENTION/ignores-input#3":     "not checked, on purpose (held out, sixth set): a mention typed in another letter case than the username is not wrapped; whether @Name in another case mentions the user is not stated, so no check writes one",
	"ROOM-KINDS/wrong-subject#9":         "gap (held out, sixth set): an organisation room is left out of the rooms list of every member but the first; ROOM-KINDS is judged against the room hints, which name user 1's rooms, and the organisations list of user 2 embeds the organisation's room without saying user 2 is in it",
	"SEARCH-Q/ignores-input#11":          "not checked, on purpose (held out, sixth set): a word followed by punctuation is not found; how search splits a text into words is not stated, so searches look for words written between white space",
	"UNREAD-FLAG/stale-derived#6":        "draws (held out, sixth set): search results keep the unread flag of sending time; since the sixth round search results are judged like pages and every mark read is followed by a read of its message (a search, one time in four), so the fault is caught when that read is a search by the reader (seed 1 does)",
	// The fifth held-out set (origin HeldOut5), written blind and measured
	// before any check changed (27 of 50 by default, 31 at all); the rules
	// built after it are for classes its survivors fell in, and the
	// survivors they caught have no reason left here.
	"LIMIT-SKIP-5000/ignores-input#3":  "attribution (held out, fifth set): skip above 1000 answers 504, a status the document does not give the list operation; the document checker files an undocumented status under the operation's requirement, MSG-LIST, which then blocks the skip check (a status is no field of LIMIT-SKIP-5000's)",
	"MSG-GET-ONE/wrong-subject#3":      "timing (held out, fifth set): reading a message by id answers the first message sent in the same millisecond; it shows only when two of the run's messages share a millisecond, which depends on the machine's speed and load (caught in some runs, not others)",
	"MSG-SEND-200/shape#6":             "not reached, on purpose (held out, fifth set): sends in one-to-one rooms answer 202; the run writes only in write_room (README: what a run leaves)",
	"MSG-SEND-DEFAULTS/shape#7":        "not reached, on purpose (held out, fifth set): the answer to a send in a one-to-one room says unread true; the run writes only in write_room (README: what a run leaves)",
	"PAGE-AFTERID/ignores-input#6":     "attribution (held out, fifth set): with afterId and beforeId together, beforeId is ignored and the page runs past it; a page holding messages newer than beforeId breaks beforeId's statement, and the model files it under PAGE-BEFOREID",
	"RENDER-ISSUE/ignores-input#2":     "not checked, on purpose (held out, fifth set): an issue reference followed by punctuation (#42. or #42,) is not wrapped; the document does not say what counts as an issue reference in a text, so the checks hold only forms every reading agrees on (white space on both sides)",
	"UNREAD-MENTION/ignores-input#3":   "not reached, on purpose (held out, fifth set): mentions in one-to-one rooms are never listed; the run writes only in write_room, and the unread state of messages it did not write is not predicted",
	"UNREAD-READBY/shape#2":            "not reached, on purpose (held out, fifth set): readBy is 0 in one-to-one rooms; the run marks read only in write_room",
	"UNREAD-ROOM-COUNTS/ignores-input": "not observable in this world (held out, fifth set): rooms the user lurks in report counts of 0; the only user who lurks (user 3, in the organisation room) has nothing unread there, and the run writes only in the write room, so 0 is the right count",
	// The fourth held-out set (origin HeldOut4), written blind and measured
	// before any check changed (38 of 60 by default); the rules built after
	// it are for classes its survivors fell in, never for one defect.
	"AUTH-CURRENT-USER/wrong-subject#4":  "caught under another id in --full (held out, fourth set): the user found from an access_token query is cached by path, so another user's query token on that path is served as the first user; the token-place check finds the wrong user with the token in the query and the right one in the header, and files it under AUTH-QUERY-TOKEN (the token in that place does not stand for its owner); AUTH-CURRENT-USER's own check sends the token in the header",
	"HTTP-GET-SAFE/collateral#12":        "caught under another id in --full (held out, fourth set): a message of the seeded history is saved with v raised by one on its first listing, and that first answer already shows the raised v with editedAt null, which the history checker files under MSG-EDIT-EDITEDAT; no read comes before the change, so no read shows a GET changing it",
	"MSG-SEND-200/ignores-input":         "not checked, on purpose (held out, fourth set): a send whose body is labelled application/json; charset=utf-8 is refused; the document names application/json as the request's Content-Type, which is what the harness sends, and whether a server must take the label with a parameter is HTTP's to say, not the document's",
	"PAGE-BEFOREID-WALK/not-stored":      "not observable (held out, fourth set): lists see only the newest 300 messages of a room; a client cannot learn how long a room's history is, and a server that keeps every list, skip and cursor to the newest 300 answers as a room of 300 messages would",
	"RENDER-ISSUE/ignores-input":         "not checked, on purpose (held out, fourth set): an issue reference right after an opening parenthesis is not wrapped; the document does not say what counts as an issue reference in a text, so the checks hold only forms every reading agrees on (white space on both sides)",
	"RENDER-MENTION/ignores-input":       "not checked, on purpose (held out, fourth set): a mention followed by a comma is not wrapped; the document does not say what counts as a mention in a text, so the checks hold only forms every reading agrees on (white space on both sides)",
	"REPO-PRIVATE-GRANTED/stale-derived": "order (held out, fourth set): only the first repositories list of a granting user lacks the private repositories; the default selection's check reads first and catches it, while in --full another check has read the list before",
	"SEARCH-Q/ignores-input#8":           "not checked, on purpose (held out, fourth set): the query is HTML-escaped before matching, so words holding &, < or > are not found; how search splits such a word is not stated (R&D may be one word or two), so searches look for words of letters and digits only",
	"UNREAD-CHAT/not-stored#4":           "caught under another id in --full (held out, fourth set): unread messages older than three days leave the unread list; the run's own messages are minutes old, and for the world's older ones the room's count and the list disagree, which the counts check cannot tell from a wrong count",
	"UNREAD-FLAG/wrong-subject#6":        "not observable in this world (held out, fourth set): the unread flag is true only while nobody has read a message; the independent world's write room has two members, its sender and one reader, and for them the two readings coincide; the model judges it where a third member reads the write room",
	"UNREAD-READBY/stale-derived#5":      "not observable in this world (held out, fourth set): readBy stops at 1; the independent world's write room has two members, so a message has one possible reader; the model counts two readers where a third member reads the write room",
	// The third held-out set (origin HeldOut3), written blind after the
	// model's second round; measured before and after its third. What a
	// check would have to do is said; none was written for one of them.
	"META-MENTIONS/wrong-subject#4":      "not checked, on purpose (held out, third set): messages of one-to-one rooms carry no mentions; the run writes only in write_room, and the metadata of messages it did not write is not predicted",
	"MSG-EDIT-V-INC/ignores-input":       "draws (held out, third set): an edit to the text the message already has leaves v as it was; since the model's third round one edit in eight writes the text the message has, and the fault is caught when such an edit is drawn and its v read (seed 1 does)",
	"MSG-ROOM-SCOPE/too-wide#5":          "draws (held out, third set): aroundId naming a message of another room answers that room's window; since the model's third round one list in ten is followed by the same cursor naming another room's message, and the fault is caught when that cursor is aroundId (seed 1 does)",
	"MSG-SEND-STORED/not-stored#6":       "draws (held out, third set): a message with the same text as the sender's previous one is acknowledged and dropped; since the model's third round one send in eight repeats the user's previous text, and the fault is caught when that message is then read (the pages check meets it in --full)",
	"PAGE-BEFOREID-WALK/wrong-subject#5": "timing (held out, third set): a beforeId page that would hold fewer than limit messages comes back empty; the walks end where they have seen their own messages, so it shows only when the room's older history is short of a page there, which depends on what the run wrote before (caught in some runs, not others)",
	"PAGE-BEFOREID/wrong-subject#3":      "timing (held out, third set): beforeId at a room's oldest message answers that message; the check that pages to a room's start walks the first described room short enough and asks beforeId at its oldest message, and the walk met it in some runs of seed 1 and not in others on the 2-core machine (cause not found)",
	"RENDER-ISSUE/shape#5":               "draws (held out, third set): an issue reference of five digits or more is not wrapped; since the model's third round issue numbers have one to six digits, and the fault is caught when a text with a long one is drawn and judged (seed 1 does)",
	"SEARCH-Q/ignores-input#6":           "draws (held out, third set): a word with non-ASCII capitals is not found; since the model's third round every other unique word holds one, and the fault is caught when a search for such a word is drawn (seed 1 does)",
	"UNREAD-CHAT/collateral":             "draws (held out, third set): an edit marks the message read for every member; seed 1's unread sequences meet it under UNREAD-CHAT since the sixth round changed their draws, and before under UNREAD-MARK-READ, where marks read after the edit left the model unable to tell the edit from a mark that reached a message it did not name",
	"UNREAD-MENTION/stale-derived":       "not checked, on purpose (held out, third set): a mention added by an edit is never listed as an unread mention; the document does not say whether an edit that adds a mention makes one, so the model leaves it open",
	// One hide a run: a hidden room does not come back (nothing in the
	// API brings it back), and the description allows one room hidden for
	// one user. So a hide that takes effect one time in N is caught only
	// when the run's one hide is one that does not.
	"ROOM-HIDE/intermittent":   "one hide a run (the description allows hiding hide_room for user 1 only, and nothing brings a hidden room back): a hide that does nothing one time in two is caught when the run's first hide of hide_room is the one that does nothing; the generated requests hide other rooms before it (refusals expected), and a server that counts those too decides which hide does nothing",
	"ROOM-HIDE/intermittent#2": "one hide a run (held out, third set): as ROOM-HIDE/intermittent, every third hide; caught when the run's first hide of hide_room is a third one",
	// The first held-out set's survivors of later rounds.
	"AUTH-UNKNOWN-TOKEN/intermittent#2": "draws (held out): the server counts a request whose Authorization header is an empty Bearer credential among those with an unknown token; when the tenth such request is one, the data it is given breaks AUTH-REQUIRED (a request that carries no token), where the generated check files it (caught under AUTH-UNKNOWN-TOKEN when the tenth carries an unknown bearer token: seed 1 was caught so in a run of the intermittent faults and filed under AUTH-REQUIRED in a run of the held-out sets, on one build)",
	// The second held-out set (origin HeldOut2), measured before and after
	// the model's second round; the same rule: no check for one of them.
	"META-URLS/stale-derived#2":           "draws (held out, second set): an edit keeps the old text's urls, mentions and issues; the checks that edit a text with a link stop at the stale mentions (META-MENTIONS), and since the eighth round the model's rendering area is drawn again without a requirement it found, so META-URLS is judged when its draws edit a text with a link (seed 1 does)",
	"PAGE-BEFOREID-WALK/ignores-input#4":  "timing (held out, second set): beforeId compares sent times, so only messages that share a millisecond with the cursor are lost; whether two of the walk's 250 sends share one depends on the machine's speed and load (caught when they do)",
	"RENDER-ESCAPE/shape#8":               "draws (held out, second set): text after a link is not escaped; since the sixth round one text in eight opens with its link, so everything HTML must escape in it comes after a link, and the fault is caught when such a text is drawn and judged (seed 1 does)",
	"REPO-PRIVATE-GRANTED/intermittent#2": "intermittent (held out, second set): one repositories list in five of a granting user leaves out the private repositories; the checks list a granting user's repositories a few times only",
	"ROOM-KINDS/wrong-subject#6":          "gap (held out, second set): rooms the user lurks in are left out of the rooms list; no described room is one the user lurks in, and the rooms list is judged against the description's hints",
	"UNREAD-MENTION/ignores-input":        "not checked, on purpose (held out, second set): a mention in another letter case is not listed as a mention; whether @Name in another case mentions the user is not stated, so no check writes one",
	// Held-out defects (origin HeldOut) that the checks of their own
	// requirement do not catch in the default selection: each reason says
	// what a check would have to do. They stay here, unanswered, as the
	// measure of what the checks still miss; no check was written for one.
	"LIMIT-CAP/ignores-input#7":       "gap (held out): limit is not capped when skip is given too; no check asks for more than 100 messages together with skip",
	"MSG-EDIT-PERSISTED/not-stored#6": "gap (held out): edits after the first are answered and not stored; the model reaches it only when one message is edited twice and then read, which seed 1's draws do not do; the history checker sees v go down under MSG-EDIT-V-INC",
	"ROOM-HIDE/not-stored#4":          "not checked, on purpose (held out): only the first room a user hides is hidden; a run hides one room only, hide_room",
	"USER-STABLE/shape":               "gap (held out): a mention's screenName is the name as typed when its letter case differs from the username; no check mentions a user in another letter case",
	"MSG-SEND-STORED/not-stored#5":    "not checked, on purpose: the harness sends only to write_room (README: what a run leaves), so a defect of channels alone is not written to",
	"ROOM-HIDE/ignores-input#2":       "not checked, on purpose: the harness hides only hide_room, the one room the description allows it to take away; a defect of other kinds of room is not reached",
	"UNREAD-MARK-READ/not-stored#3":   "not checked, on purpose: the harness marks read only in write_room (other rooms are read, never changed), so a defect of one-to-one rooms alone is not reached",
	"CHANNEL-LIST/wrong-subject#3":    "not observable: users 1 and 2 may belong to the same channels, and the document gives no other way to learn a user's channels, so user 2 shown user 1's list looks right",
	"ROOM-HIDE/wrong-subject#2":       "not checked, on purpose: the description lets the harness hide hide_room for user 1 only; hiding as user 2 would take a room from a user who never agreed to it",
	"PAGE-AFTERID/ignores-input#2":    "not a statement: the document lists each parameter on its own and says nothing of a cursor combined with q; a server that searches the whole room whatever the cursor answers the search it was asked (accepted reading, PAGE-AFTERID's catalogue reason)",
	"PAGE-BEFOREID/ignores-input#3":   "not a statement: the document lists each parameter on its own and says nothing of a cursor combined with q; a server that searches the whole room whatever the cursor answers the search it was asked (accepted reading, PAGE-BEFOREID's catalogue reason)",
	"CHANNEL-LIST/too-wide":           "not observable: the document gives a client no way to learn which channels are a user's other than the channels list itself (members are not listed, and user 2 may share every channel of user 1)",
	"ORG-LIST/too-wide":               "not observable: the document gives a client no way to learn which organisations a user is in other than the organisations list itself; an extra entry without a room looks like any other",
	"ORG-ROOM/wrong-subject":          "not observable: nothing the document states ties a room to its organisation but the embedding itself (no field of a room names its organisation), so rooms swapped between a user's organisations look right",
	"REPO-ROOM/wrong-subject":         "not observable: nothing the document states ties a room to its repository but the embedding itself (a room's uri is not said to be the repository's), so rooms swapped between a user's repositories look right",
}

// intermittentReason is why an intermittent fault may survive: the checks
// read each answer a few times only, and the defective one in N may fall
// on requests whose answer no check examines.
const intermittentReason = "intermittent: the defect shows on one answer in N; the checks read this answer few times, and the defective one fell on a request no check examines"

func survivalReason(f Fault) string {
	if r, ok := survivorReasons[f.Name]; ok {
		return r
	}
	// "one answer in N", or a held-out author's "every Nth answer".
	if f.Class == Intermittent && (strings.Contains(f.What, "one ") || strings.Contains(f.What, "every ")) {
		return intermittentReason
	}
	return ""
}
