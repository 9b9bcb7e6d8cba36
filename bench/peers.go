package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// PeerRecord is one timing written by bench/peers/peers.py: a peer
// implementation (torch, torch.compile, triton, cudnn, jax; torch with
// --cpu) on one case, with its own reference copy. Any peer name counts
// for the fastest peer (VsBestPeer).
type PeerRecord struct {
	Shape  []int   `json:"shape"`
	DType  string  `json:"dtype"`
	Axis   int     `json:"axis"`
	Op     string  `json:"op"`
	Peer   string  `json:"peer"`
	US     float64 `json:"us"`      // median µs
	CopyUS float64 `json:"copy_us"` // the peer device's copy of the same bytes, median µs
	Device string  `json:"device"`
	// Offset is peers.py's --offset: the tensors started this many
	// elements past an aligned allocation (0: aligned).
	Offset int `json:"offset,omitempty"`
}

// TorchPeer is the name of the eager PyTorch peer, the denominator of the
// "vs torch" column.
const TorchPeer = "torch"

// LoadPeers reads a peers JSON file: an array of PeerRecord, an object
// with a "records" array, or one record per line. Records without a peer
// name or a positive time are dropped.
func LoadPeers(path string) ([]PeerRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	recs, err := parsePeers(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []PeerRecord
	for _, r := range recs {
		if r.Peer != "" && r.US > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

func parsePeers(data []byte) ([]PeerRecord, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	var recs []PeerRecord
	switch data[0] {
	case '[':
		err := json.Unmarshal(data, &recs)
		return recs, err
	case '{':
		var wrapped struct {
			Records *[]PeerRecord `json:"records"`
		}
		if err := json.Unmarshal(data, &wrapped); err == nil && wrapped.Records != nil {
			return *wrapped.Records, nil
		}
		// JSON lines.
		dec := json.NewDecoder(bytes.NewReader(data))
		for dec.More() {
			var r PeerRecord
			if err := dec.Decode(&r); err != nil {
				return nil, err
			}
			recs = append(recs, r)
		}
		return recs, nil
	}
	return nil, fmt.Errorf("not a JSON array or object")
}

// peerKey identifies a case across our records and the peers': shape,
// dtype, axis counted from the front, op, offset.
func peerKey(shape []int, dtype string, axis int, op string, offset int) string {
	if axis < 0 {
		axis += len(shape)
	}
	return ShapeString(shape) + "|" + dtype + "|" + strconv.Itoa(axis) + "|" + op + "|" + strconv.Itoa(offset)
}

// MergePeers adds the peer columns to the records: for each record the
// peers' medians on the same case (Peers), torch's time and VsTorch =
// t_torch / t_ours, and the fastest peer with VsBestPeer = t_best / t_ours
// (above 1: we are faster). A record matches the peers' timings of the
// same case at the same offset (peers.py --offset; aligned peer timings do
// not stand for offset tensors). Records without a match are left as they
// are. It returns the number of records that found peers.
func MergePeers(recs []Record, peers []PeerRecord) int {
	byCase := map[string][]PeerRecord{}
	for _, p := range peers {
		k := peerKey(p.Shape, p.DType, p.Axis, p.Op, p.Offset)
		byCase[k] = append(byCase[k], p)
	}
	matched := 0
	for i := range recs {
		r := &recs[i]
		ps := byCase[peerKey(r.Shape, r.DType, r.Axis, r.Op, r.Offset)]
		if len(ps) == 0 {
			continue
		}
		matched++
		r.Peers = map[string]float64{}
		for _, p := range ps {
			// Several runs of one peer: keep the fastest median.
			if old, ok := r.Peers[p.Peer]; !ok || p.US < old {
				r.Peers[p.Peer] = p.US
			}
			if r.PeerDevice == "" {
				r.PeerDevice = p.Device
			}
		}
		r.TorchUS, r.VsTorch, r.BestPeer, r.BestPeerUS, r.VsBestPeer = 0, 0, "", 0, 0
		if t, ok := r.Peers[TorchPeer]; ok {
			r.TorchUS = t
			if r.US > 0 {
				r.VsTorch = t / r.US
			}
		}
		names := make([]string, 0, len(r.Peers))
		for n := range r.Peers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if t := r.Peers[n]; r.BestPeer == "" || t < r.BestPeerUS {
				r.BestPeer, r.BestPeerUS = n, t
			}
		}
		if r.US > 0 {
			r.VsBestPeer = r.BestPeerUS / r.US
		}
	}
	return matched
}

// PeerNames returns the peer names found in the records, sorted.
func PeerNames(recs []Record) []string {
	seen := map[string]bool{}
	for _, r := range recs {
		for n := range r.Peers {
			seen[n] = true
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// peerLabel shortens a peer device name for headers.
func peerLabel(recs []Record) string {
	for _, r := range recs {
		if r.PeerDevice != "" {
			return strings.TrimSpace(r.PeerDevice)
		}
	}
	return ""
}
