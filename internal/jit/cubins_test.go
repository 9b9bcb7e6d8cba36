package jit

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// TestWriteCubins is the first half of the resource tables' generator
// (internal/kernels/resources.sh): with SMX_CUBIN_OUT=DIR it compiles every
// catalogue module (each dtype's, the general build) with NVRTC and the
// options the library uses, for each architecture of SMX_CUBIN_ARCHS
// (default "sm_80 sm_90"; strategies the architecture cannot run are left
// out), into DIR/<arch>/<strategy>_<dtype>.cubin. It needs NVRTC, not a GPU.
func TestWriteCubins(t *testing.T) {
	dir := os.Getenv("SMX_CUBIN_OUT")
	if dir == "" {
		t.Skip("SMX_CUBIN_OUT not set (the resource tables' generator, internal/kernels/resources.sh)")
	}
	archs := strings.Fields(os.Getenv("SMX_CUBIN_ARCHS"))
	if len(archs) == 0 {
		archs = []string{"sm_80", "sm_90"}
	}
	var be NVRTCBackend
	if v, err := be.Version(); err != nil {
		t.Fatalf("NVRTC: %v", err)
	} else {
		t.Logf("compiler %s", v)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for _, arch := range archs {
		n, err := strconv.Atoi(strings.TrimRight(strings.TrimPrefix(arch, "sm_"), "abcdefghijklmnopqrstuvwxyz"))
		major := n / 10
		if err != nil || !archRE.MatchString(arch) {
			t.Fatalf("architecture %q", arch)
		}
		if err := os.MkdirAll(filepath.Join(dir, arch), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, in := range kernels.All() {
			if in.MinMajor > major || in.Cluster && major < 9 {
				continue
			}
			for _, dt := range kernels.GPUDTypes() {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					if err := writeCubin(be, dir, arch, in.Strategy, dt); err != nil {
						t.Error(err)
					}
				}()
			}
		}
	}
	wg.Wait()
}

func writeCubin(be NVRTCBackend, dir, arch string, s kernels.Strategy, dt spec.DType) error {
	p, err := s.Program(dt)
	if err != nil || len(p.Symbols) == 0 { // no kernels of the dtype
		return err
	}
	cubin, log, err := be.Compile(p.Source, p.Name, p.Headers, Options(Request{Arch: arch}))
	if err != nil {
		return fmt.Errorf("%s for %s: %v\n%s", p.Name, arch, err, log)
	}
	return os.WriteFile(filepath.Join(dir, arch, fmt.Sprintf("%s_%v.cubin", s, dt)), cubin, 0o644)
}
