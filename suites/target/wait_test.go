package target

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// --wait: a server that starts listening a moment after the run starts is
// waited for; one that never does ends the wait with the cause.
func TestWaitForATargetThatStartsLate(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens until the server starts below
	srv := httptest.NewUnstartedServer(http.HandlerFunc(hostile))
	started := make(chan struct{})
	go func() {
		defer close(started)
		time.Sleep(700 * time.Millisecond)
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		srv.Listener = l
		srv.StartTLS()
	}()
	t.Cleanup(func() { <-started; srv.Close() })
	d := &Description{BaseURL: "https://" + addr, InsecureSkipVerify: true}
	took, err := d.Wait(context.Background(), 20*time.Second, time.Second)
	if err != nil || took < 500*time.Millisecond {
		t.Errorf("waited %s: %v", took, err)
	}
	// Nothing listening: the wait ends after the time given, with the cause.
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln2.Addr().String()
	ln2.Close()
	d = &Description{BaseURL: "https://" + dead}
	took, err = d.Wait(context.Background(), 600*time.Millisecond, 200*time.Millisecond)
	if err == nil || took < 500*time.Millisecond || took > 5*time.Second {
		t.Errorf("dead target: waited %s: %v", took, err)
	}
	// An untrusted certificate does not get better by waiting.
	<-started
	d = &Description{BaseURL: "https://" + addr}
	if took, err := d.Wait(context.Background(), 10*time.Second, time.Second); err == nil || took > 3*time.Second {
		t.Errorf("untrusted certificate: waited %s: %v", took, err)
	}
}
