package cfg

// DomTree is the dominator tree of a graph's reachable nodes, with a
// preorder numbering of the tree that answers "does a dominate b" in O(1):
// a dominates b exactly when Pre[a] <= Pre[b] <= Last[a].
type DomTree struct {
	// Idom is the immediate dominator of each node; -1 for the entry and for
	// unreachable nodes.
	Idom []int
	// Children lists each node's children in the dominator tree, in the
	// reverse postorder of the graph.
	Children [][]int
	// Pre is each node's preorder number in the dominator tree (the entry is
	// 0); -1 for unreachable nodes.
	Pre []int
	// Last is the largest preorder number in each node's subtree.
	Last []int
	// Order lists the reachable nodes in dominator-tree preorder.
	Order []int
}

// Dominators computes the dominator tree with the iterative algorithm of
// Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm"),
// intersecting along postorder numbers.
func Dominators(g *Graph) *DomTree {
	n := g.Len()
	d := &DomTree{Idom: make([]int, n), Children: make([][]int, n), Pre: make([]int, n), Last: make([]int, n)}
	for i := range d.Idom {
		d.Idom[i], d.Pre[i], d.Last[i] = -1, -1, -1
	}
	if n == 0 {
		return d
	}
	rpo := g.ReversePostorder()
	poNum := make([]int, n) // postorder number; -1 when unreachable
	for i := range poNum {
		poNum[i] = -1
	}
	for i, u := range rpo {
		poNum[u] = len(rpo) - 1 - i
	}
	idom := d.Idom
	idom[g.Entry] = g.Entry
	intersect := func(a, b int) int {
		for a != b {
			for poNum[a] < poNum[b] {
				a = idom[a]
			}
			for poNum[b] < poNum[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, u := range rpo[1:] {
			newIdom := -1
			for _, p := range g.Preds[u] {
				if poNum[p] < 0 || idom[p] < 0 {
					continue // unreachable or not processed yet
				}
				if newIdom < 0 {
					newIdom = p
				} else {
					newIdom = intersect(p, newIdom)
				}
			}
			if newIdom != idom[u] {
				idom[u] = newIdom
				changed = true
			}
		}
	}
	idom[g.Entry] = -1
	// Children in reverse postorder, all sharing one backing array.
	count := make([]int, n+1)
	for _, u := range rpo[1:] {
		count[idom[u]+1]++
	}
	for i := 0; i < n; i++ {
		count[i+1] += count[i]
	}
	kids := make([]int, len(rpo)-1)
	for v := 0; v < n; v++ {
		d.Children[v] = kids[count[v]:count[v]:count[v+1]]
	}
	for _, u := range rpo[1:] {
		d.Children[idom[u]] = append(d.Children[idom[u]], u)
	}
	// Preorder numbering with an explicit stack.
	type frame struct{ node, next int }
	stack := []frame{{g.Entry, 0}}
	d.Pre[g.Entry] = 0
	d.Order = append(d.Order, g.Entry)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(d.Children[top.node]) {
			c := d.Children[top.node][top.next]
			top.next++
			d.Pre[c] = len(d.Order)
			d.Order = append(d.Order, c)
			stack = append(stack, frame{c, 0})
			continue
		}
		d.Last[top.node] = len(d.Order) - 1
		stack = stack[:len(stack)-1]
	}
	return d
}

// Dominates reports whether a dominates b (every node dominates itself).
// Unreachable nodes dominate nothing and are dominated by nothing.
func (d *DomTree) Dominates(a, b int) bool {
	return d.Pre[a] >= 0 && d.Pre[b] >= 0 && d.Pre[a] <= d.Pre[b] && d.Pre[b] <= d.Last[a]
}

// StrictlyDominates reports whether a dominates b and a != b.
func (d *DomTree) StrictlyDominates(a, b int) bool { return a != b && d.Dominates(a, b) }
