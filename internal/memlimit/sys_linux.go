package memlimit

import (
	"bufio"
	"os"
	"path"
	"strconv"
	"strings"
)

// systemLimit is the smaller of the cgroup limit and MemTotal.
func systemLimit() (uint64, string) {
	best, src := physical()
	for _, c := range cgroupFiles() {
		if n, ok := readUint(c.path); ok && (best == 0 || n < best) {
			best, src = n, c.name
		}
	}
	return best, src
}

type cgroupFile struct{ path, name string }

// cgroupFiles lists the limit files of this process's cgroup (v2 and v1),
// at the mount's root (a container's own cgroup) and at the path
// /proc/self/cgroup names.
func cgroupFiles() []cgroupFile {
	const root = "/sys/fs/cgroup"
	files := []cgroupFile{
		{root + "/memory.max", "cgroup memory.max"},
		{root + "/memory/memory.limit_in_bytes", "cgroup memory.limit_in_bytes"},
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return files
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || f[2] == "/" {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "":
			files = append(files, cgroupFile{path.Join(root, f[2], "memory.max"), "cgroup memory.max"})
		case strings.Contains(","+f[1]+",", ",memory,"):
			files = append(files, cgroupFile{path.Join(root, "memory", f[2], "memory.limit_in_bytes"), "cgroup memory.limit_in_bytes"})
		}
	}
	return files
}

// physical returns MemTotal from /proc/meminfo.
func physical() (uint64, string) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			if kb, err := strconv.ParseUint(fields[1], 10, 64); err == nil {
				return kb * 1024, "physical memory"
			}
		}
	}
	return 0, ""
}
