package bench

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"text/tabwriter"
)

// Header returns the lines that head a benchmark table: the device, and on
// the CPU its model, kernel set and GOMAXPROCS.
func Header(b Backend) []string {
	lines := []string{"device: " + b.Name()}
	if b.Kind() == "cpu" {
		lines = append(lines, fmt.Sprintf("cpu: %s; kernels %s; GOMAXPROCS %d", CPUModel(), kernelLine(), runtime.GOMAXPROCS(0)))
	}
	return lines
}

// WriteTable writes the records as an aligned table: shape, dtype, axis,
// op, algo (with "*" on the planner's pick), median µs, p10–p90 µs, GB/s,
// copy ratio, and "vs torch" / "vs best peer" when any record has peers.
func WriteTable(w io.Writer, recs []Record) error {
	peers := len(PeerNames(recs)) > 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "shape\tdtype\taxis\top\talgo\tµs\tp10–p90 µs\tGB/s\tcopy ratio\t"
	if peers {
		head += "vs torch\tvs best peer\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range recs {
		algo := r.Algo
		if r.IsChosen {
			algo += "*"
		}
		shape := ShapeString(r.Shape)
		if r.Offset != 0 {
			shape += "+" + strconv.Itoa(r.Offset)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t", shape, r.DType, r.Axis, r.Op, algo)
		if r.Error != "" && r.US == 0 {
			fmt.Fprintf(tw, "failed\t-\t-\t-\t")
			if peers {
				fmt.Fprint(tw, "-\t-\t")
			}
			fmt.Fprintln(tw)
			continue
		}
		ratio := "-"
		if r.CopyRatio > 0 {
			ratio = strconv.FormatFloat(r.CopyRatio, 'f', 2, 64)
		}
		fmt.Fprintf(tw, "%s\t%s–%s\t%.1f\t%s\t", fmtUS(r.US), fmtUS(r.USP10), fmtUS(r.USP90), r.GBps, ratio)
		if peers {
			fmt.Fprintf(tw, "%s\t%s\t", fmtRatio(r.VsTorch), bestPeerCell(r))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// Legend returns the lines that explain the table's columns.
func Legend(recs []Record) []string {
	lines := []string{
		"µs: median of the reps; GB/s: minimum traffic (2 tensors forward, 3 backward) / median;",
		"copy ratio: t(copy of the same bytes) / t(op), 1.00 = copy speed; *: the planner's pick",
	}
	if slices.ContainsFunc(recs, func(r Record) bool { return IsLossOp(r.Op) }) {
		lines = append(lines, "cross_entropy (forward+backward): logits read + gradient written; logsumexp: logits read + one value per row")
	}
	if slices.ContainsFunc(recs, func(r Record) bool { return r.Offset != 0 }) {
		lines = append(lines, "shape+N: every tensor starts N elements past an aligned allocation (misaligned unless N·size is a multiple of 16)")
	}
	if len(PeerNames(recs)) > 0 {
		l := "vs torch: t(torch) / t(ours); vs best peer: t(fastest peer) / t(ours); above 1 = we are faster"
		if d := peerLabel(recs); d != "" {
			l += " (peers on " + d + ")"
		}
		lines = append(lines, l)
	}
	return lines
}

func fmtUS(us float64) string {
	switch {
	case us >= 1000:
		return strconv.FormatFloat(us, 'f', 0, 64)
	case us >= 10:
		return strconv.FormatFloat(us, 'f', 1, 64)
	}
	return strconv.FormatFloat(us, 'f', 2, 64)
}

func fmtRatio(v float64) string {
	if v <= 0 {
		return "-"
	}
	if v < 0.1 {
		return strconv.FormatFloat(v, 'g', 2, 64) + "×"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "×"
}

func bestPeerCell(r Record) string {
	if r.VsBestPeer <= 0 {
		return "-"
	}
	return fmtRatio(r.VsBestPeer) + " (" + r.BestPeer + ")"
}
