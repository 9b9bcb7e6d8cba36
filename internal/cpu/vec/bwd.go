package vec

import "math"

// The softmax_backward row kernels: bfloat16 dot and gradient reading the
// 16-bit rows directly, and the streamed float32 gradient in one pass
// (asmgen/bwd.go says why); this file holds the API and the pure-Go twins.

// DotBF16 returns Σ a[i]·b[i] over len(a) of bfloat16 values, in float32:
// with AVX2 on full vectors the same sum, in the same order, as Dot of the
// converted values; with AVX-512 in dotBF16EOGeneric's order.
func DotBF16(a, b []uint16) float32 { return dotBF16(a, b[:len(a)]) }

// SoftmaxGradBF16 writes dx[i] = scale·(y[i]·(dy[i] − s)) of bfloat16
// values, rounded to bfloat16 once: bit for bit SoftmaxGrad on the
// converted values, a multiplication by scale and F32ToBF16.
func SoftmaxGradBF16(dx, y, dy []uint16, s, scale float32) {
	softmaxGradBF16(dx, y[:len(dx)], dy[:len(dx)], s, scale, false)
}

// SoftmaxGradBF16Stream is SoftmaxGradBF16 with non-temporal stores where
// the assembly can use them; the caller issues Fence.
func SoftmaxGradBF16Stream(dx, y, dy []uint16, s, scale float32) {
	softmaxGradBF16(dx, y[:len(dx)], dy[:len(dx)], s, scale, true)
}

func bf16(u uint16) float32 { return math.Float32frombits(uint32(u) << 16) }

// dotBF16Generic is the twin of the assembly dotBF16 (dotGeneric's order).
func dotBF16Generic(a, b []uint16) float32 {
	b = b[:len(a)]
	var s [8]float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		for k := 0; k < 8; k++ {
			s[k] += bf16(a[i+k]) * bf16(b[i+k])
		}
	}
	for ; i < len(a); i++ {
		s[0] += bf16(a[i]) * bf16(b[i])
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// dotBF16EOGeneric is the twin of the assembly dotBF16EO (AVX-512) on
// len(a)&^31 elements, then dotBF16Generic on the rest, as dotBF16 runs
// them; equal to the kernel where no product underflows (the kernel's FMA
// does not round the product).
func dotBF16EOGeneric(a, b []uint16) float32 {
	const unroll = 4
	var acc [2 * unroll][16]float32
	m := len(a) &^ 31
	blocks := m / 32
	for blk := 0; blk < blocks; blk++ {
		k := blk % unroll
		if blk >= blocks/unroll*unroll {
			k = 0
		}
		for j := 0; j < 16; j++ {
			i := 32*blk + 2*j
			acc[2*k][j] += float32(bf16(a[i]) * bf16(b[i]))
			acc[2*k+1][j] += float32(bf16(a[i+1]) * bf16(b[i+1]))
		}
	}
	for w := 1; w < len(acc); w *= 2 { // foldPairs
		for k := 0; k+w < len(acc); k += 2 * w {
			for j := range acc[k] {
				acc[k][j] += acc[k+w][j]
			}
		}
	}
	v := acc[0] // hreduce: 256-bit halves, 128-bit quarters, then in-lane
	for _, d := range []int{8, 4, 2, 1} {
		t := v
		for j := range v {
			v[j] += t[j^d]
		}
	}
	return v[0] + dotBF16Generic(a[m:], b[m:len(a)])
}

// softmaxGradBF16Generic is the twin of the assembly softmaxGradBF16.
func softmaxGradBF16Generic(dx, y, dy []uint16, s, scale float32) {
	y, dy = y[:len(dx)], dy[:len(dx)]
	for i := range dx {
		t := float32(bf16(dy[i]) - s)
		t = float32(bf16(y[i]) * t)
		dx[i] = FloatToBF16(float32(t * scale))
	}
}

// SoftmaxGradStream writes dx[i] = (y[i]·(dy[i] − s))·scale, bit for bit
// SoftmaxGrad then Normalize by scale, with non-temporal stores where the
// assembly can use them; the caller issues Fence.
func SoftmaxGradStream(dx, y, dy []float32, s, scale float32) {
	softmaxGradStream(dx, y[:len(dx)], dy[:len(dx)], s, scale)
}

// softmaxGradScaleGeneric is the twin of the assembly softmaxGradNT.
func softmaxGradScaleGeneric(dx, y, dy []float32, s, scale float32) {
	softmaxGradGeneric(dx, y, dy, s)
	normalizeGeneric(dx, dx, scale)
}

// LogSoftmaxGradStream writes dx[i] = (dy[i] − exp(y[i])·s)·scale, bit for
// bit LogSoftmaxGrad then Normalize by scale of the kernel set in use, with
// non-temporal stores where the assembly can use them (asmgen/bwd74.go);
// the caller issues Fence.
func LogSoftmaxGradStream(dx, y, dy []float32, s, scale float32) {
	logSoftmaxGradStream(dx, y[:len(dx)], dy[:len(dx)], s, scale)
}

// logSoftmaxGradScale is LogSoftmaxGrad then Normalize by scale with the
// kernels in use: the twin of logSoftmaxGradNT and its unaligned head.
func logSoftmaxGradScale(dx, y, dy []float32, s, scale float32) {
	logSoftmaxGrad(dx, y, dy, s)
	normalize(dx, dx, scale)
}
