// Package cfg holds the control-flow-graph analyses that several kiln stages
// share, on a plain graph of numbered nodes: reverse postorder, dominator
// trees with O(1) dominance queries, the loop nesting forest (irreducible
// loops included), critical edges, and block frequencies from branch
// probabilities.
//
// profilecounters runs them on the bytecode CFG to estimate and smooth
// profiles; mir runs them on machine IR. The graph may have parallel edges
// (two successor entries naming the same node) and unreachable nodes.
//
// Every analysis runs in near-linear time on any graph, however deeply its
// loops nest and however irreducible it is (n nodes, m edges): Dominators
// in O(m log n) (Lengauer and Tarjan), Loops in O((n + m) α(n)) (Havlak's
// construction with Ramalingam's correction; see LoopForest for the forest
// it defines), Frequencies in O((n + m) log n). None of them recurses: deep
// graphs cannot overflow the goroutine stack.
package cfg

// Graph is a directed graph of nodes 0..N-1 with an entry node. Succs[u]
// lists u's successors in order; an edge is identified by (u, i), the i-th
// entry of Succs[u]. Preds is derived from Succs.
type Graph struct {
	Entry int
	Succs [][]int
	Preds [][]int
}

// New returns the graph with the given successor lists, computing the
// predecessor lists. A node appears in Preds[v] once per edge into v.
func New(entry int, succs [][]int) *Graph {
	g := &Graph{Entry: entry, Succs: succs, Preds: make([][]int, len(succs))}
	// Count first, then carve every list out of one array.
	count := make([]int, len(succs))
	total := 0
	for _, ss := range succs {
		for _, v := range ss {
			count[v]++
			total++
		}
	}
	backing := make([]int, total)
	for v, c := range count {
		g.Preds[v] = backing[:0:c]
		backing = backing[c:]
	}
	for u, ss := range succs {
		for _, v := range ss {
			g.Preds[v] = append(g.Preds[v], u)
		}
	}
	return g
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.Succs) }

// Postorder returns the nodes reachable from the entry in depth-first
// postorder (successors visited in list order). It uses an explicit stack,
// so deep graphs cannot overflow the goroutine stack.
func (g *Graph) Postorder() []int {
	n := g.Len()
	if n == 0 {
		return nil
	}
	visited := make([]bool, n)
	order := make([]int, 0, n)
	type frame struct{ node, next int }
	stack := []frame{{g.Entry, 0}}
	visited[g.Entry] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(g.Succs[top.node]) {
			v := g.Succs[top.node][top.next]
			top.next++
			if !visited[v] {
				visited[v] = true
				stack = append(stack, frame{v, 0})
			}
			continue
		}
		order = append(order, top.node)
		stack = stack[:len(stack)-1]
	}
	return order
}

// ReversePostorder returns the reachable nodes in reverse postorder: every
// node comes before its successors except along retreating edges.
func (g *Graph) ReversePostorder() []int {
	po := g.Postorder()
	for i, j := 0, len(po)-1; i < j; i, j = i+1, j-1 {
		po[i], po[j] = po[j], po[i]
	}
	return po
}

// Reachable returns, for each node, whether it is reachable from the entry.
func (g *Graph) Reachable() []bool {
	r := make([]bool, g.Len())
	for _, u := range g.Postorder() {
		r[u] = true
	}
	return r
}

// IsCriticalEdge reports whether edge (u, i) is critical: u has several
// successor edges and the edge's target has several predecessor edges. Code
// placed on a critical edge needs a new block.
func (g *Graph) IsCriticalEdge(u, i int) bool {
	return len(g.Succs[u]) > 1 && len(g.Preds[g.Succs[u][i]]) > 1
}
