//go:build amd64 && !purego

package vec

import (
	"math"
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// kernels16 are one set's 16-bit forward kernels for one format.
type kernels16 struct {
	max          func(x []uint16, scale float32) float32
	expSum       func(dst []float32, x []uint16, next []float32, scale, m float32) float32
	norm, normNT func(dst []uint16, x []float32, k float32)
	// normMax, normMaxNT: norm and max of next in one pass (nil: none).
	normMax, normMaxNT func(dst []uint16, x []float32, k float32, next []uint16, scale float32) float32
	// maxBits: the max's bits from packed words (nil: none).
	maxBits func(x []uint16) uint16
}

// fwd16 returns the kernels of the set in use (bf: bfloat16), or false for
// the "go" set and for float16 without F16C, from a table kept for the set
// in use: a row of 1024 takes two calls, and fwd16Set's comparisons cost 4%
// of 8192x1024 bfloat16 on one core.
func fwd16(bf bool) (*kernels16, bool) {
	t := fwd16Table.Load()
	if t == nil || t.impl != impl {
		t = &table16{impl: impl}
		for i := range t.k {
			t.k[i], t.ok[i] = fwd16Set(impl, i == 1)
		}
		fwd16Table.Store(t)
	}
	i := 0
	if bf {
		i = 1
	}
	return &t.k[i], t.ok[i]
}

// table16 is fwd16Set's answers for one set: float16's, then bfloat16's.
type table16 struct {
	impl string
	k    [2]kernels16
	ok   [2]bool
}

var fwd16Table atomic.Pointer[table16]

// fwd16Set is fwd16 for the set named impl.
func fwd16Set(impl string, bf bool) (kernels16, bool) {
	switch {
	case impl == "avx512" && !cpu.X86.HasAVX512DQ:
		// The exp's VREDUCEPS is AVX-512 DQ: the AVX2 kernels, which give
		// the same results (every AVX-512 CPU with BW and VL has DQ so far).
		return fwd16Set("avx2", bf)
	case impl == "avx512" && bf && cpu.X86.HasAVX512BF16:
		return kernels16{maxBF16AVX512, exp2SumBF16AVX512, normalizeBF16CvtAVX512, normalizeBF16CvtNTAVX512,
			normalizeMaxBF16CvtAVX512, normalizeMaxBF16CvtNTAVX512, maxBitsBF16AVX512}, true
	case impl == "avx512" && bf:
		return kernels16{maxBF16AVX512, exp2SumBF16AVX512, normalizeBF16AVX512, normalizeBF16NTAVX512, nil, nil, maxBitsBF16AVX512}, true
	case impl == "avx512":
		return kernels16{maxF16AVX512, exp2SumF16AVX512, normalizeF16AVX512, normalizeF16NTAVX512, nil, nil, maxBitsF16AVX512}, true
	case impl == "avx2" && bf:
		return kernels16{maxBF16AVX2, exp2SumBF16AVX2, normalizeBF16AVX2, normalizeBF16NTAVX2, nil, nil, nil}, true
	case impl == "avx2" && cpu.X86.HasF16C:
		return kernels16{maxF16AVX2, exp2SumF16AVX2, normalizeF16AVX2, normalizeF16NTAVX2, nil, nil, nil}, true
	}
	return kernels16{}, false
}

// max16 runs the assembly on whole vectors of 16 and the twin on the rest:
// maxBits on vectors of 32 words where it exists and the scale is positive
// (then the max of scale·x is scale times the max of x, rounded alike).
func max16(x []uint16, bf bool, scale float32) float32 {
	k, ok := fwd16(bf)
	if !ok {
		return max16Generic(x, bf, scale)
	}
	var m float32
	n := len(x) &^ 15
	if k.maxBits != nil && scale > 0 && scale <= math.MaxFloat32 {
		n = len(x) &^ 31
		m = to32(k.maxBits(x[:n]), bf) * scale
	} else {
		m = k.max(x[:n], scale)
	}
	if r := max16Generic(x[n:], bf, scale); r > m {
		return r
	}
	return m
}

// expSum16 runs the assembly on whole vectors of 16 and the twin on the rest.
func expSum16(dst []float32, x []uint16, bf bool, next []float32, scale, m float32) float32 {
	k, ok := fwd16(bf)
	if _, _, wide := exp2Args(scale, m); !ok || wide {
		return expSum16Generic(dst, x, bf, scale, m)
	}
	n := len(dst) &^ 15
	s := k.expSum(dst[:n], x[:n], next, scale, m)
	if n < len(dst) {
		s += expSum16Generic(dst[n:], x[n:], bf, scale, m)
	}
	return s
}

// normalize16 runs the assembly (stream: its non-temporal variant from
// dst's first 64-byte boundary) on whole vectors of 16 and the twin on the
// unaligned head and the rest.
func normalize16(dst []uint16, bf bool, x []float32, k float32, stream bool) {
	ks, ok := fwd16(bf)
	if !ok {
		normalize16Generic(dst, bf, x, k)
		return
	}
	kern, h := ks.norm, 0
	if stream {
		kern, h = ks.normNT, alignHead(dst, 64)
	}
	normalize16Generic(dst[:h], bf, x[:h], k)
	n := h + (len(dst)-h)&^15
	kern(dst[h:n], x[h:n], k)
	normalize16Generic(dst[n:], bf, x[n:], k)
}

// normalize16Max runs the fused assembly as normalize16 runs its kernel,
// the twins on the head and the rest, or normalize16 and max16 apart.
func normalize16Max(dst []uint16, bf bool, x []float32, k float32, stream bool, next []uint16, scale float32) float32 {
	ks, ok := fwd16(bf)
	if !ok || ks.normMax == nil {
		normalize16(dst, bf, x, k, stream)
		return max16(next, bf, scale)
	}
	kern, h := ks.normMax, 0
	if stream {
		kern, h = ks.normMaxNT, alignHead(dst, 64)
	}
	n := h + (len(dst)-h)&^15
	if h == 0 && n == len(dst) {
		return kern(dst, x, k, next, scale) // rows of whole vectors at a line
	}
	normalize16Generic(dst[:h], bf, x[:h], k)
	ms := [3]float32{max16Generic(next[:h], bf, scale), kern(dst[h:n], x[h:n], k, next[h:n], scale), max16Generic(next[n:], bf, scale)}
	normalize16Generic(dst[n:], bf, x[n:], k)
	m := ms[0]
	for _, v := range ms[1:] {
		if v > m {
			m = v
		}
	}
	return m
}
