package vec

// The 16-bit log_softmax_backward row kernels: the sum of dy and the
// gradient reading float16 or bfloat16 rows directly (asmgen/bwd16s71c.go
// says why); this file holds the API and the pure-Go twins.

// Sum16 returns Σ a[i] of bfloat16 (bf) or float16 values in float32: on
// whole blocks of 16 the kernel set's order (sum16Lanes), then in turn.
func Sum16(a []uint16, bf bool) float32 { return sum16(a, bf) }

// LogSoftmaxGrad16 writes dx[i] = (dy[i] − exp(y[i])·s)·scale of bfloat16
// (bf) or float16 values, rounded to 16 bits once, with the 16-bit
// forward rows' exp (exp2Poly16: 2.6e-6 relative for bfloat16, 7.5e-8 for
// float16, far below the output's half ulp).
func LogSoftmaxGrad16(dx, y, dy []uint16, bf bool, s, scale float32) {
	logSoftmaxGrad16(dx, y[:len(dx)], dy[:len(dx)], bf, s, scale, false)
}

// LogSoftmaxGrad16Stream is LogSoftmaxGrad16 with non-temporal stores
// where the assembly can use them; the caller issues Fence.
func LogSoftmaxGrad16Stream(dx, y, dy []uint16, bf bool, s, scale float32) {
	logSoftmaxGrad16(dx, y[:len(dx)], dy[:len(dx)], bf, s, scale, true)
}

// sum16Lanes is the twin of the assembly sum16 with w float32 lanes a
// vector (len(a) a multiple of w): blocks of 4 vectors into 4
// accumulators, single vectors into the first, foldPairs, then hreduce.
func sum16Lanes(a []uint16, bf bool, w int) float32 {
	const unroll = 4
	var acc [unroll][16]float32
	i := 0
	for ; i+unroll*w <= len(a); i += unroll * w {
		for k := 0; k < unroll; k++ {
			for j := 0; j < w; j++ {
				acc[k][j] += to32(a[i+k*w+j], bf)
			}
		}
	}
	for ; i+w <= len(a); i += w {
		for j := 0; j < w; j++ {
			acc[0][j] += to32(a[i+j], bf)
		}
	}
	for d := 1; d < unroll; d *= 2 { // foldPairs
		for k := 0; k+d < unroll; k += 2 * d {
			for j := 0; j < w; j++ {
				acc[k][j] += acc[k+d][j]
			}
		}
	}
	v := acc[0]
	for d := w / 2; d >= 1; d /= 2 { // hreduce
		t := v
		for j := 0; j < w; j++ {
			v[j] += t[j^d]
		}
	}
	return v[0]
}

// sum16Rest sums a in turn (the elements after the whole blocks).
func sum16Rest(a []uint16, bf bool) float32 {
	var s float32
	for _, u := range a {
		s += to32(u, bf)
	}
	return s
}

// sum16Generic is Sum16 where there is no assembly (8 lanes).
func sum16Generic(a []uint16, bf bool) float32 {
	m := len(a) &^ 15
	return sum16Lanes(a[:m], bf, 8) + sum16Rest(a[m:], bf)
}

// logSoftmaxGrad16Generic is the twin of the assembly logSoftmaxGrad16.
func logSoftmaxGrad16Generic(dx, y, dy []uint16, bf bool, s, scale float32) {
	y, dy = y[:len(dx)], dy[:len(dx)]
	for i := range dx {
		e := float32(exp2Poly16(exp2Grad(to32(y[i], bf)), bf) * s)
		t := float32(float32(to32(dy[i], bf)-e) * scale)
		if bf {
			dx[i] = FloatToBF16(t)
		} else {
			dx[i] = FloatToHalf(t)
		}
	}
}

// exp2Grad is t = min(y, 89)·log2e, rounded to float32, NaN kept: the
// gradient's e^y is exp2Poly16(t) (asmgen/bwd16s71c.go's exp2Of).
func exp2Grad(y float32) float32 {
	if y > 89 {
		y = 89
	}
	return y * log2e
}
