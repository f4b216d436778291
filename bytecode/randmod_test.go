package bytecode

import (
	"math"
	"math/rand/v2"
)

// randomModule returns a module that passes Verify and uses every opcode
// with random but well-typed operands, and may have globals (imported,
// exported, constant and mutable), types (some equal to function
// signatures, some not), a table and element segments. It is not meant to
// run meaningfully: round-trip tests of the text and binary forms use it.
func randomModule(r *rand.Rand) *Module {
	types := []Type{I64, F64, I32, F32}
	randTypes := func(max int) []Type {
		n := r.IntN(max + 1)
		ts := make([]Type, n)
		for i := range ts {
			ts[i] = types[r.IntN(len(types))]
		}
		return ts
	}
	m := &Module{}
	if r.IntN(4) > 0 {
		m.Memory = Memory{MinPages: uint32(r.IntN(3)), MaxPages: uint32(3 + r.IntN(5))}
	}
	if m.Memory.MinPages > 0 {
		for i := r.IntN(3); i > 0; i-- {
			n := r.IntN(40)
			b := make([]byte, n)
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			if r.IntN(3) == 0 {
				m.Data = append(m.Data, DataSegment{Bytes: b, Passive: true})
				continue
			}
			m.Data = append(m.Data, DataSegment{Offset: uint32(r.IntN(PageSize - n)), Bytes: b})
		}
	}
	for i := r.IntN(3); i > 0; i-- {
		m.Hosts = append(m.Hosts, HostImport{Name: "host" + string(rune('a'+len(m.Hosts))), Sig: Signature{Params: randTypes(3), Results: randTypes(2)}})
	}
	nf := 1 + r.IntN(4)
	for i := 0; i < nf; i++ {
		f := &Function{Name: "f_" + string(rune('a'+i)) + ".x", Sig: Signature{Params: randTypes(3), Results: randTypes(2)}}
		f.Regs = append(f.Regs, f.Sig.Params...)
		f.Regs = append(f.Regs, I64, F64, I32, F32) // at least one register of each type
		f.Regs = append(f.Regs, randTypes(6)...)
		m.Funcs = append(m.Funcs, f)
	}
	randomModuleParts(r, m, randTypes)
	for _, f := range m.Funcs {
		f.Code = randomCode(r, m, f, 1+r.IntN(60))
	}
	for i := r.IntN(3); i > 0; i-- {
		m.Exports = append(m.Exports, Export{Name: "export \"" + string(rune('a'+len(m.Exports))) + "\"\n", Func: uint32(r.IntN(nf))})
	}
	return m
}

// randomModuleParts gives m random globals, types, a table and element
// segments; m has its functions (without code) and host imports.
func randomModuleParts(r *rand.Rand, m *Module, randTypes func(int) []Type) {
	types := []Type{I64, F64, I32, F32}
	for i := r.IntN(5); i > 0; i-- {
		g := Global{Name: "g" + string(rune('a'+len(m.Globals))), Type: types[r.IntN(len(types))], Mutable: r.IntN(2) == 0}
		switch r.IntN(3) {
		case 0:
			g.Import = "global \"" + g.Name + "\" import\n"
		case 1:
			g.Init = r.Uint64()
			if g.Type.Is32() {
				g.Init = uint64(r.Uint32())
			}
		}
		if r.IntN(3) == 0 {
			g.Export = "global " + g.Name
		}
		m.Globals = append(m.Globals, g)
	}
	for i := r.IntN(4); i > 0; i-- {
		if r.IntN(2) == 0 {
			m.Types = append(m.Types, m.Funcs[r.IntN(len(m.Funcs))].Sig.clone())
		} else {
			m.Types = append(m.Types, Signature{Params: randTypes(3), Results: randTypes(2)})
		}
	}
	if r.IntN(3) == 0 {
		return
	}
	t := &m.Table
	t.Min = uint32(r.IntN(9))
	if r.IntN(2) == 0 {
		t.Max, t.HasMax = t.Min+uint32(r.IntN(4)), true
	}
	dynamic := r.IntN(2) == 0
	if !dynamic && r.IntN(4) == 0 {
		t.Import = "table"
	}
	if !dynamic && r.IntN(3) == 0 {
		t.Export = "the table"
	}
	if !m.HasTable() {
		t.HasMax = true
	}
	if dynamic {
		t.Extern = r.IntN(4) == 0
		for i := r.IntN(3); i > 0; i-- {
			u := Table{Min: uint32(r.IntN(6)), Extern: r.IntN(3) == 0}
			if r.IntN(2) == 0 {
				u.Max, u.HasMax = u.Min+uint32(r.IntN(4)), true
			}
			m.MoreTables = append(m.MoreTables, u)
		}
	}
	for i := r.IntN(4); i > 0; i-- {
		e := ElemSegment{}
		if dynamic {
			e.Mode = ElemMode(r.IntN(3))
			if e.Mode == ElemActive {
				e.Table = uint32(r.IntN(m.NumTables()))
			}
		}
		size := int(m.TableAt(e.Table).Min)
		off := r.IntN(size + 1)
		if e.Mode == ElemActive {
			e.Offset = uint32(off)
		}
		for k := r.IntN(size - off + 1); k > 0; k-- {
			f := uint32(r.IntN(len(m.Funcs)))
			if dynamic && r.IntN(3) == 0 {
				f = NullFunc
			}
			e.Funcs = append(e.Funcs, f)
		}
		m.Elems = append(m.Elems, e)
	}
}

func randomCode(r *rand.Rand, m *Module, f *Function, n int) []Instr {
	regOf := func(t Type) Reg {
		if t == IntType {
			t = []Type{I32, I64}[r.IntN(2)]
		}
		for {
			i := r.IntN(len(f.Regs))
			if f.Regs[i] == t {
				return Reg(i)
			}
		}
	}
	anyType := func() Type { return []Type{I64, F64, I32, F32}[r.IntN(4)] }
	imm := func() int64 {
		switch r.IntN(4) {
		case 0:
			return int64(r.IntN(16)) - 8
		case 1:
			return math.MinInt64
		case 2:
			return int64(r.Uint64())
		}
		return int64(r.Int32())
	}
	target := func() uint32 { return uint32(r.IntN(n)) }
	regsFor := func(ts []Type, distinct bool) []Reg {
		var rs []Reg
		for len(rs) < len(ts) {
			c := regOf(ts[len(rs)])
			dup := false
			for _, p := range rs {
				dup = dup || (distinct && p == c)
			}
			if dup {
				// Fall back to any distinct register of the type, or give up.
				found := false
				for i, t := range f.Regs {
					taken := false
					for _, p := range rs {
						taken = taken || p == Reg(i)
					}
					if t == ts[len(rs)] && !taken {
						c, found = Reg(i), true
						break
					}
				}
				if !found {
					return nil
				}
			}
			rs = append(rs, c)
		}
		return rs
	}
	code := make([]Instr, 0, n)
	for len(code) < n {
		op := Op(1 + r.IntN(NumOps-1))
		info := op.Info()
		in := Instr{Op: op}
		// Immediates of the i32 ops and f32 constants are 32-bit.
		imm := imm
		switch {
		case info.A == I32 || op == OpI32Const:
			imm = func() int64 { return int64(int32(r.Uint32())) }
		case op == OpF32Const:
			imm = func() int64 { return int64(r.Uint32()) }
		}
		dstType := info.Dst
		if dstType == AnyType {
			dstType = anyType()
		}
		pick := func(t Type) Reg {
			if t == AnyType {
				t = dstType
			}
			return regOf(t)
		}
		switch info.Format {
		case FormatConst:
			in.Dst = pick(info.Dst)
			in.Imm = imm()
		case FormatUnary:
			in.Dst, in.A = pick(info.Dst), pick(info.A)
		case FormatBinary:
			in.Dst, in.A = pick(info.Dst), pick(info.A)
			if info.Imm && r.IntN(2) == 0 {
				in.UseImm, in.Imm = true, imm()
			} else {
				in.B = pick(info.B)
			}
		case FormatSelect:
			in.Dst, in.A, in.B, in.C = pick(info.Dst), pick(info.A), pick(info.B), pick(info.C)
		case FormatMemoryBulk:
			in.A, in.B, in.C = pick(info.A), pick(info.B), pick(info.C)
		case FormatSegmentBulk, FormatSegment:
			segs := len(m.Data)
			if op == OpElemDrop {
				segs = len(m.Elems)
				if m.Table.Import != "" || m.Table.Export != "" {
					continue
				}
			}
			if segs == 0 {
				continue
			}
			in.Callee = uint32(r.IntN(segs))
			if info.Format == FormatSegmentBulk {
				in.A, in.B, in.C = pick(info.A), pick(info.B), pick(info.C)
			}
		case FormatRefFunc:
			in.Dst, in.Callee = pick(info.Dst), uint32(r.IntN(len(m.Funcs)))
		case FormatTableGet, FormatTableSet, FormatTableSize, FormatTableGrow, FormatTableFill, FormatTableBulk:
			if m.NumTables() == 0 || m.Table.Import != "" || m.Table.Export != "" || op == OpTableInit && len(m.Elems) == 0 {
				continue
			}
			in.Callee = uint32(r.IntN(m.NumTables()))
			switch op {
			case OpTableInit:
				in.Callee, in.Imm = uint32(r.IntN(len(m.Elems))), int64(r.IntN(m.NumTables()))
			case OpTableCopy:
				in.Imm = int64(r.IntN(m.NumTables()))
			}
			if info.Dst != 0 {
				in.Dst = pick(info.Dst)
			}
			if info.A != 0 {
				in.A = pick(info.A)
			}
			if info.B != 0 {
				in.B = pick(info.B)
			}
			if info.C != 0 {
				in.C = pick(info.C)
			}
		case FormatLoad:
			in.Dst, in.A, in.Imm = pick(info.Dst), pick(info.A), int64(r.Int32())-int64(r.Int32())/2
		case FormatStore:
			in.A, in.B, in.Imm = pick(info.A), pick(info.B), int64(r.Int32())
		case FormatMemorySize:
			in.Dst = pick(info.Dst)
		case FormatJump:
			in.Target = target()
		case FormatBranch:
			in.A, in.Target = pick(info.A), target()
		case FormatCmpBranch:
			in.A, in.Target = pick(info.A), target()
			if r.IntN(2) == 0 {
				in.UseImm, in.Imm = true, imm()
			} else {
				in.B = pick(info.B)
			}
		case FormatSwitch:
			in.A, in.Target = pick(info.A), target()
			for i := r.IntN(5); i > 0; i-- {
				in.Table = append(in.Table, target())
			}
		case FormatGlobalGet, FormatGlobalSet:
			var gs []int
			for i, g := range m.Globals {
				if op == OpGlobalGet || g.Mutable {
					gs = append(gs, i)
				}
			}
			if len(gs) == 0 {
				continue
			}
			in.Callee = uint32(gs[r.IntN(len(gs))])
			if op == OpGlobalGet {
				in.Dst = regOf(m.Globals[in.Callee].Type)
			} else {
				in.A = regOf(m.Globals[in.Callee].Type)
			}
		case FormatCall, FormatCallIndirect:
			var sig Signature
			switch op {
			case OpCall:
				in.Callee = uint32(r.IntN(len(m.Funcs)))
				sig = m.Funcs[in.Callee].Sig
			case OpCallHost:
				if len(m.Hosts) == 0 {
					continue
				}
				in.Callee = uint32(r.IntN(len(m.Hosts)))
				sig = m.Hosts[in.Callee].Sig
			default:
				if !m.HasTable() || len(m.Types) == 0 {
					continue
				}
				in.Callee = uint32(r.IntN(len(m.Types)))
				sig = m.Types[in.Callee]
				in.A = pick(info.A)
				if t := r.IntN(m.NumTables()); !m.TableAt(uint32(t)).Extern {
					in.Imm = int64(t)
				} else if m.Table.Extern {
					continue
				}
				if len(code) < n-2 && r.IntN(2) == 0 {
					// Set the index to an entry of the table or just
					// beyond it.
					c := Instr{Op: OpI64Const, Dst: in.A, Imm: int64(r.IntN(int(m.Table.Min) + 3))}
					if f.Regs[in.A] == I32 {
						c.Op = OpI32Const
					}
					code = append(code, c)
				}
			}
			in.Args = regsFor(sig.Params, false)
			in.Results = regsFor(sig.Results, true)
			if in.Results == nil && len(sig.Results) > 0 {
				continue
			}
		case FormatReturn:
			in.Args = regsFor(f.Sig.Results, false)
		case FormatTrap:
			in.Imm = imm()
		}
		code = append(code, in)
	}
	if code[n-1].FallsThrough() {
		code[n-1] = Instr{Op: OpReturn, Args: regsFor(f.Sig.Results, false)}
	}
	return code
}
