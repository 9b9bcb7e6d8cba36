package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/cuda"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

func init() {
	addCommand(&command{name: "plan", summary: "show the planner's strategy and launches for shapes", run: runPlan})
}

const planSynopsis = `softmax plan --shapes SPEC,... [--op OP] [--algo auto|NAME] [--device cuda|cuda:N | --model NAME] [--tuned] [--json]
       softmax plan --rules [--model NAME | --tuned [--device cuda|cuda:N]]

Prints what the planner runs for each case, without running it: the
strategy and why, then each launch (kernel, grid, block, dynamic shared
memory, cluster, cooperative) and the plan's split, chunk, 16-byte path,
workspace and barrier words. On a GPU (--device, the default) the planner
asks the driver for occupancy, as a call does; --model plans for a known
device model without a GPU (` + "`h100`, `h200`, `a100`" + `), estimating occupancy
from the kernels' register counts, so a pick that turns on the driver's
answers can differ. --algo forces a strategy, or one of its launch
configurations (NAME/CONFIG: block_reg's block sizes, warp_row's lanes a
row, listed under each plan of those strategies; an error says why one
cannot serve a case); --tuned prefers the autotuning cache's winner (GPU
only).
Tensors are taken as 16-byte aligned.
--rules prints the preference table the automatic choice reads (the
default table with the model's overlay, --model; without it the default
table) and its named conditions: rows match in order, each row's
candidates are tried in order, and the first that serves is the plan.
--rules --tuned prints the GPU's table with the autotuning cache's
winners for it as rows ahead of it (what --tuned plans with).

SPEC is DIMxDIM[x…]:dtype[:axis[:op]], e.g. 4096x65536:f32:0.`

// planned is one case's plan as --json writes it: the plan's strategy and
// launch configuration, or why the case has none.
type planned struct {
	Spec      string          `json:"spec"`
	Op        string          `json:"op"`
	Strategy  string          `json:"strategy,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Launches  []plannedLaunch `json:"launches,omitempty"`
	Split     int             `json:"split,omitempty"`
	Chunk     int64           `json:"chunk,omitempty"`
	Vec       bool            `json:"vec16,omitempty"`
	Shift     bool            `json:"vec16_from_pack_boundary,omitempty"`
	Workspace int64           `json:"workspace_bytes,omitempty"`
	Barriers  int64           `json:"barriers,omitempty"`
	Module    string          `json:"module,omitempty"`
	// Configs are the strategy's launch configurations for the case
	// (--algo NAME/CONFIG forces one; 'softmax tune' times them).
	Configs []string `json:"configs,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// plannedLaunch is one kernel launch of a plan.
type plannedLaunch struct {
	Symbol      string    `json:"symbol"`
	Grid        [3]uint32 `json:"grid"`
	Block       [3]uint32 `json:"block"`
	Smem        int       `json:"smem_bytes"`
	Cluster     []uint32  `json:"cluster,omitempty"` // nil: an ordinary launch
	NonPortable bool      `json:"non_portable_cluster,omitempty"`
	Cooperative bool      `json:"cooperative,omitempty"`
}

// newPlanned describes pl, planned for c.
func newPlanned(c bench.Case, pl plan.Plan) planned {
	p := planned{Spec: c.String(), Op: c.Op.String(), Strategy: pl.Strategy, Reason: pl.Reason, Split: pl.Split,
		Chunk: pl.Chunk, Vec: pl.Vec, Shift: pl.Shift, Workspace: pl.Workspace, Barriers: pl.Barriers, Module: pl.File}
	for _, l := range pl.Launches {
		pl := plannedLaunch{Symbol: l.Symbol, Grid: l.Grid, Block: l.Block, Smem: l.Smem,
			NonPortable: l.NonPortable, Cooperative: l.Cooperative}
		if l.Cluster != [3]uint32{} {
			pl.Cluster = l.Cluster[:]
		}
		p.Launches = append(p.Launches, pl)
	}
	return p
}

func runPlan(e *env, args []string) error {
	fs := flagSet("plan")
	shapes := fs.String("shapes", "", "comma-separated `SPEC`s: DIMxDIM[x…]:dtype[:axis[:op]]")
	opName := fs.String("op", "", "`op` for every case: softmax, log_softmax, softmax_backward, log_softmax_backward (default: each SPEC's, softmax)")
	algo := fs.String("algo", "auto", "`strategy`: auto (the planner's rules), a strategy's name, or NAME/CONFIG for one of its launch configurations")
	device := fs.String("device", "cuda", "`device`: cuda or cuda:N")
	model := fs.String("model", "", "plan for a device `model` without a GPU: "+strings.Join(plan.ModelNames(), ", "))
	tuned := fs.Bool("tuned", false, "prefer the winners cached by 'softmax tune' (GPU only)")
	asJSON := fs.Bool("json", false, "write the plans as JSON")
	rules := fs.Bool("rules", false, "print the preference table (of --model) and its named conditions")
	if err := parseFlags(e, fs, planSynopsis, args); err != nil {
		return err
	}
	if *rules && *tuned {
		if *model != "" {
			return usagef("--tuned needs the GPU whose winners are cached, not --model")
		}
		d, err := openGPU(*device, "the tuned table is the GPU's (cuda or cuda:N)")
		if err != nil {
			return err
		}
		defer d.Close()
		t, err := d.TunedTable()
		if err != nil {
			return err
		}
		return printTable(e.stdout, t, "table for "+d.String()+" with the autotuning cache's rows laid over it")
	}
	if *rules {
		return printRules(e.stdout, *model)
	}
	if *shapes == "" {
		return usagef("--shapes is required")
	}
	cases, err := bench.ParseSpecs(*shapes)
	if err != nil {
		return usagef("--shapes: %v", err)
	}
	if *opName != "" {
		op, err := spec.ParseOp(*opName)
		if err != nil {
			return usagef("--op: %v", err)
		}
		cases = bench.WithOp(cases, op)
	}
	if name, config, has := strings.Cut(*algo, plan.ConfigSep); *algo != "auto" && (!slices.Contains(cuda.Strategies(), name) || has && config == "") {
		return usagef("--algo %q: want auto, or one of %s, or one of them/CONFIG (e.g. block_reg/t256_p4)", *algo, strings.Join(cuda.Strategies(), ", "))
	}

	var header string
	var planFor func(bench.Case) (plan.Plan, error)
	var configsFor func(c bench.Case, strategy string) ([]string, error)
	if *model != "" {
		if flagWasSet(fs, "device") {
			return usagef("--model plans without a GPU: give --device or --model, not both")
		}
		if *tuned {
			return usagef("--tuned needs the GPU whose winners are cached, not --model")
		}
		d, ok := plan.Models[*model]
		if !ok {
			return usagef("--model %q: want one of %s", *model, strings.Join(plan.ModelNames(), ", "))
		}
		header = fmt.Sprintf("model: %s (%s, sm_%d%d, %d SMs; occupancy estimated from the kernels' register counts)",
			*model, d.Name, d.Major, d.Minor, d.SMs)
		planFor = func(c bench.Case) (plan.Plan, error) { return planModel(d, c, *algo) }
		configsFor = func(c bench.Case, strategy string) ([]string, error) {
			p, err := problemOf(c)
			if err != nil {
				return nil, err
			}
			return plan.Configs(p, d, strategy)
		}
	} else {
		d, err := openGPU(*device, "the planner plans GPU launches (cuda or cuda:N, or --model NAME)")
		var unavailable *bench.UnavailableError
		if errors.As(err, &unavailable) {
			return fmt.Errorf("%w (--model %s plans for a device model without one)", err, strings.Join(plan.ModelNames(), "|"))
		}
		if err != nil {
			return err
		}
		defer d.Close()
		cuda.Warnf = warnTo(e, "plan")
		header = "device: " + d.String()
		planFor = func(c bench.Case) (plan.Plan, error) {
			return d.Plan(c.Op, c.DType, c.Shape, cuda.Options{Axis: c.Axis, Algo: *algo, Tuned: *tuned})
		}
		configsFor = func(c bench.Case, strategy string) ([]string, error) {
			return d.Configs(c.Op, c.DType, c.Shape, cuda.Options{Axis: c.Axis}, strategy)
		}
	}

	out := make([]planned, len(cases))
	failed := 0
	for i, c := range cases {
		pl, err := planFor(c)
		if err != nil {
			out[i] = planned{Spec: c.String(), Op: c.Op.String(), Error: err.Error()}
			failed++
			continue
		}
		out[i] = newPlanned(c, pl)
		if out[i].Configs, err = configsFor(c, pl.Strategy); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", " ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(e.stdout, header)
		for _, p := range out {
			writePlan(e.stdout, p)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d cases could not be planned", failed, len(cases))
	}
	return nil
}

// printRules writes the preference table of a device model ("": the
// default table) and the named conditions its rows ask for.
func printRules(w io.Writer, model string) error {
	if _, ok := plan.Models[model]; model != "" && !ok {
		return usagef("--model %q: want one of %s", model, strings.Join(plan.ModelNames(), ", "))
	}
	t, err := plan.TableFor(model, nil)
	if err != nil {
		return err
	}
	what := "default table (models without an overlay: " + strings.Join(plan.ModelNames(), ", ") + " as listed in --model, and unknown ones)"
	if model != "" {
		what = "table for " + model + " (default rows with its overlay)"
	}
	return printTable(w, t, what)
}

// printTable writes a preference table, what it is, and the named
// conditions.
func printTable(w io.Writer, t plan.Table, what string) error {
	fmt.Fprintf(w, "# %s: rows match in order; each row's candidates in order; the first that serves is the plan\n", what)
	if err := t.Print(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\n# named conditions (when)")
	conds := plan.Conditions()
	for _, name := range slices.Sorted(maps.Keys(conds)) {
		fmt.Fprintf(w, "#   %-22s %s\n", name, conds[name])
	}
	return nil
}

// planModel plans case c on the device model d (occupancy estimated).
func planModel(d plan.Device, c bench.Case, algo string) (plan.Plan, error) {
	p, err := problemOf(c)
	if err != nil {
		return plan.Plan{}, err
	}
	return plan.Make(p, d, nil, algo)
}

// problemOf is case c as the planner's problem (16-byte aligned tensors).
func problemOf(c bench.Case) (plan.Problem, error) {
	l, err := spec.Decompose(c.Shape, c.Axis)
	if err != nil {
		return plan.Problem{}, err
	}
	return plan.Problem{Outer: int64(l.Outer), Axis: int64(l.Axis), Inner: int64(l.Inner), DType: c.DType, Op: c.Op, Aligned: true}, nil
}

// writePlan prints one case's plan, or why it has none.
func writePlan(w io.Writer, p planned) {
	fmt.Fprintf(w, "\n%s %s: ", p.Spec, p.Op)
	if p.Error != "" {
		fmt.Fprintf(w, "no plan: %s\n", p.Error)
		return
	}
	fmt.Fprintf(w, "%s: %s\n", p.Strategy, p.Reason)
	for _, l := range p.Launches {
		fmt.Fprintf(w, "  %s  grid %s  block %s  smem %d B", l.Symbol, dims(l.Grid), dims(l.Block), l.Smem)
		if l.Cluster != nil {
			fmt.Fprintf(w, "  cluster %s", dims([3]uint32(l.Cluster)))
		}
		if l.Cooperative {
			fmt.Fprint(w, "  cooperative")
		}
		fmt.Fprintln(w)
	}
	path := "16-byte path off"
	switch {
	case p.Shift:
		path = "16-byte path from each row's pack boundary"
	case p.Vec:
		path = "16-byte path on"
	}
	fmt.Fprintf(w, "  split %d, chunk %d, %s, workspace %d B, barriers %d, module %s\n",
		p.Split, p.Chunk, path, p.Workspace, p.Barriers, p.Module)
	if len(p.Configs) > 0 {
		fmt.Fprintf(w, "  configurations (--algo): %s\n", strings.Join(p.Configs, ", "))
	}
}

func dims(d [3]uint32) string { return fmt.Sprintf("%d×%d×%d", d[0], d[1], d[2]) }
