package sched

import (
	"slices"

	"github.com/kiln-jit/kiln/alloc"
	"github.com/kiln-jit/kiln/mir"
)

// unsplitEmpty removes the blocks that split an edge for its
// reconciliation code and hold nothing but their jump now that spill
// placement has moved that code away (a reload that went towards its
// uses, a store that went to its value's definition): the predecessor
// jumps straight to the successor again. Such blocks come after the
// input's, so the input's blocks keep their numbers; the others are
// renumbered in order. It returns the number of blocks removed.
func unsplitEmpty(post *mir.Func, org *alloc.Origins) int {
	keep := make([]bool, len(post.Blocks))
	removed := 0
	for b, blk := range post.Blocks {
		keep[b] = true
		if org.Block[b] >= 0 || len(blk.Instrs) != 1 || blk.Instrs[0].Op != mir.OpJMP ||
			len(blk.Preds) != 1 || len(blk.Succs) != 1 {
			continue
		}
		pred, succ := post.Blocks[blk.Preds[0]], post.Blocks[blk.Succs[0]]
		k := slices.Index(pred.Succs, b)
		j := slices.Index(succ.Preds, b)
		if k < 0 || j < 0 {
			continue
		}
		pred.Succs[k] = succ.ID
		succ.Preds[j] = pred.ID
		keep[b] = false
		removed++
	}
	if removed == 0 {
		return 0
	}
	// The origins follow the blocks.
	n := 0
	for b := range post.Blocks {
		if keep[b] {
			org.Block[n], org.Instr[n] = org.Block[b], org.Instr[b]
			n++
		}
	}
	org.Block, org.Instr = org.Block[:n], org.Instr[:n]
	post.KeepBlocks(keep)
	return removed
}
