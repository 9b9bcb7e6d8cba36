package kernels

import (
	"embed"
	"fmt"
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

// SourceText returns a raw embedded file (for tests and tools).
func SourceText(file string) (string, error) {
	b, err := files.ReadFile(file)
	return string(b), err
}
