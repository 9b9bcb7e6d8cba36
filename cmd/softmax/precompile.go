package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/jit"
	"github.com/gofused/softmax/internal/spec"
)

func init() {
	addCommand(&command{name: "precompile", summary: "compile every GPU kernel into the disk cache", run: runPrecompile})
}

const precompileSynopsis = `softmax precompile [--device cuda|cuda:N] [--dtype f32,f16,bf16]

Compiles every kernel the GPU can run for the dtypes (default all), both
builds, as many at once as there are CPUs (GOMAXPROCS), and stores them in
the disk cache ($SOFTMAX_CACHE_DIR, by default <user cache dir>/gofused-
softmax). A launch otherwise compiles the one kernel it needs on its first
use on a machine (0.6 s on average on an H100 host); precompile pays for
all of them at once, as an install step (the 1779 f32, f16 and bf16 kernels took 81 s with 16 CPUs). Kernels already in the cache are loaded,
not compiled again.`

func runPrecompile(e *env, args []string) error {
	fs := flagSet("precompile")
	device := fs.String("device", "cuda", "GPU: cuda or cuda:N")
	dtypes := fs.String("dtype", "f32,f16,bf16,f64", "dtypes, comma-separated")
	if err := parseFlags(e, fs, precompileSynopsis, args); err != nil {
		return err
	}
	var dts []softmax.DType
	for _, s := range strings.Split(*dtypes, ",") {
		dt, err := spec.ParseDType(strings.TrimSpace(s))
		if err != nil {
			return usagef("--dtype: %v", err)
		}
		dts = append(dts, dt)
	}
	d, err := openGPU(*device, "precompiling needs a GPU (cuda or cuda:N)")
	if err != nil {
		return err
	}
	defer d.Close()
	start, before := time.Now(), jit.Default().Stats()
	n, err := d.Precompile(dts...)
	if err != nil {
		return err
	}
	after := jit.Default().Stats()
	cache := jit.Default().Dir()
	if cache == "" {
		cache = "off (" + jit.EnvCache + ", or the directory is unusable)"
	}
	fmt.Fprintf(e.stdout, "%s: %d kernels (%s, general and plain builds) in %.1f s: %d compiled, %d from the disk cache; cache %s\n",
		d, n, *dtypes, time.Since(start).Seconds(), after.Misses-before.Misses, after.DiskHits-before.DiskHits, cache)
	return nil
}
