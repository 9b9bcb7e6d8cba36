package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"text/tabwriter"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/internal/verify"
)

const verifySynopsis = `softmax verify [--device auto|cpu|cuda|cuda:N] [--seed N] [--quick] [--tuned]

Runs the accuracy battery (every op and dtype over ragged shapes, every
axis, scales, zero-size tensors and edge values: −∞, NaN, +∞, huge,
constant; backward ops also scaled, in place and with NaN or all-zero dy)
on the device and compares it with a float64 reference. Prints
one line per case, then "N passed, M failed"; exits 1 on any failure.
--tuned checks the strategies the autotuning cache ('softmax tune') picks.`

func runVerify(e *env, args []string) error {
	fs := flagSet("verify")
	device := fs.String("device", "auto", "`device`: auto, cpu, cuda or cuda:N")
	seed := fs.Uint64("seed", 1, "random `seed` of the inputs")
	quick := fs.Bool("quick", false, "leave out the million-element cases")
	tuned := fs.Bool("tuned", false, "the planner prefers the autotuning cache's winners (softmax tune)")
	if err := parseFlags(e, fs, verifySynopsis, args); err != nil {
		return err
	}
	if _, _, err := bench.ParseDevice(*device); err != nil {
		return usagef("--device: %v", err)
	}
	b, err := bench.Open(*device)
	if err != nil {
		return err
	}
	defer b.Close()
	if *tuned {
		useTuned(e, "verify", b)
	}

	fmt.Fprintf(e.stdout, "device: %s\nseed: %d\n\n", b.Name(), *seed)
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tmax abs err\trel err\ttol\tverdict")
	passed, failed, skipped := 0, 0, 0
	for _, c := range verify.Battery(*quick) {
		r := verify.Run(c, rng, deviceBackend(b))
		verdict := "ok"
		if c.DType == softmax.Float64 && errors.Is(r.Err, softmax.ErrBadDType) {
			// The device does not compute float64 (the GPU, so far): said, not failed.
			skipped++
			verdict = "skipped: " + r.Err.Error()
		} else if !r.OK() {
			failed++
			verdict = "FAIL"
			if r.Err != nil {
				verdict += ": " + r.Err.Error()
			}
		} else {
			passed++
		}
		fmt.Fprintf(tw, "%s\t%.3g\t%.3g\t%.0e\t%s\n", c.Name(), r.MaxAbs, r.Rel, r.Tol, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n%d passed, %d failed", passed, failed)
	if skipped > 0 {
		fmt.Fprintf(e.stdout, ", %d skipped (float64, which %s does not compute)", skipped, b.Name())
	}
	fmt.Fprintln(e.stdout)
	if failed > 0 {
		return fmt.Errorf("%d of %d cases failed on %s", failed, passed+failed, b.Name())
	}
	return nil
}

// deviceBackend adapts a bench.Backend to the verify battery; a panic in
// the backend fails the case instead of the run.
func deviceBackend(b bench.Backend) verify.Backend {
	return func(c verify.Case, out verify.Host, in []verify.Host) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		t := func(h verify.Host) softmax.Tensor {
			return softmax.Tensor{Shape: c.Shape, DType: h.DType, F32: h.F32, U16: h.U16, F64: h.F64}
		}
		opt := softmax.Options{Axis: c.Axis, Scale: c.Scale}
		if c.Op.Backward() {
			return b.ApplyBackward(c.Op, t(out), t(in[0]), t(in[1]), opt)
		}
		return b.Apply(c.Op, t(out), t(in[0]), opt)
	}
}
