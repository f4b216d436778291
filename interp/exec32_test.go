package interp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// Register values of the 32-bit types, zero-extended as the interpreter
// keeps them.
func u32(x int32) uint64      { return uint64(uint32(x)) }
func f32v(x float32) uint64   { return uint64(math.Float32bits(x)) }
func f64v(x float64) uint64   { return math.Float64bits(x) }
func f32x(bits uint32) uint64 { return uint64(bits) }

var (
	nan32     = f32x(0x7fc00000)
	negNaN32  = f32x(0xffc00000)
	inf32     = f32v(float32(math.Inf(1)))
	negInf32  = f32v(float32(math.Inf(-1)))
	negZero32 = f32x(0x80000000)
	nan64     = f64v(math.NaN())
	negZero64 = f64v(math.Copysign(0, -1))
)

// dirt is ORed into the upper half of 32-bit arguments: Machine.Call must
// ignore it.
const dirt = 0xa5a5a5a5_00000000

// opCase is a single-instruction case: op applied to args (A, then B)
// gives want, or traps.
type opCase struct {
	op   bc.Op
	args []uint64
	want uint64
	trap bc.TrapKind
	// dst is the destination type where the op allows I32 or I64
	// (IntType); zero means both are tried.
	dst bc.Type
}

// isNaNOf reports whether v is a NaN of type t (F32 or F64).
func isNaNOf(t bc.Type, v uint64) bool {
	if t == bc.F32 {
		return v>>32 == 0 && math.IsNaN(float64(math.Float32frombits(uint32(v))))
	}
	return math.IsNaN(math.Float64frombits(v))
}

// opModule builds a module with one exported function "f" that runs one
// instruction of op and returns its destination (if it has one). Operand
// registers are parameters with the given types; with useImm, B is the
// immediate imm instead. Loads and stores take imm as their offset.
func opModule(t testing.TB, op bc.Op, dst bc.Type, srcs []bc.Type, useImm bool, imm int64, build func(b *bc.ModuleBuilder)) *bc.Module {
	t.Helper()
	return assemble(t, func(b *bc.ModuleBuilder) {
		if build != nil {
			build(b)
		}
		var results []bc.Type
		if dst != 0 {
			results = []bc.Type{dst}
		}
		f := b.Func("f", srcs, results)
		in := bc.Instr{Op: op, UseImm: useImm, Imm: imm}
		if len(srcs) > 0 {
			in.A = 0
		}
		if len(srcs) > 1 {
			in.B = 1
		}
		if dst != 0 {
			in.Dst = f.NewReg(dst)
		}
		f.Emit(in)
		if dst != 0 {
			f.Return(in.Dst)
		} else {
			f.Return()
		}
		b.Export("f", f)
	})
}

// resolveType turns an op-table operand type into a concrete one.
func resolveType(ty, intType bc.Type) bc.Type {
	if ty == bc.IntType {
		return intType
	}
	return ty
}

// runOp runs one instruction and returns its result or error.
func runOp(t testing.TB, m *bc.Module, args []uint64) (uint64, *Machine, error) {
	t.Helper()
	mach := newMachine(t, m, Config{})
	got, err := call(t, mach, context.Background(), "f", args...)
	if err != nil || len(got) == 0 {
		return 0, mach, err
	}
	return got[0], mach, nil
}

// checkOp runs c in every form the op has: with I32 and I64 destinations
// where the op allows both, with B in a register and as an immediate, and
// with garbage in the upper halves of 32-bit arguments.
func checkOp(t *testing.T, c opCase) {
	t.Helper()
	info := c.op.Info()
	dsts := []bc.Type{resolveType(info.Dst, bc.I32)}
	if info.Dst == bc.IntType {
		dsts = []bc.Type{bc.I32, bc.I64}
		if c.dst != 0 {
			dsts = []bc.Type{c.dst}
		}
	}
	var srcs []bc.Type
	for i, ty := range []bc.Type{info.A, info.B} {
		if i < len(c.args) {
			srcs = append(srcs, resolveType(ty, bc.I32))
		}
	}
	for _, dst := range dsts {
		for _, imm := range []bool{false, true} {
			if imm && (!info.Imm || len(c.args) != 2) {
				continue
			}
			for _, dirty := range []bool{false, true} {
				name := fmt.Sprintf("%s%#x dst=%s imm=%v dirty=%v", c.op, c.args, dst, imm, dirty)
				args := append([]uint64(nil), c.args...)
				types := srcs
				var immVal int64
				if imm {
					immVal = int64(args[1])
					if srcs[1] == bc.I32 {
						immVal = int64(int32(args[1]))
					}
					args, types = args[:1], srcs[:1]
				}
				if dirty {
					any32 := false
					for i, ty := range types {
						if ty.Is32() {
							args[i] |= dirt
							any32 = true
						}
					}
					if !any32 {
						continue
					}
				}
				m := opModule(t, c.op, dst, types, imm, immVal, nil)
				got, _, err := runOp(t, m, args)
				checkResult(t, name, dst, got, err, c.want, c.trap)
			}
		}
	}
}

func checkResult(t *testing.T, name string, dst bc.Type, got uint64, err error, want uint64, trap bc.TrapKind) {
	t.Helper()
	if trap != bc.TrapNone {
		var tr *bc.Trap
		if !errors.As(err, &tr) || tr.Kind != trap || tr.Offset != 0 {
			t.Errorf("%s: got %#x, %v; want trap %q at 0", name, got, err, trap)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if (dst == bc.F32 || dst == bc.F64) && isNaNOf(dst, want) {
		if !isNaNOf(dst, got) {
			t.Errorf("%s = %#x, want a NaN", name, got)
		}
		return
	}
	if got != want {
		t.Errorf("%s = %#x, want %#x", name, got, want)
	}
}

func TestI32Arithmetic(t *testing.T) {
	const (
		minI = 0x80000000
		maxI = 0x7fffffff
		all  = 0xffffffff
	)
	for _, c := range []opCase{
		{op: bc.OpI32Add, args: []uint64{1, 1}, want: 2},
		{op: bc.OpI32Add, args: []uint64{maxI, 1}, want: minI},
		{op: bc.OpI32Add, args: []uint64{all, 1}, want: 0},
		{op: bc.OpI32Add, args: []uint64{minI, minI}, want: 0},
		{op: bc.OpI32Add, args: []uint64{all, all}, want: 0xfffffffe},
		{op: bc.OpI32Sub, args: []uint64{1, 1}, want: 0},
		{op: bc.OpI32Sub, args: []uint64{0, 1}, want: all},
		{op: bc.OpI32Sub, args: []uint64{minI, 1}, want: maxI},
		{op: bc.OpI32Sub, args: []uint64{maxI, all}, want: minI},
		{op: bc.OpI32Sub, args: []uint64{5, minI}, want: 0x80000005},
		{op: bc.OpI32Mul, args: []uint64{0x01234567, 0x76543210}, want: 0x358e7470},
		{op: bc.OpI32Mul, args: []uint64{minI, all}, want: minI},
		{op: bc.OpI32Mul, args: []uint64{maxI, all}, want: 0x80000001},
		{op: bc.OpI32Mul, args: []uint64{0x10000, 0x10000}, want: 0},

		{op: bc.OpI32DivS, args: []uint64{1, 0}, trap: bc.TrapDivideByZero},
		{op: bc.OpI32DivS, args: []uint64{0, 0}, trap: bc.TrapDivideByZero},
		{op: bc.OpI32DivS, args: []uint64{minI, all}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32DivS, args: []uint64{minI, 2}, want: 0xc0000000},
		{op: bc.OpI32DivS, args: []uint64{u32(-7), 2}, want: u32(-3)},
		{op: bc.OpI32DivS, args: []uint64{7, u32(-3)}, want: u32(-2)},
		{op: bc.OpI32DivS, args: []uint64{maxI, all}, want: 0x80000001},
		{op: bc.OpI32DivU, args: []uint64{1, 0}, trap: bc.TrapDivideByZero},
		{op: bc.OpI32DivU, args: []uint64{minI, all}, want: 0},
		{op: bc.OpI32DivU, args: []uint64{u32(-7), 2}, want: 0x7ffffffc},
		{op: bc.OpI32DivU, args: []uint64{minI, 2}, want: 0x40000000},
		{op: bc.OpI32DivU, args: []uint64{all, 1}, want: all},
		{op: bc.OpI32RemS, args: []uint64{1, 0}, trap: bc.TrapDivideByZero},
		{op: bc.OpI32RemS, args: []uint64{minI, all}, want: 0},
		{op: bc.OpI32RemS, args: []uint64{maxI, all}, want: 0},
		{op: bc.OpI32RemS, args: []uint64{u32(-7), 2}, want: all},
		{op: bc.OpI32RemS, args: []uint64{7, u32(-3)}, want: 1},
		{op: bc.OpI32RemS, args: []uint64{minI, 3}, want: u32(-2)},
		{op: bc.OpI32RemU, args: []uint64{1, 0}, trap: bc.TrapDivideByZero},
		{op: bc.OpI32RemU, args: []uint64{u32(-7), 2}, want: 1},
		{op: bc.OpI32RemU, args: []uint64{minI, all}, want: minI},
		{op: bc.OpI32RemU, args: []uint64{all, 10}, want: 5},

		{op: bc.OpI32And, args: []uint64{0xf0f0ffff, 0xfffff0f0}, want: 0xf0f0f0f0},
		{op: bc.OpI32And, args: []uint64{all, all}, want: all},
		{op: bc.OpI32Or, args: []uint64{0xf0f0ffff, 0xfffff0f0}, want: all},
		{op: bc.OpI32Or, args: []uint64{minI, 0}, want: minI},
		{op: bc.OpI32Xor, args: []uint64{0xf0f0ffff, 0xfffff0f0}, want: 0x0f0f0f0f},
		{op: bc.OpI32Xor, args: []uint64{all, minI}, want: maxI},
		{op: bc.OpI32Xor, args: []uint64{all, all}, want: 0},

		{op: bc.OpI32Shl, args: []uint64{1, 31}, want: minI},
		{op: bc.OpI32Shl, args: []uint64{1, 32}, want: 1},
		{op: bc.OpI32Shl, args: []uint64{1, 33}, want: 2},
		{op: bc.OpI32Shl, args: []uint64{1, all}, want: minI},
		{op: bc.OpI32Shl, args: []uint64{all, 1}, want: 0xfffffffe},
		{op: bc.OpI32Shl, args: []uint64{maxI, 1}, want: 0xfffffffe},
		{op: bc.OpI32ShrS, args: []uint64{minI, 31}, want: all},
		{op: bc.OpI32ShrS, args: []uint64{minI, 32}, want: minI},
		{op: bc.OpI32ShrS, args: []uint64{all, 1}, want: all},
		{op: bc.OpI32ShrS, args: []uint64{maxI, 30}, want: 1},
		{op: bc.OpI32ShrS, args: []uint64{1, all}, want: 0},
		{op: bc.OpI32ShrS, args: []uint64{minI, 33}, want: 0xc0000000},
		{op: bc.OpI32ShrU, args: []uint64{minI, 31}, want: 1},
		{op: bc.OpI32ShrU, args: []uint64{minI, 32}, want: minI},
		{op: bc.OpI32ShrU, args: []uint64{all, 1}, want: maxI},
		{op: bc.OpI32ShrU, args: []uint64{all, all}, want: 1},
		{op: bc.OpI32Rotl, args: []uint64{0xabcd9876, 1}, want: 0x579b30ed},
		{op: bc.OpI32Rotl, args: []uint64{0xfe00dc00, 4}, want: 0xe00dc00f},
		{op: bc.OpI32Rotl, args: []uint64{1, 32}, want: 1},
		{op: bc.OpI32Rotl, args: []uint64{1, 63}, want: minI},
		{op: bc.OpI32Rotl, args: []uint64{0x00008000, 37}, want: 0x00100000},
		{op: bc.OpI32Rotl, args: []uint64{minI, 1}, want: 1},
		{op: bc.OpI32Rotr, args: []uint64{0xb0c1d2e3, 5}, want: 0x1d860e97},
		{op: bc.OpI32Rotr, args: []uint64{1, 1}, want: minI},
		{op: bc.OpI32Rotr, args: []uint64{1, 32}, want: 1},
		{op: bc.OpI32Rotr, args: []uint64{0xff00cc00, 1}, want: 0x7f806600},
		{op: bc.OpI32Rotr, args: []uint64{0x769abcdf, 0xffffffed}, want: 0xe6fbb4d5},

		{op: bc.OpI32Neg, args: []uint64{0}, want: 0},
		{op: bc.OpI32Neg, args: []uint64{1}, want: all},
		{op: bc.OpI32Neg, args: []uint64{minI}, want: minI},
		{op: bc.OpI32Not, args: []uint64{0}, want: all},
		{op: bc.OpI32Not, args: []uint64{all}, want: 0},
		{op: bc.OpI32Not, args: []uint64{0x0f0f0f0f}, want: 0xf0f0f0f0},
		{op: bc.OpI32Clz, args: []uint64{0}, want: 32},
		{op: bc.OpI32Clz, args: []uint64{all}, want: 0},
		{op: bc.OpI32Clz, args: []uint64{1}, want: 31},
		{op: bc.OpI32Clz, args: []uint64{0x00008000}, want: 16},
		{op: bc.OpI32Clz, args: []uint64{maxI}, want: 1},
		{op: bc.OpI32Ctz, args: []uint64{0}, want: 32},
		{op: bc.OpI32Ctz, args: []uint64{all}, want: 0},
		{op: bc.OpI32Ctz, args: []uint64{minI}, want: 31},
		{op: bc.OpI32Ctz, args: []uint64{0x00010000}, want: 16},
		{op: bc.OpI32Popcnt, args: []uint64{0}, want: 0},
		{op: bc.OpI32Popcnt, args: []uint64{all}, want: 32},
		{op: bc.OpI32Popcnt, args: []uint64{0x00008000}, want: 1},
		{op: bc.OpI32Popcnt, args: []uint64{0xaaaaaaaa}, want: 16},
		{op: bc.OpI32Extend8S, args: []uint64{0x7f}, want: 0x7f},
		{op: bc.OpI32Extend8S, args: []uint64{0x80}, want: 0xffffff80},
		{op: bc.OpI32Extend8S, args: []uint64{0x12345680}, want: 0xffffff80},
		{op: bc.OpI32Extend8S, args: []uint64{0xffffff00}, want: 0},
		{op: bc.OpI32Extend16S, args: []uint64{0x7fff}, want: 0x7fff},
		{op: bc.OpI32Extend16S, args: []uint64{0x8000}, want: 0xffff8000},
		{op: bc.OpI32Extend16S, args: []uint64{0x12348000}, want: 0xffff8000},
		{op: bc.OpI32Extend16S, args: []uint64{0xffff0000}, want: 0},

		{op: bc.OpI32Eqz, args: []uint64{0}, want: 1},
		{op: bc.OpI32Eqz, args: []uint64{1}, want: 0},
		{op: bc.OpI32Eqz, args: []uint64{minI}, want: 0},
		{op: bc.OpI64Eqz, args: []uint64{0}, want: 1},
		{op: bc.OpI64Eqz, args: []uint64{1 << 32}, want: 0},
		{op: bc.OpI64Eqz, args: []uint64{math.MaxUint64}, want: 0},
	} {
		checkOp(t, c)
	}
}

func TestI32Compares(t *testing.T) {
	vals := []uint64{0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff}
	var cases []opCase
	for c := bc.CondEq; c <= bc.CondGeU; c++ {
		op := bc.OpI32Eq + bc.Op(c)
		for _, a := range vals {
			for _, b := range vals {
				cases = append(cases, opCase{op: op, args: []uint64{a, b}, want: b2u(c.Holds32(int64(a), int64(b)))})
			}
		}
	}
	// A few by hand, so that Holds32 is not the only word.
	cases = append(cases,
		opCase{op: bc.OpI32LtS, args: []uint64{0x80000000, 0}, want: 1},
		opCase{op: bc.OpI32LtU, args: []uint64{0x80000000, 0}, want: 0},
		opCase{op: bc.OpI32GeS, args: []uint64{0xffffffff, 0}, want: 0},
		opCase{op: bc.OpI32GeU, args: []uint64{0xffffffff, 0}, want: 1},
		opCase{op: bc.OpI32LeS, args: []uint64{0x7fffffff, 0x80000000}, want: 0},
		opCase{op: bc.OpI32GtS, args: []uint64{0x7fffffff, 0x80000000}, want: 1},
		opCase{op: bc.OpI32Eq, args: []uint64{0xffffffff, 0xffffffff}, want: 1},
		opCase{op: bc.OpI32Ne, args: []uint64{0xffffffff, 0x7fffffff}, want: 1},
	)
	for _, c := range cases {
		checkOp(t, c)
	}
}

// brModule: f(a, b) returns 1 if the compare-branch op of a and b (or a and
// imm) is taken, else 0.
func brModule(t testing.TB, op bc.Op, ty bc.Type, useImm bool, imm int64) *bc.Module {
	return assemble(t, func(b *bc.ModuleBuilder) {
		params := []bc.Type{ty, ty}
		if useImm {
			params = params[:1]
		}
		f := b.Func("f", params, []bc.Type{bc.I64})
		r := f.NewReg(bc.I64)
		l := f.NewLabel()
		if useImm {
			f.BrCmpImm(op, 0, imm, l)
		} else {
			f.BrCmp(op, 0, 1, l)
		}
		f.Return(r)
		f.Bind(l)
		f.I64Const(r, 1)
		f.Return(r)
		b.Export("f", f)
	})
}

func TestI32CompareBranches(t *testing.T) {
	vals := []uint64{0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff}
	for c := bc.CondEq; c <= bc.CondGeU; c++ {
		op := bc.OpBrI32Eq + bc.Op(c)
		for _, a := range vals {
			for _, b := range vals {
				want := b2u(c.Holds32(int64(a), int64(b)))
				for _, dirty := range []uint64{0, dirt} {
					got, _, err := runOp(t, brModule(t, op, bc.I32, false, 0), []uint64{a | dirty, b | dirty})
					if err != nil || got != want {
						t.Errorf("%s(%#x, %#x) = %d, %v; want %d", op, a|dirty, b|dirty, got, err, want)
					}
					got, _, err = runOp(t, brModule(t, op, bc.I32, true, int64(int32(b))), []uint64{a | dirty})
					if err != nil || got != want {
						t.Errorf("%s(%#x, imm %d) = %d, %v; want %d", op, a|dirty, int32(b), got, err, want)
					}
				}
			}
		}
	}
}

func TestF32Arithmetic(t *testing.T) {
	one, two := f32v(1), f32v(2)
	for _, c := range []opCase{
		{op: bc.OpF32Add, args: []uint64{f32v(16777216), one}, want: f32v(16777216)},
		{op: bc.OpF32Add, args: []uint64{f32v(16777216), f32v(3)}, want: f32v(16777220)},
		{op: bc.OpF32Add, args: []uint64{f32x(0x00000001), f32x(0x00000001)}, want: f32x(0x00000002)},
		{op: bc.OpF32Add, args: []uint64{negZero32, negZero32}, want: negZero32},
		{op: bc.OpF32Add, args: []uint64{negZero32, 0}, want: 0},
		{op: bc.OpF32Add, args: []uint64{inf32, negInf32}, want: nan32},
		{op: bc.OpF32Add, args: []uint64{f32x(0x7f7fffff), f32x(0x73000000)}, want: inf32},
		{op: bc.OpF32Add, args: []uint64{f32x(0x7f7fffff), f32x(0x72ffffff)}, want: f32x(0x7f7fffff)},
		{op: bc.OpF32Add, args: []uint64{nan32, one}, want: nan32},
		{op: bc.OpF32Sub, args: []uint64{one, one}, want: 0},
		{op: bc.OpF32Sub, args: []uint64{negZero32, 0}, want: negZero32},
		{op: bc.OpF32Sub, args: []uint64{f32v(16777216), f32v(-1)}, want: f32v(16777216)},
		{op: bc.OpF32Sub, args: []uint64{inf32, inf32}, want: nan32},
		{op: bc.OpF32Mul, args: []uint64{f32v(1e20), f32v(1e20)}, want: inf32},
		{op: bc.OpF32Mul, args: []uint64{f32x(0x00800000), f32x(0x34000000)}, want: f32x(0x00000001)},
		{op: bc.OpF32Mul, args: []uint64{f32x(0x00800000), f32x(0x33800000)}, want: 0},
		{op: bc.OpF32Mul, args: []uint64{negZero32, f32v(5)}, want: negZero32},
		{op: bc.OpF32Mul, args: []uint64{inf32, 0}, want: nan32},
		{op: bc.OpF32Mul, args: []uint64{f32x(0x3f800001), f32x(0x3f800001)}, want: f32x(0x3f800002)},
		{op: bc.OpF32Div, args: []uint64{one, f32v(3)}, want: f32x(0x3eaaaaab)},
		{op: bc.OpF32Div, args: []uint64{one, 0}, want: inf32},
		{op: bc.OpF32Div, args: []uint64{f32v(-1), 0}, want: negInf32},
		{op: bc.OpF32Div, args: []uint64{one, negZero32}, want: negInf32},
		{op: bc.OpF32Div, args: []uint64{0, 0}, want: nan32},
		{op: bc.OpF32Min, args: []uint64{negZero32, 0}, want: negZero32},
		{op: bc.OpF32Min, args: []uint64{0, negZero32}, want: negZero32},
		{op: bc.OpF32Min, args: []uint64{nan32, one}, want: nan32},
		{op: bc.OpF32Min, args: []uint64{one, nan32}, want: nan32},
		{op: bc.OpF32Min, args: []uint64{one, two}, want: one},
		{op: bc.OpF32Min, args: []uint64{negInf32, f32v(5)}, want: negInf32},
		{op: bc.OpF32Max, args: []uint64{negZero32, 0}, want: 0},
		{op: bc.OpF32Max, args: []uint64{0, negZero32}, want: 0},
		{op: bc.OpF32Max, args: []uint64{nan32, one}, want: nan32},
		{op: bc.OpF32Max, args: []uint64{one, negNaN32}, want: nan32},
		{op: bc.OpF32Max, args: []uint64{one, two}, want: two},
		{op: bc.OpF32Max, args: []uint64{negInf32, f32v(-5)}, want: f32v(-5)},
		{op: bc.OpF32Copysign, args: []uint64{one, negZero32}, want: f32v(-1)},
		{op: bc.OpF32Copysign, args: []uint64{f32v(-1), two}, want: one},
		{op: bc.OpF32Copysign, args: []uint64{nan32, f32v(-1)}, want: 0xffc00000},
		{op: bc.OpF32Copysign, args: []uint64{f32x(0xffc00001), 0}, want: 0x7fc00001},
		{op: bc.OpF32Copysign, args: []uint64{inf32, negZero32}, want: negInf32},

		{op: bc.OpF32Sqrt, args: []uint64{f32v(4)}, want: two},
		{op: bc.OpF32Sqrt, args: []uint64{two}, want: f32x(0x3fb504f3)},
		{op: bc.OpF32Sqrt, args: []uint64{f32v(-1)}, want: nan32},
		{op: bc.OpF32Sqrt, args: []uint64{negZero32}, want: negZero32},
		{op: bc.OpF32Sqrt, args: []uint64{inf32}, want: inf32},
		{op: bc.OpF32Sqrt, args: []uint64{f32x(0x00000001)}, want: f32x(0x1a3504f3)},
		{op: bc.OpF32Neg, args: []uint64{one}, want: f32x(0xbf800000)},
		{op: bc.OpF32Neg, args: []uint64{0}, want: negZero32},
		{op: bc.OpF32Neg, args: []uint64{negZero32}, want: 0},
		{op: bc.OpF32Neg, args: []uint64{f32x(0x7fc00001)}, want: 0xffc00001},
		{op: bc.OpF32Neg, args: []uint64{f32x(0xff800001)}, want: 0x7f800001},
		{op: bc.OpF32Abs, args: []uint64{f32v(-1)}, want: one},
		{op: bc.OpF32Abs, args: []uint64{f32x(0xffc00001)}, want: 0x7fc00001},
		{op: bc.OpF32Abs, args: []uint64{negZero32}, want: 0},
		{op: bc.OpF32Abs, args: []uint64{negInf32}, want: inf32},
		{op: bc.OpF32Floor, args: []uint64{f32v(1.5)}, want: one},
		{op: bc.OpF32Floor, args: []uint64{f32v(-1.5)}, want: f32v(-2)},
		{op: bc.OpF32Floor, args: []uint64{f32v(-0.5)}, want: f32v(-1)},
		{op: bc.OpF32Floor, args: []uint64{f32v(0.5)}, want: 0},
		{op: bc.OpF32Floor, args: []uint64{negZero32}, want: negZero32},
		{op: bc.OpF32Floor, args: []uint64{f32v(8388609)}, want: f32v(8388609)},
		{op: bc.OpF32Floor, args: []uint64{f32v(-8388607.5)}, want: f32v(-8388608)},
		{op: bc.OpF32Floor, args: []uint64{negInf32}, want: negInf32},
		{op: bc.OpF32Floor, args: []uint64{nan32}, want: nan32},
		{op: bc.OpF32Ceil, args: []uint64{f32v(1.5)}, want: two},
		{op: bc.OpF32Ceil, args: []uint64{f32v(-1.5)}, want: f32v(-1)},
		{op: bc.OpF32Ceil, args: []uint64{f32v(-0.5)}, want: negZero32},
		{op: bc.OpF32Ceil, args: []uint64{f32v(0.5)}, want: one},
		{op: bc.OpF32Ceil, args: []uint64{f32v(8388607.5)}, want: f32v(8388608)},
		{op: bc.OpF32Trunc, args: []uint64{f32v(1.5)}, want: one},
		{op: bc.OpF32Trunc, args: []uint64{f32v(-1.5)}, want: f32v(-1)},
		{op: bc.OpF32Trunc, args: []uint64{f32v(-0.5)}, want: negZero32},
		{op: bc.OpF32Trunc, args: []uint64{f32x(0x7f7fffff)}, want: f32x(0x7f7fffff)},
		{op: bc.OpF32Nearest, args: []uint64{f32v(0.5)}, want: 0},
		{op: bc.OpF32Nearest, args: []uint64{f32v(1.5)}, want: two},
		{op: bc.OpF32Nearest, args: []uint64{f32v(2.5)}, want: two},
		{op: bc.OpF32Nearest, args: []uint64{f32v(3.5)}, want: f32v(4)},
		{op: bc.OpF32Nearest, args: []uint64{f32v(-0.5)}, want: negZero32},
		{op: bc.OpF32Nearest, args: []uint64{f32v(-1.5)}, want: f32v(-2)},
		{op: bc.OpF32Nearest, args: []uint64{f32v(4194303.5)}, want: f32v(4194304)},
		{op: bc.OpF32Nearest, args: []uint64{f32v(4194302.5)}, want: f32v(4194302)},
		{op: bc.OpF32Nearest, args: []uint64{f32v(8388609)}, want: f32v(8388609)},
		{op: bc.OpF32Nearest, args: []uint64{f32v(0.49999997)}, want: 0},
		{op: bc.OpF32Nearest, args: []uint64{inf32}, want: inf32},
	} {
		checkOp(t, c)
	}
}

func TestF32Compares(t *testing.T) {
	vals := []float32{float32(math.NaN()), float32(math.Inf(-1)), -1, float32(math.Copysign(0, -1)), 0, 1, 1.0000001, float32(math.Inf(1))}
	holds := map[bc.Op]func(a, b float32) bool{
		bc.OpF32Eq: func(a, b float32) bool { return a == b },
		bc.OpF32Ne: func(a, b float32) bool { return a != b },
		bc.OpF32Lt: func(a, b float32) bool { return a < b },
		bc.OpF32Le: func(a, b float32) bool { return a <= b },
		bc.OpF32Gt: func(a, b float32) bool { return a > b },
		bc.OpF32Ge: func(a, b float32) bool { return a >= b },
	}
	var cases []opCase
	for op, h := range holds {
		for _, a := range vals {
			for _, b := range vals {
				cases = append(cases, opCase{op: op, args: []uint64{f32v(a), f32v(b)}, want: b2u(h(a, b))})
			}
		}
	}
	negZero := negZero32
	cases = append(cases,
		opCase{op: bc.OpF32Eq, args: []uint64{nan32, nan32}, want: 0},
		opCase{op: bc.OpF32Ne, args: []uint64{nan32, nan32}, want: 1},
		opCase{op: bc.OpF32Eq, args: []uint64{negZero, 0}, want: 1},
		opCase{op: bc.OpF32Lt, args: []uint64{negZero, 0}, want: 0},
		opCase{op: bc.OpF32Le, args: []uint64{negZero, 0}, want: 1},
		opCase{op: bc.OpF32Gt, args: []uint64{f32v(1), nan32}, want: 0},
		opCase{op: bc.OpF32Ge, args: []uint64{inf32, inf32}, want: 1},
		// Bit patterns that differ only above bit 31 of a wider type do
		// not exist: these differ in their f32 bits only.
		opCase{op: bc.OpF32Eq, args: []uint64{f32x(0x3f800000), f32x(0x3f800001)}, want: 0},
	)
	for _, c := range cases {
		checkOp(t, c)
	}
}

func TestConversions32(t *testing.T) {
	const (
		minI64 = 1 << 63
		maxI64 = 1<<63 - 1
	)
	for _, c := range []opCase{
		{op: bc.OpI32WrapI64, args: []uint64{0xffffffff00000001}, want: 1},
		{op: bc.OpI32WrapI64, args: []uint64{math.MaxUint64}, want: 0xffffffff},
		{op: bc.OpI32WrapI64, args: []uint64{0x123456789}, want: 0x23456789},
		{op: bc.OpI32WrapI64, args: []uint64{1 << 32}, want: 0},
		{op: bc.OpI64ExtendI32S, args: []uint64{0x80000000}, want: 0xffffffff80000000},
		{op: bc.OpI64ExtendI32S, args: []uint64{0x7fffffff}, want: 0x7fffffff},
		{op: bc.OpI64ExtendI32S, args: []uint64{0xffffffff}, want: math.MaxUint64},
		{op: bc.OpI64ExtendI32U, args: []uint64{0x80000000}, want: 0x80000000},
		{op: bc.OpI64ExtendI32U, args: []uint64{0xffffffff}, want: 0xffffffff},

		{op: bc.OpF32DemoteF64, args: []uint64{f64v(1)}, want: f32v(1)},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(0.1)}, want: f32x(0x3dcccccd)},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(1e300)}, want: inf32},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(-1e300)}, want: negInf32},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(0x1p-150)}, want: 0},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(0x1.0000000000001p-150)}, want: f32x(1)},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(0x1.fffffefffffffp127)}, want: f32x(0x7f7fffff)},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(0x1.ffffffp127)}, want: inf32},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(0x1.000001p0)}, want: f32v(1)},
		{op: bc.OpF32DemoteF64, args: []uint64{f64v(0x1.000003p0)}, want: f32x(0x3f800002)},
		{op: bc.OpF32DemoteF64, args: []uint64{negZero64}, want: negZero32},
		{op: bc.OpF32DemoteF64, args: []uint64{nan64}, want: nan32},
		{op: bc.OpF64PromoteF32, args: []uint64{f32x(0x3dcccccd)}, want: f64v(0.10000000149011612)},
		{op: bc.OpF64PromoteF32, args: []uint64{negZero32}, want: negZero64},
		{op: bc.OpF64PromoteF32, args: []uint64{f32x(1)}, want: f64v(0x1p-149)},
		{op: bc.OpF64PromoteF32, args: []uint64{inf32}, want: f64v(math.Inf(1))},
		{op: bc.OpF64PromoteF32, args: []uint64{nan32}, want: nan64},

		{op: bc.OpF32ConvertI32S, args: []uint64{1}, want: f32v(1)},
		{op: bc.OpF32ConvertI32S, args: []uint64{0xffffffff}, want: f32v(-1)},
		{op: bc.OpF32ConvertI32S, args: []uint64{0x7fffffff}, want: f32x(0x4f000000)},
		{op: bc.OpF32ConvertI32S, args: []uint64{0x80000000}, want: f32x(0xcf000000)},
		{op: bc.OpF32ConvertI32S, args: []uint64{16777217}, want: f32v(16777216)},
		{op: bc.OpF32ConvertI32S, args: []uint64{16777219}, want: f32v(16777220)},
		{op: bc.OpF32ConvertI32U, args: []uint64{0xffffffff}, want: f32x(0x4f800000)},
		{op: bc.OpF32ConvertI32U, args: []uint64{0x80000000}, want: f32x(0x4f000000)},
		{op: bc.OpF32ConvertI32U, args: []uint64{0x80000080}, want: f32x(0x4f000000)},
		{op: bc.OpF32ConvertI32U, args: []uint64{0x80000081}, want: f32x(0x4f000001)},
		{op: bc.OpF32ConvertI32U, args: []uint64{0x80000180}, want: f32x(0x4f000002)},
		{op: bc.OpF32ConvertI32U, args: []uint64{16777217}, want: f32v(16777216)},
		{op: bc.OpF32ConvertI64S, args: []uint64{9007199791611905}, want: f32v(9007200328482816)},
		{op: bc.OpF32ConvertI64S, args: []uint64{math.MaxUint64}, want: f32v(-1)},
		{op: bc.OpF32ConvertI64S, args: []uint64{maxI64}, want: f32x(0x5f000000)},
		{op: bc.OpF32ConvertI64S, args: []uint64{minI64}, want: f32x(0xdf000000)},
		{op: bc.OpF32ConvertI64S, args: []uint64{0x7fffff4000000001}, want: f32x(0x5effffff)},
		{op: bc.OpF32ConvertI64U, args: []uint64{math.MaxUint64}, want: f32x(0x5f800000)},
		{op: bc.OpF32ConvertI64U, args: []uint64{0x8000008000000001}, want: f32v(9223373136366403584)},
		{op: bc.OpF32ConvertI64U, args: []uint64{0xfffffe8000000001}, want: f32x(0x5f7fffff)},
		{op: bc.OpF32ConvertI64U, args: []uint64{0x8000008000000000}, want: f32x(0x5f000000)},
		{op: bc.OpF32ConvertI64U, args: []uint64{9007199791611905}, want: f32v(9007200328482816)},
		{op: bc.OpF64ConvertI32S, args: []uint64{0x80000000}, want: f64v(-2147483648)},
		{op: bc.OpF64ConvertI32S, args: []uint64{0xffffffff}, want: f64v(-1)},
		{op: bc.OpF64ConvertI32U, args: []uint64{0x80000000}, want: f64v(2147483648)},
		{op: bc.OpF64ConvertI32U, args: []uint64{0xffffffff}, want: f64v(4294967295)},

		{op: bc.OpI32TruncF32S, args: []uint64{f32v(2147483648)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF32S, args: []uint64{f32v(-2147483648)}, want: 0x80000000},
		{op: bc.OpI32TruncF32S, args: []uint64{f32x(0xcf000001)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF32S, args: []uint64{f32x(0x4effffff)}, want: 0x7fffff80},
		{op: bc.OpI32TruncF32S, args: []uint64{f32v(-0.9)}, want: 0},
		{op: bc.OpI32TruncF32S, args: []uint64{f32v(1.9)}, want: 1},
		{op: bc.OpI32TruncF32S, args: []uint64{f32v(-1.9)}, want: 0xffffffff},
		{op: bc.OpI32TruncF32S, args: []uint64{negZero32}, want: 0},
		{op: bc.OpI32TruncF32S, args: []uint64{inf32}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF32S, args: []uint64{negInf32}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF32S, args: []uint64{nan32}, trap: bc.TrapInvalidConversion},
		{op: bc.OpI32TruncF32S, args: []uint64{negNaN32}, trap: bc.TrapInvalidConversion},
		{op: bc.OpI32TruncF32U, args: []uint64{f32v(4294967296)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF32U, args: []uint64{f32x(0x4f7fffff)}, want: 0xffffff00},
		{op: bc.OpI32TruncF32U, args: []uint64{f32v(2147483648)}, want: 0x80000000},
		{op: bc.OpI32TruncF32U, args: []uint64{f32v(-0.9)}, want: 0},
		{op: bc.OpI32TruncF32U, args: []uint64{f32v(-1)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF32U, args: []uint64{nan32}, trap: bc.TrapInvalidConversion},
		{op: bc.OpI32TruncF64S, args: []uint64{f64v(2147483647.9)}, want: 0x7fffffff},
		{op: bc.OpI32TruncF64S, args: []uint64{f64v(2147483648)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF64S, args: []uint64{f64v(-2147483648.9)}, want: 0x80000000},
		{op: bc.OpI32TruncF64S, args: []uint64{f64v(-2147483649)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF64S, args: []uint64{f64v(-1.5)}, want: 0xffffffff},
		{op: bc.OpI32TruncF64S, args: []uint64{f64v(math.Inf(-1))}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF64S, args: []uint64{nan64}, trap: bc.TrapInvalidConversion},
		{op: bc.OpI32TruncF64U, args: []uint64{f64v(4294967295.9)}, want: 0xffffffff},
		{op: bc.OpI32TruncF64U, args: []uint64{f64v(4294967296)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF64U, args: []uint64{f64v(-0.9)}, want: 0},
		{op: bc.OpI32TruncF64U, args: []uint64{f64v(-1)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF64U, args: []uint64{f64v(1e10)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI32TruncF64U, args: []uint64{nan64}, trap: bc.TrapInvalidConversion},
		{op: bc.OpI64TruncF32S, args: []uint64{f32x(0x5effffff)}, want: 9223371487098961920},
		{op: bc.OpI64TruncF32S, args: []uint64{f32x(0x5f000000)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI64TruncF32S, args: []uint64{f32x(0xdf000000)}, want: minI64},
		{op: bc.OpI64TruncF32S, args: []uint64{f32x(0xdf000001)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI64TruncF32S, args: []uint64{f32v(-1.5)}, want: math.MaxUint64},
		{op: bc.OpI64TruncF32S, args: []uint64{nan32}, trap: bc.TrapInvalidConversion},
		{op: bc.OpI64TruncF32U, args: []uint64{f32x(0x5f7fffff)}, want: 18446742974197923840},
		{op: bc.OpI64TruncF32U, args: []uint64{f32x(0x5f800000)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI64TruncF32U, args: []uint64{f32v(-0.9)}, want: 0},
		{op: bc.OpI64TruncF32U, args: []uint64{f32v(-1)}, trap: bc.TrapIntegerOverflow},
		{op: bc.OpI64TruncF32U, args: []uint64{negNaN32}, trap: bc.TrapInvalidConversion},

		{op: bc.OpI32TruncSatF32S, args: []uint64{nan32}, want: 0},
		{op: bc.OpI32TruncSatF32S, args: []uint64{f32v(2147483648)}, want: 0x7fffffff},
		{op: bc.OpI32TruncSatF32S, args: []uint64{f32v(-2147483648)}, want: 0x80000000},
		{op: bc.OpI32TruncSatF32S, args: []uint64{f32x(0x4effffff)}, want: 0x7fffff80},
		{op: bc.OpI32TruncSatF32S, args: []uint64{inf32}, want: 0x7fffffff},
		{op: bc.OpI32TruncSatF32S, args: []uint64{negInf32}, want: 0x80000000},
		{op: bc.OpI32TruncSatF32S, args: []uint64{f32v(-3e9)}, want: 0x80000000},
		{op: bc.OpI32TruncSatF32S, args: []uint64{f32v(1.5)}, want: 1},
		{op: bc.OpI32TruncSatF32S, args: []uint64{f32v(-1.5)}, want: 0xffffffff},
		{op: bc.OpI32TruncSatF32U, args: []uint64{nan32}, want: 0},
		{op: bc.OpI32TruncSatF32U, args: []uint64{f32v(-1)}, want: 0},
		{op: bc.OpI32TruncSatF32U, args: []uint64{f32v(-0.9)}, want: 0},
		{op: bc.OpI32TruncSatF32U, args: []uint64{f32v(4294967296)}, want: 0xffffffff},
		{op: bc.OpI32TruncSatF32U, args: []uint64{f32x(0x4f7fffff)}, want: 0xffffff00},
		{op: bc.OpI32TruncSatF32U, args: []uint64{inf32}, want: 0xffffffff},
		{op: bc.OpI32TruncSatF32U, args: []uint64{f32v(1.9)}, want: 1},
		{op: bc.OpI32TruncSatF64S, args: []uint64{f64v(2147483647.9)}, want: 0x7fffffff},
		{op: bc.OpI32TruncSatF64S, args: []uint64{f64v(2147483648)}, want: 0x7fffffff},
		{op: bc.OpI32TruncSatF64S, args: []uint64{f64v(-2147483648.9)}, want: 0x80000000},
		{op: bc.OpI32TruncSatF64S, args: []uint64{f64v(-2147483649)}, want: 0x80000000},
		{op: bc.OpI32TruncSatF64S, args: []uint64{f64v(-1.9)}, want: 0xffffffff},
		{op: bc.OpI32TruncSatF64S, args: []uint64{nan64}, want: 0},
		{op: bc.OpI32TruncSatF64S, args: []uint64{f64v(math.Inf(-1))}, want: 0x80000000},
		{op: bc.OpI32TruncSatF64U, args: []uint64{f64v(4294967295.9)}, want: 0xffffffff},
		{op: bc.OpI32TruncSatF64U, args: []uint64{f64v(1e10)}, want: 0xffffffff},
		{op: bc.OpI32TruncSatF64U, args: []uint64{f64v(-0.9)}, want: 0},
		{op: bc.OpI32TruncSatF64U, args: []uint64{f64v(-5)}, want: 0},
		{op: bc.OpI32TruncSatF64U, args: []uint64{f64v(2147483648.5)}, want: 0x80000000},
		{op: bc.OpI32TruncSatF64U, args: []uint64{nan64}, want: 0},
		{op: bc.OpI64TruncSatF32S, args: []uint64{f32x(0x5f000000)}, want: maxI64},
		{op: bc.OpI64TruncSatF32S, args: []uint64{f32x(0xdf000000)}, want: minI64},
		{op: bc.OpI64TruncSatF32S, args: []uint64{f32x(0x5effffff)}, want: 9223371487098961920},
		{op: bc.OpI64TruncSatF32S, args: []uint64{negInf32}, want: minI64},
		{op: bc.OpI64TruncSatF32S, args: []uint64{f32v(-1.5)}, want: math.MaxUint64},
		{op: bc.OpI64TruncSatF32S, args: []uint64{nan32}, want: 0},
		{op: bc.OpI64TruncSatF32U, args: []uint64{f32x(0x5f800000)}, want: math.MaxUint64},
		{op: bc.OpI64TruncSatF32U, args: []uint64{f32x(0x5f7fffff)}, want: 18446742974197923840},
		{op: bc.OpI64TruncSatF32U, args: []uint64{f32v(-1)}, want: 0},
		{op: bc.OpI64TruncSatF32U, args: []uint64{nan32}, want: 0},

		{op: bc.OpI32ReinterpretF32, args: []uint64{negZero32}, want: 0x80000000},
		{op: bc.OpI32ReinterpretF32, args: []uint64{f32x(0x7fc00001)}, want: 0x7fc00001},
		{op: bc.OpF32ReinterpretI32, args: []uint64{0xffffffff}, want: 0xffffffff},
		{op: bc.OpF32ReinterpretI32, args: []uint64{0x7fa00000}, want: 0x7fa00000},
	} {
		checkOp(t, c)
	}
}

// The existing i64 and f64 compares may write an i32 destination.
func TestCompareIntoI32(t *testing.T) {
	for _, c := range []opCase{
		{op: bc.OpI64LtS, args: []uint64{math.MaxUint64, 0}, want: 1},
		{op: bc.OpI64LtU, args: []uint64{math.MaxUint64, 0}, want: 0},
		{op: bc.OpI64Eq, args: []uint64{1 << 32, 0}, want: 0},
		{op: bc.OpI64Ne, args: []uint64{1 << 32, 0}, want: 1},
		{op: bc.OpF64Lt, args: []uint64{f64v(-1), f64v(1)}, want: 1},
		{op: bc.OpF64Eq, args: []uint64{nan64, nan64}, want: 0},
		{op: bc.OpF64Ne, args: []uint64{nan64, nan64}, want: 1},
	} {
		checkOp(t, c)
	}
}

func TestConstants32(t *testing.T) {
	for _, c := range []struct {
		op   bc.Op
		dst  bc.Type
		imm  int64
		want uint64
	}{
		{bc.OpI32Const, bc.I32, -1, 0xffffffff},
		{bc.OpI32Const, bc.I32, math.MinInt32, 0x80000000},
		{bc.OpI32Const, bc.I32, math.MaxInt32, 0x7fffffff},
		{bc.OpF32Const, bc.F32, 0xffc00000, 0xffc00000},
		{bc.OpF32Const, bc.F32, 0x80000000, 0x80000000},
		{bc.OpF32Const, bc.F32, int64(math.Float32bits(1.5)), f32v(1.5)},
	} {
		got, _, err := runOp(t, opModule(t, c.op, c.dst, nil, false, c.imm, nil), nil)
		if err != nil || got != c.want {
			t.Errorf("%s %d = %#x, %v; want %#x", c.op, c.imm, got, err, c.want)
		}
	}
}

// memModule's data: bytes 0x81..0x90 at 0, 0x01..0x08 at 16, and
// 0xf1..0xf8 in the last 8 bytes of its one page.
func memData(b *bc.ModuleBuilder) {
	b.Memory(1, 2)
	b.Data(0, []byte{0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x90})
	b.Data(16, []byte{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08})
	b.Data(bc.PageSize-8, []byte{0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8})
}

func TestLoads32(t *testing.T) {
	const end = bc.PageSize
	for _, c := range []struct {
		op   bc.Op
		addr uint64
		off  int32
		want uint64
		trap bc.TrapKind
	}{
		{op: bc.OpI32Load8S, addr: 0, want: 0xffffff81},
		{op: bc.OpI32Load8S, addr: 16, want: 0x01},
		{op: bc.OpI32Load8U, addr: 0, want: 0x81},
		{op: bc.OpI32Load16S, addr: 0, want: 0xffff8281},
		{op: bc.OpI32Load16S, addr: 16, want: 0x0201},
		{op: bc.OpI32Load16U, addr: 0, want: 0x8281},
		{op: bc.OpI32Load, addr: 0, want: 0x84838281},
		{op: bc.OpI32Load, addr: 16, want: 0x04030201},
		{op: bc.OpI32Load, addr: 1, off: 2, want: 0x87868584},
		{op: bc.OpI32Load, addr: 20, off: -4, want: 0x04030201},
		{op: bc.OpF32Load, addr: 0, want: 0x84838281},
		{op: bc.OpF32Load, addr: 15, want: 0x03020190},

		// The end of memory.
		{op: bc.OpI32Load8S, addr: end - 1, want: 0xfffffff8},
		{op: bc.OpI32Load8U, addr: end - 1, want: 0xf8},
		{op: bc.OpI32Load8U, addr: end, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load8S, addr: end - 1, off: 1, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load16S, addr: end - 2, want: 0xfffff8f7},
		{op: bc.OpI32Load16U, addr: end - 2, want: 0xf8f7},
		{op: bc.OpI32Load16S, addr: end - 1, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load16U, addr: end - 1, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load, addr: end - 4, want: 0xf8f7f6f5},
		{op: bc.OpF32Load, addr: end - 4, want: 0xf8f7f6f5},
		{op: bc.OpI32Load, addr: end - 3, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load, addr: end - 2, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load, addr: end - 1, trap: bc.TrapOutOfBounds},
		{op: bc.OpF32Load, addr: end - 3, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load, addr: end - 8, off: 5, trap: bc.TrapOutOfBounds},
		// An i32 address is unsigned: 0xffffffff + 1 is 2^32, not 0.
		{op: bc.OpI32Load8U, addr: 0xffffffff, off: 1, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load, addr: 0xffffffff, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Load, addr: 0x80000000, trap: bc.TrapOutOfBounds},
	} {
		for _, addrType := range []bc.Type{bc.I32, bc.I64} {
			for _, dirty := range []uint64{0, dirt} {
				if addrType == bc.I64 && dirty != 0 {
					continue
				}
				info := c.op.Info()
				m := opModule(t, c.op, info.Dst, []bc.Type{addrType}, false, int64(c.off), memData)
				got, _, err := runOp(t, m, []uint64{c.addr | dirty})
				name := fmt.Sprintf("%s [%s %#x%+d]", c.op, addrType, c.addr|dirty, c.off)
				checkResult(t, name, info.Dst, got, err, c.want, c.trap)
			}
		}
	}
}

func TestStores32(t *testing.T) {
	const end = bc.PageSize
	for _, c := range []struct {
		op    bc.Op
		addr  uint64
		off   int32
		val   uint64
		at    int
		bytes []byte
		trap  bc.TrapKind
	}{
		{op: bc.OpI32Store8, addr: 0, val: 0x1234, at: 0, bytes: []byte{0x34, 0x82}},
		{op: bc.OpI32Store16, addr: 0, val: 0x12345678, at: 0, bytes: []byte{0x78, 0x56, 0x83}},
		{op: bc.OpI32Store, addr: 1, val: 0xdeadbeef, at: 0, bytes: []byte{0x81, 0xef, 0xbe, 0xad, 0xde, 0x86}},
		{op: bc.OpF32Store, addr: 0, off: 4, val: 0x3f800000, at: 4, bytes: []byte{0x00, 0x00, 0x80, 0x3f, 0x89}},
		{op: bc.OpI32Store8, addr: end - 1, val: 0xab, at: end - 2, bytes: []byte{0xf7, 0xab}},
		{op: bc.OpI32Store16, addr: end - 2, val: 0xabcd, at: end - 3, bytes: []byte{0xf6, 0xcd, 0xab}},
		{op: bc.OpI32Store, addr: end - 4, val: 0x01020304, at: end - 5, bytes: []byte{0xf4, 0x04, 0x03, 0x02, 0x01}},
		{op: bc.OpF32Store, addr: end - 4, val: 0xffc00000, at: end - 4, bytes: []byte{0x00, 0x00, 0xc0, 0xff}},
		{op: bc.OpI32Store8, addr: end, val: 1, at: end - 1, bytes: []byte{0xf8}, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Store16, addr: end - 1, val: 1, at: end - 2, bytes: []byte{0xf7, 0xf8}, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Store, addr: end - 3, val: 1, at: end - 4, bytes: []byte{0xf5, 0xf6, 0xf7, 0xf8}, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Store, addr: end - 2, val: 1, at: end - 4, bytes: []byte{0xf5, 0xf6, 0xf7, 0xf8}, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Store, addr: end - 1, val: 1, at: end - 4, bytes: []byte{0xf5, 0xf6, 0xf7, 0xf8}, trap: bc.TrapOutOfBounds},
		{op: bc.OpF32Store, addr: end - 4, off: 1, val: 1, at: end - 4, bytes: []byte{0xf5, 0xf6, 0xf7, 0xf8}, trap: bc.TrapOutOfBounds},
		{op: bc.OpI32Store, addr: 0xffffffff, off: 1, val: 1, at: 0, bytes: []byte{0x81}, trap: bc.TrapOutOfBounds},
	} {
		for _, dirty := range []uint64{0, dirt} {
			info := c.op.Info()
			m := opModule(t, c.op, 0, []bc.Type{bc.I32, info.B}, false, int64(c.off), memData)
			_, mach, err := runOp(t, m, []uint64{c.addr | dirty, c.val | dirty})
			name := fmt.Sprintf("%s [%#x%+d], %#x", c.op, c.addr|dirty, c.off, c.val|dirty)
			checkResult(t, name, 0, 0, err, 0, c.trap)
			if got := mach.Memory.Bytes[c.at : c.at+len(c.bytes)]; string(got) != string(c.bytes) {
				t.Errorf("%s: memory at %d = % x, want % x", name, c.at, got, c.bytes)
			}
		}
	}
}

func TestMemoryGrowAndSize32(t *testing.T) {
	m := assemble(t, func(b *bc.ModuleBuilder) {
		b.Memory(1, 2)
		f := b.Func("grow32", []bc.Type{bc.I32}, []bc.Type{bc.I32, bc.I32})
		old, size := f.NewReg(bc.I32), f.NewReg(bc.I32)
		f.MemoryGrow(old, 0)
		f.MemorySize(size)
		f.Return(old, size)
		b.Export("grow32", f)
		g := b.Func("grow64", []bc.Type{bc.I32}, []bc.Type{bc.I64})
		old64 := g.NewReg(bc.I64)
		g.MemoryGrow(old64, 0)
		g.Return(old64)
		b.Export("grow64", g)
	})
	mach := newMachine(t, m, Config{})
	ctx := context.Background()
	for _, c := range []struct {
		fn    string
		delta uint64
		want  []uint64
	}{
		{"grow32", 0, []uint64{1, 1}},
		// 0xffffffff pages is a huge unsigned delta: growing fails.
		{"grow32", 0xffffffff, []uint64{0xffffffff, 1}},
		{"grow64", 0xffffffff, []uint64{math.MaxUint64}},
		{"grow32", 2, []uint64{0xffffffff, 1}},
		{"grow32", 1 | dirt, []uint64{1, 2}},
		{"grow32", 1, []uint64{0xffffffff, 2}},
		{"grow64", 1, []uint64{math.MaxUint64}},
		{"grow64", 0, []uint64{2}},
	} {
		got, err := call(t, mach, ctx, c.fn, c.delta)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s(%#x) = %#x, %v; want %#x", c.fn, c.delta, got, err, c.want)
		}
	}
}

// An i32 condition, select operand and switch index are read as their
// unsigned 32-bit values.
func TestControlWithI32Operands(t *testing.T) {
	m := assemble(t, func(b *bc.ModuleBuilder) {
		f := b.Func("brif", []bc.Type{bc.I32}, []bc.Type{bc.I32})
		r := f.NewReg(bc.I32)
		l := f.NewLabel()
		f.BrIf(0, l)
		f.Return(r)
		f.Bind(l)
		f.Emit(bc.Instr{Op: bc.OpI32Const, Dst: r, Imm: 1})
		f.Return(r)
		b.Export("brif", f)

		s := b.Func("sel", []bc.Type{bc.I32, bc.F32, bc.F32}, []bc.Type{bc.F32})
		d := s.NewReg(bc.F32)
		s.Select(d, 0, 1, 2)
		s.Return(d)
		b.Export("sel", s)

		w := b.Func("sw", []bc.Type{bc.I32}, []bc.Type{bc.I64})
		v := w.NewReg(bc.I64)
		c0, c1, def := w.NewLabel(), w.NewLabel(), w.NewLabel()
		w.Switch(0, []bc.Label{c0, c1}, def)
		w.Bind(c0)
		w.I64Const(v, 10)
		w.Return(v)
		w.Bind(c1)
		w.I64Const(v, 11)
		w.Return(v)
		w.Bind(def)
		w.I64Const(v, 99)
		w.Return(v)
		b.Export("sw", w)
	})
	mach := newMachine(t, m, Config{})
	ctx := context.Background()
	for _, c := range []struct {
		fn   string
		args []uint64
		want uint64
	}{
		{"brif", []uint64{0}, 0},
		{"brif", []uint64{dirt}, 0},
		{"brif", []uint64{0x80000000}, 1},
		{"brif", []uint64{1}, 1},
		{"sel", []uint64{0, f32v(1), f32v(2)}, f32v(2)},
		{"sel", []uint64{dirt, f32v(1), f32v(2)}, f32v(2)},
		{"sel", []uint64{0xffffffff, f32v(1) | dirt, f32v(2)}, f32v(1)},
		{"sw", []uint64{0}, 10},
		{"sw", []uint64{1 | dirt}, 11},
		{"sw", []uint64{2}, 99},
		{"sw", []uint64{0xffffffff}, 99},
		{"sw", []uint64{0x80000000}, 99},
	} {
		got, err := call(t, mach, ctx, c.fn, c.args...)
		if err != nil || got[0] != c.want {
			t.Errorf("%s(%#x) = %#x, %v; want %#x", c.fn, c.args, got, err, c.want)
		}
	}
}

// Host functions see zero-extended 32-bit arguments, and the upper halves
// of their 32-bit results are ignored.
func TestHost32(t *testing.T) {
	m := assemble(t, func(b *bc.ModuleBuilder) {
		h := b.Host("h", []bc.Type{bc.I32, bc.F32}, []bc.Type{bc.I32, bc.I64, bc.F32})
		f := b.Func("f", []bc.Type{bc.I32, bc.F32}, []bc.Type{bc.I32, bc.I64, bc.F32, bc.I32})
		ri, r64, rf, eq := f.NewReg(bc.I32), f.NewReg(bc.I64), f.NewReg(bc.F32), f.NewReg(bc.I32)
		f.CallHost(h, []bc.Reg{0, 1}, []bc.Reg{ri, r64, rf})
		f.BinaryImm(bc.OpI32Eq, eq, ri, -1)
		f.Return(ri, r64, rf, eq)
		b.Export("f", f)
	})
	var seen []uint64
	host := func(_ context.Context, args, results []uint64) error {
		seen = append(seen[:0], args...)
		results[0] = math.MaxUint64
		results[1] = math.MaxUint64
		results[2] = 0xffffffff_3f800000
		return nil
	}
	mach := newMachine(t, m, Config{}, host)
	got, err := call(t, mach, context.Background(), "f", 0xffffffff|dirt, f32v(2)|dirt)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{0xffffffff, f32v(2)}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("host arguments %#x, want %#x", seen, want)
	}
	if want := []uint64{0xffffffff, math.MaxUint64, f32v(1), 1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("f() = %#x, want %#x", got, want)
	}
}

// i32LoopModule: f(n) returns the sum of i for i in [0, n), wrapping mod
// 2^32, and the number of partial sums that are negative as int32.
func i32LoopModule(t testing.TB) *bc.Module {
	return assemble(t, func(b *bc.ModuleBuilder) {
		f := b.Func("f", []bc.Type{bc.I32}, []bc.Type{bc.I32, bc.I32})
		i, sum, neg := f.NewReg(bc.I32), f.NewReg(bc.I32), f.NewReg(bc.I32)
		loop, skip, done := f.NewLabel(), f.NewLabel(), f.NewLabel()
		f.Bind(loop)
		f.BrCmp(bc.OpBrI32GeU, i, 0, done)
		f.Binary(bc.OpI32Add, sum, sum, i)
		f.BrCmpImm(bc.OpBrI32GeS, sum, 0, skip)
		f.BinaryImm(bc.OpI32Add, neg, neg, 1)
		f.Bind(skip)
		f.BinaryImm(bc.OpI32Sub, i, i, -1)
		f.Jump(loop)
		f.Bind(done)
		f.Return(sum, neg)
		b.Export("f", f)
	})
}

func TestI32Loop(t *testing.T) {
	mach := newMachine(t, i32LoopModule(t), Config{})
	for _, n := range []uint32{0, 1, 10, 100000} {
		var sum, neg uint32
		for i := uint32(0); i < n; i++ {
			sum += i
			if int32(sum) < 0 {
				neg++
			}
		}
		got, err := call(t, mach, context.Background(), "f", uint64(n))
		if err != nil || got[0] != uint64(sum) || got[1] != uint64(neg) {
			t.Errorf("f(%d) = %#x, %v; want [%#x %#x]", n, got, err, sum, neg)
		}
	}
}

// BenchmarkI32Loop runs i32LoopModule's loop (five instructions per
// iteration, i32 adds and compare-branches) a million times.
func BenchmarkI32Loop(b *testing.B) {
	mach := newMachine(b, i32LoopModule(b), Config{})
	ctx := context.Background()
	res := make([]uint64, 2)
	fn := mach.Program().Module.ExportedFunc("f")
	for b.Loop() {
		if err := mach.Call(ctx, fn, []uint64{1e6}, res); err != nil {
			b.Fatal(err)
		}
	}
}

// Every opcode has an interpreter form, and every opcode that takes an
// immediate has an immediate form.
func TestEveryOpDecodes(t *testing.T) {
	for op := bc.Op(1); int(op) < bc.NumOps; op++ {
		if _, ok := opFor(op, false); !ok {
			t.Errorf("%s has no interpreter form", op)
		}
		if _, ok := opFor(op, true); ok != op.Info().Imm {
			t.Errorf("%s: immediate form present = %v, op table says %v", op, ok, op.Info().Imm)
		}
	}
}

// The exported conversion helpers agree with the interpreter's rules.
func TestTruncHelpers(t *testing.T) {
	for _, c := range []struct {
		x    float64
		s32  int64 // -1 << 40 for a trap
		u32  int64
		ss32 int32
		su32 uint32
	}{
		{x: 0, s32: 0, u32: 0, ss32: 0, su32: 0},
		{x: -0.9, s32: 0, u32: 0, ss32: 0, su32: 0},
		{x: -1, s32: -1, u32: -1 << 40, ss32: -1, su32: 0},
		{x: 2147483647.9, s32: 2147483647, u32: 2147483647, ss32: math.MaxInt32, su32: 2147483647},
		{x: 2147483648, s32: -1 << 40, u32: 2147483648, ss32: math.MaxInt32, su32: 2147483648},
		{x: -2147483648.9, s32: math.MinInt32, u32: -1 << 40, ss32: math.MinInt32, su32: 0},
		{x: -2147483649, s32: -1 << 40, u32: -1 << 40, ss32: math.MinInt32, su32: 0},
		{x: 4294967295.9, s32: -1 << 40, u32: 4294967295, ss32: math.MaxInt32, su32: math.MaxUint32},
		{x: 4294967296, s32: -1 << 40, u32: -1 << 40, ss32: math.MaxInt32, su32: math.MaxUint32},
		{x: math.Inf(1), s32: -1 << 40, u32: -1 << 40, ss32: math.MaxInt32, su32: math.MaxUint32},
		{x: math.Inf(-1), s32: -1 << 40, u32: -1 << 40, ss32: math.MinInt32, su32: 0},
	} {
		v, k := TruncS32(c.x)
		if c.s32 == -1<<40 && k != bc.TrapIntegerOverflow || c.s32 != -1<<40 && (k != bc.TrapNone || int64(v) != c.s32) {
			t.Errorf("TruncS32(%v) = %d, %v", c.x, v, k)
		}
		u, k := TruncU32(c.x)
		if c.u32 == -1<<40 && k != bc.TrapIntegerOverflow || c.u32 != -1<<40 && (k != bc.TrapNone || int64(u) != c.u32) {
			t.Errorf("TruncU32(%v) = %d, %v", c.x, u, k)
		}
		if got := TruncSatS32(c.x); got != c.ss32 {
			t.Errorf("TruncSatS32(%v) = %d, want %d", c.x, got, c.ss32)
		}
		if got := TruncSatU32(c.x); got != c.su32 {
			t.Errorf("TruncSatU32(%v) = %d, want %d", c.x, got, c.su32)
		}
	}
	nan := math.NaN()
	if _, k := TruncS32(nan); k != bc.TrapInvalidConversion {
		t.Errorf("TruncS32(NaN) trap %v", k)
	}
	if _, k := TruncU32(nan); k != bc.TrapInvalidConversion {
		t.Errorf("TruncU32(NaN) trap %v", k)
	}
	if _, k := TruncS(nan); k != bc.TrapInvalidConversion {
		t.Errorf("TruncS(NaN) trap %v", k)
	}
	if _, k := TruncU(nan); k != bc.TrapInvalidConversion {
		t.Errorf("TruncU(NaN) trap %v", k)
	}
	if TruncSatS32(nan) != 0 || TruncSatU32(nan) != 0 || TruncSatS(nan) != 0 || TruncSatU(nan) != 0 {
		t.Error("a saturating conversion of NaN is not 0")
	}
	for _, c := range []struct {
		x    float64
		s    int64
		trap bool
	}{
		{-9223372036854775808.0, math.MinInt64, false},
		{-9223372036854777856.0, 0, true},
		{9223372036854774784.0, 9223372036854774784, false},
		{9223372036854775808.0, 0, true},
		{-0.5, 0, false},
	} {
		v, k := TruncS(c.x)
		if c.trap && k != bc.TrapIntegerOverflow || !c.trap && (k != bc.TrapNone || v != c.s) {
			t.Errorf("TruncS(%v) = %d, %v", c.x, v, k)
		}
	}
	if v, k := TruncU(-0.99); v != 0 || k != bc.TrapNone {
		t.Errorf("TruncU(-0.99) = %d, %v", v, k)
	}
	if _, k := TruncU(-1); k != bc.TrapIntegerOverflow {
		t.Errorf("TruncU(-1) trap %v", k)
	}
	if v, k := TruncU(18446744073709549568.0); v != 18446744073709549568 || k != bc.TrapNone {
		t.Errorf("TruncU(2^64-2048) = %d, %v", v, k)
	}
	if _, k := TruncU(18446744073709551616.0); k != bc.TrapIntegerOverflow {
		t.Errorf("TruncU(2^64) trap %v", k)
	}
	if got := TruncSatS(-9223372036854777856.0); got != math.MinInt64 {
		t.Errorf("TruncSatS(-2^63-2048) = %d", got)
	}
	if got := TruncSatS(9223372036854775808.0); got != math.MaxInt64 {
		t.Errorf("TruncSatS(2^63) = %d", got)
	}
}
