package cuda

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gofused/softmax/internal/driver"
)

// A Comm is one rank of an NCCL communicator on a Device: the ranks that
// split a vocabulary between them exchange per-row statistics through it
// (issue 77). NCCL is opened at run time like libcuda (driver.OpenNCCL:
// SOFTMAX_NCCL, libnccl.so.2, the Python wheels' and CUDA's folders), with
// NCCL_NVLS_ENABLE=0 set where the environment leaves it unset.
type Comm struct {
	dev        *Device
	nccl       *driver.NCCL
	comm       driver.Comm
	rank, size int
}

// Rank returns the communicator's rank of this device, Size the number of
// ranks.
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks.
func (c *Comm) Size() int { return c.size }

// Device returns the device the rank runs on.
func (c *Comm) Device() *Device { return c.dev }

// Close frees the communicator (not its device).
func (c *Comm) Close() error {
	return c.dev.ctx.Do(func() error { return c.nccl.CommDestroy(c.comm) })
}

// OpenComms makes one communicator over devs, one rank a device in the
// order given, for one process driving several local GPUs
// (ncclCommInitAll).
func OpenComms(devs []*Device) ([]*Comm, error) {
	if len(devs) == 0 {
		return nil, fmt.Errorf("cuda: OpenComms: no devices")
	}
	n, err := driver.OpenNCCL()
	if err != nil {
		return nil, err
	}
	ords := make([]int, len(devs))
	for i, d := range devs {
		ords[i] = d.Ordinal()
	}
	cs, err := n.CommInitAll(ords)
	if err != nil {
		return nil, fmt.Errorf("cuda: OpenComms over devices %v: %w", ords, err)
	}
	out := make([]*Comm, len(devs))
	for i, d := range devs {
		out[i] = &Comm{dev: d, nccl: n, comm: cs[i], rank: i, size: len(devs)}
	}
	return out, nil
}

// RankEnv is this process's place in a job of one process a GPU, as
// torchrun sets it: RANK, WORLD_SIZE and LOCAL_RANK.
type RankEnv struct {
	Rank, WorldSize, LocalRank int
}

// RankFromEnv reads RANK, WORLD_SIZE and LOCAL_RANK; an error names the
// variable that is missing or out of range.
func RankFromEnv() (RankEnv, error) {
	var e RankEnv
	for _, v := range []struct {
		name string
		dst  *int
	}{{"RANK", &e.Rank}, {"WORLD_SIZE", &e.WorldSize}, {"LOCAL_RANK", &e.LocalRank}} {
		s, ok := os.LookupEnv(v.name)
		if !ok {
			return RankEnv{}, fmt.Errorf("cuda: %s is not set (torchrun sets RANK, WORLD_SIZE and LOCAL_RANK)", v.name)
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return RankEnv{}, fmt.Errorf("cuda: %s=%q is not a rank count or index", v.name, s)
		}
		*v.dst = n
	}
	if e.WorldSize < 1 || e.Rank >= e.WorldSize {
		return RankEnv{}, fmt.Errorf("cuda: RANK=%d of WORLD_SIZE=%d", e.Rank, e.WorldSize)
	}
	return e, nil
}

// EnvNCCLID names the environment variable that may carry the job's NCCL
// unique id in hex (256 digits), instead of a file (JoinComm).
const EnvNCCLID = "SOFTMAX_NCCL_ID"

// JoinComm joins rank env.Rank of a communicator of env.WorldSize ranks,
// one process a GPU, on dev (ncclCommInitRank). The ranks share NCCL's
// unique id through EnvNCCLID when it is set, else through the file at
// idPath: rank 0 creates it (it must not exist: a stale id from an earlier
// job is never reused or replaced) and the other ranks wait up to timeout
// for it. A path on a shared filesystem serves ranks on several nodes too
// (unmeasured here).
func JoinComm(dev *Device, env RankEnv, idPath string, timeout time.Duration) (*Comm, error) {
	n, err := driver.OpenNCCL()
	if err != nil {
		return nil, err
	}
	id, err := shareID(env.Rank, idPath, timeout, n.UniqueID)
	if err != nil {
		return nil, err
	}
	var c driver.Comm
	if err := dev.ctx.Do(func() (err error) {
		c, err = n.CommInitRank(env.WorldSize, id, env.Rank)
		return err
	}); err != nil {
		return nil, fmt.Errorf("cuda: JoinComm rank %d of %d: %w", env.Rank, env.WorldSize, err)
	}
	return &Comm{dev: dev, nccl: n, comm: c, rank: env.Rank, size: env.WorldSize}, nil
}

// shareID returns the job's unique id: from EnvNCCLID when set; else rank
// 0 makes one (mint) and publishes it at path, and the others read it
// there once it appears, polling until timeout.
func shareID(rank int, path string, timeout time.Duration, mint func() (driver.UniqueID, error)) (driver.UniqueID, error) {
	var id driver.UniqueID
	if s, ok := os.LookupEnv(EnvNCCLID); ok {
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != len(id) {
			return id, fmt.Errorf("cuda: %s is not %d hex digits", EnvNCCLID, 2*len(id))
		}
		copy(id[:], b)
		return id, nil
	}
	if path == "" {
		return id, fmt.Errorf("cuda: no NCCL id file path and %s unset", EnvNCCLID)
	}
	if rank == 0 {
		id, err := mint()
		if err != nil {
			return id, err
		}
		return id, publishID(path, id)
	}
	for deadline := time.Now().Add(timeout); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		switch {
		case err == nil && len(b) == len(id):
			copy(id[:], b)
			return id, nil
		case err == nil:
			return id, fmt.Errorf("cuda: NCCL id file %s holds %d bytes, want %d", path, len(b), len(id))
		case !errors.Is(err, fs.ErrNotExist):
			return id, fmt.Errorf("cuda: NCCL id file: %w", err)
		case time.Now().After(deadline):
			return id, fmt.Errorf("cuda: rank %d: NCCL id file %s did not appear within %v (rank 0 writes it)", rank, path, timeout)
		}
	}
}

// publishID writes id to a temporary file beside path and links it to
// path, so a reader sees the whole id or nothing, and an existing path is
// an error rather than replaced.
func publishID(path string, id driver.UniqueID) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".nccl-id-*")
	if err != nil {
		return fmt.Errorf("cuda: NCCL id file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(id[:]); err != nil {
		tmp.Close()
		return fmt.Errorf("cuda: NCCL id file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cuda: NCCL id file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("cuda: NCCL id file %s exists (an earlier job's?): remove it or name another", path)
		}
		return fmt.Errorf("cuda: NCCL id file: %w", err)
	}
	return nil
}
