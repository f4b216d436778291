package sched

import (
	"slices"

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
// placeStores chooses, value by value, the cheaper of two cuts between the
// value's definitions and its reloads: the stores the pass placed, or one
// store after each definition, by the frequencies of their blocks (the
// edge counts of the profile, or the static estimate), and rewrites the
// stores when the second executes fewer. A value is left alone when one of
// its definitions did not survive into the output as an instruction that
// defines a register (a stack argument, say). This is the cut at the
// sources only: moving stores to other points of the graph, and moving
// reloads towards their uses (the load problem), needs the register that
// holds the value at every point of the cut and is not done here.
func (a *allocator) placeStores(res *Result) {
	pre, post, org := a.f, res.Func, res.Origins
	nv := len(pre.VRegs)
	homeOf := make(map[mir.Reg]int32) // home slot -> value
	for v := range nv {
		if h := a.vs[v].home; h != mir.NoReg && h.IsSlot() {
			homeOf[h] = int32(v)
		}
	}
	if len(homeOf) == 0 {
		return
	}
	// Where each input instruction went: input instruction i of block b
	// (numbered d.instrBase[b]+i) to where[d.instrBase[b]+i]. The input's
	// definitions are read from the dataflow's tables, not from its
	// instructions, which Options.InPlace has rewritten.
	d := a.d
	type at struct{ b, i int32 }
	where := make([]at, d.instrBase[len(pre.Blocks)])
	for i := range where {
		where[i] = at{-1, -1}
	}
	for b, blk := range post.Blocks {
		ob := org.Block[b]
		if ob < 0 {
			continue
		}
		for i := range blk.Instrs {
			if oi := org.Instr[b][i]; oi >= 0 {
				where[d.instrBase[ob]+oi] = at{int32(b), int32(i)}
			}
		}
	}
	// The definitions of each spilled value, as output positions and the
	// register each writes.
	type def struct {
		at  at
		reg mir.Reg
	}
	defs := make(map[int32][]def)
	bad := make(map[int32]bool)
	for n := range where {
		for k, v := range d.defVReg[d.defStart[n]:d.defStart[n+1]] {
			if v < 0 || a.vs[v].home == mir.NoReg || bad[v] {
				continue
			}
			w := where[n]
			if w.b < 0 {
				bad[v] = true
				continue
			}
			out := post.Blocks[w.b].Instrs[w.i]
			if k >= len(out.Defs) || !out.Defs[k].IsPhys() {
				bad[v] = true
				continue
			}
			defs[v] = append(defs[v], def{w, out.Defs[k]})
		}
	}
	// The stores of each value, and anything else touching its slot.
	stores := make(map[int32][]at)
	for b, blk := range post.Blocks {
		for i, in := range blk.Instrs {
			for _, u := range in.Uses {
				if v, ok := homeOf[u]; ok && in.Op != mir.OpReload {
					bad[v] = true
				}
			}
			for _, d := range in.Defs {
				if v, ok := homeOf[d]; ok {
					if in.Op == mir.OpSpill && len(in.Defs) == 1 {
						stores[v] = append(stores[v], at{int32(b), int32(i)})
					} else {
						bad[v] = true
					}
				}
			}
		}
	}
	// Choose, value by value, in order (so that stores added after one
	// instruction come in the order of their values).
	vals := make([]int32, 0, len(stores))
	for v := range stores {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	drop := make(map[at]bool)
	after := make(map[at][]*mir.Instr)
	for _, v := range vals {
		st, ds := stores[v], defs[v]
		if bad[v] || len(ds) == 0 {
			continue
		}
		var atStores, atDefs float64
		for _, s := range st {
			atStores += post.Blocks[s.b].Freq
		}
		for _, d := range ds {
			atDefs += post.Blocks[d.at.b].Freq
		}
		if atDefs >= atStores {
			continue
		}
		h := a.vs[v].home
		for _, s := range st {
			drop[s] = true
		}
		for _, d := range ds {
			pos := post.Blocks[d.at.b].Instrs[d.at.i].Pos
			after[d.at] = append(after[d.at], post.NewInstr(mir.Instr{Op: mir.OpSpill, Defs: []mir.Reg{h}, Uses: []mir.Reg{d.reg}, Pos: pos}))
		}
		a.stats.PlacedValues++
		a.stats.PlacedStoresRemoved += len(st)
		a.stats.PlacedStoresAdded += len(ds)
		a.stats.WeightedPlacementGain += atStores - atDefs
	}
	if len(drop) == 0 {
		return
	}
	// Rewrite the blocks that changed.
	changed := make(map[int32]int) // block -> stores added to it
	for s := range drop {
		changed[s.b] += 0
	}
	for d, list := range after {
		changed[d.b] += len(list)
	}
	for b, added := range changed {
		blk := post.Blocks[b]
		instrs := make([]*mir.Instr, 0, len(blk.Instrs)+added)
		origin := make([]int32, 0, cap(instrs))
		for i, in := range blk.Instrs {
			p := at{b, int32(i)}
			if !drop[p] {
				instrs = append(instrs, in)
				origin = append(origin, org.Instr[b][i])
			}
			for _, s := range after[p] {
				instrs = append(instrs, s)
				origin = append(origin, -1)
			}
		}
		blk.Instrs, org.Instr[b] = instrs, origin
	}
}
