package mir

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/floatbits"
	"github.com/kiln-jit/kiln/interp"
)

// Flag states: the flags are kept lazily as the operands of the last flag
// producer and computed when a condition reads them.
const (
	irFlagsUndef uint8 = iota // undefined (no producer, or an op that leaves them undefined)
	irFlagsSub                // a - b (CMPQ, SUBQ, NEGQ as 0 - a)
	irFlagsAdd                // a + b
	irFlagsLogic              // result a, CF = OF = 0 (AND, OR, XOR, TEST)
	irFlagsUcomi              // UCOMISD a, b (float64 bits; UCOMISS promotes its operands)
	irFlagsZF                 // only ZF is defined: ZF = (a == 0) (BSR, BSF)
	irFlagsSub32              // uint32(a) - uint32(b) (CMPL, SUBL, NEGL as 0 - a)
	irFlagsAdd32              // uint32(a) + uint32(b)
)

// irParity returns x86's PF for a result: set when its low byte has an even
// number of one bits.
func irParity(r uint64) bool { return bits.OnesCount8(uint8(r))&1 == 0 }

// irHolds evaluates condition c on the lazily kept flags. ok is false when
// the flags c reads are undefined.
func irHolds(c Cond, kind uint8, a, b uint64) (holds, ok bool) {
	var fl Flags
	switch kind {
	case irFlagsSub:
		r := a - b
		fl = Flags{CF: a < b, ZF: r == 0, SF: int64(r) < 0, OF: int64((a^b)&(a^r)) < 0, PF: irParity(r)}
	case irFlagsAdd:
		r := a + b
		fl = Flags{CF: r < a, ZF: r == 0, SF: int64(r) < 0, OF: int64((a^r)&(b^r)) < 0, PF: irParity(r)}
	case irFlagsLogic:
		fl = Flags{ZF: a == 0, SF: int64(a) < 0, PF: irParity(a)}
	case irFlagsUcomi:
		x, y := math.Float64frombits(a), math.Float64frombits(b)
		switch {
		case x != x || y != y:
			fl = Flags{ZF: true, PF: true, CF: true}
		case x < y:
			fl.CF = true
		case x == y:
			fl.ZF = true
		}
	case irFlagsSub32:
		x, y := uint32(a), uint32(b)
		r := x - y
		fl = Flags{CF: x < y, ZF: r == 0, SF: int32(r) < 0, OF: int32((x^y)&(x^r)) < 0, PF: irParity(uint64(r))}
	case irFlagsAdd32:
		x, y := uint32(a), uint32(b)
		r := x + y
		fl = Flags{CF: r < x, ZF: r == 0, SF: int32(r) < 0, OF: int32((x^r)&(y^r)) < 0, PF: irParity(uint64(r))}
	case irFlagsZF:
		if c != CondE && c != CondNE {
			return false, false
		}
		fl.ZF = a == 0
	default:
		return false, false
	}
	return c.Holds(fl), true
}

// irEA returns the offset from InterpMemBase of the memory operand of in
// (base u1, index u2), and whether its registers are defined.
func irEA(regs []irCell, in *irInst) (uint64, bool) {
	b, x := regs[in.u1], regs[in.u2]
	return b.v + x.v*uint64(in.scale) + uint64(in.imm) - InterpMemBase, b.ok && x.ok
}

// irInMem reports whether size bytes at offset off lie inside mem.
func irInMem(mem []byte, off, size uint64) bool {
	n := uint64(len(mem))
	return off < n && n-off >= size
}

func irF(v uint64) float64  { return math.Float64frombits(v) }
func irB(x float64) uint64  { return math.Float64bits(x) }
func irDef(v uint64) irCell { return irCell{v, true} }

// irLogic32 is the lazily kept operand of the flags of a 32-bit logic op
// (ANDL, ORL, XORL, TESTL) with result r: they keep irFlagsLogic with the
// result sign-extended to 64 bits, whose ZF, SF (bit 31 copied to bit 63)
// and PF (the low byte) are those of the 32-bit result.
func irLogic32(r uint64) uint64 { return uint64(int64(int32(r))) }

// irF32 returns the f32 value of an XMM cell: its low 32 bits. f32 results
// are cells with those bits and the upper 32 bits zero; the machine leaves
// bits 32..63 of an XMM register holding an f32 undefined, and the
// interpreter defines them as zero (no op reads them).
func irF32(v uint64) uint32 { return uint32(v) }

// irMoves runs a parallel move list.
func (m *Machine) irMoves(regs []irCell, mv []irMove, seq bool) {
	if seq {
		for _, x := range mv {
			regs[x.dst] = regs[x.src]
		}
		return
	}
	t := m.tmp[:0]
	for _, x := range mv {
		t = append(t, regs[x.src])
	}
	for i, x := range mv {
		regs[x.dst] = t[i]
	}
	m.tmp = t
}

// irClobber makes the caller-saved registers of a window undefined.
func irClobber(regs []irCell) {
	for _, c := range irCallerSavedCells {
		regs[c].ok = false
	}
}

// exec is the dispatch loop. It runs f, whose window starts at cell base,
// until it returns (writing its results to results) or stops with a trap
// or fault. Calls between kiln functions push a frame above framesBase and
// switch windows without recursing in Go.
func (m *Machine) exec(f *irFunc, base, framesBase int, results []uint64) (err error) {
	inHost := false
	outer := f.name
	defer func() {
		if p := recover(); p != nil {
			if inHost {
				panic(p)
			}
			err = &Fault{Func: outer, Block: -1, Instr: -1, Msg: fmt.Sprintf("internal error: %v", p)}
		}
	}()

	regs := m.cells[base : base+f.nCells]
	code := f.code
	execs := f.execs
	ip := int(f.entry)
	mem := m.Memory.Bytes
	var (
		fk     uint8
		fa, fb uint64
		fw     int32 = -1
		e      *irEdge
	)

	for {
		in := &code[ip]
		if execs != nil {
			execs[ip]++
		}
		switch in.op {
		case OpCopy:
			regs[in.d0] = regs[in.u0]
		case OpXchg:
			a, b := regs[in.u0], regs[in.u1]
			regs[in.d0], regs[in.d1] = b, a
		case OpParCopy:
			m.irMoves(regs, f.moves[in.aux:in.imm], in.scale != 0)
		case OpMOVQconst, OpMOVSDconst:
			regs[in.d0] = irDef(uint64(in.imm))
		case OpCtxLoad:
			switch CtxField(in.aux) {
			case CtxMemBase:
				regs[in.d0] = irDef(InterpMemBase)
			case CtxMemLen:
				regs[in.d0] = irDef(uint64(len(mem)))
			case CtxDepth, CtxOSREntry, CtxOSRFrame:
				regs[in.d0] = irDef(0) // no on-stack replacement here
			case CtxOSRDepth:
				regs[in.d0] = irDef(^uint64(0))
			default:
				regs[in.d0] = irDef(MemBound(CtxField(in.aux), uint64(len(mem))))
			}
		case OpGLOBALloadQ, OpGLOBALloadL, OpGLOBALloadSD, OpGLOBALloadSS:
			if uint(in.aux) >= uint(len(m.Globals)) {
				return m.fault(f, ip, "global %d out of range (%d globals)", in.aux, len(m.Globals))
			}
			v := m.Globals[in.aux]
			if in.op == OpGLOBALloadL || in.op == OpGLOBALloadSS {
				v = uint64(uint32(v))
			}
			regs[in.d0] = irDef(v)
		case OpGLOBALstoreQ, OpGLOBALstoreL, OpGLOBALstoreSD, OpGLOBALstoreSS:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			if uint(in.aux) >= uint(len(m.Globals)) {
				return m.fault(f, ip, "global %d out of range (%d globals)", in.aux, len(m.Globals))
			}
			if in.op == OpGLOBALstoreL || in.op == OpGLOBALstoreSS {
				m.Globals[in.aux] = m.Globals[in.aux]&^0xFFFFFFFF | uint64(uint32(a.v))
			} else {
				m.Globals[in.aux] = a.v
			}
		case OpTABLEload:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			if a.v >= uint64(len(m.Table)) {
				return m.fault(f, ip, "table index %d out of range (%d entries)", a.v, len(m.Table))
			}
			regs[in.d0] = irDef(m.Table[a.v])
		case OpPoll:
			if m.poll.Budget--; m.poll.Budget < 0 {
				if err := m.pollAt(f, ip); err != nil {
					return err
				}
			}
			fk, fw = irFlagsUndef, int32(ip)
		case OpCount, OpCountAdd:
			var cnt []uint64
			if f.index < len(m.Counters) {
				cnt = m.Counters[f.index]
			}
			if uint64(in.aux) >= uint64(len(cnt)) {
				return m.fault(f, ip, "counter %d out of range (%d counters)", in.aux, len(cnt))
			}
			if in.op == OpCount {
				cnt[in.aux]++
			} else {
				a := regs[in.u0]
				if !a.ok {
					return m.faultUndef(f, ip, regs)
				}
				cnt[in.aux] += a.v
			}
			fk, fw = irFlagsUndef, int32(ip)

		// Two-operand integer ALU, 64 and 32 bits (the 32-bit ops read
		// the low halves of their operands and write zero-extended
		// results).
		case OpADDQ, OpSUBQ, OpANDQ, OpORQ, OpXORQ, OpIMULQ, OpADDL, OpSUBL, OpANDL, OpORL, OpXORL, OpIMULL:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			var r uint64
			r, fk, fa, fb = irALU(in.op, a.v, b.v)
			regs[in.d0] = irDef(r)
			fw = int32(ip)
		case OpADDQconst, OpSUBQconst, OpANDQconst, OpORQconst, OpXORQconst,
			OpADDLconst, OpSUBLconst, OpANDLconst, OpORLconst, OpXORLconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			var r uint64
			r, fk, fa, fb = irALU(in.op, a.v, uint64(in.imm))
			regs[in.d0] = irDef(r)
			fw = int32(ip)
		case OpADDQload, OpSUBQload, OpANDQload, OpORQload, OpXORQload, OpIMULQload:
			a := regs[in.u0]
			off, ok := irEA(regs, in)
			if !a.ok || !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 8) {
				return m.faultMem(f, ip, off, 8, len(mem))
			}
			var r uint64
			r, fk, fa, fb = irALU(in.op, a.v, binary.LittleEndian.Uint64(mem[off:]))
			regs[in.d0] = irDef(r)
			fw = int32(ip)
		case OpNEGQ:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(-a.v)
			fk, fa, fb, fw = irFlagsSub, 0, a.v, int32(ip)
		case OpNOTQ:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(^a.v)
		case OpSHLQ, OpSHRQ, OpSARQ, OpROLQ, OpRORQ, OpSHLL, OpSHRL, OpSARL, OpROLL, OpRORL:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(irShift(in.op, a.v, b.v))
			fk, fw = irFlagsUndef, int32(ip)
		case OpSHLQconst, OpSHRQconst, OpSARQconst, OpROLQconst, OpRORQconst,
			OpSHLLconst, OpSHRLconst, OpSARLconst, OpROLLconst, OpRORLconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(irShift(in.op, a.v, uint64(in.imm)))
			fk, fw = irFlagsUndef, int32(ip)
		case OpIMUL3Qconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(a.v * uint64(in.imm))
			fk, fw = irFlagsUndef, int32(ip)
		case OpLEAQ:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(a.v + uint64(in.imm))
		case OpLEAQidx:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(a.v + b.v*uint64(in.scale) + uint64(in.imm))
		case OpIDIVQ:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			x, y := int64(a.v), int64(b.v)
			if y == 0 {
				return m.fault(f, ip, "#DE: signed division of %d by zero", x)
			}
			if y == -1 && x == math.MinInt64 {
				return m.fault(f, ip, "#DE: signed division overflows (INT64_MIN / -1)")
			}
			regs[in.d0], regs[in.d1] = irDef(uint64(x/y)), irDef(uint64(x%y))
			fk, fw = irFlagsUndef, int32(ip)
		case OpDIVQ:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			if b.v == 0 {
				return m.fault(f, ip, "#DE: unsigned division of %d by zero", a.v)
			}
			regs[in.d0], regs[in.d1] = irDef(a.v/b.v), irDef(a.v%b.v)
			fk, fw = irFlagsUndef, int32(ip)

		// Compares and flag readers.
		case OpCMPQ:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fb, fw = irFlagsSub, a.v, b.v, int32(ip)
		case OpCMPQconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fb, fw = irFlagsSub, a.v, uint64(in.imm), int32(ip)
		case OpCMPQload:
			a := regs[in.u0]
			off, ok := irEA(regs, in)
			if !a.ok || !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 8) {
				return m.faultMem(f, ip, off, 8, len(mem))
			}
			fk, fa, fb, fw = irFlagsSub, a.v, binary.LittleEndian.Uint64(mem[off:]), int32(ip)
		case OpTESTQ:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fw = irFlagsLogic, a.v&b.v, int32(ip)
		case OpTESTQconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fw = irFlagsLogic, a.v&uint64(in.imm), int32(ip)
		case OpUCOMISD:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fb, fw = irFlagsUcomi, a.v, b.v, int32(ip)
		case OpSETCC:
			h, ok := irHolds(in.cond, fk, fa, fb)
			if !ok {
				return m.faultFlags(f, ip, fw, in.cond)
			}
			if h {
				regs[in.d0] = irDef(1)
			} else {
				regs[in.d0] = irDef(0)
			}
		case OpCMOVQCC:
			h, ok := irHolds(in.cond, fk, fa, fb)
			if !ok {
				return m.faultFlags(f, ip, fw, in.cond)
			}
			if h {
				regs[in.d0] = regs[in.u1]
			} else {
				regs[in.d0] = regs[in.u0]
			}

		// Bit counts.
		case OpLZCNTQ, OpTZCNTQ, OpPOPCNTQ:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			var r int
			switch in.op {
			case OpLZCNTQ:
				r = bits.LeadingZeros64(a.v)
			case OpTZCNTQ:
				r = bits.TrailingZeros64(a.v)
			default:
				r = bits.OnesCount64(a.v)
			}
			regs[in.d0] = irDef(uint64(r))
			fk, fw = irFlagsUndef, int32(ip)
		case OpBSRQ, OpBSFQ:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			switch {
			case a.v == 0:
				regs[in.d0] = irCell{}
			case in.op == OpBSRQ:
				regs[in.d0] = irDef(uint64(63 - bits.LeadingZeros64(a.v)))
			default:
				regs[in.d0] = irDef(uint64(bits.TrailingZeros64(a.v)))
			}
			fk, fa, fw = irFlagsZF, a.v, int32(ip)

		// Extensions.
		case OpMOVBQSX, OpMOVBQZX, OpMOVWQSX, OpMOVWQZX, OpMOVLQSX, OpMOVLQZX:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			var r uint64
			switch in.op {
			case OpMOVBQSX:
				r = uint64(int64(int8(a.v)))
			case OpMOVBQZX:
				r = uint64(uint8(a.v))
			case OpMOVWQSX:
				r = uint64(int64(int16(a.v)))
			case OpMOVWQZX:
				r = uint64(uint16(a.v))
			case OpMOVLQSX:
				r = uint64(int64(int32(a.v)))
			default:
				r = uint64(uint32(a.v))
			}
			regs[in.d0] = irDef(r)

		// Loads and stores.
		case OpMOVQload, OpMOVSDload:
			off, ok := irEA(regs, in)
			if !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 8) {
				return m.faultMem(f, ip, off, 8, len(mem))
			}
			regs[in.d0] = irDef(binary.LittleEndian.Uint64(mem[off:]))
		case OpMOVBQSXload, OpMOVBQZXload:
			off, ok := irEA(regs, in)
			if !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 1) {
				return m.faultMem(f, ip, off, 1, len(mem))
			}
			if in.op == OpMOVBQSXload {
				regs[in.d0] = irDef(uint64(int64(int8(mem[off]))))
			} else {
				regs[in.d0] = irDef(uint64(mem[off]))
			}
		case OpMOVWQSXload, OpMOVWQZXload:
			off, ok := irEA(regs, in)
			if !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 2) {
				return m.faultMem(f, ip, off, 2, len(mem))
			}
			v := binary.LittleEndian.Uint16(mem[off:])
			if in.op == OpMOVWQSXload {
				regs[in.d0] = irDef(uint64(int64(int16(v))))
			} else {
				regs[in.d0] = irDef(uint64(v))
			}
		case OpMOVLQSXload, OpMOVLQZXload:
			off, ok := irEA(regs, in)
			if !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 4) {
				return m.faultMem(f, ip, off, 4, len(mem))
			}
			v := binary.LittleEndian.Uint32(mem[off:])
			if in.op == OpMOVLQSXload {
				regs[in.d0] = irDef(uint64(int64(int32(v))))
			} else {
				regs[in.d0] = irDef(uint64(v))
			}
		case OpMEMMOVE, OpMEMFILL:
			d, v, n := regs[in.u0], regs[in.u1], regs[in.u2]
			if !d.ok || !v.ok || !n.ok {
				return m.faultUndef(f, ip, regs)
			}
			doff := d.v - InterpMemBase
			if n.v > 0 && !irInMem(mem, doff, n.v) {
				return m.faultMem(f, ip, doff, int(min(n.v, math.MaxInt32)), len(mem))
			}
			if in.op == OpMEMMOVE {
				soff := v.v - InterpMemBase
				if n.v > 0 && !irInMem(mem, soff, n.v) {
					return m.faultMem(f, ip, soff, int(min(n.v, math.MaxInt32)), len(mem))
				}
				if n.v > 0 {
					copy(mem[doff:doff+n.v], mem[soff:soff+n.v])
				}
				regs[in.d2].ok = false
				fk, fw = irFlagsUndef, int32(ip)
			} else if n.v > 0 {
				b := mem[doff : doff+n.v]
				for i := range b {
					b[i] = byte(v.v)
				}
			}
			// The registers the sequence changes hold nothing to read.
			regs[in.d0].ok, regs[in.d1].ok = false, false
		case OpMOVBstore, OpMOVWstore, OpMOVLstore, OpMOVQstore, OpMOVSDstore:
			val := regs[in.u0]
			off, ok := irEA(regs, in)
			if !ok || !val.ok {
				return m.faultUndef(f, ip, regs)
			}
			var size uint64
			switch in.op {
			case OpMOVBstore:
				size = 1
			case OpMOVWstore:
				size = 2
			case OpMOVLstore:
				size = 4
			default:
				size = 8
			}
			if !irInMem(mem, off, size) {
				return m.faultMem(f, ip, off, int(size), len(mem))
			}
			switch size {
			case 1:
				mem[off] = byte(val.v)
			case 2:
				binary.LittleEndian.PutUint16(mem[off:], uint16(val.v))
			case 4:
				binary.LittleEndian.PutUint32(mem[off:], uint32(val.v))
			default:
				binary.LittleEndian.PutUint64(mem[off:], val.v)
			}

		// Scalar doubles.
		case OpADDSD, OpSUBSD, OpMULSD, OpDIVSD:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(irFP(in.op, a.v, b.v))
		case OpADDSDload, OpSUBSDload, OpMULSDload, OpDIVSDload:
			a := regs[in.u0]
			off, ok := irEA(regs, in)
			if !a.ok || !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 8) {
				return m.faultMem(f, ip, off, 8, len(mem))
			}
			regs[in.d0] = irDef(irFP(in.op, a.v, binary.LittleEndian.Uint64(mem[off:])))
		case OpMINSD, OpMAXSD:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			if in.op == OpMINSD {
				regs[in.d0] = irDef(floatbits.Min64(a.v, b.v))
			} else {
				regs[in.d0] = irDef(floatbits.Max64(a.v, b.v))
			}
			fk, fw = irFlagsUndef, int32(ip)
		case OpSQRTSD, OpROUNDSD:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			if in.op == OpSQRTSD {
				regs[in.d0] = irDef(floatbits.Sqrt64(a.v))
			} else {
				regs[in.d0] = irDef(floatbits.Round64(a.v, int(in.aux)))
			}
		case OpXORPDconst, OpANDPDconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			if in.op == OpXORPDconst {
				regs[in.d0] = irDef(a.v ^ uint64(in.imm))
			} else {
				regs[in.d0] = irDef(a.v & uint64(in.imm))
			}

		// Conversions.
		case OpCVTSQ2SD:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(irB(float64(int64(a.v))))
		case OpCVTUQ2SD:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0], regs[in.d1] = irDef(irB(float64(a.v))), irCell{}
			fk, fw = irFlagsUndef, int32(ip)
		case OpCVTTSD2SQ:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			v, kind := interp.TruncS(irF(a.v))
			if kind != bytecode.TrapNone {
				v = math.MinInt64
			}
			regs[in.d0] = irDef(uint64(v))
		case OpCVTTSD2SQsat:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(uint64(interp.TruncSatS(irF(a.v))))
			fk, fw = irFlagsUndef, int32(ip)
		case OpCVTTSD2UQsat, OpCVTTSD2UQ:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0], regs[in.d1] = irDef(interp.TruncSatU(irF(a.v))), irCell{}
			fk, fw = irFlagsUndef, int32(ip)

		// 32-bit integer ops: they read the low 32 bits of their operands
		// and write zero-extended 32-bit results.
		case OpNEGL:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(uint64(-uint32(a.v)))
			fk, fa, fb, fw = irFlagsSub32, 0, a.v, int32(ip)
		case OpNOTL:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(uint64(^uint32(a.v)))
		case OpIMUL3Lconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(uint64(uint32(a.v) * uint32(in.imm)))
			fk, fw = irFlagsUndef, int32(ip)
		case OpLEAL:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(uint64(uint32(a.v + uint64(in.imm))))
		case OpLEALidx:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(uint64(uint32(a.v + b.v*uint64(in.scale) + uint64(in.imm))))
		case OpIDIVL:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			x, y := int32(a.v), int32(b.v)
			if y == 0 {
				return m.fault(f, ip, "#DE: signed division of %d by zero", x)
			}
			if y == -1 && x == math.MinInt32 {
				return m.fault(f, ip, "#DE: signed division overflows (INT32_MIN / -1)")
			}
			regs[in.d0], regs[in.d1] = irDef(uint64(uint32(x/y))), irDef(uint64(uint32(x%y)))
			fk, fw = irFlagsUndef, int32(ip)
		case OpDIVL:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			x, y := uint32(a.v), uint32(b.v)
			if y == 0 {
				return m.fault(f, ip, "#DE: unsigned division of %d by zero", x)
			}
			regs[in.d0], regs[in.d1] = irDef(uint64(x/y)), irDef(uint64(x%y))
			fk, fw = irFlagsUndef, int32(ip)
		case OpCMPL:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fb, fw = irFlagsSub32, a.v, b.v, int32(ip)
		case OpCMPLconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fb, fw = irFlagsSub32, a.v, uint64(in.imm), int32(ip)
		case OpTESTL:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fw = irFlagsLogic, irLogic32(a.v&b.v), int32(ip)
		case OpTESTLconst:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			fk, fa, fw = irFlagsLogic, irLogic32(a.v&uint64(in.imm)), int32(ip)
		case OpLZCNTL, OpTZCNTL, OpPOPCNTL:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			x := uint32(a.v)
			var r int
			switch in.op {
			case OpLZCNTL:
				r = bits.LeadingZeros32(x)
			case OpTZCNTL:
				r = bits.TrailingZeros32(x)
			default:
				r = bits.OnesCount32(x)
			}
			regs[in.d0] = irDef(uint64(r))
			fk, fw = irFlagsUndef, int32(ip)
		case OpBSRL, OpBSFL:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			x := uint32(a.v)
			switch {
			case x == 0:
				regs[in.d0] = irCell{}
			case in.op == OpBSRL:
				regs[in.d0] = irDef(uint64(31 - bits.LeadingZeros32(x)))
			default:
				regs[in.d0] = irDef(uint64(bits.TrailingZeros32(x)))
			}
			fk, fa, fw = irFlagsZF, uint64(x), int32(ip)
		case OpMOVBLSX, OpMOVWLSX:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			if in.op == OpMOVBLSX {
				regs[in.d0] = irDef(uint64(uint32(int32(int8(a.v)))))
			} else {
				regs[in.d0] = irDef(uint64(uint32(int32(int16(a.v)))))
			}
		case OpMOVBLSXload:
			off, ok := irEA(regs, in)
			if !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 1) {
				return m.faultMem(f, ip, off, 1, len(mem))
			}
			regs[in.d0] = irDef(uint64(uint32(int32(int8(mem[off])))))
		case OpMOVWLSXload:
			off, ok := irEA(regs, in)
			if !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 2) {
				return m.faultMem(f, ip, off, 2, len(mem))
			}
			regs[in.d0] = irDef(uint64(uint32(int32(int16(binary.LittleEndian.Uint16(mem[off:]))))))

		// Scalar singles: f32 values are the low 32 bits of XMM cells
		// (irF32); results have their upper 32 bits zero.
		case OpMOVSSconst:
			regs[in.d0] = irDef(uint64(uint32(in.imm)))
		case OpMOVSSload:
			off, ok := irEA(regs, in)
			if !ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 4) {
				return m.faultMem(f, ip, off, 4, len(mem))
			}
			regs[in.d0] = irDef(uint64(binary.LittleEndian.Uint32(mem[off:])))
		case OpMOVSSstore:
			val := regs[in.u0]
			off, ok := irEA(regs, in)
			if !ok || !val.ok {
				return m.faultUndef(f, ip, regs)
			}
			if !irInMem(mem, off, 4) {
				return m.faultMem(f, ip, off, 4, len(mem))
			}
			binary.LittleEndian.PutUint32(mem[off:], irF32(val.v))
		case OpADDSS, OpSUBSS, OpMULSS, OpDIVSS:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0] = irDef(irFP32(in.op, a.v, b.v))
		case OpMINSS, OpMAXSS:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			if in.op == OpMINSS {
				regs[in.d0] = irDef(uint64(floatbits.Min32(irF32(a.v), irF32(b.v))))
			} else {
				regs[in.d0] = irDef(uint64(floatbits.Max32(irF32(a.v), irF32(b.v))))
			}
			fk, fw = irFlagsUndef, int32(ip)
		case OpSQRTSS, OpROUNDSS:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			if in.op == OpSQRTSS {
				regs[in.d0] = irDef(uint64(floatbits.Sqrt32(irF32(a.v))))
			} else {
				regs[in.d0] = irDef(uint64(floatbits.Round32(irF32(a.v), int(in.aux))))
			}
		case OpUCOMISS:
			a, b := regs[in.u0], regs[in.u1]
			if !a.ok || !b.ok {
				return m.faultUndef(f, ip, regs)
			}
			// Promotion is exact and keeps NaNs NaN: the comparison of the
			// f64 values is that of the f32 values.
			fk, fa, fb, fw = irFlagsUcomi, floatbits.Promote(irF32(a.v)), floatbits.Promote(irF32(b.v)), int32(ip)
		case OpMOVL2X, OpMOVX2L:
			// Moves of the low 32 bits (zero-extended), copying definedness
			// as the 64-bit moves do.
			a := regs[in.u0]
			regs[in.d0] = irCell{uint64(uint32(a.v)), a.ok}

		// Conversions involving 32-bit types.
		case OpCVTSS2SD, OpCVTSD2SS, OpCVTSL2SS, OpCVTSQ2SS, OpCVTSL2SD, OpCVTTSD2SL:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			var r uint64
			switch in.op {
			case OpCVTSS2SD:
				r = floatbits.Promote(irF32(a.v))
			case OpCVTSD2SS:
				r = uint64(floatbits.Demote(a.v))
			case OpCVTSL2SS:
				r = uint64(math.Float32bits(float32(int32(a.v))))
			case OpCVTSQ2SS:
				r = uint64(math.Float32bits(float32(int64(a.v))))
			case OpCVTSL2SD:
				r = irB(float64(int32(a.v)))
			default:
				r = irTruncSL(a.v)
			}
			regs[in.d0] = irDef(r)
		case OpCVTUQ2SS:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			regs[in.d0], regs[in.d1] = irDef(uint64(math.Float32bits(float32(a.v)))), irCell{}
			fk, fw = irFlagsUndef, int32(ip)

		// Control flow.
		case OpJMP:
			e = &f.edges[in.aux]
			goto edge
		case OpJCC:
			h, ok := irHolds(in.cond, fk, fa, fb)
			if !ok {
				return m.faultFlags(f, ip, fw, in.cond)
			}
			if h {
				e = &f.edges[in.aux]
			} else {
				e = &f.edges[in.aux+1]
			}
			goto edge
		case OpJMPTABLE:
			a := regs[in.u0]
			if !a.ok {
				return m.faultUndef(f, ip, regs)
			}
			if a.v >= uint64(in.imm) {
				return m.fault(f, ip, "jump-table index %d out of range (%d entries)", a.v, in.imm)
			}
			e = &f.edges[int(in.aux)+int(a.v)]
			goto edge
		case OpTRAPCC:
			h, ok := irHolds(in.cond, fk, fa, fb)
			if !ok {
				return m.faultFlags(f, ip, fw, in.cond)
			}
			if h {
				return m.trap(bytecode.TrapKind(in.aux), f, ip)
			}
		case OpTRAP:
			t := m.trap(bytecode.TrapKind(in.aux), f, ip)
			t.Code = in.imm
			return t

		case OpRET:
			c := &f.calls[in.aux]
			if len(m.frames) == framesBase {
				for k, u := range c.args {
					v := regs[u]
					if !v.ok {
						return m.fault(f, ip, "result %d (%s) is undefined", k, f.regName(f.loc[ip].in.Uses[k]))
					}
					results[k] = v.v
				}
				return nil
			}
			fr := m.frames[len(m.frames)-1]
			m.frames = m.frames[:len(m.frames)-1]
			cf := m.resolved[fr.fn]
			cregs := m.cells[fr.base : int(fr.base)+cf.nCells]
			cc := &cf.calls[cf.code[fr.ip].aux]
			irClobber(cregs)
			if n := min(f.nIn, cf.nOut); n > 0 {
				copy(cregs[cf.outOff:cf.outOff+n], regs[f.inOff:f.inOff+n])
			}
			for k, u := range c.args {
				cregs[cc.results[k]] = regs[u]
			}
			f, base, regs, code, execs = cf, int(fr.base), cregs, cf.code, cf.execs
			ip = int(fr.ip) + 1
			fk, fw = irFlagsUndef, fr.ip
			continue

		case OpCALL, OpCALLIND:
			c := &f.calls[in.aux]
			g := c.fn
			if in.op == OpCALLIND {
				var msg string
				if g, msg = m.indirectCallee(c, regs); msg != "" {
					return m.fault(f, ip, "%s", msg)
				}
			}
			if len(m.frames)+m.active >= m.cfg.MaxCallDepth {
				return m.trap(bytecode.TrapStackOverflow, f, ip)
			}
			if g == nil {
				g = m.prepare(int(c.target))
				c.fn = g
			}
			nb := base + len(regs)
			if nb+g.nCells > len(m.cells) {
				m.ensureCells(nb + g.nCells)
				regs = m.cells[base:nb]
			}
			gr := m.cells[nb : nb+g.nCells]
			irEnter(gr)
			if n := min(g.nIn, f.nOut); n > 0 {
				copy(gr[g.inOff:g.inOff+n], regs[f.outOff:f.outOff+n])
			}
			for k, u := range c.args {
				v := regs[u]
				gr[g.argOff+k] = v
				if g.argLocs != nil {
					gr[g.argLocs[k]] = v
				}
			}
			m.frames = append(m.frames, irFrame{fn: int32(f.index), ip: int32(ip), base: int32(base)})
			f, base, regs, code, execs = g, nb, gr, g.code, g.execs
			ip = int(g.entry)
			fk, fw = irFlagsUndef, -1
			continue

		case OpCALLHOST:
			c := &f.calls[in.aux]
			top := m.valTop
			na, nr := len(c.args), len(c.results)
			if top+na+nr > len(m.vals) {
				v := make([]uint64, max(2*len(m.vals), top+na+nr, 64))
				copy(v, m.vals)
				m.vals = v
			}
			args := m.vals[top : top+na : top+na]
			res := m.vals[top+na : top+na+nr : top+na+nr]
			for k, u := range c.args {
				v := regs[u]
				if !v.ok {
					return m.fault(f, ip, "host argument %d (%s) is undefined", k, f.regName(f.loc[ip].in.Uses[k]))
				}
				args[k] = v.v
			}
			clear(res)
			savedSP := m.sp
			m.valTop, m.sp = top+na+nr, base+len(regs)
			inHost = true
			herr := m.hosts[c.target](m.poll.Context(), args, res)
			inHost = false
			m.valTop, m.sp = top, savedSP
			if herr != nil {
				t := m.trap(bytecode.TrapHostError, f, ip)
				t.Cause = herr
				return t
			}
			// The host may have called back into the machine, growing the
			// cells or the memory.
			regs = m.cells[base : base+f.nCells]
			mem = m.Memory.Bytes
			irClobber(regs)
			for k, d := range c.results {
				regs[d] = irDef(res[k])
			}
			fk, fw = irFlagsUndef, int32(ip)

		case OpCALLRT:
			c := &f.calls[in.aux]
			var args [6]uint64
			for k, u := range c.args {
				a := regs[u]
				if !a.ok {
					return m.faultUndef(f, ip, regs)
				}
				args[k] = a.v
			}
			var r uint64
			switch {
			case c.target == RTMemoryGrow:
				r = uint64(m.Memory.Grow(args[0]))
			case m.Segments == nil:
				return m.fault(f, ip, "runtime function %d without Machine.Segments", c.target)
			case c.target == RTMemoryInit:
				if !m.Segments.MemoryInit(m.Memory.Bytes, int(args[0]), args[1], args[2], args[3]) {
					return m.trap(bytecode.TrapOutOfBounds, f, ip)
				}
			case c.target == RTDataDrop:
				m.Segments.DropData(int(args[0]))
			case m.Tables == nil:
				return m.fault(f, ip, "runtime function %d without Machine.Tables", c.target)
			default:
				var kind bytecode.TrapKind
				if r, kind = RunTableFunc(m.Tables, m.Segments, c.target, args[:len(c.args)]); kind != bytecode.TrapNone {
					return m.trap(kind, f, ip)
				}
				m.Table = m.Tables.Words()
			}
			mem = m.Memory.Bytes
			irClobber(regs)
			if len(c.results) > 0 {
				regs[c.results[0]] = irDef(r)
			}
			fk, fw = irFlagsUndef, int32(ip)

		case irOpFault:
			return m.fault(f, ip, "%s", f.msgs[in.aux])
		case irOpClobber:
			for set := uint32(in.imm); set != 0; set &= set - 1 {
				regs[irPhysOff+bits.TrailingZeros32(set)].ok = false
			}
		default:
			return m.fault(f, ip, "no interpreter support for %s", in.op)
		}
		ip++
		continue

	edge:
		if e.ms != e.me {
			m.irMoves(regs, f.moves[e.ms:e.me], e.seq)
		}
		ip = int(e.target)
	}
}

// irALU computes a two-operand integer op and returns the flags it leaves;
// a 32-bit op works on the low halves of a and b and returns the
// zero-extended result.
func irALU(op Op, a, b uint64) (r uint64, fk uint8, fa, fb uint64) {
	x, y := uint32(a), uint32(b)
	switch op {
	case OpADDQ, OpADDQconst, OpADDQload:
		return a + b, irFlagsAdd, a, b
	case OpSUBQ, OpSUBQconst, OpSUBQload:
		return a - b, irFlagsSub, a, b
	case OpANDQ, OpANDQconst, OpANDQload:
		return a & b, irFlagsLogic, a & b, 0
	case OpORQ, OpORQconst, OpORQload:
		return a | b, irFlagsLogic, a | b, 0
	case OpXORQ, OpXORQconst, OpXORQload:
		return a ^ b, irFlagsLogic, a ^ b, 0
	case OpIMULQ, OpIMULQload:
		return a * b, irFlagsUndef, 0, 0
	case OpADDL, OpADDLconst:
		return uint64(x + y), irFlagsAdd32, a, b
	case OpSUBL, OpSUBLconst:
		return uint64(x - y), irFlagsSub32, a, b
	case OpANDL, OpANDLconst:
		return uint64(x & y), irFlagsLogic, irLogic32(uint64(x & y)), 0
	case OpORL, OpORLconst:
		return uint64(x | y), irFlagsLogic, irLogic32(uint64(x | y)), 0
	case OpXORL, OpXORLconst:
		return uint64(x ^ y), irFlagsLogic, irLogic32(uint64(x ^ y)), 0
	}
	// IMULL
	return uint64(x * y), irFlagsUndef, 0, 0
}

// irShift computes a shift or rotate by n, masked as the machine masks
// it (to 0..63, or 0..31 for a 32-bit op, whose result is the shifted low
// half zero-extended).
func irShift(op Op, a, n uint64) uint64 {
	x, m := uint32(a), n&31
	n &= 63
	switch op {
	case OpSHLQ, OpSHLQconst:
		return a << n
	case OpSHRQ, OpSHRQconst:
		return a >> n
	case OpSARQ, OpSARQconst:
		return uint64(int64(a) >> n)
	case OpROLQ, OpROLQconst:
		return bits.RotateLeft64(a, int(n))
	case OpRORQ, OpRORQconst:
		return bits.RotateLeft64(a, -int(n))
	case OpSHLL, OpSHLLconst:
		return uint64(x << m)
	case OpSHRL, OpSHRLconst:
		return uint64(x >> m)
	case OpSARL, OpSARLconst:
		return uint64(uint32(int32(x) >> m))
	case OpROLL, OpROLLconst:
		return uint64(bits.RotateLeft32(x, int(m)))
	}
	// RORL
	return uint64(bits.RotateLeft32(x, -int(m)))
}

// irFP computes a scalar double arithmetic op on bit patterns, with the
// machine's NaN results (package floatbits).
func irFP(op Op, a, b uint64) uint64 {
	switch op {
	case OpADDSD, OpADDSDload:
		return floatbits.Add64(a, b)
	case OpSUBSD, OpSUBSDload:
		return floatbits.Sub64(a, b)
	case OpMULSD, OpMULSDload:
		return floatbits.Mul64(a, b)
	}
	return floatbits.Div64(a, b)
}

// irFP32 computes a scalar single arithmetic op on the low 32 bits of a
// and b; the result's upper 32 bits are zero.
func irFP32(op Op, a, b uint64) uint64 {
	x, y := irF32(a), irF32(b)
	switch op {
	case OpADDSS:
		return uint64(floatbits.Add32(x, y))
	case OpSUBSS:
		return uint64(floatbits.Sub32(x, y))
	case OpMULSS:
		return uint64(floatbits.Mul32(x, y))
	}
	return uint64(floatbits.Div32(x, y))
}

// irTruncSL is CVTTSD2SL: the f64 a truncated to a signed 32-bit integer,
// zero-extended, or 0x80000000 (the integer indefinite) when a is NaN or
// its truncation is out of range.
func irTruncSL(a uint64) uint64 {
	x := math.Trunc(irF(a))
	if !(x >= math.MinInt32 && x <= math.MaxInt32) {
		return 0x80000000
	}
	return uint64(uint32(int32(x)))
}
