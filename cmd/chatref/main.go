// Command chatref serves the reference implementation of the Chat Rooms REST
// API over HTTPS, with a world generated from a seed.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/chatrooms/conformance/fixtures"
	"github.com/chatrooms/conformance/reference"
	"github.com/chatrooms/conformance/reference/localtls"
	"github.com/chatrooms/conformance/suites/target"
)

var usage = `chatref serves the reference Chat Rooms REST API over HTTPS.

Usage:
  chatref [flags]

Examples:
  # Serve on the default address with a fresh self-signed certificate and
  # write a target description that chatconform accepts as is (target.yaml,
  # with the certificate beside it in target-ca.pem):
  chatref --target-out target.yaml

  # Try it with curl ($TOKEN: a token from target.yaml):
  curl --cacert target-ca.pem -H "Authorization: Bearer $TOKEN" https://127.0.0.1:8443/v1/user

  # Any free port (the real URL is printed on start); writes /tmp/t.yaml and
  # /tmp/t-ca.pem:
  chatref --addr 127.0.0.1:0 --seed 7 --target-out /tmp/t.yaml

  # Another world: three users; users 1 and 2 share a repository room of 40
  # messages (the write room); user 1 has one one-to-one room, empty, which
  # the description allows to hide; user 3 alone has a channel whose
  # messages share sent times. The description stays true for the shape:
  chatref --addr 127.0.0.1:0 --shape 'users=3,granted=1,repo=12:40w,one=13:0h,chan=3:5t' --target-out t.yaml

World shapes (--shape, --shape-file; without them, the standard world):
` + indent(fixtures.ShapeSyntax) + `
  The standard world is: ` + fixtures.Default().String() + `

Limits (meant for a server shared by many clients; see go doc reference):
  a request's headers must arrive within 5s and the whole request within 15s;
  a response must be read within 15s; idle connections close after 30s;
  at most 4096 connections and 64 HTTP/2 streams per connection; a room keeps
  its newest 20,000 messages and 8 MiB of text, evicting the oldest.

Flags:
`

// ready is called with the listening URL once the server accepts connections
// (tests use it to learn the port of --addr :0).
type options struct {
	ready func(url string)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, options{}); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "chatref:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, opt options) error {
	fs := flag.NewFlagSet("chatref", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a mistake is said once, by main; --help prints the usage below
	addr := fs.String("addr", "127.0.0.1:8443", "`host:port` to listen on (port 0 picks a free one)")
	seed := fs.Uint64("seed", 1, "seed of the generated world (not 0); the same seed gives the same world")
	certFile := fs.String("tls-cert", "", "PEM certificate `file` (default: a self-signed one made at start)")
	keyFile := fs.String("tls-key", "", "PEM private key `file` for --tls-cert")
	targetOut := fs.String("target-out", "", "write a target description for chatconform to this `file`")
	shapeText := fs.String("shape", "", "the `shape` of the world (see World shapes above; default: the standard world)")
	shapeFile := fs.String("shape-file", "", "read the shape of the world from this `file` (# starts a comment)")
	rateLimit := fs.Int("rate-limit", 0, "`requests` per user per 60-second window; 0 turns rate limiting off. A whole chatconform run sends about 3,800 requests, about 2,900 of them as user 1, within a minute: 4000 lets it through; with less, throttle chatconform to --rate N/60 per second and give it --check-timeout 10m (a pagination walk alone sends over 250 requests)")
	editWindow := fs.Duration("edit-window", reference.DefaultEditWindow, "how long after sending a message may be edited")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprint(stderr, usage)
			fs.PrintDefaults()
			return err
		}
		return fmt.Errorf("%w (see --help)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	if (*certFile == "") != (*keyFile == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if *rateLimit < 0 || *editWindow <= 0 {
		return errors.New("--rate-limit must be 0 or more and --edit-window positive")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	shape, err := readShape(*shapeText, *shapeFile)
	if err != nil {
		return err
	}
	world, err := fixtures.GenerateShape(*seed, shape)
	if err != nil {
		return err
	}
	var cert tls.Certificate
	var caPEM []byte
	if *certFile != "" {
		if cert, err = tls.LoadX509KeyPair(*certFile, *keyFile); err != nil {
			return fmt.Errorf("loading --tls-cert/--tls-key: %w", err)
		}
	} else if cert, caPEM, err = localtls.SelfSigned(reference.CertOrg, reference.CertName); err != nil {
		return err
	}

	srv, err := localtls.Start(reference.NewHTTPServer(
		reference.New(world, reference.Config{RateLimit: *rateLimit, EditWindow: *editWindow, Logger: log}),
		localtls.Config(cert), log), localtls.Options{Addr: *addr})
	if err != nil {
		return err
	}
	url := "https://" + hostPort(srv.TCPAddr, *addr)
	if *targetOut != "" {
		if err := writeTarget(*targetOut, url, world, caPEM, *certFile); err != nil {
			srv.Close()
			return err
		}
	}
	fmt.Fprintf(stdout, "chatref: serving %s (seed %d, %d users)\n", url, *seed, len(world.Users))
	if *shapeText != "" || *shapeFile != "" {
		fmt.Fprintf(stdout, "chatref: world shape %s\n", shape)
	}
	if *targetOut != "" {
		fmt.Fprintf(stdout, "chatref: target description written to %s\n", *targetOut)
	} else {
		fmt.Fprintln(stdout, "chatref: the tokens and the certificate to trust are in a target description: restart with --target-out FILE to have one written (chatconform --target FILE reads it)")
	}
	if opt.ready != nil {
		opt.ready(url)
	}
	select {
	case err := <-srv.Served():
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// hostPort renders the listening address for a URL, keeping the host the
// user asked for (localhost stays localhost) and the real port.
func hostPort(a *net.TCPAddr, asked string) string {
	host, _, err := net.SplitHostPort(asked)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, fmt.Sprint(a.Port))
}

// writeTarget writes a description of this server. A self-signed CA goes to
// a file beside it, named after it.
func writeTarget(path, url string, w *fixtures.World, caPEM []byte, certFile string) error {
	d := target.FromWorld(w, url)
	switch {
	case caPEM != nil:
		caPath := strings.TrimSuffix(path, filepath.Ext(path)) + "-ca.pem"
		if err := os.WriteFile(caPath, caPEM, 0o644); err != nil {
			return err
		}
		d.CAFile = filepath.Base(caPath) // relative to the description
	case certFile != "":
		abs, err := filepath.Abs(certFile)
		if err != nil {
			return err
		}
		d.CAFile = abs
	}
	out, err := d.Marshal()
	if err != nil {
		return err
	}
	header := "# Target description written by chatref; use it with: chatconform --target " + path + "\n"
	return os.WriteFile(path, append([]byte(header), out...), 0o600)
}

// readShape is the shape --shape or --shape-file gives (not both), or the
// standard one.
func readShape(text, file string) (fixtures.Shape, error) {
	switch {
	case text != "" && file != "":
		return fixtures.Shape{}, errors.New("--shape and --shape-file: give one of them")
	case file != "":
		raw, err := os.ReadFile(file)
		if err != nil {
			return fixtures.Shape{}, fmt.Errorf("--shape-file: %w", err)
		}
		var lines []string
		for _, l := range strings.Split(string(raw), "\n") {
			l, _, _ = strings.Cut(l, "#")
			lines = append(lines, l)
		}
		s, err := fixtures.ParseShape(strings.Join(lines, "\n"))
		if err != nil {
			return fixtures.Shape{}, fmt.Errorf("--shape-file %s: %w", file, err)
		}
		return s, nil
	case text != "":
		s, err := fixtures.ParseShape(text)
		if err != nil {
			return fixtures.Shape{}, fmt.Errorf("--shape: %w", err)
		}
		return s, nil
	}
	return fixtures.Default(), nil
}

// indent sets a block of text two spaces in, as the help text's sections are.
func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
