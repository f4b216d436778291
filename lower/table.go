package lower

import (
	"math"

	bc "github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/mir"
)

// Globals, the table and indirect calls.
//
// A global lives in the instance's globals array, which compiled code
// reaches through the execution context (GLOBALload and GLOBALstore, one
// op per width and class). A constant global the module defines itself
// has the same value in every instance: global.get of it is its constant.
//
// call_indirect checks its index against the table's size in one compare
// (a very large table, whose packed entries (mir.TableEntries) stop at the
// last initialised one, takes a second); reads the
// packed entry; compares its signature half with the canonical id of the
// expected signature, the one compare of the fast path, whose failure
// leads to a cold block that tells a null entry (UninitializedElement)
// from a different signature (IndirectCallTypeMismatch); and calls the
// function of its index half with CALLIND. A table of a module whose
// tables do not change (bc.Module.DynamicTables) has a constant size and
// initialised length. Otherwise the tables are package interp's Tables,
// which the context's table points to: call_indirect reads the table's
// size (and, beyond table 0, its first entry) from their header, and the
// other table instructions are runtime calls; ref.func is a constant.

// globalOps are the GLOBALload and GLOBALstore ops of each type.
var globalOps = map[bc.Type][2]mir.Op{
	bc.I64: {mir.OpGLOBALloadQ, mir.OpGLOBALstoreQ},
	bc.I32: {mir.OpGLOBALloadL, mir.OpGLOBALstoreL},
	bc.F64: {mir.OpGLOBALloadSD, mir.OpGLOBALstoreSD},
	bc.F32: {mir.OpGLOBALloadSS, mir.OpGLOBALstoreSS},
}

// globalGet lowers global.get.
func (l *lowerer) globalGet(in *bc.Instr) {
	g := &l.m.Globals[in.Callee]
	var d mir.Reg
	switch {
	case !g.Mutable && g.Import == "" && g.Type == bc.F64:
		d = l.fconst(g.Init)
	case !g.Mutable && g.Import == "" && g.Type == bc.F32:
		d = l.fconst32(uint32(g.Init))
	case !g.Mutable && g.Import == "":
		d = l.iconst(int64(g.Init))
	default:
		d = l.f.NewVReg(classOf(g.Type))
		l.emit(mir.Instr{Op: globalOps[g.Type][0], Defs: []mir.Reg{d}, Aux: int32(in.Callee), Pos: l.pos()})
	}
	l.write(in.Dst, d)
}

// globalSet lowers global.set.
func (l *lowerer) globalSet(in *bc.Instr) {
	g := &l.m.Globals[in.Callee]
	l.emit(mir.Instr{Op: globalOps[g.Type][1], Uses: []mir.Reg{l.read(in.A)}, Aux: int32(in.Callee), Pos: l.pos()})
}

// compareConst compares the 64-bit value x with the constant c, as
// unsigned numbers for the condition that follows.
func (l *lowerer) compareConst(x mir.Reg, c uint64) {
	if c <= math.MaxInt32 {
		l.emit(mir.Instr{Op: mir.OpCMPQconst, Uses: []mir.Reg{x}, Imm: int64(c), Pos: l.pos()})
		return
	}
	l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{x, l.iconst(int64(c))}, Pos: l.pos()})
}

// callIndirect lowers call_indirect.
func (l *lowerer) callIndirect(in *bc.Instr) {
	l.emit(mir.Instr{Op: mir.OpPoll, Pos: l.pos()})
	n, typeIDs := l.info.tableLen, l.info.typeIDs
	size := uint64(l.m.Table.Min)
	// An i32 index has its upper half zero, so 64-bit compares serve both
	// index types.
	idx := l.read(in.A)
	if l.info.dynamic {
		// Package interp's Tables layout: the table's size and first
		// entry in the header, table 0's entries right after it.
		t := in.Imm
		tsize := l.newG()
		l.emit(mir.Instr{Op: mir.OpTABLEload, Defs: []mir.Reg{tsize}, Uses: []mir.Reg{l.iconst(2*t + 1)}, Pos: l.pos()})
		l.emit(mir.Instr{Op: mir.OpCMPQ, Uses: []mir.Reg{idx, tsize}, Pos: l.pos()})
		l.checkTrap(mir.CondAE, bc.TrapUndefinedElement)
		var at mir.Reg
		if t == 0 {
			at = l.opImm(mir.OpADDQconst, idx, 2*int64(l.m.NumTables()))
		} else {
			base := l.newG()
			l.emit(mir.Instr{Op: mir.OpTABLEload, Defs: []mir.Reg{base}, Uses: []mir.Reg{l.iconst(2 * t)}, Pos: l.pos()})
			at = l.op(mir.OpADDQ, mir.GPR, idx, base)
		}
		l.indirectCall(in, at, typeIDs[in.Callee])
		return
	}
	if n == 0 {
		if size > 0 {
			l.compareConst(idx, size)
			l.checkTrap(mir.CondAE, bc.TrapUndefinedElement)
			l.trapAlways(bc.TrapUninitializedElement)
		} else {
			l.trapAlways(bc.TrapUndefinedElement)
		}
		return
	}
	if n < size {
		l.compareConst(idx, size)
		l.checkTrap(mir.CondAE, bc.TrapUndefinedElement)
		l.compareConst(idx, n)
		l.checkTrap(mir.CondAE, bc.TrapUninitializedElement)
	} else {
		l.compareConst(idx, n)
		l.checkTrap(mir.CondAE, bc.TrapUndefinedElement)
	}
	l.indirectCall(in, idx, typeIDs[in.Callee])
}

// indirectCall emits the rest of call_indirect once the index is known
// to be in range: the load of the packed entry at word at of the
// context's table, the signature check against sig and the call.
func (l *lowerer) indirectCall(in *bc.Instr, at mir.Reg, sig uint32) {
	entry := l.newG()
	l.emit(mir.Instr{Op: mir.OpTABLEload, Defs: []mir.Reg{entry}, Uses: []mir.Reg{at}, Pos: l.pos()})
	l.compareConst(l.opImm(mir.OpSHRQconst, entry, 32), uint64(sig))
	l.signatureMismatch(entry)
	callee := l.op(mir.OpMOVLQZX, mir.GPR, entry)

	sigTypes := &l.m.Types[in.Callee]
	uses := make([]mir.Reg, len(in.Args), len(in.Args)+1)
	for i, r := range in.Args {
		uses[i] = l.read(r)
	}
	uses = append(uses, callee)
	defs := make([]mir.Reg, len(sigTypes.Results))
	for i, t := range sigTypes.Results {
		defs[i] = l.f.NewVReg(classOf(t))
	}
	l.emit(mir.Instr{Op: mir.OpCALLIND, Aux: int32(sig), Uses: uses, Defs: defs, Pos: l.pos()})
	for i, r := range in.Results {
		l.write(r, defs[i])
	}
	if l.memoryMoves {
		l.loadMemoryState()
	}
}

// signatureMismatch branches, when the flags say the signature compare
// found a difference, to a cold block that traps UninitializedElement for
// a null entry and IndirectCallTypeMismatch otherwise, and continues in a
// new block.
func (l *lowerer) signatureMismatch(entry mir.Reg) {
	freq := l.curFreq
	slow, cont := l.coldSplit(mir.CondNE)

	null := l.newSealedBlock(freq * ProbTrap / 2)
	mismatch := l.newSealedBlock(freq * ProbTrap / 2)
	slow.Append(l.f.NewInstr(mir.Instr{Op: mir.OpCMPQconst, Uses: []mir.Reg{entry}, Imm: -1, Pos: l.pos()}))
	slow.Append(l.f.NewInstr(mir.Instr{Op: mir.OpJCC, Cond: mir.CondE, Pos: l.pos()}))
	l.f.AddEdge(slow.ID, null.ID, 0.5)
	l.f.AddEdge(slow.ID, mismatch.ID, 0.5)
	for _, t := range []struct {
		b    *mir.Block
		kind bc.TrapKind
	}{{null, bc.TrapUninitializedElement}, {mismatch, bc.TrapIndirectCallTypeMismatch}} {
		l.ssa.seal(t.b.ID)
		t.b.Append(l.f.NewInstr(mir.Instr{Op: mir.OpTRAP, Aux: int32(t.kind), Pos: l.pos()}))
	}
	l.ssa.seal(cont.ID)
	l.ssa.inherit(cont.ID, l.cur.ID)
	l.cur = cont
}

// runtimeCall emits a call of runtime function fn, which has no result,
// with the arguments args (general-purpose registers).
func (l *lowerer) runtimeCall(fn int32, args ...mir.Reg) {
	l.emit(mir.Instr{Op: mir.OpCALLRT, Aux: fn, Uses: args, Pos: l.pos()})
}

// moduleHasRefFunc reports whether some function of m uses ref.func.
func moduleHasRefFunc(m *bc.Module) bool {
	for _, f := range m.Funcs {
		for i := range f.Code {
			if f.Code[i].Op == bc.OpRefFunc {
				return true
			}
		}
	}
	return false
}

// tableOp lowers the table instructions other than call_indirect: ref.func
// is a constant, the others runtime calls.
func (l *lowerer) tableOp(in *bc.Instr) {
	c := func(v uint32) mir.Reg { return l.iconst(int64(v)) }
	switch in.Op {
	case bc.OpRefFunc:
		l.write(in.Dst, l.iconst(int64(bc.FuncRef(l.info.funcIDs[in.Callee], in.Callee))))
	case bc.OpTableGet, bc.OpTableSize, bc.OpTableGrow:
		fn, args := int32(mir.RTTableGet), []mir.Reg{c(in.Callee)}
		switch in.Op {
		case bc.OpTableGet:
			args = append(args, l.read(in.A))
		case bc.OpTableSize:
			fn = mir.RTTableSize
		default:
			fn = mir.RTTableGrow
			args = append(args, l.read(in.A), l.read(in.B))
		}
		d := l.newG()
		l.emit(mir.Instr{Op: mir.OpCALLRT, Aux: fn, Defs: []mir.Reg{d}, Uses: args, Pos: l.pos()})
		if in.Op == bc.OpTableGrow && l.bf.Regs[in.Dst] == bc.I32 {
			d = l.op(mir.OpMOVLQZX, mir.GPR, d) // -1 on failure is 0xFFFFFFFF in an i32
		}
		l.write(in.Dst, d)
	case bc.OpTableSet:
		l.runtimeCall(mir.RTTableSet, c(in.Callee), l.read(in.A), l.read(in.B))
	case bc.OpTableFill:
		l.runtimeCall(mir.RTTableFill, c(in.Callee), l.read(in.A), l.read(in.B), l.read(in.C))
	case bc.OpTableCopy:
		l.runtimeCall(mir.RTTableCopy, c(in.Callee), c(uint32(in.Imm)), l.read(in.A), l.read(in.B), l.read(in.C))
	case bc.OpTableInit:
		l.runtimeCall(mir.RTTableInit, c(uint32(in.Imm)), c(in.Callee), l.read(in.A), l.read(in.B), l.read(in.C))
	case bc.OpElemDrop:
		l.runtimeCall(mir.RTElemDrop, c(in.Callee))
	}
}
