//go:build windows && (amd64 || arm64)

package driver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// The Windows loader and call path, against kernel32.dll (always there).
func TestWindowsLoadAndCall(t *testing.T) {
	h, err := openLibrary("kernel32.dll")
	if err != nil || h == 0 {
		t.Fatalf("openLibrary(kernel32.dll) = %#x, %v", h, err)
	}
	pid := lookupSymbol(h, "GetCurrentProcessId")
	if pid == 0 {
		t.Fatal("GetCurrentProcessId not found")
	}
	if got := callC(pid); int(uint32(got)) != os.Getpid() {
		t.Errorf("GetCurrentProcessId() = %d, want %d", got, os.Getpid())
	}
	if lookupSymbol(h, "cuInit") != 0 {
		t.Error("a missing symbol resolved")
	}
	// A pointer argument: GetSystemDirectoryA(buf, len) fills Go memory.
	buf := make([]byte, 260)
	n := callC(lookupSymbol(h, "GetSystemDirectoryA"), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if n == 0 || n >= uintptr(len(buf)) {
		t.Fatalf("GetSystemDirectoryA = %d", n)
	}
	sys := string(buf[:n])
	if _, err := openLibrary(filepath.Join(sys, "no-such-library.dll")); err == nil {
		t.Error("a missing DLL loaded")
	}

	// A DLL that is not the driver is reported as such.
	_, err = loadDriver(fakeEnv(map[string]string{EnvLibCUDA: filepath.Join(sys, "kernel32.dll")}), "amd64")
	var se *SymbolError
	if !errors.As(err, &se) || se.Symbol != "cuInit" || !strings.Contains(err.Error(), "does not look like the CUDA driver") {
		t.Errorf("kernel32.dll as the driver: %v", err)
	}
}

// An NVRTC loaded by path has its folder put on PATH once, for the
// builtins DLL it loads by name.
func TestNVRTCFolderOnPath(t *testing.T) {
	// A folder that does not exist: AddDllDirectory refuses it (and would
	// hold a real one open past the test), so PATH alone is checked.
	dir := `C:\softmax-test-no-such-folder`
	t.Setenv("PATH", os.Getenv("PATH"))
	nvrtcLoaded(filepath.Join(dir, "nvrtc64_130_0.dll"))
	nvrtcLoaded(filepath.Join(dir, "nvrtc64_130_0.dll"))
	n := 0
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if strings.EqualFold(filepath.Clean(d), filepath.Clean(dir)) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("folder on PATH %d times", n)
	}
	before := os.Getenv("PATH")
	nvrtcLoaded("nvrtc64_130_0.dll") // found by the standard search: nothing to add
	if os.Getenv("PATH") != before {
		t.Error("a bare name changed PATH")
	}
}
