package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/chatrooms/conformance/spec"
	"github.com/chatrooms/conformance/suites/client"
	"github.com/chatrooms/conformance/suites/proxy"
	"github.com/chatrooms/conformance/suites/runner"
	"github.com/chatrooms/conformance/suites/target"
)

const proxyUsage = `chatconform proxy judges a client's real traffic with a Chat Rooms server.

Usage:
  chatconform proxy --target FILE [flags]       (or --base-url URL --token T ..., or CHAT_* variables)

It listens (HTTPS with a certificate of its own, written to --ca-out; or
plain HTTP with --plain-http, on a loopback address only), forwards every
request to the target unchanged, and judges each exchange against the
profile's OpenAPI document and the answers before it: a request that
breaks the document is the CLIENT's violation (a missing token, a body of
the wrong shape, a parameter the operation does not have), an answer that
does, or that contradicts earlier answers, the SERVER's. Each violation is
printed as it happens with its requirement id. Point the client at the
proxy's URL instead of the server's, and trust the CA file.

It stops on Ctrl-C or SIGTERM, after --max-time, or after --requests
exchanges, and then prints a summary by requirement and writes the reports
asked for (--json, --junit, --html). The target is named as for a run:
the same description file, flags and CHAT_* variables (chatconform --help);
its tokens name the users and are redacted from every output, as is any
other token a client sends.

Exit codes: 0 no violation; 1 a violation (client or server); 2 bad flags
or target description; 3 the proxy could not start.

Flags (-name and --name are the same):
`

// defaultProxyListen is where the proxy listens by default: not chatref's
// 127.0.0.1:8443, so that the two run side by side as the README shows.
const defaultProxyListen = "127.0.0.1:9443"

// proxyCmd is `chatconform proxy`.
func proxyCmd(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("chatconform proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	registerTargetFlags(fs, &o)
	listen := fs.String("listen", defaultProxyListen, "`address` to listen on (host:port; port 0 picks a free one)")
	plain := fs.Bool("plain-http", false, "listen over plain HTTP instead of HTTPS (a loopback --listen address only)")
	caOut := fs.String("ca-out", "chatconform-proxy-ca.pem", "`file` to write the proxy's CA certificate to (clients trust it: curl --cacert FILE)")
	profile := fs.String("profile", "core", "`name`: core or reference: the document exchanges are judged by")
	maxTime := fs.Duration("max-time", 0, "stop after this `duration` (0: run until Ctrl-C, SIGTERM or --requests)")
	requests := fs.Int("requests", 0, "stop after forwarding `N` exchanges (0: no bound)")
	eventually := fs.Duration("eventually", 5*time.Second, "how long the server may show stale data after a write (history checker)")
	maxBody := fs.Int64("max-judged-body", client.DefaultMaxBody, "largest body (`bytes`) copied for judging; longer ones are forwarded, counted, not judged")
	jsonOut := fs.String("json", "", "write a JSON report to `file` when the proxy stops")
	junit := fs.String("junit", "", "write a JUnit XML report to `file` when the proxy stops")
	htmlOut := fs.String("html", "", "write an HTML report to `file` when the proxy stops")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, proxyUsage)
			fs.SetOutput(stdout)
			printDefaults(fs)
			return exitPass
		}
		fmt.Fprintln(stderr, "chatconform proxy: see chatconform proxy --help for the flags")
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chatconform proxy: unexpected argument %q (see --help)\n", fs.Arg(0))
		return exitUsage
	}
	p, err := spec.ParseProfile(*profile)
	if err != nil {
		fmt.Fprintln(stderr, "chatconform proxy: --profile:", err)
		return exitUsage
	}
	if err := runner.CheckOutputs(*jsonOut, *junit, *htmlOut, *caOut); err != nil {
		fmt.Fprintln(stderr, "chatconform proxy:", err)
		return exitUsage
	}
	in := o.inputs(lookupEnv)
	red := client.NewRedactor(runner.InputTokens(in)...)
	if !in.Named() {
		fmt.Fprintln(stderr, "chatconform proxy: name the server to forward to: --target FILE, --base-url URL --token T, or CHAT_BASE_URL and CHAT_TOKEN (chatref --target-out target.yaml writes a description of the reference server)")
		return exitUsage
	}
	d, err := runner.ResolveTarget(in)
	if err != nil {
		fmt.Fprintln(stderr, "chatconform proxy:", red.String(err.Error()))
		return exitUsage
	}
	red = client.NewRedactor(append(runner.Tokens(d), runner.InputTokens(in)...)...)
	if host, _, err := net.SplitHostPort(*listen); err != nil || *plain && !isLoopback(host) {
		fmt.Fprintf(stderr, "chatconform proxy: --listen %q: give host:port; with --plain-http the host must be a loopback address (127.0.0.1, ::1, localhost)\n", *listen)
		return exitUsage
	}
	px, err := proxy.Start(proxy.Config{Target: d, Profile: p, Listen: *listen, PlainHTTP: *plain, CAOut: *caOut, MaxJudgedBody: *maxBody,
		Eventually: *eventually, Out: stdout, Version: version()})
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use") {
			fmt.Fprintf(stderr, "chatconform proxy: could not listen on %s: the address is already in use (by chatref, the server you check, or an earlier proxy?); pick another with --listen HOST:PORT (port 0 picks a free one)\n", *listen)
			return exitHarness
		}
		fmt.Fprintln(stderr, "chatconform proxy: could not start:", red.String(err.Error()))
		return exitHarness
	}
	say := red.Writer(stdout)
	fmt.Fprintf(say, "chatconform proxy: %s forwards to %s; judging by the %s document\n", px.URL(), d.BaseURL, p)
	if ca := px.CAFile(); ca != "" {
		fmt.Fprintf(say, "chatconform proxy: its certificate (its own CA) is in %s: trust it in the client (curl --cacert %s, NODE_EXTRA_CA_CERTS=%s)\n", ca, ca, ca)
	}
	fmt.Fprintln(say, "chatconform proxy: stop with Ctrl-C; violations are printed as they happen")
	_ = say.Flush()
	if *requests > 0 {
		px.StopAfter(*requests)
	}
	var timeout <-chan time.Time
	if *maxTime > 0 {
		t := time.NewTimer(*maxTime)
		defer t.Stop()
		timeout = t.C
	}
	why := ""
	select {
	case <-ctx.Done():
		why = "interrupted"
	case <-timeout:
		why = "--max-time reached"
	case <-px.Done():
		why = fmt.Sprintf("%d exchanges forwarded (--requests)", *requests)
	}
	rep := px.Stop(10 * time.Second)
	fmt.Fprintf(say, "chatconform proxy: stopped: %s\n", why)
	rep.Print(say)
	_ = say.Flush()
	if *jsonOut != "" || *junit != "" || *htmlOut != "" {
		if err := rep.RunReport().WriteReports(red, *junit, *jsonOut, *htmlOut); err != nil {
			fmt.Fprintln(stderr, "chatconform proxy:", red.String(err.Error()))
			return exitHarness
		}
	}
	return rep.ExitCode()
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// registerTargetFlags declares the flags that name a target, as a run has
// them.
func registerTargetFlags(fs *flag.FlagSet, o *options) {
	fs.Var(&o.target, "target", "target description `file` (YAML or JSON); also CHAT_TARGET")
	fs.Var(&o.baseURL, "base-url", "base `URL` of the server (beats the file and CHAT_BASE_URL)")
	fs.Var(&o.tokens, "token", "`token` of user 1; repeat for users 2, 3, ... (beats the file and CHAT_TOKEN, CHAT_TOKEN_2, ...)")
	fs.Var(&o.userNames, "user-name", "a `name` for user 1 in reports; repeat for users 2, 3, ...")
	fs.Var(&o.userIDs, "user-id", "user 1's `id`; repeat for users 2, 3, ...")
	fs.Var(&o.usernames, "username", "user 1's `username`; repeat for users 2, 3, ...")
	fs.Var(&o.granted, "private-repos-granted", "`true|false`: per user, as for a run")
	fs.Var(&o.caFile, "ca-file", "PEM `file` of a CA to trust for the target besides the system's (beats CHAT_CA_FILE and the file's ca_file)")
	fs.BoolVar(&o.insecure, "insecure-skip-verify", false, "do not verify the target's certificate")
	fs.Var(&o.orgRoom, "rooms-org", "`id` of an organisation room, as for a run (rooms.org)")
	fs.Var(&o.repoRoom, "rooms-repo", "`id` of a repository room, as for a run (rooms.repo)")
	fs.Var(&o.channelRoom, "rooms-channel", "`id` of a channel, as for a run (rooms.channel)")
	fs.Var(&o.oneToOneRoom, "rooms-one-to-one", "`id` of a one-to-one room, as for a run (rooms.one_to_one)")
	fs.Var(&o.writeRoom, "write-room", "`id` of the room to post in, as for a run (write_room)")
	fs.Var(&o.hideRoom, "hide-room", "`id` of the room user 1 may lose, as for a run (hide_room)")
}

// inputs are the target the flags and environment name.
func (o *options) inputs(lookupEnv func(string) (string, bool)) runner.Inputs {
	return runner.Inputs{File: o.target.v, LookupEnv: lookupEnv, Flags: target.Overrides{
		BaseURL: o.baseURL.v, Tokens: o.tokens, Names: o.userNames, IDs: o.userIDs, Usernames: o.usernames, PrivateReposGranted: o.granted,
		CAFile: o.caFile.v, InsecureSkipVerify: o.insecure, WriteRoom: o.writeRoom.v, HideRoom: o.hideRoom.v,
		Rooms: target.RoomHints{Org: o.orgRoom.v, Repo: o.repoRoom.v, Channel: o.channelRoom.v, OneToOne: o.oneToOneRoom.v},
	}}
}
