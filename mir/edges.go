package mir

// PredPositions returns, for every successor edge of every block, the
// position of that edge among the successor's predecessor entries:
// PredPositions(f).At(b, k) is the index i such that
// f.Blocks[s].Preds[i] == b stands for the edge to b's k-th successor s.
// Parallel edges pair up in order: the j-th edge from b to s is the j-th
// entry of b among s's predecessors. An edge that s does not list (s names
// b fewer times than b names s) gets -1.
//
// φ operands follow the predecessor order, so this is the table that finds
// the operand a φ reads on an edge. It costs time and memory linear in the
// number of edges, where searching the predecessor list for every edge
// would be quadratic on a block with many predecessors or successors. The
// table takes 4 bytes an edge and 4 a block; it describes the function as
// it is and is not updated when its edges change.
func PredPositions(f *Func) EdgePositions {
	nb := len(f.Blocks)
	// The predecessor entries grouped by predecessor, each group ordered
	// by successor block and then by position (a counting sort).
	type entry struct{ succ, pos int32 }
	start := make([]int32, nb+1)
	nsuccs := 0
	for _, b := range f.Blocks {
		nsuccs += len(b.Succs)
		for _, p := range b.Preds {
			if p >= 0 && p < nb {
				start[p+1]++
			}
		}
	}
	for p := range nb {
		start[p+1] += start[p]
	}
	entries := make([]entry, start[nb])
	fill := make([]int32, nb)
	copy(fill, start[:nb])
	for s, b := range f.Blocks {
		for i, p := range b.Preds {
			if p >= 0 && p < nb {
				entries[fill[p]] = entry{int32(s), int32(i)}
				fill[p]++
			}
		}
	}
	// For each block, next[s] is the first unpaired entry naming s in its
	// group (valid where seen[s] is the block's number + 1).
	next, seen := fill, make([]int32, nb)
	out := EdgePositions{start: make([]int32, nb+1), pos: make([]int32, nsuccs)}
	off := int32(0)
	for p, b := range f.Blocks {
		group := entries[start[p]:start[p+1]]
		for j := len(group) - 1; j >= 0; j-- {
			next[group[j].succ], seen[group[j].succ] = int32(j), int32(p+1)
		}
		out.start[p] = off
		row := out.pos[off : off+int32(len(b.Succs))]
		off += int32(len(b.Succs))
		for k, s := range b.Succs {
			row[k] = -1
			if s < 0 || s >= nb || seen[s] != int32(p+1) {
				continue
			}
			if j := next[s]; int(j) < len(group) && group[j].succ == int32(s) {
				row[k] = group[j].pos
				next[s]++
			}
		}
	}
	out.start[nb] = off
	return out
}

// EdgePositions is the table PredPositions returns.
type EdgePositions struct {
	start []int32 // block b's row is pos[start[b]:start[b+1]]
	pos   []int32
}

// At returns the position of the edge to block b's k-th successor among
// that successor's predecessor entries, or -1.
func (p EdgePositions) At(b, k int) int { return int(p.pos[int(p.start[b])+k]) }

// Row returns the positions of block b's successor edges, in successor
// order. The slice is the table's: it must not be changed.
func (p EdgePositions) Row(b int) []int32 {
	return p.pos[p.start[b]:p.start[b+1]:p.start[b+1]]
}

// Blocks returns the number of blocks the table covers.
func (p EdgePositions) Blocks() int { return len(p.start) - 1 }
