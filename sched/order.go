package sched

import (
	"fmt"

	"github.com/kiln-jit/kiln/mir"
)

// RegionOrder is the order in which the integrated pass processes the
// regions (basic blocks). The order decides which neighbours of a region
// are already allocated and can pass on their locations; it never affects
// correctness (thesis §5.4).
type RegionOrder uint8

// The region orders of the thesis's study (Table 5.2): depth-first,
// breadth-first and depth-first postorder, each "down" from the entry
// along successors or "up" from the exits along predecessors.
const (
	DFSDown RegionOrder = iota // the default, the thesis's choice
	DFSUp
	BFSDown
	BFSUp
	PostDFSDown
	PostDFSUp
	numOrders
)

// Orders lists every region order.
var Orders = []RegionOrder{DFSDown, DFSUp, BFSDown, BFSUp, PostDFSDown, PostDFSUp}

var orderNames = [numOrders]string{"dfs-down", "dfs-up", "bfs-down", "bfs-up", "postdfs-down", "postdfs-up"}

// String names the order.
func (o RegionOrder) String() string {
	if o < numOrders {
		return orderNames[o]
	}
	return fmt.Sprintf("order(%d)", int(o))
}

// ParseOrder parses an order's name.
func ParseOrder(s string) (RegionOrder, error) {
	for i, n := range orderNames {
		if n == s {
			return RegionOrder(i), nil
		}
	}
	return 0, fmt.Errorf("sched: unknown region order %q", s)
}

// regionOrder returns every block of f in order o. Blocks an up order
// cannot reach from an exit (an endless loop) follow in down order.
func regionOrder(f *mir.Func, o RegionOrder) []int {
	n := len(f.Blocks)
	seen := make([]bool, n)
	out := make([]int, 0, n)
	next := func(b int, up bool) []int {
		if up {
			return f.Blocks[b].Preds
		}
		return f.Blocks[b].Succs
	}
	dfs := func(root int, up, post bool) {
		if seen[root] {
			return
		}
		type frame struct{ b, i int }
		stack := []frame{{root, 0}}
		seen[root] = true
		if !post {
			out = append(out, root)
		}
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			nb := next(top.b, up)
			if top.i < len(nb) {
				s := nb[top.i]
				top.i++
				if !seen[s] {
					seen[s] = true
					if !post {
						out = append(out, s)
					}
					stack = append(stack, frame{s, 0})
				}
				continue
			}
			if post {
				out = append(out, top.b)
			}
			stack = stack[:len(stack)-1]
		}
	}
	bfs := func(root int, up bool) {
		if seen[root] {
			return
		}
		seen[root] = true
		queue := []int{root}
		for len(queue) > 0 {
			b := queue[0]
			queue = queue[1:]
			out = append(out, b)
			for _, s := range next(b, up) {
				if !seen[s] {
					seen[s] = true
					queue = append(queue, s)
				}
			}
		}
	}
	visit := func(root int, up bool) {
		switch o {
		case DFSDown, DFSUp:
			dfs(root, up, false)
		case PostDFSDown, PostDFSUp:
			dfs(root, up, true)
		default:
			bfs(root, up)
		}
	}
	switch o {
	case DFSUp, BFSUp, PostDFSUp:
		// Exits: returns first (the epilogue), then other blocks without
		// successors (traps).
		for _, b := range f.Blocks {
			if t := b.Terminator(); t != nil && t.Op == mir.OpRET {
				visit(b.ID, true)
			}
		}
		for _, b := range f.Blocks {
			if len(b.Succs) == 0 {
				visit(b.ID, true)
			}
		}
	}
	visit(0, false)
	for b := range f.Blocks {
		visit(b, false)
	}
	return out
}
