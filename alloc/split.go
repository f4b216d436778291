package alloc

import "github.com/kiln-jit/kiln/mir"

// SplitEdge inserts a new block on the i-th successor edge of block b: b
// jumps to the new block, which jumps to the old successor. φ operands keep
// their positions (the new block takes b's place among the successor's
// predecessors). It returns the new block.
//
// Finding the edge among the successor's predecessors costs a scan of that
// list and of b's earlier successors; callers splitting many edges of one function use SplitEdgeAt with the
// positions of mir.PredPositions.
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
	return SplitEdgeAt(f, b, i, pos)
}

// SplitEdgeAt is SplitEdge for an edge whose position pos among its
// successor's predecessors is known, in constant time. Positions from
// mir.PredPositions stay valid while edges are split: a split replaces
// its edge's entries in place.
func SplitEdgeAt(f *mir.Func, b *mir.Block, i, pos int) *mir.Block {
	succ := f.Blocks[b.Succs[i]]
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

// splitRecord says where SplitEdgeAt put a block: on successor edge succIdx
// of its predecessor, at position predPos among its successor's
// predecessors.
type splitRecord struct {
	block, succIdx, predPos int
}

// SplitCriticalEdges splits every critical edge of f (from a block with
// several successors to a block with several predecessors) and returns the
// number split.
func SplitCriticalEdges(f *mir.Func) int {
	edges := mir.CriticalEdges(f)
	if len(edges) == 0 {
		return 0
	}
	// Splitting replaces the entries of the edge it splits in place, so
	// the positions of the others stay valid.
	pos := mir.PredPositions(f)
	for _, e := range edges {
		SplitEdgeAt(f, f.Blocks[e.Block], e.Succ, pos.At(e.Block, e.Succ))
	}
	return len(edges)
}

// unsplitEmpty undoes SplitEdgeAt for the split blocks that hold nothing
// but their jump: the predecessor jumps straight to the successor again.
// The remaining blocks are renumbered in order. It returns the number of
// blocks removed.
func unsplitEmpty(f *mir.Func, splits []splitRecord) int {
	removed := 0
	keep := make([]bool, len(f.Blocks))
	for i := range keep {
		keep[i] = true
	}
	for _, sp := range splits {
		b := f.Blocks[sp.block]
		if len(b.Instrs) != 1 || b.Instrs[0].Op != mir.OpJMP || len(b.Preds) != 1 || len(b.Succs) != 1 {
			continue
		}
		pred, succ := f.Blocks[b.Preds[0]], f.Blocks[b.Succs[0]]
		pred.Succs[sp.succIdx] = succ.ID
		succ.Preds[sp.predPos] = pred.ID
		keep[sp.block] = false
		removed++
	}
	if removed > 0 {
		f.KeepBlocks(keep)
	}
	return removed
}
