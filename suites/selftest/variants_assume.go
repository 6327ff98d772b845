package selftest

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// assumptionVariants are conforming servers, each breaking one assumption
// that suites/conformance/ASSUMPTIONS.md lists as something a check must not make.
func assumptionVariants() []Variant {
	return []Variant{
		{Name: "whole-second-times", What: "writes sent, editedAt and lastAccessTime to the second, with no fraction",
			steps: []step{
				messages("msgs", func(c *call, m map[string]any) {
					for _, k := range []string{"sent", "editedAt"} {
						if t, ok := m[k]; ok {
							m[k] = toSeconds(t)
						}
					}
				}),
				rooms("rooms", func(c *call, r map[string]any) {
					if t, ok := r["lastAccessTime"]; ok {
						r["lastAccessTime"] = toSeconds(t)
					}
				}),
			}},
		{Name: "login-redirect", What: "answers a request without a token, or with an unknown one, by a 302 to a login page that answers 200 with HTML",
			steps: []step{loginRedirect()}},
		{Name: "links-respelled", What: "spells the address of every link and listed url with an upper-case host and the default port",
			steps: []step{messages("msgs", func(c *call, m map[string]any) {
				m["html"] = hrefAttr.ReplaceAllStringFunc(asString(m["html"]), func(a string) string {
					v := strings.TrimSuffix(strings.TrimPrefix(a, ` href="`), `"`)
					return ` href="` + respell(htmlUnescape(v), true) + `"`
				})
				each(m["urls"], func(u map[string]any) { u["url"] = respell(asString(u["url"]), false) })
			})}},
		{Name: "mark-read-again-400", What: "refuses with 400 to mark read a message the caller has already read (or never had unread)",
			steps: []step{answer("markUnreadItemsRead", func(c *call, next func() *reply) *reply {
				body := c.jsonBody()
				unread := c.do("GET", c.r.URL.Path, nil, nil)
				u, _ := unread.get().(map[string]any)
				if body == nil || u == nil {
					return next()
				}
				for _, id := range asList(body["chat"]) {
					if !containsAny(asList(u["chat"]), id) {
						return refuse(http.StatusBadRequest, "message already read")
					}
				}
				return next()
			})}},
		{Name: "eventual-reads", What: "shows other users a new message one second late, and an edit's previous text for one second",
			steps: eventualReads(time.Second)},
	}
}

// toSeconds rewrites a timestamp to whole seconds; anything else is left as
// it is.
func toSeconds(v any) any {
	t, err := time.Parse(time.RFC3339Nano, asString(v))
	if err != nil {
		return v
	}
	return t.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z")
}

// respell writes an http(s) address with its scheme and host in upper case
// and the default port spelled out: the same resource, other bytes. inHTML
// escapes the result for an attribute.
func respell(raw string, inHTML bool) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Port() != "" {
		return raw
	}
	port := map[string]string{"https": "443", "http": "80"}[u.Scheme]
	out := strings.ToUpper(u.Scheme) + "://" + strings.ToUpper(u.Host) + ":" + port + strings.TrimPrefix(raw, u.Scheme+"://"+u.Host)
	if inHTML {
		out = strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(out)
	}
	return out
}

// loginRedirect sends a request without a known token to a login page, as
// servers fronted by a web sign-in do; the login page itself answers 200.
func loginRedirect() step {
	return func(c *call, next func() *reply) *reply {
		if c.r.URL.Path == "/login" {
			x := &reply{status: http.StatusOK, header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}}
			x.setRaw([]byte("<!doctype html><title>Sign in</title><form method=post><input name=user><input type=password name=password></form>\n"))
			return x
		}
		x := next()
		if x.status == http.StatusUnauthorized {
			x = &reply{status: http.StatusFound, header: http.Header{
				"Location":     {"/login?next=" + url.QueryEscape(c.r.URL.Path)},
				"Content-Type": {"text/html; charset=utf-8"},
			}}
			x.setRaw([]byte("<a href=\"/login\">Found</a>.\n"))
		}
		return x
	}
}

// lastWrite is a message's last write: who made it, when, and (for an edit)
// the fields derived from the text as they were before it.
type lastWrite struct {
	at     time.Time
	writer string
	before map[string]any // nil for a send
}

// textFields are the fields of a message an edit changes.
var textFields = []string{"text", "html", "urls", "mentions", "issues", "editedAt", "v"}

// eventualReads shows users other than the writer a message's last write
// only once it is lag old: a new message is missing (404 by id, absent from
// lists) and an edited one shows its previous text.
func eventualReads(lag time.Duration) []step {
	recent := func(c *call, id string) (lastWrite, bool) {
		v, ok := c.st.value("write:" + id)
		w, _ := v.(lastWrite)
		me, _ := c.caller()
		return w, ok && w.writer != me.ID && time.Since(w.at) < lag
	}
	older := func(c *call, m map[string]any, w lastWrite) {
		for _, k := range textFields {
			m[k] = w.before[k]
		}
	}
	return []step{
		onSuccess("sendMessage", func(c *call, x *reply) {
			me, _ := c.caller()
			each(x.get(), func(m map[string]any) {
				c.st.setValue("write:"+asString(m["id"]), lastWrite{at: time.Now(), writer: me.ID})
			})
		}),
		answer("updateMessage", func(c *call, next func() *reply) *reply {
			prev, _ := c.do("GET", c.r.URL.Path, nil, nil).get().(map[string]any)
			x := next()
			if x.ok() && prev != nil {
				me, _ := c.caller()
				before := map[string]any{}
				for _, k := range textFields {
					before[k] = prev[k]
				}
				c.st.setValue("write:"+c.msg, lastWrite{at: time.Now(), writer: me.ID, before: before})
			}
			return x
		}),
		answer("getMessage", func(c *call, next func() *reply) *reply {
			x := next()
			w, ok := recent(c, c.msg)
			switch {
			case !x.ok() || !ok:
			case w.before == nil:
				return refuse(http.StatusNotFound, "no such message")
			default:
				if m, isMsg := x.get().(map[string]any); isMsg {
					older(c, m, w)
				}
			}
			return x
		}),
		onSuccess("listMessages", func(c *call, x *reply) {
			x.set(filter(x.get(), func(m map[string]any) bool {
				w, ok := recent(c, asString(m["id"]))
				if ok && w.before != nil {
					older(c, m, w)
				}
				return !ok || w.before != nil
			}))
		}),
	}
}

func containsAny(l []any, v any) bool {
	for _, e := range l {
		if e == v {
			return true
		}
	}
	return false
}
