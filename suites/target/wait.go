package target

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"strings"
	"time"
)

// Wait asks the target GET /v1/user (without a token: any HTTP answer will
// do) until it answers or within has passed, for a server started just
// before the run (chatconform --wait). It returns how long it waited and,
// when the target never answered, the last error. Answers 502, 503 and 504
// (a proxy in front of a server still starting) count as no answer. A
// certificate the description does not trust ends the wait at once: waiting
// does not change it.
func (d *Description) Wait(ctx context.Context, within, perTry time.Duration) (time.Duration, error) {
	start := time.Now()
	hc, err := d.HTTPClient()
	if err != nil {
		return 0, err
	}
	defer hc.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	pause := 100 * time.Millisecond
	for {
		err = try(ctx, hc, strings.TrimSuffix(d.BaseURL, "/")+"/v1/user", perTry)
		var unknown x509.UnknownAuthorityError
		var invalid x509.CertificateInvalidError
		var host x509.HostnameError
		if err == nil || errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &host) {
			return time.Since(start), err
		}
		select {
		case <-ctx.Done():
			return time.Since(start), err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// errNotYet is an answer that says the server behind is not up yet.
type errNotYet struct{ status string }

func (e errNotYet) Error() string { return "answered " + e.status + " (not up yet?)" }

func try(ctx context.Context, hc *http.Client, url string, perTry time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, perTry)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return errNotYet{resp.Status}
	}
	return nil
}
