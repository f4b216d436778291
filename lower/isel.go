package lower

import (
	"fmt"

	"math"
	"math/bits"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/interp"
	"github.com/kiln-jit/kiln/mir"
)

// constTable maps virtual registers to the constants they are known to
// hold.
type constTable struct {
	val   []int64
	known []bool
}

func (t *constTable) set(r mir.Reg, v int64) {
	for len(t.val) <= r.Index() {
		t.val = append(t.val, 0)
		t.known = append(t.known, false)
	}
	t.val[r.Index()], t.known[r.Index()] = v, true
}

func (t *constTable) get(r mir.Reg) (int64, bool) {
	if i := r.Index(); r.IsVirtual() && i < len(t.val) && t.known[i] {
		return t.val[i], true
	}
	return 0, false
}

func fitsImm32(x int64) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }

// read returns the current value of bytecode register r.
func (l *lowerer) read(r bc.Reg) mir.Reg { return l.ssa.read(int(r), l.cur.ID) }

// write binds bytecode register r to v.
func (l *lowerer) write(r bc.Reg, v mir.Reg) { l.assign(int(r), v) }

// assign makes v the value of variable x in the current block. A variable
// stableVars found unwritten may only be assigned in the entry block.
func (l *lowerer) assign(x int, v mir.Reg) {
	if l.ssa.stable[x] && l.cur != l.entryBlock && l.err == nil {
		l.err = fmt.Errorf("internal error: variable %d is written at offset %d but was found never written", x, l.pc)
	}
	l.ssa.write(x, l.cur.ID, v)
}

func (l *lowerer) newG() mir.Reg { return l.f.NewVReg(mir.GPR) }
func (l *lowerer) newX() mir.Reg { return l.f.NewVReg(mir.XMM) }

// constOf returns the constant value of v, if v is known to be constant.
func (l *lowerer) constOf(v mir.Reg) (int64, bool) {
	return l.consts.get(l.ssa.find(v))
}

func (l *lowerer) pos() int32 { return int32(l.pc) }

// iconst materializes an i64 constant.
func (l *lowerer) iconst(v int64) mir.Reg {
	d := l.newG()
	l.emit(mir.Instr{Op: mir.OpMOVQconst, Defs: []mir.Reg{d}, Imm: v, Pos: l.pos()})
	l.consts.set(d, v)
	return d
}

// fconst materializes an f64 constant from its bits.
func (l *lowerer) fconst(bits uint64) mir.Reg {
	d := l.newX()
	l.emit(mir.Instr{Op: mir.OpMOVSDconst, Defs: []mir.Reg{d}, Imm: int64(bits), Pos: l.pos()})
	l.consts.set(d, int64(bits))
	return d
}

// zeroOf returns a register holding zero of class c, defined in the entry
// block (which dominates every use).
func (l *lowerer) zeroOf(c mir.Class) mir.Reg {
	if z := l.zero[c]; z != 0 && z != mir.NoReg {
		return z
	}
	d := l.f.NewVReg(c)
	op := mir.OpMOVQconst
	if c == mir.XMM {
		op = mir.OpMOVSDconst
	}
	in := l.f.NewInstr(mir.Instr{Op: op, Defs: []mir.Reg{d}, Pos: -1})
	e := l.entryBlock
	if t := e.Terminator(); t != nil && t.Op.Info().Terminator {
		e.Instrs = append(e.Instrs[:len(e.Instrs)-1], in, t)
	} else {
		e.Append(in)
	}
	l.consts.set(d, 0)
	l.zero[c] = d
	return d
}

// op emits op with the given uses and one new def of class c.
func (l *lowerer) op(op mir.Op, c mir.Class, uses ...mir.Reg) mir.Reg {
	d := l.f.NewVReg(c)
	l.emit(mir.Instr{Op: op, Defs: []mir.Reg{d}, Uses: uses, Pos: l.pos()})
	return d
}

// opImm emits op with one use, an immediate and one new GPR def.
func (l *lowerer) opImm(op mir.Op, a mir.Reg, imm int64) mir.Reg {
	d := l.newG()
	l.emit(mir.Instr{Op: op, Defs: []mir.Reg{d}, Uses: []mir.Reg{a}, Imm: imm, Pos: l.pos()})
	return d
}

// operand is the B operand of a binary instruction: a register value, or a
// constant (an immediate or a register known to be constant).
type operand struct {
	reg     mir.Reg
	c       int64
	isConst bool
}

func (l *lowerer) operandB(in *bc.Instr) operand {
	if in.UseImm {
		return operand{c: in.Imm, isConst: true, reg: mir.NoReg}
	}
	r := l.read(in.B)
	if c, ok := l.constOf(r); ok {
		return operand{reg: r, c: c, isConst: true}
	}
	return operand{reg: r}
}

// materialize returns a register holding the operand.
func (l *lowerer) materialize(o operand) mir.Reg {
	if o.reg != mir.NoReg {
		return o.reg
	}
	return l.iconst(o.c)
}

func (l *lowerer) regOperand(r mir.Reg) operand {
	if c, ok := l.constOf(r); ok {
		return operand{reg: r, c: c, isConst: true}
	}
	return operand{reg: r}
}

var binaryOps = map[bc.Op]struct{ reg, imm mir.Op }{
	bc.OpI64And:  {mir.OpANDQ, mir.OpANDQconst},
	bc.OpI64Or:   {mir.OpORQ, mir.OpORQconst},
	bc.OpI64Xor:  {mir.OpXORQ, mir.OpXORQconst},
	bc.OpI64Shl:  {mir.OpSHLQ, mir.OpSHLQconst},
	bc.OpI64ShrS: {mir.OpSARQ, mir.OpSARQconst},
	bc.OpI64ShrU: {mir.OpSHRQ, mir.OpSHRQconst},
	bc.OpI64Rotl: {mir.OpROLQ, mir.OpROLQconst},
	bc.OpI64Rotr: {mir.OpRORQ, mir.OpRORQconst},
}

// foldI64 computes a binary i64 operation on constants with the reference
// semantics. It reports a trap kind for divisions that trap.
func foldI64(op bc.Op, a, b int64) (int64, bc.TrapKind) {
	ua, ub := uint64(a), uint64(b)
	switch op {
	case bc.OpI64Add:
		return a + b, bc.TrapNone
	case bc.OpI64Sub:
		return a - b, bc.TrapNone
	case bc.OpI64Mul:
		return a * b, bc.TrapNone
	case bc.OpI64DivS, bc.OpI64RemS:
		if b == 0 {
			return 0, bc.TrapDivideByZero
		}
		if b == -1 {
			if op == bc.OpI64RemS {
				return 0, bc.TrapNone
			}
			if a == math.MinInt64 {
				return 0, bc.TrapIntegerOverflow
			}
		}
		if op == bc.OpI64DivS {
			return a / b, bc.TrapNone
		}
		return a % b, bc.TrapNone
	case bc.OpI64DivU, bc.OpI64RemU:
		if b == 0 {
			return 0, bc.TrapDivideByZero
		}
		if op == bc.OpI64DivU {
			return int64(ua / ub), bc.TrapNone
		}
		return int64(ua % ub), bc.TrapNone
	case bc.OpI64And:
		return a & b, bc.TrapNone
	case bc.OpI64Or:
		return a | b, bc.TrapNone
	case bc.OpI64Xor:
		return a ^ b, bc.TrapNone
	case bc.OpI64Shl:
		return int64(ua << (ub & 63)), bc.TrapNone
	case bc.OpI64ShrS:
		return a >> (ub & 63), bc.TrapNone
	case bc.OpI64ShrU:
		return int64(ua >> (ub & 63)), bc.TrapNone
	case bc.OpI64Rotl:
		return int64(bits.RotateLeft64(ua, int(ub&63))), bc.TrapNone
	case bc.OpI64Rotr:
		return int64(bits.RotateLeft64(ua, -int(ub&63))), bc.TrapNone
	}
	if c, ok := op.CompareCond(); ok {
		if c.Holds(a, b) {
			return 1, bc.TrapNone
		}
		return 0, bc.TrapNone
	}
	return 0, bc.TrapNone
}

// intBinary lowers an i64 binary operation. ok is false when the operation
// always traps (the trap has been emitted).
func (l *lowerer) intBinary(op bc.Op, a mir.Reg, b operand) (mir.Reg, bool) {
	ca, aConst := l.constOf(a)
	if aConst && b.isConst {
		v, trap := foldI64(op, ca, b.c)
		if trap != bc.TrapNone {
			l.trapAlways(trap)
			return mir.NoReg, false
		}
		return l.iconst(v), true
	}
	commutative := op == bc.OpI64Add || op == bc.OpI64Mul || op == bc.OpI64And || op == bc.OpI64Or || op == bc.OpI64Xor
	if aConst && !b.isConst && commutative {
		a, b = b.reg, operand{reg: a, c: ca, isConst: true}
	}
	switch op {
	case bc.OpI64Add:
		if b.isConst {
			switch {
			case b.c == 0:
				return a, true
			case fitsImm32(b.c):
				return l.opImm(mir.OpLEAQ, a, b.c), true
			}
		}
		return l.op(mir.OpADDQ, mir.GPR, a, l.materialize(b)), true
	case bc.OpI64Sub:
		if b.isConst {
			switch {
			case b.c == 0:
				return a, true
			case b.c != math.MinInt64 && fitsImm32(-b.c):
				return l.opImm(mir.OpLEAQ, a, -b.c), true
			}
		}
		if aConst && ca == 0 {
			return l.op(mir.OpNEGQ, mir.GPR, b.reg), true
		}
		return l.op(mir.OpSUBQ, mir.GPR, a, l.materialize(b)), true
	case bc.OpI64Mul:
		if b.isConst {
			switch {
			case b.c == 0:
				return l.iconst(0), true
			case b.c == 1:
				return a, true
			case b.c > 0 && b.c&(b.c-1) == 0:
				return l.opImm(mir.OpSHLQconst, a, int64(bits.TrailingZeros64(uint64(b.c)))), true
			case fitsImm32(b.c):
				return l.opImm(mir.OpIMUL3Qconst, a, b.c), true
			}
		}
		return l.op(mir.OpIMULQ, mir.GPR, a, l.materialize(b)), true
	case bc.OpI64DivS, bc.OpI64DivU, bc.OpI64RemS, bc.OpI64RemU:
		return l.divide(op, a, b)
	case bc.OpI64And:
		if b.isConst {
			switch b.c {
			case 0:
				return l.iconst(0), true
			case -1:
				return a, true
			case 0xff:
				return l.op(mir.OpMOVBQZX, mir.GPR, a), true
			case 0xffff:
				return l.op(mir.OpMOVWQZX, mir.GPR, a), true
			case 0xffffffff:
				return l.op(mir.OpMOVLQZX, mir.GPR, a), true
			}
		}
	case bc.OpI64Or:
		if b.isConst && b.c == 0 {
			return a, true
		}
	case bc.OpI64Xor:
		if b.isConst {
			switch b.c {
			case 0:
				return a, true
			case -1:
				return l.op(mir.OpNOTQ, mir.GPR, a), true
			}
		}
	}
	forms := binaryOps[op]
	isShift := op >= bc.OpI64Shl && op <= bc.OpI64Rotr
	if b.isConst {
		if isShift {
			if n := b.c & 63; n == 0 {
				return a, true
			} else {
				return l.opImm(forms.imm, a, n), true
			}
		}
		if fitsImm32(b.c) {
			return l.opImm(forms.imm, a, b.c), true
		}
	}
	if aConst && isShift {
		a = l.materialize(operand{reg: a, c: ca, isConst: true})
	}
	return l.op(forms.reg, mir.GPR, a, l.materialize(b)), true
}

// divWidth holds what division differs in between i64 and i32.
type divWidth struct {
	signed, rem    bool   // the operation
	minusOne       int64  // -1 as the operand's constant (i32 constants are zero-extended)
	test, cmpConst mir.Op // TESTQ/TESTL, CMPQconst/CMPLconst
	neg, shrConst  mir.Op
	div, idiv      mir.Op
	compareMin     func(a mir.Reg) // sets ZF when a is the most negative value
	and            func(a mir.Reg, mask int64) mir.Reg
}

// divide lowers i64 division and remainder.
func (l *lowerer) divide(op bc.Op, a mir.Reg, b operand) (mir.Reg, bool) {
	return l.divideWidth(divWidth{
		signed: op == bc.OpI64DivS || op == bc.OpI64RemS, rem: op == bc.OpI64RemS || op == bc.OpI64RemU,
		minusOne: -1, test: mir.OpTESTQ, cmpConst: mir.OpCMPQconst, neg: mir.OpNEGQ, shrConst: mir.OpSHRQconst,
		div: mir.OpDIVQ, idiv: mir.OpIDIVQ,
		compareMin: func(a mir.Reg) {
			min := l.iconst(math.MinInt64)
			l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{a, min}, Pos: l.pos()})
		},
		and: func(a mir.Reg, mask int64) mir.Reg { return l.intBinaryNoFold(bc.OpI64And, a, mask) },
	}, a, b)
}

// divideWidth lowers division and remainder with explicit checks: a
// divisor of zero traps, the most negative value / -1 traps, and the most
// negative value % -1 is 0 (x86 would fault on both, so the remainder
// divides by 1 instead when the divisor is -1: x % 1 == x % -1 == 0).
func (l *lowerer) divideWidth(w divWidth, a mir.Reg, b operand) (mir.Reg, bool) {
	var divisor mir.Reg
	switch {
	case b.isConst && b.c == 0:
		l.trapAlways(bc.TrapDivideByZero)
		return mir.NoReg, false
	case b.isConst && w.signed && b.c == w.minusOne:
		if w.rem {
			return l.iconst(0), true
		}
		// a / -1 = -a, trapping for the most negative value.
		w.compareMin(a)
		l.checkTrap(mir.CondE, bc.TrapIntegerOverflow)
		return l.op(w.neg, mir.GPR, a), true
	case b.isConst:
		if !w.signed && b.c > 0 && b.c&(b.c-1) == 0 {
			// Unsigned division by a power of two is a shift or a mask.
			if w.rem {
				return w.and(a, b.c-1), true
			}
			return l.opImm(w.shrConst, a, int64(bits.TrailingZeros64(uint64(b.c)))), true
		}
		divisor = l.materialize(b)
	default:
		divisor = b.reg
		l.emit(mir.Instr{Op: w.test, Uses: []mir.Reg{divisor, divisor}, Pos: l.pos()})
		l.checkTrap(mir.CondE, bc.TrapDivideByZero)
		if w.signed && !w.rem {
			l.emit(mir.Instr{Op: w.cmpConst, Uses: []mir.Reg{divisor}, Imm: -1, Pos: l.pos()})
			l.overflowCheckWith(func() { w.compareMin(a) })
		}
		if w.signed && w.rem {
			one := l.iconst(1)
			l.emit(mir.Instr{Op: w.cmpConst, Uses: []mir.Reg{divisor}, Imm: -1, Pos: l.pos()})
			divisor = l.newDefCMOV(mir.CondE, divisor, one)
		}
	}
	quo, remainder := l.newG(), l.newG()
	div := w.div
	if w.signed {
		div = w.idiv
	}
	l.emit(mir.Instr{Op: div, Defs: []mir.Reg{quo, remainder}, Uses: []mir.Reg{a, divisor}, Pos: l.pos()})
	if w.rem {
		return remainder, true
	}
	return quo, true
}

func (l *lowerer) intBinaryNoFold(op bc.Op, a mir.Reg, imm int64) mir.Reg {
	v, _ := l.intBinary(op, a, operand{c: imm, isConst: true, reg: mir.NoReg})
	return v
}

// newDefCMOV returns cond ? ifTrue : ifFalse on the current flags.
func (l *lowerer) newDefCMOV(cond mir.Cond, ifFalse, ifTrue mir.Reg) mir.Reg {
	d := l.newG()
	l.emit(mir.Instr{Op: mir.OpCMOVQCC, Cond: cond, Defs: []mir.Reg{d}, Uses: []mir.Reg{ifFalse, ifTrue}, Pos: l.pos()})
	return d
}

// coldSplit ends the current block with a branch on cond to a new cold
// block (taken with probability ProbTrap), which it seals, and to a new
// continuation block, which the caller seals.
func (l *lowerer) coldSplit(cond mir.Cond) (cold, cont *mir.Block) {
	freq := l.curFreq
	cold = l.newSealedBlock(freq * ProbTrap)
	cont = l.newSealedBlock(freq)
	l.emit(mir.Instr{Op: mir.OpJCC, Cond: cond, Pos: l.pos()})
	l.f.AddEdge(l.cur.ID, cold.ID, ProbTrap)
	l.f.AddEdge(l.cur.ID, cont.ID, 1-ProbTrap)
	l.ssa.seal(cold.ID)
	return cold, cont
}

// overflowCheckWith follows a comparison of the divisor with -1: when it is
// -1, compareMin sets the flags to "equal" exactly when the dividend is the
// most negative value, and then the division traps with an integer
// overflow.
func (l *lowerer) overflowCheckWith(compareMin func()) {
	freq := l.curFreq
	minusOne, cont := l.coldSplit(mir.CondE)
	// Neither path writes a variable: both blocks see the same bindings.
	l.ssa.inherit(minusOne.ID, l.cur.ID)
	l.ssa.inherit(cont.ID, l.cur.ID)
	l.cur, l.curFreq = minusOne, minusOne.Freq
	compareMin()
	l.checkTrap(mir.CondE, bc.TrapIntegerOverflow)
	l.emit(mir.Instr{Op: mir.OpJMP, Pos: l.pos()})
	l.f.AddEdge(l.cur.ID, cont.ID, 1)
	l.ssa.seal(cont.ID)
	l.cur, l.curFreq = cont, freq
}

// cmpFlags sets the flags by comparing a with b and returns the condition
// for cond (swapping the operands when only a is constant).
func (l *lowerer) cmpFlags(cond bc.Cond, a mir.Reg, b operand) mir.Cond {
	if _, aConst := l.constOf(a); aConst && !b.isConst {
		a, b = b.reg, l.regOperand(a)
		cond = cond.Swapped()
	}
	if b.isConst && fitsImm32(b.c) {
		if b.c == 0 && (cond == bc.CondEq || cond == bc.CondNe) {
			l.emit(mir.Instr{Op: mir.OpTESTQ, Uses: []mir.Reg{a, a}, Pos: l.pos()})
		} else {
			l.emit(mir.Instr{Op: mir.OpCMPQconst, Uses: []mir.Reg{a}, Imm: b.c, Pos: l.pos()})
		}
	} else {
		bv := l.materialize(b)
		l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{a, bv}, Pos: l.pos()})
	}
	return intCond[cond]
}

var intCond = [...]mir.Cond{
	bc.CondEq: mir.CondE, bc.CondNe: mir.CondNE,
	bc.CondLtS: mir.CondL, bc.CondLtU: mir.CondB,
	bc.CondLeS: mir.CondLE, bc.CondLeU: mir.CondBE,
	bc.CondGtS: mir.CondG, bc.CondGtU: mir.CondA,
	bc.CondGeS: mir.CondGE, bc.CondGeU: mir.CondAE,
}

// floatCond sets the flags for an f64 comparison and returns the condition
// to test. UCOMISD sets CF for "below" and ZF for "equal", and all three of
// ZF, PF and CF when the operands are unordered, so a > b is "above" (false
// for NaN), a < b is b > a, and equality must also check parity.
func (l *lowerer) floatCond(op bc.Op, a, b mir.Reg) mir.Cond {
	return l.floatCondOp(mir.OpUCOMISD, op, a, b)
}

// floatCondOp is floatCond with the compare instruction cmp (UCOMISD or
// UCOMISS) for the f64 or f32 comparison op.
func (l *lowerer) floatCondOp(cmp mir.Op, op bc.Op, a, b mir.Reg) mir.Cond {
	var cond mir.Cond
	switch op {
	case bc.OpF64Eq, bc.OpF32Eq:
		cond = mir.CondFEQ
	case bc.OpF64Ne, bc.OpF32Ne:
		cond = mir.CondFNE
	case bc.OpF64Gt, bc.OpF32Gt:
		cond = mir.CondA
	case bc.OpF64Ge, bc.OpF32Ge:
		cond = mir.CondAE
	case bc.OpF64Lt, bc.OpF32Lt:
		a, b, cond = b, a, mir.CondA
	case bc.OpF64Le, bc.OpF32Le:
		a, b, cond = b, a, mir.CondAE
	}
	l.emit(mir.Instr{Op: cmp, Uses: []mir.Reg{a, b}, Pos: l.pos()})
	return cond
}

// flagsFor sets the flags from a 0/1 condition value c and returns the
// condition meaning "c is true": it re-emits the comparison that produced c
// when it is known, and tests c against zero otherwise.
func (l *lowerer) flagsFor(c mir.Reg) mir.Cond {
	c = l.ssa.find(c)
	if ci, ok := l.compares[c.Index()]; ok {
		uses := []mir.Reg{ci.a, ci.b}
		if ci.op.Info().HasImm {
			uses = uses[:1]
		}
		l.emit(mir.Instr{Op: ci.op, Uses: uses, Imm: ci.imm, Pos: l.pos()})
		return ci.cond
	}
	l.emit(mir.Instr{Op: mir.OpTESTQ, Uses: []mir.Reg{c, c}, Pos: l.pos()})
	return mir.CondNE
}

// recordCompare remembers how the SETCC result d was computed: the SETCC
// was the last instruction emitted, the comparison the one before it.
func (l *lowerer) recordCompare(d mir.Reg, cond mir.Cond) {
	cmp := l.cur.Instrs[len(l.cur.Instrs)-2]
	ci := compareInfo{cond: cond, op: cmp.Op, a: cmp.Uses[0], b: mir.NoReg, imm: cmp.Imm}
	if len(cmp.Uses) > 1 {
		ci.b = cmp.Uses[1]
	}
	l.compares[d.Index()] = ci
}

func (l *lowerer) setcc(cond mir.Cond) mir.Reg {
	d := l.newG()
	l.emit(mir.Instr{Op: mir.OpSETCC, Cond: cond, Defs: []mir.Reg{d}, Pos: l.pos()})
	return d
}

// Float constants used by the conversions.
const (
	two63       = 9223372036854775808.0  // 2^63
	two64       = 18446744073709551616.0 // 2^64
	signMask    = -1 << 63
	notSignMask = math.MaxInt64
)

func (l *lowerer) fconstOf(v float64) mir.Reg { return l.fconst(math.Float64bits(v)) }

// convert lowers the f64 -> i64 conversions.
func (l *lowerer) truncF64(op bc.Op, x mir.Reg) (mir.Reg, bool) {
	if c, ok := l.constOf(x); ok {
		f := math.Float64frombits(uint64(c))
		switch op {
		case bc.OpI64TruncF64S:
			v, trap := interp.TruncS(f)
			if trap != bc.TrapNone {
				l.trapAlways(trap)
				return mir.NoReg, false
			}
			return l.iconst(v), true
		case bc.OpI64TruncF64U:
			v, trap := interp.TruncU(f)
			if trap != bc.TrapNone {
				l.trapAlways(trap)
				return mir.NoReg, false
			}
			return l.iconst(int64(v)), true
		case bc.OpI64TruncSatF64S:
			return l.iconst(interp.TruncSatS(f)), true
		case bc.OpI64TruncSatF64U:
			return l.iconst(int64(interp.TruncSatU(f))), true
		}
	}
	switch op {
	case bc.OpI64TruncSatF64S:
		return l.op(mir.OpCVTTSD2SQsat, mir.GPR, x), true
	case bc.OpI64TruncSatF64U:
		d := l.newG()
		l.emit(mir.Instr{Op: mir.OpCVTTSD2UQsat, Defs: []mir.Reg{d, l.newX()}, Uses: []mir.Reg{x}, Pos: l.pos()})
		return d, true
	}
	// Trapping conversions: NaN, then the range, then convert.
	l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, x}, Pos: l.pos()})
	l.checkTrap(mir.CondP, bc.TrapInvalidConversion)
	if op == bc.OpI64TruncF64S {
		hi := l.fconstOf(two63)
		l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, hi}, Pos: l.pos()})
		l.checkTrap(mir.CondAE, bc.TrapIntegerOverflow) // x >= 2^63
		lo := l.fconstOf(-two63)
		l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, lo}, Pos: l.pos()})
		l.checkTrap(mir.CondB, bc.TrapIntegerOverflow) // x < -2^63
		return l.op(mir.OpCVTTSD2SQ, mir.GPR, x), true
	}
	hi := l.fconstOf(two64)
	l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, hi}, Pos: l.pos()})
	l.checkTrap(mir.CondAE, bc.TrapIntegerOverflow) // x >= 2^64
	lo := l.fconstOf(-1)
	l.emit(mir.Instr{Op: mir.OpUCOMISD, Uses: []mir.Reg{x, lo}, Pos: l.pos()})
	l.checkTrap(mir.CondBE, bc.TrapIntegerOverflow) // x <= -1
	d := l.newG()
	l.emit(mir.Instr{Op: mir.OpCVTTSD2UQ, Defs: []mir.Reg{d, l.newX()}, Uses: []mir.Reg{x}, Pos: l.pos()})
	return d, true
}

// memoryBulk lowers memory.copy and memory.fill: the bounds checks, which
// trap before anything is written, then one MEMMOVE or MEMFILL on the
// host addresses. The range of n bytes at address a is in bounds when
// n <= length and a <= length - n, which no overflow can fool.
func (l *lowerer) memoryBulk(in *bc.Instr) {
	dst, b, n := l.read(in.A), l.read(in.B), l.read(in.C)
	length := l.read(bc.Reg(l.varMemLen()))
	l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{n, length}, Pos: l.pos()})
	l.checkTrap(mir.CondA, bc.TrapOutOfBounds)
	room := l.op(mir.OpSUBQ, mir.GPR, length, n)
	addrs := []mir.Reg{dst}
	if in.Op == bc.OpMemoryCopy {
		addrs = append(addrs, b)
	}
	for _, a := range addrs {
		l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{a, room}, Pos: l.pos()})
		l.checkTrap(mir.CondA, bc.TrapOutOfBounds)
	}
	base := l.read(bc.Reg(l.varMemBase()))
	host := func(a mir.Reg) mir.Reg {
		d := l.newG()
		l.emit(mir.Instr{Op: mir.OpLEAQidx, Defs: []mir.Reg{d}, Uses: []mir.Reg{base, a}, Scale: 1, Pos: l.pos()})
		return d
	}
	if in.Op == bc.OpMemoryCopy {
		l.emit(mir.Instr{Op: mir.OpMEMMOVE, Defs: []mir.Reg{l.newG(), l.newG(), l.newG()},
			Uses: []mir.Reg{host(dst), host(b), n}, Pos: l.pos()})
		return
	}
	l.emit(mir.Instr{Op: mir.OpMEMFILL, Defs: []mir.Reg{l.newG(), l.newG()}, Uses: []mir.Reg{host(dst), b, n}, Pos: l.pos()})
}

// memAddress lowers the effective address of a load or store of size bytes
// at register r plus off, with the bounds check: the memory operand is
// [base + ea*1 + disp], ea NoReg for a constant address that needs no
// check (disp is then the address). ok is false when the access always
// traps.
func (l *lowerer) memAddress(r bc.Reg, off int64, size int) (base, ea mir.Reg, disp int64, ok bool) {
	av := l.read(r)
	if c, isConst := l.constOf(av); isConst {
		addr := uint64(c) + uint64(off)
		end := addr + uint64(size)
		switch {
		case end < addr || end > uint64(l.m.Memory.MaxPages)*bc.PageSize:
			// Beyond any size memory can ever have.
			l.trapAlways(bc.TrapOutOfBounds)
			return 0, 0, 0, false
		case end <= uint64(l.m.Memory.MinPages)*bc.PageSize:
			// Within the memory's initial size, which it never shrinks
			// below: no check, and the address is a displacement when it
			// fits in one.
			if addr <= math.MaxInt32 {
				return l.read(bc.Reg(l.varMemBase())), mir.NoReg, int64(addr), true
			}
			return l.read(bc.Reg(l.varMemBase())), l.iconst(int64(addr)), 0, true
		}
		ea = l.iconst(int64(addr))
	} else if off != 0 {
		ea = l.opImm(mir.OpLEAQ, av, off)
	} else {
		ea = av
	}
	// In bounds exactly when ea < max(0, length - size + 1), unsigned.
	bound := l.read(bc.Reg(l.varMemBound(size)))
	l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{ea, bound}, Pos: l.pos()})
	l.checkTrap(mir.CondAE, bc.TrapOutOfBounds)
	return l.read(bc.Reg(l.varMemBase())), ea, 0, true
}
