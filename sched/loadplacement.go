package sched

import (
	"math"
	"slices"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// Reload placement after allocation: the thesis's load problem (§3.5),
// solved after the store problem (the package documentation says why).
// The integrated pass reloads a value right before a use, or at the end of
// an edge whose successor wants it in a register (reconciliation). A
// reload of the second kind may sit on a hot path (a loop's back edge)
// while the value is used only on a colder one (after the loop), or never
// before its register is overwritten. placeReloads moves such reloads
// forward, towards the uses they serve, to the cheapest places by
// frequency.
//
// It works on the output, register by register. A reload of home slot h
// into register r whose block neither reads nor writes r after it leaves
// r holding the value to the block's end; from there the value travels
// along the control flow until an instruction reads r (a use: the Sink
// side), or writes or clobbers r (a dead end). A reload of h into r at a
// point of that region where, on every path through it, r and h both hold
// the value's current value (valueHolders) changes nothing on the paths
// that do not come from the reloads it replaces, and restores r on those
// that do. Paths from other blocks may join the region holding another
// value in r (a copy coalesced on one path only gives r two names), so
// the analysis is of the output's moves, not of names. The load problem
// graph (loadGraph) has a Source edge per reload (cutting it keeps the
// reload), the region's edges and blocks (cutting one reloads there: at
// the predecessor's end, the successor's top or a new block on a critical
// edge, at a cost of splitEdgeCost more), and a Sink edge per block that
// reads r (cutting it reloads at the block's top); places where r or h
// may not hold the value cannot be cut. The minimum cut, the contraction
// solver's finished exactly, replaces the reloads when it executes fewer.
// A reload no use is reached from is deleted: that is the cut of cost
// zero.
//
// The rematerializations the integrated pass inserted (a constant or a
// context field recomputed into r, on a loop's back edge for the loop's
// header, say) are load problems too, grouped by what they compute and r:
// the value can be recomputed anywhere, so only r need hold it at a cut
// (valueHolders from every instruction computing the same thing), and a
// call ends what holds a context field (it may change in the call, and
// the allocation checker knows a field only between calls). homeOf is
// the function's homeSlots.
func (a *allocator) placeReloads(res *Result, homeOf homeSlots) {
	post, org := res.Func, res.Origins
	// The candidate reloads: those that leave their register to the end
	// of their block, grouped by slot and register; reloads whose register
	// is overwritten before it is read are deleted at once.
	// A group is a slot h's reloads into r, or (h is NoReg) the
	// rematerializations of one constant or context field (recipe) into r
	// that the integrated pass inserted.
	type group struct {
		h, r   mir.Reg
		recipe rematRecipe
	}
	groups := make(map[group][]placeAt) // -> the reloads, by block
	drop := make(map[placeAt]bool)
	var computed []placeAt // every instruction computing a recipe into a register
	for b, blk := range post.Blocks {
		for i, in := range blk.Instrs {
			var g group
			switch {
			case in.Op == mir.OpReload && in.Uses[0].IsSlot() && in.Defs[0].IsPhys():
				if _, ok := homeOf.of(in.Uses[0]); !ok {
					continue
				}
				g = group{h: in.Uses[0], r: in.Defs[0]}
			case alloc.IsRematOp(in.Op) && len(in.Defs) == 1 && in.Defs[0].IsPhys():
				computed = append(computed, placeAt{int32(b), int32(i)})
				if org.Instr[b][i] >= 0 {
					continue // a definition (deleteOrphans's)
				}
				g = group{h: mir.NoReg, r: in.Defs[0], recipe: recipeOf(in)}
			default:
				continue
			}
			switch firstTouch(blk.Instrs[i+1:], g.r) {
			case touchNone:
				groups[g] = append(groups[g], placeAt{int32(b), int32(i)})
			case touchWrite:
				drop[placeAt{int32(b), int32(i)}] = true
				a.stats.DeadReloadsRemoved++
			}
		}
	}
	keys := make([]group, 0, len(groups))
	var recomputes map[rematRecipe][]placeDef // the computations of each recipe moved
	for g := range groups {
		keys = append(keys, g)
		if g.h == mir.NoReg && recomputes == nil {
			recomputes = make(map[rematRecipe][]placeDef)
		}
	}
	if recomputes != nil {
		for _, at := range computed {
			in := post.Blocks[at.b].Instrs[at.i]
			rc := recipeOf(in)
			recomputes[rc] = append(recomputes[rc], placeDef{at, in.Defs[0]})
		}
	}
	slices.SortFunc(keys, func(x, y group) int {
		switch {
		case x.h != y.h:
			return int(x.h) - int(y.h)
		case x.recipe != y.recipe:
			return x.recipe.compare(y.recipe)
		}
		return int(x.r) - int(y.r)
	})
	var sp *spilledSet
	ins := newReloadInserts()
	var holders *valueHolders
	lastV := int32(-1) // the value holders was computed for (-2: lastRecipe)
	var lastRecipe rematRecipe
	holdersOK := false
	g := &a.loads
	g.reset(post, a.cutProblem())
	for _, k := range keys {
		// Reloads on edges into blocks that read the register at once
		// (most of them) are where they belong: every cut costs as much.
		if g.feedsUsesOnly(groups[k], k.r) {
			continue
		}
		// The cut with every place of the region allowed bounds the
		// gain; most other problems have none and need no analysis.
		if !g.build(groups[k], k.r, nil) {
			continue
		}
		if !g.reachesUse {
			// Nothing reads what they load: they go, with no analysis.
			for _, at := range groups[k] {
				drop[at] = true
				a.stats.DeadReloadsRemoved++
			}
			continue
		}
		if _, ok := g.solve(a); !ok {
			continue
		}
		if holders == nil {
			holders = &a.holders
			holders.reset(post)
		}
		if k.h == mir.NoReg {
			// One analysis serves every register of a recipe (the keys
			// are in order).
			if lastV != -2 || k.recipe != lastRecipe {
				lastV, lastRecipe = -2, k.recipe
				holdersOK = holders.computeRecomputed(recomputes[k.recipe])
			}
			if holdersOK {
				a.placeReloadGroup(post, groups[k], k.r, holders, g, ins, drop, k.recipe.instr())
			}
			continue
		}
		if sp == nil {
			sp = a.spilledDefs(post, org)
		}
		v, _ := homeOf.of(k.h)
		if sp.bad[v] || len(sp.defsOf(v))+len(sp.goneOf(v)) == 0 {
			continue
		}
		if v != lastV {
			lastV = v
			holdersOK = holders.compute(sp.defsOf(v), sp.goneOf(v), k.h)
		}
		if holdersOK {
			a.placeReloadGroup(post, groups[k], k.r, holders, g, ins, drop, nil)
		}
	}
	ins.apply(post, org, drop, &a.stats)
}

// placeReloadGroup solves the load problem of the reloads srcs of the slot
// of holders into register r (each the last write of r in its block), and
// records the reloads to drop and to add when the cut executes fewer. For
// rematerializations (recompute not nil) the instructions added are
// copies of recompute writing r.
func (a *allocator) placeReloadGroup(post *mir.Func, srcs []placeAt, r mir.Reg, holders *valueHolders, g *loadGraph, ins *reloadInserts, drop map[placeAt]bool, recompute *mir.Instr) {
	if !g.build(srcs, r, holders) {
		return
	}
	cut, ok := g.solve(a)
	if !ok {
		return
	}
	h := holders.h
	a.stats.PlacedReloadValues++
	a.stats.WeightedReloadPlacementGain += g.sourceCost - cut.Cost
	kept := make(map[int]bool, len(cut.Edges))
	for _, e := range cut.Edges {
		kept[e] = true
		at := g.at[e]
		if at.kind == loadKeep {
			continue
		}
		load := mir.Instr{Op: mir.OpReload, Defs: []mir.Reg{r}, Uses: []mir.Reg{h}, Pos: -1}
		if recompute != nil {
			load = mir.Instr{Op: recompute.Op, Defs: []mir.Reg{r}, Imm: recompute.Imm, Aux: recompute.Aux, Pos: -1}
		}
		in := post.NewInstr(load)
		if at.kind == loadEdge {
			ins.onEdge(at.b, at.k, in)
		} else {
			ins.before(placeAt{at.b, 0}, in)
		}
		a.stats.PlacedReloadsAdded++
	}
	for e, at := range g.at {
		if at.kind == loadKeep && !kept[e] {
			drop[placeAt{at.b, at.k}] = true
			a.stats.PlacedReloadsRemoved++
		}
	}
}

// homeSlots maps each home slot to its value; nil when no value has one
// (nothing was spilled to a slot), and then no store or reload of a slot
// to place. The placement passes share it: they add no slots.
func (a *allocator) homeSlots() homeSlots {
	h := make(homeSlots, len(a.out.Slots))
	for i := range h {
		h[i] = -1
	}
	n := 0
	for v := range a.f.VRegs {
		if r := a.vs[v].home; r != mir.NoReg && r.IsSlot() && r.Index() < len(h) {
			h[r.Index()] = int32(v)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return h
}

// homeSlots is the value of each stack slot that is a value's home (-1:
// none), by slot number.
type homeSlots []int32

// of returns the value whose home r is, if r is one.
func (h homeSlots) of(r mir.Reg) (int32, bool) {
	if !r.IsSlot() || r.Index() >= len(h) || h[r.Index()] < 0 {
		return -1, false
	}
	return h[r.Index()], true
}

// spilledDefs returns the definitions of each value with a home slot, as
// positions in the output and the registers they write (for a copy's
// destination, its mark: see markCopyDefs); for the definitions that left
// no instruction in the output (a copy's destination that went straight
// to its slot), the position of the next instruction of their block that
// did, which no store of the new value can precede; and the values some
// definition of which is an output instruction that defines no register
// (a stack argument, say). The result lives in the allocator's storage
// until the next call.
func (a *allocator) spilledDefs(post *mir.Func, org *alloc.Origins) *spilledSet {
	// Where each input instruction went: input instruction i of block b
	// (numbered d.instrBase[b]+i) to where[d.instrBase[b]+i]. The input's
	// definitions are read from the dataflow's tables, not from its
	// instructions, which Options.InPlace has rewritten.
	d := a.d
	nb := len(a.f.Blocks)
	sp := &a.spilled
	where := fit(sp.where, int(d.instrBase[nb]))
	sp.where = where
	for i := range where {
		where[i] = placeAt{-1, -1}
	}
	for b, blk := range post.Blocks {
		ob := org.Block[b]
		if ob < 0 {
			continue
		}
		for i := range blk.Instrs {
			if oi := org.Instr[b][i]; oi >= 0 {
				where[d.instrBase[ob]+oi] = placeAt{int32(b), int32(i)}
			}
		}
	}
	marks := markedDefs(post, org, fit(sp.marks, int(d.defStart[len(d.defStart)-1])))
	sp.marks = marks
	nv := len(a.vs)
	sp.bad = zeroed(sp.bad, nv)
	defRecs, goneRecs := sp.defRecs[:0], sp.goneRecs[:0]
	ob := 0 // the input block of instruction n
	for n := range where {
		for int32(n) >= d.instrBase[ob+1] {
			ob++
		}
		for k, v := range d.defVReg[d.defStart[n]:d.defStart[n+1]] {
			if v < 0 || a.vs[v].home == mir.NoReg || sp.bad[v] {
				continue
			}
			if m := marks[d.defStart[n]+int32(k)]; m.b >= 0 {
				// A copy's destination, in its register from the mark on.
				defRecs = append(defRecs, valueRec[placeDef]{v, placeDef{m, post.Blocks[m.b].Instrs[m.i].Defs[0]}})
				continue
			}
			w := where[n]
			if w.b < 0 {
				// The output block of input block ob is ob's; its
				// terminator is never gone.
				next := placeAt{int32(ob), int32(len(post.Blocks[ob].Instrs))}
				for m := n + 1; m < int(d.instrBase[ob+1]); m++ {
					if where[m].b >= 0 {
						next = where[m]
						break
					}
				}
				goneRecs = append(goneRecs, valueRec[placeDef]{v, placeDef{at: next}})
				continue
			}
			out := post.Blocks[w.b].Instrs[w.i]
			if k >= len(out.Defs) || !out.Defs[k].IsPhys() {
				sp.bad[v] = true
				continue
			}
			defRecs = append(defRecs, valueRec[placeDef]{v, placeDef{w, out.Defs[k]}})
		}
	}
	sp.defRecs, sp.goneRecs = defRecs, goneRecs
	sp.defStart, sp.defs = groupByValue(sp.defStart, sp.defs, defRecs, nv)
	sp.goneStart, sp.gone = groupByValue(sp.goneStart, sp.gone, goneRecs, nv)
	return sp
}

// spilledSet is what spilledDefs finds, by value: value v's definitions
// are defs[defStart[v]:defStart[v+1]], in input order, its definitions
// gone gone[goneStart[v]:goneStart[v+1]] (positions only), and bad[v] is
// set when some definition defines no register.
type spilledSet struct {
	defStart, goneStart []int32
	defs, gone          []placeDef
	bad                 []bool
	// spilledDefs's storage.
	where, marks      []placeAt
	defRecs, goneRecs []valueRec[placeDef]
}

// valueRec is an item x of value v, as the placement passes collect them
// before grouping them by value (groupByValue).
type valueRec[T any] struct {
	v int32
	x T
}

// defsOf returns value v's definitions.
func (sp *spilledSet) defsOf(v int32) []placeDef { return sp.defs[sp.defStart[v]:sp.defStart[v+1]] }

// goneOf returns the positions that stand for value v's definitions gone.
func (sp *spilledSet) goneOf(v int32) []placeDef { return sp.gone[sp.goneStart[v]:sp.goneStart[v+1]] }

// groupByValue sorts the items of recs by value, stably, into list
// (reusing its storage) with start[v] the index of value v's first, for
// values below nv.
func groupByValue[T any](start []int32, list []T, recs []valueRec[T], nv int) ([]int32, []T) {
	start = zeroed(start, nv+1)
	for _, r := range recs {
		start[r.v+1]++
	}
	for v := range nv {
		start[v+1] += start[v]
	}
	list = fit(list, len(recs))
	fill := start[:nv] // advanced past each value's entries, then restored
	for _, r := range recs {
		list[fill[r.v]] = r.x
		fill[r.v]++
	}
	for v := nv; v > 0; v-- {
		start[v] = start[v-1]
	}
	start[0] = 0
	return start, list
}

// touch is what an instruction sequence first does to a register.
type touch int

const (
	touchNone  touch = iota // neither reads nor writes it
	touchRead               // reads it (perhaps writing it too)
	touchWrite              // writes or clobbers it without reading it
)

// blockTouches records, for the blocks of a function, which registers
// each first reads and which it first writes (or clobbers): firstTouch of
// the whole block, for every register at once. A block is summarized when
// first asked about; the function must not change meanwhile.
type blockTouches struct {
	f           *mir.Func
	read, write []mir.RegSet
	done        []bool
}

func newBlockTouches(f *mir.Func) *blockTouches {
	t := new(blockTouches)
	t.reset(f)
	return t
}

// reset makes t f's, with no block summarized, reusing t's storage.
func (t *blockTouches) reset(f *mir.Func) {
	nb := len(f.Blocks)
	t.f = f
	t.read, t.write, t.done = fit(t.read, nb), fit(t.write, nb), zeroed(t.done, nb)
}

// summarize records block b's first reads and writes.
func (t *blockTouches) summarize(b int) {
	var read, write mir.RegSet
	for _, in := range t.f.Blocks[b].Instrs {
		seen := read | write
		for _, u := range in.Uses {
			if u.IsPhys() && !seen.Has(u) {
				read = read.Add(u)
			}
		}
		write |= writtenRegs(in) &^ (read | write)
	}
	t.read[b], t.write[b], t.done[b] = read, write, true
}

// of returns what block b first does to register r.
func (t *blockTouches) of(b int, r mir.Reg) touch {
	if !t.done[b] {
		t.summarize(b)
	}
	switch {
	case t.read[b].Has(r):
		return touchRead
	case t.write[b].Has(r):
		return touchWrite
	}
	return touchNone
}

// firstTouch returns what instrs first do to register r.
func firstTouch(instrs []*mir.Instr, r mir.Reg) touch {
	for _, in := range instrs {
		if slices.Contains(in.Uses, r) {
			return touchRead
		}
		if writtenRegs(in).Has(r) {
			return touchWrite
		}
	}
	return touchNone
}

// writtenRegs returns the registers in writes or clobbers: its register
// definitions, its op's clobbers and, for a call, the caller-saved
// registers.
func writtenRegs(in *mir.Instr) mir.RegSet {
	w := in.Clobbers()
	for _, d := range in.Defs {
		if d.IsPhys() {
			w = w.Add(d)
		}
	}
	if in.Op.Info().Call {
		w |= mir.CallerSaved
	}
	return w
}

// valueHolders finds, for one value, the registers that hold its current
// value and whether its home slot does, at the top and at the end of
// every block of the output: a forward must-analysis (the intersection at
// joins; nothing at the entry) over the output's instructions. A
// definition of the value leaves it in the register it writes alone (or
// nowhere, for a definition that left no instruction); a copy, reload or
// store gives its destination what its source holds, an exchange swaps;
// anything else that writes a register (or clobbers it, or a call the
// caller-saved ones) takes the value from it. Sets are bit masks: bit r
// for register r, slotBit for the home slot.
//
// Each analysis pays for the blocks it can reach, not for the function:
// nothing holds the value in a block that no path from one of its
// definitions reaches (every path from the entry brings the empty set),
// so the analysis runs on the blocks reachable from the definitions (and
// from any block the entry does not reach, where the optimistic start
// survives) and answers "nothing" elsewhere; and in a block without a
// definition it visits only the instructions that move a value (copies,
// reloads, stores, exchanges, calls, writes of a slot), applying what the
// others write between them as one mask (holderBlocks, computed once per
// function).
type valueHolders struct {
	f        *mir.Func
	top, end []uint64
	defAt    map[placeAt]mir.Reg // output definitions of the value -> register
	goneAt   map[placeAt]bool    // definitions that left no instruction, before
	// defBlock[b] == mark: block b has a position in defAt or goneAt.
	defBlock []int32
	// inRegion[b] == mark: block b is in the analysis's region, and top[b]
	// and end[b] hold its sets.
	inRegion []int32
	mark     int32
	region   []int32 // the region's blocks, in order
	stack    []int32
	// unreached lists the blocks the entry does not reach (computed once
	// per function).
	unreached []int32
	blocks    holderBlocks
	h         mir.Reg
	// recomputed says the value is a rematerialization's (a constant or a
	// context field) rather than a slot's: it can be recomputed anywhere,
	// so "the home holds it" always holds, but a context field may change
	// in a call, so every call ends what holds it.
	recomputed bool
	// work is what is left of the function's budget of instruction
	// visits.
	work int
}

// holderBlocks summarizes each block of the output for valueHolders: the
// instructions that move values (holderMoves), each with the registers the
// other instructions write since the previous one, and what they write
// after the last.
type holderBlocks struct {
	start []int32 // block b's moves are moves[start[b]:start[b+1]]
	moves []holderMove
	tail  []mir.RegSet
}

// holderMove is an instruction valueHolders must visit, and the registers
// written before it in its block since the previous such instruction.
type holderMove struct {
	idx    int32
	killed mir.RegSet
}

// isHolderMove reports whether valueHolders must visit in rather than
// only take away the registers it writes: a copy, reload, store or
// exchange, a call, or an instruction that writes a slot.
func isHolderMove(in *mir.Instr) bool {
	switch {
	case (in.Op == mir.OpCopy || in.Op == mir.OpReload || in.Op == mir.OpSpill) && len(in.Defs) == 1 && len(in.Uses) == 1:
		return true
	case in.Op == mir.OpXchg && len(in.Defs) == 2, in.Op.Info().Call:
		return true
	}
	return slices.ContainsFunc(in.Defs, mir.Reg.IsSlot)
}

// reset summarizes the blocks of f.
func (hb *holderBlocks) reset(f *mir.Func) {
	hb.start, hb.moves, hb.tail = fit(hb.start, len(f.Blocks)+1), hb.moves[:0], fit(hb.tail, len(f.Blocks))
	for b, blk := range f.Blocks {
		hb.start[b] = int32(len(hb.moves))
		var killed mir.RegSet
		for i, in := range blk.Instrs {
			if isHolderMove(in) {
				hb.moves = append(hb.moves, holderMove{int32(i), killed})
				killed = 0
				continue
			}
			killed |= writtenRegs(in)
		}
		hb.tail[b] = killed
	}
	hb.start[len(f.Blocks)] = int32(len(hb.moves))
}

// checkHolders, when set (by tests), is given every solved valueHolders
// analysis, to compare with the whole-function analysis.
var checkHolders func(vh *valueHolders)

// slotBit is the home slot's bit in a valueHolders set.
const slotBit = 63

// maxHolderWork bounds the instruction visits of all of a function's
// valueHolders analyses; the values beyond it keep their reloads.
const maxHolderWork = 1 << 24

func newValueHolders(f *mir.Func) *valueHolders {
	vh := new(valueHolders)
	vh.reset(f)
	return vh
}

// reset makes vh an analysis of f, reusing vh's storage.
func (vh *valueHolders) reset(f *mir.Func) {
	nb := len(f.Blocks)
	vh.f, vh.mark, vh.h, vh.work = f, 0, mir.NoReg, maxHolderWork
	vh.top, vh.end = fit(vh.top, nb), fit(vh.end, nb)
	vh.defBlock, vh.inRegion = zeroed(vh.defBlock, nb), zeroed(vh.inRegion, nb)
	if vh.defAt == nil {
		vh.defAt, vh.goneAt = map[placeAt]mir.Reg{}, map[placeAt]bool{}
	}
	clear(vh.defAt)
	clear(vh.goneAt)
	vh.blocks.reset(f)
	// The blocks the entry does not reach: those the region search does
	// not find from the entry.
	vh.mark++
	vh.unreached = vh.unreached[:0]
	if nb == 0 {
		return
	}
	vh.region = vh.reach(vh.region[:0], 0)
	for b := range nb {
		if vh.inRegion[b] != vh.mark {
			vh.unreached = append(vh.unreached, int32(b))
		}
	}
}

// reach adds to region the blocks reachable from b not yet marked with
// vh.mark in inRegion, marking them.
func (vh *valueHolders) reach(region []int32, b int32) []int32 {
	if vh.inRegion[b] == vh.mark {
		return region
	}
	vh.inRegion[b] = vh.mark
	region = append(region, b)
	stack := append(vh.stack[:0], b)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range vh.f.Blocks[x].Succs {
			if vh.inRegion[s] != vh.mark {
				vh.inRegion[s] = vh.mark
				region = append(region, int32(s))
				stack = append(stack, int32(s))
			}
		}
	}
	vh.stack = stack
	return region
}

// topOf returns the set at the top of block b.
func (vh *valueHolders) topOf(b int32) uint64 {
	if vh.inRegion[b] != vh.mark {
		return 0
	}
	return vh.top[b]
}

// endOf returns the set at the end of block b.
func (vh *valueHolders) endOf(b int32) uint64 {
	if vh.inRegion[b] != vh.mark {
		return 0
	}
	return vh.end[b]
}

// holds reports whether r (a register or the home slot) is in set s.
func (vh *valueHolders) holds(s uint64, r mir.Reg) bool {
	switch {
	case r == vh.h:
		return vh.recomputed || s&(1<<slotBit) != 0
	case r.IsPhys():
		return s&(1<<uint(r)) != 0
	}
	return false
}

// set puts r (a register or the home slot) in s or takes it out.
func (vh *valueHolders) set(s uint64, r mir.Reg, in bool) uint64 {
	var bit uint64
	switch {
	case r == vh.h:
		bit = 1 << slotBit
	case r.IsPhys():
		bit = 1 << uint(r)
	default:
		return s
	}
	if in {
		return s | bit
	}
	return s &^ bit
}

// compute solves the analysis for the value with home slot h, definitions
// defs and definitions gone (see spilledDefs). It returns false when the
// function's budget ran out.
func (vh *valueHolders) compute(defs []placeDef, gone []placeDef, h mir.Reg) bool {
	vh.h, vh.recomputed = h, false
	return vh.solve(defs, gone)
}

// computeRecomputed solves the analysis for a rematerialized value:
// defs are the output's instructions that compute it (the definitions
// and the rematerializations alike), and what holds it is a register
// alone (see recomputed).
func (vh *valueHolders) computeRecomputed(defs []placeDef) bool {
	vh.h, vh.recomputed = mir.NoReg, true
	return vh.solve(defs, nil)
}

// solve runs the analysis from defs and gone for vh's value, on the
// blocks reachable from them and from the blocks the entry does not
// reach, in block order until nothing changes.
func (vh *valueHolders) solve(defs []placeDef, gone []placeDef) bool {
	clear(vh.defAt)
	clear(vh.goneAt)
	vh.mark++
	region := vh.region[:0]
	for _, d := range defs {
		vh.defAt[d.at] = d.reg
		vh.defBlock[d.at.b] = vh.mark
		region = vh.reach(region, d.at.b)
	}
	for _, g := range gone {
		vh.goneAt[g.at] = true
		vh.defBlock[g.at.b] = vh.mark
		region = vh.reach(region, g.at.b)
	}
	for _, b := range vh.unreached {
		region = vh.reach(region, b)
	}
	slices.Sort(region)
	vh.region = region
	for _, b := range region {
		vh.top[b], vh.end[b] = ^uint64(0), ^uint64(0)
	}
	for changed := true; changed; {
		changed = false
		for _, b := range region {
			t := ^uint64(0)
			if b == 0 {
				t = 0
			}
			for _, p := range vh.f.Blocks[b].Preds {
				t &= vh.endOf(int32(p))
			}
			var e uint64
			switch {
			case vh.defBlock[b] == vh.mark:
				if vh.work -= len(vh.f.Blocks[b].Instrs); vh.work < 0 {
					return false
				}
				e = vh.transfer(b, t)
			case t != 0:
				if vh.work -= int(vh.blocks.start[b+1]-vh.blocks.start[b]) + 1; vh.work < 0 {
					return false
				}
				e = vh.transferMoves(b, t)
			}
			if t != vh.top[b] || e != vh.end[b] {
				vh.top[b], vh.end[b] = t, e
				changed = true
			}
		}
	}
	if checkHolders != nil {
		checkHolders(vh)
	}
	return true
}

// transfer returns the set at the end of block b from the set s at its
// top, visiting every instruction (the block has a definition).
func (vh *valueHolders) transfer(b int32, s uint64) uint64 {
	end := int32(len(vh.f.Blocks[b].Instrs))
	for i, in := range vh.f.Blocks[b].Instrs {
		at := placeAt{b, int32(i)}
		if vh.goneAt[at] {
			s = 0
		}
		s = vh.step(in, s)
		if r, ok := vh.defAt[at]; ok {
			s = vh.set(0, r, true)
		}
	}
	if vh.goneAt[placeAt{b, end}] {
		s = 0
	}
	return s
}

// transferMoves is transfer for a block without a definition: it visits
// the block's moves only (holderBlocks).
func (vh *valueHolders) transferMoves(b int32, s uint64) uint64 {
	instrs := vh.f.Blocks[b].Instrs
	for _, m := range vh.blocks.moves[vh.blocks.start[b]:vh.blocks.start[b+1]] {
		s = vh.step(instrs[m.idx], s&^uint64(m.killed))
	}
	return s &^ uint64(vh.blocks.tail[b])
}

// step returns the set after instruction in from the set s before it.
func (vh *valueHolders) step(in *mir.Instr, s uint64) uint64 {
	switch {
	case (in.Op == mir.OpCopy || in.Op == mir.OpReload || in.Op == mir.OpSpill) && len(in.Defs) == 1 && len(in.Uses) == 1:
		return vh.set(s, in.Defs[0], vh.holds(s, in.Uses[0]))
	case in.Op == mir.OpXchg && len(in.Defs) == 2:
		x, y := vh.holds(s, in.Defs[0]), vh.holds(s, in.Defs[1])
		return vh.set(vh.set(s, in.Defs[0], y), in.Defs[1], x)
	case vh.recomputed && in.Op.Info().Call:
		return 0
	}
	s &^= uint64(writtenRegs(in))
	if slices.Contains(in.Defs, vh.h) {
		s = vh.set(s, vh.h, false)
	}
	return s
}

// reloadable reports whether a reload of the home slot into register r
// may go at the top (or at the end) of block b: both hold the value there
// on every path.
func (vh *valueHolders) reloadable(s uint64, r mir.Reg) bool {
	return vh.holds(s, r) && vh.holds(s, vh.h)
}

// loadKind says what cutting an edge of the load problem graph does.
type loadKind uint8

const (
	loadKeep loadKind = iota // keep the reload at instruction k of block b
	loadEdge                 // reload on successor edge k of block b
	loadTop                  // reload at the top of block b (k = 0)
)

// loadAt is the program location of an edge of the load problem graph:
// block b, and for loadKeep the reload's index k in it, for loadEdge its
// successor index k.
type loadAt struct {
	kind loadKind
	b, k int32
}

// loadGraph is the load problem of one slot and register: node 0 is the
// Source, 1 the Sink, and each block of the region has a node for its top
// and, when the value passes through it, one for its end.
type loadGraph struct {
	f               *mir.Func
	touches         *blockTouches
	p               *MinCutProblem
	at              []loadAt // per edge of p
	inNode, outNode []int32  // per block: node (0: none yet)
	stamp           []int32
	mark            int32
	queue           []int32
	edges           []loadArc // build's, kept for the next build
	sourceCost      float64
	// reachesUse says the last build found a block that reads the
	// register.
	reachesUse bool
}

// loadArc is an edge of a load problem as build collects it, with the
// place a cut through it puts the reload.
type loadArc struct {
	from, to int32
	c        float64
	at       loadAt
}

// newLoadGraph returns the load graph of f; its problems are built in p
// (reset by each build).
func newLoadGraph(f *mir.Func, p *MinCutProblem) *loadGraph {
	g := new(loadGraph)
	g.reset(f, p)
	return g
}

// reset makes g the load graph of f, with its problems built in p,
// reusing g's storage.
func (g *loadGraph) reset(f *mir.Func, p *MinCutProblem) {
	nb := len(f.Blocks)
	if g.touches == nil {
		g.touches = new(blockTouches)
	}
	g.f, g.p, g.mark, g.sourceCost = f, p, 0, 0
	g.touches.reset(f)
	g.inNode, g.outNode, g.stamp = fit(g.inNode, nb), fit(g.outNode, nb), zeroed(g.stamp, nb)
	g.at, g.queue, g.edges = g.at[:0], g.queue[:0], g.edges[:0]
}

// feedsUsesOnly reports whether every successor of the block of every
// reload of srcs reads register r before writing it. The graph is then
// the sources, their out-edges and those successors' Sink edges, and a
// successor runs at least as often as the sources' edges into it, so
// keeping the reloads is a minimum cut (with consistent frequencies).
func (g *loadGraph) feedsUsesOnly(srcs []placeAt, r mir.Reg) bool {
	for _, src := range srcs {
		for _, s := range g.f.Blocks[src.b].Succs {
			if g.touches.of(s, r) != touchRead {
				return false
			}
		}
	}
	return true
}

// maxLoadGraphEdges bounds the size of one load problem; a larger region
// keeps its reloads.
const maxLoadGraphEdges = 1 << 12

// build makes the load problem of the reloads srcs into register r (each
// leaving r untouched to the end of its block), where vh allows
// (everywhere if vh is nil). It returns false when the region is too
// large or no reload could move anywhere.
func (g *loadGraph) build(srcs []placeAt, r mir.Reg, vh *valueHolders) bool {
	g.mark++
	g.at = g.at[:0]
	g.queue = g.queue[:0]
	g.sourceCost = 0
	hasSink, anyMove := false, false
	nodes := 2
	node := func(tab []int32, b int32) int32 {
		if g.stamp[b] != g.mark {
			g.stamp[b] = g.mark
			g.inNode[b], g.outNode[b] = 0, 0
		}
		if tab[b] == 0 {
			tab[b] = int32(nodes)
			nodes++
		}
		return tab[b]
	}
	edges := g.edges[:0]
	defer func() { g.edges = edges[:0] }()
	add := func(from, to int32, c float64, at loadAt) {
		edges = append(edges, loadArc{from, to, c, at})
	}
	inf := math.Inf(1)
	for _, src := range srcs {
		o := node(g.outNode, src.b)
		c := g.f.Blocks[src.b].Freq
		g.sourceCost += c
		add(0, o, c, loadAt{loadKeep, src.b, src.i})
		g.queue = append(g.queue, src.b)
	}
	for head := 0; head < len(g.queue); head++ {
		if len(edges) > maxLoadGraphEdges {
			return false
		}
		p := g.queue[head]
		pb := g.f.Blocks[p]
		from := g.outNode[p]
		for k, s := range pb.Succs {
			s := int32(s)
			fresh := g.stamp[s] != g.mark || g.inNode[s] == 0
			to := node(g.inNode, s)
			c := pb.Freq * pb.SuccProb[k]
			if len(pb.Succs) > 1 && len(g.f.Blocks[s].Preds) > 1 {
				c *= 1 + splitEdgeCost
			}
			if vh != nil && !vh.reloadable(vh.endOf(p), r) {
				c = inf
			}
			add(from, to, c, loadAt{loadEdge, p, int32(k)})
			anyMove = anyMove || !math.IsInf(c, 1)
			if !fresh {
				continue
			}
			sb := g.f.Blocks[s]
			c = sb.Freq
			if vh != nil && !vh.reloadable(vh.topOf(s), r) {
				c = inf
			}
			switch g.touches.of(int(s), r) {
			case touchRead:
				add(to, 1, c, loadAt{loadTop, s, 0})
				hasSink = true
			case touchNone:
				// (Not a block of srcs: their reloads write r.)
				add(to, node(g.outNode, s), c, loadAt{loadTop, s, 0})
				g.queue = append(g.queue, s)
			}
		}
	}
	g.reachesUse = hasSink
	if hasSink && !anyMove {
		return false
	}
	g.p.reset(nodes, 0, 1)
	for _, e := range edges {
		g.p.AddEdge(int(e.from), int(e.to), e.c)
		g.at = append(g.at, e.at)
	}
	return true
}

// solve finds the cheapest placement: the minimum cut, with ok false when
// it saves nothing against the reloads where they are.
func (g *loadGraph) solve(a *allocator) (MinCut, bool) {
	a.stats.PlacementCuts++
	// Most load problems have a flow as large as the reloads' cost (the
	// edge a reload sits on leads straight to a use as frequent).
	if g.p.greedyFlow() >= g.sourceCost*(1-1e-9) {
		return MinCut{}, false
	}
	cut := g.p.SolveContraction(ContractionOptions{ExactResidual: true})
	if cut.ExactResidual {
		a.stats.PlacementExactResiduals++
	}
	if math.IsInf(cut.Cost, 1) || cut.Cost >= g.sourceCost*(1-1e-9) {
		return MinCut{}, false
	}
	return cut.MinCut, true
}

// reloadInserts collects the reloads placeReloads adds: before given
// instructions, and on edges (at the end of a predecessor with one
// successor, the top of a successor with one predecessor, or a new block
// splitting the edge).
type reloadInserts struct {
	at    map[placeAt][]*mir.Instr
	split map[[2]int32][]*mir.Instr // (block, successor index) -> code
}

func newReloadInserts() *reloadInserts {
	return &reloadInserts{at: map[placeAt][]*mir.Instr{}, split: map[[2]int32][]*mir.Instr{}}
}

func (r *reloadInserts) before(p placeAt, in *mir.Instr) { r.at[p] = append(r.at[p], in) }

func (r *reloadInserts) onEdge(b, k int32, in *mir.Instr) {
	r.split[[2]int32{b, k}] = append(r.split[[2]int32{b, k}], in)
}

// apply rewrites post: the instructions at drop go, the reloads collected
// come in, and edges that need it are split.
func (r *reloadInserts) apply(post *mir.Func, org *alloc.Origins, drop map[placeAt]bool, stats *Stats) {
	// Edges whose code fits in one of their blocks.
	edges := make([][2]int32, 0, len(r.split))
	for e := range r.split {
		edges = append(edges, e)
	}
	slices.SortFunc(edges, func(x, y [2]int32) int {
		if x[0] != y[0] {
			return int(x[0] - y[0])
		}
		return int(x[1] - y[1])
	})
	var split [][2]int32
	for _, e := range edges {
		pb := post.Blocks[e[0]]
		s := pb.Succs[e[1]]
		switch {
		case len(pb.Succs) == 1 && pb.Terminator().Op == mir.OpJMP:
			p := placeAt{e[0], int32(len(pb.Instrs) - 1)}
			r.at[p] = append(r.at[p], r.split[e]...)
		case len(post.Blocks[s].Preds) == 1:
			p := placeAt{int32(s), 0}
			r.at[p] = append(r.at[p], r.split[e]...)
		default:
			split = append(split, e)
		}
	}
	rewriteBlocks(post, org, drop, r.at, nil)
	if len(split) == 0 {
		return
	}
	pos := mir.PredPositions(post) // valid while edges are split
	for _, e := range split {
		nb := alloc.SplitEdgeAt(post, post.Blocks[e[0]], int(e[1]), pos.At(int(e[0]), int(e[1])))
		nb.Instrs = append(r.split[e], nb.Instrs...)
		org.Block = append(org.Block, -1)
		org.Instr = append(org.Instr, minusOnes(len(nb.Instrs)))
		stats.SplitEdges++
	}
}

// rematRecipe is what a rematerialization computes: a constant (its op
// and bits) or a context field (Aux).
type rematRecipe struct {
	op  mir.Op
	imm int64
	aux int32
}

// recipeOf returns the recipe of rematerialization op in.
func recipeOf(in *mir.Instr) rematRecipe { return rematRecipe{in.Op, in.Imm, in.Aux} }

// compare orders recipes (for a deterministic order of the problems).
func (x rematRecipe) compare(y rematRecipe) int {
	switch {
	case x.op != y.op:
		return int(x.op) - int(y.op)
	case x.imm != y.imm:
		if x.imm < y.imm {
			return -1
		}
		return 1
	}
	return int(x.aux) - int(y.aux)
}

// instr returns an instruction of the recipe (without its destination).
func (x rematRecipe) instr() *mir.Instr { return &mir.Instr{Op: x.op, Imm: x.imm, Aux: x.aux} }
