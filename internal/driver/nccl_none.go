//go:build !(linux && !android && (amd64 || arm64))

package driver

import "errors"

// canLoadNCCL: NCCL exists for Linux on amd64 and arm64 alone; elsewhere
// OpenNCCL reports a *NotFoundError naming the platform.
const canLoadNCCL = false

func (n *NCCL) commInitRank(*Comm, int, *UniqueID, int) error {
	return errors.New("ncclCommInitRank: NCCL is not available on this platform")
}
