package record_test

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/record"
	"github.com/chatrooms/conformance/suites/record/recordtest"
)

// trailerOf reads a record to its end and returns its trailer.
func trailerOf(t *testing.T, raw []byte) *record.Trailer {
	t.Helper()
	rd, err := record.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := rd.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if rd.Trailer == nil {
		t.Fatal("no trailer")
	}
	return rd.Trailer
}

// The record keeps what the harness saw of the server: the address it
// dialled, the socket's other end, and the fingerprint of the certificate
// the server presented, once however many exchanges used it.
func TestRecordKeepsTheServerAsObserved(t *testing.T) {
	d := recordtest.StartReference(t, nil)
	raw := recordtest.Record(t, d)
	o := trailerOf(t, raw).Observed
	u, err := url.Parse(d.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	if o == nil || len(o.Addresses) != 1 || len(o.Chains) != 1 {
		t.Fatalf("observed %+v", o)
	}
	a := o.Addresses[0]
	if a.Scheme != "https" || a.Address != u.Host || a.Remote != u.Host || a.Exchanges != recordtest.SessionExchanges {
		t.Errorf("address %+v, want https %s, %d exchanges", a, u.Host, recordtest.SessionExchanges)
	}
	block, _ := pem.Decode(mustRead(t, d.CAFile))
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	c := o.Chains[0]
	if c.Exchanges != recordtest.SessionExchanges || !contains(c.SHA256, client.Fingerprint(cert.Raw)) {
		t.Errorf("chain %+v, want it to hold the server's certificate %s", c, client.Fingerprint(cert.Raw))
	}
	for _, f := range c.SHA256 {
		if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(f) {
			t.Errorf("fingerprint %q", f)
		}
	}
	if l := o.Leaves(); len(l) != 1 || l[0] != c.SHA256[0] {
		t.Errorf("leaves %v", l)
	}
	r, err := record.Replay(bytes.NewReader(raw), "test")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.Print(&out)
	for _, want := range []string{"  target as observed: https://" + u.Host + ", 8 exchanges\n", "  TLS certificate chain (sha256, leaf first), 8 exchanges: " + c.SHA256[0]} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("replay lacks %q:\n%s", want, out.String())
		}
	}
}

// A record written before the observation was kept is read as before, and
// said to lack it.
func TestARecordWithoutTheObservationIsRead(t *testing.T) {
	d := recordtest.StartReference(t, nil)
	raw := recordtest.Record(t, d)
	old := regexp.MustCompile(`,"observed":\{.*\}\}\n$`).ReplaceAll(raw, []byte("}\n"))
	if bytes.Equal(old, raw) {
		t.Fatal("no observation in the trailer to take out")
	}
	if o := trailerOf(t, old).Observed; o != nil {
		t.Fatalf("observed %+v", o)
	}
	r, err := record.Replay(bytes.NewReader(old), "test")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.Print(&out)
	if !strings.Contains(out.String(), "target as observed: not recorded") || !r.Same() {
		t.Errorf("replay of an older record:\n%s", out.String())
	}
}

// What a plain-http target leaves: addresses, and no chain, said in words.
func TestObservationOfAPlainHTTPTargetSaysSo(t *testing.T) {
	o := &record.Observation{Addresses: []record.Address{{Scheme: "http", Address: "127.0.0.1:8080", Remote: "127.0.0.1:8080", Exchanges: 3}}, Chains: []record.Chain{}}
	var out strings.Builder
	o.Print(&out, "")
	if !strings.Contains(out.String(), "TLS: none") || len(o.Leaves()) != 0 {
		t.Errorf("%s", out.String())
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
