package sched

import "github.com/kiln-jit/kiln/mir"

// SpillCandidate describes a value that holds a register when the
// integrated pass needs a register of that class and none is free.
type SpillCandidate struct {
	// VReg is the value (a virtual register of the input) and Reg the
	// physical register it holds.
	VReg, Reg mir.Reg
	// LocalUses is the number of its uses left in the current region, and
	// NextUse the position (instruction index in the input block) of the
	// earliest of them, or -1 when there is none.
	LocalUses, NextUse int
	// LiveOut says the value is live at the end of the region.
	LiveOut bool
	// Succs gives, for each successor region already processed, whether
	// the value is live into it and in a register there, with the edge's
	// frequency. It is empty when no successor is processed yet, and (as
	// ClosestDist and ClosestWeight) filled only for a value with no use
	// left in the region, the only case in which they decide.
	Succs []SuccLocation
	// ClosestDist is the number of regions to the closest region with a
	// use of the value after this one (by the CFG's shortest path), and
	// ClosestWeight that region's frequency; -1 and 0 without one.
	ClosestDist   int
	ClosestWeight float64
	// Remat says the value is recomputed rather than reloaded (a constant
	// or a context field): spilling it stores nothing. Clean says its stack
	// slot already holds it: spilling it stores nothing either.
	Remat, Clean bool
	// At and Ahead place the value's next use for a distance oracle
	// (NextUseOracle, see DistanceVictim): At is the input position of its
	// next use in the region (NextUse), or the block's length (its bottom)
	// when it has no use left in the region; Ahead is the number of the
	// region's instructions still to be scheduled between the point of the
	// choice and At, counting the instruction being allocated when the
	// point is before it and taking the others in input order. The next
	// use is then at distance Ahead + 1 from the point, and the region's
	// end at distance Ahead. In source order, Ahead is At - pos.
	At, Ahead int
}

// SuccLocation is a value's location at the start of a processed
// successor region.
type SuccLocation struct {
	Block int
	Freq  float64 // the edge's expected executions per call
	Live  bool    // the value is live into the successor
	InReg bool    // it starts the successor in a register
}

// VictimPolicy chooses the value to spill when a register class is full.
// The integrated pass calls it with every value of the class that may
// give up its register (never empty).
type VictimPolicy interface {
	// Victim returns the index in cands of the value to spill, at input
	// position pos of block b: pos is the instruction being allocated
	// while its sources get registers, the one after it while its
	// destinations do (its sources have been read), and 0 when the
	// region's live-ins compete for registers before its first
	// instruction. That is the point just before instruction pos in the
	// convention of NextUseOracle, exactly so in source order (see
	// DistanceVictim for reordered regions).
	Victim(b, pos int, cands []SpillCandidate) int
}

// ThesisVictim is Cutcutache's spill comparator (§5.3.6): the value whose
// earliest subsequent use is furthest away is spilled, refined pairwise:
//
//  1. a value with no uses left in the region is a better victim than one
//     with uses;
//  2. of two values with local uses, the one whose next use comes later
//     in the block (the thesis, without that position, takes the one with
//     fewer uses; fewer uses breaks ties here);
//  3. of two values without local uses: one that is in memory, or dead, in
//     every processed successor is the better victim; if both are in a
//     register in some processed successor, the one for which keeping it
//     in a register costs more than spilling it (stores on the edges where
//     it is in memory, against loads where it is in a register, weighted by
//     edge frequency and latency), else the one with the cheaper spill;
//     with no successor processed, the one whose closest region with a use
//     is further away, then the one whose closest region is executed less.
//
// Remaining ties prefer values whose spill stores nothing
// (rematerializable, or already in their slot), then the lower register.
type ThesisVictim struct{}

// Victim implements VictimPolicy.
func (ThesisVictim) Victim(b, pos int, cands []SpillCandidate) int {
	best := 0
	for i := 1; i < len(cands); i++ {
		if betterVictim(&cands[i], &cands[best]) {
			best = i
		}
	}
	return best
}

// betterVictim reports whether a is a better spill victim than b.
func betterVictim(a, b *SpillCandidate) bool {
	if c := compareVictims(a, b); c != 0 {
		return c > 0
	}
	ca, cb := a.Remat || a.Clean, b.Remat || b.Clean
	if ca != cb {
		return ca
	}
	return a.Reg < b.Reg
}

// compareVictims returns 1 if a is the better victim, -1 if b is, 0 when
// the thesis's rules do not decide.
func compareVictims(a, b *SpillCandidate) int {
	la, lb := a.LocalUses > 0, b.LocalUses > 0
	switch {
	case la != lb:
		return boolCmp(!la)
	case la:
		if a.NextUse != b.NextUse {
			return boolCmp(a.NextUse > b.NextUse)
		}
		if a.LocalUses != b.LocalUses {
			return boolCmp(a.LocalUses < b.LocalUses)
		}
		return 0
	}
	// Neither has local uses.
	if len(a.Succs) > 0 || len(b.Succs) > 0 {
		ma, mb := memEverywhere(a), memEverywhere(b)
		if ma != mb {
			return boolCmp(ma)
		}
		if ma {
			return 0
		}
		sa, ra := succCosts(a)
		sb, rb := succCosts(b)
		ga, gb := ra > sa, rb > sb
		if ga != gb {
			return boolCmp(ga)
		}
		if sa != sb {
			return boolCmp(sa < sb)
		}
		return 0
	}
	if a.ClosestDist != b.ClosestDist {
		// A value with no later use at all (-1) is the best victim.
		da, db := a.ClosestDist, b.ClosestDist
		if da < 0 {
			da = 1 << 30
		}
		if db < 0 {
			db = 1 << 30
		}
		return boolCmp(da > db)
	}
	if a.ClosestWeight != b.ClosestWeight {
		return boolCmp(a.ClosestWeight < b.ClosestWeight)
	}
	return 0
}

func boolCmp(aBetter bool) int {
	if aBetter {
		return 1
	}
	return -1
}

// memEverywhere reports whether the value is in memory, or dead, in every
// processed successor.
func memEverywhere(c *SpillCandidate) bool {
	for _, s := range c.Succs {
		if s.Live && s.InReg {
			return false
		}
	}
	return true
}

// succCosts returns the frequency-weighted cost of spilling the value
// (loads on the edges into successors where it starts in a register) and
// of keeping it in a register (stores on the edges into successors where
// it starts in memory).
func succCosts(c *SpillCandidate) (spill, keep float64) {
	for _, s := range c.Succs {
		if !s.Live {
			continue
		}
		if s.InReg {
			spill += s.Freq * loadLatency
		} else {
			keep += s.Freq * storeLatency
		}
	}
	return spill, keep
}
