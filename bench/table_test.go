package bench

import (
	"bytes"
	"strings"
	"testing"
)

// cuDNN and JAX records count for the fastest peer like the others, and the
// table's "vs best peer" cell names the one that won.
func TestBestPeerNewPeers(t *testing.T) {
	recs := sampleRecords()[1:2] // the pick of 64x1000 f32 at 16 µs
	peers := []PeerRecord{
		{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "torch", US: 40},
		{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "triton", US: 24},
		{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "cudnn", US: 20},
		{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "jax", US: 32},
	}
	if n := MergePeers(recs, peers); n != 1 {
		t.Fatalf("matched %d records, want 1", n)
	}
	if r := recs[0]; r.BestPeer != "cudnn" || r.BestPeerUS != 20 || r.VsBestPeer != 20.0/16 || r.VsTorch != 40.0/16 {
		t.Errorf("best peer %s %.1f µs, vs best %.3f, vs torch %.3f; want cudnn 20 µs, 1.25, 2.5",
			r.BestPeer, r.BestPeerUS, r.VsBestPeer, r.VsTorch)
	}
	peers[3].US = 12
	MergePeers(recs, peers)
	var buf bytes.Buffer
	if err := WriteTable(&buf, recs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "0.75× (jax)") {
		t.Errorf("table lacks jax as the best peer at 0.75×:\n%s", buf.String())
	}
}
