package runner

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
)

// The run's transport counts every request it sends, and as waits those
// sent while no other was in flight: a request is in flight until its
// body is closed or it fails.
func TestControlCountsRequestsAndWaits(t *testing.T) {
	ctl := newControl(context.Background(), 0)
	defer ctl.close()
	var started sync.WaitGroup
	release := make(chan struct{})
	fail := errors.New("refused")
	rt := ctl.transport(roundTripper(func(req *http.Request) (*http.Response, error) {
		switch req.URL.Path {
		case "/fail":
			return nil, fail
		case "/together":
			started.Done()
			<-release
		}
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}"))}, nil
	}))
	send := func(path string) error {
		req, _ := http.NewRequest("GET", "https://example.test"+path, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	for _, p := range []string{"/one", "/fail", "/two"} { // one after another: three waits
		if err := send(p); err != nil && !errors.Is(err, fail) {
			t.Fatal(err)
		}
	}
	started.Add(3)
	var done sync.WaitGroup
	for range 3 { // at once: one wait
		done.Go(func() { _ = send("/together") })
	}
	started.Wait()
	close(release)
	done.Wait()
	if err := send("/after"); err != nil {
		t.Fatal(err)
	}
	if sent, waits := ctl.counts(); sent != 7 || waits != 5 {
		t.Errorf("counted %d requests and %d waits, want 7 and 5", sent, waits)
	}
}

// A quiet window holds back the writes of every check but the one that
// holds it, whichever context its requests carry; reads go on; the held
// write goes out once the window ends.
func TestQuietWindowHoldsOtherChecksWrites(t *testing.T) {
	ctl := newControl(context.Background(), 0)
	defer ctl.close()
	ctl.shared = true
	var mu sync.Mutex
	var sent []string
	rt := ctl.transport(roundTripper(func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		sent = append(sent, client.CheckOf(req.Context())+" "+req.Method)
		mu.Unlock()
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}"))}, nil
	}))
	send := func(check, method string) {
		req, _ := http.NewRequestWithContext(client.WithCheck(context.Background(), check), method, "https://example.test/v1/x", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Error(err)
			return
		}
		_ = resp.Body.Close()
	}
	_, release := ctl.quietly(client.WithCheck(context.Background(), "quiet"))
	held := make(chan struct{})
	go func() { send("other", "POST"); close(held) }()
	send("other", "GET")
	send("quiet", "POST") // another context of the holder's: not held
	select {
	case <-held:
		t.Fatal("another check's write went out inside the quiet window")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	<-held
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"other GET", "quiet POST", "other POST"}; !slices.Equal(sent, want) {
		t.Errorf("sent %q, want %q", sent, want)
	}
	if ctl.heldFor("other") <= 0 {
		t.Error("the held write's wait was not counted")
	}
}

// A write held back by another check's quiet window longer than the
// client's per-attempt timeout still goes out once the window ends: the
// wait happens before the attempt's time starts (client.Config.Gate), so
// the target is not taken for down. The check's held time counts a wait
// still going on, and several of its writes waiting together count once.
func TestHeldWritesDoNotTimeOutAndCountOnce(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":true}`)
	}))
	defer srv.Close()
	ctl := newControl(context.Background(), 0)
	defer ctl.close()
	ctl.shared = true
	v, err := spec.MustLoad(spec.Core).NewValidator("")
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	hc := srv.Client()
	hc.Transport = ctl.transport(hc.Transport)
	c, err := client.New(client.Config{BaseURL: srv.URL, HTTP: hc, Validator: v, Timeout: 100 * time.Millisecond, MaxAttempts: 1,
		Gate: ctl.gate, OnDown: func(*client.TransportError) { down.Store(true) }})
	if err != nil {
		t.Fatal(err)
	}
	_, release := ctl.quietly(client.WithCheck(context.Background(), "quiet"))
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := c.Do(client.WithCheck(context.Background(), "other"), client.Request{Method: "POST", Path: "/v1/user/u/rooms/r/unreadItems", Body: map[string]any{"chat": []string{"m"}}, Invalid: true})
			errs <- err
		}()
	}
	time.Sleep(300 * time.Millisecond)
	during := ctl.heldFor("other")
	release()
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("a held write failed: %v", err)
		}
	}
	if down.Load() {
		t.Error("held writes made the target count as down")
	}
	if during < 250*time.Millisecond {
		t.Errorf("while held, the check's held time was %s, want the wait so far (about 300ms)", during)
	}
	if total := ctl.heldFor("other"); total > time.Second {
		t.Errorf("three writes held together for about 300ms count %s", total)
	}
}
