package lower

import (
	"fmt"
	"math/bits"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/floatbits"
	"github.com/kiln-jit/kiln/mir"
	"github.com/kiln-jit/kiln/profilecounters"
)

var loadOps = map[bc.Op]mir.Op{
	bc.OpI64Load8S: mir.OpMOVBQSXload, bc.OpI64Load8U: mir.OpMOVBQZXload,
	bc.OpI64Load16S: mir.OpMOVWQSXload, bc.OpI64Load16U: mir.OpMOVWQZXload,
	bc.OpI64Load32S: mir.OpMOVLQSXload, bc.OpI64Load32U: mir.OpMOVLQZXload,
	bc.OpI64Load: mir.OpMOVQload, bc.OpF64Load: mir.OpMOVSDload,
}

var storeOps = map[bc.Op]mir.Op{
	bc.OpI64Store8: mir.OpMOVBstore, bc.OpI64Store16: mir.OpMOVWstore, bc.OpI64Store32: mir.OpMOVLstore,
	bc.OpI64Store: mir.OpMOVQstore, bc.OpF64Store: mir.OpMOVSDstore,
}

var extendOps = map[bc.Op]mir.Op{
	bc.OpI64Extend8S: mir.OpMOVBQSX, bc.OpI64Extend16S: mir.OpMOVWQSX,
	bc.OpI64Extend32S: mir.OpMOVLQSX, bc.OpI64Extend32U: mir.OpMOVLQZX,
}

var floatBinOps = map[bc.Op]mir.Op{
	bc.OpF64Add: mir.OpADDSD, bc.OpF64Sub: mir.OpSUBSD, bc.OpF64Mul: mir.OpMULSD, bc.OpF64Div: mir.OpDIVSD,
	bc.OpF64Min: mir.OpMINSD, bc.OpF64Max: mir.OpMAXSD,
}

var roundModes = map[bc.Op]int32{
	bc.OpF64Floor: mir.RoundFloor, bc.OpF64Ceil: mir.RoundCeil, bc.OpF64Trunc: mir.RoundTrunc, bc.OpF64Nearest: mir.RoundNearest,
}

// instr lowers one bytecode instruction of bytecode block b.
func (l *lowerer) instr(in *bc.Instr, b int) error {
	blk := &l.layout.Blocks[b]
	switch in.Op {
	case bc.OpI64Const:
		l.write(in.Dst, l.iconst(in.Imm))
	case bc.OpF64Const:
		l.write(in.Dst, l.fconst(uint64(in.Imm)))
	case bc.OpMov:
		l.write(in.Dst, l.read(in.A))

	case bc.OpI64Add, bc.OpI64Sub, bc.OpI64Mul, bc.OpI64DivS, bc.OpI64DivU, bc.OpI64RemS, bc.OpI64RemU,
		bc.OpI64And, bc.OpI64Or, bc.OpI64Xor, bc.OpI64Shl, bc.OpI64ShrS, bc.OpI64ShrU, bc.OpI64Rotl, bc.OpI64Rotr:
		v, ok := l.intBinary(in.Op, l.read(in.A), l.operandB(in))
		if ok {
			l.write(in.Dst, v)
		}

	case bc.OpI64Neg, bc.OpI64Not, bc.OpI64Clz, bc.OpI64Ctz, bc.OpI64Popcnt,
		bc.OpI64Extend8S, bc.OpI64Extend16S, bc.OpI64Extend32S, bc.OpI64Extend32U:
		v, err := l.intUnary(in.Op, l.read(in.A))
		if err != nil {
			return err
		}
		l.write(in.Dst, v)

	case bc.OpI64Eq, bc.OpI64Ne, bc.OpI64LtS, bc.OpI64LtU, bc.OpI64LeS, bc.OpI64LeU,
		bc.OpI64GtS, bc.OpI64GtU, bc.OpI64GeS, bc.OpI64GeU:
		cond, _ := in.Op.CompareCond()
		a, bo := l.read(in.A), l.operandB(in)
		if ca, ok := l.constOf(a); ok && bo.isConst {
			v, _ := foldI64(in.Op, ca, bo.c)
			l.write(in.Dst, l.iconst(v))
			break
		}
		c := l.cmpFlags(cond, a, bo)
		d := l.setcc(c)
		l.recordCompare(d, c)
		l.write(in.Dst, d)

	case bc.OpSelect:
		l.write(in.Dst, l.selectValue(in))

	case bc.OpF64Add, bc.OpF64Sub, bc.OpF64Mul, bc.OpF64Div, bc.OpF64Min, bc.OpF64Max:
		a, bv := l.read(in.A), l.read(in.B)
		ca, aConst := l.constOf(a)
		cb, bConst := l.constOf(bv)
		if aConst && bConst {
			l.write(in.Dst, l.fconst(foldF64(in.Op, uint64(ca), uint64(cb))))
			break
		}
		l.write(in.Dst, l.op(floatBinOps[in.Op], mir.XMM, a, bv))
	case bc.OpF64Copysign:
		// Through the integer registers: (a &^ sign) | (b & sign).
		a := l.op(mir.OpMOVX2Q, mir.GPR, l.read(in.A))
		b := l.op(mir.OpMOVX2Q, mir.GPR, l.read(in.B))
		mag := l.op(mir.OpANDQ, mir.GPR, a, l.iconst(notSignMask))
		sign := l.op(mir.OpANDQ, mir.GPR, b, l.iconst(signMask))
		l.write(in.Dst, l.op(mir.OpMOVQ2X, mir.XMM, l.op(mir.OpORQ, mir.GPR, mag, sign)))
	case bc.OpF64Sqrt:
		l.write(in.Dst, l.op(mir.OpSQRTSD, mir.XMM, l.read(in.A)))
	case bc.OpF64Neg, bc.OpF64Abs:
		op, mask := mir.OpXORPDconst, int64(signMask)
		if in.Op == bc.OpF64Abs {
			op, mask = mir.OpANDPDconst, notSignMask
		}
		d := l.newX()
		l.emit(mir.Instr{Op: op, Defs: []mir.Reg{d}, Uses: []mir.Reg{l.read(in.A)}, Imm: mask, Pos: l.pos()})
		l.write(in.Dst, d)
	case bc.OpF64Floor, bc.OpF64Ceil, bc.OpF64Trunc, bc.OpF64Nearest:
		if !l.target.SSE41 {
			return fmt.Errorf("%w: %s needs SSE4.1", ErrUnsupported, in.Op)
		}
		d := l.newX()
		l.emit(mir.Instr{Op: mir.OpROUNDSD, Defs: []mir.Reg{d}, Uses: []mir.Reg{l.read(in.A)}, Aux: roundModes[in.Op], Pos: l.pos()})
		l.write(in.Dst, d)
	case bc.OpF64Eq, bc.OpF64Ne, bc.OpF64Lt, bc.OpF64Le, bc.OpF64Gt, bc.OpF64Ge:
		cond := l.floatCond(in.Op, l.read(in.A), l.read(in.B))
		d := l.setcc(cond)
		l.recordCompare(d, cond)
		l.write(in.Dst, d)

	case bc.OpF64ConvertI64S:
		l.write(in.Dst, l.op(mir.OpCVTSQ2SD, mir.XMM, l.read(in.A)))
	case bc.OpF64ConvertI64U:
		d := l.newX()
		l.emit(mir.Instr{Op: mir.OpCVTUQ2SD, Defs: []mir.Reg{d, l.newG()}, Uses: []mir.Reg{l.read(in.A)}, Pos: l.pos()})
		l.write(in.Dst, d)
	case bc.OpI64TruncF64S, bc.OpI64TruncF64U, bc.OpI64TruncSatF64S, bc.OpI64TruncSatF64U:
		if v, ok := l.truncF64(in.Op, l.read(in.A)); ok {
			l.write(in.Dst, v)
		}
	case bc.OpI64ReinterpretF64:
		l.write(in.Dst, l.op(mir.OpMOVX2Q, mir.GPR, l.read(in.A)))
	case bc.OpF64ReinterpretI64:
		l.write(in.Dst, l.op(mir.OpMOVQ2X, mir.XMM, l.read(in.A)))

	case bc.OpI64Load8S, bc.OpI64Load8U, bc.OpI64Load16S, bc.OpI64Load16U, bc.OpI64Load32S, bc.OpI64Load32U,
		bc.OpI64Load, bc.OpF64Load:
		base, ea, disp, ok := l.memAddress(in.A, in.Imm, in.Op.Info().Size)
		if !ok {
			break
		}
		c := mir.GPR
		if in.Op == bc.OpF64Load {
			c = mir.XMM
		}
		d := l.f.NewVReg(c)
		l.emit(mir.Instr{Op: loadOps[in.Op], Defs: []mir.Reg{d}, Uses: []mir.Reg{base, ea}, Scale: 1, Imm: disp, Pos: l.pos()})
		l.write(in.Dst, d)
	case bc.OpI64Store8, bc.OpI64Store16, bc.OpI64Store32, bc.OpI64Store, bc.OpF64Store:
		val := l.read(in.B)
		base, ea, disp, ok := l.memAddress(in.A, in.Imm, in.Op.Info().Size)
		if !ok {
			break
		}
		l.emit(mir.Instr{Op: storeOps[in.Op], Uses: []mir.Reg{base, ea, val}, Scale: 1, Imm: disp, Pos: l.pos()})
	case bc.OpMemorySize:
		l.write(in.Dst, l.opImm(mir.OpSHRQconst, l.read(bc.Reg(l.varMemLen())), 16))
	case bc.OpMemoryGrow:
		d := l.newG()
		l.emit(mir.Instr{Op: mir.OpCALLRT, Aux: mir.RTMemoryGrow, Defs: []mir.Reg{d}, Uses: []mir.Reg{l.read(in.A)}, Pos: l.pos()})
		if l.bf.Regs[in.Dst] == bc.I32 {
			d = l.op(mir.OpMOVLQZX, mir.GPR, d) // -1 on failure is 0xFFFFFFFF in an i32
		}
		l.write(in.Dst, d)
		l.loadMemoryState()

	case bc.OpJump:
		l.jumpEdge(int(blk.FirstEdge))
	case bc.OpBrIf:
		a := l.read(in.A)
		if c, ok := l.constOf(a); ok {
			l.jumpEdge(int(blk.FirstEdge) + boolIndex(c == 0))
			break
		}
		l.branchEdges(l.flagsFor(a), int(blk.FirstEdge), int(blk.FirstEdge)+1)
	case bc.OpBrEq, bc.OpBrNe, bc.OpBrLtS, bc.OpBrLtU, bc.OpBrLeS, bc.OpBrLeU,
		bc.OpBrGtS, bc.OpBrGtU, bc.OpBrGeS, bc.OpBrGeU:
		cond, _ := in.Op.CompareCond()
		a, bo := l.read(in.A), l.operandB(in)
		if ca, ok := l.constOf(a); ok && bo.isConst {
			l.jumpEdge(int(blk.FirstEdge) + boolIndex(!cond.Holds(ca, bo.c)))
			break
		}
		l.branchEdges(l.cmpFlags(cond, a, bo), int(blk.FirstEdge), int(blk.FirstEdge)+1)
	case bc.OpSwitch:
		l.switchOn(in, blk)
	case bc.OpCall:
		l.emit(mir.Instr{Op: mir.OpPoll, Pos: l.pos()})
		callee := l.m.Funcs[in.Callee]
		l.call(mir.OpCALL, in, Classes(callee.Sig.Results))
	case bc.OpCallHost:
		l.call(mir.OpCALLHOST, in, Classes(l.m.Hosts[in.Callee].Sig.Results))
	case bc.OpReturn:
		uses := make([]mir.Reg, len(in.Args))
		for i, r := range in.Args {
			uses[i] = l.read(r)
		}
		l.emit(mir.Instr{Op: mir.OpRET, Uses: uses, Pos: l.pos()})
		l.cur = nil
	case bc.OpTrap:
		l.emit(mir.Instr{Op: mir.OpTRAP, Aux: int32(bc.TrapExplicit), Imm: in.Imm, Pos: l.pos()})
		l.cur = nil
	case bc.OpUnreachable:
		l.trapAlways(bc.TrapUnreachable)
	case bc.OpGlobalGet:
		l.globalGet(in)
	case bc.OpGlobalSet:
		l.globalSet(in)
	case bc.OpCallIndirect:
		l.callIndirect(in)
	case bc.OpMemoryCopy, bc.OpMemoryFill:
		l.memoryBulk(in)
	case bc.OpMemoryInit:
		l.runtimeCall(mir.RTMemoryInit, l.iconst(int64(in.Callee)), l.read(in.A), l.read(in.B), l.read(in.C))
	case bc.OpDataDrop:
		l.runtimeCall(mir.RTDataDrop, l.iconst(int64(in.Callee)))
	case bc.OpRefFunc, bc.OpTableGet, bc.OpTableSet, bc.OpTableSize, bc.OpTableGrow, bc.OpTableFill,
		bc.OpTableCopy, bc.OpTableInit, bc.OpElemDrop:
		l.tableOp(in)
	default:
		if handled, err := l.instr32(in, b); handled || err != nil {
			return err
		}
		return fmt.Errorf("no lowering for %s", in.Op)
	}
	return nil
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// call emits a call and binds its results.
func (l *lowerer) call(op mir.Op, in *bc.Instr, results []mir.Class) {
	uses := make([]mir.Reg, len(in.Args))
	for i, r := range in.Args {
		uses[i] = l.read(r)
	}
	defs := make([]mir.Reg, len(results))
	for i, c := range results {
		defs[i] = l.f.NewVReg(c)
	}
	l.emit(mir.Instr{Op: op, Aux: int32(in.Callee), Uses: uses, Defs: defs, Pos: l.pos()})
	for i, r := range in.Results {
		l.write(r, defs[i])
	}
	if l.memoryMoves {
		l.loadMemoryState()
	}
}

// intUnary lowers the i64 unary operations.
func (l *lowerer) intUnary(op bc.Op, a mir.Reg) (mir.Reg, error) {
	if c, ok := l.constOf(a); ok {
		u := uint64(c)
		var v uint64
		switch op {
		case bc.OpI64Neg:
			v = -u
		case bc.OpI64Not:
			v = ^u
		case bc.OpI64Clz:
			v = uint64(bits.LeadingZeros64(u))
		case bc.OpI64Ctz:
			v = uint64(bits.TrailingZeros64(u))
		case bc.OpI64Popcnt:
			v = uint64(bits.OnesCount64(u))
		case bc.OpI64Extend8S:
			v = uint64(int64(int8(u)))
		case bc.OpI64Extend16S:
			v = uint64(int64(int16(u)))
		case bc.OpI64Extend32S:
			v = uint64(int64(int32(u)))
		case bc.OpI64Extend32U:
			v = uint64(uint32(u))
		}
		return l.iconst(int64(v)), nil
	}
	switch op {
	case bc.OpI64Neg:
		return l.op(mir.OpNEGQ, mir.GPR, a), nil
	case bc.OpI64Not:
		return l.op(mir.OpNOTQ, mir.GPR, a), nil
	case bc.OpI64Clz:
		if l.target.LZCNT {
			return l.op(mir.OpLZCNTQ, mir.GPR, a), nil
		}
		// 63 - bsr(a), or 64 for a == 0: bsr sets ZF for zero input.
		big := l.iconst(127)
		r := l.op(mir.OpBSRQ, mir.GPR, a)
		r = l.newDefCMOV(mir.CondE, r, big)
		return l.opImm(mir.OpXORQconst, r, 63), nil
	case bc.OpI64Ctz:
		if l.target.BMI1 {
			return l.op(mir.OpTZCNTQ, mir.GPR, a), nil
		}
		sixtyFour := l.iconst(64)
		r := l.op(mir.OpBSFQ, mir.GPR, a)
		return l.newDefCMOV(mir.CondE, r, sixtyFour), nil
	case bc.OpI64Popcnt:
		if l.target.POPCNT {
			return l.op(mir.OpPOPCNTQ, mir.GPR, a), nil
		}
		return l.popcountSWAR(a), nil
	}
	return l.op(extendOps[op], mir.GPR, a), nil
}

// popcountSWAR counts bits without POPCNT (the classic parallel sum).
func (l *lowerer) popcountSWAR(x mir.Reg) mir.Reg {
	and := func(a mir.Reg, mask uint64) mir.Reg {
		return l.op(mir.OpANDQ, mir.GPR, a, l.iconst(int64(mask)))
	}
	// x - ((x >> 1) & 0x5555...)
	t := and(l.opImm(mir.OpSHRQconst, x, 1), 0x5555555555555555)
	x = l.op(mir.OpSUBQ, mir.GPR, x, t)
	// (x & 0x3333...) + ((x >> 2) & 0x3333...)
	x = l.op(mir.OpADDQ, mir.GPR, and(x, 0x3333333333333333), and(l.opImm(mir.OpSHRQconst, x, 2), 0x3333333333333333))
	// (x + (x >> 4)) & 0x0f0f...
	x = and(l.op(mir.OpADDQ, mir.GPR, x, l.opImm(mir.OpSHRQconst, x, 4)), 0x0f0f0f0f0f0f0f0f)
	// (x * 0x0101...) >> 56
	x = l.op(mir.OpIMULQ, mir.GPR, x, l.iconst(0x0101010101010101))
	return l.opImm(mir.OpSHRQconst, x, 56)
}

// foldF64 computes a binary f64 operation on constant bits, with the
// result bits every tier computes (NaNs included).
func foldF64(op bc.Op, a, b uint64) uint64 {
	switch op {
	case bc.OpF64Add:
		return floatbits.Add64(a, b)
	case bc.OpF64Sub:
		return floatbits.Sub64(a, b)
	case bc.OpF64Mul:
		return floatbits.Mul64(a, b)
	case bc.OpF64Div:
		return floatbits.Div64(a, b)
	case bc.OpF64Min:
		return floatbits.Min64(a, b)
	case bc.OpF64Max:
		return floatbits.Max64(a, b)
	}
	return 0
}

// selectValue lowers select: a conditional move on the integer registers
// (f64 values move through them as bits).
func (l *lowerer) selectValue(in *bc.Instr) mir.Reg {
	c := l.read(in.A)
	t, f := l.read(in.B), l.read(in.C)
	if cv, ok := l.constOf(c); ok {
		if cv != 0 {
			return t
		}
		return f
	}
	if t == f {
		return t
	}
	float := l.f.RegClass(t) == mir.XMM
	if float {
		t = l.op(mir.OpMOVX2Q, mir.GPR, t)
		f = l.op(mir.OpMOVX2Q, mir.GPR, f)
	}
	cond := l.flagsFor(c)
	d := l.newDefCMOV(cond, f, t)
	if float {
		return l.op(mir.OpMOVQ2X, mir.XMM, d)
	}
	return d
}

// switchOn lowers a switch: an unsigned bounds test against the table
// length that branches to the default, then a jump table.
func (l *lowerer) switchOn(in *bc.Instr, blk *profilecounters.Block) {
	idx := l.read(in.A)
	n := len(in.Table)
	def := int(blk.FirstEdge) + n
	if c, ok := l.constOf(idx); ok {
		e := def
		if uint64(c) < uint64(n) {
			e = int(blk.FirstEdge) + int(c)
		}
		l.jumpEdge(e)
		return
	}
	if n == 0 {
		l.jumpEdge(def)
		return
	}
	pDef := l.prof.EdgeProb[def]
	freq := l.curFreq
	l.emit(mir.Instr{Op: mir.OpCMPQconst, Uses: []mir.Reg{idx}, Imm: int64(n), Pos: l.pos()})
	defTarget, defBlock := l.edgeTarget(def, freq*pDef)
	table := l.newSealedBlock(freq * (1 - pDef))
	from := l.cur
	l.emit(mir.Instr{Op: mir.OpJCC, Cond: mir.CondAE, Pos: l.pos()})
	l.connect(from, def, defTarget, defBlock, pDef)
	l.f.AddEdge(from.ID, table.ID, 1-pDef)
	l.ssa.seal(table.ID)

	l.cur, l.curFreq = table, table.Freq
	sum := 0.0
	for e := int(blk.FirstEdge); e < def; e++ {
		sum += l.prof.EdgeProb[e]
	}
	prob := func(e int) float64 {
		if sum <= 0 {
			return 1 / float64(n)
		}
		return l.prof.EdgeProb[e] / sum
	}
	l.emit(mir.Instr{Op: mir.OpJMPTABLE, Uses: []mir.Reg{idx}, Pos: l.pos()})
	from = l.cur
	for e := int(blk.FirstEdge); e < def; e++ {
		target, eb := l.edgeTarget(e, table.Freq*prob(e))
		l.connect(from, e, target, eb, prob(e))
	}
	l.cur = nil
}
