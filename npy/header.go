package npy

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

const (
	magic = "\x93NUMPY"
	// prefixLen is the magic string plus the two version bytes.
	prefixLen = len(magic) + 2
	// arrayAlign is the alignment NumPy pads the header to.
	arrayAlign = 64
	// growthAxisMaxDigits is the spare room NumPy (>= 1.24) leaves after
	// the dict so the header can be rewritten in place when the array grows.
	growthAxisMaxDigits = 21
	// maxHeaderLen bounds the header we are willing to read. NumPy's own
	// default limit is 10000 bytes; this is far more generous while still
	// protecting against absurd lengths in corrupt files.
	maxHeaderLen = 1 << 20
	// maxNesting bounds the nesting depth of tuples/lists in a header.
	maxNesting = 32
)

// header is the decoded content of a .npy header dict.
type header struct {
	dtype     DType
	bigEndian bool
	fortran   bool
	shape     []int
}

// pyKind is the kind of a parsed Python literal.
type pyKind int

const (
	pyStr pyKind = iota
	pyInt
	pyBool
	pyNone
	pyTuple
	pyList
)

// pyValue is a parsed Python literal. raw is the source text, kept for
// error messages.
type pyValue struct {
	kind  pyKind
	str   string // pyStr: the unquoted string; pyInt: the digits, with sign
	b     bool
	items []pyValue
	raw   string
}

// pyParser is a small recursive-descent parser for the subset of Python
// literal syntax that appears in .npy headers: a dict with string keys whose
// values are strings, integers, True/False/None, tuples and lists.
type pyParser struct {
	s   string
	pos int
}

func (p *pyParser) errf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at offset %d in %q", ErrMalformedHeader, fmt.Sprintf(format, args...), p.pos, clip(p.s))
}

// clip shortens s for use in error messages.
func clip(s string) string {
	const limit = 200
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

func (p *pyParser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at end of input.
func (p *pyParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *pyParser) expect(c byte) error {
	if p.peek() != c {
		if p.pos >= len(p.s) {
			return p.errf("expected %q, found end of header", c)
		}
		return p.errf("expected %q, found %q", c, p.s[p.pos])
	}
	p.pos++
	return nil
}

// parseDict parses the top-level dict and requires nothing but whitespace
// after it. Duplicate keys are rejected.
func (p *pyParser) parseDict() (map[string]pyValue, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	d := make(map[string]pyValue)
	for {
		if p.peek() == '}' {
			p.pos++
			break
		}
		k, err := p.parseValue(0)
		if err != nil {
			return nil, err
		}
		if k.kind != pyStr {
			return nil, p.errf("dict key %s is not a string", clip(k.raw))
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		v, err := p.parseValue(0)
		if err != nil {
			return nil, err
		}
		if _, dup := d[k.str]; dup {
			return nil, p.errf("duplicate key %q", k.str)
		}
		d[k.str] = v
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			// Handled at the top of the loop.
		default:
			return nil, p.errf("expected ',' or '}' after value")
		}
	}
	if p.peek() != 0 {
		return nil, p.errf("unexpected text after dict")
	}
	return d, nil
}

func (p *pyParser) parseValue(depth int) (pyValue, error) {
	if depth > maxNesting {
		return pyValue{}, p.errf("nesting too deep")
	}
	c := p.peek()
	start := p.pos
	var v pyValue
	var err error
	switch {
	case c == '\'' || c == '"':
		v, err = p.parseString()
	case c == '(' || c == '[':
		v, err = p.parseSeq(depth)
	case c == '-' || c == '+' || isDigit(c):
		v, err = p.parseInt()
	case isIdentStart(c):
		v, err = p.parseIdent()
	case c == 0:
		return pyValue{}, p.errf("expected a value, found end of header")
	default:
		return pyValue{}, p.errf("unexpected character %q", c)
	}
	if err != nil {
		return pyValue{}, err
	}
	v.raw = p.s[start:p.pos]
	return v, nil
}

func (p *pyParser) parseString() (pyValue, error) {
	q := p.s[p.pos]
	p.pos++
	var sb strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == q:
			p.pos++
			return pyValue{kind: pyStr, str: sb.String()}, nil
		case c == '\\':
			// Only simple escapes occur in practice; take the next byte
			// literally.
			if p.pos+1 >= len(p.s) {
				return pyValue{}, p.errf("unterminated string")
			}
			sb.WriteByte(p.s[p.pos+1])
			p.pos += 2
		case c == '\n':
			return pyValue{}, p.errf("newline in string")
		default:
			sb.WriteByte(c)
			p.pos++
		}
	}
	return pyValue{}, p.errf("unterminated string")
}

// parseSeq parses a tuple or a list. Following Python, "(x)" without a
// comma is just x in parentheses, not a tuple.
func (p *pyParser) parseSeq(depth int) (pyValue, error) {
	open := p.s[p.pos]
	closer, kind := byte(')'), pyTuple
	if open == '[' {
		closer, kind = ']', pyList
	}
	p.pos++
	var items []pyValue
	sawComma := false
	for {
		if p.peek() == closer {
			p.pos++
			break
		}
		v, err := p.parseValue(depth + 1)
		if err != nil {
			return pyValue{}, err
		}
		items = append(items, v)
		switch p.peek() {
		case ',':
			p.pos++
			sawComma = true
		case closer:
			// Handled at the top of the loop.
		default:
			return pyValue{}, p.errf("expected ',' or %q in sequence", closer)
		}
	}
	if kind == pyTuple && len(items) == 1 && !sawComma {
		return items[0], nil
	}
	return pyValue{kind: kind, items: items}, nil
}

func (p *pyParser) parseInt() (pyValue, error) {
	start := p.pos
	if c := p.s[p.pos]; c == '-' || c == '+' {
		p.pos++
		p.skipSpace()
	}
	digits := p.pos
	for p.pos < len(p.s) && isDigit(p.s[p.pos]) {
		p.pos++
	}
	if p.pos == digits {
		return pyValue{}, p.errf("expected digits")
	}
	num := p.s[digits:p.pos]
	if p.s[start] == '-' {
		num = "-" + num
	}
	// Python 2 long suffix, as in "(3L, 4L)" written by old NumPy.
	if p.pos < len(p.s) && (p.s[p.pos] == 'L' || p.s[p.pos] == 'l') {
		p.pos++
	}
	if p.pos < len(p.s) && (isIdentStart(p.s[p.pos]) || isDigit(p.s[p.pos]) || p.s[p.pos] == '.') {
		return pyValue{}, p.errf("malformed number")
	}
	return pyValue{kind: pyInt, str: num}, nil
}

func (p *pyParser) parseIdent() (pyValue, error) {
	start := p.pos
	for p.pos < len(p.s) && (isIdentStart(p.s[p.pos]) || isDigit(p.s[p.pos])) {
		p.pos++
	}
	switch id := p.s[start:p.pos]; id {
	case "True":
		return pyValue{kind: pyBool, b: true}, nil
	case "False":
		return pyValue{kind: pyBool, b: false}, nil
	case "None":
		return pyValue{kind: pyNone}, nil
	default:
		p.pos = start
		return pyValue{}, p.errf("unknown name %q", id)
	}
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// parseHeader parses the header dict text (without magic and length).
func parseHeader(s string) (header, error) {
	p := &pyParser{s: s}
	d, err := p.parseDict()
	if err != nil {
		return header{}, err
	}
	for k := range d {
		switch k {
		case "descr", "fortran_order", "shape":
		default:
			return header{}, fmt.Errorf("%w: unexpected key %q in %q", ErrMalformedHeader, k, clip(s))
		}
	}
	var h header

	descr, ok := d["descr"]
	if !ok {
		return header{}, fmt.Errorf("%w: missing key 'descr' in %q", ErrMalformedHeader, clip(s))
	}
	if descr.kind != pyStr {
		// A list describes a structured dtype; anything else is nonsense,
		// but either way it is not a dtype we can read.
		return header{}, fmt.Errorf("%w: %s", ErrUnsupportedDType, clip(descr.raw))
	}
	h.dtype, h.bigEndian, err = parseDescr(descr.str)
	if err != nil {
		return header{}, err
	}

	fo, ok := d["fortran_order"]
	if !ok {
		return header{}, fmt.Errorf("%w: missing key 'fortran_order' in %q", ErrMalformedHeader, clip(s))
	}
	if fo.kind != pyBool {
		return header{}, fmt.Errorf("%w: fortran_order is %s, want True or False", ErrMalformedHeader, clip(fo.raw))
	}
	h.fortran = fo.b

	sh, ok := d["shape"]
	if !ok {
		return header{}, fmt.Errorf("%w: missing key 'shape' in %q", ErrMalformedHeader, clip(s))
	}
	if sh.kind != pyTuple {
		return header{}, fmt.Errorf("%w: shape is %s, want a tuple of integers", ErrMalformedHeader, clip(sh.raw))
	}
	h.shape = make([]int, len(sh.items))
	for i, it := range sh.items {
		if it.kind != pyInt {
			return header{}, fmt.Errorf("%w: shape %s has non-integer dimension %s", ErrMalformedHeader, clip(sh.raw), clip(it.raw))
		}
		n, err := strconv.Atoi(it.str)
		if err != nil {
			return header{}, fmt.Errorf("%w: dimension %s of shape %s overflows", ErrBadShape, clip(it.raw), clip(sh.raw))
		}
		if n < 0 {
			return header{}, fmt.Errorf("%w: dimension %s of shape %s is negative", ErrBadShape, clip(it.raw), clip(sh.raw))
		}
		h.shape[i] = n
	}
	return h, nil
}

// parseDescr maps a NumPy descr string to a DType and byte order.
func parseDescr(s string) (DType, bool, error) {
	if len(s) == 3 && (s[0] == '<' || s[0] == '>') && s[1] == 'i' {
		switch s[2] {
		case '4':
			return I32, s[0] == '>', nil
		case '8':
			return I64, s[0] == '>', nil
		}
	}
	if len(s) == 3 && (s[0] == '<' || s[0] == '>') && s[1] == 'f' {
		big := s[0] == '>'
		switch s[2] {
		case '4':
			return F32, big, nil
		case '8':
			return F64, big, nil
		case '2':
			return F16, big, nil
		}
	}
	return 0, false, fmt.Errorf("%w: %q (supported: '<f4', '<f8', '<f2', '<i4', '<i8' and their '>' forms)", ErrUnsupportedDType, s)
}

// formatHeader returns the complete header (magic, version, length and
// padded dict) exactly as NumPy >= 1.24 writes it for a C-order array:
// format 1.0, or 2.0 if the header does not fit in 1.0.
func formatHeader(dt DType, shape []int) []byte {
	var sb strings.Builder
	sb.WriteString("{'descr': '")
	sb.WriteString(dt.String())
	sb.WriteString("', 'fortran_order': False, 'shape': (")
	for i, d := range shape {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		sb.WriteByte(',')
	}
	sb.WriteString("), }")
	if len(shape) > 0 {
		if pad := growthAxisMaxDigits - len(strconv.Itoa(shape[0])); pad > 0 {
			sb.WriteString(strings.Repeat(" ", pad))
		}
	}
	dict := sb.String()

	for _, lenSize := range []int{2, 4} {
		hlen := len(dict) + 1 // + '\n'
		// NumPy always adds padding, a whole arrayAlign block when the
		// header is already aligned.
		padlen := arrayAlign - (prefixLen+lenSize+hlen)%arrayAlign
		total := hlen + padlen
		if lenSize == 2 && total > 0xffff {
			continue
		}
		out := make([]byte, 0, prefixLen+lenSize+total)
		out = append(out, magic...)
		if lenSize == 2 {
			out = append(out, 1, 0)
			out = binary.LittleEndian.AppendUint16(out, uint16(total))
		} else {
			out = append(out, 2, 0)
			out = binary.LittleEndian.AppendUint32(out, uint32(total))
		}
		out = append(out, dict...)
		for range padlen {
			out = append(out, ' ')
		}
		return append(out, '\n')
	}
	panic("unreachable")
}
