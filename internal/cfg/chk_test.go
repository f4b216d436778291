package cfg

// chkDominators is the iterative algorithm of Cooper, Harvey and Kennedy
// ("A Simple, Fast Dominance Algorithm"), which Dominators used before it
// moved to Lengauer-Tarjan; it is quadratic on some graphs but simple
// enough to serve as an oracle for the tests.
func chkDominators(g *Graph) *DomTree {
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
