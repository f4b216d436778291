package sched

import "math"

// edDual is a dual number p + d·ε (ε² = 0): a liveness probability and the
// probability-weighted distance LP·ED.
type edDual struct{ p, d float64 }

func (x edDual) add(y edDual) edDual { return edDual{x.p + y.p, x.d + y.d} }
func (x edDual) mul(y edDual) edDual { return edDual{x.p * y.p, x.p*y.d + x.d*y.p} }

// edSolver solves the systems of one analysis, one register at a time,
// reusing its scratch storage.
type edSolver struct {
	a         *EDAnalysis
	w         *edWalk
	maxVisits int
	deadEdge  bool
	iterate   bool
	budget    int64 // if positive, the elimination's budget
	work      int64
	heap      binHeap[int32] // of the equation being eliminated
	edSolverStorage
}

// edSolverStorage is the solver's scratch storage, kept between analyses
// in an edArena.
type edSolverStorage struct {
	// Per unknown (local index l, in reverse postorder): its block, the
	// index of its live-in entry in the result, its solution, and its
	// eliminated equation z_l = eqR[l] + Σ eqCoef·z[eqIdx] over the terms
	// spanLo[l] to spanHi[l]-1 (all naming unknowns before l).
	blk            []int32
	inAt           []int32
	z              []edDual
	spanLo, spanHi []int32
	eqIdx          []int32
	eqCoef         []edDual
	eqR            []edDual
	// The equation being eliminated: coefficients by unknown, whether
	// set (all clear between equations), which are set; the heap holds
	// those after it.
	acc     []edDual
	on      []bool
	touched []int32
	// Iteration.
	visits []int32
	queued []bool
	queue  []int32
}

// solve computes and records the values of register v.
func (s *edSolver) solve(v int32) {
	a, w := s.a, s.w
	if a.inStart[v] == a.inStart[v+1] && a.outStart[v] == a.outStart[v+1] {
		return // dead (a φ operand defined in its predecessor is live out only)
	}
	in0, out0 := a.remark(w, v)
	// Number the unknowns; the blocks whose first reference is a use get
	// their tops (1, dist) now.
	mark := v + 1
	s.blk, s.inAt = s.blk[:0], s.inAt[:0]
	edges := 0
	for k, o := range w.in {
		b := a.byOrd[o]
		if w.expMark[b] == mark {
			a.inLP[in0+k], a.inED[in0+k] = 1, float64(w.expDist[b])
			continue
		}
		w.tag[b] = int32(len(s.blk))
		s.blk = append(s.blk, b)
		s.inAt = append(s.inAt, int32(in0+k))
		edges += int(a.succBase[b+1] - a.succBase[b])
	}
	n := len(s.blk)
	s.z = fit(s.z, n)
	if n > 0 {
		budget := int64(EDElimBudget)*int64(n+edges) + 4096
		if s.budget > 0 {
			budget = s.budget
		}
		if s.iterate || !s.eliminate(v, budget) {
			s.iterateRegister(v)
			a.stats.Iterated++
		} else {
			a.stats.Eliminated++
		}
	}
	// Bottoms, eq. 3.2 and 3.4, from the successors' tops. A block where v
	// is live and not referenced is live out, and gets its top from its
	// bottom by eq. 3.1 and 3.3.
	for k, o := range w.out {
		b := a.byOrd[o]
		var sum edDual
		dead := false
		for e := a.succBase[b]; e < a.succBase[b+1]; e++ {
			top := s.top(v, b, e)
			sum = sum.add(edDual{a.prob[e] * top.p, a.prob[e] * top.d})
			if a.prob[e]*top.p == 0 {
				dead = true
			}
		}
		a.work += int64(a.succBase[b+1]-a.succBase[b]) + 1
		lp, ed := edRatio(sum)
		if s.deadEdge && dead && lp > 0 {
			ed = edFinite(sum.d / (sum.p * sum.p))
		}
		a.outLP[out0+k], a.outED[out0+k] = lp, ed
		if w.inMark[b] == mark && w.expMark[b] != mark {
			j := s.inAt[w.tag[b]]
			a.inLP[j], a.inED[j] = lp, ed+float64(a.blkLen[b])
		}
	}
}

// top returns v's (LPTop, LPTop·EDTop) seen along edge e out of block b.
func (s *edSolver) top(v, b, e int32) edDual {
	a, w := s.a, s.w
	if a.isPhiEdge(w, v, b, e) {
		return edDual{1, 1}
	}
	succ := a.succ[e]
	switch mark := v + 1; {
	case w.inMark[succ] != mark:
		return edDual{}
	case w.expMark[succ] == mark:
		return edDual{1, float64(w.expDist[succ])}
	}
	return s.z[w.tag[succ]]
}

// edRatio turns (LP, LP·ED) into (LP, ED), with ED = +Inf when LP is 0.
func edRatio(z edDual) (lp, ed float64) {
	if !(z.p > 0) {
		return 0, math.Inf(1)
	}
	return min(z.p, 1), edFinite(z.d / z.p)
}

// edFinite keeps a distance finite (a quotient of finite numbers can only
// overflow).
func edFinite(x float64) float64 {
	if x > math.MaxFloat64 || x != x {
		return math.MaxFloat64
	}
	return max(x, 0)
}

// eliminate solves v's system by Gaussian elimination in reverse
// postorder (see the file comment of distance.go). It reports false,
// leaving the solution undefined, when it would take more than budget
// steps.
func (s *edSolver) eliminate(v int32, budget int64) bool {
	a, w := s.a, s.w
	mark := v + 1
	n := len(s.blk)
	s.spanLo, s.spanHi = fit(s.spanLo, n), fit(s.spanHi, n)
	s.eqR = fit(s.eqR, n)
	s.eqIdx, s.eqCoef = s.eqIdx[:0], s.eqCoef[:0]
	if cap(s.acc) < n {
		s.acc = make([]edDual, n, n+n/4)
		s.on = make([]bool, n, n+n/4)
	}
	s.acc, s.on = s.acc[:n], s.on[:n]
	on, acc := s.on, s.acc
	s.work = 0
	for l := int32(n - 1); l >= 0; l-- {
		b := s.blk[l]
		lb := float64(a.blkLen[b])
		var r edDual
		s.touched = s.touched[:0]
		s.heap.reset()
		s.work++
		for e := a.succBase[b]; e < a.succBase[b+1]; e++ {
			p := a.prob[e]
			s.work++
			if p == 0 {
				continue
			}
			k := edDual{p, p * lb}
			if a.isPhiEdge(w, v, b, e) {
				r = r.add(k.mul(edDual{1, 1}))
				continue
			}
			switch succ := a.succ[e]; {
			case w.inMark[succ] != mark:
			case w.expMark[succ] == mark:
				r = r.add(k.mul(edDual{1, float64(w.expDist[succ])}))
			default:
				s.accAdd(w.tag[succ], k, l)
			}
		}
		// Substitute the equations of later unknowns, largest first: each
		// names only unknowns before its own, so each is substituted once.
		for s.heap.len() > 0 {
			j := s.heap.pop()
			kc := acc[j]
			on[j] = false
			for q := s.spanLo[j]; q < s.spanHi[j]; q++ {
				s.accAdd(s.eqIdx[q], kc.mul(s.eqCoef[q]), l)
			}
			r = r.add(kc.mul(s.eqR[j]))
			s.work += int64(s.spanHi[j]-s.spanLo[j]) + 2
			if s.work > budget {
				break
			}
		}
		if s.work > budget {
			for _, x := range s.touched {
				on[x] = false
			}
			a.work += s.work
			return false
		}
		// Solve for z_l = self·z_l + rest.
		inv := edDual{1, 0}
		closed := false
		if on[l] {
			self := acc[l]
			om := 1 - self.p
			if om <= EDClosedTol {
				closed = true
			} else {
				inv = edDual{1 / om, self.d / (om * om)}
			}
			on[l] = false
		}
		s.spanLo[l] = int32(len(s.eqIdx))
		for _, j := range s.touched {
			if !on[j] {
				continue
			}
			on[j] = false
			if !closed {
				s.eqIdx = append(s.eqIdx, j)
				s.eqCoef = append(s.eqCoef, inv.mul(acc[j]))
			}
		}
		s.spanHi[l] = int32(len(s.eqIdx))
		s.work += int64(len(s.touched))
		if closed {
			s.eqR[l] = edDual{}
		} else {
			s.eqR[l] = inv.mul(r)
		}
	}
	// Back substitution.
	for l := range n {
		z := s.eqR[l]
		for q := s.spanLo[l]; q < s.spanHi[l]; q++ {
			z = z.add(s.eqCoef[q].mul(s.z[s.eqIdx[q]]))
		}
		s.z[l] = z
		s.work += int64(s.spanHi[l]-s.spanLo[l]) + 1
	}
	a.work += s.work
	return true
}

// accAdd adds c to the coefficient of unknown j in the equation of
// unknown l being eliminated, queueing j for substitution when it comes
// after l.
func (s *edSolver) accAdd(j int32, c edDual, l int32) {
	if s.on[j] {
		s.acc[j] = s.acc[j].add(c)
		return
	}
	s.on[j], s.acc[j] = true, c
	s.touched = append(s.touched, j)
	if j > l {
		s.heap.push(j)
		s.work++
	}
}

// iterateRegister solves v's system by the worklist iteration of Alg. 10
// (for a backward problem: successors are visited first and a change
// requeues the predecessors), starting from 0: each visit recomputes a
// block's top from its successors' current tops, so the values rise
// monotonically to the least fixed point. A block is requeued while its
// value changes by more than EDTolerance relative to it, and visited at
// most maxVisits times.
func (s *edSolver) iterateRegister(v int32) {
	a, w := s.a, s.w
	mark := v + 1
	n := len(s.blk)
	clear(s.z[:n])
	s.visits = zeroed(s.visits, n)
	s.queued = zeroed(s.queued, n)
	queue := s.queue[:0]
	work := int64(0)
	visit := func(l int32) bool {
		b := s.blk[l]
		lb := float64(a.blkLen[b])
		var z edDual
		for e := a.succBase[b]; e < a.succBase[b+1]; e++ {
			p := a.prob[e]
			z = z.add(edDual{p, p * lb}.mul(s.top(v, b, e)))
		}
		work += int64(a.succBase[b+1]-a.succBase[b]) + 1
		s.visits[l]++
		old := s.z[l]
		s.z[l] = z
		return !edClose(old.p, z.p) || !edClose(old.d, z.d)
	}
	unknown := func(b int32) bool { return w.inMark[b] == mark && w.expMark[b] != mark }
	// The first pass in postorder (the reverse of the unknowns' order): a
	// block visited before one of its successors is queued.
	for l := int32(n - 1); l >= 0; l-- {
		b := s.blk[l]
		for e := a.succBase[b]; e < a.succBase[b+1]; e++ {
			if succ := a.succ[e]; unknown(succ) && w.tag[succ] <= l && !s.queued[l] {
				s.queued[l] = true
				queue = append(queue, l)
			}
		}
		visit(l)
	}
	unconverged := false
	for head := 0; head < len(queue); head++ {
		l := queue[head]
		s.queued[l] = false
		if !visit(l) {
			continue
		}
		b := s.blk[l]
		for _, e := range a.predEdges[a.predEdgeStart[b]:a.predEdgeStart[b+1]] {
			p := a.edgeFrom[e]
			work++
			if !unknown(p) {
				continue
			}
			q := w.tag[p]
			if s.queued[q] {
				continue
			}
			if int(s.visits[q]) >= s.maxVisits {
				unconverged = true
				continue
			}
			s.queued[q] = true
			queue = append(queue, q)
		}
		// Reclaim the consumed prefix of a long queue.
		if head > 1024 && head*2 > len(queue) {
			queue = append(queue[:0], queue[head+1:]...)
			head = -1
		}
	}
	s.queue = queue[:0]
	if unconverged {
		a.stats.Unconverged++
	}
	a.work += work
}

// edClose reports whether two values agree within EDTolerance.
func edClose(x, y float64) bool {
	return math.Abs(x-y) <= EDTolerance*max(math.Abs(x), math.Abs(y))
}
