package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
	"unsafe"

	softmax "github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/shard"
)

// barrier lets n goroutines meet; a wait past timeout is an error, not a
// hang (a rank that failed early never comes).
type barrier struct {
	mu       sync.Mutex
	n, count int
	ch       chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, ch: make(chan struct{})} }

func (b *barrier) wait() error {
	b.mu.Lock()
	ch := b.ch
	if b.count++; b.count == b.n {
		b.count, b.ch = 0, make(chan struct{})
		close(ch)
		b.mu.Unlock()
		return nil
	}
	b.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-time.After(20 * time.Second):
		return errors.New("ranks did not meet within 20 s")
	}
}

// localGroup is n ranks on one GPU, a goroutine and a stream each: the
// exchange copies the ranks' slots between their workspaces, so the
// sharded calls' own code runs on one device, for any n.
type localGroup struct {
	bar  *barrier
	recs []driver.DevicePtr
	sums [][]float64
}

type localRank struct {
	g *localGroup
	r int
	d *Device
}

func (l localRank) Rank() int { return l.r }
func (l localRank) Size() int { return len(l.g.recs) }

func (l localRank) allGather(rec driver.DevicePtr, n int, f64 bool, s *Stream) error {
	es := driver.DevicePtr(recSize(f64))
	if err := l.d.Wait(s); err != nil {
		return err
	}
	l.g.recs[l.r] = rec
	if err := l.g.bar.wait(); err != nil {
		return err
	}
	for k, src := range l.g.recs {
		if k == l.r {
			continue
		}
		off := driver.DevicePtr(k*n) * es
		if err := l.d.ctx.Do(func() error {
			return l.d.api.MemcpyDtoDAsync(rec+off, src+off, uint64(driver.DevicePtr(n)*es), s.handle())
		}); err != nil {
			return err
		}
	}
	if err := l.d.Wait(s); err != nil {
		return err
	}
	return l.g.bar.wait() // no rank reuses its workspace before the others copied it
}

func (l localRank) allReduce(rec driver.DevicePtr, n int, f64 bool, s *Stream) error {
	raw := make([]byte, n*int(recSize(f64)))
	if err := l.d.ctx.Do(func() error {
		return l.d.api.MemcpyDtoHAsync(unsafe.Pointer(&raw[0]), rec, uint64(len(raw)), s.handle())
	}); err != nil {
		return err
	}
	if err := l.d.Wait(s); err != nil {
		return err
	}
	v := make([]float64, n)
	for i := range v {
		if f64 {
			v[i] = *(*float64)(unsafe.Pointer(&raw[8*i]))
		} else {
			v[i] = float64(*(*float32)(unsafe.Pointer(&raw[4*i])))
		}
	}
	l.g.sums[l.r] = v
	if err := l.g.bar.wait(); err != nil {
		return err
	}
	for i := range v {
		var s32 float32
		var s64 float64
		for _, o := range l.g.sums {
			s32 += float32(o[i])
			s64 += o[i]
		}
		if f64 {
			*(*float64)(unsafe.Pointer(&raw[8*i])) = s64
		} else {
			*(*float32)(unsafe.Pointer(&raw[4*i])) = s32
		}
	}
	if err := l.g.bar.wait(); err != nil {
		return err
	}
	return l.d.ctx.Do(func() error {
		return l.d.api.MemcpyHtoD(rec, unsafe.Pointer(&raw[0]), uint64(len(raw)))
	})
}

// onRanks runs body for each rank in its own goroutine with its own stream
// on devs[r], and joins the errors.
func onRanks(devs []*Device, exs []exchange, body func(r int, d *Device, ex exchange, s *Stream) error) error {
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for r, d := range devs {
		wg.Go(func() {
			s, err := d.NewStream()
			if err != nil {
				errs[r] = err
				return
			}
			defer s.Destroy()
			if err := body(r, d, exs[r], s); err != nil {
				errs[r] = fmt.Errorf("rank %d: %w", r, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// localRanks returns n ranks of one device.
func localRanks(d *Device, n int) ([]*Device, []exchange) {
	g := &localGroup{bar: newBarrier(n), recs: make([]driver.DevicePtr, n), sums: make([][]float64, n)}
	devs, exs := make([]*Device, n), make([]exchange, n)
	for r := range devs {
		devs[r], exs[r] = d, localRank{g, r, d}
	}
	return devs, exs
}

// cols returns columns [lo, hi) of every row of the rows × v host tensor x.
func cols(x softmax.Tensor, lo, hi int) softmax.Tensor {
	rows, v := x.Shape[0], x.Shape[1]
	y, _ := softmax.NewTensor(x.DType, rows, hi-lo)
	for r := range rows {
		a, b := r*v+lo, r*v+hi
		switch x.DType {
		case softmax.Float32:
			copy(y.F32[r*(hi-lo):], x.F32[a:b])
		case softmax.Float64:
			copy(y.F64[r*(hi-lo):], x.F64[a:b])
		default:
			copy(y.U16[r*(hi-lo):], x.U16[a:b])
		}
	}
	return y
}

// shardCase is one shape split over ranks.
type shardCase struct {
	dt      softmax.DType
	rows, v int
	ranges  []shard.Range
}

func (c shardCase) String() string {
	w := make([]int, len(c.ranges))
	for i, r := range c.ranges {
		w[i] = r.Hi - r.Lo
	}
	return fmt.Sprintf("%v %d×%d over %v", c.dt, c.rows, c.v, w)
}

// shardCases: ragged even splits, a split with an empty rank and a
// one-column one, and long rows (the 512-thread kernels).
func shardCases(dts []softmax.DType, maxRanks int) []shardCase {
	var out []shardCase
	for _, dt := range dts {
		for _, s := range []struct{ rows, v, p int }{{9, 781, 3}, {5, 33, 2}, {6, 50257, 5}, {2, 1000003, 8}, {4, 4096, 1}} {
			p := min(s.p, maxRanks)
			rs, _ := shard.Even(s.v, p)
			out = append(out, shardCase{dt, s.rows, s.v, rs})
		}
		if maxRanks >= 4 {
			out = append(out, shardCase{dt, 7, 1000, []shard.Range{{Lo: 0, Hi: 1}, {Lo: 1, Hi: 1}, {Lo: 1, Hi: 600}, {Lo: 600, Hi: 1000}}})
		}
	}
	return out
}

// shardInput draws the case's logits (ceHost's special rows, and a row
// whose first rank's columns are all −inf) and targets.
func shardInput(rng *rand.Rand, c shardCase, ignore int64) (softmax.Tensor, []int64) {
	x, tg := ceHost(rng, c.dt, c.rows, c.v, ignore)
	if c.rows > 4 {
		vals := toF64(x).F64
		for j := c.ranges[0].Lo; j < c.ranges[0].Hi; j++ {
			vals[4*c.v+j] = math.Inf(-1)
		}
		f := make([]float32, len(vals))
		for i, v := range vals {
			f[i] = float32(v)
		}
		if c.dt == softmax.Float64 {
			for i := c.ranges[0].Lo; i < c.ranges[0].Hi; i++ {
				x.F64[4*c.v+i] = math.Inf(-1)
			}
		} else {
			setF32(x, f)
		}
		tg[4] = int64(c.v - 1) // in the last rank
	}
	return x, tg
}

// closeRows reports the first element of got that differs from want by
// more than tol·(|want| + the row's largest |want|) (NaN and ±inf exactly).
func closeRows(got, want []float64, rows int, tol float64, rowScale bool) error {
	v := len(want) / max(rows, 1)
	for r := range rows {
		m := 1.0
		if rowScale {
			m = 0
			for _, w := range want[r*v : (r+1)*v] {
				if !math.IsInf(w, 0) && !math.IsNaN(w) {
					m = max(m, math.Abs(w))
				}
			}
		}
		for j := r * v; j < (r+1)*v; j++ {
			if !near(got[j], want[j], tol*(math.Abs(want[j])+m)) {
				return fmt.Errorf("element %d (row %d): %v, want %v", j, r, got[j], want[j])
			}
		}
	}
	return nil
}

func shardTol(dt softmax.DType) float64 {
	if dt == softmax.Float64 {
		return 1e-11
	}
	return ceTol(dt)
}

// download reads a device tensor as float64.
func download(d *Device, x Tensor) ([]float64, error) {
	h, _ := softmax.NewTensor(x.DType, x.Shape...)
	if err := x.CopyTo(h); err != nil {
		return nil, err
	}
	return toF64(h).F64, nil
}

// gatherCols places each rank's rows × w values into rows × v.
func gatherCols(parts [][]float64, rs []shard.Range, rows, v int) []float64 {
	out := make([]float64, rows*v)
	for k, p := range parts {
		w := rs[k].Hi - rs[k].Lo
		for r := range rows {
			copy(out[r*v+rs[k].Lo:], p[r*w:(r+1)*w])
		}
	}
	return out
}

// A rank's columns must lie in [0, V): an error names the range.
func TestShardCheck(t *testing.T) {
	for _, c := range []struct {
		sh    Shard
		width int
		ok    bool
	}{
		{Shard{0, 10}, 10, true}, {Shard{4, 10}, 6, true}, {Shard{10, 10}, 0, true},
		{Shard{4, 10}, 7, false}, {Shard{-1, 10}, 1, false}, {Shard{0, 0}, 0, false}, {Shard{0, 10}, -1, false},
	} {
		err := c.sh.check(c.width)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, errs.ErrBadShape) {
			t.Errorf("%+v width %d: %v", c.sh, c.width, err)
		}
	}
}
