package fuzz

import (
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/kiln-jit/kiln/bytecode"
)

// Minimize shrinks p to a smaller program for which keep still returns
// true (keep(p) must be true to start with). It deletes calls, functions
// (and their table entries), runs of instructions (largest first), host
// imports, data, unused globals, signatures and element segments; shrinks
// the table; turns imported globals into defined ones and drops export
// names; replaces branches by jumps or nothing, and constants, offsets,
// arguments and imported globals' values by simpler ones; and drops
// unused registers. Every candidate is a valid module with a value for
// each imported global. It stops at a fixed point or when budget (if
// positive) has passed, and returns the smallest program found. p is not
// modified.
func Minimize(p *Program, keep func(*Program) bool, budget time.Duration) *Program {
	mz := &minimizer{best: cloneProgram(p), keep: keep}
	if budget > 0 {
		mz.deadline = time.Now().Add(budget)
	}
	for progress := true; progress && !mz.expired(); {
		progress = false
		for _, pass := range []func() bool{
			mz.dropCalls, mz.dropFuncs, mz.dropInstrs, mz.simplifyInstrs,
			mz.dropHosts, mz.dropData, mz.dropGlobals, mz.simplifyGlobals,
			mz.dropTypes, mz.dropElems, mz.shrinkTable, mz.compactRegs, mz.simplifyArgs,
		} {
			if pass() {
				progress = true
			}
			if mz.expired() {
				break
			}
		}
	}
	return mz.best
}

// MinimizeMismatch shrinks p to a smaller program on which configuration
// mm.Config still differs from the reference interpreter under opts. The
// values of imported globals come from the program (p.GlobalImports, or
// opts.GlobalImports when p has none).
func MinimizeMismatch(p *Program, opts Options, mm *Mismatch, budget time.Duration) *Program {
	opts.Configs = []string{mm.Config}
	if p.GlobalImports == nil && opts.GlobalImports != nil {
		p = cloneProgram(p)
		p.GlobalImports = maps.Clone(opts.GlobalImports)
	}
	return Minimize(p, func(q *Program) bool {
		o := opts
		o.GlobalImports = q.GlobalImports
		_, err := Check(q.Module, q.Calls, o)
		var got *Mismatch
		return errors.As(err, &got) && got.Config == mm.Config
	}, budget)
}

type minimizer struct {
	best     *Program
	keep     func(*Program) bool
	deadline time.Time
}

func (mz *minimizer) expired() bool { return !mz.deadline.IsZero() && time.Now().After(mz.deadline) }

// try adopts q when it is valid and still interesting.
func (mz *minimizer) try(q *Program) bool {
	if mz.expired() || bytecode.Verify(q.Module) != nil {
		return false
	}
	for _, c := range q.Calls {
		fn := q.Module.ExportedFunc(c.Func)
		if fn < 0 || len(q.Module.Funcs[fn].Sig.Params) != len(c.Args) {
			return false
		}
	}
	for _, g := range q.Module.Globals {
		if _, ok := q.GlobalImports[g.Import]; g.Import != "" && !ok {
			return false
		}
	}
	if !mz.keep(q) {
		return false
	}
	mz.best = q
	return true
}

func cloneProgram(p *Program) *Program {
	q := &Program{Module: p.Module.Clone(), Calls: make([]Call, len(p.Calls)), GlobalImports: maps.Clone(p.GlobalImports)}
	for i, c := range p.Calls {
		q.Calls[i] = Call{Func: c.Func, Args: slices.Clone(c.Args)}
	}
	return q
}

func (mz *minimizer) dropCalls() bool {
	progress := false
	for i := 0; i < len(mz.best.Calls) && len(mz.best.Calls) > 1; i++ {
		q := cloneProgram(mz.best)
		q.Calls = slices.Delete(q.Calls, i, i+1)
		if mz.try(q) {
			progress = true
			i--
		}
	}
	return progress
}

// dropFuncs removes a function: calls of it are deleted, and so are its
// exports; its table entries are left to what earlier element segments
// put there (null when none did).
func (mz *minimizer) dropFuncs() bool {
	progress := false
	for fn := len(mz.best.Module.Funcs) - 1; fn >= 0; fn-- {
		if fn >= len(mz.best.Module.Funcs) {
			continue
		}
		q := cloneProgram(mz.best)
		m := q.Module
		for _, f := range m.Funcs {
			for pc := 0; pc < len(f.Code); pc++ {
				in := &f.Code[pc]
				if in.Op != bytecode.OpCall {
					continue
				}
				switch {
				case int(in.Callee) == fn:
					deleteInstrs(f, pc, 1)
					pc--
				case int(in.Callee) > fn:
					in.Callee--
				}
			}
		}
		m.Funcs = slices.Delete(m.Funcs, fn, fn+1)
		var exports []bytecode.Export
		for _, e := range m.Exports {
			switch {
			case int(e.Func) == fn:
				continue
			case int(e.Func) > fn:
				e.Func--
			}
			exports = append(exports, e)
		}
		m.Exports = exports
		m.Elems = dropElemFunc(m.Elems, fn)
		if mz.try(q) {
			progress = true
		}
	}
	return progress
}

// dropElemFunc removes function fn from the element segments, splitting a
// segment where it held fn, and renumbers the functions after it.
func dropElemFunc(elems []bytecode.ElemSegment, fn int) []bytecode.ElemSegment {
	var out []bytecode.ElemSegment
	for _, e := range elems {
		cur := bytecode.ElemSegment{Offset: e.Offset}
		for k, f := range e.Funcs {
			if int(f) == fn {
				if len(cur.Funcs) > 0 {
					out = append(out, cur)
				}
				cur = bytecode.ElemSegment{Offset: e.Offset + uint32(k) + 1}
				continue
			}
			if int(f) > fn {
				f--
			}
			cur.Funcs = append(cur.Funcs, f)
		}
		if len(cur.Funcs) > 0 || len(e.Funcs) == 0 {
			out = append(out, cur)
		}
	}
	return out
}

// deleteInstrs removes f.Code[at:at+n] and retargets branches: a target in
// the removed range goes to the instruction that follows it.
func deleteInstrs(f *bytecode.Function, at, n int) {
	f.Code = slices.Delete(f.Code, at, at+n)
	fix := func(t uint32) uint32 {
		switch {
		case int(t) >= at+n:
			return t - uint32(n)
		case int(t) >= at:
			return uint32(at)
		}
		return t
	}
	for i := range f.Code {
		in := &f.Code[i]
		if !in.Op.Info().Branch {
			continue
		}
		in.Target = fix(in.Target)
		for k, t := range in.Table {
			in.Table[k] = fix(t)
		}
	}
}

// dropInstrs deletes runs of instructions, halving the run length from half
// the function down to one.
func (mz *minimizer) dropInstrs() bool {
	progress := false
	for fn := range mz.best.Module.Funcs {
		for n := len(mz.best.Module.Funcs[fn].Code) / 2; n >= 1; n /= 2 {
			for at := 0; at+n <= len(mz.best.Module.Funcs[fn].Code); {
				q := cloneProgram(mz.best)
				deleteInstrs(q.Module.Funcs[fn], at, n)
				if mz.try(q) {
					progress = true
					continue
				}
				if mz.expired() {
					return progress
				}
				at += n
			}
		}
	}
	return progress
}

// simplifyInstrs replaces single instructions by simpler ones.
func (mz *minimizer) simplifyInstrs() bool {
	progress := false
	for fn := range mz.best.Module.Funcs {
		for pc := 0; pc < len(mz.best.Module.Funcs[fn].Code); pc++ {
			for _, alt := range simpler(mz.best.Module.Funcs[fn].Code[pc]) {
				q := cloneProgram(mz.best)
				q.Module.Funcs[fn].Code[pc] = alt
				if mz.try(q) {
					progress = true
					break
				}
			}
			if mz.expired() {
				return progress
			}
		}
	}
	return progress
}

// simpler lists simpler replacements for in.
func simpler(in bytecode.Instr) []bytecode.Instr {
	var out []bytecode.Instr
	info := in.Op.Info()
	switch {
	case in.Op == bytecode.OpSwitch:
		out = append(out, bytecode.Instr{Op: bytecode.OpJump, Target: in.Target})
		for _, t := range in.Table {
			out = append(out, bytecode.Instr{Op: bytecode.OpJump, Target: t})
		}
	case info.Branch && in.Op != bytecode.OpJump:
		out = append(out, bytecode.Instr{Op: bytecode.OpJump, Target: in.Target})
	case info.Format == bytecode.FormatConst:
		for _, v := range []int64{0, 1, in.Imm / 2} {
			if v != in.Imm {
				c := in
				c.Imm = v
				out = append(out, c)
			}
		}
	case info.Format == bytecode.FormatLoad || info.Format == bytecode.FormatStore:
		if in.Imm != 0 {
			c := in.Clone()
			c.Imm = 0
			out = append(out, c)
		}
	case in.UseImm && in.Imm != 0 && in.Imm != 1:
		c := in
		c.Imm = 1
		out = append(out, c)
	}
	return out
}

// dropHosts removes host imports no instruction calls.
func (mz *minimizer) dropHosts() bool {
	progress := false
	for h := len(mz.best.Module.Hosts) - 1; h >= 0; h-- {
		q := cloneProgram(mz.best)
		used := false
		for _, f := range q.Module.Funcs {
			for i := range f.Code {
				in := &f.Code[i]
				if in.Op != bytecode.OpCallHost {
					continue
				}
				switch {
				case int(in.Callee) == h:
					used = true
				case int(in.Callee) > h:
					in.Callee--
				}
			}
		}
		if used {
			continue
		}
		q.Module.Hosts = slices.Delete(q.Module.Hosts, h, h+1)
		if mz.try(q) {
			progress = true
		}
	}
	return progress
}

// dropData removes data segments and shrinks the memory.
func (mz *minimizer) dropData() bool {
	progress := false
	for i := len(mz.best.Module.Data) - 1; i >= 0; i-- {
		q := cloneProgram(mz.best)
		q.Module.Data = slices.Delete(q.Module.Data, i, i+1)
		if mz.try(q) {
			progress = true
		}
	}
	if mem := mz.best.Module.Memory; mem.MaxPages > mem.MinPages {
		q := cloneProgram(mz.best)
		q.Module.Memory.MaxPages = mem.MinPages
		if mz.try(q) {
			progress = true
		}
	}
	return progress
}

// renumberCallees applies renumber to the Callee of every instruction of
// m whose op is one of ops; it returns false, leaving m partly changed,
// when an instruction refers to an index renumber maps to -1.
func renumberCallees(m *bytecode.Module, renumber []int, ops ...bytecode.Op) bool {
	for _, f := range m.Funcs {
		for i := range f.Code {
			in := &f.Code[i]
			if !slices.Contains(ops, in.Op) {
				continue
			}
			if renumber[in.Callee] < 0 {
				return false
			}
			in.Callee = uint32(renumber[in.Callee])
		}
	}
	return true
}

// without returns the renumbering of n indices that drops index i.
func without(n, i int) []int {
	renumber := make([]int, n)
	for k := range renumber {
		switch {
		case k < i:
			renumber[k] = k
		case k == i:
			renumber[k] = -1
		default:
			renumber[k] = k - 1
		}
	}
	return renumber
}

// dropGlobals removes globals no instruction reads or writes.
func (mz *minimizer) dropGlobals() bool {
	progress := false
	for g := len(mz.best.Module.Globals) - 1; g >= 0; g-- {
		q := cloneProgram(mz.best)
		m := q.Module
		if !renumberCallees(m, without(len(m.Globals), g), bytecode.OpGlobalGet, bytecode.OpGlobalSet) {
			continue
		}
		if imp := m.Globals[g].Import; imp != "" {
			delete(q.GlobalImports, imp)
		}
		m.Globals = slices.Delete(m.Globals, g, g+1)
		if mz.try(q) {
			progress = true
		}
	}
	return progress
}

// simplifyGlobals turns imported globals into defined ones with the value
// they were given, makes globals no global.set writes constant, and drops
// the export names of globals and of the table.
func (mz *minimizer) simplifyGlobals() bool {
	progress := false
	written := func(m *bytecode.Module, g int) bool {
		for _, f := range m.Funcs {
			for i := range f.Code {
				if f.Code[i].Op == bytecode.OpGlobalSet && int(f.Code[i].Callee) == g {
					return true
				}
			}
		}
		return false
	}
	for g := range mz.best.Module.Globals {
		for step := 0; step < 3; step++ {
			q := cloneProgram(mz.best)
			gl := &q.Module.Globals[g]
			switch {
			case step == 0 && gl.Import != "":
				gl.Init = q.GlobalImports[gl.Import]
				delete(q.GlobalImports, gl.Import)
				gl.Import = ""
			case step == 1 && gl.Export != "":
				gl.Export = ""
			case step == 2 && gl.Mutable && !written(q.Module, g):
				gl.Mutable = false
			default:
				continue
			}
			if mz.try(q) {
				progress = true
			}
		}
	}
	if mz.best.Module.Table.Export != "" {
		q := cloneProgram(mz.best)
		q.Module.Table.Export = ""
		if mz.try(q) {
			progress = true
		}
	}
	return progress
}

// dropTypes removes signatures no call_indirect names.
func (mz *minimizer) dropTypes() bool {
	progress := false
	for t := len(mz.best.Module.Types) - 1; t >= 0; t-- {
		q := cloneProgram(mz.best)
		m := q.Module
		if !renumberCallees(m, without(len(m.Types), t), bytecode.OpCallIndirect) {
			continue
		}
		m.Types = slices.Delete(m.Types, t, t+1)
		if mz.try(q) {
			progress = true
		}
	}
	return progress
}

// dropElems removes element segments, and single entries at either end of
// one.
func (mz *minimizer) dropElems() bool {
	progress := false
	for i := len(mz.best.Module.Elems) - 1; i >= 0; i-- {
		if i >= len(mz.best.Module.Elems) {
			continue
		}
		q := cloneProgram(mz.best)
		q.Module.Elems = slices.Delete(q.Module.Elems, i, i+1)
		if mz.try(q) {
			progress = true
			continue
		}
		for _, first := range []bool{true, false} {
			e := mz.best.Module.Elems[i]
			if len(e.Funcs) < 2 {
				break
			}
			q := cloneProgram(mz.best)
			qe := &q.Module.Elems[i]
			if first {
				qe.Offset++
				qe.Funcs = qe.Funcs[1:]
			} else {
				qe.Funcs = qe.Funcs[:len(qe.Funcs)-1]
			}
			if mz.try(q) {
				progress = true
			}
		}
	}
	return progress
}

// shrinkTable removes the table of a module that has no call_indirect and
// no element segment, and otherwise tries to drop its maximum and to make
// it smaller: just large enough for its element segments, or one entry
// smaller.
func (mz *minimizer) shrinkTable() bool {
	m := mz.best.Module
	if !m.HasTable() {
		return false
	}
	used := len(m.Elems) > 0 || len(m.MoreTables) > 0
	refs := len(m.Elems) > 0
	for _, f := range m.Funcs {
		for i := range f.Code {
			op := f.Code[i].Op
			used = used || op == bytecode.OpCallIndirect || op.IsTableOp()
			refs = refs || op.IsTableOp() || op == bytecode.OpCallIndirect && f.Code[i].Imm != 0
		}
	}
	if len(m.MoreTables) > 0 && !refs {
		// Tables beyond table 0 that nothing uses.
		q := cloneProgram(mz.best)
		q.Module.MoreTables = nil
		if mz.try(q) {
			return true
		}
	}
	var end uint32
	for _, e := range m.Elems {
		end = max(end, e.Offset+uint32(len(e.Funcs)))
	}
	var candidates []bytecode.Table
	if !used {
		candidates = append(candidates, bytecode.Table{})
	}
	t := m.Table
	if t.HasMax {
		c := t
		c.HasMax, c.Max = false, 0
		candidates = append(candidates, c)
	}
	for _, size := range []uint32{end, t.Min - 1} {
		if size < t.Min && size >= end {
			c := t
			c.Min = size
			candidates = append(candidates, c)
		}
	}
	progress := false
	for _, c := range candidates {
		q := cloneProgram(mz.best)
		q.Module.Table = c
		if c == (bytecode.Table{}) {
			q.Module.Types = nil
		}
		if mz.try(q) {
			progress = true
		}
	}
	return progress
}

// compactRegs removes registers no instruction mentions (parameters stay).
func (mz *minimizer) compactRegs() bool {
	progress := false
	for fn := range mz.best.Module.Funcs {
		q := cloneProgram(mz.best)
		f := q.Module.Funcs[fn]
		used := make([]bool, len(f.Regs))
		for i := range f.Sig.Params {
			used[i] = true
		}
		var regs []bytecode.Reg
		for i := range f.Code {
			regs = f.Code[i].Uses(regs[:0])
			regs = f.Code[i].Defs(regs)
			for _, r := range regs {
				used[r] = true
			}
		}
		if !slices.Contains(used, false) {
			continue
		}
		renumber := make([]bytecode.Reg, len(f.Regs))
		var types []bytecode.Type
		for r, u := range used {
			if u {
				renumber[r] = bytecode.Reg(len(types))
				types = append(types, f.Regs[r])
			}
		}
		f.Regs = types
		for i := range f.Code {
			renameRegs(&f.Code[i], renumber)
		}
		if mz.try(q) {
			progress = true
		}
	}
	return progress
}

// renameRegs rewrites every register operand of in through renumber.
func renameRegs(in *bytecode.Instr, renumber []bytecode.Reg) {
	info := in.Op.Info()
	switch info.Format {
	case bytecode.FormatConst, bytecode.FormatMemorySize:
		in.Dst = renumber[in.Dst]
	case bytecode.FormatUnary, bytecode.FormatLoad:
		in.Dst, in.A = renumber[in.Dst], renumber[in.A]
	case bytecode.FormatBinary:
		in.Dst, in.A = renumber[in.Dst], renumber[in.A]
		if !in.UseImm {
			in.B = renumber[in.B]
		}
	case bytecode.FormatSelect:
		in.Dst, in.A, in.B, in.C = renumber[in.Dst], renumber[in.A], renumber[in.B], renumber[in.C]
	case bytecode.FormatMemoryBulk, bytecode.FormatSegmentBulk, bytecode.FormatTableFill, bytecode.FormatTableBulk:
		in.A, in.B, in.C = renumber[in.A], renumber[in.B], renumber[in.C]
	case bytecode.FormatRefFunc, bytecode.FormatTableSize:
		in.Dst = renumber[in.Dst]
	case bytecode.FormatTableGet:
		in.Dst, in.A = renumber[in.Dst], renumber[in.A]
	case bytecode.FormatTableSet:
		in.A, in.B = renumber[in.A], renumber[in.B]
	case bytecode.FormatTableGrow:
		in.Dst, in.A, in.B = renumber[in.Dst], renumber[in.A], renumber[in.B]
	case bytecode.FormatStore:
		in.A, in.B = renumber[in.A], renumber[in.B]
	case bytecode.FormatBranch, bytecode.FormatSwitch:
		in.A = renumber[in.A]
	case bytecode.FormatCmpBranch:
		in.A = renumber[in.A]
		if !in.UseImm {
			in.B = renumber[in.B]
		}
	case bytecode.FormatGlobalGet:
		in.Dst = renumber[in.Dst]
	case bytecode.FormatGlobalSet:
		in.A = renumber[in.A]
	case bytecode.FormatCallIndirect:
		in.A = renumber[in.A]
		fallthrough
	case bytecode.FormatCall, bytecode.FormatReturn:
		for i, r := range in.Args {
			in.Args[i] = renumber[r]
		}
		for i, r := range in.Results {
			in.Results[i] = renumber[r]
		}
	}
}

// simplifyArgs replaces call arguments and the values of imported
// globals by 0 or 1.
func (mz *minimizer) simplifyArgs() bool {
	progress := false
	for _, name := range slices.Sorted(maps.Keys(mz.best.GlobalImports)) {
		for _, v := range []uint64{0, 1} {
			if mz.best.GlobalImports[name] == v {
				break
			}
			q := cloneProgram(mz.best)
			q.GlobalImports[name] = v
			if mz.try(q) {
				progress = true
				break
			}
		}
	}
	for i := range mz.best.Calls {
		for k := range mz.best.Calls[i].Args {
			for _, v := range []uint64{0, 1} {
				if mz.best.Calls[i].Args[k] == v {
					break
				}
				q := cloneProgram(mz.best)
				q.Calls[i].Args[k] = v
				if mz.try(q) {
					progress = true
					break
				}
			}
		}
	}
	return progress
}
