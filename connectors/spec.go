package connectors

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sluicedata/sluice/internal/duration"
	"github.com/sluicedata/sluice/internal/propref"
	"github.com/sluicedata/sluice/internal/suggest"
)

// Kind is the type of a property's value.
type Kind string

// The kinds of property values. Every kind accepts an unset or blank value
// (the default applies).
const (
	KindString   Kind = "string"
	KindInt      Kind = "int"      // a base-10 integer, at least Min
	KindDecimal  Kind = "decimal"  // a non-negative decimal number
	KindBool     Kind = "bool"     // true or false
	KindDuration Kind = "duration" // Go (10s) or ISO-8601 (PT10S)
	KindEnum     Kind = "enum"     // one of Enum, any case
	KindJSON     Kind = "json"     // JSON text; {tokens} are resolved before it is parsed
	KindList     Kind = "list"     // a comma list
)

// PropertySpec declares one property of a connector: the single place its
// name, type, default, secrecy and meaning are written. Validation,
// redaction, DESCRIBE and docs/properties.md are derived from it.
type PropertySpec struct {
	// Name is the full property name, or with Family the prefix of a family
	// of names (svc.restapi.header. for svc.restapi.header.<Name>).
	Name string
	// Family makes Name a prefix: every name under it is this property.
	Family bool
	// Kind is the type of the value. Defaults to string.
	Kind Kind
	// Default is the value an unset property takes, as text. Defaults to none.
	Default string
	// Min is the smallest value of an int property. Defaults to 0.
	Min int64
	// Enum lists the values of an enum property (matched in any case).
	Enum []string
	// Secret marks a value that never appears in output: it prints as ***.
	Secret bool
	// SecretByName makes a family member secret when its own name looks
	// like a secret's (key, token, secret, password, auth).
	SecretByName bool
	// Doc says what the property means, in one or two sentences.
	Doc string
}

// docName is the name as the docs print it.
func (s *PropertySpec) docName() string {
	if s.Family {
		return s.Name + "<name>"
	}
	return s.Name
}

// PropertySet is a connector's declaration of its properties.
type PropertySet struct {
	// Connector is the connector type the set belongs to (RESTAPI).
	Connector string
	// Prefix is the prefix every property of the connector starts with
	// (svc.restapi.).
	Prefix string
	// Open admits names under Prefix that are not declared (RESTAPI's
	// substitution values such as svc.restapi.baseURL), except under a
	// StrictPrefix and within edit distance 2 of a declared name.
	Open bool
	// StrictPrefixes are prefixes (after Prefix) that admit only declared
	// names even in an open set: paginate., auth., …
	StrictPrefixes []string
	// Specs are the properties, in the order the docs list them.
	Specs []PropertySpec

	once   sync.Once
	byName map[string]*PropertySpec
}

// Describer is implemented by connectors that declare their properties.
type Describer interface {
	Properties() *PropertySet
}

func (s *PropertySet) index() {
	s.once.Do(func() {
		s.byName = make(map[string]*PropertySpec, len(s.Specs))
		for i := range s.Specs {
			if !s.Specs[i].Family {
				s.byName[s.Specs[i].Name] = &s.Specs[i]
			}
		}
	})
}

// Lookup returns the declaration of name: an exact name, or the family it
// belongs to.
func (s *PropertySet) Lookup(name string) (*PropertySpec, bool) {
	s.index()
	if sp, ok := s.byName[name]; ok {
		return sp, true
	}
	var best *PropertySpec
	for i := range s.Specs {
		sp := &s.Specs[i]
		if sp.Family && strings.HasPrefix(name, sp.Name) && len(name) > len(sp.Name) {
			if best == nil || len(sp.Name) > len(best.Name) {
				best = sp
			}
		}
	}
	return best, best != nil
}

// Spec returns the declaration of a declared name; it panics on a name the
// set does not declare (a programming error, caught by every test).
func (s *PropertySet) Spec(name string) *PropertySpec {
	sp, ok := s.Lookup(name)
	if !ok {
		panic("connectors: property " + name + " is not declared")
	}
	return sp
}

// IsSecret reports whether the value of name is a secret by this set's
// declaration; declared says whether the set declares name at all.
func (s *PropertySet) IsSecret(name string) (secret, declared bool) {
	sp, ok := s.Lookup(name)
	if !ok && !s.Open && strings.HasPrefix(name, s.Prefix) {
		// A misspelling in a closed set is as secret as the name it
		// misspells (merge_key is not, passwrd is), so an error naming it
		// is not garbled by masking its value, nor its value shown.
		names := make([]string, 0, len(s.Specs))
		for _, sp := range s.Specs {
			if !sp.Family {
				names = append(names, sp.Name)
			}
		}
		if near, found := suggest.Closest(name, names); found {
			sp, ok = s.Lookup(near)
		}
	}
	if !ok {
		return false, false
	}
	if sp.Secret {
		return true, true
	}
	if sp.SecretByName {
		member := strings.TrimPrefix(name, sp.Name)
		return looksSecret(member) || strings.Contains(strings.ToLower(member), "auth"), true
	}
	return false, true
}

// Value returns the value of name in p, or its declared default when it is
// unset or blank.
func (s *PropertySet) Value(p Props, name string) string {
	if v, ok := p[name]; ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v)
	}
	return s.Spec(name).Default
}

// Int returns an int property's value (or default), checked against Min.
func (s *PropertySet) Int(p Props, name string) (int64, error) {
	sp := s.Spec(name)
	def, _ := strconv.ParseInt(sp.Default, 10, 64)
	return p.Int(name, def, sp.Min)
}

// Bool returns a bool property's value (or default).
func (s *PropertySet) Bool(p Props, name string) (bool, error) {
	def, _ := strconv.ParseBool(s.Spec(name).Default)
	return p.Bool(name, def)
}

// Duration returns a duration property's value (or default).
func (s *PropertySet) Duration(p Props, name string) (time.Duration, error) {
	sp := s.Spec(name)
	var def time.Duration
	if sp.Default != "" {
		def, _ = duration.Parse(sp.Default)
	}
	return p.Duration(name, def)
}

// Decimal returns a decimal property's value (or default; 0 when none).
func (s *PropertySet) Decimal(p Props, name string) (float64, error) {
	v := s.Value(p, name)
	if v == "" {
		return 0, nil
	}
	return parseDecimal(name, v)
}

// Enum returns an enum property's value (or default) as declared in Enum.
func (s *PropertySet) Enum(p Props, name string) (string, error) {
	sp := s.Spec(name)
	v := s.Value(p, name)
	if v == "" {
		return "", nil
	}
	return matchEnum(sp, v)
}

func parseDecimal(name, v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f != f || f < 0 || f > 1e15 {
		return 0, fmt.Errorf("property %s: %q is not a non-negative decimal number", name, v)
	}
	return f, nil
}

func matchEnum(sp *PropertySpec, v string) (string, error) {
	for _, e := range sp.Enum {
		if strings.EqualFold(strings.TrimSpace(v), e) {
			return e, nil
		}
	}
	return "", fmt.Errorf("property %s: %q is not one of %s", sp.Name, v, strings.Join(sp.Enum, ", "))
}

// checkValue checks a set value against its declared kind.
func (sp *PropertySpec) checkValue(name, v string) error {
	if strings.TrimSpace(v) == "" || propref.Has(v) {
		return nil // a reference is checked once resolved, at read or write
	}
	p := Props{name: v}
	var err error
	switch sp.Kind {
	case KindInt:
		_, err = p.Int(name, 0, sp.Min)
	case KindBool:
		_, err = p.Bool(name, false)
	case KindDuration:
		_, err = p.Duration(name, 0)
	case KindDecimal:
		_, err = parseDecimal(name, v)
	case KindEnum:
		_, err = matchEnum(&PropertySpec{Name: name, Enum: sp.Enum}, v)
	case KindJSON:
		// {tokens} are resolved at read time, then the text is parsed;
		// only text without tokens can be checked now.
		if !strings.Contains(v, "{svc.") && !json.Valid([]byte(v)) {
			err = fmt.Errorf("property %s: the value is not valid JSON", name)
		}
	}
	return err
}

// ErrUnknownProperty is returned (wrapped) for a misspelt or undeclared
// property name.
var ErrUnknownProperty = fmt.Errorf("unknown property")

// Validate checks the set's properties in p: each value against its kind,
// and each name under Prefix against the declaration. A name that is not
// declared is an error under a strict prefix, in a closed set, or within
// edit distance 2 of a declared name (did you mean …?) — unless it is used
// as a {token} by a value of p (a substitution value). Errors are joined,
// one per property, in name order. Values are never quoted for secrets.
func (s *PropertySet) Validate(p Props) error {
	names := make([]string, 0, len(p))
	for k := range p {
		if strings.HasPrefix(k, s.Prefix) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var tokens map[string]bool
	var errs []error
	for _, k := range names {
		sp, ok := s.Lookup(k)
		if ok {
			if err := sp.checkValue(k, p[k]); err != nil {
				if secret, _ := s.IsSecret(k); secret {
					err = fmt.Errorf("property %s: the value is not a valid %s", k, sp.Kind)
				}
				errs = append(errs, err)
			}
			continue
		}
		if tokens == nil {
			tokens = TokensIn(p)
		}
		if err := s.checkUnknown(k, tokens[k]); err != nil {
			errs = append(errs, err)
		}
	}
	return JoinErrors(errs)
}

// Unresolved returns p as checks made before its ${env:…}/${file:…}
// references are resolved (CREATE TABLE) should see it: a referenced value
// of a typed property (int, bool, duration, decimal, enum, json) takes its
// declared default, since its value is known only once resolved; other
// values stay as written (a reference stands for a string as well as the
// string does). complete is false when a typed reference has no default:
// the checks of values can then only run at read or write.
func (s *PropertySet) Unresolved(p Props) (out Props, complete bool) {
	out, complete = p, true
	cloned := false
	for k, v := range p {
		if !strings.HasPrefix(k, s.Prefix) || !propref.Has(v) {
			continue
		}
		sp, ok := s.Lookup(k)
		if !ok || sp.Kind == "" || sp.Kind == KindString || sp.Kind == KindList {
			continue
		}
		if !cloned {
			out, cloned = p.Clone(), true
		}
		if sp.Default == "" {
			complete = false
			delete(out, k)
			continue
		}
		out[k] = sp.Default
	}
	return out, complete
}

func (s *PropertySet) checkUnknown(name string, isToken bool) error {
	rest := strings.TrimPrefix(name, s.Prefix)
	strict := !s.Open
	for _, sp := range s.StrictPrefixes {
		if strings.HasPrefix(rest, sp) {
			strict = true
		}
	}
	if isToken && !strict {
		return nil
	}
	sugg := s.Suggest(name)
	switch {
	case sugg != "":
		return fmt.Errorf("%w %s (did you mean %s?)", ErrUnknownProperty, name, sugg)
	case strict:
		return fmt.Errorf("%w %s (see docs/properties.md for the %s properties)", ErrUnknownProperty, name, s.Connector)
	}
	return nil
}

// Suggest returns the declared name closest to name within edit distance 2
// (a family member keeps its own suffix), or "".
func (s *PropertySet) Suggest(name string) string {
	best, bestD := "", 3
	for i := range s.Specs {
		sp := &s.Specs[i]
		if !sp.Family {
			if d := suggest.Distance(name, sp.Name, bestD); d < bestD {
				best, bestD = sp.Name, d
			}
			continue
		}
		// svc.restapi.heder.Authorization → svc.restapi.header.Authorization
		for j := 1; j < len(name); j++ {
			if name[j-1] != '.' || j < len(sp.Name)-2 || j > len(sp.Name)+2 {
				continue
			}
			if d := suggest.Distance(name[:j], sp.Name, bestD); d < bestD {
				best, bestD = sp.Name+name[j:], d
			}
		}
	}
	return best
}

// TokensIn returns the {token} names used in any value of p.
func TokensIn(p Props) map[string]bool {
	out := map[string]bool{}
	for _, v := range p {
		for {
			open := strings.IndexByte(v, '{')
			if open < 0 {
				break
			}
			end := strings.IndexByte(v[open+1:], '}')
			if end < 0 {
				break
			}
			out[v[open+1:open+1+end]] = true
			v = v[open+1+end+1:]
		}
	}
	return out
}

// JoinErrors keeps several property errors on one line (the CLI prints one
// line per failure) while errors.Is/As still see each of them. nil when
// errs is empty.
func JoinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return &multiError{msg: strings.Join(msgs, "; "), errs: errs}
}

type multiError struct {
	msg  string
	errs []error
}

func (e *multiError) Error() string   { return e.msg }
func (e *multiError) Unwrap() []error { return e.errs }

// PropertySets returns the declarations of every registered connector that
// has one, sorted by connector name.
func PropertySets() []*PropertySet {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var out []*PropertySet
	for _, c := range registry {
		if d, ok := c.(Describer); ok {
			out = append(out, d.Properties())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Connector < out[j].Connector })
	return out
}

// WritePropertiesMarkdown writes the reference of every declared property
// of the registered connectors: docs/properties.md is this output.
func WritePropertiesMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Connector properties\n\n")
	b.WriteString("Generated from the connectors' property declarations (`go test ./connectors/all -run TestPropertiesDoc -update`); do not edit by hand.\n")
	b.WriteString("Session settings (`SET`, `--set`) and runtime properties (`--prop`) accept the same names; precedence: session > runtime > table > default.\n")
	b.WriteString("Secret values print as `***` in every output, log and error.\n")
	for _, s := range PropertySets() {
		fmt.Fprintf(&b, "\n## %s\n\n", s.Connector)
		if s.Open {
			fmt.Fprintf(&b, "Any other `%s<name>` is a substitution value for `{%s<name>}` tokens in URL patterns and bodies (secret when its name contains key, token, secret or password). ", s.Prefix, s.Prefix)
			fmt.Fprintf(&b, "Names under `%s` and names within edit distance 2 of a property below are rejected unless used as a token.\n\n", strings.Join(prefixed(s.Prefix, s.StrictPrefixes), "`, `"))
		} else {
			fmt.Fprintf(&b, "Names under `%s` other than these are rejected.\n\n", s.Prefix)
		}
		b.WriteString("| Property | Type | Default | Secret | Meaning |\n|---|---|---|---|---|\n")
		for i := range s.Specs {
			sp := &s.Specs[i]
			kind := string(sp.Kind)
			if kind == "" {
				kind = string(KindString)
			}
			if sp.Kind == KindEnum {
				kind = strings.Join(sp.Enum, " \\| ")
			}
			if sp.Kind == KindInt && sp.Min != 0 {
				kind += fmt.Sprintf(" ≥ %d", sp.Min)
			}
			def := "—"
			if sp.Default != "" {
				def = "`" + sp.Default + "`"
			}
			secret := ""
			switch {
			case sp.Secret:
				secret = "yes"
			case sp.SecretByName:
				secret = "by name"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", sp.docName(), kind, def, secret, strings.ReplaceAll(sp.Doc, "|", "\\|"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}
