package bench

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"
)

// CPUModel returns the processor's model name from /proc/cpuinfo, or
// runtime.GOARCH when that is not available.
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			if v := strings.TrimSpace(val); v != "" {
				return v
			}
		}
	}
	return runtime.GOARCH
}

// CPUFeature is one instruction-set extension relevant to the kernels.
type CPUFeature struct {
	Name    string
	Present bool
}

// CPUFeatures reports the SIMD extensions the CPU kernels can use (from
// golang.org/x/sys/cpu, which also checks OS support): AVX2, FMA, F16C,
// AVX-512F/BW/VL/BF16. Other architectures give an empty list.
func CPUFeatures() []CPUFeature {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
		return nil
	}
	x := cpu.X86
	return []CPUFeature{
		{"AVX2", x.HasAVX2}, {"FMA", x.HasFMA}, {"F16C", x.HasF16C},
		{"AVX-512F", x.HasAVX512F}, {"AVX-512BW", x.HasAVX512BW},
		{"AVX-512VL", x.HasAVX512VL}, {"AVX-512BF16", x.HasAVX512BF16},
	}
}

// featureLine formats CPUFeatures as "AVX2 FMA F16C (no AVX-512F, …)".
func featureLine() string {
	var have, lack []string
	for _, f := range CPUFeatures() {
		if f.Present {
			have = append(have, f.Name)
		} else {
			lack = append(lack, f.Name)
		}
	}
	s := strings.Join(have, " ")
	if s == "" {
		s = "none of AVX2/FMA/F16C/AVX-512"
		if runtime.GOARCH != "amd64" {
			s = "(" + runtime.GOARCH + ": no x86 SIMD extensions)"
		}
		return s
	}
	if len(lack) > 0 {
		s += " (no " + strings.Join(lack, ", ") + ")"
	}
	return s
}
