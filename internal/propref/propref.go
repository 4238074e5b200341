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

// Has reports whether s holds a reference (a `${` not written as `$${`).
func Has(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		if s[i+1] == '$' && i+2 < len(s) && s[i+2] == '{' {
			i += 2 // $${: a literal
			continue
		}
		if s[i+1] == '{' {
			return true
		}
	}
	return false
}

// Only reports whether s is made of references alone (`${env:A}`,
// `${env:A}${file:b}`): a value that holds no literal text of its own, so
// no secret, whatever its property.
func Only(s string) bool {
	if s == "" {
		return false
	}
	n := 0
	for len(s) > 0 {
		if !strings.HasPrefix(s, "${") {
			return false
		}
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return false
		}
		if _, _, err := parse(s[2:end]); err != nil {
			return false
		}
		s = s[end+1:]
		n++
	}
	return n > 0
}

// Resolve replaces every reference in s by what it names and `$${` by
// `${`. An unset variable, an unreadable file or a malformed reference is an
// error naming it (never a value).
func Resolve(s string, src Source) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i]) // $${ → ${ : the first $ is already written
			b.WriteString("{")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("%w %s: not closed by } (write $${ for a literal ${)", ErrReference, quoteStart(s[i:]))
		}
		ref := s[i : i+end+1]
		v, err := resolveOne(ref, src)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

// quoteStart is the beginning of an unclosed reference, for its error.
func quoteStart(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

func resolveOne(ref string, src Source) (string, error) {
	kind, arg, err := parse(ref[2 : len(ref)-1])
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
