package main

import (
	"reflect"
	"strings"
	"testing"
)

// The action's args input is split by the shell's quoting rules and never
// evaluated.
func TestShellWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"--seed 42 --rate 5/s", []string{"--seed", "42", "--rate", "5/s"}},
		{"--label-filter 'MSG-SEND-200 || PAGE-BEFOREID-WALK'", []string{"--label-filter", "MSG-SEND-200 || PAGE-BEFOREID-WALK"}},
		{`--label-filter "A && !B" --focus send\ a\ message`, []string{"--label-filter", "A && !B", "--focus", "send a message"}},
		{"  --seed\t7 \n --focus '$HOME `x` $(y)' ", []string{"--seed", "7", "--focus", "$HOME `x` $(y)"}},
		{`--focus "say \"hi\" \$5 \n"`, []string{"--focus", `say "hi" $5 \n`}},
		{`--focus $'tab\there' --focus *.go --focus ~/x`, []string{"--focus", "tab\there", "--focus", "*.go", "--focus", "~/x"}},
		{`--focus a''b""c`, []string{"--focus", "abc"}},
		{`--focus ''`, []string{"--focus", ""}},
	} {
		got, err := shellWords(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %q, %v (want %q)", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, says string }{
		{"--focus $HOME", "$HOME is a variable, which is never expanded"},
		{`--focus "${HOME}x"`, "${HOME} is a variable"},
		{"--focus $(touch pwned)", "a command substitution"},
		{"--focus `touch pwned`", "a command substitution"},
		{"--focus $((1+2))", "an arithmetic expansion"},
		{"--label-filter A || B", "quote a value"},
		{"--seed 1; rm -rf x", "quote a value"},
		{"--focus 'unterminated", "quote"},
	} {
		got, err := shellWords(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: %q, %v (want an error saying %q)", tc.in, got, err, tc.says)
		}
	}
}
