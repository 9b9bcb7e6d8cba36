package plan

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

// finalRun is the committed final run of `softmax bench --suite all` on an
// H200 (the README's table): every strategy timed, "chosen" the pick the
// planner made there with the driver's occupancy answers.
const finalRun = "../../bench/results/nvidia-h200-2026-11-28.json"

// The H200 model, planned without a GPU, picks what the planner picked on
// the H200 itself in the final run (every case, since the resource table
// came from NVRTC 13: the nvcc 11.8 one put 128 rows of 125 KB f32 under
// resident 8-block clusters, which the driver did not).
func TestH200ModelMatchesFinalRun(t *testing.T) {
	b, err := os.ReadFile(finalRun)
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Spec, DType, Op, Chosen string
		Shape                   []int
		Axis                    int
		IsChosen                bool `json:"is_chosen"`
	}
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if !r.IsChosen {
			continue
		}
		n++
		dt, err1 := spec.ParseDType(r.DType)
		op, err2 := spec.ParseOp(r.Op)
		l, err3 := spec.Decompose(r.Shape, r.Axis)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%s: %v %v %v", r.Spec, err1, err2, err3)
		}
		p := Problem{Outer: int64(l.Outer), Axis: int64(l.Axis), Inner: int64(l.Inner), DType: dt, Op: op, Aligned: true}
		pl, err := Make(p, Models["h200"], nil, "")
		if err != nil || pl.Strategy != r.Chosen {
			t.Errorf("%s: the model plans %s (%v), picked on the H200: %s", r.Spec, pl.Strategy, err, r.Chosen)
		}
	}
	if n != 50 {
		t.Errorf("%d picks in %s, want the 50 cases of suite all", n, finalRun)
	}
}

func TestModelNames(t *testing.T) {
	names := ModelNames()
	if len(names) != len(Models) || len(names) < 3 {
		t.Fatalf("ModelNames() = %v", names)
	}
	for i, n := range names {
		d := Models[n]
		if i > 0 && names[i-1] >= n {
			t.Errorf("not sorted: %v", names)
		}
		if d.SMs <= 0 || d.Major < 8 || d.SmemOptin < d.SmemPerBlock || d.L2Bytes <= 0 {
			t.Errorf("%s: incomplete properties %+v", n, d)
		}
	}
}
