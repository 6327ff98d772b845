package generate

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// offlineWorld is a world for generating without a server.
func offlineWorld() World {
	me, other := "67bad58002dfdf59f7000001", "67bc270051e533c8a9000002"
	write, hide, repo, foreign := "67f77a80d31e3b67440017e9", "67fe1200966255662a0017ea", "67ea4b80504e5c8e900017a1", "680de4007dccb99199001826"
	return World{
		Users:        []User{{ID: me, Token: strings.Repeat("ab", 20)}, {ID: other, Token: strings.Repeat("cd", 20)}},
		WriteRoom:    write,
		HideRoom:     hide,
		Rooms:        []string{repo},
		ForeignRooms: []string{foreign},
		Messages: []Message{
			{ID: "6b053dd995e94dbc35000001", Room: write, From: me, Fresh: true},
			{ID: "6b053dd995e94dbc35000002", Room: write, From: other, Fresh: true},
			{ID: "67ea4e2a11e2bc5e8c0017b0", Room: repo, From: other},
		},
	}
}

// validatorGap says why the document's validator (kin-openapi) accepts a
// request that breaks the document ("" when it should not).
func validatorGap(cs *testCase) string {
	d := cs.defect()
	switch {
	case strings.Contains(d, "two JSON values"):
		return "the validator decodes the first JSON value and ignores what follows"
	case strings.Contains(d, "not valid UTF-8"):
		return "the validator's JSON decoder replaces bytes that are not UTF-8"
	case strings.Contains(d, "longer than") && strings.Contains(cs.bdesc, "😀"):
		return "the validator counts characters outside the BMP as one unit, not two"
	}
	return ""
}

// httpRequest is the request a case sends, for the validator.
func httpRequest(t *testing.T, cs *testCase) (*http.Request, []byte) {
	r := cs.request()
	q := r.Query.Encode()
	if r.Place == client.QueryToken {
		if q != "" {
			q += "&"
		}
		q += "access_token=" + r.Token
	}
	u := "https://example.test" + r.Path
	if q != "" {
		u += "?" + q
	}
	req, err := http.NewRequest(r.Method, u, bytes.NewReader(r.RawBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = r.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if r.Place == client.Bearer && r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	if vs, ok := req.Header["Content-Type"]; ok && len(vs) == 1 && vs[0] == "" {
		req.Header.Del("Content-Type")
	}
	return req, r.RawBody
}

// checkAgainstValidator checks a case's own verdict against the document's
// validator: a valid or left-open request has no violation, a request with
// a defect at least one.
func checkAgainstValidator(t *testing.T, v *spec.Validator, cs *testCase) {
	t.Helper()
	if cs.has(badToken) {
		return // the validator sees that a token is there, not whose it is
	}
	req, body := httpRequest(t, cs)
	_, vs := v.CheckRequest(context.Background(), req, body)
	switch {
	case cs.valid() || cs.has(open):
		if len(vs) > 0 {
			t.Errorf("generated as %s, but the validator finds %s\n  %s", map[bool]string{true: "valid", false: "left open"}[cs.valid()], violationText(vs), cs.describe())
		}
	case len(vs) == 0:
		if gap := validatorGap(cs); gap == "" {
			t.Errorf("generated with a defect, but the validator finds none\n  %s", cs.describe())
		}
	}
}

// TestGeneratedRequestsAgreeWithTheValidator draws every coverage case and
// many random ones for every operation, offline, and checks each one's
// verdict (valid, left open, one defect) against kin-openapi's.
func TestGeneratedRequestsAgreeWithTheValidator(t *testing.T) {
	modes := []mode{modeAny, modeValid, modeToken, modeDefect, modeRoundTrip}
	for _, p := range spec.Profiles {
		doc := spec.MustLoad(p)
		v, err := doc.NewValidator("")
		if err != nil {
			t.Fatal(err)
		}
		ops, order, err := readContract(doc)
		if err != nil {
			t.Fatal(err)
		}
		if len(order) != 12 {
			t.Errorf("%s: %d operations, want the 12 of the API document", p, len(order))
		}
		e := &Engine{cfg: Config{Profile: p, Seed: testSeed, Writes: true}, ops: ops, order: order, world: offlineWorld()}
		for _, id := range order {
			op := ops[id]
			t.Run(string(p)+"/"+id, func(t *testing.T) {
				for _, m := range modes {
					for _, cs := range e.coverage(op, m, nil, true) {
						checkAgainstValidator(t, v, cs)
					}
				}
				rapid.Check(t, func(rt *rapid.T) {
					m := modes[rapid.IntRange(0, len(modes)-1).Draw(rt, "mode")]
					b := &builder{w: e.world, profile: p, writes: true, op: op, c: drawn{rt}, mode: m}
					cs, ok := b.build()
					if !ok {
						rt.Skip("none")
					}
					checkAgainstValidator(t, v, cs)
				})
			})
		}
	}
}

// TestOneDefectEach: in the reference profile, a request generated with a
// defect breaks the document in one place only.
func TestOneDefectEach(t *testing.T) {
	doc := spec.MustLoad(spec.Reference)
	v, _ := doc.NewValidator("")
	ops, order, _ := readContract(doc)
	e := &Engine{cfg: Config{Profile: spec.Reference, Seed: testSeed, Writes: true}, ops: ops, order: order, world: offlineWorld()}
	for _, id := range order {
		for _, cs := range e.coverage(ops[id], modeDefect, []string{"defect"}, true) {
			if cs.has(badToken) || cs.has(badMethod) || cs.valid() {
				continue
			}
			req, body := httpRequest(t, cs)
			_, vs := v.CheckRequest(context.Background(), req, body)
			places := map[string]bool{}
			for _, x := range vs {
				places[x.Location] = true
			}
			if len(places) > 1 {
				t.Errorf("%d places break the document: %s\n  %s", len(places), violationText(vs), cs.describe())
			}
		}
	}
}

// TestCoverageHasTheBoundaries: the coverage cases of the list operation
// hold each bound of limit and skip, on both sides, and those of a send
// every value of status, its absence, and texts of every kind.
func TestCoverageHasTheBoundaries(t *testing.T) {
	for _, p := range spec.Profiles {
		doc := spec.MustLoad(p)
		ops, order, _ := readContract(doc)
		e := &Engine{cfg: Config{Profile: p, Seed: testSeed, Writes: true}, ops: ops, order: order, world: offlineWorld()}
		var lines []string
		var texts []string
		for _, id := range []string{"listMessages", "sendMessage"} {
			for _, cs := range e.coverage(ops[id], modeAny, nil, true) {
				lines = append(lines, cs.describe()+" ")
				if cs.valid() && cs.sendsText {
					texts = append(texts, cs.text)
				}
			}
		}
		all := strings.Join(lines, "\n")
		want := []string{"chatMessages?limit=0 ", "limit=1 ", "limit=100 ", "limit=101 ", "skip=0 ", "skip=5000 ", "skip=5001 ",
			"not documented", `"status": true}`, `"status": false}`, `body {"text": "`}
		if p == spec.Reference {
			want = append(want, "limit=-1 ", "skip=-1 ")
		}
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no coverage case holds %q", p, w)
			}
		}
		kinds := map[string]func(rune) bool{
			"beyond the BMP":  func(r rune) bool { return r > 0xffff },
			"right-to-left":   func(r rune) bool { return unicode.Is(unicode.Hebrew, r) || unicode.Is(unicode.Arabic, r) },
			"combining marks": func(r rune) bool { return unicode.Is(unicode.Mn, r) },
			"three-byte":      func(r rune) bool { return r >= 0x800 && r <= 0xffff },
		}
		for name, is := range kinds {
			if !slices.ContainsFunc(texts, func(s string) bool { return strings.ContainsFunc(s, is) }) {
				t.Errorf("%s: no valid coverage text has characters %s", p, name)
			}
		}
		long := slices.ContainsFunc(texts, func(s string) bool { return units(s) == 4096 && len(s) > 4096 })
		if !long {
			t.Errorf("%s: no valid coverage text of 4096 units of multi-byte characters", p)
		}
	}
}
