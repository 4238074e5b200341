package catalog

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe/query"
)

// view is a temporary view: a name for a query, kept by the session and
// analysed where a query names it (see docs/sql.md#views).
type view struct {
	name    string
	columns []string
	q       query.Query
}

// globalTemp is the namespace of GLOBAL TEMPORARY views, as Spark's.
const globalTemp = "global_temp"

// viewKey is a view's key: its lower-case name, under global_temp. for a
// GLOBAL one.
func viewKey(name string, global bool) string {
	if global {
		return globalTemp + "." + strings.ToLower(name)
	}
	return strings.ToLower(name)
}

// View returns the query a temporary view stands for and its column names
// (nil: the query's own); ok is false when name is not a view. Views have
// one-part names (global_temp.v for a GLOBAL one) and are found before
// catalog tables of that name.
func (s *Session) View(name []string) (q query.Query, columns []string, ok bool) {
	if s == nil || len(name) == 0 || len(name) > 2 || len(name) == 2 && !strings.EqualFold(name[0], globalTemp) {
		return nil, nil, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.views[viewKey(name[len(name)-1], len(name) == 2)]
	if !ok {
		return nil, nil, false
	}
	return v.q, v.columns, true
}

// Views lists the temporary views' names, sorted.
func (s *Session) Views() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.views))
	for k, v := range s.views {
		if strings.HasPrefix(k, globalTemp+".") {
			continue // SHOW TABLES IN global_temp would list them
		}
		out = append(out, v.name)
	}
	sort.Strings(out)
	return out
}

// execCreateView checks the view's query (it must plan with the view in
// place — a view that names itself is refused — and give as many columns
// as the column list names) and keeps it.
func (s *Session) execCreateView(ctx context.Context, x *sqlparse.CreateView) error {
	key := viewKey(x.Name, x.Global)
	ref := []string{x.Name}
	if x.Global {
		ref = []string{globalTemp, x.Name}
	}
	s.mu.Lock()
	old, exists := s.views[key]
	switch {
	case exists && x.IfNotExists:
		s.mu.Unlock()
		return nil
	case exists && !x.Replace:
		s.mu.Unlock()
		return fmt.Errorf("temporary view %s already exists (use CREATE OR REPLACE TEMPORARY VIEW)", x.Name)
	}
	if s.views == nil {
		s.views = map[string]*view{}
	}
	s.views[key] = &view{name: x.Name, columns: x.Columns, q: x.Query}
	s.mu.Unlock()
	fail := func(err error) error {
		s.mu.Lock()
		if exists {
			s.views[key] = old
		} else {
			delete(s.views, key)
		}
		s.mu.Unlock()
		return fmt.Errorf("view %s: %w", x.Name, err)
	}
	plan, release, err := s.compileQuery(ctx, &query.Select{
		Items: []query.SelectItem{{Expr: &query.Star{}}},
		From:  &query.TableRef{Name: ref},
	})
	if err != nil {
		return fail(err)
	}
	width := plan.Schema().NumFields()
	release()
	if x.Columns != nil && len(x.Columns) != width {
		return fail(fmt.Errorf("the column list names %d columns but the query gives %d", len(x.Columns), width))
	}
	return nil
}

func (s *Session) execDropView(x *sqlparse.DropView) error {
	key := viewKey(x.Name, x.Global)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.views[key]; !ok {
		if x.IfExists {
			return nil
		}
		return fmt.Errorf("temporary view %s does not exist", x.Name)
	}
	delete(s.views, key)
	return nil
}

// viewsOf is the view lookup of a table reader, when it has one (a
// Session).
func viewsOf(r TableReader) (func(name []string) (query.Query, []string, bool), bool) {
	v, ok := r.(interface {
		View(name []string) (query.Query, []string, bool)
	})
	if !ok || isNilReader(r) {
		return nil, false
	}
	return v.View, true
}

// View implements query.ViewResolver: the session's temporary views.
func (r *sessionTables) View(name []string) (query.Query, []string, bool) {
	if v, ok := viewsOf(r.s); ok {
		return v(name)
	}
	return nil, nil, false
}

// View implements query.ViewResolver: a frame's name wins over a view's.
func (r *frameTables) View(name []string) (query.Query, []string, bool) {
	if len(name) == 1 {
		if _, ok := r.frames[strings.ToLower(name[0])]; ok {
			return nil, nil, false
		}
	}
	if r.session == nil {
		return nil, nil, false
	}
	return r.session.View(name)
}
