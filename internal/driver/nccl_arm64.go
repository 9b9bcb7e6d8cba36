//go:build linux && !android

package driver

import "unsafe"

// canLoadNCCL: NCCL is built for Linux on amd64 and arm64 only.
const canLoadNCCL = true

// commInitRank calls ncclCommInitRank(comm*, nranks, id, rank) under
// AAPCS64: a composite over 16 bytes is passed as a pointer to a copy the
// caller owns (*id is that copy), in the next integer register.
func (n *NCCL) commInitRank(c *Comm, nranks int, id *UniqueID, rank int) error {
	return n.call(symNcclCommInitRank, uintptr(unsafe.Pointer(c)), uintptr(nranks), uintptr(unsafe.Pointer(id)), uintptr(rank))
}
