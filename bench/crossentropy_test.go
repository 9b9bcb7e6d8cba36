package bench

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

// The loss sweep makes the records of the softmax sweep: peers.py's SPEC
// and op names, the op's traffic, a copy ratio, and a peer merge by case.
func TestSweepLossRecords(t *testing.T) {
	cases, err := ParseSpecs("6x1000:f32,2x3x500:bf16:2")
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{OpCrossEntropy, OpLogSumExp} {
		recs, err := SweepLoss(op, cases, SweepOptions{Reps: 3, Warmup: 1})
		if err != nil || len(recs) != 2 {
			t.Fatalf("%s: %d records, %v", op, len(recs), err)
		}
		wantSpec := []string{"6x1000:f32:-1:" + op, "2x3x500:bf16:2:" + op}
		wantBytes := map[string][2]int64{OpCrossEntropy: {2 * 6000 * 4, 2 * 3000 * 2}, OpLogSumExp: {(6000 + 6) * 4, (3000 + 6) * 2}}[op]
		for i, r := range recs {
			if r.Spec != wantSpec[i] || r.Op != op || r.Bytes != wantBytes[i] || r.Error != "" || !r.IsChosen {
				t.Errorf("%s record %d: spec %q op %q bytes %d (want %q, %d), error %q, chosen %v",
					op, i, r.Spec, r.Op, r.Bytes, wantSpec[i], wantBytes[i], r.Error, r.IsChosen)
			}
			if !(r.US > 0 && r.CopyUS > 0 && r.CopyRatio > 0 && r.GBps > 0 && r.Reps == 3) {
				t.Errorf("%s record %d: timing columns missing: %+v", op, i, r)
			}
		}
		// peers.py writes the same case with axis −1 (or its positive
		// form), the same op name; other ops and the forward alone stay out.
		peers := []PeerRecord{
			{Shape: []int{6, 1000}, DType: "f32", Axis: -1, Op: op, Peer: TorchPeer, US: 2 * recs[0].US},
			{Shape: []int{2, 3, 500}, DType: "bf16", Axis: -1, Op: op, Peer: "torch.compile", US: recs[1].US / 2},
			{Shape: []int{6, 1000}, DType: "f32", Axis: -1, Op: "cross_entropy_forward", Peer: "triton", US: 1e-9},
			{Shape: []int{6, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "triton", US: 1e-9},
		}
		if n := MergePeers(recs, peers); n != 2 {
			t.Fatalf("%s: MergePeers matched %d records, want 2", op, n)
		}
		if r := recs[0]; !near(r.VsTorch, 2) || r.BestPeer != TorchPeer || len(r.Peers) != 1 {
			t.Errorf("%s record 0 peers: %+v", op, r)
		}
		if r := recs[1]; r.VsTorch != 0 || r.BestPeer != "torch.compile" || !near(r.VsBestPeer, 0.5) {
			t.Errorf("%s record 1 peers: %+v", op, r)
		}
		var buf bytes.Buffer
		if err := WriteTable(&buf, recs); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{op, "vs torch", "2.00×", "0.50× (torch.compile)"} {
			if !strings.Contains(buf.String(), s) {
				t.Errorf("%s table lacks %q:\n%s", op, s, buf.String())
			}
		}
	}
}

func TestSweepLossErrors(t *testing.T) {
	c := Case{Shape: []int{4, 10}, DType: spec.Float32, Axis: 0}
	recs, err := SweepLoss(OpCrossEntropy, []Case{c}, SweepOptions{Reps: 1})
	if err == nil || len(recs) != 1 || !strings.Contains(recs[0].Error, "last (class) axis") {
		t.Errorf("axis 0: %+v, %v", recs, err)
	}
	if _, err := SweepLoss("softmax", nil, SweepOptions{Reps: 1}); err == nil {
		t.Error("SweepLoss took op softmax")
	}
	if _, err := SweepLoss(OpLogSumExp, nil, SweepOptions{Reps: 0}); err == nil {
		t.Error("SweepLoss took reps 0")
	}
	if _, err := SweepLoss(OpLogSumExp, nil, SweepOptions{Reps: 1, Algo: "nope"}); err == nil {
		t.Error("SweepLoss took algo nope")
	}
	stop := make(chan struct{})
	close(stop)
	recs, err = SweepLoss(OpLogSumExp, []Case{{Shape: []int{2, 8}, DType: spec.Float32, Axis: -1}}, SweepOptions{Reps: 1, Stop: stop})
	if len(recs) != 0 || !errors.Is(err, ErrInterrupted) {
		t.Errorf("stopped sweep: %+v, %v", recs, err)
	}
}
