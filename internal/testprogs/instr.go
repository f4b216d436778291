package testprogs

import (
	"fmt"
	"math"

	bc "github.com/kiln-jit/kiln/bytecode"
)

// Memory layout of the single-instruction cases: one page whose first 16
// bytes are 0x81, 0x82, ..., 0x90 and whose last 8 bytes are 0xf1..0xf8.
var (
	memHead = []byte{0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x90}
	memTail = []byte{0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8}
)

const pageEnd = bc.PageSize

var (
	nan     = math.NaN()
	inf     = math.Inf(1)
	negZero = math.Copysign(0, -1)
)

// instrModule builds a module with one exported function "f" that runs a
// single instruction of op on its parameters and returns the result.
// Operand types come from the op table; AnyType becomes i64 unless anyF64,
// IntType i64.
func instrModule(op bc.Op, useImm bool, imm int64, anyF64 bool) *bc.Module {
	anyType := bc.I64
	if anyF64 {
		anyType = bc.F64
	}
	return instrModuleAs(op, useImm, imm, anyType, bc.I64)
}

// instrModuleAs is instrModule with AnyType operands of type anyType and
// IntType operands of type intType.
func instrModuleAs(op bc.Op, useImm bool, imm int64, anyType, intType bc.Type) *bc.Module {
	info := op.Info()
	resolve := func(t bc.Type) bc.Type {
		switch t {
		case bc.IntType:
			return intType
		case bc.AnyType:
			return anyType
		}
		return t
	}
	var params []bc.Type
	var in bc.Instr
	in.Op = op
	reg := func(t bc.Type) bc.Reg {
		params = append(params, resolve(t))
		return bc.Reg(len(params) - 1)
	}
	switch info.Format {
	case bc.FormatConst:
		in.Imm = imm
	case bc.FormatUnary:
		in.A = reg(info.A)
	case bc.FormatBinary:
		in.A = reg(info.A)
		if useImm {
			in.UseImm, in.Imm = true, imm
		} else {
			in.B = reg(info.B)
		}
	case bc.FormatSelect, bc.FormatMemoryBulk:
		in.A, in.B, in.C = reg(info.A), reg(info.B), reg(info.C)
	case bc.FormatLoad:
		in.A, in.Imm = reg(info.A), imm
	case bc.FormatStore:
		in.A, in.B, in.Imm = reg(info.A), reg(info.B), imm
	}
	b := bc.NewModuleBuilder().Memory(1, 2).Data(0, memHead).Data(pageEnd-8, memTail)
	var results []bc.Type
	if info.Dst != 0 {
		results = []bc.Type{resolve(info.Dst)}
	}
	fb := b.Func("f", params, results)
	if info.Dst != 0 {
		in.Dst = fb.NewReg(resolve(info.Dst))
		fb.Emit(in)
		fb.Return(in.Dst)
	} else {
		fb.Emit(in)
		fb.Return()
	}
	b.Export("f", fb)
	m, err := b.Build()
	if err != nil {
		panic(fmt.Sprintf("testprogs: case module for %s: %v", op, err))
	}
	return m
}

type caseList []Case

func (l *caseList) add(name string, op bc.Op, useImm bool, imm int64, anyF64 bool, args []uint64, want []uint64, trap bc.TrapKind) {
	*l = append(*l, Case{
		Name:   name,
		Module: instrModule(op, useImm, imm, anyF64),
		Func:   "f", Args: args, Want: want, Trap: trap,
	})
}

// bin adds a register case and, for ops that take immediates, the same case
// with b as an immediate.
func (l *caseList) bin(op bc.Op, a, b, want uint64) {
	l.add(fmt.Sprintf("%s(%#x,%#x)", op, a, b), op, false, 0, false, []uint64{a, b}, []uint64{want}, bc.TrapNone)
	if op.Info().Imm {
		l.add(fmt.Sprintf("%s(%#x,imm %#x)", op, a, b), op, true, int64(b), false, []uint64{a}, []uint64{want}, bc.TrapNone)
	}
}

func (l *caseList) binTrap(op bc.Op, a, b uint64, trap bc.TrapKind) {
	l.add(fmt.Sprintf("%s(%#x,%#x) traps", op, a, b), op, false, 0, false, []uint64{a, b}, nil, trap)
	if op.Info().Imm {
		l.add(fmt.Sprintf("%s(%#x,imm %#x) traps", op, a, b), op, true, int64(b), false, []uint64{a}, nil, trap)
	}
}

func (l *caseList) un(op bc.Op, a, want uint64) {
	l.add(fmt.Sprintf("%s(%#x)", op, a), op, false, 0, false, []uint64{a}, []uint64{want}, bc.TrapNone)
}

func (l *caseList) fbin(op bc.Op, a, b, want float64) {
	l.add(fmt.Sprintf("%s(%v,%v)", op, a, b), op, false, 0, false, []uint64{F(a), F(b)}, []uint64{F(want)}, bc.TrapNone)
}

func (l *caseList) fcmp(op bc.Op, a, b float64, want int64) {
	l.add(fmt.Sprintf("%s(%v,%v)", op, a, b), op, false, 0, false, []uint64{F(a), F(b)}, []uint64{I(want)}, bc.TrapNone)
}

func (l *caseList) fun(op bc.Op, a, want float64) {
	l.add(fmt.Sprintf("%s(%v)", op, a), op, false, 0, false, []uint64{F(a)}, []uint64{F(want)}, bc.TrapNone)
}

// InstructionCases returns the single-instruction semantic cases: every
// opcode that computes a value, with its edge cases (overflow, division
// traps, shift counts of 64 and more, NaN, signed zeros, conversion bounds,
// unaligned and out-of-bounds memory access).
func InstructionCases() []Case {
	var l caseList
	const minI = math.MinInt64
	const maxI = math.MaxInt64
	u := func(v int64) uint64 { return uint64(v) }

	// Constants and moves.
	l.add("i64.const", bc.OpI64Const, false, -42, false, nil, []uint64{I(-42)}, bc.TrapNone)
	l.add("f64.const", bc.OpF64Const, false, int64(F(-2.5)), false, nil, []uint64{F(-2.5)}, bc.TrapNone)
	l.add("mov i64", bc.OpMov, false, 0, false, []uint64{I(7)}, []uint64{I(7)}, bc.TrapNone)
	l.add("mov f64", bc.OpMov, false, 0, true, []uint64{F(nan)}, []uint64{F(nan)}, bc.TrapNone)

	// Integer arithmetic.
	l.bin(bc.OpI64Add, 3, 4, 7)
	l.bin(bc.OpI64Add, u(maxI), 1, u(minI))
	l.bin(bc.OpI64Sub, 3, 4, u(-1))
	l.bin(bc.OpI64Sub, u(minI), 1, u(maxI))
	l.bin(bc.OpI64Mul, u(-3), 7, u(-21))
	l.bin(bc.OpI64Mul, u(maxI), 2, u(-2))
	l.bin(bc.OpI64Mul, 1<<32, 1<<32, 0)
	l.bin(bc.OpI64DivS, 7, u(-2), u(-3))
	l.bin(bc.OpI64DivS, u(-7), 2, u(-3))
	l.bin(bc.OpI64DivS, u(minI), 1, u(minI))
	l.binTrap(bc.OpI64DivS, 7, 0, bc.TrapDivideByZero)
	l.binTrap(bc.OpI64DivS, u(minI), u(-1), bc.TrapIntegerOverflow)
	l.bin(bc.OpI64DivU, u(-1), 2, u(maxI))
	l.bin(bc.OpI64DivU, 7, u(-2), 0)
	l.binTrap(bc.OpI64DivU, 7, 0, bc.TrapDivideByZero)
	l.bin(bc.OpI64RemS, 7, u(-2), 1)
	l.bin(bc.OpI64RemS, u(-7), 2, u(-1))
	l.bin(bc.OpI64RemS, u(minI), u(-1), 0)
	l.binTrap(bc.OpI64RemS, 7, 0, bc.TrapDivideByZero)
	l.bin(bc.OpI64RemU, u(-1), 10, 5)
	l.binTrap(bc.OpI64RemU, 7, 0, bc.TrapDivideByZero)
	l.bin(bc.OpI64And, 0b1100, 0b1010, 0b1000)
	l.bin(bc.OpI64Or, 0b1100, 0b1010, 0b1110)
	l.bin(bc.OpI64Xor, 0b1100, 0b1010, 0b0110)
	l.bin(bc.OpI64Shl, 1, 63, 1<<63)
	l.bin(bc.OpI64Shl, 1, 64, 1)
	l.bin(bc.OpI64Shl, 3, 65, 6)
	l.bin(bc.OpI64Shl, 1, u(-1), 1<<63)
	l.bin(bc.OpI64ShrS, u(-8), 1, u(-4))
	l.bin(bc.OpI64ShrS, u(minI), 63, u(-1))
	l.bin(bc.OpI64ShrS, u(-8), 64, u(-8))
	l.bin(bc.OpI64ShrU, u(-8), 1, u(-8)>>1)
	l.bin(bc.OpI64ShrU, u(-1), 127, 1)
	l.bin(bc.OpI64Rotl, 0x8000000000000001, 1, 3)
	l.bin(bc.OpI64Rotl, 0x1234, 64, 0x1234)
	l.bin(bc.OpI64Rotl, 1, 68, 16)
	l.bin(bc.OpI64Rotr, 3, 1, 0x8000000000000001)
	l.bin(bc.OpI64Rotr, 1, u(-1), 2)

	l.un(bc.OpI64Neg, 5, u(-5))
	l.un(bc.OpI64Neg, u(minI), u(minI))
	l.un(bc.OpI64Not, 0, u(-1))
	l.un(bc.OpI64Clz, 0, 64)
	l.un(bc.OpI64Clz, 1, 63)
	l.un(bc.OpI64Clz, u(-1), 0)
	l.un(bc.OpI64Ctz, 0, 64)
	l.un(bc.OpI64Ctz, 1<<40, 40)
	l.un(bc.OpI64Popcnt, u(-1), 64)
	l.un(bc.OpI64Popcnt, 0xf0f0, 8)
	l.un(bc.OpI64Extend8S, 0x1ff, u(-1))
	l.un(bc.OpI64Extend8S, 0x17f, 0x7f)
	l.un(bc.OpI64Extend16S, 0x18000, u(-32768))
	l.un(bc.OpI64Extend32S, 0x180000000, u(math.MinInt32))
	l.un(bc.OpI64Extend32S, 0x7fffffff, 0x7fffffff)
	l.un(bc.OpI64Extend32U, u(-1), 0xffffffff)

	// Comparisons.
	type cmp struct {
		op   bc.Op
		a, b uint64
		want uint64
	}
	for _, c := range []cmp{
		{bc.OpI64Eq, 5, 5, 1}, {bc.OpI64Eq, 5, 6, 0},
		{bc.OpI64Ne, 5, 5, 0}, {bc.OpI64Ne, 5, 6, 1},
		{bc.OpI64LtS, u(-1), 0, 1}, {bc.OpI64LtU, u(-1), 0, 0},
		{bc.OpI64LeS, 3, 3, 1}, {bc.OpI64LeU, 4, 3, 0},
		{bc.OpI64GtS, u(minI), u(maxI), 0}, {bc.OpI64GtU, u(minI), u(maxI), 1},
		{bc.OpI64GeS, u(-5), u(-5), 1}, {bc.OpI64GeU, 0, u(-1), 0},
	} {
		l.bin(c.op, c.a, c.b, c.want)
	}
	l.add("select true i64", bc.OpSelect, false, 0, false, []uint64{2, 10, 20}, []uint64{10}, bc.TrapNone)
	l.add("select false i64", bc.OpSelect, false, 0, false, []uint64{0, 10, 20}, []uint64{20}, bc.TrapNone)
	l.add("select f64", bc.OpSelect, false, 0, true, []uint64{1 << 63, F(1.5), F(2.5)}, []uint64{F(1.5)}, bc.TrapNone)

	// Floating point.
	tenth, fifth := 0.1, 0.2
	l.fbin(bc.OpF64Add, tenth, fifth, tenth+fifth) // 0.30000000000000004
	l.fbin(bc.OpF64Add, inf, -inf, nan)
	l.fbin(bc.OpF64Add, negZero, negZero, negZero)
	l.fbin(bc.OpF64Add, negZero, 0, 0)
	l.fbin(bc.OpF64Sub, 1, 1, 0)
	l.fbin(bc.OpF64Sub, negZero, 0, negZero)
	l.fbin(bc.OpF64Mul, 1e200, 1e200, inf)
	l.fbin(bc.OpF64Mul, 0, -5, negZero)
	l.fbin(bc.OpF64Mul, negZero, 5, negZero)
	l.fbin(bc.OpF64Div, 1, 0, inf)
	l.fbin(bc.OpF64Div, 1, negZero, -inf)
	l.fbin(bc.OpF64Div, 0, 0, nan)
	l.fbin(bc.OpF64Div, 1, 3, 1.0/3)
	l.fbin(bc.OpF64Min, 1, 2, 1)
	l.fbin(bc.OpF64Min, 0, negZero, negZero)
	l.fbin(bc.OpF64Min, negZero, 0, negZero)
	l.fbin(bc.OpF64Min, nan, 1, nan)
	l.fbin(bc.OpF64Min, 1, nan, nan)
	l.fbin(bc.OpF64Min, -inf, 5, -inf)
	l.fbin(bc.OpF64Max, 1, 2, 2)
	l.fbin(bc.OpF64Max, 0, negZero, 0)
	l.fbin(bc.OpF64Max, negZero, 0, 0)
	l.fbin(bc.OpF64Max, 1, nan, nan)
	l.fbin(bc.OpF64Copysign, -3, 0, 3)
	l.fbin(bc.OpF64Copysign, 3, negZero, -3)
	l.fbin(bc.OpF64Copysign, -3, inf, 3)
	l.fun(bc.OpF64Sqrt, 2, math.Sqrt2)
	l.fun(bc.OpF64Sqrt, -1, nan)
	l.fun(bc.OpF64Sqrt, negZero, negZero)
	l.fun(bc.OpF64Neg, 0, negZero)
	l.fun(bc.OpF64Neg, -inf, inf)
	l.fun(bc.OpF64Abs, negZero, 0)
	l.fun(bc.OpF64Abs, -inf, inf)
	l.fun(bc.OpF64Floor, -1.5, -2)
	l.fun(bc.OpF64Floor, -0.5, -1)
	l.fun(bc.OpF64Floor, negZero, negZero)
	l.fun(bc.OpF64Ceil, -0.5, negZero)
	l.fun(bc.OpF64Ceil, 1.2, 2)
	l.fun(bc.OpF64Trunc, -1.7, -1)
	l.fun(bc.OpF64Trunc, -0.7, negZero)
	l.fun(bc.OpF64Trunc, 1e300, 1e300)
	l.fun(bc.OpF64Nearest, 0.5, 0)
	l.fun(bc.OpF64Nearest, 1.5, 2)
	l.fun(bc.OpF64Nearest, 2.5, 2)
	l.fun(bc.OpF64Nearest, -0.5, negZero)
	l.fun(bc.OpF64Nearest, -1.5, -2)
	l.fun(bc.OpF64Nearest, 4503599627370497, 4503599627370497) // 2^52+1: already an integer
	l.fun(bc.OpF64Floor, nan, nan)
	l.fun(bc.OpF64Nearest, inf, inf)
	// neg and abs change only the sign bit, also of NaNs.
	negNaN := math.Float64frombits(0xfff8000000000001)
	l.add("f64.neg keeps NaN payload", bc.OpF64Neg, false, 0, false, []uint64{0x7ff8000000000001}, []uint64{0xfff8000000000001}, bc.TrapNone)
	l.add("f64.abs keeps NaN payload", bc.OpF64Abs, false, 0, false, []uint64{F(negNaN)}, []uint64{0x7ff8000000000001}, bc.TrapNone)

	for _, c := range []struct {
		op   bc.Op
		a, b float64
		want int64
	}{
		{bc.OpF64Eq, 1, 1, 1}, {bc.OpF64Eq, 0, negZero, 1}, {bc.OpF64Eq, nan, nan, 0},
		{bc.OpF64Ne, nan, nan, 1}, {bc.OpF64Ne, 1, 1, 0},
		{bc.OpF64Lt, 1, 2, 1}, {bc.OpF64Lt, nan, 2, 0}, {bc.OpF64Lt, negZero, 0, 0},
		{bc.OpF64Le, 2, 2, 1}, {bc.OpF64Le, 2, nan, 0},
		{bc.OpF64Gt, inf, 1e308, 1}, {bc.OpF64Gt, nan, 1, 0},
		{bc.OpF64Ge, -inf, -inf, 1}, {bc.OpF64Ge, 1, nan, 0},
	} {
		l.fcmp(c.op, c.a, c.b, c.want)
	}

	// Conversions.
	conv := func(op bc.Op, arg, want uint64) {
		l.add(fmt.Sprintf("%s(%#x)", op, arg), op, false, 0, false, []uint64{arg}, []uint64{want}, bc.TrapNone)
	}
	convTrap := func(op bc.Op, arg uint64, trap bc.TrapKind) {
		l.add(fmt.Sprintf("%s(%#x) traps", op, arg), op, false, 0, false, []uint64{arg}, nil, trap)
	}
	conv(bc.OpF64ConvertI64S, u(-3), F(-3))
	conv(bc.OpF64ConvertI64S, u(maxI), F(9223372036854775807))
	conv(bc.OpF64ConvertI64S, u(1<<53+1), F(1<<53)) // ties to even
	conv(bc.OpF64ConvertI64U, u(-1), F(18446744073709551615))
	conv(bc.OpF64ConvertI64U, 1<<63, F(9223372036854775808))
	conv(bc.OpF64ConvertI64U, 0x8000000000000400, F(9223372036854775808)) // tie, rounds to even
	conv(bc.OpF64ConvertI64U, 0x8000000000000401, F(9223372036854777856)) // above the halfway point
	conv(bc.OpF64ConvertI64U, 0x8000000000000c00, F(9223372036854779904)) // tie, rounds to even
	conv(bc.OpI64TruncF64S, F(-3.9), u(-3))
	conv(bc.OpI64TruncF64S, F(-9223372036854775808), u(minI))
	conv(bc.OpI64TruncF64S, F(9223372036854774784), 9223372036854774784) // largest f64 below 2^63
	conv(bc.OpI64TruncF64S, F(negZero), 0)
	convTrap(bc.OpI64TruncF64S, F(nan), bc.TrapInvalidConversion)
	convTrap(bc.OpI64TruncF64S, F(9223372036854775808), bc.TrapIntegerOverflow)
	convTrap(bc.OpI64TruncF64S, F(-9223372036854777856), bc.TrapIntegerOverflow)
	convTrap(bc.OpI64TruncF64S, F(inf), bc.TrapIntegerOverflow)
	conv(bc.OpI64TruncF64U, F(-0.9), 0)
	conv(bc.OpI64TruncF64U, F(18446744073709549568), 18446744073709549568) // largest f64 below 2^64
	conv(bc.OpI64TruncF64U, F(9223372036854775808), 1<<63)
	convTrap(bc.OpI64TruncF64U, F(-1), bc.TrapIntegerOverflow)
	convTrap(bc.OpI64TruncF64U, F(18446744073709551616), bc.TrapIntegerOverflow)
	convTrap(bc.OpI64TruncF64U, F(-nan), bc.TrapInvalidConversion)
	conv(bc.OpI64TruncSatF64S, F(nan), 0)
	conv(bc.OpI64TruncSatF64S, F(1e300), u(maxI))
	conv(bc.OpI64TruncSatF64S, F(-inf), u(minI))
	conv(bc.OpI64TruncSatF64S, F(-7.5), u(-7))
	conv(bc.OpI64TruncSatF64U, F(nan), 0)
	conv(bc.OpI64TruncSatF64U, F(-5), 0)
	conv(bc.OpI64TruncSatF64U, F(1e300), math.MaxUint64)
	conv(bc.OpI64TruncSatF64U, F(12.9), 12)
	conv(bc.OpI64ReinterpretF64, F(negZero), 1<<63)
	conv(bc.OpF64ReinterpretI64, 0x7ff0000000000001, 0x7ff0000000000001)

	// Memory. Loads: the address register plus the offset.
	load := func(op bc.Op, addr uint64, off int64, want uint64) {
		l.add(fmt.Sprintf("%s [%#x%+d]", op, addr, off), op, false, off, false, []uint64{addr}, []uint64{want}, bc.TrapNone)
	}
	loadTrap := func(op bc.Op, addr uint64, off int64) {
		l.add(fmt.Sprintf("%s [%#x%+d] traps", op, addr, off), op, false, off, false, []uint64{addr}, nil, bc.TrapOutOfBounds)
	}
	load(bc.OpI64Load8S, 0, 0, u(-127))
	load(bc.OpI64Load8U, 0, 0, 0x81)
	w16, w32 := uint16(0x8382), uint32(0x87868584)
	load(bc.OpI64Load16S, 1, 0, u(int64(int16(w16))))
	load(bc.OpI64Load16U, 0, 1, 0x8382)
	load(bc.OpI64Load32S, 3, 0, u(int64(int32(w32)))) // bytes 84 85 86 87
	load(bc.OpI64Load32U, 3, 0, 0x87868584)
	load(bc.OpI64Load, 5, 0, 0x8d8c8b8a89888786)
	load(bc.OpI64Load, 10, -5, 0x8d8c8b8a89888786) // negative offset
	load(bc.OpF64Load, 8, 0, 0x908f8e8d8c8b8a89)
	load(bc.OpI64Load, pageEnd-8, 0, 0xf8f7f6f5f4f3f2f1)
	load(bc.OpI64Load8U, pageEnd, -1, 0xf8)
	load(bc.OpI64Load32U, u(-4), 4, 0x84838281) // the address wraps around 2^64
	loadTrap(bc.OpI64Load, pageEnd-7, 0)
	loadTrap(bc.OpI64Load8U, pageEnd, 0)
	loadTrap(bc.OpI64Load16U, pageEnd-1, 0)
	loadTrap(bc.OpI64Load32S, 0, -1)
	loadTrap(bc.OpI64Load, u(-1), 0)
	loadTrap(bc.OpI64Load, u(-8), 0) // ea+8 overflows to 0
	loadTrap(bc.OpF64Load, 1<<40, 0)
	loadTrap(bc.OpI64Load8S, 0, math.MaxInt32)

	store := func(op bc.Op, addr uint64, off int64, val uint64, at uint32, want []byte) {
		c := Case{
			Name:   fmt.Sprintf("%s [%#x%+d] = %#x", op, addr, off, val),
			Module: instrModule(op, false, off, false),
			Func:   "f", Args: []uint64{addr, val}, Want: []uint64{},
			Memory: map[uint32][]byte{at: want},
		}
		l = append(l, c)
	}
	store(bc.OpI64Store8, 20, 0, 0x1ff, 19, []byte{0, 0xff, 0})
	store(bc.OpI64Store16, 21, 0, 0xabcdef, 20, []byte{0, 0xef, 0xcd, 0})
	store(bc.OpI64Store32, 3, 0, 0x11223344, 2, []byte{0x83, 0x44, 0x33, 0x22, 0x11, 0x88})
	store(bc.OpI64Store, pageEnd-8, 0, 0x0102030405060708, pageEnd-8, []byte{8, 7, 6, 5, 4, 3, 2, 1})
	store(bc.OpF64Store, 33, -2, F(1.0), 30, []byte{0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0})
	for _, op := range []bc.Op{bc.OpI64Store8, bc.OpI64Store16, bc.OpI64Store32, bc.OpI64Store, bc.OpF64Store} {
		size := op.Info().Size
		// A store that overhangs the end writes nothing.
		l = append(l, Case{
			Name:   fmt.Sprintf("%s overhanging the end traps", op),
			Module: instrModule(op, false, 1, false),
			Func:   "f", Args: []uint64{uint64(pageEnd - size), u(-1)},
			Trap:   bc.TrapOutOfBounds,
			Memory: map[uint32][]byte{pageEnd - 8: memTail},
		})
	}
	l = append(l, bulkMemoryCases()...)
	l = append(l, segmentCases()...)
	l = append(l, tableCases()...)
	return append(l, cases32()...)
}

// bulkMemoryCases are the cases of memory.copy (dst, src, n) and
// memory.fill (dst, value, n), with i64 operands and, for a few, i32:
// copies forward, backward over an overlap, of nothing at the end, and
// ranges that do not fit, which trap before writing anything.
func bulkMemoryCases() []Case {
	u := func(v int64) uint64 { return uint64(v) }
	var l []Case
	bulk := func(op bc.Op, intType bc.Type, a, b, n uint64, trap bc.TrapKind, mem map[uint32][]byte) {
		l = append(l, Case{
			Name:   fmt.Sprintf("%s %s %#x, %#x, %#x", op, intType, a, b, n),
			Module: instrModuleAs(op, false, 0, bc.I64, intType),
			Func:   "f", Args: []uint64{a, b, n}, Want: []uint64{}, Trap: trap, Memory: mem,
		})
	}
	head := func(bs ...byte) map[uint32][]byte { return map[uint32][]byte{0: bs} }
	unchanged := map[uint32][]byte{0: memHead, pageEnd - 8: memTail}
	cp, fill := bc.OpMemoryCopy, bc.OpMemoryFill
	bulk(cp, bc.I64, 20, 0, 4, bc.TrapNone, map[uint32][]byte{19: {0, 0x81, 0x82, 0x83, 0x84, 0}})
	bulk(cp, bc.I64, 0, 2, 6, bc.TrapNone, head(0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x87, 0x88, 0x89))
	bulk(cp, bc.I64, 2, 0, 6, bc.TrapNone, head(0x81, 0x82, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x89))
	bulk(cp, bc.I32, 1, 0, 15, bc.TrapNone, head(0x81, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f))
	bulk(cp, bc.I64, 0, 0, 16, bc.TrapNone, unchanged)
	bulk(cp, bc.I64, pageEnd-16, 0, 16, bc.TrapNone, map[uint32][]byte{pageEnd - 16: memHead})
	bulk(cp, bc.I64, pageEnd, pageEnd, 0, bc.TrapNone, unchanged)
	bulk(cp, bc.I64, pageEnd-3, 0, 4, bc.TrapOutOfBounds, unchanged)
	bulk(cp, bc.I64, 0, pageEnd-2, 4, bc.TrapOutOfBounds, unchanged)
	bulk(cp, bc.I64, pageEnd+1, 0, 0, bc.TrapOutOfBounds, unchanged)
	bulk(cp, bc.I64, 0, 0, u(-1), bc.TrapOutOfBounds, unchanged)
	bulk(cp, bc.I64, u(-1), 0, 2, bc.TrapOutOfBounds, unchanged)
	bulk(cp, bc.I32, 0xffffffff, 0, 2, bc.TrapOutOfBounds, unchanged)
	bulk(fill, bc.I64, 30, 0x1ab, 3, bc.TrapNone, map[uint32][]byte{29: {0, 0xab, 0xab, 0xab, 0}})
	bulk(fill, bc.I32, 0, 0, 16, bc.TrapNone, head(make([]byte, 17)...))
	bulk(fill, bc.I64, 0, 7, pageEnd, bc.TrapNone, map[uint32][]byte{0: {7, 7, 7, 7}, pageEnd - 4: {7, 7, 7, 7}})
	bulk(fill, bc.I64, pageEnd, 1, 0, bc.TrapNone, unchanged)
	bulk(fill, bc.I64, pageEnd-2, 1, 3, bc.TrapOutOfBounds, unchanged)
	bulk(fill, bc.I64, 1, 1, u(-1), bc.TrapOutOfBounds, unchanged)
	bulk(fill, bc.I32, 0xfffffff0, 1, 0x20, bc.TrapOutOfBounds, unchanged)
	return l
}
