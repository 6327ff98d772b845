package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/spec"
)

// BenchmarkValidateResponse measures what the harness adds per response:
// routing and validating a 100-message page against each profile's document.
func BenchmarkValidateResponse(b *testing.B) {
	msg := `{"id":"5f1a0c2b9d3e4f5a6b7c8d91","text":"hi @ada see #12 https://x.io","html":"hi <span class=\"mention\">@ada</span>","sent":"2026-11-02T09:14:03.120Z","editedAt":null,` +
		`"fromUser":{"id":"5f1a0c2b9d3e4f5a6b7c8d90","username":"ada","displayName":"Ada","url":"/ada","avatarUrlSmall":"https://a.test/s","avatarUrlMedium":"https://a.test/m","v":3},` +
		`"unread":false,"readBy":0,"urls":[{"url":"https://x.io"}],"mentions":[{"screenName":"ada","userId":"5f1a0c2b9d3e4f5a6b7c8d90"}],"issues":[{"number":"12"}],"meta":{},"v":1,"status":false}`
	page := []byte("[" + strings.TrimSuffix(strings.Repeat(msg+",", 100), ",") + "]")
	header := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	for _, p := range spec.Profiles {
		b.Run(string(p), func(b *testing.B) {
			v, err := spec.MustLoad(p).NewValidator("")
			if err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest("GET", "https://x/v1/rooms/5f1a0c2b9d3e4f5a6b7c8d92/chatMessages?limit=100", nil)
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				if _, vs := v.CheckResponse(context.Background(), req, 200, header, page); len(vs) > 0 {
					b.Fatal(vs)
				}
			}
		})
	}
}

// BenchmarkRedact measures the last line of defence: redacting a 1 MiB
// JSON report (messages with HTML and URLs, so many escapes) of three tokens.
func BenchmarkRedact(b *testing.B) {
	r := NewRedactor("0123456789abcdef0123456789abcdef01234567", "tok&en<2>+\"é", "k9")
	msg := `{"text":"hello & <b>world</b> 100% \"quoted\" https://example.com/?a=1&b=2","html":"hello &amp; &lt;b&gt;world&lt;/b&gt; 100% &#34;quoted&#34; <a href=\"https://example.com/?a=1&amp;b=2\">"}` + "\n"
	text := strings.Repeat(msg, (1<<20)/len(msg))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.String(text)
	}
}

// BenchmarkNewRedactor measures building a redactor for three tokens of 40
// characters (once per run and per client).
func BenchmarkNewRedactor(b *testing.B) {
	for b.Loop() {
		NewRedactor("0123456789abcdef0123456789abcdef01234567", "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-.~+/=abcdefg", "tok&en<2>+\"é-0123456789abcdef0123456789")
	}
}
