package vec

import (
	"fmt"
	"testing"
	"unsafe"
)

// BenchmarkFwd16 times each pass of a 16-bit forward row (rowCached16) on a
// row in L1, plain and streamed (NT, out at a line): what the passes cost
// without memory, to set a whole row's time against. row runs the three
// passes in order, each waiting for the one before; rowmax is rowCached16's
// steady state, the next row's max taken in the normalizing pass.
func BenchmarkFwd16(b *testing.B) {
	for _, bf := range []bool{true, false} {
		for _, n := range []int{1024, 4096} {
			x := benchFloats(n, -8, 8)
			u, next := make([]uint16, n), make([]uint16, n)
			if bf {
				F32ToBF16(u, x)
			} else {
				F32ToF16(u, x)
			}
			copy(next, u)
			e := make([]float32, n)
			out := make([]uint16, n+32)
			out = out[int(64-uintptr(unsafe.Pointer(&out[0]))%64)%64/2:][:n]
			m := Max16(u, bf, 1)
			ExpSum16Ahead(e, u, bf, nil, 1, m)
			name := fmt.Sprintf("%s/%d", map[bool]string{true: "bf16", false: "f16"}[bf], n)
			b.Run("max/"+name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkF = Max16(u, bf, 1)
				}
			})
			b.Run("expsum/"+name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkF = ExpSum16Ahead(e, u, bf, nil, 1, m)
				}
			})
			for _, nt := range []bool{false, true} {
				sfx := map[bool]string{false: "", true: "NT"}[nt]
				b.Run("norm"+sfx+"/"+name, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						Normalize16(out, bf, e, 0.5, nt)
					}
					Fence()
				})
				b.Run("normmax"+sfx+"/"+name, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						sinkF = Normalize16Max(out, bf, e, 0.5, nt, next, 1)
					}
					Fence()
				})
				b.Run("rowmax"+sfx+"/"+name, func(b *testing.B) {
					m := Max16(u, bf, 1)
					for i := 0; i < b.N; i++ {
						d := ExpSum16Ahead(e, u, bf, nil, 1, m)
						m = Normalize16Max(out, bf, e, 1/d, nt, u, 1)
					}
					Fence()
				})
				b.Run("row"+sfx+"/"+name, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						m := Max16(u, bf, 1)
						d := ExpSum16Ahead(e, u, bf, nil, 1, m)
						Normalize16(out, bf, e, 1/d, nt)
					}
					Fence()
				})
			}
		}
	}
}
