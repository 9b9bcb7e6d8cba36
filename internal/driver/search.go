package driver

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// inFolders lists NVRTC's candidates in the folders dirs: first every
// folder's file of the preferred major (majors[0]), then every folder's
// file of the next major, and so on, then each folder's other matches of
// its wildcard pattern (sorted; those keep refuses are left out). The
// preferred major comes first across all folders, not only within each:
// the newest toolkit's folder usually comes first, and a CUDA 12 driver
// cannot load a CUDA 13 NVRTC's code.
func inFolders(dirs, majors []string, file func(dir, major string) string,
	glob globFunc, pattern func(dir string) string, keep func(string) bool) []string {
	var out []string
	for _, m := range majors {
		for _, d := range dirs {
			out = append(out, file(d, m))
		}
	}
	for _, d := range dirs {
		found, _ := glob(pattern(d))
		sort.Strings(found)
		for _, f := range found {
			if keep == nil || keep(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

var versionNumbers = regexp.MustCompile(`[0-9]+`)

// newestFirst sorts toolkit folders by the version numbers in their last
// element (cuda-12.10 after cuda-12.9, v13.0 before v9.2), newest first;
// names without numbers go last, in their order.
func newestFirst(dirs []string) {
	version := func(d string) []int {
		var v []int
		for _, s := range versionNumbers.FindAllString(path.Base(strings.ReplaceAll(d, `\`, "/")), -1) {
			n, _ := strconv.Atoi(s)
			v = append(v, n)
		}
		return v
	}
	slices.SortStableFunc(dirs, func(a, b string) int { return slices.Compare(version(b), version(a)) })
}
