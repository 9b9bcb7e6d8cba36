package driver

import (
	"sort"
	"strings"
)

// The Windows search lists. They are plain string functions (no Windows
// API), so the tests check them on any platform.

// windowsDriverCandidates: the driver is nvcuda.dll in System32, where the
// display driver's installer puts it; the system loader finds it by name.
func windowsDriverCandidates() []string { return []string{"nvcuda.dll"} }

// winJoin joins Windows path elements with backslashes.
func winJoin(dir string, elem ...string) string {
	out := strings.TrimRight(dir, `\/`)
	for _, e := range elem {
		out += `\` + e
	}
	return out
}

// nvrtcDLL is NVRTC's DLL name for a CUDA major version: nvrtc64_130_0.dll
// for every CUDA 13.x, nvrtc64_120_0.dll for every 12.x.
func nvrtcDLL(major string) string { return "nvrtc64_" + major + "0_0.dll" }

// windowsNVRTCCandidates returns the places NVRTC is looked for on Windows,
// in order: the DLL names for the system loader's search (the executable's
// folder, System32, PATH, where the toolkit's installer adds its bin
// folder); then the folders $CUDA_PATH and $CUDA_HOME, every toolkit under
// %ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA (newest version first;
// CUDA 13 keeps its DLLs in bin\x64, or bin\arm64, CUDA 12 in bin), a conda
// environment's Library\bin, and the nvidia\cu13\bin\<arch> and
// nvidia\cuda_nvrtc\bin folders of Python site-packages (virtual and
// conda environments, per-user and all-users installs): the preferred
// major's DLL in all of them first (inFolders), then any other
// nvrtc64_*.dll (never the ".alt.dll" builds or the builtins beside them).
func windowsNVRTCCandidates(lookup lookupFunc, glob globFunc, goarch string, preferMajor int) []string {
	majors := majorOrder(preferMajor)
	var out []string
	for _, m := range majors {
		out = append(out, nvrtcDLL(m))
	}
	binArch, wheelArch := "x64", "x86_64"
	if goarch == "arm64" {
		binArch, wheelArch = "arm64", "arm64"
	}
	var dirs []string
	toolkit := func(root string) {
		dirs = append(dirs, winJoin(root, "bin", binArch), winJoin(root, "bin"))
	}
	for _, env := range []string{"CUDA_PATH", "CUDA_HOME"} {
		if v := envValue(lookup, env); v != "" {
			toolkit(v)
		}
	}
	programFiles := envValue(lookup, "ProgramFiles")
	if programFiles == "" {
		programFiles = `C:\Program Files`
	}
	if roots, _ := glob(winJoin(programFiles, "NVIDIA GPU Computing Toolkit", "CUDA", "v*")); len(roots) > 0 {
		newestFirst(roots)
		for _, r := range roots {
			toolkit(r)
		}
	}
	conda := envValue(lookup, "CONDA_PREFIX")
	if conda != "" {
		toolkit(winJoin(conda, "Library"))
	}
	var sitePackages []string
	for _, root := range []string{envValue(lookup, "VIRTUAL_ENV"), conda} {
		if root != "" {
			sitePackages = append(sitePackages, winJoin(root, "Lib", "site-packages"))
		}
	}
	for _, pat := range []struct{ env, rest string }{
		{"LOCALAPPDATA", `Programs\Python\Python3*\Lib\site-packages`},
		{"APPDATA", `Python\Python3*\site-packages`},
	} {
		if v := envValue(lookup, pat.env); v != "" {
			m, _ := glob(winJoin(v, pat.rest))
			sort.Strings(m)
			sitePackages = append(sitePackages, m...)
		}
	}
	if m, _ := glob(winJoin(programFiles, `Python3*\Lib\site-packages`)); len(m) > 0 {
		sort.Strings(m)
		sitePackages = append(sitePackages, m...)
	}
	for _, sp := range sitePackages {
		dirs = append(dirs, winJoin(sp, "nvidia", "cu13", "bin", wheelArch), winJoin(sp, "nvidia", "cuda_nvrtc", "bin"))
	}
	out = append(out, inFolders(dirs, majors,
		func(dir, major string) string { return winJoin(dir, nvrtcDLL(major)) },
		glob, func(dir string) string { return winJoin(dir, "nvrtc64_*.dll") },
		func(f string) bool { return !strings.HasSuffix(strings.ToLower(f), ".alt.dll") })...)
	return dedupe(out)
}
