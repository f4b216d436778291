package profilecounters

import "slices"

// Snapshot is a copy of a function's counters at one moment, typically when
// the function was compiled with the profile they describe.
type Snapshot struct {
	counters []uint64
}

// TakeSnapshot copies counters.
func TakeSnapshot(counters []uint64) Snapshot { return Snapshot{counters: slices.Clone(counters)} }

// Counters returns the snapshot's counter values. Do not modify them.
func (s Snapshot) Counters() []uint64 { return s.counters }

// Drift says how far a function's behaviour since a snapshot differs from
// its behaviour up to the snapshot.
type Drift struct {
	// Distance is in [0, 1]: the total-variation distance between each
	// branching block's edge probabilities before and after the snapshot,
	// averaged over the blocks weighted by how often each executed since.
	// 0 means every branch behaves as before; 1 means every executed branch
	// went only where it had never gone.
	Distance float64
	// Samples is the number of branch executions since the snapshot: a
	// distance computed from few samples is noise.
	Samples uint64
	// Calls is the number of calls since the snapshot.
	Calls uint64
}

// Drift compares the function's behaviour recorded in current (the live
// counters, which must have grown from snap's) with the behaviour up to snap.
// Probabilities on both sides are smoothed as in Probabilities.
func (l *Layout) Drift(snap Snapshot, current []uint64) Drift {
	before := l.EdgeCounts(snap.counters)
	after := l.EdgeCounts(current)
	recent := make([]uint64, len(after))
	for e := range after {
		if after[e] > before[e] {
			recent[e] = after[e] - before[e]
		}
	}
	pBefore, pRecent := l.smoothed(before), l.smoothed(recent)
	var d Drift
	if current[EntryCounter] > snap.counters[EntryCounter] {
		d.Calls = current[EntryCounter] - snap.counters[EntryCounter]
	}
	weighted := 0.0
	for b := range l.Blocks {
		blk := &l.Blocks[b]
		if blk.NumEdges < 2 {
			continue
		}
		var n uint64
		tv := 0.0
		for e := blk.FirstEdge; e < blk.FirstEdge+blk.NumEdges; e++ {
			n += recent[e]
			diff := pBefore[e] - pRecent[e]
			if diff < 0 {
				diff = -diff
			}
			tv += diff
		}
		d.Samples += n
		weighted += float64(n) * tv / 2
	}
	if d.Samples > 0 {
		d.Distance = weighted / float64(d.Samples)
	}
	return d
}
