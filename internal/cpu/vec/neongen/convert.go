package main

// The float16 and bfloat16 conversion kernels.

func (g *gen) f16ToF32() {
	g.text("f16ToF32", "dst []float32, src []uint16", "",
		"converts len(dst) binary16 values with FCVTL (needs FPHP and ASIMDHP).")
	g.ptr("dst", "R0")
	g.ptr("src", "R1")
	g.length("dst", "R9")
	g.loop(func(b *blk) {
		switch b.mode {
		case modeBlock:
			g.p("VLD1.P 32(R1), [V0.H8, V1.H8]")
			g.fcvtl(2, 0)
			g.fcvtl2(3, 0)
			g.fcvtl(4, 1)
			g.fcvtl2(5, 1)
			g.p("VST1.P [V2.S4, V3.S4, V4.S4, V5.S4], 64(R0)")
		case modeVec:
			g.p("FMOVD.P 8(R1), F0")
			g.fcvtl(1, 0)
			g.p("VST1.P [V1.S4], 16(R0)")
		default:
			g.p("MOVHU.P 2(R1), R4")
			g.p("VMOV R4, V0.H[0]")
			g.fcvtl(1, 0)
			g.p("FMOVS.P F1, 4(R0)")
		}
	})
	g.ret()
}

func (g *gen) f32ToF16() {
	g.text("f32ToF16", "dst []uint16, src []float32", "",
		"converts len(dst) values to binary16 with FCVTN (needs FPHP and ASIMDHP), rounding to nearest even.")
	g.ptr("dst", "R0")
	g.ptr("src", "R1")
	g.length("dst", "R9")
	g.loop(func(b *blk) {
		switch b.mode {
		case modeBlock:
			g.p("VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]")
			g.fcvtn(4, 0)
			g.fcvtn2(4, 1)
			g.fcvtn(5, 2)
			g.fcvtn2(5, 3)
			g.p("VST1.P [V4.H8, V5.H8], 32(R0)")
		case modeVec:
			g.p("VLD1.P 16(R1), [V0.S4]")
			g.fcvtn(1, 0)
			g.p("FMOVD.P F1, 8(R0)")
		default:
			g.p("FMOVS.P 4(R1), F0")
			g.fcvtn(1, 0)
			g.p("VMOV V1.H[0], R4")
			g.p("MOVH.P R4, 2(R0)")
		}
	})
	g.ret()
}

func (g *gen) bf16ToF32() {
	g.text("bf16ToF32", "dst []float32, src []uint16", "", "converts len(dst) bfloat16 values.")
	g.ptr("dst", "R0")
	g.ptr("src", "R1")
	g.length("dst", "R9")
	z := V(16)
	g.zero(z)
	// ZIP1/ZIP2 with zeros put each bfloat16 in the high half of a word.
	zip := func(op string, d, src V) { g.p("%s %s, %s, %s", op, src.H8(), z.H8(), d.H8()) }
	g.loop(func(b *blk) {
		switch b.mode {
		case modeBlock:
			g.p("VLD1.P 32(R1), [V0.H8, V1.H8]")
			zip("VZIP1", 2, 0)
			zip("VZIP2", 3, 0)
			zip("VZIP1", 4, 1)
			zip("VZIP2", 5, 1)
			g.p("VST1.P [V2.S4, V3.S4, V4.S4, V5.S4], 64(R0)")
		case modeVec:
			g.p("FMOVD.P 8(R1), F0")
			zip("VZIP1", 1, 0)
			g.p("VST1.P [V1.S4], 16(R0)")
		default:
			g.p("MOVHU.P 2(R1), R4")
			g.p("LSLW $16, R4, R4")
			g.p("MOVW.P R4, 4(R0)")
		}
	})
	g.ret()
}

func (g *gen) f32ToBF16() {
	g.text("f32ToBF16", "dst []uint16, src []float32", "",
		"converts len(dst) values to bfloat16, rounding to nearest even with NaN kept quiet.")
	g.ptr("dst", "R0")
	g.ptr("src", "R1")
	g.length("dst", "R9")
	g.useConsts(cInt1, cInt7FFF, cAbsMask, cInfBits, cQuietBF)
	// round leaves the bfloat16 bits of u in the high half of each word:
	// u + 0x7fff + (u>>16)&1, or u | 0x00400000 for NaN. u is released.
	round := func(u V) V {
		h, a := g.reg(), g.reg()
		g.ushr(h, u, 16)
		g.and(h, h, g.c(cInt1))
		g.add(h, u, h)
		g.add(h, h, g.c(cInt7FFF))
		g.and(a, u, g.c(cAbsMask))
		g.cmgt(a, a, g.c(cInfBits))
		g.orr(u, u, g.c(cQuietBF))
		g.bit(h, u, a)
		g.release(u, a)
		return h
	}
	uzp2 := func(d, n, m V) { g.p("VUZP2 %s, %s, %s", m.H8(), n.H8(), d.H8()) }
	g.loop(func(b *blk) {
		u := b.load("R1")
		t := make([]V, len(u))
		for k := range u {
			t[k] = round(u[k])
		}
		switch b.mode {
		case modeBlock:
			o := g.regs(2)
			uzp2(o[0], t[0], t[1])
			uzp2(o[1], t[2], t[3])
			g.p("VST1.P [%s, %s], 32(R0)", o[0].H8(), o[1].H8())
		case modeVec:
			uzp2(t[0], t[0], t[0])
			g.p("FMOVD.P %s, 8(R0)", t[0].F())
		default:
			g.p("VMOV V%d.H[1], R4", t[0])
			g.p("MOVH.P R4, 2(R0)")
		}
	})
	g.ret()
}
