package main

import (
	"fmt"
	"runtime"

	"github.com/gofused/softmax/bench"
)

const infoSynopsis = `softmax info [--kernels]

Shows the backends and why any is unavailable, the CPU (model, SIMD
features, the kernel set in use, GOMAXPROCS) and the device auto picks.
--kernels lists the GPU kernels' resource usage per strategy (registers,
shared memory, spills, occupancy).`

func runInfo(e *env, args []string) error {
	fs := flagSet("info")
	kernels := fs.Bool("kernels", false, "list the GPU kernels' resource usage per strategy")
	if err := parseFlags(e, fs, infoSynopsis, args); err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "softmax on %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintln(w, "backends:")
	var reporters []bench.KernelReporter
	var reporterNames []string
	var gpuReasons []string
	names := map[string]string{}
	for _, kind := range bench.DeviceKinds() {
		b, err := bench.Open(kind)
		if err != nil {
			fmt.Fprintf(w, "  %s: unavailable: %v\n", kind, unwrapUnavailable(err))
			if kind != "cpu" {
				gpuReasons = append(gpuReasons, fmt.Sprintf("%s: %v", kind, unwrapUnavailable(err)))
			}
			continue
		}
		defer b.Close()
		names[kind] = b.Name()
		fmt.Fprintf(w, "  %s: available: %s\n", kind, b.Name())
		for _, l := range b.Info() {
			fmt.Fprintf(w, "    %s\n", l)
		}
		if kr, ok := b.(bench.KernelReporter); ok {
			reporters = append(reporters, kr)
			reporterNames = append(reporterNames, b.Name())
		}
	}
	// auto is cuda:0 when it opens, else the CPU (as bench.Open does).
	if n, ok := names["cuda"]; ok {
		fmt.Fprintf(w, "auto device: %s\n", n)
	} else if n, ok := names["cpu"]; ok {
		fmt.Fprintf(w, "auto device: %s\n", n)
	}
	if !*kernels {
		return nil
	}
	fmt.Fprintln(w, "kernels:")
	if len(reporters) == 0 {
		fmt.Fprint(w, "  no GPU backend")
		for _, r := range gpuReasons {
			fmt.Fprintf(w, " (%s)", r)
		}
		fmt.Fprintln(w)
		return nil
	}
	for i, kr := range reporters {
		lines, err := kr.KernelInfo()
		if err != nil {
			return fmt.Errorf("kernels of %s: %w", reporterNames[i], err)
		}
		fmt.Fprintf(w, "  %s:\n", reporterNames[i])
		for _, l := range lines {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	return nil
}

// unwrapUnavailable drops the "cuda backend unavailable: " prefix, which
// the info line already says.
func unwrapUnavailable(err error) error {
	if ue, ok := err.(*bench.UnavailableError); ok {
		return ue.Err
	}
	return err
}
