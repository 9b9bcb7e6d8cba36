package plan

import (
	"maps"
	"slices"
)

// Models are the device models the planner knows without a GPU; occupancy
// is then estimated, so a pick may differ on the GPU.
var Models = map[string]Device{
	"h100": {Name: "H100 SXM", Major: 9, Minor: 0, SMs: 132, L2Bytes: 50 << 20,
		SmemPerBlock: 48 << 10, SmemOptin: 227 << 10, SmemPerSM: 228 << 10,
		MaxThreadsPerSM: 2048, MaxThreadsPerBlock: 1024, Cluster: true, Cooperative: true, RegsPerSM: 65536, MaxBlocksPerSM: 32},
	"h200": {Name: "H200", Major: 9, Minor: 0, SMs: 132, L2Bytes: 60 << 20,
		SmemPerBlock: 48 << 10, SmemOptin: 227 << 10, SmemPerSM: 228 << 10,
		MaxThreadsPerSM: 2048, MaxThreadsPerBlock: 1024, Cluster: true, Cooperative: true, RegsPerSM: 65536, MaxBlocksPerSM: 32},
	"a100": {Name: "A100", Major: 8, Minor: 0, SMs: 108, L2Bytes: 40 << 20,
		SmemPerBlock: 48 << 10, SmemOptin: 163 << 10, SmemPerSM: 164 << 10,
		MaxThreadsPerSM: 2048, MaxThreadsPerBlock: 1024, Cluster: false, Cooperative: true, RegsPerSM: 65536, MaxBlocksPerSM: 32},
}

// ModelNames returns the names of Models, sorted.
func ModelNames() []string { return slices.Sorted(maps.Keys(Models)) }
