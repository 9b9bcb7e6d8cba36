package kernels

import (
	"embed"
	"fmt"
	"regexp"
)

//go:embed *.cu *.cuh
var files embed.FS

// Header is the include name of the shared device helpers.
const Header = "common.cuh"

// Source returns the NVRTC input for one strategy file compiled for the
// dtypes in dtypeBit (a DTypeMask or an OR of them): the .cu text with the
// dtype selector defined in front (and a #line directive so compiler
// messages keep the file's own line numbers), and the header map for its
// #include. plain compiles the module for plain softmax launches only
// (forward, scale 1, not log: SMX_PLAIN in common.cuh), whose forward
// kernels spend fewer instructions an element; its kernels trap on any
// other launch.
func Source(file string, dtypeBit int, plain bool) (src string, headers map[string]string, err error) {
	body, err := files.ReadFile(file)
	if err != nil {
		return "", nil, fmt.Errorf("kernels: no source %q: %w", file, err)
	}
	hdr, err := files.ReadFile(Header)
	if err != nil {
		return "", nil, err
	}
	if dtypeBit <= 0 || dtypeBit > 7 {
		return "", nil, fmt.Errorf("kernels: dtype mask %d out of range 1..7", dtypeBit)
	}
	prefix := fmt.Sprintf("#define SMX_DTYPES %d\n", dtypeBit)
	if plain {
		prefix += "#define SMX_PLAIN 1\n"
	}
	prefix += fmt.Sprintf("#line 1 %q\n", file)
	return prefix + string(body), map[string]string{Header: string(hdr)}, nil
}

// kernelLine matches a kernel definition, SMX_KERNEL(name, bounds, body) on
// a line of its own, as every .cu file writes them.
var kernelLine = regexp.MustCompile(`(?m)^[ \t]*SMX_KERNEL\(([A-Za-z0-9_]+),.*$`)

// KernelSource is Source for one kernel: every kernel definition but
// symbol's is blanked (the line kept, so compiler messages keep the file's
// line numbers), and NVRTC instantiates and compiles that kernel alone.
// That is what a launch needs, and it takes a fraction of the file: on an
// H100 host with NVRTC 13, 0.63 s a kernel on average (under 3.5 s)
// against 36-67 s for block_reg.cu's 102-106 kernels of one dtype. The
// code is the same either way: compiled alone, every one of the 1779
// kernels of every file, dtype and build had the .text section it has in
// its whole file, byte for byte (bench/results/nvidia-h100-2026-11-25-ab-
// s61.txt). A symbol that file
// does not define is an error; one in a dtype block that dtypeBit leaves
// out compiles to a module without it.
func KernelSource(file string, dtypeBit int, plain bool, symbol string) (src string, headers map[string]string, err error) {
	src, headers, err = Source(file, dtypeBit, plain)
	if err != nil {
		return "", nil, err
	}
	found := 0
	src = kernelLine.ReplaceAllStringFunc(src, func(line string) string {
		if kernelLine.FindStringSubmatch(line)[1] == symbol {
			found++
			return line
		}
		return ""
	})
	if found != 1 {
		return "", nil, fmt.Errorf("kernels: %s defines kernel %q %d times, want once", file, symbol, found)
	}
	return src, headers, nil
}

// SourceText returns a raw embedded file (for tests and tools).
func SourceText(file string) (string, error) {
	b, err := files.ReadFile(file)
	return string(b), err
}
