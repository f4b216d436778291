package sched

import (
	"math"

	"github.com/kiln-jit/kiln/internal/cfg"
	"github.com/kiln-jit/kiln/mir"
)

// NNULoopExitPenalty is the length Braun and Hack ("Register spilling and
// live-range splitting for SSA-form programs", CC 2009) give a loop-exit
// edge in the nearest-next-use distance, so that uses outside a loop look
// further away than uses inside it (the thesis, §3.2 and §4.4.3, quotes
// their 100000).
const NNULoopExitPenalty = 100000

// NNUOptions configures NNUAnalyze.
type NNUOptions struct {
	// ExitPenalty is the length of a loop-exit edge (0:
	// NNULoopExitPenalty).
	ExitPenalty float64
	// NoExitPenalty gives loop-exit edges length 0, as the thesis's
	// Example 3.1.1 counts.
	NoExitPenalty bool
	// arena, when not nil, holds the analysis's arrays (see
	// EDOptions.arena).
	arena *edArena
}

// NNUAnalysis is the nearest-next-use alternative to EDAnalysis, for
// ablation (§4.4.3): the distance to v's next use is the minimum over all
// paths, without probabilities,
//
//	Top_B = dist if v's first reference in B is a use at distance dist,
//	        ∞ if it is a definition or v is dead, Bot_B + |B| otherwise
//	Bot_B = min over successors S of (w(B→S) + Top_S)
//
// where w is the exit penalty on an edge that leaves a loop (the loops of
// internal/cfg's loop nesting forest, irreducible ones included; an edge
// leaving several nested loops pays once) and 0 otherwise. A φ operand is
// a use at distance 1 on its edge. Distances follow EDAnalysis's
// convention and the live sets and storage are EDAnalysis's. Per register
// this is a shortest-path problem with nonnegative lengths, solved exactly
// by Dijkstra's algorithm backwards from the uses over the blocks where
// the register is live and not referenced: O(k log k) for k such blocks
// and their edges.
type NNUAnalysis struct {
	edBase
	inD, outD []float64
	exitW     []float64 // per edge
}

// NNUAnalyze computes the nearest-next-use distances of f's virtual
// registers.
func NNUAnalyze(f *mir.Func, opts NNUOptions) *NNUAnalysis {
	base, err := newEDBase(f, nil, opts.arena)
	if err != nil {
		panic(err) // without edge counts newEDBase cannot fail
	}
	ar := base.ar
	a := &NNUAnalysis{edBase: *base}
	pen := opts.ExitPenalty
	if pen == 0 {
		pen = NNULoopExitPenalty
	}
	if opts.NoExitPenalty {
		pen = 0
	}
	a.exitW = ar.f64.take(len(a.succ))
	if pen != 0 {
		loops := cfg.Loops(f.Graph())
		for b, blk := range f.Blocks {
			l := loops.LoopOf[b]
			if l < 0 {
				continue
			}
			for i := range blk.Succs {
				if loops.EdgeLoop(b, i) != l {
					a.exitW[int(a.succBase[b])+i] = pen
				}
			}
		}
	}
	w := newEDWalk(a.nb, ar)
	a.liveness(w)
	a.inD, a.outD = ar.f64.take(len(a.inOrd)), ar.f64.take(len(a.outOrd))
	s := nnuSolver{a: a, w: w, heap: binHeap[nnuItem]{less: func(x, y nnuItem) bool { return x.d < y.d }}}
	for v := range int32(a.nv) {
		s.solve(v)
	}
	a.finish()
	return a
}

// Work returns the number of elementary steps the analysis took (as
// EDStats.Work counts them).
func (a *NNUAnalysis) Work() int64 { return a.work }

// Top returns the nearest-next-use distance of v from the top of block b
// (+Inf: no next use).
func (a *NNUAnalysis) Top(v mir.Reg, b int) float64 { return a.atTop(a.inD, v, b, math.Inf(1)) }

// Bot returns the nearest-next-use distance of v from the bottom of block
// b.
func (a *NNUAnalysis) Bot(v mir.Reg, b int) float64 { return a.atBottom(a.outD, v, b, math.Inf(1)) }

// Distance returns the nearest-next-use distance from the point just
// before instruction pos of block b, as EDAnalysis.Distance with Bot for
// EDBot.
func (a *NNUAnalysis) Distance(v mir.Reg, b, pos int) float64 { return a.distance(a.outD, v, b, pos) }

// EffectiveDistance returns Distance times v's multiplier (§3.4.3).
func (a *NNUAnalysis) EffectiveDistance(v mir.Reg, b, pos int) float64 {
	return a.Distance(v, b, pos) * a.Multiplier(v)
}

// nnuSolver holds the scratch storage of the shortest-path searches.
type nnuSolver struct {
	a    *NNUAnalysis
	w    *edWalk
	blk  []int32
	inAt []int32
	dist []float64
	done []bool
	heap binHeap[nnuItem]
}

type nnuItem struct {
	d float64
	l int32
}

// edgeTop returns the distance of v's next use from the top of the target
// of edge e out of block b: 1 for a φ operand, the first use's distance,
// the current estimate of an unknown, or +Inf.
func (s *nnuSolver) edgeTop(v, b, e int32) float64 {
	a, w := s.a, s.w
	if a.isPhiEdge(w, v, b, e) {
		return 1
	}
	switch succ, mark := a.succ[e], v+1; {
	case w.inMark[succ] != mark:
		return math.Inf(1)
	case w.expMark[succ] == mark:
		return float64(w.expDist[succ])
	default:
		return s.dist[w.tag[succ]]
	}
}

// solve computes and records register v's distances.
func (s *nnuSolver) solve(v int32) {
	a, w := s.a, s.w
	if a.inStart[v] == a.inStart[v+1] && a.outStart[v] == a.outStart[v+1] {
		return // dead (a φ operand defined in its predecessor is live out only)
	}
	in0, out0 := a.remark(w, v)
	mark := v + 1
	inf := math.Inf(1)
	s.blk, s.inAt = s.blk[:0], s.inAt[:0]
	for k, o := range w.in {
		b := a.byOrd[o]
		if w.expMark[b] == mark {
			a.inD[in0+k] = float64(w.expDist[b])
			continue
		}
		w.tag[b] = int32(len(s.blk))
		s.blk = append(s.blk, b)
		s.inAt = append(s.inAt, int32(in0+k))
	}
	n := len(s.blk)
	s.dist = fit(s.dist, n)
	s.done = zeroed(s.done, n)
	s.heap.reset()
	unknown := func(b int32) bool { return w.inMark[b] == mark && w.expMark[b] != mark }
	// Candidates through the edges to fixed tops (uses, φ operands).
	for l, b := range s.blk {
		best := inf
		for e := a.succBase[b]; e < a.succBase[b+1]; e++ {
			if a.isPhiEdge(w, v, b, e) || !unknown(a.succ[e]) {
				best = min(best, a.exitW[e]+s.edgeTop(v, b, e))
			}
		}
		a.work += int64(a.succBase[b+1]-a.succBase[b]) + 1
		s.dist[l] = inf
		if best < inf {
			s.dist[l] = best + float64(a.blkLen[b])
			s.heap.push(nnuItem{s.dist[l], int32(l)})
		}
	}
	// Dijkstra backwards over the unknowns.
	for s.heap.len() > 0 {
		it := s.heap.pop()
		a.work++
		if s.done[it.l] || it.d > s.dist[it.l] {
			continue
		}
		s.done[it.l] = true
		b := s.blk[it.l]
		for _, e := range a.predEdges[a.predEdgeStart[b]:a.predEdgeStart[b+1]] {
			p := a.edgeFrom[e]
			a.work++
			if !unknown(p) || a.isPhiEdge(w, v, p, e) {
				continue
			}
			q := w.tag[p]
			if s.done[q] {
				continue
			}
			if d := float64(a.blkLen[p]) + a.exitW[e] + it.d; d < s.dist[q] {
				s.dist[q] = d
				s.heap.push(nnuItem{d, q})
			}
		}
	}
	// Bottoms; the unknowns' tops follow from them.
	for k, o := range w.out {
		b := a.byOrd[o]
		best := inf
		for e := a.succBase[b]; e < a.succBase[b+1]; e++ {
			best = min(best, a.exitW[e]+s.edgeTop(v, b, e))
		}
		a.work += int64(a.succBase[b+1]-a.succBase[b]) + 1
		a.outD[out0+k] = best
		if unknown(b) {
			a.inD[s.inAt[w.tag[b]]] = best + float64(a.blkLen[b])
		}
	}
}
