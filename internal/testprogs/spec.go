package testprogs

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	bc "github.com/kiln-jit/kiln/bytecode"
)

//go:generate go run gen_spec.go

// wasmSpec holds the numeric assertions of the WebAssembly 1.0
// specification tests (i32, i64, f32, f64, their comparisons and bitwise
// ops, conversions), converted by gen_spec.go.
//
//go:embed testdata/wasmspec.txt.gz
var wasmSpec []byte

// NaNKind is what a specification assertion requires of a NaN result.
type NaNKind uint8

// The NaN requirements of the WebAssembly specification tests.
const (
	NaNNone       NaNKind = iota // the result is not a NaN: compare bits
	NaNCanonical                 // a quiet NaN with an all-zero payload, either sign
	NaNArithmetic                // a quiet NaN (quiet bit set), any payload and sign
)

// Holds reports whether v, a value of type t, satisfies k.
func (k NaNKind) Holds(t bc.Type, v uint64) bool {
	var exp, quiet, payload uint64
	switch t {
	case bc.F32:
		exp, quiet, payload = 0xFF<<23, 1<<22, 1<<22-1
		v &= 0x7FFFFFFF
	case bc.F64:
		exp, quiet, payload = 0x7FF<<52, 1<<51, 1<<51-1
		v &^= 1 << 63
	default:
		return false
	}
	if v&exp != exp || v&quiet == 0 {
		return false
	}
	return k == NaNArithmetic || v&payload == 0
}

// SpecAssertion is one assertion of the WebAssembly specification tests on
// a single numeric instruction.
type SpecAssertion struct {
	Where  string // script and line, as "f32:1234"
	Op     bc.Op
	Args   []uint64
	Types  []bc.Type // of the arguments
	Result bc.Type
	Want   uint64 // when NaN is NaNNone and Trap is TrapNone
	NaN    NaNKind
	Trap   bc.TrapKind
}

var specTypes = map[string]bc.Type{"i32": bc.I32, "i64": bc.I64, "f32": bc.F32, "f64": bc.F64}

var specTraps = map[string]bc.TrapKind{
	"integer_overflow":              bc.TrapIntegerOverflow,
	"integer_divide_by_zero":        bc.TrapDivideByZero,
	"invalid_conversion_to_integer": bc.TrapInvalidConversion,
}

var specOnce struct {
	sync.Once
	list []SpecAssertion
	err  error
}

// SpecAssertions returns every numeric assertion of the WebAssembly 1.0
// specification tests that kiln has an op for (all of them: the test
// fails when one names an op kiln lacks).
func SpecAssertions() ([]SpecAssertion, error) {
	specOnce.Do(func() { specOnce.list, specOnce.err = parseSpec(wasmSpec) })
	return specOnce.list, specOnce.err
}

func parseSpec(gz []byte) ([]SpecAssertion, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("testprogs: spec assertions: %w", err)
	}
	var list []SpecAssertion
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		a, err := parseSpecLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("testprogs: spec assertion %q: %w", sc.Text(), err)
		}
		list = append(list, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("testprogs: spec assertions: %w", err)
	}
	return list, nil
}

func parseTyped(s string) (bc.Type, string, error) {
	ty, v, ok := strings.Cut(s, ":")
	t, known := specTypes[ty]
	if !ok || !known {
		return 0, "", fmt.Errorf("bad value %q", s)
	}
	return t, v, nil
}

func parseSpecLine(line string) (SpecAssertion, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[len(fields)-2] != "=" {
		return SpecAssertion{}, fmt.Errorf("malformed")
	}
	a := SpecAssertion{Where: fields[0]}
	op, ok := bc.OpByName(fields[1])
	if !ok {
		return a, fmt.Errorf("no op %s", fields[1])
	}
	a.Op = op
	for _, f := range fields[2 : len(fields)-2] {
		t, v, err := parseTyped(f)
		if err != nil {
			return a, err
		}
		x, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return a, err
		}
		a.Args, a.Types = append(a.Args, x), append(a.Types, t)
	}
	want := fields[len(fields)-1]
	if kind, ok := strings.CutPrefix(want, "trap:"); ok {
		if a.Trap, ok = specTraps[kind]; !ok {
			return a, fmt.Errorf("unknown trap %q", kind)
		}
		a.Result = op.Info().Dst
		if a.Result == bc.IntType {
			a.Result = bc.I32
		}
		return a, nil
	}
	t, v, err := parseTyped(want)
	if err != nil {
		return a, err
	}
	a.Result = t
	switch v {
	case "nan:canonical":
		a.NaN = NaNCanonical
	case "nan:arithmetic":
		a.NaN = NaNArithmetic
	default:
		if a.Want, err = strconv.ParseUint(v, 10, 64); err != nil {
			return a, err
		}
	}
	return a, nil
}

// Module returns a module whose exported function "f" runs the assertion's
// instruction on its parameters (with B as an immediate when useImm is set,
// for ops that take one) and returns the result.
func (a *SpecAssertion) Module(useImm bool) *bc.Module {
	b := bc.NewModuleBuilder().Memory(1, 1)
	params := a.Types
	if useImm {
		params = params[:1]
	}
	fb := b.Func("f", params, []bc.Type{a.Result})
	in := bc.Instr{Op: a.Op, Dst: fb.NewReg(a.Result), A: 0}
	if len(a.Types) == 2 {
		if useImm {
			in.UseImm, in.Imm = true, int64(a.Args[1])
			if a.Types[1] == bc.I32 {
				in.Imm = int64(int32(a.Args[1]))
			}
		} else {
			in.B = 1
		}
	}
	fb.Emit(in)
	fb.Return(in.Dst)
	b.Export("f", fb)
	m, err := b.Build()
	if err != nil {
		panic(fmt.Sprintf("testprogs: module for %s %s: %v", a.Where, a.Op, err))
	}
	return m
}

// Case returns the assertion as a Case (with B as an immediate when useImm
// is set).
func (a *SpecAssertion) Case(useImm bool) Case {
	c := Case{
		Name:   fmt.Sprintf("spec %s %s%#x", a.Where, a.Op, a.Args),
		Module: a.Module(useImm),
		Func:   "f",
		Args:   a.Args,
		Trap:   a.Trap,
	}
	if useImm {
		c.Name += " (imm)"
		c.Args = a.Args[:1]
	}
	if a.Trap == bc.TrapNone {
		c.Want = []uint64{a.Want}
		if a.NaN != NaNNone {
			c.WantNaN = []NaNKind{a.NaN}
		}
	}
	return c
}

// SpecCases returns at most perOp of the specification assertions of each
// op (spread evenly over the op's assertions, with at least one of each
// trap kind the op has and one NaN result if it has any) as cases, plus
// for ops with immediate forms the same cases with an immediate. perOp <= 0
// means all of them.
func SpecCases(perOp int) []Case {
	list, err := SpecAssertions()
	if err != nil {
		panic(err)
	}
	byOp := map[bc.Op][]int{}
	var ops []bc.Op
	for i, a := range list {
		if _, seen := byOp[a.Op]; !seen {
			ops = append(ops, a.Op)
		}
		byOp[a.Op] = append(byOp[a.Op], i)
	}
	var cases []Case
	for _, op := range ops {
		idx := byOp[op]
		pick := map[int]bool{}
		if perOp <= 0 || len(idx) <= perOp {
			for _, i := range idx {
				pick[i] = true
			}
		} else {
			traps := map[bc.TrapKind]bool{}
			nan := false
			for _, i := range idx {
				a := &list[i]
				if a.Trap != bc.TrapNone && !traps[a.Trap] {
					traps[a.Trap], pick[i] = true, true
				}
				if a.NaN != NaNNone && !nan {
					nan, pick[i] = true, true
				}
			}
			for k := 0; k < perOp; k++ {
				pick[idx[k*len(idx)/perOp]] = true
			}
		}
		for _, i := range idx {
			if !pick[i] {
				continue
			}
			a := &list[i]
			cases = append(cases, a.Case(false))
			if op.Info().Imm && len(a.Args) == 2 {
				cases = append(cases, a.Case(true))
			}
		}
	}
	return cases
}
