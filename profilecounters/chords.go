package profilecounters

import (
	"cmp"
	"slices"
)

// Counting in compiled code.
//
// Compiled code counts fewer edges than the interpreter: only the chords
// of a spanning tree of the function's flow graph (Knuth and Stevenson's
// optimal placement, as in Ball and Larus, "Optimally profiling and
// tracing programs"). The flow graph is the block graph plus a virtual
// exit node X, with an edge from every block that has no successor (it
// returns or traps) to X and an edge from X to the entry block, the
// function's calls. Every node conserves flow (what enters leaves), so
// the counts of the tree's edges follow from those of the chords. The
// tree is a maximum spanning tree by expected frequency times the cost of
// counting the edge, so the hot edges go uncounted. Every self-loop is a
// chord, which no tree contains (lower keeps a self-loop's count in a
// register while the loop runs and adds it to its counter when the loop
// is left).
//
// The edge X -> entry (the entry counter, one increment per call) is a
// chord too, so that the calls are counted exactly even when some do not
// return, with one exception that costs less: when no instruction of the
// entry block can end a call and no edge enters it, the entry block's
// successor edges are chords instead and the calls are their sum. Each
// call then takes exactly one of them, so a function whose entry block
// only tests its arguments (a recursive function's base case) counts each
// call once, where the entry counter and a chord of the rest would count
// some calls twice. The plan takes that form when its expected cost is
// lower.
//
// A counted edge of a branch or switch costs a block of its own and a
// jump, except when it goes forward to a block that no other edge enters
// and leaves a block without a self-loop: it is then counted at the start
// of its target (AtHead).
//
// A function compiled with on-stack-replacement entries (frames the
// interpreter ran up to a loop header continue there in compiled code)
// has one more edge per entry, from X to the header, each a chord with a
// slot after the exit edges' (OSRCounter): the entries are flow that
// enters the graph elsewhere than at the entry block, counted so that
// conservation still holds (lower's entry path counts its entry and takes
// back the call the entry block counted).
//
// Conservation fails where a call ends inside a block: a trap, a
// cancellation, fuel running out, or a call that moved into another
// activation (on-stack replacement). The counts derived then are off by
// those few executions (the calls are not); negative results are clamped
// to zero. A profile is a heuristic, so this is accepted.

// ChordPlan says which edges of a function compiled code counts and
// derives the others. Counter slots: EntryCounter, then EdgeCounter(e)
// for every edge e of the layout (as the interpreter's), then one slot per
// exit edge (ExitCounter). Only the slots of chords are incremented.
type ChordPlan struct {
	layout *Layout
	// exitBlocks lists the blocks without successors, in block order;
	// exit edge k leaves exitBlocks[k].
	exitBlocks []int32
	// exitOf maps a block to its exit edge plus one (0: none).
	exitOf []int32
	// osrHeads lists the blocks of the on-stack-replacement entries;
	// entry k enters osrHeads[k] (OSRCounter).
	osrHeads []int32
	// selfLoop is set for every block with an edge to itself.
	selfLoop []bool
	// chord is set for every counted slot.
	chord []bool
	// numChords counts the counted slots.
	numChords int
	// entryByBlock is set when the calls are not counted but derived from
	// the entry block's successor edges, all chords.
	entryByBlock bool
}

// splitCost is how much more counting an edge costs when it needs a block
// of its own, relative to counting in an existing block.
const splitCost = 1.5

// NewChordPlan chooses the edges of l to count: the complement of a
// maximum spanning tree, weighting each edge by its expected executions
// under prof (nil: the static estimate), times splitCost for an edge
// whose counter would need a block of its own.
func NewChordPlan(l *Layout, prof *Profile) *ChordPlan {
	return NewChordPlanOSR(l, prof, nil)
}

// NewChordPlanOSR is NewChordPlan for a function with on-stack-replacement
// entries at the blocks starting at the bytecode offsets osr (lower's
// Options.OSRHeaders, in that order): each entry's edge from X is a chord
// of its own (OSRCounter). An offset that does not start a block is left
// out of the graph, for lower to refuse.
func NewChordPlanOSR(l *Layout, prof *Profile, osr []int) *ChordPlan {
	if prof == nil || prof.Layout != l {
		prof = l.Profile(nil)
	}
	nb := len(l.Blocks)
	p := &ChordPlan{layout: l, exitOf: make([]int32, nb), selfLoop: make([]bool, nb)}
	osrAtEntry := false
	for _, pc := range osr {
		b := int32(-1)
		if pc >= 0 && pc < len(l.blockAt) && int(l.Blocks[l.blockAt[pc]].Start) == pc {
			b = l.blockAt[pc]
		}
		p.osrHeads = append(p.osrHeads, b)
		osrAtEntry = osrAtEntry || b == 0
	}
	for _, ed := range l.Edges {
		if ed.To == ed.From {
			p.selfLoop[ed.From] = true
		}
	}
	for b := range l.Blocks {
		if l.Blocks[b].NumEdges == 0 {
			p.exitBlocks = append(p.exitBlocks, int32(b))
			p.exitOf[b] = int32(len(p.exitBlocks))
		}
	}
	// Candidate tree edges, heaviest first: the layout's edges, then the
	// exit edges. Node nb is X.
	cands := make([]chordCand, 0, len(l.Edges)+len(p.exitBlocks))
	for e, ed := range l.Edges {
		w := prof.BlockFreq[ed.From] * prof.EdgeProb[e]
		if ed.Kind != EdgeJump && ed.Kind != EdgeFallthrough && ed.To > ed.From && !p.AtHead(e) {
			// Counting a forward edge of a branch or switch takes a block
			// of its own and a jump; the others are counted in place (a
			// backward edge has its poll block anyway).
			w *= splitCost
		}
		cands = append(cands, chordCand{int32(EdgeCounter(e)), int32(ed.From), int32(ed.To), w})
	}
	for k, b := range p.exitBlocks {
		cands = append(cands, chordCand{int32(p.ExitCounter(k)), b, int32(nb), prof.BlockFreq[b]})
	}
	// Ties keep the layout's order, so that the plan is deterministic.
	slices.SortStableFunc(cands, func(x, y chordCand) int { return cmp.Compare(y.weight, x.weight) })
	chord, cost := p.spanningTree(cands, false)
	cost += prof.BlockFreq[0] // the entry counter
	if entry := &l.Blocks[0]; l.entryCannotEnd && len(l.Preds(0)) == 0 && entry.NumEdges > 1 && !osrAtEntry {
		if byBlock, c := p.spanningTree(cands, true); c < cost {
			chord, p.entryByBlock = byBlock, true
		}
	}
	p.chord = chord
	for _, c := range p.chord {
		if c {
			p.numChords++
		}
	}
	return p
}

// chordCand is an edge of the flow graph that may join the spanning tree:
// its counter slot, its ends (node len(Blocks) is X) and its weight.
type chordCand struct {
	slot     int32
	from, to int32
	weight   float64
}

// spanningTree returns the chords of a maximum spanning tree of the flow
// graph, cands sorted heaviest first, and their total weight. The entry
// edge X -> entry is a chord, or with entryByBlock a tree edge and the
// entry block's successor edges chords.
func (p *ChordPlan) spanningTree(cands []chordCand, entryByBlock bool) ([]bool, float64) {
	l := p.layout
	nb := len(l.Blocks)
	chord := make([]bool, p.NumCounters())
	parent := make([]int32, nb+1)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	cost := 0.0
	if entryByBlock {
		parent[find(int32(nb))] = find(0)
		first := l.Blocks[0].FirstEdge
		for e := first; e < first+l.Blocks[0].NumEdges; e++ {
			chord[EdgeCounter(int(e))] = true
		}
	} else {
		chord[EntryCounter] = true
	}
	for k := range p.osrHeads {
		chord[p.OSRCounter(k)] = true
	}
	for _, c := range cands {
		if chord[c.slot] {
			cost += c.weight // forced
			continue
		}
		a, b := find(c.from), find(c.to)
		if a == b {
			chord[c.slot] = true // closes a cycle (or is a self-loop)
			cost += c.weight
			continue
		}
		parent[a] = b
	}
	return chord, cost
}

// AtHead reports whether compiled code counts edge e, when it is a chord,
// at the start of its target block: e is a forward edge of a branch or
// switch, no other edge enters its target, and it leaves a block without
// a self-loop (whose count in a register the edge adds to its counter,
// in a block of the edge's own).
func (p *ChordPlan) AtHead(e int) bool {
	l := p.layout
	ed := &l.Edges[e]
	return ed.Kind != EdgeJump && ed.Kind != EdgeFallthrough && ed.To > ed.From &&
		len(l.Preds(int(ed.To))) == 1 && !p.selfLoop[ed.From]
}

// EntryByBlock reports whether the calls are derived, not counted: the
// entry block's successor edges are counted instead (see the package's
// notes on counting in compiled code).
func (p *ChordPlan) EntryByBlock() bool { return p.entryByBlock }

// Layout returns the layout the plan counts.
func (p *ChordPlan) Layout() *Layout { return p.layout }

// NumCounters returns the number of counter slots compiled code needs.
func (p *ChordPlan) NumCounters() int {
	return p.layout.NumCounters() + len(p.exitBlocks) + len(p.osrHeads)
}

// OSRCounter returns the slot of on-stack-replacement entry k (from 0).
func (p *ChordPlan) OSRCounter(k int) int { return p.layout.NumCounters() + len(p.exitBlocks) + k }

// NumOSR returns the number of on-stack-replacement entries.
func (p *ChordPlan) NumOSR() int { return len(p.osrHeads) }

// NumChords returns how many slots compiled code increments, the entry
// counter among them unless the calls are derived (EntryByBlock).
func (p *ChordPlan) NumChords() int { return p.numChords }

// ExitCounter returns the slot of exit edge k.
func (p *ChordPlan) ExitCounter(k int) int { return p.layout.NumCounters() + k }

// Counted reports whether compiled code increments slot.
func (p *ChordPlan) Counted(slot int) bool { return p.chord[slot] }

// ExitSlot returns the slot of the exit edge of block b, which has no
// successors, or -1 when b has successors.
func (p *ChordPlan) ExitSlot(b int) int {
	if k := p.exitOf[b]; k > 0 {
		return p.ExitCounter(int(k - 1))
	}
	return -1
}

// Reconstruct turns the counters compiled code kept (NumCounters slots,
// chords filled in) into counters in the layout's form (Layout.NumCounters
// slots: the entry counter and every edge, fall-through edges included),
// deriving each tree edge from flow conservation: a node with one edge of
// unknown count left determines it.
func (p *ChordPlan) Reconstruct(counts []uint64) []uint64 {
	l := p.layout
	nb := len(l.Blocks)
	n := p.NumCounters()
	val := make([]int64, n)
	known := make([]bool, n)
	for s := range n {
		if p.chord[s] {
			val[s], known[s] = int64(counts[s]), true
		}
	}
	if p.entryByBlock {
		// The calls, from the entry block, which no call ends inside:
		// exact even when the rest of the graph does not conserve flow.
		first := l.Blocks[0].FirstEdge
		for e := first; e < first+l.Blocks[0].NumEdges; e++ {
			val[EntryCounter] += val[EdgeCounter(int(e))]
		}
		known[EntryCounter] = true
	}
	// Incidence lists of the flow graph, X being node nb: slot, and
	// whether the edge enters the node.
	type inc struct {
		slot int32
		in   bool
	}
	deg := make([]int32, nb+2)
	edge := func(s int) (from, to int) {
		switch {
		case s == EntryCounter:
			return nb, 0
		case s < l.NumCounters():
			ed := &l.Edges[s-1]
			return int(ed.From), int(ed.To)
		case s < l.NumCounters()+len(p.exitBlocks):
			return int(p.exitBlocks[s-l.NumCounters()]), nb
		}
		if b := p.osrHeads[s-l.NumCounters()-len(p.exitBlocks)]; b >= 0 {
			return nb, int(b)
		}
		return nb, nb // an entry lower refuses: no flow
	}
	for s := range n {
		from, to := edge(s)
		if from == to {
			continue // a self-loop is a chord and cancels out
		}
		deg[from+1]++
		deg[to+1]++
	}
	for v := 1; v < len(deg); v++ {
		deg[v] += deg[v-1]
	}
	incs := make([]inc, deg[nb+1])
	fill := slices.Clone(deg[:nb+1])
	for s := range n {
		from, to := edge(s)
		if from == to {
			continue
		}
		incs[fill[from]] = inc{int32(s), false}
		fill[from]++
		incs[fill[to]] = inc{int32(s), true}
		fill[to]++
	}
	unknown := make([]int32, nb+1)
	var queue []int32
	for v := range nb + 1 {
		for _, x := range incs[deg[v]:deg[v+1]] {
			if !known[x.slot] {
				unknown[v]++
			}
		}
		if unknown[v] == 1 {
			queue = append(queue, int32(v))
		}
	}
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if unknown[v] != 1 {
			continue
		}
		// in - out over the known edges; the unknown edge balances it.
		var net int64
		missing := inc{slot: -1}
		for _, x := range incs[deg[v]:deg[v+1]] {
			switch {
			case !known[x.slot]:
				missing = x
			case x.in:
				net += val[x.slot]
			default:
				net -= val[x.slot]
			}
		}
		s := missing.slot
		if missing.in {
			val[s] = -net
		} else {
			val[s] = net
		}
		known[s] = true
		from, to := edge(int(s))
		for _, w := range [2]int{from, to} {
			unknown[w]--
			if unknown[w] == 1 {
				queue = append(queue, int32(w))
			}
		}
	}
	out := make([]uint64, l.NumCounters())
	for s := range out {
		if val[s] > 0 {
			out[s] = uint64(val[s])
		}
	}
	return out
}
