package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/gofused/softmax/internal/driver"
)

const versionSynopsis = `softmax version

Prints the module version, the VCS revision and time the binary was built
from (Go's build info: "(devel)" and no revision for a build outside a
module release or a git checkout), the Go version and platform, and the
CUDA driver and NVRTC versions, or "not found" with the reason.
softmax --version prints the same.`

func init() {
	addCommand(&command{name: "version", summary: "show the version, build and the CUDA libraries found", run: runVersion})
}

func runVersion(e *env, args []string) error {
	fs := flagSet("version")
	if err := parseFlags(e, fs, versionSynopsis, args); err != nil {
		return err
	}
	printVersion(e.stdout)
	return nil
}

// printVersion writes one "key: value" line each.
func printVersion(w io.Writer) {
	bi, _ := debug.ReadBuildInfo()
	for _, l := range buildLines(bi) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if api, err := driver.Open(); err != nil {
		fmt.Fprintf(w, "cuda driver: not found (%v)\n", err)
	} else {
		v := api.Version()
		fmt.Fprintf(w, "cuda driver: %d.%d (%s)\n", v/1000, v%1000/10, api.Path())
	}
	if n, err := driver.OpenNVRTC(); err != nil {
		fmt.Fprintf(w, "nvrtc: not found (%v)\n", err)
	} else {
		major, minor := n.Version()
		fmt.Fprintf(w, "nvrtc: %d.%d (%s)\n", major, minor, n.Path())
	}
}

// buildLines are the version lines of the build info (nil: none).
func buildLines(bi *debug.BuildInfo) []string {
	if bi == nil {
		return []string{"softmax (unknown version: no build information)"}
	}
	var revision, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	lines := []string{"softmax " + bi.Main.Version}
	switch {
	case revision == "":
		lines = append(lines, "revision: unknown (built without VCS information, e.g. with -buildvcs=false)")
	case modified:
		lines = append(lines, "revision: "+revision+" (with uncommitted changes)")
	default:
		lines = append(lines, "revision: "+revision)
	}
	if when != "" {
		lines = append(lines, "time: "+when)
	}
	return lines
}
