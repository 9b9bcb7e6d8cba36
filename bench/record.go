package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/gofused/softmax/internal/safefile"
)

// Record is the result of one (case, strategy) timing, as written by
// `softmax bench --json`. Times are in microseconds, rates in GB/s (10^9
// bytes per second) of the op's minimum traffic.
type Record struct {
	Spec  string `json:"spec"`  // the case's SPEC, e.g. "4096x65536:f32:0"
	Shape []int  `json:"shape"` // tensor shape
	DType string `json:"dtype"` // f32, f16, bf16
	Axis  int    `json:"axis"`  // as given (negative counts from the end)
	Op    string `json:"op"`    // softmax, log_softmax, softmax_backward, log_softmax_backward
	// Offset is Case.Offset: the tensors start this many elements past an
	// aligned allocation (misaligned pointers when not a whole 16 bytes).
	Offset int    `json:"offset,omitempty"`
	Algo   string `json:"algo"`   // the strategy timed
	Chosen string `json:"chosen"` // the strategy the planner picks for this case
	// IsChosen reports whether Algo is the planner's pick (a "*" in the table).
	IsChosen bool   `json:"is_chosen"`
	Device   string `json:"device"` // Backend.Name()
	Bytes    int64  `json:"bytes"`  // the op's minimum traffic (2 or 3 tensors)

	US    float64 `json:"us"`     // median time
	USMin float64 `json:"us_min"` // fastest rep
	USMax float64 `json:"us_max"` // slowest rep
	USP10 float64 `json:"us_p10"` // 10th percentile
	USP90 float64 `json:"us_p90"` // 90th percentile
	Reps  int     `json:"reps"`
	GBps  float64 `json:"gbps"` // Bytes / US

	CopyUS    float64 `json:"copy_us"`             // median time of the reference copy
	CopyP10   float64 `json:"copy_us_p10"`         // its 10th percentile
	CopyP90   float64 `json:"copy_us_p90"`         // its 90th percentile
	CopyGBps  float64 `json:"copy_gbps"`           // Bytes / CopyUS
	CopyRatio float64 `json:"copy_ratio"`          // CopyUS / US: 1 is copy speed
	CopyKind  string  `json:"copy_kind,omitempty"` // how the copy was done, when the backend says
	// L2Flushed reports that every timed rep (op and copy) started with the
	// GPU's L2 flushed (L2Flusher), as the peers script times by default.
	L2Flushed bool `json:"l2_flushed,omitempty"`

	// Peer columns, filled by MergePeers when --peers is given.
	Peers      map[string]float64 `json:"peers,omitempty"`        // peer name → median µs
	TorchUS    float64            `json:"torch_us,omitempty"`     // torch's time
	VsTorch    float64            `json:"vs_torch,omitempty"`     // TorchUS / US: above 1 means we are faster
	BestPeer   string             `json:"best_peer,omitempty"`    // the fastest peer
	BestPeerUS float64            `json:"best_peer_us,omitempty"` // its time
	VsBestPeer float64            `json:"vs_best_peer,omitempty"` // BestPeerUS / US
	PeerDevice string             `json:"peer_device,omitempty"`  // the device the peers ran on
	Error      string             `json:"error,omitempty"`        // set when the timing failed
}

// newRecord fills the case fields of a record.
func newRecord(c Case, device string) Record {
	return Record{
		Spec: c.String(), Shape: append([]int(nil), c.Shape...), DType: c.DType.String(),
		Axis: c.Axis, Op: c.Op.String(), Offset: c.Offset, Device: device, Bytes: c.Traffic(),
	}
}

// WriteJSON writes the records as an indented JSON array to path,
// atomically where it can, as internal/safefile writes (links followed,
// mode and owner kept).
func WriteJSON(path string, recs []Record) error {
	if recs == nil {
		recs = []Record{}
	}
	data, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(data, '\n'))
}

// ReadJSON reads records written by WriteJSON.
func ReadJSON(path string) ([]Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var recs []Record
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// writeFileAtomic writes data to path as internal/safefile does: through
// a temporary file renamed over path (removed on error), following
// symbolic links and keeping an existing file's mode and owner.
func writeFileAtomic(path string, data []byte) error {
	return safefile.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
