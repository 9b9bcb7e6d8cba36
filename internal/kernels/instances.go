package kernels

import (
	"fmt"
	"strings"

	"github.com/gofused/softmax/internal/spec"
)

// Instance is one kernel's extern "C" definition, generated from the
// catalogue: the .cu files define device function templates only, and a
// compilation appends the SMX_KERNEL lines of exactly the kernels it needs
// (one, for a launch: KernelSource).
type Instance struct {
	Symbol string
	// Threads and MinBlocks are the kernel's __launch_bounds__ (MinBlocks 0:
	// none). Register budgets measured per kernel family; see the bounds
	// functions below.
	Threads, MinBlocks int
	// Body is the device function template instance the kernel runs on its
	// Params: "smx::block_reg_kernel<smx::Fwd<smx::F32>, 4, 256>".
	Body string
}

// Bounds is the __launch_bounds__ argument list: "512" or "512, 2".
func (k Instance) Bounds() string {
	if k.MinBlocks > 0 {
		return fmt.Sprintf("%d, %d", k.Threads, k.MinBlocks)
	}
	return fmt.Sprint(k.Threads)
}

// Line is the kernel's definition (SMX_KERNEL in common.cuh; a bound of
// two numbers in SMX_BOUNDS, so that it stays one macro argument).
func (k Instance) Line() string {
	b := k.Bounds()
	if k.MinBlocks > 0 {
		b = "SMX_BOUNDS(" + b + ")"
	}
	return fmt.Sprintf("SMX_KERNEL(%s, %s, %s)", k.Symbol, b, k.Body)
}

// kcase is one kernel to instantiate: a variant of a direction for a dtype,
// or its ragged-row twin (shift).
type kcase struct {
	dt       spec.DType
	backward bool
	v        Variant
	shift    bool
}

// d is the storage traits type of the dtype ("smx::F32").
func (c kcase) d() string { return "smx::" + strings.ToUpper(c.dt.String()) }

// op is the op functor over the storage traits ("smx::Fwd<smx::F16>").
func (c kcase) op() string {
	if c.backward {
		return "smx::Bwd<" + c.d() + ">"
	}
	return "smx::Fwd<" + c.d() + ">"
}

// wide reports a 4- or 8-byte dtype (f32, f64), whose register budgets
// differ from the 16-bit ones': a pack of either is four registers of
// math values (four floats, two doubles), so f64 kernels take f32's
// bounds.
func (c kcase) wide() bool { return c.dt.Size() >= 4 }

// body formats fn<args...>.
func body(fn string, args ...any) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = fmt.Sprint(a)
	}
	return fn + "<" + strings.Join(s, ", ") + ">"
}

// withShift appends the twin's "true" template argument where the
// template's SHIFT parameter defaults to false.
func withShift(c kcase, args ...any) []any {
	if c.shift {
		return append(args, true)
	}
	return args
}

// instancer returns a kernel's body and bounds (threads 0: the variant's
// MaxThreads).
type instancer func(c kcase) (body string, threads, minBlocks int)

// Instances returns every kernel of the strategy for dt, in Symbols order.
func (in Info) Instances(dt spec.DType) []Instance {
	var out []Instance
	if !in.HasDType(dt) {
		return nil
	}
	for _, bwd := range []bool{false, true} {
		for _, v := range in.Variants(bwd) {
			if !v.Serves(dt) {
				continue
			}
			out = append(out, in.instance(kcase{dt, bwd, v, false}))
			if in.HasShiftTwin(v) {
				out = append(out, in.instance(kcase{dt, bwd, v, true}))
			}
		}
	}
	return out
}

// Instance returns the kernel named symbol, of dtype dt.
func (in Info) Instance(dt spec.DType, symbol string) (Instance, bool) {
	for _, k := range in.Instances(dt) {
		if k.Symbol == symbol {
			return k, true
		}
	}
	return Instance{}, false
}

func (in Info) instance(c kcase) Instance {
	sym := Symbol(in.Strategy, c.dt, c.backward, c.v.Name)
	if c.shift {
		sym += ShiftSuffix
	}
	b, nt, mb := instancers[in.Strategy](c)
	if nt == 0 {
		nt = c.v.MaxThreads
	}
	return Instance{Symbol: sym, Threads: nt, MinBlocks: mb, Body: b}
}

// instancers maps each strategy to its kernels' template and bounds.
var instancers = map[Strategy]instancer{
	Naive: func(c kcase) (string, int, int) {
		if c.backward {
			return body("smx::naive_bwd", c.d()), 0, 0
		}
		return body("smx::naive_fwd", c.d()), 0, 0
	},
	SmemTree: opOnly("smx::smem_tree_kernel"),
	BlockVec: func(c kcase) (string, int, int) { return body("smx::block_vec_fwd", c.d()), 0, 0 },
	WarpRow: func(c kcase) (string, int, int) {
		return body("smx::warp_row_kernel", withShift(c, c.op(), c.v.Lanes, c.v.Packs)...), 128, warpRowBlocks(c)
	},
	BlockReg:    blockRegInstance,
	BlockHybrid: blockHybridInstance,
	BlockSmem: func(c kcase) (string, int, int) {
		return body("smx::block_smem_kernel", withShift(c, c.op())...), 0, 0
	},
	Online2Pass: func(c kcase) (string, int, int) {
		b := body("smx::online_2pass_kernel", withShift(c, c.op())...)
		if c.backward {
			return b, 0, 2 // two inputs in flight: two 512-thread blocks an SM
		}
		return b, 0, 0
	},
	SplitRow:     func(c kcase) (string, int, int) { return body("smx::split_row_"+c.v.Name, c.op()), 0, 0 },
	SplitCluster: opOnly("smx::split_cluster_kernel"),
	SplitGrid: func(c kcase) (string, int, int) {
		return body("smx::split_grid_kernel", c.op(), c.v.Name == "waves"), 0, 0
	},
	Strided:    stridedInstance,
	StridedReg: stridedRegInstance,
	StridedShort: func(c kcase) (string, int, int) {
		return body("smx::strided_short_kernel", c.op(), max(c.v.Lanes, 1), c.v.Packs, c.shift), 0, 0
	},
	StridedNarrow: stridedNarrowInstance,
	StridedSmem: func(c kcase) (string, int, int) {
		return body("smx::strided_smem_kernel", c.op(), c.v.Name == StridedSmemTiles), 0, 0
	},
	FlatRows: func(c kcase) (string, int, int) {
		var w, n int
		fmt.Sscanf(c.v.Name, "w%d_n%d", &w, &n)
		return body("smx::flat_rows_kernel", c.op(), w, n), 0, 0
	},
	Persistent: func(c kcase) (string, int, int) {
		switch {
		case c.v.Name == "2pass":
			return body("smx::persistent_2pass", c.op()), 0, 0
		case c.v.Lanes == 32:
			return body("smx::persistent_warp", c.op(), c.v.Packs), 0, 0
		}
		return body("smx::persistent_block", c.op(), c.v.Packs), 0, 0
	},
	Pipelined: func(c kcase) (string, int, int) {
		return body("smx::pipelined_kernel", c.op(), c.v.Lanes == 32), 0, 0
	},
}

// opOnly is the instancer of a template taking only the op.
func opOnly(fn string) instancer {
	return func(c kcase) (string, int, int) { return body(fn, c.op()), 0, 0 }
}
