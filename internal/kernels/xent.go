package kernels

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gofused/softmax/internal/spec"
)

// XentFile is the source of the fused cross-entropy kernels (issue 73):
// loss, log-sum-exp and gradient of rows in one pass, their backward from a
// saved log-sum-exp, log p[target] and the log-sum-exp of rows. They take
// XParams, not Params, so they are a catalogue of their own (XentVariants)
// beside the softmax strategies' rather than a Strategy the softmax planner
// could choose.
const XentFile = "xent.cu"

// XParams mirrors smx::XParams in xent.cu, the single by-value parameter of
// the cross-entropy kernels and of the sharded ones (size 208, align 8;
// TestXParamsLayout).
type XParams struct {
	X, Grad, Tgt, W         uintptr
	Loss, LSE, LSEIn, GRows uintptr
	Stats, Bad, Out         uintptr
	Rows, V, Ignore         int64
	Scale, Softcap, Eps     float64
	ZLoss, GOut             float64
	Flags, Vec              int32
	Inner                   int64
	// The shard_* kernels: X holds columns [Lo, Lo+V) of VAll.
	Rec, DY      uintptr
	Lo, VAll     int64
	NRanks, ShOp int32
}

// XParamsSize is sizeof(smx::XParams).
const XParamsSize = unsafe.Sizeof(XParams{})

// XParams.Flags bits (XF_* in xent.cu).
const (
	XFlagT64       = 1  // targets are int64
	XFlagMean      = 2  // reduction mean
	XFlagNoTarget  = 4  // log-sum-exp only
	XFlagTLP       = 8  // loss is log p[target]
	XFlagLSENative = 16 // lse stored in the logits' dtype
	XFlagF64       = 32 // float64 logits: per-row buffers and the reduced loss are float64
)

// XentRow is one row kernel of xent.cu: Threads a block, Packs 16-byte
// packs cached in registers a thread (0: the row is streamed twice), and
// Stash more in dynamic shared memory (plain calls only: its kernels are
// the "_plain" twins alone). Tail (plain calls only): a row longer than
// the cache keeps its first Cols elements on chip and streams the rest
// twice, the second read mostly from L2.
type XentRow struct {
	Threads, Packs, Stash int
	Tail                  bool
}

// Cols returns the longest row (elements of dt, counted from the row's
// 16-byte boundary) the kernel caches, 0 for a streaming kernel (any). A
// Tail kernel caches that much of any longer row.
func (k XentRow) Cols(dt spec.DType) int64 {
	return int64(k.Threads*(k.Packs+k.Stash)) * int64(Pack(dt))
}

// Holds reports whether k serves rows of cols elements of dt (from their
// 16-byte boundary): a streaming or Tail kernel any, a cached one up to
// Cols.
func (k XentRow) Holds(cols int64, dt spec.DType) bool {
	return k.Packs == 0 || k.Tail || cols <= k.Cols(dt)
}

// SmemBytes is the dynamic shared memory a launch of k takes.
func (k XentRow) SmemBytes() int { return k.Threads * k.Stash * 16 }

// Symbol is the kernel's name for dt: xent_row_bf16_t512_p8, with
// "_plain" for its twin that serves only plain calls (XentPlain).
func (k XentRow) Symbol(dt spec.DType, plain bool) string {
	s := fmt.Sprintf("xent_row_%v_t%d_p%d", dt, k.Threads, k.Packs)
	if k.Stash > 0 {
		s += fmt.Sprintf("_s%d", k.Stash)
	}
	if k.Tail {
		s += "_tail"
	}
	if plain && k.hasPlain(dt) {
		s += "_plain"
	}
	return s
}

// hasPlain: f64 streamed rows have no plain twin: they take the general
// pass in either kernel (the plain streamed pass is float-only, -s68-c7).
func (k XentRow) hasPlain(dt spec.DType) bool { return k.Packs > 0 || dt != spec.Float64 }

// PlainOnly reports a kernel with no general twin: a stash or a tail
// serves plain calls (XentPlain) only.
func (k XentRow) PlainOnly() bool { return k.Stash > 0 || k.Tail }

func (k XentRow) hasGeneral() bool { return !k.PlainOnly() }

// XentPlain reports whether a call takes the "_plain" row kernels: no
// softcap, class weights or label smoothing, and rows of whole 16-byte
// packs from 16-byte aligned starts, with vector gradient stores (Vec). The
// plain kernels trap on any other call.
func XentPlain(p *XParams, dt spec.DType, weights bool) bool {
	return p.Softcap == 0 && !weights && p.Eps == 0 && p.V%int64(Pack(dt)) == 0 && p.Vec != 0 &&
		p.V < 1<<30 && p.X%16 == 0
}

// XentRows are the row kernels the catalogue instantiates for every dtype:
// register caches from 2 KB to 128 KB a row (at most 8 packs, 32
// registers, a thread, as block_reg's), the same 128 KB with 128 or 192 KB
// more in shared memory (plain calls), the same caches holding the first
// part of longer plain rows whose rest streams twice (Tail), and the
// streaming kernels for longer rows (and for log-sum-exp alone, which reads
// a row once either way). The planner's table (internal/plan xent rows)
// chooses among them.
var XentRows = []XentRow{
	{128, 4, 0, false}, {256, 4, 0, false}, {256, 8, 0, false}, {512, 8, 0, false}, {1024, 8, 0, false},
	{1024, 8, 8, false}, {1024, 8, 12, false}, {1024, 8, 8, true}, {1024, 8, 12, true},
	{1024, 0, 0, false}, {512, 0, 0, false},
}

// XentCols is the kernel of the log-sum-exp along a non-last axis
// (xent_lse_cols): Threads a block, 32 columns by Threads/32 steps along
// the axis.
type XentCols struct {
	Threads int
}

// Symbol is the kernel's name for dt: xent_lse_cols_f32_t256.
func (k XentCols) Symbol(dt spec.DType) string {
	return fmt.Sprintf("xent_lse_cols_%v_t%d", dt, k.Threads)
}

// XentColsKernels are the column kernels the catalogue instantiates for
// every dtype.
var XentColsKernels = []XentCols{{256}}

// XentPrep and XentFinal are the one-block kernels of every call: target
// checks and the mean's denominators before, the reduced loss after; both
// take exactly XentOneBlock threads.
const (
	XentPrep     = "xent_prep"
	XentFinal    = "xent_final"
	XentOneBlock = 1024
)

// xentDTypes are the dtypes xent.cu is instantiated for: float64 as the
// softmax strategies' F64 kernels (f64 storage, double math).
var xentDTypes = []spec.DType{spec.Float32, spec.Float16, spec.BFloat16, spec.Float64}

// XentInstances returns every kernel of xent.cu: the one-block kernels
// (dtype-free), each row and column kernel for each dtype, and the sharded
// kernels (shard.go).
func XentInstances() []Instance {
	out := []Instance{
		{Symbol: XentPrep, Threads: XentOneBlock, Body: "smx::xent_prep"},
		{Symbol: XentFinal, Threads: XentOneBlock, Body: "smx::xent_final"},
	}
	for _, dt := range xentDTypes {
		for _, k := range XentRows {
			for _, plain := range []bool{false, true} {
				if plain && !k.hasPlain(dt) || !plain && !k.hasGeneral() {
					continue
				}
				args := []any{"smx::" + strings.ToUpper(dt.String()), k.Threads, k.Packs, plain, k.Stash}
				if k.Tail {
					args = append(args, true)
				}
				out = append(out, Instance{Symbol: k.Symbol(dt, plain), Threads: k.Threads, MinBlocks: xentMinBlocks(k),
					Body: body("smx::xent_row", args...)})
			}
		}
		for _, k := range XentColsKernels {
			out = append(out, Instance{Symbol: k.Symbol(dt), Threads: k.Threads,
				Body: body("smx::xent_lse_cols", "smx::"+strings.ToUpper(dt.String()), k.Threads)})
		}
	}
	return append(out, shardInstances()...)
}

// xentMinBlocks is a row kernel's launch bound on blocks an SM: 64
// registers a thread for the 128-, 256- and 512-thread kernels (8, 4, 2
// blocks), whose table rows ask that many an SM or more. Unbounded, NVRTC
// 13 gave them 72-109 registers (the 512-thread 16-bit streaming ones 89,
// the f32 cached 91: one block an SM; TestXentKernelResources,
// nvidia-h200-2026-11-29-s70.txt call 5); bounded, 16384×4096 bf16 ran
// 0.29 -> 0.46 of copy, 4096×2048 bf16 0.24 -> 0.31, f32 rows unchanged
// (-s71.txt call 6; -s70.txt call 6 for the 512-thread ones).
func xentMinBlocks(k XentRow) int {
	switch k.Threads {
	case 128:
		return 8
	case 256:
		return 4
	case 512:
		return 2
	}
	return 0
}

// XentSource is the NVRTC input of one xent.cu kernel: the file followed
// by the XENT_KERNEL line of symbol, and the header map.
func XentSource(symbol string) (src string, headers map[string]string, err error) {
	for _, k := range XentInstances() {
		if k.Symbol == symbol {
			src, hdrs, err := program(XentFile, false, nil)
			if err != nil {
				return "", nil, err
			}
			return src + k.xentLine() + "\n", hdrs, nil
		}
	}
	return "", nil, fmt.Errorf("kernels: %s has no kernel %q", XentFile, symbol)
}

// XentProgram is xent.cu with every kernel's definition: what the host
// emulator and offline nvcc checks compile.
func XentProgram() (string, error) {
	src, _, err := program(XentFile, false, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(src)
	for _, k := range XentInstances() {
		b.WriteString(k.xentLine())
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// xentLine is the kernel's XENT_KERNEL definition.
func (k Instance) xentLine() string {
	return strings.Replace(k.Line(), "SMX_KERNEL(", "XENT_KERNEL(", 1)
}

// isXentFile reports an embedded file of the cross-entropy catalogue.
func isXentFile(name string) bool { return name == XentFile }
