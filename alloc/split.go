package alloc

import "github.com/kiln-jit/kiln/mir"

// SplitEdge inserts a new block on the i-th successor edge of block b: b
// jumps to the new block, which jumps to the old successor. φ operands keep
// their positions (the new block takes b's place among the successor's
// predecessors). It returns the new block.
func SplitEdge(f *mir.Func, b *mir.Block, i int) *mir.Block {
	succ := f.Blocks[b.Succs[i]]
	// The edge is the k-th occurrence of b among succ's predecessors, where
	// k counts b's earlier edges to succ.
	k := 0
	for _, s := range b.Succs[:i] {
		if s == succ.ID {
			k++
		}
	}
	pos := -1
	for j, p := range succ.Preds {
		if p == b.ID {
			if k == 0 {
				pos = j
				break
			}
			k--
		}
	}
	n := f.NewBlock()
	n.Freq = b.Freq * b.SuccProb[i]
	n.Instrs = []*mir.Instr{f.NewInstr(mir.Instr{Op: mir.OpJMP, Pos: -1})}
	n.Preds = []int{b.ID}
	n.Succs = []int{succ.ID}
	n.SuccProb = []float64{1}
	b.Succs[i] = n.ID
	succ.Preds[pos] = n.ID
	return n
}

// SplitCriticalEdges splits every critical edge of f (from a block with
// several successors to a block with several predecessors) and returns the
// number split.
func SplitCriticalEdges(f *mir.Func) int {
	n := 0
	for _, e := range mir.CriticalEdges(f) {
		SplitEdge(f, f.Blocks[e.Block], e.Succ)
		n++
	}
	return n
}

// unsplitEmpty undoes SplitEdge for the blocks numbered from first on that
// hold nothing but their jump: the predecessor jumps straight to the
// successor again. The remaining blocks are renumbered in order. It
// returns the number of blocks removed.
func unsplitEmpty(f *mir.Func, first int) int {
	removed := 0
	keep := make([]bool, len(f.Blocks))
	for i := range keep {
		keep[i] = true
	}
	for i := first; i < len(f.Blocks); i++ {
		b := f.Blocks[i]
		if len(b.Instrs) != 1 || b.Instrs[0].Op != mir.OpJMP || len(b.Preds) != 1 || len(b.Succs) != 1 {
			continue
		}
		pred, succ := f.Blocks[b.Preds[0]], f.Blocks[b.Succs[0]]
		for k, s := range pred.Succs {
			if s == b.ID {
				pred.Succs[k] = succ.ID
			}
		}
		for k, p := range succ.Preds {
			if p == b.ID {
				succ.Preds[k] = pred.ID
			}
		}
		keep[i] = false
		removed++
	}
	if removed == 0 {
		return 0
	}
	renum := make([]int, len(f.Blocks))
	var blocks []*mir.Block
	for i, b := range f.Blocks {
		if keep[i] {
			renum[i] = len(blocks)
			blocks = append(blocks, b)
		}
	}
	for _, b := range blocks {
		b.ID = renum[b.ID]
		for k, s := range b.Succs {
			b.Succs[k] = renum[s]
		}
		for k, p := range b.Preds {
			b.Preds[k] = renum[p]
		}
	}
	f.Blocks = blocks
	return removed
}
