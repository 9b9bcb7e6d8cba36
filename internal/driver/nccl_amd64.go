//go:build linux && !android

package driver

import "unsafe"

// canLoadNCCL: NCCL is built for Linux on amd64 and arm64 only.
const canLoadNCCL = true

// commInitRank calls ncclCommInitRank(comm*, nranks, id, rank) under the
// System V ABI: the 128-byte id is a MEMORY-class argument, copied onto the
// stack after the six integer registers, and rank takes the third one.
func (n *NCCL) commInitRank(c *Comm, nranks int, id *UniqueID, rank int) error {
	var w [16]uintptr
	for i := range w {
		w[i] = uintptr(*(*uint64)(unsafe.Pointer(&id[8*i])))
	}
	return n.call(symNcclCommInitRank, uintptr(unsafe.Pointer(c)), uintptr(nranks), uintptr(rank), 0, 0, 0,
		w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11], w[12], w[13], w[14], w[15])
}
