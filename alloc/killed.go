package alloc

import (
	"cmp"
	"slices"

	"github.com/kiln-jit/kiln/mir"
)

// eventIndex answers, for the writes of one physical register (its
// regEvents), how many fall in a range of points of a block, in all and
// for one value, by binary search. An event's point is the position after
// which it writes the register: its instruction's for a definition or a
// clobber, the one before for a copy into a fixed-register use.
type eventIndex struct {
	byPoint []eventKey // by block, then point
	byValue []eventKey // by value, then block, then point
}

type eventKey struct{ value, block, point int32 }

func newEventIndex(events []regEvent) *eventIndex {
	x := &eventIndex{byPoint: make([]eventKey, len(events))}
	for i, e := range events {
		p := e.idx
		if e.before {
			p--
		}
		x.byPoint[i] = eventKey{e.value, e.block, p}
	}
	x.byValue = slices.Clone(x.byPoint)
	slices.SortFunc(x.byPoint, func(a, b eventKey) int {
		return cmp.Or(cmp.Compare(a.block, b.block), cmp.Compare(a.point, b.point))
	})
	slices.SortFunc(x.byValue, func(a, b eventKey) int {
		return cmp.Or(cmp.Compare(a.value, b.value), cmp.Compare(a.block, b.block), cmp.Compare(a.point, b.point))
	})
	return x
}

// others returns whether a write of a value other than v falls at a point
// in [lo, hi) of block b.
func (x *eventIndex) others(v, b, lo, hi int32) bool {
	if lo >= hi {
		return false
	}
	atPoint := func(keys []eventKey, p int32) int {
		i, _ := slices.BinarySearchFunc(keys, eventKey{block: b, point: p}, func(k, t eventKey) int {
			return cmp.Or(cmp.Compare(k.block, t.block), cmp.Compare(k.point, t.point))
		})
		return i
	}
	all := atPoint(x.byPoint, hi) - atPoint(x.byPoint, lo)
	if all == 0 {
		return false
	}
	from, _ := slices.BinarySearchFunc(x.byValue, v, func(k eventKey, v int32) int { return cmp.Compare(k.value, v) })
	to, _ := slices.BinarySearchFunc(x.byValue, v+1, func(k eventKey, v int32) int { return cmp.Compare(k.value, v) })
	own := x.byValue[from:to]
	return all > atPoint(own, hi)-atPoint(own, lo)
}

// computeKilled sets rs.killed: for every physical register, which of the
// values defined in it killedInitially finds overwritten while still
// needed, in time near-linear in the size of the live ranges rather than
// values × writes of the register.
//
// Value w is live at a write of its register at point q of block b exactly
// when w is defined at or before q (its definition is in another block,
// or at position ≤ q in b) and read after q (w is live out of b, or its
// last use in b comes after q): an interval of the points of each block
// where w is live out or read, which the event index searches. Another
// value u defined in the register (whose definition is such a write)
// interferes with w in the sense of killedInitially in the same cases,
// besides one: u's instruction ties its def to an operand and reads w
// through another, which the tied pass below finds. A register holding a φ
// (which no register does as the resources are built) is left to
// killedInitially.
func (rs *resources) computeKilled() {
	s := rs.s
	rs.killed = make([]bool, rs.n)
	if !slices.ContainsFunc(rs.events, func(e []regEvent) bool { return len(e) > 0 }) {
		return // no constraints: nothing is pinned
	}
	// The blocks every value is live out of: for the values defined in
	// physical registers here, for every value pinning tests later.
	s.indexLiveOut(nil)
	for p := range rs.events {
		members := rs.members[rs.root(rs.n+p)]
		if len(members) == 0 {
			continue
		}
		if slices.ContainsFunc(members, func(w int) bool { return s.isPhi[w] }) {
			for _, w := range members {
				rs.killed[w] = rs.killedInitially(w, p, members)
			}
			continue
		}
		x := newEventIndex(rs.events[p])
		for _, w := range members {
			rs.killed[w] = rs.liveAtOtherWrite(x, w)
		}
		rs.tiedKills(p, members)
	}
}

// liveAtOtherWrite reports whether value w is live at a write of its
// register (indexed by x) of another value or a clobber.
func (rs *resources) liveAtOtherWrite(x *eventIndex, w int) bool {
	found := false
	rs.s.liveBlocks(w, func(b, lo, hi int32) {
		found = found || x.others(int32(w), b, lo, hi)
	})
	return found
}

// tiedKills marks the values of a physical register's members whose
// location another member's tied definition overwrites while its
// instruction still reads them (ssaInfo.clobbersUse).
func (rs *resources) tiedKills(p int, members []int) {
	s := rs.s
	root := rs.root(rs.n + p)
	for _, u := range members {
		in := s.defInstr[u]
		if in == nil {
			continue
		}
		di := -1
		for i, r := range in.Defs {
			if r == mir.VReg(u) {
				di = i
			}
		}
		spec := s.f.DefSpec(in, di)
		if spec.EarlyClobber || spec.Tied < 0 {
			continue // early clobbers are writes before the instruction
		}
		for _, r := range in.Uses {
			if w := r.Index(); r.IsVirtual() && r != in.Uses[spec.Tied] && w != u &&
				s.defBlock[w] >= 0 && rs.root(w) == root && s.dominatesDef(w, u) {
				rs.killed[w] = true
			}
		}
	}
}
