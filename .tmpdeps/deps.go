package deps
import (
 _ "github.com/ebitengine/purego"
 _ "golang.org/x/sys/cpu"
 _ "github.com/x448/float16"
 _ "gonum.org/v1/plot"
 _ "github.com/mmcloughlin/avo/build"
 _ "github.com/schollz/progressbar/v3"
)
