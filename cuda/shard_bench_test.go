package cuda

import (
	"math/rand/v2"
	"testing"

	softmax "github.com/gofused/softmax"
)

// One rank's sharded cross-entropy and softmax (one local rank: no
// collective) beside the single-GPU ops on the same columns, for
// profiling the shard kernels (ncu -k regex:shard_).
func BenchmarkShardRank(b *testing.B) {
	d := openOrSkip(b)
	defer d.Close()
	_, exs := localRanks(d, 1)
	for _, c := range []struct {
		rows, v int
		dt      softmax.DType
	}{{16384, 64000, softmax.BFloat16}, {4096, 32768, softmax.Float32}} {
		rng := rand.New(rand.NewPCG(1, 2))
		x, err := d.NewTensor(c.dt, c.rows, c.v)
		if err != nil {
			b.Fatal(err)
		}
		defer x.Free()
		g, err := d.NewTensor(c.dt, c.rows, c.v)
		if err != nil {
			b.Fatal(err)
		}
		defer g.Free()
		tg := make([]int64, c.rows)
		for i := range tg {
			tg[i] = int64(rng.IntN(c.v))
		}
		td, err := d.UploadTargets(softmax.Targets{I64: tg})
		if err != nil {
			b.Fatal(err)
		}
		loss, _ := d.NewTensor(XentStatDType(c.dt), 1)
		out := CrossEntropyOutput{Loss: &loss, Grad: &g}
		sh := Shard{0, c.v}
		for name, f := range map[string]func() error{
			"xent/single": func() error { return d.CrossEntropy(x, td, softmax.CrossEntropyOptions{}, out, nil) },
			"xent/shard":  func() error { return d.shardXent(exs[0], x, td, sh, softmax.CrossEntropyOptions{}, out, nil, nil) },
			"softmax/single": func() error {
				return d.Apply(softmax.OpSoftmax, g, x, Options{Axis: -1}, nil)
			},
			"softmax/shard": func() error { return d.shardSoftmax(exs[0], softmax.OpSoftmax, g, x, sh, Options{}, nil) },
			"backward/single": func() error {
				return d.ApplyBackward(softmax.OpSoftmaxBackward, g, x, g, Options{Axis: -1}, nil)
			},
			"backward/shard": func() error {
				return d.shardBackward(exs[0], softmax.OpSoftmaxBackward, g, x, g, sh, Options{}, nil)
			},
		} {
			b.Run(c.dt.String()+"/"+name, func(b *testing.B) {
				for b.Loop() {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
				if err := d.Synchronize(); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
