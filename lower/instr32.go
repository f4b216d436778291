package lower

import (
	"fmt"
	"math"
	"math/bits"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/floatbits"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/mir"
)

// This file lowers the i32 and f32 operations. An i32 value lives in a GPR
// with its upper 32 bits zero (every 32-bit x86 instruction writes its
// result that way, so no explicit zero-extension is needed after one), and
// its constants are recorded zero-extended. An f32 value lives in the low
// 32 bits of an XMM register; the upper bits are undefined and nothing
// reads them.

var loadOps32 = map[bc.Op]mir.Op{
	bc.OpI32Load8S: mir.OpMOVBLSXload, bc.OpI32Load8U: mir.OpMOVBQZXload,
	bc.OpI32Load16S: mir.OpMOVWLSXload, bc.OpI32Load16U: mir.OpMOVWQZXload,
	bc.OpI32Load: mir.OpMOVLQZXload, bc.OpF32Load: mir.OpMOVSSload,
}

var storeOps32 = map[bc.Op]mir.Op{
	bc.OpI32Store8: mir.OpMOVBstore, bc.OpI32Store16: mir.OpMOVWstore,
	bc.OpI32Store: mir.OpMOVLstore, bc.OpF32Store: mir.OpMOVSSstore,
}

var floatBinOps32 = map[bc.Op]mir.Op{
	bc.OpF32Add: mir.OpADDSS, bc.OpF32Sub: mir.OpSUBSS, bc.OpF32Mul: mir.OpMULSS, bc.OpF32Div: mir.OpDIVSS,
	bc.OpF32Min: mir.OpMINSS, bc.OpF32Max: mir.OpMAXSS,
}

var roundModes32 = map[bc.Op]int32{
	bc.OpF32Floor: mir.RoundFloor, bc.OpF32Ceil: mir.RoundCeil, bc.OpF32Trunc: mir.RoundTrunc, bc.OpF32Nearest: mir.RoundNearest,
}

var binaryOps32 = map[bc.Op]struct{ reg, imm mir.Op }{
	bc.OpI32And:  {mir.OpANDL, mir.OpANDLconst},
	bc.OpI32Or:   {mir.OpORL, mir.OpORLconst},
	bc.OpI32Xor:  {mir.OpXORL, mir.OpXORLconst},
	bc.OpI32Shl:  {mir.OpSHLL, mir.OpSHLLconst},
	bc.OpI32ShrS: {mir.OpSARL, mir.OpSARLconst},
	bc.OpI32ShrU: {mir.OpSHRL, mir.OpSHRLconst},
	bc.OpI32Rotl: {mir.OpROLL, mir.OpROLLconst},
	bc.OpI32Rotr: {mir.OpRORL, mir.OpRORLconst},
}

// Float constants of the i32 conversions.
const (
	two31 = 2147483648.0 // 2^31
	two32 = 4294967296.0 // 2^32
)

// iconst32 materializes an i32 constant (zero-extended).
func (l *lowerer) iconst32(v int64) mir.Reg { return l.iconst(int64(uint32(v))) }

// imm32 is the immediate of a 32-bit instruction for the i32 value v.
func imm32(v int64) int64 { return int64(int32(v)) }

// fconst32 materializes an f32 constant from its bits.
func (l *lowerer) fconst32(bits uint32) mir.Reg {
	d := l.newX()
	l.emit(mir.Instr{Op: mir.OpMOVSSconst, Defs: []mir.Reg{d}, Imm: int64(bits), Pos: l.pos()})
	l.consts.set(d, int64(bits))
	return d
}

// convert lowers a one-operand conversion: op, whose result has class c,
// or fold of the constant when in.A holds one.
func (l *lowerer) convert(in *bc.Instr, op mir.Op, c mir.Class, fold func(int64) mir.Reg) {
	a := l.read(in.A)
	if v, ok := l.constOf(a); ok {
		l.write(in.Dst, fold(v))
		return
	}
	l.write(in.Dst, l.op(op, c, a))
}

// instr32 lowers one i32 or f32 instruction. handled is false for an op
// this file does not lower.
func (l *lowerer) instr32(in *bc.Instr, b int) (handled bool, err error) {
	blk := &l.layout.Blocks[b]
	switch in.Op {
	case bc.OpI32Const:
		l.write(in.Dst, l.iconst32(in.Imm))
	case bc.OpF32Const:
		l.write(in.Dst, l.fconst32(uint32(in.Imm)))

	case bc.OpI32Add, bc.OpI32Sub, bc.OpI32Mul, bc.OpI32DivS, bc.OpI32DivU, bc.OpI32RemS, bc.OpI32RemU,
		bc.OpI32And, bc.OpI32Or, bc.OpI32Xor, bc.OpI32Shl, bc.OpI32ShrS, bc.OpI32ShrU, bc.OpI32Rotl, bc.OpI32Rotr:
		if v, ok := l.intBinary32(in.Op, l.read(in.A), l.operandB(in)); ok {
			l.write(in.Dst, v)
		}
	case bc.OpI32Neg, bc.OpI32Not, bc.OpI32Clz, bc.OpI32Ctz, bc.OpI32Popcnt, bc.OpI32Extend8S, bc.OpI32Extend16S:
		l.write(in.Dst, l.intUnary32(in.Op, l.read(in.A)))
	case bc.OpI32Eqz, bc.OpI64Eqz:
		a := l.read(in.A)
		if c, ok := l.constOf(a); ok {
			if in.Op == bc.OpI32Eqz {
				c = int64(uint32(c))
			}
			l.write(in.Dst, l.iconst(int64(boolIndex(c == 0))))
			break
		}
		var c mir.Cond
		if in.Op == bc.OpI32Eqz {
			c = l.cmpFlags32(bc.CondEq, a, operand{isConst: true, reg: mir.NoReg})
		} else {
			c = l.cmpFlags(bc.CondEq, a, operand{isConst: true, reg: mir.NoReg})
		}
		d := l.setcc(c)
		l.recordCompare(d, c)
		l.write(in.Dst, d)
	case bc.OpI32Eq, bc.OpI32Ne, bc.OpI32LtS, bc.OpI32LtU, bc.OpI32LeS, bc.OpI32LeU,
		bc.OpI32GtS, bc.OpI32GtU, bc.OpI32GeS, bc.OpI32GeU:
		cond, _ := in.Op.CompareCond()
		a, bo := l.read(in.A), l.operandB(in)
		if ca, ok := l.constOf(a); ok && bo.isConst {
			l.write(in.Dst, l.iconst(int64(boolIndex(cond.Holds32(ca, bo.c)))))
			break
		}
		c := l.cmpFlags32(cond, a, bo)
		d := l.setcc(c)
		l.recordCompare(d, c)
		l.write(in.Dst, d)
	case bc.OpBrI32Eq, bc.OpBrI32Ne, bc.OpBrI32LtS, bc.OpBrI32LtU, bc.OpBrI32LeS, bc.OpBrI32LeU,
		bc.OpBrI32GtS, bc.OpBrI32GtU, bc.OpBrI32GeS, bc.OpBrI32GeU:
		cond, _ := in.Op.CompareCond()
		a, bo := l.read(in.A), l.operandB(in)
		if ca, ok := l.constOf(a); ok && bo.isConst {
			l.jumpEdge(int(blk.FirstEdge) + boolIndex(!cond.Holds32(ca, bo.c)))
			break
		}
		l.branchEdges(l.cmpFlags32(cond, a, bo), int(blk.FirstEdge), int(blk.FirstEdge)+1)

	case bc.OpF32Add, bc.OpF32Sub, bc.OpF32Mul, bc.OpF32Div, bc.OpF32Min, bc.OpF32Max:
		a, bv := l.read(in.A), l.read(in.B)
		ca, aConst := l.constOf(a)
		cb, bConst := l.constOf(bv)
		if aConst && bConst {
			l.write(in.Dst, l.fconst32(foldF32(in.Op, uint32(ca), uint32(cb))))
			break
		}
		l.write(in.Dst, l.op(floatBinOps32[in.Op], mir.XMM, a, bv))
	case bc.OpF32Copysign:
		a := l.op(mir.OpMOVX2L, mir.GPR, l.read(in.A))
		b := l.op(mir.OpMOVX2L, mir.GPR, l.read(in.B))
		mag := l.opImm(mir.OpANDLconst, a, math.MaxInt32)
		sign := l.opImm(mir.OpANDLconst, b, math.MinInt32)
		l.write(in.Dst, l.op(mir.OpMOVL2X, mir.XMM, l.op(mir.OpORL, mir.GPR, mag, sign)))
	case bc.OpF32Sqrt:
		l.write(in.Dst, l.op(mir.OpSQRTSS, mir.XMM, l.read(in.A)))
	case bc.OpF32Neg, bc.OpF32Abs:
		// The 64-bit masks act on the low 32 bits as the f32 masks do.
		op, mask := mir.OpXORPDconst, int64(1<<31)
		if in.Op == bc.OpF32Abs {
			op, mask = mir.OpANDPDconst, math.MaxInt32
		}
		d := l.newX()
		l.emit(mir.Instr{Op: op, Defs: []mir.Reg{d}, Uses: []mir.Reg{l.read(in.A)}, Imm: mask, Pos: l.pos()})
		l.write(in.Dst, d)
	case bc.OpF32Floor, bc.OpF32Ceil, bc.OpF32Trunc, bc.OpF32Nearest:
		if !l.target.SSE41 {
			return true, fmt.Errorf("%w: %s needs SSE4.1", ErrUnsupported, in.Op)
		}
		d := l.newX()
		l.emit(mir.Instr{Op: mir.OpROUNDSS, Defs: []mir.Reg{d}, Uses: []mir.Reg{l.read(in.A)}, Aux: roundModes32[in.Op], Pos: l.pos()})
		l.write(in.Dst, d)
	case bc.OpF32Eq, bc.OpF32Ne, bc.OpF32Lt, bc.OpF32Le, bc.OpF32Gt, bc.OpF32Ge:
		cond := l.floatCondOp(mir.OpUCOMISS, in.Op, l.read(in.A), l.read(in.B))
		d := l.setcc(cond)
		l.recordCompare(d, cond)
		l.write(in.Dst, d)

	case bc.OpI32WrapI64:
		l.convert(in, mir.OpMOVLQZX, mir.GPR, l.iconst32)
	case bc.OpI64ExtendI32S:
		l.convert(in, mir.OpMOVLQSX, mir.GPR, func(c int64) mir.Reg { return l.iconst(int64(int32(c))) })
	case bc.OpI64ExtendI32U:
		// The i32 value is already zero-extended.
		l.write(in.Dst, l.read(in.A))
	case bc.OpF32DemoteF64:
		l.convert(in, mir.OpCVTSD2SS, mir.XMM, func(c int64) mir.Reg { return l.fconst32(floatbits.Demote(uint64(c))) })
	case bc.OpF64PromoteF32:
		l.convert(in, mir.OpCVTSS2SD, mir.XMM, func(c int64) mir.Reg { return l.fconst(floatbits.Promote(uint32(c))) })
	case bc.OpF32ConvertI32S:
		l.write(in.Dst, l.op(mir.OpCVTSL2SS, mir.XMM, l.read(in.A)))
	case bc.OpF32ConvertI32U, bc.OpF32ConvertI64S:
		// A zero-extended u32 is a non-negative i64: one rounding.
		l.write(in.Dst, l.op(mir.OpCVTSQ2SS, mir.XMM, l.read(in.A)))
	case bc.OpF32ConvertI64U:
		d := l.newX()
		l.emit(mir.Instr{Op: mir.OpCVTUQ2SS, Defs: []mir.Reg{d, l.newG()}, Uses: []mir.Reg{l.read(in.A)}, Pos: l.pos()})
		l.write(in.Dst, d)
	case bc.OpF64ConvertI32S:
		l.write(in.Dst, l.op(mir.OpCVTSL2SD, mir.XMM, l.read(in.A)))
	case bc.OpF64ConvertI32U:
		l.write(in.Dst, l.op(mir.OpCVTSQ2SD, mir.XMM, l.read(in.A)))
	case bc.OpI32TruncF32S, bc.OpI32TruncF32U, bc.OpI32TruncSatF32S, bc.OpI32TruncSatF32U:
		// Promotion is exact: convert the f64.
		x := l.promote(l.read(in.A))
		if v, ok := l.truncToI32(trunc32From32[in.Op], x); ok {
			l.write(in.Dst, v)
		}
	case bc.OpI32TruncF64S, bc.OpI32TruncF64U, bc.OpI32TruncSatF64S, bc.OpI32TruncSatF64U:
		if v, ok := l.truncToI32(in.Op, l.read(in.A)); ok {
			l.write(in.Dst, v)
		}
	case bc.OpI64TruncF32S, bc.OpI64TruncF32U, bc.OpI64TruncSatF32S, bc.OpI64TruncSatF32U:
		x := l.promote(l.read(in.A))
		if v, ok := l.truncF64(trunc64From32[in.Op], x); ok {
			l.write(in.Dst, v)
		}
	case bc.OpI32ReinterpretF32:
		l.convert(in, mir.OpMOVX2L, mir.GPR, l.iconst32)
	case bc.OpF32ReinterpretI32:
		l.convert(in, mir.OpMOVL2X, mir.XMM, func(c int64) mir.Reg { return l.fconst32(uint32(c)) })

	case bc.OpI32Load8S, bc.OpI32Load8U, bc.OpI32Load16S, bc.OpI32Load16U, bc.OpI32Load, bc.OpF32Load:
		base, ea, disp, ok := l.memAddress(in.A, in.Imm, in.Op.Info().Size)
		if !ok {
			break
		}
		c := mir.GPR
		if in.Op == bc.OpF32Load {
			c = mir.XMM
		}
		d := l.f.NewVReg(c)
		l.emit(mir.Instr{Op: loadOps32[in.Op], Defs: []mir.Reg{d}, Uses: []mir.Reg{base, ea}, Scale: 1, Imm: disp, Pos: l.pos()})
		l.write(in.Dst, d)
	case bc.OpI32Store8, bc.OpI32Store16, bc.OpI32Store, bc.OpF32Store:
		val := l.read(in.B)
		base, ea, disp, ok := l.memAddress(in.A, in.Imm, in.Op.Info().Size)
		if !ok {
			break
		}
		l.emit(mir.Instr{Op: storeOps32[in.Op], Uses: []mir.Reg{base, ea, val}, Scale: 1, Imm: disp, Pos: l.pos()})
	default:
		return false, nil
	}
	return true, nil
}

// The f64 conversion that does the work of each f32 conversion.
var (
	trunc32From32 = map[bc.Op]bc.Op{
		bc.OpI32TruncF32S: bc.OpI32TruncF64S, bc.OpI32TruncF32U: bc.OpI32TruncF64U,
		bc.OpI32TruncSatF32S: bc.OpI32TruncSatF64S, bc.OpI32TruncSatF32U: bc.OpI32TruncSatF64U,
	}
	trunc64From32 = map[bc.Op]bc.Op{
		bc.OpI64TruncF32S: bc.OpI64TruncF64S, bc.OpI64TruncF32U: bc.OpI64TruncF64U,
		bc.OpI64TruncSatF32S: bc.OpI64TruncSatF64S, bc.OpI64TruncSatF32U: bc.OpI64TruncSatF64U,
	}
)

// promote converts the f32 x to f64, folding a constant.
func (l *lowerer) promote(x mir.Reg) mir.Reg {
	if c, ok := l.constOf(x); ok {
		return l.fconst(floatbits.Promote(uint32(c)))
	}
	return l.op(mir.OpCVTSS2SD, mir.XMM, x)
}

// foldF32 computes a binary f32 operation on constant bits.
func foldF32(op bc.Op, a, b uint32) uint32 {
	switch op {
	case bc.OpF32Add:
		return floatbits.Add32(a, b)
	case bc.OpF32Sub:
		return floatbits.Sub32(a, b)
	case bc.OpF32Mul:
		return floatbits.Mul32(a, b)
	case bc.OpF32Div:
		return floatbits.Div32(a, b)
	case bc.OpF32Min:
		return floatbits.Min32(a, b)
	case bc.OpF32Max:
		return floatbits.Max32(a, b)
	}
	return 0
}

// foldI32 computes a binary i32 operation on constants (any upper bits are
// ignored) and returns the result zero-extended, or the trap it raises.
func foldI32(op bc.Op, a64, b64 int64) (int64, bc.TrapKind) {
	a, b := int32(a64), int32(b64)
	ua, ub := uint32(a), uint32(b)
	var r uint32
	switch op {
	case bc.OpI32Add:
		r = ua + ub
	case bc.OpI32Sub:
		r = ua - ub
	case bc.OpI32Mul:
		r = ua * ub
	case bc.OpI32DivS, bc.OpI32RemS:
		switch {
		case b == 0:
			return 0, bc.TrapDivideByZero
		case b == -1 && op == bc.OpI32RemS:
			r = 0
		case b == -1 && a == math.MinInt32:
			return 0, bc.TrapIntegerOverflow
		case op == bc.OpI32DivS:
			r = uint32(a / b)
		default:
			r = uint32(a % b)
		}
	case bc.OpI32DivU, bc.OpI32RemU:
		switch {
		case b == 0:
			return 0, bc.TrapDivideByZero
		case op == bc.OpI32DivU:
			r = ua / ub
		default:
			r = ua % ub
		}
	case bc.OpI32And:
		r = ua & ub
	case bc.OpI32Or:
		r = ua | ub
	case bc.OpI32Xor:
		r = ua ^ ub
	case bc.OpI32Shl:
		r = ua << (ub & 31)
	case bc.OpI32ShrS:
		r = uint32(a >> (ub & 31))
	case bc.OpI32ShrU:
		r = ua >> (ub & 31)
	case bc.OpI32Rotl:
		r = bits.RotateLeft32(ua, int(ub&31))
	case bc.OpI32Rotr:
		r = bits.RotateLeft32(ua, -int(ub&31))
	}
	return int64(r), bc.TrapNone
}

// intBinary32 lowers an i32 binary operation. ok is false when the
// operation always traps (the trap has been emitted).
func (l *lowerer) intBinary32(op bc.Op, a mir.Reg, b operand) (mir.Reg, bool) {
	ca, aConst := l.constOf(a)
	if b.isConst {
		b.c = int64(uint32(b.c))
	}
	if aConst && b.isConst {
		v, trap := foldI32(op, ca, b.c)
		if trap != bc.TrapNone {
			l.trapAlways(trap)
			return mir.NoReg, false
		}
		return l.iconst(v), true
	}
	commutative := op == bc.OpI32Add || op == bc.OpI32Mul || op == bc.OpI32And || op == bc.OpI32Or || op == bc.OpI32Xor
	if aConst && !b.isConst && commutative {
		a, b = b.reg, operand{reg: a, c: int64(uint32(ca)), isConst: true}
	}
	switch op {
	case bc.OpI32Add:
		if b.isConst {
			if b.c == 0 {
				return a, true
			}
			return l.opImm(mir.OpLEAL, a, imm32(b.c)), true
		}
		return l.op(mir.OpADDL, mir.GPR, a, b.reg), true
	case bc.OpI32Sub:
		if b.isConst {
			if b.c == 0 {
				return a, true
			}
			return l.opImm(mir.OpLEAL, a, imm32(int64(-uint32(b.c)))), true
		}
		if aConst && uint32(ca) == 0 {
			return l.op(mir.OpNEGL, mir.GPR, b.reg), true
		}
		return l.op(mir.OpSUBL, mir.GPR, a, b.reg), true
	case bc.OpI32Mul:
		if b.isConst {
			switch {
			case b.c == 0:
				return l.iconst(0), true
			case b.c == 1:
				return a, true
			case b.c&(b.c-1) == 0:
				return l.opImm(mir.OpSHLLconst, a, int64(bits.TrailingZeros64(uint64(b.c)))), true
			}
			return l.opImm(mir.OpIMUL3Lconst, a, imm32(b.c)), true
		}
		return l.op(mir.OpIMULL, mir.GPR, a, b.reg), true
	case bc.OpI32DivS, bc.OpI32DivU, bc.OpI32RemS, bc.OpI32RemU:
		return l.divide32(op, a, b)
	case bc.OpI32And:
		if b.isConst {
			switch b.c {
			case 0:
				return l.iconst(0), true
			case math.MaxUint32:
				return a, true
			case 0xff:
				return l.op(mir.OpMOVBQZX, mir.GPR, a), true
			case 0xffff:
				return l.op(mir.OpMOVWQZX, mir.GPR, a), true
			}
		}
	case bc.OpI32Or:
		if b.isConst && b.c == 0 {
			return a, true
		}
	case bc.OpI32Xor:
		if b.isConst {
			switch b.c {
			case 0:
				return a, true
			case math.MaxUint32:
				return l.op(mir.OpNOTL, mir.GPR, a), true
			}
		}
	}
	forms := binaryOps32[op]
	isShift := op >= bc.OpI32Shl && op <= bc.OpI32Rotr
	if b.isConst {
		if isShift {
			n := b.c & 31
			if n == 0 {
				return a, true
			}
			return l.opImm(forms.imm, a, n), true
		}
		return l.opImm(forms.imm, a, imm32(b.c)), true
	}
	if aConst && isShift {
		a = l.iconst32(ca)
	}
	return l.op(forms.reg, mir.GPR, a, b.reg), true
}

// divide32 lowers i32 division and remainder with the checks of divide.
func (l *lowerer) divide32(op bc.Op, a mir.Reg, b operand) (mir.Reg, bool) {
	return l.divideWidth(divWidth{
		signed: op == bc.OpI32DivS || op == bc.OpI32RemS, rem: op == bc.OpI32RemS || op == bc.OpI32RemU,
		minusOne: math.MaxUint32, test: mir.OpTESTL, cmpConst: mir.OpCMPLconst, neg: mir.OpNEGL, shrConst: mir.OpSHRLconst,
		div: mir.OpDIVL, idiv: mir.OpIDIVL,
		compareMin: func(a mir.Reg) {
			l.emit(mir.Instr{Op: mir.OpCMPLconst, Uses: []mir.Reg{a}, Imm: math.MinInt32, Pos: l.pos()})
		},
		and: func(a mir.Reg, mask int64) mir.Reg {
			v, _ := l.intBinary32(bc.OpI32And, a, operand{c: mask, isConst: true, reg: mir.NoReg})
			return v
		},
	}, a, b)
}

// intUnary32 lowers the i32 unary operations.
func (l *lowerer) intUnary32(op bc.Op, a mir.Reg) mir.Reg {
	if c, ok := l.constOf(a); ok {
		u := uint32(c)
		var v uint32
		switch op {
		case bc.OpI32Neg:
			v = -u
		case bc.OpI32Not:
			v = ^u
		case bc.OpI32Clz:
			v = uint32(bits.LeadingZeros32(u))
		case bc.OpI32Ctz:
			v = uint32(bits.TrailingZeros32(u))
		case bc.OpI32Popcnt:
			v = uint32(bits.OnesCount32(u))
		case bc.OpI32Extend8S:
			v = uint32(int32(int8(u)))
		case bc.OpI32Extend16S:
			v = uint32(int32(int16(u)))
		}
		return l.iconst(int64(v))
	}
	switch op {
	case bc.OpI32Neg:
		return l.op(mir.OpNEGL, mir.GPR, a)
	case bc.OpI32Not:
		return l.op(mir.OpNOTL, mir.GPR, a)
	case bc.OpI32Clz:
		if l.target.LZCNT {
			return l.op(mir.OpLZCNTL, mir.GPR, a)
		}
		// 31 - bsr(a), or 32 for a == 0 (63 XOR 31).
		big := l.iconst(63)
		r := l.op(mir.OpBSRL, mir.GPR, a)
		r = l.newDefCMOV(mir.CondE, r, big)
		return l.opImm(mir.OpXORLconst, r, 31)
	case bc.OpI32Ctz:
		if l.target.BMI1 {
			return l.op(mir.OpTZCNTL, mir.GPR, a)
		}
		thirtyTwo := l.iconst(32)
		r := l.op(mir.OpBSFL, mir.GPR, a)
		return l.newDefCMOV(mir.CondE, r, thirtyTwo)
	case bc.OpI32Popcnt:
		if l.target.POPCNT {
			return l.op(mir.OpPOPCNTL, mir.GPR, a)
		}
		return l.popcountSWAR(a) // the upper half is zero
	case bc.OpI32Extend8S:
		return l.op(mir.OpMOVBLSX, mir.GPR, a)
	}
	return l.op(mir.OpMOVWLSX, mir.GPR, a)
}

// cmpFlags32 is cmpFlags for i32 operands: a 32-bit compare.
func (l *lowerer) cmpFlags32(cond bc.Cond, a mir.Reg, b operand) mir.Cond {
	if _, aConst := l.constOf(a); aConst && !b.isConst {
		a, b = b.reg, l.regOperand(a)
		cond = cond.Swapped()
	}
	switch {
	case b.isConst && uint32(b.c) == 0 && (cond == bc.CondEq || cond == bc.CondNe):
		l.emit(mir.Instr{Op: mir.OpTESTL, Uses: []mir.Reg{a, a}, Pos: l.pos()})
	case b.isConst:
		l.emit(mir.Instr{Op: mir.OpCMPLconst, Uses: []mir.Reg{a}, Imm: imm32(b.c), Pos: l.pos()})
	default:
		l.emit(mir.Instr{Op: mir.OpCMPL, Uses: []mir.Reg{a, b.reg}, Pos: l.pos()})
	}
	return intCond[cond]
}

// truncToI32 lowers the f64 -> i32 conversions.
func (l *lowerer) truncToI32(op bc.Op, x mir.Reg) (mir.Reg, bool) {
	if c, ok := l.constOf(x); ok {
		f := math.Float64frombits(uint64(c))
		switch op {
		case bc.OpI32TruncF64S:
			v, trap := interp.TruncS32(f)
			if trap != bc.TrapNone {
				l.trapAlways(trap)
				return mir.NoReg, false
			}
			return l.iconst32(int64(v)), true
		case bc.OpI32TruncF64U:
			v, trap := interp.TruncU32(f)
			if trap != bc.TrapNone {
				l.trapAlways(trap)
				return mir.NoReg, false
			}
			return l.iconst32(int64(v)), true
		case bc.OpI32TruncSatF64S:
			return l.iconst32(int64(interp.TruncSatS32(f))), true
		case bc.OpI32TruncSatF64U:
			return l.iconst32(int64(interp.TruncSatU32(f))), true
		}
	}
	switch op {
	case bc.OpI32TruncSatF64S:
		// Saturate to i64 (NaN -> 0), clamp to the i32 range, keep 32 bits.
		lo, hi := l.iconst(math.MinInt32), l.iconst(math.MaxInt32)
		r := l.op(mir.OpCVTTSD2SQsat, mir.GPR, x)
		l.emit(mir.Instr{Op: mir.OpCMPQconst, Uses: []mir.Reg{r}, Imm: math.MinInt32, Pos: l.pos()})
		r = l.newDefCMOV(mir.CondL, r, lo)
		l.emit(mir.Instr{Op: mir.OpCMPQconst, Uses: []mir.Reg{r}, Imm: math.MaxInt32, Pos: l.pos()})
		r = l.newDefCMOV(mir.CondG, r, hi)
		return l.op(mir.OpMOVLQZX, mir.GPR, r), true
	case bc.OpI32TruncSatF64U:
		zero, hi := l.zeroOf(mir.GPR), l.iconst(math.MaxUint32)
		r := l.op(mir.OpCVTTSD2SQsat, mir.GPR, x)
		l.emit(mir.Instr{Op: mir.OpTESTQ, Uses: []mir.Reg{r, r}, Pos: l.pos()})
		r = l.newDefCMOV(mir.CondL, r, zero)
		l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{r, hi}, Pos: l.pos()})
		return l.newDefCMOV(mir.CondG, r, hi), true
	}
	// Trapping conversions: NaN, then the range, then convert.
	l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, x}, Pos: l.pos()})
	l.checkTrap(mir.CondP, bc.TrapInvalidConversion)
	if op == bc.OpI32TruncF64S {
		hi := l.fconstOf(two31)
		l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, hi}, Pos: l.pos()})
		l.checkTrap(mir.CondAE, bc.TrapIntegerOverflow) // x >= 2^31
		lo := l.fconstOf(-two31 - 1)
		l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, lo}, Pos: l.pos()})
		l.checkTrap(mir.CondBE, bc.TrapIntegerOverflow) // x <= -2^31 - 1
		return l.op(mir.OpCVTTSD2SL, mir.GPR, x), true
	}
	hi := l.fconstOf(two32)
	l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, hi}, Pos: l.pos()})
	l.checkTrap(mir.CondAE, bc.TrapIntegerOverflow) // x >= 2^32
	lo := l.fconstOf(-1)
	l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, lo}, Pos: l.pos()})
	l.checkTrap(mir.CondBE, bc.TrapIntegerOverflow) // x <= -1
	// In [0, 2^32): the i64 conversion is exact and zero-extended.
	return l.op(mir.OpCVTTSD2SQ, mir.GPR, x), true
}
