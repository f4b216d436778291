package fuzz

import (
	"math"

	"github.com/kiln-jit/kiln/bytecode"
)

// opRange returns the opcodes first..last.
func opRange(first, last bytecode.Op) []bytecode.Op {
	var ops []bytecode.Op
	for op := first; op <= last; op++ {
		ops = append(ops, op)
	}
	return ops
}

// The opcode groups simple statements draw from.
var (
	i64BinOps = []bytecode.Op{bytecode.OpI64Add, bytecode.OpI64Sub, bytecode.OpI64Mul, bytecode.OpI64And,
		bytecode.OpI64Or, bytecode.OpI64Xor, bytecode.OpI64Shl, bytecode.OpI64ShrS, bytecode.OpI64ShrU,
		bytecode.OpI64Rotl, bytecode.OpI64Rotr}
	i64UnOps = []bytecode.Op{bytecode.OpI64Neg, bytecode.OpI64Not, bytecode.OpI64Clz, bytecode.OpI64Ctz,
		bytecode.OpI64Popcnt, bytecode.OpI64Extend8S, bytecode.OpI64Extend16S, bytecode.OpI64Extend32S,
		bytecode.OpI64Extend32U}
	i64CmpOps = opRange(bytecode.OpI64Eq, bytecode.OpI64GeU)
	brOps     = opRange(bytecode.OpBrEq, bytecode.OpBrGeU)
	f64BinOps = []bytecode.Op{bytecode.OpF64Add, bytecode.OpF64Sub, bytecode.OpF64Mul, bytecode.OpF64Div,
		bytecode.OpF64Min, bytecode.OpF64Max, bytecode.OpF64Copysign}
	f64UnOps       = []bytecode.Op{bytecode.OpF64Sqrt, bytecode.OpF64Neg, bytecode.OpF64Abs}
	f64RoundingOps = []bytecode.Op{bytecode.OpF64Floor, bytecode.OpF64Ceil, bytecode.OpF64Trunc, bytecode.OpF64Nearest}
	fcmpOps        = opRange(bytecode.OpF64Eq, bytecode.OpF64Ge)

	i32BinOps = []bytecode.Op{bytecode.OpI32Add, bytecode.OpI32Sub, bytecode.OpI32Mul, bytecode.OpI32And,
		bytecode.OpI32Or, bytecode.OpI32Xor, bytecode.OpI32Shl, bytecode.OpI32ShrS, bytecode.OpI32ShrU,
		bytecode.OpI32Rotl, bytecode.OpI32Rotr}
	i32UnOps       = opRange(bytecode.OpI32Neg, bytecode.OpI32Extend16S)
	i32CmpOps      = opRange(bytecode.OpI32Eq, bytecode.OpI32GeU)
	brI32Ops       = opRange(bytecode.OpBrI32Eq, bytecode.OpBrI32GeU)
	f32BinOps      = opRange(bytecode.OpF32Add, bytecode.OpF32Copysign)
	f32UnOps       = []bytecode.Op{bytecode.OpF32Sqrt, bytecode.OpF32Neg, bytecode.OpF32Abs}
	f32RoundingOps = opRange(bytecode.OpF32Floor, bytecode.OpF32Nearest)
	f32CmpOps      = opRange(bytecode.OpF32Eq, bytecode.OpF32Ge)

	// eqzOp is the eqz of each integer type.
	eqzOp = map[bytecode.Type]bytecode.Op{bytecode.I64: bytecode.OpI64Eqz, bytecode.I32: bytecode.OpI32Eqz}

	loadOps = []bytecode.Op{bytecode.OpI64Load8S, bytecode.OpI64Load8U, bytecode.OpI64Load16S,
		bytecode.OpI64Load16U, bytecode.OpI64Load32S, bytecode.OpI64Load32U, bytecode.OpI64Load, bytecode.OpF64Load,
		bytecode.OpI32Load8S, bytecode.OpI32Load8U, bytecode.OpI32Load16S, bytecode.OpI32Load16U,
		bytecode.OpI32Load, bytecode.OpF32Load}
	storeOps = []bytecode.Op{bytecode.OpI64Store8, bytecode.OpI64Store16, bytecode.OpI64Store32,
		bytecode.OpI64Store, bytecode.OpF64Store, bytecode.OpI32Store8, bytecode.OpI32Store16,
		bytecode.OpI32Store, bytecode.OpF32Store}

	// convertOps are the conversions that never trap: every operand is
	// welcome.
	convertOps = []bytecode.Op{bytecode.OpF64ConvertI64S, bytecode.OpF64ConvertI64U,
		bytecode.OpI64TruncSatF64S, bytecode.OpI64TruncSatF64U, bytecode.OpI64ReinterpretF64,
		bytecode.OpF64ReinterpretI64, bytecode.OpI32WrapI64, bytecode.OpI64ExtendI32S,
		bytecode.OpI64ExtendI32U, bytecode.OpF32DemoteF64, bytecode.OpF64PromoteF32,
		bytecode.OpF32ConvertI32S, bytecode.OpF32ConvertI32U, bytecode.OpF32ConvertI64S,
		bytecode.OpF32ConvertI64U, bytecode.OpF64ConvertI32S, bytecode.OpF64ConvertI32U,
		bytecode.OpI32TruncSatF32S, bytecode.OpI32TruncSatF32U, bytecode.OpI32TruncSatF64S,
		bytecode.OpI32TruncSatF64U, bytecode.OpI64TruncSatF32S, bytecode.OpI64TruncSatF32U,
		bytecode.OpI32ReinterpretF32, bytecode.OpF32ReinterpretI32}

	// safeDivisors never trap, whatever the dividend.
	safeDivisors   = []int64{1, 2, 3, 7, 10, 16, -3, -16, 1 << 32, math.MaxInt64, math.MinInt64}
	safeDivisors32 = []int64{1, 2, 3, 7, 10, 16, -3, -16, 1 << 16, math.MaxInt32, math.MinInt32}
)

// divOpsOf lists the division and remainder opcodes of each integer type,
// in the order div_s, div_u, rem_s, rem_u.
var divOpsOf = map[bytecode.Type][]bytecode.Op{
	bytecode.I64: opRange(bytecode.OpI64DivS, bytecode.OpI64RemU),
	bytecode.I32: opRange(bytecode.OpI32DivS, bytecode.OpI32RemU),
}

// truncRange is the range of operands a trapping float-to-integer
// conversion accepts: lo < x < hi, or lo <= x < hi when loIncl is set. Both
// bounds are exact in binary32 and binary64.
type truncRange struct {
	lo, hi float64
	loIncl bool
}

var truncRanges = map[bytecode.Op]truncRange{
	bytecode.OpI32TruncF32S: {-2147483648, 2147483648, true},
	bytecode.OpI32TruncF32U: {-1, 4294967296, false},
	bytecode.OpI32TruncF64S: {-2147483649, 2147483648, false},
	bytecode.OpI32TruncF64U: {-1, 4294967296, false},
	bytecode.OpI64TruncF32S: {-9223372036854775808, 9223372036854775808, true},
	bytecode.OpI64TruncF32U: {-1, 18446744073709551616, false},
	bytecode.OpI64TruncF64S: {-9223372036854775808, 9223372036854775808, true},
	bytecode.OpI64TruncF64U: {-1, 18446744073709551616, false},
}

// truncOps lists the trapping conversions, in a fixed order.
var truncOps = []bytecode.Op{bytecode.OpI32TruncF32S, bytecode.OpI32TruncF32U, bytecode.OpI32TruncF64S,
	bytecode.OpI32TruncF64U, bytecode.OpI64TruncF32S, bytecode.OpI64TruncF32U, bytecode.OpI64TruncF64S,
	bytecode.OpI64TruncF64U}

// truncEdges are operands around the ranges of the trapping conversions,
// for the unguarded forms.
var truncEdges = []float64{math.NaN(), math.NaN(), 1e300, -1e300, math.Inf(1), math.Inf(-1), -1, -0.75,
	18446744073709551616, 9223372036854775808, -9223372036854777856, -9223372036854775808,
	4294967296, 4294967295.5, 2147483648, 2147483647.75, -2147483648, -2147483648.75, -2147483649}

// floatOps are the float opcodes guards use.
type floatOps struct{ lt, gt, ge bytecode.Op }

var floatOpsOf = map[bytecode.Type]floatOps{
	bytecode.F64: {bytecode.OpF64Lt, bytecode.OpF64Gt, bytecode.OpF64Ge},
	bytecode.F32: {bytecode.OpF32Lt, bytecode.OpF32Gt, bytecode.OpF32Ge},
}

const (
	sBinI = iota
	sBinI32
	sUnI
	sUnI32
	sCmpI
	sCmpF
	sSelect
	sBinF
	sBinF32
	sUnF
	sUnF32
	sConvert
	sTrunc
	sLoad
	sStore
	sDivide
	sMove
	sMemory
	numSimple
)

var simpleWeights = [numSimple]int{
	sBinI: 8, sBinI32: 6, sUnI: 3, sUnI32: 3, sCmpI: 6, sCmpF: 4, sSelect: 3, sBinF: 5, sBinF32: 4,
	sUnF: 3, sUnF32: 3, sConvert: 7, sTrunc: 3, sLoad: 7, sStore: 7, sDivide: 5, sMove: 4, sMemory: 1,
}

// simple emits one straight-line operation (with a guard around it when it
// could trap and this one should not).
func (fg *funcGen) simple() {
	s, fb := fg.s, fg.fb
	switch s.pick(simpleWeights[:]) {
	case sBinI:
		fg.binary(i64BinOps)
	case sBinI32:
		fg.binary(i32BinOps)
	case sUnI:
		if s.chance(1, 6) {
			fb.Unary(bytecode.OpI64Eqz, fg.w(fg.intType()), fg.ri())
			return
		}
		fg.unary(i64UnOps)
	case sUnI32:
		if s.chance(1, 6) {
			fb.Unary(bytecode.OpI32Eqz, fg.w(fg.intType()), fg.read(bytecode.I32))
			return
		}
		fg.unary(i32UnOps)
	case sCmpI:
		fg.compareInt(fg.w(fg.intType()))
	case sCmpF:
		ops := fcmpOps
		if s.chance(1, 2) {
			ops = f32CmpOps
		}
		fg.binary(ops)
	case sSelect:
		t := valueTypes[s.intn(len(valueTypes))]
		fb.Select(fg.w(t), fg.read(fg.intType()), fg.read(t), fg.read(t))
	case sBinF:
		fg.binary(f64BinOps)
	case sBinF32:
		fg.binary(f32BinOps)
	case sUnF:
		if fg.g.rounding && s.chance(1, 2) {
			fg.unary(f64RoundingOps)
		} else {
			fg.unary(f64UnOps)
		}
	case sUnF32:
		if fg.g.rounding && s.chance(1, 2) {
			fg.unary(f32RoundingOps)
		} else {
			fg.unary(f32UnOps)
		}
	case sConvert:
		fg.unary(convertOps)
	case sTrunc:
		fg.trunc()
	case sLoad:
		op := loadOps[s.intn(len(loadOps))]
		info := op.Info()
		addr, off := fg.address(info.Size)
		fb.Load(op, fg.w(info.Dst), addr, off)
	case sStore:
		op := storeOps[s.intn(len(storeOps))]
		info := op.Info()
		val := fg.read(info.B)
		addr, off := fg.address(info.Size)
		fb.Store(op, addr, val, off)
	case sDivide:
		fg.divide()
	case sMove:
		t := valueTypes[s.intn(len(valueTypes))]
		if s.chance(1, 2) {
			fb.Mov(fg.w(t), fg.read(t))
		} else {
			fg.constant(t, fg.w(t))
		}
	case sMemory:
		if s.chance(1, 3) {
			fb.MemorySize(fg.w(fg.intType()))
			return
		}
		if s.chance(1, 2) {
			fg.bulkMemory()
			return
		}
		dt := fg.intType()
		delta := fg.tmp[dt][0]
		switch s.intn(3) {
		case 0:
			fb.BinaryImm(intOpsOf[dt].and, delta, fg.read(dt), 1)
		case 1:
			fg.constInt(dt, delta, int64(s.intn(3)))
		default:
			delta = fg.read(dt)
		}
		fb.MemoryGrow(fg.w(fg.intType()), delta)
	}
}

// bulkMemory emits memory.copy or memory.fill: addresses in the first 4
// KiB, or (a quarter of the time) anywhere, and a count below 64, or
// anything.
func (fg *funcGen) bulkMemory() {
	s, fb := fg.s, fg.fb
	at, nt := bytecode.I64, bytecode.I32
	if s.chance(1, 2) {
		at, nt = nt, at
	}
	dst, src, n := fg.tmp[at][0], fg.tmp[at][1], fg.tmp[nt][0]
	if s.chance(1, 4) {
		dst = fg.read(at)
	} else {
		fb.BinaryImm(intOpsOf[at].and, dst, fg.read(at), 0xFFF)
	}
	if s.chance(1, 4) {
		n = fg.read(nt)
	} else {
		fb.BinaryImm(intOpsOf[nt].and, n, fg.read(nt), 0x3F)
	}
	if s.chance(1, 2) {
		fb.MemoryFill(dst, fg.read(fg.intType()), n)
		return
	}
	fb.BinaryImm(intOpsOf[at].and, src, fg.read(at), 0xFFF)
	fb.MemoryCopy(dst, src, n)
}

// dstReg returns a destination register for an operand of type t (an
// IntType destination is an i32 or an i64).
func (fg *funcGen) dstReg(t bytecode.Type) bytecode.Reg {
	if t == bytecode.IntType {
		t = fg.intType()
	}
	return fg.w(t)
}

// binary emits one of ops (all of format FormatBinary) on registers, or on
// a register and an immediate when the op takes one.
func (fg *funcGen) binary(ops []bytecode.Op) {
	op := ops[fg.s.intn(len(ops))]
	info := op.Info()
	dst := fg.dstReg(info.Dst)
	if info.Imm && fg.s.chance(1, 3) {
		fg.fb.BinaryImm(op, dst, fg.read(info.A), fg.imm(info.A))
		return
	}
	fg.fb.Binary(op, dst, fg.read(info.A), fg.read(info.B))
}

// unary emits one of ops (all of format FormatUnary).
func (fg *funcGen) unary(ops []bytecode.Op) {
	op := ops[fg.s.intn(len(ops))]
	info := op.Info()
	fg.fb.Unary(op, fg.dstReg(info.Dst), fg.read(info.A))
}

// address returns a base register (an i32 or an i64) and an offset for an
// access of size bytes: mostly inside the first 4 KiB (where data segments
// and the peek host work), sometimes exactly at the end of memory, or
// anywhere at all.
func (fg *funcGen) address(size int) (bytecode.Reg, int32) {
	s, fb := fg.s, fg.fb
	at := fg.intType()
	ops := intOpsOf[at]
	t := fg.tmp[at][0]
	if fg.raw() && s.chance(1, 2) {
		switch s.intn(3) {
		case 0:
			return fg.read(at), int32(s.u64())
		case 1: // around the end of memory: -size is the last valid offset
			fb.MemorySize(t)
			fb.BinaryImm(ops.shl, t, t, 16)
			return t, int32(-size - 1 + s.intn(4))
		default: // wraps around below zero
			fb.BinaryImm(ops.and, t, fg.read(at), 0xFFF)
			return t, int32(-4096 - s.intn(16))
		}
	}
	mask := int64(0xFF8)
	if s.chance(1, 4) {
		mask = 0xFFF // unaligned
	}
	fb.BinaryImm(ops.and, t, fg.read(at), mask)
	return t, int32(s.intn(64))
}

// divide emits an i64 or i32 division or remainder: by a constant that
// cannot trap, by a register behind a guard, or unguarded.
func (fg *funcGen) divide() {
	s, fb := fg.s, fg.fb
	t := fg.intType()
	iops := intOpsOf[t]
	ops := divOpsOf[t]
	op := ops[s.intn(len(ops))]
	dst, a := fg.w(t), fg.read(t)
	switch {
	case fg.raw():
		switch s.intn(3) {
		case 0:
			fb.Binary(op, dst, a, fg.read(t))
		case 1:
			fb.BinaryImm(op, dst, a, []int64{0, -1, 1}[s.intn(3)])
		default: // the one quotient that overflows
			fg.constInt(t, fg.tmp[t][1], iops.minInt)
			fb.BinaryImm(op, dst, fg.tmp[t][1], -1)
		}
	case s.chance(1, 2):
		divisors := safeDivisors
		if t == bytecode.I32 {
			divisors = safeDivisors32
		}
		fb.BinaryImm(op, dst, a, divisors[s.intn(len(divisors))])
	default:
		b := fg.read(t)
		skip := fb.NewLabel()
		fb.BrCmpImm(iops.brEq, b, 0, skip)
		if op == ops[0] { // div_s
			fb.BrCmpImm(iops.brEq, b, -1, skip)
		}
		fb.Binary(op, dst, a, b)
		fb.Bind(skip)
	}
}

// trunc emits a trapping float-to-integer conversion: unguarded (often of
// an operand near or beyond its range, or a NaN), or behind a guard that
// skips it unless the operand is in range.
func (fg *funcGen) trunc() {
	s, fb := fg.s, fg.fb
	op := truncOps[s.intn(len(truncOps))]
	info := op.Info()
	src := info.A
	x := fg.read(src)
	if fg.raw() {
		if s.chance(3, 4) {
			x = fg.tmp[src][1]
			fg.constFloat(src, x, truncEdges[s.intn(len(truncEdges))])
		}
		fb.Unary(op, fg.w(info.Dst), x)
		return
	}
	// Convert only inside the range (NaN compares false).
	r, fops := truncRanges[op], floatOpsOf[src]
	ct := fg.intType()
	lim, c, c2 := fg.tmp[src][0], fg.tmp[ct][0], fg.tmp[ct][1]
	skip := fb.NewLabel()
	fg.constFloat(src, lim, r.lo)
	if r.loIncl {
		fb.Binary(fops.ge, c, x, lim)
	} else {
		fb.Binary(fops.gt, c, x, lim)
	}
	fg.constFloat(src, lim, r.hi)
	fb.Binary(fops.lt, c2, x, lim)
	fb.Binary(intOpsOf[ct].and, c, c, c2)
	fb.BrCmpImm(intOpsOf[ct].brEq, c, 0, skip)
	fb.Unary(op, fg.w(info.Dst), x)
	fb.Bind(skip)
}
