package bench

import (
	"fmt"
	"slices"
	"strings"
)

// suiteSpecs holds the suites as SPEC lists (see ParseSpec); tutorial is
// generated. all and quick are assembled in Suite.
var suiteSpecs = map[string][]string{
	// One-pass territory: rows that fit a block (2048 × up to 8192) and a
	// few very long rows (4 × up to 32 Mi) that must be split across blocks.
	"onepass": {
		"128x1024:f16",
		"2048x1024:f16", "2048x2048:f16", "2048x4096:f16", "2048x8192:f16",
		"4x16384:f16", "4x65536:f16", "4x262144:f16", "4x1048576:f16",
		"4x4194304:f16", "4x16777216:f16", "4x33554432:f16",
	},
	// Language-model shapes: logits over a vocabulary, attention rows.
	"llm": {"4096x32000:f32", "128x128256:bf16", "524288x1024:f16"},
	// Softmax over a non-last axis.
	"axis": {"4096x65536:f32:0", "4096x4096:f32:0", "64x1024x512:f16:1"},
	// One long vector.
	"vector": {"1x16777216:f32", "1x100000000:f32"},
	// The default CPU suite: under 30 s on 2 cores with the default reps.
	"cpu": {
		"4096x4096:f32", "1x16777216:f32", "4096x4096:f32:0",
		"1024x4096:f16", "8192x1024:bf16", "128x32000:f32:-1:log_softmax",
	},
	// Training's backward pass (issue 72): each shape as softmax_backward and
	// log_softmax_backward (see backwardSpecs).
	"backward": backwardSpecs(),
	// The default GPU suite: a handful from each suite.
	"quick": {
		"4096x1024:f32", "4096x4096:f32", "4096x32768:f32",
		"2048x4096:f16", "4x1048576:f16", "4x33554432:f16",
		"4096x32000:f32", "128x128256:bf16",
		"4096x4096:f32:0", "64x1024x512:f16:1",
		"1x16777216:f32",
		"128x32000:f32:-1:log_softmax",
	},
}

// suiteOrder lists the suites in the order of SuiteNames and of "all".
var suiteOrder = []string{"tutorial", "onepass", "llm", "axis", "vector", "cpu", "backward", "quick", "all"}

// SuiteNames returns the names of the suites.
func SuiteNames() []string { return slices.Clone(suiteOrder) }

// backwardSpecs returns the backward suite: every shape once per backward op.
func backwardSpecs() []string {
	shapes := []string{
		"4096x1024:f32", "4096x4096:f32", "4096x8192:f32", "4096x16384:f32", "4096x32000:f32", "4096x32768:f32",
		"4096x8192:f16", "4096x32000:f16", "4096x8192:bf16", "4096x32000:bf16",
		"1024x128256:bf16", "4x1048576:f16", "1x16777216:f32",
		"4096x4096:f32:0", "64x1024x512:f16:1", "4096x4096:f64",
	}
	var specs []string
	for _, op := range []string{"softmax_backward", "log_softmax_backward"} {
		for _, s := range shapes {
			if strings.Count(s, ":") == 1 {
				s += ":-1"
			}
			specs = append(specs, s+":"+op)
		}
	}
	return specs
}

// tutorialSpecs returns the Triton tutorial sweep: 4096 rows of N float32
// columns, N from 256 to 32768: every power of two, and between two powers
// p and 2p the multiples p·5/4, p·3/2, p·7/4 (the tutorial's 128·i steps,
// subsampled; 384 between 256 and 512).
func tutorialSpecs() []string {
	ns := []int{256, 384}
	for p := 512; p < 32768; p *= 2 {
		ns = append(ns, p, p+p/4, p+p/2, p+3*p/4)
	}
	ns = append(ns, 32768)
	specs := make([]string, len(ns))
	for i, n := range ns {
		specs[i] = fmt.Sprintf("4096x%d:f32", n)
	}
	return specs
}

// Suite returns the cases of a named suite:
//
//   - tutorial: 4096 × N float32 softmax, N = 256 … 32768 (as the Triton
//     fused-softmax tutorial);
//   - onepass: f16 rows that fit a block and very long rows;
//   - llm: 4096×32000 f32, 128×128256 bf16, 524288×1024 f16;
//   - axis: softmax over a non-last axis;
//   - vector: 1×2^24 and 1×10^8 float32;
//   - cpu: the default on the CPU backend (< 30 s on 2 cores);
//   - backward: softmax_backward and log_softmax_backward on training
//     shapes (not part of all);
//   - quick: the default on GPUs, a handful from each suite;
//   - all: every suite (without duplicates).
func Suite(name string) ([]Case, error) {
	var specs []string
	switch name {
	case "tutorial":
		specs = tutorialSpecs()
	case "all":
		seen := map[string]bool{}
		for _, s := range suiteOrder {
			if s == "all" || s == "quick" || s == "backward" {
				continue
			}
			sub, _ := Suite(s)
			for _, c := range sub {
				if !seen[c.String()] {
					seen[c.String()] = true
					specs = append(specs, c.String())
				}
			}
		}
	default:
		var ok bool
		if specs, ok = suiteSpecs[name]; !ok {
			return nil, fmt.Errorf("unknown suite %q (want %s)", name, strings.Join(suiteOrder, ", "))
		}
	}
	return ParseSpecs(strings.Join(specs, ","))
}
