// Command softmax applies, verifies and benchmarks the softmax operations of
// github.com/gofused/softmax on the CPU or on NVIDIA GPUs.
//
// Usage:
//
//	softmax apply  --in X.npy --out Y.npy [--axis -1] [--op softmax|log_softmax]
//	               [--scale S] [--dtype f32|f16|bf16] [--device auto|cpu|cuda|cuda:N]
//	               [--tuned]
//	softmax apply  --op softmax_backward|log_softmax_backward --in Y.npy --dy DY.npy
//	               --out DX.npy [--axis -1] [--scale S] [--dtype D] [--device D]
//	softmax verify [--device D] [--seed N] [--quick] [--tuned]
//	softmax bench  [--suite NAME | --shapes SPEC,...] [--algo auto|all|NAME,...]
//	               [--op OP] [--device D] [--reps N] [--warmup N]
//	               [--json FILE] [--plot FILE.png|FILE.svg] [--peers FILE] [--quiet] [--tuned]
//	softmax bench  --list-suite NAME
//	softmax plot   --out FILE.png|FILE.svg [--peers FILE] RUN.json...
//	softmax tune   (--shapes SPEC,... | --suite NAME) [--op OP] [--device cuda[:N]]
//	               [--algo all|NAME,...] [--reps N] [--warmup N] [--dry-run] [--verbose]
//	softmax tune   --show
//	softmax info   [--kernels]
//	softmax precompile [--device cuda|cuda:N] [--dtype f32,f16,bf16]
//	softmax cache  [show | trim [--unused-for AGE] | clear]
//	softmax plan   --shapes SPEC,... [--op OP] [--algo auto|NAME]
//	               [--device cuda|cuda:N | --model h100|h200|a100] [--tuned] [--json]
//	softmax version
//	softmax help   [COMMAND]
//
// Flags are written --name value (or -name value). The exit status is 0 on
// success, 1 when the work fails (unreadable input, unavailable device,
// failed checks) and 2 for usage errors (unknown command or flag, bad
// value, a shape too large for the process's memory, bounded by
// SOFTMAX_MEMORY_LIMIT=BYTES where set). Messages go to standard error,
// prefixed "softmax: ". softmax version (or --version) prints the build and
// the CUDA libraries found.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/cuda"
	"golang.org/x/term"
)

// command is one subcommand of the CLI.
type command struct {
	name    string
	summary string
	// run executes the command; an error of type usageError exits 2, any
	// other error 1. run prints its own usage for --help and returns
	// errHelp.
	run func(e *env, args []string) error
}

// commands is the command table, in the order of the usage text. Other
// files add commands with addCommand from their init functions (the
// lead's `tune` goes there).
var commands = []*command{
	{name: "apply", summary: "apply softmax or log_softmax to a .npy file", run: runApply},
	{name: "verify", summary: "check a device against the float64 reference battery", run: runVerify},
	{name: "bench", summary: "benchmark cases or suites against a copy of the same bytes", run: runBench},
	{name: "info", summary: "show the backends, the CPU and its kernel set", run: runInfo},
}

// addCommand adds a subcommand to the table (call from init).
func addCommand(c *command) { commands = append(commands, c) }

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// env is what a command runs with.
type env struct {
	stdout, stderr io.Writer
	// stderrTTY reports whether standard error is a terminal (progress bars).
	stderrTTY bool
}

// usageError is a user error in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// errHelp is returned after a command printed its help (exit 0).
var errHelp = errors.New("help requested")

func main() {
	os.Exit(run(os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr, stderrTTY: isTerminal(os.Stderr)}))
}

// run executes the command line and returns the exit status.
func run(args []string, e *env) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if name == "help" && len(rest) > 0 {
			c := lookup(rest[0])
			if c == nil {
				fmt.Fprintf(e.stderr, "softmax: unknown command %q (run 'softmax help')\n", rest[0])
				return 2
			}
			return finish(e, c.name, c.run(e, []string{"--help"}))
		}
		printUsage(e.stdout)
		return 0
	case "--version", "-version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(e.stderr, "softmax: unknown command %q\n", name)
		printUsage(e.stderr)
		return 2
	}
	return finish(e, c.name, runSafely(e, c, rest))
}

// runSafely runs a command, turning a panic into an error so that the user
// sees one line rather than a trace (the trace is kept with
// SOFTMAX_TRACEBACK=1).
func runSafely(e *env, c *command, args []string) (err error) {
	if os.Getenv("SOFTMAX_TRACEBACK") == "" {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("internal error: %v (rerun with SOFTMAX_TRACEBACK=1 for a trace)", r)
			}
		}()
	}
	return c.run(e, args)
}

// finish reports err and returns the exit status.
func finish(e *env, name string, err error) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "softmax: %s: %s\n", name, ue.msg)
		fmt.Fprintf(e.stderr, "run 'softmax help %s' for usage\n", name)
		return 2
	default:
		fmt.Fprintf(e.stderr, "softmax: %s: %v\n", name, err)
		return 1
	}
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `softmax computes softmax and log-softmax along any axis, on the CPU or NVIDIA GPUs.

Usage:
  softmax COMMAND [flags]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `  help     show this text, or a command's flags: softmax help COMMAND

Devices (--device): auto (cuda:0 when available, else cpu), cpu, cuda, cuda:N.
Sizes: apply and bench refuse a shape whose bytes exceed the memory the
process can have (cgroup limit or physical memory); SOFTMAX_MEMORY_LIMIT=BYTES
sets that bound.
Exit status: 0 ok, 1 failure, 2 usage error (a too-large shape included);
128+N when signal N (SIGINT, SIGTERM, SIGHUP) stops apply, its partial output removed.
`)
}

// flagSet returns a FlagSet for a command that reports errors instead of
// printing them.
func flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("softmax "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args; --help prints the synopsis and flags to stdout
// and returns errHelp. Flag errors and stray arguments are usage errors.
func parseFlags(e *env, fs *flag.FlagSet, synopsis string, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printFlags(e.stdout, fs, synopsis)
			return errHelp
		}
		// The flag package spells flags with one dash; the CLI documents two.
		msg := strings.Replace(err.Error(), "not defined: -", "not defined: --", 1)
		msg = strings.Replace(msg, " for flag -", " for flag --", 1)
		return usageError{msg}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// printFlags writes the synopsis and the flags, spelled --name.
func printFlags(w io.Writer, fs *flag.FlagSet, synopsis string) {
	fmt.Fprintf(w, "Usage:\n  %s\n\nFlags:\n", strings.TrimSpace(synopsis))
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// flagWasSet reports whether the named flag appeared on the command line.
func flagWasSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// openGPU opens the GPU that --device names (cuda, cuda:N, or auto) for a
// command that needs one; need says so for any other device ("--device
// cpu: NEED", a usage error). A GPU that cannot be opened is a
// *bench.UnavailableError.
func openGPU(device, need string) (*cuda.Device, error) {
	kind, ordinal, err := bench.ParseDevice(device)
	if err != nil {
		return nil, usagef("--device: %v", err)
	}
	if kind != "cuda" && kind != "auto" {
		return nil, usagef("--device %s: %s", device, need)
	}
	d, err := cuda.Open(ordinal)
	if err != nil {
		return nil, &bench.UnavailableError{Kind: "cuda", Err: err}
	}
	return d, nil
}
