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

// Dominators computes the dominator tree with the algorithm of Lengauer and
// Tarjan ("A fast algorithm for finding dominators in a flowgraph", 1979),
// in its simple form: semidominators are evaluated on a forest with path
// compression, which costs O(m log n) for n nodes and m edges on any graph.
// Every step uses explicit stacks, so deep graphs cannot overflow the
// goroutine stack.
func Dominators(g *Graph) *DomTree {
	d, _ := dominators(g)
	return d
}

// dominators computes the dominator tree and returns with it a count of
// the elementary steps taken, which the scaling tests check.
func dominators(g *Graph) (*DomTree, int) {
	n := g.Len()
	d := &DomTree{Idom: make([]int, n), Children: make([][]int, n), Pre: make([]int, n), Last: make([]int, n)}
	for i := range d.Idom {
		d.Idom[i], d.Pre[i], d.Last[i] = -1, -1, -1
	}
	if n == 0 {
		return d, 0
	}
	lt := newLengauerTarjan(g)
	lt.run()
	for i := 1; i < len(lt.vertex); i++ {
		d.Idom[lt.vertex[i]] = int(lt.vertex[lt.idom[i]])
	}
	rpo := make([]int, len(lt.post))
	for i, u := range lt.post {
		rpo[len(rpo)-1-i] = int(u)
	}
	d.linkChildren(rpo)
	d.number(g.Entry, len(rpo))
	return d, lt.steps + len(rpo)
}

// linkChildren fills Children from Idom, each list in reverse postorder,
// all sharing one backing array.
func (d *DomTree) linkChildren(rpo []int) {
	n := len(d.Idom)
	count := make([]int, n+1)
	for _, u := range rpo[1:] {
		count[d.Idom[u]+1]++
	}
	for i := 0; i < n; i++ {
		count[i+1] += count[i]
	}
	kids := make([]int, len(rpo)-1)
	for v := 0; v < n; v++ {
		d.Children[v] = kids[count[v]:count[v]:count[v+1]]
	}
	for _, u := range rpo[1:] {
		d.Children[d.Idom[u]] = append(d.Children[d.Idom[u]], u)
	}
}

// number fills Pre, Last and Order by a preorder walk of the tree from the
// entry, with an explicit stack.
func (d *DomTree) number(entry, reachable int) {
	type frame struct{ node, next int }
	stack := []frame{{entry, 0}}
	d.Order = make([]int, 1, reachable)
	d.Pre[entry], d.Order[0] = 0, entry
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
}

// Dominates reports whether a dominates b (every node dominates itself).
// Unreachable nodes dominate nothing and are dominated by nothing.
func (d *DomTree) Dominates(a, b int) bool {
	return d.Pre[a] >= 0 && d.Pre[b] >= 0 && d.Pre[a] <= d.Pre[b] && d.Pre[b] <= d.Last[a]
}

// StrictlyDominates reports whether a dominates b and a != b.
func (d *DomTree) StrictlyDominates(a, b int) bool { return a != b && d.Dominates(a, b) }

// lengauerTarjan holds the state of the dominator computation. Nodes are
// named by their depth-first preorder number (0 is the entry) except in
// vertex and post.
type lengauerTarjan struct {
	g      *Graph
	num    []int32 // per node: preorder number, or -1 when unreachable
	vertex []int32 // per number: the node
	post   []int32 // the reachable nodes in depth-first postorder
	parent []int32 // per number: the parent in the spanning tree
	semi   []int32 // per number: the semidominator's number
	idom   []int32 // per number: the immediate dominator's number
	// The forest evaluated by eval: ancestor (-1 at a root) and label, the
	// vertex of least semidominator on the compressed path.
	ancestor, label []int32
	// bucket lists, per number, the numbers whose semidominator it is,
	// linked through bucketNext.
	bucket, bucketNext []int32
	path               []int32 // scratch stack of compress
	steps              int
}

func newLengauerTarjan(g *Graph) *lengauerTarjan {
	n := g.Len()
	return &lengauerTarjan{g: g, num: filled32(n, -1)}
}

// search numbers the reachable nodes in depth-first preorder, successors
// in list order, and records the spanning tree.
func (lt *lengauerTarjan) search() {
	g := lt.g
	n := g.Len()
	lt.vertex = make([]int32, 0, n)
	lt.post = make([]int32, 0, n)
	lt.parent = make([]int32, 0, n)
	type frame struct{ node, next int32 }
	entry := int32(g.Entry)
	stack := []frame{{entry, 0}}
	lt.num[entry] = 0
	lt.vertex = append(lt.vertex, entry)
	lt.parent = append(lt.parent, -1)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		u := top.node
		if int(top.next) < len(g.Succs[u]) {
			v := int32(g.Succs[u][top.next])
			top.next++
			lt.steps++
			if lt.num[v] < 0 {
				lt.num[v] = int32(len(lt.vertex))
				lt.vertex = append(lt.vertex, v)
				lt.parent = append(lt.parent, lt.num[u])
				stack = append(stack, frame{v, 0})
			}
			continue
		}
		lt.post = append(lt.post, u)
		stack = stack[:len(stack)-1]
	}
}

// run computes idom for every reachable node.
func (lt *lengauerTarjan) run() {
	lt.search()
	r := len(lt.vertex)
	lt.semi, lt.idom, lt.label = make([]int32, r), make([]int32, r), make([]int32, r)
	lt.ancestor, lt.bucket, lt.bucketNext = filled32(r, -1), filled32(r, -1), make([]int32, r)
	for i := range r {
		lt.semi[i], lt.label[i] = int32(i), int32(i)
	}
	for w := int32(r - 1); w >= 1; w-- {
		// The semidominator of w is the least over its predecessors v of
		// v itself (v < w) or the least semidominator on the forest path
		// above v (v > w), which eval finds.
		for _, p := range lt.g.Preds[lt.vertex[w]] {
			lt.steps++
			v := lt.num[p]
			if v < 0 {
				continue
			}
			if u := lt.eval(v); lt.semi[u] < lt.semi[w] {
				lt.semi[w] = lt.semi[u]
			}
		}
		s := lt.semi[w]
		lt.bucketNext[w], lt.bucket[s] = lt.bucket[s], w
		p := lt.parent[w]
		lt.ancestor[w] = p // link
		// Every v whose semidominator is p now has its path to p in the
		// forest: it is dominated by p, or has the immediate dominator of
		// the vertex u of least semidominator on that path.
		for v := lt.bucket[p]; v >= 0; v = lt.bucketNext[v] {
			lt.steps++
			if u := lt.eval(v); lt.semi[u] < lt.semi[v] {
				lt.idom[v] = u
			} else {
				lt.idom[v] = p
			}
		}
		lt.bucket[p] = -1
	}
	for w := int32(1); w < int32(r); w++ {
		if lt.idom[w] != lt.semi[w] {
			lt.idom[w] = lt.idom[lt.idom[w]]
		}
	}
}

// eval returns the vertex of least semidominator on the forest path from
// v's root (excluded) down to v.
func (lt *lengauerTarjan) eval(v int32) int32 {
	if lt.ancestor[v] < 0 {
		return v
	}
	lt.compress(v)
	return lt.label[v]
}

// compress shortens the forest path above v so that every vertex on it
// hangs directly below the path's root, carrying in label the vertex of
// least semidominator on the path it skips. The path is walked up onto an
// explicit stack, then rewritten from the top down.
func (lt *lengauerTarjan) compress(v int32) {
	anc, label, semi := lt.ancestor, lt.label, lt.semi
	path := lt.path[:0]
	for x := v; anc[anc[x]] >= 0; x = anc[x] {
		path = append(path, x)
	}
	lt.steps += len(path)
	for i := len(path) - 1; i >= 0; i-- {
		x := path[i]
		a := anc[x]
		if semi[label[a]] < semi[label[x]] {
			label[x] = label[a]
		}
		anc[x] = anc[a]
	}
	lt.path = path
}
