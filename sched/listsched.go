package sched

// readyState is the bookkeeping of a cycle-driven list scheduler over one
// dependence graph: which nodes have all their predecessors scheduled
// (avail), the earliest cycle each may issue (etime), and the functional
// units used in the current cycle. The integrated pass and the plain list
// scheduler share it; they differ in how they choose among ready nodes.
type readyState struct {
	g       *depGraph
	cs      cycleState
	etime   []int32
	npred   []int32
	avail   []int32
	issue   []int32 // issue cycle of each scheduled node
	done    int
	blocked bool // some avail node is ready but found no free unit this cycle
}

func (r *readyState) reset(g *depGraph, m *Model) {
	n := len(g.nodes)
	r.g = g
	r.cs = cycleState{m: m}
	r.etime = fit(r.etime, n)
	r.npred = fit(r.npred, n)
	r.issue = fit(r.issue, n)
	r.avail = r.avail[:0]
	r.done = 0
	for i := range g.nodes {
		r.etime[i] = 0
		r.issue[i] = -1
		r.npred[i] = g.nodes[i].npred
		if r.npred[i] == 0 {
			r.avail = append(r.avail, int32(i))
		}
	}
}

// ready reports whether avail node n may issue in the current cycle.
func (r *readyState) ready(n int32) bool {
	if r.etime[n] > r.cs.cycle {
		return false
	}
	if !r.cs.fits(r.g.nodes[n].unit) {
		r.blocked = true
		return false
	}
	return true
}

// advance moves to the next cycle in which some avail node can issue.
func (r *readyState) advance() {
	next := r.cs.cycle + 1
	if !r.blocked {
		next = -1
		for _, n := range r.avail {
			if next < 0 || r.etime[n] < next {
				next = r.etime[n]
			}
		}
		if next <= r.cs.cycle {
			next = r.cs.cycle + 1
		}
	}
	r.blocked = false
	r.cs.advance(next)
}

// schedule issues node n (which must be avail and ready) in the current
// cycle and releases its successors.
func (r *readyState) schedule(n int32) {
	for i, x := range r.avail {
		if x == n {
			last := len(r.avail) - 1
			r.avail[i] = r.avail[last]
			r.avail = r.avail[:last]
			break
		}
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
			r.avail = append(r.avail, e.to)
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
	for r.done < len(g.nodes) {
		best := int32(-1)
		for _, n := range r.avail {
			if !r.ready(n) {
				continue
			}
			if best < 0 || betterPriority(g, r.etime, n, best) {
				best = n
			}
		}
		if best < 0 {
			r.advance()
			continue
		}
		r.schedule(best)
		order = append(order, best)
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
