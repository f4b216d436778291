package cfg

import "slices"

// Loop is one loop of a LoopForest: a strongly connected region of the
// graph. A reducible loop has one header, which dominates every block of the
// loop; an irreducible loop has several entry nodes.
type Loop struct {
	// Header is the primary header: of the loop's entry nodes, the first in
	// reverse postorder.
	Header int
	// Headers lists every entry node (a node with a predecessor outside the
	// loop, or the graph's entry), primary header first.
	Headers []int
	// Blocks lists every node of the loop, inner loops' nodes included, in
	// reverse postorder.
	Blocks []int
	// Parent is the index of the enclosing loop, or -1.
	Parent int
	// Children are the indices of the loops directly inside this one.
	Children []int
	// Depth is the nesting depth: 1 for an outermost loop.
	Depth int
	// Last is the largest index in Loops of a loop nested in this one (or
	// the loop's own index): loop j is inside loop i exactly when
	// i <= j <= Loops[i].Last.
	Last int
}

// Irreducible reports whether the loop has more than one entry node.
func (l *Loop) Irreducible() bool { return len(l.Headers) > 1 }

// LoopForest is the loop nesting forest of a graph, found by recursive
// decomposition into strongly connected components (Steensgaard's
// construction): every non-trivial SCC is a loop; its entry nodes are its
// headers; removing the edges into the headers and decomposing again finds
// the inner loops. For reducible graphs this gives the natural loops.
type LoopForest struct {
	// Loops are listed in preorder: a loop comes before the loops inside it.
	Loops []Loop
	// LoopOf is the innermost loop containing each node, or -1.
	LoopOf []int
}

// Depth returns the loop nesting depth of node u (0 outside every loop).
func (f *LoopForest) Depth(u int) int {
	if l := f.LoopOf[u]; l >= 0 {
		return f.Loops[l].Depth
	}
	return 0
}

// Contains reports whether loop l contains node u, directly or in an inner
// loop.
func (f *LoopForest) Contains(l, u int) bool {
	x := f.LoopOf[u]
	return x >= l && x <= f.Loops[l].Last
}

// IsHeader reports whether u is a header (entry node) of some loop.
func (f *LoopForest) IsHeader(u int) bool {
	l := f.LoopOf[u]
	if l < 0 {
		return false
	}
	for _, h := range f.Loops[l].Headers {
		if h == u {
			return true
		}
	}
	return false
}

// Loops computes the loop nesting forest of the reachable part of g.
func Loops(g *Graph) *LoopForest {
	n := g.Len()
	f := &LoopForest{LoopOf: make([]int, n)}
	for i := range f.LoopOf {
		f.LoopOf[i] = -1
	}
	rpo := g.ReversePostorder()
	rpoNum := make([]int, n)
	for i := range rpoNum {
		rpoNum[i] = -1
	}
	for i, u := range rpo {
		rpoNum[u] = i
	}
	s := &sccFinder{g: g, inSet: make([]int, n), cut: make([]int, n), index: make([]int, n), low: make([]int, n), onStack: make([]bool, n)}
	for i := range s.inSet {
		s.inSet[i], s.cut[i] = -1, -1
	}
	f.decompose(s, rpo, -1, rpoNum)
	return f
}

// decompose finds the loops among nodes (sorted by reverse postorder) whose
// enclosing loop is parent, appending them to f.Loops in preorder.
func (f *LoopForest) decompose(s *sccFinder, nodes []int, parent int, rpoNum []int) {
	setID := s.nextSet
	s.nextSet++
	for _, u := range nodes {
		s.inSet[u] = setID
	}
	cutID := -2 // no edges are cut at the top level
	if parent >= 0 {
		cutID = parent
	}
	comps := s.components(nodes, setID, cutID)
	for _, comp := range comps {
		slices.SortFunc(comp, func(a, b int) int { return rpoNum[a] - rpoNum[b] })
	}
	// Visit sibling loops in reverse postorder of their first block, so the
	// forest does not depend on the order Tarjan's algorithm emits them.
	slices.SortFunc(comps, func(a, b []int) int { return rpoNum[a[0]] - rpoNum[b[0]] })
	for _, comp := range comps {
		if len(comp) == 1 && !s.selfLoop(comp[0], setID, cutID) {
			continue
		}
		idx := len(f.Loops)
		inComp := make(map[int]bool, len(comp))
		for _, u := range comp {
			inComp[u] = true
		}
		var headers []int
		for _, u := range comp {
			entry := u == s.g.Entry
			for _, p := range s.g.Preds[u] {
				if rpoNum[p] >= 0 && !inComp[p] {
					entry = true
					break
				}
			}
			if entry {
				headers = append(headers, u)
			}
		}
		if len(headers) == 0 {
			headers = []int{comp[0]}
		}
		depth := 1
		if parent >= 0 {
			depth = f.Loops[parent].Depth + 1
			f.Loops[parent].Children = append(f.Loops[parent].Children, idx)
		}
		f.Loops = append(f.Loops, Loop{Header: headers[0], Headers: headers, Blocks: comp, Parent: parent, Depth: depth})
		for _, u := range comp {
			f.LoopOf[u] = idx
		}
		for _, h := range headers {
			s.cut[h] = idx
		}
		f.decompose(s, comp, idx, rpoNum)
		f.Loops[idx].Last = len(f.Loops) - 1
		// Restore the set marks of this level for the remaining components.
		for _, u := range comp {
			s.inSet[u] = setID
		}
	}
}

// sccFinder runs Tarjan's algorithm on induced subgraphs, iteratively.
type sccFinder struct {
	g       *Graph
	inSet   []int // nodes of the current subgraph carry its set id
	cut     []int // headers whose incoming edges are cut carry their loop id
	nextSet int
	index   []int
	low     []int
	onStack []bool
	stack   []int
	counter int
}

// edgeIn reports whether edge u->v belongs to the subgraph: v is in the set
// and is not a header of the loop being decomposed.
func (s *sccFinder) edgeIn(v, setID, cutID int) bool {
	return s.inSet[v] == setID && s.cut[v] != cutID
}

func (s *sccFinder) selfLoop(u, setID, cutID int) bool {
	for _, v := range s.g.Succs[u] {
		if v == u && s.edgeIn(v, setID, cutID) {
			return true
		}
	}
	return false
}

// components returns the SCCs of the subgraph induced by nodes.
func (s *sccFinder) components(nodes []int, setID, cutID int) [][]int {
	for _, u := range nodes {
		s.index[u] = -1
	}
	var comps [][]int
	type frame struct{ node, next int }
	for _, root := range nodes {
		if s.index[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		s.visit(root)
		for len(call) > 0 {
			top := &call[len(call)-1]
			u := top.node
			if top.next < len(s.g.Succs[u]) {
				v := s.g.Succs[u][top.next]
				top.next++
				if !s.edgeIn(v, setID, cutID) {
					continue
				}
				if s.index[v] < 0 {
					s.visit(v)
					call = append(call, frame{v, 0})
				} else if s.onStack[v] && s.index[v] < s.low[u] {
					s.low[u] = s.index[v]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if p := call[len(call)-1].node; s.low[u] < s.low[p] {
					s.low[p] = s.low[u]
				}
			}
			if s.low[u] == s.index[u] {
				var comp []int
				for {
					w := s.stack[len(s.stack)-1]
					s.stack = s.stack[:len(s.stack)-1]
					s.onStack[w] = false
					comp = append(comp, w)
					if w == u {
						break
					}
				}
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

func (s *sccFinder) visit(u int) {
	s.index[u] = s.counter
	s.low[u] = s.counter
	s.counter++
	s.stack = append(s.stack, u)
	s.onStack[u] = true
}
