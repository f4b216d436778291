package cfg

// exitListFrequencies is the propagation Frequencies used before it handled
// each edge once: every loop keeps the list of its exit edges, copied into
// each enclosing loop the edge leaves, and the item representing a node in
// a loop is found by walking up the forest. It computes the same
// frequencies for any forest, in time that grows with the nesting depth,
// and serves the tests as an oracle.
func exitListFrequencies(g *Graph, loops *LoopForest, prob [][]float64) []float64 {
	n := g.Len()
	nl := len(loops.Loops)
	fc := &exitListComputer{
		g: g, loops: loops, prob: prob,
		rel:   make([]float64, n+nl),
		mass:  make([]float64, n+nl),
		indeg: make([]int, n+nl),
		done:  make([]bool, n+nl),
		cp:    make([]float64, nl),
		exits: make([][]exitListEdge, nl),
	}
	for l := nl - 1; l >= 0; l-- {
		fc.solveLoop(l)
	}
	// Top level: every reachable node outside all loops, plus the outermost
	// loops, with unit mass injected at the entry.
	freq := make([]float64, n)
	if n == 0 {
		return freq
	}
	fc.propagate(-1, []int{g.Entry}, 1)
	loopMass := make([]float64, nl)
	for l := 0; l < nl; l++ {
		if loops.Loops[l].Parent < 0 {
			loopMass[l] = fc.rel[n+l]
		}
	}
	for u := 0; u < n; u++ {
		if loops.LoopOf[u] < 0 {
			freq[u] = fc.rel[u]
		}
	}
	for l := 0; l < nl; l++ { // preorder: parents first
		scale := loopMass[l] / (1 - fc.cp[l])
		for _, u := range loops.Loops[l].Blocks {
			if loops.LoopOf[u] == l {
				freq[u] = fc.rel[u] * scale
			}
		}
		for _, c := range loops.Loops[l].Children {
			loopMass[c] = fc.rel[n+c] * scale
		}
	}
	return freq
}

type exitListEdge struct {
	to     int
	weight float64 // expected traversals per entry into the loop
}

type exitListComputer struct {
	g     *Graph
	loops *LoopForest
	prob  [][]float64
	// rel is, per item (node u, or n+l for loop l), the expected number of
	// entries per entry into the item's parent loop, not counting repeated
	// iterations of the parent.
	rel   []float64
	mass  []float64 // scratch for propagate
	indeg []int     // scratch for propagate
	done  []bool    // scratch for propagate
	cp    []float64 // cyclic probability per loop
	exits [][]exitListEdge
}

// item returns the item that represents node v inside loop l (-1 for the
// top level): v itself when l is v's innermost loop, otherwise the child
// loop of l that contains v. ok is false when v is outside l.
func (fc *exitListComputer) item(v, l int) (int, bool) {
	x := fc.loops.LoopOf[v]
	if x == l {
		return v, true
	}
	if x < 0 || (l >= 0 && !fc.loops.Contains(l, v)) {
		return 0, false
	}
	for fc.loops.Loops[x].Parent != l {
		x = fc.loops.Loops[x].Parent
	}
	return fc.g.Len() + x, true
}

func (fc *exitListComputer) solveLoop(l int) {
	lp := &fc.loops.Loops[l]
	cp := fc.propagate(l, lp.Headers, 1/float64(len(lp.Headers)))
	if cp > MaxCyclicProbability {
		cp = MaxCyclicProbability
	}
	fc.cp[l] = cp
	for i := range fc.exits[l] {
		fc.exits[l][i].weight /= 1 - cp
	}
}

// propagate distributes mass through the items of loop l (-1: the top
// level), starting with the given mass at each source node, in topological
// order. It records each item's mass in rel, records the loop's exits, and
// returns the mass that flows back into the loop's headers.
func (fc *exitListComputer) propagate(l int, sources []int, start float64) float64 {
	n := fc.g.Len()
	var members []int // items of l
	isHeader := func(v int) bool {
		if l < 0 {
			return false
		}
		for _, h := range fc.loops.Loops[l].Headers {
			if h == v {
				return true
			}
		}
		return false
	}
	if l < 0 {
		for _, u := range fc.g.Postorder() {
			if fc.loops.LoopOf[u] < 0 {
				members = append(members, u)
			}
		}
		for c := range fc.loops.Loops {
			if fc.loops.Loops[c].Parent < 0 {
				members = append(members, n+c)
			}
		}
	} else {
		for _, u := range fc.loops.Loops[l].Blocks {
			if fc.loops.LoopOf[u] == l {
				members = append(members, u)
			}
		}
		for _, c := range fc.loops.Loops[l].Children {
			members = append(members, n+c)
		}
	}
	// out calls visit for every edge leaving item x with its weight per unit
	// of x's mass.
	out := func(x int, visit func(to int, w float64)) {
		if x < n {
			for i, v := range fc.g.Succs[x] {
				visit(v, fc.prob[x][i])
			}
			return
		}
		for _, e := range fc.exits[x-n] {
			visit(e.to, e.weight)
		}
	}
	// Kahn's algorithm over the DAG of items.
	indeg, done := fc.indeg, fc.done
	for _, x := range members {
		indeg[x], done[x] = 0, false
	}
	for _, x := range members {
		out(x, func(v int, _ float64) {
			if isHeader(v) {
				return
			}
			if y, ok := fc.item(v, l); ok && y != x {
				indeg[y]++
			}
		})
	}
	for _, x := range members {
		fc.mass[x] = 0
	}
	for _, s := range sources {
		if y, ok := fc.item(s, l); ok {
			fc.mass[y] += start
		}
	}
	queue := make([]int, 0, len(members))
	for _, x := range members {
		if indeg[x] == 0 {
			queue = append(queue, x)
		}
	}
	back := 0.0
	for finished := 0; finished < len(members); {
		if len(queue) == 0 {
			// A cycle survived the decomposition (it cannot for graphs the
			// forest was built from); release the first pending item.
			for _, x := range members {
				if !done[x] {
					queue = append(queue, x)
					break
				}
			}
		}
		x := queue[0]
		queue = queue[1:]
		if done[x] {
			continue
		}
		done[x] = true
		finished++
		m := fc.mass[x]
		fc.rel[x] = m
		out(x, func(v int, w float64) {
			flow := m * w
			if isHeader(v) {
				back += flow
				return
			}
			y, ok := fc.item(v, l)
			if !ok {
				fc.exits[l] = append(fc.exits[l], exitListEdge{to: v, weight: flow})
				return
			}
			if y == x {
				return
			}
			fc.mass[y] += flow
			indeg[y]--
			if indeg[y] == 0 {
				queue = append(queue, y)
			}
		})
	}
	return back
}
