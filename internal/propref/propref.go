// Package propref reads the references a property value or setting may hold
// instead of a secret: `${env:NAME}` (an environment variable) and
// `${file:PATH}` (a file's content, one trailing newline removed; a
// relative path is relative to the working directory). A reference may be
// the whole value or part of one (`https://${env:HOST}/v1`); `$${` writes a
// literal `${`. The session resolves them when a dataset is read or written
// (catalog.Session); the catalog stores the reference text, and DESCRIBE
// and SET show it. See docs/catalog.md#secret-references.
//
//	v, err := propref.Resolve("Bearer ${env:TOKEN}", propref.OS)
package propref

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrReference is returned (wrapped) for a reference that cannot be
// resolved: an unset variable, an unreadable file, a malformed reference.
var ErrReference = errors.New("reference")

// Source looks up what references name.
type Source struct {
	// LookupEnv returns an environment variable and whether it is set.
	LookupEnv func(name string) (string, bool)
	// ReadFile returns a file's content.
	ReadFile func(path string) ([]byte, error)
}

// OS is the process's environment and file system.
var OS = Source{LookupEnv: os.LookupEnv, ReadFile: os.ReadFile}

// ErrUnclosed is returned (wrapped, with ErrReference) by Scan for a `${`
// without its `}`.
var ErrUnclosed = errors.New("not closed by }")

// Scan is the one reader of the reference syntax: it walks s left to right,
// calling lit with each run of literal text (`$${` written as `${`) and ref
// with the inside of each `${…}` (without `${` and `}`, not checked: ref
// decides what it means). It stops at ref's first error, and at a `${`
// without its `}` with ErrUnclosed naming the start of it.
func Scan(s string, lit func(text string), ref func(inner string) error) error {
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			if s != "" {
				lit(s)
			}
			return nil
		}
		if i > 0 && s[i-1] == '$' {
			lit(s[:i-1] + "${") // $${ → ${
			s = s[i+2:]
			continue
		}
		if i > 0 {
			lit(s[:i])
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return fmt.Errorf("%w %s: %w (write $${ for a literal ${)", ErrReference, quoteStart(s[i:]), ErrUnclosed)
		}
		if err := ref(s[i+2 : i+end]); err != nil {
			return err
		}
		s = s[i+end+1:]
	}
}

// Escape writes s so that Scan reads it back as literal text: every `${`
// becomes `$${`.
func Escape(s string) string { return strings.ReplaceAll(s, "${", "$${") }

var errStop = errors.New("stop")

// Has reports whether s holds a reference (a `${` not written as `$${`,
// closed or not).
func Has(s string) bool {
	return Scan(s, func(string) {}, func(string) error { return errStop }) != nil
}

// Only reports whether s is made of references alone (`${env:A}`,
// `${env:A}${file:b}`): a value that holds no literal text of its own, so
// no secret, whatever its property.
func Only(s string) bool {
	n, literal := 0, false
	err := Scan(s, func(string) { literal = true }, func(inner string) error {
		n++
		_, _, err := parse(inner)
		return err
	})
	return err == nil && !literal && n > 0
}

// Resolve replaces every reference in s by what it names and `$${` by
// `${`. An unset variable, an unreadable file or a malformed reference is an
// error naming it (never a value).
func Resolve(s string, src Source) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	err := Scan(s, func(text string) { b.WriteString(text) }, func(inner string) error {
		v, err := resolveOne(inner, src)
		b.WriteString(v)
		return err
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

// quoteStart is the beginning of an unclosed reference, for its error.
func quoteStart(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

func resolveOne(inner string, src Source) (string, error) {
	ref := "${" + inner + "}"
	kind, arg, err := parse(inner)
	if err != nil {
		return "", fmt.Errorf("%w %s: %w", ErrReference, ref, err)
	}
	switch kind {
	case "env":
		v, ok := src.LookupEnv(arg)
		if !ok {
			return "", fmt.Errorf("%w %s: environment variable %s is not set", ErrReference, ref, arg)
		}
		return v, nil
	default:
		data, err := src.ReadFile(arg)
		if err != nil {
			return "", fmt.Errorf("%w %s: %w", ErrReference, ref, err)
		}
		v := string(data)
		if strings.HasSuffix(v, "\r\n") {
			v = v[:len(v)-2]
		} else if strings.HasSuffix(v, "\n") {
			v = v[:len(v)-1]
		}
		return v, nil
	}
}

// parse splits the inside of a reference, `env:NAME` or `file:PATH`.
func parse(inner string) (kind, arg string, err error) {
	kind, arg, ok := strings.Cut(inner, ":")
	switch {
	case !ok || (kind != "env" && kind != "file"):
		return "", "", errors.New("a reference is ${env:NAME} or ${file:PATH} (write $${ for a literal ${)")
	case strings.TrimSpace(arg) == "":
		return "", "", fmt.Errorf("${%s:} names nothing", kind)
	}
	return kind, arg, nil
}
