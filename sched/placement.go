package sched

import (
	"math"
	"slices"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// Store placement after allocation (part of the thesis's §3.5 store
// problem). The integrated pass stores a value to its home slot where it
// evicts it, region by region, so a value evicted inside a loop is stored
// on every iteration even when its slot already holds it. Every value has
// a home slot of its own, written only by stores of that value, so storing
// it right after each of its definitions keeps the slot current wherever
// the value is live, and every other store of it can go.
//
// placeStores solves, value by value, the store problem as a minimum cut
// (cutStores) between the value's definitions and the stores the pass
// placed, weighted by the frequencies of their blocks (the edge counts of
// the profile, or the static estimate): a store may go when every
// definition whose value reaches it (storeReach) stores right after
// itself, so the cut keeps some stores and adds a store after some
// definitions, the cheapest mix; a value defined outside a loop and in it
// can keep its stores in the loop for the definition outside and store
// after the one inside, or the reverse. It rewrites the stores when the
// cut executes fewer. A value is left alone when one of its definitions
// did not survive into the output as an instruction that defines a
// register (a stack argument, say), or a store of it is reached by no
// definition. The cut's points are the definitions and the stores the pass
// made: moving stores to other points of the graph needs the register that
// holds the value at every point of the cut and is not done. The load
// problem (placeReloads) runs next. homeOf is the function's homeSlots.
func (a *allocator) placeStores(res *Result, homeOf homeSlots) {
	post, org := res.Func, res.Origins
	// The definitions of each spilled value, as output positions and the
	// register each writes. A value some definition of which left no
	// instruction (a copy coalesced away) has nothing to store after it.
	sp := a.spilledDefs(post, org)
	bad := sp.bad
	for v := range bad {
		if len(sp.goneOf(int32(v))) > 0 {
			bad[v] = true
		}
	}
	// The stores of each value, and anything else touching its slot.
	recs := a.storeRecs[:0]
	for b, blk := range post.Blocks {
		for i, in := range blk.Instrs {
			for _, u := range in.Uses {
				if v, ok := homeOf.of(u); ok && in.Op != mir.OpReload {
					bad[v] = true
				}
			}
			for _, d := range in.Defs {
				if v, ok := homeOf.of(d); ok {
					if in.Op == mir.OpSpill && len(in.Defs) == 1 {
						recs = append(recs, valueRec[placeAt]{v, placeAt{int32(b), int32(i)}})
					} else {
						bad[v] = true
					}
				}
			}
		}
	}
	a.storeRecs = recs
	a.storeStart, a.storeList = groupByValue(a.storeStart, a.storeList, recs, len(a.vs))
	// Choose, value by value, in order (so that stores added after one
	// instruction come in the order of their values).
	drop := make(map[placeAt]bool)
	after := make(map[placeAt][]*mir.Instr)
	reach := newStoreReach(post)
	for v := range int32(len(a.vs)) {
		st, ds := a.storeList[a.storeStart[v]:a.storeStart[v+1]], sp.defsOf(v)
		if len(st) == 0 || bad[v] || len(ds) == 0 {
			continue
		}
		if !storesCostMore(post, ds, st) {
			continue // keeping the stores is a minimum cut (see cutStores)
		}
		defAt := make([]placeAt, len(ds))
		for i, d := range ds {
			defAt[i] = d.at
		}
		// Which stores each definition's value reaches.
		pairs, ok := reach.pairs(defAt, st)
		if !ok {
			continue // a store no definition reaches, or too much work
		}
		keep, cutDefs, gain := a.cutStores(ds, st, pairs, post)
		if gain <= 0 {
			continue
		}
		h := a.vs[v].home
		for j, s := range st {
			if !keep[j] {
				drop[s] = true
				a.stats.PlacedStoresRemoved++
			}
		}
		for _, i := range cutDefs {
			d := ds[i]
			pos := post.Blocks[d.at.b].Instrs[d.at.i].Pos
			after[d.at] = append(after[d.at], post.NewInstr(mir.Instr{Op: mir.OpSpill, Defs: []mir.Reg{h}, Uses: []mir.Reg{d.reg}, Pos: pos}))
			a.stats.PlacedStoresAdded++
		}
		a.stats.PlacedValues++
		a.stats.WeightedPlacementGain += gain
	}
	if len(drop) == 0 {
		return
	}
	rewriteBlocks(post, org, drop, nil, after)
}

// rewriteBlocks rewrites the blocks of post that change, with their
// origins: the instructions at the positions in drop go, and those in
// before and after come in before and after the instruction at their
// position.
func rewriteBlocks(post *mir.Func, org *alloc.Origins, drop map[placeAt]bool, before, after map[placeAt][]*mir.Instr) {
	changed := make(map[int32]int) // block -> instructions added to it
	for p := range drop {
		changed[p.b] += 0
	}
	for _, m := range []map[placeAt][]*mir.Instr{before, after} {
		for p, list := range m {
			changed[p.b] += len(list)
		}
	}
	for b, added := range changed {
		blk := post.Blocks[b]
		instrs := make([]*mir.Instr, 0, len(blk.Instrs)+added)
		origin := make([]int32, 0, cap(instrs))
		for i, in := range blk.Instrs {
			p := placeAt{b, int32(i)}
			for _, x := range before[p] {
				instrs = append(instrs, x)
				origin = append(origin, -1)
			}
			if !drop[p] {
				instrs = append(instrs, in)
				origin = append(origin, org.Instr[b][i])
			}
			for _, x := range after[p] {
				instrs = append(instrs, x)
				origin = append(origin, -1)
			}
		}
		blk.Instrs, org.Instr[b] = instrs, origin
	}
}

// placeAt is a position in the output: instruction i of block b.
type placeAt struct{ b, i int32 }

// placeDef is a definition of a spilled value in the output and the
// register it writes.
type placeDef struct {
	at  placeAt
	reg mir.Reg
}

// cutStores solves the store problem of one value as a minimum cut: a
// Source feeds each definition i (cutting Source→i, at the frequency of
// its block, stores the value right after it), each definition feeds, by
// an uncuttable edge, the stores its value reaches (pairs), and each
// store j feeds the Sink (cutting j→Sink, at its block's frequency, keeps
// the store). Every path Source→i→j→Sink must be cut once: a store may go
// only when every definition that reaches it stores after itself. The cut
// is the thesis's contraction solver's (§3.5.2), finishing exactly what no
// rule reduces. It returns the stores to keep, the definitions to store
// after, and the frequency it saves against keeping every store.
func (a *allocator) cutStores(ds []placeDef, st []placeAt, pairs [][]int32, post *mir.Func) (keep []bool, cutDefs []int, gain float64) {
	atStores := 0.0
	for _, s := range st {
		atStores += post.Blocks[s.b].Freq
	}
	a.stats.PlacementCuts++
	keepAll := func() []bool {
		keep := make([]bool, len(st))
		for j := range keep {
			keep[j] = true
		}
		return keep
	}
	if len(ds) == 1 {
		// Its value reaches every store: the cut is the definition's
		// edge or all the stores', whichever is lighter (the stores'
		// among equals, which is closer to the Sink).
		if storesCostMore(post, ds, st) {
			return make([]bool, len(st)), []int{0}, atStores - post.Blocks[ds[0].at.b].Freq
		}
		return keepAll(), nil, 0
	}
	const source, sink = 0, 1
	p := a.cutProblem()
	p.reset(2+len(ds)+len(st), source, sink)
	defEdge := make([]int, len(ds))
	for i, d := range ds {
		defEdge[i] = p.AddEdge(source, 2+i, post.Blocks[d.at.b].Freq)
	}
	storeEdge := make([]int, len(st))
	for j, s := range st {
		storeEdge[j] = p.AddEdge(2+len(ds)+j, sink, post.Blocks[s.b].Freq)
	}
	for i, js := range pairs {
		for _, j := range js {
			p.AddEdge(2+i, 2+len(ds)+int(j), math.Inf(1))
		}
	}
	if p.greedyFlow() >= atStores*(1-1e-9) {
		return keepAll(), nil, 0 // every store kept is a minimum cut
	}
	cut := p.SolveContraction(ContractionOptions{ExactResidual: true})
	if cut.ExactResidual {
		a.stats.PlacementExactResiduals++
	}
	in := make(map[int]bool, len(cut.Edges))
	for _, e := range cut.Edges {
		in[e] = true
	}
	keep = make([]bool, len(st))
	for j, e := range storeEdge {
		keep[j] = in[e]
	}
	for i, e := range defEdge {
		if in[e] {
			cutDefs = append(cutDefs, i)
		}
	}
	return keep, cutDefs, atStores - cut.Cost
}

// storesCostMore reports whether the stores st of a value with the
// definitions ds execute more often than a store after its least frequent
// definition would. When they do not, keeping them is a minimum cut: a cut
// that stores after any definition costs at least that much.
func storesCostMore(post *mir.Func, ds []placeDef, st []placeAt) bool {
	atStores := 0.0
	for _, s := range st {
		atStores += post.Blocks[s.b].Freq
	}
	least := math.Inf(1)
	for _, d := range ds {
		least = min(least, post.Blocks[d.at.b].Freq)
	}
	return least < atStores*(1-1e-9)
}

// storeReach finds which of a value's stores the value of each of its
// definitions reaches: along the output's control flow from the
// definition, up to the next definition of the value on each path.
type storeReach struct {
	f     *mir.Func
	stamp []int32
	mark  int32
	stack []int32
}

func newStoreReach(f *mir.Func) *storeReach {
	return &storeReach{f: f, stamp: make([]int32, len(f.Blocks))}
}

// push appends block b's successors to stack.
func (r *storeReach) push(stack []int32, b int32) []int32 {
	for _, s := range r.f.Blocks[b].Succs {
		stack = append(stack, int32(s))
	}
	return stack
}

// maxReachVisits bounds the blocks the searches for one value visit; a
// value beyond it keeps its stores.
const maxReachVisits = 1 << 16

// pairs returns, for each definition, the indices of the stores its value
// reaches. ok is false when some store is reached by no definition (the
// value is then left alone) or the search would cost too much.
func (r *storeReach) pairs(defs, stores []placeAt) (pairs [][]int32, ok bool) {
	if len(defs) == 1 {
		// Every store holds the value of the only definition.
		all := make([]int32, len(stores))
		for j := range all {
			all[j] = int32(j)
		}
		return [][]int32{all}, true
	}
	defsIn := map[int32][]int32{}   // block -> positions of definitions
	storesIn := map[int32][]int32{} // block -> store indices
	for _, d := range defs {
		defsIn[d.b] = append(defsIn[d.b], d.i)
	}
	for j, s := range stores {
		storesIn[s.b] = append(storesIn[s.b], int32(j))
	}
	for _, l := range defsIn {
		slices.Sort(l)
	}
	// firstDefAfter returns the position of the first definition in block
	// b after position i (-1: from the block's start), or MaxInt32.
	firstDefAfter := func(b, i int32) int32 {
		for _, p := range defsIn[b] {
			if p > i {
				return p
			}
		}
		return math.MaxInt32
	}
	reached := make([]bool, len(stores))
	pairs = make([][]int32, len(defs))
	visits := 0
	for k, d := range defs {
		add := func(b, from, to int32) {
			for _, j := range storesIn[b] {
				if s := stores[j]; s.i > from && s.i < to {
					pairs[k] = append(pairs[k], j)
					reached[j] = true
				}
			}
		}
		next := firstDefAfter(d.b, d.i)
		add(d.b, d.i, next)
		if next != math.MaxInt32 {
			continue // redefined in its block
		}
		// Its block's successors and on, up to a block that redefines it
		// (whose stores before the definition it reaches).
		r.mark++
		r.stack = r.push(r.stack[:0], d.b)
		for len(r.stack) > 0 {
			b := r.stack[len(r.stack)-1]
			r.stack = r.stack[:len(r.stack)-1]
			if r.stamp[b] == r.mark {
				continue
			}
			r.stamp[b] = r.mark
			if visits++; visits > maxReachVisits {
				return nil, false
			}
			next := firstDefAfter(b, -1)
			add(b, -1, next)
			if next == math.MaxInt32 {
				r.stack = r.push(r.stack, b)
			}
		}
	}
	for _, ok := range reached {
		if !ok {
			return nil, false
		}
	}
	return pairs, true
}
