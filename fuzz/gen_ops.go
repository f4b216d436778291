package fuzz

import (
	"math"

	"github.com/kiln-jit/kiln/bytecode"
)

// The opcode groups simple statements draw from.
var (
	i64BinOps = []bytecode.Op{bytecode.OpI64Add, bytecode.OpI64Sub, bytecode.OpI64Mul, bytecode.OpI64And,
		bytecode.OpI64Or, bytecode.OpI64Xor, bytecode.OpI64Shl, bytecode.OpI64ShrS, bytecode.OpI64ShrU,
		bytecode.OpI64Rotl, bytecode.OpI64Rotr}
	i64UnOps = []bytecode.Op{bytecode.OpI64Neg, bytecode.OpI64Not, bytecode.OpI64Clz, bytecode.OpI64Ctz,
		bytecode.OpI64Popcnt, bytecode.OpI64Extend8S, bytecode.OpI64Extend16S, bytecode.OpI64Extend32S,
		bytecode.OpI64Extend32U}
	i64CmpOps = []bytecode.Op{bytecode.OpI64Eq, bytecode.OpI64Ne, bytecode.OpI64LtS, bytecode.OpI64LtU,
		bytecode.OpI64LeS, bytecode.OpI64LeU, bytecode.OpI64GtS, bytecode.OpI64GtU, bytecode.OpI64GeS,
		bytecode.OpI64GeU}
	divOps    = []bytecode.Op{bytecode.OpI64DivS, bytecode.OpI64DivU, bytecode.OpI64RemS, bytecode.OpI64RemU}
	f64BinOps = []bytecode.Op{bytecode.OpF64Add, bytecode.OpF64Sub, bytecode.OpF64Mul, bytecode.OpF64Div,
		bytecode.OpF64Min, bytecode.OpF64Max}
	f64UnOps       = []bytecode.Op{bytecode.OpF64Sqrt, bytecode.OpF64Neg, bytecode.OpF64Abs}
	f64RoundingOps = []bytecode.Op{bytecode.OpF64Floor, bytecode.OpF64Ceil, bytecode.OpF64Trunc, bytecode.OpF64Nearest}
	fcmpOps        = []bytecode.Op{bytecode.OpF64Eq, bytecode.OpF64Ne, bytecode.OpF64Lt, bytecode.OpF64Le,
		bytecode.OpF64Gt, bytecode.OpF64Ge}
	loadOps = []bytecode.Op{bytecode.OpI64Load8S, bytecode.OpI64Load8U, bytecode.OpI64Load16S,
		bytecode.OpI64Load16U, bytecode.OpI64Load32S, bytecode.OpI64Load32U, bytecode.OpI64Load, bytecode.OpF64Load}
	storeOps = []bytecode.Op{bytecode.OpI64Store8, bytecode.OpI64Store16, bytecode.OpI64Store32,
		bytecode.OpI64Store, bytecode.OpF64Store}
	// safeDivisors never trap, whatever the dividend.
	safeDivisors = []int64{1, 2, 3, 7, 10, 16, -3, -16, 1 << 32, math.MaxInt64, math.MinInt64}
)

// accessSize returns the bytes a load or store touches.
func accessSize(op bytecode.Op) int {
	switch op {
	case bytecode.OpI64Load8S, bytecode.OpI64Load8U, bytecode.OpI64Store8:
		return 1
	case bytecode.OpI64Load16S, bytecode.OpI64Load16U, bytecode.OpI64Store16:
		return 2
	case bytecode.OpI64Load32S, bytecode.OpI64Load32U, bytecode.OpI64Store32:
		return 4
	}
	return 8
}

const (
	sBinI = iota
	sUnI
	sCmpI
	sSelect
	sBinF
	sUnF
	sCmpF
	sConvert
	sLoad
	sStore
	sDivide
	sMove
	sMemory
	sCopysign
	numSimple
)

var simpleWeights = [numSimple]int{
	sBinI: 10, sUnI: 4, sCmpI: 4, sSelect: 2, sBinF: 6, sUnF: 3, sCmpF: 3, sConvert: 5, sLoad: 6,
	sStore: 6, sDivide: 4, sMove: 3, sMemory: 1, sCopysign: 1,
}

// simple emits one straight-line operation (with a guard around it when it
// could trap and this one should not).
func (fg *funcGen) simple() {
	s, fb := fg.s, fg.fb
	switch s.pick(simpleWeights[:]) {
	case sBinI:
		op := i64BinOps[s.intn(len(i64BinOps))]
		if s.chance(1, 3) {
			fb.BinaryImm(op, fg.wi(), fg.ri(), fg.i64Imm())
		} else {
			fb.Binary(op, fg.wi(), fg.ri(), fg.ri())
		}
	case sUnI:
		fb.Unary(i64UnOps[s.intn(len(i64UnOps))], fg.wi(), fg.ri())
	case sCmpI:
		op := i64CmpOps[s.intn(len(i64CmpOps))]
		if s.chance(1, 3) {
			fb.BinaryImm(op, fg.wi(), fg.ri(), fg.i64Imm())
		} else {
			fb.Binary(op, fg.wi(), fg.ri(), fg.ri())
		}
	case sSelect:
		if s.chance(1, 3) {
			fb.Select(fg.wf(), fg.ri(), fg.rf(), fg.rf())
		} else {
			fb.Select(fg.wi(), fg.ri(), fg.ri(), fg.ri())
		}
	case sBinF:
		fb.Binary(f64BinOps[s.intn(len(f64BinOps))], fg.wf(), fg.rf(), fg.rf())
	case sUnF:
		ops := f64UnOps
		if fg.g.rounding && s.chance(1, 2) {
			ops = f64RoundingOps
		}
		fb.Unary(ops[s.intn(len(ops))], fg.wf(), fg.rf())
	case sCmpF:
		fb.Binary(fcmpOps[s.intn(len(fcmpOps))], fg.wi(), fg.rf(), fg.rf())
	case sConvert:
		fg.convert()
	case sLoad:
		op := loadOps[s.intn(len(loadOps))]
		addr, off := fg.address(accessSize(op))
		dst := fg.wi()
		if op == bytecode.OpF64Load {
			dst = fg.wf()
		}
		fb.Load(op, dst, addr, off)
	case sStore:
		op := storeOps[s.intn(len(storeOps))]
		var val bytecode.Reg
		if op == bytecode.OpF64Store {
			val = fg.canon(fg.rf())
		} else {
			val = fg.ri()
		}
		addr, off := fg.address(accessSize(op))
		fb.Store(op, addr, val, off)
	case sDivide:
		fg.divide()
	case sMove:
		switch s.intn(4) {
		case 0:
			fb.Mov(fg.wi(), fg.ri())
		case 1:
			fb.Mov(fg.wf(), fg.rf())
		case 2:
			fb.I64Const(fg.wi(), fg.i64Imm())
		default:
			fb.F64Const(fg.wf(), fg.f64Imm())
		}
	case sMemory:
		if s.chance(1, 3) {
			fb.MemorySize(fg.wi())
			return
		}
		delta := fg.tmpI[0]
		switch s.intn(3) {
		case 0:
			fb.BinaryImm(bytecode.OpI64And, delta, fg.ri(), 1)
		case 1:
			fb.I64Const(delta, int64(s.intn(3)))
		default:
			delta = fg.ri()
		}
		fb.MemoryGrow(fg.wi(), delta)
	case sCopysign:
		fb.Binary(bytecode.OpF64Copysign, fg.wf(), fg.rf(), fg.canon(fg.rf()))
	}
}

// address returns a base register and offset for an access of size bytes:
// mostly inside the first 4 KiB (where data segments and the peek host
// work), sometimes exactly at the end of memory, or anywhere at all.
func (fg *funcGen) address(size int) (bytecode.Reg, int32) {
	s, fb := fg.s, fg.fb
	t := fg.tmpI[0]
	if fg.raw() && s.chance(1, 2) {
		switch s.intn(3) {
		case 0:
			return fg.ri(), int32(s.u64())
		case 1: // around the end of memory: -size is the last valid offset
			fb.MemorySize(t)
			fb.BinaryImm(bytecode.OpI64Shl, t, t, 16)
			return t, int32(-size - 1 + s.intn(4))
		default: // wraps around below zero
			fb.BinaryImm(bytecode.OpI64And, t, fg.ri(), 0xFFF)
			return t, int32(-4096 - s.intn(16))
		}
	}
	mask := int64(0xFF8)
	if s.chance(1, 4) {
		mask = 0xFFF // unaligned
	}
	fb.BinaryImm(bytecode.OpI64And, t, fg.ri(), mask)
	return t, int32(s.intn(64))
}

// divide emits a division or remainder: by a constant that cannot trap, by
// a register behind a guard, or unguarded.
func (fg *funcGen) divide() {
	s, fb := fg.s, fg.fb
	op := divOps[s.intn(len(divOps))]
	dst, a := fg.wi(), fg.ri()
	switch {
	case fg.raw():
		switch s.intn(3) {
		case 0:
			fb.Binary(op, dst, a, fg.ri())
		case 1:
			fb.BinaryImm(op, dst, a, []int64{0, -1, 1}[s.intn(3)])
		default: // the one quotient that overflows
			fb.I64Const(fg.tmpI[1], math.MinInt64)
			fb.BinaryImm(op, dst, fg.tmpI[1], -1)
		}
	case s.chance(1, 2):
		fb.BinaryImm(op, dst, a, safeDivisors[s.intn(len(safeDivisors))])
	default:
		b := fg.ri()
		skip := fb.NewLabel()
		fb.BrCmpImm(bytecode.OpBrEq, b, 0, skip)
		if op == bytecode.OpI64DivS {
			fb.BrCmpImm(bytecode.OpBrEq, b, -1, skip)
		}
		fb.Binary(op, dst, a, b)
		fb.Bind(skip)
	}
}

// convert emits a conversion between i64 and f64.
func (fg *funcGen) convert() {
	s, fb := fg.s, fg.fb
	switch s.intn(6) {
	case 0:
		op := []bytecode.Op{bytecode.OpF64ConvertI64S, bytecode.OpF64ConvertI64U}[s.intn(2)]
		fb.Unary(op, fg.wf(), fg.ri())
	case 1:
		op := []bytecode.Op{bytecode.OpI64TruncSatF64S, bytecode.OpI64TruncSatF64U}[s.intn(2)]
		fb.Unary(op, fg.wi(), fg.rf())
	case 2, 3:
		signed := s.chance(1, 2)
		op := bytecode.OpI64TruncF64U
		if signed {
			op = bytecode.OpI64TruncF64S
		}
		x := fg.rf()
		if fg.raw() {
			if s.chance(3, 4) {
				x = fg.tmpF[1]
				fb.F64Const(x, []float64{math.NaN(), math.NaN(), math.NaN(), 1e300, -1e300, 18446744073709551616,
					9223372036854775808, -9223372036854777856, -1, math.Inf(-1)}[s.intn(10)])
			}
			fb.Unary(op, fg.wi(), x)
			return
		}
		// Convert only inside the range (NaN compares false).
		skip := fb.NewLabel()
		lim, c, c2 := fg.tmpF[0], fg.tmpI[0], fg.tmpI[1]
		if signed {
			fb.Unary(bytecode.OpF64Abs, fg.tmpF[1], x)
			fb.F64Const(lim, 9223372036854775808)
			fb.Binary(bytecode.OpF64Lt, c, fg.tmpF[1], lim)
		} else {
			fb.F64Const(lim, 18446744073709551616)
			fb.Binary(bytecode.OpF64Lt, c, x, lim)
			fb.F64Const(lim, -1)
			fb.Binary(bytecode.OpF64Gt, c2, x, lim)
			fb.Binary(bytecode.OpI64And, c, c, c2)
		}
		fb.BrCmpImm(bytecode.OpBrEq, c, 0, skip)
		fb.Unary(op, fg.wi(), x)
		fb.Bind(skip)
	case 4:
		fb.Unary(bytecode.OpI64ReinterpretF64, fg.wi(), fg.canon(fg.rf()))
	default:
		fb.Unary(bytecode.OpF64ReinterpretI64, fg.wf(), fg.ri())
	}
}
