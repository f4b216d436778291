package sched

import "github.com/kiln-jit/kiln/mir"

// loopHeaders fills header with the header of the innermost loop containing
// each block (-1 outside loops), by Tarjan's algorithm for reducible loop
// nests: a depth-first search numbers the blocks; in reverse preorder each
// block that is the target of a back edge (from a block it is an ancestor
// of) collects its loop by walking predecessors backwards from the back
// edges' sources, an inner loop already found standing for itself through
// a union-find. Edges entering a loop elsewhere than its header
// (irreducible control flow) are ignored: the headers serve register
// hints, a heuristic. The cost is near-linear in blocks and edges. The
// tests check it against the loop nesting forest of internal/cfg, which
// also represents irreducible loops and costs more to build.
func (d *dataflow) loopHeaders(f *mir.Func) {
	n := len(f.Blocks)
	sc := &d.sc
	d.header = fit(d.header, n)
	sc.pre = fit(sc.pre, n)
	sc.last = fit(sc.last, n)
	sc.byPre = fit(sc.byPre, n)
	sc.uf = fit(sc.uf, n)
	pre, last, byPre, uf := sc.pre, sc.last, sc.byPre, sc.uf
	for b := range n {
		pre[b], d.header[b], uf[b] = -1, -1, int32(b)
	}
	// Depth-first preorder numbers and the last number in each subtree.
	stack := sc.dfsStack[:0]
	num := int32(0)
	pre[0], byPre[0] = 0, 0
	num++
	stack = append(stack, dfsFrame{0, 0})
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		succs := f.Blocks[top.b].Succs
		if int(top.i) < len(succs) {
			s := succs[top.i]
			top.i++
			if pre[s] < 0 {
				pre[s], byPre[num] = num, int32(s)
				num++
				stack = append(stack, dfsFrame{int32(s), 0})
			}
			continue
		}
		last[top.b] = num - 1
		stack = stack[:len(stack)-1]
	}
	sc.dfsStack = stack
	find := func(x int32) int32 {
		for uf[x] != x {
			uf[x] = uf[uf[x]]
			x = uf[x]
		}
		return x
	}
	work := sc.loopWork[:0]
	for k := num - 1; k >= 0; k-- {
		w := byPre[k]
		work = work[:0]
		for _, p := range f.Blocks[w].Preds {
			if pre[p] >= pre[w] && pre[p] <= last[w] { // w is an ancestor of p: a back edge
				if r := find(int32(p)); r != w {
					work = append(work, r)
				}
			}
		}
		for len(work) > 0 {
			x := work[len(work)-1]
			work = work[:len(work)-1]
			if uf[x] != x || x == w {
				continue
			}
			if d.header[x] < 0 {
				d.header[x] = w
			}
			uf[x] = w
			for _, p := range f.Blocks[x].Preds {
				if pre[p] < 0 {
					continue
				}
				if r := find(int32(p)); r != w && pre[r] > pre[w] && pre[r] <= last[w] {
					work = append(work, r)
				}
			}
		}
		if d.header[w] < 0 && isHeader(f, w, pre, last) {
			d.header[w] = w
		}
	}
	sc.loopWork = work
}

// isHeader reports whether block w is the target of a back edge.
func isHeader(f *mir.Func, w int32, pre, last []int32) bool {
	for _, p := range f.Blocks[w].Preds {
		if pre[p] >= pre[w] && pre[p] <= last[w] {
			return true
		}
	}
	return false
}

// dfsFrame is a block of the depth-first search and its next successor.
type dfsFrame struct{ b, i int32 }
