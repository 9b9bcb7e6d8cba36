package oracle

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// Device is the part of the device properties the planner uses. Zero
// values of the optional fields take H100-like defaults (RegsPerSM 65536,
// MaxBlocksPerSM 32, MaxThreadsPerSM 2048, MaxThreadsPerBlock 1024,
// MaxClusterSize 8).
type Device struct {
	Name               string
	Major, Minor       int // compute capability
	SMs                int // multiprocessors
	L2Bytes            int
	SmemPerBlock       int  // default dynamic shared memory limit per block (48 KB)
	SmemOptin          int  // opt-in limit per block (227 KB on Hopper)
	SmemPerSM          int  // shared memory per SM
	MaxThreadsPerSM    int  //
	MaxThreadsPerBlock int  //
	Cluster            bool // cluster launch supported (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)
	Cooperative        bool // cooperative launch supported (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)
	RegsPerSM          int  // optional: 32-bit registers per SM
	MaxBlocksPerSM     int  // optional: resident blocks per SM
	// MaxClusterSize is the largest cluster the planner may use: 8 is
	// portable; 16 needs CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
	// (Launch.NonPortable tells the host). 0 means 8.
	MaxClusterSize int
}

// Problem is one operation to plan.
type Problem struct {
	Outer, Axis, Inner int64
	DType              spec.DType
	Op                 spec.Op
	// Aligned reports that every pointer (x, y, and dy for backward) is
	// 16-byte aligned; the row stride is checked here.
	Aligned bool
	// Skew, for tensors that are not Aligned, is the number of bytes (1..15,
	// a whole number of elements) that every pointer lies past a 16-byte
	// boundary, when they all lie the same distance past one (views at one
	// element offset into tensors of one layout); 0 when they differ. Rows
	// of such tensors are read from the pack boundary before each row, as
	// ragged rows of aligned tensors are (skewedRows).
	Skew int
}

// Launch is one kernel launch of a plan. Every launch of a plan takes the
// same kernels.Params (Plan.Params with the pointers and scale filled in).
type Launch struct {
	Symbol string
	Grid   [3]uint32
	Block  [3]uint32
	Smem   int // dynamic shared memory, bytes (above 48 KB: raise the function's limit first)
	// Cluster is the thread-block cluster shape (cuLaunchKernelEx with
	// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION); zero: an ordinary launch.
	Cluster [3]uint32
	// NonPortable: the cluster has more than 8 blocks, so the function needs
	// CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 1.
	NonPortable bool
	// Cooperative: the kernel's blocks wait for one another through the
	// barrier words Params.Bar (Plan.Barriers of them, zeroed, private to
	// the stream), so it is launched with CU_LAUNCH_ATTRIBUTE_COOPERATIVE.
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
	// Shift: the launches are ragged-row twins (kernels.Info.Shift), run
	// with Params.Vec = kernels.VecShift.
	Shift bool
	// General: plain softmax launches take the strategy's general build
	// all the same, not its plain one (kernels.Info.PlainBuild), where
	// that measured faster (warp_row's 16-bit element-wise rows).
	General bool
	// Params is the kernel parameter template: layout, Chunk, Split, Vec,
	// Log set, Scale 1, pointers 0. The host fills X, DY, Y, WS and Scale.
	Params kernels.Params
	// Reason says why the strategy was chosen (or forced).
	Reason string
}

// Occupancy returns the max active blocks per SM of a kernel for a block
// size and dynamic shared memory (cuOccupancyMaxActiveBlocksPerMultiprocessor).
// file is the module (Plan.File) the symbol lives in.
type Occupancy func(file, symbol string, block, smem int) (int, error)

// Clusters returns how many clusters of cluster blocks of a kernel (block
// threads and smem bytes of dynamic shared memory each) the device holds at
// once (cuOccupancyMaxActiveClusters): fewer than its blocks per SM × SMs /
// cluster, since a cluster's blocks must share one GPC.
type Clusters func(file, symbol string, block, smem, cluster int) (int, error)

// Queries are the driver's answers the planner asks for. A nil member, or a
// query that fails, is estimated: blocks per SM from the ptxas register
// table, clusters from blocks per SM (clusterPackNum).
type Queries struct {
	Blocks   Occupancy
	Clusters Clusters
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

// Make plans p on d. force names a strategy ("" or "auto": the rules),
// optionally with one of its launch configurations ("block_reg/t256_p4",
// see Configs); occ
// may be nil (occupancy is then estimated from the ptxas register table).
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
	var tried []string
	for _, ch := range c.choose() {
		pl, err := c.build(ch.s)
		if err == nil {
			pl.Reason = ch.why + "; " + pl.Reason
			return pl, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %v", ch.s, err))
	}
	return Plan{}, fmt.Errorf("plan: no strategy serves %v %v %d×%d×%d (%s)", p.Op, p.DType, p.Outer, p.Axis, p.Inner, strings.Join(tried, "; "))
}

// ctx is one planning request with its derived quantities.
type ctx struct {
	p        Problem
	d        Device
	occ      Occupancy
	clusters Clusters // nil: estimated (residentClusters)
	dt       spec.DType
	bwd      bool
	es       int64 // element size
	P        int64 // elements per 16-byte pack
	nin      int64 // inputs read per element
	// config is the forced launch configuration (Configs), "" for the
	// strategy's rules.
	config string

	// grid is splitGridGrid's result, computed once per plan: the rules and
	// the build ask for it up to three times, two occupancy queries each.
	grid *splitGridSize
}

func newCtx(p Problem, d Device, occ Occupancy) (*ctx, error) {
	if !p.DType.Valid() {
		return nil, fmt.Errorf("plan: invalid dtype %v", p.DType)
	}
	if !p.Op.Valid() {
		return nil, fmt.Errorf("plan: invalid op %v", p.Op)
	}
	if p.Outer <= 0 || p.Axis <= 0 || p.Inner <= 0 {
		return nil, fmt.Errorf("plan: empty problem %d×%d×%d (nothing to launch)", p.Outer, p.Axis, p.Inner)
	}
	if hi, lo := bits.Mul64(uint64(p.Outer), uint64(p.Axis)); hi != 0 || lo > 1<<62 {
		return nil, fmt.Errorf("plan: %d×%d×%d elements overflow", p.Outer, p.Axis, p.Inner)
	} else if hi, lo := bits.Mul64(lo, uint64(p.Inner)); hi != 0 || lo > 1<<62 {
		return nil, fmt.Errorf("plan: %d×%d×%d elements overflow", p.Outer, p.Axis, p.Inner)
	}
	es := int64(p.DType.Size())
	if p.Skew < 0 || p.Skew > 15 || int64(p.Skew)%es != 0 || p.Aligned && p.Skew != 0 {
		return nil, fmt.Errorf("plan: skew of %d bytes for %v tensors (aligned %v): want 0, or a whole number of elements under 16 for unaligned ones", p.Skew, p.DType, p.Aligned)
	}
	d = withDefaults(d)
	nin := int64(1)
	if p.Op.Backward() {
		nin = 2
	}
	return &ctx{p: p, d: d, occ: occ, dt: p.DType, bwd: p.Op.Backward(), es: es, P: 16 / es, nin: nin}, nil
}

func withDefaults(d Device) Device {
	if d.SMs <= 0 {
		d.SMs = 1
	}
	if d.RegsPerSM <= 0 {
		d.RegsPerSM = 65536
	}
	if d.MaxBlocksPerSM <= 0 {
		d.MaxBlocksPerSM = 32
	}
	if d.MaxThreadsPerSM <= 0 {
		d.MaxThreadsPerSM = 2048
	}
	if d.MaxThreadsPerBlock <= 0 {
		d.MaxThreadsPerBlock = 1024
	}
	if d.SmemPerBlock <= 0 {
		d.SmemPerBlock = 48 << 10
	}
	if d.SmemOptin < d.SmemPerBlock {
		d.SmemOptin = d.SmemPerBlock
	}
	if d.SmemPerSM <= 0 {
		d.SmemPerSM = d.SmemOptin + 1024
	}
	if d.MaxClusterSize <= 0 {
		d.MaxClusterSize = 8
	}
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

// vec reports whether the 16-byte path applies to rows of cols elements.
func (c *ctx) vec() bool {
	return c.p.Aligned && c.p.Inner == 1 && (c.p.Axis%c.P == 0 || c.p.Outer == 1)
}

// ragged reports rows that start inside a 16-byte pack although the
// pointers are aligned (cols not a multiple of P, several rows, each of
// at least raggedMinPacks packs): the strategies with ragged-row twins
// (kernels.Info.Shift) read them from the pack boundary before each row's
// start. warp_row takes shorter ones too (warpRagged).
func (c *ctx) ragged() bool {
	return c.raggedRows() && c.p.Axis >= raggedMinPacks*c.P
}

// raggedRows reports rows of any length that start inside a pack, of
// aligned tensors or of skewed ones (skewedRows).
func (c *ctx) raggedRows() bool {
	return c.p.Aligned && c.p.Inner == 1 && c.p.Outer > 1 && c.p.Axis%c.P != 0 || c.skewedRows()
}

// skewedRows reports rows of tensors that all lie Skew bytes past a 16-byte
// boundary (Problem.Skew) beyond flat_rows's rows: the ragged-row twins read
// them from the pack boundary before each row, the first row's pack
// starting up to 15 bytes before the tensor, inside the same 16-byte
// block, so inside its allocation (CUDA allocations are at least 256-byte
// aligned), and mask those elements in registers, as they do the row
// before's. Shorter rows keep flat_rows (flatRowsUnaligned) or the
// element-wise path.
func (c *ctx) skewedRows() bool {
	return c.unalignedRows() && c.p.Skew != 0 && c.p.Axis > flatRowsMaxCols
}

// raggedMinPacks: shorter ragged rows keep the element-wise path, except
// in warp_row (warpRagged). On them the twins (warp_row's, before its
// masked body) were as often behind as ahead: H200, softmax bench, old
// and new binaries alternated, µs (-ab-s31.txt §3): 65536×13 f16 7.34 vs
// 7.90 shifted, ×27 f16 9.91 vs 11.34, 74862×59 bf16 log_softmax 15.8 vs
// 19.2, ×45 f16 12.23 vs 11.57, ×45 f32 14.74 vs 14.31; from 16 packs even
// or ahead: 16384×100 f32 9.70 vs 9.74, 16384×201 bf16 14.18 vs 12.26,
// 4096×250 bf16 7.86 vs 6.30. The other strategies serve such rows only
// when forced.
const raggedMinPacks = 16

// warpRagged reports ragged rows that warp_row reads through its twins:
// those of ragged, and forward rows of 2..15 packs whose span (the row
// from the pack boundary before it) needs no more lanes than the row read
// element by element (three packs a lane where threePackLanes takes them:
// 39424×77 f32 14.42 vs 12.62 µs, 74862×59 bf16 16.59 vs 14.03;
// -ab-s41.txt), or 16-bit rows that element by element would take 16
// lanes. Since the forward twins load whole packs and mask the elements
// outside the row (cached_row_masked, session 39) they lead there. H200,
// softmax bench --algo auto, three rounds alternated, median µs,
// element-wise vs twins (-ab-s40.txt §3): 200000×60 bf16 35.14 vs 22.91,
// 200000×100 f16 48.85 vs 39.63 (log_softmax 48.40 vs 39.70), 131072×100
// f16 34.54 vs 28.42, 200000×100 bf16 47.94 vs 42.45, 100000×50 f32 20.69
// vs 18.34 (log_softmax 20.26 vs 18.30), 65536×33 f32 14.29 vs 12.80,
// 200000×36 f16 22.37 vs 19.76, 100000×50 f16 16.10 vs 15.09, 1000000×10
// f32 38.13 vs 36.86. Where the span takes twice the lanes the twins lost
// from 4 and 8 lanes: 74862×59 bf16 log_softmax 16.03 vs 17.09 (8 lanes
// against 16, two packs a lane), 200000×30 bf16 18.99 vs 20.08 (4 against
// 8; 65536×27 f16 goes with it), and won from 16, where the element-wise
// path loads a 16-bit element at a time: 350785×126 bf16 129.47 vs 111.79,
// 200000×123 f16 79.18 vs 55.81 (§5). f32 rows whose span crosses to
// twice the lanes with one or two packs keep the element-wise path:
// 200000×63 f32 38.61 vs 49.23 (16 lanes against 32), 200000×31 21.54 vs
// 27.42, 300000×15 16.78 vs 21.23 (§8); three packs over 8 lanes took 63
// (38.59 vs 35.04, -ab-s41.txt §2).
// Behind and kept: 65536×45 f16 12.34 vs 12.91, 4096×60 bf16 5.49 vs
// 5.65. Backward rows take the same rule but for three packs a lane (no
// backward kernels): their twins load whole packs and mask too since
// session 42. Two rounds alternated, element-wise vs twins (-ab-s42.txt
// §2): 200000×100 f16 56.66 vs 41.49, 131072×100 f16 39.46 vs 29.26,
// 200000×60 bf16 34.90 vs 28.57, 200000×123 f16 68.54 vs 61.48,
// 100000×50 f32 23.42 vs 22.06; where the span crosses to twice the lanes
// they lost as forward ones did (§4, three rounds): 300000×15 f32 20.75 vs
// 25.17, 200000×30 bf16 20.46 vs 22.89, 200000×31 f32 27.97 vs 29.90,
// 74862×59 bf16 log_softmax_backward 18.58 vs 19.84 (its
// softmax_backward 18.19 vs 17.57).
func (c *ctx) warpRagged() bool {
	if c.ragged() {
		return true
	}
	if !c.raggedRows() || c.p.Axis < 2*c.P {
		return false
	}
	packs := ceilDiv(c.shiftedSpan(), c.P)
	span, row := nextPow2(packs), nextPow2(ceilDiv(c.p.Axis, c.P))
	if w, ok := c.threePackLanes(packs); ok && !c.bwd {
		span = w
	}
	return span <= row || c.P == 8 && row >= 16
}

// shifts reports whether strategy s runs this problem's rows (or, for
// strided, whose twins serve a ragged Inner and not ragged rows, its
// slices) through its ragged-row twins.
func (c *ctx) shifts(s kernels.Strategy) bool {
	if s == kernels.Strided {
		return c.stridedTwin()
	}
	if s == kernels.StridedShort || s == kernels.StridedReg {
		return !c.innerPacks()
	}
	if s == kernels.StridedNarrow {
		return !c.narrowPacks()
	}
	if s == kernels.WarpRow {
		return c.warpRagged()
	}
	return c.ragged() && s.Info().Shift
}

// innerPacks reports whether slices along a non-last axis can move in
// 16-byte packs across Inner: aligned pointers and Inner a multiple of P.
func (c *ctx) innerPacks() bool {
	return c.p.Aligned && c.p.Inner%c.P == 0
}

// narrowPacks reports whether strided_narrow's 16-byte kernels apply:
// aligned pointers and outer blocks (Axis×Inner) of whole packs.
func (c *ctx) narrowPacks() bool {
	return c.p.Aligned && c.p.Axis*c.p.Inner%c.P == 0
}

// stridedTwin reports a non-last axis that strided's twins take: slices
// the 16-byte path cannot (Inner not a multiple of P, or unaligned
// pointers), at least 32 of them, along an axis of at most
// stridedTwinMaxAxis. A twin gives each thread P slices TX apart, loaded
// one scalar each, where the plain path gives it one. H200, same run, µs,
// twin vs one slice (-ab-s32.txt §2): short axes gain, 56×24×12269 f32
// 111.8 vs 186.4, 20000×16×101 f32 297.4 vs 602.4, 512×7×777 bf16 44.8 vs
// 57.8, 8192×32×37 bf16 159.3 vs 176.1, 233×3×1131 f16 20.0 vs 21.0;
// longer ones lose, most on 16-bit (P scalar loads a step where the plain
// path issues one, at 128 registers): 80×62×3419 bf16 151.6 vs 124.3,
// 4096×64×63 f16 130.3 vs 110.3, 64×100×1001 f32 53.2 vs 47.9, and split
// axes (fewer, wider tiles split further): 3986×12482 f16 axis 0 546.4 vs
// 265.4, 8×512×8191 f32 250.9 vs 179.9. Since session 34 strided_short
// takes every axis of up to 32 rows in the planner's pick, so the twins run
// only when strided is forced.
func (c *ctx) stridedTwin() bool {
	return c.p.Inner >= 32 && c.p.Axis <= stridedTwinMaxAxis && !c.innerPacks()
}

// stridedTwinMaxAxis is the longest axis strided's twins take.
const stridedTwinMaxAxis = 32

// span is the most elements a row occupies in the registers of a
// register-cached body: the row, plus for ragged rows the elements before
// it back to the pack boundary (at most P - gcd(cols mod P, P)).
// warp_row's rows: warpSpan.
func (c *ctx) span() int64 {
	if !c.ragged() {
		return c.p.Axis
	}
	return c.shiftedSpan()
}

// warpSpan is span for warp_row, which takes more rows through its twins
// (warpRagged).
func (c *ctx) warpSpan() int64 {
	if !c.warpRagged() {
		return c.p.Axis
	}
	return c.shiftedSpan()
}

// shiftedSpan is a ragged row's span: the row and the elements before it
// back to its pack boundary, at most P - g + (skew mod g) of them, g =
// gcd(cols mod P, P) (row r starts skew + r·cols elements past a boundary).
func (c *ctx) shiftedSpan() int64 {
	g := c.P
	for r := c.p.Axis % c.P; r != 0; g, r = r, g%r {
	}
	return c.p.Axis + c.P - g + int64(c.p.Skew)/c.es%g
}

// occupancy returns resident blocks per SM for symbol (in file) at block
// threads and dynamic smem: the injected query when it answers, else the
// estimate from the register table.
func (c *ctx) occupancy(file, symbol string, threads, smem int) int {
	if c.occ != nil {
		if n, err := c.occ(file, symbol, threads, smem); err == nil && n > 0 {
			return n
		}
	}
	return estimate(c.d, symbol, threads, smem)
}

// residentClusters returns how many clusters of cs blocks of symbol (threads
// and smem each, perSM of them resident an SM) the device holds at once: the
// injected query's answer when it gives one, else clusterPackNum/Den of
// perSM × SMs / cs.
func (c *ctx) residentClusters(file, symbol string, threads, smem int, cs int64, perSM int) int64 {
	if c.clusters != nil {
		if n, err := c.clusters(file, symbol, threads, smem, int(cs)); err == nil && n > 0 {
			return int64(n)
		}
	}
	return int64(perSM) * int64(c.d.SMs) * clusterPackNum / (clusterPackDen * cs)
}

// estimate is the CUDA occupancy calculation from the device architecture's
// resource table (kernels.Resources; 64 registers assumed for unknown
// symbols).
func estimate(d Device, symbol string, threads, smem int) int {
	d = withDefaults(d)
	regs, static, ok := resourceTable(d).Kernel(symbol)
	if !ok {
		regs = 64
	}
	warps := (threads + 31) / 32
	if warps == 0 || threads > d.MaxThreadsPerBlock {
		return 0
	}
	n := min(d.MaxBlocksPerSM, d.MaxThreadsPerSM/(warps*32))
	regsPerWarp := (regs*32 + 255) / 256 * 256
	n = min(n, (d.RegsPerSM/regsPerWarp)/warps)
	if per := smem + static + 1024; smem+static > 0 {
		if smem+static > d.SmemOptin {
			return 0
		}
		n = min(n, d.SmemPerSM/per)
	}
	return max(n, 0)
}

// capGrid caps a block count at waves of resident blocks (the kernels
// grid-stride over the rest) and at limit.
func (c *ctx) capGrid(needed int64, perSM int, waves int64, limit int64) uint32 {
	resident := int64(max(perSM, 1)) * int64(c.d.SMs) * waves
	return uint32(max(1, min(needed, resident, limit)))
}

func nextPow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func roundUp(n, m int64) int64 { return ceilDiv(n, m) * m }

// plan1 returns a one-launch plan template.
func (c *ctx) plan1(s kernels.Strategy, vec bool, l Launch, why string) Plan {
	return c.finish(Plan{Strategy: string(s), File: s.Info().File, Launches: []Launch{l}, Split: 1, Vec: vec, Reason: why})
}

// finish fills the Params template.
func (c *ctx) finish(pl Plan) Plan {
	if pl.Split < 1 {
		pl.Split = 1
	}
	if c.shifts(kernels.Strategy(pl.Strategy)) {
		pl.Vec, pl.Shift = true, true
	}
	pl.Params = kernels.Params{Outer: c.p.Outer, Axis: c.p.Axis, Inner: c.p.Inner, Chunk: pl.Chunk, Scale: 1, Split: int32(pl.Split)}
	if c.p.Op.Log() {
		pl.Params.Log = 1
	}
	if pl.Vec {
		pl.Params.Vec = kernels.VecOn
	}
	if pl.Shift {
		pl.Params.Vec = kernels.VecShift
	}
	return pl
}

// resourceTable is the kernels' resource table for d's architecture
// (kernels.Resources: the nearest older one where d's has none; a device
// without a compute capability, the newest).
func resourceTable(d Device) *kernels.ResourceTable {
	arch := ""
	if d.Major > 0 {
		arch = fmt.Sprintf("sm_%d%d", d.Major, d.Minor)
	}
	t, _ := kernels.Resources(arch) // the embedded tables parse: TestResourceTables
	return t
}
