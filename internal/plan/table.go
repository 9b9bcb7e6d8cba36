package plan

import (
	"embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// The preference table: which strategies the planner tries, in which order,
// for which problems. The package doc describes the schema.

//go:embed table/*.tsv
var tableFS embed.FS

// Row is one preference: the regime it matches and the strategies it
// offers, in order, with the measurement that put them there.
type Row struct {
	ID     string
	Layout string   // "rows", "strided" or "*"
	Paths  []string // 16-byte path: rows vec, ragged, skewed, unaligned; strided packs, scalar; nil: any
	Dir    string   // "fwd", "bwd" or "*" ("ops": Ops)
	Ops    []spec.Op
	ESizes []int64 // element sizes in bytes; nil: any (or DTypes)
	DTypes []spec.DType
	Rows   Range    // Outer (unit s: SMs)
	Cols   Range    // Axis (unit p: elements a 16-byte pack)
	Inner  Range    // Inner
	Bytes  Range    // a row's input bytes: Axis × element size × inputs (2 backward)
	When   []Cond   // named conditions, all of which must hold
	Cands  []string // strategies (or strategy/config), in order
	// Shape marks a launch-shape row: its candidates are one strategy's
	// shapes (strategy/shape, shapeNames), which that strategy's build asks
	// for (ctx.shape); the choice of strategy skips it.
	Shape bool
	// Evidence names the measurement: a results file and section under
	// bench/results, or the rule the row stands for.
	Evidence string
	// cells keeps the row as written, for printing.
	cells []string
}

// Cond is a named condition of a row, negated with a leading "!", with
// integer arguments: "smem_fits(2)".
type Cond struct {
	Name string
	Not  bool
	Args []int64
	fn   condFunc
}

// Range is an inclusive range of a cell; a bound of 0 in Unit "" with Has
// false is open.
type Range struct {
	Lo, Hi       bound
	HasLo, HasHi bool
}

// bound is a number in a unit resolved per problem: "" (as is), "p"
// (elements a 16-byte pack) or "s" (the device's SMs).
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
	x := float64(v)
	return (!r.HasLo || x >= r.Lo.resolve(c)) && (!r.HasHi || x <= r.Hi.resolve(c))
}

// tableColumns are the columns of a table file, in order.
var tableColumns = []string{"id", "layout", "path", "dir", "esize", "rows", "cols", "inner", "bytes", "when", "candidates", "evidence"}

// Table is the preference table for one device model: the default rows
// with the model's overlay laid over them.
type Table struct {
	Model string // "" for the default table alone
	Rows  []Row
}

var tables struct {
	sync.Once
	def  []Row
	over map[string][]Row
	err  error
}

// loadTables parses the embedded tables once.
func loadTables() error {
	tables.Do(func() {
		tables.over = map[string][]Row{}
		entries, err := tableFS.ReadDir("table")
		if err != nil {
			tables.err = err
			return
		}
		for _, e := range entries {
			name := strings.TrimSuffix(e.Name(), ".tsv")
			b, err := tableFS.ReadFile("table/" + e.Name())
			if err == nil {
				var rows []Row
				rows, err = ParseTable(string(b))
				if name == "default" {
					tables.def = rows
				} else {
					tables.over[name] = rows
				}
			}
			if err != nil {
				tables.err = fmt.Errorf("plan: table %s: %w", e.Name(), err)
				return
			}
		}
	})
	return tables.err
}

// ModelOf returns the Models key of a device, by its name ("NVIDIA H200"
// is h200), or "" for a model the table has no overlay for.
func ModelOf(d Device) string {
	name := strings.ToLower(d.Name)
	for _, k := range ModelNames() {
		if strings.Contains(name, k) || strings.EqualFold(Models[k].Name, d.Name) {
			return k
		}
	}
	return ""
}

// TableFor returns the table for a device model (a Models key; "" or an
// unknown model: the default table, measured on an H200), with user
// (rows of a user overlay, such as the autotuner's) laid over it.
func TableFor(model string, user []Row) (Table, error) {
	if err := loadTables(); err != nil {
		return Table{}, err
	}
	t := Table{Model: model, Rows: overlay(tables.def, tables.over[model])}
	t.Rows = overlay(t.Rows, user)
	return t, nil
}

// overlay lays rows over base: a row with a base row's id replaces it in
// place; new rows go first, in their order.
func overlay(base, over []Row) []Row {
	if len(over) == 0 {
		return base
	}
	byID := map[string]Row{}
	for _, r := range over {
		byID[r.ID] = r
	}
	out := make([]Row, 0, len(base)+len(over))
	for _, r := range over {
		if !slices.ContainsFunc(base, func(b Row) bool { return b.ID == r.ID }) {
			out = append(out, r)
		}
	}
	for _, r := range base {
		if o, ok := byID[r.ID]; ok {
			r = o
		}
		out = append(out, r)
	}
	return out
}

// ParseTable parses a table file: tab-separated columns (tableColumns) under
// a header line naming them; blank lines and lines starting with # are
// skipped; "*" or "" is any value.
func ParseTable(text string) ([]Row, error) { return parseTable(text, true) }

// ParseOverlay is ParseTable for a user's overlay (the autotuner's): its
// header is required, and its candidates may name strategies this build
// does not have (such a row never serves).
func ParseOverlay(text string) ([]Row, error) {
	if !slices.Contains(strings.Split(strings.ReplaceAll(text, "\r", ""), "\n"), strings.Join(tableColumns, "\t")) {
		return nil, fmt.Errorf("no header line (%s)", strings.Join(tableColumns, ", "))
	}
	return parseTable(text, false)
}

// TableHeader is the header line of a table file.
func TableHeader() string { return strings.Join(tableColumns, "\t") }

func parseTable(text string, checkCands bool) ([]Row, error) {
	var rows []Row
	header := false
	seen := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(line, "\t")
		if !header {
			if strings.Join(cells, "\t") != strings.Join(tableColumns, "\t") {
				return nil, fmt.Errorf("line %d: header %q, want the columns %s", n+1, line, strings.Join(tableColumns, ", "))
			}
			header = true
			continue
		}
		r, err := parseRow(cells, checkCands)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("line %d: row %q twice", n+1, r.ID)
		}
		seen[r.ID] = true
		rows = append(rows, r)
	}
	return rows, nil
}

// parseRow parses a row's cells; checkCands refuses candidates that name
// no strategy (an autotuner's overlay may name a retired one: it then
// never serves).
func parseRow(cells []string, checkCands bool) (Row, error) {
	if len(cells) != len(tableColumns) {
		return Row{}, fmt.Errorf("%d cells, want %d (%s)", len(cells), len(tableColumns), strings.Join(tableColumns, ", "))
	}
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	r := Row{ID: cells[0], Layout: cell(cells[1]), Dir: cell(cells[3]), Evidence: cells[11], cells: cells}
	if r.ID == "" {
		return r, fmt.Errorf("a row without an id")
	}
	bad := func(col, v string) (Row, error) { return r, fmt.Errorf("row %s: %s %q", r.ID, col, v) }
	if r.Layout != "*" && r.Layout != "rows" && r.Layout != "strided" {
		return bad("layout", r.Layout)
	}
	if r.Dir != "*" && r.Dir != "fwd" && r.Dir != "bwd" {
		for _, name := range strings.Split(r.Dir, ",") {
			op, err := spec.ParseOp(name)
			if err != nil {
				return bad("dir", name)
			}
			r.Ops = append(r.Ops, op)
		}
		r.Dir = "ops"
	}
	if cell(cells[2]) != "*" {
		for _, p := range strings.Split(cells[2], ",") {
			if !validPath[p] {
				return bad("path", p)
			}
			r.Paths = append(r.Paths, p)
		}
	}
	if cell(cells[4]) != "*" {
		for _, s := range strings.Split(cells[4], ",") {
			if dt, err := spec.ParseDType(s); err == nil {
				r.DTypes = append(r.DTypes, dt)
				continue
			}
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v <= 0 {
				return bad("esize", s)
			}
			r.ESizes = append(r.ESizes, v)
		}
	}
	var err error
	for i, dst := range []*Range{&r.Rows, &r.Cols, &r.Inner, &r.Bytes} {
		if *dst, err = parseRange(cells[5+i]); err != nil {
			return bad(tableColumns[5+i], cells[5+i]+": "+err.Error())
		}
	}
	if cell(cells[9]) != "*" {
		for _, f := range strings.Fields(cells[9]) {
			k, err := parseCond(f)
			if err != nil {
				return bad("when", f+": "+err.Error())
			}
			r.When = append(r.When, k)
		}
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

// shapeNames are the launch shapes a strategy's build asks the table's
// shape rows for (ctx.shape; the package doc).
var shapeNames = map[kernels.Strategy][]string{
	kernels.WarpRow:   {"p1", "p2", "p3"},
	kernels.BlockReg:  {"few", "wide", "threads"},
	kernels.Strided:   {"twin"},
	kernels.SplitGrid: {"cached"},
}

// shapeArg returns the argument of shape x, "name(k)", if it is name's; 0
// otherwise.
func shapeArg(x, name string) int64 {
	k, ok := strings.CutPrefix(x, name+"(")
	v, err := strconv.ParseInt(strings.TrimSuffix(k, ")"), 10, 64)
	if !ok || err != nil {
		return 0
	}
	return v
}

// shape returns the first shape that fits (fits) of the shape rows for
// strategy s that match, in order; "" where none does. packs is the row's
// 16-byte packs as the lane_packs condition reads them.
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

var validPath = map[string]bool{"vec": true, "ragged": true, "skewed": true, "unaligned": true, "packs": true, "scalar": true}

func cell(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// parseRange reads "*", "N", "A..B", "A..", "..B", ">N", ">=N", "<N" or
// "<=N" (A..B inclusive but for ">A..B" and "A..<B"); N a number with an
// optional K or M (×1024, ×2^20) and unit p or s.
func parseRange(s string) (Range, error) {
	var r Range
	lo, hi, isRange := strings.Cut(s, "..")
	switch {
	case cell(s) == "*":
		return r, nil
	case isRange:
	case strings.HasPrefix(s, ">"):
		lo, hi = s, ""
	case strings.HasPrefix(s, "<"):
		lo, hi = "", s
	default:
		lo, hi = s, s
	}
	var err error
	if r.Lo, r.HasLo, err = parseEnd(lo, ">", +1); err != nil {
		return r, err
	}
	r.Hi, r.HasHi, err = parseEnd(hi, "<", -1)
	return r, err
}

// parseEnd reads one end of a range: "" (open), N, op N (exclusive) or
// op= N.
func parseEnd(s, op string, dir float64) (bound, bool, error) {
	if s == "" {
		return bound{}, false, nil
	}
	v, ex := strings.CutPrefix(s, op)
	if eq, ok := strings.CutPrefix(v, "="); ex && ok {
		v, ex = eq, false
	}
	b, err := parseBound(v)
	if ex {
		b = exclusive(b, dir)
	}
	return b, true, err
}

// exclusive moves a bound just past its value: for integers compared with a
// bound, V ± 1e-9 of its unit's scale excludes the value itself.
func exclusive(b bound, dir float64) bound {
	if b.Unit == "" {
		b.V += dir
	} else {
		b.V += dir * 1e-9
	}
	return b
}

func parseBound(s string) (bound, error) {
	var b bound
	if n := len(s); n > 0 && (s[n-1] == 'p' || s[n-1] == 's') {
		b.Unit, s = s[n-1:], s[:n-1]
	}
	mult := 1.0
	if n := len(s); n > 0 && (s[n-1] == 'K' || s[n-1] == 'M') {
		mult = map[byte]float64{'K': 1 << 10, 'M': 1 << 20}[s[n-1]]
		s = s[:n-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return b, fmt.Errorf("not a number")
	}
	b.V = v * mult
	return b, nil
}

func parseCond(s string) (Cond, error) {
	var k Cond
	if strings.HasPrefix(s, "!") {
		k.Not, s = true, s[1:]
	}
	name, args, hasArgs := strings.Cut(s, "(")
	k.Name = name
	if hasArgs {
		if !strings.HasSuffix(args, ")") {
			return k, fmt.Errorf("want name(args)")
		}
		for _, a := range strings.Split(strings.TrimSuffix(args, ")"), ",") {
			v, err := strconv.ParseInt(a, 10, 64)
			if err != nil {
				return k, fmt.Errorf("argument %q", a)
			}
			k.Args = append(k.Args, v)
		}
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

// path classifies the problem's 16-byte path as the table's path column
// names it.
func (c *ctx) path() string {
	p := c.p
	if p.Inner > 1 {
		if c.innerPacks() {
			return "packs"
		}
		return "scalar"
	}
	switch {
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
	if r.Layout != "*" && (r.Layout == "strided") != (p.Inner > 1) {
		return false
	}
	if (r.Dir == "fwd" || r.Dir == "bwd") && (r.Dir == "bwd") != c.bwd || r.Ops != nil && !slices.Contains(r.Ops, c.p.Op) {
		return false
	}
	if r.DTypes != nil && !slices.Contains(r.DTypes, c.dt) {
		return false
	}
	if r.Paths != nil && !slices.Contains(r.Paths, c.path()) {
		return false
	}
	if r.ESizes != nil && !slices.Contains(r.ESizes, c.es) {
		return false
	}
	if !r.Rows.has(c, p.Outer) || !r.Cols.has(c, p.Axis) || !r.Inner.has(c, p.Inner) || !r.Bytes.has(c, p.Axis*c.es*c.nin) {
		return false
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
	fmt.Fprintln(tw, strings.Join(tableColumns, "\t"))
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r.cells, "\t"))
	}
	return tw.Flush()
}
