// Package plan turns a problem (Outer × Axis × Inner layout, dtype, op,
// pointer alignment) and the device's properties into a kernel strategy and
// its launches. It is pure: the driver's occupancy and cluster queries are
// injected (else estimated from the per-architecture resource table), so
// every choice is tested on the CPU with device models (Models).
//
// Each strategy's build (build*.go) says whether it serves the problem and
// with which launches; a forced strategy (--algo, optionally with one of its
// Configs) goes straight to it. The automatic choice is data: table/*.tsv
// (default rows, an overlay per device model, the caller's
// Queries.Overlay). Matching rows offer their candidates in order; the first
// whose build serves is the plan, its Reason the row's id and evidence.
//
// # Schema
//
// One row a line, tab-separated, under a header naming the columns; lines
// starting with # are comments; "*" (or an empty cell) matches anything.
//
//	id          unique name; an overlay row with a shipped id replaces that
//	            row in place, a new id goes ahead of the shipped rows
//	layout      rows (Inner = 1) or strided (Inner > 1)
//	path        the 16-byte path, comma-separated: rows vec (aligned, whole
//	            packs, or one row), ragged (aligned, not whole packs), skewed
//	            (Problem.Skew) or unaligned; strided packs (aligned, Inner of
//	            whole packs) or scalar
//	dir         fwd or bwd, or op names (softmax, log_softmax_backward, ...)
//	esize       element sizes in bytes (4 f32, 2 f16/bf16, 8 f64), or dtype
//	            names (f32, f16, bf16, f64), comma-separated
//	rows        Outer; cols: Axis; inner: Inner; bytes: a row's input bytes
//	            (Axis × element size × 2 for backward ops' y and dy).
//	            A range: N, A..B (inclusive, either side open), <N, <=N,
//	            >N, >=N; numbers take K or M (×2^10, ×2^20) and a unit, p
//	            (elements a 16-byte pack: 8p is 32 f32 or 64 f16) or s (the
//	            device's SMs: <1s is fewer rows than SMs, 0.5s half of them)
//	when        named conditions, space-separated, all of which must hold;
//	            !name negates; arguments in parentheses: smem_fits(2)
//	candidates  strategies, strategy/config (Configs) or strategy/shape,
//	            comma-separated, in order
//	evidence    the measurement: results files under bench/results and
//	            their sections (TestTablesParse checks that they exist)
//
// Named conditions (Conditions) are the few predicates that must compute: a
// model, a kernel's shape or occupancy, what the grid can cache; the model's
// and the sizing numbers are rows of params.tsv. A row whose candidates are
// one strategy's shapes is a shape row: the choice of strategy skips it and
// that strategy's build asks it for the first shape it has a kernel for.
//
// The planner of commit 750679c is kept as a test-only oracle
// (testdata/oracle) that TestDifferential compares against.
package plan

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// Device is the part of the device properties the planner uses (zero optional fields: defaults).
type Device struct {
	Name               string
	Major, Minor       int // compute capability
	SMs                int
	L2Bytes            int
	SmemPerBlock       int // default dynamic shared memory limit per block (48 KB)
	SmemOptin          int // opt-in limit per block (227 KB on Hopper)
	SmemPerSM          int
	MaxThreadsPerSM    int
	MaxThreadsPerBlock int
	Cluster            bool // cluster launch supported
	Cooperative        bool // cooperative launch supported
	RegsPerSM          int  // optional: 32-bit registers per SM
	MaxBlocksPerSM     int  // optional: resident blocks per SM
	MaxClusterSize     int  // largest cluster to use: 8 portable, 16 non-portable; 0: 8
}

// Problem is one operation to plan.
type Problem struct {
	Outer, Axis, Inner int64
	DType              spec.DType
	Op                 spec.Op
	// Aligned: every pointer (x, y, dy) is 16-byte aligned.
	Aligned bool
	// Skew, for tensors not Aligned: the bytes (whole elements, 1..15)
	// every pointer lies past a 16-byte boundary when they agree, else 0.
	Skew int
}

// Launch is one kernel launch of a plan. Every launch of a plan takes the
// same kernels.Params (Plan.Params with the pointers and scale filled in).
type Launch struct {
	Symbol string
	Grid   [3]uint32
	Block  [3]uint32
	Smem   int // dynamic shared memory, bytes (above 48 KB: raise the function's limit first)
	// Cluster is the thread-block cluster shape; zero: an ordinary launch.
	Cluster [3]uint32
	// NonPortable: over 8 blocks a cluster, allowed by a function attribute.
	NonPortable bool
	// Cooperative: the blocks wait for one another on Plan.Barriers words.
	Cooperative bool
}

// Plan is a strategy with its launches, to be queued in order on one stream.
type Plan struct {
	Strategy  string // a kernels.Strategy name
	File      string // the kernel source file (the module to compile)
	Launches  []Launch
	Workspace int64 // bytes of float workspace (Params.WS) needed, 0 if none
	Barriers  int64 // barrier words (Params.Bar) a cooperative launch needs, 0 if none
	Split     int   // chunks per slice (split strategies), else 1
	Chunk     int64 // axis elements per chunk (split strategies), else 0
	Vec       bool  // 16-byte path enabled
	Shift     bool  // the launches are ragged-row twins (kernels.Info.Shift)
	// General: plain softmax takes the general build (kernels.Info.PlainBuild).
	General bool
	// Params is the parameter template; the host fills X, DY, Y, WS and Scale.
	Params kernels.Params
	Reason string // why the strategy was chosen (or forced)
}

// Occupancy returns the resident blocks per SM of a kernel (symbol in module
// file) for a block size and dynamic shared memory.
type Occupancy func(file, symbol string, block, smem int) (int, error)

// Clusters returns how many clusters of cluster blocks of a kernel the device holds at once.
type Clusters func(file, symbol string, block, smem, cluster int) (int, error)

// Queries are the driver's answers the planner asks for; a nil or failing
// query is estimated. Overlay rows (the autotuner's) lie over the table.
type Queries struct {
	Blocks   Occupancy
	Clusters Clusters
	Overlay  []Row
}

// Strategies lists the strategy names the planner (and --algo) accepts.
func Strategies() []string {
	var out []string
	for _, s := range kernels.Strategies() {
		out = append(out, string(s))
	}
	return out
}

// CUDA grid limits.
const (
	maxGridX = 1<<31 - 1
	maxGridY = 65535
)

// Make plans p on d. force names a strategy, optionally with a launch
// configuration ("block_reg/t256_p4"); "" or "auto" asks the table.
func Make(p Problem, d Device, occ Occupancy, force string) (Plan, error) {
	return MakeWith(p, d, Queries{Blocks: occ}, force)
}

// MakeWith is Make with every driver query the planner can use.
func MakeWith(p Problem, d Device, q Queries, force string) (Plan, error) {
	c, err := newCtx(p, d, q.Blocks)
	if err != nil {
		return Plan{}, err
	}
	c.clusters = q.Clusters
	if force != "" && force != "auto" {
		name, config, hasConfig := strings.Cut(force, ConfigSep)
		s, err := kernels.ParseStrategy(name)
		if err != nil {
			return Plan{}, fmt.Errorf("plan: %w", err)
		}
		if hasConfig && config == "" {
			return Plan{}, fmt.Errorf("plan: %q: an empty configuration after %q (want NAME%sCONFIG, see Configs)", force, ConfigSep, ConfigSep)
		}
		c.config = config
		pl, err := c.build(s)
		if err != nil {
			return Plan{}, fmt.Errorf("plan: %s cannot serve %v %v %d×%d×%d: %w", force, p.Op, p.DType, p.Outer, p.Axis, p.Inner, err)
		}
		pl.Reason = "forced: " + pl.Reason
		return pl, nil
	}
	t, err := TableFor(ModelOf(d), q.Overlay)
	if err != nil {
		return Plan{}, err
	}
	c.table, c.shapes = t, t.Rows
	var tried []string
	for _, cand := range c.candidates(t) {
		name, config, _ := strings.Cut(cand.name, ConfigSep)
		c.config = config
		pl, err := c.build(kernels.Strategy(name))
		if err == nil {
			pl.Reason = fmt.Sprintf("%s [%s]: %s", cand.row.ID, cand.row.Evidence, pl.Reason)
			return pl, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %v", cand.name, err))
	}
	return Plan{}, fmt.Errorf("plan: no strategy serves %v %v %d×%d×%d (%s)", p.Op, p.DType, p.Outer, p.Axis, p.Inner, strings.Join(tried, "; "))
}

// ctx is one planning request with its derived quantities.
type ctx struct {
	p        Problem
	d        Device
	occ      Occupancy
	clusters Clusters
	dt       spec.DType
	bwd      bool
	es       int64  // element size
	P        int64  // elements per 16-byte pack
	nin      int64  // inputs read per element
	config   string // the forced launch configuration (Configs), if any
	waveRows int64  // split_grid's rows a wave (SplitGrid), 0: its own

	grid      *splitGridSize // splitGridGrid's answer, once asked
	table     Table          // an automatic choice's table (regime)
	shapes    []Row          // the rows ctx.shape reads
	lanePacks int64          // what lane_packs reads, set by ctx.shape

	few            kernels.Strategy // fewModel's pick, once fewDone
	fewDone, fewOK bool
}

func newCtx(p Problem, d Device, occ Occupancy) (*ctx, error) {
	es := int64(p.DType.Size())
	hi, lo := bits.Mul64(uint64(p.Outer), uint64(p.Axis))
	hi2, lo := bits.Mul64(lo, uint64(p.Inner))
	switch {
	case !p.DType.Valid():
		return nil, fmt.Errorf("plan: invalid dtype %v", p.DType)
	case !p.Op.Valid():
		return nil, fmt.Errorf("plan: invalid op %v", p.Op)
	case p.Outer <= 0 || p.Axis <= 0 || p.Inner <= 0:
		return nil, fmt.Errorf("plan: empty problem %d×%d×%d (nothing to launch)", p.Outer, p.Axis, p.Inner)
	case hi != 0 || hi2 != 0 || lo > 1<<62:
		return nil, fmt.Errorf("plan: %d×%d×%d elements overflow", p.Outer, p.Axis, p.Inner)
	case p.Skew < 0 || p.Skew > 15 || int64(p.Skew)%es != 0 || p.Aligned && p.Skew != 0:
		return nil, fmt.Errorf("plan: skew of %d bytes for %v tensors (aligned %v): want 0, or a whole number of elements under 16 for unaligned ones", p.Skew, p.DType, p.Aligned)
	}
	nin := int64(kernels.NIn(p.Op))
	return &ctx{p: p, d: withDefaults(d), occ: occ, dt: p.DType, bwd: p.Op.Backward(), es: es, P: 16 / es, nin: nin}, nil
}

func withDefaults(d Device) Device {
	orDefault := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	orDefault(&d.SMs, 1)
	orDefault(&d.RegsPerSM, 65536)
	orDefault(&d.MaxBlocksPerSM, 32)
	orDefault(&d.MaxThreadsPerSM, 2048)
	orDefault(&d.MaxThreadsPerBlock, 1024)
	orDefault(&d.SmemPerBlock, 48<<10)
	d.SmemOptin = max(d.SmemOptin, d.SmemPerBlock)
	orDefault(&d.SmemPerSM, d.SmemOptin+1024)
	orDefault(&d.MaxClusterSize, 8)
	d.MaxClusterSize = min(d.MaxClusterSize, 16)
	return d
}

// sym returns the kernel symbol of strategy s for this problem.
func (c *ctx) sym(s kernels.Strategy, variant string) string {
	sym := kernels.Symbol(s, c.dt, c.bwd, variant)
	if c.shifts(s) && !strings.HasSuffix(variant, "_tail") {
		sym += kernels.ShiftSuffix
	}
	return sym
}

// vec reports whether the 16-byte path applies to the rows.
func (c *ctx) vec() bool {
	return c.p.Aligned && c.p.Inner == 1 && (c.p.Axis%c.P == 0 || c.p.Outer == 1)
}

// ragged reports raggedRows of at least RaggedMinPacks packs: strategies with
// twins (kernels.Info.Shift) read them from the pack boundary before each.
func (c *ctx) ragged() bool {
	return c.raggedRows() && c.p.Axis >= prm.RaggedMinPacks*c.P
}

// raggedRows reports rows starting inside a pack (skewed ones past
// flat_rows'): the twins read back to the boundary, inside the allocation.
func (c *ctx) raggedRows() bool {
	return c.p.Inner == 1 && c.p.Outer > 1 && (c.p.Aligned && c.p.Axis%c.P != 0 || c.p.Skew != 0 && c.p.Axis > flatRowsMaxCols)
}

// warpRagged reports ragged rows warp_row reads through its twins: ragged's,
// and short ones whose span takes no more lanes (or 16-bit ones 16 lanes).
func (c *ctx) warpRagged() bool {
	if c.ragged() {
		return true
	}
	if !c.raggedRows() || c.p.Axis < 2*c.P {
		return false
	}
	packs := ceilDiv(c.spanIf(true), c.P)
	span, row := nextPow2(packs), nextPow2(ceilDiv(c.p.Axis, c.P))
	if x := c.warpLanes(packs); x == "p3" {
		span, _ = warpShapeOf(x, packs)
	}
	return span <= row || c.P == 8 && row >= 16
}

// shifts reports whether s reads this problem's rows (strided's: slices) through its twins.
func (c *ctx) shifts(s kernels.Strategy) bool {
	switch s {
	case kernels.Strided:
		return c.stridedTwin()
	case kernels.StridedShort, kernels.StridedReg:
		return !c.innerPacks()
	case kernels.StridedNarrow:
		return !c.narrowPacks()
	case kernels.WarpRow:
		return c.warpRagged()
	}
	return c.ragged() && s.Info().Shift
}

// innerPacks reports non-last-axis slices in 16-byte packs: aligned, Inner a multiple of P.
func (c *ctx) innerPacks() bool { return c.p.Aligned && c.p.Inner%c.P == 0 }

// narrowPacks reports strided_narrow's 16-byte path: aligned, Axis×Inner of whole packs.
func (c *ctx) narrowPacks() bool { return c.p.Aligned && c.p.Axis*c.p.Inner%c.P == 0 }

// stridedTwin reports a non-last axis that the table's strided/twin shape row takes.
func (c *ctx) stridedTwin() bool {
	return c.shape(kernels.Strided, 0, func(x string) bool { return x == "twin" }) == "twin"
}

// span is the most elements a row takes in registers: with the twins, also
// those back to its pack boundary (warpSpan: warp_row's twins).
func (c *ctx) span() int64 { return c.spanIf(c.ragged()) }

func (c *ctx) warpSpan() int64 { return c.spanIf(c.warpRagged()) }

// spanIf adds at most P - g + (skew mod g), g = gcd(cols mod P, P), when twins.
func (c *ctx) spanIf(twins bool) int64 {
	if !twins {
		return c.p.Axis
	}
	g := c.P
	for r := c.p.Axis % c.P; r != 0; g, r = r, g%r {
	}
	return c.p.Axis + c.P - g + int64(c.p.Skew)/c.es%g
}

// occupancy is the resident blocks per SM: the query's answer, else estimate's.
func (c *ctx) occupancy(file, symbol string, threads, smem int) int {
	if c.occ != nil {
		if n, err := c.occ(file, symbol, threads, smem); err == nil && n > 0 {
			return n
		}
	}
	return estimate(c.d, symbol, threads, smem)
}

// estimate is CUDA's occupancy calculation from the architecture's resource table.
func estimate(d Device, symbol string, threads, smem int) int {
	d = withDefaults(d)
	regs, static, ok := resourceTable(d).Kernel(symbol)
	if !ok {
		regs = 64
	}
	warps := (threads + 31) / 32
	if warps == 0 || threads > d.MaxThreadsPerBlock || smem+static > d.SmemOptin {
		return 0
	}
	n := min(d.MaxBlocksPerSM, d.MaxThreadsPerSM/(warps*32))
	n = min(n, d.RegsPerSM/((regs*32+255)/256*256)/warps)
	if smem+static > 0 {
		n = min(n, d.SmemPerSM/(smem+static+1024))
	}
	return max(n, 0)
}

// resourceTable is kernels.Resources for d's architecture.
func resourceTable(d Device) *kernels.ResourceTable {
	arch := ""
	if d.Major > 0 {
		arch = fmt.Sprintf("sm_%d%d", d.Major, d.Minor)
	}
	t, _ := kernels.Resources(arch) // the embedded tables parse: TestResourceTables
	return t
}

func nextPow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func roundUp(n, m int64) int64 { return ceilDiv(n, m) * m }

// finish fills the plan's defaults and its Params template.
func (c *ctx) finish(pl Plan) Plan {
	pl.Split = max(pl.Split, 1)
	if c.shifts(kernels.Strategy(pl.Strategy)) {
		pl.Vec, pl.Shift = true, true
	}
	pl.Params = kernels.Params{Outer: c.p.Outer, Axis: c.p.Axis, Inner: c.p.Inner, Chunk: pl.Chunk, Scale: 1, Split: int32(pl.Split)}
	if c.p.Op.Log() {
		pl.Params.Log = 1
	}
	switch {
	case pl.Shift:
		pl.Params.Vec = kernels.VecShift
	case pl.Vec:
		pl.Params.Vec = kernels.VecOn
	}
	return pl
}

// candidates lists the matching rows' candidates in order, each once.
func (c *ctx) candidates(t Table) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for i := range t.Rows {
		r := &t.Rows[i]
		if r.Shape || !c.matches(r) {
			continue
		}
		for _, s := range r.Cands {
			if !seen[s] {
				seen[s] = true
				out = append(out, candidate{s, r})
			}
		}
	}
	return out
}

type candidate struct {
	name string // strategy or strategy/config
	row  *Row
}
