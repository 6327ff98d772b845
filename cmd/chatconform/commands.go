package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// commands are chatconform's subcommands, in the order the help lists them,
// each with what it does in a few words.
var commands = []struct{ name, what string }{
	{"diff", "compare two --json reports"},
	{"selftest", "prove the checks against planted faults and conforming variants"},
	{"proxy", "judge a client's real traffic with a server, live"},
	{"replay", "judge the exchanges of a --record file again, offline"},
	{"verify", "check a signed attestation of a run"},
	{"keygen", "make a key pair for --attest"},
	{"help", "print the help, or a command's"},
}

// flagWords are flags a user may type as a bare word.
var flagWords = map[string]string{"version": "--version", "list": "--list"}

func isCommand(s string) bool {
	for _, c := range commands {
		if c.name == s {
			return true
		}
	}
	return false
}

// commandList is the commands, one a line, for an error message.
func commandList() string {
	var b strings.Builder
	b.WriteString("the commands are:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.what)
	}
	b.WriteString("and with no command, chatconform checks a server (chatconform --help)")
	return b.String()
}

// looksLikeURL says whether s is the base URL of a server.
func looksLikeURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// looksLikePath says whether s names a file rather than a command: it has a
// directory separator or a file extension, or a file of that name exists.
func looksLikePath(s string) bool {
	if strings.ContainsAny(s, `/\`) || strings.Contains(s, ".") {
		return true
	}
	_, err := os.Stat(s)
	return err == nil
}

// misplaced explains a word chatconform cannot take where it stands (the
// first argument, or one after the flags), says what the user likely meant,
// and returns the usage exit code. first is true for the first argument,
// where a bare word is a command name.
func misplaced(stderr io.Writer, prog, arg string, first bool) int {
	switch {
	case looksLikeURL(arg):
		fmt.Fprintf(stderr, "%s: unexpected argument %q: to check the server at that URL, give it as --base-url %s (with --token T, once per user)\n", prog, arg, arg)
	case looksLikePath(arg):
		msg := fmt.Sprintf("to check the server a target description names, give --target %s", arg)
		switch l := strings.ToLower(arg); {
		case strings.HasSuffix(l, ".jsonl"):
			msg = fmt.Sprintf("to judge a --record file again, chatconform replay %s", arg)
		case strings.HasSuffix(l, ".json"):
			msg += "; to compare two --json reports, chatconform diff OLD.json NEW.json"
		}
		fmt.Fprintf(stderr, "%s: unexpected argument %q: %s\n", prog, arg, msg)
	case !first && isCommand(arg):
		fmt.Fprintf(stderr, "%s: unexpected argument %q: a command comes first, before any flag: chatconform %s [flags]\n", prog, arg, arg)
	case !first:
		fmt.Fprintf(stderr, "%s: unexpected argument %q: chatconform takes flags only (see chatconform --help)\n", prog, arg)
	default:
		return unknownCommand(stderr, prog, arg)
	}
	return exitUsage
}

// unknownCommand says that name is no command, suggests the nearest one,
// lists them, and returns the usage exit code.
func unknownCommand(stderr io.Writer, prog, name string) int {
	msg := fmt.Sprintf("%s: unknown command %q", prog, name)
	if s := suggest(name); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	fmt.Fprintf(stderr, "%s\n%s\n", msg, commandList())
	return exitUsage
}

// suggest returns the command (or bare-word flag) nearest to name, "" when
// none is near enough to be a typo of it.
func suggest(name string) string {
	w := strings.ToLower(name)
	if f, ok := flagWords[w]; ok {
		return f
	}
	best, bestD := "", 0
	consider := func(cand, say string) {
		d := editDistance(w, cand)
		// A typo: at most two edits, and fewer than half the word.
		if d > 2 || 2*d >= utf8.RuneCountInString(cand) {
			return
		}
		if best == "" || d < bestD {
			best, bestD = say, d
		}
	}
	for _, c := range commands {
		consider(c.name, c.name)
	}
	for word, f := range flagWords {
		consider(word, f)
	}
	if best == "" && utf8.RuneCountInString(w) >= 3 {
		// A prefix of exactly one command ("self", "ver").
		n := 0
		for _, c := range commands {
			if strings.HasPrefix(c.name, w) {
				best, n = c.name, n+1
			}
		}
		if n != 1 {
			best = ""
		}
	}
	return best
}

// editDistance is the number of edits (a rune inserted, deleted or
// replaced, or two neighbours swapped) that turn a into b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
