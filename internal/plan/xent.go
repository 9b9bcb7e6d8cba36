package plan

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/tsv"
)

// XentProblem is one cross-entropy (or log-sum-exp of rows) call to plan:
// Rows × V logits of DType.
type XentProblem struct {
	Rows, V int64
	DType   spec.DType
	Plain   bool // the call takes the "_plain" kernels (kernels.XentPlain)
	LSE     bool // log-sum-exp alone: no targets, loss or gradient
}

// XentPlan is the row kernel of a call and its launch (xent_prep and
// xent_final run around it in one block).
type XentPlan struct {
	Kernel kernels.XentRow
	Symbol string
	Grid   uint32
	Block  uint32
	Smem   uint32 // dynamic shared memory bytes
	Reason string // the table row chosen
}

// XentRowTable is a parsed row of xent.tsv.
type XentRowTable struct {
	LSE         bool  // calls "lse": log-sum-exp calls only
	ESize       int   // 0: any
	Cols        int64 // 0: any
	Kernel      kernels.XentRow
	BlocksPerSM int
	Evidence    string
	cols        string // as written, for reasons
}

//go:embed xent.tsv
var xentTSV string

// XentTable is the embedded table of the cross-entropy row kernels.
var XentTable = func() []XentRowTable {
	t, err := ParseXentTable(xentTSV)
	if err != nil {
		panic(err) // a malformed embedded table is a build error
	}
	return t
}()

var xentColumns = []string{"calls", "esize", "cols", "threads", "packs", "stash", "tail", "blocks_per_sm", "evidence"}

// ParseXentTable parses xent.tsv (columns xentColumns, * any); each row's
// kernel is one of kernels.XentRows, and the last row serves any row.
func ParseXentTable(text string) ([]XentRowTable, error) {
	var out []XentRowTable
	err := tsv.Rows(text, xentColumns, func(f []string) error {
		if f[0] != "*" && f[0] != "lse" {
			return fmt.Errorf("calls %q (* or lse)", f[0])
		}
		var n [7]int64
		for i := range n {
			if v, err := strconv.ParseInt(f[i+1], 10, 64); err == nil {
				n[i] = v
			} else if f[i+1] != "*" {
				return fmt.Errorf("%s %q", xentColumns[i+1], f[i+1])
			}
		}
		if n[5] != 0 && n[5] != 1 {
			return fmt.Errorf("tail %q (0 or 1)", f[6])
		}
		r := XentRowTable{LSE: f[0] == "lse", ESize: int(n[0]), Cols: n[1],
			Kernel:      kernels.XentRow{Threads: int(n[2]), Packs: int(n[3]), Stash: int(n[4]), Tail: n[5] == 1},
			BlocksPerSM: int(n[6]), Evidence: f[8], cols: f[2]}
		if !slices.Contains(kernels.XentRows, r.Kernel) || r.BlocksPerSM < 1 {
			return fmt.Errorf("kernel %s (%d blocks an SM) is not one of kernels.XentRows", strings.TrimPrefix(r.Kernel.Symbol(spec.Float32, false), "xent_row_f32_"), r.BlocksPerSM)
		}
		for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16} {
			if r.Cols > 0 && (r.ESize == 0 || r.ESize == dt.Size()) && !r.Kernel.Holds(r.Cols, dt) {
				return fmt.Errorf("%d columns of %v exceed the kernel's %d", r.Cols, dt, r.Kernel.Cols(dt))
			}
		}
		out = append(out, r)
		return nil
	})
	if err == nil && (len(out) == 0 || out[len(out)-1].LSE || out[len(out)-1].Cols != 0 || out[len(out)-1].Kernel.Packs != 0) {
		err = fmt.Errorf("the last row must stream any row of any call (calls *, cols *, packs 0)")
	}
	if err != nil {
		return nil, fmt.Errorf("plan: xent.tsv: %w", err)
	}
	return out, nil
}

// PlanXent chooses the row kernel of p on dev from XentTable: the first
// row whose kernel holds V from the pack boundary before the row.
func PlanXent(p XentProblem, dev Device) (XentPlan, error) {
	if !p.DType.Valid() {
		return XentPlan{}, fmt.Errorf("plan: cross-entropy kernels for %v: none (f32, f16, bf16, f64)", p.DType)
	}
	if p.Rows < 0 || p.V < 1 {
		return XentPlan{}, fmt.Errorf("plan: cross-entropy of %d rows of %d classes", p.Rows, p.V)
	}
	need := p.V + int64(kernels.Pack(p.DType)) - 1
	if p.Plain {
		need = p.V
	}
	for i, r := range XentTable {
		if r.ESize != 0 && r.ESize != p.DType.Size() || r.Cols != 0 && need > r.Cols || !r.Kernel.Holds(need, p.DType) {
			continue
		}
		if r.Kernel.PlainOnly() && !p.Plain || r.Kernel.SmemBytes() > dev.SmemOptin || r.LSE && !p.LSE {
			continue // a stash or tail: plain calls; a stash: room for it; an lse row: log-sum-exp calls
		}
		grid := max(min(int64(max(dev.SMs, 1))*int64(r.BlocksPerSM), p.Rows), 1)
		return XentPlan{Kernel: r.Kernel, Symbol: r.Kernel.Symbol(p.DType, p.Plain), Grid: uint32(grid), Block: uint32(r.Kernel.Threads),
			Smem:   uint32(r.Kernel.SmemBytes()),
			Reason: fmt.Sprintf("xent.tsv row %d (cols %s): %s", i+1, r.cols, r.Evidence)}, nil
	}
	return XentPlan{}, fmt.Errorf("plan: no xent.tsv row serves %d classes of %v", p.V, p.DType)
}

// XentColsProblem is a log-sum-exp along a non-last axis: Rows × V (the
// axis) × Inner elements of DType.
type XentColsProblem struct {
	Rows, V, Inner int64
	DType          spec.DType
}

// xentColsBlocksPerSM sizes the column kernel's grid (untimed: 256-thread
// blocks filling an SM's 2048 threads).
const xentColsBlocksPerSM = 8

// PlanXentCols returns the column kernel and its launch for p: a block a
// tile of 32 columns of a row.
func PlanXentCols(p XentColsProblem, dev Device) (XentPlan, error) {
	if !p.DType.Valid() {
		return XentPlan{}, fmt.Errorf("plan: log-sum-exp kernels for %v: none (f32, f16, bf16, f64)", p.DType)
	}
	if p.Rows < 0 || p.V < 1 || p.Inner < 1 {
		return XentPlan{}, fmt.Errorf("plan: log-sum-exp of %d × %d × %d elements along the middle axis", p.Rows, p.V, p.Inner)
	}
	k := kernels.XentColsKernels[0]
	tiles := p.Rows * ((p.Inner + 31) / 32)
	grid := max(min(int64(max(dev.SMs, 1))*xentColsBlocksPerSM, tiles), 1)
	return XentPlan{Symbol: k.Symbol(p.DType), Grid: uint32(grid), Block: uint32(k.Threads),
		Reason: fmt.Sprintf("xent_lse_cols: the one column kernel, %d blocks an SM (untimed)", xentColsBlocksPerSM)}, nil
}
