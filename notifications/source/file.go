package source

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sluicedata/sluice/internal/duration"
	"github.com/sluicedata/sluice/internal/suggest"
)

// The config file (docs/sidecar.md#config-file):
//
//	sources:
//	  - name: stripe
//	    scheme: stripe
//	    secrets: [whsec_…]
//	    mapping: {objectToken: data.object.id}
//	    marketplace: https://shop.example/stripe
//
// Every key is checked: an unknown one is an error naming its line, with
// the key probably meant.

// FileError is a bad config file: which file, which line (0 when the
// whole file is at fault) and what.
type FileError struct {
	File string
	Line int
	Err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("config %s, line %d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("config %s: %v", e.File, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

var (
	topKeys     = []string{"sources"}
	sourceKeys  = []string{"name", "path", "scheme", "secrets", "tolerance", "header", "encoding", "prefix", "mapping", "marketplace"}
	envRefRegex = regexp.MustCompile(`^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$`)
)

// LoadFile reads and checks a config file; getenv resolves secrets written
// ${env:NAME}. The error is a *FileError.
func LoadFile(path string, getenv func(string) string) ([]*Source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &FileError{File: path, Err: fmt.Errorf("cannot read it: %w", err)}
	}
	cfgs, err := parse(b, getenv)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.File = path
		}
		return nil, err
	}
	var out []*Source
	names, paths := map[string]int{}, map[string]string{}
	for _, c := range cfgs {
		src, err := c.cfg.Build()
		if err != nil {
			return nil, &FileError{File: path, Line: c.line, Err: fmt.Errorf("source %s: %w", sourceLabel(c.cfg.Name, len(out)), err)}
		}
		if first, dup := names[src.Name]; dup {
			return nil, &FileError{File: path, Line: c.line, Err: fmt.Errorf("source %q is defined twice (first on line %d)", src.Name, first)}
		}
		if other, dup := paths[src.Path]; dup {
			return nil, &FileError{File: path, Line: c.line, Err: fmt.Errorf("source %q: path %s is source %q's already", src.Name, src.Path, other)}
		}
		names[src.Name], paths[src.Path] = c.line, src.Name
		out = append(out, src)
	}
	return out, nil
}

func sourceLabel(name string, i int) string {
	if name == "" {
		return fmt.Sprintf("#%d", i+1)
	}
	return fmt.Sprintf("%q", name)
}

// located is a source's declaration and the line it starts on.
type located struct {
	cfg  Config
	line int
}

// parse reads a config file's text into source declarations (not built:
// Config.Build checks each). The error is a *FileError without the file.
func parse(b []byte, getenv func(string) string) ([]located, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		return nil, &FileError{Err: fmt.Errorf("not YAML: %w", err)}
	}
	if len(doc.Content) == 0 {
		return nil, &FileError{Err: errors.New("empty: want `sources:` and a list of sources")}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, &FileError{Line: top.Line, Err: errors.New("want a mapping with the key `sources`")}
	}
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != "sources" {
			return nil, &FileError{Line: k.Line, Err: fmt.Errorf("unknown key %q%s (known: %s)", k.Value,
				suggest.Phrase(k.Value, topKeys), strings.Join(topKeys, ", "))}
		}
		list = v
	}
	if list == nil {
		return nil, &FileError{Line: top.Line, Err: errors.New("no `sources:` list")}
	}
	if list.Kind != yaml.SequenceNode {
		return nil, &FileError{Line: list.Line, Err: errors.New("sources must be a list (- name: …)")}
	}
	var out []located
	for i, n := range list.Content {
		c, err := parseSource(n, i, getenv)
		if err != nil {
			return nil, err
		}
		out = append(out, located{cfg: c, line: n.Line})
	}
	return out, nil
}

func parseSource(n *yaml.Node, index int, getenv func(string) string) (Config, error) {
	var c Config
	if n.Kind != yaml.MappingNode {
		return c, &FileError{Line: n.Line, Err: fmt.Errorf("source #%d must be a mapping (name: …, scheme: …)", index+1)}
	}
	// The name first, so that every later error can say which source.
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			c.Name = n.Content[i+1].Value
		}
	}
	label := sourceLabel(c.Name, index)
	fail := func(at *yaml.Node, format string, args ...any) error {
		return &FileError{Line: at.Line, Err: fmt.Errorf("source %s: "+format, append([]any{label}, args...)...)}
	}
	scalar := func(k, v *yaml.Node, dst *string) error {
		if v.Kind != yaml.ScalarNode {
			return fail(v, "%s must be a text value", k.Value)
		}
		*dst = v.Value
		return nil
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return c, fail(k, "key %q is given twice", k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "name":
			err = scalar(k, v, &c.Name)
		case "path":
			err = scalar(k, v, &c.Path)
		case "scheme":
			err = scalar(k, v, &c.Scheme)
		case "header":
			err = scalar(k, v, &c.Header)
		case "encoding":
			err = scalar(k, v, &c.Encoding)
		case "prefix":
			err = scalar(k, v, &c.Prefix)
		case "marketplace":
			err = scalar(k, v, &c.Marketplace)
		case "tolerance":
			var s string
			if err = scalar(k, v, &s); err == nil {
				d, perr := duration.Parse(s)
				if perr != nil || d <= 0 {
					return c, fail(v, "tolerance %q is not a positive duration (5m or PT5M)", s)
				}
				c.Tolerance = d
			}
		case "secrets":
			c.Secrets, err = parseSecrets(v, getenv, fail)
		case "mapping":
			err = parseMapping(v, &c.Mapping, fail)
		default:
			return c, &FileError{Line: k.Line, Err: fmt.Errorf("source %s: unknown key %q%s (known: %s)", label, k.Value,
				suggest.Phrase(k.Value, sourceKeys), strings.Join(sourceKeys, ", "))}
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// parseSecrets reads a list of secrets, or one text of comma-separated
// ones; a secret written ${env:NAME} is that variable's value. Errors
// never quote a secret.
func parseSecrets(v *yaml.Node, getenv func(string) string, fail func(*yaml.Node, string, ...any) error) ([]string, error) {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.SequenceNode:
		items = v.Content
	case yaml.ScalarNode:
		items = []*yaml.Node{v}
	default:
		return nil, fail(v, "secrets must be a list of texts")
	}
	var out []string
	for _, it := range items {
		if it.Kind != yaml.ScalarNode {
			return nil, fail(it, "secrets must be a list of texts")
		}
		parts := []string{it.Value}
		if v.Kind == yaml.ScalarNode {
			parts = strings.Split(it.Value, ",")
		}
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if m := envRefRegex.FindStringSubmatch(p); m != nil {
				val := ""
				if getenv != nil {
					val = getenv(m[1])
				}
				if strings.TrimSpace(val) == "" {
					return nil, fail(it, "secret ${env:%s}: the variable is not set", m[1])
				}
				p = strings.TrimSpace(val)
			}
			if p == "" {
				return nil, fail(it, "secrets must not be empty")
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fail(v, "secrets: at least one secret is required (every source is signed)")
	}
	return out, nil
}

func parseMapping(v *yaml.Node, m *MappingConfig, fail func(*yaml.Node, string, ...any) error) error {
	if v.Kind != yaml.MappingNode {
		return fail(v, "mapping must be a mapping (token: …, type: …)")
	}
	dst := map[string]*string{}
	for i, f := range m.fields() {
		dst[mappingKeys[i]] = f
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		p, ok := dst[k.Value]
		if !ok {
			return fail(k, "unknown key mapping.%s%s (known: %s)", k.Value, suggest.Phrase(k.Value, mappingKeys),
				strings.Join(mappingKeys, ", "))
		}
		if val.Kind != yaml.ScalarNode {
			return fail(val, "mapping.%s must be a dotted path or header:Name", k.Value)
		}
		*p = val.Value
	}
	return nil
}
