package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// splitArgsCommand is a hidden command of the GitHub Action
// (cmd/chatconform/action.yml): it splits the action's args input into
// words and prints each followed by a NUL byte, for the action's script to
// read into an array. It is not listed in the help: nobody types it.
const splitArgsCommand = "__split-args"

// splitArgs is `chatconform __split-args TEXT`.
func splitArgs(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "chatconform %s: want one argument, the text to split\n", splitArgsCommand)
		return exitUsage
	}
	words, err := shellWords(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "chatconform: the action's args input: %v\n", err)
		return exitUsage
	}
	for _, w := range words {
		fmt.Fprint(stdout, w, "\x00")
	}
	return exitPass
}

// shellWords splits s into words by the shell's quoting rules: blanks and
// newlines separate words; single quotes, double quotes, $'...' and
// backslashes quote. Nothing is evaluated: a variable, a command or
// arithmetic substitution is refused (not expanded, not run), and a word
// that would be a glob pattern or start with ~ is kept as written. An
// operator (;, |, &&, ||, <, >) outside quotes is refused too: quote it.
func shellWords(s string) ([]string, error) {
	var out []string
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	for w, err := range p.WordsSeq(strings.NewReader(s)) {
		if err != nil {
			var pe syntax.ParseError
			if errors.As(err, &pe) && strings.Contains(pe.Text, "not a valid word") {
				return nil, fmt.Errorf("%s: quote a value that holds it, such as --label-filter 'A || B'", pe.Text)
			}
			if errors.As(err, &pe) {
				return nil, errors.New(pe.Text)
			}
			return nil, err
		}
		v, err := literalWord(w)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// literalWord is the value of a word made of literal text and quotes only.
func literalWord(w *syntax.Word) (string, error) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(part.Value, false))
		case *syntax.SglQuoted:
			if !part.Dollar {
				b.WriteString(part.Value)
				continue
			}
			v, _, err := expand.Format(nil, part.Value, nil)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		case *syntax.DblQuoted:
			for _, in := range part.Parts {
				lit, ok := in.(*syntax.Lit)
				if !ok {
					return "", refused(in)
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "", refused(part)
		}
	}
	return b.String(), nil
}

// refused says why a part of a word is not taken.
func refused(part syntax.Node) error {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, part)
	what := "an expansion"
	switch part.(type) {
	case *syntax.ParamExp:
		what = "a variable"
	case *syntax.CmdSubst:
		what = "a command substitution"
	case *syntax.ArithmExp:
		what = "an arithmetic expansion"
	case *syntax.ProcSubst:
		what = "a process substitution"
	}
	return fmt.Errorf("%s is %s, which is never expanded here; give the value itself, or put it in single quotes to pass it as written (in a workflow, ${{ ... }} expressions are filled in before)", b.String(), what)
}

// unescape removes the backslashes of a literal: outside quotes a
// backslash quotes the next character (and a backslash-newline joins
// lines); inside double quotes only before $, `, ", \ and a newline.
func unescape(s string, dq bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !dq || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
