//go:build !(linux && !android && (amd64 || arm64))

package driver

// keepSignalStacks is a no-op where the kernel sigaction layout is not
// known to this package (see signals_linux.go).
func keepSignalStacks() []int { return nil }

// saveSignalActions is a no-op here (see signals_linux.go).
func saveSignalActions() {}
