package cfg

// Loop is one loop of a LoopForest: a strongly connected region of the
// graph. A reducible loop has one header, which dominates every block of the
// loop; an irreducible loop has several entry nodes.
type Loop struct {
	// Header is the primary header: of the loop's entry nodes, the first in
	// reverse postorder. It is the node the loop was found from, an
	// ancestor of every node of the loop in the depth-first spanning tree.
	Header int
	// Headers lists every entry node (a node with a predecessor outside the
	// loop, or the graph's entry), in reverse postorder: primary header
	// first. A loop's headers are among its Blocks: a node is a header of
	// at most one loop, its innermost.
	Headers []int
	// Blocks lists the nodes whose innermost loop is this one, in reverse
	// postorder. Inner loops' nodes are not repeated here: the nodes of loop
	// l are the Blocks of loops l through Last together.
	Blocks []int
	// Parent is the index of the enclosing loop, or -1.
	Parent int
	// Children are the indices of the loops directly inside this one, in
	// reverse postorder of their headers.
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

// LoopForest is the loop nesting forest of a graph's reachable part.
//
// It is built on a depth-first search from the entry (successors in list
// order), as Havlak's forest is ("Nesting of reducible and irreducible
// loops", 1997). For every node h, let R(h) be the set of nodes of h's
// subtree in the depth-first spanning tree from which h can be reached
// without leaving that subtree: the strongly connected component of h in
// the subgraph the subtree induces. When R(h) holds a cycle (more than one
// node, or a self loop at h) it is a cycle set with primary header h; the
// cycle sets are properly nested. A cycle set that shares an entry node
// with the smallest cycle set strictly containing it is merged into that
// one; the cycle sets that remain are the loops. So:
//
//   - every loop is strongly connected, and its primary header is the first
//     of its nodes the search reached, an ancestor of all of them;
//   - no entry node of a loop lies in one of its inner loops, so a node is a
//     header of at most one loop and the Headers lists hold at most n nodes
//     in all;
//   - a reducible graph has nothing merged: the loops are its natural loops
//     (those sharing a header merged into one), the forest Steensgaard's
//     recursive decomposition also gives.
//
// An irreducible region is a loop with several Headers. Which entry is its
// primary header, and which of its inner cycles are loops of their own,
// follow the depth-first search, so the forest can differ there from
// Steensgaard's, which cuts the edges into all the entries of a strongly
// connected region and decomposes what remains again (at a cost that grows
// with the nesting depth). In both, a loop's entries are in none of its
// inner loops.
//
// Loops takes O((n + m) α(n)) time and O(n + m) space for n nodes and m
// edges, whatever the nesting depth.
type LoopForest struct {
	// Loops are listed in preorder: a loop comes before the loops inside it.
	Loops []Loop
	// LoopOf is the innermost loop containing each node, or -1.
	LoopOf []int

	headed    []int32 // per node: the loop it is a header of, or -1
	edgeStart []int32 // per node: the number of its edge (u, 0)
	cycles    nest
}

// nest is the forest of cycle sets before any merging (see LoopForest),
// which Frequencies works on: in it, every cycle inside a cycle set either
// passes through the set's primary header or lies inside a smaller set.
// Sets are numbered in preorder, siblings in reverse postorder of their
// primary headers.
type nest struct {
	header []int32 // per set: its primary header
	parent []int32 // per set: the smallest set strictly containing it, or -1
	loop   []int32 // per set: the index in Loops of the loop it became part of
	of     []int32 // per node: the smallest set containing it, or -1
	edge   []int32 // per edge: the smallest set containing both ends, or -1
}

// kept reports whether cycle set s is a loop of the forest (merged into no
// other set).
func (f *LoopForest) kept(s int32) bool {
	return f.Loops[f.cycles.loop[s]].Header == int(f.cycles.header[s])
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
func (f *LoopForest) Contains(l, u int) bool { return f.encloses(l, f.LoopOf[u]) }

// encloses reports whether loop x (which may be -1) is loop l or inside it.
func (f *LoopForest) encloses(l, x int) bool { return x >= l && x <= f.Loops[l].Last }

// IsHeader reports whether u is a header (entry node) of some loop.
func (f *LoopForest) IsHeader(u int) bool { return f.headed[u] >= 0 }

// IsHeaderOf reports whether u is one of the Headers of loop l.
func (f *LoopForest) IsHeaderOf(l, u int) bool { return int(f.headed[u]) == l }

// HeadedLoop returns the loop that u is a header of (always u's innermost
// loop), or -1 when u is no loop's header.
func (f *LoopForest) HeadedLoop(u int) int { return int(f.headed[u]) }

// EdgeLoop returns the innermost loop containing both ends of edge (u, i),
// the i-th successor edge of u, or -1 when no loop contains both or u is
// unreachable. The edge leaves the loops from LoopOf[u] out to that loop
// (excluded) and enters those from LoopOf[v] out to it.
func (f *LoopForest) EdgeLoop(u, i int) int {
	if s := f.cycles.edge[int(f.edgeStart[u])+i]; s >= 0 {
		return int(f.cycles.loop[s])
	}
	return -1
}

// Loops computes the loop nesting forest of the reachable part of g.
func Loops(g *Graph) *LoopForest {
	f, _ := findLoops(g)
	return f
}

// findLoops computes the forest and returns with it a count of the
// elementary steps taken, which the scaling tests check.
func findLoops(g *Graph) (*LoopForest, int) {
	b := newForestBuilder(g)
	b.search()
	b.collapse()
	f := b.forest()
	return f, b.steps + b.sets.steps
}

// forestBuilder holds the state of Loops. Nodes and edges are numbered
// with int32 to halve the memory the per-edge arrays take.
//
// The cycle sets are found by Havlak's construction, with the correction
// that makes it almost linear (Ramalingam, "Identifying loops in almost
// linear time", 1999). Nodes are visited in reverse depth-first preorder;
// each node h collects R(h) by walking edges backwards from the sources of
// its back edges, every set already found standing for itself as one
// element of a union-find structure labelled by its primary header. A walk
// from h only follows an edge u->v when h is an ancestor of both ends in
// the spanning tree. Havlak's walks pass an edge whose source lies outside
// their subtree on to the enclosing walk, once per set it enters, which is
// quadratic on some graphs; here an edge that is not a back edge is instead
// handed to the walks (put in a list kept at the current representative of
// v) only when the reverse preorder reaches the lowest common ancestor of
// u and v, found during the search with Tarjan's off-line algorithm. Each
// edge is then examined by one walk at most, and the header of that walk
// heads the smallest set containing both ends.
type forestBuilder struct {
	g *Graph
	n int

	edgeStart []int32 // per node: number of its first successor edge
	src, dst  []int32 // per edge
	next      []int32 // per edge: the next edge in the list it is in

	pre   []int32 // depth-first preorder number; -1 when unreachable
	last  []int32 // largest preorder number in the node's subtree; -1 while on the stack
	byPre []int32 // the reachable nodes by preorder number
	post  []int32 // the reachable nodes in postorder

	// List heads per node, linked through next: the edges to hand over
	// when the node is visited (their ends' lowest common ancestor is the
	// node), the back edges into the node, and the edges pending at the
	// node while it represents a set.
	handOver, back, pending []int32

	sets     labelledSets
	edgeHdr  []int32 // per edge: header of the walk that examined it, or -1
	absorbed []int32 // per node: header of the walk that took it in, or -1
	isLoop   []bool  // per node: R(node) is a cycle set
	steps    int
}

func newForestBuilder(g *Graph) *forestBuilder {
	n := g.Len()
	b := &forestBuilder{g: g, n: n, edgeStart: make([]int32, n+1)}
	m := 0
	for u, ss := range g.Succs {
		b.edgeStart[u] = int32(m)
		m += len(ss)
	}
	b.edgeStart[n] = int32(m)
	b.src, b.dst = make([]int32, m), make([]int32, m)
	for u, ss := range g.Succs {
		for i, v := range ss {
			e := b.edgeStart[u] + int32(i)
			b.src[e], b.dst[e] = int32(u), int32(v)
		}
	}
	b.next = make([]int32, m)
	b.edgeHdr = filled32(m, -1)
	b.pre, b.last = filled32(n, -1), filled32(n, -1)
	b.handOver, b.back, b.pending = filled32(n, -1), filled32(n, -1), filled32(n, -1)
	b.absorbed = filled32(n, -1)
	b.isLoop = make([]bool, n)
	b.sets.reset(n)
	return b
}

// push prepends edge e to the list whose head is *head.
func (b *forestBuilder) push(head *int32, e int32) {
	b.next[e] = *head
	*head = e
}

// search numbers the reachable nodes in depth-first preorder and postorder
// and sorts every edge out of a reachable node: a back edge goes to the
// back list of its target; any other edge to the hand-over list of the
// lowest common ancestor of its ends. The union-find structure serves
// Tarjan's off-line ancestor algorithm here: a finished node's set is
// merged into its parent's, so the label of a finished node's set is its
// lowest ancestor still on the stack.
func (b *forestBuilder) search() {
	if b.n == 0 {
		return
	}
	g := b.g
	type frame struct{ node, next int32 }
	entry := int32(g.Entry)
	stack := []frame{{entry, 0}}
	b.byPre = make([]int32, 0, b.n)
	b.post = make([]int32, 0, b.n)
	b.pre[entry] = 0
	b.byPre = append(b.byPre, entry)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		u := top.node
		if int(top.next) < len(g.Succs[u]) {
			e := b.edgeStart[u] + top.next
			top.next++
			b.steps++
			v := b.dst[e]
			switch {
			case b.pre[v] < 0: // tree edge
				b.push(&b.handOver[u], e)
				b.pre[v] = int32(len(b.byPre))
				b.byPre = append(b.byPre, v)
				stack = append(stack, frame{v, 0})
			case b.last[v] < 0: // v is on the stack, an ancestor of u
				b.push(&b.back[v], e)
			case b.pre[v] > b.pre[u]: // forward edge
				b.push(&b.handOver[u], e)
			default: // cross edge
				b.push(&b.handOver[b.sets.find(v)], e)
			}
			continue
		}
		b.last[u] = int32(len(b.byPre) - 1)
		b.post = append(b.post, u)
		stack = stack[:len(stack)-1]
		if len(stack) > 0 {
			b.sets.union(u, stack[len(stack)-1].node)
		}
	}
}

// collapse visits the nodes in reverse preorder, finding each node's cycle
// set R(h) and collapsing it into h.
func (b *forestBuilder) collapse() {
	b.sets.reset(b.n)
	mark := filled32(b.n, -1) // mark[x] == h: x is in the walk of h
	var work, body []int32
	for k := len(b.byPre) - 1; k >= 0; k-- {
		h := b.byPre[k]
		for e := b.handOver[h]; e >= 0; {
			nx := b.next[e]
			b.push(&b.pending[b.sets.find(b.dst[e])], e)
			e = nx
			b.steps++
		}
		work, body = work[:0], body[:0]
		selfLoop := false
		for e := b.back[h]; e >= 0; e = b.next[e] {
			b.steps++
			b.edgeHdr[e] = h
			if b.src[e] == h {
				selfLoop = true
				continue
			}
			if x := b.sets.find(b.src[e]); mark[x] != h {
				mark[x] = h
				work = append(work, x)
			}
		}
		if !selfLoop && len(work) == 0 {
			continue
		}
		b.isLoop[h] = true
		for len(work) > 0 {
			x := work[len(work)-1]
			work = work[:len(work)-1]
			body = append(body, x)
			for e := b.pending[x]; e >= 0; e = b.next[e] {
				b.steps++
				b.edgeHdr[e] = h
				// The edge was handed over at an ancestor of both ends
				// visited no later than h, so its source is in h's subtree.
				if y := b.sets.find(b.src[e]); y != h && mark[y] != h {
					mark[y] = h
					work = append(work, y)
				}
			}
			b.pending[x] = -1
		}
		for _, x := range body {
			b.absorbed[x] = h
			b.sets.union(x, h)
		}
	}
}

// forest numbers the cycle sets, merges those that share an entry with
// their parent, and fills in the LoopForest.
func (b *forestBuilder) forest() *LoopForest {
	f := &LoopForest{LoopOf: make([]int, b.n), headed: filled32(b.n, -1), edgeStart: b.edgeStart}
	setOf, depth := b.numberSets(&f.cycles)
	entryDepth := b.entryDepths(&f.cycles, depth)
	into := b.mergeSharedEntries(&f.cycles, depth, entryDepth)
	b.numberLoops(f, setOf, into)
	b.fillBlocks(f)
	b.fillHeaders(f, func(v int32, l int) bool { return depth[setOf[f.Loops[l].Header]] > entryDepth[v] })
	return f
}

// numberSets numbers the cycle sets in preorder and records them in ns
// (all but ns.loop). It returns each primary header's set number (-1 for
// other nodes) and each set's depth.
func (b *forestBuilder) numberSets(ns *nest) (setOf, depth []int32) {
	setOf, ns.header, ns.parent = b.preorder(func(h int32) bool { return b.isLoop[h] }, func(h int32) int32 { return b.absorbed[h] })
	ns.of = filled32(b.n, -1)
	for u := range ns.of {
		switch {
		case b.isLoop[u]:
			ns.of[u] = setOf[u]
		case b.absorbed[u] >= 0:
			ns.of[u] = setOf[b.absorbed[u]]
		}
	}
	ns.edge = b.edgeHdr // reused in place: header node -> set number
	for e, h := range ns.edge {
		if h >= 0 {
			ns.edge[e] = setOf[h]
		}
	}
	depth = make([]int32, len(ns.header))
	for s, p := range ns.parent { // preorder: parents first
		depth[s] = 1
		if p >= 0 {
			depth[s] = depth[p] + 1
		}
	}
	return setOf, depth
}

// numberLoops numbers the sets that were not merged, the loops, in
// preorder, creates f.Loops and fills in LoopOf and the sets' loop.
func (b *forestBuilder) numberLoops(f *LoopForest, setOf, into []int32) {
	ns := &f.cycles
	loopOf, headers, parents := b.preorder(
		func(h int32) bool { return b.isLoop[h] && into[setOf[h]] == setOf[h] },
		func(h int32) int32 {
			if p := ns.parent[setOf[h]]; p >= 0 {
				return ns.header[into[p]]
			}
			return -1
		})
	ns.loop = make([]int32, len(ns.header))
	for s := range ns.loop {
		ns.loop[s] = loopOf[ns.header[into[s]]]
	}
	f.Loops = makeLoops(headers, parents)
	for u := range f.LoopOf {
		f.LoopOf[u] = -1
		if s := ns.of[u]; s >= 0 {
			f.LoopOf[u] = int(ns.loop[s])
		}
	}
}

// preorder numbers the nodes h for which isHead(h) holds, as heads of a
// forest in which parentOf(h) is the parent's head (-1 for a root), in
// preorder with siblings in reverse postorder. It returns each head's
// number (-1 for other nodes), the heads by number and each number's
// parent number.
func (b *forestBuilder) preorder(isHead func(h int32) bool, parentOf func(h int32) int32) (num, heads, parents []int32) {
	n := b.n
	// Children lists linked through sibling, in reverse postorder by
	// prepending in postorder.
	firstKid, sibling := filled32(n, -1), filled32(n, -1)
	roots, count := int32(-1), 0
	for _, h := range b.post {
		if !isHead(h) {
			continue
		}
		count++
		if p := parentOf(h); p >= 0 {
			sibling[h], firstKid[p] = firstKid[p], h
		} else {
			sibling[h], roots = roots, h
		}
	}
	num = filled32(n, -1)
	heads, parents = make([]int32, 0, count), make([]int32, 0, count)
	var stack []int32 // heads whose children are being numbered
	enter := func(h, parent int32) {
		num[h] = int32(len(heads))
		heads = append(heads, h)
		parents = append(parents, parent)
		stack = append(stack, h)
	}
	for r := roots; r >= 0; r = sibling[r] {
		enter(r, -1)
		for len(stack) > 0 {
			b.steps++
			top := stack[len(stack)-1]
			if c := firstKid[top]; c >= 0 {
				firstKid[top] = sibling[c]
				enter(c, num[top])
				continue
			}
			stack = stack[:len(stack)-1]
		}
	}
	return num, heads, parents
}

// makeLoops creates the loops of a forest numbered in preorder, with their
// headers, parents, depths, children and Last.
func makeLoops(headers, parents []int32) []Loop {
	loops := make([]Loop, len(headers))
	count := make([]int, len(headers))
	for l, p := range parents {
		loops[l] = Loop{Header: int(headers[l]), Parent: int(p), Depth: 1, Last: l}
		if p >= 0 {
			loops[l].Depth = loops[p].Depth + 1
			count[p]++
		}
	}
	kids := make([]int, len(headers))
	for l := range loops {
		loops[l].Children = kids[:0:count[l]]
		kids = kids[count[l]:]
	}
	for l := len(loops) - 1; l >= 0; l-- {
		if p := parents[l]; p >= 0 {
			loops[p].Last = max(loops[p].Last, loops[l].Last)
		}
	}
	for l, p := range parents {
		if p >= 0 {
			loops[p].Children = append(loops[p].Children, l)
		}
	}
	return loops
}

// entryDepths returns, for each reachable node v, the depth of the
// outermost cycle set that v is an entry of, less one: v is an entry of the
// sets that contain it but not one of its predecessors p, those deeper than
// the smallest set containing both ends of the edge p->v, so it is an entry
// of exactly the sets on its chain deeper than the least depth of that set
// over its incoming edges (0 for the graph's entry, which is an entry of
// every set containing it).
func (b *forestBuilder) entryDepths(ns *nest, depth []int32) []int32 {
	entryDepth := make([]int32, b.n)
	for _, v := range b.post {
		if s := ns.of[v]; s >= 0 {
			entryDepth[v] = depth[s]
		}
	}
	if b.n > 0 {
		entryDepth[b.g.Entry] = 0
	}
	for _, u := range b.post {
		for e := b.edgeStart[u]; e < b.edgeStart[u+1]; e++ {
			b.steps++
			d := int32(0)
			if s := ns.edge[e]; s >= 0 {
				d = depth[s]
			}
			if v := b.dst[e]; d < entryDepth[v] {
				entryDepth[v] = d
			}
		}
	}
	return entryDepth
}

// mergeSharedEntries merges every cycle set that shares an entry with its
// parent set into the parent, and returns for each set the set it became
// part of. A node v that is an entry of the sets on its chain down to depth
// entryDepth[v]+1 is an entry of both a set and its parent for every set on
// the chain below that depth. Merged sets are united with their parents in
// a union-find structure labelled by the remaining set, so each node's walk
// up its chain only visits sets it merges, plus one.
func (b *forestBuilder) mergeSharedEntries(ns *nest, depth, entryDepth []int32) []int32 {
	var sets labelledSets
	sets.reset(len(ns.header))
	for _, v := range b.post {
		s := ns.of[v]
		if s < 0 {
			continue
		}
		for x := sets.find(s); depth[x] > entryDepth[v]+1; {
			b.steps++
			p := sets.find(ns.parent[x])
			sets.union(x, p)
			x = p
		}
	}
	into := make([]int32, len(ns.header))
	for s := range into {
		into[s] = sets.find(int32(s))
	}
	b.steps += sets.steps
	return into
}

// fillBlocks lists each loop's direct blocks in reverse postorder.
func (b *forestBuilder) fillBlocks(f *LoopForest) {
	count := make([]int, len(f.Loops))
	total := 0
	for _, u := range b.post {
		if l := f.LoopOf[u]; l >= 0 {
			count[l]++
			total++
		}
	}
	backing := make([]int, total)
	for l := range f.Loops {
		f.Loops[l].Blocks = backing[:0:count[l]]
		backing = backing[count[l]:]
	}
	for i := len(b.post) - 1; i >= 0; i-- {
		u := b.post[i]
		if l := f.LoopOf[u]; l >= 0 {
			f.Loops[l].Blocks = append(f.Loops[l].Blocks, int(u))
		}
	}
}

// fillHeaders lists each loop's entry nodes in reverse postorder, which
// puts the primary header (the first of the loop's nodes in reverse
// postorder, and an entry) first. A node can only be an entry of its
// innermost loop; isEntry(v, l) tells whether it is.
func (b *forestBuilder) fillHeaders(f *LoopForest, isEntry func(v int32, l int) bool) {
	count := make([]int, len(f.Loops))
	total := 0
	for _, v := range b.post {
		if l := f.LoopOf[v]; l >= 0 && isEntry(v, l) {
			f.headed[v] = int32(l)
			count[l]++
			total++
		}
	}
	backing := make([]int, total)
	for l := range f.Loops {
		f.Loops[l].Headers = backing[:0:count[l]]
		backing = backing[count[l]:]
	}
	for i := len(b.post) - 1; i >= 0; i-- {
		v := b.post[i]
		if l := f.headed[v]; l >= 0 {
			f.Loops[l].Headers = append(f.Loops[l].Headers, int(v))
		}
	}
}
