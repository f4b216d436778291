package sched

import (
	"fmt"
	"math"
	"time"

	"github.com/kiln-jit/kiln/mir"
)

// Spill victims by distance to the next use: the expected distance of
// Burroughs's thesis (EDAnalysis) or Braun and Hack's nearest next use
// (NNUAnalysis), asked through NextUseOracle.
//
// # The point of a choice
//
// The integrated pass asks for a victim while it takes one instruction of
// the region, k (an input position of block b): while the sources of k get
// registers (a reload evicting a value), the point of the choice is just
// before k, and k's own sources not yet in a register are at distance 1;
// while the destinations of k get registers, k's sources have been read
// and the point is just after k, the thesis's I_N. The pass passes pos = k
// and pos = k+1 respectively, and pos = 0 for the choice between the
// live-ins of a region before its first instruction. In source order
// (Options.SourceOrder) every instruction before pos has been taken and
// none after it, and the distance of a candidate is exactly the oracle's
// Distance(v, b, pos).
//
// When the scheduler reorders the region, instructions after k may have
// been taken already and instructions before k may still be waiting, so
// the oracle's in-block count from pos would be wrong both ways. The pass
// then counts for each candidate, in SpillCandidate.Ahead, the
// instructions still to be taken that separate the point from the
// candidate's next use in the region (SpillCandidate.At), as if the rest
// of the region were taken in input order after k, and the oracle
// measures from At: Distance(v, b, At) is 1 for a use at At, and the
// distance beyond the region (EDBot, or NNU's Bot) when At is the end of
// the block. The distance is Ahead + Distance(v, b, At), which in source
// order equals Distance(v, b, pos).

// VictimOracle selects the spill heuristic of the integrated pass when
// Options.Victim is nil.
type VictimOracle uint8

// The spill heuristics.
const (
	// OracleED is DistanceVictim over the expected-distance analysis
	// (EDAnalyze) of the function, with the successor probabilities of its
	// blocks (SuccProb: from the runtime profile when the function was
	// lowered with one, else the static estimate): the default.
	OracleED VictimOracle = iota
	// OracleThesis is ThesisVictim, Cutcutache's comparator of
	// candidates.
	OracleThesis
	// OracleNNU is DistanceVictim over the nearest-next-use analysis
	// (NNUAnalyze, with its default loop-exit penalty).
	OracleNNU
	numOracles
)

// VictimOracles lists every spill heuristic.
var VictimOracles = []VictimOracle{OracleThesis, OracleED, OracleNNU}

var oracleNames = [numOracles]string{OracleED: "ed", OracleThesis: "thesis", OracleNNU: "nnu"}

// String names the heuristic.
func (o VictimOracle) String() string {
	if o < numOracles {
		return oracleNames[o]
	}
	return fmt.Sprintf("oracle(%d)", int(o))
}

// ParseVictimOracle parses a heuristic's name.
func ParseVictimOracle(s string) (VictimOracle, error) {
	for i, n := range oracleNames {
		if n == s {
			return VictimOracle(i), nil
		}
	}
	return 0, fmt.Errorf("sched: unknown spill heuristic %q", s)
}

// DistanceVictim spills the candidate whose next use is furthest from the
// point of the choice by its effective distance (Burroughs §3.4.2, Alg. 3
// with the multipliers of §3.4.3): the distance Oracle gives (see the top
// of this file for how the point maps to the oracle's block positions),
// times the value's multiplier, so that a rematerializable value looks
// further away. A value with no use left (no use in the region, not live
// out) is at infinite distance. Effective distances within a relative
// 1e-9 of each other tie; the thesis gives no tie-break, and ties go to
// ThesisVictim's comparator (a value without uses left in the region, the
// later next use, fewer uses, the successors' locations), then to a value
// whose spill stores nothing, then to the lower register.
//
// Oracle must describe the function the integrated pass allocates (the
// input of Allocate), whose block positions the pass passes.
type DistanceVictim struct {
	Oracle NextUseOracle
}

// multiplied is implemented by the oracles that expose the multipliers
// (*EDAnalysis and *NNUAnalysis).
type multiplied interface {
	Multiplier(v mir.Reg) float64
}

// Victim implements VictimPolicy.
func (p DistanceVictim) Victim(b, pos int, cands []SpillCandidate) int {
	best, bestD := 0, p.EffectiveDistance(b, &cands[0])
	for i := 1; i < len(cands); i++ {
		d := p.EffectiveDistance(b, &cands[i])
		switch {
		case distTie(d, bestD):
			if betterVictim(&cands[i], &cands[best]) {
				best, bestD = i, d
			}
		case d > bestD:
			best, bestD = i, d
		}
	}
	return best
}

// Distance returns the pure distance from the point of a choice in block b
// to candidate c's next use: +Inf when it has none, else c.Ahead plus the
// oracle's distance from c.At.
func (p DistanceVictim) Distance(b int, c *SpillCandidate) float64 {
	if c.LocalUses == 0 && !c.LiveOut {
		return math.Inf(1)
	}
	return float64(c.Ahead) + p.Oracle.Distance(c.VReg, b, c.At)
}

// EffectiveDistance returns Distance times c's multiplier.
func (p DistanceVictim) EffectiveDistance(b int, c *SpillCandidate) float64 {
	d := p.Distance(b, c)
	if m, ok := p.Oracle.(multiplied); ok {
		return d * m.Multiplier(c.VReg)
	}
	// The multiplier is the ratio of the oracle's two distances.
	if pure := p.Oracle.Distance(c.VReg, b, c.At); pure > 0 && !math.IsInf(pure, 1) {
		return d * p.Oracle.EffectiveDistance(c.VReg, b, c.At) / pure
	}
	return d
}

// distTie reports whether two effective distances are equal within a
// relative 1e-9 (the expected distances come out of floating-point
// elimination).
func distTie(x, y float64) bool {
	if x == y {
		return true
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return false
	}
	return math.Abs(x-y) <= 1e-9*max(math.Abs(x), math.Abs(y))
}

// oracleVictim is the policy Options.Oracle selects: a DistanceVictim
// whose oracle is computed from the function at the first choice (a
// function that never spills does not pay for the analysis), once.
type oracleVictim struct {
	f     *mir.Func
	kind  VictimOracle
	dv    DistanceVictim
	spent time.Duration
	// ar, when not nil, is the arena the analysis is built in (the
	// allocator's, kept between compiles).
	ar *edArena
}

// arena returns p's arena, reset, or nil.
func (p *oracleVictim) arena() *edArena {
	if p.ar != nil {
		p.ar.reset()
	}
	return p.ar
}

// Victim implements VictimPolicy.
func (p *oracleVictim) Victim(b, pos int, cands []SpillCandidate) int {
	p.analyze()
	return p.dv.Victim(b, pos, cands)
}

// analyze runs the oracle's analysis of the function, once.
func (p *oracleVictim) analyze() {
	if p.dv.Oracle != nil {
		return
	}
	start := time.Now()
	switch p.kind {
	case OracleED:
		a, err := EDAnalyze(p.f, EDOptions{arena: p.arena()})
		if err != nil {
			panic(err) // without edge counts EDAnalyze cannot fail
		}
		p.dv.Oracle = a
	default:
		p.dv.Oracle = NNUAnalyze(p.f, NNUOptions{arena: p.arena()})
	}
	p.spent = time.Since(start)
}

// victimFor returns the policy of heuristic o for f, and the lazily
// analysed one (nil for OracleThesis).
func victimFor(f *mir.Func, o VictimOracle) (VictimPolicy, *oracleVictim, error) {
	switch o {
	case OracleThesis:
		return ThesisVictim{}, nil, nil
	case OracleED, OracleNNU:
		p := &oracleVictim{f: f, kind: o}
		return p, p, nil
	}
	return nil, nil, fmt.Errorf("sched: unknown spill heuristic %d", o)
}

// The point of a choice during a region (see the top of the file). The
// taken instructions are counted in a Fenwick tree over the region's input
// positions (doneTree), so that Ahead costs O(log n) when the scheduler
// has reordered the region.

// resetDone forgets the taken instructions of the previous region, for a
// region of n instructions.
func (a *allocator) resetDone(n int) {
	a.doneTree = zeroed(a.doneTree, n+1)
	a.cur, a.after = -1, false
}

// markDone records that instruction k of the region has been taken.
func (a *allocator) markDone(k int) {
	a.instDone[k] = true
	for i := k + 1; i < len(a.doneTree); i += i & -i {
		a.doneTree[i]++
	}
}

// doneBefore returns the number of the region's instructions before input
// position q that have been taken.
func (a *allocator) doneBefore(q int) int {
	n := int32(0)
	for i := min(q, len(a.doneTree)-1); i > 0; i -= i & -i {
		n += a.doneTree[i]
	}
	return int(n)
}

// point returns the position the victim policy is given: the current
// instruction, or the one after it once its sources have been read; 0
// before the region's first instruction.
func (a *allocator) point() int {
	if a.cur < 0 {
		return 0
	}
	if a.after {
		return int(a.cur) + 1
	}
	return int(a.cur)
}

// ahead returns the number of the region's instructions still to be taken
// between the point of the choice and input position q (see
// SpillCandidate.Ahead).
func (a *allocator) ahead(q int) int {
	k := int(a.cur)
	if k < 0 {
		return q - a.doneBefore(q)
	}
	if q == k && !a.after {
		return 0 // a source of the current instruction
	}
	n := q - a.doneBefore(q)
	if k < q && !a.instDone[k] {
		n-- // the current instruction is counted apart
	}
	if !a.after {
		n++ // it comes first
	}
	return n
}

// nextUseAfterCur returns the input position of v's earliest use in the
// region not yet taken other than the current instruction, or -1.
func (a *allocator) nextUseAfterCur(v int32) int {
	for h := a.vs[v].useHead; h >= 0; h = a.useNext[h] {
		if p := a.usePos[h]; !a.instDone[p] && p != a.cur {
			return int(p)
		}
	}
	return -1
}
