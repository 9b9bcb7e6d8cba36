package plan

import (
	"cmp"
	"embed"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/tsv"
)

//go:embed table/*.tsv
var tableFS embed.FS

// Row is one preference of the table (the package doc's schema).
type Row struct {
	ID       string
	Layout   string   // "rows", "strided" or "*"
	Paths    []string // nil: any
	Dir      string   // "fwd", "bwd", "*" or "ops" (Ops)
	Ops      []spec.Op
	ESizes   []int64 // nil: any (or DTypes)
	DTypes   []spec.DType
	Ranges   [4]Range // rows (Outer), cols (Axis), inner, bytes (a row's inputs)
	When     []Cond
	Cands    []string
	Shape    bool // a launch-shape row: the choice of strategy skips it (ctx.shape)
	Evidence string
	cells    []string // as written, for printing
}

// Cond is a named condition of a row: "!smem_fits(2)".
type Cond struct {
	Name string
	Not  bool
	Args []int64
	fn   condFunc
}

// Range is an inclusive range of a cell; open ends are infinite.
type Range struct{ Lo, Hi bound }

// bound is a number in a unit resolved per problem: "", "p" or "s".
type bound struct {
	V    float64
	Unit string
}

func (b bound) resolve(c *ctx) float64 {
	switch b.Unit {
	case "p":
		return b.V * float64(c.P)
	case "s":
		return b.V * float64(c.d.SMs)
	}
	return b.V
}

func (r Range) has(c *ctx, v int64) bool {
	return float64(v) >= r.Lo.resolve(c) && float64(v) <= r.Hi.resolve(c)
}

var tableColumns = []string{"id", "layout", "path", "dir", "esize", "rows", "cols", "inner", "bytes", "when", "candidates", "evidence"}

// Table is the preference table for one device model, overlays applied.
type Table struct {
	Rows []Row
}

// loadTables parses the embedded tables once, by file name without ".tsv".
var loadTables = sync.OnceValues(func() (map[string][]Row, error) {
	out := map[string][]Row{}
	entries, _ := tableFS.ReadDir("table") // embedded: it is there
	for _, e := range entries {
		b, _ := tableFS.ReadFile("table/" + e.Name())
		rows, err := ParseTable(string(b))
		if err != nil {
			return nil, fmt.Errorf("plan: table %s: %w", e.Name(), err)
		}
		out[strings.TrimSuffix(e.Name(), ".tsv")] = rows
	}
	return out, nil
})

// ModelOf returns the Models key of a device, by its name, or "" if none.
func ModelOf(d Device) string {
	name := strings.ToLower(d.Name)
	for _, k := range ModelNames() {
		if strings.Contains(name, k) || strings.EqualFold(Models[k].Name, d.Name) {
			return k
		}
	}
	return ""
}

// TableFor returns the table for a device model (a Models key; "": the
// default table), with user's rows (the autotuner's) laid over it.
func TableFor(model string, user []Row) (Table, error) {
	t, err := loadTables()
	if err != nil {
		return Table{}, err
	}
	return Table{Rows: overlay(overlay(t["default"], t[model]), user)}, nil
}

// overlay lays rows over base: one with a base row's id in its place, new ones first.
func overlay(base, over []Row) []Row {
	if len(over) == 0 {
		return base
	}
	out, fresh := slices.Clone(base), []Row(nil)
	for _, r := range over {
		if i := slices.IndexFunc(out, func(b Row) bool { return b.ID == r.ID }); i >= 0 {
			out[i] = r
		} else {
			fresh = append(fresh, r)
		}
	}
	return append(fresh, out...)
}

// ParseTable parses a table file (the package doc's schema).
func ParseTable(text string) ([]Row, error) { return parseTable(text, true) }

// ParseOverlay is ParseTable for a user's overlay, whose candidates may
// name strategies this build lacks (such a row never serves).
func ParseOverlay(text string) ([]Row, error) { return parseTable(text, false) }

// TableHeader is the header line of a table file.
func TableHeader() string { return strings.Join(tableColumns, "\t") }

func parseTable(text string, checkCands bool) ([]Row, error) {
	var rows []Row
	err := tsv.Rows(text, tableColumns, func(cells []string) error {
		r, err := parseRow(cells, checkCands)
		if err == nil && slices.ContainsFunc(rows, func(o Row) bool { return o.ID == r.ID }) {
			err = fmt.Errorf("row %q twice", r.ID)
		}
		rows = append(rows, r)
		return err
	})
	return rows, err
}

// parseRow parses a row's cells; checkCands refuses unknown strategies.
func parseRow(cells []string, checkCands bool) (Row, error) {
	r := Row{ID: cells[0], Layout: cmp.Or(cells[1], "*"), Dir: cmp.Or(cells[3], "*"), Evidence: cells[11], cells: cells}
	bad := func(col, v string) (Row, error) { return r, fmt.Errorf("row %s: %s %q", r.ID, col, v) }
	if r.ID == "" {
		return r, fmt.Errorf("a row without an id")
	}
	if !slices.Contains([]string{"*", "rows", "strided"}, r.Layout) {
		return bad("layout", r.Layout)
	}
	if !slices.Contains([]string{"*", "fwd", "bwd"}, r.Dir) {
		for _, name := range strings.Split(r.Dir, ",") {
			op, err := spec.ParseOp(name)
			if err != nil {
				return bad("dir", name)
			}
			r.Ops = append(r.Ops, op)
		}
		r.Dir = "ops"
	}
	for _, p := range list(cells[2], ",") {
		if !slices.Contains([]string{"vec", "ragged", "skewed", "unaligned", "packs", "scalar"}, p) {
			return bad("path", p)
		}
		r.Paths = append(r.Paths, p)
	}
	for _, s := range list(cells[4], ",") {
		if dt, err := spec.ParseDType(s); err == nil {
			r.DTypes = append(r.DTypes, dt)
		} else if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			r.ESizes = append(r.ESizes, v)
		} else {
			return bad("esize", s)
		}
	}
	var err error
	for i := range r.Ranges {
		if r.Ranges[i], err = parseRange(cells[5+i]); err != nil {
			return bad(tableColumns[5+i], cells[5+i]+": "+err.Error())
		}
	}
	for _, f := range list(cells[9], " ") {
		k, err := parseCond(f)
		if err != nil {
			return bad("when", f+": "+err.Error())
		}
		r.When = append(r.When, k)
	}
	shapes := 0
	first, _, _ := strings.Cut(cells[10], ConfigSep)
	for _, s := range strings.Split(cells[10], ",") {
		name, config, _ := strings.Cut(s, ConfigSep)
		if _, err := kernels.ParseStrategy(name); err != nil && checkCands {
			return bad("candidates", s)
		}
		if shape, _, _ := strings.Cut(config, "("); name == first && slices.Contains(shapeNames[kernels.Strategy(name)], shape) {
			shapes++
		}
		r.Cands = append(r.Cands, s)
	}
	if r.Shape = shapes > 0; r.Shape && shapes < len(r.Cands) {
		return bad("candidates", cells[10]+": a launch-shape row offers shapes of one strategy only")
	}
	return r, nil
}

// shapeNames are the launch shapes a strategy's build asks the table for.
var shapeNames = map[kernels.Strategy][]string{
	kernels.WarpRow:   {"p1", "p2", "p3"},
	kernels.BlockReg:  {"few", "wide", "threads"},
	kernels.Strided:   {"twin"},
	kernels.SplitGrid: {"cached"},
}

// shapeArg returns the argument k of shape x if x is "name(k)", else 0.
func shapeArg(x, name string) int64 {
	k, ok := strings.CutPrefix(x, name+"(")
	v, err := strconv.ParseInt(strings.TrimSuffix(k, ")"), 10, 64)
	if !ok || err != nil {
		return 0
	}
	return v
}

// shape returns the first fitting shape of s's matching shape rows ("" if
// none); packs is what lane_packs reads.
func (c *ctx) shape(s kernels.Strategy, packs int64, fits func(string) bool) string {
	if c.shapes == nil {
		t, err := TableFor(ModelOf(c.d), nil) // forced plans: the shipped table
		if err != nil {
			return ""
		}
		c.shapes = t.Rows
	}
	defer func(outer int64) { c.lanePacks = outer }(c.lanePacks) // shape asks may nest
	c.lanePacks = packs
	for i := range c.shapes {
		r := &c.shapes[i]
		if !r.Shape || !strings.HasPrefix(r.Cands[0], string(s)+ConfigSep) || !c.matches(r) {
			continue
		}
		for _, cand := range r.Cands {
			if _, x, _ := strings.Cut(cand, ConfigSep); fits(x) {
				return x
			}
		}
	}
	return ""
}

// list splits a cell of several values; "*" or "" is none.
func list(s, sep string) []string {
	if s == "*" || s == "" {
		return nil
	}
	return strings.Split(s, sep)
}

// parseRange reads a range cell: "*", N, A..B, A.., ..B, >N, >=N, <N or <=N.
func parseRange(s string) (Range, error) {
	r := Range{bound{V: math.Inf(-1)}, bound{V: math.Inf(1)}}
	lo, hi, isRange := strings.Cut(s, "..") // >N: lo alone
	switch {
	case s == "*" || s == "":
		return r, nil
	case !isRange && s[0] == '<':
		lo, hi = "", s
	case !isRange && s[0] != '>':
		hi = s
	}
	var err error
	if lo != "" {
		r.Lo, err = parseEnd(lo, ">", 1)
	}
	if hi != "" && err == nil {
		r.Hi, err = parseEnd(hi, "<", -1)
	}
	return r, err
}

// parseEnd reads one end of a range: N, op=N, or opN (just past N).
func parseEnd(s, op string, dir float64) (bound, error) {
	v, ex := strings.CutPrefix(s, op)
	if eq, ok := strings.CutPrefix(v, "="); ex && ok {
		v, ex = eq, false
	}
	b, err := parseBound(v)
	if ex && b.Unit == "" {
		b.V += dir
	} else if ex {
		b.V += dir * 1e-9
	}
	return b, err
}

// parseBound reads a number with an optional K or M and unit p or s.
func parseBound(s string) (bound, error) {
	var b bound
	if n := len(s); n > 0 && (s[n-1] == 'p' || s[n-1] == 's') {
		b.Unit, s = s[n-1:], s[:n-1]
	}
	mult := 1.0
	for suffix, m := range map[string]float64{"K": 1 << 10, "M": 1 << 20} {
		if t, ok := strings.CutSuffix(s, suffix); ok {
			s, mult = t, m
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return b, fmt.Errorf("not a number")
	}
	b.V = v * mult
	return b, nil
}

func parseCond(s string) (Cond, error) {
	rest, not := strings.CutPrefix(s, "!")
	name, args, hasArgs := strings.Cut(rest, "(")
	k := Cond{Name: name, Not: not}
	if hasArgs && !strings.HasSuffix(args, ")") {
		return k, fmt.Errorf("want name(args)")
	}
	for _, a := range list(strings.TrimSuffix(args, ")"), ",") {
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return k, fmt.Errorf("argument %q", a)
		}
		k.Args = append(k.Args, v)
	}
	nc, ok := conditions[name]
	if !ok {
		return k, fmt.Errorf("no named condition %q", name)
	}
	if len(k.Args) != nc.args {
		return k, fmt.Errorf("%s takes %d arguments", name, nc.args)
	}
	k.fn = nc.fn
	return k, nil
}

// path names the problem's 16-byte path as the table's path column does.
func (c *ctx) path() string {
	p := c.p
	switch {
	case p.Inner > 1 && c.innerPacks():
		return "packs"
	case p.Inner > 1:
		return "scalar"
	case c.vec():
		return "vec"
	case p.Aligned:
		return "ragged"
	case p.Skew != 0 && p.Outer > 1:
		return "skewed"
	}
	return "unaligned"
}

// matches reports whether row r applies to the problem.
func (c *ctx) matches(r *Row) bool {
	p := c.p
	switch {
	case r.Layout != "*" && (r.Layout == "strided") != (p.Inner > 1),
		(r.Dir == "fwd" || r.Dir == "bwd") && (r.Dir == "bwd") != c.bwd,
		r.Ops != nil && !slices.Contains(r.Ops, p.Op),
		r.DTypes != nil && !slices.Contains(r.DTypes, c.dt),
		r.Paths != nil && !slices.Contains(r.Paths, c.path()),
		r.ESizes != nil && !slices.Contains(r.ESizes, c.es):
		return false
	}
	for i, v := range [4]int64{p.Outer, p.Axis, p.Inner, p.Axis * c.es * c.nin} {
		if !r.Ranges[i].has(c, v) {
			return false
		}
	}
	for _, k := range r.When {
		if k.fn(c, k.Args) == k.Not {
			return false
		}
	}
	return true
}

// Print writes the table as aligned columns, one row a line.
func (t Table) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, TableHeader())
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r.cells, "\t"))
	}
	return tw.Flush()
}
