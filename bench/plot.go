package bench

import (
	"bytes"
	"fmt"
	"image/color"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// series is one line of the plot: GB/s against traffic bytes.
type series struct {
	name string
	pts  map[int64]float64 // bytes → GB/s (the best when several cases share a size)
}

func (s *series) add(bytes int64, gbps float64) {
	if gbps <= 0 || bytes <= 0 {
		return
	}
	if s.pts == nil {
		s.pts = map[int64]float64{}
	}
	if old, ok := s.pts[bytes]; !ok || gbps > old {
		s.pts[bytes] = gbps
	}
}

func (s *series) xys() plotter.XYs {
	keys := make([]int64, 0, len(s.pts))
	for k := range s.pts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	xy := make(plotter.XYs, len(keys))
	for i, k := range keys {
		xy[i].X, xy[i].Y = float64(k), s.pts[k]
	}
	return xy
}

// WritePlot draws GB/s against the op's traffic in bytes (log x) as an SVG
// (or PNG/PDF, by the file's extension): one line per strategy, the
// reference copy, and one line per peer when the records carry peer times,
// as in the Triton fused-softmax tutorial. The title names the device.
func WritePlot(path string, recs []Record) error {
	var lines []*series
	byName := map[string]*series{}
	get := func(name string) *series {
		if s, ok := byName[name]; ok {
			return s
		}
		s := &series{name: name}
		byName[name] = s
		lines = append(lines, s)
		return s
	}
	device := ""
	for _, r := range recs {
		if r.US <= 0 { // failed timings have no time
			continue
		}
		if device == "" {
			device = r.Device
		}
		get(r.Algo).add(r.Bytes, r.GBps)
	}
	copyLine := &series{name: "copy"}
	peerLines := map[string]*series{}
	var peerNames []string
	for _, r := range recs {
		if r.US <= 0 { // failed timings have no time
			continue
		}
		copyLine.add(r.Bytes, r.CopyGBps)
		for p, us := range r.Peers {
			s, ok := peerLines[p]
			if !ok {
				s = &series{name: p}
				peerLines[p] = s
				peerNames = append(peerNames, p)
			}
			s.add(r.Bytes, rate(r.Bytes, us))
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("plot: no successful timings to plot")
	}
	sort.Strings(peerNames)
	for _, p := range peerNames {
		lines = append(lines, peerLines[p])
	}
	if len(copyLine.pts) > 0 {
		lines = append(lines, copyLine)
	}

	p := plot.New()
	p.Title.Text = "softmax — " + device
	if pd := peerLabel(recs); pd != "" && len(peerNames) > 0 && pd != device {
		p.Title.Text += " (peers: " + pd + ")"
	}
	p.X.Label.Text = "op traffic (bytes, log scale)"
	p.Y.Label.Text = "GB/s"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = byteTicks{}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	for i, s := range lines {
		xy := s.xys()
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		c := plotutil.Color(i)
		l.Color, pts.Color = c, c
		pts.Shape = plotutil.Shape(i)
		if s == copyLine {
			l.Color, pts.Color = color.Gray{Y: 96}, color.Gray{Y: 96}
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	// A log axis needs a range: widen a single size to a factor of 4.
	if p.X.Min >= p.X.Max {
		x := p.X.Min
		p.X.Min, p.X.Max = x/2, x*2
	}
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1
	}
	p.Y.Max *= 1.08 // room for the legend
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if ext == "" {
		ext = "svg"
	}
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, ext)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// byteTicks are log ticks labelled in decimal byte units (1 MB, 10 GB).
type byteTicks struct{}

// Ticks implements plot.Ticker.
func (byteTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = formatBytes(ts[i].Value)
		}
	}
	return ts
}

// formatBytes writes a byte count with a decimal unit: 512 B, 1 kB, 10 MB.
func formatBytes(v float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	u := 0
	for v >= 1000 && u < len(units)-1 {
		v /= 1000
		u++
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " " + units[u]
}
