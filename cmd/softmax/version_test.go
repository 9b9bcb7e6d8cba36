package main

import (
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		for _, w := range []string{"softmax ", "revision: ", "go: " + runtime.Version(), "cuda driver: ", "nvrtc: "} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v lacks %q:\n%s", args, w, r.stdout)
			}
		}
	}
	expectUsageErrors(t, "version", []usageCase{{[]string{"version", "extra"}, "unexpected argument"}})
}

func TestBuildLines(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-29T01:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	want := []string{"softmax v1.2.3", "revision: 0123abcd (with uncommitted changes)", "time: 2026-11-29T01:00:00Z"}
	if got := buildLines(bi); !slices.Equal(got, want) {
		t.Errorf("buildLines = %q, want %q", got, want)
	}
	bi.Settings = nil
	if got := buildLines(bi); !strings.Contains(got[1], "unknown") {
		t.Errorf("without VCS settings: %q", got)
	}
}
