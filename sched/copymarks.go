package sched

import (
	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// Definition marks of copies.
//
// A copy's moves are spill code (their origin is -1: the allocation
// checker follows them as moves of locations), and a copy whose
// destination takes its source's register emits nothing at all, so
// nothing in the output says where a value defined by a copy (a φ web's
// copy, most often: a loop-carried value) starts to live in its register.
// Spill placement needs that point: it stores a spilled value right after
// its definitions (placeStores) and tracks what holds the value from
// there (valueHolders). Without it every value a copy defines would be
// left where the integrated pass stored it, in a loop on every iteration,
// say.
//
// So while placement is on, the integrated pass ends every copy with an
// identity copy of each destination that got a register, r = Copy r, a
// mark that the value the copy defines is in r from there (markCopyDefs),
// its origin (below -1, read as inserted code) naming the definition. A
// mark moves nothing; the passes between (parallel copy motion renames
// it with its region, edge code goes around it) keep it a true statement,
// spilledDefs reads the marks as the copies' definitions, and
// dropCopyMarks removes them before the result is returned.

// markOrigin is the origin a mark of definition def (the dataflow's
// number of the input's definition) carries while the pass runs: below
// -1, so that every reader of origins takes it for inserted code.
func markOrigin(def int32) int32 { return -2 - def }

// markedDef returns the definition a mark with origin o stands for.
func markedDef(o int32) (int32, bool) { return -2 - o, o <= -2 }

// markCopyDefs emits the marks of the destinations of copy k of the
// current region (in) that hold a register now.
func (a *allocator) markCopyDefs(k int, in *mir.Instr, pos int32) {
	if a.opts.NoPlacement {
		return
	}
	base := a.d.defStart[a.d.instrBase[a.b]+int32(k)]
	for i, r := range in.Defs {
		if l := a.vs[r.Index()].loc; l.isReg() {
			a.emit(a.out.NewInstr(mir.Instr{Op: mir.OpCopy, Defs: []mir.Reg{l.reg()}, Uses: []mir.Reg{l.reg()}, Pos: pos}), markOrigin(base+int32(i)))
		}
	}
}

// markedDefs fills at, indexed by the dataflow's definition numbers, with
// the output position of each mark in post ({-1, -1} for a definition
// without one) and returns it.
func markedDefs(post *mir.Func, org *alloc.Origins, at []placeAt) []placeAt {
	for i := range at {
		at[i] = placeAt{-1, -1}
	}
	for b, blk := range post.Blocks {
		for i := range blk.Instrs {
			if def, ok := markedDef(org.Instr[b][i]); ok {
				at[def] = placeAt{int32(b), int32(i)}
			}
		}
	}
	return at
}

// dropCopyMarks removes the marks from post, with their origins.
func dropCopyMarks(post *mir.Func, org *alloc.Origins) {
	for b, blk := range post.Blocks {
		n := 0
		for i, in := range blk.Instrs {
			if _, ok := markedDef(org.Instr[b][i]); ok {
				continue
			}
			blk.Instrs[n] = in
			org.Instr[b][n] = org.Instr[b][i]
			n++
		}
		if n < len(blk.Instrs) {
			clear(blk.Instrs[n:])
			blk.Instrs = blk.Instrs[:n]
			org.Instr[b] = org.Instr[b][:n]
		}
	}
}
