package vec

// The 16-bit forward row kernels: max and exp+sum reading float16 or
// bfloat16 rows directly, and the normalization rounding to 16 bits as it
// stores (asmgen/fwd74.go says why); this file holds the API and the
// pure-Go twins. bf picks bfloat16, else float16.

// Max16 returns Max of the converted 16-bit values x.
func Max16(x []uint16, bf bool, scale float32) float32 { return max16(x, bf, scale) }

// ExpSum16Ahead is ExpSumAhead of the converted 16-bit values x[:len(dst)]
// with the exp 2^(x·L − M) of exp2Args and exp2Poly16: e^(x·scale − m)
// times a factor common to the call (M's rounding: within |m|·2^−24 of
// 1), within 2.6e-6 (bfloat16) or 7.5e-8 (float16) plus |x·scale −
// m|·1.2e-7 relative. m must be at least Max16(x, bf, scale) − 88 (the row
// max, in softmax), or the results of the elements above m + 88 are
// undefined.
func ExpSum16Ahead(dst []float32, x []uint16, bf bool, next []float32, scale, m float32) float32 {
	return expSum16(dst, x[:len(dst)], bf, next, scale, m)
}

// Normalize16 writes dst[i] = x[i]·k rounded to 16 bits, bit for bit
// Normalize then F32ToF16 or F32ToBF16; with stream the assembly stores
// non-temporally (the caller issues Fence).
func Normalize16(dst []uint16, bf bool, x []float32, k float32, stream bool) {
	normalize16(dst, bf, x[:len(dst)], k, stream)
}

// Normalize16Max is Normalize16 that also returns Max16(next, bf, scale),
// in one pass where the assembly has it (bfloat16 with AVX-512 BF16): the
// next row's max taken while this row's output streams out. len(next) must
// equal len(dst).
func Normalize16Max(dst []uint16, bf bool, x []float32, k float32, stream bool, next []uint16, scale float32) float32 {
	return normalize16Max(dst, bf, x[:len(dst)], k, stream, next[:len(dst):len(dst)], scale)
}

// to32 returns the float32 conversion of 16-bit value u.
func to32(u uint16, bf bool) float32 {
	if bf {
		return BF16ToFloat(u)
	}
	return HalfToFloat(u)
}

// max16Generic is the twin of the assembly max16: maxOfGeneric's rule.
func max16Generic(x []uint16, bf bool, scale float32) float32 {
	m := NegInf
	for _, u := range x {
		if v := to32(u, bf) * scale; v > m {
			m = v
		}
	}
	return m
}

// expSum16Generic is the twin of the assembly expSum16, in
// expSumGeneric's order.
func expSum16Generic(dst []float32, x []uint16, bf bool, scale, m float32) float32 {
	x = x[:len(dst)]
	l, mm, wide := exp2Args(scale, m)
	var s [8]float32
	for i, u := range x {
		e := exp2Poly16(exp2Arg(u, bf, scale, m, l, mm, wide), bf)
		dst[i] = e
		if i < len(x)&^7 {
			s[i%8] += e
		} else {
			s[0] += e
		}
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// normalize16Generic is the twin of the assembly normalize16.
func normalize16Generic(dst []uint16, bf bool, x []float32, k float32) {
	for i, v := range x[:len(dst)] {
		if bf {
			dst[i] = FloatToBF16(v * k)
		} else {
			dst[i] = FloatToHalf(v * k)
		}
	}
}
