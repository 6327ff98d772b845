package spec

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The twelve operations of the API document's summary table, placeholders
// written as {}.
var documentOperations = []string{
	"GET /v1/user",
	"GET /v1/user/{}/rooms",
	"DELETE /v1/user/{}/rooms/{}",
	"GET /v1/user/{}/rooms/{}/unreadItems",
	"POST /v1/user/{}/rooms/{}/unreadItems",
	"GET /v1/user/{}/orgs",
	"GET /v1/user/{}/repos",
	"GET /v1/user/{}/channels",
	"GET /v1/rooms/{}/chatMessages",
	"GET /v1/rooms/{}/chatMessages/{}",
	"POST /v1/rooms/{}/chatMessages",
	"PUT /v1/rooms/{}/chatMessages/{}",
}

var placeholder = regexp.MustCompile(`\{[^}]+\}|:[A-Za-z]+`)

func TestDocumentsLoadAndHaveTheDocumentsOperations(t *testing.T) {
	want := append([]string(nil), documentOperations...)
	sort.Strings(want)
	for _, p := range Profiles {
		d, err := Load(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var got []string
		for _, op := range d.Operations() {
			if op.ID == "" {
				t.Errorf("%s: %s %s has no operationId", p, op.Method, op.Path)
			}
			got = append(got, op.Method+" "+placeholder.ReplaceAllString(op.Path, "{}"))
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s operations:\n%s\nwant:\n%s", p, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// When the API document sits beside the repository (as it does in CI), the
// hard-coded list above and the catalogue's sections are checked against it.
func TestAgainstTheAPIDocument(t *testing.T) {
	f, err := os.Open("../../shared/api/chat-rooms-api.md")
	if err != nil {
		t.Skipf("API document not beside the repository: %v", err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| (GET|POST|PUT|DELETE) \\| (/v1\\S*) \\|")
	var ops []string
	headings := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := row.FindStringSubmatch(line); m != nil {
			ops = append(ops, m[1]+" "+placeholder.ReplaceAllString(m[2], "{}"))
		}
		if h := strings.TrimLeft(line, "#"); h != line && strings.HasPrefix(h, " ") {
			headings[strings.TrimSpace(h)] = true
		}
	}
	if strings.Join(ops, "\n") != strings.Join(documentOperations, "\n") {
		t.Errorf("summary table of the API document:\n%s\nwant:\n%s", strings.Join(ops, "\n"), strings.Join(documentOperations, "\n"))
	}
	for _, s := range Sections {
		if !headings[s] {
			t.Errorf("catalogue section %q is not a heading of the API document", s)
		}
	}
}

func TestProfilesParse(t *testing.T) {
	for _, p := range Profiles {
		if got, err := ParseProfile(string(p)); err != nil || got != p {
			t.Errorf("ParseProfile(%q) = %q, %v", p, got, err)
		}
	}
	if _, err := ParseProfile("strict"); err == nil {
		t.Error("ParseProfile accepted an unknown name")
	}
}

func TestRouterMatchesAnyHostAndMount(t *testing.T) {
	d := MustLoad(Core)
	for _, tc := range []struct{ mount, url, want string }{
		{"", "https://chat.example.com/v1/user", "getCurrentUser"},
		{"", "https://127.0.0.1:8443/v1/rooms/abc/chatMessages/def", "getMessage"},
		{"/api/chat", "https://example.org/api/chat/v1/user/me/repos", "listUserRepos"},
		{"/api/chat/", "http://x/api/chat/v1/rooms/r1/chatMessages", "listMessages"},
		{"", "https://x/user", ""},
		{"/api", "https://x/v1/user", ""},
	} {
		v, err := d.NewValidator(tc.mount)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, tc.url, nil)
		if got := v.OperationID(req); got != tc.want {
			t.Errorf("mount %q, GET %s: operation %q, want %q", tc.mount, tc.url, got, tc.want)
		}
	}
}

// --- payloads ----------------------------------------------------------------

func user() map[string]any {
	return map[string]any{
		"id": "5f1a0c2b9d3e4f5a6b7c8d90", "username": "ada", "displayName": "Ada Lovelace", "url": "/ada",
		"avatarUrlSmall": "https://avatars.example.com/ada?s=60", "avatarUrlMedium": "https://avatars.example.com/ada?s=128",
	}
}

func message() map[string]any {
	from := user()
	from["v"] = 3
	return map[string]any{
		"id": "5f1a0c2b9d3e4f5a6b7c8d91", "text": "hi @ada see #12", "html": `hi <span class="mention">@ada</span>`,
		"sent": "2026-11-02T09:14:03.120Z", "editedAt": nil, "fromUser": from, "unread": false, "readBy": 0,
		"urls":     []any{map[string]any{"url": "https://example.com/a?b=c"}},
		"mentions": []any{map[string]any{"screenName": "ada", "userId": "5f1a0c2b9d3e4f5a6b7c8d90"}},
		"issues":   []any{map[string]any{"number": "12"}}, "meta": map[string]any{}, "v": 1, "status": false,
	}
}

func groupRoom() map[string]any {
	return map[string]any{
		"id": "5f1a0c2b9d3e4f5a6b7c8d92", "name": "acme/widgets", "topic": "", "uri": "acme/widgets", "oneToOne": false,
		"userCount": 3, "unreadItems": 0, "mentions": 0, "lastAccessTime": "2026-11-02T09:14:03Z", "lurk": false,
		"url": "/acme/widgets", "platformType": "REPO", "security": "PUBLIC", "v": 1,
	}
}

func oneToOneRoom() map[string]any {
	return map[string]any{
		"id": "5f1a0c2b9d3e4f5a6b7c8d93", "name": "Ada Lovelace", "topic": "", "oneToOne": true, "userCount": 2,
		"user": user(), "unreadItems": 1, "mentions": 0, "lurk": false, "url": "/ada", "platformType": "ONETOONE", "v": 1,
	}
}

func channel() map[string]any {
	r := groupRoom()
	delete(r, "userCount")
	r["platformType"] = "USER_CHANNEL"
	r["uri"], r["url"], r["name"] = "ada/lounge", "/ada/lounge", "ada/lounge"
	return r
}

func with(m map[string]any, key string, value any) map[string]any {
	if value == nil {
		delete(m, key)
	} else {
		m[key] = value
	}
	return m
}

type remove struct{}

func set(m map[string]any, key string, value any) map[string]any {
	if _, ok := value.(remove); ok {
		delete(m, key)
		return m
	}
	m[key] = value
	return m
}

// response validates body as the 200 answer of method path under profile p.
func response(t *testing.T, p Profile, method, path string, status int, header http.Header, body any) []Violation {
	t.Helper()
	v, err := MustLoad(p).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	for k, vs := range header {
		h[k] = vs
	}
	_, violations := v.CheckResponse(context.Background(), httptest.NewRequest(method, "https://x"+path, nil), status, h, raw)
	return violations
}

const (
	msgPath  = "/v1/rooms/5f1a0c2b9d3e4f5a6b7c8d92/chatMessages"
	onePath  = msgPath + "/5f1a0c2b9d3e4f5a6b7c8d91"
	roomPath = "/v1/user/me/rooms"
)

func TestConformingPayloadsValidate(t *testing.T) {
	edited := message()
	edited["editedAt"], edited["v"] = "2026-11-02T09:20:00Z", 2
	cases := []struct {
		name, method, path string
		status             int
		body               any
	}{
		{"current user", "GET", "/v1/user", 200, []any{user()}},
		{"rooms of every kind", "GET", roomPath, 200, []any{groupRoom(), oneToOneRoom(), with(groupRoom(), "platformType", "ORG")}},
		{"channels", "GET", "/v1/user/me/channels", 200, []any{channel()}},
		{"organisations", "GET", "/v1/user/me/orgs", 200, []any{
			map[string]any{"id": 7, "name": "acme", "avatar_url": "https://avatars.example.com/acme"},
			map[string]any{"id": 8, "name": "beta", "avatar_url": "https://avatars.example.com/beta", "room": with(groupRoom(), "platformType", "ORG")},
		}},
		{"repositories", "GET", "/v1/user/me/repos", 200, []any{
			map[string]any{"id": 9, "name": "widgets", "uri": "acme/widgets", "private": false, "room": groupRoom()},
			map[string]any{"id": 10, "name": "secret", "uri": "acme/secret", "private": true},
		}},
		{"unread items", "GET", roomPath + "/5f1a0c2b9d3e4f5a6b7c8d92/unreadItems", 200, map[string]any{"chat": []any{"5f1a0c2b9d3e4f5a6b7c8d91"}, "mention": []any{}}},
		{"message list", "GET", msgPath, 200, []any{message(), edited}},
		{"empty message list", "GET", msgPath, 200, []any{}},
		{"sent message", "POST", msgPath, 200, message()},
		{"edited message", "PUT", onePath, 200, edited},
		{"one message", "GET", onePath, 200, message()},
	}
	for _, p := range Profiles {
		for _, tc := range cases {
			if vs := response(t, p, tc.method, tc.path, tc.status, nil, tc.body); len(vs) > 0 {
				t.Errorf("%s, %s: %v", p, tc.name, vs)
			}
		}
	}
}

func TestWrongPayloadsAreRejectedForTheRightReason(t *testing.T) {
	cases := []struct {
		name, method, path string
		status             int
		body               any
		location, rule     string
	}{
		{"user without username", "GET", "/v1/user", 200, []any{set(user(), "username", remove{})}, "$[0].username", "required"},
		{"bare user object instead of array", "GET", "/v1/user", 200, user(), "$", "type"},
		{"two users", "GET", "/v1/user", 200, []any{user(), user()}, "$", "maxItems"},
		{"avatar that is not a URI", "GET", "/v1/user", 200, []any{set(user(), "avatarUrlSmall", "not a uri")}, "$[0].avatarUrlSmall", "format"},
		{"avatar with a space in its query", "GET", "/v1/user", 200, []any{set(user(), "avatarUrlSmall", "https://avatars.example/i?name=Ada Lovelace")}, "$[0].avatarUrlSmall", "format"},
		{"avatar with a bad escape", "GET", "/v1/user", 200, []any{set(user(), "avatarUrlMedium", "https://avatars.example/i/%zz")}, "$[0].avatarUrlMedium", "format"},
		{"user url without slash", "GET", "/v1/user", 200, []any{set(user(), "url", "ada")}, "$[0].url", "pattern"},
		{"message id as a number", "GET", onePath, 200, set(message(), "id", 17), "$.id", "type"},
		{"message without editedAt", "POST", msgPath, 200, set(message(), "editedAt", remove{}), "$.editedAt", "required"},
		{"malformed sent timestamp", "GET", onePath, 200, set(message(), "sent", "02/11/2026 09:14"), "$.sent", "pattern"},
		{"sent timestamp not in UTC", "GET", onePath, 200, set(message(), "sent", "2026-11-02T09:14:03+02:00"), "$.sent", "pattern"},
		{"issue number sent as a number", "GET", onePath, 200, set(message(), "issues", []any{map[string]any{"number": 12}}), "$.issues[0].number", "type"},
		{"mention without userId", "GET", onePath, 200, set(message(), "mentions", []any{map[string]any{"screenName": "ada"}}), "$.mentions[0].userId", "required"},
		{"meta that is not empty", "GET", onePath, 200, set(message(), "meta", map[string]any{"x": 1}), "$.meta", "maxProperties"},
		{"readBy as a string", "GET", onePath, 200, set(message(), "readBy", "0"), "$.readBy", "type"},
		{"bare message object where a list is due", "GET", msgPath, 200, message(), "$", "type"},
		{"unknown platformType", "GET", roomPath, 200, []any{set(groupRoom(), "platformType", "GITLAB")}, "$[0].platformType", "enum"},
		{"room without id", "GET", roomPath, 200, []any{set(groupRoom(), "id", remove{})}, "$[0].id", "required"},
		{"channel with userCount", "GET", "/v1/user/me/channels", 200, []any{set(channel(), "userCount", 2)}, "$[0]", "not"},
		{"channel of another kind", "GET", "/v1/user/me/channels", 200, []any{set(channel(), "platformType", "ORG")}, "$[0].platformType", "enum"},
		{"organisation id as a string", "GET", "/v1/user/me/orgs", 200, []any{map[string]any{"id": "7", "name": "acme", "avatar_url": "https://a.example/x"}}, "$[0].id", "type"},
		{"repository without private", "GET", "/v1/user/me/repos", 200, []any{map[string]any{"id": 9, "name": "w", "uri": "a/w"}}, "$[0].private", "required"},
		{"unread items without mention", "GET", roomPath + "/r/unreadItems", 200, map[string]any{"chat": []any{}}, "$.mention", "required"},
		{"send answered 201", "POST", msgPath, 201, message(), "status", "status"},
		{"a 500 is never documented at core", "GET", "/v1/user", 500, map[string]any{}, "status", "status"},
	}
	for _, tc := range cases {
		vs := response(t, Core, tc.method, tc.path, tc.status, nil, tc.body)
		if !hasViolation(vs, tc.location, tc.rule) {
			t.Errorf("%s: want a violation at %s of rule %s, got %v", tc.name, tc.location, tc.rule, vs)
		}
	}
}

// A success the operation does not document is read as the one it does
// document, so that what is wrong in the body is not hidden by the status.
func TestUndocumentedSuccessIsReadAsTheDocumentedOne(t *testing.T) {
	cases := []struct {
		name         string
		p            Profile
		method, path string
		status       int
		body         any
		want         []string // location rule, in order
	}{
		{"valid message sent with 201", Core, "POST", msgPath, 201, message(), []string{"status status"}},
		{"valid message sent with 201", Reference, "POST", msgPath, 201, message(), []string{"status status"}},
		{"message without editedAt sent with 201", Core, "POST", msgPath, 201, set(message(), "editedAt", remove{}), []string{"status status", "$.editedAt required"}},
		{"message without status sent with 201", Reference, "POST", msgPath, 201, set(message(), "status", remove{}), []string{"status status", "$.status required"}},
		{"list of a bare message under 203", Core, "GET", msgPath, 203, message(), []string{"status status", "$ type"}},
		// A 204 has no body: only its headers are read as the documented 200.
		{"hide answered 204", Reference, "DELETE", roomPath + "/5f1a0c2b9d3e4f5a6b7c8d92", 204, nil, []string{"status status"}},
		// Unchanged: a 2XX range covers any success, an error status is not read as a success.
		{"hide answered 204 at core", Core, "DELETE", roomPath + "/5f1a0c2b9d3e4f5a6b7c8d92", 204, nil, nil},
		{"a 500 is never documented at core", Core, "GET", "/v1/user", 500, []any{set(user(), "id", 1)}, []string{"status status"}},
	}
	for _, tc := range cases {
		vs := response(t, tc.p, tc.method, tc.path, tc.status, nil, tc.body)
		var got []string
		for _, v := range vs {
			got = append(got, v.Location+" "+v.Rule)
			if v.Operation == "" || v.Side != "response" {
				t.Errorf("%s, %s: violation without its operation or side: %#v", tc.p, tc.name, v)
			}
			if v.Rule == "status" && v.Value != tc.status {
				t.Errorf("%s, %s: the status violation holds %v, want %d", tc.p, tc.name, v.Value, tc.status)
			}
		}
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("%s, %s: got %q, want %q (%v)", tc.p, tc.name, got, tc.want, vs)
		}
	}
}

func TestMeantSuccess(t *testing.T) {
	resp := func(codes ...string) *openapi3.Responses {
		r := openapi3.NewResponses()
		r.Delete("default")
		for _, c := range codes {
			r.Set(c, &openapi3.ResponseRef{Value: openapi3.NewResponse()})
		}
		return r
	}
	cases := []struct {
		name   string
		method string
		r      *openapi3.Responses
		status int
		want   int
	}{
		{"201 where 200 is documented", "POST", resp("200", "4XX"), 201, 200},
		{"200 where 201 is documented", "POST", resp("201", "400"), 200, 201},
		{"documented status", "POST", resp("200"), 200, 0},
		{"two successes documented", "POST", resp("200", "202"), 201, 0},
		{"a 2XX range", "POST", resp("2XX"), 201, 0},
		{"a default response", "POST", resp("200", "default"), 201, 0},
		{"not a success", "POST", resp("200"), 500, 0},
		{"a redirect", "POST", resp("200"), 302, 0},
		{"HEAD", "HEAD", resp("200"), 201, 0},
		{"no responses", "POST", resp(), 201, 0},
	}
	for _, tc := range cases {
		if got := meantSuccess(tc.method, tc.r, tc.status); got != tc.want {
			t.Errorf("%s: meantSuccess = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func hasViolation(vs []Violation, location, rule string) bool {
	for _, v := range vs {
		if v.Location == location && v.Rule == rule {
			return true
		}
	}
	return false
}

// Each entry is valid under core and must be rejected under reference.
func TestReferenceOnlyRules(t *testing.T) {
	cases := []struct {
		name, method, path string
		status             int
		header             http.Header
		body               any
		location, rule     string
	}{
		{"message without status", "GET", onePath, 200, nil, set(message(), "status", remove{}), "$.status", "required"},
		{"message with an extra field", "GET", onePath, 200, nil, set(message(), "extra", "3"), "$.extra", "additionalProperties"},
		{"fromUser without v", "GET", onePath, 200, nil, set(message(), "fromUser", user()), "$.fromUser.v", "required"},
		{"message id not an ObjectId", "GET", onePath, 200, nil, set(message(), "id", "42"), "$.id", "pattern"},
		{"room without lurk", "GET", roomPath, 200, nil, []any{set(groupRoom(), "lurk", remove{})}, "$[0].lurk", "required"},
		{"group room without uri", "GET", roomPath, 200, nil, []any{set(groupRoom(), "uri", remove{})}, "$[0]", "oneOf"},
		{"one-to-one room with uri", "GET", roomPath, 200, nil, []any{set(oneToOneRoom(), "uri", "ada")}, "$[0]", "oneOf"},
		{"unknown security value", "GET", roomPath, 200, nil, []any{set(groupRoom(), "security", "SECRET")}, "$[0].security", "enum"},
		{"hide answered 204", "DELETE", roomPath + "/5f1a0c2b9d3e4f5a6b7c8d92", 204, nil, nil, "status", "status"},
		{"mark read answered with an empty object", "POST", roomPath + "/5f1a0c2b9d3e4f5a6b7c8d92/unreadItems", 200, nil, map[string]any{}, "$.success", "required"},
		{"422 with another error body", "POST", msgPath, 422, nil, map[string]any{"message": "bad"}, "status", "status"},
		{"400 with another reason phrase", "POST", msgPath, 400, nil, map[string]any{"error": "text is required"}, "$.error", "enum"},
		{"404 body with extra fields", "GET", onePath, 404, nil, map[string]any{"error": "Not Found", "detail": "x"}, "$.detail", "additionalProperties"},
		{"429 without rate-limit headers", "GET", "/v1/user", 429, nil, map[string]any{"error": "Too Many Requests"}, "header X-RateLimit-Limit", "required"},
		{"malformed rate-limit header", "GET", "/v1/user", 200, http.Header{"X-Ratelimit-Remaining": {"many"}}, []any{user()}, "header X-RateLimit-Remaining", "decode"},
	}
	for _, tc := range cases {
		if tc.status < 300 || tc.status == 422 || tc.status == 400 || tc.status == 404 || tc.status == 429 {
			core := response(t, Core, tc.method, tc.path, tc.status, tc.header, tc.body)
			if len(core) > 0 {
				t.Errorf("%s: core rejects what it must accept: %v", tc.name, core)
			}
		}
		ref := response(t, Reference, tc.method, tc.path, tc.status, tc.header, tc.body)
		if !hasViolation(ref, tc.location, tc.rule) {
			t.Errorf("%s: reference should reject at %s (%s), got %v", tc.name, tc.location, tc.rule, ref)
		}
	}
}

func TestRequestValidation(t *testing.T) {
	v, err := MustLoad(Reference).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	check := func(method, url, body string, header http.Header) []Violation {
		req := httptest.NewRequest(method, "https://x"+url, nil)
		req.Header = header
		_, vs := v.CheckRequest(context.Background(), req, []byte(body))
		return vs
	}
	auth := http.Header{"Authorization": {"Bearer 0123"}, "Content-Type": {"application/json"}}
	// A text of white space only, in any script's white space (what the
	// reference server trims), breaks the pattern; one other character
	// is enough to keep it.
	for _, blank := range []string{`" "`, `"\u00a0"`, `"\u3000 \t"`, `"\u000b"`} {
		if vs := check("POST", msgPath, `{"text":`+blank+`}`, auth); len(vs) != 1 || vs[0].Rule != "pattern" {
			t.Errorf("blank text %s: %v", blank, vs)
		}
	}
	if vs := check("POST", msgPath, `{"text":"\u00a0a"}`, auth); len(vs) > 0 {
		t.Errorf("text with one letter: %v", vs)
	}
	if vs := check("POST", msgPath, `{"text":"hello","status":true}`, auth); len(vs) > 0 {
		t.Errorf("valid send: %v", vs)
	}
	if vs := check("GET", msgPath+"?limit=100&skip=5000&access_token=t", "", http.Header{}); len(vs) > 0 {
		t.Errorf("valid list with query token: %v", vs)
	}
	for _, tc := range []struct{ name, method, url, body, loc, rule string }{
		{"send without text", "POST", msgPath, `{"status":true}`, "$.text", "required"},
		{"limit above 100", "GET", msgPath + "?limit=101", "", "query limit", "maximum"},
		{"skip above 5000", "GET", msgPath + "?skip=5001", "", "query skip", "maximum"},
		{"mark read with nothing", "POST", roomPath + "/5f1a0c2b9d3e4f5a6b7c8d92/unreadItems", `{"chat":[]}`, "$.chat", "minItems"},
	} {
		if vs := check(tc.method, tc.url, tc.body, auth); !hasViolation(vs, tc.loc, tc.rule) {
			t.Errorf("%s: want %s (%s), got %v", tc.name, tc.loc, tc.rule, vs)
		}
	}
	if vs := check("GET", "/v1/user", "", http.Header{}); !hasViolation(vs, "credentials", "security") {
		t.Errorf("request without any token: %v", vs)
	}
}

func TestCatalogue(t *testing.T) {
	c, err := LoadCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	levels := map[Profile]int{}
	for _, r := range c.Requirements {
		levels[r.Level]++
	}
	if levels[Core] < 40 || levels[Reference] < 15 {
		t.Errorf("catalogue looks truncated: %v", levels)
	}
	if _, ok := c.Lookup("MSG-SEND-200"); !ok {
		t.Error("MSG-SEND-200 missing")
	}
	// Ids cited in texts and reasons exist.
	cited := regexp.MustCompile(`\b[A-Z]+(-[A-Z0-9]+)+\b`)
	for _, r := range c.Requirements {
		for _, id := range cited.FindAllString(r.Text+" "+r.Reason, -1) {
			if _, ok := c.Lookup(id); !ok && strings.Count(id, "-") > 0 && id != "UTF-16" {
				t.Errorf("%s cites %s, which is not in the catalogue", r.ID, id)
			}
		}
	}
	for _, bad := range []string{
		"requirements: [{id: A-B, level: core, section: Limits, text: x}, {id: A-B, level: core, section: Limits, text: y}]",
		"requirements: [{id: A-B, level: core, section: Nowhere, text: x}]",
		"requirements: [{id: A-B, level: reference, section: Limits, text: x}]",
		"requirements: [{id: A-B, level: strict, section: Limits, text: x}]",
		"requirements: [{id: A-B, level: core, section: Limits, text: x, checkable: false}]",
		"requirements: [{id: ab, level: core, section: Limits, text: x}]",
		"requirements: [{id: A-B, level: core, section: Limits, text: x, colour: red}]",
		"requirements: [{id: A-B, level: core, section: Limits, text: x, judgedAgainst: [A-C]}]",
		"requirements: [{id: A-B, level: core, section: Limits, text: x, judgedAgainst: [A-B]}]",
		"requirements: [{id: A-B, level: core, section: Limits, text: x, judgedAgainst: [A-C]}, {id: A-C, level: core, section: Limits, text: y, judgedAgainst: [A-D]}, {id: A-D, level: core, section: Limits, text: z}]",
	} {
		if _, err := parseCatalogue([]byte(bad)); err == nil {
			t.Errorf("accepted: %s", bad)
		}
	}
}

func TestMerge(t *testing.T) {
	base := map[string]any{"a": map[string]any{"required": []any{"x"}, "keep": 1, "drop": 2}, "list": []any{1, 2}}
	over := map[string]any{"a": map[string]any{"required": []any{"y", "x"}, "drop": nil, "new": 3}, "list": []any{3}}
	got, err := merge(base, over, "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"a":{"keep":1,"new":3,"required":["x","y"]},"list":[3]}`; string(b) != want {
		t.Errorf("merge = %s, want %s", b, want)
	}
	if _, err := merge(map[string]any{}, map[string]any{"gone": nil}, ""); err == nil {
		t.Error("deleting a missing key must be an error: the overlay drifted from the document")
	}
}

// A success whose status the core document gives no body (hiding a room,
// marking read) may come without one; one that carries a body is held to
// what every success body is: JSON, labelled application/json with charset
// utf-8. Nothing else would look at it, as there is no schema to hold it to.
func TestAnUndocumentedSuccessBodyIsStillJSON(t *testing.T) {
	v, err := MustLoad(Core).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	const hide = "/v1/user/me/rooms/5f1a0c2b9d3e4f5a6b7c8d92"
	for _, tc := range []struct {
		name, ctype, body string
		status            int
		rules             []string
	}{
		{"no body", "", "", 204, nil},
		{"empty 200", "text/plain", "", 200, nil},
		{"JSON", "application/json; charset=utf-8", `{"success":true}`, 200, nil},
		{"JSON spelled otherwise", "Application/JSON;Charset=UTF-8", `{}`, 200, nil},
		{"JSON labelled text", "text/plain", `{"success":true}`, 200, []string{"content-type"}},
		{"JSON without charset", "application/json", `{}`, 200, []string{"content-type"}},
		{"text labelled JSON", "application/json; charset=utf-8", "ok", 200, []string{"decode"}},
		{"text labelled text", "text/plain", "ok", 202, []string{"content-type", "decode"}},
	} {
		h := http.Header{}
		if tc.ctype != "" {
			h.Set("Content-Type", tc.ctype)
		}
		_, vs := v.CheckResponse(context.Background(), httptest.NewRequest("DELETE", "https://x"+hide, nil), tc.status, h, []byte(tc.body))
		var rules []string
		for _, x := range vs {
			if x.Location != UndocumentedBody {
				t.Errorf("%s: unexpected violation %s", tc.name, x)
				continue
			}
			rules = append(rules, x.Rule)
		}
		if !slices.Equal(rules, tc.rules) {
			t.Errorf("%s: rules %v, want %v (%v)", tc.name, rules, tc.rules, vs)
		}
	}
}

// The validator reads a body's first JSON value; a body that holds more
// after it is not one JSON document, and says so, wherever the document
// gives the answer a body.
func TestABodyOfTwoJSONDocumentsIsNotOne(t *testing.T) {
	v, err := MustLoad(Core).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	one, err := json.Marshal([]any{user()})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	for _, tc := range []struct {
		name   string
		body   string
		decode bool
	}{
		{"one document", string(one), false},
		{"one document and white space", string(one) + "\n\t ", false},
		{"two documents", string(one) + string(one), true},
		{"a stray bracket after", string(one) + "]", true},
	} {
		_, vs := v.CheckResponse(context.Background(), httptest.NewRequest("GET", "https://x/v1/user", nil), 200, h, []byte(tc.body))
		got := slices.ContainsFunc(vs, func(x Violation) bool { return x.Rule == "decode" && x.Location == "$" })
		if got != tc.decode || (!tc.decode && len(vs) > 0) {
			t.Errorf("%s: violations %v, want a decode violation at $: %v", tc.name, vs, tc.decode)
		}
	}
}

func TestValidateURIKeepsToRFC3986(t *testing.T) {
	for s, ok := range map[string]bool{
		"https://avatars.example/u/ada?s=60":     true,
		"https://avatars.example/i?name=Ada%20L": true,
		"https://avatars.example/u/émile":        true, // an IRI: let through
		"https://avatars.example/i?name=Ada L":   false,
		"https://avatars.example/i/%zz":          false,
		"https://avatars.example/i/%4":           false,
		"https://avatars.example/i/{id}":         false,
		"https://avatars.example/i\tx":           false,
		"/relative/path":                         false,
	} {
		if err := validateURI(s); (err == nil) != ok {
			t.Errorf("validateURI(%q) = %v", s, err)
		}
	}
}
