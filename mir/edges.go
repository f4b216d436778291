package mir

// PredPositions returns, for every successor edge of every block, the
// position of that edge among the successor's predecessor entries:
// PredPositions(f)[b][k] is the index i such that
// f.Blocks[s].Preds[i] == b stands for the edge to b's k-th successor s.
// Parallel edges pair up in order: the j-th edge from b to s is the j-th
// entry of b among s's predecessors. An edge that s does not list (s names
// b fewer times than b names s) gets -1.
//
// φ operands follow the predecessor order, so this is the table that finds
// the operand a φ reads on an edge. It costs time and memory linear in the
// number of edges, where searching the predecessor list for every edge
// would be quadratic on a block with many predecessors or successors. The
// rows share one backing array; the table describes the function as it is
// and is not updated when its edges change.
func PredPositions(f *Func) [][]int {
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
	backing := make([]int, nsuccs)
	out := make([][]int, nb)
	for p, b := range f.Blocks {
		group := entries[start[p]:start[p+1]]
		for j := len(group) - 1; j >= 0; j-- {
			next[group[j].succ], seen[group[j].succ] = int32(j), int32(p+1)
		}
		row := backing[:len(b.Succs):len(b.Succs)]
		backing = backing[len(b.Succs):]
		for k, s := range b.Succs {
			row[k] = -1
			if s < 0 || s >= nb || seen[s] != int32(p+1) {
				continue
			}
			if j := next[s]; int(j) < len(group) && group[j].succ == int32(s) {
				row[k] = int(group[j].pos)
				next[s]++
			}
		}
		out[p] = row
	}
	return out
}
