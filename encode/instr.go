package encode

import (
	"fmt"
	"math"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/mir"
)

// Golang-asm opcodes of the ops that map to one instruction. Go's
// assembler writes the source first: "ADDQ src, dst".
var simpleOps = map[mir.Op]obj.As{
	mir.OpADDQ: x86.AADDQ, mir.OpSUBQ: x86.ASUBQ, mir.OpANDQ: x86.AANDQ, mir.OpORQ: x86.AORQ,
	mir.OpXORQ: x86.AXORQ, mir.OpIMULQ: x86.AIMULQ,
	mir.OpADDQconst: x86.AADDQ, mir.OpSUBQconst: x86.ASUBQ, mir.OpANDQconst: x86.AANDQ,
	mir.OpORQconst: x86.AORQ, mir.OpXORQconst: x86.AXORQ,
	mir.OpADDQload: x86.AADDQ, mir.OpSUBQload: x86.ASUBQ, mir.OpANDQload: x86.AANDQ,
	mir.OpORQload: x86.AORQ, mir.OpXORQload: x86.AXORQ, mir.OpIMULQload: x86.AIMULQ,
	mir.OpSHLQ: x86.ASHLQ, mir.OpSHRQ: x86.ASHRQ, mir.OpSARQ: x86.ASARQ, mir.OpROLQ: x86.AROLQ, mir.OpRORQ: x86.ARORQ,
	mir.OpSHLQconst: x86.ASHLQ, mir.OpSHRQconst: x86.ASHRQ, mir.OpSARQconst: x86.ASARQ,
	mir.OpROLQconst: x86.AROLQ, mir.OpRORQconst: x86.ARORQ,
	mir.OpLZCNTQ: x86.ALZCNTQ, mir.OpTZCNTQ: x86.ATZCNTQ, mir.OpPOPCNTQ: x86.APOPCNTQ,
	mir.OpBSRQ: x86.ABSRQ, mir.OpBSFQ: x86.ABSFQ,
	mir.OpMOVBQSX: x86.AMOVBQSX, mir.OpMOVBQZX: x86.AMOVBQZX, mir.OpMOVWQSX: x86.AMOVWQSX,
	mir.OpMOVWQZX: x86.AMOVWQZX, mir.OpMOVLQSX: x86.AMOVLQSX, mir.OpMOVLQZX: x86.AMOVL,
	mir.OpMOVBQSXload: x86.AMOVBQSX, mir.OpMOVBQZXload: x86.AMOVBQZX, mir.OpMOVWQSXload: x86.AMOVWQSX,
	mir.OpMOVWQZXload: x86.AMOVWQZX, mir.OpMOVLQSXload: x86.AMOVLQSX, mir.OpMOVLQZXload: x86.AMOVL,
	mir.OpMOVQload: x86.AMOVQ, mir.OpMOVSDload: x86.AMOVSD,
	mir.OpMOVBstore: x86.AMOVB, mir.OpMOVWstore: x86.AMOVW, mir.OpMOVLstore: x86.AMOVL,
	mir.OpMOVQstore: x86.AMOVQ, mir.OpMOVSDstore: x86.AMOVSD,
	mir.OpADDSD: x86.AADDSD, mir.OpSUBSD: x86.ASUBSD, mir.OpMULSD: x86.AMULSD, mir.OpDIVSD: x86.ADIVSD,
	mir.OpADDSDload: x86.AADDSD, mir.OpSUBSDload: x86.ASUBSD, mir.OpMULSDload: x86.AMULSD, mir.OpDIVSDload: x86.ADIVSD,
	mir.OpSQRTSD: x86.ASQRTSD, mir.OpCVTSQ2SD: x86.ACVTSQ2SD, mir.OpCVTTSD2SQ: x86.ACVTTSD2SQ,
	mir.OpMOVQ2X: x86.AMOVQ, mir.OpMOVX2Q: x86.AMOVQ,

	// 32-bit integer ops: the L forms write 32-bit results, which the
	// processor zero-extends to 64 bits.
	mir.OpADDL: x86.AADDL, mir.OpSUBL: x86.ASUBL, mir.OpANDL: x86.AANDL, mir.OpORL: x86.AORL,
	mir.OpXORL: x86.AXORL, mir.OpIMULL: x86.AIMULL,
	mir.OpADDLconst: x86.AADDL, mir.OpSUBLconst: x86.ASUBL, mir.OpANDLconst: x86.AANDL,
	mir.OpORLconst: x86.AORL, mir.OpXORLconst: x86.AXORL,
	mir.OpSHLL: x86.ASHLL, mir.OpSHRL: x86.ASHRL, mir.OpSARL: x86.ASARL, mir.OpROLL: x86.AROLL, mir.OpRORL: x86.ARORL,
	mir.OpSHLLconst: x86.ASHLL, mir.OpSHRLconst: x86.ASHRL, mir.OpSARLconst: x86.ASARL,
	mir.OpROLLconst: x86.AROLL, mir.OpRORLconst: x86.ARORL,
	mir.OpLZCNTL: x86.ALZCNTL, mir.OpTZCNTL: x86.ATZCNTL, mir.OpPOPCNTL: x86.APOPCNTL,
	mir.OpBSRL: x86.ABSRL, mir.OpBSFL: x86.ABSFL,
	mir.OpMOVBLSX: x86.AMOVBLSX, mir.OpMOVWLSX: x86.AMOVWLSX,
	mir.OpMOVBLSXload: x86.AMOVBLSX, mir.OpMOVWLSXload: x86.AMOVWLSX,

	// Scalar singles and the 32-bit conversions. Go's MOVL between a GPR
	// and an XMM register is MOVD (66 0F 6E and 66 0F 7E without REX.W):
	// it moves 32 bits and zeroes the rest of the destination.
	mir.OpMOVSSload: x86.AMOVSS, mir.OpMOVSSstore: x86.AMOVSS,
	mir.OpADDSS: x86.AADDSS, mir.OpSUBSS: x86.ASUBSS, mir.OpMULSS: x86.AMULSS, mir.OpDIVSS: x86.ADIVSS,
	mir.OpSQRTSS: x86.ASQRTSS, mir.OpMOVL2X: x86.AMOVL, mir.OpMOVX2L: x86.AMOVL,
	mir.OpCVTSS2SD: x86.ACVTSS2SD, mir.OpCVTSD2SS: x86.ACVTSD2SS, mir.OpCVTSL2SS: x86.ACVTSL2SS,
	mir.OpCVTSQ2SS: x86.ACVTSQ2SS, mir.OpCVTSL2SD: x86.ACVTSL2SD, mir.OpCVTTSD2SL: x86.ACVTTSD2SL,
}

// memArg returns the memory operand of an op with HasMem, whose address
// uses start at index first.
func memArg(in *mir.Instr, first int) obj.Addr {
	return memIdxOp(in.Uses[first], in.Uses[first+1], in.Scale, in.Imm)
}

// op2 emits "as from, to".
func (e *encoder) op2(as obj.As, from, to obj.Addr) *obj.Prog {
	p := e.a.add(as)
	p.From, p.To = from, to
	return p
}

// jump emits a jump to block id unless it is laid out next.
func (e *encoder) jump(b *mir.Block, id int) {
	if e.next[b.ID] != id {
		e.branch(obj.AJMP, id)
	}
}

// jumpTarget is where a jump goes: a label of the current chunk, or else
// a block.
type jumpTarget struct {
	label *obj.Prog
	block int
}

// jumpTo emits a jump as to t.
func (e *encoder) jumpTo(as obj.As, t jumpTarget) {
	if t.label != nil {
		branchTo(e.a.add(as), t.label)
		return
	}
	e.branch(as, t.block)
}

// condJump emits a jump to target when cond holds on the flags.
func (e *encoder) condJump(cond mir.Cond, target jumpTarget) {
	switch cond {
	case mir.CondFEQ: // ZF and not PF
		skip := e.a.label()
		branchTo(e.a.add(x86.AJNE), skip)
		branchTo(e.a.add(x86.AJPS), skip)
		e.jumpTo(obj.AJMP, target)
		e.a.bind(skip)
	case mir.CondFNE: // not ZF, or PF
		e.jumpTo(x86.AJNE, target)
		e.jumpTo(x86.AJPS, target)
	default:
		e.jumpTo(jcc[cond], target)
	}
}

func (e *encoder) instr(b *mir.Block, in *mir.Instr) error {
	a := e.a
	u := in.Uses
	d := in.Defs
	reg := func(i int) obj.Addr { return regOp(u[i]) }
	dst := func() obj.Addr { return regOp(d[0]) }
	if as, ok := simpleOps[in.Op]; ok {
		info := in.Op.Info()
		switch {
		case info.Stores:
			e.op2(as, reg(2), memArg(in, 0))
		case info.HasMem && len(d) == 1 && len(u) == 2:
			e.op2(as, memArg(in, 0), dst()) // loads
		case info.HasMem:
			e.op2(as, memArg(in, 1), dst()) // load-op: d = d op [mem]
		case info.HasImm:
			e.op2(as, constOp(in.Imm), dst())
		case len(d) == 1 && d[0] == u[0] && len(u) == 2:
			e.op2(as, reg(1), dst()) // two-address: d op= u1
		default:
			e.op2(as, reg(0), dst())
		}
		return nil
	}
	switch in.Op {
	case mir.OpArg:
		// The argument already is in its location.
	case mir.OpPhi, mir.OpParCopy:
		return fmt.Errorf("%s reached the encoder; sequentialize first", in.Op)
	case mir.OpCopy, mir.OpSpill, mir.OpReload:
		return e.move(d[0], u[0])
	case mir.OpXchg:
		e.op2(x86.AXCHGQ, reg(0), reg(1))
	case mir.OpCtxLoad:
		e.op2(x86.AMOVQ, ctxOp(int64(ctxFieldOffset(mir.CtxField(in.Aux)))), dst())
	case mir.OpPoll:
		e.op2(x86.ASUBQ, constOp(1), ctxOp(CtxBudget))
		slow, back := a.label(), a.label()
		branchTo(a.add(x86.AJMI), slow)
		a.bind(back)
		site := e.newSite(in.Pos)
		e.stubs = append(e.stubs, func() {
			a.bind(slow)
			e.exitCall(ExitPoll, 0, site)
			branchTo(a.add(obj.AJMP), back)
		})
	case mir.OpGLOBALloadQ, mir.OpGLOBALloadL, mir.OpGLOBALloadSD, mir.OpGLOBALloadSS:
		e.op2(x86.AMOVQ, ctxOp(CtxGlobals), regOp(mir.ScratchGPR))
		e.op2(globalMoves[in.Op], memOp(mir.ScratchGPR, 8*int64(in.Aux)), dst())
	case mir.OpGLOBALstoreQ, mir.OpGLOBALstoreL, mir.OpGLOBALstoreSD, mir.OpGLOBALstoreSS:
		e.op2(x86.AMOVQ, ctxOp(CtxGlobals), regOp(mir.ScratchGPR))
		e.op2(globalMoves[in.Op], reg(0), memOp(mir.ScratchGPR, 8*int64(in.Aux)))
	case mir.OpTABLEload:
		e.op2(x86.AMOVQ, ctxOp(CtxTable), regOp(mir.ScratchGPR))
		e.op2(x86.AMOVQ, memIdxOp(mir.ScratchGPR, u[0], 8, 0), dst())
	case mir.OpCount, mir.OpCountAdd:
		off := e.counterOffset + 8*int64(in.Aux)
		if off != int64(int32(off)) {
			return fmt.Errorf("counter %d at %d bytes from the context, beyond a 32-bit displacement", in.Aux, off)
		}
		src := constOp(1)
		if in.Op == mir.OpCountAdd {
			src = reg(0)
		}
		e.op2(x86.AADDQ, src, ctxOp(off))
	case mir.OpMOVQconst:
		e.op2(x86.AMOVQ, constOp(in.Imm), dst())
	case mir.OpNEGQ:
		a.add(x86.ANEGQ).To = dst()
	case mir.OpNOTQ:
		a.add(x86.ANOTQ).To = dst()
	case mir.OpNEGL:
		a.add(x86.ANEGL).To = dst()
	case mir.OpNOTL:
		a.add(x86.ANOTL).To = dst()
	case mir.OpIMUL3Qconst:
		p := e.op2(x86.AIMUL3Q, constOp(in.Imm), dst())
		p.RestArgs = []obj.Addr{reg(0)} // the middle operand
	case mir.OpIMUL3Lconst:
		p := e.op2(x86.AIMUL3L, constOp(in.Imm), dst())
		p.RestArgs = []obj.Addr{reg(0)} // the middle operand
	case mir.OpLEAQ:
		e.op2(x86.ALEAQ, memOp(u[0], in.Imm), dst())
	case mir.OpLEAQidx:
		e.op2(x86.ALEAQ, memIdxOp(u[0], u[1], in.Scale, in.Imm), dst())
	case mir.OpLEAL:
		// A 64-bit address truncated to 32 bits: the low half of the sum.
		e.op2(x86.ALEAL, memOp(u[0], in.Imm), dst())
	case mir.OpLEALidx:
		e.op2(x86.ALEAL, memIdxOp(u[0], u[1], in.Scale, in.Imm), dst())
	case mir.OpIDIVQ:
		a.add(x86.ACQO)
		a.add(x86.AIDIVQ).From = reg(1)
	case mir.OpDIVQ:
		e.op2(x86.AXORL, regOp(mir.RDX), regOp(mir.RDX))
		a.add(x86.ADIVQ).From = reg(1)
	case mir.OpIDIVL:
		a.add(x86.ACDQ)
		a.add(x86.AIDIVL).From = reg(1)
	case mir.OpDIVL:
		e.op2(x86.AXORL, regOp(mir.RDX), regOp(mir.RDX))
		a.add(x86.ADIVL).From = reg(1)
	case mir.OpCMPQ:
		e.op2(x86.ACMPQ, reg(0), reg(1))
	case mir.OpCMPQconst:
		e.op2(x86.ACMPQ, reg(0), constOp(in.Imm))
	case mir.OpCMPQload:
		e.op2(x86.ACMPQ, reg(0), memArg(in, 1))
	case mir.OpTESTQ:
		e.op2(x86.ATESTQ, reg(1), reg(0))
	case mir.OpTESTQconst:
		e.op2(x86.ATESTQ, constOp(in.Imm), reg(0))
	case mir.OpCMPL:
		e.op2(x86.ACMPL, reg(0), reg(1))
	case mir.OpCMPLconst:
		e.op2(x86.ACMPL, reg(0), constOp(in.Imm))
	case mir.OpTESTL:
		e.op2(x86.ATESTL, reg(1), reg(0))
	case mir.OpTESTLconst:
		e.op2(x86.ATESTL, constOp(in.Imm), reg(0))
	case mir.OpUCOMISD:
		// Go writes the operands reversed: this is UCOMISD u0, u1.
		e.op2(x86.AUCOMISD, reg(1), reg(0))
	case mir.OpUCOMISS:
		e.op2(x86.AUCOMISS, reg(1), reg(0))
	case mir.OpSETCC:
		return e.setcc(in.Cond, d[0])
	case mir.OpCMOVQCC:
		e.cmov(in.Cond, d[0], u[1])
	case mir.OpMOVSDconst:
		if in.Imm == 0 {
			e.op2(x86.AXORPS, dst(), dst())
		} else {
			e.op2(x86.AMOVSD, e.poolOp(uint64(in.Imm)), dst())
		}
	case mir.OpXORPDconst, mir.OpANDPDconst:
		as := obj.As(x86.AXORPD)
		if in.Op == mir.OpANDPDconst {
			as = x86.AANDPD
		}
		e.op2(as, e.poolOp(uint64(in.Imm)), dst())
	case mir.OpMOVSSconst:
		// The pool entry holds the 32 bits zero-extended: it is shared with
		// a MOVSDconst or mask of the same 64-bit value, whose low 4 bytes
		// are these bits.
		if in.Imm == 0 {
			e.op2(x86.AXORPS, dst(), dst())
		} else {
			e.op2(x86.AMOVSS, e.poolOp(uint64(uint32(in.Imm))), dst())
		}
	case mir.OpROUNDSD:
		p := e.op2(x86.AROUNDSD, constOp(int64(in.Aux)), dst())
		p.RestArgs = []obj.Addr{reg(0)} // the middle operand
	case mir.OpROUNDSS:
		p := e.op2(x86.AROUNDSS, constOp(int64(in.Aux)), dst())
		p.RestArgs = []obj.Addr{reg(0)} // the middle operand
	case mir.OpMINSD, mir.OpMAXSD:
		e.minmax(&sseDouble, in.Op == mir.OpMINSD, d[0], u[1])
	case mir.OpMINSS, mir.OpMAXSS:
		e.minmax(&sseSingle, in.Op == mir.OpMINSS, d[0], u[1])
	case mir.OpCVTUQ2SD:
		e.cvtUQ(&sseDouble, d[0], d[1], u[0])
	case mir.OpCVTUQ2SS:
		e.cvtUQ(&sseSingle, d[0], d[1], u[0])
	case mir.OpCVTTSD2SQsat:
		e.cvtTSD2SQsat(d[0], u[0])
	case mir.OpCVTTSD2UQsat, mir.OpCVTTSD2UQ:
		e.cvtTSD2UQ(d[0], d[1], u[0], in.Op == mir.OpCVTTSD2UQsat)

	case mir.OpJMP:
		e.jump(b, b.Succs[0])
	case mir.OpJCC:
		t, f := b.Succs[0], b.Succs[1]
		switch e.next[b.ID] {
		case f:
			e.condJump(in.Cond, jumpTarget{block: t})
		case t:
			e.condJump(in.Cond.Negate(), jumpTarget{block: f})
		default:
			e.condJump(in.Cond, jumpTarget{block: t})
			e.branch(obj.AJMP, f)
		}
	case mir.OpJMPTABLE:
		sym := &obj.LSym{Name: fmt.Sprintf("table%d", len(e.tables))}
		e.tables = append(e.tables, jumpTable{sym: sym, targets: b.Succs})
		e.op2(x86.ALEAQ, symOp(sym, 0), regOp(mir.ScratchGPR))
		e.op2(x86.AMOVQ, memIdxOp(mir.ScratchGPR, u[0], 8, 0), regOp(mir.ScratchGPR))
		a.add(obj.AJMP).To = regOp(mir.ScratchGPR)
	case mir.OpRET:
		e.epilogue()
	case mir.OpTRAPCC:
		if !trapKind(in.Aux) {
			return fmt.Errorf("trap kind %d", in.Aux)
		}
		slow := a.label()
		e.condJump(in.Cond, jumpTarget{label: slow})
		site := e.newTrapSite(in.Pos, 0)
		e.stubs = append(e.stubs, func() {
			a.bind(slow)
			e.exitCall(ExitTrap, int64(in.Aux), site)
			a.add(x86.AINT).From = constOp(3)
		})
	case mir.OpTRAP:
		if !trapKind(in.Aux) {
			return fmt.Errorf("trap kind %d", in.Aux)
		}
		e.exitCall(ExitTrap, int64(in.Aux), e.newTrapSite(in.Pos, in.Imm))
		a.add(x86.AINT).From = constOp(3)
	case mir.OpCALL:
		e.call(in)
	case mir.OpCALLIND:
		e.call(in)
	case mir.OpCALLHOST:
		e.exitCall(ExitHost, int64(in.Aux), e.newSite(in.Pos))
	case mir.OpCALLRT:
		e.exitCall(ExitRuntime, int64(in.Aux), e.newSite(in.Pos))
	case mir.OpMEMMOVE:
		e.memmove()
	case mir.OpMEMFILL:
		a.add(x86.AREP)
		a.add(x86.ASTOSB)
	default:
		return fmt.Errorf("no encoding for %s", in.Op)
	}
	return nil
}

// newTrapSite records the site of a trap; an explicit trap's code is kept
// with it.
func (e *encoder) newTrapSite(pos int32, code int64) int {
	e.sites = append(e.sites, Site{Pos: pos, Code: code})
	return len(e.sites) - 1
}

// call emits a call of another compiled function through the entry
// table, after checking the call depth: CALL's callee is its Aux,
// CALLIND's the index in its last use.
func (e *encoder) call(in *mir.Instr) {
	a := e.a
	scratch := regOp(mir.ScratchGPR)
	site := e.newSite(in.Pos)
	e.op2(x86.AMOVQ, ctxOp(CtxDepth), scratch)
	e.op2(x86.ACMPQ, scratch, ctxOp(CtxMaxDepth))
	overflow := a.label()
	branchTo(a.add(x86.AJGE), overflow)
	e.op2(x86.AADDQ, constOp(1), ctxOp(CtxDepth))
	e.op2(x86.AMOVL, constOp(int64(e.f.Index)), ctxOp(CtxCallFunc))
	e.op2(x86.AMOVL, constOp(int64(site)), ctxOp(CtxCallSite))
	e.op2(x86.AMOVQ, ctxOp(CtxFuncTable), scratch)
	if in.Op == mir.OpCALLIND {
		a.add(obj.ACALL).To = memIdxOp(mir.ScratchGPR, in.Uses[len(in.Uses)-1], 8, 0)
	} else {
		a.add(obj.ACALL).To = memOp(mir.ScratchGPR, 8*int64(in.Aux))
	}
	e.op2(x86.ASUBQ, constOp(1), ctxOp(CtxDepth))
	e.stubs = append(e.stubs, func() {
		a.bind(overflow)
		e.exitCall(ExitTrap, int64(bytecode.TrapStackOverflow), site)
		a.add(x86.AINT).From = constOp(3)
	})
}

// setcc materialises a condition as 0 or 1. SETCC does not write the
// flags (the op table says so, and later readers may use them), so the
// two-flag conditions combine ZF and PF with a conditional move rather
// than AND or OR: FEQ is ZF, overridden by 0 when PF (unordered); FNE is
// not ZF, overridden by 1 when PF.
func (e *encoder) setcc(cond mir.Cond, d mir.Reg) error {
	a := e.a
	r8 := regOp(d)
	scratch := regOp(mir.ScratchGPR)
	switch cond {
	case mir.CondFEQ, mir.CondFNE:
		unordered, set := int64(0), obj.As(x86.ASETEQ)
		if cond == mir.CondFNE {
			unordered, set = 1, x86.ASETNE
		}
		e.op2(x86.AMOVL, constOp(unordered), scratch) // MOV, not XOR: the flags stay
		a.add(set).To = r8
		e.op2(x86.AMOVBQZX, r8, r8)
		e.op2(x86.ACMOVQPS, scratch, r8)
		return nil
	default:
		if !cond.Valid() {
			return fmt.Errorf("condition %d", cond)
		}
		a.add(setcc[cond]).To = r8
	}
	e.op2(x86.AMOVBQZX, r8, r8)
	return nil
}

// cmov moves src to d when cond holds.
func (e *encoder) cmov(cond mir.Cond, d, src mir.Reg) {
	a := e.a
	switch cond {
	case mir.CondFEQ, mir.CondFNE:
		skip := a.label()
		e.condJump(cond.Negate(), jumpTarget{label: skip})
		e.op2(x86.AMOVQ, regOp(src), regOp(d))
		a.bind(skip)
	default:
		e.op2(cmovcc[cond], regOp(src), regOp(d))
	}
}

// sseForms are the instructions of one scalar float width that the
// expanded sequences use.
type sseForms struct {
	ucomis, or, and, add, min, max, cvtSQ obj.As
}

var (
	sseDouble = sseForms{x86.AUCOMISD, x86.AORPD, x86.AANDPD, x86.AADDSD, x86.AMINSD, x86.AMAXSD, x86.ACVTSQ2SD}
	sseSingle = sseForms{x86.AUCOMISS, x86.AORPS, x86.AANDPS, x86.AADDSS, x86.AMINSS, x86.AMAXSS, x86.ACVTSQ2SS}
)

// minmax computes kiln's min or max into d (which holds the first operand):
// NaN if either operand is NaN, and -0 below +0. The NaN is the first NaN
// operand quieted, as the addition d + b makes it. For singles the
// bitwise OR and AND also combine bits 32..127, which an f32 leaves
// undefined.
func (e *encoder) minmax(fp *sseForms, isMin bool, d, b mir.Reg) {
	a := e.a
	nan, ordinary, done := a.label(), a.label(), a.label()
	e.op2(fp.ucomis, regOp(b), regOp(d)) // ucomis d, b
	branchTo(a.add(x86.AJPS), nan)
	branchTo(a.add(x86.AJNE), ordinary)
	// Equal: the same number, or zeros of either sign. OR keeps a set sign
	// bit (min(-0, +0) = -0); AND clears it (max(-0, +0) = +0).
	if isMin {
		e.op2(fp.or, regOp(b), regOp(d))
	} else {
		e.op2(fp.and, regOp(b), regOp(d))
	}
	branchTo(a.add(obj.AJMP), done)
	a.bind(nan)
	e.op2(fp.add, regOp(b), regOp(d)) // a NaN operand makes a NaN
	branchTo(a.add(obj.AJMP), done)
	a.bind(ordinary)
	if isMin {
		e.op2(fp.min, regOp(b), regOp(d))
	} else {
		e.op2(fp.max, regOp(b), regOp(d))
	}
	a.bind(done)
}

// memmove copies RCX bytes from RSI to RDI. It copies forward (REP
// MOVSB) unless the destination starts inside the source, that is
// unless RDI - RSI (modulo 2^64) < RCX, and then backward from the end
// in a loop, leaving the direction flag clear as Go wants it.
func (e *encoder) memmove() {
	a := e.a
	forward, long, done := a.label(), a.label(), a.label()
	scratch := regOp(mir.ScratchGPR)
	e.op2(x86.AMOVQ, regOp(mir.RDI), scratch)
	e.op2(x86.ASUBQ, regOp(mir.RSI), scratch)
	e.op2(x86.ACMPQ, scratch, regOp(mir.RCX))
	branchTo(a.add(x86.AJCC), forward) // RDI - RSI >= RCX, unsigned
	// The destination overlaps the source above it: copy from the end
	// down, eight bytes at a time while eight are left, then a byte at a
	// time. Each eight are read before any of them is written, and a
	// write reaches only source bytes above the ones still to be read.
	// (A backward REP MOVSB, with the direction flag set, runs a byte at
	// a time in microcode: several times slower.)
	e.moveLoop(false, 8, x86.AMOVQ, x86.AMOVQ)
	e.moveLoop(false, 1, x86.AMOVBLZX, x86.AMOVB)
	branchTo(a.add(obj.AJMP), done)
	// Forward: a REP MOVSB for a long copy; a short one, where its
	// start-up costs more than the copy, in the same loops upward (a
	// write reaches only source bytes below the ones still to be read).
	a.bind(forward)
	e.op2(x86.ACMPQ, regOp(mir.RCX), constOp(shortMove))
	branchTo(a.add(x86.AJCC), long) // RCX >= shortMove, unsigned
	e.moveLoop(true, 8, x86.AMOVQ, x86.AMOVQ)
	e.moveLoop(true, 1, x86.AMOVBLZX, x86.AMOVB)
	branchTo(a.add(obj.AJMP), done)
	a.bind(long)
	a.add(x86.AREP)
	a.add(x86.AMOVSB)
	a.bind(done)
}

// moveLoop copies size bytes at a time (load and store move them through
// the scratch register) while RCX holds size or more: upward from RSI to
// RDI, advancing both, or downward from RSI+RCX to RDI+RCX.
func (e *encoder) moveLoop(up bool, size int64, load, store obj.As) {
	a := e.a
	top, out := a.label(), a.label()
	scratch := regOp(mir.ScratchGPR)
	a.bind(top)
	e.op2(x86.ACMPQ, regOp(mir.RCX), constOp(size))
	branchTo(a.add(x86.AJCS), out) // RCX < size, unsigned
	e.op2(x86.ASUBQ, constOp(size), regOp(mir.RCX))
	if up {
		e.op2(load, memOp(mir.RSI, 0), scratch)
		e.op2(store, scratch, memOp(mir.RDI, 0))
		e.op2(x86.AADDQ, constOp(size), regOp(mir.RSI))
		e.op2(x86.AADDQ, constOp(size), regOp(mir.RDI))
	} else {
		e.op2(load, memIdxOp(mir.RSI, mir.RCX, 1, 0), scratch)
		e.op2(store, scratch, memIdxOp(mir.RDI, mir.RCX, 1, 0))
	}
	branchTo(a.add(obj.AJMP), top)
	a.bind(out)
}

// shortMove is the length from which memmove copies forward with REP
// MOVSB rather than in a loop.
const shortMove = 64

// cvtUQ converts the unsigned integer s to a double or single d, using t.
//
// Below 2^63, s is a signed integer and converts directly. From 2^63 on,
// the sequence converts t = s>>1 | s&1 and doubles the result. Doubling is
// exact, so this is right when t rounds to the value s/2 rounds to. Both
// lie in [2^62, 2^63), where the format keeps the bits from 2^(63-p) up (p
// = 53 for doubles, 24 for singles): rounding depends on those bits, the
// next lower one and whether any below it is set. t and s/2 differ only
// below 2^1, and OR-ing the discarded bit of s into bit 0 keeps "some bit
// below is set" exact (round to odd), so with p <= 61 they round alike.
// One conversion instruction rounds once: no double rounding.
func (e *encoder) cvtUQ(fp *sseForms, d, t, s mir.Reg) {
	a := e.a
	neg, done := a.label(), a.label()
	scratch := regOp(mir.ScratchGPR)
	e.op2(x86.ATESTQ, regOp(s), regOp(s))
	branchTo(a.add(x86.AJMI), neg)
	e.op2(fp.cvtSQ, regOp(s), regOp(d))
	branchTo(a.add(obj.AJMP), done)
	a.bind(neg)
	// Halve, keeping the low bit for correct rounding, convert, double.
	e.op2(x86.AMOVQ, regOp(s), regOp(t))
	e.op2(x86.ASHRQ, constOp(1), regOp(t))
	e.op2(x86.AMOVQ, regOp(s), scratch)
	e.op2(x86.AANDQ, constOp(1), scratch)
	e.op2(x86.AORQ, scratch, regOp(t))
	e.op2(fp.cvtSQ, regOp(t), regOp(d))
	e.op2(fp.add, regOp(d), regOp(d))
	a.bind(done)
}

// cvtTSD2SQsat truncates s to a signed integer, saturating.
func (e *encoder) cvtTSD2SQsat(d, s mir.Reg) {
	a := e.a
	nan, done := a.label(), a.label()
	e.op2(x86.ACVTTSD2SQ, regOp(s), regOp(d))
	// CVTTSD2SQ gives INT64_MIN for NaN and out-of-range values; d-1
	// overflows exactly for INT64_MIN.
	e.op2(x86.ACMPQ, regOp(d), constOp(1))
	branchTo(a.add(x86.AJOC), done)
	e.op2(x86.AUCOMISD, regOp(s), regOp(s))
	branchTo(a.add(x86.AJPS), nan)
	zero := regOp(mir.ScratchXMM)
	e.op2(x86.AXORPS, zero, zero)
	e.op2(x86.AUCOMISD, zero, regOp(s)) // ucomisd s, 0
	branchTo(a.add(x86.AJLS), done)     // s <= 0: INT64_MIN is right
	e.op2(x86.AMOVQ, constOp(math.MaxInt64), regOp(d))
	branchTo(a.add(obj.AJMP), done)
	a.bind(nan)
	e.op2(x86.AMOVQ, constOp(0), regOp(d))
	a.bind(done)
}

// cvtTSD2UQ truncates s to an unsigned integer, with t as a temporary.
// The saturating form also handles NaN (0), s <= 0 (0) and s >= 2^64
// (all ones); the other form may assume 0 <= trunc(s) < 2^64.
func (e *encoder) cvtTSD2UQ(d, t, s mir.Reg, sat bool) {
	a := e.a
	big, done, zero, maxv := a.label(), a.label(), a.label(), a.label()
	x15 := regOp(mir.ScratchXMM)
	if sat {
		e.op2(x86.AXORPS, x15, x15)
		e.op2(x86.AUCOMISD, x15, regOp(s)) // ucomisd s, 0
		branchTo(a.add(x86.AJPS), zero)
		branchTo(a.add(x86.AJLS), zero)
	}
	e.op2(x86.AMOVSD, e.poolOp(bits2p63), x15)
	e.op2(x86.AUCOMISD, x15, regOp(s)) // ucomisd s, 2^63
	branchTo(a.add(x86.AJCC), big)
	e.op2(x86.ACVTTSD2SQ, regOp(s), regOp(d))
	branchTo(a.add(obj.AJMP), done)
	a.bind(big)
	if sat {
		e.op2(x86.AMOVSD, e.poolOp(bits2p64), regOp(t))
		e.op2(x86.AUCOMISD, regOp(t), regOp(s)) // ucomisd s, 2^64
		branchTo(a.add(x86.AJCC), maxv)
	}
	e.op2(x86.AMOVAPS, regOp(s), regOp(t))
	e.op2(x86.ASUBSD, x15, regOp(t))
	e.op2(x86.ACVTTSD2SQ, regOp(t), regOp(d))
	e.op2(x86.ABTSQ, constOp(63), regOp(d))
	branchTo(a.add(obj.AJMP), done)
	if sat {
		a.bind(maxv)
		e.op2(x86.AMOVQ, constOp(-1), regOp(d))
		branchTo(a.add(obj.AJMP), done)
		a.bind(zero)
		e.op2(x86.AMOVQ, constOp(0), regOp(d))
	}
	a.bind(done)
}

// globalMoves are the moves of GLOBALload and GLOBALstore: 64 bits, or 32
// (MOVL zero-extends into a GPR; MOVSS clears the rest of an XMM register
// on a load and writes only 32 bits on a store).
var globalMoves = map[mir.Op]obj.As{
	mir.OpGLOBALloadQ: x86.AMOVQ, mir.OpGLOBALloadL: x86.AMOVL,
	mir.OpGLOBALloadSD: x86.AMOVSD, mir.OpGLOBALloadSS: x86.AMOVSS,
	mir.OpGLOBALstoreQ: x86.AMOVQ, mir.OpGLOBALstoreL: x86.AMOVL,
	mir.OpGLOBALstoreSD: x86.AMOVSD, mir.OpGLOBALstoreSS: x86.AMOVSS,
}
