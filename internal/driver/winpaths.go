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
// folder); $CUDA_PATH and $CUDA_HOME, then every toolkit under
// %ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA, newest first (CUDA 13
// keeps its DLLs in bin\x64, CUDA 12 in bin); a conda environment's
// Library\bin(\x64); and the nvidia\cu13\bin\x86_64 and
// nvidia\cuda_nvrtc\bin folders of Python site-packages (virtual and conda
// environments, per-user and all-users installs). In each folder the DLL
// of the preferred major comes first, then any other nvrtc64_*.dll (never
// the ".alt.dll" builds or the builtins library beside them).
func windowsNVRTCCandidates(lookup lookupFunc, glob globFunc, preferMajor int) []string {
	majors := majorOrder(preferMajor)
	var out []string
	for _, m := range majors {
		out = append(out, nvrtcDLL(m))
	}
	inDir := func(dir string) {
		for _, m := range majors {
			out = append(out, winJoin(dir, nvrtcDLL(m)))
		}
		found, _ := glob(winJoin(dir, "nvrtc64_*.dll"))
		sort.Strings(found)
		for _, f := range found {
			if !strings.HasSuffix(strings.ToLower(f), ".alt.dll") {
				out = append(out, f)
			}
		}
	}
	toolkit := func(root string) {
		inDir(winJoin(root, "bin", "x64"))
		inDir(winJoin(root, "bin"))
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
		sort.Sort(sort.Reverse(sort.StringSlice(roots))) // newest version first
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
		inDir(winJoin(sp, "nvidia", "cu13", "bin", "x86_64"))
		inDir(winJoin(sp, "nvidia", "cuda_nvrtc", "bin"))
	}
	return dedupe(out)
}
