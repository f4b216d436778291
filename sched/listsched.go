package sched

// MaxCandidates bounds how many ready nodes the list schedulers examine in
// one step: the nodes are examined in priority order and the search stops
// after this many (or at the first that cannot be beaten). A region with
// at most this many nodes ready at once is scheduled exactly as the
// thesis's scheduler does, examining every ready node; wider regions (a
// block of thousands of independent instructions) would otherwise cost
// time quadratic in their size, since every step would rank every ready
// node. Production schedulers bound their ready lists the same way.
const MaxCandidates = 64

// readyState is the bookkeeping of a cycle-driven list scheduler over one
// dependence graph: which nodes have all their predecessors scheduled and
// may issue in the current cycle (ready, a heap by priority),
// which have all their predecessors scheduled but wait for an operand
// (waiting, a heap by earliest cycle), the earliest cycle each may issue
// (etime), and the functional units used in the current cycle. The
// integrated pass and the plain list scheduler share it; they differ in
// how they choose among the candidates. Every operation is logarithmic in the
// number of available nodes.
type readyState struct {
	g        *depGraph
	cs       cycleState
	etime    []int32
	npred    []int32
	issue    []int32 // issue cycle of each scheduled node
	done     int
	blocked  bool // some examined ready node found no free unit this cycle
	ready    nodeHeap
	waiting  nodeHeap
	frontier []int32 // scratch for candidates: positions in ready.items
	cands    []int32 // scratch for candidates: the nodes found
}

// reset prepares r for scheduling g on model m.
func (r *readyState) reset(g *depGraph, m *Model) {
	n := len(g.nodes)
	r.g = g
	r.cs = cycleState{m: m}
	r.etime = fit(r.etime, n)
	r.npred = fit(r.npred, n)
	r.issue = fit(r.issue, n)
	r.done = 0
	r.blocked = false
	r.ready.reset(n, r.before)
	r.waiting.reset(n, r.earlier)
	for i := range g.nodes {
		r.etime[i] = 0
		r.issue[i] = -1
		r.npred[i] = g.nodes[i].npred
		if r.npred[i] == 0 {
			r.ready.push(int32(i))
		}
	}
}

// before is the ready heap's order (priority): true when a ranks ahead
// of b.
func (r *readyState) before(a, b int32) bool {
	return betterPriority(r.g, r.etime, a, b)
}

// earlier is the waiting heap's order: by earliest issue cycle.
func (r *readyState) earlier(a, b int32) bool {
	if r.etime[a] != r.etime[b] {
		return r.etime[a] < r.etime[b]
	}
	return a < b
}

// fits reports whether ready node n finds a free unit in the current
// cycle, noting when it does not.
func (r *readyState) fits(n int32) bool {
	if !r.cs.fits(r.g.nodes[n].unit) {
		r.blocked = true
		return false
	}
	return true
}

// isReady reports whether node n may issue in the current cycle: its
// predecessors are scheduled, its operands ready and a unit is free.
func (r *readyState) isReady(n int32) bool {
	return r.ready.contains(n) && r.fits(n)
}

// candidates returns up to MaxCandidates ready nodes that find a free
// unit this cycle, in rank order; stop, when not nil, is asked after each
// and ends the search when it returns true. The slice is reused by the
// next call.
func (r *readyState) candidates(stop func(n int32) bool) []int32 {
	r.cands = r.cands[:0]
	if r.ready.len() == 0 {
		return r.cands
	}
	// Walk the heap in rank order: a frontier of heap positions whose
	// parents were taken, the best first.
	h := &r.ready
	r.frontier = append(r.frontier[:0], 0)
	for examined := 0; len(r.frontier) > 0 && examined < MaxCandidates; examined++ {
		best := 0
		for i := 1; i < len(r.frontier); i++ {
			if h.less(h.items[r.frontier[i]], h.items[r.frontier[best]]) {
				best = i
			}
		}
		p := r.frontier[best]
		r.frontier[best] = r.frontier[len(r.frontier)-1]
		r.frontier = r.frontier[:len(r.frontier)-1]
		for _, c := range [2]int32{2*p + 1, 2*p + 2} {
			if int(c) < h.len() {
				r.frontier = append(r.frontier, c)
			}
		}
		n := h.items[p]
		if !r.fits(n) {
			continue
		}
		r.cands = append(r.cands, n)
		if stop != nil && stop(n) {
			break
		}
	}
	return r.cands
}

// advance moves to the next cycle in which some available node can issue.
func (r *readyState) advance() {
	next := r.cs.cycle + 1
	if !r.blocked && r.ready.len() == 0 && r.waiting.len() > 0 {
		if t := r.etime[r.waiting.top()]; t > next {
			next = t
		}
	}
	r.blocked = false
	r.cs.advance(next)
	for r.waiting.len() > 0 && r.etime[r.waiting.top()] <= next {
		r.ready.push(r.waiting.pop())
	}
}

// schedule issues node n, whose predecessors must be scheduled, in the
// current cycle and releases its successors.
func (r *readyState) schedule(n int32) {
	if r.ready.contains(n) {
		r.ready.remove(n)
	} else {
		r.waiting.remove(n)
	}
	r.cs.take(r.g.nodes[n].unit)
	r.issue[n] = r.cs.cycle
	r.done++
	for _, e := range r.g.succs(n) {
		if t := r.cs.cycle + e.lat; t > r.etime[e.to] {
			r.etime[e.to] = t
		}
		r.npred[e.to]--
		if r.npred[e.to] == 0 {
			if r.etime[e.to] <= r.cs.cycle {
				r.ready.push(e.to)
			} else {
				r.waiting.push(e.to)
			}
		}
	}
}

// length returns the number of cycles the schedule so far takes: the
// last issue cycle plus one.
func (r *readyState) length() int32 {
	l := int32(0)
	for i := 0; i < len(r.g.nodes); i++ {
		if r.issue[i]+1 > l {
			l = r.issue[i] + 1
		}
	}
	return l
}

// listSchedule schedules every node of g for model m with the classic
// priority list scheduler: in each cycle, among the nodes whose
// predecessors are scheduled and whose operands are ready, the one with
// the greatest height (longest latency path to the block's end), then the
// lowest earliest time, then the earliest in the block. It returns the
// nodes in issue order; r keeps the issue cycles.
func listSchedule(r *readyState, g *depGraph, m *Model, order []int32) []int32 {
	r.reset(g, m)
	order = order[:0]
	first := func(int32) bool { return true }
	for r.done < len(g.nodes) {
		c := r.candidates(first)
		if len(c) == 0 {
			r.advance()
			continue
		}
		r.schedule(c[0])
		order = append(order, c[0])
	}
	return order
}

// betterPriority orders nodes by height, then earliest time, then block
// position.
func betterPriority(g *depGraph, etime []int32, a, b int32) bool {
	ha, hb := g.nodes[a].height, g.nodes[b].height
	if ha != hb {
		return ha > hb
	}
	if etime[a] != etime[b] {
		return etime[a] < etime[b]
	}
	return a < b
}

// nodeHeap is a binary heap of dependence graph nodes with the position of
// each node, so any node can be removed in logarithmic time.
type nodeHeap struct {
	items []int32
	pos   []int32 // position of each node in items, or -1
	less  func(a, b int32) bool
}

func (h *nodeHeap) reset(n int, less func(a, b int32) bool) {
	h.items = h.items[:0]
	h.pos = fit(h.pos, n)
	for i := range h.pos {
		h.pos[i] = -1
	}
	h.less = less
}

func (h *nodeHeap) len() int              { return len(h.items) }
func (h *nodeHeap) top() int32            { return h.items[0] }
func (h *nodeHeap) contains(n int32) bool { return h.pos[n] >= 0 }

func (h *nodeHeap) push(n int32) {
	h.items = append(h.items, n)
	h.pos[n] = int32(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

func (h *nodeHeap) pop() int32 {
	n := h.items[0]
	h.remove(n)
	return n
}

// remove takes node n, which must be in the heap, out of it.
func (h *nodeHeap) remove(n int32) {
	i := int(h.pos[n])
	last := len(h.items) - 1
	h.swap(i, last)
	h.items = h.items[:last]
	h.pos[n] = -1
	if i < last {
		h.down(i)
		h.up(i)
	}
}

func (h *nodeHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i]], h.pos[h.items[j]] = int32(i), int32(j)
}

func (h *nodeHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *nodeHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h.items) {
			return
		}
		if c+1 < len(h.items) && h.less(h.items[c+1], h.items[c]) {
			c++
		}
		if !h.less(h.items[c], h.items[i]) {
			return
		}
		h.swap(i, c)
		i = c
	}
}
