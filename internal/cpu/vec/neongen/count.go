package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Instruction counts: no arm64 machine is at hand to time the NEON
// kernels, so docs/cpu-arm64.md compares the instructions per element of
// each kernel's main loop (the first loop: the widest blocks) with the
// amd64 kernels'. Loop control (compare, branches, index updates) counts.

var (
	textRe  = regexp.MustCompile(`^TEXT ·(\w+)\(SB\)`)
	labelRe = regexp.MustCompile(`^(\w+):$`)
	stepRe  = regexp.MustCompile(`^CMPQ?\s+(?:\$(\w+),\s*R9|CX,\s*\$(\w+))$`)
)

// loopCounts returns, for each function of an assembly file, the
// instructions of its first loop and the elements one pass covers.
func loopCounts(src string) map[string][2]int {
	out := map[string][2]int{}
	var fn, label string
	n, step := 0, 0
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 && !strings.HasPrefix(line, "WORD") {
			line = strings.TrimSpace(line[:i])
		}
		if m := textRe.FindStringSubmatch(line); m != nil {
			fn, label, n, step = m[1], "", 0, 0
			continue
		}
		if fn == "" || line == "" {
			continue
		}
		if _, done := out[fn]; done {
			continue
		}
		if m := labelRe.FindStringSubmatch(line); m != nil {
			if label == "" {
				label, n = m[1], 0
			}
			continue
		}
		if label == "" {
			continue
		}
		n++
		if step == 0 {
			m := stepRe.FindStringSubmatch(line)
			if m == nil {
				label = "" // not a counted loop
				continue
			}
			v, err := strconv.ParseInt(m[1]+m[2], 0, 64)
			if err != nil {
				panic(err)
			}
			step = int(v)
		}
		if f := strings.Fields(line); len(f) == 2 && (f[0] == "B" || f[0] == "JMP") && f[1] == label {
			out[fn] = [2]int{n, step}
		}
	}
	return out
}

// countTable writes the markdown table of instructions per element of
// every NEON kernel beside its AVX2 and AVX-512 twins.
func countTable(arm, amd string) string {
	a, x := loopCounts(arm), loopCounts(amd)
	per := func(c [2]int, ok bool) string {
		if !ok {
			return "—"
		}
		return fmt.Sprintf("%.2f (%d/%d)", float64(c[0])/float64(c[1]), c[0], c[1])
	}
	var b strings.Builder
	b.WriteString("| kernel | arm64 NEON instr/element | AVX2 instr/element | AVX-512 instr/element |\n")
	b.WriteString("|---|---|---|---|\n")
	g := &gen{}
	g.all()
	for _, k := range g.kernels {
		c, ok := a[k+"NEON"]
		c2, ok2 := x[k+"AVX2"]
		c5, ok5 := x[k+"AVX512"]
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", k, per(c, ok), per(c2, ok2), per(c5, ok5))
	}
	return b.String()
}
