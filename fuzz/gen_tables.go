package fuzz

import "github.com/kiln-jit/kiln/bytecode"

// References, tables that change, and segments: a module with them has,
// besides table 0 (whose contents the table model g.table describes and
// nothing changes), one to three more tables of function or external
// references, passive and declarative element segments with null entries
// and passive data segments. Its functions read and change the extra
// tables with every table instruction, call through them, and initialise
// memory from the passive data, each of them trapping now and then.

// declareRefTables declares the extra tables and segments.
func (g *generator) declareRefTables() {
	s := g.src
	for n := 1 + s.intn(3); n > 0; n-- {
		t := bytecode.Table{Min: uint32(s.intn(5)), Extern: s.chance(1, 3)}
		if s.chance(1, 2) {
			t.HasMax, t.Max = true, t.Min+uint32(s.intn(5))
		}
		g.mb.MoreTable(t)
		g.refTables = append(g.refTables, t.Extern)
	}
	for n := 1 + s.intn(3); n > 0; n-- {
		e := bytecode.ElemSegment{Mode: bytecode.ElemPassive}
		if s.chance(1, 4) {
			e.Mode = bytecode.ElemDeclarative
		}
		for k := s.intn(5); k > 0; k-- {
			f := bytecode.NullFunc
			if s.chance(3, 4) {
				f = g.funcs[s.intn(len(g.funcs))].fb.Index()
			}
			e.Funcs = append(e.Funcs, f)
		}
		g.mb.Segment(e)
		g.elemSegs++
	}
	for n := s.intn(3); n > 0; n-- {
		b := make([]byte, s.intn(24))
		for k := range b {
			b[k] = s.byte()
		}
		g.dataSegs = append(g.dataSegs, g.mb.PassiveData(b))
	}
}

// refStmt emits one instruction on references, the extra tables or the
// segments.
func (fg *funcGen) refStmt() {
	g, s, fb := fg.g, fg.s, fg.fb
	nt := len(g.refTables)
	table := uint32(1 + s.intn(nt))
	// small returns an index or count: mostly small, sometimes anything.
	small := func(mask int64) bytecode.Reg {
		t := fg.intType()
		if fg.raw() {
			return fg.read(t)
		}
		r := fg.tmp[t][s.intn(2)]
		fb.BinaryImm(intOpsOf[t].and, r, fg.read(t), mask)
		return r
	}
	switch s.intn(12) {
	case 0:
		fb.Emit(bytecode.Instr{Op: bytecode.OpTableSize, Dst: fg.w(fg.intType()), Callee: table})
	case 1:
		fb.Emit(bytecode.Instr{Op: bytecode.OpTableGet, Dst: fg.w(bytecode.I64), Callee: table, A: small(7)})
	case 2:
		fb.Emit(bytecode.Instr{Op: bytecode.OpTableSet, Callee: table, A: small(7), B: fg.refValue(table)})
	case 3:
		fb.Emit(bytecode.Instr{Op: bytecode.OpTableGrow, Dst: fg.w(fg.intType()), Callee: table, A: fg.refValue(table), B: small(3)})
	case 4:
		fb.Emit(bytecode.Instr{Op: bytecode.OpTableFill, Callee: table, A: small(7), B: fg.refValue(table), C: small(7)})
	case 5:
		src := uint32(1 + s.intn(nt))
		fb.Emit(bytecode.Instr{Op: bytecode.OpTableCopy, Callee: table, Imm: int64(src), A: small(7), B: small(7), C: small(7)})
	case 6:
		if g.refTables[table-1] && !fg.raw() {
			return // segments hold function references
		}
		fb.Emit(bytecode.Instr{Op: bytecode.OpTableInit, Callee: uint32(s.intn(g.elemSegs)), Imm: int64(table), A: small(7), B: small(7), C: small(7)})
	case 7:
		if s.chance(1, 3) {
			fb.Emit(bytecode.Instr{Op: bytecode.OpElemDrop, Callee: uint32(s.intn(g.elemSegs))})
		}
	case 8:
		fb.Emit(bytecode.Instr{Op: bytecode.OpRefFunc, Dst: fg.w(bytecode.I64), Callee: g.funcs[s.intn(len(g.funcs))].fb.Index()})
	case 9:
		if len(g.dataSegs) == 0 {
			return
		}
		seg := g.dataSegs[s.intn(len(g.dataSegs))]
		if s.chance(1, 5) {
			fb.Emit(bytecode.Instr{Op: bytecode.OpDataDrop, Callee: seg})
			return
		}
		fb.Emit(bytecode.Instr{Op: bytecode.OpMemoryInit, Callee: seg, A: small(0xFFF), B: small(15), C: small(15)})
	default:
		if g.refTables[table-1] || len(g.types) == 0 {
			return
		}
		fg.indirectCall(table, s.intn(len(g.types)), small(7), true)
	}
}

// refValue returns a register holding a value to store into table: for
// a table of function references mostly a reference (of a function or
// null, or read from a table), sometimes any i64; for one of external
// references any i64.
func (fg *funcGen) refValue(table uint32) bytecode.Reg {
	g, s, fb := fg.g, fg.s, fg.fb
	r := fg.tmp[bytecode.I64][s.intn(2)]
	switch {
	case g.refTables[table-1] || fg.raw():
		return fg.read(bytecode.I64)
	case s.chance(1, 4):
		fb.I64Const(r, -1)
	case s.chance(1, 3):
		src := uint32(1 + s.intn(len(g.refTables)))
		if g.refTables[src-1] {
			src = 0 // table 0 holds function references
		}
		fb.Emit(bytecode.Instr{Op: bytecode.OpTableGet, Dst: r, Callee: src, A: fg.tmp[fg.intType()][0]})
	default:
		fb.Emit(bytecode.Instr{Op: bytecode.OpRefFunc, Dst: r, Callee: g.funcs[s.intn(len(g.funcs))].fb.Index()})
	}
	return r
}
