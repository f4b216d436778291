package profilecounters

import (
	"github.com/kiln-jit/kiln/bytecode"
	"github.com/kiln-jit/kiln/internal/cfg"
)

// Probabilities returns the probability of every edge given the counters,
// with add-one smoothing: when any successor edge of a block was never
// taken, every successor edge of the block gets one extra count. A block
// never executed therefore gets uniform probabilities.
func (l *Layout) Probabilities(counters []uint64) []float64 {
	return l.smoothed(l.EdgeCounts(counters))
}

// smoothed turns per-edge counts into smoothed per-edge probabilities.
func (l *Layout) smoothed(counts []uint64) []float64 {
	p := make([]float64, len(l.Edges))
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		Smooth(counts[blk.FirstEdge:blk.FirstEdge+blk.NumEdges], p[blk.FirstEdge:blk.FirstEdge+blk.NumEdges])
	}
	return p
}

// Smooth writes into p (as long as counts) the probabilities of one
// block's successor edges from their counts, with the add-one smoothing of
// Probabilities: when any edge has count 0, every edge gets one more, so a
// block never left gets uniform probabilities.
func Smooth(counts []uint64, p []float64) {
	add := 0.0
	for _, c := range counts {
		if c == 0 {
			add = 1
			break
		}
	}
	sum := 0.0
	for _, c := range counts {
		sum += float64(c) + add
	}
	for i, c := range counts {
		p[i] = (float64(c) + add) / sum
	}
}

// Static estimate parameters: the probability a conditional branch's taken
// edge gets from each heuristic that applies to it (after Ball and Larus,
// "Branch prediction for free", 1993, and Wu and Larus 1994). Heuristics
// are combined with Dempster-Shafer evidence combination.
const (
	// ProbLoopStay is the probability of staying in a loop (or going back
	// to its header) at a branch that can leave it.
	ProbLoopStay = 0.88
	// ProbToReturn is the probability of the edge toward a block that
	// returns, when the other edge does not.
	ProbToReturn = 0.28
	// ProbToTrap is the probability of the edge toward a block that traps.
	ProbToTrap = 0.001
	// ProbNegative is the probability that a signed "less than zero" test
	// holds.
	ProbNegative = 0.16
)

// combine merges two independent estimates of the same event's probability
// (Dempster-Shafer).
func combine(p, q float64) float64 {
	return p * q / (p*q + (1-p)*(1-q))
}

// StaticProbabilities estimates every edge's probability from the shape of
// the code alone: loop structure (branches that stay in a loop or return to
// its header are likely), branches toward returns and traps (unlikely), and
// sign tests against zero (negative values are unlikely). Switches and
// branches no heuristic covers are uniform.
func (l *Layout) StaticProbabilities() []float64 { return l.staticProbabilities(l.shape()) }

func (l *Layout) staticProbabilities(sh shape) []float64 {
	p := make([]float64, len(l.Edges))
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		if blk.NumEdges == 0 {
			continue
		}
		first := int(blk.FirstEdge)
		if blk.NumEdges != 2 || l.Edges[first].Kind != EdgeTaken {
			for i := range int(blk.NumEdges) {
				p[first+i] = 1 / float64(blk.NumEdges)
			}
			continue
		}
		taken, notTaken := int(l.Edges[first].To), int(l.Edges[first+1].To)
		pt := 0.5
		if q, ok := loopHeuristic(sh.loops, b, taken, notTaken); ok {
			pt = combine(pt, q)
		}
		lastOf := func(x int) bytecode.Op { return l.Blocks[x].Last }
		switch {
		case lastOf(taken) == bytecode.OpTrap && lastOf(notTaken) != bytecode.OpTrap:
			pt = combine(pt, ProbToTrap)
		case lastOf(notTaken) == bytecode.OpTrap && lastOf(taken) != bytecode.OpTrap:
			pt = combine(pt, 1-ProbToTrap)
		}
		switch {
		case lastOf(taken) == bytecode.OpReturn && lastOf(notTaken) != bytecode.OpReturn:
			pt = combine(pt, ProbToReturn)
		case lastOf(notTaken) == bytecode.OpReturn && lastOf(taken) != bytecode.OpReturn:
			pt = combine(pt, 1-ProbToReturn)
		}
		if blk.againstZero {
			switch blk.Last {
			case bytecode.OpBrLtS, bytecode.OpBrLeS:
				pt = combine(pt, ProbNegative)
			case bytecode.OpBrGtS, bytecode.OpBrGeS:
				pt = combine(pt, 1-ProbNegative)
			}
		}
		p[first], p[first+1] = pt, 1-pt
	}
	return p
}

// loopHeuristic returns the probability of the taken edge of block b's
// branch when one edge goes back to a header of an enclosing loop and the
// other does not, or when one edge leaves b's innermost loop and the other
// stays in it.
func loopHeuristic(loops *cfg.LoopForest, b, taken, notTaken int) (float64, bool) {
	loop := loops.LoopOf[b]
	if loop < 0 {
		return 0, false
	}
	// A node is a header of at most one loop (HeadedLoop), so "to is a
	// header of a loop enclosing b" is one containment test.
	isBack := func(to int) bool {
		x := loops.HeadedLoop(to)
		return x >= 0 && loops.Contains(x, b)
	}
	if bt, bn := isBack(taken), isBack(notTaken); bt != bn {
		if bt {
			return ProbLoopStay, true
		}
		return 1 - ProbLoopStay, true
	}
	if st, sn := loops.Contains(loop, taken), loops.Contains(loop, notTaken); st != sn {
		if st {
			return ProbLoopStay, true
		}
		return 1 - ProbLoopStay, true
	}
	return 0, false
}

// Frequencies returns each block's expected executions per call of the
// function, given edge probabilities.
func (l *Layout) Frequencies(prob []float64) []float64 { return l.frequencies(l.shape(), prob) }

func (l *Layout) frequencies(sh shape, prob []float64) []float64 {
	per := make([][]float64, len(l.Blocks))
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		per[b] = prob[blk.FirstEdge : blk.FirstEdge+blk.NumEdges]
	}
	return cfg.Frequencies(sh.graph, sh.loops, per)
}

// Profile is what the optimizer consumes for one function: the probability
// of every edge and the expected executions of every block per call.
type Profile struct {
	Layout    *Layout
	EdgeProb  []float64
	BlockFreq []float64
	// Measured is set when the profile comes from counters, and clear for a
	// static estimate.
	Measured bool
	// Calls is the number of calls the counters saw.
	Calls uint64
}

// Profile returns the profile of the function from its counters, or the
// static estimate when counters is nil or records no call.
func (l *Layout) Profile(counters []uint64) *Profile {
	p := &Profile{Layout: l}
	sh := l.shape()
	if counters != nil && counters[EntryCounter] > 0 {
		p.EdgeProb = l.Probabilities(counters)
		p.Measured = true
		p.Calls = counters[EntryCounter]
	} else {
		p.EdgeProb = l.staticProbabilities(sh)
	}
	p.BlockFreq = l.frequencies(sh, p.EdgeProb)
	return p
}
