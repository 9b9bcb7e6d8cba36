//go:build (!amd64 && !arm64) || purego

package vec

// asmSets reports no assembly kernels: other architectures and purego
// builds run the pure-Go twins.
func asmSets() []*kernelSet { return nil }
