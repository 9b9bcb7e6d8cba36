package driver

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestWindowsDriverCandidates(t *testing.T) {
	onHost(t, "windows")
	got, env := driverCandidates(fakeEnv(nil), "amd64")
	if !reflect.DeepEqual(got, []string{"nvcuda.dll"}) || env != "" {
		t.Errorf("driver list = %v (%q)", got, env)
	}
	got, env = driverCandidates(fakeEnv(map[string]string{EnvLibCUDA: `D:\drv\nvcuda.dll`}), "amd64")
	if !reflect.DeepEqual(got, []string{`D:\drv\nvcuda.dll`}) || env != EnvLibCUDA {
		t.Errorf("override = %v (%q)", got, env)
	}
}

func TestWindowsNVRTCCandidates(t *testing.T) {
	onHost(t, "windows")
	env := fakeEnv(map[string]string{
		"CUDA_PATH":    `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\`,
		"ProgramFiles": `C:\Program Files`,
		"CONDA_PREFIX": `C:\conda\envs\ml`,
		"VIRTUAL_ENV":  `C:\proj\.venv`,
		"LOCALAPPDATA": `C:\Users\u\AppData\Local`,
	})
	globs := map[string][]string{
		`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v*`: {
			`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4`,
			`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0`,
		},
		`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin\nvrtc64_*.dll`: {
			`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin\nvrtc64_120_0.dll`,
			`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin\nvrtc64_120_0.alt.dll`,
		},
		`C:\Users\u\AppData\Local\Programs\Python\Python3*\Lib\site-packages`: {
			`C:\Users\u\AppData\Local\Programs\Python\Python312\Lib\site-packages`,
		},
	}
	var asked []string
	got, ovr := nvrtcCandidates(env, fakeGlob(globs, &asked), "amd64", 0)
	if ovr != "" {
		t.Errorf("override %q without one set", ovr)
	}
	if !reflect.DeepEqual(got[:2], []string{"nvrtc64_130_0.dll", "nvrtc64_120_0.dll"}) {
		t.Errorf("names first, newest major first: %v", got[:2])
	}
	// The order: every folder's NVRTC 13 ($CUDA_PATH, bin\x64 before bin;
	// the newest installed toolkit before older ones; conda; then
	// site-packages), then every folder's NVRTC 12, then other matches.
	inOrder := []string{
		`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\bin\x64\nvrtc64_130_0.dll`,
		`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\bin\nvrtc64_130_0.dll`,
		`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin\x64\nvrtc64_130_0.dll`,
		`C:\conda\envs\ml\Library\bin\x64\nvrtc64_130_0.dll`,
		`C:\conda\envs\ml\Library\bin\nvrtc64_130_0.dll`,
		`C:\proj\.venv\Lib\site-packages\nvidia\cu13\bin\x86_64\nvrtc64_130_0.dll`,
		`C:\conda\envs\ml\Lib\site-packages\nvidia\cu13\bin\x86_64\nvrtc64_130_0.dll`,
		`C:\Users\u\AppData\Local\Programs\Python\Python312\Lib\site-packages\nvidia\cu13\bin\x86_64\nvrtc64_130_0.dll`,
		`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\bin\x64\nvrtc64_120_0.dll`,
		`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin\nvrtc64_120_0.dll`,
		`C:\proj\.venv\Lib\site-packages\nvidia\cuda_nvrtc\bin\nvrtc64_120_0.dll`,
	}
	last := -1
	for _, want := range inOrder {
		i := indexOf(got, want)
		if i < 0 {
			t.Fatalf("missing %s in\n%s", want, strings.Join(got, "\n"))
		}
		if i < last {
			t.Errorf("%s comes before an earlier place", want)
		}
		last = i
	}
	for _, c := range got {
		if strings.HasSuffix(c, ".alt.dll") || strings.Contains(c, "/") || strings.Contains(c, `\\`) {
			t.Errorf("bad candidate %q", c)
		}
	}
	if indexOf(asked, `C:\Program Files\Python3*\Lib\site-packages`) < 0 {
		t.Errorf("all-users Python installs not searched: %v", asked)
	}
	seen := map[string]bool{}
	for _, c := range got {
		if seen[c] {
			t.Errorf("duplicate %s", c)
		}
		seen[c] = true
	}

	// A CUDA 12 driver wants NVRTC 12 first, in every place before any
	// place's 13: $CUDA_PATH's (newest) toolkit must not shadow an older one.
	got12, _ := nvrtcCandidates(env, fakeGlob(globs, nil), "amd64", 12)
	if got12[0] != "nvrtc64_120_0.dll" {
		t.Errorf("driver 12: first %s", got12[0])
	}
	a := indexOf(got12, `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin\nvrtc64_120_0.dll`)
	b := indexOf(got12, `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\bin\x64\nvrtc64_130_0.dll`)
	if a < 0 || a > b {
		t.Errorf("driver 12: the 12.4 toolkit's NVRTC not before the 13.0 one's (%d, %d)", a, b)
	}

	// Windows on Arm: the toolkit's bin\arm64 and the wheel's bin\arm64.
	arm, _ := nvrtcCandidates(env, fakeGlob(globs, nil), "arm64", 0)
	for _, want := range []string{
		`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v13.0\bin\arm64\nvrtc64_130_0.dll`,
		`C:\proj\.venv\Lib\site-packages\nvidia\cu13\bin\arm64\nvrtc64_130_0.dll`,
	} {
		if indexOf(arm, want) < 0 {
			t.Errorf("arm64 list lacks %s", want)
		}
	}
	for _, c := range arm {
		if strings.Contains(c, `\x64\`) || strings.Contains(c, `x86_64`) {
			t.Errorf("arm64 list has an x64 folder: %s", c)
		}
	}

	// Without ProgramFiles the default drive's folder is searched.
	asked = nil
	nvrtcCandidates(fakeEnv(nil), fakeGlob(nil, &asked), "amd64", 0)
	if indexOf(asked, `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v*`) < 0 {
		t.Errorf("default toolkit root not searched: %v", asked)
	}
	ovrList, ovrEnv := nvrtcCandidates(fakeEnv(map[string]string{EnvNVRTC: `E:\n.dll`}), nil, "amd64", 0)
	if !reflect.DeepEqual(ovrList, []string{`E:\n.dll`}) || ovrEnv != EnvNVRTC {
		t.Errorf("override = %v (%q)", ovrList, ovrEnv)
	}
}

func TestNewestFirst(t *testing.T) {
	dirs := []string{"/usr/local/cuda-12.9", "/usr/local/cuda-12.10", "/usr/local/cuda-13.0", "/usr/local/cuda-x",
		`C:\CUDA\v9.2`, `C:\CUDA\v13.1`}
	newestFirst(dirs)
	want := []string{`C:\CUDA\v13.1`, "/usr/local/cuda-13.0", "/usr/local/cuda-12.10", "/usr/local/cuda-12.9",
		`C:\CUDA\v9.2`, "/usr/local/cuda-x"}
	if !reflect.DeepEqual(dirs, want) {
		t.Errorf("newestFirst = %v\nwant %v", dirs, want)
	}
}

func TestIsPath(t *testing.T) {
	for c, want := range map[string]bool{
		"libcuda.so.1":                  false,
		"nvcuda.dll":                    false,
		"/usr/lib64/libcuda.so.1":       true,
		`C:\CUDA\bin\nvrtc64_130_0.dll`: true,
		"./libnvrtc.so":                 true,
	} {
		if isPath(c) != want {
			t.Errorf("isPath(%q) = %v", c, !want)
		}
	}
}

// A build for a platform without CUDA reports the platform, not a search.
func TestUnsupportedPlatformMessage(t *testing.T) {
	e := &NotFoundError{Library: libcudaName, Platform: "freebsd/amd64"}
	want := "no GPU: CUDA is not supported on freebsd/amd64 (the GPU backend is built for linux/amd64, linux/arm64, windows/amd64, windows/arm64)"
	if e.Error() != want {
		t.Errorf("message\n got %q\nwant %q", e.Error(), want)
	}
	if !IsNoGPU(e) || !IsNotFound(e) {
		t.Error("an unsupported platform must read as no GPU")
	}
	n := &NotFoundError{Library: libnvrtc, Platform: "darwin/arm64"}
	if !strings.HasPrefix(n.Error(), "no NVRTC: CUDA is not supported on darwin/arm64") || IsNoGPU(n) {
		t.Errorf("NVRTC message %q", n.Error())
	}
	if !canLoadCUDA {
		_, _, err := dlopenFirst(libcudaName, "", []string{"x"})
		var nf *NotFoundError
		if !errors.As(err, &nf) || nf.Platform == "" || len(nf.Tried) != 0 {
			t.Errorf("dlopenFirst here: %v", err)
		}
	}
}
