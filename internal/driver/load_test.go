package driver

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// fakeEnv returns a lookupFunc over m.
func fakeEnv(m map[string]string) lookupFunc {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// fakeGlob returns a globFunc answering from m (pattern -> matches) and
// recording the patterns asked for.
func fakeGlob(m map[string][]string, asked *[]string) globFunc {
	return func(p string) ([]string, error) {
		if asked != nil {
			*asked = append(*asked, p)
		}
		return append([]string(nil), m[p]...), nil
	}
}

// onHost makes the search lists those of goos for the test's duration.
func onHost(t *testing.T, goos string) {
	t.Helper()
	saved := hostOS
	hostOS = goos
	t.Cleanup(func() { hostOS = saved })
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func TestDriverCandidatesEnvOverrideIsExclusive(t *testing.T) {
	onHost(t, "linux")
	got, env := driverCandidates(fakeEnv(map[string]string{EnvLibCUDA: "/opt/x/libcuda.so.1"}), "amd64")
	if !reflect.DeepEqual(got, []string{"/opt/x/libcuda.so.1"}) || env != EnvLibCUDA {
		t.Fatalf("got %v, %q", got, env)
	}
}

func TestDriverCandidatesOrder(t *testing.T) {
	onHost(t, "linux")
	got, env := driverCandidates(fakeEnv(nil), "amd64")
	if env != "" {
		t.Fatalf("env = %q", env)
	}
	if got[0] != "libcuda.so.1" {
		t.Fatalf("soname must come first, got %v", got)
	}
	for _, want := range []string{
		"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
		"/usr/lib64/libcuda.so.1",
		"/usr/local/nvidia/lib64/libcuda.so.1",
		"/usr/lib/wsl/lib/libcuda.so.1",
	} {
		if indexOf(got, want) < 1 {
			t.Errorf("missing %s in %v", want, got)
		}
	}
	arm, _ := driverCandidates(fakeEnv(nil), "arm64")
	if indexOf(arm, "/usr/lib/aarch64-linux-gnu/libcuda.so.1") < 0 {
		t.Errorf("arm64 list lacks the aarch64 multiarch dir: %v", arm)
	}
	// An empty override is ignored.
	got2, _ := driverCandidates(fakeEnv(map[string]string{EnvLibCUDA: "  "}), "amd64")
	if !reflect.DeepEqual(got, got2) {
		t.Errorf("empty %s changed the list", EnvLibCUDA)
	}
}

func TestNVRTCCandidatesEnvOverrideIsExclusive(t *testing.T) {
	onHost(t, "linux")
	got, env := nvrtcCandidates(fakeEnv(map[string]string{EnvNVRTC: "/x/libnvrtc.so.12", "CUDA_HOME": "/cuda"}), fakeGlob(nil, nil), "amd64", 0)
	if !reflect.DeepEqual(got, []string{"/x/libnvrtc.so.12"}) || env != EnvNVRTC {
		t.Fatalf("got %v, %q", got, env)
	}
}

func TestNVRTCCandidatesOrder(t *testing.T) {
	onHost(t, "linux")
	env := fakeEnv(map[string]string{
		"CUDA_HOME":   "/opt/cuda-home/",
		"CUDA_PATH":   "/opt/cuda-path",
		"VIRTUAL_ENV": "/venv",
		"HOME":        "/home/u",
	})
	globs := map[string][]string{
		"/usr/local/cuda-*/lib64":                   {"/usr/local/cuda-12.4/lib64", "/usr/local/cuda-13.0/lib64"},
		"/opt/cuda-home/lib64/libnvrtc.so*":         {"/opt/cuda-home/lib64/libnvrtc.so.13.0.48", "/opt/cuda-home/lib64/libnvrtc.so.13"},
		"/usr/local/lib/python3*/dist-packages":     {"/usr/local/lib/python3.11/dist-packages"},
		"/venv/lib/python3*/site-packages":          {"/venv/lib/python3.12/site-packages"},
		"/home/u/.local/lib/python3*/site-packages": {"/home/u/.local/lib/python3.10/site-packages"},
		"/opt/*/.venv/lib/python3*/site-packages":   {"/opt/app/.venv/lib/python3.12/site-packages"},
		"/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so*": {
			"/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13",
		},
		"/usr/local/lib/python3.11/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so*": {
			"/usr/local/lib/python3.11/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
			"/usr/local/lib/python3.11/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12.4.127",
		},
	}
	var asked []string
	got, ovr := nvrtcCandidates(env, fakeGlob(globs, &asked), "amd64", 0)
	if ovr != "" {
		t.Fatalf("override = %q", ovr)
	}
	if !reflect.DeepEqual(got[:3], []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
		t.Fatalf("sonames must come first in order, got %v", got[:3])
	}
	// Relative order of the interesting entries: every folder's .so.13,
	// then every folder's .so.12, then the other glob hits.
	order := []string{
		"libnvrtc.so",
		"/opt/cuda-home/lib64/libnvrtc.so.13",
		"/opt/cuda-path/lib64/libnvrtc.so.13",
		"/usr/local/cuda/lib64/libnvrtc.so.13",
		"/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13",
		"/usr/local/cuda-13.0/lib64/libnvrtc.so.13",
		"/usr/local/cuda-12.4/lib64/libnvrtc.so.13",
		"/usr/local/lib/python3.11/dist-packages/nvidia/cu13/lib/libnvrtc.so.13",
		"/opt/app/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13",
		"/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13",
		"/opt/cuda-home/lib64/libnvrtc.so.12",
		"/usr/local/lib/python3.11/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
		"/home/u/.local/lib/python3.10/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
		"/opt/cuda-home/lib64/libnvrtc.so.13.0.48",
		"/usr/local/lib/python3.11/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12.4.127",
	}
	last := -1
	for _, s := range order {
		i := indexOf(got, s)
		if i < 0 {
			t.Fatalf("missing %s in\n%s", s, strings.Join(got, "\n"))
		}
		if i <= last {
			t.Fatalf("%s at %d, expected after index %d in\n%s", s, i, last, strings.Join(got, "\n"))
		}
		last = i
	}
	// No duplicates (libnvrtc.so.13 is both a fixed name and a glob hit).
	seen := map[string]bool{}
	for _, s := range got {
		if seen[s] {
			t.Errorf("duplicate candidate %s", s)
		}
		seen[s] = true
	}
	if indexOf(asked, "/home/u/.local/lib/python3*/site-packages") < 0 {
		t.Errorf("~/.local site-packages not searched; asked %v", asked)
	}

	// A CUDA 12 driver prefers NVRTC 12, everywhere.
	got12, _ := nvrtcCandidates(env, fakeGlob(globs, nil), "amd64", 12)
	if !reflect.DeepEqual(got12[:3], []string{"libnvrtc.so.12", "libnvrtc.so.13", "libnvrtc.so"}) {
		t.Errorf("driver 12: sonames %v", got12[:3])
	}
	// ... in every folder before any folder's .so.13: CUDA_HOME's 13 must
	// not shadow a 12 found later.
	if i, j := indexOf(got12, "/home/u/.local/lib/python3.10/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"), indexOf(got12, "/opt/cuda-home/lib64/libnvrtc.so.13"); i < 0 || i > j {
		t.Errorf("driver 12: a later folder's .so.12 not before the first folder's .so.13 (%d, %d)", i, j)
	}
	if got13, _ := nvrtcCandidates(env, fakeGlob(globs, nil), "amd64", 13); !reflect.DeepEqual(got13, got) {
		t.Errorf("driver 13 must give the default order")
	}

	arm, _ := nvrtcCandidates(fakeEnv(nil), fakeGlob(nil, nil), "arm64", 0)
	if indexOf(arm, "/usr/local/cuda/targets/sbsa-linux/lib/libnvrtc.so.13") < 0 {
		t.Errorf("arm64 list lacks sbsa-linux: %v", arm)
	}
}

func TestNotFoundErrorMessage(t *testing.T) {
	if !canLoadCUDA {
		t.Skip("no CUDA library can be loaded on this platform (TestUnsupportedPlatformMessage)")
	}
	_, _, err := dlopenFirst(libcudaName, "", []string{"/nonexistent/a/libcuda.so.1", "/nonexistent/b/libcuda.so.1"})
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("want *NotFoundError, got %T %v", err, err)
	}
	msg := err.Error()
	want := "no GPU: " + libcudaName + " not found (tried: /nonexistent/a/libcuda.so.1, /nonexistent/b/libcuda.so.1)"
	if msg != want {
		t.Errorf("message\n got %q\nwant %q", msg, want)
	}
	if len(nf.Errs) != 2 || len(nf.Tried) != 2 {
		t.Errorf("Tried/Errs = %v / %v", nf.Tried, nf.Errs)
	}
	if !IsNotFound(err) || !IsNoGPU(err) {
		t.Errorf("IsNotFound/IsNoGPU false for %v", err)
	}

	_, _, err = dlopenFirst(libnvrtc, EnvNVRTC, []string{"/nonexistent/libnvrtc.so"})
	msg = err.Error()
	if !strings.HasPrefix(msg, "no NVRTC: "+libnvrtc+" not found ($SOFTMAX_NVRTC=/nonexistent/libnvrtc.so") {
		t.Errorf("nvrtc override message: %q", msg)
	}
	if IsNoGPU(err) {
		t.Errorf("a missing NVRTC is not 'no GPU'")
	}
}

func TestOpenWithBadOverrideIsNotFound(t *testing.T) {
	if !canLoadCUDA {
		t.Skip("no CUDA library can be loaded on this platform (TestUnsupportedPlatformMessage)")
	}
	env := fakeEnv(map[string]string{EnvLibCUDA: "/nonexistent/libcuda.so.1"})
	a, err := openDriver(env, "amd64")
	if a != nil || err == nil {
		t.Fatalf("openDriver = %v, %v", a, err)
	}
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("want *NotFoundError, got %T: %v", err, err)
	}
	if nf.Library != libcudaName || !reflect.DeepEqual(nf.Tried, []string{"/nonexistent/libcuda.so.1"}) || nf.Env != EnvLibCUDA {
		t.Errorf("NotFoundError = %+v", nf)
	}
	if got := err.Error(); !strings.HasPrefix(got, "no GPU: "+libcudaName+" not found ($SOFTMAX_LIBCUDA=/nonexistent/libcuda.so.1") {
		t.Errorf("message = %q", got)
	}

	// The same through the real environment and the public loader path.
	t.Setenv(EnvNVRTC, "/nonexistent/libnvrtc.so.13")
	_, err = loadNVRTC(lookupFromOS(), nil, "amd64", 0)
	if !errors.As(err, &nf) || nf.Library != libnvrtc {
		t.Fatalf("loadNVRTC with bad override: %T %v", err, err)
	}
}

// A library that loads but is not the driver is reported as such.
func TestLoadWrongLibrary(t *testing.T) {
	if runtime.GOOS != "linux" || !canLoadCUDA {
		t.Skip("a Linux libc is loaded where this build loads CUDA (TestWindowsLoadAndCall on Windows)")
	}
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6"} {
		if !fileExists(p) {
			continue
		}
		_, err := loadDriver(fakeEnv(map[string]string{EnvLibCUDA: p}), "amd64")
		var se *SymbolError
		if !errors.As(err, &se) || se.Symbol != "cuInit" {
			t.Fatalf("loading libc as libcuda: %T %v", err, err)
		}
		if !strings.Contains(err.Error(), "does not look like the CUDA driver") {
			t.Errorf("message = %q", err)
		}
		return
	}
	t.Skip("no libc found at the usual paths")
}

func TestOpenIsCached(t *testing.T) {
	a1, err1 := Open()
	a2, err2 := Open()
	if a1 != a2 || err1 != err2 {
		t.Fatalf("Open not cached: (%p, %v) vs (%p, %v)", a1, err1, a2, err2)
	}
	if (a1 == nil) == (err1 == nil) {
		t.Fatalf("exactly one of API and error must be set: %v, %v", a1, err1)
	}
	if err1 != nil {
		// Whatever the reason, it must be one of the typed errors.
		var nf *NotFoundError
		var de *Error
		if !errors.As(err1, &nf) && !errors.As(err1, &de) {
			t.Fatalf("Open error of unexpected type %T: %v", err1, err1)
		}
		t.Logf("no usable driver here: %v", err1)
	}
}
