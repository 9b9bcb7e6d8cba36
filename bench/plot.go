package bench

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// WritePlot draws the run as Triton's perf_report does, to path (.png,
// .svg or .pdf, by the extension; none means SVG). Cases that differ in
// one dimension alone (the tutorial suite's columns at 4096 rows) are a
// sweep: a line chart of GB/s against that dimension, one line for the
// planner's pick, each peer and the copy. Every other case is a row of a
// dot chart of copy ratios, the peers' beside ours. Each sweep, and each
// set of up to maxDotCases other cases, is a panel; every case of the run
// appears; one legend above the panels serves them all.
func WritePlot(path string, recs []Record) error {
	cases, series := plotCases(recs)
	if len(cases) == 0 {
		return fmt.Errorf("plot: no successful timings to plot")
	}
	panels := groupPanels(cases)
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if ext == "" {
		ext = "svg"
	}
	lay := layoutFigure(panels, cases, series)
	var (
		vc  vg.CanvasWriterTo
		err error
	)
	if ext == "png" {
		vc = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(lay.w, lay.h), vgimg.UseDPI(plotDPI),
			vgimg.UseBackgroundColor(color.White))}
	} else if vc, err = draw.NewFormattedCanvas(lay.w, lay.h, ext); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	c := draw.New(vc)
	c.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: lay.w, Y: 0}, {X: lay.w, Y: lay.h}, {X: 0, Y: lay.h}})
	styles := seriesStyles(series)
	drawHeader(c, lay, figureTitle(recs), figureNote(recs))
	drawLegend(c, lay, series, styles)
	for i, pn := range panels {
		p, err := panelPlot(pn, cases, series, styles)
		if err != nil {
			return err
		}
		p.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: lay.panels[i]})
	}
	var buf bytes.Buffer
	if _, err := vc.WriteTo(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// Figure geometry.
const (
	plotDPI      = 144
	figureWidth  = 11 * vg.Inch
	narrowWidth  = 7.5 * vg.Inch // a figure of one panel
	sweepHeight  = 3.6 * vg.Inch
	headerHeight = 0.62 * vg.Inch
	legendRow    = 0.26 * vg.Inch
	thumbWidth   = 24 // points
)

// figure is the layout: the size, the legend's rows and each panel's place.
type figure struct {
	w, h       vg.Length
	legendRows [][]int // series indices a row
	legendTop  vg.Length
	panels     []vg.Rectangle
}

// layoutFigure places the header, the legend (wrapped to the width) and
// the panels: sweeps two a row, copy-ratio panels the full width, as tall
// as their cases need.
func layoutFigure(panels []panel, cases []plotCase, series []string) figure {
	f := figure{w: figureWidth}
	if len(panels) == 1 {
		f.w = narrowWidth
	}
	sty := textStyle(10)
	x, row := vg.Length(0), []int{}
	avail := f.w - 0.6*vg.Inch
	for i, s := range series {
		wd := legendEntryWidth(sty, s)
		if len(row) > 0 && x+wd > avail {
			f.legendRows = append(f.legendRows, row)
			row, x = nil, 0
		}
		row = append(row, i)
		x += wd
	}
	if len(row) > 0 {
		f.legendRows = append(f.legendRows, row)
	}
	sweeps := 0
	for _, p := range panels {
		if p.Sweep {
			sweeps++
		}
	}
	cols := 1
	if sweeps > 1 {
		cols = 2
	}
	// Heights from the top; converted to rectangles below.
	legendH := vg.Length(len(f.legendRows))*legendRow + 0.25*vg.Inch
	y := headerHeight + legendH
	tops := make([]vg.Length, len(panels))
	heights := make([]vg.Length, len(panels))
	lefts := make([]vg.Length, len(panels))
	widths := make([]vg.Length, len(panels))
	k := 0
	for i, p := range panels {
		if !p.Sweep {
			continue
		}
		col := k % cols
		if col == 0 && k > 0 {
			y += sweepHeight
		}
		tops[i], heights[i] = y, sweepHeight
		lefts[i], widths[i] = vg.Length(col)*f.w/vg.Length(cols), f.w/vg.Length(cols)
		k++
	}
	if sweeps > 0 {
		y += sweepHeight
	}
	for i, p := range panels {
		if p.Sweep {
			continue
		}
		perCase := max(0.3*vg.Inch, vg.Length(len(series))*0.075*vg.Inch)
		h := 1.0*vg.Inch + vg.Length(len(p.Cases))*perCase
		tops[i], heights[i], lefts[i], widths[i] = y, h, 0, f.w
		y += h
	}
	f.h = y + 0.1*vg.Inch
	f.legendTop = f.h - headerHeight
	for i := range panels {
		f.panels = append(f.panels, vg.Rectangle{
			Min: vg.Point{X: lefts[i] + 0.1*vg.Inch, Y: f.h - tops[i] - heights[i] + 0.08*vg.Inch},
			Max: vg.Point{X: lefts[i] + widths[i] - 0.15*vg.Inch, Y: f.h - tops[i] - 0.06*vg.Inch},
		})
	}
	return f
}

// textStyle is the figure's sans-serif text at size points.
func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, size),
		Handler: plot.DefaultTextHandler,
	}
}

func legendEntryWidth(sty text.Style, name string) vg.Length {
	return vg.Points(thumbWidth) + 5 + sty.Width(name) + vg.Points(18)
}

// figureTitle names the device and the peers' device.
func figureTitle(recs []Record) string {
	dev := ""
	for _, r := range recs {
		if r.Device != "" {
			dev = r.Device
			break
		}
	}
	t := "softmax on " + dev
	if pd := peerLabel(recs); pd != "" && pd != dev {
		t += "; peers on " + pd
	}
	return t
}

// figureNote says how the run timed: reps, the L2 flush, the copy.
func figureNote(recs []Record) string {
	for _, r := range recs {
		if r.US <= 0 {
			continue
		}
		s := "median of " + strconv.Itoa(r.Reps) + " reps"
		if r.L2Flushed {
			s += ", L2 flushed before each"
		}
		s += "; copy: the same bytes"
		if r.CopyKind != "" {
			s += " by " + r.CopyKind
		}
		return s + ", timed in the same run; GB/s = minimum traffic (2 tensors forward, 3 backward) / time"
	}
	return ""
}

// drawHeader writes the title and the note, shrinking a title too wide.
func drawHeader(c draw.Canvas, f figure, title, note string) {
	sty := textStyle(13)
	for sty.Width(title) > f.w-0.3*vg.Inch && sty.Font.Size > 7 {
		sty.Font.Size--
	}
	sty.XAlign = draw.XCenter
	c.FillText(sty, vg.Point{X: f.w / 2, Y: f.h - 0.3*vg.Inch}, title)
	ns := textStyle(9)
	ns.Color = color.Gray{Y: 70}
	for ns.Width(note) > f.w-0.3*vg.Inch && ns.Font.Size > 6 {
		ns.Font.Size--
	}
	ns.XAlign = draw.XCenter
	c.FillText(ns, vg.Point{X: f.w / 2, Y: f.h - 0.52*vg.Inch}, note)
}

// drawLegend draws the rows of entries, centred, below the header.
func drawLegend(c draw.Canvas, f figure, series []string, styles map[string]seriesStyle) {
	sty := textStyle(10)
	sty.YAlign = draw.YCenter
	for r, row := range f.legendRows {
		total := vg.Length(0)
		for _, i := range row {
			total += legendEntryWidth(sty, series[i])
		}
		x := (f.w - total) / 2
		y := f.legendTop - vg.Length(r)*legendRow - legendRow/2
		for _, i := range row {
			st := styles[series[i]]
			st.thumbnail(c, x, y)
			c.FillText(sty, vg.Point{X: x + vg.Points(thumbWidth) + 5, Y: y}, series[i])
			x += legendEntryWidth(sty, series[i])
		}
	}
}

// seriesStyle is how a series is drawn: colour, marker, line.
type seriesStyle struct {
	color  color.Color
	glyph  draw.GlyphDrawer // nil: a line alone (the copy)
	dashes []vg.Length
	width  vg.Length
}

func (s seriesStyle) line() draw.LineStyle {
	return draw.LineStyle{Color: s.color, Width: s.width, Dashes: s.dashes}
}

func (s seriesStyle) glyphStyle() draw.GlyphStyle {
	return draw.GlyphStyle{Color: s.color, Radius: vg.Points(3.2), Shape: s.glyph}
}

func (s seriesStyle) thumbnail(c draw.Canvas, x, y vg.Length) {
	c.StrokeLine2(s.line(), x, y, x+vg.Points(thumbWidth), y)
	if s.glyph != nil {
		c.DrawGlyphNoClip(s.glyphStyle(), vg.Point{X: x + vg.Points(thumbWidth)/2, Y: y})
	}
}

func rgb(hex uint32) color.Color {
	return color.RGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 255}
}

// fixedStyles gives the pick, the known peers and the copy the same look in
// every plot; other series take extraStyles in turn.
var fixedStyles = map[string]seriesStyle{
	pickSeries:      {color: rgb(0x1f77b4), glyph: draw.CircleGlyph{}, width: vg.Points(2)},
	TorchPeer:       {color: rgb(0xff7f0e), glyph: draw.BoxGlyph{}, width: vg.Points(1.2)},
	"torch.compile": {color: rgb(0x2ca02c), glyph: draw.PyramidGlyph{}, width: vg.Points(1.2)},
	"triton":        {color: rgb(0xd62728), glyph: diamondGlyph{}, width: vg.Points(1.2)},
	"cudnn":         {color: rgb(0x9467bd), glyph: downTriangleGlyph{}, width: vg.Points(1.2)},
	"jax":           {color: rgb(0x8c564b), glyph: draw.CrossGlyph{}, width: vg.Points(1.2)},
	copySeries:      {color: color.Gray{Y: 110}, dashes: []vg.Length{vg.Points(5), vg.Points(3)}, width: vg.Points(1.2)},
}

var extraColors = []uint32{0x17becf, 0xe377c2, 0xbcbd22, 0x7f7f7f, 0x393b79, 0xad494a, 0x637939, 0x843c39}
var extraGlyphs = []draw.GlyphDrawer{draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}}

func seriesStyles(series []string) map[string]seriesStyle {
	m := map[string]seriesStyle{}
	n := 0
	for _, s := range series {
		if st, ok := fixedStyles[s]; ok {
			m[s] = st
			continue
		}
		m[s] = seriesStyle{color: rgb(extraColors[n%len(extraColors)]), glyph: extraGlyphs[n%len(extraGlyphs)], width: vg.Points(1.2)}
		n++
	}
	return m
}

// diamondGlyph is a filled diamond.
type diamondGlyph struct{}

func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.25
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.Fill(p)
}

// downTriangleGlyph is a filled triangle pointing down.
type downTriangleGlyph struct{}

func (downTriangleGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r*0.87, Y: pt.Y + r/2})
	p.Line(vg.Point{X: pt.X + r*0.87, Y: pt.Y + r/2})
	p.Close()
	c.Fill(p)
}

// newPanelPlot returns a plot with the figure's fonts.
func newPanelPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	// Fonts only: the default styles hold the alignments and rotations.
	p.Title.TextStyle.Font = textStyle(11).Font
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = textStyle(10).Font
		a.Tick.Label.Font = textStyle(8.5).Font
	}
	p.Add(plotter.NewGrid())
	return p
}

func panelPlot(pn panel, cases []plotCase, series []string, styles map[string]seriesStyle) (*plot.Plot, error) {
	if pn.Sweep {
		return sweepPlot(pn, cases, series, styles)
	}
	return ratioPlot(pn, cases, series, styles)
}

// sweepPlot draws GB/s against the swept dimension, one line a series.
func sweepPlot(pn panel, cases []plotCase, series []string, styles map[string]seriesStyle) (*plot.Plot, error) {
	p := newPanelPlot(pn.title(cases))
	p.X.Label.Text = pn.xLabel(cases)
	p.Y.Label.Text = "GB/s"
	lo, hi := math.Inf(1), 0.0
	for _, i := range pn.Cases {
		n := float64(cases[i].Shape[pn.Dim])
		lo, hi = math.Min(lo, n), math.Max(hi, n)
	}
	if hi >= 8*lo {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = pow2Ticks{}
	} else {
		p.X.Tick.Marker = sizeTicks{}
	}
	p.Y.Min = 0
	for _, s := range series {
		var xy plotter.XYs
		for _, i := range pn.Cases {
			if g := cases[i].gbps(s); g > 0 {
				xy = append(xy, plotter.XY{X: float64(cases[i].Shape[pn.Dim]), Y: g})
			}
		}
		if len(xy) == 0 {
			continue
		}
		st := styles[s]
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.LineStyle = st.line()
		p.Add(l)
		if st.glyph != nil {
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = st.glyphStyle()
			p.Add(sc)
		}
	}
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.05
	if hi >= 8*lo {
		p.X.Min, p.X.Max = lo/math.Pow(hi/lo, 0.03), hi*math.Pow(hi/lo, 0.03)
	} else {
		pad := math.Max((hi-lo)*0.03, lo*0.05)
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	return p, nil
}

// ratioPlot draws each case's copy ratios as a row of dots, one a series,
// side by side within the case's band, with the copy's 1 as a dashed line.
func ratioPlot(pn panel, cases []plotCase, series []string, styles map[string]seriesStyle) (*plot.Plot, error) {
	p := newPanelPlot(pn.title(cases))
	p.X.Label.Text = "copy ratio = t(copy) / t(op): 1 is copy speed, higher is faster"
	var drawn []string
	lo, hi := 1.0, 1.0
	for _, s := range series {
		if s == copySeries {
			continue
		}
		any := false
		for _, i := range pn.Cases {
			if r := cases[i].ratio(s); r > 0 {
				lo, hi, any = math.Min(lo, r), math.Max(hi, r), true
			}
		}
		if any {
			drawn = append(drawn, s)
		}
	}
	n := len(pn.Cases)
	var ticks []plot.Tick
	for k, i := range pn.Cases {
		ticks = append(ticks, plot.Tick{Value: float64(n - 1 - k), Label: cases[i].label()})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	logX := lo < 0.2
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = ratioTicks{}
		p.X.Min, p.X.Max = lo/1.25, hi*1.25
	} else {
		p.X.Tick.Marker = tenthTicks{}
		p.X.Min, p.X.Max = 0, hi*1.08
	}
	band := 0.7 / float64(max(1, len(drawn)))
	for j, s := range drawn {
		var xy plotter.XYs
		for k, i := range pn.Cases {
			if r := cases[i].ratio(s); r > 0 {
				y := float64(n-1-k) + (float64(len(drawn)-1)/2-float64(j))*band
				xy = append(xy, plotter.XY{X: r, Y: y})
			}
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = styles[s].glyphStyle()
		p.Add(sc)
	}
	if st, ok := styles[copySeries]; ok {
		l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: p.Y.Min}, {X: 1, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = st.line()
		p.Add(l)
	}
	return p, nil
}

// pow2Ticks label the powers of two of a log axis (256, 1k, 32k, 1M; k =
// 1024), with the ones between them as minor ticks where labels would crowd.
type pow2Ticks struct{}

// Ticks implements plot.Ticker.
func (pow2Ticks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	lo, hi := int(math.Ceil(math.Log2(min))), int(math.Floor(math.Log2(max)))
	step := 1
	for (hi-lo)/step > 9 {
		step++
	}
	for e := lo; e <= hi; e++ {
		t := plot.Tick{Value: math.Exp2(float64(e))}
		if (e-lo)%step == 0 {
			t.Label = formatCount(t.Value)
		}
		ts = append(ts, t)
	}
	return ts
}

// sizeTicks are a linear axis's default ticks written as counts.
type sizeTicks struct{}

// Ticks implements plot.Ticker.
func (sizeTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = formatCount(ts[i].Value)
		}
	}
	return ts
}

// formatCount writes a dimension: 768, 16k, 32M (k = 1024) when it is a
// whole multiple, else the number.
func formatCount(v float64) string {
	n := int64(math.Round(v))
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	case n >= 16<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// ratioTicks label a log axis of ratios at 1, 2, 5 times powers of ten,
// with minor ticks at the other multiples.
type ratioTicks struct{}

// Ticks implements plot.Ticker.
func (ratioTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, e)
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v} // minor
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// tenthTicks mark a linear ratio axis every 0.1, labelled every 0.2.
type tenthTicks struct{}

// Ticks implements plot.Ticker.
func (tenthTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for i := int(math.Ceil(min * 10)); float64(i) <= max*10; i++ {
		t := plot.Tick{Value: float64(i) / 10}
		if i%2 == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'f', 1, 64)
		}
		ts = append(ts, t)
	}
	return ts
}
