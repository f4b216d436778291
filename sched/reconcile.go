package sched

import (
	"fmt"
	"time"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// secondPass builds the output function from the regions' code and adds
// the reconciliation code of every edge (thesis §5.3, "add
// reconciliation code"): where a value's location at the end of the
// predecessor differs from its location at the start of the successor, a
// move, a load (or a recomputation) or a store, all the edge's moves
// forming one parallel copy. The code goes at the end of a predecessor
// with one successor, else at the start of a successor with one
// predecessor, else on a new block splitting the edge. Before that, unless
// Options.NoCopyMotion, parallel copy motion (moveCopies) moves the
// register moves of edges into neighbouring blocks where that is cheaper,
// by renaming registers, so that fewer edges need splitting. The frame itself
// (stack slots, callee-saved registers) is laid out by the encoder from the
// slots and registers the code names.
func (a *allocator) secondPass() (*Result, error) {
	f, out := a.f, a.out
	nb := len(f.Blocks)
	out.Blocks = make([]*mir.Block, nb)
	org := &alloc.Origins{Block: make([]int, nb), Instr: make([][]int32, nb)}
	for i, b := range f.Blocks {
		// In place, the input's block becomes the output's: what the
		// code below reads of the input's graph (successors, the number
		// of predecessors, frequencies, terminators' ops) splitting
		// edges leaves as it was, for the edges still to be placed.
		nbk := b
		if !a.opts.InPlace {
			nbk = &mir.Block{ID: i, Freq: b.Freq}
			nbk.Succs = append([]int(nil), b.Succs...)
			nbk.SuccProb = append([]float64(nil), b.SuccProb...)
			nbk.Preds = append([]int(nil), b.Preds...)
		}
		if !a.opts.InPlace {
			nbk.Instrs = a.codes[i]
			a.codes[i] = nil
		}
		out.Blocks[i] = nbk
		org.Block[i] = i
		org.Instr[i] = a.origins[i]
	}
	a.dropDeadRematStarts(out)
	if !a.opts.NoCopyMotion {
		if err := a.moveCopies(out, org); err != nil {
			return nil, err
		}
	}
	a.sinkReloads()
	pos := mir.PredPositions(out) // valid while edges are split
	for p := 0; p < nb; p++ {
		pb := f.Blocks[p]
		at := a.nbAt // each successor's position in succs, plus one
		succs := a.succsOf(p)
		for i, n := range succs {
			at[n.block] = int32(i + 1)
		}
		var claimed mir.RegSet // see codeFitsSource
		for k, s := range pb.Succs {
			code, err := a.edgeCode(p, s, succs[at[s]-1])
			if err != nil {
				return nil, err
			}
			if len(code) == 0 {
				continue
			}
			ob := out.Blocks[p]
			switch {
			case len(pb.Succs) == 1 && pb.Terminator().Op == mir.OpJMP:
				// Before the predecessor's jump.
				t := len(ob.Instrs) - 1
				ob.Instrs = append(ob.Instrs[:t:t], append(code, ob.Instrs[t])...)
				org.Instr[p] = append(org.Instr[p][:t:t], append(minusOnes(len(code)), org.Instr[p][t])...)
			case len(f.Blocks[s].Preds) == 1:
				sb := out.Blocks[s]
				sb.Instrs = append(code, sb.Instrs...)
				org.Instr[s] = append(minusOnes(len(code)), org.Instr[s]...)
			case !a.opts.NoEdgeHoisting && a.codeFitsSource(p, code, succs[at[s]-1], &claimed):
				// Before the predecessor's branch, instead of on a new
				// block: see codeFitsSource.
				t := len(ob.Instrs) - 1
				ob.Instrs = append(ob.Instrs[:t:t], append(code, ob.Instrs[t])...)
				org.Instr[p] = append(org.Instr[p][:t:t], append(minusOnes(len(code)), org.Instr[p][t])...)
				a.stats.HoistedEdgeCode += len(code)
			default:
				nbk := alloc.SplitEdgeAt(out, ob, k, pos.At(p, k))
				nbk.Instrs = append(code, nbk.Instrs...)
				org.Block = append(org.Block, -1)
				org.Instr = append(org.Instr, minusOnes(len(nbk.Instrs)))
				a.stats.SplitEdges++
			}
		}
	}
	for s := range nb {
		if sunk := a.sunk[int32(s)]; sunk != nil {
			a.reloadAtTop(s, sunk, org)
		}
	}
	a.stats.Slots = len(out.Slots)
	return &Result{Func: out, Origins: org}, nil
}

// dropDeadRematStarts starts in memory every rematerialized value that
// starts a block in a register the block's code writes before anything
// reads it (the region took the register for another value before the
// value's first use there, which recomputes it): recomputing the value on
// the block's in-edges would be dead code, and, with a register copy on
// the same critical edge, would keep the edge split that copy motion
// could otherwise spare. Other values keep their registers: moving one to
// memory could need stores on the in-edges.
func (a *allocator) dropDeadRematStarts(out *mir.Func) {
	d := a.d
	// The load problem's block summaries, for out as it is now (reset
	// again before the load problem).
	if a.loads.touches == nil {
		a.loads.touches = new(blockTouches)
	}
	touches := a.loads.touches
	touches.reset(out)
	for s := 1; s < len(out.Blocks); s++ {
		starts := a.startLocOf(s)
		for i, v := range d.liveInOf(s) {
			if l := starts[i]; l.isReg() && d.remat[v].ok && a.pinOf(v) == mir.NoReg &&
				touches.of(s, l.reg()) == touchWrite {
				starts[i] = locMem
				a.stats.DeadRematStarts++
			}
		}
	}
}

func minusOnes(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// edgeCode returns the reconciliation code of the edge p -> s.
func (a *allocator) edgeCode(p, s int, n neighbour) ([]*mir.Instr, error) {
	d := a.d
	fr := n.freq / float64(n.edges)
	var moves []alloc.Move
	var remats []*mir.Instr
	out := d.liveOutOf(p)
	j := 0
	for i, v := range d.liveInOf(s) {
		to := a.startLocOf(s)[i]
		for j < len(out) && out[j] < v {
			j++
		}
		if j == len(out) || out[j] != v {
			return nil, fmt.Errorf("%w: v%d is live into b%d but not out of b%d", errInternal, v, s, p)
		}
		if sunk := a.sunk[int32(s)]; sunk != nil && sunk[i] {
			continue // reloaded at the top of s (sinkReloads)
		}
		from := a.endLocOf(p)[j]
		if from == to {
			continue
		}
		switch {
		case from.isReg() && to.isReg():
			moves = append(moves, alloc.Move{Dst: to.reg(), Src: from.reg()})
			a.stats.EdgeMoves++
			a.stats.WeightedEdgeMoves += fr
		case to.isReg():
			if rm := d.remat[v]; rm.ok {
				remats = append(remats, a.rematInstr(rm, to.reg(), -1))
				a.stats.EdgeRemats++
				a.stats.WeightedEdgeRemats += fr
				continue
			}
			moves = append(moves, alloc.Move{Dst: to.reg(), Src: a.needHome(v)})
			a.stats.EdgeLoads++
			a.stats.WeightedEdgeLoads += fr
		case from.isReg():
			if a.endCleanOf(p)[j] {
				continue
			}
			moves = append(moves, alloc.Move{Dst: a.needHome(v), Src: from.reg()})
			a.stats.EdgeStores++
			a.stats.WeightedEdgeStores += fr
		}
	}
	if len(moves) == 0 && len(remats) == 0 {
		return nil, nil
	}
	code, err := a.sequentialize(moves, -1)
	if err != nil {
		return nil, fmt.Errorf("edge b%d->b%d: %w", p, s, err)
	}
	return append(code, remats...), nil
}

// moveCopies runs alloc.MoveParallelCopies on the output's blocks before
// the edges' code is placed: it inserts register copies into blocks,
// renames registers in regions of blocks and updates the blocks' start and
// end locations, from which edgeCode then computes what is left on each
// edge (the stack-slot moves stay on their edges).
func (a *allocator) moveCopies(out *mir.Func, org *alloc.Origins) error {
	t0 := time.Now()
	nb := len(out.Blocks)
	if !a.hasEdgeRegisterMoves(nb) {
		// Nothing to move: skip the pass's tables, which are per block
		// and register.
		a.stats.CopyMotion += time.Since(t0)
		return nil
	}
	// The pass takes a slice per block (views of the shared tables; built
	// only when there is something to move).
	toRegs := func(locs []loc, start []int32) [][]mir.Reg {
		buf := make([]mir.Reg, start[nb])
		for i, x := range locs[:start[nb]] {
			switch {
			case x.isReg():
				buf[i] = x.reg()
			case x == locNone:
				buf[i] = mir.NoReg
			default:
				buf[i] = mir.SlotReg(0) // some memory location
			}
		}
		return perBlock(buf, start, nb)
	}
	d := a.d
	m := &alloc.CopyMotion{Func: out, Origins: org.Instr,
		LiveIn: perBlock(d.inRegs, d.inStart, nb), LiveOut: perBlock(d.outRegs, d.outStart, nb),
		Start: toRegs(a.startBuf, d.inStart), End: toRegs(a.endBuf, d.outStart),
		EndClean: perBlock(a.cleanBuf, d.outStart, nb)}
	st, err := alloc.MoveParallelCopies(m, alloc.MotionOptions{NoBlockMotion: a.opts.NoBlockMotion, Rand: a.opts.motionRand})
	if err != nil {
		return fmt.Errorf("%w: %v", errInternal, err)
	}
	if len(st.Unsolved) > 0 {
		return fmt.Errorf("%w: copy motion left copies on unsplittable edges %v", errInternal, st.Unsolved)
	}
	// Registers back into the tables; the pass renames registers only.
	back := func(locs []loc, start []int32, rs [][]mir.Reg) {
		for b := range nb {
			for i, r := range rs[b] {
				if l := &locs[start[b]+int32(i)]; l.isReg() {
					*l = loc(r)
				}
			}
		}
	}
	back(a.startBuf, d.inStart, m.Start)
	back(a.endBuf, d.outStart, m.End)
	s := &a.stats
	s.MotionSplitsAvoided += st.SplitsBefore - st.SplitsAfter
	s.MotionWeightedSplitsAvoided += st.WeightedSplitsBefore - st.WeightedSplitsAfter
	s.MotionMovesBefore += st.MovesBefore
	s.MotionMovesAfter += st.MovesAfter
	s.MotionWeightedMovesBefore += st.WeightedMovesBefore
	s.MotionWeightedMovesAfter += st.WeightedMovesAfter
	s.MotionCostBefore += st.CostBefore
	s.MotionCostAfter += st.CostAfter
	s.Motions += st.Up + st.Down
	s.MotionBlockCopies += st.BlockCopies
	s.CopyMotion += time.Since(t0)
	return nil
}

// hasEdgeRegisterMoves reports whether the reconciliation of some edge
// among the first nb blocks moves a value from one register to another:
// the only code copy motion moves.
func (a *allocator) hasEdgeRegisterMoves(nb int) bool {
	found := false
	for p := range nb {
		for _, s := range a.f.Blocks[p].Succs {
			a.edgeValues(p, s, func(i, j int) bool {
				from, to := a.endLocOf(p)[j], a.startLocOf(s)[i]
				found = from != to && from.isReg() && to.isReg()
				return !found
			})
			if found {
				return true
			}
		}
	}
	return false
}

// edgeValues calls fn for every value live into s and out of p, with its
// index i in s's live-in values and j in p's live-out values, until fn
// returns false.
func (a *allocator) edgeValues(p, s int, fn func(i, j int) bool) {
	out := a.d.liveOutOf(p)
	j := 0
	for i, v := range a.d.liveInOf(s) {
		for j < len(out) && out[j] < v {
			j++
		}
		if j < len(out) && out[j] == v && !fn(i, j) {
			return
		}
	}
}

// splitEdgeCost is what a block splitting an edge costs per execution of
// the edge, in moves: its jump (or the taken branch into it).
const splitEdgeCost = 2

// codeFitsSource reports whether code, the reconciliation code of a
// critical edge out of block p, is better placed at the end of p (before
// its branch) than on a new block splitting the edge. Two kinds of
// instruction can go there, for every edge out of p:
//
//   - a spill store: every spilled value has a home slot that only its
//     own stores write, so storing a value that is in a register at the
//     end of p is right whether the value is live on another edge or not;
//   - a reload or a register move into a register that holds no value live
//     out of p and that p's branch does not read: no other edge out of p
//     expects anything of that register, and the edges' copies read only
//     the locations of live values.
//
// Stores, reloads and moves keep the flags a conditional branch reads.
// It pays when p's frequency times the instructions is at most the edge's
// frequency times the instructions and the split block's jump.
//
// claimed holds the registers the code of p's other edges already put at
// its end writes; codeFitsSource adds those code writes when it fits.
func (a *allocator) codeFitsSource(p int, code []*mir.Instr, n neighbour, claimed *mir.RegSet) bool {
	loaded := false
	for _, in := range code {
		switch in.Op {
		case mir.OpSpill:
			if in.Uses[0].IsScratch() {
				return false
			}
		case mir.OpReload, mir.OpCopy:
			if in.Defs[0].IsScratch() || !in.Defs[0].IsPhys() || len(in.Uses) > 0 && in.Uses[0].IsScratch() {
				return false
			}
			loaded = true
		default:
			return false
		}
	}
	fe := n.freq / float64(n.edges)
	k := float64(len(code))
	if a.f.Blocks[p].Freq*k > fe*(k+splitEdgeCost) {
		return false
	}
	if !loaded {
		return true
	}
	busy := *claimed
	for _, l := range a.endLocOf(p) {
		if l.isReg() {
			busy = busy.Add(l.reg())
		}
	}
	for _, r := range a.out.Blocks[p].Terminator().Uses {
		if r.IsPhys() {
			busy = busy.Add(r)
		}
	}
	var writes mir.RegSet
	for _, in := range code {
		if in.Op != mir.OpSpill {
			if busy.Has(in.Defs[0]) {
				return false
			}
			writes = writes.Add(in.Defs[0])
		}
	}
	*claimed |= writes
	return true
}

// sinkReloads decides, for every block s with several predecessors, which
// of its live-in values are reloaded once at its top instead of being
// moved or reloaded on each edge into it (the thesis's critical-edge spill
// that "merges with the spills on all other edges", §3.5.2). A value can
// be when it starts s in a register, is not recomputed instead of
// reloaded, and its home slot holds it at the end of every predecessor
// (it is in memory there, or in a register with a clean slot): the reload
// at the top is then right whatever each edge delivered, and no edge
// writes its register for another value. The values of s go there
// together when that costs less by frequency than leaving them: the
// reloads at the top against the edges' moves and reloads they replace,
// and against the blocks that critical edges left with no code do not
// need. a.sunk[s] marks them by their index in s's live-in values (no
// entry: none).
func (a *allocator) sinkReloads() {
	f, d := a.f, a.d
	nb := len(f.Blocks)
	a.sunk = map[int32][]bool{}
	for s := range nb {
		in := d.liveInOf(s)
		if a.opts.NoReloadSinking || len(f.Blocks[s].Preds) < 2 || len(in) == 0 {
			continue
		}
		// Which values may sink, and what their edges cost.
		sinkable := make([]bool, len(in))
		actFreq := make([]float64, len(in))
		for i, v := range in {
			sinkable[i] = a.startLocOf(s)[i].isReg() && !d.remat[v].ok
		}
		any := false
		a.eachInEdgeValue(s, func(p, i, j int, n neighbour) {
			from, to := a.endLocOf(p)[j], a.startLocOf(s)[i]
			if !to.isReg() {
				return
			}
			if from != to {
				actFreq[i] += n.freq
			}
			if from != locMem && !a.endCleanOf(p)[j] {
				sinkable[i] = false
			}
		})
		for i := range in {
			sinkable[i] = sinkable[i] && actFreq[i] > 0
			any = any || sinkable[i]
		}
		if !any {
			continue
		}
		// The gain: the edge actions replaced, less the reloads at the
		// top, plus the critical edges left with no code.
		gain := 0.0
		for i := range in {
			if sinkable[i] {
				gain += actFreq[i] - f.Blocks[s].Freq
			}
		}
		for _, n := range a.predsOf(s) {
			p := int(n.block)
			if len(f.Blocks[p].Succs) == 1 && f.Blocks[p].Terminator().Op == mir.OpJMP {
				continue // not critical: its code needs no block
			}
			before, after := a.edgeActions(p, s, sinkable)
			if before > 0 && after == 0 {
				gain += splitEdgeCost * n.freq
			}
		}
		if gain > 0 {
			a.sunk[int32(s)] = sinkable
		}
	}
}

// eachInEdgeValue calls fn for every distinct predecessor p of s and every
// value live into s: i is its index in s's live-in values, j in p's
// live-out values.
func (a *allocator) eachInEdgeValue(s int, fn func(p, i, j int, n neighbour)) {
	for _, n := range a.predsOf(s) {
		a.edgeValues(int(n.block), s, func(i, j int) bool {
			fn(int(n.block), i, j, n)
			return true
		})
	}
}

// edgeActions counts the values the reconciliation of edge p -> s moves,
// reloads, recomputes or stores: all of them (before), and those not
// marked in sunk (after).
func (a *allocator) edgeActions(p, s int, sunk []bool) (before, after int) {
	a.edgeValues(p, s, func(i, j int) bool {
		from, to := a.endLocOf(p)[j], a.startLocOf(s)[i]
		if from != to && (to.isReg() || from.isReg() && !a.endCleanOf(p)[j]) {
			before++
			if !sunk[i] {
				after++
			}
		}
		return true
	})
	return before, after
}

// reloadAtTop puts at the top of block s the reloads of the live-in values
// sinkReloads marked.
func (a *allocator) reloadAtTop(s int, sunk []bool, org *alloc.Origins) {
	var code []*mir.Instr
	for i, v := range a.d.liveInOf(s) {
		if !sunk[i] {
			continue
		}
		code = append(code, a.out.NewInstr(mir.Instr{Op: mir.OpReload, Defs: []mir.Reg{a.startLocOf(s)[i].reg()}, Uses: []mir.Reg{a.vs[v].home}, Pos: -1}))
		a.stats.SunkReloads++
	}
	sb := a.out.Blocks[s]
	sb.Instrs = append(code, sb.Instrs...)
	org.Instr[s] = append(minusOnes(len(code)), org.Instr[s]...)
}

// perBlock returns the first nb blocks' slices of buf, block b's being
// buf[start[b]:start[b+1]].
func perBlock[T any](buf []T, start []int32, nb int) [][]T {
	v := make([][]T, nb)
	for b := range v {
		v[b] = span(buf, start, b)
	}
	return v
}
