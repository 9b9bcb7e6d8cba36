package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gofused/softmax/internal/spec"
)

// Case is one benchmark problem: an op over one axis of a tensor.
type Case struct {
	Shape []int
	DType spec.DType
	Axis  int // as given; negative counts from the end
	Op    spec.Op
	// Offset is how many elements past an aligned allocation every tensor
	// of the case starts (`softmax bench --offset`): with Offset·size not a
	// multiple of 16 the pointers are misaligned, as a view into a larger
	// tensor's storage can be. It is not part of the SPEC.
	Offset int
}

// Elems returns the number of elements of the tensor.
func (c Case) Elems() int {
	n := 1
	for _, d := range c.Shape {
		n *= d
	}
	return n
}

// Bytes returns the size in bytes of one tensor of the case.
func (c Case) Bytes() int64 { return int64(c.Elems()) * int64(c.DType.Size()) }

// Tensors returns how many tensors of the case's size the op touches: 2 for
// a forward op (x, y), 3 for a backward op (y, dy, dx).
func (c Case) Tensors() int {
	if c.Op.Backward() {
		return 3
	}
	return 2
}

// Traffic returns the op's minimum memory traffic in bytes: every input
// read once and the output written once (2·Bytes forward, 3·Bytes
// backward). GB/s figures divide this by the time.
func (c Case) Traffic() int64 { return int64(c.Tensors()) * c.Bytes() }

// Layout returns the outer × axis × inner view of the case.
func (c Case) Layout() (spec.Layout, error) { return spec.Decompose(c.Shape, c.Axis) }

// NormAxis returns the axis counted from the front (0 ≤ axis < rank).
func (c Case) NormAxis() int {
	if c.Axis < 0 {
		return c.Axis + len(c.Shape)
	}
	return c.Axis
}

// ShapeString returns the shape as "4096x65536".
func (c Case) ShapeString() string { return ShapeString(c.Shape) }

// ShapeString formats a shape as "4096x65536".
func ShapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

// String returns the case's SPEC, as accepted by ParseSpec:
// "4096x65536:f32" (axis −1, softmax), "4096x65536:f32:0", or with the op
// when it is not softmax: "128x32000:f32:-1:log_softmax".
func (c Case) String() string {
	s := c.ShapeString() + ":" + c.DType.String()
	if c.Op != spec.Softmax {
		return s + ":" + strconv.Itoa(c.Axis) + ":" + c.Op.String()
	}
	if c.Axis != -1 {
		s += ":" + strconv.Itoa(c.Axis)
	}
	return s
}

// ParseSpec parses one SPEC: DIMxDIM[x…]:dtype[:axis[:op]], for example
// "4096x65536:f32:0" or "128x32000:f32:-1:log_softmax". The axis defaults
// to −1 and the op to softmax. Dimensions must be positive.
func ParseSpec(s string) (Case, error) {
	s = strings.TrimSpace(s)
	fields := strings.Split(s, ":")
	if len(fields) < 2 || len(fields) > 4 {
		return Case{}, fmt.Errorf("bad shape spec %q (want DIMxDIM[x…]:dtype[:axis[:op]], e.g. 4096x65536:f32:0)", s)
	}
	var c Case
	dims := strings.Split(strings.ReplaceAll(fields[0], "×", "x"), "x")
	for _, d := range dims {
		n, err := strconv.Atoi(strings.TrimSpace(d))
		if err != nil || n <= 0 {
			return Case{}, fmt.Errorf("bad shape spec %q: dimension %q is not a positive integer", s, d)
		}
		c.Shape = append(c.Shape, n)
	}
	dt, err := spec.ParseDType(strings.TrimSpace(fields[1]))
	if err != nil {
		return Case{}, fmt.Errorf("bad shape spec %q: %v", s, err)
	}
	c.DType, c.Axis, c.Op = dt, -1, spec.Softmax
	if len(fields) >= 3 {
		a, err := strconv.Atoi(strings.TrimSpace(fields[2]))
		if err != nil {
			return Case{}, fmt.Errorf("bad shape spec %q: axis %q is not an integer", s, fields[2])
		}
		c.Axis = a
	}
	if len(fields) == 4 {
		op, err := spec.ParseOp(strings.TrimSpace(fields[3]))
		if err != nil {
			return Case{}, fmt.Errorf("bad shape spec %q: %v", s, err)
		}
		c.Op = op
	}
	if _, err := spec.Decompose(c.Shape, c.Axis); err != nil {
		return Case{}, fmt.Errorf("bad shape spec %q: %v", s, err)
	}
	if c.Elems() > math.MaxInt/16 {
		return Case{}, fmt.Errorf("bad shape spec %q: too large", s)
	}
	return c, nil
}

// ParseSpecs parses a comma-separated list of SPECs (see ParseSpec).
func ParseSpecs(list string) ([]Case, error) {
	var cases []Case
	for _, s := range strings.Split(list, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		c, err := ParseSpec(s)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("empty shape list %q", list)
	}
	return cases, nil
}

// FormatSpecs joins the cases' SPECs with commas (the inverse of ParseSpecs).
func FormatSpecs(cases []Case) string {
	s := make([]string, len(cases))
	for i, c := range cases {
		s[i] = c.String()
	}
	return strings.Join(s, ",")
}

// WithOffset returns copies of the cases whose tensors start offset
// elements into their allocations, as `--offset` does.
func WithOffset(cases []Case, offset int) []Case {
	return copyCases(cases, func(c *Case) { c.Offset = offset })
}

// WithOp returns copies of the cases with their op set to op, as `--op`
// does: every case gets op, including those whose SPEC named one.
func WithOp(cases []Case, op spec.Op) []Case {
	return copyCases(cases, func(c *Case) { c.Op = op })
}

// copyCases returns deep copies of the cases, each changed by set.
func copyCases(cases []Case, set func(*Case)) []Case {
	out := make([]Case, len(cases))
	for i, c := range cases {
		c.Shape = append([]int(nil), c.Shape...)
		set(&c)
		out[i] = c
	}
	return out
}

// checkOffset rejects a negative Offset, for the backends' Prepare.
func (c Case) checkOffset() error {
	if c.Offset < 0 {
		return fmt.Errorf("bench: offset %d: want at least 0 elements", c.Offset)
	}
	return nil
}
