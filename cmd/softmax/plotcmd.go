package main

import (
	"fmt"

	"github.com/gofused/softmax/bench"
)

func init() {
	addCommand(&command{name: "plot", summary: "redraw a bench run's plot from its JSON", run: runPlot})
}

const plotSynopsis = `softmax plot --out FILE.png|FILE.svg [--peers FILE] RUN.json...

Draws the plot that 'softmax bench --plot' draws, from the records that
'softmax bench --json' wrote (several files: their records together).
--peers merges peer timings written by bench/peers/peers.py first, as
'softmax bench --peers' does; records that already carry peers keep
them where the file has none for their case.`

func runPlot(e *env, args []string) error {
	fs := flagSet("plot")
	out := fs.String("out", "", "write the plot to `FILE` (.png, .svg or .pdf)")
	peersPath := fs.String("peers", "", "peer timings `FILE` written by bench/peers/peers.py")
	if err := fs.Parse(args); err != nil {
		// parseFlags reports help and flag errors; positional arguments are ours.
		return parseFlags(e, fs, plotSynopsis, args)
	}
	if *out == "" {
		return usagef("--out: missing (want FILE.png or FILE.svg)")
	}
	if fs.NArg() == 0 {
		return usagef("no RUN.json given")
	}
	var recs []bench.Record
	for _, path := range fs.Args() {
		r, err := bench.ReadJSON(path)
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	if *peersPath != "" {
		peers, err := bench.LoadPeers(*peersPath)
		if err != nil {
			return fmt.Errorf("--peers: %w", err)
		}
		if bench.MergePeers(recs, peers) == 0 {
			fmt.Fprintf(e.stderr, "softmax: plot: no peer timing in %s matches these cases\n", *peersPath)
		}
	}
	return bench.WritePlot(*out, recs)
}
