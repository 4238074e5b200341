package main

import (
	"flag"
	"os"
	"strings"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
)

// sessionFlags are the flags of every command that touches datasets (sql,
// read, write, run): --catalog DIR and repeated --set k=v (docs/cli.md#conventions).
type sessionFlags struct {
	catalogDir string
	sets       *kvFlag
}

func (o *sessionFlags) register(fs *flag.FlagSet) {
	o.sets = &kvFlag{name: "set"}
	fs.StringVar(&o.catalogDir, "catalog", "", "catalog `DIR` (default: $SLUICE_CATALOG, else .sluice/catalog)")
	fs.Var(o.sets, "set", "session setting `k=v`, as SQL SET (repeatable)")
}

// catalogDirFor resolves the catalog directory: the flag, else
// fallback (a pipeline's own catalog:, may be empty), else $SLUICE_CATALOG,
// else .sluice/catalog under the working directory.
func (o *sessionFlags) catalogDirFor(env *cliEnv, fallback string) (string, error) {
	dir := o.catalogDir
	if dir == "" {
		dir = fallback
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	getenv := env.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return catalog.ResolveDir(dir, getenv, wd), nil
}

// open opens the catalog and a session on it with the --set settings
// applied; CONSOLE logging goes to the command's stderr.
func (o *sessionFlags) open(env *cliEnv) (*catalog.Session, error) {
	dir, err := o.catalogDirFor(env, "")
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Open(dir)
	if err != nil {
		return nil, err
	}
	s := catalog.NewSession(cat)
	s.SetLogOutput(env.stderr)
	if err := o.apply(s); err != nil {
		return nil, err
	}
	return s, nil
}

// apply sets the --set pairs on s, in order.
func (o *sessionFlags) apply(s *catalog.Session) error {
	if o.sets == nil {
		return nil
	}
	for _, p := range o.sets.pairs {
		if err := s.Set(p[0], p[1]); err != nil {
			return usagef("--set %s: %w", p[0], err)
		}
	}
	return nil
}

// sourceFlags name a dataset outside the catalog or add to a catalog
// table's properties: --type T (USER mode with the --prop properties) and
// repeated --prop k=v (runtime properties without --type).
type sourceFlags struct {
	typ   string
	props *kvFlag
}

func (o *sourceFlags) register(fs *flag.FlagSet) {
	o.props = &kvFlag{name: "prop"}
	fs.StringVar(&o.typ, "type", "", "connector `TYPE` (RESTAPI, PARQUET, …): read NAME in USER mode from the --prop properties instead of the catalog")
	fs.Var(o.props, "prop", "dataset property `k=v` (repeatable); without --type, a runtime property over the catalog table's")
}

// runtimeProps are the props for Session.Read/Write of name: with --type a
// `<name>.dataSetProperties` entry (USER mode), else the --prop pairs as
// runtime properties.
func (o *sourceFlags) runtimeProps(name string) (map[string]any, error) {
	props := map[string]any{}
	if strings.TrimSpace(o.typ) == "" {
		if o.typ != "" {
			return nil, usagef("--type is empty")
		}
		for k, v := range o.props.Map() {
			props[k] = v
		}
		return props, nil
	}
	dsp := connectors.DataSetProperties{Type: strings.TrimSpace(o.typ), Props: o.props.Map()}
	if _, err := connectors.Lookup(dsp.Type); err != nil {
		return nil, usagef("--type: %w", err)
	}
	props[name+catalog.DataSetPropertiesSuffix] = dsp
	return props, nil
}
