package sched

// Minimum s–t cuts for spill placement (expected-distance spilling, §3.5).
//
// A spill placement problem is a small directed graph: a Source attached to
// the spill instructions whose position is being optimised, a Sink attached
// to the locations they may move to (definitions for stores, uses for
// loads), and edges weighted by the execution frequency of the program
// location each one stands for. Every Source→Sink path must be intercepted
// once, so a placement is a directed s–t cut and the cheapest placement is a
// minimum cut. Two solvers are provided:
//
//   - SolveExact: Dinic's maximum-flow algorithm. Among the minimum cuts it
//     returns the one whose sink side is smallest (the cut closest to the
//     Sink, which for spill code is the one that enlarges the in-memory
//     region).
//   - SolveContraction: the rule-based graph contraction of §3.5.2
//     (Alg. 4–7), adapted to directed cuts, with the thesis's
//     highest-weight-merge fallback when no rule applies, or optionally an
//     exact max-flow on the contracted remainder.
//
// Nothing here knows about instructions: edge indices are the "locations"
// the caller maps back to program points.

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// MinCutEdge is one directed edge of a MinCutProblem. Cap is the cost of
// cutting it (an execution frequency); +Inf marks an edge that must never
// be cut.
type MinCutEdge struct {
	From, To int
	Cap      float64
}

// MinCutProblem is a directed minimum s–t cut problem on nodes 0..N-1.
// Parallel edges and self-loops are allowed.
type MinCutProblem struct {
	N            int
	Source, Sink int
	Edges        []MinCutEdge
	// ws is the working storage of the solvers, kept by a problem that is
	// reset and solved again (nil: each solve allocates its own).
	ws *cutWork
}

// cutWork is the working storage of greedyFlow, prune and
// SolveContraction, kept between the problems a placement pass solves one
// after another: the adjacency in compressed rows, the flow's residual
// capacities and path, the reachability marks and the contracted graph.
type cutWork struct {
	first, adj, fill []int32
	res              []float64
	path             []int32
	seen, seen2, cut []bool
	stack            []int
	g                contraction
}

// reset empties p for a problem on n nodes, keeping its storage for the
// next solve.
func (p *MinCutProblem) reset(n, source, sink int) {
	p.N, p.Source, p.Sink = n, source, sink
	p.Edges = p.Edges[:0]
	if p.ws == nil {
		p.ws = new(cutWork)
	}
}

// work returns p's working storage, or fresh storage for a problem that
// keeps none.
func (p *MinCutProblem) work() *cutWork {
	if p.ws != nil {
		return p.ws
	}
	return new(cutWork)
}

// NewMinCutProblem returns an empty problem on n nodes.
func NewMinCutProblem(n, source, sink int) *MinCutProblem {
	return &MinCutProblem{N: n, Source: source, Sink: sink}
}

// AddEdge appends the edge from→to with capacity c and returns its index,
// the identifier by which cuts name it.
func (p *MinCutProblem) AddEdge(from, to int, c float64) int {
	p.Edges = append(p.Edges, MinCutEdge{From: from, To: to, Cap: c})
	return len(p.Edges) - 1
}

// Validate reports a malformed problem: nodes out of range, Source equal to
// Sink, or a negative or NaN capacity.
func (p *MinCutProblem) Validate() error {
	if p.N < 2 {
		return errors.New("mincut: need at least two nodes")
	}
	if p.Source < 0 || p.Source >= p.N || p.Sink < 0 || p.Sink >= p.N {
		return errors.New("mincut: source or sink out of range")
	}
	if p.Source == p.Sink {
		return errors.New("mincut: source equals sink")
	}
	for i, e := range p.Edges {
		if e.From < 0 || e.From >= p.N || e.To < 0 || e.To >= p.N {
			return fmt.Errorf("mincut: edge %d has an endpoint out of range", i)
		}
		if math.IsNaN(e.Cap) || e.Cap < 0 {
			return fmt.Errorf("mincut: edge %d has capacity %v", i, e.Cap)
		}
	}
	return nil
}

// CutCost is the summed capacity of the given edges.
func (p *MinCutProblem) CutCost(edges []int) float64 {
	c := 0.0
	for _, i := range edges {
		c += p.Edges[i].Cap
	}
	return c
}

// Separates reports whether removing the given edges leaves no directed
// path from Source to Sink.
func (p *MinCutProblem) Separates(edges []int) bool {
	q := *p
	q.Edges = append([]MinCutEdge(nil), p.Edges...)
	for _, i := range edges {
		q.Edges[i].To = q.Edges[i].From // a self-loop reaches nothing new
	}
	return !q.reach(false)[p.Sink]
}

// prune keeps the edges of a separating cut that are the first cut edge
// on some Source→Sink path: the tail is reachable from Source without
// crossing the cut and the head reaches Sink. The result still separates
// (the first cut edge of every path survives) and costs no more; the
// dropped edges have zero capacity in a minimum cut and would only place
// spill code where it is never needed. The result is ascending.
func (p *MinCutProblem) prune(cut []int) []int {
	w := p.work()
	w.cut = zeroed(w.cut, len(p.Edges))
	cutSet := w.cut
	for _, i := range cut {
		cutSet[i] = true
	}
	fromSrc := p.reachInto(w.seen, false, cutSet)
	toDst := p.reachInto(w.seen2, true, nil)
	w.seen, w.seen2 = fromSrc, toDst
	var out []int
	for _, i := range cut {
		if e := p.Edges[i]; fromSrc[e.From] && toDst[e.To] {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}

// reach marks the nodes reachable from Source, or with backward set the
// nodes that reach Sink.
func (p *MinCutProblem) reach(backward bool) []bool { return p.reachInto(nil, backward, nil) }

// reachInto is reach over the edges not marked in skip (nil: none), with
// the marks in seen's storage.
func (p *MinCutProblem) reachInto(seen []bool, backward bool, skip []bool) []bool {
	first, edges := p.adjacency(backward, skip)
	start := p.Source
	if backward {
		start = p.Sink
	}
	w := p.work()
	seen = zeroed(seen, p.N)
	seen[start] = true
	stack := append(w.stack[:0], start)
	defer func() { w.stack = stack[:0] }()
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range edges[first[v]:first[v+1]] {
			w := p.Edges[e].To
			if backward {
				w = p.Edges[e].From
			}
			if !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return seen
}

// adjacency returns the edges leaving each node (entering it, with
// backward set), those marked in skip (nil: none) left out, in compressed
// rows: node v's are edges[first[v]:first[v+1]], by ascending index.
func (p *MinCutProblem) adjacency(backward bool, skip []bool) (first, edges []int32) {
	tail := func(e MinCutEdge) int {
		if backward {
			return e.To
		}
		return e.From
	}
	w := p.work()
	first = zeroed(w.first, p.N+1)
	for i, e := range p.Edges {
		if skip == nil || !skip[i] {
			first[tail(e)+1]++
		}
	}
	for v := range p.N {
		first[v+1] += first[v]
	}
	edges = fit(w.adj, int(first[p.N]))
	fill := append(w.fill[:0], first[:p.N]...)
	w.first, w.adj, w.fill = first, edges, fill
	for i, e := range p.Edges {
		if skip == nil || !skip[i] {
			v := tail(e)
			edges[fill[v]] = int32(i)
			fill[v]++
		}
	}
	return first, edges
}

// MinCut is a set of edges separating Source from Sink.
type MinCut struct {
	// Edges are indices into MinCutProblem.Edges, ascending. Each is the
	// first cut edge on some Source→Sink path: redundant (zero-capacity)
	// edges are dropped.
	Edges []int
	// Cost is the summed capacity of Edges (+Inf if an uncuttable edge
	// had to be cut, i.e. every Source→Sink path is uncuttable).
	Cost float64
}

// ExactMinCut is the result of SolveExact.
type ExactMinCut struct {
	MinCut
	// SourceSide marks the nodes on the Source side of the partition. It
	// is the largest source side of any minimum cut, so among equal-cost
	// cuts this one lies closest to the Sink. Edges are the edges leaving
	// SourceSide that are the first cut edge on some Source→Sink path (the
	// other edges leaving it have zero capacity).
	SourceSide []bool
}

// SolveExact computes a minimum cut with Dinic's algorithm. +Inf capacities
// are replaced by a finite bound larger than the sum of all finite
// capacities; if the flow reaches that bound every cut crosses an
// uncuttable edge and Cost is +Inf. Residual capacities below a tolerance
// relative to the largest finite capacity count as saturated, so
// fractional frequencies do not cause endless augmentation. The problem
// must be valid (see Validate).
func (p *MinCutProblem) SolveExact() ExactMinCut {
	src, dst := p.Source, p.Sink
	sum, maxc := 0.0, 0.0
	for _, e := range p.Edges {
		if !math.IsInf(e.Cap, 1) {
			sum += e.Cap
			maxc = math.Max(maxc, e.Cap)
		}
	}
	big := 2*sum + 1
	eps := 1e-12 * math.Max(maxc, 1)

	// Arc 2i is edge i, arc 2i+1 its residual reverse.
	n := p.N
	head := make([]int, 2*len(p.Edges))
	res := make([]float64, 2*len(p.Edges))
	adj := make([][]int, n)
	for i, e := range p.Edges {
		c := e.Cap
		if math.IsInf(c, 1) {
			c = big
		}
		head[2*i], res[2*i] = e.To, c
		head[2*i+1], res[2*i+1] = e.From, 0
		adj[e.From] = append(adj[e.From], 2*i)
		adj[e.To] = append(adj[e.To], 2*i+1)
	}

	level := make([]int, n)
	next := make([]int, n)
	bfs := func() bool {
		for i := range level {
			level[i] = -1
		}
		level[src] = 0
		q := []int{src}
		for len(q) > 0 {
			v := q[0]
			q = q[1:]
			for _, a := range adj[v] {
				if w := head[a]; res[a] > eps && level[w] < 0 {
					level[w] = level[v] + 1
					q = append(q, w)
				}
			}
		}
		return level[dst] >= 0
	}
	var dfs func(v int, f float64) float64
	dfs = func(v int, f float64) float64 {
		if v == dst {
			return f
		}
		for ; next[v] < len(adj[v]); next[v]++ {
			a := adj[v][next[v]]
			w := head[a]
			if res[a] <= eps || level[w] != level[v]+1 {
				continue
			}
			if d := dfs(w, math.Min(f, res[a])); d > 0 {
				res[a] -= d
				res[a^1] += d
				return d
			}
		}
		return 0
	}
	flow := 0.0
	for bfs() {
		for i := range next {
			next[i] = 0
		}
		for {
			f := dfs(src, math.Inf(1))
			if f <= 0 {
				break
			}
			flow += f
		}
	}

	// The nodes that can still reach the Sink in the residual graph form
	// the smallest sink side among all minimum cuts.
	toSink := make([]bool, n)
	toSink[dst] = true
	stack := []int{dst}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, a := range adj[v] {
			// Arc a leaves v; its partner a^1 enters v from head[a].
			if u := head[a]; !toSink[u] && res[a^1] > eps {
				toSink[u] = true
				stack = append(stack, u)
			}
		}
	}
	side := make([]bool, n)
	for v := range side {
		side[v] = !toSink[v]
	}
	var cut []int
	for i, e := range p.Edges {
		if side[e.From] && !side[e.To] {
			cut = append(cut, i)
		}
	}
	cut = p.prune(cut)
	return ExactMinCut{MinCut: MinCut{Edges: cut, Cost: p.CutCost(cut)}, SourceSide: side}
}

// ContractionOptions configures SolveContraction.
type ContractionOptions struct {
	// ExactResidual replaces the thesis's heuristic fallback: when no
	// rule applies, the contracted remainder is solved with SolveExact
	// and the result is exact.
	ExactResidual bool
}

// ContractionRule names a contraction rule (see SolveContraction).
type ContractionRule int

// The contraction rules, in the order SolveContraction tries them. The
// letters follow §3.5.2; RuleReverse and RuleRoot are additions that are
// exact for directed cuts.
const (
	RuleSourceSink ContractionRule = iota // a) Source→Sink edge goes to the solution
	RuleReverse                           // edge into Source or out of Sink is deleted
	RuleSelfLoop                          // c) self-loop is deleted
	RuleLeaf                              // d) edge into a dead end is deleted
	RuleRoot                              // d') edge out of an unreachable start is deleted
	RuleWeight                            // b) edge heavier than the current cut
	RulePredMerge                         // e) single in-edge at least the out-weight
	RuleSuccMerge                         // f) single out-edge heavier than the in-weight
	RuleDuplicate                         // g) parallel edges folded into one
	NumContractionRules
)

var ruleNames = [...]string{"a:source-sink", "reverse", "c:self-loop", "d:leaf", "d':root",
	"b:weight", "e:pred-merge", "f:succ-merge", "g:duplicate"}

// String names the rule as the thesis labels it.
func (r ContractionRule) String() string {
	if r >= 0 && int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("ContractionRule(%d)", int(r))
}

// ContractionCut is the result of SolveContraction.
type ContractionCut struct {
	MinCut
	// Fallback reports that the heuristic fallback fired at least once;
	// the cut then separates Source from Sink but may cost more than a
	// minimum cut. FallbackMerges counts the fallback steps.
	Fallback       bool
	FallbackMerges int
	// ExactResidual reports that, with ContractionOptions.ExactResidual,
	// a remainder was handed to SolveExact.
	ExactResidual bool
	// Rules counts the applications of each rule.
	Rules [NumContractionRules]int
}

// SolveContraction finds an s–t cut by graph contraction (§3.5.2, Alg. 7),
// with the rules restated for directed cuts: a cut is the set of edges
// leaving a node set S that holds Source and not Sink. Every rule below
// keeps the minimum cut cost of the contracted graph plus the cost of the
// edges already in the solution equal to the minimum cut of the input, so
// a run without the fallback is exact. Vertices merge into Source or Sink,
// never the reverse; merging two vertices folds parallel edges (rule g)
// and drops the self-loops it creates (rule c). Each step, the first
// applicable rule in this order is applied:
//
//	a)  Source→Sink edge: every cut contains it; add its locations to
//	    the solution and remove it.
//	rev Edge into Source or out of Sink: a directed cut never contains
//	    it; delete it. (Source and Sink gain such edges by merging.)
//	c)  Self-loop: delete it.
//	d)  Leaf: an edge into a vertex other than Sink with no out-edges
//	    lies on no Source→Sink path; delete it.
//	d') Root, the mirror of d): an edge out of a vertex other than
//	    Source with no in-edges; delete it.
//	b)  Weight: with Wcur = min(weight out of Source, weight into Sink),
//	    an edge heavier than Wcur is in no minimum cut. Source→v: merge v
//	    into Source; u→Sink: merge u into Sink. Any other edge is made
//	    uncuttable (+Inf). The thesis merges both endpoints of every such
//	    edge, which for directed cuts forbids cuts with the head on the
//	    Source side and can lose optimality, so interior edges are only
//	    pinned; pinned edges then feed rules e) and f).
//	e)  Predecessor merge: V (not Source or Sink) has one in-edge
//	    U→V whose weight is ≥ the total weight out of V: merge V into U.
//	    At equality this keeps the cut on V's out-edges, closer to Sink.
//	f)  Successor merge: V (not Source or Sink) has one out-edge V→W
//	    whose weight is > the total weight into V: merge V into W. Strict,
//	    so at equality the cut stays on V→W, closer to Sink.
//	g)  Duplicate edges are folded into one edge (weights summed,
//	    locations joined) whenever they appear, including at start.
//
// Rule h) of the thesis (merge along one edge of a 2-cycle u⇄v) is not
// applied: it is not exact for directed cuts (Source→u 10, u→v 1, v→Sink
// 10, v→u 1 has minimum cut 1 on u→v, which merging u and v forbids).
//
// When no rule applies and Source still has out-edges and Sink in-edges,
// the fallback of Alg. 7 merges the endpoints of a highest-weight edge,
// preferring among equal weights one that touches Source or Sink (merging
// into the terminal), then the lowest edge index; otherwise the head is
// merged into the tail. Merging only adds constraints, so the cut still
// separates Source from Sink, but it may cost more than the minimum. With
// opts.ExactResidual the remainder is instead solved by SolveExact and the
// whole result is a minimum cut.
//
// The problem must be valid (see Validate). Each step removes an edge or
// pins a finite one, so the loop runs at most 2·len(Edges) times; each step
// scans the contracted graph, so the cost is quadratic in the edge count.
func (p *MinCutProblem) SolveContraction(opts ContractionOptions) ContractionCut {
	w := p.work()
	g := &w.g
	g.reset(p)
	var out ContractionCut
	var sol []int
	for g.outDeg(g.s) > 0 && g.inDeg(g.t) > 0 {
		if g.step(&out.Rules, &sol) {
			continue
		}
		if opts.ExactResidual {
			sol = append(sol, g.solveResidual()...)
			out.ExactResidual = true
			break
		}
		g.fallback()
		out.Fallback = true
		out.FallbackMerges++
	}
	out.Rules[RuleDuplicate] += g.folds
	out.Rules[RuleSelfLoop] += g.loops
	out.Edges = p.prune(sol)
	out.Cost = p.CutCost(sol)
	return out
}

// cedge is an edge of the contracted graph.
type cedge struct {
	u, v  int
	w     float64
	locs  []int // original edge indices
	alive bool
}

// contraction is the contracted graph: vertices keep their original
// numbers (a merged vertex lives on as the one it was merged into), edges
// are kept in per-vertex adjacency lists and a pair index, which does the
// duplicate detection the thesis assigns to an adjacency matrix.
type contraction struct {
	s, t    int
	e       []cedge
	out, in [][]int        // alive edge ids per vertex
	pair    map[[2]int]int // with byPair
	byPair  bool
	folds   int // rule g applications during merges
	loops   int // rule c applications during merges
	// Storage kept by reset: the per-vertex degrees, the array the
	// vertices' edge lists are carved from and the edges' locations.
	// ids holds the edges a merge moves.
	nOut, nIn, lists, locs, ids []int
}

// reset makes g the contracted graph of p before any contraction, reusing
// g's storage.
func (g *contraction) reset(p *MinCutProblem) {
	g.s, g.t = p.Source, p.Sink
	g.folds, g.loops = 0, 0
	g.e = fit(g.e, len(p.Edges))[:0]
	g.out, g.in = fit(g.out, p.N), fit(g.in, p.N)
	// Small graphs find parallel edges in the tail's list; the pair index
	// pays off on large ones.
	g.byPair = len(p.Edges) > contractionPairEdges
	if g.byPair {
		if g.pair == nil {
			g.pair = make(map[[2]int]int, len(p.Edges))
		} else {
			clear(g.pair)
		}
	}
	// The vertices' edge lists and the edges' locations are carved out of
	// shared arrays, each with room for what it starts with (merges that
	// add more copy it out).
	g.nOut, g.nIn = zeroed(g.nOut, p.N), zeroed(g.nIn, p.N)
	for _, e := range p.Edges {
		g.nOut[e.From]++
		g.nIn[e.To]++
	}
	g.lists = fit(g.lists, 2*len(p.Edges))
	lists := g.lists
	for v := range p.N {
		g.out[v], lists = lists[:0:g.nOut[v]], lists[g.nOut[v]:]
		g.in[v], lists = lists[:0:g.nIn[v]], lists[g.nIn[v]:]
	}
	g.locs = fit(g.locs, len(p.Edges))
	for i, e := range p.Edges {
		g.locs[i] = i
		g.add(e.From, e.To, e.Cap, g.locs[i:i+1:i+1])
	}
}

// contractionPairEdges is the size of the largest contraction that finds
// parallel edges by scanning a vertex's list rather than in the pair
// index.
const contractionPairEdges = 32

// lookup returns the live edge u→v.
func (g *contraction) lookup(u, v int) (int, bool) {
	if g.byPair {
		id, ok := g.pair[[2]int{u, v}]
		return id, ok
	}
	for _, id := range g.out[u] {
		if g.e[id].v == v {
			return id, true
		}
	}
	return 0, false
}

// add inserts u→v, folding it into an existing parallel edge (rule g).
// Self-loops are kept for rule c to count; they are dropped on merges.
func (g *contraction) add(u, v int, w float64, locs []int) {
	if id, ok := g.lookup(u, v); ok {
		g.e[id].w += w
		g.e[id].locs = append(g.e[id].locs, locs...)
		g.folds++
		return
	}
	id := len(g.e)
	g.e = append(g.e, cedge{u: u, v: v, w: w, locs: locs, alive: true})
	if g.byPair {
		g.pair[[2]int{u, v}] = id
	}
	g.out[u] = append(g.out[u], id)
	g.in[v] = append(g.in[v], id)
}

func removeID(list []int, id int) []int {
	for i, x := range list {
		if x == id {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

// remove deletes edge id and returns its locations.
func (g *contraction) remove(id int) []int {
	e := &g.e[id]
	e.alive = false
	g.out[e.u] = removeID(g.out[e.u], id)
	g.in[e.v] = removeID(g.in[e.v], id)
	if g.byPair {
		delete(g.pair, [2]int{e.u, e.v})
	}
	return e.locs
}

// merge moves every edge of x onto y; x disappears.
func (g *contraction) merge(x, y int) {
	ids := append(append(g.ids[:0], g.out[x]...), g.in[x]...)
	defer func() { g.ids = ids[:0] }()
	for _, id := range ids {
		e := g.e[id]
		if !e.alive {
			continue // a self-loop on x, already seen in the out list
		}
		g.remove(id)
		u, v := e.u, e.v
		if u == x {
			u = y
		}
		if v == x {
			v = y
		}
		if u == v {
			g.loops++
			continue
		}
		g.add(u, v, e.w, e.locs)
	}
}

func (g *contraction) outDeg(v int) int { return len(g.out[v]) }
func (g *contraction) inDeg(v int) int  { return len(g.in[v]) }

func (g *contraction) weight(ids []int) float64 {
	w := 0.0
	for _, id := range ids {
		w += g.e[id].w
	}
	return w
}

// step applies the first applicable rule and reports whether one applied.
func (g *contraction) step(count *[NumContractionRules]int, sol *[]int) bool {
	s, t := g.s, g.t
	// a) Source→Sink.
	if id, ok := g.lookup(s, t); ok {
		*sol = append(*sol, g.remove(id)...)
		count[RuleSourceSink]++
		return true
	}
	// Edges into Source or out of Sink.
	if len(g.in[s]) > 0 {
		g.remove(g.in[s][0])
		count[RuleReverse]++
		return true
	}
	if len(g.out[t]) > 0 {
		g.remove(g.out[t][0])
		count[RuleReverse]++
		return true
	}
	// c) Self-loops (only present in the input; merges drop them).
	for id := range g.e {
		if e := &g.e[id]; e.alive && e.u == e.v {
			g.remove(id)
			count[RuleSelfLoop]++
			return true
		}
	}
	// d) leaves and d') roots.
	for v := range g.out {
		if v != t && len(g.out[v]) == 0 && len(g.in[v]) > 0 {
			g.remove(g.in[v][0])
			count[RuleLeaf]++
			return true
		}
		if v != s && len(g.in[v]) == 0 && len(g.out[v]) > 0 {
			g.remove(g.out[v][0])
			count[RuleRoot]++
			return true
		}
	}
	// b) Edge heavier than the current cut.
	cur := math.Min(g.weight(g.out[s]), g.weight(g.in[t]))
	for id := range g.e {
		e := &g.e[id]
		if !e.alive || !(e.w > cur) {
			continue
		}
		switch {
		case e.u == s:
			g.merge(e.v, s)
		case e.v == t:
			g.merge(e.u, t)
		case math.IsInf(e.w, 1):
			continue // already pinned
		default:
			e.w = math.Inf(1)
		}
		count[RuleWeight]++
		return true
	}
	// e) and f).
	for v := range g.out {
		if v == s || v == t {
			continue
		}
		if len(g.in[v]) == 1 {
			e := g.e[g.in[v][0]]
			if e.w >= g.weight(g.out[v]) {
				g.merge(v, e.u)
				count[RulePredMerge]++
				return true
			}
		}
		if len(g.out[v]) == 1 {
			e := g.e[g.out[v][0]]
			if e.w > g.weight(g.in[v]) {
				g.merge(v, e.v)
				count[RuleSuccMerge]++
				return true
			}
		}
	}
	return false
}

// fallback merges the endpoints of a highest-weight edge, preferring one
// incident to Source or Sink, then the lowest id.
func (g *contraction) fallback() {
	best := -1
	bestTerm := false
	for id := range g.e {
		e := &g.e[id]
		if !e.alive {
			continue
		}
		term := e.u == g.s || e.v == g.t
		if best < 0 || e.w > g.e[best].w || (e.w == g.e[best].w && term && !bestTerm) {
			best, bestTerm = id, term
		}
	}
	e := g.e[best]
	switch {
	case e.u == g.s:
		g.merge(e.v, g.s)
	case e.v == g.t:
		g.merge(e.u, g.t)
	default:
		g.merge(e.v, e.u)
	}
}

// solveResidual solves what is left of the contracted graph exactly and
// returns the locations of the cut edges.
func (g *contraction) solveResidual() []int {
	q := NewMinCutProblem(len(g.out), g.s, g.t)
	var ids []int
	for id := range g.e {
		if e := &g.e[id]; e.alive {
			q.AddEdge(e.u, e.v, e.w)
			ids = append(ids, id)
		}
	}
	var locs []int
	for _, i := range q.SolveExact().Edges {
		locs = append(locs, g.e[ids[i]].locs...)
	}
	return locs
}

// greedyFlow returns the value of a flow from Source to Sink found
// greedily, along paths with capacity left, without the reverse edges a
// maximum flow needs: a lower bound on the minimum cut's cost. When it
// reaches what a placement costs already, the placement is a minimum cut
// and no solver need run; that is the common case and costs a walk along
// each path.
func (p *MinCutProblem) greedyFlow() float64 {
	first, out := p.adjacency(false, nil)
	w := p.work()
	res := fit(w.res, len(p.Edges))
	for e, x := range p.Edges {
		res[e] = x.Cap
	}
	seen := zeroed(w.seen, p.N)
	path := w.path[:0]
	defer func() { w.res, w.seen, w.path = res, seen, path[:0] }()
	const eps = 1e-9
	// find extends path from node n to the Sink over edges with residual
	// capacity.
	var find func(n int) bool
	find = func(n int) bool {
		if n == p.Sink {
			return true
		}
		seen[n] = true
		for _, e := range out[first[n]:first[n+1]] {
			if res[e] > eps && !seen[p.Edges[e].To] {
				path = append(path, e)
				if find(p.Edges[e].To) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		return false
	}
	flow := 0.0
	for _, e := range out[first[p.Source]:first[p.Source+1]] {
		for res[e] > eps {
			clear(seen)
			seen[p.Source] = true
			path = append(path[:0], e)
			if !find(p.Edges[e].To) {
				break
			}
			push := math.Inf(1)
			for _, x := range path {
				push = math.Min(push, res[x])
			}
			for _, x := range path {
				res[x] -= push
			}
			flow += push
		}
	}
	return flow
}
