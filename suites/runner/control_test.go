package runner

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
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
