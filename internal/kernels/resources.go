package kernels

import (
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gofused/softmax/internal/spec"
)

// The per-architecture resource tables: every catalogue kernel's registers
// per thread and static shared memory, as compiled for one architecture,
// in resources/<arch>.tsv (written by resources.sh on a machine with NVRTC;
// see that script). The planner estimates occupancy from them, so planning
// compiles no kernel; the driver's answer for a loaded kernel confirms them.

//go:embed resources/*.tsv
var resourceFS embed.FS

// resources are a kernel's compiled register and static shared memory use.
type resources struct {
	Regs       int // registers per thread
	StaticSmem int // bytes
}

// ResourceTable is one architecture's table.
type ResourceTable struct {
	Arch     string // "sm_90"
	Compiler string // what compiled the kernels (the file's "# compiler" line)
	kernels  map[string]resources
}

var resourceTables struct {
	sync.Once
	byArch map[string]*ResourceTable
	archs  []string // sorted by compute capability
	err    error
}

func loadResources() error {
	resourceTables.Do(func() {
		resourceTables.byArch = map[string]*ResourceTable{}
		entries, err := resourceFS.ReadDir("resources")
		if err != nil {
			resourceTables.err = err
			return
		}
		for _, e := range entries {
			b, err := resourceFS.ReadFile("resources/" + e.Name())
			if err != nil {
				resourceTables.err = err
				return
			}
			t, err := ParseResources(strings.TrimSuffix(e.Name(), ".tsv"), string(b))
			if err != nil {
				resourceTables.err = fmt.Errorf("kernels: resources/%s: %w", e.Name(), err)
				return
			}
			resourceTables.byArch[t.Arch] = t
			resourceTables.archs = append(resourceTables.archs, t.Arch)
		}
		slices.SortFunc(resourceTables.archs, func(a, b string) int { return archNumber(a) - archNumber(b) })
	})
	return resourceTables.err
}

// ParseResources parses a resource table: "symbol regs smem" lines,
// tab-separated, under that header; "# compiler TEXT" names the compiler;
// other lines starting with # are comments.
func ParseResources(arch, text string) (*ResourceTable, error) {
	if archNumber(arch) < 0 {
		return nil, fmt.Errorf("architecture %q is not sm_NN", arch)
	}
	t := &ResourceTable{Arch: arch, kernels: map[string]resources{}}
	header := false
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if c, ok := strings.CutPrefix(line, "# compiler\t"); ok {
			t.Compiler = c
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if !header {
			if line != "symbol\tregs\tsmem" {
				return nil, fmt.Errorf("line %d: header %q, want symbol, regs, smem", n+1, line)
			}
			header = true
			continue
		}
		regs, err1 := strconv.Atoi(f[min(1, len(f)-1)])
		smem, err2 := strconv.Atoi(f[len(f)-1])
		if len(f) != 3 || err1 != nil || err2 != nil || regs <= 0 || smem < 0 {
			return nil, fmt.Errorf("line %d: %q: want a symbol, its registers and static shared memory bytes", n+1, line)
		}
		if _, dup := t.kernels[f[0]]; dup {
			return nil, fmt.Errorf("line %d: %s twice", n+1, f[0])
		}
		t.kernels[f[0]] = resources{regs, smem}
	}
	return t, nil
}

// archNumber is sm_NN's NN (sm_90a: 90), or -1.
func archNumber(arch string) int {
	n, err := strconv.Atoi(strings.TrimRight(strings.TrimPrefix(arch, "sm_"), "abcdefghijklmnopqrstuvwxyz"))
	if err != nil || !strings.HasPrefix(arch, "sm_") {
		return -1
	}
	return n
}

// Resources returns the table for arch ("sm_90", as the driver's compute
// capability names it): its own where one is committed, else the nearest
// older architecture's (sm_89 takes sm_80's, sm_100 sm_90's), else, for
// an architecture older than every table, the oldest one; a name that is
// not sm_NN ("" for a device model without a compute capability) takes the
// newest. Registers move
// little between neighbouring architectures; the driver's answer for the
// loaded kernel is the check (cuda logs a difference).
func Resources(arch string) (*ResourceTable, error) {
	if err := loadResources(); err != nil {
		return nil, err
	}
	archs := resourceTables.archs
	if len(archs) == 0 {
		return nil, fmt.Errorf("kernels: no resource tables")
	}
	best := archs[len(archs)-1] // an unknown architecture: the newest
	for i, a := range archs {
		if i == 0 && archNumber(arch) >= 0 {
			best = a
		}
		if archNumber(a) <= archNumber(arch) {
			best = a
		}
	}
	return resourceTables.byArch[best], nil
}

// GPUDTypes lists the dtypes the kernels are instantiated for.
func GPUDTypes() []spec.DType { return slices.Clone(gpuDTypes) }

// ResourceArchs lists the architectures with a resource table, oldest first.
func ResourceArchs() []string {
	if loadResources() != nil {
		return nil
	}
	return slices.Clone(resourceTables.archs)
}

// Kernel returns symbol's registers per thread and static shared memory
// bytes; ok is false for a symbol the table does not have. An f64 kernel
// of a table written before them takes its f32 twin's registers (a pack
// is four registers of math values in both) and twice its static shared
// memory (arrays of the math type).
func (t *ResourceTable) Kernel(symbol string) (regs, staticSmem int, ok bool) {
	if t == nil {
		return 0, 0, false
	}
	r, ok := t.kernels[symbol]
	if !ok && strings.Contains(symbol, "_f64") {
		if r, ok = t.kernels[strings.Replace(symbol, "_f64", "_f32", 1)]; ok {
			r.StaticSmem *= 2
		}
	}
	return r.Regs, r.StaticSmem, ok
}

// Symbols returns the table's kernel symbols, sorted.
func (t *ResourceTable) Symbols() []string {
	out := make([]string, 0, len(t.kernels))
	for s := range t.kernels {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
