package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/chatrooms/conformance/suites/attest"
)

const keygenUsage = `chatconform keygen makes a key pair for signing attestations (chatconform
--attest FILE --key key.pem) and checking them (chatconform verify --key pub.pem).

Usage:
  chatconform keygen [--key key.pem] [--pub pub.pem] [--force]

It writes an ECDSA P-256 private key (PKCS #8 PEM, readable by you only) and
its public key (PKIX PEM), both or neither: when either file exists it
writes nothing and says so, unless --force. openssl makes keys that work as
well:
  openssl genpkey -algorithm ed25519 -out key.pem && openssl pkey -in key.pem -pubout -out pub.pem

Exit codes: 0 both written; 2 bad flags, or a file exists or cannot be
written (nothing written); 3 the key could not be made.

Flags (-name and --name are the same):
`

// keygen is `chatconform keygen`.
func keygen(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("chatconform keygen", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {}
	keyOut := fset.String("key", "key.pem", "`file` to write the private key to (keep it secret)")
	pubOut := fset.String("pub", "pub.pem", "`file` to write the public key to (give it to whoever checks your attestations)")
	force := fset.Bool("force", false, "replace --key and --pub when they exist (otherwise nothing is written)")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, keygenUsage)
			fset.SetOutput(stdout)
			printDefaults(fset)
			return exitPass
		}
		fmt.Fprintln(stderr, "chatconform keygen: see chatconform keygen --help for the flags")
		return exitUsage
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "chatconform keygen: unexpected argument %q: name the files with --key FILE and --pub FILE\n", fset.Arg(0))
		return exitUsage
	}
	outs := []keyFile{{"--key", *keyOut, 0o600, ""}, {"--pub", *pubOut, 0o644, ""}}
	if a, b := absPath(*keyOut), absPath(*pubOut); a == b {
		fmt.Fprintf(stderr, "chatconform keygen: --key and --pub name the same file %s; nothing written\n", *keyOut)
		return exitUsage
	}
	for _, f := range outs {
		if err := f.check(*force); err != nil {
			fmt.Fprintf(stderr, "chatconform keygen: %v; nothing written\n", err)
			return exitUsage
		}
	}
	priv, pub, err := attest.GenerateKey()
	if err != nil {
		fmt.Fprintln(stderr, "chatconform keygen:", err)
		return exitHarness
	}
	if err := writeBoth(outs, [][]byte{priv, pub}, *force); err != nil {
		fmt.Fprintf(stderr, "chatconform keygen: %v; nothing written\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "chatconform keygen: private key in %s (keep it secret), public key in %s (give it to whoever checks your attestations)\n", *keyOut, *pubOut)
	return exitPass
}

// keyFile is one file keygen writes.
type keyFile struct {
	flag, path string
	mode       os.FileMode
	tmp        string // the temporary file written beside it
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// check refuses a file that exists (unless force) or a directory that does
// not, before anything is written.
func (f keyFile) check(force bool) error {
	st, err := os.Stat(f.path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s %s is a directory", f.flag, f.path)
	case err == nil && !force:
		return fmt.Errorf("%s %s exists and is not replaced (name another file with %s FILE, or give --force to replace it)", f.flag, f.path, f.flag)
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", f.flag, err)
	}
	dir := filepath.Dir(f.path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s %s: no directory %s to write it in", f.flag, f.path, dir)
	}
	return nil
}

// writeBoth writes every file or none: each goes to a temporary file beside
// it first, and then takes its name; on a failure, whatever was written is
// removed.
func writeBoth(outs []keyFile, data [][]byte, force bool) error {
	cleanup := func() {
		for _, f := range outs {
			if f.tmp != "" {
				os.Remove(f.tmp)
			}
		}
	}
	for i := range outs {
		tmp, err := writeTemp(outs[i].path, data[i], outs[i].mode)
		if err != nil {
			cleanup()
			return fmt.Errorf("%s %s: %w", outs[i].flag, outs[i].path, err)
		}
		outs[i].tmp = tmp
	}
	var done []string
	for i, f := range outs {
		if err := install(f.tmp, f.path, force); err != nil {
			for _, p := range done {
				os.Remove(p)
			}
			cleanup()
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%s %s exists and is not replaced (name another file with %s FILE, or give --force to replace it)", f.flag, f.path, f.flag)
			}
			return fmt.Errorf("%s %s: %w", f.flag, f.path, err)
		}
		outs[i].tmp = ""
		done = append(done, f.path)
	}
	return nil
}

// writeTemp writes data to a new temporary file in path's directory, with
// mode, and returns its name.
func writeTemp(path string, data []byte, mode os.FileMode) (string, error) {
	fh, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	name := fh.Name()
	err = fh.Chmod(mode)
	if err == nil {
		_, err = fh.Write(data)
	}
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// install gives tmp the name path. Without force it never replaces a file
// that exists (one made since the check included): a hard link takes the
// name only if it is free, where the file system has them.
func install(tmp, path string, force bool) error {
	if force {
		return os.Rename(tmp, path)
	}
	err := os.Link(tmp, path)
	if err == nil {
		os.Remove(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	// No hard links here: take the name if it is still free.
	if _, serr := os.Lstat(path); serr == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}
