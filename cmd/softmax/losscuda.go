package main

import (
	"errors"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/cuda"
)

// lossDevice computes apply's loss ops on one device, host tensors in and
// out: the CPU (package softmax) or a GPU (package cuda, through copies).
type lossDevice interface {
	name() string
	logSumExp(dst, src softmax.Tensor, opt softmax.Options) error
	crossEntropy(logits softmax.Tensor, tg softmax.Targets, opt softmax.CrossEntropyOptions, out softmax.CrossEntropyOutput) error
	close()
}

type cpuLoss struct{}

func (cpuLoss) name() string { return "cpu" }
func (cpuLoss) logSumExp(dst, src softmax.Tensor, opt softmax.Options) error {
	return softmax.LogSumExp(dst, src, opt)
}
func (cpuLoss) crossEntropy(x softmax.Tensor, tg softmax.Targets, opt softmax.CrossEntropyOptions, out softmax.CrossEntropyOutput) error {
	return softmax.CrossEntropy(x, tg, opt, out)
}
func (cpuLoss) close() {}

// openLossDevice opens --device for the loss ops: cpu, cuda[:N], or auto
// (cuda:0 when a GPU opens, else the CPU, as the softmax ops).
func openLossDevice(kind string, ordinal int) (lossDevice, error) {
	switch kind {
	case "cpu":
		return cpuLoss{}, nil
	case "cuda", "auto":
		d, err := cuda.Open(ordinal)
		if err == nil {
			return &cudaLoss{d: d}, nil
		}
		if kind == "auto" {
			return cpuLoss{}, nil
		}
		return nil, &bench.UnavailableError{Kind: "cuda", Err: err}
	}
	return nil, &bench.UnavailableError{Kind: kind, Err: errors.New("the loss ops run on cpu and cuda only")}
}

// cudaLoss runs the loss ops on a GPU: the inputs are uploaded, package
// cuda's kernels run (the gradient in place over the device logits, as
// the CPU path writes it over its copy), the outputs are read back.
type cudaLoss struct{ d *cuda.Device }

func (c *cudaLoss) name() string { return c.d.String() }
func (c *cudaLoss) close()       { c.d.Close() }

func (c *cudaLoss) logSumExp(dst, src softmax.Tensor, opt softmax.Options) error {
	x, err := c.d.Upload(src)
	if err != nil {
		return err
	}
	defer x.Free()
	y, err := c.d.NewTensor(dst.DType, dst.Shape...)
	if err != nil {
		return err
	}
	defer y.Free()
	if err := c.d.LogSumExp(y, x, cuda.Options{Axis: opt.Axis, Scale: opt.Scale}, nil); err != nil {
		return err
	}
	return y.CopyTo(dst)
}

func (c *cudaLoss) crossEntropy(logits softmax.Tensor, tg softmax.Targets, opt softmax.CrossEntropyOptions, out softmax.CrossEntropyOutput) error {
	x, err := c.d.Upload(logits)
	if err != nil {
		return err
	}
	defer x.Free()
	t, err := c.d.UploadTargets(tg)
	if err != nil {
		return err
	}
	defer t.Buf.Free()
	sdt := cuda.XentStatDType(logits.DType)
	dout := cuda.CrossEntropyOutput{GradOutput: out.GradOutput}
	stat := func(host []float64) (*cuda.Tensor, error) {
		if host == nil {
			return nil, nil
		}
		s, err := c.d.NewTensor(sdt, len(host))
		return &s, err
	}
	if dout.Loss, err = stat(out.Loss); err != nil {
		return err
	}
	if dout.Loss != nil {
		defer dout.Loss.Free()
	}
	if dout.LSE, err = stat(out.LSE); err != nil {
		return err
	}
	if dout.LSE != nil {
		defer dout.LSE.Free()
	}
	if out.Grad != nil {
		dout.Grad = &x
	}
	if err := c.d.CrossEntropy(x, t, opt, dout, nil); err != nil {
		return err
	}
	for _, s := range []struct {
		dev  *cuda.Tensor
		host []float64
	}{{dout.Loss, out.Loss}, {dout.LSE, out.LSE}} {
		if s.dev == nil {
			continue
		}
		h, _ := softmax.NewTensor(sdt, len(s.host))
		if err := s.dev.CopyTo(h); err != nil {
			return err
		}
		for i := range s.host {
			if sdt == softmax.Float64 {
				s.host[i] = h.F64[i]
			} else {
				s.host[i] = float64(h.F32[i])
			}
		}
	}
	if out.Grad != nil {
		return x.CopyTo(*out.Grad)
	}
	return nil
}
