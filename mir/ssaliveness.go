package mir

import "slices"

// SSALiveness holds the same sets as Liveness (with its φ convention),
// stored sparsely: each block lists the virtual registers live at its start
// and end in increasing order. Its size is the total length of the live
// ranges counted in blocks, not blocks × values, so that very large
// functions stay linear where a bit matrix would be quadratic.
// ComputeSSALiveness computes it for SSA form, ComputeSparseLiveness for
// any form.
type SSALiveness struct {
	in, out [][]int32
}

// LiveIn reports whether virtual register v is live at the start of block b.
func (l *SSALiveness) LiveIn(b, v int) bool { return sortedHas(l.in[b], v) }

// LiveOut reports whether virtual register v is live at the end of block b.
func (l *SSALiveness) LiveOut(b, v int) bool { return sortedHas(l.out[b], v) }

// In lists the virtual registers live at the start of block b, in
// increasing order. The slice must not be modified.
func (l *SSALiveness) In(b int) []int32 { return l.in[b] }

// Out lists the virtual registers live at the end of block b, in
// increasing order. The slice must not be modified.
func (l *SSALiveness) Out(b int) []int32 { return l.out[b] }

func sortedHas(s []int32, v int) bool {
	_, found := slices.BinarySearch(s, int32(v))
	return found
}

// ComputeSSALiveness computes the live-in and live-out sets of every block
// of f, which must be in SSA form (every use dominated by the one
// definition), by exploring paths backwards from each use to the
// definition, one virtual register at a time: a block is entered at most
// once per register, so the cost is linear in the size of the result.
// Registers are explored in increasing order, which leaves every block's
// lists sorted. Physical registers and stack slots are not tracked.
func ComputeSSALiveness(f *Func) *SSALiveness {
	l, _ := computeSparseLiveness(f, nil, -1)
	return l
}

// ComputeSparseLiveness computes the sets of ComputeLiveness (live-in and
// live-out sets of every reachable block, empty sets for unreachable ones)
// for a function in any form, sparsely and in time linear in the size of
// the result, where ComputeLiveness costs blocks × virtual registers: the
// paths are explored backwards from each upward-exposed use (a use not
// preceded by a definition in its block; φ operands are read at the end
// of their predecessor) and stop at the blocks that define the register.
func ComputeSparseLiveness(f *Func) *SSALiveness {
	l, _ := computeSparseLiveness(f, f.Graph().Reachable(), -1)
	return l
}

// LiveSetsWithin reports whether the live-in and live-out sets of f (those
// of ComputeSSALiveness for a function in SSA form) hold at most limit
// entries in all. It stops as soon as they exceed the limit, so its cost
// is bounded by the limit (and the function's size), not by the size of
// the sets, which can be quadratic in the function's: d loop counters
// each live across the O(d) blocks of the loops nested inside theirs. The
// compiled tiers use it to refuse such functions before allocating for
// them.
func LiveSetsWithin(f *Func, limit int) bool {
	_, ok := computeSparseLiveness(f, nil, max(limit, 0))
	return ok
}

// computeSparseLiveness is ComputeSSALiveness and ComputeSparseLiveness:
// with reach set, uses in and paths through the blocks it marks
// unreachable are ignored. With limit >= 0 it returns false, and no sets,
// as soon as the sets hold more than limit entries in all.
func computeSparseLiveness(f *Func, reach []bool, limit int) (*SSALiveness, bool) {
	n := len(f.VRegs)
	nb := len(f.Blocks)
	skip := func(b int) bool { return reach != nil && !reach[b] }
	// Per register, in compressed rows: the blocks that define it, and its
	// uses, an entry b<<1 for an upward-exposed use in block b, p<<1|1 for
	// a φ operand read on the edge out of predecessor p.
	defStart, useStart := make([]int32, n+1), make([]int32, n+1)
	definedIn := make([]int32, n) // block + 1 of the last definition seen
	usedIn := make([]int32, n)    // block + 1 of the last upward-exposed use seen
	forEach := func(def, use func(v int, entry int32)) {
		clear(definedIn)
		clear(usedIn)
		for bi, b := range f.Blocks {
			if skip(bi) {
				continue
			}
			here := int32(bi + 1)
			for _, in := range b.Instrs {
				if in.Op == OpPhi {
					for k, r := range in.Uses {
						if r.IsVirtual() && k < len(b.Preds) && !skip(b.Preds[k]) {
							use(r.Index(), int32(b.Preds[k])<<1|1)
						}
					}
				} else {
					for _, r := range in.Uses {
						if v := r.Index(); r.IsVirtual() && definedIn[v] != here && usedIn[v] != here {
							usedIn[v] = here
							use(v, int32(bi)<<1)
						}
					}
				}
				for _, r := range in.Defs {
					if v := r.Index(); r.IsVirtual() && definedIn[v] != here {
						definedIn[v] = here
						def(v, int32(bi))
					}
				}
			}
		}
	}
	forEach(func(v int, _ int32) { defStart[v+1]++ }, func(v int, _ int32) { useStart[v+1]++ })
	for v := 0; v < n; v++ {
		defStart[v+1] += defStart[v]
		useStart[v+1] += useStart[v]
	}
	defs, uses := make([]int32, defStart[n]), make([]int32, useStart[n])
	defFill, useFill := slices.Clone(defStart[:n]), slices.Clone(useStart[:n])
	forEach(func(v int, b int32) {
		defs[defFill[v]] = b
		defFill[v]++
	}, func(v int, e int32) {
		uses[useFill[v]] = e
		useFill[v]++
	})

	// The walk records (block, register) pairs in one array per direction;
	// a stable bucket sort by block then gives every block its sorted list
	// without a growing slice per block.
	var inPairs, outPairs []int32 // block, register, block, register, ...
	entries := 0                  // pairs recorded (only counted when limit >= 0)
	record := func(pairs *[]int32, b int32, v int) {
		entries++
		if limit < 0 {
			*pairs = append(*pairs, b, int32(v))
		}
	}
	inMark := make([]int32, nb) // v+1 once block b got v live in
	outMark := make([]int32, nb)
	defMark := make([]int32, nb) // v+1 where block b defines v
	var work []int32
	for v := 0; v < n; v++ {
		mark := int32(v + 1)
		for _, b := range defs[defStart[v]:defStart[v+1]] {
			defMark[b] = mark
		}
		liveOut := func(p int32) {
			if outMark[p] != mark {
				outMark[p] = mark
				record(&outPairs, p, v)
				if defMark[p] != mark {
					work = append(work, p)
				}
			}
		}
		for _, e := range uses[useStart[v]:useStart[v+1]] {
			if b := e >> 1; e&1 != 0 {
				liveOut(b)
			} else {
				work = append(work, b)
			}
		}
		for len(work) > 0 {
			if limit >= 0 && entries > limit {
				return nil, false
			}
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if inMark[b] == mark {
				continue
			}
			inMark[b] = mark
			record(&inPairs, b, v)
			for _, p := range f.Blocks[b].Preds {
				if !skip(p) {
					liveOut(int32(p))
				}
			}
		}
	}
	if limit >= 0 {
		return nil, entries <= limit // only the count was asked for
	}
	return &SSALiveness{in: bucketByBlock(inPairs, nb), out: bucketByBlock(outPairs, nb)}, true
}

// bucketByBlock turns (block, register) pairs, registers in increasing
// order, into one list per block sharing one backing array.
func bucketByBlock(pairs []int32, nb int) [][]int32 {
	start := make([]int32, nb+1)
	for i := 0; i < len(pairs); i += 2 {
		start[pairs[i]+1]++
	}
	for b := 0; b < nb; b++ {
		start[b+1] += start[b]
	}
	regs := make([]int32, len(pairs)/2)
	fill := slices.Clone(start[:nb])
	for i := 0; i < len(pairs); i += 2 {
		b := pairs[i]
		regs[fill[b]] = pairs[i+1]
		fill[b]++
	}
	lists := make([][]int32, nb)
	for b := range lists {
		lists[b] = regs[start[b]:start[b+1]:start[b+1]]
	}
	return lists
}
