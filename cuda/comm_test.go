package cuda

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofused/softmax/internal/driver"
)

// RankFromEnv reads torchrun's three variables and names the one that is
// missing or wrong.
func TestRankFromEnv(t *testing.T) {
	for _, c := range []struct {
		rank, world, local string // "-": unset
		want               string
	}{
		{"1", "4", "1", ""},
		{"-", "4", "1", "RANK is not set"},
		{"0", "-", "0", "WORLD_SIZE is not set"},
		{"0", "1", "-", "LOCAL_RANK is not set"},
		{"x", "4", "1", `RANK="x"`},
		{"0", "-2", "0", `WORLD_SIZE="-2"`},
		{"4", "4", "0", "RANK=4 of WORLD_SIZE=4"},
		{"0", "0", "0", "RANK=0 of WORLD_SIZE=0"},
	} {
		for name, v := range map[string]string{"RANK": c.rank, "WORLD_SIZE": c.world, "LOCAL_RANK": c.local} {
			t.Setenv(name, v)
			if v == "-" {
				os.Unsetenv(name)
			}
		}
		e, err := RankFromEnv()
		switch {
		case c.want == "" && (err != nil || e != RankEnv{Rank: 1, WorldSize: 4, LocalRank: 1}):
			t.Errorf("%+v: %+v, %v", c, e, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one containing %q", c, err, c.want)
		}
	}
}

func testID(b byte) driver.UniqueID {
	var id driver.UniqueID
	for i := range id {
		id[i] = b + byte(i)
	}
	return id
}

// The unique id travels through a file rank 0 creates (never over an
// existing one) and the others wait for, or through SOFTMAX_NCCL_ID.
func TestShareID(t *testing.T) {
	t.Setenv(EnvNCCLID, "")
	os.Unsetenv(EnvNCCLID)
	mint := func() (driver.UniqueID, error) { return testID(7), nil }
	path := filepath.Join(t.TempDir(), "id")
	got := make(chan driver.UniqueID, 1)
	go func() {
		id, err := shareID(1, path, 5*time.Second, func() (driver.UniqueID, error) { return driver.UniqueID{}, errors.New("rank 1 minted") })
		if err != nil {
			t.Error(err)
		}
		got <- id
	}()
	time.Sleep(50 * time.Millisecond) // rank 1 polls before the file exists
	id0, err := shareID(0, path, time.Second, mint)
	if err != nil || id0 != testID(7) {
		t.Fatalf("rank 0: %v", err)
	}
	if id1 := <-got; id1 != id0 {
		t.Errorf("rank 1 read another id")
	}
	// A second job on the same path: refused, the file kept.
	if _, err := shareID(0, path, time.Second, func() (driver.UniqueID, error) { return testID(9), nil }); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing id file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(id0[:]) {
		t.Errorf("the existing id file was changed")
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".nccl-id-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	// A rank waiting for a file that never comes, and a short file.
	if _, err := shareID(2, filepath.Join(t.TempDir(), "none"), 60*time.Millisecond, mint); err == nil || !strings.Contains(err.Error(), "did not appear") {
		t.Errorf("no id file: %v", err)
	}
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	if _, err := shareID(1, short, time.Second, mint); err == nil || !strings.Contains(err.Error(), "3 bytes") {
		t.Errorf("short id file: %v", err)
	}
	if _, err := shareID(1, "", time.Second, mint); err == nil {
		t.Errorf("no path and no %s: no error", EnvNCCLID)
	}
	// Through the environment: every rank reads it, none mints.
	want := testID(3)
	t.Setenv(EnvNCCLID, hex.EncodeToString(want[:]))
	for rank := range 2 {
		if id, err := shareID(rank, "", time.Second, func() (driver.UniqueID, error) { return driver.UniqueID{}, errors.New("minted") }); err != nil || id != want {
			t.Errorf("rank %d from %s: %v", rank, EnvNCCLID, err)
		}
	}
	t.Setenv(EnvNCCLID, "zz")
	if _, err := shareID(0, "", time.Second, mint); err == nil || !strings.Contains(err.Error(), "256 hex digits") {
		t.Errorf("bad %s: %v", EnvNCCLID, err)
	}
}

// One rank on one GPU, both ways a job starts: ncclCommInitAll over the
// device, and ncclCommInitRank from an id file; the sharded ops through
// it against the single-GPU ops. Skips without a driver or NCCL.
func TestCommOneRank(t *testing.T) {
	d := openOrSkip(t)
	if _, err := driver.OpenNCCL(); err != nil {
		t.Skipf("no NCCL: %v", err)
	}
	cs, err := OpenComms([]*Device{d})
	if err != nil {
		t.Fatal(err)
	}
	if c := cs[0]; c.Rank() != 0 || c.Size() != 1 || c.Device() != d {
		t.Errorf("OpenComms: rank %d of %d", c.Rank(), c.Size())
	}
	checkCommShards(t, []*Device{d}, []exchange{cs[0]}, -1)
	if err := cs[0].Close(); err != nil {
		t.Error(err)
	}
	t.Setenv(EnvNCCLID, "")
	os.Unsetenv(EnvNCCLID)
	c, err := JoinComm(d, RankEnv{Rank: 0, WorldSize: 1}, filepath.Join(t.TempDir(), "id"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rank() != 0 || c.Size() != 1 {
		t.Errorf("JoinComm: rank %d of %d", c.Rank(), c.Size())
	}
	checkCommShards(t, []*Device{d}, []exchange{c}, 0)
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}
