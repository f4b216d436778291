package sched

import (
	"fmt"
	"slices"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// This file assigns registers to one instruction at the moment the
// scheduler takes it (thesis §5.3.4, Figs 5.7–5.9): its sources get
// registers first (reloading spilled values), values whose last use it is
// free their registers, calls save the caller-saved registers that hold
// live values, then its destinations get registers, spilling a victim when
// none is free.

// class returns the register class of virtual register v.
func (a *allocator) class(v int32) mir.Class { return a.f.VRegs[v] }

// pinOf returns v's pin, or NoReg.
func (a *allocator) pinOf(v int32) mir.Reg { return a.f.Pin(mir.VReg(int(v))) }

// addStat counts one instruction of spill code weighted by the region's
// frequency.
func (a *allocator) addStat(n *int, w *float64) {
	*n++
	*w += a.freq()
}

// kill frees the register of a value that is dead.
func (a *allocator) kill(v int32) {
	switch l := a.vs[v].loc; {
	case l.isReg() && a.holder[l] == v:
		a.holder[l] = -1
	case l == locMem:
		for r := range a.reserved {
			if a.reserved[r] == v {
				a.reserved[r] = -1
			}
		}
	}
	a.vs[v].loc = locNone
}

// take gives register r to value v (which must be free).
func (a *allocator) take(v int32, r mir.Reg) {
	if a.vs[v].hint == mir.NoReg {
		a.vs[v].hint = r
	}
	a.holder[r] = v
	a.reserved[r] = -1
	a.vs[v].loc = loc(r)
	if mir.CalleeSaved.Has(r) {
		a.calleeUsed = a.calleeUsed.Add(r)
	}
}

// callerCost returns the frequency-weighted cost of keeping v in a
// caller-saved register: a store and a load around every call of the
// regions it is live in, less the calls of this region already scheduled
// (thesis §5.3.5).
func (a *allocator) callerCost(v int32) float64 {
	c := a.d.callerCost[v] - float64(a.callsDone)*a.freq()*(storeLatency+loadLatency)
	return max(c, 0)
}

// calleeCost returns the cost of using a callee-saved register that the
// function does not use yet: a store in the prologue and a load in the
// epilogue. A callee-saved register already used costs nothing more.
func (a *allocator) calleeCost() float64 {
	return a.entryFreq*storeLatency + a.d.retFreq*loadLatency
}

// freeReg chooses a free register for v without spilling (Fig 5.9): its
// pin; else a register of its preferred-location list; else one reserved
// for it; else, of the register type (caller- or callee-saved) that costs
// less for it, the first free register that no fixed operand in its live
// range needs; else any free register. exclude lists registers not to
// take.
//
// The thesis looks only at the processed successors for preferences; a
// value defined in a loop body before the region reaching the back edge is
// processed gets none there, and would land in another register than the
// loop header expects. So a value also has a hint, the register it had
// where it was first placed (typically its start location in the loop
// header): after its preferred locations, the hint is tried first.
func (a *allocator) freeReg(v int32, exclude mir.RegSet) (mir.Reg, bool) {
	exclude |= a.locked
	free := func(r mir.Reg) bool { return a.holder[r] < 0 && !exclude.Has(r) }
	if p := a.pinOf(v); p != mir.NoReg {
		return p, free(p)
	}
	c := a.class(v)
	for _, l := range a.pref[v] {
		if l.isReg() && l.reg().Class() == c && a.allowed.Has(l.reg()) && free(l.reg()) && a.reserved[l] < 0 {
			return l.reg(), true
		}
	}
	if h := a.vs[v].hint; !a.opts.NoHints && h != mir.NoReg && h.Class() == c && a.allowed.Has(h) && free(h) && a.reserved[h] < 0 {
		return h, true
	}
	for _, r := range a.caller[c] {
		if a.reserved[r] == v && free(r) {
			return r, true
		}
	}
	for _, r := range a.callee[c] {
		if a.reserved[r] == v && free(r) {
			return r, true
		}
	}
	first, second := a.caller[c], a.callee[c]
	if cc := a.callerCost(v); cc > 0 {
		useCallee := a.calleeCost() < cc
		for _, r := range a.callee[c] {
			if a.calleeUsed.Has(r) && free(r) && a.reserved[r] < 0 {
				useCallee = true
				break
			}
		}
		if useCallee {
			first, second = second, first
		}
	}
	avoid := a.d.avoid[v] | a.d.fixed[a.b]
	for _, pass := range [3]int{0, 1, 2} {
		for _, list := range [2][]mir.Reg{first, second} {
			for _, r := range list {
				if !free(r) {
					continue
				}
				switch pass {
				case 0:
					if avoid.Has(r) || a.reserved[r] >= 0 || a.hinted.Has(r) && a.vs[v].hint != r {
						continue
					}
				case 1:
					if a.reserved[r] >= 0 {
						continue
					}
				}
				return r, true
			}
		}
	}
	return mir.NoReg, false
}

// selectReg chooses a register for v, spilling a victim when none is
// free. exclude lists registers not to take or spill.
func (a *allocator) selectReg(v int32, exclude mir.RegSet, pos int32) (mir.Reg, error) {
	if r, ok := a.freeReg(v, exclude); ok {
		return r, nil
	}
	if p := a.pinOf(v); p != mir.NoReg {
		if exclude.Has(p) || a.locked.Has(p) {
			return mir.NoReg, fmt.Errorf("%w: v%d's pin %s is taken", errInternal, v, p)
		}
		return p, a.evict(p, exclude, pos)
	}
	r, err := a.chooseVictim(a.class(v), exclude)
	if err != nil {
		return mir.NoReg, err
	}
	a.spill(a.holder[r], pos)
	return r, nil
}

// chooseVictim returns the register of the value to spill among those of
// class c outside exclude (thesis §5.3.6), asking the victim policy.
func (a *allocator) chooseVictim(c mir.Class, exclude mir.RegSet) (mir.Reg, error) {
	return a.chooseVictimOrSelf(c, exclude, -1)
}

// chooseVictimOrSelf is chooseVictim with value self (when not -1), which
// holds no register yet, among the candidates: it returns NoReg when the
// policy would rather self went to memory than any register's value.
func (a *allocator) chooseVictimOrSelf(c mir.Class, exclude mir.RegSet, self int32) (mir.Reg, error) {
	exclude |= a.locked
	cands := a.cands[:0]
	a.succBuf = a.succBuf[:0]
	for r := mir.Reg(0); r < mir.NumPhysRegs; r++ {
		w := a.holder[r]
		if w < 0 || r.Class() != c || exclude.Has(r) {
			continue
		}
		cands = append(cands, a.candidate(w, r))
	}
	if len(cands) == 0 {
		a.cands = cands
		if self >= 0 {
			return mir.NoReg, nil // every register is taken for good
		}
		return mir.NoReg, fmt.Errorf("%w: no %s register can be spilled", errInternal, c)
	}
	if self >= 0 {
		cands = append(cands, a.candidate(self, mir.NoReg))
	}
	a.cands = cands
	k := a.opts.Victim.Victim(a.b, a.point(), cands)
	if k < 0 || k >= len(cands) {
		return mir.NoReg, fmt.Errorf("sched: victim policy returned %d of %d candidates", k, len(cands))
	}
	return cands[k].Reg, nil
}

// hasVictim reports whether some value of class c outside exclude could
// be spilled.
func (a *allocator) hasVictim(c mir.Class, exclude mir.RegSet) bool {
	exclude |= a.locked
	for r := mir.Reg(0); r < mir.NumPhysRegs; r++ {
		if a.holder[r] >= 0 && r.Class() == c && !exclude.Has(r) {
			return true
		}
	}
	return false
}

// candidate describes value v, in register r (NoReg: not in one yet), as
// a spill candidate.
func (a *allocator) candidate(v int32, r mir.Reg) SpillCandidate {
	d := a.d
	c := SpillCandidate{VReg: mir.VReg(int(v)), Reg: r, LocalUses: int(a.vs[v].usesLeft), NextUse: -1,
		LiveOut: a.vs[v].liveOut, ClosestDist: -1, Remat: d.remat[v].ok, Clean: a.vs[v].clean}
	c.At = len(a.block.Instrs)
	if c.LocalUses > 0 {
		c.NextUse = a.nextUse(v)
		at := c.NextUse
		if a.after && at == int(a.cur) {
			// A source of the current instruction (of a copy, whose
			// sources stay candidates) is read already.
			at = a.nextUseAfterCur(v)
		}
		if at >= 0 {
			c.At = at
		}
		c.Ahead = a.ahead(c.At)
		return c
	}
	c.Ahead = a.ahead(c.At)
	if !c.LiveOut {
		return c
	}
	for _, n := range a.succsOf(a.b) {
		s := int(n.block)
		i := d.inIndex(s, v)
		if i >= 0 {
			dist := int(d.inInfoOf(s)[i].dist) + 1
			if c.ClosestDist < 0 || dist < c.ClosestDist {
				c.ClosestDist = dist
				c.ClosestWeight = a.f.Blocks[d.inInfoOf(s)[i].closest].Freq
			}
		}
		if !a.processed[s] {
			continue
		}
		sl := SuccLocation{Block: s, Freq: n.freq, Live: i >= 0}
		if i >= 0 {
			sl.InReg = a.startLocOf(s)[i].isReg()
		}
		// The candidates of one choice share one buffer.
		start := len(a.succBuf) - len(c.Succs)
		a.succBuf = append(a.succBuf, sl)
		c.Succs = a.succBuf[start:len(a.succBuf):len(a.succBuf)]
	}
	return c
}

// spill moves value w from its register to memory, storing it unless its
// slot already holds it or it is recomputed.
func (a *allocator) spill(w int32, pos int32) {
	r := a.vs[w].loc
	if !r.isReg() {
		return
	}
	if !a.vs[w].clean && !a.d.remat[w].ok {
		home := a.needHome(w)
		a.emit(a.out.NewInstr(mir.Instr{Op: mir.OpSpill, Defs: []mir.Reg{home}, Uses: []mir.Reg{r.reg()}, Pos: pos}), -1)
		a.addStat(&a.stats.Spills, &a.stats.WeightedSpills)
		a.vs[w].clean = true
	}
	a.holder[r] = -1
	a.vs[w].loc = locMem
}

// reload brings value v from memory into register r (free), reloading it
// from its slot or recomputing it.
func (a *allocator) reload(v int32, r mir.Reg, pos int32) {
	if rm := a.d.remat[v]; rm.ok {
		a.emitRemat(rm, r, pos)
	} else {
		a.emit(a.out.NewInstr(mir.Instr{Op: mir.OpReload, Defs: []mir.Reg{r}, Uses: []mir.Reg{a.needHome(v)}, Pos: pos}), -1)
		a.addStat(&a.stats.Reloads, &a.stats.WeightedReloads)
		a.vs[v].clean = true
	}
	a.take(v, r)
}

// rematInstr returns the instruction recomputing the value rm describes
// into register r.
func (a *allocator) rematInstr(rm remat, r mir.Reg, pos int32) *mir.Instr {
	return a.out.NewInstr(mir.Instr{Op: rm.op, Defs: []mir.Reg{r}, Imm: rm.imm, Aux: rm.aux, Pos: pos})
}

// emitRemat appends the recomputation of the value rm describes into
// register r.
func (a *allocator) emitRemat(rm remat, r mir.Reg, pos int32) {
	a.emit(a.rematInstr(rm, r, pos), -1)
	a.addStat(&a.stats.Remats, &a.stats.WeightedRemats)
}

// defined records that value v has just been defined by operand i of
// instruction k of the region: its uses left in the region and whether it
// is live out.
func (a *allocator) defined(v int32, k, i int) {
	di := a.d.def(a.b, k, i)
	a.vs[v].usesLeft, a.vs[v].liveOut = di.uses, di.liveOut
}

// evict makes register r free: its value moves to another free register
// outside exclude, or is spilled.
func (a *allocator) evict(r mir.Reg, exclude mir.RegSet, pos int32) error {
	w := a.holder[r]
	if w < 0 {
		a.reserved[r] = -1
		return nil
	}
	if a.locked.Has(r) {
		return fmt.Errorf("%w: %s must be freed but holds an operand", errInternal, r)
	}
	if a.pinOf(w) == mir.NoReg && (a.vs[w].usesLeft > 0 || a.vs[w].liveOut) {
		if n, ok := a.freeReg(w, exclude|mir.MakeRegSet(r)); ok {
			a.emit(a.out.NewInstr(mir.Instr{Op: mir.OpCopy, Defs: []mir.Reg{n}, Uses: []mir.Reg{r}, Pos: pos}), -1)
			a.addStat(&a.stats.Moves, &a.stats.WeightedMoves)
			a.holder[r] = -1
			a.take(w, n)
			return nil
		}
	}
	a.spill(w, pos)
	return nil
}

// ensureReg brings value v into a register for a use and returns it: into
// want when the operand needs a particular register, else where it is or
// into a register chosen for it. exclude lists registers the use must not
// take.
func (a *allocator) ensureReg(v int32, want mir.Reg, exclude mir.RegSet, pos int32) (mir.Reg, error) {
	l := a.vs[v].loc
	if l == locNone {
		return mir.NoReg, fmt.Errorf("v%d is used but holds no value here", v)
	}
	if l.isReg() {
		if want == mir.NoReg || l.reg() == want {
			if !exclude.Has(l.reg()) {
				return l.reg(), nil
			}
		}
		// In the wrong register for this operand: move it.
		target := want
		if target == mir.NoReg {
			var err error
			if target, err = a.selectReg(v, exclude|mir.MakeRegSet(l.reg()), pos); err != nil {
				return mir.NoReg, err
			}
		} else if err := a.evict(target, exclude|mir.MakeRegSet(l.reg()), pos); err != nil {
			return mir.NoReg, err
		}
		a.emit(a.out.NewInstr(mir.Instr{Op: mir.OpCopy, Defs: []mir.Reg{target}, Uses: []mir.Reg{l.reg()}, Pos: pos}), -1)
		a.addStat(&a.stats.Moves, &a.stats.WeightedMoves)
		a.holder[l] = -1
		a.take(v, target)
		return target, nil
	}
	// In memory: reload, lazily restoring a value saved around a call into
	// the register kept for it.
	target := want
	if target == mir.NoReg {
		for r := mir.Reg(0); r < mir.NumPhysRegs; r++ {
			if a.reserved[r] == v && a.holder[r] < 0 && !exclude.Has(r) && !a.locked.Has(r) {
				target = r
				break
			}
		}
	}
	if target == mir.NoReg {
		var err error
		if target, err = a.selectReg(v, exclude, pos); err != nil {
			return mir.NoReg, err
		}
	} else if err := a.evict(target, exclude, pos); err != nil {
		return mir.NoReg, err
	}
	a.reload(v, target, pos)
	return target, nil
}

// allocInstr assigns registers to instruction k of the region and emits
// it with the spill code it needs.
func (a *allocator) allocInstr(k int, in *mir.Instr) error {
	if in.Op == mir.OpCopy || in.Op == mir.OpParCopy {
		return a.allocCopy(k, in)
	}
	f := a.f
	info := in.Op.Info()
	pos := in.Pos
	a.locked = 0
	// Registers this instruction writes: no source may be put there, and
	// values evicted from one must not move to another.
	var fixedDefs, earlyDefs mir.RegSet
	for i, r := range in.Defs {
		s := f.DefSpec(in, i)
		if p := pinOrFixed(f, r, s); p != mir.NoReg {
			fixedDefs = fixedDefs.Add(p)
			if s.EarlyClobber {
				earlyDefs = earlyDefs.Add(p)
			}
		}
	}
	clobbers := in.Clobbers()
	avoidForUses := fixedDefs | clobbers

	// Sources: fixed ones first.
	useLoc := a.scratchRegs(&a.useBuf, len(in.Uses))
	for pass := 0; pass < 2; pass++ {
		for i, r := range in.Uses {
			if r == mir.NoReg && f.UseSpec(in, i).Role == mir.RoleMemIndex {
				useLoc[i] = mir.NoReg // a memory operand without an index
				continue
			}
			s := f.UseSpec(in, i)
			want := pinOrFixed(f, r, s)
			isFixed := want != mir.NoReg || s.Fixed.IsArgSlot()
			if (pass == 0) != isFixed {
				continue
			}
			if !r.IsVirtual() {
				return fmt.Errorf("use %d is %s, not a virtual register", i, r)
			}
			v := int32(r.Index())
			if s.Fixed.IsArgSlot() {
				if err := a.storeArg(v, s.Fixed, pos); err != nil {
					return err
				}
				useLoc[i] = s.Fixed
				continue
			}
			done := false
			for j := range i {
				if in.Uses[j] == r && useLoc[j].IsPhys() && (want == mir.NoReg || useLoc[j] == want) {
					useLoc[i], done = useLoc[j], true
					break
				}
			}
			if done {
				continue
			}
			ex := mir.RegSet(0)
			if want == mir.NoReg {
				ex = avoidForUses
			}
			reg, err := a.ensureReg(v, want, ex, pos)
			if err != nil {
				return err
			}
			useLoc[i] = reg
			a.locked = a.locked.Add(reg)
		}
	}
	// Source values die here or are needed later.
	for _, r := range in.Uses {
		if r != mir.NoReg {
			a.vs[r.Index()].usesLeft--
		}
	}
	var dying []int32
	for i, r := range in.Uses {
		if r == mir.NoReg {
			continue
		}
		v := int32(r.Index())
		if a.vs[v].usesLeft <= 0 && !a.vs[v].liveOut && !slices.Contains(in.Uses[:i], r) {
			dying = append(dying, v)
		}
	}
	// A call: values in caller-saved registers that survive it are saved;
	// their registers stay reserved for them (§5.3.3).
	if info.Call {
		for _, r := range (clobbers & ^fixedDefs).Regs() {
			w := a.holder[r]
			if w < 0 || slices.Contains(dying, w) {
				continue
			}
			wasClean := a.vs[w].clean || a.d.remat[w].ok
			a.spill(w, pos)
			if !wasClean {
				a.stats.Saves++
			}
			a.reserved[r] = w
		}
		a.callsDone++
	}
	// Dying sources free their registers; the register becomes a hint for
	// a redefinition of the value in the region.
	usedRegs := mir.RegSet(0)
	for _, r := range useLoc {
		if r.IsPhys() {
			usedRegs = usedRegs.Add(r)
		}
	}
	for _, v := range dying {
		l := a.vs[v].loc
		a.kill(v)
		if l.isReg() && len(a.pref[v]) == 0 {
			a.pref[v] = append(a.pref[v], l)
		}
	}
	// Destinations may take the registers of dying sources; the sources
	// that live on keep theirs (they are not spilled for a destination).
	a.locked = 0
	for i, r := range useLoc {
		if r.IsPhys() && !slices.Contains(dying, int32(in.Uses[i].Index())) {
			a.locked = a.locked.Add(r)
		}
	}
	// Destinations: fixed ones first. The sources have been read.
	a.after = true
	defLoc := a.scratchRegs(&a.defBuf, len(in.Defs))
	var defsTaken mir.RegSet
	for pass := 0; pass < 2; pass++ {
		for i, r := range in.Defs {
			s := f.DefSpec(in, i)
			fixed := pinOrFixed(f, r, s)
			isFixed := fixed != mir.NoReg || s.Fixed.IsArgSlot()
			if (pass == 0) != isFixed {
				continue
			}
			if !r.IsVirtual() {
				return fmt.Errorf("def %d is %s, not a virtual register", i, r)
			}
			v := int32(r.Index())
			if s.Fixed.IsArgSlot() {
				defLoc[i] = s.Fixed
				if old := a.vs[v].loc; old.isReg() && a.holder[old] == v {
					a.holder[old] = -1
				}
				a.defined(v, k, i)
				a.vs[v].loc = locNone
				continue
			}
			var reg mir.Reg
			switch {
			case s.Tied >= 0:
				reg = useLoc[s.Tied]
				if w := a.holder[reg]; w >= 0 && w != v {
					if err := a.evictKeepingLock(reg, defsTaken|fixedDefs|clobbers|usedRegs, pos); err != nil {
						return err
					}
				}
			case fixed != mir.NoReg:
				reg = fixed
				if w := a.holder[reg]; w >= 0 && w != v {
					if err := a.evictKeepingLock(reg, defsTaken|fixedDefs|clobbers|usedRegs, pos); err != nil {
						return err
					}
				}
			default:
				ex := defsTaken | fixedDefs
				if s.EarlyClobber {
					ex |= usedRegs
				}
				var err error
				if reg, err = a.selectReg(v, ex, pos); err != nil {
					return err
				}
			}
			if old := a.vs[v].loc; old.isReg() && old.reg() != reg && a.holder[old] == v {
				a.holder[old] = -1
			}
			a.take(v, reg)
			a.vs[v].clean = false
			a.defined(v, k, i)
			defLoc[i] = reg
			defsTaken = defsTaken.Add(reg)
		}
	}
	defs := in.Defs // the values defined
	if a.opts.InPlace {
		// The instruction becomes the output's, its operands rewritten.
		defs = append(a.vdefBuf[:0], in.Defs...)
		a.vdefBuf = defs
		copy(in.Defs, defLoc)
		copy(in.Uses, useLoc)
		in.Pos = pos
		a.emit(in, int32(k))
	} else {
		a.emit(a.out.NewInstr(mir.Instr{Op: in.Op, Defs: defLoc, Uses: useLoc, Imm: in.Imm, Scale: in.Scale,
			Cond: in.Cond, Aux: in.Aux, Pos: pos}), int32(k))
	}
	a.locked = 0
	// Results passed in stack-argument slots come into registers; dead
	// results free their registers.
	for i, r := range defs {
		v := int32(r.Index())
		if defLoc[i].IsArgSlot() {
			if a.vs[v].usesLeft == 0 && !a.vs[v].liveOut {
				continue
			}
			reg, err := a.selectReg(v, 0, pos)
			if err != nil {
				return err
			}
			if err := a.emitMoves([]alloc.Move{{Dst: reg, Src: defLoc[i]}}, pos); err != nil {
				return err
			}
			a.take(v, reg)
			a.vs[v].clean = false
			continue
		}
		if a.vs[v].usesLeft == 0 && !a.vs[v].liveOut {
			a.kill(v)
		}
	}
	return nil
}

// scratchRegs returns buf resized to n registers (reused between
// instructions; NewInstr copies what it keeps).
func (a *allocator) scratchRegs(buf *[]mir.Reg, n int) []mir.Reg {
	if cap(*buf) < n {
		*buf = make([]mir.Reg, n)
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}

// evictKeepingLock frees register r for a destination even when it holds a
// source of the instruction that lives on: the value moves (or is spilled)
// before the instruction, which still reads it from r.
func (a *allocator) evictKeepingLock(r mir.Reg, exclude mir.RegSet, pos int32) error {
	locked := a.locked
	a.locked = 0
	err := a.evict(r, exclude|locked, pos)
	a.locked = locked
	return err
}

// storeArg writes value v to outgoing stack-argument slot slot.
func (a *allocator) storeArg(v int32, slot mir.Reg, pos int32) error {
	l := a.vs[v].loc
	switch {
	case l.isReg():
		return a.emitMoves([]alloc.Move{{Dst: slot, Src: l.reg()}}, pos)
	case l == locMem && !a.d.remat[v].ok:
		return a.emitMoves([]alloc.Move{{Dst: slot, Src: a.needHome(v)}}, pos)
	case l == locMem:
		reg, err := a.ensureReg(v, mir.NoReg, a.locked, pos)
		if err != nil {
			return err
		}
		return a.emitMoves([]alloc.Move{{Dst: slot, Src: reg}}, pos)
	}
	return fmt.Errorf("v%d is used but holds no value here", v)
}

// allocCopy assigns locations to a copy or parallel copy: a destination
// takes the register of a source that dies here when it can, so that the
// copy costs nothing (the integrated pass's coalescing); the remaining
// moves are sequentialized.
func (a *allocator) allocCopy(k int, in *mir.Instr) error {
	f := a.f
	pos := in.Pos
	a.locked = 0
	n := len(in.Defs)
	srcLoc := make([]loc, n)
	for i, r := range in.Uses {
		if !r.IsVirtual() || !in.Defs[i].IsVirtual() {
			return fmt.Errorf("copy operand %d is not a virtual register", i)
		}
		v := int32(r.Index())
		srcLoc[i] = a.vs[v].loc
		if srcLoc[i] == locNone {
			return fmt.Errorf("v%d is copied but holds no value here", v)
		}
	}
	for _, r := range in.Uses {
		a.vs[r.Index()].usesLeft--
	}
	// Sources that die free their registers; their destinations may take
	// them.
	dies := make([]bool, n)
	for i, r := range in.Uses {
		v := int32(r.Index())
		dies[i] = a.vs[v].usesLeft <= 0 && !a.vs[v].liveOut
	}
	for i, r := range in.Uses {
		if dies[i] {
			v := int32(r.Index())
			if l := a.vs[v].loc; l.isReg() && a.holder[l] == v {
				a.holder[l] = -1
			}
		}
	}
	// The old values of destinations are dead.
	for _, r := range in.Defs {
		v := int32(r.Index())
		a.touch(v)
		if !slices.Contains(in.Uses, r) {
			a.kill(v)
		}
	}
	for i, r := range in.Uses {
		if dies[i] {
			v := int32(r.Index())
			if !slices.Contains(in.Defs, r) {
				a.vs[v].loc = locNone
			}
		}
	}
	// Code placed before the copy (evictions) must not write any source's
	// register.
	var srcRegs mir.RegSet
	for _, l := range srcLoc {
		if l.isReg() {
			srcRegs = srcRegs.Add(l.reg())
		}
	}
	dst := make([]mir.Reg, n)
	var claimed mir.RegSet
	var deferred []int
	a.after = true // the sources have been read
	for pass := 0; pass < 2; pass++ {
		for i, r := range in.Defs {
			v := int32(r.Index())
			pin := a.pinOf(v)
			if (pass == 0) != (pin != mir.NoReg) {
				continue
			}
			di := a.d.def(a.b, k, i)
			if di.uses == 0 && !di.liveOut {
				dst[i] = mir.NoReg // dead: no move
				continue
			}
			var reg mir.Reg
			switch {
			case pin != mir.NoReg:
				reg = pin
				if w := a.holder[reg]; w >= 0 && w != v {
					if err := a.evict(reg, claimed|srcRegs, pos); err != nil {
						return err
					}
				}
			default:
				s := srcLoc[i]
				srcRemat := s == locMem && a.d.remat[int32(in.Uses[i].Index())].ok
				ok := false
				// The first preferred location (a φ copy's destination goes
				// where its hottest successor wants it), then the dying
				// source's register, then the normal selection (which tries
				// the other preferred locations).
				if len(a.pref[v]) > 0 {
					if l := a.pref[v][0]; l.isReg() && l.reg().Class() == f.VRegs[v] && a.allowed.Has(l.reg()) &&
						a.holder[l] < 0 && !claimed.Has(l.reg()) && a.reserved[l] < 0 {
						reg, ok = l.reg(), true
					}
				}
				if !ok && dies[i] && s.isReg() && a.holder[s] < 0 && !claimed.Has(s.reg()) && a.allowed.Has(s.reg()) {
					reg, ok = s.reg(), true
				}
				if !ok {
					reg, ok = a.freeReg(v, claimed)
				}
				if !ok && di.uses == 0 && !srcRemat {
					// Only needed after the region and no register free: it
					// competes with the values in registers as a spill
					// candidate itself, and goes straight to its slot unless
					// another is the better victim.
					a.defined(v, k, i) // its uses and liveness, as a candidate
					r, err := a.chooseVictimOrSelf(f.VRegs[v], claimed, v)
					if err != nil {
						return err
					}
					if r == mir.NoReg {
						dst[i] = a.needHome(v)
						continue
					}
					a.spill(a.holder[r], pos)
					reg, ok = r, true
				}
				if !ok && a.hasVictim(f.VRegs[v], claimed) {
					var err error
					if reg, err = a.selectReg(v, claimed, pos); err != nil {
						return err
					}
					ok = true
				}
				if !ok {
					if srcRemat {
						// Recomputed after the copy, when a register can be
						// spilled for it.
						deferred = append(deferred, i)
						dst[i] = mir.NoReg
						continue
					}
					// Every register is taken by this copy's destinations.
					dst[i] = a.needHome(v)
					continue
				}
			}
			a.take(v, reg)
			dst[i] = reg
			claimed = claimed.Add(reg)
		}
	}
	// The moves.
	var moves []alloc.Move
	type rematMove struct {
		dst mir.Reg
		rm  remat
	}
	var remats []rematMove
	for i, d := range dst {
		if d == mir.NoReg {
			continue
		}
		sv := int32(in.Uses[i].Index())
		var src mir.Reg
		switch s := srcLoc[i]; {
		case s.isReg():
			src = s.reg()
		case a.d.remat[sv].ok:
			remats = append(remats, rematMove{d, a.d.remat[sv]})
			continue
		default:
			src = a.needHome(sv)
		}
		if src == d {
			continue
		}
		moves = append(moves, alloc.Move{Dst: d, Src: src})
		switch {
		case src.IsPhys() && d.IsPhys():
			a.addStat(&a.stats.Moves, &a.stats.WeightedMoves)
		case d.IsPhys():
			a.addStat(&a.stats.Reloads, &a.stats.WeightedReloads)
		case src.IsPhys():
			a.addStat(&a.stats.Spills, &a.stats.WeightedSpills)
		}
	}
	if len(moves) > 0 {
		if err := a.emitMoves(moves, pos); err != nil {
			return err
		}
	}
	for _, m := range remats {
		a.emitRemat(m.rm, m.dst, pos)
	}
	// Destination state.
	for i, r := range in.Defs {
		v := int32(r.Index())
		d := dst[i]
		if d == mir.NoReg {
			a.vs[v].loc = locNone
			if slices.Contains(deferred, i) {
				a.defined(v, k, i)
			}
			continue
		}
		a.defined(v, k, i)
		if d.IsPhys() {
			a.vs[v].loc = loc(d)
			a.vs[v].clean = false
		} else {
			a.vs[v].loc = locMem
			a.vs[v].clean = true
		}
	}
	// Recomputed destinations that found no register before the copy get
	// one now, spilling a value if need be.
	for _, i := range deferred {
		v := int32(in.Defs[i].Index())
		sv := int32(in.Uses[i].Index())
		reg, err := a.selectReg(v, 0, pos)
		if err != nil {
			return err
		}
		a.emitRemat(a.d.remat[sv], reg, pos)
		a.take(v, reg)
		a.vs[v].clean = false
	}
	a.markCopyDefs(k, in, pos)
	return nil
}
