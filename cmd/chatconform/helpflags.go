package main

import (
	"bytes"
	"flag"
	"strings"
)

// printDefaults prints fs's flags as fs.PrintDefaults does, to fs's
// output, but says a flag's placeholder once: a usage that opens with it
// ("`N`: seed for ...", "`true|false`: whether ...") would otherwise read
// "-seed N" then "N: seed for ...".
func printDefaults(fs *flag.FlagSet) {
	out := fs.Output()
	var b bytes.Buffer
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out)
	text := b.String()
	fs.VisitAll(func(f *flag.Flag) {
		name, _ := flag.UnquoteUsage(f)
		if name == "" {
			return
		}
		head := "  -" + f.Name + " " + name + "\n    \t"
		text = strings.Replace(text, head+name+": ", head, 1)
	})
	_, _ = out.Write([]byte(text))
}
