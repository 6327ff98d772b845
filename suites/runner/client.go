package runner

import (
	"errors"
	"net/url"
	"strings"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/generate"
	"github.com/chatrooms/conformance/suites/history"
	"github.com/chatrooms/conformance/suites/target"
)

// newClient builds the validating client of a run: TLS as the description
// says, every request through the run's control (so a stopped run sends
// nothing more), the whole run throttled to cfg.Rate, and the control told
// when the target stops answering.
func newClient(d *target.Description, cfg Config, rec *client.Recorder, hist *history.Checker, ctl *control) (*client.Client, error) {
	cc, err := d.ClientConfig()
	if err != nil {
		return nil, err
	}
	rt := cc.HTTP.Transport
	if cfg.Wrap != nil {
		rt = cfg.Wrap(rt)
	}
	cc.HTTP.Transport = ctl.transport(rt)
	doc, err := spec.Load(cfg.Profile)
	if err != nil {
		return nil, err
	}
	if cc.Validator, err = doc.NewValidator(d.MountPath()); err != nil {
		return nil, err
	}
	cc.Timeout, cc.Recorder, cc.Rate, cc.Clock = cfg.Timeout, rec, cfg.Rate, cfg.Clock
	cc.Observe = observers(cfg.Observe, hist)
	// Generated checks send altered tokens; they reveal most of a real one.
	var tokens []string
	for _, u := range d.Users {
		tokens = append(tokens, u.Token)
	}
	cc.Secrets = append(cc.Secrets, generate.DerivedTokens(tokens)...)
	cc.OnDown = func(te *client.TransportError) { ctl.stop("the target stopped answering: " + te.Error()) }
	// A write held back by another check's quiet window waits before its
	// time starts: the wait says nothing of the target.
	cc.Gate = ctl.gate
	// What each write named, for the generated checks that compare the
	// write room beside other checks (generate.Config.Quiet).
	cc.Writes = client.NewWriteLog(0)
	return client.New(cc)
}

// observers calls each of the run's observers of exchanges in turn.
func observers(extra func(client.Observed), hist *history.Checker) func(client.Observed) {
	if extra == nil {
		return hist.Observe
	}
	return func(o client.Observed) {
		hist.Observe(o)
		extra(o)
	}
}

// setupHalt turns a failure to prepare the run into an exit code and one
// sentence: the description must be fixed (2), the target answers its own
// API wrongly (1), it could not be reached or kept refusing (3).
func setupHalt(err error) (int, string) {
	var de *target.Error
	var se *target.ServerError
	var te *client.TransportError
	var ue *client.UnavailableError
	switch {
	case errors.As(err, &se):
		return ExitFail, "the target answers its own API wrongly: " + err.Error()
	case errors.As(err, &de):
		return ExitUsage, err.Error()
	case errors.As(err, &te) && (te.Kind == client.KindTooLarge || te.Kind == client.KindProtocol):
		return ExitFail, "the target answers its own API wrongly: " + err.Error()
	case errors.As(err, &te) && te.Kind == client.KindTLS && strings.Contains(err.Error(), "x509: "):
		return ExitUnreachable, "the target's certificate is not trusted (" + err.Error() + "): give the CA that signed it with --ca-file FILE " +
			"(or CHAT_CA_FILE, or ca_file: in the target description), or, for a test server only, --insecure-skip-verify"
	case errors.As(err, &te):
		return ExitUnreachable, "the target could not be reached: " + err.Error()
	case errors.As(err, &ue):
		return ExitUnreachable, "the target kept refusing (429 or 503): " + err.Error()
	}
	return ExitUnreachable, "preparing the run: " + err.Error()
}

// setupRequirement is the requirement a failure to prepare the run breaks,
// and the operation that showed it ("" when the failure is no verdict on
// the server): a wrong answer to the preflight, or an answer to the
// preflight or discovery the client could not read (too large, not HTTP).
// Exit 1 needs a FAIL in a requirement's name.
func setupRequirement(err error) (req, op string) {
	var se *target.ServerError
	var te *client.TransportError
	switch {
	case errors.As(err, &se):
		return se.Requirement, se.Op
	case errors.As(err, &te) && (te.Kind == client.KindTooLarge || te.Kind == client.KindProtocol):
		path := te.URL
		if u, err := url.Parse(te.URL); err == nil {
			path = u.Path
		}
		op = te.Method + " " + path
		switch {
		case strings.HasSuffix(path, "/v1/user"):
			return "USER-GET-ARRAY", op
		case strings.HasSuffix(path, "/rooms"):
			return "ROOM-LIST", op
		case strings.HasSuffix(path, "/channels"):
			return "CHANNEL-LIST", op
		}
	}
	return "", ""
}
