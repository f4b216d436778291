package encode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twitchyliquid64/golang-asm/obj"
	"golang.org/x/arch/x86/x86asm"

	"github.com/kiln-jit/kiln/mir"
)

// x86asm register of a mir register at a width.
func r64(r mir.Reg) x86asm.Reg {
	if r >= mir.X0 {
		return x86asm.X0 + x86asm.Reg(r-mir.X0)
	}
	return x86asm.RAX + x86asm.Reg(r)
}

func r32(r mir.Reg) x86asm.Reg { return x86asm.EAX + x86asm.Reg(r) }
func r16(r mir.Reg) x86asm.Reg { return x86asm.AX + x86asm.Reg(r) }
func r8(r mir.Reg) x86asm.Reg {
	switch {
	case r < 4:
		return x86asm.AL + x86asm.Reg(r)
	case r < 8:
		return x86asm.SPB + x86asm.Reg(r-4)
	}
	return x86asm.R8B + x86asm.Reg(r-8)
}

func mem(base, index mir.Reg, scale uint8, disp int64) x86asm.Mem {
	m := x86asm.Mem{Base: r64(base), Scale: scale, Disp: disp}
	if scale != 0 {
		m.Index = r64(index)
	}
	return m
}

// encodeOne encodes a single instruction of an allocated function with
// the given number of stack slots and decodes it.
func encodeOne(t *testing.T, in *mir.Instr, slots int) []x86asm.Inst {
	t.Helper()
	out, err := encodeOneOptions(t, in, slots, Options{})
	if err != nil {
		t.Fatalf("%s: %v", in.Op, err)
	}
	return out
}

// encodeOneOptions is encodeOne with the encoder's options (those that
// apply to one instruction: CounterOffset), returning the encoder's error.
func encodeOneOptions(t *testing.T, in *mir.Instr, slots int, opts Options) ([]x86asm.Inst, error) {
	t.Helper()
	f := &mir.Func{Name: "t", Form: mir.FormAllocated, Slots: make([]mir.SlotInfo, slots)}
	a := getAssembler()
	defer putAssembler(a)
	e := &encoder{a: a, f: f, frame: frame{size: 8 + 8*int64(slots)}, pool: &obj.LSym{Name: "pool"}, poolIndex: map[[2]uint64]int64{},
		counterOffset: opts.CounterOffset}
	b := &mir.Block{}
	e.next, e.chunkOf, e.labels, e.blockOff = []int{-1}, []int32{0}, make([]*obj.Prog, 1), make([]int, 1)
	if err := e.instr(b, in); err != nil {
		return nil, err
	}
	if err := e.flush(); err != nil {
		t.Fatalf("%s: %v", in.Op, err)
	}
	code, err := e.finish()
	if err != nil {
		t.Fatalf("%s: %v", in.Op, err)
	}
	var out []x86asm.Inst
	for off := 0; off < code.CodeSize; {
		inst, err := x86asm.Decode(code.Bytes[off:code.CodeSize], 64)
		if err != nil {
			t.Fatalf("%s: decode at %d of % x: %v", in.Op, off, code.Bytes[:code.CodeSize], err)
		}
		out = append(out, inst)
		off += inst.Len
	}
	return out, nil
}

// formTest is one instruction form and the single x86 instruction it must
// decode to.
type formTest struct {
	in   *mir.Instr
	op   x86asm.Op
	args []x86asm.Arg
}

func ins(op mir.Op, defs, uses []mir.Reg, imm int64, scale uint8) *mir.Instr {
	return &mir.Instr{Op: op, Defs: defs, Uses: uses, Imm: imm, Scale: scale, Pos: -1}
}

func regs(rs ...mir.Reg) []mir.Reg { return rs }

// simpleForms returns the op forms that encode to one instruction, with
// each register operand taken from the given triple (so low, high and
// REX-needing registers are all covered).
func simpleForms(a, b, c mir.Reg, x, y mir.Reg) []formTest {
	imm := x86asm.Imm(-77)
	m := mem(b, c, 4, 24)
	var fs []formTest
	add := func(in *mir.Instr, op x86asm.Op, as ...x86asm.Arg) {
		fs = append(fs, formTest{in, op, as})
	}
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpADDQ: x86asm.ADD, mir.OpSUBQ: x86asm.SUB, mir.OpANDQ: x86asm.AND,
		mir.OpORQ: x86asm.OR, mir.OpXORQ: x86asm.XOR, mir.OpIMULQ: x86asm.IMUL} {
		add(ins(op, regs(a), regs(a, b), 0, 0), xop, r64(a), r64(b))
	}
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpADDQconst: x86asm.ADD, mir.OpSUBQconst: x86asm.SUB,
		mir.OpANDQconst: x86asm.AND, mir.OpORQconst: x86asm.OR, mir.OpXORQconst: x86asm.XOR} {
		add(ins(op, regs(a), regs(a), -77, 0), xop, r64(a), imm)
	}
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpADDQload: x86asm.ADD, mir.OpSUBQload: x86asm.SUB,
		mir.OpANDQload: x86asm.AND, mir.OpORQload: x86asm.OR, mir.OpXORQload: x86asm.XOR, mir.OpIMULQload: x86asm.IMUL} {
		add(ins(op, regs(a), regs(a, b, c), 24, 4), xop, r64(a), m)
	}
	add(ins(mir.OpNEGQ, regs(a), regs(a), 0, 0), x86asm.NEG, r64(a))
	add(ins(mir.OpNOTQ, regs(a), regs(a), 0, 0), x86asm.NOT, r64(a))
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpSHLQ: x86asm.SHL, mir.OpSHRQ: x86asm.SHR, mir.OpSARQ: x86asm.SAR,
		mir.OpROLQ: x86asm.ROL, mir.OpRORQ: x86asm.ROR} {
		if a != mir.RCX {
			add(ins(op, regs(a), regs(a, mir.RCX), 0, 0), xop, r64(a), x86asm.CL)
		}
	}
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpSHLQconst: x86asm.SHL, mir.OpSHRQconst: x86asm.SHR,
		mir.OpSARQconst: x86asm.SAR, mir.OpROLQconst: x86asm.ROL, mir.OpRORQconst: x86asm.ROR} {
		add(ins(op, regs(a), regs(a), 13, 0), xop, r64(a), x86asm.Imm(13))
	}
	add(ins(mir.OpIMUL3Qconst, regs(a), regs(b), 1000, 0), x86asm.IMUL, r64(a), r64(b), x86asm.Imm(1000))
	add(ins(mir.OpLEAQ, regs(a), regs(b), -40, 0), x86asm.LEA, r64(a), mem(b, 0, 0, -40))
	add(ins(mir.OpLEAQidx, regs(a), regs(b, c), 24, 4), x86asm.LEA, r64(a), m)
	add(ins(mir.OpCMPQ, nil, regs(a, b), 0, 0), x86asm.CMP, r64(a), r64(b))
	add(ins(mir.OpCMPQconst, nil, regs(a), -77, 0), x86asm.CMP, r64(a), imm)
	add(ins(mir.OpCMPQload, nil, regs(a, b, c), 24, 4), x86asm.CMP, r64(a), m)
	add(ins(mir.OpTESTQ, nil, regs(a, b), 0, 0), x86asm.TEST, r64(a), r64(b))
	add(ins(mir.OpTESTQconst, nil, regs(a), 255, 0), x86asm.TEST, r64(a), x86asm.Imm(255))
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpLZCNTQ: x86asm.LZCNT, mir.OpTZCNTQ: x86asm.TZCNT,
		mir.OpPOPCNTQ: x86asm.POPCNT, mir.OpBSRQ: x86asm.BSR, mir.OpBSFQ: x86asm.BSF} {
		add(ins(op, regs(a), regs(b), 0, 0), xop, r64(a), r64(b))
	}
	add(ins(mir.OpMOVBQSX, regs(a), regs(b), 0, 0), x86asm.MOVSX, r64(a), r8(b))
	add(ins(mir.OpMOVBQZX, regs(a), regs(b), 0, 0), x86asm.MOVZX, r64(a), r8(b))
	add(ins(mir.OpMOVWQSX, regs(a), regs(b), 0, 0), x86asm.MOVSX, r64(a), r16(b))
	add(ins(mir.OpMOVWQZX, regs(a), regs(b), 0, 0), x86asm.MOVZX, r64(a), r16(b))
	add(ins(mir.OpMOVLQSX, regs(a), regs(b), 0, 0), x86asm.MOVSXD, r64(a), r32(b))
	add(ins(mir.OpMOVLQZX, regs(a), regs(b), 0, 0), x86asm.MOV, r32(a), r32(b))
	lm := mem(b, c, 1, -8)
	add(ins(mir.OpMOVBQSXload, regs(a), regs(b, c), -8, 1), x86asm.MOVSX, r64(a), lm)
	add(ins(mir.OpMOVBQZXload, regs(a), regs(b, c), -8, 1), x86asm.MOVZX, r64(a), lm)
	add(ins(mir.OpMOVWQSXload, regs(a), regs(b, c), -8, 1), x86asm.MOVSX, r64(a), lm)
	add(ins(mir.OpMOVWQZXload, regs(a), regs(b, c), -8, 1), x86asm.MOVZX, r64(a), lm)
	add(ins(mir.OpMOVLQSXload, regs(a), regs(b, c), -8, 1), x86asm.MOVSXD, r64(a), lm)
	add(ins(mir.OpMOVLQZXload, regs(a), regs(b, c), -8, 1), x86asm.MOV, r32(a), lm)
	add(ins(mir.OpMOVQload, regs(a), regs(b, c), -8, 1), x86asm.MOV, r64(a), lm)
	add(ins(mir.OpMOVSDload, regs(x), regs(b, c), -8, 1), x86asm.MOVSD_XMM, r64(x), lm)
	add(ins(mir.OpMOVBstore, nil, regs(b, c, a), -8, 1), x86asm.MOV, lm, r8(a))
	add(ins(mir.OpMOVWstore, nil, regs(b, c, a), -8, 1), x86asm.MOV, lm, r16(a))
	add(ins(mir.OpMOVLstore, nil, regs(b, c, a), -8, 1), x86asm.MOV, lm, r32(a))
	add(ins(mir.OpMOVQstore, nil, regs(b, c, a), -8, 1), x86asm.MOV, lm, r64(a))
	add(ins(mir.OpMOVSDstore, nil, regs(b, c, x), -8, 1), x86asm.MOVSD_XMM, lm, r64(x))
	// Memory operands without an index: [base+disp].
	nm := mem(b, 0, 0, 100)
	add(ins(mir.OpMOVQload, regs(a), regs(b, mir.NoReg), 100, 1), x86asm.MOV, r64(a), nm)
	add(ins(mir.OpMOVBQZXload, regs(a), regs(b, mir.NoReg), 100, 1), x86asm.MOVZX, r64(a), nm)
	add(ins(mir.OpMOVBstore, nil, regs(b, mir.NoReg, a), 100, 1), x86asm.MOV, nm, r8(a))
	add(ins(mir.OpMOVQstore, nil, regs(b, mir.NoReg, a), 100, 1), x86asm.MOV, nm, r64(a))
	add(ins(mir.OpMOVSDload, regs(x), regs(b, mir.NoReg), 100, 1), x86asm.MOVSD_XMM, r64(x), nm)
	add(ins(mir.OpADDQload, regs(a), regs(a, b, mir.NoReg), 100, 1), x86asm.ADD, r64(a), nm)
	add(ins(mir.OpCMPQload, nil, regs(a, b, mir.NoReg), 100, 1), x86asm.CMP, r64(a), nm)
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpADDSD: x86asm.ADDSD, mir.OpSUBSD: x86asm.SUBSD,
		mir.OpMULSD: x86asm.MULSD, mir.OpDIVSD: x86asm.DIVSD} {
		add(ins(op, regs(x), regs(x, y), 0, 0), xop, r64(x), r64(y))
	}
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpADDSDload: x86asm.ADDSD, mir.OpSUBSDload: x86asm.SUBSD,
		mir.OpMULSDload: x86asm.MULSD, mir.OpDIVSDload: x86asm.DIVSD} {
		add(ins(op, regs(x), regs(x, b, c), 24, 4), xop, r64(x), m)
	}
	add(ins(mir.OpSQRTSD, regs(x), regs(y), 0, 0), x86asm.SQRTSD, r64(x), r64(y))
	rs := ins(mir.OpROUNDSD, regs(x), regs(y), 0, 0)
	rs.Aux = mir.RoundCeil
	add(rs, x86asm.ROUNDSD, r64(x), r64(y), x86asm.Imm(mir.RoundCeil))
	add(ins(mir.OpUCOMISD, nil, regs(x, y), 0, 0), x86asm.UCOMISD, r64(x), r64(y))
	add(ins(mir.OpCVTSQ2SD, regs(x), regs(a), 0, 0), x86asm.CVTSI2SD, r64(x), r64(a))
	add(ins(mir.OpCVTTSD2SQ, regs(a), regs(x), 0, 0), x86asm.CVTTSD2SI, r64(a), r64(x))
	add(ins(mir.OpMOVQ2X, regs(x), regs(a), 0, 0), x86asm.MOVQ, r64(x), r64(a))
	add(ins(mir.OpMOVX2Q, regs(a), regs(x), 0, 0), x86asm.MOVQ, r64(a), r64(x))
	add(ins(mir.OpMOVQconst, regs(a), nil, -5, 0), x86asm.MOV, r64(a), x86asm.Imm(-5))
	add(ins(mir.OpCopy, regs(a), regs(b), 0, 0), x86asm.MOV, r64(a), r64(b))
	add(ins(mir.OpCopy, regs(x), regs(y), 0, 0), x86asm.MOVAPS, r64(x), r64(y))
	add(ins(mir.OpSpill, regs(mir.SlotReg(2)), regs(a), 0, 0), x86asm.MOV, mem(mir.RSP, 0, 0, 16), r64(a))
	add(ins(mir.OpReload, regs(a), regs(mir.SlotReg(2)), 0, 0), x86asm.MOV, r64(a), mem(mir.RSP, 0, 0, 16))
	add(ins(mir.OpSpill, regs(mir.SlotReg(1)), regs(x), 0, 0), x86asm.MOVSD_XMM, mem(mir.RSP, 0, 0, 8), r64(x))
	add(ins(mir.OpReload, regs(x), regs(mir.SlotReg(1)), 0, 0), x86asm.MOVSD_XMM, r64(x), mem(mir.RSP, 0, 0, 8))
	add(ins(mir.OpXchg, regs(a, b), regs(a, b), 0, 0), x86asm.XCHG, r64(b), r64(a))
	cl := ins(mir.OpCtxLoad, regs(a), nil, 0, 0)
	cl.Aux = int32(mir.CtxMemBound4)
	add(cl, x86asm.MOV, r64(a), mem(mir.CtxReg, 0, 0, CtxMemBound+16))
	cmovs := [16]x86asm.Op{x86asm.CMOVO, x86asm.CMOVNO, x86asm.CMOVB, x86asm.CMOVAE, x86asm.CMOVE, x86asm.CMOVNE,
		x86asm.CMOVBE, x86asm.CMOVA, x86asm.CMOVS, x86asm.CMOVNS, x86asm.CMOVP, x86asm.CMOVNP, x86asm.CMOVL,
		x86asm.CMOVGE, x86asm.CMOVLE, x86asm.CMOVG}
	for cond := mir.CondO; cond <= mir.CondG; cond++ {
		in := ins(mir.OpCMOVQCC, regs(a), regs(a, b), 0, 0)
		in.Cond = cond
		add(in, cmovs[cond], r64(a), r64(b))
	}

	// 32-bit integer ops: 32-bit register operands (no REX.W).
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpADDL: x86asm.ADD, mir.OpSUBL: x86asm.SUB, mir.OpANDL: x86asm.AND,
		mir.OpORL: x86asm.OR, mir.OpXORL: x86asm.XOR, mir.OpIMULL: x86asm.IMUL} {
		add(ins(op, regs(a), regs(a, b), 0, 0), xop, r32(a), r32(b))
	}
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpADDLconst: x86asm.ADD, mir.OpSUBLconst: x86asm.SUB,
		mir.OpANDLconst: x86asm.AND, mir.OpORLconst: x86asm.OR, mir.OpXORLconst: x86asm.XOR} {
		add(ins(op, regs(a), regs(a), -77, 0), xop, r32(a), imm)
		add(ins(op, regs(a), regs(a), 0x12345678, 0), xop, r32(a), x86asm.Imm(0x12345678))
	}
	add(ins(mir.OpNEGL, regs(a), regs(a), 0, 0), x86asm.NEG, r32(a))
	add(ins(mir.OpNOTL, regs(a), regs(a), 0, 0), x86asm.NOT, r32(a))
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpSHLL: x86asm.SHL, mir.OpSHRL: x86asm.SHR, mir.OpSARL: x86asm.SAR,
		mir.OpROLL: x86asm.ROL, mir.OpRORL: x86asm.ROR} {
		if a != mir.RCX {
			add(ins(op, regs(a), regs(a, mir.RCX), 0, 0), xop, r32(a), x86asm.CL)
		}
	}
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpSHLLconst: x86asm.SHL, mir.OpSHRLconst: x86asm.SHR,
		mir.OpSARLconst: x86asm.SAR, mir.OpROLLconst: x86asm.ROL, mir.OpRORLconst: x86asm.ROR} {
		add(ins(op, regs(a), regs(a), 31, 0), xop, r32(a), x86asm.Imm(31))
	}
	add(ins(mir.OpIMUL3Lconst, regs(a), regs(b), 1000, 0), x86asm.IMUL, r32(a), r32(b), x86asm.Imm(1000))
	add(ins(mir.OpLEAL, regs(a), regs(b), -40, 0), x86asm.LEA, r32(a), mem(b, 0, 0, -40))
	add(ins(mir.OpLEALidx, regs(a), regs(b, c), 24, 4), x86asm.LEA, r32(a), m)
	add(ins(mir.OpCMPL, nil, regs(a, b), 0, 0), x86asm.CMP, r32(a), r32(b))
	add(ins(mir.OpCMPLconst, nil, regs(a), -77, 0), x86asm.CMP, r32(a), imm)
	add(ins(mir.OpTESTL, nil, regs(a, b), 0, 0), x86asm.TEST, r32(a), r32(b))
	add(ins(mir.OpTESTLconst, nil, regs(a), 255, 0), x86asm.TEST, r32(a), x86asm.Imm(255))
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpLZCNTL: x86asm.LZCNT, mir.OpTZCNTL: x86asm.TZCNT,
		mir.OpPOPCNTL: x86asm.POPCNT, mir.OpBSRL: x86asm.BSR, mir.OpBSFL: x86asm.BSF} {
		add(ins(op, regs(a), regs(b), 0, 0), xop, r32(a), r32(b))
	}
	add(ins(mir.OpMOVBLSX, regs(a), regs(b), 0, 0), x86asm.MOVSX, r32(a), r8(b))
	add(ins(mir.OpMOVWLSX, regs(a), regs(b), 0, 0), x86asm.MOVSX, r32(a), r16(b))
	add(ins(mir.OpMOVBLSXload, regs(a), regs(b, c), -8, 1), x86asm.MOVSX, r32(a), lm)
	add(ins(mir.OpMOVWLSXload, regs(a), regs(b, c), -8, 1), x86asm.MOVSX, r32(a), lm)

	// Scalar singles and the conversions involving 32-bit types.
	add(ins(mir.OpMOVSSload, regs(x), regs(b, c), -8, 1), x86asm.MOVSS, r64(x), lm)
	add(ins(mir.OpMOVSSstore, nil, regs(b, c, x), -8, 1), x86asm.MOVSS, lm, r64(x))
	for op, xop := range map[mir.Op]x86asm.Op{mir.OpADDSS: x86asm.ADDSS, mir.OpSUBSS: x86asm.SUBSS,
		mir.OpMULSS: x86asm.MULSS, mir.OpDIVSS: x86asm.DIVSS} {
		add(ins(op, regs(x), regs(x, y), 0, 0), xop, r64(x), r64(y))
	}
	add(ins(mir.OpSQRTSS, regs(x), regs(y), 0, 0), x86asm.SQRTSS, r64(x), r64(y))
	rss := ins(mir.OpROUNDSS, regs(x), regs(y), 0, 0)
	rss.Aux = mir.RoundTrunc
	add(rss, x86asm.ROUNDSS, r64(x), r64(y), x86asm.Imm(mir.RoundTrunc))
	add(ins(mir.OpUCOMISS, nil, regs(x, y), 0, 0), x86asm.UCOMISS, r64(x), r64(y))
	add(ins(mir.OpMOVL2X, regs(x), regs(a), 0, 0), x86asm.MOVD, r64(x), r32(a))
	add(ins(mir.OpMOVX2L, regs(a), regs(x), 0, 0), x86asm.MOVD, r32(a), r64(x))
	add(ins(mir.OpCVTSS2SD, regs(x), regs(y), 0, 0), x86asm.CVTSS2SD, r64(x), r64(y))
	add(ins(mir.OpCVTSD2SS, regs(x), regs(y), 0, 0), x86asm.CVTSD2SS, r64(x), r64(y))
	add(ins(mir.OpCVTSL2SS, regs(x), regs(a), 0, 0), x86asm.CVTSI2SS, r64(x), r32(a))
	add(ins(mir.OpCVTSQ2SS, regs(x), regs(a), 0, 0), x86asm.CVTSI2SS, r64(x), r64(a))
	add(ins(mir.OpCVTSL2SD, regs(x), regs(a), 0, 0), x86asm.CVTSI2SD, r64(x), r32(a))
	add(ins(mir.OpCVTTSD2SL, regs(a), regs(x), 0, 0), x86asm.CVTTSD2SI, r32(a), r64(x))
	return fs
}

// sameArgs compares decoded operands with the expected ones, ignoring the
// trailing empty slots.
func sameArgs(got x86asm.Args, want []x86asm.Arg) bool {
	n := 0
	for n < len(got) && got[n] != nil {
		n++
	}
	if n != len(want) {
		return false
	}
	for i := range want {
		if fmt.Sprint(normalize(got[i])) != fmt.Sprint(normalize(want[i])) {
			return false
		}
	}
	return true
}

// normalize drops the scale of a memory operand without an index (the
// decoder reports one for SIB-encoded bases such as RSP and R12).
func normalize(a x86asm.Arg) x86asm.Arg {
	if m, ok := a.(x86asm.Mem); ok && m.Index == 0 {
		m.Scale = 0
		return m
	}
	return a
}

// TestOpFormsRoundTrip encodes every single-instruction form of the op
// table with several register choices, decodes the bytes with x86asm and
// compares the instruction and each operand.
func TestOpFormsRoundTrip(t *testing.T) {
	seen := map[mir.Op]bool{}
	for _, set := range [][5]mir.Reg{
		{mir.RAX, mir.RCX, mir.RDX, mir.X0, mir.X1},
		{mir.RSI, mir.RDI, mir.R8, mir.X7, mir.X8},
		{mir.R14, mir.R12, mir.R13, mir.X14, mir.X9},
		{mir.RBP, mir.RBX, mir.R10, mir.X3, mir.X12},
	} {
		for _, ft := range simpleForms(set[0], set[1], set[2], set[3], set[4]) {
			seen[ft.in.Op] = true
			got := encodeOne(t, ft.in, 4)
			if len(got) != 1 {
				t.Errorf("%s %v: %d instructions: %v", ft.in.Op, set, len(got), got)
				continue
			}
			if got[0].Op != ft.op || !sameArgs(got[0].Args, ft.args) {
				t.Errorf("%s %v: decoded %v %v, want %v %v", ft.in.Op, set, got[0].Op, got[0].Args, ft.op, ft.args)
			}
			// The width of a memory operand is not in its x86asm.Mem.
			if size := ft.in.Op.Info().MemSize; size != 0 && got[0].MemBytes != size {
				t.Errorf("%s %v: accesses %d bytes of memory, want %d", ft.in.Op, set, got[0].MemBytes, size)
			}
		}
	}
	// Every op is covered here or by TestExpandedForms.
	for op := mir.Op(1); int(op) < mir.NumOps; op++ {
		if !seen[op] && !expandedOps[op] {
			t.Errorf("no round-trip test for %s", op)
		}
	}
}

// expandedOps are the ops that encode to sequences (checked by
// TestExpandedForms and, for their results, by running compiled code).
var expandedOps = map[mir.Op]bool{
	mir.OpPhi: true, mir.OpParCopy: true, mir.OpArg: true, mir.OpPoll: true, mir.OpCount: true, mir.OpCountAdd: true,
	mir.OpIDIVQ: true, mir.OpDIVQ: true, mir.OpSETCC: true, mir.OpMOVSDconst: true, mir.OpMINSD: true,
	mir.OpMAXSD: true, mir.OpXORPDconst: true, mir.OpANDPDconst: true, mir.OpCVTUQ2SD: true,
	mir.OpCVTTSD2SQsat: true, mir.OpCVTTSD2UQsat: true, mir.OpCVTTSD2UQ: true, mir.OpJMP: true,
	mir.OpJCC: true, mir.OpJMPTABLE: true, mir.OpRET: true, mir.OpTRAP: true, mir.OpCALL: true,
	mir.OpCALLHOST: true, mir.OpCALLRT: true, mir.OpInvalid: true,
	mir.OpIDIVL: true, mir.OpDIVL: true, mir.OpMOVSSconst: true, mir.OpMINSS: true, mir.OpMAXSS: true,
	mir.OpCVTUQ2SS: true, mir.OpCALLIND: true, mir.OpTABLEload: true, mir.OpTRAPCC: true,
	mir.OpGLOBALloadQ: true, mir.OpGLOBALloadL: true, mir.OpGLOBALloadSD: true, mir.OpGLOBALloadSS: true,
	mir.OpGLOBALstoreQ: true, mir.OpGLOBALstoreL: true, mir.OpGLOBALstoreSD: true, mir.OpGLOBALstoreSS: true,
	mir.OpMEMMOVE: true, mir.OpMEMFILL: true,
}

// TestExpandedForms checks the instruction sequences of the expanded ops
// decode to what the encoder means to emit.
func TestExpandedForms(t *testing.T) {
	trap := ins(mir.OpTRAP, nil, nil, 7, 0)
	trap.Aux = 6
	setFEQ := ins(mir.OpSETCC, regs(mir.RSI), nil, 0, 0)
	setFEQ.Cond = mir.CondFEQ
	setFNE := ins(mir.OpSETCC, regs(mir.R9), nil, 0, 0)
	setFNE.Cond = mir.CondFNE
	setL := ins(mir.OpSETCC, regs(mir.RDI), nil, 0, 0)
	setL.Cond = mir.CondL
	call := ins(mir.OpCALL, nil, nil, 0, 0)
	call.Aux = 3
	trapAE := ins(mir.OpTRAPCC, nil, nil, 0, 0)
	trapAE.Aux, trapAE.Cond = 4, mir.CondAE
	trapFNE := ins(mir.OpTRAPCC, nil, nil, 0, 0)
	trapFNE.Aux, trapFNE.Cond = 4, mir.CondFNE
	host := ins(mir.OpCALLHOST, nil, nil, 0, 0)
	host.Aux = 2
	for _, tt := range []struct {
		in   *mir.Instr
		want string // mnemonics in order
	}{
		{ins(mir.OpIDIVQ, regs(mir.RAX, mir.RDX), regs(mir.RAX, mir.R9), 0, 0), "CQO IDIV"},
		{ins(mir.OpCount, nil, nil, 0, 0), "ADD"},
		{ins(mir.OpCountAdd, nil, regs(mir.R9), 0, 0), "ADD"},
		{ins(mir.OpDIVQ, regs(mir.RAX, mir.RDX), regs(mir.RAX, mir.R9), 0, 0), "XOR DIV"},
		{setL, "SETL MOVZX"},
		{setFEQ, "MOV SETE MOVZX CMOVP"},
		{setFNE, "MOV SETNE MOVZX CMOVP"},
		{ins(mir.OpMOVSDconst, regs(mir.X3), nil, 0, 0), "XORPS"},
		{ins(mir.OpMOVSDconst, regs(mir.X3), nil, 0x3ff0000000000000, 0), "MOVSD_XMM"},
		{ins(mir.OpXORPDconst, regs(mir.X3), regs(mir.X3), -1<<63, 0), "XORPD"},
		{ins(mir.OpANDPDconst, regs(mir.X3), regs(mir.X3), 1<<63-1, 0), "ANDPD"},
		{ins(mir.OpMINSD, regs(mir.X1), regs(mir.X1, mir.X2), 0, 0), "UCOMISD JP JNE ORPD JMP ADDSD JMP MINSD"},
		{ins(mir.OpMAXSD, regs(mir.X1), regs(mir.X1, mir.X2), 0, 0), "UCOMISD JP JNE ANDPD JMP ADDSD JMP MAXSD"},
		{ins(mir.OpCVTUQ2SD, regs(mir.X1, mir.RAX), regs(mir.RCX), 0, 0), "TEST JS CVTSI2SD JMP MOV SHR MOV AND OR CVTSI2SD ADDSD"},
		{ins(mir.OpIDIVL, regs(mir.RAX, mir.RDX), regs(mir.RAX, mir.R9), 0, 0), "CDQ IDIV"},
		{ins(mir.OpDIVL, regs(mir.RAX, mir.RDX), regs(mir.RAX, mir.R9), 0, 0), "XOR DIV"},
		{ins(mir.OpMOVSSconst, regs(mir.X3), nil, 0, 0), "XORPS"},
		{ins(mir.OpMOVSSconst, regs(mir.X3), nil, 0x3f800000, 0), "MOVSS"},
		{ins(mir.OpMINSS, regs(mir.X1), regs(mir.X1, mir.X2), 0, 0), "UCOMISS JP JNE ORPS JMP ADDSS JMP MINSS"},
		{ins(mir.OpMAXSS, regs(mir.X1), regs(mir.X1, mir.X2), 0, 0), "UCOMISS JP JNE ANDPS JMP ADDSS JMP MAXSS"},
		{ins(mir.OpCVTUQ2SS, regs(mir.X1, mir.RAX), regs(mir.RCX), 0, 0), "TEST JS CVTSI2SS JMP MOV SHR MOV AND OR CVTSI2SS ADDSS"},
		{ins(mir.OpCVTTSD2SQsat, regs(mir.RAX), regs(mir.X1), 0, 0), "CVTTSD2SI CMP JNO UCOMISD JP XORPS UCOMISD JBE MOV JMP MOV"},
		{ins(mir.OpCVTTSD2UQ, regs(mir.RAX, mir.X2), regs(mir.X1), 0, 0), "MOVSD_XMM UCOMISD JAE CVTTSD2SI JMP MOVAPS SUBSD CVTTSD2SI BTS JMP"},
		{trap, "MOV MOV MOV MOV CALL INT"},
		// The failure path of a conditional trap follows the block, out of line.
		{trapAE, "JAE MOV MOV MOV MOV CALL INT"},
		{trapFNE, "JNE JP MOV MOV MOV MOV CALL INT"},
		{host, "MOV MOV MOV MOV CALL"},
		{ins(mir.OpPoll, nil, nil, 0, 0), "SUB JS MOV MOV MOV MOV CALL JMP"},
		{call, "MOV CMP JGE ADD MOV MOV MOV CALL SUB MOV MOV MOV MOV CALL INT"},
		// Backward in a loop (eight bytes, then one at a time) when the
		// destination starts inside the source; forward a short move in
		// such a loop, a long one by a block move.
		{ins(mir.OpMEMMOVE, regs(mir.RDI, mir.RSI, mir.RCX), regs(mir.RDI, mir.RSI, mir.RCX), 0, 0),
			"MOV SUB CMP JAE CMP JB SUB MOV MOV JMP NOP CMP JB SUB MOVZX MOV JMP JMP CMP JAE NOP CMP JB SUB MOV MOV ADD ADD JMP NOP CMP JB SUB MOVZX MOV ADD ADD JMP JMP MOVSB"},
		{ins(mir.OpMEMFILL, regs(mir.RDI, mir.RCX), regs(mir.RDI, mir.RAX, mir.RCX), 0, 0), "STOSB"},
	} {
		var names []string
		for _, inst := range encodeOne(t, tt.in, 0) {
			names = append(names, inst.Op.String())
		}
		if got := strings.Join(names, " "); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.in.Op, got, tt.want)
		}
	}
}

// TestExpandedOperands checks the operands, and so their widths, of the
// instructions (branches aside) of expanded sequences whose 32-bit and f32
// forms share a shape with the 64-bit ones, and that the two-flag SETCC
// conditions write no flags.
func TestExpandedOperands(t *testing.T) {
	setFEQ := ins(mir.OpSETCC, regs(mir.RSI), nil, 0, 0)
	setFEQ.Cond = mir.CondFEQ
	setFNE := ins(mir.OpSETCC, regs(mir.R9), nil, 0, 0)
	setFNE.Cond = mir.CondFNE
	for _, tt := range []struct {
		in   *mir.Instr
		want string // instructions in Intel syntax, "; "-separated
	}{
		{ins(mir.OpIDIVL, regs(mir.RAX, mir.RDX), regs(mir.RAX, mir.R9), 0, 0), "CDQ; IDIV R9L"},
		{globalOp(mir.OpGLOBALloadQ, mir.RBX, 3), "MOV R11, [R15+0x198]; MOV RBX, [R11+0x18]"},
		{globalOp(mir.OpGLOBALloadL, mir.R9, 2), "MOV R11, [R15+0x198]; MOV R9L, [R11+0x10]"},
		{globalOp(mir.OpGLOBALloadSD, mir.X3, 1), "MOV R11, [R15+0x198]; MOVSD_XMM X3, [R11+0x8]"},
		{globalOp(mir.OpGLOBALloadSS, mir.X12, 0), "MOV R11, [R15+0x198]; MOVSS X12, [R11]"},
		{globalOp(mir.OpGLOBALstoreQ, mir.RBX, 3), "MOV R11, [R15+0x198]; MOV [R11+0x18], RBX"},
		{globalOp(mir.OpGLOBALstoreL, mir.R9, 2), "MOV R11, [R15+0x198]; MOV [R11+0x10], R9L"},
		{globalOp(mir.OpGLOBALstoreSD, mir.X3, 1), "MOV R11, [R15+0x198]; MOVSD_XMM [R11+0x8], X3"},
		{globalOp(mir.OpGLOBALstoreSS, mir.X12, 5), "MOV R11, [R15+0x198]; MOVSS [R11+0x28], X12"},
		{ins(mir.OpTABLEload, regs(mir.RCX), regs(mir.RSI), 0, 0), "MOV R11, [R15+0x1a0]; MOV RCX, [R11+8*RSI]"},
		{ins(mir.OpCALLIND, regs(mir.RAX), regs(mir.RDI, mir.RAX), 0, 0), "MOV R11, [R15+0x40]; CMP R11, [R15+0x48]; " +
			"ADD [R15+0x40], 0x1; MOV [R15+0x70], 0x0; MOV [R15+0x74], 0x0; MOV R11, [R15+0x50]; CALL [R11+8*RAX]; " +
			"SUB [R15+0x40], 0x1; MOV [R15+0x60], 0x1; MOV [R15+0x64], 0x5; MOV [R15+0x68], 0x0; MOV [R15+0x6c], 0x0; CALL [R15+0x58]; INT 0x3"},
		{ins(mir.OpDIVL, regs(mir.RAX, mir.RDX), regs(mir.RAX, mir.RBX), 0, 0), "XOR EDX, EDX; DIV EBX"},
		{ins(mir.OpMINSS, regs(mir.X1), regs(mir.X1, mir.X12), 0, 0),
			"UCOMISS X1, X12; ORPS X1, X12; ADDSS X1, X12; MINSS X1, X12"},
		{ins(mir.OpMAXSS, regs(mir.X9), regs(mir.X9, mir.X2), 0, 0),
			"UCOMISS X9, X2; ANDPS X9, X2; ADDSS X9, X2; MAXSS X9, X2"},
		{ins(mir.OpCVTUQ2SS, regs(mir.X10, mir.R8), regs(mir.RCX), 0, 0),
			"TEST RCX, RCX; CVTSI2SS X10, RCX; MOV R8, RCX; SHR R8, 0x1; MOV R11, RCX; AND R11, 0x1; OR R8, R11; CVTSI2SS X10, R8; ADDSS X10, X10"},
		{setFEQ, "MOV R11L, 0x0; SETE SIB; MOVZX RSI, SIB; CMOVP RSI, R11"},
		{setFNE, "MOV R11L, 0x1; SETNE R9B; MOVZX R9, R9B; CMOVP R9, R11"},
	} {
		var got []string
		for _, inst := range encodeOne(t, tt.in, 0) {
			if _, ok := inst.Args[0].(x86asm.Rel); !ok {
				got = append(got, inst.String())
			}
		}
		if g := strings.Join(got, "; "); g != tt.want {
			t.Errorf("%s: %s\nwant %s", tt.in.Op, g, tt.want)
		}
	}
}

// TestCountForms checks that counting an edge is one add to the counter's
// word below the context (R15+CounterOffset+8*Aux), with a byte's
// displacement where it reaches and four bytes otherwise, and that a
// counter beyond a 32-bit displacement is an error.
func TestCountForms(t *testing.T) {
	count := func(op mir.Op, slot int32, use ...mir.Reg) *mir.Instr {
		in := ins(op, nil, use, 0, 0)
		in.Aux = slot
		return in
	}
	for _, tt := range []struct {
		in     *mir.Instr
		offset int64
		src    x86asm.Arg // what is added: 1 or the register
		disp   int64      // of the counter from R15
		bytes  int        // the instruction's length; 0: an error
	}{
		{count(mir.OpCount, 0), -40, x86asm.Imm(1), -40, 5},
		{count(mir.OpCount, 4), -40, x86asm.Imm(1), -8, 5},
		{count(mir.OpCountAdd, 1, mir.R9), -40, x86asm.R9, -32, 4},
		{count(mir.OpCountAdd, 2, mir.RAX), -40, x86asm.RAX, -24, 4},
		{count(mir.OpCount, 0), -128, x86asm.Imm(1), -128, 5},
		{count(mir.OpCount, 0), -136, x86asm.Imm(1), -136, 8},
		{count(mir.OpCountAdd, 3, mir.RBX), -8 << 20, x86asm.RBX, -8<<20 + 24, 7},
		{count(mir.OpCount, 0), -1 << 31, x86asm.Imm(1), -1 << 31, 8},
		{count(mir.OpCount, 0), -1<<31 - 8, nil, 0, 0},
		{count(mir.OpCountAdd, 1<<28, mir.RAX), 0, nil, 0, 0},
	} {
		got, err := encodeOneOptions(t, tt.in, 0, Options{CounterOffset: tt.offset})
		if tt.bytes == 0 {
			if err == nil || !strings.Contains(err.Error(), "beyond a 32-bit displacement") {
				t.Errorf("%s slot %d at %d: error %v, want one about the displacement", tt.in.Op, tt.in.Aux, tt.offset, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s slot %d at %d: %v", tt.in.Op, tt.in.Aux, tt.offset, err)
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s slot %d at %d: %v, want one instruction", tt.in.Op, tt.in.Aux, tt.offset, got)
			continue
		}
		mem, ok := got[0].Args[0].(x86asm.Mem)
		if got[0].Op != x86asm.ADD || !ok || mem.Base != x86asm.R15 || mem.Index != 0 || int64(int32(mem.Disp)) != tt.disp ||
			got[0].Args[1] != tt.src || got[0].MemBytes != 8 || got[0].Len != tt.bytes {
			t.Errorf("%s slot %d at %d: %v (%d bytes), want ADD of %v to the 8 bytes at R15%+d (%d bytes)",
				tt.in.Op, tt.in.Aux, tt.offset, got[0], got[0].Len, tt.src, tt.disp, tt.bytes)
		}
	}
}

// globalOp returns a GLOBALload (def r) or GLOBALstore (use r) of global
// g.
func globalOp(op mir.Op, r mir.Reg, g int32) *mir.Instr {
	in := ins(op, nil, nil, 0, 0)
	if op.Info().Stores {
		in.Uses = regs(r)
	} else {
		in.Defs = regs(r)
	}
	in.Aux = g
	return in
}

// TestBlockMovesRepeat checks that the string instructions of MEMMOVE and
// MEMFILL carry the REP prefix (the mnemonics TestExpandedForms compares
// leave it out).
func TestBlockMovesRepeat(t *testing.T) {
	for _, in := range []*mir.Instr{
		ins(mir.OpMEMMOVE, regs(mir.RDI, mir.RSI, mir.RCX), regs(mir.RDI, mir.RSI, mir.RCX), 0, 0),
		ins(mir.OpMEMFILL, regs(mir.RDI, mir.RCX), regs(mir.RDI, mir.RAX, mir.RCX), 0, 0),
	} {
		n := 0
		for _, inst := range encodeOne(t, in, 0) {
			if inst.Op != x86asm.MOVSB && inst.Op != x86asm.STOSB {
				continue
			}
			n++
			rep := false
			for _, p := range inst.Prefix {
				rep = rep || p&^x86asm.PrefixImplicit == x86asm.PrefixREP
			}
			if !rep {
				t.Errorf("%s: %v without a REP prefix", in.Op, inst)
			}
		}
		if n == 0 {
			t.Errorf("%s: no string instruction", in.Op)
		}
	}
}
