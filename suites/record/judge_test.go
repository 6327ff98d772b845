package record

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// page is a listMessages answer holding the messages ids.
func page(ids ...string) []byte {
	out := "["
	for i, id := range ids {
		if i > 0 {
			out += ","
		}
		out += fmt.Sprintf(`{"id":%q,"text":"t","html":"t","sent":"2026-01-01T00:00:00.000Z","editedAt":null,"fromUser":{"id":"u1","username":"a","displayName":"A","url":"/a","avatarUrlSmall":"https://a/s","avatarUrlMedium":"https://a/m"},"unread":false,"readBy":0,"urls":[],"mentions":[],"issues":[],"meta":{},"v":1}`, id)
	}
	return []byte(out + "]")
}

func TestHistoryWindowsKeepCounting(t *testing.T) {
	j, err := NewJudge(JudgeOptions{Profile: spec.Core, Started: time.Now(), Redactor: client.NewRedactor(), ResponseHeaders: true,
		ClientSide: true, HistoryWindow: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 9 {
		body := page(fmt.Sprintf("m%d", i), fmt.Sprintf("n%d", i))
		if i%3 == 0 {
			body = page("d", "d") // a message twice: PAGE-UNIQUE, once in each window
		}
		j.Add(&Exchange{N: i + 1, Start: time.Duration(i) * time.Millisecond, End: time.Duration(i)*time.Millisecond + 500*time.Microsecond,
			User: 0, Method: "GET", Path: "/v1/rooms/r1/chatMessages", Operation: "listMessages", Status: 200,
			RequestHeader: map[string][]string{"Authorization": {"Bearer x"}}, ResponseHeader: map[string][]string{"Content-Type": {"application/json; charset=utf-8"}},
			ResponseBody: body})
	}
	v := j.Verdicts()
	if v.HistoryWindows < 3 {
		t.Errorf("%d history windows for 9 exchanges kept 3 at a time", v.HistoryWindows)
	}
	var got *Verdict
	for i := range v.Failures {
		if v.Failures[i].Requirement == "PAGE-UNIQUE" {
			got = &v.Failures[i]
		}
	}
	if got == nil || got.Count != 3 || len(got.Examples) == 0 {
		t.Fatalf("PAGE-UNIQUE across windows: %+v (all: %+v)", got, v.Failures)
	}
	if v.Judged != 9 || len(v.Failures) != 1 {
		t.Errorf("judged %d, failures %+v", v.Judged, v.Failures)
	}
}

func TestClientBlameNeverFilesUnderTheServersAnswer(t *testing.T) {
	for _, tc := range []struct {
		op   string
		v    spec.Violation
		want string
	}{
		{"sendMessage", spec.Violation{Side: "request", Location: "$.text", Rule: "required"}, "REQUEST-sendMessage"},
		{"listUserChannels", spec.Violation{Side: "request", Location: "query colour", Rule: "undeclared"}, "REQUEST-listUserChannels"},
		{"listMessages", spec.Violation{Side: "request", Location: "query limit", Rule: "maximum"}, "PAGE-LIMIT"},
		{"getCurrentUser", spec.Violation{Side: "request", Location: "credentials", Rule: "security"}, "AUTH-BEARER"},
		{"", spec.Violation{Side: "request", Rule: "route"}, NoOperation},
	} {
		got := ClientBlame(tc.op, tc.v)
		if got != tc.want {
			t.Errorf("ClientBlame(%s, %v) = %s, want %s", tc.op, tc.v, got, tc.want)
		}
		if _, ok := LabelText(got); ok != (got == NoOperation || strings.HasPrefix(got, "REQUEST-")) {
			t.Errorf("LabelText(%s): %v", got, ok)
		}
	}
	if text, _ := LabelText(RequestLabel("sendMessage")); !strings.Contains(text, "A sendMessage request follows the document") {
		t.Errorf("the statement of a request label: %q", text)
	}
	if _, ok := LabelText("MSG-SEND-200"); ok {
		t.Error("a catalogue id has a label text")
	}
}
