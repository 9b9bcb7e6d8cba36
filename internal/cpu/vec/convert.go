package vec

import (
	"math"

	"github.com/x448/float16"
)

// HalfToFloat converts IEEE binary16 bits to float32 exactly.
func HalfToFloat(h uint16) float32 { return float16.Frombits(h).Float32() }

// FloatToHalf converts float32 to IEEE binary16 bits, rounding to nearest
// even; NaN stays NaN and overflow gives ±Inf.
func FloatToHalf(f float32) uint16 { return float16.Fromfloat32(f).Bits() }

// BF16ToFloat converts bfloat16 bits to float32 exactly.
func BF16ToFloat(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// FloatToBF16 converts float32 to bfloat16 bits, rounding to nearest even;
// NaN stays a (quiet) NaN.
func FloatToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}
