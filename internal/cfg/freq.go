package cfg

import "slices"

// MaxCyclicProbability caps the probability that a loop iterates again, so
// that a loop with no exit (or an exit of probability zero) gets a large but
// finite frequency.
const MaxCyclicProbability = 1 - 1e-12

// MaxFrequency caps every frequency Frequencies returns. Loops nested
// hundreds deep multiply their scales past the largest float64; saturating
// keeps every frequency finite, so the costs the stages compute from them
// (products, sums, comparisons) never meet an infinity or a NaN. Measured
// counts (at most 2^64 per edge) stay far below it.
const MaxFrequency = 1e100

// Frequencies returns the expected number of executions of each node per
// execution of the entry, given the probability of every edge: prob[u][i] is
// the probability of edge (u, i), and each node's probabilities should sum
// to 1 (nodes without successors have none). Unreachable nodes get 0, and
// no node gets more than MaxFrequency. The forest must be Loops(g).
//
// It is the loop-based propagation of Wu and Larus ("Static branch frequency
// and program profile analysis", 1994): loops are processed innermost first;
// inside a loop, frequencies relative to one entry are propagated in
// topological order with the edges back into the loop's headers removed and
// inner loops collapsed to single items; the loop's cyclic probability c
// (the probability of coming back to a header) then scales its body by
// 1/(1-c). Loops are exact for reducible graphs. An irreducible loop is
// treated as entered through each of its headers equally often. The
// propagation runs on the cycle sets the forest was built from (see
// LoopForest): a cycle set that was merged into its parent loop is treated
// here as a loop of its own, entered at its primary header.
//
// Each edge is handled once, in the smallest cycle set containing both its
// ends: the flow along an edge that leaves inner sets is its source's
// frequency per entry into the outermost of them, which a forest with path
// compression over the solved sets keeps as the product of the per-set
// factors on the source's path. No list of exits is built, and the cost is
// O((n + m) log n) for n nodes and m edges, whatever the nesting.
func Frequencies(g *Graph, loops *LoopForest, prob [][]float64) []float64 {
	freq, _ := frequencies(g, loops, prob)
	return freq
}

// frequencies computes the frequencies and returns with them a count of
// the elementary steps taken, which the scaling tests check.
func frequencies(g *Graph, loops *LoopForest, prob [][]float64) ([]float64, int) {
	n := g.Len()
	freq := make([]float64, n)
	if n == 0 {
		return freq, 0
	}
	fc := newFreqComputer(g, loops, prob)
	for s := len(fc.ns.header) - 1; s >= 0; s-- { // inner sets first
		fc.solve(s)
	}
	fc.solve(-1)
	fc.final(freq)
	for u, f := range freq {
		if !(f <= MaxFrequency) { // +Inf, or NaN from 0·Inf
			freq[u] = MaxFrequency
		}
	}
	return freq, fc.steps
}

// final computes the frequencies from the solved sets, outermost first: a
// set is entered as often as its item's mass says per entry into its parent
// set, times the parent's entries per execution; each entry runs the set
// 1/(1-c) times; a node runs its mass per iteration of its smallest set
// times that.
func (fc *freqComputer) final(freq []float64) {
	ns := fc.ns
	scale := make([]float64, len(ns.header)) // executions of each set's body per execution of the entry
	for s, p := range ns.parent {            // preorder: parents first
		entries := fc.mass[fc.n+s]
		if p >= 0 {
			entries *= scale[p]
		}
		scale[s] = entries / (1 - fc.cp[s])
	}
	for _, u := range fc.order {
		freq[u] = fc.mass[u]
		if s := ns.of[u]; s >= 0 {
			freq[u] *= scale[s]
		}
	}
	fc.steps += len(scale) + len(fc.order)
}

// flowEdge is an edge of the graph as the propagation sees it.
type flowEdge struct {
	from, to int32
	prob     float64
}

// freqComputer holds the state of Frequencies. An item is a node u (number
// u) or a cycle set s (number n+s); the items of a set are the nodes whose
// smallest set it is and the sets directly inside it, and the items of the
// top level are the reachable nodes outside every set and the outermost
// sets.
type freqComputer struct {
	g     *Graph
	loops *LoopForest
	ns    *nest
	n     int
	order []int32 // the reachable nodes, in postorder

	// Edges grouped by the smallest set containing both ends: those of
	// set s are edges[start[s+1]:start[s+2]], the top level's first.
	edges []flowEdge
	start []int32
	// The direct nodes of set s are nodes[nodeStart[s+1]:nodeStart[s+2]],
	// and its child sets kids[kidStart[s+1]:kidStart[s+2]]; the top
	// level's come first.
	nodes, nodeStart []int32
	kids, kidStart   []int32

	// The solved part as a forest over items: once set s is solved, each
	// of its items hangs below item n+s with weight its frequency per entry
	// into s. The product of the weights from an item up to its root is its
	// frequency per entry into the outermost solved set containing it.
	up     []int32 // parent item, or -1 at a root
	weight []float64
	path   []int32 // scratch stack of eval

	mass  []float64 // per item: mass per entry into its set, excluding the set's repetitions
	cp    []float64 // per set: its cyclic probability
	local []int32   // per item: its position among the current set's items
	steps int

	// Scratch for solve, indexed by local position or local edge.
	items   []int32
	indeg   []int32
	outFrom []int32 // out-edges of local item i: outEdge[outFrom[i]:outFrom[i+1]]
	outEdge []int32
	coef    []float64 // per local edge: flow per unit of its source item's mass
	srcItem []int32
	dstItem []int32 // per local edge: -1 for an edge back into a header
	queue   []int32
}

func newFreqComputer(g *Graph, loops *LoopForest, prob [][]float64) *freqComputer {
	ns := &loops.cycles
	n, nsets := g.Len(), len(ns.header)
	fc := &freqComputer{
		g: g, loops: loops, ns: ns, n: n,
		order:  toInt32(g.Postorder()),
		up:     filled32(n+nsets, -1),
		weight: make([]float64, n+nsets),
		mass:   make([]float64, n+nsets),
		local:  make([]int32, n+nsets),
		cp:     make([]float64, nsets),
	}
	fc.groupEdges(prob)
	fc.groupNodes()
	fc.groupSets()
	return fc
}

// groupEdges lists the edges out of reachable nodes grouped by the
// smallest set containing both ends (a counting sort).
func (fc *freqComputer) groupEdges(prob [][]float64) {
	g, ns, nsets := fc.g, fc.ns, len(fc.ns.header)
	setOf := func(u int32, i int) int32 { return ns.edge[int(fc.loops.edgeStart[u])+i] }
	fc.start = make([]int32, nsets+2)
	for _, u := range fc.order {
		for i := range g.Succs[u] {
			fc.start[setOf(u, i)+2]++
		}
	}
	at := groupStarts(fc.start)
	fc.edges = make([]flowEdge, fc.start[nsets+1])
	for _, u := range fc.order {
		for i, v := range g.Succs[u] {
			k := &at[setOf(u, i)+1]
			fc.edges[*k] = flowEdge{from: u, to: int32(v), prob: prob[u][i]}
			*k++
		}
	}
	fc.steps += len(fc.edges)
}

// groupNodes lists the reachable nodes grouped by their smallest set, in
// reverse postorder (the top level's in postorder).
func (fc *freqComputer) groupNodes() {
	ns, nsets := fc.ns, len(fc.ns.header)
	fc.nodeStart = make([]int32, nsets+2)
	for _, u := range fc.order {
		fc.nodeStart[ns.of[u]+2]++
	}
	at := groupStarts(fc.nodeStart)
	fc.nodes = make([]int32, len(fc.order))
	for i := len(fc.order) - 1; i >= 0; i-- {
		u := fc.order[i]
		k := &at[ns.of[u]+1]
		fc.nodes[*k] = u
		*k++
	}
	slices.Reverse(fc.nodes[:fc.nodeStart[1]])
	fc.steps += len(fc.nodes)
}

// groupSets lists the sets (as items) grouped by their parent set.
func (fc *freqComputer) groupSets() {
	ns, nsets := fc.ns, len(fc.ns.header)
	fc.kidStart = make([]int32, nsets+2)
	for _, p := range ns.parent {
		fc.kidStart[p+2]++
	}
	at := groupStarts(fc.kidStart)
	fc.kids = make([]int32, nsets)
	for s, p := range ns.parent {
		k := &at[p+1]
		fc.kids[*k] = int32(fc.n + s)
		*k++
	}
	fc.steps += len(fc.kids)
}

// groupStarts turns the sizes of groups 0, 1, ..., kept in c[1], c[2], ...
// (c[0] is 0), into where each group starts: group k then spans
// [c[k], c[k+1]). It returns a copy for the caller to advance as it places
// each group's elements.
func groupStarts(c []int32) []int32 {
	for i := 1; i < len(c); i++ {
		c[i] += c[i-1]
	}
	return append([]int32(nil), c...)
}

// toInt32 converts a list of node numbers.
func toInt32(s []int) []int32 {
	out := make([]int32, len(s))
	for i, v := range s {
		out[i] = int32(v)
	}
	return out
}

// eval returns the root item of u's tree and the product of the weights on
// the path from u up to it, compressing the path so that every item on it
// hangs directly below the root. The path is walked onto an explicit stack
// and rewritten from the top down.
func (fc *freqComputer) eval(u int32) (int32, float64) {
	up, w := fc.up, fc.weight
	if up[u] < 0 {
		return u, 1
	}
	path := fc.path[:0]
	x := u
	for up[x] >= 0 {
		path = append(path, x)
		x = up[x]
	}
	root := x
	fc.steps += len(path)
	// path[len-1] hangs below root already; below it, each item takes its
	// parent's (already compressed) weight into its own.
	for i := len(path) - 2; i >= 0; i-- {
		y := path[i]
		w[y] *= w[up[y]]
		up[y] = root
	}
	fc.path = path
	return root, w[u]
}

// collectItems puts the items of set s (-1: the top level) in fc.items and
// numbers them in fc.local.
func (fc *freqComputer) collectItems(s int) {
	items := append(fc.items[:0], fc.nodes[fc.nodeStart[s+1]:fc.nodeStart[s+2]]...)
	items = append(items, fc.kids[fc.kidStart[s+1]:fc.kidStart[s+2]]...)
	for i, x := range items {
		fc.local[x] = int32(i)
		fc.mass[x] = 0
	}
	fc.items = items
	fc.steps += len(items)
}

// solve propagates mass through the items of set s (-1: the top level),
// starting from its entries, in topological order of the edges between its
// items, then hangs the items below the set's own item weighted by their
// frequency per entry. A set that is a loop of the forest is entered
// through each of the loop's headers equally often, and an edge to any of
// them comes back; a set merged into its parent loop is entered at its
// primary header, and only an edge to that header comes back. Either way
// every cycle left among the items passes through a header and is cut.
func (fc *freqComputer) solve(s int) {
	fc.collectItems(s)
	back := func(v int32) bool { return false }
	switch {
	case s < 0:
		r, _ := fc.eval(int32(fc.g.Entry))
		fc.mass[r] = 1
	case fc.loops.kept(int32(s)):
		l := int(fc.ns.loop[s])
		hs := fc.loops.Loops[l].Headers
		for _, h := range hs {
			r, _ := fc.eval(int32(h))
			fc.mass[r] += 1 / float64(len(hs))
		}
		back = func(v int32) bool { return fc.loops.IsHeaderOf(l, int(v)) }
	default:
		h := fc.ns.header[s]
		fc.mass[h] = 1
		back = func(v int32) bool { return v == h }
	}
	fc.prepareEdges(s, back)
	cycle := fc.propagate()
	if s < 0 {
		return
	}
	cp := min(cycle, MaxCyclicProbability)
	fc.cp[s] = cp
	self := int32(fc.n + s)
	for _, x := range fc.items {
		fc.up[x] = self
		fc.weight[x] = fc.mass[x] / (1 - cp)
	}
}

// prepareEdges sorts the edges of set s by source item, recording for each
// its target item (-1 for an edge back into a header) and its flow per
// unit of the source item's mass, and counts the edges into each item.
func (fc *freqComputer) prepareEdges(s int, back func(v int32) bool) {
	edges := fc.edges[fc.start[s+1]:fc.start[s+2]]
	k, ne := len(fc.items), len(edges)
	fc.indeg = fit32(fc.indeg, k)
	fc.outFrom = fit32(fc.outFrom, k+1)
	fc.outEdge = fit32(fc.outEdge, ne)
	fc.srcItem = fit32(fc.srcItem, ne)
	fc.dstItem = fit32(fc.dstItem, ne)
	if cap(fc.coef) < ne {
		fc.coef = make([]float64, ne)
	}
	fc.coef = fc.coef[:ne]
	clear(fc.indeg)
	clear(fc.outFrom)
	for j, e := range edges {
		r, factor := fc.eval(e.from)
		src := fc.local[r]
		fc.srcItem[j] = src
		fc.coef[j] = factor * e.prob
		fc.outFrom[src+1]++
		fc.dstItem[j] = -1
		if !back(e.to) {
			t, _ := fc.eval(e.to)
			fc.dstItem[j] = fc.local[t]
			fc.indeg[fc.local[t]]++
		}
	}
	for i := range k {
		fc.outFrom[i+1] += fc.outFrom[i]
	}
	fill := fc.queue[:0] // borrowed as the per-item fill cursor
	fill = append(fill, fc.outFrom[:k]...)
	for j := range edges {
		src := fc.srcItem[j]
		fc.outEdge[fill[src]] = int32(j)
		fill[src]++
	}
	fc.queue = fill
}

// propagate distributes the items' mass along the prepared edges in
// topological order (Kahn's algorithm) and returns the mass that flows back
// into the headers.
func (fc *freqComputer) propagate() float64 {
	k := len(fc.items)
	queue := fc.queue[:0]
	for i := range k {
		if fc.indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	back := 0.0
	pending := 0 // the first item that might not have been released yet
	for head := 0; head < k; head++ {
		if head == len(queue) {
			// A cycle survived the collapse of inner loops (impossible for
			// the forest of the graph); release the first pending item.
			for fc.indeg[pending] < 0 {
				pending++
			}
			queue = append(queue, int32(pending))
		}
		i := queue[head]
		fc.indeg[i] = -1 // released
		m := fc.mass[fc.items[i]]
		for _, j := range fc.outEdge[fc.outFrom[i]:fc.outFrom[i+1]] {
			fc.steps++
			flow := m * fc.coef[j]
			t := fc.dstItem[j]
			if t < 0 {
				back += flow
				continue
			}
			fc.mass[fc.items[t]] += flow
			if fc.indeg[t]--; fc.indeg[t] == 0 {
				queue = append(queue, t)
			}
		}
	}
	fc.queue = queue
	return back
}
