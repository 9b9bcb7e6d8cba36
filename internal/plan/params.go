package plan

import (
	_ "embed"
	"fmt"
	"reflect"
	"strings"

	"github.com/gofused/softmax/internal/tsv"
)

//go:embed params.tsv
var paramsTSV string

// prm holds params.tsv's numbers, a row a field of its name.
var prm = parseParams(paramsTSV)

type params struct {
	// the few-rows model (fewModel)
	BlockGBs, SmGBs, LaunchMicros, ClusterMicros, SwitchMicros float64
	TwoReadSplitBytes, ClusterRowBytes, ClusterOneWaveRowBytes float64
	// sizing
	ClusterPackNum, ClusterPackDen, GridWaves, MaxSplitRow, SplitRowBlocksPerSM int64
	GridCacheHalves, GridWaveQuarters, RaggedMinPacks, PipelinedWarpPacks       int64
	StridedShortAxis, StridedSmemTilePacks, StridedRegFewTiles                  int64
	FlatRowsThreads, FlatRowsTileBytes, SplitGridThreads                        int64
}

// parseParams reads params.tsv; a malformed row is a build error: panic.
func parseParams(text string) (p params) {
	v, set := reflect.ValueOf(&p).Elem(), map[string]bool{}
	err := tsv.Rows(text, []string{"name", "value", "evidence"}, func(f []string) error {
		field := v.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, f[0]) })
		b, err := parseBound(f[1])
		switch {
		case !field.IsValid() || set[f[0]]:
			return fmt.Errorf("%s: no such parameter, or twice", f[0])
		case err != nil || b.Unit != "" || f[2] == "":
			return fmt.Errorf("%s: value %q, evidence %q", f[0], f[1], f[2])
		case field.CanFloat():
			field.SetFloat(b.V)
		default:
			field.SetInt(int64(b.V))
		}
		set[f[0]] = true
		return nil
	})
	if err == nil && len(set) != v.NumField() {
		err = fmt.Errorf("%d rows for %d parameters", len(set), v.NumField())
	}
	if err != nil {
		panic("plan: params.tsv: " + err.Error())
	}
	return p
}
