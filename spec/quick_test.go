package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"testing"
)

// exchange is one response to judge: the request line, the answer and a
// name for failure messages.
type exchange struct {
	name, method, path string
	status             int
	header             http.Header
	body               []byte
}

func jsonBody(t testing.TB, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// corpus returns valid answers of every operation, the broken answers of
// spec_test.go, and every top-level and sender field of messages, rooms,
// users, organisations and repositories left out, set to null and set to a
// value of each other JSON type, inside lists of otherwise valid items.
func corpus(t testing.TB) (validOnes, all []exchange) {
	jsonCT := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	add := func(list *[]exchange, name, method, path string, status int, body any) {
		*list = append(*list, exchange{name, method, path, status, jsonCT, jsonBody(t, body)})
	}
	edited := message()
	edited["editedAt"], edited["v"] = "2026-11-02T09:20:00Z", 2
	add(&validOnes, "current user", "GET", "/v1/user", 200, []any{user()})
	add(&validOnes, "rooms", "GET", roomPath, 200, []any{groupRoom(), oneToOneRoom(), with(groupRoom(), "platformType", "ORG")})
	add(&validOnes, "channels", "GET", "/v1/user/me/channels", 200, []any{channel()})
	add(&validOnes, "orgs", "GET", "/v1/user/me/orgs", 200, []any{
		map[string]any{"id": 7, "name": "acme", "avatar_url": "https://avatars.example.com/acme"},
		map[string]any{"id": 8, "name": "beta", "avatar_url": "https://avatars.example.com/beta", "room": with(groupRoom(), "platformType", "ORG")},
	})
	add(&validOnes, "repos", "GET", "/v1/user/me/repos", 200, []any{
		map[string]any{"id": 9, "name": "widgets", "uri": "acme/widgets", "private": false, "room": groupRoom()},
		map[string]any{"id": 10, "name": "secret", "uri": "acme/secret", "private": true},
	})
	add(&validOnes, "unread", "GET", roomPath+"/5f1a0c2b9d3e4f5a6b7c8d92/unreadItems", 200, map[string]any{"chat": []any{"5f1a0c2b9d3e4f5a6b7c8d91"}, "mention": []any{}})
	add(&validOnes, "message list", "GET", msgPath, 200, []any{message(), edited})
	add(&validOnes, "empty list", "GET", msgPath, 200, []any{})
	add(&validOnes, "sent", "POST", msgPath, 200, message())
	add(&validOnes, "edited", "PUT", onePath, 200, edited)
	add(&validOnes, "one message", "GET", onePath, 200, message())
	validOnes = append(validOnes, exchange{"100-message page", "GET", msgPath + "?limit=100", 200, jsonCT, page100()})
	all = append(all, validOnes...)

	// The broken answers of spec_test.go.
	add(&all, "user without username", "GET", "/v1/user", 200, []any{set(user(), "username", remove{})})
	add(&all, "bare user", "GET", "/v1/user", 200, user())
	add(&all, "two users", "GET", "/v1/user", 200, []any{user(), user()})
	add(&all, "avatar not a URI", "GET", "/v1/user", 200, []any{set(user(), "avatarUrlSmall", "not a uri")})
	add(&all, "user url without slash", "GET", "/v1/user", 200, []any{set(user(), "url", "ada")})
	add(&all, "message id a number", "GET", onePath, 200, set(message(), "id", 17))
	add(&all, "no editedAt", "POST", msgPath, 200, set(message(), "editedAt", remove{}))
	add(&all, "malformed sent", "GET", onePath, 200, set(message(), "sent", "02/11/2026 09:14"))
	add(&all, "sent not UTC", "GET", onePath, 200, set(message(), "sent", "2026-11-02T09:14:03+02:00"))
	add(&all, "issue number a number", "GET", onePath, 200, set(message(), "issues", []any{map[string]any{"number": 12}}))
	add(&all, "mention without userId", "GET", onePath, 200, set(message(), "mentions", []any{map[string]any{"screenName": "ada"}}))
	add(&all, "meta not empty", "GET", onePath, 200, set(message(), "meta", map[string]any{"x": 1}))
	add(&all, "readBy a string", "GET", onePath, 200, set(message(), "readBy", "0"))
	add(&all, "bare message for a list", "GET", msgPath, 200, message())
	add(&all, "unknown platformType", "GET", roomPath, 200, []any{set(groupRoom(), "platformType", "GITLAB")})
	add(&all, "room without id", "GET", roomPath, 200, []any{set(groupRoom(), "id", remove{})})
	add(&all, "channel with userCount", "GET", "/v1/user/me/channels", 200, []any{set(channel(), "userCount", 2)})
	add(&all, "channel of another kind", "GET", "/v1/user/me/channels", 200, []any{set(channel(), "platformType", "ORG")})
	add(&all, "org id a string", "GET", "/v1/user/me/orgs", 200, []any{map[string]any{"id": "7", "name": "acme", "avatar_url": "https://a.example/x"}})
	add(&all, "repo without private", "GET", "/v1/user/me/repos", 200, []any{map[string]any{"id": 9, "name": "w", "uri": "a/w"}})
	add(&all, "unread without mention", "GET", roomPath+"/r/unreadItems", 200, map[string]any{"chat": []any{}})
	add(&all, "send answered 201", "POST", msgPath, 201, message())
	add(&all, "500", "GET", "/v1/user", 500, map[string]any{})
	add(&all, "message without status", "GET", onePath, 200, set(message(), "status", remove{}))
	add(&all, "message with gv", "GET", onePath, 200, set(message(), "gv", "3"))
	add(&all, "fromUser without v", "GET", onePath, 200, set(message(), "fromUser", user()))
	add(&all, "message id not an ObjectId", "GET", onePath, 200, set(message(), "id", "42"))
	add(&all, "room without lurk", "GET", roomPath, 200, []any{set(groupRoom(), "lurk", remove{})})
	add(&all, "group room without uri", "GET", roomPath, 200, []any{set(groupRoom(), "uri", remove{})})
	add(&all, "one-to-one with uri", "GET", roomPath, 200, []any{set(oneToOneRoom(), "uri", "ada")})
	add(&all, "unknown security", "GET", roomPath, 200, []any{set(groupRoom(), "security", "SECRET")})
	add(&all, "hide answered 204", "DELETE", roomPath+"/5f1a0c2b9d3e4f5a6b7c8d92", 204, nil)
	add(&all, "mark read with {}", "POST", roomPath+"/5f1a0c2b9d3e4f5a6b7c8d92/unreadItems", 200, map[string]any{})
	add(&all, "422 other body", "POST", msgPath, 422, map[string]any{"message": "bad"})
	add(&all, "400 other phrase", "POST", msgPath, 400, map[string]any{"error": "text is required"})
	add(&all, "404 extra field", "GET", onePath, 404, map[string]any{"error": "Not Found", "detail": "x"})
	add(&all, "429 without headers", "GET", "/v1/user", 429, map[string]any{"error": "Too Many Requests"})
	all = append(all, exchange{"malformed rate-limit header", "GET", "/v1/user", 200,
		http.Header{"Content-Type": {"application/json"}, "X-Ratelimit-Remaining": {"many"}}, jsonBody(t, []any{user()})})

	// Bodies that are not what they say, or not JSON at all.
	for _, b := range []string{"", " ", "[", `[{"id":1}`, "[] trailing", "nul", "\xef\xbb\xbf[]", `[{"id":"a","id":"b"}]`, `"just a string"`, "17", "null"} {
		all = append(all, exchange{"raw " + fmt.Sprintf("%q", b), "GET", msgPath, 200, jsonCT, []byte(b)})
	}
	all = append(all, exchange{"text/plain", "GET", msgPath, 200, http.Header{"Content-Type": {"text/plain"}}, []byte("[]")})
	all = append(all, exchange{"no content type", "GET", msgPath, 200, http.Header{}, []byte("[]")})
	all = append(all, exchange{"problem+json", "GET", msgPath, 200, http.Header{"Content-Type": {"application/problem+json"}}, []byte("[]")})

	// Every field of each kind of object, broken each way, in a list.
	wrong := []any{remove{}, nil, json.Number("17"), json.Number("-1"), json.Number("1.5"), "x", "", true, false, []any{}, map[string]any{}}
	kinds := []struct {
		name, method, path string
		item               func() map[string]any
		wrap               func(map[string]any) any
	}{
		{"message", "GET", msgPath, message, func(m map[string]any) any { return []any{message(), m} }},
		{"one message", "GET", onePath, message, func(m map[string]any) any { return m }},
		{"room", "GET", roomPath, groupRoom, func(m map[string]any) any { return []any{oneToOneRoom(), m} }},
		{"one-to-one room", "GET", roomPath, oneToOneRoom, func(m map[string]any) any { return []any{m} }},
		{"channel", "GET", "/v1/user/me/channels", channel, func(m map[string]any) any { return []any{m} }},
		{"user", "GET", "/v1/user", user, func(m map[string]any) any { return []any{m} }},
		{"sender", "GET", onePath, func() map[string]any { return message()["fromUser"].(map[string]any) },
			func(m map[string]any) any { return set(message(), "fromUser", m) }},
		{"org", "GET", "/v1/user/me/orgs", func() map[string]any {
			return map[string]any{"id": 8, "name": "beta", "avatar_url": "https://avatars.example.com/beta", "room": groupRoom()}
		}, func(m map[string]any) any { return []any{m} }},
		{"repo", "GET", "/v1/user/me/repos", func() map[string]any {
			return map[string]any{"id": 9, "name": "widgets", "uri": "acme/widgets", "private": false, "room": groupRoom()}
		}, func(m map[string]any) any { return []any{m} }},
	}
	for _, k := range kinds {
		var fields []string
		for f := range k.item() {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		fields = append(fields, "extra")
		for _, f := range fields {
			for _, w := range wrong {
				add(&all, fmt.Sprintf("%s.%s=%#v", k.name, f, w), k.method, k.path, 200, k.wrap(set(k.item(), f, w)))
			}
		}
	}
	return validOnes, all
}

// TestQuickPathChangesNoViolation compares, for every exchange of the
// corpus and both profiles, what CheckResponse reports with what kin-openapi
// alone reports (the validation as it was before the quick path): the same
// violations, in the same order, with the same locations, rules, messages
// and values. It also holds the quick path to its own promise: a "valid" or
// "invalid" answer is kin-openapi's answer, and valid answers of the corpus
// are found valid without kin-openapi.
func TestQuickPathChangesNoViolation(t *testing.T) {
	validOnes, all := corpus(t)
	ctx := context.Background()
	for _, p := range Profiles {
		v, err := MustLoad(p).NewValidator("")
		if err != nil {
			t.Fatal(err)
		}
		if v.quick == nil {
			t.Fatalf("%s: the quick path is off for this document", p)
		}
		judged := map[verdict]int{}
		for _, x := range all {
			req := httptest.NewRequest(x.method, "https://x"+x.path, nil)
			route, params, err := v.router.FindRoute(req)
			if err != nil {
				t.Fatalf("%s: %v", x.name, err)
			}
			want := v.fullResponse(ctx, req, route, params, x.status, x.header, x.body)
			_, got := v.CheckResponse(ctx, req, x.status, x.header, x.body)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s:\n got %v\nwant %v", p, x.name, got, want)
			}
			if vd := v.quick.verdict(ctx, req, route, x.status, x.header, x.body); vd != unsure {
				judged[vd]++
				if vd == valid && len(want) > 0 || vd == invalid && len(want) == 0 {
					t.Errorf("%s, %s: the quick path says %v, kin-openapi says %v", p, x.name, vd, want)
				}
			}
		}
		t.Logf("%s: %d exchanges; quick path answers %v", p, len(all), judged)
		if judged[valid] == 0 || judged[invalid] == 0 {
			t.Errorf("%s: the quick path judged %v: the comparison proves nothing", p, judged)
		}
		for _, x := range validOnes {
			req := httptest.NewRequest(x.method, "https://x"+x.path, nil)
			route, _, _ := v.router.FindRoute(req)
			if !v.quick.pass(ctx, req, route, x.status, x.header, x.body) {
				t.Errorf("%s, %s: a valid answer does not take the quick path", p, x.name)
			}
		}
	}
}

func (v verdict) String() string {
	return [...]string{"unsure", "valid", "invalid"}[v]
}

// FuzzQuickPath holds CheckResponse to kin-openapi's own answer for any
// body given as the answer to a few operations.
func FuzzQuickPath(f *testing.F) {
	_, all := corpus(f)
	for i, x := range all {
		if i < 80 || i%50 == 0 { // the valid and hand-written answers, and a few of the field mutations (all of them are compared above)
			f.Add(x.body)
		}
	}
	type target struct {
		v      *Validator
		method string
		path   string
	}
	var targets []target
	for _, p := range Profiles {
		v, err := MustLoad(p).NewValidator("")
		if err != nil {
			f.Fatal(err)
		}
		for _, op := range [][2]string{{"GET", msgPath}, {"GET", onePath}, {"GET", roomPath}, {"GET", "/v1/user/me/repos"}, {"GET", "/v1/user"}} {
			targets = append(targets, target{v, op[0], op[1]})
		}
	}
	header := http.Header{"Content-Type": {"application/json"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx := context.Background()
		for _, tg := range targets {
			req := httptest.NewRequest(tg.method, "https://x"+tg.path, nil)
			route, params, err := tg.v.router.FindRoute(req)
			if err != nil {
				t.Fatal(err)
			}
			want := tg.v.fullResponse(ctx, req, route, params, 200, header, bytes.Clone(body))
			_, got := tg.v.CheckResponse(ctx, req, 200, header, body)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s %q:\n got %v\nwant %v", tg.method, tg.path, body, got, want)
			}
		}
	})
}

// FuzzQuickPathFields fills the fields of an otherwise valid message and
// room with any strings and numbers, so that the quick path's string,
// pattern, format and number checks (and the escapes encoding/json writes)
// meet values near the edges, and holds CheckResponse to kin-openapi's
// answer.
func FuzzQuickPathFields(f *testing.F) {
	f.Add("5f1a0c2b9d3e4f5a6b7c8d91", "2026-11-02T09:14:03.120Z", "/ada", "https://a.example/x", "REPO", 1.0, 0.0)
	f.Add("5F1A0C2B9D3E4F5A6B7C8D91", "2026-11-02T09:14:03+00:00", "ada", "mailto:x@y", "ORG", 1.5, -1.0)
	f.Add("\u00e9<&>\"\\", "2026-13-02T09:14:03Z", "/\n", "not a uri", "ONETOONE", 1e300, 2e9)
	f.Add("\xff\xfe", "2026-11-02T09:14:03.120Z\n", "//x", "https://[::1]:80/", "USER_CHANNEL", 0.0, 9007199254740993.0)
	validators := map[Profile]*Validator{}
	for _, p := range Profiles {
		v, err := MustLoad(p).NewValidator("")
		if err != nil {
			f.Fatal(err)
		}
		validators[p] = v
	}
	header := http.Header{"Content-Type": {"application/json"}}
	f.Fuzz(func(t *testing.T, id, stamp, url, uri, platform string, v, n float64) {
		m := message()
		m["id"], m["sent"], m["editedAt"], m["v"], m["readBy"] = id, stamp, stamp, v, n
		from := m["fromUser"].(map[string]any)
		from["id"], from["url"], from["avatarUrlSmall"], from["v"] = id, url, uri, v
		r := groupRoom()
		r["id"], r["url"], r["uri"], r["platformType"], r["lastAccessTime"], r["userCount"] = id, url, uri, platform, stamp, n
		bodies := []struct {
			method, path string
			body         any
		}{{"GET", msgPath, []any{message(), m}}, {"GET", onePath, m}, {"GET", roomPath, []any{r}}}
		ctx := context.Background()
		for _, p := range Profiles {
			val := validators[p]
			for _, b := range bodies {
				raw, err := json.Marshal(b.body)
				if err != nil {
					return // NaN or an infinity: not JSON
				}
				req := httptest.NewRequest(b.method, "https://x"+b.path, nil)
				route, params, err := val.router.FindRoute(req)
				if err != nil {
					t.Fatal(err)
				}
				want := val.fullResponse(ctx, req, route, params, 200, header, raw)
				if _, got := val.CheckResponse(ctx, req, 200, header, raw); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %s %s:\n got %v\nwant %v", p, b.method, raw, got, want)
				}
			}
		}
	})
}
