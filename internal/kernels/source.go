package kernels

import (
	"embed"
	"fmt"
)

//go:embed *.cu *.cuh
var files embed.FS

// Header is the include name of the shared device helpers.
const Header = "common.cuh"

// Source returns the NVRTC input for one strategy file compiled for one
// dtype: the .cu text with the dtype selector defined in front, and the
// header map for its #include.
func Source(file string, dtypeBit int) (src string, headers map[string]string, err error) {
	body, err := files.ReadFile(file)
	if err != nil {
		return "", nil, fmt.Errorf("kernels: no source %q: %w", file, err)
	}
	hdr, err := files.ReadFile(Header)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("#define SMX_DTYPES %d\n", dtypeBit) + string(body), map[string]string{Header: string(hdr)}, nil
}

// SourceText returns a raw embedded file (for tests and tools).
func SourceText(file string) (string, error) {
	b, err := files.ReadFile(file)
	return string(b), err
}
