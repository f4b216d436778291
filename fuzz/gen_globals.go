package fuzz

import (
	"fmt"
	"math"

	"github.com/kiln-jit/kiln/bytecode"
)

// The module-level features some programs have: globals, a table with
// element segments and the signatures call_indirect names, and the
// unreachable instruction.

// globalInfo is a global of the module being generated.
type globalInfo struct {
	index   uint32
	typ     bytecode.Type
	mutable bool
}

// tableExport is the name under which a generated module may export its
// table.
const tableExport = "table"

// declareFeatures decides which of the module-level features the module
// has and declares them. Most programs have none of them.
//
// Every decision about these features comes from the feature source
// (g.fsrc): the statements that use them are inserted between those of
// the main source (see feature), whose decisions stay the same. So a
// program without the features is exactly what the same bytes gave
// before the features existed, and one with them has the same skeleton.
func (g *generator) declareFeatures() {
	main := g.src
	g.src = g.fsrc
	defer func() { g.src = main }()
	s := g.src
	switch s.pick([]int{7, 1, 2, 2}) {
	case 0:
		return
	case 1:
		g.declareGlobals()
	case 2:
		g.declareTable()
	default:
		g.declareGlobals()
		g.declareTable()
	}
	g.unreachable = true
}

// declareGlobals declares one to eight globals of random types, mutable or
// constant, some imported (their values go to Program.GlobalImports) and
// some exported.
func (g *generator) declareGlobals() {
	s := g.src
	for i, n := 0, 1+s.intn(8); i < n; i++ {
		t := valueTypes[s.intn(len(valueTypes))]
		gl := bytecode.Global{Name: fmt.Sprintf("g%d", i), Type: t, Mutable: s.chance(2, 3)}
		v := g.argValue(t)
		if t.Is32() {
			v = uint64(uint32(v))
		}
		if s.chance(1, 4) {
			gl.Import = fmt.Sprintf("env.g%d", i)
			if g.globalImports == nil {
				g.globalImports = map[string]uint64{}
			}
			g.globalImports[gl.Import] = v
		} else {
			gl.Init = v
		}
		if s.chance(1, 2) {
			gl.Export = gl.Name
		}
		g.globals = append(g.globals, globalInfo{index: g.mb.Global(gl), typ: t, mutable: gl.Mutable})
	}
}

// declareTable declares a table (mostly of a few entries, sometimes of
// none or of dozens; some of them with a maximum or exported), element
// segments that fill some of its entries with any of the functions
// (possibly overwriting each other, mostly leaving entries null), and the
// signatures of call_indirect: every function's (some twice, which must
// count as the same signature), near misses of them and random ones.
func (g *generator) declareTable() {
	s := g.src
	size := 1 + s.intn(10)
	switch {
	case s.chance(1, 12):
		size = 0
	case s.chance(1, 8):
		size = 16 + s.intn(48)
	}
	t := bytecode.Table{Min: uint32(size)}
	if s.chance(1, 3) {
		t.HasMax, t.Max = true, t.Min+uint32(s.intn(4))
	}
	refs := s.chance(1, 2)
	switch {
	case refs && size == 0:
		t.HasMax = true // a table of no entries needs a reason to exist
	case refs:
	case s.chance(1, 3) || size == 0 && !t.HasMax:
		t.Export = tableExport
	}
	g.mb.Table(t)
	g.hasTable = true
	g.table = make([]int32, size)
	for i := range g.table {
		g.table[i] = -1
	}
	if size > 0 {
		for n := s.pick([]int{1, 3, 3, 2}); n > 0; n-- {
			off := s.intn(size)
			fns := make([]*bytecode.FuncBuilder, 1+s.intn(min(4, size-off)))
			for k := range fns {
				fn := s.intn(len(g.funcs))
				fns[k] = g.funcs[fn].fb
				g.table[off+k] = int32(fn)
			}
			g.mb.Elem(uint32(off), fns...)
		}
	}
	var sigs []bytecode.Signature
	for _, f := range g.funcs {
		sigs = append(sigs, f.sig)
		if s.chance(1, 4) {
			sigs = append(sigs, f.sig)
		}
	}
	for n := 1 + s.intn(3); n > 0; n-- {
		if s.chance(2, 3) {
			sigs = append(sigs, g.nearMiss(g.funcs[s.intn(len(g.funcs))].sig))
		} else {
			sigs = append(sigs, sig(g.randTypes(3), g.randTypes(3)))
		}
	}
	for i := len(sigs) - 1; i > 0; i-- {
		k := s.intn(i + 1)
		sigs[i], sigs[k] = sigs[k], sigs[i]
	}
	for _, sg := range sigs {
		g.mb.Type(sg.Params, sg.Results)
	}
	g.types = sigs
	if refs {
		g.declareRefTables()
	}
}

// nearMiss returns a signature that differs from s in one place: a
// parameter or result of another type (often one of the same size or
// class), one parameter or result more or fewer.
func (g *generator) nearMiss(s bytecode.Signature) bytecode.Signature {
	src := g.src
	out := sig(append([]bytecode.Type(nil), s.Params...), append([]bytecode.Type(nil), s.Results...))
	list := &out.Params
	if len(out.Params) == 0 || len(out.Results) > 0 && src.chance(1, 2) {
		list = &out.Results
	}
	switch src.intn(3) {
	case 0: // another type
		if len(*list) > 0 {
			k := src.intn(len(*list))
			(*list)[k] = otherType((*list)[k], src.intn(3))
			return out
		}
		*list = append(*list, g.randType())
	case 1: // one more
		*list = append(*list, g.randType())
	default: // one fewer
		if len(*list) > 0 {
			*list = (*list)[:len(*list)-1]
		} else {
			*list = append(*list, g.randType())
		}
	}
	return out
}

// otherType returns a type other than t: with k = 0 the other integer or
// float type of the other width, with k = 1 the type of the same width
// and the other class, and otherwise the remaining one.
func otherType(t bytecode.Type, k int) bytecode.Type {
	others := map[bytecode.Type][3]bytecode.Type{
		bytecode.I64: {bytecode.I32, bytecode.F64, bytecode.F32},
		bytecode.I32: {bytecode.I64, bytecode.F32, bytecode.F64},
		bytecode.F64: {bytecode.F32, bytecode.I64, bytecode.I32},
		bytecode.F32: {bytecode.F64, bytecode.I32, bytecode.I64},
	}
	return others[t][k]
}

// feature emits, now and then, a statement that reads or writes a global
// or calls through the table, with every decision taken from the feature
// source. Its instructions do not count against the function's budget,
// so that the main source makes the same decisions as without it.
func (fg *funcGen) feature() {
	g := fg.g
	if len(g.globals) == 0 && !g.hasTable {
		return
	}
	main := fg.s
	fg.s = g.fsrc
	defer func() { fg.s = main }()
	start := fg.fb.Len()
	w := []int{16, 0, 0, 0}
	if len(g.globals) > 0 {
		w[1] = 2
	}
	if g.hasTable {
		w[2] = 2
	}
	if len(g.refTables) > 0 {
		w[3] = 3
	}
	switch fg.s.pick(w) {
	case 1:
		fg.globalStmt()
	case 2:
		fg.callIndirect()
	case 3:
		fg.refStmt()
	}
	fg.limit += fg.fb.Len() - start
}

// globalStmt reads or writes a global: a global.get into a register, a
// global.set from one, or a read-modify-write of a mutable global.
func (fg *funcGen) globalStmt() {
	s, fb := fg.s, fg.fb
	gl := fg.g.globals[s.intn(len(fg.g.globals))]
	switch {
	case !gl.mutable || s.chance(2, 5):
		fb.GlobalGet(fg.w(gl.typ), gl.index)
	case s.chance(2, 3):
		fb.GlobalSet(gl.index, fg.read(gl.typ))
	default:
		t := fg.tmp[gl.typ][0]
		fb.GlobalGet(t, gl.index)
		op := map[bytecode.Type]bytecode.Op{bytecode.I64: bytecode.OpI64Add, bytecode.I32: bytecode.OpI32Add,
			bytecode.F64: bytecode.OpF64Add, bytecode.F32: bytecode.OpF32Add}[gl.typ]
		fb.Binary(op, t, t, fg.read(gl.typ))
		fb.GlobalSet(gl.index, t)
	}
}

// The ways callIndirect picks its table index and signature.
const (
	ciValid      = iota // a constant index of a function, with its signature
	ciSelect            // one of two such indices of the same signature, by a condition
	ciOutOfRange        // an index at or beyond the table's size: UndefinedElement
	ciNull              // a null entry: UninitializedElement
	ciMismatch          // a function's entry with another signature: IndirectCallTypeMismatch
	ciDynamic           // an index computed from data, any signature: whatever it hits
)

// callIndirect emits a call_indirect with an i32 or i64 index. Mostly the
// call goes through a valid entry; the unguarded trapping forms
// (as often as raw says) hit entries beyond the table, null entries,
// functions of another signature, or an index computed from data.
//
// A call that can reach a function passes it the depth decremented, and
// only while it is positive, as a call of a function defined before the
// caller: whatever the table holds, the depth bounds the recursion. The
// forms that always trap pass any register.
func (fg *funcGen) callIndirect() {
	g, s, fb := fg.g, fg.s, fg.fb
	var valid []int
	for i, fn := range g.table {
		if fn >= 0 {
			valid = append(valid, i)
		}
	}
	mode := ciValid
	switch {
	case fg.raw():
		mode = ciOutOfRange + s.pick([]int{2, 2, 3, 2})
	case len(valid) == 0:
		return // every call through this table traps
	case s.chance(1, 3):
		mode = ciSelect
	}
	it := fg.intType()
	idx := fg.tmp[it][0]
	var ti int
	switch mode {
	case ciValid, ciSelect:
		e := valid[s.intn(len(valid))]
		ti = fg.typeOf(int(g.table[e]), true)
		fg.constInt(it, idx, int64(e))
		if mode == ciSelect {
			var same []int
			for _, k := range valid {
				if g.types[ti].Equal(g.funcs[g.table[k]].sig) {
					same = append(same, k)
				}
			}
			fg.constInt(it, fg.tmp[it][1], int64(same[s.intn(len(same))]))
			fb.Select(idx, fg.read(fg.intType()), idx, fg.tmp[it][1])
		}
	case ciNull, ciMismatch:
		var candidates []int
		for i, fn := range g.table {
			if mode == ciNull && fn < 0 || mode == ciMismatch && fn >= 0 && len(fg.typesOf(int(fn), false)) > 0 {
				candidates = append(candidates, i)
			}
		}
		if len(candidates) == 0 {
			mode = ciOutOfRange
			break
		}
		e := candidates[s.intn(len(candidates))]
		if mode == ciNull {
			ti = s.intn(len(g.types))
		} else {
			ti = fg.typeOf(int(g.table[e]), false)
		}
		fg.constInt(it, idx, int64(e))
	case ciDynamic:
		switch s.intn(3) {
		case 0:
			fb.BinaryImm(intOpsOf[it].and, idx, fg.read(it), 7)
		case 1:
			fb.BinaryImm(intOpsOf[it].and, idx, fg.read(it), int64(len(g.table)|1))
		default:
			idx = fg.read(it)
		}
		ti = s.intn(len(g.types))
		if len(valid) > 0 && s.chance(1, 2) {
			ti = fg.typeOf(int(g.table[valid[s.intn(len(valid))]]), true)
		}
	}
	if mode == ciOutOfRange {
		size := int64(len(g.table))
		beyond := []int64{size, size + 1 + int64(s.intn(8)), -1, math.MinInt32, 1 << 32, math.MinInt64}
		if it == bytecode.I32 {
			beyond = beyond[:4] // truncated to 32 bits, the others would be in range
		}
		v := beyond[s.intn(len(beyond))]
		if v == 1<<32 && size > 0 { // the low 32 bits pick an entry
			v += int64(s.intn(int(size)))
		}
		fg.constInt(it, idx, v)
		ti = s.intn(len(g.types))
	}
	fg.indirectCall(0, ti, idx, mode == ciValid || mode == ciSelect || mode == ciDynamic)
}

// indirectCall emits a call_indirect of type ti through table at index
// idx; one that can reach a function (reaches) passes it the depth
// decremented, and only while it is positive.
func (fg *funcGen) indirectCall(table uint32, ti int, idx bytecode.Reg, reaches bool) {
	fb := fg.fb
	tsig := fg.g.types[ti]
	args := make([]bytecode.Reg, len(tsig.Params))
	for i, t := range tsig.Params {
		args[i] = fg.read(t)
	}
	guard := reaches && len(tsig.Params) > 0 && tsig.Params[0] == bytecode.I64
	var skip bytecode.Label
	if guard {
		skip = fb.NewLabel()
		fb.BrCmpImm(bytecode.OpBrLeS, 0, 0, skip)
		fb.BinaryImm(bytecode.OpI64Sub, fg.depthTmp, 0, 1)
		args[0] = fg.depthTmp
	}
	fb.Emit(bytecode.Instr{Op: bytecode.OpCallIndirect, Callee: uint32(ti), Imm: int64(table), A: idx, Args: args, Results: fg.dsts(tsig.Results)})
	if guard {
		fb.Bind(skip)
	}
}

// typeOf returns the index of a type equal to function fn's signature
// (when equal is set; one always exists) or of one that differs from it
// (-1 when none does).
func (fg *funcGen) typeOf(fn int, equal bool) int {
	ts := fg.typesOf(fn, equal)
	if len(ts) == 0 {
		return -1
	}
	return ts[fg.s.intn(len(ts))]
}

// typesOf lists the indices of the types equal to function fn's signature
// (when equal is set) or different from it.
func (fg *funcGen) typesOf(fn int, equal bool) []int {
	var ts []int
	for i, t := range fg.g.types {
		if t.Equal(fg.g.funcs[fn].sig) == equal {
			ts = append(ts, i)
		}
	}
	return ts
}
