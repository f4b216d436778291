package alloc

import (
	"fmt"
	"slices"

	"github.com/kiln-jit/kiln/mir"
)

// rebuilder implements the mark and reconstruct phases of Leung and
// George's out-of-pinned-SSA translation, with the refinements of
// Rastello et al.'s appendix A. Mark follows, through the CFG, which value
// each physical register holds (a forward availability analysis: values
// pinned to a register, copies into it for fixed-register operands,
// clobbers by calls); a value pinned to a register and read where the
// register no longer holds it is killed and gets a repair copy right after
// its definition. Reconstruct renames every value to its resource (one
// virtual register per resource, pinned for the physical ones), places
// parallel copies before instructions whose fixed or tied operands are not
// already in place, repair copies after definitions, and the φ copies of
// each edge as one parallel copy at the end of the predecessor.
type rebuilder struct {
	s  *ssaInfo
	rs *resources
	// argLocs are the function's incoming argument locations, computed
	// when first needed.
	argLocs []mir.Reg

	// name is the output register of each virtual resource root.
	name []mir.Reg
	// phys is the output register of each physical register, pinned to it.
	phys [mir.NumPhysRegs]mir.Reg
	// repair is the repair copy of each killed value (NoReg: none).
	repair []mir.Reg
	// killed marks the values that need a repair copy.
	killed []bool
	// availIn is, per block, the registers that hold a value at its start,
	// by register (every other register holds none); reached says the
	// fixed point has reached the block. Most registers hold nothing a use
	// relies on at most block starts, so the lists are short.
	availIn [][]regVal
	reached []bool
	// predPos is mir.PredPositions of the function: where each successor
	// edge is among its successor's predecessors (the φ operand it reads).
	predPos mir.EdgePositions

	// constrained is false when fixed-register and two-address operands
	// are ignored (DestructOptions.NoConstraints).
	constrained bool
	kinds       []useKind // scratch for classify
	// Scratch operand lists (NewInstr copies them).
	uses, defs, bufA, bufB []mir.Reg

	stats *DestructStats
	err   error
}

// availNone is the state of a register that holds no value a use may
// rely on.
const availNone = -1

// regVal says physical register r (its physIndex) holds value v.
type regVal struct {
	r uint8
	v int32
}

// loadState sets state to what block b starts with.
func (rb *rebuilder) loadState(state []int32, b int) {
	for r := range state {
		state[r] = availNone
	}
	for _, e := range rb.availIn[b] {
		state[e.r] = e.v
	}
}

// meet merges state, what a predecessor of b ends with, into b's start
// and reports whether that changed: a block reached for the first time
// takes the state, later ones keep only the registers that agree.
func (rb *rebuilder) meet(b int, state []int32) bool {
	if !rb.reached[b] {
		rb.reached[b] = true
		var list []regVal
		for r, v := range state {
			if v >= 0 {
				list = append(list, regVal{uint8(r), v})
			}
		}
		rb.availIn[b] = list
		return true
	}
	in := rb.availIn[b]
	kept := in[:0]
	for _, e := range in {
		if state[e.r] == e.v {
			kept = append(kept, e)
		}
	}
	rb.availIn[b] = kept
	return len(kept) != len(in)
}

func newRebuilder(s *ssaInfo, rs *resources, stats *DestructStats) *rebuilder {
	n := len(s.f.VRegs)
	rb := &rebuilder{s: s, rs: rs, name: make([]mir.Reg, n), repair: make([]mir.Reg, n), killed: make([]bool, n),
		predPos: mir.PredPositions(s.f), stats: stats}
	for i := range rb.name {
		rb.name[i], rb.repair[i] = mir.NoReg, mir.NoReg
	}
	for i := range rb.phys {
		rb.phys[i] = mir.NoReg
	}
	return rb
}

// pinOf returns the physical register value v is pinned to, or NoReg.
func (rb *rebuilder) pinOf(v int) mir.Reg { return rb.rs.pin[rb.rs.root(v)] }

// mark computes the availability of every physical register at every block
// start (iterating to a fixed point in reverse postorder) and then which
// values are killed.
func (rb *rebuilder) mark() {
	s := rb.s
	nb := len(s.f.Blocks)
	rb.availIn = make([][]regVal, nb)
	if !rb.constrained {
		// Nothing is pinned: no register holds anything a use relies on.
		return
	}
	rb.reached = make([]bool, nb)
	rb.reached[0] = true
	// A block is walked again only when what it starts with changed; the
	// fixed point is the one of walking every block until nothing changes.
	state := make([]int32, mir.NumPhysRegs)
	work := mir.NewPassWorklist(s.an.RPO, nb)
	for b, ok := work.Pop(); ok; b, ok = work.Pop() {
		rb.loadState(state, b)
		rb.walk(s.f.Blocks[b], state, nil)
		for _, succ := range s.f.Blocks[b].Succs {
			if rb.meet(succ, state) {
				work.Mark(succ)
			}
		}
	}
	for _, b := range s.an.RPO {
		rb.loadState(state, b)
		rb.walk(s.f.Blocks[b], state, func(v int) { rb.killed[v] = true })
	}
}

// emitter collects a block's rewritten instructions.
type emitter struct {
	f   *mir.Func
	out []*mir.Instr
}

// walk runs block b's effect on register availability. With kill set
// (mark) it reports every value read where its register no longer holds
// it; with rb.name set (reconstruct, via rewriteBlock) it is not called.
func (rb *rebuilder) walk(b *mir.Block, state []int32, kill func(v int)) {
	s := rb.s
	f := s.f
	// use checks that v is in place when read where state says.
	use := func(v int) {
		if pin := rb.pinOf(v); pin != mir.NoReg && state[physIndex(pin)] != int32(v) && kill != nil {
			kill(v)
		}
	}
	for _, in := range b.Instrs {
		if in.Op == mir.OpPhi {
			if pin := rb.pinOf(in.Defs[0].Index()); pin != mir.NoReg {
				state[physIndex(pin)] = int32(in.Defs[0].Index())
			}
			continue
		}
		// Copies into fixed and tied operands read their sources before
		// any is written; the other operands are read by the instruction,
		// after the copies.
		kinds := rb.classify(in, state)
		for i, k := range kinds {
			if k.copy {
				use(in.Uses[i].Index())
			}
		}
		for i, k := range kinds {
			if k.phys != mir.NoReg {
				state[physIndex(k.phys)] = int32(in.Uses[i].Index())
			}
		}
		rb.earlyClobber(in, state)
		for i, k := range kinds {
			if k.plain {
				use(in.Uses[i].Index())
			}
		}
		for _, r := range in.Clobbers().Regs() {
			state[physIndex(r)] = availNone
		}
		for _, d := range in.Defs {
			if !d.IsVirtual() {
				continue
			}
			if pin := rb.pinOf(d.Index()); pin != mir.NoReg {
				state[physIndex(pin)] = int32(d.Index())
			}
		}
	}
	// The φ operands of the successor are read at the end of b.
	for k, succ := range b.Succs {
		sb := f.Blocks[succ]
		pi := rb.predPos.At(b.ID, k)
		var written [][2]int
		for _, phi := range sb.Phis() {
			x := phi.Uses[pi]
			if !x.IsVirtual() {
				continue
			}
			use(x.Index())
			if pin := rb.pinOf(phi.Defs[0].Index()); pin != mir.NoReg {
				written = append(written, [2]int{physIndex(pin), x.Index()})
			}
		}
		for _, w := range written {
			state[w[0]] = int32(w[1])
		}
	}
}

// earlyClobber forgets what the registers of in's early-clobber defs held:
// the instruction writes them before it reads its other operands.
func (rb *rebuilder) earlyClobber(in *mir.Instr, state []int32) {
	for i, d := range in.Defs {
		if !d.IsVirtual() || !rb.s.f.DefSpec(in, i).EarlyClobber {
			continue
		}
		if pin := rb.pinOf(d.Index()); pin != mir.NoReg {
			state[physIndex(pin)] = availNone
		}
	}
}

// operandReg returns the physical register use i of in must be in: its
// fixed register, or, for a use tied to a def pinned to a register, that
// register. NoReg for every other use.
func (rb *rebuilder) operandReg(in *mir.Instr, i int) mir.Reg {
	f := rb.s.f
	if !rb.constrained {
		return mir.NoReg
	}
	if spec := f.UseSpec(in, i); spec.Fixed.IsPhys() {
		return spec.Fixed
	}
	if d := tiedDef(f, in, i); d >= 0 && in.Defs[d].IsVirtual() {
		return rb.pinOf(in.Defs[d].Index())
	}
	return mir.NoReg
}

// tiedDef returns the def tied to use i of in, or -1.
func tiedDef(f *mir.Func, in *mir.Instr, i int) int {
	if in.Op == mir.OpPhi || in.Op == mir.OpParCopy {
		return -1
	}
	for d := range in.Defs {
		if int(f.DefSpec(in, d).Tied) == i {
			return d
		}
	}
	return -1
}

// useKind says how an instruction reads one of its virtual operands.
type useKind struct {
	// phys is the register the operand must be in (NoReg: none).
	phys mir.Reg
	// tiedTo is, for an operand tied to a def in a virtual resource, that
	// resource (-1: not so).
	tiedTo int
	// copy: the value must be copied into place first; plain: the
	// instruction reads the value where it is.
	copy, plain bool
}

// classify says, for every virtual use of in, whether it must be in a
// register (fixed, or tied to a def pinned to one) or in its tied def's
// virtual resource, and whether a copy puts it there, given the register
// availability state before the instruction.
func (rb *rebuilder) classify(in *mir.Instr, state []int32) []useKind {
	f := rb.s.f
	kinds := rb.kinds[:0]
	for range in.Uses {
		kinds = append(kinds, useKind{})
	}
	rb.kinds = kinds
	for i, u := range in.Uses {
		k := useKind{phys: mir.NoReg, tiedTo: -1}
		if !u.IsVirtual() {
			kinds[i] = k
			continue
		}
		if want := rb.operandReg(in, i); want != mir.NoReg {
			k.phys = want
			k.copy = state[physIndex(want)] != int32(u.Index())
		} else if d := tiedDef(f, in, i); rb.constrained && d >= 0 && in.Defs[d].IsVirtual() {
			k.tiedTo = rb.rs.root(in.Defs[d].Index())
			k.copy = rb.rs.root(u.Index()) != k.tiedTo
		} else {
			k.plain = true
		}
		kinds[i] = k
	}
	return kinds
}

// physReg returns the output register pinned to physical register r.
func (rb *rebuilder) physReg(r mir.Reg) mir.Reg {
	p := physIndex(r)
	if rb.phys[p] == mir.NoReg {
		rb.phys[p] = rb.s.f.NewVReg(r.Class())
		rb.s.f.SetPin(rb.phys[p], r)
	}
	return rb.phys[p]
}

// resourceReg returns the output register of resource root r.
func (rb *rebuilder) resourceReg(r int) mir.Reg {
	if pin := rb.rs.pin[r]; pin != mir.NoReg {
		return rb.physReg(pin)
	}
	if rb.name[r] == mir.NoReg {
		// The smallest member names the class.
		m := rb.rs.members[r]
		best := m[0]
		for _, v := range m {
			best = min(best, v)
		}
		rb.name[r] = mir.VReg(best)
	}
	return rb.name[r]
}

// valueReg returns where value v can be read when the registers hold
// state: its resource's register, unless v is pinned to a register that no
// longer holds it, in which case its repair copy.
func (rb *rebuilder) valueReg(v int, state []int32) mir.Reg {
	r := rb.rs.root(v)
	if pin := rb.rs.pin[r]; pin != mir.NoReg && state[physIndex(pin)] != int32(v) {
		if rb.repair[v] == mir.NoReg && rb.err == nil {
			rb.err = fmt.Errorf("alloc: destruct %s: v%d is read after its register %s was overwritten, but mark found no kill", rb.s.f.Name, v, pin)
		}
		return rb.repair[v]
	}
	return rb.resourceReg(r)
}

// reconstruct rewrites every block out of SSA form.
func (rb *rebuilder) reconstruct() error {
	s := rb.s
	f := s.f
	for v, k := range rb.killed {
		if k {
			rb.repair[v] = f.NewVReg(f.VRegs[v])
			rb.stats.Repairs++
		}
	}
	// Read the φ operands of every edge before any block is rewritten.
	type edgeCopies struct{ dst, src []mir.Reg }
	ends := map[int32]edgeCopies{} // the blocks that end with φ copies
	state := make([]int32, mir.NumPhysRegs)
	rewritten := make([][]*mir.Instr, len(f.Blocks))
	// Every block's output starts in one shared array with room for one
	// inserted copy (the φ copies at its end, or a repair); a block that
	// needs more moves out on append.
	const room = 1
	total := 0
	for _, b := range f.Blocks {
		total += len(b.Instrs) + room
	}
	backing := make([]*mir.Instr, total)
	e := &emitter{f: f}
	for _, bi := range s.an.RPO {
		b := f.Blocks[bi]
		rb.loadState(state, bi)
		n := len(b.Instrs) + room
		e.out, backing = backing[:0:n], backing[n:]
		rb.rewriteBlock(b, state, e)
		// φ copies at the end, before the terminator.
		var dst, src []mir.Reg
		for k, succ := range b.Succs {
			sb := f.Blocks[succ]
			pi := rb.predPos.At(bi, k)
			for _, phi := range sb.Phis() {
				x := phi.Uses[pi]
				p := phi.Defs[0].Index()
				to := rb.resourceReg(rb.rs.root(p))
				var from mir.Reg
				if x.IsVirtual() {
					from = rb.valueReg(x.Index(), state)
				} else {
					from = x
				}
				if from == to {
					continue
				}
				dst, src = append(dst, to), append(src, from)
				rb.stats.PhiCopies++
				rb.stats.WeightedPhiCopies += b.Freq
			}
		}
		if len(dst) > 0 {
			ends[int32(bi)] = edgeCopies{dst, src}
		}
		rewritten[bi] = e.out
	}
	if rb.err != nil {
		return rb.err
	}
	for bi, b := range f.Blocks {
		if s.an.RPONum[bi] < 0 {
			continue // unreachable: left as it is (no φ reads it)
		}
		out := rewritten[bi]
		if c, ok := ends[int32(bi)]; ok {
			term := out[len(out)-1]
			out = append(out[:len(out)-1], parCopy(f, c.dst, c.src, term.Pos), term)
		}
		b.Instrs = out
	}
	return nil
}

// stackArgIntoArgReg reports whether Arg in passes its argument on the
// stack while its definition is pinned to pin, a register that passes
// another argument.
func (rb *rebuilder) stackArgIntoArgReg(in *mir.Instr, pin mir.Reg) bool {
	f := rb.s.f
	if rb.argLocs == nil {
		rb.argLocs = mir.ArgLocations(f.Params, true)
	}
	if int(in.Aux) >= len(rb.argLocs) || !rb.argLocs[in.Aux].IsArgSlot() {
		return false
	}
	return slices.Contains(rb.argLocs, pin)
}

// parCopy returns a Copy for one move and a ParCopy for several.
func parCopy(f *mir.Func, dst, src []mir.Reg, pos int32) *mir.Instr {
	if len(dst) == 1 {
		return f.NewInstr(mir.Instr{Op: mir.OpCopy, Defs: dst, Uses: src, Pos: pos})
	}
	return f.NewInstr(mir.Instr{Op: mir.OpParCopy, Defs: dst, Uses: src, Pos: pos})
}

// rewriteBlock emits block b out of SSA form, starting with the register
// availability state (which it advances), into e.
func (rb *rebuilder) rewriteBlock(b *mir.Block, state []int32, e *emitter) {
	s := rb.s
	f := s.f
	var repairs [][2]mir.Reg // pending repair copies (dst, src)
	flush := func(pos int32) {
		if len(repairs) == 0 {
			return
		}
		dst, src := rb.bufA[:0], rb.bufB[:0]
		for _, r := range repairs {
			dst, src = append(dst, r[0]), append(src, r[1])
		}
		rb.bufA, rb.bufB = dst, src
		e.out = append(e.out, parCopy(f, dst, src, pos))
		repairs = repairs[:0]
	}
	for k, in := range b.Instrs {
		if in.Op == mir.OpPhi {
			p := in.Defs[0].Index()
			if pin := rb.pinOf(p); pin != mir.NoReg {
				state[physIndex(pin)] = int32(p)
				if rb.killed[p] {
					repairs = append(repairs, [2]mir.Reg{rb.repair[p], rb.resourceReg(rb.rs.root(p))})
				}
			}
			continue
		}
		if in.Op != mir.OpArg {
			flush(-1)
		}
		// Fixed and tied operands: copies into place, read in parallel.
		kinds := rb.classify(in, state)
		var cdst, csrc []mir.Reg
		uses := rb.uses[:0]
		for range in.Uses {
			uses = append(uses, mir.NoReg)
		}
		rb.uses = uses
		for i, u := range in.Uses {
			k := kinds[i]
			var reg mir.Reg
			switch {
			case !u.IsVirtual():
				uses[i] = u
				continue
			case k.phys != mir.NoReg:
				reg = rb.physReg(k.phys)
			case k.tiedTo >= 0:
				reg = rb.resourceReg(k.tiedTo)
			default:
				continue
			}
			if k.copy {
				cdst, csrc = append(cdst, reg), append(csrc, rb.valueReg(u.Index(), state))
				rb.stats.ConstraintCopies++
				rb.stats.WeightedConstraintCopies += b.Freq
			}
			uses[i] = reg
		}
		if len(cdst) > 0 {
			e.out = append(e.out, parCopy(f, cdst, csrc, in.Pos))
		}
		for i, k := range kinds {
			if k.phys != mir.NoReg {
				state[physIndex(k.phys)] = int32(in.Uses[i].Index())
			}
		}
		rb.earlyClobber(in, state)
		for i, k := range kinds {
			if k.plain {
				uses[i] = rb.valueReg(in.Uses[i].Index(), state)
			}
		}
		for _, r := range in.Clobbers().Regs() {
			state[physIndex(r)] = availNone
		}
		defs := rb.defs[:0]
		for range in.Defs {
			defs = append(defs, mir.NoReg)
		}
		rb.defs = defs
		for i, d := range in.Defs {
			if !d.IsVirtual() {
				defs[i] = d
				continue
			}
			v := d.Index()
			root := rb.rs.root(v)
			defs[i] = rb.resourceReg(root)
			if pin := rb.rs.pin[root]; pin != mir.NoReg {
				if in.Op == mir.OpArg && rb.stackArgIntoArgReg(in, pin) {
					// The arguments arrive together: a stack argument
					// loaded into the register of another argument
					// would destroy it before the repairs after the
					// arguments save it. It goes through a temporary,
					// moved into place with the repairs.
					tmp := f.NewVReg(f.VRegs[v])
					repairs = append(repairs, [2]mir.Reg{defs[i], tmp})
					defs[i] = tmp
				}
				state[physIndex(pin)] = int32(v)
				if rb.killed[v] {
					repairs = append(repairs, [2]mir.Reg{rb.repair[v], defs[i]})
				}
			}
		}
		// The instruction belongs to Destruct's copy of the function:
		// rewrite its operands in place.
		copy(in.Uses, uses)
		copy(in.Defs, defs)
		e.out = append(e.out, in)
		if in.Op != mir.OpArg || k+1 == len(b.Instrs) || b.Instrs[k+1].Op != mir.OpArg {
			flush(in.Pos)
		}
	}
	flush(-1)
}
