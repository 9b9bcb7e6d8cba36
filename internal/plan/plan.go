// Package plan turns a problem (Outer × Axis × Inner layout, dtype, op,
// pointer alignment) and the device's properties into a kernel strategy and
// its launches. It is a pure function of its inputs: the occupancy query is
// injected (and estimated from the ptxas register table when absent), so
// every rule is unit-tested on the CPU.
//
// A forced strategy (Make's force) may name one of its launch
// configurations, "block_reg/t512_p2" (Configs lists them: block_reg's block
// sizes and warp_row's lanes a row, the kernel shapes the rules below pick
// from measurements), which the autotuner times beside the strategies.
// Models holds the properties of known devices for planning without one.
//
// # Rules (automatic choice)
//
// rows = Outer and cols = Axis when Inner == 1; P = 16/esize elements per
// 16-byte pack (4 f32, 8 f16/bf16); NIN = 1 forward, 2 backward (y and dy
// are both read and cached).
//
//  1. Inner > 1 a power of two under 8 packs, along an axis of at least 24
//     rows (f32 forward) or 32 (16-bit, backward), whose outer blocks of
//     Axis·Inner elements are at most 2048 packs (backward: groups of at
//     most 4 warps, 1024 packs f32 and 512 f16/bf16):
//     strided_narrow, a warp or 2-8 an outer index reading its contiguous
//     block as one run of packs held in registers (the _shift twins, scalar
//     accesses, for unaligned pointers or blocks not of whole packs), where
//     one warp holds an outer index's block of at least 32 packs or
//     strided_smem does not serve.
//     Else strided_smem where its tiles fit two blocks an SM and number at
//     least the SMs (each outer index's Axis×Inner block staged in shared
//     memory by cp.async, its columns reduced there, written back as one
//     run of packs; small blocks gathered into tiles of about 512 packs),
//     but not along axes of 2..48 rows (backward 2..32) under 8 rows or
//     with Inner of 16 or more, which stay with strided_short, nor on
//     Inner of whole 8-pack tiles that strided_reg takes.
//     Else, along an axis of 2..48 rows (backward 2..32): strided_short,
//     the slices' whole axis in registers, a thread's up to 16 rows (8
//     backward), then lane pairs up to 32 (16), then four lanes (16-byte
//     packs of P slices with aligned pointers and Inner a multiple of P,
//     else its twins; measurements in rules.go). Else, forward with
//     aligned pointers, Inner a multiple of P and at least 8·P (or, through
//     its _shift twins, any other Inner of at least 32: a thread's P
//     columns G apart, scalar accesses, blocks of at most 512 threads), an
//     axis of up to 8192 and blocks for half the SMs: strided_reg (a
//     tile of G·P inner indices × the whole axis cached in registers, 8
//     packs a thread: 32 f32 values, or 64 f16/bf16 values kept packed;
//     axes over 1024 rows a block split over a cluster of K <= 8 blocks
//     that push their (m, d) into each other's shared memory, twice as
//     many blocks of half the threads for f32 clusters of 2-4 blocks and
//     16-bit ones of 3-4 blocks over <= 256 tiles;
//     one read, one exp per element; measurements in rules.go and
//     build.go). Otherwise strided. With
//     aligned pointers and Inner a multiple of P,
//     each thread owns P consecutive inner indices (VW = P slices, 16-byte
//     accesses); for any other Inner of at least 32 along an axis of at
//     most 32, P slices TX apart through the _shift twins (scalar accesses);
//     else one (VW = 1). TX = min(32, nextpow2(ceil(Inner/VW)))
//     threads across inner (coalesced), TY = min(256, 1024/VW)/TX threads
//     along the axis (fewer for short axes; 2, or 1 under 4 rows, for axes
//     of at most 24 with TX = 32 and VW = P). When the tiles alone cannot fill
//     the GPU (tiles < 2·SMs) and the axis is long, split along the axis into
//     chunks (two launches, partials in the workspace) so that about one wave
//     of resident blocks runs.
//  2. Few rows of huge length: when rows < SMs, a block per row leaves SMs
//     idle, so a simple bandwidth model decides: one block streams ~40 GB/s
//     (t_block = rowBytes/40GB/s); split_row spreads the row over every SM at
//     ~25 GB/s each but reads it twice (the second read mostly from L2,
//     counted as half) and pays a second launch (~4 µs); two blocks per SM
//     in all stream each row together, interleaved (splitRowBlocksPerSM has
//     the measurements); split_cluster (sm_90,
//     row fits the shared memory of a cluster of C <= 8 blocks, or 16 with
//     non-portable clusters) reads once in one launch at C·40 GB/s per row.
//     A cluster launch is charged 1 µs more, and clusters take rows of at
//     most 384 KB (clusterRowBytes). A split must beat t_block by 20% and
//     1 µs to be chosen; otherwise the block-per-row rules below apply,
//     except that forward rows of >= 64 KB whose clusters all fit one wave
//     (rows × C <= SMs) go to split_cluster (clusterOneWaveRowBytes: 5-12%
//     ahead of block_reg since the partials are pushed), and so do forward
//     rows of 128-192 KB whose clusters are all resident at once (the
//     driver's cuOccupancyMaxActiveClusters, Queries.Clusters; else 15/16
//     of blocks an SM × SMs / C for GPC packing), split_grid taking them
//     past that (fewMidRows; H100, 72×81920 bf16 16.0 vs online_2pass
//     19.4 µs, 90×40960 f32 16.9 vs block_hybrid 18.7, 120×81920 bf16
//     split_grid 21.1 vs online_2pass 22.3); rows of 96-128 KB go to
//     split_cluster up to a row count that grows with the row (about 50
//     rows of 96 KB, every count from 116 KB) and the resident clusters,
//     and past that to split_grid from 90% of the SMs (40×57344 bf16 11.2
//     vs block_hybrid 12.5, 100×32768 f32 15.4 vs block_reg 16.7,
//     128×61440 bf16 split_grid 18.1 vs the clusters' second wave 20.5),
//     but f32 rows under 128 KB, which keep block_reg (128×28672 f32 16.4
//     vs split_grid 17.2 since its exps run before the barriers). With
//     rows <= SMs/2 of >= 1 MB that a block would read twice (online_2pass),
//     a split is taken regardless (64×1048576 f32: 219.7 vs 356.7 µs).
//     Where split_row is chosen for an op on 16-byte rows whose inputs are
//     256 KB to 4 times the grid's shared memory, or more in rows of at
//     most 2.25 times it, split_grid takes its place when the device runs
//     cooperative launches: one block per SM holds up to the opt-in shared
//     memory of its chunk, a barrier of each row's blocks replaces the second launch, and
//     only what the shared memory could not hold is read twice (1×2^24 f32:
//     57.8 vs 67.7 µs; 4×4194304 f16 36.4 vs 40.9; 4×1048576 f16 15.5 vs
//     16.9; measurements in rules.go). Rows of more than 2.25 times the
//     grid's shared memory in all go in as few even waves as keep each under
//     that, each wave's reads fused into the last one's writes (4×33554432
//     f16: 192.0 vs split_row 222.5 µs; 4×16777216 f16 99.7 vs one wave
//     117.2). Backward ops too (y and dy cached; 8×4194304 f32 151.9 vs
//     168.1 µs, 1×65536 f32 8.4 vs 8.8). split_grid also replaces a block
//     per row that would read rows of 192 KB or more twice (128×128256
//     bf16: 30.3 vs online_2pass 32.0 µs; backward 32×65536 f32 15.5 vs
//     23.7), and, forward only, a cluster per row on rows of 192 KB or
//     more when it gives each row at most two blocks and keeps 7/8 of its
//     grid busy (64×131072 f16: 18.9 vs 21.2 µs). With one block a row it
//     skips the barrier (128×128256 bf16: 27.1 vs 29.9 µs with it).
//     It also takes up to four forward rows of 65536 columns or more from
//     split_cluster (1×196608 f16 8.7 vs 9.6 µs, 2×98304 f16 8.5 vs 9.0,
//     with 512-thread blocks where its chunks are cached whole; shorter
//     rows keep the cluster: 4×32768 f32 9.0 vs 8.5), and up to eight
//     backward rows of 256 KB or more (4×65536 f16 8.8 vs 9.7; 128 KB rows
//     keep the cluster: 4×16384 f32 8.1 vs 7.1).
//  3. forward rows of whole 16-byte packs beyond 16384 columns: block_hybrid
//     (32 values a thread in registers, the rest of the row in shared
//     memory) with at least as many rows as SMs, 512 threads up to 40960
//     f32 / 65536 f16-bf16 columns (two rows per SM), then 1024 threads up
//     to 81920 f32 / 131072 f16-bf16 from 7 rows an SM (chosen between
//     the 4 and 7.8 measured; but an f32 row of
//     exactly 32768, which fills block_reg's 1024 × 8 packs, stays with
//     block_reg: 1.5% ahead in five alternated runs, and so do f32 rows of
//     24577..32768 columns from 24 rows an SM, blockRegDeepF32: 1.4-6.7%
//     ahead on an H200, level on an H100); with fewer rows an
//     SM, and past block_hybrid up to 1 MB rows, split_grid (one launch
//     over every SM, each row's chunks cached across a barrier of its
//     blocks; 1024×151936 bf16 194.5 vs online_2pass 232.8 µs, 264×65536
//     f32 45.1 vs block_hybrid 50.2), each behind the other where that
//     one cannot launch; at exactly one row an SM, rows of 96 KB or more
//     go to split_grid instead (132×65536 bf16 19.5 vs block_hybrid 22.1
//     µs on an H100, 132×40960 f32 22.2 vs 24.2: one 512-thread block an
//     SM idles half of it); where the rows would use at most 65% of the
//     block slots over their waves of block_hybrid's 512-thread blocks
//     (16-bit rows of 120-128 KB, and all of those rows with fewer rows
//     than SMs) or of split_grid's one-block rows (rows up to 384 KB),
//     split_cluster goes first: its small blocks share any row count
//     evenly (clusterUnevenRows; H100, 166×65536 f16 24.4 vs block_hybrid
//     26.5 µs, 140×128256 bf16 37.8 vs split_grid 45.5, 166×65536 f32 41.4
//     vs split_grid 47.5); ragged 16-bit rows past the 512-thread blocks
//     take the 1024-thread twins from past two rows an SM (396×100003
//     bf16 79.3 vs online_2pass 86.1); with fewer rows than SMs, f32 rows beyond
//     32768 and 16-bit rows of 32769 columns to 128 KB (1024 threads;
//     128×50000 bf16 14.6 vs block_smem 16.5 µs). Then rows of more than
//     1 KB up to 32768 f32 columns or 8192 f16/bf16 (..32768 with fewer
//     rows than SMs): block_reg (a block of 32..1024 threads per row, the
//     smallest that holds the row in <= 32 values a thread, so one warp up
//     to 1024 columns; the row in registers, one exp per element, the
//     block size a compile-time constant; ahead of warp_row, pipelined and
//     block_smem in the H200 sweeps and harness runs quoted in rules.go).
//  4. Ragged rows (aligned pointers, rows not whole packs) of f32 8..512
//     columns, f16/bf16 forward 16..128 and backward 16..300: flat_rows (a tile of consecutive rows staged in shared memory as one
//     run of packs, a lane group a row; rules.go, flatRowsFirst: H200
//     350785×126 bf16 54.1 vs warp_row 65.4 µs, its backward 71.8 vs
//     105.8). So are rows of unaligned tensors, which every other
//     strategy reads element by element: f16/bf16 13..512 columns, f32
//     forward 10..512 and backward 257..512, except widths with 4-way
//     bank conflicts (flatRowsUnaligned: 350785×126 bf16 58.8 vs warp_row
//     120.5 µs). Then cols <= 256·P forward / 128·P backward (1024 / 512 f32,
//     2048 / 1024 f16) that block_reg does not take (forward rows of up to
//     1 KB, rows not of whole packs, backward rows): warp_row. Lanes per row W =
//     nextpow2(ceil(cols/P)) up to 32, then packs per lane NP =
//     nextpow2(ceil(cols/(32·P))), cols counted from the pack boundary
//     before the row for the ragged-row twins (which take rows from 2
//     packs, warpRagged); forward rows of 2..32 packs on the 16-byte
//     paths take W/2 lanes with two packs each (build.go, halfGroups:
//     twice the rows a warp, 6-15% on f32), but 16-bit rows of 9..15 whole
//     packs and 16-bit twins of up to 4 packs; backward rows from 17 packs
//     and f16 backward twins from 9 (bwdHalfGroups, 2-12% on H200);
//     forward rows that three packs a lane
//     hold in fewer lanes than the power of two take them (threePackLanes:
//     17-24 packs over 8 lanes, 33-48 over 16, and 16-bit rows of 9-12
//     over 4 but f16 twins of 10-12 that two packs serve without
//     crossing; 1.04-1.38x on H200, 350785×126 bf16
//     111.6 vs 81.0 µs), ragged rows included where their span then needs
//     no more lanes than the row read element by element; plain softmax
//     launches take the plain build but for 16-bit element-wise rows
//     (Plan.General): the row lives in registers, one DRAM read, no shared
//     memory, several rows per 128-thread block. (persistent, with next-row prefetch, lost to it on very many
//     short rows: 524288×1024 f16 1060.6 vs 941.9 µs on H200; pipelined
//     lost to it everywhere once full rows ran without bounds checks:
//     32768×1024 f32 81.2 vs 75.7, 524288×1024 f16 727.0 vs 546.6.)
//     Longer forward rows that block_reg does not take (rules.go,
//     forwardRows): f32 rows above 81920 and f16/bf16 rows over 8192 whose
//     shared-memory copy leaves >= 2 resident blocks per SM (~28K f32, ~56K
//     f16 on Hopper) block_smem (one read, 3..20% ahead of online_2pass and
//     block_vec); longer f32 rows pipelined with one slot (up to the opt-in
//     shared memory).
//  5. Backward rows of whole packs past warp_row's: block_reg up to 8192
//     f32 / 16384 f16-bf16 columns (y and dy in registers, one read;
//     4096×4096 f32 53.6 vs online_2pass 65.4 µs); past it, with as many
//     rows as SMs or more, split_grid for rows of 96–256 KB of inputs
//     (4096×32000 f32 432.4 vs 556.7) and split_cluster for longer rows a
//     cluster holds (4096×65536 f32 892.3 vs split_grid 1110.6).
//  6. everything else (backward rows of 64–96 KB, rows beyond those
//     limits, unaligned rows that pipelined cannot copy): online_2pass, a
//     block per row, online (m, d), the second read served mostly by L2
//     (last tile first).
//
// naive and smem_tree are teaching steps: used only when forced (naive is
// also the last resort for a layout nothing else serves). block_vec and
// persistent are used only when forced, split_cluster only through rule 2.
//
// Grids: blocks grid-stride over rows (or tiles), so grids are capped at 4
// waves of resident blocks (occupancy × SMs; persistent: exactly one wave;
// block_reg: one block per row, a fresh block refilling each finished one)
// and at the CUDA limits (x <= 2^31−1, y, z <= 65535). All indexing in the
// kernels is 64-bit, so tensors of more than 2^31 elements are fine.
//
// Vector path: Params.Vec is set when the host reports 16-byte aligned
// pointers and every row start is 16-byte aligned (cols·esize a multiple of
// 16, or a single row; strided: Inner a multiple of P); row split chunks are
// multiples of P so chunk starts stay aligned. Ragged rows (aligned
// pointers, cols not a multiple of P, rows of at least 16 packs) go to the
// "_shift" twins of warp_row, block_reg (forward), block_smem and
// online_2pass (Params.Vec 2), which read each row from the 16-byte
// boundary at or before its start, the same rules applying to the span
// (cols plus at most P-1); ragged backward rows past 512 columns take
// block_reg's twin up to spans of 1024 packs, f32 2048
// (raggedBlockRegBackward),
// online_2pass's beyond, and ragged few long rows split_grid where
// split_row would have them (H200: 512×50257 f16 118.0 -> 39.5 µs,
// 4096×50257 f32 894.9 -> 591.0, 16384×781 f32 69.3 -> 38.7;
// -ab-s31.txt). Rows of tensors whose pointers all lie one distance past
// a 16-byte boundary (Problem.Skew; views at one offset) are read the
// same way past flat_rows' 512 columns, the kernels taking each row's
// distance from its pack boundary from the address (skewedRows; H200,
// --offset 1, geometric mean 1.533× over 78 cases, -ab-s45.txt §3).
// Otherwise the kernels take their scalar path.
//
// A forced strategy (Make's force argument, the --algo flag) is checked
// against what its kernels can serve (layout, row length against register
// caches, shared memory against the device's opt-in limit and the occupancy
// query, clusters against sm_90 and driver support) and refused with an
// error, never a panic.
//
// The constants of the few-rows model (40 GB/s per block, 25 GB/s per SM, 4
// µs per launch, 4 waves of grid cap, 256-thread strided blocks) are first
// guesses; on H200 they pick the measured best for every few-rows case of
// the onepass and vector suites (4×16384 f16, where launch latency
// dominates, is left to rule 3: block_reg 10.3 µs vs block_smem 12.6).
package plan

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
	// Overlay holds rows laid over the device model's table (ParseTable's
	// schema), such as the autotuner's; nil: the shipped table alone.
	Overlay []Row
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
	t, err := TableFor(ModelOf(d), q.Overlay)
	if err != nil {
		return Plan{}, err
	}
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

	// few is the few-rows model's pick (fewPick), once fewDone.
	few     kernels.Strategy
	fewDone bool
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

// estimate is the CUDA occupancy calculation from the ptxas register and
// static shared memory table (64 registers assumed for unknown symbols).
func estimate(d Device, symbol string, threads, smem int) int {
	d = withDefaults(d)
	regs, static, ok := kernels.Resources(symbol)
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
