package generate

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chatrooms/conformance/suites/client"
)

// tokenValue presents the caller's token in one of the ways the document's
// security schemes allow, or the departure d.
func (b *builder) tokenValue(d defectChoice) {
	me := b.w.caller()
	schemes := b.op.Security
	place, where := client.Bearer, "bearer"
	if len(schemes) > 0 {
		s := schemes[b.c.pick("token place", append([]int{4}, uniform(len(schemes)-1)...)...)]
		place, where = placeOf(s)
	}
	token := me.Token
	if d.kind == dToken {
		type variant struct {
			token, what string
			ref         int
			owner       string
		}
		vs := []variant{{"", "no token", refNoToken, AuthRequired}}
		for _, a := range alterations {
			vs = append(vs, variant{a.apply(me.Token), "user 1's token with " + a.name, refNoToken, AuthUnknownToken})
		}
		unknown := make([]byte, len(me.Token))
		seed := b.c.vary("unknown token", 0, 1<<30)
		for i := range unknown {
			unknown[i] = "0123456789abcdef"[(seed>>(i%28)+i*5)%16]
		}
		vs = append(vs, variant{string(unknown), "a token the server never issued", refNoToken, AuthUnknownToken})
		if where == "bearer" {
			vs = append(vs, variant{"", "an empty Bearer credential", refNoToken, AuthRequired}) // REF-AUTH: no credential, 401
		}
		var v variant
		if b.mode == modeToken {
			v = vs[b.c.pick("token departure", uniform(len(vs))...)]
		} else {
			v = anyOf(b.c, "token departure", vs)
		}
		token = v.token
		switch {
		case v.what == "an empty Bearer credential":
			place = client.NoToken
			b.cs.header.Set("Authorization", "Bearer ")
		case token == "":
			place, where = client.NoToken, ""
		}
		b.cs.note(badToken, v.ref, "%s", v.what)
		b.cs.tdesc, b.cs.towner = v.what, v.owner
		if where != "" {
			b.cs.tdesc += " as " + where
		}
	} else if where != "bearer" {
		b.cs.tdesc = "token as " + where
	}
	b.cs.place, b.cs.token = place, token
	if where == "x-access-token" && token != "" {
		b.cs.place = client.NoToken
		b.cs.header.Set("x-access-token", token)
	}
}

// placeOf maps a security scheme to how the client presents the token.
func placeOf(s *openapi3.SecurityScheme) (client.TokenPlace, string) {
	switch {
	case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"):
		return client.Bearer, "bearer"
	case s.Type == "apiKey" && s.In == "query":
		return client.QueryToken, "query " + s.Name
	case s.Type == "apiKey" && s.In == "header":
		return client.Bearer, strings.ToLower(s.Name)
	}
	return client.Bearer, "bearer"
}

// allowedMethods are the undocumented methods a probe of this operation's
// path may use: those that cannot change anything on a server that wrongly
// serves them, and, with writes on, any other when the path stays in the
// write room or names a message the engine sent.
func (b *builder) allowedMethods() []string {
	var out []string
	writable := b.writes && (b.op.pathParam(refMessage) != nil || b.op.roomScoped())
	for _, m := range b.op.Others {
		switch m {
		case http.MethodHead, http.MethodOptions, http.MethodGet:
			out = append(out, m)
		default:
			if writable {
				out = append(out, m)
			}
		}
	}
	return out
}

// methodDefect finishes a request sent with a method its path does not
// document (build picked it).
func (b *builder) methodDefect() {
	m := b.cs.method
	switch m {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		if b.cs.body == nil {
			b.cs.body, b.cs.bdesc = []byte("{}"), "{}"
			b.cs.header.Set("Content-Type", "application/json")
		}
	default:
		b.cs.body, b.cs.bdesc = nil, ""
		b.cs.header.Del("Content-Type")
	}
	b.cs.sendsText = false
	b.cs.note(badMethod, refBadMethod, "%s is not documented on this path", m)
}
