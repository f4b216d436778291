package alloc

import (
	"cmp"
	"math"
	"slices"
)

// physPins indexes, for each physical register, the values pinned to it by
// block, so that physInterfere finds the few pinned values that can
// interfere with a value instead of testing every one: a register such as
// the return register of a function with many calls has as many pinned
// values, and testing each against each candidate was quadratic.
//
// The search rests on an invariant of the pinned values of one register:
// when two of them interfere, the one whose definition dominates the
// other's is killed (rs.killed: computeKilled finds every such value among
// the values defined in the register, and physInterfere refuses to pin a
// value that would break it). So at any point of the function at most one
// pinned value that is not killed is live in the register, and for a value
// v whose definition is dominated by a pinned value w's, w can only
// interfere with v when it is that one value live at v's definition (a
// killed w dominating v costs nothing new: it is repaired anyway).
type physPins struct {
	// defs lists per register and block the pinned values defined in the
	// block, by position; alive lists those not killed.
	defs, alive []map[int32][]pinnedDef
	// liveIn lists per register and block the pinned values not killed
	// that are live into the block (at most one, by the invariant, unless
	// φs of one block are pinned to one register).
	liveIn []map[int32][]int32
	// events indexes the writes of each register (built when first asked).
	events []*eventIndex
}

// pinnedDef is a value pinned to a register and the position of its
// definition in its block.
type pinnedDef struct {
	idx, value int32
}

// pins returns the index of the pinned values, building it from the
// resources of the physical registers the first time.
func (rs *resources) pins() *physPins {
	if rs.pinned != nil {
		return rs.pinned
	}
	nphys := len(rs.events)
	x := &physPins{defs: make([]map[int32][]pinnedDef, nphys), alive: make([]map[int32][]pinnedDef, nphys),
		liveIn: make([]map[int32][]int32, nphys), events: make([]*eventIndex, nphys)}
	rs.pinned = x
	for p := range nphys {
		for _, w := range rs.members[rs.root(rs.n+p)] {
			rs.addPinned(p, w)
		}
	}
	return x
}

// addPinned records that value w is pinned to the register of index p.
func (rs *resources) addPinned(p, w int) {
	s, x := rs.s, rs.pinned
	if x.defs[p] == nil {
		x.defs[p], x.alive[p], x.liveIn[p] = map[int32][]pinnedDef{}, map[int32][]pinnedDef{}, map[int32][]int32{}
	}
	b, d := s.defBlock[w], pinnedDef{s.defIdx[w], int32(w)}
	x.defs[p][b] = insertPinned(x.defs[p][b], d)
	if rs.killed[w] {
		return
	}
	x.alive[p][b] = insertPinned(x.alive[p][b], d)
	s.liveBlocks(w, func(c, _, _ int32) {
		if c != b {
			x.liveIn[p][c] = append(x.liveIn[p][c], int32(w))
		}
	})
}

// insertPinned adds d to a list in position order. Pinning visits the
// instructions of a block in order, so d usually goes last.
func insertPinned(list []pinnedDef, d pinnedDef) []pinnedDef {
	if n := len(list); n == 0 || list[n-1].idx <= d.idx {
		return append(list, d)
	}
	return slices.Insert(list, searchPinned(list, d.idx+1), d)
}

// searchPinned returns the position of the first entry of list at or
// after position idx.
func searchPinned(list []pinnedDef, idx int32) int {
	i, _ := slices.BinarySearchFunc(list, idx, func(e pinnedDef, idx int32) int { return cmp.Compare(e.idx, idx) })
	return i
}

// eventIndex returns the index of the writes of the register of index p.
func (x *physPins) eventIndex(rs *resources, p int) *eventIndex {
	if x.events[p] == nil {
		x.events[p] = newEventIndex(rs.events[p])
	}
	return x.events[p]
}

// liveBlocks calls visit for every block where value v is live somewhere
// (in increasing order): the blocks it is live out of and the blocks an
// ordinary instruction reads it in, with the positions of the block where
// it is live: from lo (its definition's, or math.MinInt32 when it is live
// in) to hi (its last use in the block, or math.MaxInt32 when it is live
// out), both included. A value is live into a block exactly when it is
// live there and defined elsewhere.
func (s *ssaInfo) liveBlocks(v int, visit func(b, lo, hi int32)) {
	out, used := s.liveOutBlocks(v), s.lastUse[v]
	for len(out) > 0 || len(used) > 0 {
		var b, hi int32
		switch {
		case len(used) == 0 || len(out) > 0 && out[0] < used[0].block:
			b, hi, out = out[0], math.MaxInt32, out[1:]
		case len(out) > 0 && out[0] == used[0].block:
			b, hi, out, used = out[0], math.MaxInt32, out[1:], used[1:]
		default:
			b, hi, used = used[0].block, used[0].idx, used[1:]
		}
		lo := int32(math.MinInt32)
		if s.defBlock[v] == b {
			lo = s.defIdx[v]
		}
		visit(b, lo, hi)
	}
}

// pinnedClash reports whether value v interferes with a value pinned to
// the register of index p in a way that pinning v there would break:
// exactly when some pinned w interferes with v and either v's definition
// does not come after w's or w is not killed (see physPins). The pinned
// values it tests are those defined where v is live (v dominates them),
// those defined by v's instruction or, for a φ, by the φs of its block,
// and the one value not killed that can be live at v's definition: the
// last one defined before it in its block, and those live into the block.
func (rs *resources) pinnedClash(p, v int) bool {
	s, x := rs.s, rs.pins()
	defs := x.defs[p]
	if len(defs) == 0 {
		return false
	}
	clash := func(w int) bool {
		return w != v && s.interfere(v, w) && (!s.dominatesDef(w, v) || !rs.killed[w])
	}
	found := false
	s.liveBlocks(v, func(b, lo, hi int32) {
		if found {
			return
		}
		list := defs[b]
		for i := searchPinned(list, lo); i < len(list) && list[i].idx <= hi; i++ {
			if clash(int(list[i].value)) {
				found = true
				return
			}
		}
	})
	if found {
		return true
	}
	b, at := s.defBlock[v], s.defIdx[v]
	list := defs[b]
	for i := searchPinned(list, at); i < len(list) && list[i].idx == at; i++ {
		if clash(int(list[i].value)) {
			return true
		}
	}
	for i := 0; s.isPhi[v] && i < len(list) && s.isPhi[list[i].value]; i++ {
		if clash(int(list[i].value)) {
			return true
		}
	}
	alive := x.alive[p][b]
	if i := searchPinned(alive, at); i > 0 && clash(int(alive[i-1].value)) {
		return true
	}
	for _, w := range x.liveIn[p][b] {
		if clash(int(w)) {
			return true
		}
	}
	return false
}
