package plan

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// XentProblem is one cross-entropy (or log-sum-exp of rows) call to plan:
// Rows × V logits of DType, the rows starting Skew bytes past a 16-byte
// boundary (the first row; later rows shift by V·esize).
type XentProblem struct {
	Rows, V int64
	DType   spec.DType
}

// XentPlan is the row kernel of a call and its launch; xent_prep and
// xent_final run before and after it with one block of
// kernels.XentOneBlock threads.
type XentPlan struct {
	Kernel kernels.XentRow
	Symbol string
	Grid   uint32
	Block  uint32
	Reason string // the table row chosen
}

// XentRowTable is a parsed row of xent.tsv.
type XentRowTable struct {
	ESize       int   // 0: any
	Cols        int64 // 0: any
	Kernel      kernels.XentRow
	BlocksPerSM int
	Evidence    string
}

//go:embed xent.tsv
var xentTSV string

// XentTable is the embedded table of the cross-entropy row kernels.
var XentTable = mustXentTable(xentTSV)

func mustXentTable(text string) []XentRowTable {
	t, err := ParseXentTable(text)
	if err != nil {
		panic(err)
	}
	return t
}

// ParseXentTable parses xent.tsv's format: a header line, then esize,
// cols, threads, packs, blocks_per_sm, evidence; # lines are comments.
// Each row's kernel must be one of kernels.XentRows, and the last row must
// serve any row.
func ParseXentTable(text string) ([]XentRowTable, error) {
	var out []XentRowTable
	header := false
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if !header {
			header = true
			continue
		}
		if len(f) != 6 {
			return nil, fmt.Errorf("plan: xent.tsv line %d: %d columns, want 6", i+1, len(f))
		}
		var r XentRowTable
		var err error
		num := func(s string) int64 {
			if s == "*" || err != nil {
				return 0
			}
			var n int64
			n, err = strconv.ParseInt(s, 10, 64)
			return n
		}
		r.ESize, r.Cols = int(num(f[0])), num(f[1])
		r.Kernel = kernels.XentRow{Threads: int(num(f[2])), Packs: int(num(f[3]))}
		r.BlocksPerSM, r.Evidence = int(num(f[4])), f[5]
		if err != nil {
			return nil, fmt.Errorf("plan: xent.tsv line %d: %w", i+1, err)
		}
		known := false
		for _, k := range kernels.XentRows {
			known = known || k == r.Kernel
		}
		if !known || r.BlocksPerSM < 1 {
			return nil, fmt.Errorf("plan: xent.tsv line %d: kernel t%d_p%d (%d blocks an SM) is not one of kernels.XentRows", i+1, r.Kernel.Threads, r.Kernel.Packs, r.BlocksPerSM)
		}
		if r.Kernel.Packs > 0 && r.Cols > 0 {
			for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16} {
				if (r.ESize == 0 || r.ESize == dt.Size()) && r.Cols > r.Kernel.Cols(dt) {
					return nil, fmt.Errorf("plan: xent.tsv line %d: %d columns of %v exceed the kernel's %d", i+1, r.Cols, dt, r.Kernel.Cols(dt))
				}
			}
		}
		out = append(out, r)
	}
	if len(out) == 0 || out[len(out)-1].Cols != 0 || out[len(out)-1].Kernel.Packs != 0 {
		return nil, fmt.Errorf("plan: xent.tsv: the last row must stream any row (cols *, packs 0)")
	}
	return out, nil
}

// PlanXent chooses the row kernel of p on dev from XentTable. A cached
// kernel must hold the row from its 16-byte boundary: V plus up to a
// pack's worth of lead elements; a row whose kernel cannot (float64's
// packs hold half of float32's elements) passes to the next.
func PlanXent(p XentProblem, dev Device) (XentPlan, error) {
	return PlanXentWith(XentTable, p, dev)
}

// PlanXentWith is PlanXent over table t (tests).
func PlanXentWith(t []XentRowTable, p XentProblem, dev Device) (XentPlan, error) {
	if !p.DType.Valid() {
		return XentPlan{}, fmt.Errorf("plan: cross-entropy kernels for %v: none (f32, f16, bf16, f64)", p.DType)
	}
	if p.Rows < 0 || p.V < 1 {
		return XentPlan{}, fmt.Errorf("plan: cross-entropy of %d rows of %d classes", p.Rows, p.V)
	}
	need := p.V + int64(kernels.Pack(p.DType)) - 1
	for i, r := range t {
		if r.ESize != 0 && r.ESize != p.DType.Size() {
			continue
		}
		if r.Cols != 0 && need > r.Cols {
			continue
		}
		if r.Kernel.Packs > 0 && need > r.Kernel.Cols(p.DType) {
			continue
		}
		grid := int64(max(dev.SMs, 1)) * int64(r.BlocksPerSM)
		grid = max(min(grid, p.Rows), 1)
		return XentPlan{Kernel: r.Kernel, Symbol: r.Kernel.Symbol(p.DType), Grid: uint32(grid), Block: uint32(r.Kernel.Threads),
			Reason: fmt.Sprintf("xent.tsv row %d (cols %s): %s", i+1, colsName(r.Cols), r.Evidence)}, nil
	}
	return XentPlan{}, fmt.Errorf("plan: no xent.tsv row serves %d classes of %v", p.V, p.DType)
}

func colsName(c int64) string {
	if c == 0 {
		return "*"
	}
	return strconv.FormatInt(c, 10)
}

// XentColsProblem is a log-sum-exp along a non-last axis: Rows × V (the
// axis) × Inner elements of DType.
type XentColsProblem struct {
	Rows, V, Inner int64
	DType          spec.DType
}

// xentColsBlocksPerSM sizes the column kernel's grid; tiles beyond it loop
// in each block. Untimed (issue 73): enough 256-thread blocks to fill an
// SM's 2048 threads.
const xentColsBlocksPerSM = 8

// PlanXentCols returns the column kernel (kernels.XentColsKernels, the
// only one) and its launch for p: a block a tile of 32 columns of a row.
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
